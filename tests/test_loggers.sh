#!/bin/sh
# test_loggers.sh -- TIMELINE records as Rust daemons' loggers print them
# (the target TIMELINE of tracing-subscriber's default, coloured, pretty
# and JSON formats, env_logger, log4rs, pretty_env_logger, flexi_logger,
# each with the record in the seed's form,
# as a cuzk body, or with no ts= and the line's own timestamp): one run
# written in every shape, and in a mix of them in one file, gives the
# analysis the same run gives in the seed's plain form (--json without
# the source, line numbers and clock; --csv without the source).
# Usage: test_loggers.sh WATERFALL
W="$1"
. "$(dirname "$0")/lib.sh"

# The run, in the seed's plain form: 4 jobs, one of 2 partitions, 2
# workers, GPU_QUEUE, a kernel phase, a mark, details kept (kind, synth_ms,
# gpu_ms).  Its first record is at 0, as a run timed by its lines' clocks
# counts from its first record.
cat >"$T/seed.log" <<'EOF'
TIMELINE synth_start job=j1 ts=0.000 kind=porep-c2
TIMELINE synth_start job=j2 ts=0.250 kind=snap-prove
TIMELINE synth_end job=j1 ts=30.000 synth_ms=30000
TIMELINE synth_start job=j3 ts=30.000 kind=porep-c2
TIMELINE chan_send job=j1 ts=30.100
TIMELINE gpu_pickup job=j1 ts=30.200 worker=0
TIMELINE gpu_start job=j1 ts=31.000 worker=0 gpu=0
TIMELINE synth_end job=j2 ts=31.250
TIMELINE gpu_queue job=j2 ts=31.300
TIMELINE kernel_start job=j1 ts=31.500
TIMELINE kernel_end job=j1 ts=49.000
TIMELINE gpu_end job=j1 ts=50.000 worker=0 gpu=0 gpu_ms=19000
TIMELINE gpu_pickup job=j2 ts=50.100 worker=0
TIMELINE gpu_start job=j2 ts=50.900 worker=0 gpu=0
TIMELINE checkpoint job=j2 ts=55.000
TIMELINE synth_end job=j3 ts=60.000
TIMELINE synth_start job=j4 ts=60.000 partition=0 kind=porep-c2
TIMELINE synth_start job=j4 ts=60.000 partition=1 kind=porep-c2
TIMELINE chan_send job=j3 ts=60.050
TIMELINE gpu_end job=j2 ts=70.000 worker=0 gpu=0
TIMELINE gpu_pickup job=j3 ts=70.010 worker=1
TIMELINE gpu_start job=j3 ts=70.500 worker=1 gpu=0
TIMELINE synth_end job=j4 ts=85.000 partition=0
TIMELINE chan_send job=j4 ts=85.001 partition=0
TIMELINE synth_end job=j4 ts=86.000 partition=1
TIMELINE chan_send job=j4 ts=86.001 partition=1
TIMELINE gpu_end job=j3 ts=89.500 worker=1 gpu=0
TIMELINE gpu_pickup job=j4 ts=89.600 worker=1 partition=0
TIMELINE gpu_start job=j4 ts=90.000 worker=1 partition=0
TIMELINE gpu_end job=j4 ts=100.000 worker=1 partition=0
TIMELINE gpu_pickup job=j4 ts=100.100 worker=0 partition=1
TIMELINE gpu_start job=j4 ts=100.200 worker=0 partition=1
TIMELINE gpu_end job=j4 ts=110.125 worker=0 partition=1
EOF

# The analysis without what names the file and its lines, and without
# where the clock came from (records or the lines' timestamps).
norm_json() {
    sed -e 's/"source": "[^"]*", //g' -e 's/"[a-z_]*line": [0-9][0-9]*/"line": N/g' \
        -e 's/"clock": {[^}]*}, //g' "$1"
}
"$W" analyze --json "$T/seed.log" >"$T/seed.json" 2>"$T/err" || bad "the seed form: $(cat "$T/err")"
"$W" analyze --csv "$T/seed.log" | cut -d, -f2- >"$T/seed.csv"
norm_json "$T/seed.json" >"$T/seed.norm"
grep -q '"units": 5' "$T/seed.json" && grep -q '"skipped_lines": 0' "$T/seed.json" && ok ||
    bad "the seed run itself: $(head -c 400 "$T/seed.json")"

