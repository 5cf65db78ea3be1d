#!/bin/sh
# bench_ab.sh -- two builds of `waterfall analyze --json` side by side on
# the analyze bench's cached 1 GB logs (bench_analyze.sh makes them), in
# interleaved rounds: per round OLD then NEW on the same warm log, the
# ratio NEW / OLD of their wall times, and the median of those ratios per
# shape.  Both run on one machine in one go, so a busy machine slows both:
# the ratio is what a change did, where an absolute time is not.  Also
# compares their JSON (a change meant to keep the output must).
# Usage: bench_ab.sh OLD_WATERFALL NEW_WATERFALL [SHAPE...]
#   SHAPE: sparse dense busy cuzk (default: all four); WF_BENCH_ROUNDS
#   rounds (default 7); logs in $TMPDIR (default /tmp).
OLD=$1
NEW=$2
if [ ! -x "$OLD" ] || [ ! -x "$NEW" ]; then
    echo "usage: bench_ab.sh OLD_WATERFALL NEW_WATERFALL [sparse|dense|busy|cuzk...]" >&2
    exit 2
fi
shift 2
[ $# -gt 0 ] || set -- sparse dense busy cuzk
ROUNDS=${WF_BENCH_ROUNDS:-7}
DIR=${TMPDIR:-/tmp}
if [ ! -x /usr/bin/time ]; then
    echo "bench_ab: GNU time (/usr/bin/time) is not installed (apt-get install time)" >&2
    exit 2
fi

wall() {
    /usr/bin/time -f "%e" -o "$DIR/wf-ab-time.$$" "$@" >/dev/null 2>&1
    cat "$DIR/wf-ab-time.$$"
}

echo "bench_ab: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo 2>/dev/null | head -1), $(nproc) cores;" \
    "load $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds"
status=0
for shape in "$@"; do
    case $shape in
    sparse) log="$DIR/waterfall-bench-v2-1073741824.log" ;;
    dense | busy) log="$DIR/waterfall-bench-v2-$shape.log" ;;
    cuzk) log="$DIR/waterfall-bench-v4-cuzk.log" ;; # v4: a bounded channel (gen_log, 2026-12-06)
    *)
        echo "bench_ab: no shape $shape (sparse, dense, busy, cuzk)" >&2
        exit 2
        ;;
    esac
    if [ ! -s "$log" ]; then
        echo "bench_ab: $log is missing: make it with bench/bench_analyze.sh (make bench)" >&2
        exit 2
    fi
    cat "$log" >/dev/null # warm the page cache
    "$OLD" analyze --json --no-progress "$log" >"$DIR/wf-ab-old.$$" 2>/dev/null
    "$NEW" analyze --json --no-progress "$log" >"$DIR/wf-ab-new.$$" 2>/dev/null
    same=same
    cmp -s "$DIR/wf-ab-old.$$" "$DIR/wf-ab-new.$$" || same=DIFFERENT
    : >"$DIR/wf-ab-ratios.$$"
    i=1
    while [ $i -le "$ROUNDS" ]; do
        o=$(wall "$OLD" analyze --json --no-progress "$log")
        n=$(wall "$NEW" analyze --json --no-progress "$log")
        echo "$o $n" | awk '{printf "%.3f %s %s\n", $2 / $1, $1, $2}' >>"$DIR/wf-ab-ratios.$$"
        i=$((i + 1))
    done
    med=$(sort -n "$DIR/wf-ab-ratios.$$" | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
    range=$(awk '{printf "%s%s-%s", (NR > 1 ? ", " : ""), $2, $3}' "$DIR/wf-ab-ratios.$$")
    echo "  $shape: new / old (median of $ROUNDS) = $med; JSON $same; old-new seconds per round: $range"
    [ "$same" = same ] || status=1
done
rm -f "$DIR/wf-ab-time.$$" "$DIR/wf-ab-old.$$" "$DIR/wf-ab-new.$$" "$DIR/wf-ab-ratios.$$"
exit $status
