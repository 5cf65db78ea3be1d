#!/bin/sh
# test_phases.sh -- inside the stages: phases and marks from any event name,
# kernel utilization against a union computed by hand, the gpu_phase
# bottleneck, kinds, the daemon's own durations, GPU_QUEUE as written, and
# the JSON's pinned fields.  Usage: test_phases.sh WATERFALL
W="$1"
HERE=$(dirname "$0")
. "$HERE/lib.sh"
# py FILE.json EXPR: evaluate EXPR with r = the first run, d = the document
py() {
    python3 -c "import json,sys,math; d=json.load(open(sys.argv[1])); r=d['runs'][0]; sys.exit(0 if ($2) else 1)" "$1"
}
check() { # name file expr
    if py "$2" "$3"; then ok; else bad "$1: $3"; fi
}
check_log() { # name expr format: analyze the log printf prints of format, and check expr on its JSON
    printf "$3" >"$T/log.log"
    "$W" analyze --json "$T/log.log" >"$T/log.json" 2>/dev/null
    check "$1" "$T/log.json" "$2"
}

# The analysis of a big run's phases takes its units in two halves, a
# thread each (analyze_phase.c); forced both ways, a log gives the same
# JSON: the halves' groups, marks, kernels and checks joined as one walk.
both_ways() { # log
    WATERFALL_ANALYSIS_THREADS=1 "$W" analyze --json --gaps --no-progress "$1" >"$T/bw.1" 2>/dev/null
    WATERFALL_ANALYSIS_THREADS=2 "$W" analyze --json --gaps --no-progress "$1" >"$T/bw.2" 2>/dev/null
    [ -s "$T/bw.1" ] && cmp -s "$T/bw.1" "$T/bw.2" && ok || bad "$(basename "$1"): one analysis thread and two differ"
}

# --- two workers share a device whose kernels are serialized ----------------
python3 "$HERE/gen_phases.py" "$T/p.log" 40 1 >"$T/want.json" || bad "gen_phases.py"
"$W" analyze --json "$T/p.log" >"$T/p.json" 2>"$T/err"; rc=$?
[ "$rc" = 0 ] && ok || bad "sub-phases and marks: exit $rc, want 0: $(cat "$T/err")"
"$W" analyze --json "$T/p.log.plain" >"$T/plain.json" || bad "the plain log"
for f in "$T/p.log" "$HERE/data/kern.log" "$HERE/data/reported.log" "$HERE/data/review/three-workers-failed-call.log" \
    "$HERE/data/review/known-and-partial.log" "$HERE/data/review/split-sum-outside.log" \
    "$HERE/data/review/split-sum-encl.log"; do
    both_ways "$f"