# same NAME: FILE gives the seed run's analysis, exit 0, every record read.
same() {
    name=$1
    "$W" analyze --json "$T/$name.log" >"$T/$name.json" 2>"$T/err"
    rc=$?
    [ "$rc" = 0 ] || { bad "$name: exit $rc: $(cat "$T/err")"; return; }
    norm_json "$T/$name.json" >"$T/$name.norm"
    if cmp -s "$T/seed.norm" "$T/$name.norm"; then ok; else
        bad "$name: a different analysis: $(diff "$T/seed.norm" "$T/$name.norm" | head -c 1500)"
    fi
    "$W" analyze --csv "$T/$name.log" | cut -d, -f2- >"$T/$name.csv"
    cmp -s "$T/seed.csv" "$T/$name.csv" && ok || bad "$name: different units: $(diff "$T/seed.csv" "$T/$name.csv")"
}

# shape NAME SHAPES [awk -v settings]: the seed run rewritten as
# $T/NAME.log, in SHAPES (see the awk program; several, comma separated,
# take turns line by line), with a logger's other lines between the
# records (some mention TIMELINE without being records).
shape() {
    name=$1
    shapes=$2
    shift 2
    awk "$@" -v shape="$shapes" '
function stamp(ts,   t, d, h, m, s, z) {
    t = S0 + ts + OFF; d = 18
    while (t >= 86400) { t -= 86400; d++ }
    h = int(t / 3600); t -= h * 3600; m = int(t / 60); s = t - m * 60
    z = OFF == 0 ? "Z" : sprintf("%+03d:00", OFF / 3600)
    return sprintf("2026-02-%02d%s%02d:%02d:%0" (PREC + 3) "." PREC "f%s", d, SEP, h, m, s, z)
}
function num(v) { return v ~ /^[0-9]+(\.[0-9]+)?$/ }
# the float as serde_json writes it: 0.0, 30.1, 110.125
function jnum(v) { if (v !~ /\./) return v; sub(/0+$/, "", v); if (v ~ /\.$/) v = v "0"; return v }
function jstr(v) { gsub(/\\/, "\\\\", v); gsub(/"/, "\\\"", v); return "\"" v "\"" }
# one record: ev, job, ts and the details k[1..n], v[1..n]
function record(sh,   out, i, f, det, col, ms) {
    f = ""
    if (sh == "tracing" || sh == "env" || sh == "inner_seed" || sh == "tracing_loc" || sh == "log4rs" ||
        sh == "pretty_env" || sh == "flexi") {
        for (i = 1; i <= n; i++) f = f " " k[i] "=" v[i]
        body = ev " job=" job (WALL ? "" : " ts=" ts) f
        if (sh == "tracing") return stamp(ts) "  INFO TIMELINE: " body
        if (sh == "log4rs") { out = stamp(ts); sub(/Z$/, "+00:00", out); return out " INFO TIMELINE - " body }
        if (sh == "pretty_env") return stamp(ts) " INFO  TIMELINE > " body
        if (sh == "flexi") { out = stamp(ts); sub(/T/, " ", out); sub(/Z$/, "+00:00", out); sub(/[+-][0-9][0-9]:[0-9][0-9]$/, " &", out)
                             return "[" out "] INFO [TIMELINE] src/engine.rs:42: " body }
        if (sh == "tracing_loc") return stamp(ts) "  INFO ThreadId(02) prove{sector=17}: TIMELINE: src/engine.rs:42: " body
        if (sh == "inner_seed") return stamp(ts) "  INFO TIMELINE: TIMELINE " body
        return "[" stamp(ts) " INFO  TIMELINE] " body
    }
    if (sh == "quoted") { # fields recorded with ?: strings quoted
        for (i = 1; i <= n; i++) f = f " " k[i] "=" (num(v[i]) ? v[i] : jstr(v[i]))
        return stamp(ts) "  INFO TIMELINE: " ev " job=" jstr(job) (WALL ? "" : " ts=" ts) f
    }
    if (sh == "event_field") { # the event as a field, the fields in another order
        for (i = n; i >= 1; i--) f = f k[i] "=" v[i] " "
        return stamp(ts) "  INFO TIMELINE: " f (WALL ? "" : "ts=" ts " ") "job=" job " event=" jstr(ev)
    }
    if (sh == "color" || sh == "env_color") {
        col = ""
        for (i = 1; i <= n; i++) col = col " \033[3m" k[i] "\033[0m\033[2m=\033[0m" v[i]
        body = ev " \033[3mjob\033[0m\033[2m=\033[0m" job (WALL ? "" : " \033[3mts\033[0m\033[2m=\033[0m" ts) col
        if (sh == "color")
            return "\033[2m" stamp(ts) "\033[0m \033[32m INFO\033[0m \033[2mTIMELINE\033[0m\033[2m:\033[0m " body
        return "\033[2m[\033[0m" stamp(ts) " \033[32mINFO \033[0m TIMELINE\033[2m]\033[0m " body
    }
    if (sh == "pretty") { # "message, key: value", then the location on its own line
        for (i = 1; i <= n; i++) f = f ", " k[i] ": " (num(v[i]) ? v[i] : jstr(v[i]))
        return "  " stamp(ts) "  INFO TIMELINE: " ev ", job: " jstr(job) (WALL ? "" : ", ts: " jnum(ts)) f "\n    at src/engine.rs:42\n"
    }
    if (sh ~ /^json/ && sh !~ /cuzk/) {
        for (i = 1; i <= n; i++)
            f = f ",\"" k[i] "\":" (num(v[i]) ? v[i] : sh == "json_debug" ? jstr(jstr(v[i])) : jstr(v[i]))
        det = (sh == "json_event" ? "\"event\":" jstr(ev) : "\"message\":" jstr(ev)) ",\"job\":" \
              (sh == "json_debug" ? jstr(jstr(job)) : jstr(job)) (WALL ? "" : ",\"ts\":" jnum(ts)) f
        if (sh == "json_flat")
            return "{\"timestamp\":\"" stamp(ts) "\",\"level\":\"INFO\"," det ",\"target\":\"TIMELINE\",\"threadId\":\"ThreadId(2)\"}"
        if (sh == "json_target_first")
            return "{\"timestamp\":\"" stamp(ts) "\",\"level\":\"INFO\",\"target\":\"TIMELINE\",\"fields\":{" det "},\"span\":{\"sector\":17,\"name\":\"prove\"},\"spans\":[{\"sector\":17,\"name\":\"prove\"}]}"
        return "{\"timestamp\":\"" stamp(ts) "\",\"level\":\"INFO\",\"fields\":{" det "},\"target\":\"TIMELINE\"}"
    }
    if (sh == "docker") { # a coloured tracing line in Docker json-file
        for (i = 1; i <= n; i++) f = f " " k[i] "=" (num(v[i]) ? v[i] : "\\\"" v[i] "\\\"")
        return "{\"log\":\"" stamp(ts) "  INFO \\u001b[2mTIMELINE\\u001b[0m\\u001b[2m:\\u001b[0m " ev " job=\\\"" job "\\\"" \
               (WALL ? "" : " ts=" ts) f "\\n\",\"stream\":\"stderr\",\"time\":\"" stamp(ts) "\"}"
    }
    # cuzk bodies after the target: <ms>,<EVENT>,<job>,<detail>
    ms = sprintf("%.3f", ts * 1000); sub(/\.?0+$/, "", ms)
    det = ""
    for (i = 1; i <= n; i++) det = det (i > 1 ? "," : "") k[i] "=" v[i]
    body = ms "," toupper(ev) "," job "," det
    if (sh == "cuzk") return stamp(ts) "  INFO TIMELINE: " body
    if (sh == "inner_cuzk") return stamp(ts) "  INFO TIMELINE: TIMELINE," body
    if (sh == "json_cuzk")
        return "{\"timestamp\":\"" stamp(ts) "\",\"level\":\"INFO\",\"fields\":{\"message\":" jstr("TIMELINE," body) "},\"target\":\"TIMELINE\"}"
    if (sh == "json_cuzk_target_first")
        return "{\"timestamp\":\"" stamp(ts) "\",\"level\":\"INFO\",\"target\":\"TIMELINE\",\"fields\":{\"message\":" jstr("TIMELINE," body) "}}"
    return "unknown shape " sh
}
BEGIN { if (S0 == "") S0 = 69667.512034; if (PREC == "") PREC = 6; if (SEP == "") SEP = "T"; OFF += 0
        ns = split(shape, shapes, ",") }
{
    ev = $2; n = 0
    for (i = 3; i <= NF; i++) {
        eq = index($i, "="); key = substr($i, 1, eq - 1); val = substr($i, eq + 1)
        if (key == "job") job = val; else if (key == "ts") ts = val; else { n++; k[n] = key; v[n] = val }
    }
    # a mix: the shapes in turn; MIX=k: only every k-th record has ts=
    if (MIX) WALL = NR % MIX != 1
    print record(shapes[(NR - 1) % ns + 1])
    # what else the daemon logs
    if (NR % 3 == 0) print stamp(ts) "  INFO cuzk_core::engine: synthesis complete, sending to GPU synth_ms=36512"
    if (NR % 7 == 0) print stamp(ts) "  INFO cuzk: TIMELINE logging enabled"
    if (NR % 8 == 0) print stamp(ts) "  INFO TIMELINE: logging enabled"
    if (NR % 9 == 0) print "[" stamp(ts) " INFO  TIMELINE] started, 2 workers"
    if (NR % 10 == 0) print "{\"timestamp\":\"" stamp(ts) "\",\"level\":\"INFO\",\"fields\":{\"message\":\"logging enabled\"},\"target\":\"TIMELINE\"}"
    if (NR % 11 == 0) print "{\"timestamp\":\"" stamp(ts) "\",\"level\":\"INFO\",\"fields\":{\"message\":\"TIMELINE logging enabled\"},\"target\":\"cuzk\"}"
}' "$T/seed.log" >"$T/$name.log"
}

