#!/bin/sh
# test_watch.sh -- `waterfall watch` applies analyze's definitions as a log
# grows, and when the log is done its totals equal analyze's on the whole
# log (busy, idle by cause, units, stages), exactly (tests/cmp_watch.py).
#   1. Settling after every N lines (N = 1, 7, 64): the test corpus, logs
#      of several runs with duplicates, damage and disorder (gen_chaos: a
#      line that comes behind the horizon is counted as late, and then only
#      the invariants are checked; with a slack that covers the disorder
#      the totals are exact), and a generated daemon log.
#   2. A log written while watch follows it, rotated by rename half way,
#      then by copy-truncate: nothing lost, nothing counted twice.
#   3. stdin: a pipe's end is the log's end.
#   4. Millions of units through a pipe, in bounded memory.
#   5. Usage errors say why.
# Usage: test_watch.sh WATERFALL GEN_CHAOS GEN_LOG [SEEDS]  (gen_chaos logs, default 12)
W="$1" G="$2" L="$3" SEEDS="${4:-12}"
. "$(dirname "$0")/lib.sh"
CMP="python3 $(dirname "$0")/cmp_watch.py"
D="$(dirname "$0")/data"

same() { # LOG WATCH-ARGS...: watch --once equals analyze
    log=$1
    shift
    "$W" analyze --json "$log" >"$T/a.json" 2>/dev/null
    "$W" watch --once "$@" "$log" >"$T/w.jsonl" 2>"$T/w.err"
    rc=$?
    [ $rc = 0 ] || [ $rc = 4 ] || { bad "watch $* $log: exit $rc: $(cat "$T/w.err")"; return; }
    if $CMP "$T/a.json" "$T/w.jsonl" $ALLOW >"$T/cmp" 2>&1; then ok; else bad "watch $* $log: $(cat "$T/cmp")"; fi
}

