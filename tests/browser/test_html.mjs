// test_html.mjs -- the HTML view of `waterfall render` as a person uses it,
// in headless Chromium (tests/test_html.sh writes the reports):
//
//   node test_html.mjs CHROMIUM ONE.html TWO.html
//
// ONE.html is tests/test_html.sh's known log, with two hostile job ids;
// TWO.html holds two runs.  Checks: no console error, no request but the
// file itself, every phase and lane colour on the canvas, a tooltip with
// the unit under the pointer, wheel zoom, drag, keys and Reset, hostile
// ids inert and shown literally, one summary per run.
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { launch } from './launch.mjs';

const [chromiumPath, one, two] = process.argv.slice(2);
let pass = 0, fail = 0;
function check(ok, what) {
  if (ok) pass++;
  else {
    fail++;
    console.log('FAIL: ' + what);
  }
}

const browser = await launch(chromiumPath);
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const url = pathToFileURL(resolve(one)).href;
  const requests = [], errors = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => window.__waterfall && window.__waterfall.ready, null, { timeout: 15000 });

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
} finally {
  await browser.close();
}
console.log('html (browser): ' + pass + ' passed, ' + fail + ' failed');
process.exit(fail ? 1 : 0);
