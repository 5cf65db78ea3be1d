#!/bin/sh
# test_durations.sh -- duration lines (CUZK_TIMING) against the truth of
# logs built from their source's semantics (gen_cuzk_timing.py): kernel
# utilization within 0.005, sub-phase means within 2% (or 1 ms, the
# values' truncation), every call given to its unit or counted, the
# critical-path verdict, one and several read ranges alike, the views and
# diff.  Usage: test_durations.sh WATERFALL
W="$1"
HERE=$(dirname "$0")
. "$HERE/lib.sh"
GEN="$HERE/gen_cuzk_timing.py"

# against LOG TRUTH NAME: the figures the truth gives
against() {
    "$W" analyze --json --no-progress "$1" >"$T/$3.json" 2>"$T/$3.err" || { bad "$3: analyze failed: $(cat "$T/$3.err")"; return; }
    if python3 - "$T/$3.json" "$2" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))['runs'][0]
t = json.load(open(sys.argv[2]))
name = sys.argv[3]
errs = []
if abs(r['kernel_utilization'] - t['kernel_utilization']) > 0.005:
    errs.append('kernel utilization %s, truth %s' % (r['kernel_utilization'], t['kernel_utilization']))
ph = {p['name']: p for p in r['phases'] if p['within'] == 'gpu'}
for k, want in t['means_ms'].items():
    p = ph.get(k)
    if not p or p['count'] != t['counts'][k]:
        errs.append('%s: %s, want %d' % (k, p and p['count'], t['counts'][k]))
        continue
    got = p['mean_s'] * 1e3
    if abs(got - want) > max(0.02 * want, 1.0):
        errs.append('%s mean %.2f ms, truth %.2f ms' % (k, got, want))
d = r['durations']
if d['placed'] + d['outside'] != d['values'] or d['units'] != t['units']:
    errs.append('durations %s' % d)
out = {m['name']: m['count'] for m in d['outside_by_name']}
if out != t['outside']:
    errs.append('outside %s, truth %s' % (out, t['outside']))
nest = {p['name']: p['parent'] for p in r['phases'] if p['within'] == 'gpu'}
for child, parent in (('gpu_total', 'mutex_held'), ('ntt_msm_h', 'gpu_total'), ('tail_msm', 'gpu_total'),
                      ('mutex_wait', 'total_start_fn'), ('prep_msm', None), ('split_vectors', 'setup_to_split')):
    if nest.get(child, 'absent') != parent:
        errs.append('%s nests in %s, want %s' % (child, nest.get(child, 'absent'), parent))
for e in errs:
    print('%s: %s' % (name, e), file=sys.stderr)
sys.exit(1 if errs else 0)
PY
    then ok; else bad "$3: figures against the truth"; fi
}

# --- one GPU worker, split API: the GPU waits for prep_msm ---------------------
python3 "$GEN" "$T/one.log" "$T/one.truth" --plain "$T/one.plain" || bad "gen one"
against "$T/one.log" "$T/one.truth" one
py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r=d['runs'][0]; sys.exit(0 if ($2) else 1)" "$1"; }
# watch_same LABEL LOG ANALYZE_JSON [OPTIONS...]: watch --once of LOG ends
# on analyze's JSON (cmp_watch.py: totals, kernel time, bottleneck)
watch_same() {
    label=$1 log=$2 aj=$3
    shift 3
    "$W" watch --once "$@" "$log" >"$aj.w.jsonl" 2>/dev/null
    python3 "$HERE/cmp_watch.py" "$aj" "$aj.w.jsonl" >"$aj.cmp" && ok ||
        bad "$label: watch --once and analyze differ: $(cat "$aj.cmp")"
}
py "$T/one.json" "r['bottleneck'] == 'gpu_phase' and r['durations']['critical_path']['host_bound']" && ok ||
    bad "one worker: the critical path is on the CPU"
"$W" analyze --no-progress "$T/one.log" >"$T/one.txt" 2>&1
grep -q "the phase waits for prep_msm + b_g2_msm" "$T/one.txt" && grep -q "overlap prep_msm + b_g2_msm" "$T/one.txt" &&
    ok || bad "one worker: the verdict and advice name prep_msm + b_g2_msm: $(grep -E 'bottleneck|advice' "$T/one.txt")"
grep -q "duration lines .*CUZK_TIMING: 601 lines; 780 of 840 durations placed in 60 units" "$T/one.txt" && ok ||
    bad "one worker: the duration-lines line: $(grep 'duration lines' "$T/one.txt")"

# Without the duration lines the run is what it was: no durations key, the
# KERNEL default, no phases.
"$W" analyze --json --no-progress "$T/one.plain" >"$T/plain.json" 2>&1
py "$T/plain.json" "'durations' not in r and r['kernel_utilization'] is None and r['phases'] == []" && ok ||
    bad "a log without duration lines"
python3 - "$T/one.json" "$T/plain.json" <<'PY' && ok || bad "utilization and stages changed by the duration lines"
import json, sys
a, b = (json.load(open(p))['runs'][0] for p in sys.argv[1:3])
keys = ['utilization', 'busy_s', 'window_s', 'idle_s', 'idle_by_cause', 'units', 'jobs_completed', 'stages']
sys.exit(0 if all(a[k] == b[k] for k in keys) else 1)
PY


# --- a run timed by its lines' own clocks (no offsets): the same figures ----
# (the placed phases move with the run's origin: model.c's wall_shift)
python3 - "$T/one.log" "$T/wall.log" <<'PY' || bad "make the wall-clock log"
import datetime, re, sys
base = datetime.datetime(2026, 12, 5, 10, 0, 0)
with open(sys.argv[2], 'w') as out:
    for line in open(sys.argv[1]):
        m = re.match(r'TIMELINE,(\d+),(\w+),([^,]*),(.*)', line.rstrip('\n'))
        if not m:
            out.write(line)
            continue
        ms, ev, job, det = m.groups()
        t = base + datetime.timedelta(milliseconds=int(ms))
        out.write('%sZ  INFO TIMELINE: %s job=%s %s\n' % (t.strftime('%Y-%m-%dT%H:%M:%S.%f'), ev.lower(), job,
                                                         ' '.join(det.split(','))))
PY
"$W" analyze --no-progress "$T/one.log" | sed 1d | grep -v '^  clock ' >"$T/one.cmp.txt"
"$W" analyze --no-progress "$T/wall.log" | sed 1d | grep -v '^  clock ' >"$T/wall.cmp.txt"
grep -q "kernel" "$T/wall.cmp.txt" && cmp -s "$T/one.cmp.txt" "$T/wall.cmp.txt" && ok ||
    bad "a wall-clock run's duration phases: $(diff "$T/one.cmp.txt" "$T/wall.cmp.txt" | head -5)"

# --- two workers on one GPU: the mutex serializes their kernels ---------------
python3 "$GEN" "$T/two.log" "$T/two.truth" --workers 2 --seed 2 || bad "gen two"
against "$T/two.log" "$T/two.truth" two
py "$T/two.json" "r['durations']['ambiguous'] == 0 and [p for p in r['phases'] if p['name'] == 'mutex_wait'][0]['mean_s'] > 1" &&
    ok || bad "two workers: the mutex waits are read"
