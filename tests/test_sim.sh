#!/bin/sh
# test_sim.sh -- `waterfall simulate` as a user runs it: from parameters,
# from a trace, sweeps, JSON, `analyze --advise sim`, and clear errors for
# impossible parameters.  Usage: test_sim.sh WATERFALL
W="$1"
. "$(dirname "$0")/lib.sh"

json_get() { # FILE EXPR: print a Python expression over the JSON document j
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}

# From parameters: the cuzk figures, concurrency 1 (measured 70.9%).
"$W" simulate --synth-s 39 --gpu-s 27 --jobs 20 >"$T/p.txt" && ok || bad "simulate from parameters"
grep -q "SIMULATED" "$T/p.txt" && ok || bad "the output does not say it is simulated"
grep -q "GPU utilization 70\." "$T/p.txt" && ok || bad "cuzk c=1: $(grep predicted "$T/p.txt")"
"$W" simulate --synth-s 39 --gpu-s 27 --jobs 20 --json >"$T/p.json" && ok || bad "simulate --json"
if command -v python3 >/dev/null 2>&1; then
    [ "$(json_get "$T/p.json" "round(j['utilization'],3)")" = 0.703 ] && ok || bad "json utilization"
    [ "$(json_get "$T/p.json" "round(j['s_per_job'],3)")" = 40.35 ] && ok || bad "json s_per_job"
    [ "$(json_get "$T/p.json" "j['simulated']")" = True ] && ok || bad "json simulated"
fi

# A sweep: the best is marked, and it is concurrency 2 for 39 s / 27 s.
"$W" simulate --synth-s 39 --gpu-s 27 --sweep synth-concurrency=1:4 >"$T/s.txt" && ok || bad "sweep"
grep -Eq '^ +2 \* ' "$T/s.txt" && ok || bad "the sweep does not mark 2 as best: $(cat "$T/s.txt")"
grep -q "best: synth-concurrency 2" "$T/s.txt" && ok || bad "the sweep's best line"
"$W" simulate --synth-s 39 --gpu-s 27 --sweep synth-concurrency=1:4 --json >"$T/s.json" && ok || bad "sweep json"
if command -v python3 >/dev/null 2>&1; then
    [ "$(json_get "$T/s.json" "len(j['sweep']['points'])")" = 4 ] && ok || bad "sweep points"
    [ "$(json_get "$T/s.json" "j['sweep']['best']")" = 2 ] && ok || bad "sweep best"
    [ "$(json_get "$T/s.json" "j['params']['synth_concurrency']")" = 2 ] && ok || bad "top level is the best point"
fi
# other knobs sweep too
for k in gpu-workers=1:3 devices=1:2 channel=0:3 cores=1:4 partitions=1:4 jobs=5:10 rate=0.01:0.05:0.02; do
    "$W" simulate --synth-s 1 --gpu-s 1 --synth-concurrency 2 --cores 2 --sweep "$k" >/dev/null && ok ||
        bad "sweep $k"
done
# a chart on request (colour), none in a pipe
"$W" simulate --synth-s 39 --gpu-s 27 --sweep synth-concurrency=1:3 --color=always | grep -q "█" && ok ||
    bad "no chart with --color=always"
"$W" simulate --synth-s 39 --gpu-s 27 --sweep synth-concurrency=1:3 | grep -q "█" && bad "chart in a pipe" || ok