WITH_TS="tracing quoted event_field color env env_color log4rs pretty_env flexi tracing_loc pretty json json_target_first json_debug json_flat json_event docker cuzk inner_cuzk inner_seed json_cuzk json_cuzk_target_first"
for s in $WITH_TS; do
    shape "$s" "$s"
    same "$s"
done
# No ts=: the time is each line's own timestamp (cuzk bodies always carry theirs).
WALL="tracing quoted event_field color log4rs pretty_env flexi tracing_loc pretty json json_target_first json_debug json_flat json_event docker inner_seed"
for s in $WALL; do
    shape "wall_$s" "$s" -v WALL=1
    same "wall_$s"
done
grep -q '"clock": {"from": "line_timestamps"' "$T/wall_json.json" && ok ||
    bad "the clock of a run timed by its lines: $(grep -o '"clock": {[^}]*}' "$T/wall_json.json")"
# env_logger with milliseconds (its default has whole seconds only)
shape wall_env env -v WALL=1 -v PREC=3 -v S0=69667.512
same wall_env
shape wall_env_color env_color -v WALL=1 -v PREC=3 -v S0=69667.512
same wall_env_color
# an offset (+02:00) and a blank between date and time; a run across midnight
shape wall_offset tracing -v WALL=1 -v OFF=7200 -v "SEP= "
same wall_offset
grep -q '^2026-02-18 21:21:07.512034+02:00  INFO' "$T/wall_offset.log" && ok || bad "the offset log: $(head -1 "$T/wall_offset.log")"
shape wall_flexi_offset flexi -v WALL=1 -v OFF=-3600
same wall_flexi_offset
grep -q '^\[2026-02-18 18:21:07.512034 -01:00\] INFO \[TIMELINE\]' "$T/wall_flexi_offset.log" && ok ||
    bad "the flexi_logger log: $(head -1 "$T/wall_flexi_offset.log")"
