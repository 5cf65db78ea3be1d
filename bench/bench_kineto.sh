#!/bin/sh
# bench_kineto.sh -- `waterfall analyze --json` of a PyTorch profiler
# (Kineto) trace of over 1 GB against reading it at all, in interleaved
# rounds, warm in the page cache:
#   plain:  TRACE.json against `wc -l TRACE.json`;
#   gzip:   TRACE.json.gz against `gzip -dc TRACE.json.gz | wc -l`.
# The trace is tests/kineto/gen_big.py's (1.2 M kernels round-robin over
# 8 streams, each with its launch, cpu_op and flow pair, as PyTorch writes
# them: 1.26 GB), made once and kept under TMPDIR.  Printed per round and
# as medians: the wall times, their ratio (the issue's target: <= 2x the
# baseline), waterfall's peak RSS as a fraction of the file (target: under
# 1/10) and per device operation.  The targets are printed beside the
# numbers, never judged: a loaded machine fails nothing, and the machine
# (cores, load average) is printed with them.
# With HTA_SRC (a checkout of HolisticTraceAnalysis) and HTA_PYTHON (a
# python3 with its dependencies) set, HTA's
# TraceAnalysis(trace_dir=...).get_idle_time_breakdown() is timed beside
# waterfall on a smaller trace of the same shape (WF_BENCH_HTA_KERNELS,
# 100000 by default: HTA holds the trace in pandas).
# Environment: WF_BENCH_ROUNDS (default 5), WF_BENCH_KINETO_KERNELS
# (default 1200000), TMPDIR.
# Usage: bench_kineto.sh BUILD_DIR
B=${1:-build}
W="$B/waterfall"
HERE=$(cd "$(dirname "$0")" && pwd)
GEN="$HERE/../tests/kineto/gen_big.py"
ROUNDS=${WF_BENCH_ROUNDS:-5}
KERNELS=${WF_BENCH_KINETO_KERNELS:-1200000}
HTA_KERNELS=${WF_BENCH_HTA_KERNELS:-100000}
DIR=${TMPDIR:-/tmp}
TMP="$DIR/wf-bench-kineto.$$"

if ! command -v python3 >/dev/null 2>&1; then
    echo "kineto bench: skipped: python3 (to generate the trace) is not installed"
    exit 0
fi
if [ "$ROUNDS" -lt 1 ]; then
    echo "kineto bench: WF_BENCH_ROUNDS must be 1 or more" >&2
    exit 2
fi
trap 'rm -f "$TMP".*' EXIT
trap 'exit 130' INT TERM

# One timed command: prints "seconds maxrss_kb" (the largest resident set
# of the command and what it ran).  GNU time where installed (.ci/run
# installs it); else Python's getrusage of the children.
if [ -x /usr/bin/time ]; then
    TIMER="GNU time"
    timed() {
        /usr/bin/time -f "%e %M" -o "$TMP.time" "$@" >/dev/null 2>&1
        tail -1 "$TMP.time"
    }