# 1. the corpus, settled after every line and every few
for f in "$D"/*.log; do
    ALLOW=
    # (reported.log holds a record 2 s of log time late: the slack covers it)
    for n in 1 7 64; do same "$f" --settle-every $n --slack 3; done
    ALLOW=--allow-late # no slack: a line a millisecond out of order is late
    same "$f" --settle-every 1 --slack 0
done
ALLOW=
"$L" --jobs 60 --seed 4 --noise 0.3 >"$T/gen.log"
for n in 1 7 64; do same "$T/gen.log" --settle-every $n --slack 10; done
# the generator prints lines up to 7 s of log time late: with the default
# slack, the slack widens and the few records late before it did are
# counted, the invariants hold
ALLOW=--allow-late
same "$T/gen.log" --settle-every 5
for s in $(seq 1 "$SEEDS"); do
    "$G" $s 3000 >"$T/chaos.log"
    ALLOW=--allow-late
    same "$T/chaos.log" --settle-every 3
    ALLOW=
    same "$T/chaos.log" --settle-every 50 --slack 3600
done

# the reference pipeline's trace, as the TIMELINE text of its dump: kernel
# phases (the engine marks KERNEL around the device's work) and two devices
"$W" run --device cpu --jobs 6 --gpu-workers 2 --devices 2 --synth-concurrency 2 --size 1024 --synth-rounds 1 \
    --out "$T/e.wft" --quiet && "$W" dump "$T/e.wft" >"$T/e.log" || bad "waterfall run / dump"
for n in 1 9; do same "$T/e.log" --settle-every $n; done

# 2. a log written while watch follows it, rotated twice; watch is told
# to stop once it has read every record, and its last line is compared
"$L" --jobs 40 --seed 8 --noise 0.5 >"$T/src.log"
total=$(grep -c TIMELINE "$T/src.log")
lines=$(wc -l <"$T/src.log")
half=$((lines / 2))
three=$((lines * 3 / 4))
: >"$T/live.log"
"$W" watch --json-lines --interval 0.05 --slack 10 --quiet 1000 "$T/live.log" >"$T/live.jsonl" 2>"$T/live.err" &
wpid=$!
python3 - "$T/src.log" "$T/live.log" $half $three "$T/live.jsonl" <<'EOF'
import json, os, sys, time, shutil
src, dst, half, three, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
lines = open(src, 'rb').readlines()
written = 0  # records written so far

def read_by_watch(n):
    """Wait (bounded) until watch's JSON lines say it has read n records:
    a copy-truncate loses what the follower had not read, so the test
    truncates only after that, whatever the machine's load."""
    end = time.monotonic() + 120
    while time.monotonic() < end:
        try:
            last = open(out).read().strip().split('\n')[-1]
            if json.loads(last)["records"] >= n:
                return
        except (ValueError, KeyError, IndexError):
            pass
        time.sleep(0.05)

f = open(dst, 'ab')
for i, line in enumerate(lines):
    if i == half:  # rotation by rename: the writer reopens its log a little later
        os.rename(dst, dst + '.1')
        f.write(b''.join(lines[i:i + 5]))  # still written to the old file
        written += sum(b'TIMELINE' in l for l in lines[i:i + 5])
        f.flush()
        f.close()
        time.sleep(0.2)
        f = open(dst, 'ab')
        lines[i:i + 5] = [b''] * 5
        continue
    if i == three:  # copy-truncate, once the follower has read the file
        f.flush()
        read_by_watch(written)
        shutil.copyfile(dst, dst + '.2')
        os.truncate(dst, 0)
    f.write(line)
    written += b'TIMELINE' in line
    if i % 50 == 0:
        f.flush()
        time.sleep(0.01)
f.close()
EOF
n=0
until [ $n -ge 600 ] || grep -q "\"records\":$total," "$T/live.jsonl" 2>/dev/null; do
    sleep 0.1
    n=$((n + 1))
done
kill -TERM $wpid 2>/dev/null
wait $wpid
rc=$?
[ $rc = 0 ] || bad "watch during rotation: exit $rc: $(cat "$T/live.err")"
grep -q "\"records\":$total," "$T/live.jsonl" && ok || bad "watch read $(tail -1 "$T/live.jsonl" | sed 's/.*"records":\([0-9]*\).*/\1/') records of $total"
tail -1 "$T/live.jsonl" | grep -q '"state":"final"' && ok || bad "the last line after SIGTERM is not the final one"
"$W" analyze --json "$T/src.log" >"$T/a.json" 2>/dev/null
if $CMP "$T/a.json" "$T/live.jsonl" >"$T/cmp" 2>&1; then ok; else bad "rotated log: $(cat "$T/cmp")"; fi

# a log written while followed, where one unit starts on the GPU and never
# ends while another completes after it: a watch stopped by SIGTERM settles
# what it read as analyze does the log (it once left out the completed
# unit's GPU time, held back by the unit that never ended: 156.3 s of busy
# against analyze's 159.9 s on a daemon's log), and the unit that never
# ended stays in flight
cat >"$T/never.src" <<'EOF'
TIMELINE,0,SYNTH_START,a,
TIMELINE,100,SYNTH_END,a,
TIMELINE,101,CHAN_SEND,a,
TIMELINE,102,GPU_PICKUP,a,worker=0
TIMELINE,105,GPU_START,a,worker=0
TIMELINE,100,SYNTH_START,b,
TIMELINE,200,GPU_END,a,worker=0
TIMELINE,200,SYNTH_END,b,
TIMELINE,200,SYNTH_START,c,
TIMELINE,201,CHAN_SEND,b,
TIMELINE,202,GPU_PICKUP,b,worker=1
TIMELINE,205,GPU_START,b,worker=1
TIMELINE,300,SYNTH_END,c,
TIMELINE,301,CHAN_SEND,c,
TIMELINE,302,GPU_PICKUP,c,worker=0
TIMELINE,305,GPU_START,c,worker=0
TIMELINE,400,GPU_END,c,worker=0
EOF
: >"$T/never.log"
"$W" watch --json-lines --interval 0.05 "$T/never.log" >"$T/never.jsonl" 2>"$T/never.err" &
wpid=$!
while IFS= read -r line; do
    printf '%s\n' "$line" >>"$T/never.log"
    sleep 0.02