# Workload sweeps rank nothing; undefined figures print as "-".
"$W" simulate --synth-s 1 --gpu-s 1 --sweep jobs=1:3 | grep -q "no best" && ok || bad "jobs sweep ranked"
"$W" simulate --synth-s 1 --gpu-s 1 --sweep jobs=1:3 --json | grep -q '"best": null' && ok || bad "jobs sweep json best"
"$W" simulate --synth-s 1 --gpu-s 1 --jobs 1 | grep -q "steady -)" && ok || bad "steady of one job not '-'"
# --synth-s is per unit at any partition count, in a sweep too
a=$("$W" simulate --synth-s 39 --gpu-s 27 --jobs 20 --partitions 10 --json | sed 's/.*"s_per_job": \([0-9.e+-]*\).*/\1/')
b=$("$W" simulate --synth-s 39 --gpu-s 27 --jobs 20 --sweep partitions=10:10 --json | sed 's/.*"s_per_job": \([0-9.e+-]*\),.*/\1/' | head -c 20)
[ "$(echo "$a" | cut -c1-8)" = "$(echo "$b" | cut -c1-8)" ] && ok || bad "partitions: $a vs sweep $b"
# A log whose GPU waits for pickups: the simulation keeps the dispatch latency.
: >"$T/dispatch.log"
i=0
while [ $i -lt 20 ]; do
    s=$((i * 10)) e=$((i * 10 + 10))
    printf 'TIMELINE,%d,SYNTH_START,d%d,\nTIMELINE,%d,SYNTH_END,d%d,\nTIMELINE,%d,CHAN_SEND,d%d,\n' $s $i $e $i $e $i >>"$T/dispatch.log"
    printf 'TIMELINE,%d,GPU_PICKUP,d%d,worker=0\nTIMELINE,%d,GPU_START,d%d,worker=0\nTIMELINE,%d,GPU_END,d%d,worker=0\n' \
        $((e + 20 + i * 15)) $i $((e + 20 + i * 15)) $i $((e + 30 + i * 15)) $i >>"$T/dispatch.log"
    i=$((i + 1))
done
m=$("$W" analyze --json "$T/dispatch.log" | grep -o '"bottleneck": "[a-z]*"' | head -1)
s=$("$W" simulate --from "$T/dispatch.log" --json | grep -o '"bottleneck": "[a-z]*"' | head -1)
[ "$m" = "$s" ] && ok || bad "dispatch-bound log: analyze $m, simulate $s"

# Seeded and reproducible.
a=$("$W" simulate --synth-s 1 --gpu-s 0.8 --spread 0.5 --jobs 300 --seed 5 --json)
b=$("$W" simulate --synth-s 1 --gpu-s 0.8 --spread 0.5 --jobs 300 --seed 5 --json)
c=$("$W" simulate --synth-s 1 --gpu-s 0.8 --spread 0.5 --jobs 300 --seed 6 --json)
[ "$a" = "$b" ] && ok || bad "the same seed gave two results"
[ "$a" != "$c" ] && ok || bad "another seed gave the same result"

# From a trace of the reference pipeline.
"$W" run --jobs 16 --synth-concurrency 1 --size 4096 --synth-rounds 3 --out "$T/r.wft" --quiet || bad "run"
"$W" simulate --from "$T/r.wft" >"$T/t.txt" && ok || bad "simulate --from"
# the engine marks KERNEL inside a GPU phase that holds its device from
# GPU_START to GPU_END: nothing shows the device free outside the kernels,
# so the kernel model is not used, and the report says why
"$W" simulate --from "$T/r.wft" --json 2>/dev/null | python3 -c "
import json, sys
d = json.load(sys.stdin)['device_model']
sys.exit(0 if d['holds'] == 'gpu_phase' and 'nothing shows the device free' in d['kernels_not_used'] else 1)" &&
    grep -q "device model  each device holds a unit's whole GPU phase, one unit at a time (its kernel phases are not used" "$T/t.txt" &&
    ok || bad "simulate from the engine's trace: $(grep 'device model' "$T/t.txt")"
grep -q "16 complete units resampled" "$T/t.txt" && ok || bad "calibration line: $(cat "$T/t.txt")"
grep -q "^  contention" "$T/t.txt" && ok || bad "no contention line"
"$W" simulate --from "$T/r.wft" --synth-concurrency 2 --gpu-workers 2 --devices 2 --channel 3 --jobs 40 \
    --partitions 2 --rate 1000 --cores 2 --json >"$T/t.json" && ok || bad "simulate --from with knobs"
if command -v python3 >/dev/null 2>&1; then
    [ "$(json_get "$T/t.json" "j['units']")" = 80 ] && ok || bad "40 jobs x 2 partitions"
    [ "$(json_get "$T/t.json" "j['calibration']['units']")" = 16 ] && ok || bad "calibration units"
