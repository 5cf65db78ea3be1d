// shot.mjs -- a screenshot of an HTML report as a person sees it, with the
// pointer on a unit when asked (its tooltip shown).  tests/test_html.sh
// runs it; the README's picture (docs/report-html.png) is this, of the
// demo's report:
//   node tests/browser/shot.mjs CHROMIUM REPORT.html OUT.png [WIDTH HEIGHT [JOB [RUN]]]
//   node tests/browser/shot.mjs /usr/bin/chromium demo-out/report.html docs/report-html.png 1400 1200 job-30 1
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { launch } from './launch.mjs';

const [chromiumPath, report, out, width = '1400', height = '1000', job, run] = process.argv.slice(2);
if (!out) {
  console.error('usage: node shot.mjs CHROMIUM REPORT.html OUT.png [WIDTH HEIGHT]');
  process.exit(2);
}
const browser = await launch(chromiumPath);
try {
  const page = await browser.newPage({ viewport: { width: +width, height: +height } });
  await page.goto(pathToFileURL(resolve(report)).href);
  await page.waitForFunction(() => window.__waterfall && window.__waterfall.ready, null, { timeout: 20000 });
  if (job) {
    const where = () => page.evaluate(([j, r]) => window.__waterfall.locate(j, null, r), [job, run === undefined ? null : +run]);
    let at = await where();
    if (at && (at.y < 0 || at.y >= +height)) {
      // below the fold (the summaries above it grew): scroll it into view
      await page.evaluate((dy) => window.scrollBy(0, dy), at.y - +height / 2);
      at = await where();
    }
    if (!at) throw new Error('shot: unit ' + job + ' is not in view');
    await page.mouse.move(at.x, at.y);
    await page.waitForFunction(() => !document.getElementById('tip').hidden);
  }
  // A full-page shot resizes the viewport, which would move the pointer's
  // unit: with a tooltip, the viewport as it is.
  await page.screenshot({ path: out, fullPage: !job });
  console.log('shot: ' + out);
} finally {
  await browser.close();
}
