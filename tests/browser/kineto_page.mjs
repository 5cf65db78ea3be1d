// kineto_page.mjs -- the HTML view of a PyTorch trace (tests/test_html.sh
// renders kineto/gen_stage.py's, its CPU ranges mapped to stages) in
// headless Chromium, as a person opens it:
//
//   node kineto_page.mjs CHROMIUM FILE.html JOB
//
// Checks: no console error, no request but the file itself, the page
// ready; the unit JOB (a device operation, by its event number) under the
// pointer gets a tooltip naming it with its stages' events (the mapped
// synthesis and prep: SYNTH_START, GPU_PICKUP) beside its launch
// (CHAN_SEND) and the operation (GPU_START, GPU_END); and the summary
// says the idle causes the mapping gives (synthesis, prep).
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { launch } from './launch.mjs';

const [chromiumPath, file, job] = process.argv.slice(2);
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
  const url = pathToFileURL(resolve(file)).href;
  const requests = [], errors = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => window.__waterfall && window.__waterfall.ready, null, { timeout: 15000 });
  check(errors.length === 0, 'console errors: ' + errors.join(' | '));
  check(requests.length === 1 && requests[0] === url, 'requests beyond the file: ' + requests.join(', '));

  const at = await page.evaluate((j) => window.__waterfall.locate(j, null), job);
  check(at !== null, 'unit ' + job + ' is not in view');
  if (at) {
    await page.mouse.move(at.x, at.y);
    await page.waitForFunction(() => !document.getElementById('tip').hidden, null, { timeout: 3000 }).catch(() => {});
    const tip = await page.evaluate(() => {
      const t = document.getElementById('tip');
      return t.hidden ? '' : t.textContent;
    });
    check(tip.startsWith(job), 'the tooltip does not name unit ' + job + ': ' + tip);
    for (const e of ['SYNTH_START', 'SYNTH_END', 'CHAN_SEND', 'GPU_PICKUP', 'GPU_START', 'GPU_END'])
      check(tip.includes(e), 'the tooltip of ' + job + ' lacks ' + e + ': ' + tip);
  }
  const text = await page.evaluate(() => document.body.innerText);
  check(/synthesis/.test(text) && /prep/.test(text), 'the summary does not name the mapped causes');
} finally {
  await browser.close();
}
console.log(`kineto_page: ${pass} passed, ${fail} failed`);
process.exit(fail ? 1 : 0);