fi
# A contention model given on the command line replaces the fit, and the
# cores default to the trace's.
"$W" simulate --from "$T/r.wft" --trace-cores 2 --host-share 1 >"$T/g.txt" && ok || bad "simulate --host-share"
grep -q "^  contention    given, not fitted: on the trace's 2 cores a synthesis uses 1 core, a GPU worker's host work 1 core, busy 100%" "$T/g.txt" &&
    ok || bad "given contention line: $(cat "$T/g.txt")"
grep -q "^  setup .* 2 cores (synthesis 1, host 1, host share 1, weight 1)" "$T/g.txt" && ok || bad "given model's setup"
if command -v python3 >/dev/null 2>&1; then
    "$W" simulate --from "$T/r.wft" --trace-cores 2 --synth-threads 2 --json >"$T/g.json" && ok || bad "--synth-threads json"
    [ "$(json_get "$T/g.json" "j['calibration']['contention']['given'], j['calibration']['contention']['fitted'], j['params']['synth_threads'], j['params']['cores']")" = "True False 2 2" ] &&
        ok || bad "given contention json: $(cat "$T/g.json")"
fi
# analyze --advise sim: the simulator's advice, labelled
"$W" analyze --advise sim "$T/r.wft" | grep -q "SIMULATED" && ok || bad "analyze --advise sim text"
"$W" analyze --advise sim --json "$T/r.wft" | grep -q '"model": "simulation"' && ok || bad "advise sim json"
# the default (auto): the simulator where the trace's CPU samples give a
# contention model (units of tens of ms, longer than the sampling period,
# so that a synthesis thread reads as wanting a core); the formula where
# nothing is known, and it says so
"$W" run --jobs 8 --synth-concurrency 1 --size 65536 --synth-rounds 12 --out "$T/m.wft" --quiet || bad "run"
"$W" analyze --json "$T/m.wft" | grep -q '"model": "simulation", "contention_fitted": true, "contention_model": "measured"' &&
    ok || bad "the default advice on a sampled trace is not the simulation with the measured model"
"$W" analyze --advise formula --json "$T/m.wft" | grep -q '"model": "formula"' && ok || bad "--advise formula"
"$W" dump "$T/r.wft" >"$T/r.log" 2>/dev/null
"$W" analyze --json "$T/r.log" | grep -q '"model": "formula"' && ok || bad "the default advice on a log without contention is the formula"
# (the advice's two lines name the formula; with the cpu bottleneck, which a
# busy machine can give these tiny units, they say nothing was simulated)
"$W" analyze "$T/r.log" | grep -A1 '^  advice' | grep -q 'formula\|nothing simulated' && ok ||
    bad "the advice does not say it is the formula's"
"$W" analyze --advise sim --trace-cores 16 --json "$T/r.wft" | grep -q '"model": "simulation"' && ok ||
    bad "advise sim with --trace-cores"
"$W" analyze --advise sim --trace-cores 0 "$T/r.wft" >/dev/null 2>&1; [ $? = 2 ] && ok || bad "--trace-cores 0 accepted"

