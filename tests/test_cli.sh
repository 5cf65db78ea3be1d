#!/bin/sh
# test_cli.sh -- `waterfall dump` as a user meets it: exit statuses, messages
# that name the file, torn traces, garbage.  Usage: test_cli.sh WATERFALL DEMO
W="$1"
DEMO="$2"
. "$(dirname "$0")/lib.sh"
expect_err() { # want pattern cmd...: the status, and a message on stderr that matches
    want=$1 pat=$2
    shift 2
    expect_status "$want" "$@"
    grep -q "$pat" "$T/err" && ok || bad "$*: stderr lacks '$pat': $(cat "$T/err")"
}
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
expect_err 0 'emulated-gpu0 *several *0 ' "$W" dump --stats "$T/e.wft"
grep -q 'gpu0-worker1 *1 *0 ' "$T/err" && ok || bad "--stats: a worker's role: $(grep worker1 "$T/err")"

# Torn: cut the file mid-record.  Everything before is read; exit 0, a warning.
size=$(wc -c <"$T/d.wft")
head -c $((size - 45)) "$T/d.wft" >"$T/torn.wft"
expect_err 0 'torn record at byte' "$W" dump "$T/torn.wft"
grep -q "$T/torn.wft" "$T/err" && ok || bad "torn warning does not name the file"

# Damage in the middle: exit 4, the rest still printed.
cp "$T/d.wft" "$T/bad.wft"
printf 'GARBAGE!GARBAGE!GARBAGE!' | dd of="$T/bad.wft" bs=1 seek=400 conv=notrunc 2>/dev/null
expect_err 4 'damaged from byte' "$W" dump "$T/bad.wft"

# Not traces.
: >"$T/empty.wft"
expect_err 3 "empty.wft: empty file" "$W" dump "$T/empty.wft"
printf '\211PNG\r\n\032\n\0\0\0\rIHDR' >"$T/x.png"
expect_err 3 "x.png: not a waterfall trace" "$W" dump "$T/x.png"
expect_err 3 "missing.wft: cannot open" "$W" dump "$T/missing.wft"
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
expect_err 3 'plain.log: no TIMELINE records in its 2 lines of text' "$W" analyze "$T/plain.log"
printf 'CUZK_TIMING: prep_msm_ms=1909\nCUZK_TIMING: gpu_tid=0 tail_msm_ms=579 gpu_total_ms=1752\n' >"$T/dur_only.log"
expect_err 3 'dur_only.log: its 2 duration lines (CUZK_TIMING) are placed inside the GPU phases that TIMELINE records give' \
    "$W" analyze "$T/dur_only.log"
expect_err 3 'empty.wft: empty file' "$W" analyze "$T/empty.wft"
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

# What real clients and a new user found (each held to its fix).
# help CMD is CMD's help
"$W" help analyze >"$T/h1" 2>&1; "$W" analyze --help >"$T/h2" 2>&1
cmp -s "$T/h1" "$T/h2" && grep -q 'usage: waterfall analyze' "$T/h1" && ok || bad "waterfall help analyze is not analyze's help"
# every non-zero exit says why on stderr, in every output format
printf 'TIMELINE,0,GPU_START,a,\nTIMELINE,x,GPU_END,a,\nTIMELINE,5,GPU_END,a,\n' >"$T/partial.log"
for cmd in "analyze" "analyze --json" "analyze --csv" "diff $T/partial.log" "render -o $T/p.svg" "render -o $T/p.json"; do
    "$W" $cmd "$T/partial.log" >/dev/null 2>"$T/why"
    st=$?
    [ "$st" = 4 ] && [ -s "$T/why" ] && grep -q 'exit status 4.* lines* skipped' "$T/why" && ok ||
        bad "'waterfall $cmd' on a partial log: exit $st, stderr: $(cat "$T/why")"
done
for cmd in "simulate --from $T/partial.log" "dump $T/partial.log" "analyze /nonexistent" "analyze --frob x" "run --jobs 0" "simulate --synth-s -1" "nope"; do
    "$W" $cmd >/dev/null 2>"$T/why"
    st=$?
    [ "$st" != 0 ] && [ -s "$T/why" ] && ok || bad "'waterfall $cmd' exits $st with nothing on stderr"
