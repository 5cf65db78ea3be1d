// shot.mjs -- a screenshot of an HTML report as a person first sees it.
//   node tests/browser/shot.mjs CHROMIUM REPORT.html OUT.png [WIDTH HEIGHT]
// The README's picture (docs/report-html.png) is this, of the demo's report.
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { launch } from './launch.mjs';

const [chromiumPath, report, out, width = '1400', height = '1000'] = process.argv.slice(2);
if (!out) {
  console.error('usage: node shot.mjs CHROMIUM REPORT.html OUT.png [WIDTH HEIGHT]');
  process.exit(2);
}
const browser = await launch(chromiumPath);
try {
  const page = await browser.newPage({ viewport: { width: +width, height: +height } });
  await page.goto(pathToFileURL(resolve(report)).href);
  await page.waitForFunction(() => window.__waterfall && window.__waterfall.ready, null, { timeout: 20000 });
  await page.screenshot({ path: out, fullPage: true });
  console.log('shot: ' + out);
} finally {
  await browser.close();
}