# a line printed outside its section that two calls fit, far apart: given to
# the earliest, and counted and said as a guess (one worker: never)
"$W" analyze --no-progress "$T/two.log" >"$T/two.txt" 2>&1
py "$T/one.json" "r['durations']['guessed'] == 0" &&
    py "$T/two.json" "0 < r['durations']['guessed'] <= r['durations']['placed']" &&
    grep -q "of the placed durations given by a guess" "$T/two.txt" && ok ||
    bad "two workers: the lines given by a guess are counted and said"

# --- noise and ANSI colour around the lines ------------------------------------
python3 "$GEN" "$T/noise.log" "$T/noise.truth" --workers 2 --noise --seed 3 || bad "gen noise"
against "$T/noise.log" "$T/noise.truth" noise

# --- the daemon's stderr as Docker's json-file and journalctl -o json keep it:
# each line a JSON string, escaped (ANSI colour as \u001b), duration lines too
python3 - "$T/noise.log" "$T/docker.log" "$T/journal.log" <<'PY' || bad "make the JSON-wrapped logs"
import json, sys
lines = open(sys.argv[1], encoding='utf-8', errors='surrogateescape').read().splitlines()
with open(sys.argv[2], 'w') as d, open(sys.argv[3], 'w') as j:
    for i, l in enumerate(lines):
        d.write(json.dumps({'log': l + '\n', 'stream': 'stderr', 'time': '2026-02-18T19:21:09.%06dZ' % i}) + '\n')
        j.write(json.dumps({'__REALTIME_TIMESTAMP': str(1771442469000000 + i), 'MESSAGE': l, '_PID': '4242'}) + '\n')
PY
against "$T/docker.log" "$T/noise.truth" docker
py "$T/docker.json" "r['durations']['unreadable'] == 0" && ok || bad "docker: duration lines unreadable"
against "$T/journal.log" "$T/noise.truth" journal

# cut records a second reviewer built (tests/data/cut): a date-time and a
# level inside a record's detail are no cut (the detail is one write); a
# coloured env_logger line, a coloured tracing line in Docker's json-file
# and journalctl -o json (its MESSAGE past a 300-byte cursor) are cutters.
# Each: one unit, completed, nothing skipped, however read.
for f in detail-date-not-cut env-logger-colour docker-colour-tracing journal-json; do
    L="$HERE/data/cut/$f.log"
    WATERFALL_READ_THREADS=1 WATERFALL_MMAP=0 "$W" analyze --json --no-progress "$L" >"$T/$f.1.json" 2>/dev/null
    WATERFALL_READ_THREADS=2 WATERFALL_MMAP=1 "$W" analyze --json --no-progress "$L" >"$T/$f.2.json" 2>/dev/null
    want="r['jobs_completed'] == 1 and r['skipped_lines'] == 0 and r['in_flight'] == 0"
    [ $f = detail-date-not-cut ] && want="r['units'] == 2 and r['jobs_completed'] == 1 and r['skipped_lines'] == 0"
    py "$T/$f.1.json" "$want" && cmp -s "$T/$f.1.json" "$T/$f.2.json" && ok ||
        bad "$f: $(head -c 400 "$T/$f.1.json")"
    "$W" watch --once "$L" >"$T/$f.w.jsonl" 2>/dev/null
    python3 "$HERE/cmp_watch.py" "$T/$f.1.json" "$T/$f.w.jsonl" >"$T/$f.cmp" && ok ||
        bad "$f: watch --once and analyze differ: $(cat "$T/$f.cmp")"
done

# ntt_msm_h's own breakdown (groth16_ntt_h.cu prints a CUZK_NTT_H: line for
# each circuit, inside ntt_msm_h, with no gpu_tid): counted and said, and
# nothing else changes (it was read as no line at all)
python3 - "$T/one.log" "$T/ntt.log" <<'PY' || bad "make the CUZK_NTT_H log"
import sys
out = []
for l in open(sys.argv[1]):
    if 'ntt_msm_h_ms=' in l:
        out.append('CUZK_NTT_H: d_b_alloc=0ms ntt_kernels=301ms coset_intt_sync=120ms msm_init=2ms msm_invoke=400ms msm_dtor=1ms total=824ms\n')
    out.append(l)
open(sys.argv[2], 'w').write(''.join(out))
PY
n=$(grep -c CUZK_NTT_H "$T/ntt.log")
"$W" analyze --json --no-progress "$T/ntt.log" >"$T/ntt.json" 2>/dev/null
python3 - "$T/one.json" "$T/ntt.json" "$n" <<'PY' && ok || bad "CUZK_NTT_H lines: counted, nothing else changed"
import json, sys
a, b, n = json.load(open(sys.argv[1]))['runs'][0], json.load(open(sys.argv[2]))['runs'][0], int(sys.argv[3])
da, db = a.pop('durations'), b.pop('durations')
assert n > 0 and db['ntt_h_lines'] == n and da['ntt_h_lines'] == 0, (n, db['ntt_h_lines'])
assert db['lines'] == da['lines'] + n
for k in da:
    if k not in ('lines', 'ntt_h_lines'):
        assert da[k] == db[k], k
for k in a:
    if k not in ('source', 'first_line', 'last_line', 'lines'):
        assert a[k] == b[k], k
PY
"$W" analyze --no-progress "$T/ntt.log" 2>&1 | grep -q "CUZK_NTT_H: $n lines (ntt_msm_h's breakdown, counted, not placed)" && ok ||
    bad "CUZK_NTT_H lines in the text"

# cuzk's sync debug mode (CUZK_DISABLE_SPLIT_PROVE=1, engine.rs) prints no
# GPU_START or GPU_END: the text says the lines were read, and why none is
# placed (it said nothing of them)
grep -v -e ',GPU_START,' -e ',GPU_END,' "$T/one.log" >"$T/sync.log"
"$W" analyze --no-progress "$T/sync.log" 2>&1 | grep -q "CUZK_TIMING: [0-9]* lines, [0-9]* durations, none placed: no unit's GPU phase" &&
    ok || bad "sync mode: the text says why no duration is placed: $("$W" analyze --no-progress "$T/sync.log" 2>&1 | head -5)"

# a kernel utilization from 90% of the units' calls or more, the rest not
# given (two GPUs, seed 5: 8 of 80): their kernels count as idle, so it is a
# floor, and says so (it was printed as a plain figure)
python3 "$GEN" "$T/km.log" "$T/km.truth" --gpus 2 --jobs 8 --seed 5 || bad "gen kernel_missing"
"$W" analyze --json --no-progress "$T/km.log" >"$T/km.json" 2>/dev/null
py "$T/km.json" "r['durations']['kernel_missing'] == {'units': 8, 'of': 80} and r['kernel_utilization'] <= json.load(open('$T/km.truth'))['kernel_utilization'] + 0.005" &&
    ok || bad "kernel_missing: $(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs'][0]; print(r['durations']['kernel_missing'], r['kernel_utilization'])" "$T/km.json")"
"$W" analyze --no-progress "$T/km.log" >"$T/km.txt" 2>&1
grep -q "kernel util\. *at least [0-9.]*%" "$T/km.txt" && grep -q "8 of 80 GPU phases have no gpu_total" "$T/km.txt" && ok ||
    bad "kernel_missing: the text says the figure is a floor: $(grep -A1 'kernel util' "$T/km.txt")"

