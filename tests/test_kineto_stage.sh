#!/bin/sh
# test_kineto_stage.sh -- a PyTorch trace's CPU ranges as waterfall's
# stages (--stage STAGE=GLOB), and as candidates for them: on a generated
# data-loading-bound trace whose truth is worked out by hand
# (kineto/gen_stage.py's docstring), with and without the mapping, from a
# file and gzip'd through a pipe, through analyze, diff and render, and
# with bad --stage arguments refused.
# Usage: test_kineto_stage.sh WATERFALL
W="$1"
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

python3 "$HERE/kineto/gen_stage.py" "$T/stage.json" || { bad "gen_stage.py failed"; finish test_kineto_stage; exit; }
gzip -c "$T/stage.json" >"$T/stage.json.gz"
MAP="--stage=synthesis=enumerate(DataLoader)* --stage=prep=aten::to"

# judge NAME OUT <<PY: the Python on stdin judges analyze's JSON in OUT
# (r: the run; sm: its stage_map; c: idle_by_cause in µs); it prints what
# is wrong, nothing if right
judge() {
    name=$1 out=$2
    cat >"$T/$name.py"
    msg=$(python3 - "$out" "$T/$name.py" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))['runs'][0]
sm = r['stage_map']
c = {k: round(v * 1e6, 6) for k, v in r['idle_by_cause'].items()}
s7 = r['devices'][0]['streams'][0]
errs = []
def want(what, got, exp):
    if got != exp:
        errs.append('%s: %r, want %r' % (what, got, exp))
cands = [(x['name'].split('#')[0], round(x['idle_s'] * 1e6, 6), x['ranges']) for x in sm['candidates']]
exec(open(sys.argv[2]).read())
print('; '.join(errs))
PY
)
    [ -z "$msg" ] && ok || bad "$name: $msg"
}

# the same truth whatever the mapping: the device, HTA's breakdown (the
# launch stays HTA's, also where a prep range makes the unit ready
# before it), and the candidates
COMMON='
want("busy", round(r["busy_s"] * 1e6, 6), 1500)
want("idle", round(r["idle_s"] * 1e6, 6), 2850)
want("hta", [round(s7[k] * 1e6, 6) for k in ("host_wait_s", "kernel_wait_s", "other_s")], [2150, 0, 0])
want("cpu ranges", sm["cpu_ranges"], 32)
want("candidates", cands, [("enumerate(DataLoader)", 2400, 6), ("aten::to", 160, 5), ("aten::mm", 35, 15)])
'

"$W" analyze --json --no-progress "$T/stage.json" >"$T/plain.out" 2>"$T/plain.err" || bad "no mapping: exit $?: $(cat "$T/plain.err")"
judge plain "$T/plain.out" <<PY
$COMMON
want("mapped", sm["mapped"], False)
want("causes", c, {"synthesis": 0, "queue": 170, "prep": 0, "no_work": 2680})
want("bottleneck", r["bottleneck"], "input")
PY

# shellcheck disable=SC2086 # MAP is two options
"$W" analyze --json --no-progress $MAP "$T/stage.json" >"$T/mapped.out" 2>"$T/mapped.err" || bad "mapped: exit $?: $(cat "$T/mapped.err")"
judge mapped "$T/mapped.out" <<PY
$COMMON
want("mapped", sm["mapped"], True)
want("synthesis", sm["synthesis"], {"ranges": 6, "units": 5})
want("prep", sm["prep"], {"ranges": 5, "units": 5})
want("causes", c, {"synthesis": 2400, "queue": 50, "prep": 160, "no_work": 240})
want("bottleneck", r["bottleneck"], "synthesis")
want("synthesis stage", [r["stages"]["synthesis"]["count"], round(r["stages"]["synthesis"]["max_s"] * 1e6, 6)], [5, 600])
want("prep stage", [r["stages"]["prep"]["count"], round(r["stages"]["prep"]["max_s"] * 1e6, 6)], [5, 40])
PY

# gzip'd, through a pipe: the same
# shellcheck disable=SC2086
"$W" analyze --json --no-progress $MAP - <"$T/stage.json.gz" >"$T/pipe.out" 2>"$T/pipe.err" || bad "pipe: exit $?: $(cat "$T/pipe.err")"
python3 - "$T/mapped.out" "$T/pipe.out" <<'PY' && ok || bad "gzip'd through a pipe: not the file's analysis"
import json, sys
a, b = (json.load(open(p))['runs'][0] for p in sys.argv[1:])
for r in (a, b):
    r.pop('source')
sys.exit(a != b)
PY

# a glob that matches nothing: mapped, nothing taken, the causes as without
"$W" analyze --json --no-progress --stage 'synthesis=NoSuchRange*' "$T/stage.json" >"$T/none.out" 2>"$T/none.err" || bad "no match: exit $?"
judge none "$T/none.out" <<PY
$COMMON
want("mapped", sm["mapped"], True)
want("taken", [sm["synthesis"], sm["prep"]], [{"ranges": 0, "units": 0}, {"ranges": 0, "units": 0}])
want("causes", c, {"synthesis": 0, "queue": 170, "prep": 0, "no_work": 2680})
PY

# the first rule that matches a name wins: prep named first takes aten::to,
# a synthesis rule that also matches it comes too late
"$W" analyze --json --no-progress --stage 'prep=aten::to' --stage 'synthesis=*' "$T/stage.json" >"$T/order.out" 2>/dev/null || bad "order: exit $?"
judge order "$T/order.out" <<PY
want("prep", sm["prep"], {"ranges": 5, "units": 5})
PY

