// test_html.mjs -- the HTML view of `waterfall render` as a person uses it,
// in headless Chromium (tests/test_html.sh writes the reports):
//
//   node test_html.mjs CHROMIUM ONE.html TWO.html [KERN.html]
//
// ONE.html is tests/test_html.sh's known log, with two hostile job ids;
// TWO.html holds two runs; KERN.html its log with sub-phases and kernels
// (two workers on one device, their kernels serialized).  Checks: no
// console error, no request but the file itself, every phase and lane
// colour on the canvas, a tooltip with the unit under the pointer, wheel
// zoom, drag, keys and Reset, hostile ids inert and shown literally, one
// summary per run; no kernel lane or kernel figure without kernel phases;
// with them, a kernel lane under the device's, sub-phases painted inside
// their GPU bars, kernel utilization and what fills the GPU phase in the
// summary, kind, phases, marks and GPU_QUEUE in the tooltips.
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { launch } from './launch.mjs';
import { checker, openReport } from './page.mjs';

const [chromiumPath, one, two, kern] = process.argv.slice(2);
const { check, done } = checker();

const browser = await launch(chromiumPath);
try {
  const { page, url, requests, errors } = await openReport(browser, one);

  check(errors.length === 0, 'console errors: ' + errors.join(' | '));
  check(requests.length === 1 && requests[0] === url, 'requests beyond the file: ' + requests.join(', '));
  const csp = await page.evaluate(() => {
    const m = document.querySelector('meta[http-equiv="Content-Security-Policy"]');
    return m ? m.content : '';
  });
  check(/default-src 'none'/.test(csp) && !/script-src[^;]*unsafe-inline/.test(csp), 'CSP: ' + csp);

  // Every colour of the legend is on the canvas (pixels are painted
  // exactly, without blending, so exact matches are expected).
  const colours = await page.evaluate(() => {
    const c = document.querySelector('canvas');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const seen = new Set();
    for (let i = 0; i < d.length; i += 4) seen.add(((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]) >>> 0);
    const k = window.__waterfall.colors;
    const want = k.phases.concat(k.causes, [k.busy]);
    return want.map((h) => [h, seen.has(parseInt(h.slice(1), 16))]);
  });
  for (const [h, ok] of colours) check(ok, 'colour ' + h + ' is not on the canvas');

  // No kernel phases: no kernel lane, no kernel figure, no sub-phase.
  const lanes1 = await page.evaluate(() => window.__waterfall.lanes());
  check(lanes1.length === 1 && lanes1[0].every((l) => l.kind !== 'kernel'), 'a kernel lane without kernel phases: ' + JSON.stringify(lanes1));
  check(!/kernel/i.test(await page.evaluate(() => document.body.innerText)), 'kernel words without kernel phases');
  check((await page.evaluate(() => window.__waterfall.subphases('beta'))).subs.length === 0, 'sub-phases without phases');

  // Hover over a known unit's bar: the tooltip names it.
  async function hoverUnit(job, partition) {
    const at = await page.evaluate(([j, p]) => window.__waterfall.locate(j, p), [job, partition]);
    check(at !== null, 'unit ' + job + ' is not in view');
    if (!at) return '';
    await page.mouse.move(at.x, at.y);
    await page.waitForFunction(() => !document.getElementById('tip').hidden, null, { timeout: 3000 }).catch(() => {});
    return page.evaluate(() => {
      const t = document.getElementById('tip');
      return t.hidden ? '' : t.textContent;
    });
  }
  let tip = await hoverUnit('beta', null);
  check(tip.startsWith('beta'), 'tooltip of beta: ' + tip);
  for (const e of ['SYNTH_START', 'SYNTH_END', 'CHAN_SEND', 'GPU_PICKUP', 'GPU_START', 'GPU_END'])
    check(tip.includes(e), 'tooltip lacks ' + e);
  // beta: synthesis 600..900 ms, gpu 930..1100 ms (the known log).
  check(tip.includes('600 ms') && tip.includes('1100 ms'), 'tooltip times of beta: ' + tip);
  check(tip.includes('300.0 ms') && tip.includes('170.0 ms'), 'tooltip durations of beta: ' + tip);
  tip = await hoverUnit('alpha', 1);
  check(tip.startsWith('alpha') && tip.includes('partition 1'), 'tooltip of alpha p1: ' + tip);

  // Hostile ids: shown literally, never run.
  for (const evil of ['</script><script>window.pwned=1</script>', '<img src=x onerror=window.pwned=1>']) {
    tip = await hoverUnit(evil, null);
    check(tip.startsWith(evil), 'hostile id not shown literally: ' + tip);
  }
  const dom = await page.evaluate(() => ({
    pwned: window.pwned,
    imgs: document.querySelectorAll('img').length,
    scripts: document.querySelectorAll('script').length,
  }));
  check(dom.pwned === undefined, 'window.pwned was set');
  check(dom.imgs === 0, 'an <img> element appeared');
  check(dom.scripts === 2, 'scripts in the page: ' + dom.scripts);

  // Wheel zoom around the pointer, drag, keys, Reset.
  const view = () => page.evaluate(() => window.__waterfall.view());
  const frame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const full = await view();
  const box = await page.evaluate(() => {
    const r = document.querySelector('canvas').getBoundingClientRect();
    return { x: r.left, y: r.top, w: r.width, h: r.height };
  });
  const gutter = 190, px = box.x + gutter + (box.w - gutter - 14) * 0.5, py = box.y + box.h * 0.6;
  await page.mouse.move(px, py);
  await page.mouse.wheel(0, -600);
  await frame();
  const zoomed = await view();
  const span = (v) => v[1] - v[0];
  check(span(zoomed) < span(full) * 0.6, 'wheel did not zoom in: ' + full + ' -> ' + zoomed);
  const mid = (full[0] + full[1]) / 2, at = zoomed[0] + span(zoomed) * 0.5; /* the time under the pointer */
  check(Math.abs(at - mid) < span(full) * 0.02, 'zoom is not around the pointer: ' + zoomed);
  await page.mouse.down();
  await page.mouse.move(px + 200, py, { steps: 4 });
  await page.mouse.up();
  await frame();
  const dragged = await view();
  check(dragged[0] < zoomed[0] && Math.abs(span(dragged) - span(zoomed)) < 1e-9, 'drag did not pan: ' + zoomed + ' -> ' + dragged);
  await page.keyboard.press('0');
  await frame();
  check(JSON.stringify(await view()) === JSON.stringify(full), 'key 0 did not reset');
  await page.mouse.move(px, py);
  await page.mouse.wheel(0, -600);
  await frame();
  await page.click('button');
  await frame();
  check(JSON.stringify(await view()) === JSON.stringify(full), 'Reset did not reset');
  await page.keyboard.press('+');
  await frame();
  await page.keyboard.press('r');
  await frame();
  check(JSON.stringify(await view()) === JSON.stringify(full), 'key r did not reset');

  // Zoomed in far, the axis still has ticks and the unit rows follow.
  await page.evaluate(() => {
    const c = document.querySelector('canvas');
    for (let i = 0; i < 8; i++) c.dispatchEvent(new WheelEvent('wheel', { deltaY: -300, clientX: c.getBoundingClientRect().left + 400, clientY: 300, bubbles: true, cancelable: true }));
  });
  await frame();
  const deep = await view();
  check(span(deep) < span(full) / 50 && span(deep) > 0, 'deep zoom: ' + deep);
  check(errors.length === 0, 'console errors after interaction: ' + errors.join(' | '));
  await page.keyboard.press('0');
  await frame();

  // Two runs: one summary each, one time scale.
  const page2 = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors2 = [];
  page2.on('console', (m) => { if (m.type() === 'error') errors2.push(m.text()); });
  page2.on('pageerror', (e) => errors2.push(String(e)));
  await page2.goto(pathToFileURL(resolve(two)).href);
  await page2.waitForFunction(() => window.__waterfall && window.__waterfall.ready, null, { timeout: 15000 });
  const cards = await page2.evaluate(() => Array.from(document.querySelectorAll('.card h2')).map((h) => h.textContent));
  check(cards.length === 2, 'two runs, summaries: ' + cards.join(', '));
  const texts = await page2.evaluate(() => Array.from(document.querySelectorAll('.card')).map((c) => c.textContent));
  check(texts.every((t) => /GPU utilization/.test(t) && /bottleneck/.test(t) && /advice/.test(t)), 'a summary lacks utilization, bottleneck or advice');
  check(errors2.length === 0, 'console errors with two runs: ' + errors2.join(' | '));

  if (kern) await kernelPage(kern);
} finally {
  await browser.close();
}
async function kernelPage(file) {
  const { page, errors } = await openReport(browser, file);
  check(errors.length === 0, 'console errors with sub-phases: ' + errors.join(' | '));

  // The kernel lane: under the device's, before the workers'.
  const lanes = await page.evaluate(() => window.__waterfall.lanes());
  check(JSON.stringify(lanes[0].map((l) => l.kind)) === JSON.stringify(['device', 'kernel', 'worker', 'worker']),
    'lanes: ' + JSON.stringify(lanes));

  // Each sub-phase inside its unit's GPU bar, painted in its colour.
  const k = await page.evaluate(() => window.__waterfall.colors);
  // one readback of the canvas (several make Chromium warn on the console)
  await page.evaluate(() => {
    const c = document.querySelector('canvas');
    window.__px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  });
  const pixel = (x, y) => page.evaluate(([x, y]) => {
    const c = document.querySelector('canvas'), r = c.getBoundingClientRect();
    const i = 4 * (Math.floor((y - r.top) * c.height / r.height) * c.width + Math.floor((x - r.left) * c.width / r.width));
    const d = window.__px;
    return '#' + [d[i], d[i + 1], d[i + 2]].map((v) => v.toString(16).padStart(2, '0')).join('').toUpperCase();
  }, [x, y]);
  const want = { a: ['HOST_MSM', 'KERNEL'], b: ['HOST_MSM', 'KERNEL'], c: ['KERNEL', 'LOAD'] };
  for (const job of Object.keys(want)) {
    const sp = await page.evaluate((j) => window.__waterfall.subphases(j), job);
    check(sp && JSON.stringify(sp.subs.map((s) => s.name).sort()) === JSON.stringify(want[job]),
      'sub-phases of ' + job + ': ' + JSON.stringify(sp));
    if (!sp) continue;
    for (const s of sp.subs) {
      check(s.x0 >= sp.gpu.x0 - 0.01 && s.x1 <= sp.gpu.x1 + 0.01 && s.y0 >= sp.gpu.y0 && s.y1 <= sp.gpu.y1 && s.y1 > s.y0,
        s.name + ' of ' + job + ' outside its GPU bar: ' + JSON.stringify([s, sp.gpu]));
      const got = await pixel((s.x0 + s.x1) / 2, (s.y0 + s.y1) / 2);
      // c's LOAD overlaps its KERNEL, drawn over it: its own colour only past it
      const x = s.name === 'LOAD' ? (Math.max(s.x0, sp.subs.find((t) => t.name === 'KERNEL').x1) + s.x1) / 2 : (s.x0 + s.x1) / 2;
      const at = await pixel(x, (s.y0 + s.y1) / 2);
      check((s.name === 'LOAD' ? at : got) === s.color.toUpperCase(),
        s.name + ' of ' + job + ' is not painted ' + s.color + ': ' + got + ' / ' + at);
    }
    // above the band, the GPU bar's own green
    const g = await pixel((sp.gpu.x0 + sp.gpu.x1) / 2, sp.gpu.y0 + 1);
    check(g === k.phases[4].toUpperCase(), 'the GPU bar of ' + job + ' above its sub-phases: ' + g);
  }
  const kernelPx = await page.evaluate((kc) => {
    const d = window.__px;
    const want = parseInt(kc.slice(1), 16);
    for (let i = 0; i < d.length; i += 4) if (((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]) === want) return true;
    return false;
  }, k.kernel);
  check(kernelPx, 'the kernel colour is not on the canvas');

  // The summary: kernel utilization beside utilization, what fills the rest.
  const card = await page.evaluate(() => document.querySelector('.card').textContent);
  check(/78\.3%kernel utilization: KERNEL phases busy 90\.0 ms of the same window/.test(card), 'kernel utilization: ' + card);
  check(card.includes('HOST_MSM 10.9%, LOAD 5.7%, unaccounted 34.5%'), 'the GPU phase\'s fill: ' + card);
  const legend = await page.evaluate(() => (document.getElementById('sublegend') || {}).textContent || '');
  check(legend.includes('KERNEL (kernel)') && legend.includes('HOST_MSM') && legend.includes('LOAD'), 'legend: ' + legend);

  // Tooltips: kind, GPU_QUEUE as written, phases, marks with their times.
  async function tipOf(job) {
    const at = await page.evaluate((j) => window.__waterfall.locate(j), job);
    if (!at) return '';
    await page.mouse.move(at.x, at.y);
    await page.waitForFunction(() => !document.getElementById('tip').hidden, null, { timeout: 3000 }).catch(() => {});
    return page.evaluate(() => document.getElementById('tip').textContent);
  }
  let tip = await tipOf('a');
  check(tip.includes('kind porep-c2') && tip.includes('GPU_QUEUE') && !tip.includes('CHAN_SEND'), 'tooltip of a: ' + tip);
  check(tip.includes('HOST_MSM5.0 ms') && tip.includes('KERNEL40.0 ms') && tip.includes('LOAD (in synthesis)6.0 ms'), 'phases of a: ' + tip);
  check(tip.includes('GPU_FINALIZEat 70 ms'), 'mark of a: ' + tip);
  tip = await tipOf('b');
  check(tip.includes('kind winning-post') && tip.includes('CHAN_SEND') && !tip.includes('GPU_QUEUE'), 'tooltip of b: ' + tip);
  check(tip.includes('PROOF_SENTat 140 ms'), 'mark of b: ' + tip);
  // the kernel lane's own tooltip
  const kl = lanes[0][1], box = await page.evaluate(() => {
    const r = document.querySelector('canvas').getBoundingClientRect();
    return { x: r.left, w: r.width };
  });
  const sp = await page.evaluate(() => window.__waterfall.subphases('a'));
  const kx = sp.subs.find((s) => s.name === 'KERNEL');
  await page.mouse.move((kx.x0 + kx.x1) / 2, kl.y + kl.h / 2);
  await page.waitForFunction(() => !document.getElementById('tip').hidden, null, { timeout: 3000 }).catch(() => {});
  tip = await page.evaluate(() => document.getElementById('tip').textContent);
  check(tip.includes('GPU 0 kernels') && tip.includes('kernels run 20 ms \u2013 100 ms') && tip.includes('78.3%'),
    'kernel lane tooltip: ' + tip + ' (canvas at ' + box.x + ')');
  check(errors.length === 0, 'console errors after hovering: ' + errors.join(' | '));
}

done('html (browser)');