# two workers, no spawn line: A enters its call 5 ms after its GPU_START
# (the engine's spawn_blocking), B waits for A's unlock (a reviewer's log
# from groth16_cuda.cu: tests/data/spawn-delay.log).  A's unlock is only
# bounded (its least delay puts it 5 ms early; its closing line's next
# record, late), and B's section is B's: both kernels, 3.00 s of 3.06 s
# (B's was lost, and the kernel utilization with it)
L="$HERE/data/spawn-delay.log"
"$W" analyze --json --no-progress "$L" >"$T/sd.json" 2>/dev/null
py "$T/sd.json" "r['durations']['units'] == 2 and abs(r['kernel_utilization'] - 3.0 / 3.06) < 0.005" && ok ||
    bad "spawn delay: $(head -c 600 "$T/sd.json")"
watch_same "spawn delay" "$L" "$T/sd.json"

# watch ends on analyze's last run (a reviewer's logs, tests/data/runs):
# kernel phases in the first run and none in the second, duration lines
# only in the second (each run's kernel time known or not as analyze
# decides it, run by run), and duration lines read with --kernel-phase
# KERNEL (no kernel: gpu_total is the kernel only when none is named)
for f in kernel-then-plain plain-then-durlines durlines-kernel-phase; do
    opt=
    [ $f = durlines-kernel-phase ] && opt="--kernel-phase KERNEL"
    "$W" analyze --json --no-progress $opt "$HERE/data/runs/$f.log" >"$T/$f.json" 2>/dev/null
    watch_same "$f" "$HERE/data/runs/$f.log" "$T/$f.json" $opt
done

# the same at scale, the default two workers and a 200 ms blocking-pool
# wait, no spawn lines: every call given, the kernel within 0.005 of the
# truth (the first section lost, every later one was: 1 unit of 60 given,
# no kernel utilization); watch --once the same
for seed in 1 2 3; do
    python3 "$GEN" "$T/sw$seed.log" "$T/sw$seed.truth" --workers 2 --delay 200 --seed $seed || bad "gen spawn wait $seed"
    "$W" analyze --json --no-progress "$T/sw$seed.log" >"$T/sw$seed.json" 2>/dev/null
    py "$T/sw$seed.json" "r['durations']['units'] == r['durations']['calls'] == 60 and abs(r['kernel_utilization'] - json.load(open('$T/sw$seed.truth'))['kernel_utilization']) <= 0.005 and [m['name'] for m in r['durations']['outside_by_name']] == ['async_dealloc']" &&
        ok || bad "spawn wait seed $seed: $(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs'][0]; print(r['durations']['units'], r['kernel_utilization'])" "$T/sw$seed.json")"
    watch_same "spawn wait seed $seed" "$T/sw$seed.log" "$T/sw$seed.json"
done

# a second review's logs (tests/data/review/README): two and three workers
# with calls that fail on the GPU, three workers with no spawn lines.  Every
# spawn line given after a failed call (one failed call lost all later ones:
# its unlock, at the least delay, was 5 ms early); with no spawn lines, every
# call given (a unit still waiting fit the point and took another's call);
# the bottleneck gpu, as the truth's kernel utilization of 0.99 says (it was
# judged on the floor of 91.5%); watch --once the same
R="$HERE/data/review"
"$W" analyze --json --no-progress "$R/two-workers-failed-call.log" >"$T/rv2.json" 2>/dev/null
py "$T/rv2.json" "r['durations']['spawn_placed'] == r['durations']['spawn_lines'] == 94 and abs(r['kernel_utilization'] - 0.98927) <= 0.005" &&
    ok || bad "review, two workers, failed calls: $(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs'][0]; print(r['durations']['spawn_placed'], r['kernel_utilization'])" "$T/rv2.json")"
"$W" analyze --json --no-progress "$R/three-workers-failed-call.log" >"$T/rv3.json" 2>/dev/null
py "$T/rv3.json" "r['bottleneck'] == 'gpu' and r['kernel_utilization'] <= 0.98902 + 0.005" && ok ||
    bad "review, three workers, failed calls: $(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs'][0]; print(r['bottleneck'], r['kernel_utilization'], r['durations']['kernel_missing'])" "$T/rv3.json")"
"$W" analyze --json --no-progress "$R/three-workers-no-spawn.log" >"$T/rvn.json" 2>/dev/null
py "$T/rvn.json" "r['durations']['units'] == r['durations']['calls'] == 120 and r['bottleneck'] == 'gpu' and abs(r['kernel_utilization'] - 0.99837) <= 0.005" &&
    ok || bad "review, three workers, no spawn lines: $(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs'][0]; print(r['durations']['units'], r['bottleneck'], r['kernel_utilization'])" "$T/rvn.json")"
# a partial device's kernel time as the bottleneck's floor, said as it is
# taken: no "nan%" where its units without kernels have empty GPU phases;
# the GPU phase's sentence where it decided, beside a device whose kernel
# time is known (it said "gpu: the kernels run at least 54.5%")
"$W" analyze --no-progress "$R/partial-empty-phases.log" >"$T/rvp.txt" 2>/dev/null
! grep -qi nan "$T/rvp.txt" && grep -q 'takes the calls given as a floor' "$T/rvp.txt" &&
    grep -q '^  bottleneck     gpu_phase: .* its kernels run at least [0-9.]*%' "$T/rvp.txt" && ok ||
    bad "review, partial with empty GPU phases: $(grep -E 'bottleneck|not known' "$T/rvp.txt")"
"$W" analyze --no-progress "$R/known-and-partial.log" >"$T/rvk.txt" 2>/dev/null
grep -q '^  bottleneck     gpu: the GPU is busy 100.0% of its window' "$T/rvk.txt" &&
    grep -q 'kernel utilization above is of the devices that have it; the bottleneck is judged on the GPU phase' "$T/rvk.txt" &&
    ok || bad "review, known and partial devices: $(grep -E 'bottleneck|not known' "$T/rvk.txt")"
# a restart: the lines with no duration (messages, CUZK_NTT_H, unreadable)
# are counted in the run that holds them, not all in the first; read in one
# range and in four
for th in 1 4; do
    WATERFALL_READ_THREADS=$th "$W" analyze --json --no-progress "$R/restart-counts.log" >"$T/rc$th.json" 2>/dev/null
    python3 -c "
import json, sys
rs = json.load(open(sys.argv[1]))['runs']
got = [(r['durations']['messages'], r['durations']['ntt_h_lines'], r['durations']['unreadable'],
        r['durations']['first_unreadable_line'], r['durations']['lines']) for r in rs]
sys.exit(0 if got == [(2, 0, 0, None, 202), (2, 20, 1, 462, 222)] else print(got) or 1)" "$T/rc$th.json" &&
        ok || bad "a restart's counted lines, each in its run ($th read threads)"
done
# four workers on one GPU whose first call fails (no GPU_END, no spawn
# line; its worker starts another unit at once): its section is its unit's,
# which ends its call by its worker's next GPU_START (it ranked last, as
# a unit that never ends, and one wrong unlock lost 50 of 100 calls, 693
# values ambiguous); with no spawn lines, 96 calls of 100 were given
"$W" analyze --json --no-progress "$R/four-workers-failed-first-call.log" >"$T/rv4.json" 2>/dev/null
py "$T/rv4.json" "r['durations']['units'] == r['durations']['calls'] == 100 and r['durations']['spawn_placed'] == r['durations']['spawn_lines'] == 94 and abs(r['kernel_utilization'] - 0.98910) <= 0.005" &&
    ok || bad "review, four workers, failed first call: $(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs'][0]; print(r['durations']['units'], r['durations']['spawn_placed'], r['kernel_utilization'])" "$T/rv4.json")"
