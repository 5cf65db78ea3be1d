#!/bin/sh
# test_cli.sh -- `waterfall dump` as a user meets it: exit statuses, messages
# that name the file, torn traces, garbage.  Usage: test_cli.sh WATERFALL DEMO
W="$1"
DEMO="$2"
. "$(dirname "$0")/lib.sh"
expect_status() { # want cmd...
    want=$1; shift
    "$@" >"$T/out" 2>"$T/err"; got=$?
    if [ "$got" = "$want" ]; then ok; else bad "$* exited $got, want $want: $(cat "$T/err")"; fi
}

"$DEMO" "$T/d.wft" 3 || bad "demo_record failed"
expect_status 0 "$W" dump "$T/d.wft"
[ "$(wc -l <"$T/out")" = 18 ] && ok || bad "3 jobs x 6 events: $(wc -l <"$T/out") lines"
grep -qv '^TIMELINE,' "$T/out" && bad "stdout holds non-TIMELINE lines" || ok
[ -s "$T/err" ] && bad "a clean dump wrote to stderr: $(cat "$T/err")" || ok
expect_status 0 "$W" dump -p 3 "$T/d.wft"
grep -q '^TIMELINE,[0-9]*\.[0-9][0-9][0-9],SYNTH_START,job-0,$' "$T/out" && ok || bad "--precision 3"
expect_status 0 "$W" dump --stats "$T/d.wft"
[ -s "$T/out" ] && bad "--stats wrote events to stdout" || ok
for w in 'closed: *yes' 'events: *18' 'lost: *0' 'threads: *2' 'gpu-worker-0' 'clock:'; do
    grep -q "$w" "$T/err" && ok || bad "--stats lacks '$w'"
done
expect_status 0 "$W" dump - <"$T/d.wft"
[ "$(wc -l <"$T/out")" = 18 ] && ok || bad "dump from stdin"
# A thread that marks for several workers (the emulated device's) is shown
# as such, not with whichever role it declared last; the worker threads
# keep theirs.
expect_status 0 "$W" run --jobs 12 --gpu-workers 2 --synth-concurrency 2 --synth-rounds 1 --size 1024 --device-time 3 --out "$T/e.wft" --quiet
expect_status 0 "$W" dump --stats "$T/e.wft"
grep -q 'emulated-gpu0 *several *0 ' "$T/err" && ok || bad "--stats: the device thread's roles: $(grep emulated "$T/err")"
grep -q 'gpu0-worker1 *1 *0 ' "$T/err" && ok || bad "--stats: a worker's role: $(grep worker1 "$T/err")"

# Torn: cut the file mid-record.  Everything before is read; exit 0, a warning.
size=$(wc -c <"$T/d.wft")
head -c $((size - 45)) "$T/d.wft" >"$T/torn.wft"
expect_status 0 "$W" dump "$T/torn.wft"
grep -q 'torn record at byte' "$T/err" && ok || bad "torn trace: no warning"
grep -q "$T/torn.wft" "$T/err" && ok || bad "torn warning does not name the file"

# Damage in the middle: exit 4, the rest still printed.
cp "$T/d.wft" "$T/bad.wft"
printf 'GARBAGE!GARBAGE!GARBAGE!' | dd of="$T/bad.wft" bs=1 seek=400 conv=notrunc 2>/dev/null
expect_status 4 "$W" dump "$T/bad.wft"
grep -q 'damaged from byte' "$T/err" && ok || bad "damage not reported"

# Not traces.
: >"$T/empty.wft"
expect_status 3 "$W" dump "$T/empty.wft"
grep -q "empty.wft: empty file" "$T/err" && ok || bad "empty file message: $(cat "$T/err")"
printf '\211PNG\r\n\032\n\0\0\0\rIHDR' >"$T/x.png"
expect_status 3 "$W" dump "$T/x.png"
grep -q "x.png: not a waterfall trace" "$T/err" && ok || bad "png message: $(cat "$T/err")"
expect_status 3 "$W" dump "$T/missing.wft"
grep -q "missing.wft: cannot open" "$T/err" && ok || bad "missing file message"
expect_status 3 "$W" dump "$T"
head -c 100000 /dev/urandom >"$T/rand.wft"
expect_status 3 "$W" dump "$T/rand.wft"

# Usage.
expect_status 2 "$W"
expect_status 2 "$W" frobnicate
expect_status 2 "$W" dump
expect_status 2 "$W" dump a b
expect_status 2 "$W" dump -p 9 "$T/d.wft"
expect_status 2 "$W" dump --nope "$T/d.wft"
expect_status 0 "$W" dump --help
expect_status 0 "$W" --help

