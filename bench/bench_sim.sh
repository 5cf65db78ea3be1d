#!/bin/sh
# bench_sim.sh -- `waterfall simulate`: simulated units per second, the
# simulation alone and with the analysis of its result, on a million
# units with contention on (processor sharing) and lognormal times.  Target: at least 1 million simulated units per second.
# Median of 5 runs.  Usage: bench_sim.sh BUILD_DIR
B=${1:-build}
W="$B/waterfall"
N=${SIM_BENCH_UNITS:-1000000}
echo
echo "simulate bench: $N units (500k jobs x 2 partitions), synthesis concurrency 3, 2 devices x 2 workers,"
echo "  channel 4, 4 cores shared (processor sharing), lognormal spread 0.3; median of 5 runs"
for i in 1 2 3 4 5; do
    WATERFALL_TIMING=1 "$W" simulate --synth-s 1 --gpu-s 0.35 --prep-s 0.01 --spread 0.3 --jobs $((N / 2)) \
        --partitions 2 --synth-concurrency 3 --devices 2 --gpu-workers 2 --channel 4 --cores 4 \
        --host-share 0.2 --json 2>&1 >/dev/null | grep '^timing:'
done >"${TMPDIR:-/tmp}/wf_bench_sim.$$"
F="${TMPDIR:-/tmp}/wf_bench_sim.$$"
# medians of the simulation's and the analysis' times
sim=$(sed 's/.*simulation \([0-9.]*\) s.*/\1/' "$F" | sort -n | sed -n 3p)
ana=$(sed 's/.*analysis \([0-9.]*\) s.*/\1/' "$F" | sort -n | sed -n 3p)
rm -f "$F"
[ -n "$sim" ] || { echo "  simulate bench: no timing (did simulate fail?)"; exit 1; }
awk -v n="$N" -v s="$sim" -v a="$ana" 'BEGIN {
    rs = n / s; ra = n / (s + a)
    printf "  simulation alone       %6.3f s  %6.2fM units/s  %s (target: at least 1M units/s)\n", s, rs / 1e6, (rs >= 1e6 ? "PASS" : "MISS")
    printf "  with the analysis      %6.3f s  %6.2fM units/s\n", s + a, ra / 1e6
}'