"$W" analyze --json --no-progress "$R/four-workers-failed-call-no-spawn.log" >"$T/rv4n.json" 2>/dev/null
py "$T/rv4n.json" "r['durations']['units'] == r['durations']['calls'] == 100 and abs(r['kernel_utilization'] - 0.98905) <= 0.005" &&
    ok || bad "review, four workers, failed calls, no spawn lines: $(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs'][0]; print(r['durations']['units'], r['kernel_utilization'])" "$T/rv4n.json")"
# two GPUs merged into one device (the log names none): one GPU's
# barrier_wait under the other's kernels is not idle; the kernels less their
# waits run 0.983 of the window (the log's truth), so the verdict is gpu,
# not gpu_phase (as when the barriers' sum was subtracted)
"$W" analyze --json --no-progress "$R/two-gpus-barrier.log" >"$T/rvb.json" 2>/dev/null
py "$T/rvb.json" "r['bottleneck'] == 'gpu' and abs(r['kernel_utilization'] - 0.99910) <= 0.005" &&
    ok || bad "review, two GPUs' barriers: $(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs'][0]; print(r['bottleneck'], r['kernel_utilization'])" "$T/rvb.json")"
for f in two-workers-failed-call three-workers-failed-call three-workers-no-spawn watch-failed-unit partial-empty-phases \
    known-and-partial four-workers-failed-first-call four-workers-failed-call-no-spawn two-gpus-barrier; do
    "$W" analyze --json --no-progress "$R/$f.log" >"$T/rv-$f.json" 2>/dev/null
    watch_same "review $f" "$R/$f.log" "$T/rv-$f.json"
done

# a call that failed on the GPU (a reviewer's log, from groth16_cuda.cu and
# engine.rs): its GPU thread printed nothing, mutex_held came all the same,
# and its unit never ended.  Its section is its unit's and moves the
# device's unlock, so the next call goes to the unit that made it: watch
# lost the kernel time (null) where analyze had 5.315 s, 95.2% of the
# window (the log's truth: 0.9517)
L="$HERE/data/failed-call.log"
"$W" analyze --json --no-progress "$L" >"$T/fc.json" 2>/dev/null
py "$T/fc.json" "abs(r['devices'][0]['kernel_busy_s'] - 5.315) < 1e-9 and r['in_flight'] == 1" && ok ||
    bad "failed call: $(head -c 400 "$T/fc.json")"
watch_same "failed call" "$L" "$T/fc.json"

# cut records at the edges (a reviewer's cases): a record's cut left from a
# line too long to parse (it crashed), a rest that is the input's last line
# without '\n' read from a second range, a head before a 5 MiB line, a head
# at the end that watch held
python3 - "$T" <<'PY' || bad "make the edge logs"
import sys
t = sys.argv[1]
open(t + '/cut1.log', 'w').write('TIMELINE,1,GPU_END,j1CUZK_TIMING: a_ms=1\n,worker=0,partition=0\n'
                                 'TIMELINE,2,GPU_START,' + 'x' * 5000 + '\n' + 'y' * 100 + '\n')
r = 'TIMELINE,1000,GPU_START,job-1,worker=0,partition=0\nx\nTIMELINE,2000,GPU_END,job-1CUZK_TIMING: a_ms=1\n'
open(t + '/cut2.log', 'w').write(r + ',worker=0,partition=0' + ' ' * (len(r) - 21))
open(t + '/cut3.log', 'w').write('TIMELINE,1000,GPU_START,job-1,worker=0,partition=0\nTIMELINE,2000,GPU_END,job-1CUZK_TIMING: a_ms=1\n'
                                 + 'z' * (5 << 20) + '\nCUZK_TIMING: prep_msm_ms=12x\n')
open(t + '/cut4.log', 'w').write('TIMELINE,1000,GPU_START,job-1,worker=0,partition=0\nTIMELINE,2000,GPU_END,job-1CUZK_TIMING: a_ms=1\n')
PY
for f in cut1 cut2 cut3 cut4; do
    rcs=
    for mode in "1 0" "2 0" "2 1" "8 1"; do
        set -- $mode
        WATERFALL_READ_THREADS=$1 WATERFALL_MMAP=$2 "$W" analyze --json --no-progress "$T/$f.log" >"$T/$f.$1$2.json" 2>/dev/null
        rcs="$rcs $?"
    done
    case "$rcs" in *13[0-9]*) bad "$f: analyze crashed ($rcs)" ;; *) ok ;; esac
    cmp -s "$T/$f.10.json" "$T/$f.20.json" && cmp -s "$T/$f.10.json" "$T/$f.21.json" && cmp -s "$T/$f.10.json" "$T/$f.81.json" &&
        ok || bad "$f: one read range, two and eight mapped differ"
    "$W" watch --once "$T/$f.log" >"$T/$f.w.jsonl" 2>/dev/null
    [ $? -lt 128 ] && python3 "$HERE/cmp_watch.py" "$T/$f.10.json" "$T/$f.w.jsonl" >"$T/$f.cmp" && ok ||
        bad "$f: watch --once and analyze differ: $(cat "$T/$f.cmp")"
done
py "$T/cut2.10.json" "r['units'] == 1 and r['jobs_completed'] == 1" && ok || bad "cut2: the rest, the input's last line, joined"
py "$T/cut3.10.json" "r['skipped_lines'] == 0 and r['durations']['first_unreadable_line'] == 4" && ok ||
    bad "cut3: a head before a long line: $(cat "$T/cut3.10.json" | head -c 300)"

# --- a call over two GPUs (gpu_tid 0 and 1) -----------------------------------
python3 "$GEN" "$T/multi.log" "$T/multi.truth" --call-gpus 2 --seed 4 || bad "gen multi"
against "$T/multi.log" "$T/multi.truth" multi
py "$T/multi.json" "{p['name']: p['parent'] for p in r['phases']}.get('gpu_total.gpu1') == 'mutex_held' and {p['name']: p['parent'] for p in r['phases']}.get('ntt_msm_h.gpu1') == 'gpu_total.gpu1'" &&
    ok || bad "multi-GPU call: gpu_tid 1's phases"

# --- two GPUs, a worker each, no device named: the sections interleave --------
python3 "$GEN" "$T/gpus.log" "$T/gpus.truth" --gpus 2 --seed 5 || bad "gen gpus"
"$W" analyze --json --no-progress "$T/gpus.log" >"$T/gpus.json" 2>&1 || bad "two GPUs: analyze failed"
py "$T/gpus.json" "r['durations']['interleaved'] > 0 and r['durations']['placed'] + r['durations']['interleaved'] + r['durations']['ambiguous'] + r['durations']['outside'] + r['durations']['stray'] == r['durations']['values']" &&
    ok || bad "two GPUs: what is not given is counted"
"$W" analyze --no-progress "$T/gpus.log" 2>&1 | grep -q "durations not given to a unit" && ok || bad "two GPUs: the text says so"