done
want_k=$(python3 -c "import json; print(json.load(open('$T/want.json'))['kernel_utilization'])")
check "kernel utilization = the union by hand" "$T/p.json" "abs(r['kernel_utilization'] - $want_k) <= 0.0005"
check "per device too" "$T/p.json" "abs(r['devices'][0]['kernel_utilization'] - $want_k) <= 0.0005 and r['devices'][0]['kernel_busy_s'] > 0"
if python3 - "$T/p.json" "$T/plain.json" <<'PY'
import json, sys
a, b = (json.load(open(p))['runs'][0] for p in sys.argv[1:3])
keys = ['utilization', 'busy_s', 'window_s', 'idle_s', 'idle_by_cause', 'units', 'jobs_completed', 'in_flight', 'stages']
sys.exit(0 if all(a[k] == b[k] for k in keys) else 1)
PY
then ok; else bad "utilization and stages changed by the sub-phase lines"; fi
check "nothing skipped" "$T/p.json" "r['skipped_lines'] == 0 and all(v == 0 for v in d['skipped_by_reason'].values())"
check "the phases" "$T/p.json" "sorted((p['name'], p['within'], p['count']) for p in r['phases']) == [('HOST_MSM','gpu',40), ('KERNEL','gpu',40), ('LOCK_WAIT','gpu',40), ('unaccounted','gpu',40)]"
check "phase fields" "$T/p.json" "all(set(p) == {'name','within','count','mean_s','p50_s','p90_s','share'} for p in r['phases'])"
check "shares of the GPU phase add up to 1" "$T/p.json" "abs(sum(p['share'] for p in r['phases']) - 1) < 1e-9"
check "a mark" "$T/p.json" "r['marks'] == {'GPU_FINALIZE': 40}"
check "bottleneck gpu_phase: the phase is full, its kernels are not" "$T/p.json" "r['bottleneck'] == 'gpu_phase'"
check "by_kind holds both kinds" "$T/p.json" "sorted(r['by_kind']) == ['porep-c2', 'winning-post'] and r['by_kind']['porep-c2']['units'] == 26 and r['by_kind']['winning-post']['units'] == 14"
check "by_kind's stages" "$T/p.json" "r['by_kind']['porep-c2']['stages']['gpu']['count'] == 26"
check "synth_ms and gpu_ms agree" "$T/p.json" "r['reported']['synth_ms'] == {'checked': 40, 'disagree': 0, 'first_line': None, 'first_reported_s': None, 'first_timed_s': None, 'outside': 0, 'outside_s': 0} and r['reported']['gpu_ms']['checked'] == 40 and r['reported']['gpu_ms']['disagree'] == 0"
"$W" analyze "$T/p.log" >"$T/p.txt" 2>&1
for w in 'kernel util. *83\.3%' 'HOST_MSM' 'unaccounted' 'GPU_FINALIZE x40' 'porep-c2' 'bottleneck *gpu_phase'; do
    grep -q "$w" "$T/p.txt" && ok || bad "the text report lacks '$w'"
done
# --kernel-phase names another phase
"$W" analyze --json --kernel-phase host_msm "$T/p.log" >"$T/h.json" || bad "--kernel-phase"
check "--kernel-phase HOST_MSM" "$T/h.json" "abs(r['kernel_utilization'] - $want_k) > 0.05 and r['devices'][0]['kernel_busy_s'] > 0"
"$W" analyze --kernel-phase 'no good' "$T/p.log" >/dev/null 2>"$T/err"
[ $? = 2 ] && grep -q 'kernel-phase' "$T/err" && ok || bad "--kernel-phase with a bad name"

# --- a log read in parallel ranges gives the same phases (two runs: the epoch restarts)
cat "$T/p.log" "$T/p.log" >"$T/pp.log"
WATERFALL_READ_THREADS=1 "$W" analyze --json "$T/pp.log" >"$T/pp1.json"
for n in 2 3 8; do
    WATERFALL_READ_THREADS=$n "$W" analyze --json "$T/pp.log" >"$T/ppn.json"
    cmp -s "$T/pp1.json" "$T/ppn.json" && ok || bad "read in $n ranges: the analysis differs"
done
check "two runs, each with its phases" "$T/pp1.json" "len(d['runs']) == 2 and all(x['marks'] == {'GPU_FINALIZE': 40} and len(x['phases']) == 4 for x in d['runs'])"

# --- an event that opens the next life of the daemon goes to its run, not the last one
printf 'TIMELINE,0,SYNTH_START,a,\nTIMELINE,10000,SYNTH_END,a,\nTIMELINE,10001,GPU_PICKUP,a,\nTIMELINE,10002,GPU_START,a,\nTIMELINE,15000,KERNEL_START,a,\nTIMELINE,19000,KERNEL_END,a,\nTIMELINE,20000,GPU_END,a,\nTIMELINE,0.5,HOST_START,a,\nTIMELINE,0,SYNTH_START,a,\nTIMELINE,1000,SYNTH_END,a,\nTIMELINE,1001,GPU_PICKUP,a,\nTIMELINE,1002,GPU_START,a,\nTIMELINE,1900,HOST_END,a,\nTIMELINE,2000,GPU_END,a,\n' >"$T/rs.log"
for n in 1 3; do
    WATERFALL_READ_THREADS=$n "$W" analyze --json "$T/rs.log" >"$T/rs.json" || bad "rs.log"
    check "the restart's first event ($n ranges)" "$T/rs.json" "len(d['runs']) == 2 and [p['name'] for p in d['runs'][1]['phases']] == ['HOST'] and d['runs'][0]['marks'] == {} and [p['name'] for p in r['phases']] == ['KERNEL', 'unaccounted']"