done
# a daemon's own line that mentions TIMELINE is not a record; 1 line, not 1 lines
printf '2026-02-18T19:21:07Z INFO cuzk: TIMELINE logging enabled\nTIMELINE,0,GPU_START,a,\nTIMELINE,5,GPU_END,a,\n' >"$T/mention.log"
expect_status 0 "$W" analyze --json "$T/mention.log"
grep -q '"timeline_lines": 2' "$T/out" && grep -q '"skipped_lines": 0' "$T/out" && ok || bad "a mention of TIMELINE counted as a record"
"$W" analyze "$T/partial.log" 2>/dev/null | grep -q '1 job (1 completed), 1 unit, 1 line skipped' && ok || bad "singular counts"
# blanks after a detail's commas are trimmed: two partitions on device 1
printf 'TIMELINE,0,GPU_START,a,worker=0, gpu=1, partition=2\nTIMELINE,5,GPU_END,a,worker=0, gpu=1, partition=2\nTIMELINE,0,GPU_START,a,worker=0, gpu=1 ,partition = 3\nTIMELINE,5,GPU_END,a,worker=0, gpu = 1, partition=3\n' >"$T/blanks.log"
expect_status 0 "$W" analyze --csv "$T/blanks.log"
[ "$(grep -c '^.*,1,a,[23],1,0,complete,' "$T/out")" = 2 ] && ok || bad "blanks in details: $(cat "$T/out")"
# absolute (Unix epoch) times keep their digits in the JSON and the CSV
printf 'TIMELINE gpu_start job=a ts=1718000863.5\nTIMELINE gpu_end job=a ts=1718000864.25\nTIMELINE gpu_start job=b ts=1718000865.0\nTIMELINE gpu_end job=b ts=1718000866.0\n' >"$T/epoch.log"
expect_status 0 "$W" analyze --json --gaps "$T/epoch.log"
grep -q '"window_start_s": 1718000863.5,' "$T/out" && grep -q '"start_s": 1718000864.25, "end_s": 1718000865,' "$T/out" &&
    ok || bad "epoch times in the JSON: $(grep -o '"window_start_s": [^,]*' "$T/out")"
"$W" analyze --csv "$T/epoch.log" | grep -q ',1718000863.500000000,1718000864.250000000,' && ok || bad "epoch times in the CSV"
# a GPU phase of zero length: no window, utilization null everywhere, said so
printf 'TIMELINE,5,GPU_START,a,\nTIMELINE,5,GPU_END,a,\n' >"$T/zero.log"
expect_status 0 "$W" analyze --json "$T/zero.log"
[ "$(grep -o '"utilization": null' "$T/out" | wc -l)" = 2 ] && ok || bad "zero-length window: $(grep -o '"utilization": [^,]*' "$T/out")"
"$W" analyze "$T/zero.log" | grep -q 'every GPU phase has zero length' && ok || bad "zero-length window: the message"
# dump's text analyses as the trace does (nanoseconds by default)
"$W" dump "$T/e.wft" >"$T/e.txt" 2>/dev/null
a=$("$W" analyze --json "$T/e.wft" | grep -o '"busy_s": [0-9.e-]*' | head -1)
b=$("$W" analyze --json "$T/e.txt" | grep -o '"busy_s": [0-9.e-]*' | head -1)
[ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "dump's text analyses differently: $a against $b"
# jobs finishing in pairs 17 and 23 ms apart run at 20 ms per job (steady: a rate)
awk 'BEGIN { t = 0; for (k = 0; k < 40; k++) { t += (k % 2) ? 23 : 17;
    printf "TIMELINE,%d,GPU_START,j%d,worker=%d\nTIMELINE,%d,GPU_END,j%d,worker=%d\n", t - 5, k, k % 2, t, k, k % 2 } }' |
    sort -t, -k2 -n >"$T/pairs.log"
expect_status 0 "$W" analyze --json "$T/pairs.log"
steady=$(sed -n 's/.*"steady_s_per_job": \([0-9.e-]*\).*/\1/p' "$T/out")
awk -v s="$steady" 'BEGIN { exit !(s >= 0.0199 && s <= 0.0202) }' && ok || bad "steady s per job of the pairs: $steady"
# the formula knows the workers' prep: one worker, 2 ms prep, 15 ms GPU: at most 88%
awk 'BEGIN { free = 0; for (k = 0; k < 30; k++) { ss = k * 20; se = ss + 20; pk = se > free ? se : free; gs = pk + 2; ge = gs + 15; free = ge;
    printf "%d SYNTH_START j%d\n%d SYNTH_END j%d\n%d GPU_PICKUP j%d\n%d GPU_START j%d\n%d GPU_END j%d\n", ss, k, se, k, pk, k, gs, k, ge, k } }' |
    sort -n | awk '{ printf "TIMELINE,%d,%s,%s,worker=0\n", $1, $2, $3 }' >"$T/prep.log"
