#!/bin/sh
# bench_analyze.sh -- `waterfall analyze` on a 1 GiB cuzk-style log (about
# 70% of it non-TIMELINE noise), warm in the page cache, side by side with
# `grep -c TIMELINE` on the same file, in interleaved rounds; peak memory
# from a file and from stdin.  Usage: bench_analyze.sh BUILD_DIR
B=${1:-build}
W="$B/waterfall"
GEN="$B/bench/gen_log"
ROUNDS=${WF_BENCH_ROUNDS:-9}
SIZE=${WF_BENCH_LOG_BYTES:-1073741824}
DIR=${TMPDIR:-/tmp}
LOG="$DIR/waterfall-bench-$SIZE.log"

if [ ! -x /usr/bin/time ]; then
    echo "analyze bench: skipped: GNU time (/usr/bin/time) is not installed (apt-get install time)"
    exit 0
fi
if [ ! -s "$LOG" ] || [ "$(wc -c <"$LOG")" -lt "$SIZE" ]; then
    echo "generating $LOG ($SIZE bytes, 70% noise)..."
    "$GEN" --bytes "$SIZE" --noise 0.7 >"$LOG" || exit 1
fi
cat "$LOG" >/dev/null # warm the page cache

# One timed command: prints "seconds maxrss_kb".
timed() {
    /usr/bin/time -f "%e %M" -o "$DIR/wf-bench-time.$$" "$@" >/dev/null 2>&1
    cat "$DIR/wf-bench-time.$$"
}

echo
echo "analyze bench: $(wc -c <"$LOG") bytes, $(nproc) cores, $ROUNDS rounds interleaved"
printf "  %-5s %12s %12s %10s\n" round "grep -c (s)" "analyze (s)" "ratio"
: >"$DIR/wf-bench-ratios.$$"
i=1
while [ $i -le "$ROUNDS" ]; do
    # grep's output goes through cat: GNU grep stops at the first match
    # when its output is /dev/null.
    g=$(timed sh -c "grep -c TIMELINE '$LOG' | cat" | cut -d' ' -f1)
    set -- $(timed "$W" analyze --json --no-progress "$LOG")
    a=$1
    rss=$2
    r=$(echo "$a $g" | awk '{printf "%.2f", $1 / $2}')
    echo "$r $a $g $rss" >>"$DIR/wf-bench-ratios.$$"
    printf "  %-5s %12s %12s %10s\n" "$i" "$g" "$a" "$r"
    i=$((i + 1))
done
med=$(sort -n "$DIR/wf-bench-ratios.$$" | awk '{a[NR]=$0} END{print a[int((NR+1)/2)]}')
ratio=$(echo "$med" | cut -d' ' -f1)
rss=$(sort -k4 -n "$DIR/wf-bench-ratios.$$" | tail -1 | cut -d' ' -f4)
units=$("$W" analyze --json --no-progress "$LOG" | sed -n 's/.*"units": \([0-9]*\).*/\1/p' | head -1)
set -- $(timed sh -c "cat '$LOG' | '$W' analyze --json --no-progress -")
rss_stdin=$2
rm -f "$DIR/wf-bench-ratios.$$" "$DIR/wf-bench-time.$$"
verdict() { [ "$1" = 1 ] && echo PASS || echo MISS; }
echo
echo "  analyze / grep -c (median)   = $ratio   (target <= 1.0)   $(verdict "$(echo "$ratio" | awk '{print ($1 <= 1.0)}')")"
echo "  peak memory, file            = $((rss / 1024)) MiB   (target <= 200)   $(verdict "$(echo "$rss" | awk '{print ($1 <= 204800)}')")"
echo "  peak memory, stdin           = $((rss_stdin / 1024)) MiB   (target <= 200)   $(verdict "$(echo "$rss_stdin" | awk '{print ($1 <= 204800)}')")"
echo "  units: $units; bytes of peak memory per unit: $(echo "$rss $units" | awk '{printf "%.0f", $1 * 1024 / $2}')"
echo "  (WATERFALL_TIMING=1 $W analyze --json $LOG shows the time of each phase)"
