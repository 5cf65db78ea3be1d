#!/bin/sh
# test_hostile.sh -- inputs from crashed daemons, full disks and mangled
# terminals: each ends in a clear message or a partial analysis with a
# documented status, never a crash or a hang, with memory bounded.
# Usage: test_hostile.sh WATERFALL [KB]   (KB: address-space limit, 0: none)
W="$1"
LIMIT=${2:-4000000}
. "$(dirname "$0")/lib.sh"
# Run with a time limit and a memory limit (4 GB of address space is far
# more than any of these inputs should need; the largest, a million units,
# peaks near 250 MB).
expect() { # want description cmd...
    want=$1 what=$2
    shift 2
    (if [ "$LIMIT" != 0 ]; then ulimit -v "$LIMIT"; fi; timeout 120 "$@") >"$T/out" 2>"$T/err"
    got=$?
    if [ "$got" = "$want" ]; then ok; else bad "$what: exited $got, want $want: $(head -c 300 "$T/err")"; fi
}

# Binary garbage, NUL bytes, a PNG, an empty file.
head -c 3000000 /dev/urandom >"$T/garbage"
expect 3 "garbage" "$W" analyze "$T/garbage"
expect 3 "garbage as a trace" "$W" dump "$T/garbage"
printf 'TIMELINE,1,GPU_START,a\000b,\nTIMELINE,2,GPU_END,a\000b,\n\000\000\000TIMELINE,3,GPU_START,c,\nTIMELINE,4,GPU_END,c,\n' >"$T/nul.log"
expect 0 "NUL bytes" "$W" analyze "$T/nul.log"
grep -q "3 units\|2 units" "$T/out" && ok || bad "NUL bytes: units: $(head -3 "$T/out")"
printf '\211PNG\r\n\032\n\000\000\000\rIHDR\000\000\001\000' >"$T/x.png"
head -c 20000 /dev/urandom >>"$T/x.png"
expect 3 "PNG to analyze" "$W" analyze "$T/x.png"
expect 3 "PNG to dump" "$W" dump "$T/x.png"
: >"$T/empty"
expect 3 "empty" "$W" analyze "$T/empty"

# A 10 MB line with TIMELINE inside, between good lines: skipped, counted.
{
    echo "TIMELINE,0,GPU_START,a,"
    awk 'BEGIN { printf "TIMELINE,5,GPU_END,x,"; for (i = 0; i < 10485760 / 64; i++) printf "%064d", i; print "" }'
    echo "TIMELINE,10,GPU_END,a,"
} >"$T/long.log"
expect 4 "10 MB line" "$W" analyze "$T/long.log"
grep -q "long.log:2: skipped line (record longer than 4096 bytes)" "$T/out" && ok || bad "10 MB line not reported at line 2: $(head -5 "$T/out")"
grep -q "GPU utilization 100.0%" "$T/out" && ok || bad "10 MB line: the good unit was lost"

# Numbers that overflow, NaN, inf, negative times, huge ids.
cat >"$T/numbers.log" <<'EOL'
TIMELINE,99999999999999999999999,GPU_START,a,
TIMELINE,nan,GPU_START,a,
TIMELINE,inf,GPU_START,a,
TIMELINE,-1,GPU_START,a,
TIMELINE,1e309,GPU_START,a,
TIMELINE gpu_start job=a ts=-1
TIMELINE gpu_start job=a ts=NaN
TIMELINE,0,GPU_START,big,partition=2147483647,worker=2147483647,gpu=2147483647
TIMELINE,5,GPU_END,big,partition=2147483647,worker=2147483647,gpu=2147483647
TIMELINE,6,GPU_END,big,partition=2147483648
TIMELINE,7,GPU_END,big,worker=99999999999999999999
EOL
expect 4 "bad numbers" "$W" analyze --json "$T/numbers.log"
grep -q '"skipped_lines": 9' "$T/out" && ok || bad "bad numbers: $(grep -o '"skipped_lines": [0-9]*' "$T/out")"
grep -q '"device": 2147483647, "workers": \[2147483647\]' "$T/out" && ok || bad "huge ids not kept"

# Events in reverse order, and every event twice.
awk 'BEGIN { for (j = 0; j < 200; j++) { t = j * 10;
    print "TIMELINE," t ",SYNTH_START,j" j ","; print "TIMELINE," t + 4 ",SYNTH_END,j" j ",";
    print "TIMELINE," t + 5 ",GPU_START,j" j ","; print "TIMELINE," t + 9 ",GPU_END,j" j "," } }' >"$T/fwd.log"
