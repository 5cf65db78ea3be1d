#!/bin/sh
# bench_analyze.sh -- `waterfall analyze --json` against `grep -c TIMELINE`
# on four 1 GB cuzk-style logs, warm in the page cache, in interleaved rounds:
#   sparse: gen_log's default, records among tracing noise that makes up 70%
#           of the bytes (3.9 M records, 648k units in 1 GiB);
#   dense:  gen_log --dense, records printed by the daemon's tracing
#           subscriber, most of the bytes (4.16 M records, 694k units);
#   busy:   gen_log --busy, a busy daemon's eprintln! records: 10 syntheses
#           in flight, 2 GPU workers, 70% noise with colour (3.9 M records,
#           650k units in 1 GiB);
#   cuzk:   the busy shape with the CUZK_TIMING duration lines of each
#           unit's proving call (gen_log --busy --cuzk-timing: issue 30).
# gen_log prints in time order since 2026-12-05 (v2 in the cached logs'
# names: logs made before, in per-job blocks, are not reused; the cuzk
# log is v4: v3 held the engine's spawn lines, v4 a bounded channel, so
# that its GPU-bound pipeline no longer queues tens of thousands of units).
# Each shape: the median of the rounds' ratios, the peak memory from a file
# and from stdin.  The machine is named: the ratios depend on it.
# After cuzk, its floor: the same log with `CUZK_TIMING:` renamed, so that
# analyze reads every byte and record but no duration line, timed against
# grep -c on the cuzk log itself.  1 minus that ratio is the share of grep's
# time left for the duration lines: the budget the cuzk target leaves them.
# Usage: bench_analyze.sh BUILD_DIR
B=${1:-build}
W="$B/waterfall"
GEN="$B/bench/gen_log"
ROUNDS=${WF_BENCH_ROUNDS:-9}
SIZE=${WF_BENCH_LOG_BYTES:-1073741824}
DIR=${TMPDIR:-/tmp}

if [ ! -x /usr/bin/time ]; then
    echo "analyze bench: skipped: GNU time (/usr/bin/time) is not installed (apt-get install time)"
    exit 0
fi
if [ "$ROUNDS" -lt 1 ]; then
    echo "analyze bench: WF_BENCH_ROUNDS must be 1 or more" >&2
    exit 2
fi

# One timed command: prints "seconds maxrss_kb".
timed() {
    /usr/bin/time -f "%e %M" -o "$DIR/wf-bench-time.$$" "$@" >/dev/null 2>&1
    cat "$DIR/wf-bench-time.$$"
}
verdict() { [ "$1" = 1 ] && echo PASS || echo MISS; }

# shape NAME LOG GEN_ARGS...: make the log if it is missing, then the rounds.
# FLOOR_OF=LOG: grep -c times LOG instead, and the ratio is not a target.
shape() {
    name=$1
    log=$2
    glog=${FLOOR_OF:-$log}
    shift 2
    if [ ! -s "$log" ]; then
        echo "generating $log (gen_log $*)..."
        "$GEN" "$@" >"$log.tmp" && mv "$log.tmp" "$log" || exit 1
    fi
    cat "$log" >/dev/null # warm the page cache
    echo
    echo "analyze bench, $name: $(wc -c <"$log") bytes, $(grep -c TIMELINE "$log") TIMELINE lines ($([ -n "$FLOOR_OF" ] && echo "$*" || echo "gen_log $*")), $ROUNDS rounds interleaved"
    printf "  %-5s %12s %12s %10s\n" round "grep -c (s)" "analyze (s)" "ratio"
    : >"$DIR/wf-bench-ratios.$$"
    i=1
    while [ $i -le "$ROUNDS" ]; do
        # grep's output goes through cat: GNU grep stops at the first match
        # when its output is /dev/null.
        g=$(timed sh -c "grep -c TIMELINE '$glog' | cat" | cut -d' ' -f1)
        set -- $(timed "$W" analyze --json --no-progress "$log")
        a=$1
        rss=$2
        r=$(echo "$a $g" | awk '{printf "%.2f", $1 / $2}')
        echo "$r $a $g $rss" >>"$DIR/wf-bench-ratios.$$"
        printf "  %-5s %12s %12s %10s\n" "$i" "$g" "$a" "$r"
        i=$((i + 1))
    done
    med=$(sort -n "$DIR/wf-bench-ratios.$$" | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
    rss=$(sort -k4 -n "$DIR/wf-bench-ratios.$$" | tail -1 | cut -d' ' -f4)
    units=$("$W" analyze --json --no-progress "$log" | python3 -c "import json, sys; print(json.load(sys.stdin)['runs'][0]['units'])")
    set -- $(timed sh -c "cat '$log' | '$W' analyze --json --no-progress -")
    rss_stdin=$2
    echo
    if [ -n "$FLOOR_OF" ]; then
        echo "  analyze / grep -c $(basename "$glog") (median) = $med   (not a target: the floor under $(basename "$glog"))"
        echo "  left for its duration lines: $(echo "$med" | awk '{printf "%.0f%%", ($1 < 1 ? 1 - $1 : 0) * 100}') of grep's time"
        echo "$name $med" >>"$DIR/wf-bench-summary.$$"
        return
    fi
    echo "  analyze / grep -c (median)   = $med   (target <= 1.0)   $(verdict "$(echo "$med" | awk '{print ($1 <= 1.0)}')")"
    echo "  peak memory, file            = $((rss / 1024)) MiB   (target <= 200)   $(verdict "$(echo "$rss" | awk '{print ($1 <= 204800)}')")"
    echo "  peak memory, stdin           = $((rss_stdin / 1024)) MiB   (target <= 200)   $(verdict "$(echo "$rss_stdin" | awk '{print ($1 <= 204800)}')")"
    echo "  units: $units; bytes of peak memory per unit: $(echo "$rss $units" | awk '{printf "%.0f", $1 * 1024 / $2}')"
    echo "$name $med" >>"$DIR/wf-bench-summary.$$"
}

cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
echo
echo "analyze bench on: ${cpu:-an unknown CPU}, $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null)"
: >"$DIR/wf-bench-summary.$$"
shape sparse "$DIR/waterfall-bench-v2-$SIZE.log" --bytes "$SIZE" --noise 0.7
shape dense "$DIR/waterfall-bench-v2-dense.log" --dense
shape busy "$DIR/waterfall-bench-v2-busy.log" --busy --bytes "$SIZE"
shape cuzk "$DIR/waterfall-bench-v4-cuzk.log" --busy --cuzk-timing --bytes "$SIZE"
floor="$DIR/waterfall-bench-v4-cuzk-floor.log"
if [ ! -s "$floor" ] || [ "$floor" -ot "$DIR/waterfall-bench-v4-cuzk.log" ]; then
    echo "making $floor (the cuzk log, CUZK_TIMING: renamed)..."
    sed 's/CUZK_TIMING:/CUZK_TIMINX:/' "$DIR/waterfall-bench-v4-cuzk.log" >"$floor.tmp" && mv "$floor.tmp" "$floor" || exit 1
fi
FLOOR_OF="$DIR/waterfall-bench-v4-cuzk.log"
shape cuzk-floor "$floor" the cuzk log with CUZK_TIMING: renamed
FLOOR_OF=
echo
echo "analyze / grep -c, all shapes (medians): $(awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2}' "$DIR/wf-bench-summary.$$")"
echo "  (WATERFALL_TIMING=1 $W analyze --json LOG shows the time and memory of each phase)"
rm -f "$DIR/wf-bench-ratios.$$" "$DIR/wf-bench-time.$$" "$DIR/wf-bench-summary.$$"