shape wall_midnight json -v WALL=1 -v S0=86350.5
same wall_midnight
grep -q '2026-02-19T00:00' "$T/wall_midnight.log" && ok || bad "the midnight run does not cross midnight"

# Every shape in one file, line by line in turn; and every no-ts= shape.
shape mix "$(echo $WITH_TS | tr ' ' ,)"
same mix
shape mix_wall "$(echo $WALL | tr ' ' ,)" -v WALL=1
same mix_wall
# Read by 3 threads (the ranges' edges fall inside JSON and coloured
# lines), with pread() or mapped, and from a pipe
for f in mix mix_wall; do
    WATERFALL_READ_THREADS=3 WATERFALL_MMAP=0 "$W" analyze --json "$T/$f.log" >"$T/$f.3.json" 2>/dev/null
    norm_json "$T/$f.3.json" | cmp -s - "$T/seed.norm" && ok || bad "$f read by 3 threads"
    WATERFALL_READ_THREADS=3 WATERFALL_MMAP=1 "$W" analyze --json "$T/$f.log" >"$T/$f.3.json" 2>/dev/null
    norm_json "$T/$f.3.json" | cmp -s - "$T/seed.norm" && ok || bad "$f read by 3 threads, mapped"
    cat "$T/$f.log" | "$W" analyze --json - >"$T/$f.pipe.json" 2>/dev/null
    norm_json "$T/$f.pipe.json" | cmp -s - "$T/seed.norm" && ok || bad "$f from a pipe"
