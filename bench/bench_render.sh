#!/bin/sh
# bench_render.sh -- the HTML view at 1k, 10k and 100k units: the time of
# `waterfall render -o x.html` (beside `analyze --json` on the same log, so
# the view's own share shows), the page's size, and, in headless Chromium,
# how soon the 100k-unit page is interactive (goal: 2 s) and how long a
# redraw takes while zooming.  The logs come from gen_log (10 partitions a
# job, no noise).  Without chromium, node or playwright-core the browser
# part is skipped with a note.  Usage: bench_render.sh BUILD_DIR
B=${1:-build}
W="$B/waterfall"
GEN="$B/bench/gen_log"
HERE=$(cd "$(dirname "$0")/.." && pwd)
DIR=${TMPDIR:-/tmp}/waterfall-bench-render.$$
ROUNDS=${WF_BENCH_ROUNDS:-5}
mkdir -p "$DIR" || exit 1
trap 'rm -rf "$DIR"' EXIT

# The median wall time of ROUNDS runs of a command, in seconds.
timed() {
    : >"$DIR/times"
    i=0
    while [ $i -lt "$ROUNDS" ]; do
        a=$(date +%s%N)
        "$@" >/dev/null 2>&1 || { echo "fail"; return; }
        b=$(date +%s%N)
        echo $(((b - a) / 1000)) >>"$DIR/times"
        i=$((i + 1))
    done
    sort -n "$DIR/times" | awk '{a[NR]=$1} END{printf "%.3f", a[int((NR+1)/2)] / 1e6}'
}

echo
echo "render bench: the HTML view, $(nproc) cores, median of $ROUNDS runs"
printf "  %7s %12s %14s %14s %11s\n" units "analyze (s)" "render .html" "HTML (bytes)" "bytes/unit"
for units in 1000 10000 100000; do
    log="$DIR/u$units.log"
    "$GEN" --jobs $((units / 10)) --partitions 10 --noise 0 >"$log" || exit 1
    a=$(timed "$W" analyze --json --no-progress "$log")
    r=$(timed "$W" render "$log" -o "$DIR/u$units.html")
    size=$(wc -c <"$DIR/u$units.html")
    printf "  %7s %12s %14s %14s %11s\n" "$units" "$a" "$r" "$size" "$((size / units))"
done

CHROMIUM=${WF_CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
if [ -z "$CHROMIUM" ] || ! command -v node >/dev/null 2>&1 || [ ! -d "$HERE/tests/browser/node_modules/playwright-core" ]; then
    echo "  browser part skipped: needs chromium, node and playwright-core (npm ci --prefix tests/browser)"
    exit 0
fi
set -- $(node "$HERE/tests/browser/tti.mjs" "$CHROMIUM" "$DIR/u100000.html" 3)
if [ $# -lt 4 ]; then
    echo "  browser part failed"
    exit 1
fi
verdict=$(echo "$1" | awk '{print ($1 <= 2000) ? "PASS" : "MISS"}')
echo
echo "  100000 units in headless Chromium (1400x1000):"
echo "    interactive after $1 ms (median of 3 loads, max $2)   (target <= 2000)   $verdict"
echo "    a redraw while zooming: median $3 ms, max $4 ms (40 wheel steps in and out)"
