#!/bin/sh
# test_html.sh -- the HTML view in a real browser: renders a known log (with
# hostile job ids), two runs, a log with sub-phases and kernels, and a
# PyTorch trace with its CPU ranges mapped to stages, then
# tests/browser/test_html.mjs drives headless Chromium over them (no
# console error, no request, every colour drawn, tooltips, zoom, pan,
# reset, the hostile ids inert; sub-phases inside their GPU bars, kernel
# lanes only with kernel phases, kind, marks and GPU_QUEUE in the
# tooltips), and leaves a screenshot.  Skipped (exit 77, with a note)
# without chromium, node or playwright-core (npm ci --prefix tests/browser).
# Usage: test_html.sh WATERFALL [SCREENSHOT.png]
W="$1"
SHOT="${2:-}"
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

CHROMIUM=${WF_CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
if [ -z "$CHROMIUM" ]; then
    echo "test_html: SKIPPED: no chromium (apt-get install chromium; or set WF_CHROMIUM)"
    exit 77
fi
if ! command -v node >/dev/null 2>&1; then
    echo "test_html: SKIPPED: no node (apt-get install nodejs)"
    exit 77
fi
if [ ! -d "$HERE/browser/node_modules/playwright-core" ]; then
    echo "test_html: SKIPPED: playwright-core is not installed (npm ci --prefix tests/browser)"
    exit 77
fi

# The known log: device 0, two workers.  Every phase has a length; the GPU
# idles for each cause in turn: queue (400-420 ms), prep (420-450),
# synthesis (700-905), queue, prep, no_work (1100-1200).
cp "$HERE/data/known.log" "$T/known.log"
"$W" render "$T/known.log" -o "$T/one.html" && ok || bad "render the known log"
"$W" run --jobs 8 --synth-concurrency 1 --size 4096 --synth-rounds 2 --out "$T/a.wft" --quiet || bad "run a"
"$W" run --jobs 8 --synth-concurrency 2 --size 4096 --synth-rounds 2 --out "$T/b.wft" --quiet || bad "run b"
"$W" render "$T/a.wft" "$T/b.wft" -o "$T/two.html" && ok || bad "render two runs"
# Sub-phases, kernels, marks, kinds, GPU_QUEUE (tests/test_render.sh's
# kernel log): two workers on device 0 whose kernels are serialized.
cp "$HERE/data/kern.log" "$T/kern.log"
"$W" render "$T/kern.log" -o "$T/kern.html" && ok || bad "render the kernel log"

node "$HERE/browser/test_html.mjs" "$CHROMIUM" "$T/one.html" "$T/two.html" "$T/kern.html"
rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] && ok || bad "the page in Chromium (above)"
# The Chrome trace in a real viewer: speedscope imports it with no warning
# (back-to-back slices share their boundaries exactly).  The boundary
# log's slices meet at 100 and 300 ns, where 0.1 + 0.2 > 0.3 in double
# precision broke speedscope's stack before the times were exact.
printf 'TIMELINE,0,SYNTH_START,a,\nTIMELINE,0.0001,SYNTH_END,a,\nTIMELINE,0.0001,GPU_START,a,worker=0\nTIMELINE,0.0003,GPU_END,a,worker=0\nTIMELINE,0.0001,SYNTH_START,b,\nTIMELINE,0.0003,SYNTH_END,b,\nTIMELINE,0.0003,GPU_START,b,worker=0\nTIMELINE,0.0013,GPU_END,b,worker=0\n' >"$T/edges.log"
"$W" render "$T/edges.log" -o "$T/edges.json" && ok || bad "render the boundary log as a Chrome trace"
"$W" render "$T/a.wft" "$T/b.wft" -o "$T/two.json" && ok || bad "render two runs as a Chrome trace"
"$W" render "$T/kern.log" -o "$T/kern.json" && ok || bad "render the kernel log as a Chrome trace"
# the kernel log's phases nest in their units' slices, on their tracks
for t in "$T/edges.json" "$T/two.json" "$T/kern.json"; do
    node "$HERE/browser/speedscope.mjs" "$CHROMIUM" "$t"
    rc=$?
    [ $rc = 77 ] && { echo "test_html: speedscope not installed: the Chrome trace import not checked"; break; }
    [ $rc = 0 ] && ok || bad "speedscope imports $t with warnings (above)"
done
# A PyTorch trace (kineto/gen_stage.py's), its CPU ranges mapped to
# stages: the page, a unit's tooltip (unit 6 is step 0's memcpy, which
# takes the DataLoader range as its synthesis and aten::to as its prep),
# the Chrome trace in speedscope, the SVG's tooltips
python3 "$HERE/kineto/gen_stage.py" "$T/stage.json" || bad "gen_stage.py failed"
for ext in html json svg; do
    "$W" render --stage 'synthesis=enumerate(DataLoader)*' --stage prep=aten::to "$T/stage.json" -o "$T/kineto.$ext" &&
        ok || bad "render a PyTorch trace as .$ext"
done
node "$HERE/browser/kineto_page.mjs" "$CHROMIUM" "$T/kineto.html" 6 && ok || bad "the PyTorch trace's page in Chromium (above)"
node "$HERE/browser/speedscope.mjs" "$CHROMIUM" "$T/kineto.json"
rc=$?
[ $rc = 77 ] || { [ $rc = 0 ] && ok || bad "speedscope imports the PyTorch trace's Chrome export with warnings (above)"; }
node "$HERE/browser/svg_tooltip.mjs" "$CHROMIUM" "$T/kineto.svg" 6 && ok || bad "the PyTorch trace's SVG tooltips (above)"
# The SVG's per-unit tooltips: the pointer over a row (its bars included)
# lands on the row's titled rectangle.
"$W" render "$T/a.wft" -o "$T/a.svg" && ok || bad "render an SVG"
node "$HERE/browser/svg_tooltip.mjs" "$CHROMIUM" "$T/a.svg" job-3 && ok || bad "the SVG's tooltips (above)"
# A look at the two runs, the pointer on a unit of the second (the
# README's picture is made the same way, of the demo's report).
if [ -n "$SHOT" ]; then
    node "$HERE/browser/shot.mjs" "$CHROMIUM" "$T/two.html" "$SHOT" 1400 1100 job-5 1 && [ -s "$SHOT" ] &&
        ok || bad "screenshot"
fi
finish html