done <"$T/never.src"
n=0
until [ $n -ge 600 ] || grep -q '"records":17,' "$T/never.jsonl" 2>/dev/null; do
    sleep 0.1
    n=$((n + 1))
done
kill -TERM $wpid 2>/dev/null
wait $wpid
rc=$?
[ $rc = 0 ] || bad "watch stopped with a unit on the GPU: exit $rc: $(cat "$T/never.err")"
"$W" analyze --json "$T/never.log" >"$T/a.json" 2>/dev/null
if $CMP "$T/a.json" "$T/never.jsonl" >"$T/cmp" 2>&1; then ok; else bad "watch stopped by SIGTERM with a unit on the GPU: $(cat "$T/cmp")"; fi
tail -1 "$T/never.jsonl" | grep -q '"busy_s":0.19,.*"gpu":1}' && ok ||
    bad "watch stopped by SIGTERM: busy 0.19 s and one unit in flight on the GPU: $(tail -1 "$T/never.jsonl")"

# A synthesis that never ends and a unit never picked up (a failed job's)
# hold the settled horizon only until they have lasted twice the longest
# of their stage completed yet: the log goes on to 450 ms, and the figures
# settle to there while watch still follows it, not at 200 ms (x's bound)
# until the log ends
"$W" watch --json-lines --interval 0.1 --quiet 0.3 "$D/abandoned-synthesis-queue.log" >"$T/left.jsonl" 2>/dev/null &
wpid=$!
n=0
until [ $n -ge 600 ] || grep '"state":"running"' "$T/left.jsonl" 2>/dev/null | grep -q '"settled_s":0.45,'; do
    sleep 0.1
    n=$((n + 1))
done
kill -TERM $wpid 2>/dev/null
wait $wpid
grep '"state":"running"' "$T/left.jsonl" | grep -q '"settled_s":0.45,' && ok ||
    bad "a synthesis that never ends holds the horizon: $(grep running "$T/left.jsonl" | tail -1)"

# a native trace followed while the engine writes it: watch ends by itself
# when the recorder closes the trace.  --quiet 1000: a writer stalled past
# the default 5 s (seen under ThreadSanitizer) must not settle what is
# read while a unit's first records wait in another thread's ring; the
# trace's end settles everything
rm -f "$T/live.wft"
timeout 120 "$W" watch --json-lines --interval 0.1 --quiet 1000 "$T/live.wft" >"$T/t.jsonl" 2>"$T/t.err" &
wpid=$!
"$W" run --device cpu --jobs 30 --gpu-workers 2 --devices 2 --synth-concurrency 2 --size 4096 --synth-rounds 2 \
    --out "$T/live.wft" --quiet || bad "waterfall run"
wait $wpid
rc=$?
[ $rc = 0 ] || bad "watch on a trace being written: exit $rc: $(cat "$T/t.err")"
"$W" analyze --json "$T/live.wft" >"$T/a.json" 2>/dev/null
$CMP "$T/a.json" "$T/t.jsonl" >"$T/cmp" 2>&1 && ok || bad "a trace followed while written: $(cat "$T/cmp")"
# ... and one whose clock conversion at open was 1% off (a disturbed
# calibration): the first part, read before its second CLOCK record, is
# converted with it; when the trace closes, watch feeds it again with the
# refined conversion, and its totals equal analyze's to the nanosecond
"$W" run --device cpu --jobs 12 --gpu-workers 2 --synth-concurrency 2 --size 65536 --synth-rounds 4 \
    --out "$T/long.wft" --quiet || bad "waterfall run (a trace of CLOCK records 100 ms apart)"
python3 - "$T/long.wft" "$T/off.wft" "$T/part" <<'PY' || bad "make the trace with a calibration 1% off"
import struct, sys
src, dst, part = sys.argv[1], sys.argv[2], sys.argv[3]
b = bytearray(open(src, 'rb').read())
rate = struct.unpack_from('<d', b, 24)[0]
struct.pack_into('<d', b, 24, rate * 1.01)  # struct wft_header's ticks_per_ns
open(dst, 'wb').write(b)
at, clocks, cut = 256, 0, None  # records: u32 size, u16 type (7: CLOCK)
while at + 8 <= len(b):
    size, typ = struct.unpack_from('<IH', b, at)
    if size < 8:
        break
    if typ == 7:
        clocks += 1
        if clocks == 2:
            cut = at
            break
    at += size