# analyze and diff, as a user meets them.
expect_status 0 "$W" analyze "$T/d.wft"
grep -q 'GPU utilization' "$T/out" && ok || bad "analyze report lacks utilization"
grep -q 'bottleneck' "$T/out" && ok || bad "analyze report lacks the bottleneck"
expect_status 0 "$W" analyze --json "$T/d.wft"
head -c 14 "$T/out" | grep -q '^{"version": 1' && ok || bad "analyze --json does not start with the schema version"
grep -q '"idle_by_cause": {"prep": ' "$T/out" && ok || bad "analyze --json lacks idle_by_cause"
expect_status 0 "$W" analyze --csv "$T/d.wft"
head -1 "$T/out" | grep -q '^source,run,job,partition,device,worker,status,synth_start' && ok || bad "csv header"
[ "$(wc -l <"$T/out")" = 4 ] && ok || bad "csv: 3 units + header, got $(wc -l <"$T/out") lines"
"$W" dump -p 6 "$T/d.wft" >"$T/d.log"
expect_status 0 sh -c "cat '$T/d.log' | '$W' analyze -"
grep -q '<stdin>' "$T/out" && ok || bad "analyze - does not name stdin"
printf 'x\nTIMELINE,abc,GPU_END,j,\n' >>"$T/d.log"
expect_status 4 "$W" analyze "$T/d.log"
grep -q 'd.log:[0-9]*: skipped line (bad or missing time)' "$T/out" && ok || bad "skipped line not reported with file:line"
printf 'hello\nworld\n' >"$T/plain.log"
expect_status 3 "$W" analyze "$T/plain.log"
grep -q 'plain.log: no TIMELINE records found' "$T/err" && ok || bad "no-TIMELINE message: $(cat "$T/err")"
expect_status 3 "$W" analyze "$T/empty.wft"
grep -q 'empty.wft: empty file' "$T/err" && ok || bad "empty input message"
expect_status 3 "$W" analyze "$T/x.png"
expect_status 3 "$W" analyze "$T/missing.log"
expect_status 2 "$W" analyze
expect_status 2 "$W" analyze --json --csv "$T/d.wft"
expect_status 2 "$W" analyze --gaps=0 "$T/d.wft"
expect_status 0 "$W" analyze --gaps=2 "$T/d.wft"
grep -q 'idle gaps on device 0, longest first' "$T/out" && ok || bad "--gaps lists no gaps"
COLUMNS=90 expect_status 0 "$W" analyze --chart=2 "$T/d.wft"
grep -q 'one column = ' "$T/out" && ok || bad "--chart draws no chart"
[ "$(grep -c '^  job-[0-9] ' "$T/out")" = 2 ] && ok || bad "--chart=2: $(grep -c '^  job-' "$T/out") unit rows"
grep -q "$(printf '\033')" "$T/out" && bad "--chart wrote colour codes into a pipe" || ok
expect_status 2 "$W" analyze --chart=0 "$T/d.wft"
expect_status 0 "$W" diff "$T/d.wft" "$T/d.wft"
grep -q 'GPU utilization' "$T/out" && ok || bad "diff lacks utilization"
expect_status 2 "$W" diff "$T/d.wft"
expect_status 0 "$W" diff --json "$T/d.wft" "$T/d.wft"
grep -q '"change": {"utilization": {"a": ' "$T/out" && ok || bad "diff --json lacks the change"

# The cpu bottleneck as a user meets it: the proofs on this CPU and four
# syntheses at once on two cores (taskset, so that a machine with more
# cores is as short of them as this one).  Whatever else the machine runs,
# the syntheses and the provers want more than the two cores give: the CPU
# section says so from the samples, and the advice never asks for more
# syntheses.  (Which verdict a quiet machine gives at 1, 2 and 4 is a
# measurement: make validate, tests/cpu_validate.sh.)
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
    expect_status 0 taskset -c 0,1 "$W" run --device cpu --jobs 12 --size 65536 --synth-rounds 12 --synth-concurrency 4 \
        --gpu-workers 2 --no-pin --out "$T/c4.wft" --quiet
    expect_status 0 "$W" analyze --json "$T/c4.wft"
    grep -q '"cpu": {"source": "samples", "synthesis": {"used": ' "$T/out" && ok || bad "c4: no CPU samples in the JSON"
    grep -q '"synthesis_contended": true' "$T/out" && ok || bad "c4: synthesis not contended: $(grep -o '"cpu": {[^]]*' "$T/out")"
    grep -q '"contention": true' "$T/out" && ok || bad "c4: no contention"
    needed=$(sed -n 's/.*"advice": {"synthesis_concurrency": \([0-9]*\), .*"current_concurrency": \([0-9]*\),.*/\1 \2/p' "$T/out")
    set -- $needed
    [ -n "$1" ] && [ "$1" -le "$2" ] && ok || bad "c4: the advice asks for more syntheses: $needed"
    expect_status 0 "$W" analyze "$T/c4.wft"
    grep -q '^  cpu            from the recorder.s samples: synthesis used' "$T/out" && ok || bad "c4: the text lacks the cpu line"
    grep -q 'run [5-9] syntheses\|run [1-9][0-9] syntheses' "$T/out" && bad "c4: the text asks for more syntheses" || ok
    expect_status 0 "$W" diff "$T/e.wft" "$T/c4.wft"
    grep -q '^  cpu: synthesis used' "$T/out" && grep -q '^  cpu: contention  *[noyes]*  *yes' "$T/out" && ok ||
        bad "diff lacks the CPU sections: $(grep cpu "$T/out")"
    "$W" render "$T/c4.wft" -o "$T/c4.html" && grep -q '"cpu":\["from the recorder' "$T/c4.html" && ok ||
        bad "the HTML summary lacks the CPU section"
else
    echo "test_cli: the cpu bottleneck check skipped: needs taskset and 2 CPUs"
fi

finish cli
