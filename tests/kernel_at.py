#!/usr/bin/env python3
"""kernel_at.py TRACE.json TRUTH.json -- each unit's kernel phase (gpu_total)
in waterfall's Chrome trace starts where gen_cuzk_timing.py's truth puts it
after its GPU_START (GPU_START + spawn + pre_lock_cpu + mutex_wait), within
3 ms: the three values are truncated to whole ms.  Exit 1, naming the
units, where one does not.  --placed: only the units given a kernel phase
(the others were counted as not given), each within 3 ms plus 5% of its
kernel: where two units fit a call, the choice is taken when it moves the
call by no more than that (docs/cli.md, "Which unit made a call"); and
each as long as the truth's (2 ms): its own section's gpu_total."""
import json
import sys

ev = json.load(open(sys.argv[1]))['traceEvents']
key = lambda e: (e['args']['job'], e['args']['partition'])
gpu = {key(e): e['ts'] for e in ev if e.get('name') == 'gpu' and e.get('ph') == 'X'}
kern = {key(e): e['ts'] for e in ev if e.get('name') == 'gpu_total' and e.get('ph') in ('X', 'b')}
# each kernel's length: an X event's dur, or its b event to the e of the same id
klen, begun = {}, {}
for e in ev:
    if e.get('name') != 'gpu_total':
        continue
    if e.get('ph') == 'X':
        klen[key(e)] = e['dur'] / 1e3
    elif e.get('ph') == 'b':
        begun[(e.get('cat'), e.get('id'))] = (key(e), e['ts'])
    elif e.get('ph') == 'e' and (e.get('cat'), e.get('id')) in begun:
        k, ts = begun.pop((e.get('cat'), e.get('id')))
        klen[k] = (e['ts'] - ts) / 1e3
bad = 0
placed = sys.argv[3:] == ['--placed']
for u in json.load(open(sys.argv[2]))['unit_list']:
    k = (u['job'], u['partition'])
    if placed and k not in kern:
        continue
    got = (kern[k] - gpu[k]) / 1e3 if k in kern and k in gpu else None
    tol = 3 + (0.05 * (u['kernel_s'][1] - u['kernel_s'][0]) * 1e3 if placed else 0)
    if got is None or abs(got - u['kernel_after_start_ms']) > tol:
        bad += 1
        print('%s: kernel %s ms after GPU_START, truth %.2f' % (k, got, u['kernel_after_start_ms']), file=sys.stderr)
    want = (u['kernel_s'][1] - u['kernel_s'][0]) * 1e3
    if placed and (k not in klen or abs(klen[k] - want) > 2):  # its own section's gpu_total, not another's
        bad += 1
        print('%s: kernel %s ms long, truth %.2f' % (k, klen.get(k), want), file=sys.stderr)
sys.exit(1 if bad else 0)