# the text report says what is mapped, or what a mapping would add
"$W" analyze --no-progress --color=never "$T/stage.json" >"$T/plain.txt" 2>&1
grep -q "stages *not mapped: .*--stage" "$T/plain.txt" && grep -q "open at idle *'enumerate(DataLoader)#_Single.*' 84% (6)" "$T/plain.txt" &&
    ok || bad "text without a mapping: $(grep -A1 stages "$T/plain.txt")"
# shellcheck disable=SC2086
"$W" analyze --no-progress --color=never $MAP "$T/stage.json" >"$T/mapped.txt" 2>&1
grep -q "stages *by --stage: synthesis 6 ranges, 5 units · prep 5 ranges, 5 units" "$T/mapped.txt" &&
    grep -q "bottleneck *synthesis" "$T/mapped.txt" && ok || bad "text with a mapping: $(grep -E 'stages|bottleneck' "$T/mapped.txt")"

# diff: the mapping against none, on the same trace
# shellcheck disable=SC2086
"$W" diff --json $MAP "$T/stage.json" "$T/stage.json" >"$T/diff.out" 2>"$T/diff.err" || bad "diff: exit $?: $(cat "$T/diff.err")"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d['a']['bottleneck'] != 'synthesis')" "$T/diff.out" 2>/dev/null &&
    ok || bad "diff --stage: $(head -c 300 "$T/diff.out")"

# render: the HTML carries the mapped stages (the units' synthesis)
# shellcheck disable=SC2086
"$W" render $MAP -o "$T/stage.html" "$T/stage.json" 2>"$T/render.err" && grep -q "synthesis" "$T/stage.html" &&
    ok || bad "render --stage: $(cat "$T/render.err")"

# a name's ranges count against the devices' window only within it: a
# slow first DataLoader call before the first operation (the trace moved
# 10 ms on, the call [0, 9 ms]) holds no idle, and does not make the name
# a whole-run one
python3 - "$T/stage.json" "$T/warm.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for e in d['traceEvents']:
    e['ts'] += 10000
d['traceEvents'].append({"ph": "X", "cat": "user_annotation", "pid": 1, "tid": 1, "ts": 0, "dur": 9000,
                         "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"})
json.dump(d, open(sys.argv[2], 'w'))
PY
"$W" analyze --json --no-progress "$T/warm.json" >"$T/warm.out" 2>/dev/null || bad "warm-up: exit $?"
judge warm "$T/warm.out" <<PY
want("candidates", cands, [("enumerate(DataLoader)", 2400, 7), ("aten::to", 160, 5), ("aten::mm", 35, 15)])
PY

# a range's name is the trace's, any bytes: a terminal's escape in it is
# not written to the terminal
python3 - "$T/evil.json" <<'PY'
import json, sys
ev = [{"ph": "X", "cat": "cpu_op", "name": "evil\u001b]0;pwned\u0007name", "pid": 1, "tid": 1, "ts": 0, "dur": 100}]
for c, (lt, kt, kd) in enumerate([(1, 5, 5), (50, 60, 500)], 1):
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": lt, "dur": 1,
               "args": {"correlation": c}})
    ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": kt, "dur": kd,
               "args": {"device": 0, "stream": 7, "correlation": c}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
"$W" analyze --no-progress --color=never "$T/evil.json" >"$T/evil.txt" 2>&1
grep -q "open at idle *'evil?\]0;pwned?name' 100% (1)" "$T/evil.txt" && ! grep -q "$(printf '\033')" "$T/evil.txt" &&
    ok || bad "a name's control bytes: $(grep -a 'open at' "$T/evil.txt" | od -c | head -3)"

# dump --stage: the mapped units as TIMELINE text, which analyses to the
# same causes and bottleneck
# shellcheck disable=SC2086
"$W" dump $MAP "$T/stage.json" >"$T/dump.log" 2>"$T/dump.err" &&
    "$W" analyze --json --no-progress "$T/dump.log" >"$T/dump.out" 2>/dev/null || bad "dump --stage: $(cat "$T/dump.err")"
python3 - "$T/mapped.out" "$T/dump.out" <<'PY' && ok || bad "dump --stage: its text does not analyse as the mapped trace"
import json, sys
a, b = (json.load(open(p))['runs'][0] for p in sys.argv[1:])
sys.exit([a['idle_by_cause'], a['bottleneck']] != [b['idle_by_cause'], b['bottleneck']])
PY

# two launches with one correlation (kineto/dup_corr.json): the later in
# the file is the operation's launch, as HTA's join keeps the last (here
# the earlier in time, ts 50 on thread 2), and its thread is where its
# prep range is looked for (prepB on thread 2, from 40)
"$W" dump "$HERE/kineto/dup_corr.json" >"$T/dup0.log" 2>&1
"$W" dump --stage 'prep=prep*' "$HERE/kineto/dup_corr.json" >"$T/dup.log" 2>&1
grep -qx 'TIMELINE,0.049000,CHAN_SEND,2,worker=7,device=0' "$T/dup0.log" &&
    grep -qx 'TIMELINE,0.039000,GPU_PICKUP,2,worker=7,device=0' "$T/dup.log" &&
    grep -qx 'TIMELINE,0.039000,CHAN_SEND,2,worker=7,device=0' "$T/dup.log" &&
    ok || bad "a correlation launched twice: $(cat "$T/dup0.log" "$T/dup.log")"

# bad rules: usage errors that say what --stage takes
for arg in 'gpu=x' 'synthesis=' 'synthesis' '=x'; do
    "$W" analyze --no-progress --stage "$arg" "$T/stage.json" >/dev/null 2>"$T/bad.err"
    rc=$?
    [ $rc = 2 ] && grep -q "stage takes STAGE=GLOB" "$T/bad.err" && ok || bad "--stage '$arg': exit $rc: $(cat "$T/bad.err")"
done

finish test_kineto_stage