done

# --- found in review: a START and its END in the same millisecond pair in
# the order written; an event before its job's first pipeline line survives
# any read split; a KERNEL phase outside the GPU phase is not the device's
cp "$HERE/data/phase-tie.log" "$HERE/data/event-before-job.log" "$HERE/data/kernel-in-synthesis.log" "$T/"
"$W" analyze --json "$T/phase-tie.log" >"$T/tie.json"
check "a zero-length phase after a stray END" "$T/tie.json" "[(p['name'], p['count']) for p in r['phases']] == [('X', 1), ('unaccounted', 2)] and r['marks'] == {'X_END': 1}"
for n in 1 2 3 4; do
    WATERFALL_READ_THREADS=$n "$W" analyze --json "$T/event-before-job.log" >"$T/ebj.json"
    check "an event before its job's first pipeline line ($n ranges)" "$T/ebj.json" "r['marks'] == {'WARMUP': 1} and r['other_events_without_unit'] == 0 and r['jobs'] == 2 and r['events'] == 9"
done
"$W" analyze --json "$T/kernel-in-synthesis.log" >"$T/kis.json"
check "a KERNEL phase in synthesis: no kernel utilization, bottleneck gpu" "$T/kis.json" "r['kernel_utilization'] is None and r['bottleneck'] == 'gpu' and [(p['name'], p['within']) for p in r['phases']] == [('KERNEL', 'synthesis')]"

# --- no phases: the pinned fields are null or empty --------------------------
check "no phases: null and empty" "$T/plain.json" "r['kernel_utilization'] is None and r['phases'] == [] and r['marks'] == {} and r['devices'][0]['kernel_busy_s'] is None and r['devices'][0]['kernel_utilization'] is None"
check "the plain log's bottleneck is gpu" "$T/plain.json" "r['bottleneck'] == 'gpu'"

# --- kernels that fill the window: gpu -----------------------------------------
cat >"$T/k.log" <<'L'
TIMELINE,0,SYNTH_START,a,
TIMELINE,10,SYNTH_END,a,
TIMELINE,10,CHAN_SEND,a,
TIMELINE,11,GPU_PICKUP,a,worker=0
TIMELINE,12,GPU_START,a,worker=0
TIMELINE,12,KERNEL_START,a,
TIMELINE,112,KERNEL_END,a,
TIMELINE,112,GPU_END,a,worker=0
L
"$W" analyze --json "$T/k.log" >"$T/k.json" || bad "k.log"
check "kernels fill the window: gpu" "$T/k.json" "r['kernel_utilization'] == 1 and r['bottleneck'] == 'gpu' and [p['name'] for p in r['phases']] == ['KERNEL', 'unaccounted']"

