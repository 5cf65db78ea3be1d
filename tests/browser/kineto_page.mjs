// kineto_page.mjs -- the HTML view of a PyTorch trace (tests/test_html.sh
// renders kineto/gen_stage.py's, its CPU ranges mapped to stages) in
// headless Chromium, as a person opens it:
//
//   node kineto_page.mjs CHROMIUM FILE.html JOB
//
// Checks: no console error, no request but the file itself, the page
// ready; the unit JOB (a device operation, by its event number) under the
// pointer gets a tooltip naming it with a time for each of its events
// (the mapped synthesis and prep: SYNTH_START, GPU_PICKUP; its launch,
// CHAN_SEND; the operation, GPU_START, GPU_END) and gen_stage.py's stage
// lengths; and the summary gives the idle causes and the bottleneck the
// mapping makes.
import { launch } from './launch.mjs';
import { checker, openReport } from './page.mjs';

const [chromiumPath, file, job] = process.argv.slice(2);
const { check, done } = checker();

const browser = await launch(chromiumPath);
try {
  const { page, url, requests, errors } = await openReport(browser, file);
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
    // gen_stage.py's truth: step 0's memcpy has the DataLoader range as its
    // synthesis (600 µs) and aten::to up to the copy as its prep (40 µs)
    for (const e of ['SYNTH_START', 'SYNTH_END', 'CHAN_SEND', 'GPU_PICKUP', 'GPU_START', 'GPU_END'])
      check(new RegExp(e + '\\s*[0-9.]+ ms').test(tip), 'the tooltip of ' + job + ' has no time for ' + e + ': ' + tip);
    check(/synthesis\s*600\.0 µs/.test(tip) && /prep\s*40\.0 µs/.test(tip), 'the tooltip\'s stages: ' + tip);
  }
  const text = await page.evaluate(() => document.body.innerText);
  check(/bottleneck\s*synthesis/.test(text) && /synthesis 2\.4 ms/.test(text) && /prep 160\.0 µs/.test(text),
    'the summary does not give the mapped causes and bottleneck: ' + text.slice(0, 400));
} finally {
  await browser.close();
}
done('kineto_page');