open(part, 'w').write('%d\n' % (cut or 0))
PY
cut=$(cat "$T/part")
if [ "$cut" -gt 256 ]; then
    head -c "$cut" "$T/off.wft" >"$T/follow.wft"
    timeout 120 "$W" watch --json-lines --interval 0.05 --quiet 1000 "$T/follow.wft" >"$T/o.jsonl" 2>"$T/o.err" &
    wpid=$!
    n=0 # until watch has read the first part
    until [ $n -ge 600 ] || grep -q '"records":[1-9]' "$T/o.jsonl" 2>/dev/null; do sleep 0.1; n=$((n + 1)); done
    tail -c +$((cut + 1)) "$T/off.wft" >>"$T/follow.wft"
    wait $wpid
    "$W" analyze --json "$T/off.wft" >"$T/a.json" 2>/dev/null
    $CMP "$T/a.json" "$T/o.jsonl" >"$T/cmp" 2>&1 && ok || bad "a trace whose calibration was refined while followed: $(cat "$T/cmp")"
else
    bad "the engine's trace has fewer than two CLOCK records"
fi

# 3. stdin: the pipe's end is the log's end (decided as analyze decides it)
cat "$D/known.log" | "$W" watch --once - >"$T/w.jsonl" 2>/dev/null
"$W" analyze --json "$D/known.log" >"$T/a.json" 2>/dev/null
$CMP "$T/a.json" "$T/w.jsonl" >/dev/null && ok || bad "watch - (stdin)"
cat "$D/known.log" | "$W" watch --json-lines - >"$T/w.jsonl" 2>/dev/null
tail -1 "$T/w.jsonl" | grep -q '"state":"final"' && $CMP "$T/a.json" "$T/w.jsonl" >/dev/null && ok ||
    bad "watch --json-lines - does not end with the final totals at the pipe's end"

# 4. two million units through a pipe: memory stays bounded (the units in
# flight and the last few are kept, not the run)
# (a sanitizer's shadow memory is not watch's: the bound is checked on the
# plain build, and a sanitized one, 10-20 times slower, pipes 200,000)
sanitized=0
ldd "$W" 2>/dev/null | grep -q -e libasan -e libtsan && sanitized=1
jobs=200000
[ $sanitized = 1 ] && jobs=20000
if [ -x /usr/bin/time ]; then
    "$L" --jobs $jobs --partitions 10 --noise 0 --seed 2 |
        /usr/bin/time -f '%M' -o "$T/rss" "$W" watch --once --slack 10 - >"$T/w.jsonl" 2>"$T/w.err"
    units=$(sed 's/.*"units_completed":\([0-9]*\).*/\1/' "$T/w.jsonl")
    [ "$units" = $((jobs * 10)) ] && ok || bad "$((jobs * 10)) units: watch counted $units ($(cat "$T/w.err"))"
    rss=$(tail -1 "$T/rss")
    if [ $sanitized = 1 ]; then ok; else
        [ "$rss" -lt 150000 ] && ok || bad "2M units: watch used $rss KB (bound: 150 MB)"
    fi
fi

# 5. usage and input errors say why
"$W" watch 2>"$T/e"
[ $? = 2 ] && grep -q "one log to follow" "$T/e" && ok || bad "watch without a log"
"$W" watch --slack x "$T/live.log" 2>"$T/e"
[ $? = 2 ] && grep -q "slack" "$T/e" && ok || bad "watch --slack x"
"$W" watch --once "$T" 2>"$T/e"
[ $? = 3 ] && grep -q "$T" "$T/e" && ok || bad "watch on a directory: $(cat "$T/e")"
"$W" watch --once --listen nothere:1 "$D/known.log" 2>"$T/e"
[ $? = 3 ] && grep -q "listen" "$T/e" && ok || bad "watch --listen on a name: $(cat "$T/e")"

finish test_watch