done

# Two clocks in one run (issue 28): records with ts= on timestamped lines
# give the offset between the clocks, and the records timed by their lines
# are put on the ts= clock: the seed run's analysis, whatever the split.
# The old reading printed busy times of 1.7e9 s and split the run in four.
shape mixed_clocks "$(echo $WALL | tr ' ' ,)" -v MIX=3
same mixed_clocks
grep -q '"clock": {"from": "records"' "$T/mixed_clocks.json" && ok ||
    bad "mixed clocks: not on the records' clock: $(grep -o '"clock": {[^}]*}' "$T/mixed_clocks.json")"
for n in 2 3 8; do
    WATERFALL_READ_THREADS=$n "$W" analyze --json "$T/mixed_clocks.log" >"$T/mc.json" 2>/dev/null
    norm_json "$T/mc.json" | cmp -s - "$T/seed.norm" && ok || bad "mixed clocks read by $n threads"
done
# compressed (a rotated log): decompressed again for each reading
gzip -c "$T/mixed_clocks.log" >"$T/mixed_clocks.gz"
"$W" analyze --json "$T/mixed_clocks.gz" >"$T/mcz.json" 2>"$T/err"
norm_json "$T/mcz.json" | cmp -s - "$T/seed.norm" && ok || bad "mixed clocks, gzip'd: $(cat "$T/err")"
# watch aligns them as it reads: its totals are analyze's
"$W" watch --once "$T/mixed_clocks.log" >"$T/mcw.json" 2>/dev/null
python3 - "$T/mcw.json" "$T/seed.json" <<'PY' && ok || bad "watch of mixed clocks: not the seed run's totals: $(cat "$T/mcw.json" | head -c 300)"
import json, sys
w, s = json.loads(open(sys.argv[1]).read().splitlines()[-1]), json.load(open(sys.argv[2]))['runs'][0]
assert w['skipped'] == 0 and w['runs'] == 1, (w['skipped'], w['runs'])
assert abs(w['busy_s'] - s['busy_s']) < 1e-6 and abs(w['idle_s'] - s['idle_s']) < 1e-6, (w['busy_s'], s['busy_s'])
PY
# a log on its lines' clock first (ts= from the fifth record on, its
# offset drifting by ms, one record with ts= alone), and one on its lines'
# clock alone: watch's totals and stages are analyze's (a line-timed
# first record lost its origin when the run began, so the first unit's
# synthesis was 0; after the first pair, the lines' records moved to the
# ts= clock, and the run's times split in two)
cat >"$T/linefirst.log" <<'LOG'
2026-02-18T19:21:00.000000Z  INFO TIMELINE: synth_start job=a
2026-02-18T19:21:01.000000Z  INFO TIMELINE: synth_end job=a
2026-02-18T19:21:01.100000Z  INFO TIMELINE: gpu_start job=a
2026-02-18T19:21:02.000000Z  INFO TIMELINE: gpu_end job=a
2026-02-18T19:21:02.003000Z  INFO TIMELINE: synth_start job=b ts=2.000
2026-02-18T19:21:03.000000Z  INFO TIMELINE: synth_end job=b
2026-02-18T19:21:03.107000Z  INFO TIMELINE: gpu_start job=b ts=3.100
2026-02-18T19:21:04.000000Z  INFO TIMELINE: gpu_end job=b
TIMELINE synth_start job=c ts=4.000
2026-02-18T19:21:05.020000Z  INFO TIMELINE: synth_end job=c
2026-02-18T19:21:05.100000Z  INFO TIMELINE: gpu_start job=c ts=5.090
TIMELINE gpu_end job=c ts=6.000
LOG
sed 's/ ts=[0-9.]*$//; /^TIMELINE/d' "$T/linefirst.log" >"$T/lineonly.log"
for f in linefirst lineonly; do
    "$W" analyze --json "$T/$f.log" >"$T/$f.json" 2>/dev/null
    "$W" watch --once "$T/$f.log" >"$T/$f.jsonl" 2>/dev/null
    python3 "$(dirname "$0")/cmp_watch.py" "$T/$f.json" "$T/$f.jsonl" >"$T/$f.cmp" && ok || bad "watch of $f.log: not analyze's: $(cat "$T/$f.cmp")"