# each unit's lines in reverse order (times unchanged)
awk '{ l[NR % 4] = $0 } NR % 4 == 0 { print l[0]; print l[3]; print l[2]; print l[1] }' "$T/fwd.log" >"$T/rev.log"
expect 0 "forward" "$W" analyze --json "$T/fwd.log"
f=$(grep -o '"busy_s": [0-9.e-]*' "$T/out" | head -1)
expect 0 "reverse order" "$W" analyze --json "$T/rev.log"
r=$(grep -o '"busy_s": [0-9.e-]*' "$T/out" | head -1)
[ "$f" = "$r" ] && ok || bad "reverse order changes busy: $f vs $r"
awk '{ print; print }' "$T/fwd.log" >"$T/dup.log"
expect 0 "duplicates" "$W" analyze --json "$T/dup.log"
grep -q '"duplicate_events": 800' "$T/out" && ok || bad "duplicates: $(grep -o '"duplicate_events": [0-9]*' "$T/out")"
d=$(grep -o '"busy_s": [0-9.e-]*' "$T/out" | head -1)
[ "$f" = "$d" ] && ok || bad "duplicates change busy: $f vs $d"

# Many units: a million (4M lines), from stdin, in bounded memory.
awk 'BEGIN { for (j = 0; j < 1000000; j++) { t = j * 3;
    printf "TIMELINE,%d,SYNTH_START,u%d,\nTIMELINE,%d,GPU_START,u%d,worker=%d\nTIMELINE,%d,GPU_END,u%d,worker=%d\nnoise line %d\n",
    t, j, t + 1, j, j % 4, t + 3, j, j % 4, j } }' >"$T/many.log"
expect 0 "a million units from stdin" sh -c "cat '$T/many.log' | '$W' analyze --json -"
grep -q '"units": 1000000' "$T/out" && ok || bad "1M units: $(grep -o '"units": [0-9]*' "$T/out" | head -1)"

# 200,000 units picked up by one worker and never started (each holds prep
# until the worker's next pickup): analyze and watch find the worker's next
# move by a sorted index, not a scan of the units for each (quadratic: a
# hang in watch)
awk 'BEGIN { print "TIMELINE,0,SYNTH_START,a,"; print "TIMELINE,1,GPU_PICKUP,a,worker=0";
    print "TIMELINE,2,GPU_START,a,worker=0"; print "TIMELINE,3,GPU_END,a,worker=0";
    for (j = 0; j < 200000; j++) printf "TIMELINE,%d,GPU_PICKUP,u%d,worker=0\n", 4 + j, j;
    print "TIMELINE,200005,GPU_START,z,worker=1"; print "TIMELINE,200006,GPU_END,z,worker=1" }' >"$T/left.log"
expect 0 "200k units never started" "$W" analyze "$T/left.log"
grep -q "200000 units abandoned" "$T/out" && ok || bad "200k units never started: $(grep warning "$T/out")"
expect 0 "200k units never started, watched" "$W" watch --once "$T/left.log"

# A new device and a new worker on every unit (200k of each): every table
# that holds them is indexed, nothing goes quadratic (this took 84 s before
# it was).  Judged by the CPU time the command used (the shell's `times`,
# its children's user + system), not by the wall clock, which a busy
# machine stretches: 10 s of CPU leaves room for a sanitizer build.
awk 'BEGIN { for (j = 0; j < 200000; j++)
    printf "TIMELINE,%d,GPU_START,j%d,gpu=%d,worker=%d\nTIMELINE,%d,GPU_END,j%d,gpu=%d,worker=%d\n",
        j, j, j, j, j + 1, j, j, j }' >"$T/manydev.log"
children_cpu() { # seconds of CPU used by the shell's finished children
    times | awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] } print s }'
}
before=$(children_cpu)
expect 0 "200k devices and workers" "$W" analyze --json "$T/manydev.log"
cpu=$(awk -v a="$before" -v b="$(children_cpu)" 'BEGIN { printf "%.2f", b - a }')
awk -v c="$cpu" 'BEGIN { exit !(c <= 10) }' && ok || bad "200k devices: took $cpu s of CPU"
grep -q '"units": 200000' "$T/out" && ok || bad "200k devices: $(grep -o '"units": [0-9]*' "$T/out" | head -1)"

# A trace cut at a record boundary and mid-record, and truncated to the header.
"$W" run --jobs 4 --size 1024 --synth-rounds 1 --out "$T/t.wft" --quiet || bad "run"
head -c 256 "$T/t.wft" >"$T/hdr.wft"
expect 3 "header only" "$W" analyze "$T/hdr.wft"
size=$(wc -c <"$T/t.wft")
head -c $((size - 100)) "$T/t.wft" >"$T/cut.wft"
expect 0 "cut short" "$W" analyze "$T/cut.wft"
grep -q "did not finish" "$T/err" && ok || bad "a cut trace is not said to be cut"

# What the fuzzers found (fuzz/corpus/*/regress-*: docs/fuzzing.md), through
# the whole analysis and every report: no crash, and, in the sanitizer
# build (make asan), no undefined behaviour.
for f in "$(dirname "$0")"/../fuzz/corpus/text/regress-*; do
    (if [ "$LIMIT" != 0 ]; then ulimit -v "$LIMIT"; fi; timeout 120 "$W" analyze --gaps --chart "$f") >"$T/out" 2>"$T/err"
    got=$?
    [ $got -le 4 ] && ok || bad "$(basename "$f"): exited $got: $(head -c 300 "$T/err")"
done

finish hostile