# A log whose jobs have their own partition counts (19 jobs, 45 units):
# the simulation takes the log's jobs, each with its own units (the mean
# count, rounded, simulated "19 jobs x 2 partitions", 38 units, and 17%
# fewer seconds per job than measured, with no warning), and at the
# measured setting it reproduces the measured run, or says by how much it
# misses and why.  The arrivals are the log's where its pipeline waited
# for jobs.
cat >"$T/gen_mixed.py" <<'PY'
import sys
# 19 jobs of 1 to 4 partitions; synthesis 2 at once, one GPU worker; the
# jobs all waiting at the start, or (arrive) coming in bursts.  drop: the
# jobs of 3 or more partitions never get their last GPU_END.
arrive = "arrive" in sys.argv
drop = "drop" in sys.argv
parts = [3, 1, 2, 4, 2, 3, 1, 2, 4, 3, 2, 1, 3, 2, 4, 1, 2, 3, 2]
at = [(j // 4) * 900.0 if arrive else 0.0 for j in range(len(parts))]
units = [(j, k) for j, n in enumerate(parts) for k in range(n)]
slots, worker, ev = [0.0, 0.0], 0.0, []
for i, (j, k) in enumerate(units):
    s = min(range(2), key=lambda x: slots[x])
    ss = max(slots[s], at[j])
    se = ss + 100 + (i * 37) % 41
    slots[s] = se
    ev += [(ss, "SYNTH_START", j, k, ""), (se, "SYNTH_END", j, k, ""), (se, "CHAN_SEND", j, k, "")]
for r, j, k in sorted((e[0], e[2], e[3]) for e in ev if e[1] == "CHAN_SEND"):
    pk = max(r, worker)
    worker = pk + 42
    ev += [(pk, "GPU_PICKUP", j, k, "worker=0,"), (pk + 2, "GPU_START", j, k, "worker=0,")]
    if not (drop and parts[j] >= 3 and k == parts[j] - 1):
        ev.append((pk + 42, "GPU_END", j, k, "worker=0,"))
for t, e, j, k, d in sorted(ev, key=lambda x: x[0]):
    print("TIMELINE,%.3f,%s,job-%02d,%spartition=%d" % (t, e, j, d, k))
PY
python3 "$T/gen_mixed.py" >"$T/mixed.log"
"$W" simulate --from "$T/mixed.log" >"$T/m.txt" 2>&1 || bad "simulate --from a log of mixed partitions: $(cat "$T/m.txt")"
grep -q "the trace's 19 completed jobs, 45 units (1 to 4 a job)" "$T/m.txt" && ok ||
    bad "mixed partitions: the setup is not the log's jobs: $(grep setup "$T/m.txt")"
grep -q "^  check  .*at the measured setting" "$T/m.txt" && ok || bad "mixed partitions: no check against the measured run: $(cat "$T/m.txt")"
"$W" simulate --from "$T/mixed.log" --json >"$T/m.json" 2>/dev/null
"$W" analyze --json "$T/mixed.log" >"$T/ma.json" 2>/dev/null
python3 - "$T/m.json" "$T/ma.json" <<'PY' && ok || bad "mixed partitions: the simulation at the measured setting is not the measured run"
import json, sys
s, a = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["runs"][0]
assert s["params"]["units"] == 45 and s["params"]["workload"] == "trace", s["params"]
c = s["check"]
assert c["within"] and c["why"] == [], c
assert abs(c["utilization_measured"] - a["utilization"]) < 1e-9, c
assert abs(s["utilization"] - a["utilization"]) <= 0.05, (s["utilization"], a["utilization"])
assert abs(s["s_per_job"] / a["throughput"]["s_per_job"] - 1) <= 0.10, (s["s_per_job"], a["throughput"])
PY
# the arrivals are the log's: jobs in bursts of four, 900 ms apart
python3 "$T/gen_mixed.py" arrive >"$T/arrive.log"
"$W" simulate --from "$T/arrive.log" >"$T/r.txt" 2>&1
grep -q "arriving as in the trace" "$T/r.txt" && grep -q "^  check  " "$T/r.txt" && ok ||
    bad "arrivals: not the log's, or the simulation misses the run: $(cat "$T/r.txt")"
# another workload than the log's is jobs x partitions, as asked
"$W" simulate --from "$T/mixed.log" --partitions 3 >"$T/u.txt" 2>&1
grep -q "19 jobs x 3 partitions" "$T/u.txt" && ok || bad "--partitions 3: $(grep setup "$T/u.txt")"
grep -q "^  check  " "$T/u.txt" && ok || bad "--partitions 3: the measured setting is not checked: $(cat "$T/u.txt")"
# jobs that did not complete are not simulated: the simulation misses the
# run, and says by how much and why
python3 "$T/gen_mixed.py" drop >"$T/drop.log"
"$W" simulate --from "$T/drop.log" >"$T/d.txt" 2>&1
grep -q "^  warning .*misses the measured run.*27 units of jobs that did not complete" "$T/d.txt" && ok ||
    bad "unfinished jobs: no warning that names them: $(cat "$T/d.txt")"

# Impossible parameters and inputs: a clear message and exit 2 (usage) or 3 (input).
expect() { # STATUS PATTERN ARGS...
    st=$1 pat=$2
    shift 2
    "$W" simulate "$@" >/dev/null 2>"$T/err"
    got=$?
    [ "$got" = "$st" ] && ok || bad "simulate $*: exit $got, not $st"
    grep -q -- "$pat" "$T/err" && ok || bad "simulate $*: no '$pat' in: $(cat "$T/err")"
}
expect 2 "gpu-workers" --synth-s 1 --gpu-s 1 --gpu-workers 0
expect 2 "devices" --synth-s 1 --gpu-s 1 --devices 0
expect 2 "synth-s" --synth-s -1 --gpu-s 1
expect 2 "gpu-s" --synth-s 1 --gpu-s nan
expect 2 "synth-concurrency" --synth-s 1 --gpu-s 1 --synth-concurrency 0
expect 2 "both --synth-s and --gpu-s" --synth-s 1
expect 2 "do not go together" --from "$T/r.wft" --synth-s 1 --gpu-s 1
expect 2 "KNOB" --synth-s 1 --gpu-s 1 --sweep nonsense=1:2
expect 2 "range" --synth-s 1 --gpu-s 1 --sweep synth-concurrency=4
expect 2 "A <= B" --synth-s 1 --gpu-s 1 --sweep synth-concurrency=4:1
expect 2 "host-share" --synth-s 1 --gpu-s 1 --host-share 2
expect 2 "50 million" --synth-s 1 --gpu-s 1 --jobs 50000000 --partitions 100
printf 'TIMELINE,0,SYNTH_START,a,\nTIMELINE,5,SYNTH_END,a,\n' >"$T/half.log"
expect 2 "9e+09 s" --synth-s 1e9 --gpu-s 1
expect 2 "too slow" --synth-s 1 --gpu-s 1 --rate 1e-9 --jobs 20
expect 2 "goes from 1 to 100000" --synth-s 1 --gpu-s 1 --sweep synth-concurrency=1:3e9:1e9
expect 2 "at most 100000" --synth-s 1 --gpu-s 1 --gpu-workers 100000 --devices 50000
expect 2 "no contention" --synth-s 1 --gpu-s 1 --sweep cores=0:2
expect 3 "no complete unit" --from "$T/half.log"
expect 3 "nothing.log" --from "$T/nothing.log"
expect 2 "--run 2" --from "$T/r.wft" --run 2

# A GPU that waits for input: the formula (min(1, c*g/s)) assumes a unit is
# always there to synthesize, and said "run 2 at once -> 100%" on this log
# (jobs arrive one at a time, 0.2 or 3 s apart; bottleneck input); the
# default advice is the simulation's, which keeps the log's arrivals.
python3 -c "
out, t = [], 0
for j in range(10):
    s, se = t, t + 1000
    out += [(s, 'SYNTH_START', j), (se, 'SYNTH_END', j), (se + 10, 'GPU_START', j), (se + 510, 'GPU_END', j)]
    t = se + (3000 if j % 2 == 0 else 200)
out.sort()
print(''.join('TIMELINE,%d,%s,j%d,worker=0\\n' % x for x in out), end='')
" >"$T/input.log"
"$W" analyze --json "$T/input.log" >"$T/input.json" 2>/dev/null
python3 - "$T/input.json" <<'PY' && ok || bad "input-bound: the advice is not the simulation's, or asks for more syntheses: $(cat "$T/input.json" | head -c 300)"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
a = r["advice"]
# at the measured setting it is the measured run: the log's arrivals kept
# (a steady workload in their place gave 18.9% against 19.8% measured)
sys.exit(0 if r["bottleneck"] == "input" and a["model"] == "simulation" and a["synthesis_concurrency"] == 1
         and abs(a["predicted_utilization_now"] - r["utilization"]) < 0.002 else 1)
PY

finish test_sim.sh
