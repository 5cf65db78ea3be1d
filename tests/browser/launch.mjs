// launch.mjs -- headless Chromium for the browser tests and the render
// benchmark: playwright-core (tests/browser/node_modules, `npm ci --prefix
// tests/browser`) driving the system's chromium, with nothing that talks
// to the network.  Exits 77 (ctest's "skipped") where either is missing.
import { existsSync } from 'node:fs';

export const SKIP = 77;

export async function launch(executablePath) {
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch (e) {
    console.log('SKIPPED: playwright-core is not installed (npm ci --prefix tests/browser)');
    process.exit(SKIP);
  }
  if (!executablePath || !existsSync(executablePath)) {
    console.log('SKIPPED: no chromium (apt-get install chromium)');
    process.exit(SKIP);
  }
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
      '--disable-background-networking', '--no-first-run', '--disable-extensions'],
  });
}
