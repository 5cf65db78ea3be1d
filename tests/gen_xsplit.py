#!/usr/bin/env python3
"""gen_xsplit.py SEED LINES -- a log for test_split whose events of the six
and other events (phases, marks, details) meet restarts and late lines at
every place a byte range's edge can fall: one reader and several must give
the same runs, late lines, phases, marks and kinds."""
import random
import sys

seed, n = int(sys.argv[1]), int(sys.argv[2])
R = random.Random(seed)
EVENTS = ['SYNTH_START', 'SYNTH_END', 'GPU_PICKUP', 'GPU_START', 'GPU_END',
          'KERNEL_START', 'KERNEL_END', 'MARK_X', 'PREP_START', 'PREP_END']
DETAILS = ['', 'kind=a', 'kind=b', 'partition=1', 'worker=0']
out, t = [], 0
for _ in range(n):
    r = R.random()
    job = 'j%d' % R.randrange(12)
    if r < 0.04:  # the daemon restarts: its epoch from zero
        t = 0
    elif r < 0.08:  # a line written late
        late = max(0, t - R.choice([60, 600, 2000, 9000]))
        ev = R.choice(['SYNTH_START', 'GPU_END', 'KERNEL_START', 'CHECK', 'KERNEL_END'])
        out.append('TIMELINE,%d,%s,%s,%s' % (late, ev, job, R.choice(['', 'kind=a', 'partition=1'])))
        continue
    t += R.choice([0, 1, 5, 30, 200])
    out.append('TIMELINE,%d,%s,%s,%s' % (t, R.choice(EVENTS), job, R.choice(DETAILS)))
    if R.random() < 0.1:
        out.append('noise ' * R.randrange(1, 30))
print('\n'.join(out))