expect_status 0 "$W" analyze --advise formula --json "$T/prep.log"
grep -q '"advice": {"synthesis_concurrency": 2, "predicted_utilization": 0.88235294' "$T/out" && ok ||
    bad "the formula ignores the workers' prep: $(grep -o '"advice": {[^}]*' "$T/out")"
"$W" analyze --advise formula "$T/prep.log" | grep -q 'GPU utilization 75.6% measured -> 88% predicted' && ok ||
    bad "the advice's now is not the measured utilization"
"$W" analyze "$T/prep.log" | grep -q 'mean 0.9[0-9] over the GPU window' && ok || bad "the concurrency's mean is not said to be over the window"
# a synthesis that never ended is not counted as running to the log's end
printf 'TIMELINE,0,SYNTH_START,a,\nTIMELINE,10,SYNTH_END,a,\nTIMELINE,10,GPU_START,a,\nTIMELINE,20,GPU_END,a,\nTIMELINE,1,SYNTH_START,dropped,\nTIMELINE,10,SYNTH_START,b,\nTIMELINE,20,SYNTH_END,b,\nTIMELINE,20,GPU_START,b,\nTIMELINE,30,GPU_END,b,\n' >"$T/drop.log"
expect_status 0 "$W" analyze --json "$T/drop.log"
grep -q '"synthesis_concurrency": {"max": 1, "mean_active": 0.5}' "$T/out" && grep -q '"in_flight": 1' "$T/out" && ok ||
    bad "the dropped synthesis: $(grep -o '"synthesis_concurrency": {[^}]*' "$T/out")"
# diff: no percentage of a tiny baseline
printf 'TIMELINE,0,SYNTH_END,a,\nTIMELINE,0.01,GPU_PICKUP,a,\nTIMELINE,1,GPU_START,a,\nTIMELINE,2,GPU_END,a,\n' >"$T/q1.log"
printf 'TIMELINE,0,SYNTH_END,a,\nTIMELINE,50,GPU_PICKUP,a,\nTIMELINE,51,GPU_START,a,\nTIMELINE,52,GPU_END,a,\n' >"$T/q2.log"
"$W" diff "$T/q1.log" "$T/q2.log" | grep '^  queue p50' | grep -q '%' && bad "diff: a percentage of a tiny baseline" || ok
# the man pages render, and name every command and every library call
MAN1="$(dirname "$0")/../man/waterfall.1" MAN3="$(dirname "$0")/../man/libwaterfall.3"
if command -v man >/dev/null 2>&1; then
    man -l "$MAN1" >"$T/man1" 2>/dev/null && man -l "$MAN3" >"$T/man3" 2>/dev/null && ok || bad "man -l fails"
    for c in analyze diff render simulate run dump; do grep -q "waterfall $c" "$T/man1" || bad "waterfall.1 lacks $c"; done
    for f in wf_open wf_open_opts wf_close wf_unit_new wf_mark wf_thread_worker wf_thread_name wf_event_define \
        wf_event_name wf_get_stats; do grep -q "$f" "$T/man3" || bad "libwaterfall.3 lacks $f"; done
else
    echo "test_cli: man is not installed: the man pages not rendered"
fi

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