else
    TIMER="python3 getrusage(RUSAGE_CHILDREN)"
    timed() {
        python3 -c '
import resource, subprocess, sys, time
t = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print("%.2f %d" % (time.monotonic() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
' "$@"
    }
fi

# make_trace FILE KERNELS [gz]: gen_big.py's trace, kept; with gz, FILE.gz
# beside it
make_trace() {
    if [ ! -s "$1" ]; then
        echo "generating $1 (gen_big.py $2 8; about 10 s per million kernels)..."
        python3 "$GEN" "$1.tmp" "$2" 8 && mv "$1.tmp" "$1" || exit 1
    fi
    if [ "$3" = gz ] && [ ! -s "$1.gz" ]; then
        echo "compressing it to $1.gz (gzip -6)..."
        gzip -6 -c "$1" >"$1.gz.tmp" && mv "$1.gz.tmp" "$1.gz" || exit 1
    fi
}

# median of column $1 of stdin
median() { sort -g -k"$1" | awk -v c="$1" '{a[NR]=$c} END{print a[int((NR+1)/2)]}'; }
largest() { sort -g -k"$1" | tail -1 | awk -v c="$1" '{print $c}'; }

TRACE="$DIR/waterfall-bench-kineto-v1-$KERNELS.json"
make_trace "$TRACE" "$KERNELS" gz
bytes=$(wc -c <"$TRACE")
gzbytes=$(wc -c <"$TRACE.gz")
"$W" analyze --json --no-progress "$TRACE" >"$TMP.json" 2>/dev/null
ops=$(python3 -c 'import json,sys; print(sum(d["units"] for r in json.load(open(sys.argv[1]))["runs"] for d in r["devices"]))' "$TMP.json" 2>/dev/null)
[ -n "$ops" ] && [ "$ops" -gt 0 ] || { echo "kineto bench: waterfall could not analyse $TRACE" >&2; exit 1; }
cat "$TRACE" "$TRACE.gz" >/dev/null # warm the page cache

cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
echo
echo "kineto bench: waterfall analyze --json of a PyTorch (Kineto) trace, $ROUNDS rounds interleaved ($TIMER)"
echo "  machine: $(nproc) cores, ${cpu:-an unknown CPU}, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo "  input: $TRACE (gen_big.py $KERNELS 8)"
echo "         $bytes bytes ($(echo "$bytes" | awk '{printf "%.2f GB", $1 / 1e9}')), gzip'd $gzbytes bytes; $ops device operations (kernels) on 8 streams, $((bytes / ops)) bytes per kernel"
printf "  %-5s %9s %9s %6s %9s %15s %9s %6s %9s\n" round "wc -l s" "wf s" ratio "wf MiB" "gzip|wc -l s" "wf .gz s" ratio "wf MiB"
: >"$TMP.rounds"
i=1
while [ $i -le "$ROUNDS" ]; do
    set -- $(timed wc -l "$TRACE")
    b=$1
    set -- $(timed "$W" analyze --json --no-progress "$TRACE")
    a=$1 arss=$2
    set -- $(timed sh -c "gzip -dc '$TRACE.gz' | wc -l")
    gb=$1
    set -- $(timed "$W" analyze --json --no-progress "$TRACE.gz")
    ga=$1 grss=$2
    r=$(echo "$a $b" | awk '{printf "%.2f", ($2 > 0 ? $1 / $2 : 0)}')
    gr=$(echo "$ga $gb" | awk '{printf "%.2f", ($2 > 0 ? $1 / $2 : 0)}')
    echo "$b $a $r $arss $gb $ga $gr $grss" >>"$TMP.rounds"
    printf "  %-5s %9s %9s %6s %9s %15s %9s %6s %9s\n" "$i" "$b" "$a" "$r" "$((arss / 1024))" "$gb" "$ga" "$gr" "$((grss / 1024))"
    i=$((i + 1))
done
# stdin: the same trace through a pipe, once (the reader's other way in)
set -- $(timed sh -c "cat '$TRACE' | '$W' analyze --json --no-progress -")
pa=$1 prss=$2

rss=$(largest 4 <"$TMP.rounds")
grss=$(largest 8 <"$TMP.rounds")
echo
echo "  plain .json: median wc -l $(median 1 <"$TMP.rounds") s, waterfall $(median 2 <"$TMP.rounds") s; waterfall / wc -l (median of the rounds' ratios) = $(median 3 <"$TMP.rounds")   (issue's target <= 2)"
echo "  .json.gz:    median gzip -dc | wc -l $(median 5 <"$TMP.rounds") s, waterfall $(median 6 <"$TMP.rounds") s; waterfall / gzip -dc | wc -l = $(median 7 <"$TMP.rounds")   (target <= 2)"
echo "$rss $grss $prss $bytes $gzbytes $ops $pa" | awk '{
    printf "  peak RSS (largest of the rounds): .json %.0f MiB = 1/%.1f of the file (target: under 1/10); .json.gz %.0f MiB = 1/%.1f of the trace, %.2fx the .gz file\n", $1 / 1024, $4 / ($1 * 1024), $2 / 1024, $4 / ($2 * 1024), $2 * 1024 / $5
    printf "  RSS per device operation: .json %.0f bytes, .json.gz %.0f bytes; from a pipe (cat | analyze -, once: %s s) %.0f MiB\n", $1 * 1024 / $6, $2 * 1024 / $6, $7, $3 / 1024
}'
echo "  (WATERFALL_TIMING=1 $W analyze --json TRACE shows the time and memory of each phase)"
# the floor under a reader built on yajl: yajl alone, no callbacks, one thread
if [ -x "$B/bench/yajl_floor" ]; then
    set -- $(timed wc -l "$TRACE")
    b=$1
    set -- $(timed "$B/bench/yajl_floor" "$TRACE")
    echo "$1 $b" | awk '{printf "  yajl alone (no callbacks, one thread: bench/yajl_floor): %s s = %.1fx wc -l (%s s); on two threads at best %.1fx\n", $1, ($2 > 0 ? $1 / $2 : 0), $2, ($2 > 0 ? $1 / $2 / 2 : 0)}'
fi
# and under one built on simdjson, reading only the fields the reader keeps
if [ -x "$B/bench/simdjson_floor" ]; then
    set -- $(timed wc -l "$TRACE")
    b=$1
    set -- $(timed "$B/bench/simdjson_floor" "$TRACE")
    echo "$1 $b" | awk '{printf "  simdjson reading the fields alone (one thread: bench/simdjson_floor): %s s = %.1fx wc -l (%s s); on two threads at best %.1fx\n", $1, ($2 > 0 ? $1 / $2 : 0), $2, ($2 > 0 ? $1 / $2 / 2 : 0)}'
else
    echo "  simdjson floor: skipped (bench/simdjson_floor not built: a C++ compiler and libsimdjson-dev are needed at configure time)"
fi

# HTA beside waterfall, on a smaller trace of the same shape
if [ -n "$HTA_SRC" ] && [ -n "$HTA_PYTHON" ]; then
    SMALL="$DIR/waterfall-bench-kineto-v1-$HTA_KERNELS.json"
    make_trace "$SMALL" "$HTA_KERNELS"
    rm -rf "$TMP.hta" && mkdir "$TMP.hta" && ln -s "$SMALL" "$TMP.hta/rank0.json" || exit 1
    cat >"$TMP.py" <<'PY'
import logging, sys
sys.path.insert(0, sys.argv[1])
logging.disable(logging.CRITICAL)
from hta.trace_analysis import TraceAnalysis
t = TraceAnalysis(trace_dir=sys.argv[2])
idle, _ = t.get_idle_time_breakdown(visualize=False)
open(sys.argv[3], "w").write("%d rows\n" % len(idle))
PY
    echo
    echo "kineto bench, HTA beside waterfall: $SMALL (gen_big.py $HTA_KERNELS 8: $(wc -c <"$SMALL") bytes), once each"
    set -- $(timed "$HTA_PYTHON" "$TMP.py" "$HTA_SRC" "$TMP.hta" "$TMP.hta.ok")
    h=$1 hrss=$2
    if [ ! -s "$TMP.hta.ok" ]; then
        echo "  HTA failed (its Python dependencies?): $HTA_PYTHON $TMP.py $HTA_SRC DIR shows why"
        rm -rf "$TMP.hta"
        exit 0
    fi
    set -- $(timed "$W" analyze --json --no-progress "$SMALL")
    a=$1 arss=$2
    echo "$h $hrss $a $arss" | awk '{
        printf "  HTA get_idle_time_breakdown (TraceAnalysis load included): %s s, peak RSS %.0f MiB\n", $1, $2 / 1024
        printf "  waterfall analyze --json:                                   %s s, peak RSS %.0f MiB\n", $3, $4 / 1024
        printf "  HTA / waterfall: %.1fx the time, %.1fx the memory\n", ($3 > 0 ? $1 / $3 : 0), ($4 > 0 ? $2 / $4 : 0)
    }'
    rm -rf "$TMP.hta"
fi