# --- names: any case, seed form, within synthesis or the unit, unpaired -------
cat >"$T/n.log" <<'L'
TIMELINE synth_start job=a ts=0.000
TIMELINE witness_start job=a ts=0.001
TIMELINE witness_end job=a ts=0.004
TIMELINE synth_end job=a ts=0.010
TIMELINE,10,gpu_queue,a,
TIMELINE transfer_start job=a ts=0.009
TIMELINE transfer_end job=a ts=0.013
TIMELINE,12,GPU_PICKUP,a,worker=0
TIMELINE,13,GPU_START,a,worker=0
TIMELINE kernel_start job=a ts=0.014
TIMELINE kernel_end job=a ts=0.020
TIMELINE,21,RETRY_START,a,
TIMELINE,22,GPU_END,a,worker=0
TIMELINE,23,SOMETHING.ELSE,a,monolithic
INFO: TIMELINE logging enabled
TIMELINE,24,FROB*NICATE,a,
L
"$W" analyze --json "$T/n.log" >"$T/n.json" 2>"$T/err"; rc=$?
[ "$rc" = 4 ] && ok || bad "a malformed event name is damage: exit $rc, want 4"
check "only the malformed name is skipped" "$T/n.json" "r['skipped_lines'] == 1 and d['skipped_by_reason']['bad_event'] == 1 and d['timeline_lines'] == 15"
check "phases within synthesis, the unit and the GPU phase" "$T/n.json" "sorted((p['name'], p['within']) for p in r['phases']) == [('KERNEL','gpu'), ('TRANSFER','unit'), ('WITNESS','synthesis'), ('unaccounted','gpu')]"
check "an unpaired START and another name are marks" "$T/n.json" "r['marks'] == {'RETRY_START': 1, 'SOMETHING.ELSE': 1}"
check "synthesis share" "$T/n.json" "abs([p for p in r['phases'] if p['name']=='WITNESS'][0]['share'] - 0.3) < 1e-9"
"$W" analyze --csv "$T/n.log" >"$T/n.csv" 2>/dev/null
python3 - "$T/n.csv" <<'PY' && ok || bad "CSV: kind, phases, marks, chan_send_as"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
u = rows[0]
assert u['chan_send_as'] == 'GPU_QUEUE', u
assert u['phases'].split(';')[0] == 'WITNESS:0.001000000:0.004000000', u['phases']
assert 'KERNEL:0.014000000:0.020000000' in u['phases'].split(';')
assert u['marks'] == 'RETRY_START:0.021000000;SOMETHING.ELSE:0.023000000', u['marks']
assert u['kind'] == ''
PY

# --- the daemon's own durations, disagreeing --------------------------------
# b's synth_ms (1200) is shorter than its records' 1500 ms: time the daemon
# does not time (cuzk: the blocking pool's wait, the circuit's build), a
# note; c's (1300) is longer than its 1000 ms, which work timed between the
# records cannot be: a warning
cp "$HERE/data/reported.log" "$T/r.log"
printf 'TIMELINE,3000,SYNTH_START,c,kind=porep-c2\nTIMELINE,4000,SYNTH_END,c,synth_ms=1300\n' >>"$T/r.log"
"$W" analyze --json "$T/r.log" >"$T/r.json" 2>"$T/err"; rc=$?
[ "$rc" = 0 ] && ok || bad "a disagreement is a warning, not damage: exit $rc"
check "synth_ms disagrees on c (1000 timed, 1300 reported)" "$T/r.json" "r['reported']['synth_ms']['disagree'] == 1 and r['reported']['synth_ms']['first_line'] == 14 and r['reported']['synth_ms']['first_reported_s'] == 1.3 and r['reported']['synth_ms']['first_timed_s'] == 1.0"
check "b's synthesis runs 300 ms past its synth_ms" "$T/r.json" "r['reported']['synth_ms']['checked'] == 3 and r['reported']['synth_ms']['outside'] == 1 and abs(r['reported']['synth_ms']['outside_s'] - 0.3) < 1e-9"
check "gpu_ms within 5%" "$T/r.json" "r['reported']['gpu_ms']['checked'] == 2 and r['reported']['gpu_ms']['disagree'] == 0 and r['reported']['gpu_ms']['outside'] == 0"
check "one kind: no by_kind" "$T/r.json" "r['by_kind'] == {}"
"$W" analyze "$T/r.log" >"$T/r.txt" 2>&1
grep -q "warning.*synth_ms disagrees.*1 of 3 units (first at line 14: 1.30 s reported, 1.00 s timed)" "$T/r.txt" && ok ||
    bad "the text warning: $(grep warning "$T/r.txt")"
grep -q "note .*synthesis stage runs over 5% past the daemon's synth_ms on 1 of 3 units, 300.0 ms in all" "$T/r.txt" && ok ||
    bad "the text note: $(grep note "$T/r.txt")"
cp "$HERE/data/reported.log" "$T/r.log"
"$W" analyze --csv "$T/r.log" >"$T/r.csv"
python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); sys.exit(0 if [x['kind'] for x in r]==['porep-c2']*2 and [x['chan_send_as'] for x in r]==['GPU_QUEUE','CHAN_SEND'] else 1)" "$T/r.csv" && ok || bad "CSV kind and chan_send_as"