# --- two GPUs, no device named: the mux reads the sections apart by their
# times (dur_mux.h).  Before it, none of these logs' sections was given.
# What it gives is where the truth puts it (3 ms, plus 5% where two units
# could have made the call), what it cannot is counted, watch reads them as
# analyze does, and kernel utilization is not made of the units given.
# The bottleneck takes their kernel time as a floor: seed 1, one worker a
# GPU, waits at barrier_wait for prep_msm in every call, whichever units
# the calls not given are (the rule counts barrier_wait with the phase's
# other work): gpu_phase at the floor and at its ceiling, as with all
# calls given; seeds 2-4, two workers a GPU, overlap one call's host work
# with the other's kernels: the floor and the ceiling differ, and the GPU
# phase decides (gpu).
# (seed:share:options; share: the least share of the sections' durations
# given, 32-72% on these logs with the mux, none before it; seed 4 has no
# spawn lines, two workers a GPU: 15% given, where readings that would have
# given units another section's kernels are merged, counted as ambiguous)
for cfg in "1:0.25:--gpus 2 --jobs 8" "2:0.25:--workers 2 --gpus 2 --jobs 8 --spawn-lines" \
    "3:0.25:--workers 2 --gpus 2 --jobs 8 --spawn-lines" "4:0.1:--workers 2 --gpus 2 --jobs 8"; do
    case ${cfg%%:*} in 1) want=gpu_phase ;; *) want=gpu ;; esac
    seed=${cfg%%:*}
    share=${cfg#*:}
    share=${share%%:*}
    args=${cfg#*:*:}
    case $seed in 4) gseed=3 ;; *) gseed=$seed ;; esac
    python3 "$GEN" "$T/mg$seed.log" "$T/mg$seed.truth" $args --seed "$gseed" || bad "gen two GPUs seed $seed"
    "$W" analyze --json --no-progress "$T/mg$seed.log" >"$T/mg$seed.json" 2>/dev/null
    "$W" render "$T/mg$seed.log" -o "$T/mg$seed.trace.json" 2>/dev/null
    python3 "$HERE/kernel_at.py" "$T/mg$seed.trace.json" "$T/mg$seed.truth" --placed && ok ||
        bad "two GPUs seed $seed: a given kernel is not where the truth puts it"
    py "$T/mg$seed.json" "r['durations']['placed'] >= $share * (r['durations']['values'] - r['durations']['outside']) and r['durations']['placed'] + r['durations']['interleaved'] + r['durations']['ambiguous'] + r['durations']['outside'] + r['durations']['stray'] == r['durations']['values']" &&
        ok || bad "two GPUs seed $seed: a share $share of the sections' durations given, the rest counted: $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['runs'][0]['durations'])" "$T/mg$seed.json")"
    py "$T/mg$seed.json" "(r['kernel_utilization'] is None and r['durations']['kernel_partial']['units'] < 0.9 * r['durations']['kernel_partial']['of'] and r['bottleneck'] == '$want') or (r['durations']['kernel_partial'] is None and abs(r['kernel_utilization'] - json.load(open('$T/mg$seed.truth'))['kernel_utilization']) <= 0.005)" &&
        ok || bad "two GPUs seed $seed: kernel utilization from the units given"
    watch_same "two GPUs seed $seed" "$T/mg$seed.log" "$T/mg$seed.json"
done
"$W" analyze --no-progress "$T/mg2.log" 2>&1 | grep -q "kernel util. *not known: gpu_total phases in only" && ok ||
    bad "two GPUs: the text says why kernel utilization is not known: $("$W" analyze --no-progress "$T/mg2.log" 2>&1 | grep 'kernel util')"
# marks between the sections' lines are records too: the lines after them
# are timed from them, in analyze and watch alike (watch timed them from
# the pipeline's records only, and its kernel time was 67.8 s to 71.2 s)
python3 "$GEN" "$T/mgm.log" "$T/mgm.truth" --workers 4 --gpus 2 --jobs 8 --spawn-lines --seed 3 --marks || bad "gen marks"
"$W" analyze --json --no-progress "$T/mgm.log" >"$T/mgm.json" 2>/dev/null
py "$T/mgm.json" "abs(r['kernel_utilization'] - json.load(open('$T/mgm.truth'))['kernel_utilization']) <= 0.005 and r['durations']['placed'] >= 0.9 * (r['durations']['values'] - r['durations']['outside'])" &&
    ok || bad "two GPUs with marks: kernel utilization as the truth's, nine in ten durations given"
watch_same "two GPUs with marks between the lines" "$T/mgm.log" "$T/mgm.json"
# a single GPU's log reads as it did: every section given to its unit
py "$T/one.json" "r['durations']['kernel_partial'] is None" && ok || bad "one GPU: kernel_partial"

# --- the engine's spawn lines (engine.rs: GPU_TIMING spawn_blocking prove_start)
# A spawn delay of up to 80 ms: the lines alone do not say when each call
# entered, the engine's line does (without it, 212 of 840 durations were
# ambiguous and kernel utilization 0.16 against 1.00 on this log).
python3 "$GEN" "$T/spawn.log" "$T/spawn.truth" --workers 2 --delay 80 --spawn-lines --noise --seed 7 || bad "gen spawn"
against "$T/spawn.log" "$T/spawn.truth" spawn
py "$T/spawn.json" "r['durations']['spawn_lines'] == 60 and r['durations']['spawn_placed'] == 60 and r['durations']['ambiguous'] == 0 and {p['name']: p['parent'] for p in r['phases']}.get('total_start_fn') == 'prove_start'" &&
    ok || bad "spawn lines: all given, total_start_fn within prove_start: $(python3 -c "import json; print(json.load(open('$T/spawn.json'))['runs'][0]['durations'])")"
# GPU_END's gpu_ms is timed from gpu_prove_start's entry, after the spawn
# wait (pipeline.rs): checked against the timestamps less spawn_to_enter
# (a 400 ms wait put 44 of 60 units over 5% outside their gpu_ms)
python3 "$GEN" "$T/slow.log" "$T/slow.truth" --delay 400 --spawn-lines --seed 2 || bad "gen slow spawn"
"$W" analyze --json --no-progress "$T/slow.log" >"$T/slow.json" 2>/dev/null
py "$T/slow.json" "r['reported']['gpu_ms']['checked'] == 60 and r['reported']['gpu_ms']['disagree'] == 0 and r['reported']['gpu_ms']['outside'] == 0" && ok ||
    bad "gpu_ms against GPU_END - (GPU_START + spawn_to_enter): $(python3 -c "import json; print(json.load(open('$T/slow.json'))['runs'][0]['reported'])")"

# --- records cut by the GPU library's lines ------------------------------------
# cuzk's eprintln! writes a TIMELINE record a piece at a time (Rust's stderr
# is unbuffered), so a CUZK_TIMING line that the C library prints at once
# can land between two pieces: "TIMELINE,5481CUZK_TIMING: ...\n,GPU_END,...";
# so can a tracing line (stdout) where both streams go to one file or
# journal.  Each record followed by a duration or tracing line is cut at
# one of its eight piece boundaries by that line: the same figures,
# nothing skipped, however read.
python3 - "$T/spawn.log" "$T/cut.log" <<'PY' || bad "make the cut log"
import random, re, sys
rnd = random.Random(11)
lines = open(sys.argv[1], encoding='utf-8', errors='surrogateescape').read().split('\n')
out, i, cuts = [], 0, 0
while i < len(lines):
    l = lines[i]
    m = re.match(r'(TIMELINE,)(\d+)(,)(\w+)(,)([^,]*)(,)(.*)$', l)
    if m and i + 1 < len(lines) and (lines[i + 1].startswith('CUZK_TIMING:') or
                                     re.match(r'(\x1b\[[0-9;]*m)*\d{4}-\d\d-\d\dT', lines[i + 1])):
        at = sum(len(g) for g in m.groups()[:rnd.randrange(1, 9)])
        out += [l[:at] + lines[i + 1], l[at:]]
        i += 2
        cuts += 1
        continue
    out.append(l)
    i += 1
