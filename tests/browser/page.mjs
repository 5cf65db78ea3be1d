// page.mjs -- what the browser tests share: a tally of checks, and a
// report of `waterfall render` opened as a person opens it (its requests,
// console errors and warnings, and page errors recorded), once the page
// says it is ready.
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

// check(ok, what) counts; a failure prints "FAIL: what".  done(name)
// prints the tally and exits 1 on any failure.
export function checker() {
  let pass = 0, fail = 0;
  return {
    check(ok, what) {
      if (ok) pass++;
      else {
        fail++;
        console.log('FAIL: ' + what);
      }
    },
    done(name) {
      console.log(name + ': ' + pass + ' passed, ' + fail + ' failed');
      process.exit(fail ? 1 : 0);
    },
  };
}

export async function openReport(browser, file) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const url = pathToFileURL(resolve(file)).href;
  const requests = [], errors = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => window.__waterfall && window.__waterfall.ready, null, { timeout: 15000 });
  return { page, url, requests, errors };
}