# --- a sub-phase without partition= of a job whose one unit has one ------------
printf 'TIMELINE,0,SYNTH_START,a,partition=2\nTIMELINE,1,SYNTH_END,a,partition=2\nTIMELINE,2,GPU_PICKUP,a,partition=2\nTIMELINE,3,GPU_START,a,partition=2\nTIMELINE,3,KERNEL_START,a,\nTIMELINE,5,KERNEL_END,a,\nTIMELINE,6,GPU_END,a,partition=2\n' >"$T/pt.log"
"$W" analyze --json "$T/pt.log" >"$T/pt.json" || bad "pt.log"
check "the job's one unit takes it" "$T/pt.json" "abs(r['kernel_utilization'] - 2/3) < 1e-6 and r['other_events_without_unit'] == 0"

# --- events of a job with no pipeline event -----------------------------------
printf 'TIMELINE,0,SYNTH_START,a,\nTIMELINE,1,SYNTH_END,a,\nTIMELINE,2,KERNEL_START,z,\nTIMELINE,3,KERNEL_END,z,kind=x\n' >"$T/o.log"
"$W" analyze --json "$T/o.log" >"$T/o.json" 2>"$T/err"; rc=$?
[ "$rc" = 0 ] && ok || bad "orphan events: exit $rc"
check "orphans counted" "$T/o.json" "r['other_events_without_unit'] == 3 and r['phases'] == []"

# --- the engine's own sub-phases, in a native trace and in its dump --------
"$W" run --device cpu --jobs 4 --gpu-workers 2 --synth-concurrency 2 --size 1024 --synth-rounds 1 \
    --out "$T/e.wft" --quiet || bad "waterfall run"
"$W" analyze --json "$T/e.wft" >"$T/e.json" 2>"$T/err" || bad "the engine's trace: $(cat "$T/err")"
check "the engine marks KERNEL and CHECK inside the GPU phase" "$T/e.json" "sorted((p['name'], p['within'], p['count']) for p in r['phases']) == [('CHECK','gpu',4), ('KERNEL','gpu',4), ('unaccounted','gpu',4)]"
check "kernels under the GPU phase" "$T/e.json" "r['kernel_utilization'] is not None and r['kernel_utilization'] <= r['utilization']"
"$W" dump "$T/e.wft" >"$T/e.txt" || bad "dump"
grep -q ',KERNEL_START,' "$T/e.txt" && grep -q ',CHECK_END,' "$T/e.txt" && ok || bad "dump shows the user events"
"$W" analyze --json "$T/e.txt" >"$T/et.json" 2>/dev/null
python3 - "$T/e.json" "$T/et.json" <<'PY' && ok || bad "the dump analyses as the trace does (phases, kernel utilization)"
import json, sys
a, b = (json.load(open(p))['runs'][0] for p in sys.argv[1:3])
assert abs(a['kernel_utilization'] - b['kernel_utilization']) < 1e-6, (a['kernel_utilization'], b['kernel_utilization'])
assert [(p['name'], p['count']) for p in a['phases']] == [(p['name'], p['count']) for p in b['phases']]
PY

