// svg_tooltip.mjs -- the SVG of `waterfall render` in headless Chromium: the
// pointer over a unit's row lands on the row's titled rectangle (its
// <title> is the tooltip a browser shows), not on a coloured bar or the
// background.
//
//   node svg_tooltip.mjs CHROMIUM FILE.svg JOB
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { launch } from './launch.mjs';

const [chromiumPath, svg, job] = process.argv.slice(2);
const browser = await launch(chromiumPath);
let failed = 0;
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.goto(pathToFileURL(resolve(svg)).href);
  // every row with a title: the pointer at its middle, over its bars
  const got = await page.evaluate((job) => {
    const out = [];
    for (const t of document.querySelectorAll('rect > title')) {
      const r = t.parentElement.getBoundingClientRect();
      // the middle of the row, and a point on each bar in it
      const ys = r.top + r.height / 2;
      const xs = [r.left + r.width / 2];
      for (const b of document.querySelectorAll('rect:not(:has(title))')) {
        const q = b.getBoundingClientRect();
        if (q.top <= ys && q.bottom >= ys && q.width > 2) xs.push(q.left + q.width / 2);
      }
      for (const x of xs) {
        const e = document.elementFromPoint(x, ys);
        const title = e && e.querySelector ? e.querySelector('title') : null;
        out.push({ want: t.textContent, got: title ? title.textContent : (e ? e.tagName : 'nothing') });
      }
    }
    return out;
  }, job);
  const wrong = got.filter((g) => g.got !== g.want);
  const seen = got.some((g) => g.want.startsWith(job));
  if (!got.length || wrong.length || !seen) {
    failed = 1;
    console.log(`FAIL: SVG tooltips: ${got.length} points, ${wrong.length} not on their row's title` +
      (wrong.length ? ` (first: pointer over "${wrong[0].want}" found ${wrong[0].got})` : '') +
      (seen ? '' : `; no row titled ${job}`));
  } else {
    console.log(`svg: the pointer finds the row's title at all ${got.length} points`);
  }
} finally {
  await browser.close();
}
process.exit(failed);
