#!/bin/sh
# bench_engine.sh -- the reference pipeline: synthesis and proving
# throughput (constraints per second) per device backend, and the demo's
# two utilizations.  Usage: bench_engine.sh BUILD_DIR
B=${1:-build}
W="$B/waterfall"
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
N=131072

stage() { # file stage -> mean seconds
    "$W" analyze --json --no-progress "$1" | grep -o "\"$2\": {\"count\": [0-9]*, \"mean_s\": [0-9.e-]*" |
        head -1 | sed 's/.*: //'
}
util() { # the run's utilization comes before its devices'
    "$W" analyze --json --no-progress "$1" | grep -o '"utilization": [0-9.e-]*' | head -1 | sed 's/.*: //'
}

echo
echo "engine bench: 2^17 constraints per unit, 16 synthesis rounds, one synthesis at a time"
printf "  %-10s %16s %16s\n" device "synthesis c/s" "proving c/s"
for dev in cpu emulated; do
    "$W" run --device "$dev" --jobs 16 --gpu-workers 1 --synth-rounds 16 --out "$DIR/$dev.wft" --quiet || exit 1
    s=$(stage "$DIR/$dev.wft" synthesis)
    g=$(stage "$DIR/$dev.wft" gpu)
    label=$dev
    [ "$dev" = emulated ] && label="emulated*"
    printf "  %-10s %16.0f %16.0f\n" "$label" "$(echo "$N $s" | awk '{print $1/$2}')" "$(echo "$N $g" | awk '{print $1/$2}')"
done
echo "  * emulated: the device holds each proof for the cpu proof time / speed-up 2; no GPU was used"

echo
echo "the demo's workload (make demo): GPU utilization, 3 runs each"
for c in 1 2; do
    line=""
    for i in 1 2 3; do
        "$W" run --synth-concurrency $c --out "$DIR/d.wft" --quiet || exit 1
        line="$line $(util "$DIR/d.wft")"
    done
    printf "  synthesis concurrency %d:" "$c"
    echo "$line" | awk '{for (i = 1; i <= NF; i++) printf " %.1f%%", 100 * $i; print ""}'
    eval "u$c=\"$line\""
done
worst1=$(echo $u1 | tr ' ' '\n' | sort -n | tail -1)
echo "  sequential under 90%: $(echo "$worst1" | awk '{print ($1 < 0.9) ? "PASS" : "MISS"}');  parallel at least 97% (median): $(echo $u2 | tr ' ' '\n' | sort -n | sed -n 2p | awk '{print ($1 >= 0.97) ? "PASS" : "MISS"}')"

# The trace's GPU busy time against the device's own clock (the engine's
# --truth file): the marks bound the device's holds, so the trace is never
# less, and what it adds is the workers' wake-up latency.  test_engine
# checks the bound; how much it adds depends on the machine's load, so it
# is a figure here, not a gate there.
echo
echo "trace against the device's clock (cpu, 2 devices, 12 jobs, 2^14 constraints)"
"$W" run --device cpu --devices 2 --jobs 12 --gpu-workers 2 --size 16384 --synth-rounds 2 \
    --out "$DIR/t.wft" --truth "$DIR/t.json" --quiet || exit 1
"$W" analyze --json --no-progress "$DIR/t.wft" |
    grep -o '"device": [0-9]*, "workers": [^]]*], "units": [0-9]*, "busy_s": [0-9.e-]*' |
    sed 's/"device": \([0-9]*\).*"busy_s": \(.*\)/\1 \2/' >"$DIR/trace.txt"
grep -o '"device": [0-9]*, "busy_s": [0-9.e-]*' "$DIR/t.json" | sed 's/"device": \([0-9]*\), "busy_s": /\1 /' >"$DIR/truth.txt"
join "$DIR/trace.txt" "$DIR/truth.txt" |
    awk '{printf "  device %s: trace %.6f s, device clock %.6f s, +%.2f%%\n", $1, $2, $3, 100 * ($2 - $3) / $3}'