# --- issue 28: figures that depend on how the log is read -----------------
# a restart is judged on the record after it, whatever its kind: a new run
# whose second record is a sub-phase event is a run of its own
check_log "a restart followed by a sub-phase event is a restart" "len(d['runs']) == 2 and r['late_lines'] == 0 and d['runs'][1]['events'] == 3" 'TIMELINE,0,SYNTH_START,a,\nTIMELINE,1000,SYNTH_END,a,\nTIMELINE,2000,GPU_START,a,\nTIMELINE,10000,GPU_END,a,\nTIMELINE,0,SYNTH_START,b,\nTIMELINE,1,PREP_START,b,\nTIMELINE,2,PREP_END,b,\n'
# a mark written late (its time looks like a restart, the next record continues the run) counts as late
check_log "a late mark is kept and counted late" "len(d['runs']) == 1 and r['late_lines'] == 1 and r['marks'] == {'CHECKPOINT': 1}" 'TIMELINE,0,SYNTH_START,a,\nTIMELINE,1000,SYNTH_END,a,\nTIMELINE,2000,GPU_START,a,\nTIMELINE,5,CHECKPOINT,a,\nTIMELINE,10000,GPU_END,a,\n'
# tracing JSON whose cuzk body names a job TIMELINE: the target decides, the job is data
check_log "a job id TIMELINE in a JSON line's message" "r['events'] == 1 and d['skipped_by_reason']['bad_time'] == 0" '{"timestamp":"2026-02-18T19:21:07.512034Z","level":"INFO","fields":{"message":"36512,SYNTH_END,TIMELINE,"},"target":"TIMELINE"}\n'
# no SYNTH_START: s per job and the fill are undefined (null), not counted from another event
check_log "no SYNTH_START: s_per_job and fill_s are null" "r['throughput']['s_per_job'] is None and r['devices'][0]['fill_s'] is None and r['utilization'] == 1" 'TIMELINE,100,GPU_PICKUP,a,\nTIMELINE,200,GPU_START,a,\nTIMELINE,900,GPU_END,a,\n'
# no GPU window: the mean synthesis concurrency over it is undefined
check_log "no GPU window: mean_active is null" "r['synthesis_concurrency']['mean_active'] is None and r['synthesis_concurrency']['max'] == 1" 'TIMELINE,0,SYNTH_START,a,\nTIMELINE,500,SYNTH_END,a,\n'
# the line range covers every event of the run, phases included
check_log "first_line and last_line cover every event" "r['events'] == 7 and r['first_line'] == 1 and r['last_line'] == 7" 'TIMELINE,0,KERNEL_START,j,\nTIMELINE,1,KERNEL_END,j,\nTIMELINE,2,SYNTH_START,j,\nTIMELINE,3,SYNTH_END,j,\nTIMELINE,4,GPU_START,j,\nTIMELINE,9,GPU_END,j,\nTIMELINE,9,DONE,j,\n'
# a phase within the unit is a share of the unit's whole span, its phases included: never over 1
check_log "a phase within the unit: its share is of the unit's whole span" "[(p['name'], p['within'], p['share']) for p in r['phases']] == [('SETUP', 'unit', 1)]" 'TIMELINE,0,SETUP_START,j,\nTIMELINE,3,SYNTH_START,j,\nTIMELINE,4,SYNTH_END,j,\nTIMELINE,5,GPU_START,j,\nTIMELINE,6,GPU_END,j,\nTIMELINE,8,SETUP_END,j,\n'
# the enclosing time summed over units passes INT64_MAX ns (12 syntheses of
# 10^12 ms): the share is still a number (it was nan: the sum wrapped)
python3 -c "
B = 10**12
rows = []
for i in range(12):
    j = 'j%d' % i
    rows += [(0, 'SYNTH_START', j), (1, 'LOAD_START', j), (2, 'LOAD_END', j), (B + 10 * i, 'SYNTH_END', j),
             (B + 10 * i + 3, 'GPU_START', j), (B + 10 * i + 4, 'GPU_END', j)]
rows.sort(key=lambda r: r[0])
print(''.join('TIMELINE,%d,%s,%s,%s\n' % (t, e, j, 'worker=0' if e.startswith('GPU') else '') for t, e, j in rows), end='')
" >"$T/big.log"
"$W" analyze --json "$T/big.log" >"$T/big.json" 2>/dev/null
check "a share of summed spans past INT64_MAX ns" "$T/big.json" "[(p['name'], p['count']) for p in r['phases']] == [('LOAD', 12)] and abs(r['phases'][0]['share'] - 1e-12) < 1e-15"
"$W" analyze "$T/big.log" 2>/dev/null | grep -q '^  LOAD .* 0\.0%$' && ok || bad "the text's share of summed spans past INT64_MAX ns: $("$W" analyze "$T/big.log" 2>&1 | grep LOAD)"
# a run of two kinds: the CPU section's timing compares each kind with
# itself (a long kind that runs beside others is not a slow one).  porep
# takes 38 s alone and beside another, snap 5 s alone: mixed, "beside
# others" was 1.77x "alone" and the verdict cpu
python3 - "$T/kinds.log" <<'PY'
import sys
out, t = [], 0.0
def unit(job, kind, s0, s1, g0, g1):
    out.extend([(s0, 'SYNTH_START', job, 'kind=' + kind), (s1, 'SYNTH_END', job, ''),
                (g0, 'GPU_START', job, 'worker=0'), (g1, 'GPU_END', job, 'worker=0')])
