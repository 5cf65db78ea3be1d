#!/bin/sh
# run.sh -- run each libFuzzer target for a bounded time on its corpus
# (fuzz/corpus/<target> seeds, build-fuzz/corpus-<target> what it found).
# Usage: run.sh SECONDS.  Exits non-zero when a target finds a crash; the
# crashing input is left in build-fuzz/ (crash-*).
# Every target, with its seeds in fuzz/corpus/<target> (the Makefile
# builds this list).  Each prints its executions and coverage; a target
# whose binary is missing is a failure.
TARGETS="wft rings scan text opts live kineto"
SECS=${1:-30}
for t in $TARGETS; do
    if [ ! -x build-fuzz/fuzz/fuzz_$t ]; then
        echo "fuzz_$t: not built (make fuzz)" >&2
        exit 1
    fi
    mkdir -p build-fuzz/corpus-$t
    log=build-fuzz/fuzz_$t.log
    # the option target's messages are noise: close its stderr (libFuzzer
    # keeps its own copy for crash reports)
    mask=0
    [ $t = opts ] && mask=2
    (cd build-fuzz && ./fuzz/fuzz_$t -max_total_time="$SECS" -max_len=65536 -timeout=10 -rss_limit_mb=1024 \
        -close_fd_mask=$mask -print_final_stats=1 corpus-$t ../fuzz/corpus/$t) >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    echo "fuzz_$t: ${SECS} s, $execs executions, $cov, exit $rc"
    if [ $rc -ne 0 ]; then
        grep -E "ERROR|SUMMARY|Test unit written" "$log" | head -5
        exit 1
    fi
done