done
# a second life of the daemon, its epoch 1000 s later: each run aligned by its own records
shape mixed_clocks2 tracing -v MIX=3 -v S0=70667.512034
cat "$T/mixed_clocks.log" "$T/mixed_clocks2.log" >"$T/mixed_two.log"
"$W" analyze --json "$T/mixed_two.log" >"$T/m2.json" 2>/dev/null
python3 - "$T/m2.json" "$T/seed.json" <<'PY' && ok || bad "two runs with mixed clocks"
import json, sys
d, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))['runs'][0]
assert len(d['runs']) == 2, len(d['runs'])
for r in d['runs']:
    assert (r['busy_s'], r['units'], r['late_lines']) == (s['busy_s'], s['units'], 0), (r['busy_s'], r['units'], r['late_lines'])
PY
# no record carries both: refused, naming the file and line
printf 'TIMELINE synth_start job=a ts=0.000
2026-02-18T19:21:08.000000Z  INFO TIMELINE: synth_end job=a
TIMELINE gpu_start job=a ts=1.500
2026-02-18T19:21:10.000000Z  INFO TIMELINE: gpu_end job=a
' >"$T/unaligned.log"
"$W" analyze "$T/unaligned.log" >"$T/out" 2>"$T/err"
[ $? = 3 ] && grep -q 'unaligned.log:2: this record has no ts= and takes its line.s timestamp, while others carry ts= (the first at line 1)' "$T/err" &&
    ! grep -q 'busy' "$T/out" && ok || bad "unalignable clocks: not refused: $(cat "$T/err" "$T/out")"
# watch, which reads once, skips what it cannot align, and says why (it
# said "2 TIMELINE lines skipped (they did not parse)")
"$W" watch --once "$T/unaligned.log" >"$T/out" 2>"$T/err"
[ $? = 4 ] && grep -q '^waterfall watch: 2 records skipped: timed by their line.s timestamp where others carry ts=.*could not be aligned' "$T/err" &&
    ! grep -q 'did not parse' "$T/err" && ok || bad "watch, unalignable clocks: $(cat "$T/err")"
# a pipe cannot be read twice: refused with a message
cat "$T/mixed_clocks.log" | "$W" analyze - >"$T/out" 2>"$T/err"
[ $? = 3 ] && grep -q 'cannot be read again to align the two clocks' "$T/err" && ok || bad "mixed clocks from a pipe: $(cat "$T/err")"

# A record with neither ts= nor a timestamp on its line is skipped (bad
# time); a line that only mentions TIMELINE is no record at all.
printf 'INFO TIMELINE: synth_start job=a\nINFO TIMELINE: logging enabled\nTIMELINE,0,GPU_START,a,\nTIMELINE,5,GPU_END,a,\n' >"$T/nots.log"
"$W" analyze --json "$T/nots.log" >"$T/out" 2>/dev/null
[ $? = 4 ] && ok || bad "a record without a time: not partial"
grep -q '"timeline_lines": 3' "$T/out" && grep -q '"bad_time": 1' "$T/out" && ok ||
    bad "no time: $(grep -o '"timeline_lines.*' "$T/out")"

finish test_loggers
