#!/usr/bin/env python3
"""gen_phases.py -- cuzk-style logs whose GPU phases hold sub-phases, with
the figures computed here, by hand, for test_phases.sh to compare.

Two GPU workers share device 0; each GPU phase is host work (HOST_MSM),
a wait for the kernel lock (LOCK_WAIT), the kernel (serialized by the
lock: KERNEL), then finalization (a mark, GPU_FINALIZE).  Writes LOG and
LOG.plain (the same run without the sub-phase and mark lines), and prints
the expected figures as JSON on stdout."""
import json
import random
import sys

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 40
random.seed(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
lines = []  # (time_ms, order, text)
kernels, gpu = [], []
lock_free = 0.0
worker_free = [0.0, 0.0]
seq = 0


def emit(t, text):
    global seq
    seq += 1
    lines.append((t, seq, "TIMELINE,%.3f,%s" % (t, text)))


for j in range(n):
    kind = "porep-c2" if j % 3 else "winning-post"
    ss = j * 7.0
    se = ss + 20 + random.randint(0, 10)
    emit(ss, "SYNTH_START,job-%d,kind=%s" % (j, kind))
    emit(se, "SYNTH_END,job-%d,synth_ms=%d" % (j, round(se - ss)))
    emit(se + 0.5, "GPU_QUEUE,job-%d," % j)
    w = 0 if worker_free[0] <= worker_free[1] else 1
    pick = max(se + 1, worker_free[w])
    emit(pick, "GPU_PICKUP,job-%d,worker=%d" % (j, w))
    gs = pick + 1
    emit(gs, "GPU_START,job-%d,worker=%d" % (j, w))
    emit(gs, "HOST_MSM_START,job-%d," % j)
    hm = gs + 4 + random.randint(0, 4)
    emit(hm, "HOST_MSM_END,job-%d," % j)
    emit(hm, "LOCK_WAIT_START,job-%d," % j)
    ks = max(hm, lock_free)
    emit(ks, "LOCK_WAIT_END,job-%d," % j)
    ke = ks + 6 + random.randint(0, 3)
    lock_free = ke
    emit(ks, "KERNEL_START,job-%d," % j)
    emit(ke, "KERNEL_END,job-%d," % j)
    emit(ke + 1, "GPU_FINALIZE,job-%d," % j)
    ge = ke + 2
    emit(ge, "GPU_END,job-%d,worker=%d,gpu_ms=%d" % (j, w, round(ge - gs)))
    worker_free[w] = ge
    kernels.append((ks, ke))
    gpu.append((gs, ge))


def union(spans):
    total, cur = 0.0, None
    for a, b in sorted(spans):
        if cur and a <= cur[1]:
            cur[1] = max(cur[1], b)
        else:
            if cur:
                total += cur[1] - cur[0]
            cur = [a, b]
    return total + (cur[1] - cur[0] if cur else 0)


lines.sort()
sub = ("HOST_MSM", "LOCK_WAIT", "KERNEL_", "GPU_FINALIZE")
with open(out, "w") as f, open(out + ".plain", "w") as g:
    for _, _, text in lines:
        f.write(text + "\n")
        if not any(s in text for s in sub):
            g.write(text + "\n")
window = max(b for _, b in gpu) - min(a for a, _ in gpu)
json.dump({"kernel_utilization": union(kernels) / window, "utilization": union(gpu) / window,
           "units": n, "kinds": {"porep-c2": sum(1 for j in range(n) if j % 3),
                                 "winning-post": sum(1 for j in range(n) if not j % 3)}}, sys.stdout)