for i in range(3):  # snap alone
    unit('snap%d' % i, 'snap', t, t + 5, t + 5, t + 6); t += 6
for i in range(3):  # porep alone
    unit('porep%d' % i, 'porep', t, t + 38, t + 38, t + 39); t += 39
for i in range(3):  # porep two at once
    unit('pa%d' % i, 'porep', t, t + 38, t + 38, t + 39)
    unit('pb%d' % i, 'porep', t, t + 38, t + 39, t + 40); t += 40
out.sort(key=lambda r: r[0])
open(sys.argv[1], 'w').write(''.join('TIMELINE,%d,%s,%s,%s\n' % (int(r[0] * 1000), r[1], r[2], r[3]) for r in out))
PY
"$W" analyze --json "$T/kinds.log" >"$T/kinds.json" 2>/dev/null
check "two kinds: the timing compares each kind with itself" "$T/kinds.json" "r['cpu']['synthesis_contended'] is False and abs(r['cpu']['synthesis_slower'] - 1) < 1e-9 and r['bottleneck'] != 'cpu' and sorted(set(x['kind'] for x in r['cpu']['synthesis_by_concurrency'])) == ['porep', 'snap']"
"$W" analyze "$T/kinds.log" >"$T/kinds.txt" 2>/dev/null
grep -q 'synthesis by kind, then syntheses at once: porep: 1: 38.00 s (3) · 2: 38.00 s (6); snap: 1: 5.00 s (3); beside others 1.00x alone' "$T/kinds.txt" && ok ||
    bad "two kinds: the text's CPU lines: $(grep 'at once' "$T/kinds.txt")"
# the bottleneck's g is the effective GPU time per unit, said so
grep -q 'of effective GPU time per unit (busy / units; workers overlap)' "$T/kinds.txt" && ok ||
    bad "the bottleneck does not say what g is: $(grep bottleneck "$T/kinds.txt")"

# occurrences of one name that overlap within a unit (START, START, END,
# END; two streams): the share is of the time they cover, each unit's
# merged, never above 1 (it was 1.8 for LOAD, 1.56 for NTT)
check_log "overlapping occurrences: shares of the time covered" "{(x['name'], x['within']): (x['count'], round(x['share'], 6)) for x in r['phases']} == {('LOAD', 'unit'): (2, 1.0), ('MSM', 'synthesis'): (2, 0.5), ('NTT', 'gpu'): (2, round(7 / 9, 6)), ('unaccounted', 'gpu'): (1, round(2 / 9, 6))} and abs([x for x in r['phases'] if x['name'] == 'LOAD'][0]['mean_s'] - 0.021) < 1e-9" 'TIMELINE,0,LOAD_START,j,\nTIMELINE,1,LOAD_START,j,\nTIMELINE,2,SYNTH_START,j,\nTIMELINE,3,MSM_START,j,\nTIMELINE,3,MSM_START,j,\nTIMELINE,5,MSM_END,j,\nTIMELINE,7,MSM_END,j,\nTIMELINE,10,SYNTH_END,j,\nTIMELINE,11,GPU_START,j,\nTIMELINE,12,NTT_START,j,\nTIMELINE,14,NTT_START,j,\nTIMELINE,19,NTT_END,j,\nTIMELINE,19,NTT_END,j,\nTIMELINE,20,GPU_END,j,\nTIMELINE,21,LOAD_END,j,\nTIMELINE,22,LOAD_END,j,\n'

# a device with no window (a unit picked up, none started): its fill is
# null, as its window's start and end are (it was 0)
check_log "no window: fill_s null" "r['devices'][0]['window_start_s'] is None and r['devices'][0]['fill_s'] is None" 'TIMELINE,0,SYNTH_START,a,\nTIMELINE,5,SYNTH_END,a,\nTIMELINE,6,GPU_PICKUP,a,worker=0\n'

finish test_phases
