// speedscope.mjs -- a Chrome trace from `waterfall render` imported by a
// real viewer: speedscope (npm, pinned in package.json), its release page
// opened in headless Chromium, the trace given to its file input as a user
// would.  speedscope rebuilds each track as a stack of frames and says on
// the console when a slice ends while another is on top of the stack
// ("Tried to end ...") or one is left open ("... still open at end of
// profile"): back-to-back slices whose boundaries differ in the last bit
// of a double do that.  Passes when the profile loads and the console has
// no warning or error.
//
//   node speedscope.mjs CHROMIUM TRACE.json
import { pathToFileURL, fileURLToPath } from 'node:url';
import { resolve, dirname, join } from 'node:path';
import { existsSync } from 'node:fs';
import { launch, SKIP } from './launch.mjs';

const [chromiumPath, trace] = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));
const index = join(here, 'node_modules', 'speedscope', 'dist', 'release', 'index.html');
if (!existsSync(index)) {
  console.log('SKIPPED: speedscope is not installed (npm ci --prefix tests/browser)');
  process.exit(SKIP);
}
const browser = await launch(chromiumPath);
let failed = 0;
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  const messages = [];
  page.on('console', (m) => {
    // the software GL's own performance notes are Chromium's, not speedscope's
    if ((m.type() === 'warning' || m.type() === 'error') && !m.text().startsWith('[.WebGL'))
      messages.push(m.type() + ': ' + m.text());
  });
  page.on('pageerror', (e) => messages.push('pageerror: ' + e.message));
  await page.goto(pathToFileURL(index).href);
  const input = page.locator('input[type=file]');
  await input.setInputFiles(resolve(trace));
  // loaded: the landing page's file input is gone, the flame chart drawn
  await page.waitForFunction(() => !document.querySelector('input[type=file]') &&
    document.querySelectorAll('canvas').length > 0, null, { timeout: 30000 });
  await page.waitForTimeout(500);
  if (messages.length) {
    failed = 1;
    console.log(`FAIL: speedscope said ${messages.length} thing(s) on importing ${trace}, the first:`);
    for (const m of messages.slice(0, 5)) console.log('  ' + m.slice(0, 300));
  } else {
    console.log(`speedscope: imported ${trace} with no warning`);
  }
} catch (e) {
  failed = 1;
  console.log('FAIL: speedscope did not load the trace: ' + e.message);
} finally {
  await browser.close();
}
process.exit(failed);
