// tti.mjs -- how soon an HTML report is usable, and how fast it redraws,
// in headless Chromium (bench/bench_render.sh runs it).
//
//   node tests/browser/tti.mjs CHROMIUM REPORT.html [ROUNDS]
//
// Per round, a fresh page: the time from the start of navigation to the
// first complete frame with every handler in place (window.__waterfall.ready),
// by the page's own clock (performance.now() is 0 at navigation start).
// Then, on the last page, 20 wheel zooms in and 20 out around the middle,
// each awaited to its frame: the time each redraw took (window.__waterfall
// .drawMs).  Prints one line:
//   tti_ms_median tti_ms_max draw_ms_median draw_ms_max
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { launch } from './launch.mjs';

const [chromiumPath, report, rounds = '3'] = process.argv.slice(2);
const browser = await launch(chromiumPath);
const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
try {
  const ttis = [];
  let page = null;
  for (let r = 0; r < +rounds; r++) {
    if (page) await page.close();
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(pathToFileURL(resolve(report)).href);
    await page.waitForFunction(() => window.__waterfall && window.__waterfall.ready, null, { timeout: 60000 });
    ttis.push(await page.evaluate(() => window.__waterfall.readyAt));
  }
  const frames = await page.evaluate(async () => {
    const c = document.querySelector('canvas'), r = c.getBoundingClientRect();
    const out = [];
    const frame = () => new Promise((res) => requestAnimationFrame(() => res()));
    for (let i = 0; i < 40; i++) {
      c.dispatchEvent(new WheelEvent('wheel', {
        deltaY: i < 20 ? -120 : 120, clientX: r.left + r.width * 0.6, clientY: r.top + r.height * 0.5,
        bubbles: true, cancelable: true,
      }));
      await frame();
      await frame();
      out.push(window.__waterfall.drawMs);
    }
    return out;
  });
  const f = (x) => x.toFixed(0);
  console.log([f(median(ttis)), f(Math.max(...ttis)), f(median(frames)), f(Math.max(...frames))].join(' '));
} finally {
  await browser.close();
}