# Issue 28: what a new user meets.  Rotated logs are compressed: gzip and
# zstd are read as they are (by their magic, not their name), from a file
# or stdin, members one after another too; a damaged or cut stream is an
# error naming the file.
printf 'TIMELINE,0,SYNTH_START,z,\nTIMELINE,10,SYNTH_END,z,\nTIMELINE,20,GPU_START,z,\nTIMELINE,90,GPU_END,z,\n' >"$T/z.log"
expect_status 0 "$W" analyze --json "$T/z.log"
sed 's/"source": "[^"]*"/"source": ""/' "$T/out" >"$T/z.json"
gzip -c "$T/z.log" >"$T/z.rotated"
expect_status 0 "$W" analyze --json "$T/z.rotated"
sed 's/"source": "[^"]*"/"source": ""/' "$T/out" | cmp -s - "$T/z.json" && ok || bad "a gzip log does not read as its text"
expect_status 0 "$W" analyze --json - <"$T/z.rotated"
sed 's/"source": "[^"]*"/"source": ""/' "$T/out" | cmp -s - "$T/z.json" && ok || bad "a gzip log on stdin"
# the same log made by zstd -19 (69 bytes)
printf '\050\265\057\375\044\143\305\001\000\124\002\124\111\115\105\114\111\116\105\054\060\054\123\131\116\124\110\137\123\124\101\122\124\054\172\054\012\061\105\116\104\062\060\054\107\120\125\071\006\000\123\021\270\327\255\052\051\074\317\370\044\327\056\346\030\176\016\140\350' >"$T/z.zst"
expect_status 0 "$W" analyze --json "$T/z.zst"
sed 's/"source": "[^"]*"/"source": ""/' "$T/out" | cmp -s - "$T/z.json" && ok || bad "a zstd log does not read as its text"
cat "$T/z.rotated" "$T/z.rotated" >"$T/zz.gz"
expect_status 0 "$W" analyze --json "$T/zz.gz"
grep -q '"duplicate_events": 4' "$T/out" && ok || bad "two gzip members: not both read"
head -c 40 "$T/z.rotated" >"$T/cut.gz"
expect_err 3 'cut.gz: the gzip data ends early (truncated)' "$W" analyze "$T/cut.gz"
head -c 30 "$T/z.zst" >"$T/cut.zst"
expect_err 3 'cut.zst: the zstd data ends early (truncated)' "$W" analyze "$T/cut.zst"
python3 -c "import sys; d = bytearray(open(sys.argv[1], 'rb').read()); d[14] ^= 0xff; d[18] ^= 0x55; open(sys.argv[2], 'wb').write(d)" "$T/z.rotated" "$T/bad.gz"
expect_err 3 'bad.gz: damaged gzip data' "$W" analyze "$T/bad.gz"
# no TIMELINE line: say what the file is, and where TIMELINE lines are
printf 'starting\nlistening on :8080\n' >"$T/plain.log"
expect_err 3 'plain.log: no TIMELINE records in its 2 lines of text; a daemon prints them on stderr: capture it too (`daemon ... >log 2>&1`)' "$W" analyze "$T/plain.log"
printf '\000\001\002\003binary' >"$T/blob"
expect_err 3 'blob: binary data (it holds NUL bytes), not a text log' "$W" analyze "$T/blob"
# watch: a compressed log is complete (analyze reads it); a missing one is waited for, and that is said
expect_err 3 'z.rotated: gzip-compressed: watch follows a log while it is written' "$W" watch --once "$T/z.rotated"
expect_err 0 'nosuch.log does not exist (yet): nothing to read' "$W" watch --once "$T/nosuch.log"
timeout 2 "$W" watch --json-lines "$T/nosuch.log" >/dev/null 2>"$T/err"
[ "$(grep -c 'nosuch.log does not exist (yet); waiting for it to appear' "$T/err")" = 1 ] && ok ||
    bad "watch of a missing file: not said once: $(cat "$T/err")"

# --chart: a row's label keeps the partition, and a column's width reads as a duration
printf 'TIMELINE,0,SYNTH_START,9f1c2e7a-1b2c-4d5e,partition=3\nTIMELINE,900000,SYNTH_END,9f1c2e7a-1b2c-4d5e,partition=3\nTIMELINE,0,SYNTH_START,9f1c2e7a-1b2c-4d5e,partition=4\nTIMELINE,1000000,SYNTH_END,9f1c2e7a-1b2c-4d5e,partition=4\nTIMELINE,1000000,GPU_START,9f1c2e7a-1b2c-4d5e,partition=3\nTIMELINE,1100000,GPU_END,9f1c2e7a-1b2c-4d5e,partition=3\nTIMELINE,1100000,GPU_START,9f1c2e7a-1b2c-4d5e,partition=4\nTIMELINE,1200000,GPU_END,9f1c2e7a-1b2c-4d5e,partition=4\n' >"$T/chart.log"
expect_status 0 "$W" analyze --chart --color=never "$T/chart.log"
grep -q '^  9f1c2e7a-~/3 ' "$T/out" && grep -q '^  9f1c2e7a-~/4 ' "$T/out" && ok || bad "--chart: the partitions of a long job id: $(grep '^  9f1c' "$T/out")"
grep -q 'one column = [0-9.]* \(s\|ms\|us\|ns\)$' "$T/out" && ok || bad "--chart: the column's width: $(grep 'one column' "$T/out")"
# a mistyped command or option: did you mean
expect_err 2 "unknown command 'analyse'; did you mean 'analyze'?" "$W" analyse "$T/z.log"
expect_err 2 'waterfall analyze: did you mean --json?' "$W" analyze --jsn "$T/z.log"
expect_err 2 'waterfall render: did you mean --format?' "$W" render --fromat svg "$T/z.log" -o -

finish cli