open(sys.argv[2], 'w', encoding='utf-8', errors='surrogateescape').write('\n'.join(out))
sys.exit(0 if cuts >= 20 else 1)
PY
against "$T/cut.log" "$T/spawn.truth" cut
python3 - "$T/spawn.json" "$T/cut.json" <<'PY' && ok || bad "cut records: read as the uncut log reads"
import json, sys
a, b = (json.load(open(p))['runs'][0] for p in sys.argv[1:3])
same = ['utilization', 'busy_s', 'units', 'jobs_completed', 'kernel_utilization', 'idle_by_cause']
errs = [k for k in same if a[k] != b[k]] + (['skipped %s' % b['skipped_lines']] if b['skipped_lines'] else [])
da, db = a['durations'], b['durations']
errs += ['durations %s: %s, %s' % (k, da[k], db[k]) for k in ('lines', 'values', 'placed', 'outside') if da[k] != db[k]]
errs and print(errs, file=sys.stderr)
sys.exit(1 if errs else 0)
PY

# the same through journald (`journalctl -o short`): every line prefixed,
# the rest of a cut record too, its digits not the head's
python3 - "$T/cut.log" "$T/cutj.log" <<'PY' || bad "make the journald cut log"
import sys
lines = open(sys.argv[1], encoding='utf-8', errors='surrogateescape').read().split('\n')
with open(sys.argv[2], 'w', encoding='utf-8', errors='surrogateescape') as o:
    for i, l in enumerate(lines):
        o.write('Dec 06 05:%02d:%02d prover cuzk-daemon[%d]: %s\n' % (i // 60 % 60, i % 60, 4242, l))
PY
against "$T/cutj.log" "$T/spawn.truth" cutj
py "$T/cutj.json" "r['skipped_lines'] == 0" && ok || bad "journald cut records: skipped lines"
watch_same "journald cut records" "$T/cutj.log" "$T/cutj.json"

# and as `docker logs -t` prints it: an RFC3339Nano time first, whose
# fraction drops its trailing zeros (the rest's prefix is not the head's width)
python3 - "$T/cut.log" "$T/cutt.log" <<'PY' || bad "make the docker -t cut log"
import sys
lines = open(sys.argv[1], encoding='utf-8', errors='surrogateescape').read().split('\n')
with open(sys.argv[2], 'w', encoding='utf-8', errors='surrogateescape') as o:
    for i, l in enumerate(lines):
        frac = ('%09d' % (i * 7919 % 10 ** 9 // 10 ** (i % 7))).rstrip('0')
        o.write('2026-02-18T19:%02d:%02d%sZ %s\n' % (i // 60 % 60, i % 60, '.' + frac if frac else '', l))
PY
against "$T/cutt.log" "$T/spawn.truth" cutt
py "$T/cutt.json" "r['skipped_lines'] == 0" && ok || bad "docker -t cut records: skipped lines"

# and through Docker's json-file: each piece a JSON entry of its own, the
# head's prefix ({"log":") the rest's, its string decoded
python3 - "$T/cut.log" "$T/cutd.log" <<'PY' || bad "make the Docker cut log"
import json, sys
lines = open(sys.argv[1], encoding='utf-8', errors='surrogateescape').read().split('\n')
with open(sys.argv[2], 'w') as o:
    for i, l in enumerate(lines):
        o.write(json.dumps({'log': l + '\n', 'stream': 'stderr', 'time': '2026-02-18T19:21:%02d.%06dZ' % (i % 60, i)},
                           separators=(',', ':')) + '\n')
PY
against "$T/cutd.log" "$T/spawn.truth" cutd
py "$T/cutd.json" "r['skipped_lines'] == 0" && ok || bad "Docker cut records: skipped lines"
watch_same "Docker cut records" "$T/cutd.log" "$T/cutd.json"
"$W" analyze --no-progress "$T/spawn.log" 2>&1 | grep -q "GPU_TIMING spawn_blocking: 60 lines, 60 given to units" && ok ||
    bad "spawn lines: the text counts them"
# each unit's kernel starts where the source puts it: GPU_START + spawn + pre_lock + wait
"$W" render "$T/spawn.log" -o "$T/spawn.trace.json" 2>/dev/null || bad "spawn: render"
python3 "$HERE/kernel_at.py" "$T/spawn.trace.json" "$T/spawn.truth" && ok || bad "spawn lines: each kernel placed from the engine's entry"
# seeds where the sections alone fit two workers' calls alike (with
# these lines ignored, 236 of 840 durations were not given): each call to
# its unit, by the spawn line printed after its section
for seed in 1 4 5; do
    python3 "$GEN" "$T/sp$seed.log" "$T/sp$seed.truth" --workers 2 --delay 150 --spawn-lines --seed $seed || bad "gen sp$seed"
    against "$T/sp$seed.log" "$T/sp$seed.truth" "spawn seed $seed"
    "$W" render "$T/sp$seed.log" -o "$T/sp$seed.trace.json" 2>/dev/null
    python3 "$HERE/kernel_at.py" "$T/sp$seed.trace.json" "$T/sp$seed.truth" && ok || bad "spawn seed $seed: each kernel where the source puts it"
    "$W" watch --once "$T/sp$seed.log" >"$T/sp$seed.w.jsonl" 2>/dev/null
    "$W" analyze --json --no-progress "$T/sp$seed.log" >"$T/sp$seed.a.json" 2>/dev/null
    python3 "$HERE/cmp_watch.py" "$T/sp$seed.a.json" "$T/sp$seed.w.jsonl" >"$T/sp$seed.cmp" && ok ||
        bad "spawn seed $seed: watch --once and analyze differ: $(cat "$T/sp$seed.cmp")"
done
# a spawn line no unit can take (worker 9); unreadable ones: a partition
# that is not a count, none, a key twice, a value past 11 digits of ms
{ cat "$T/spawn.log"; echo "2026-12-05T10:01:00.000Z  INFO cuzk_core::engine: GPU_TIMING spawn_blocking prove_start worker_id=9 partition=Some(0) spawn_to_enter_ms=0 prove_start_ms=5";
  echo "GPU_TIMING spawn_blocking prove_start worker_id=0 partition=Some(x) spawn_to_enter_ms=0 prove_start_ms=5";
  echo "GPU_TIMING spawn_blocking prove_start worker_id=0 spawn_to_enter_ms=0 prove_start_ms=5";
  echo "GPU_TIMING spawn_blocking prove_start worker_id=0 worker_id=1 partition=None spawn_to_enter_ms=0 prove_start_ms=5";
  echo "GPU_TIMING spawn_blocking prove_start worker_id=0 partition=None spawn_to_enter_ms=999999999999 prove_start_ms=5"; } >"$T/spawn2.log"
"$W" analyze --json --no-progress "$T/spawn2.log" >"$T/spawn2.json" 2>&1
py "$T/spawn2.json" "r['durations']['spawn_lines'] == 61 and r['durations']['spawn_placed'] == 60 and r['durations']['unreadable'] == 4 and r['durations']['first_unreadable_line'] == $(($(wc -l <"$T/spawn.log") + 2))" &&
    ok || bad "spawn lines not given, or unreadable, are counted: $(python3 -c "import json; print(json.load(open('$T/spawn2.json'))['runs'][0]['durations'])")"
"$W" analyze --no-progress "$T/spawn2.log" 2>&1 | grep -q "1 spawn lines not given to a unit" && ok || bad "spawn lines: the text says one was not given"

# --- one range or several, one analysis thread or two: the same JSON ----------
# (a big input's entries are classified and its units' phases walked in two
# halves: WATERFALL_ANALYSIS_THREADS=2 splits a small one too)
for f in one two noise spawn docker cut; do
    WATERFALL_READ_THREADS=1 WATERFALL_ANALYSIS_THREADS=1 "$W" analyze --json --no-progress "$T/$f.log" >"$T/$f.1.json" 2>/dev/null
    WATERFALL_READ_THREADS=4 WATERFALL_ANALYSIS_THREADS=2 "$W" analyze --json --no-progress "$T/$f.log" >"$T/$f.4.json" 2>/dev/null
    cmp -s "$T/$f.1.json" "$T/$f.4.json" && ok || bad "$f: one read range and one analysis thread, and four and two, differ"
done
# A phase name's id orders the phases that start together on one line: the
# names are interned in the order one walk over the units meets them, on
# two threads as on one.  Here the first quarter's calls print no
# pre_lock_cpu (mutex_wait is met first), the rest pre_lock_cpu_ms=0 (it
# starts with mutex_wait): the units' phases come in the same order.
python3 - "$T/one.log" "$T/order.log" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split('\n')
opens = [i for i, l in enumerate(lines) if 'CUZK_TIMING: pre_lock_cpu_ms=' in l]
for k, i in enumerate(opens):
    lines[i] = re.sub(r'pre_lock_cpu_ms=\d+ ', '', lines[i]) if k < len(opens) // 4 else re.sub(r'pre_lock_cpu_ms=\d+', 'pre_lock_cpu_ms=0', lines[i])
open(sys.argv[2], 'w').write('\n'.join(lines))
PY
for e in 1 2; do
    WATERFALL_ANALYSIS_THREADS=$e "$W" render -f chrome -o "$T/order.$e.json" "$T/order.log" 2>/dev/null
done
[ -s "$T/order.1.json" ] && cmp -s "$T/order.1.json" "$T/order.2.json" && ok ||
    bad "phases that start together: one analysis thread and two order them differently"
cat "$T/two.log" | "$W" analyze --json --no-progress - >"$T/two.stdin.json" 2>/dev/null
sed 's/"source": "[^"]*"/"source": ""/' "$T/two.stdin.json" >"$T/a" && sed 's/"source": "[^"]*"/"source": ""/' "$T/two.json" >"$T/b" &&
    cmp -s "$T/a" "$T/b" && ok || bad "two: stdin and the file differ"

# --- a key the table does not know, after its call's section ------------------
# (a later curio's print after the unlock): a phase of the one open unit whose
# section closed before it, not a mark "outside any GPU phase"
sed '/mutex_held_ms=/a CUZK_TIMING: unlock_to_return_ms=3' "$T/one.log" >"$T/unk.log"
"$W" analyze --json --no-progress "$T/unk.log" >"$T/unk.json" 2>&1 || bad "unknown key: analyze failed"
py "$T/unk.json" "[p['count'] for p in r['phases'] if p['name'] == 'unlock_to_return' and p['within'] == 'gpu'] == [60] and 'unlock_to_return' not in [m['name'] for m in r['durations']['outside_by_name']]" &&
    ok || bad "a key the table does not know after the section is a phase: $(head -c 600 "$T/unk.json")"

# --- unreadable and stray lines are counted with their line -----------------
{ head -40 "$T/one.log"; echo "CUZK_TIMING: prep_msm_ms=12x"; echo "CUZK_TIMING: gpu_tid=0 ntt_msm_h_ms=5"; tail -n +41 "$T/one.log"; } >"$T/bad.log"
"$W" analyze --json --no-progress "$T/bad.log" >"$T/bad.json" 2>&1 || bad "bad lines: analyze failed"
py "$T/bad.json" "r['durations']['unreadable'] == 1 and r['durations']['first_unreadable_line'] == 41" && ok ||
    bad "an unreadable duration line is counted at its line: $(python3 -c "import json; print(json.load(open('$T/bad.json'))['runs'][0]['durations'])")"

# the input's last line with no newline (a log still being written): a value
# there may be cut short (async_dealloc_ms=3 of 31), so it is counted as
# unreadable at its line, not read; watch --once alike (its figures as analyze's)
{ cat "$T/one.log"; printf 'CUZK_TIMING: async_dealloc_ms=3'; } >"$T/cutend.log"
n=$(($(wc -l <"$T/one.log") + 1))
"$W" analyze --json --no-progress "$T/cutend.log" >"$T/cutend.json" 2>&1 || bad "cut last line: analyze failed"
python3 -c "
import json, sys
a, b = (json.load(open(f))['runs'][0]['durations'] for f in sys.argv[1:3])
sys.exit(0 if a['unreadable'] == 1 and a['first_unreadable_line'] == int(sys.argv[3]) and
         a['outside_by_name'] == b['outside_by_name'] and a['placed'] == b['placed'] else 1)" "$T/cutend.json" "$T/one.json" "$n" &&
    ok || bad "a cut last duration line is counted, not read: $(head -c 600 "$T/cutend.json")"
WATERFALL_MMAP=0 "$W" analyze --json --no-progress "$T/cutend.log" | cmp -s - "$T/cutend.json" && ok ||
    bad "a cut last duration line: read and mapped alike"
watch_same "a cut last duration line" "$T/cutend.log" "$T/cutend.json"

# --- simulate holds the device for the kernels only ------------------------------
# The device mutex serializes the kernels, not the GPU phase: a second worker's
# prep_msm and b_g2_msm run beside the first's kernels (two workers of seed 1:
# 18.2 s per job, against one.log's 28.3).  Calibrated from one.log, the
# simulation of two workers must come within 10% of the two-worker log
# measured, one worker within 10% of one.log, and it must say what it holds.
python3 "$GEN" "$T/two1.log" "$T/two1.truth" --workers 2 --seed 1 || bad "gen two1"
spj() { python3 -c "import json,sys; d=json.load(sys.stdin); print(d['runs'][0]['throughput']['s_per_job'] if 'runs' in d else d['s_per_job'])"; }
m1=$("$W" analyze --json --no-progress "$T/one.log" 2>/dev/null | spj)
m2=$("$W" analyze --json --no-progress "$T/two1.log" 2>/dev/null | spj)
s1=$("$W" simulate --from "$T/one.log" --json 2>/dev/null | spj)
s2=$("$W" simulate --from "$T/one.log" --gpu-workers 2 --json 2>/dev/null | spj)
python3 -c "import sys; m1,m2,s1,s2=map(float,sys.argv[1:]); sys.exit(0 if abs(s1/m1-1)<0.1 and abs(s2/m2-1)<0.1 and m2<0.8*m1 else 1)" "$m1" "$m2" "$s1" "$s2" &&
    ok || bad "simulate from one worker: 1 worker $s1 s per job (measured $m1), 2 workers $s2 (measured $m2)"
"$W" simulate --from "$T/one.log" --sweep gpu_workers=1:2 >"$T/sim.txt" 2>&1
grep -q "device model  a device is held for its units' kernels only (kernel phases in 60 of 60 units).*prep_msm + b_g2_msm on a helper thread" "$T/sim.txt" && ok ||
    bad "simulate names its device model: $(grep 'device model' "$T/sim.txt")"
"$W" simulate --from "$T/one.log" --json >"$T/sim.json" 2>/dev/null
python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['device_model']; sys.exit(0 if d['holds'] == 'kernels' and d['helper_units'] == 60 and d['worker_free_at'] == 'kernels_end' and 1.6 < d['kernels_s'] < 1.9 else 1)" "$T/sim.json" &&
    ok || bad "simulate's JSON device_model: $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['device_model'])" "$T/sim.json")"
# analyze's advice says what a second worker would do, simulated so
"$W" analyze --no-progress "$T/one.log" 2>/dev/null | grep -q "SIMULATED, the device held for the kernels only: 2 GPU workers per device would give" &&
    ok || bad "analyze's advice simulates a second GPU worker: $("$W" analyze --no-progress "$T/one.log" 2>/dev/null | grep -A1 advice)"
"$W" analyze --json --no-progress "$T/one.log" 2>/dev/null | python3 -c "
import json, sys
g = json.load(sys.stdin)['runs'][0]['advice']['gpu_phase']['simulated']
m2 = float(sys.argv[1])
sys.exit(0 if [x['gpu_workers_per_device'] for x in g] == [1, 2] and abs(g[1]['s_per_job'] / m2 - 1) < 0.1 and g[1]['s_per_job'] < 0.8 * g[0]['s_per_job'] else 1)" "$m2" &&
    ok || bad "analyze's JSON advice.gpu_phase: $("$W" analyze --json --no-progress "$T/one.log" 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['runs'][0]['advice'].get('gpu_phase'))")"
# without the lines, no kernels: the device holds the whole phase, and
# nothing is said to be left out
"$W" simulate --from "$T/one.plain" --json 2>/dev/null | python3 -c "import json,sys; d=json.load(sys.stdin)['device_model']; sys.exit(0 if d['holds'] == 'gpu_phase' and d['gpu_phase_work_not_modelled'] is None and d['kernels_not_used'] is None else 1)" &&
    ok || bad "simulate's device_model without sub-phases"

# --- the views draw them; diff compares them ----------------------------------
"$W" render "$T/one.log" -o "$T/one.trace.json" 2>/dev/null && grep -q '"gpu_total"' "$T/one.trace.json" &&
    grep -q '"prep_msm"' "$T/one.trace.json" && ok || bad "the Chrome trace holds the sub-phases"
"$W" render "$T/one.log" -o "$T/one.svg" 2>/dev/null && grep -q "gpu_total" "$T/one.svg" && ok ||
    bad "the SVG names the kernel phase"
"$W" diff "$T/one.log" "$T/two.log" >"$T/diff.txt" 2>&1 && grep -q "phase: mutex_wait" "$T/diff.txt" &&
    grep -q "^    units given a call  *60  *60 *$" "$T/diff.txt" && ok ||
    bad "diff compares the sub-phases: $(cat "$T/diff.txt")"
# --- watch and its metrics place the kernels as analyze does -----------------
# (the same sections to the same units: to the nanosecond, cmp_watch.py)
for f in one two noise multi gpus spawn docker cut; do
    "$W" analyze --json --no-progress "$T/$f.log" >"$T/$f.a.json" 2>/dev/null
    "$W" watch --once "$T/$f.log" >"$T/$f.w.jsonl" 2>"$T/$f.w.err" || bad "$f: watch --once failed: $(cat "$T/$f.w.err")"
    python3 "$HERE/cmp_watch.py" "$T/$f.a.json" "$T/$f.w.jsonl" >"$T/$f.cmp" && ok ||
        bad "$f: watch --once and analyze differ: $(cat "$T/$f.cmp")"
done
# a cut record's rest not yet written when watch reads its head (a pipe,
# paused after the head): held for it, as analyze reads the whole file
# (and through journald: the head's prefix held with it)
for f in cut cutj; do
python3 - "$T/$f.log" <<'PY' | "$W" watch --once - >"$T/${f}p.w.jsonl" 2>"$T/${f}p.w.err"
import re, sys, time
data = open(sys.argv[1], 'rb').read().split(b'\n')
out, n = sys.stdout.buffer, 0
for i, l in enumerate(data):
    out.write(l + (b'\n' if i + 1 < len(data) else b''))
    if re.search(rb'TIMELINE,.*CUZK_', l) and n < 6:
        out.flush()
        time.sleep(0.3)
        n += 1
PY
"$W" analyze --json --no-progress "$T/$f.log" >"$T/${f}p.a.json" 2>/dev/null
python3 "$HERE/cmp_watch.py" "$T/${f}p.a.json" "$T/${f}p.w.jsonl" >"$T/${f}p.cmp" && ok ||
    bad "$f: cut records through a pipe, the rest after a pause: watch and analyze differ: $(cat "$T/${f}p.w.err" "$T/${f}p.cmp")"
done
python3 "$GEN" "$T/three.log" "$T/three.truth" --workers 3 --jobs 10 --seed 23 || bad "gen three"
"$W" analyze --json --no-progress "$T/three.log" >"$T/three.a.json" 2>/dev/null
"$W" watch --once "$T/three.log" >"$T/three.w.jsonl" 2>/dev/null
python3 "$HERE/cmp_watch.py" "$T/three.a.json" "$T/three.w.jsonl" >"$T/three.cmp" && ok ||
    bad "three workers, two starting in one ms (a GPU_END to come decides): $(cat "$T/three.cmp")"
# the metrics endpoint serves the same kernel time (a bounded wait: the
# log is whole, so it settles once watch has read it and been quiet)
# (spawn: the horizon waits for each call's spawn line, which may move its kernel)
for f in two spawn; do
python3 - "$W" "$T/$f.log" "$T/$f.a.json" <<'PY' && ok || bad "$f: the metrics' kernel time"
import json, socket, subprocess, sys, time, urllib.request
w, log, a = sys.argv[1:4]
want = json.load(open(a))['runs'][0]['devices'][0]['kernel_busy_s']
s = socket.socket(); s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]; s.close()
p = subprocess.Popen([w, 'watch', '--listen', '127.0.0.1:%d' % port, '--json-lines', '--quiet', '0.2',
                      '--interval', '0.2', log], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
got = None
try:
    end = time.time() + 60
    while time.time() < end:
        try:
            body = urllib.request.urlopen('http://127.0.0.1:%d/metrics' % port, timeout=2).read().decode()
            for line in body.splitlines():
                if line.startswith('waterfall_gpu_kernel_seconds_total{device="0"}'):
                    got = float(line.split()[-1])
            if got is not None and abs(got - want) <= 1e-6 * want:
                break
        except OSError:
            pass
        time.sleep(0.2)
finally:
    p.terminate()
    p.wait(10)
if got is None or abs(got - want) > 1e-6 * want:
    print('metrics kernel %r, analyze %r' % (got, want), file=sys.stderr)
    sys.exit(1)
PY
done
finish test_durations
