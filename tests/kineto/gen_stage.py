#!/usr/bin/env python3
"""gen_stage.py -- a data-loading-bound PyTorch trace whose stages are known.

    python3 gen_stage.py OUT.json

Five steps, 1000 µs apart (t = 1000 i), on device 0, stream 7, launched
from thread (1, 1):

    [t, t+600]      user_annotation enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__
    [t+600, t+650]  cpu_op aten::to, holding the cudaMemcpyAsync at t+610
    [t+640, t+660]  its gpu_memcpy
    t+700, +720, +740  cudaLaunchKernel in cpu_op aten::mm [launch-1, launch+6]
    [t+710, t+800], [t+800, t+880], [t+880, t+990]  their kernels
    [t, t+1000]     ProfilerStep#i

plus python_function "train.py(10): <module>" over the whole run and a
second DataLoader range on thread (1, 2) at [4200, 4300].

The truth, by DESIGN.md's rules (the window is [640, 4990]: busy 1500 µs,
idle 2850 µs, in 5 gaps [t+660, t+710] and 4 gaps [t+990, t+1640]):

  no mapping (each launch is its unit's CHAN_SEND): queue 5 x 10 + 4 x 30
  = 170 µs, no_work 2680 µs; bottleneck input.

  --stage synthesis='enumerate(DataLoader)*' --stage prep='aten::to':
  each memcpy's unit is ready and picked up where aten::to begins (t+600)
  and takes the step's DataLoader range as its synthesis [t, t+600]; so a
  gap [t+990, t+1640] is no_work 10, synthesis 600, prep 40, and a gap
  [t+660, t+710] no_work 40, queue 10: synthesis 2400, prep 160, queue
  50, no_work 240; bottleneck synthesis.  Ranges: synthesis 6 (the second
  thread's too), units 5; prep 5 and 5.

  candidates (no mapping or not): DataLoader 2400 µs (2400/2850 of the
  idle; 6 ranges: the union over threads), aten::to 160 (5), aten::mm
  5 x 7 = 35 (15); the steps and <module> are left out.

HTA's breakdown (the last step cut: ops launched from 4000 left out):
stream 7 host_wait 4 x 50 + 3 x 650 = 2150, kernel_wait 0, other 0, the
same with the mapping or without.
"""
import sys


def main():
    ev = []

    def x(cat, name, ts, dur, tid=1, pid=1, **args):
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args})

    corr = 0
    x("python_function", "train.py(10): <module>", 0, 5000)
    for i in range(5):
        t = 1000 * i
        x("user_annotation", "ProfilerStep#%d" % i, t, 1000)
        x("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t, 600)
        x("cpu_op", "aten::to", t + 600, 50)
        corr += 1
        x("cuda_runtime", "cudaMemcpyAsync", t + 610, 20, correlation=corr)
        x("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", t + 640, 20, pid=0, tid=7, device=0, stream=7,
          correlation=corr)
        for k, (l, ks, kd) in enumerate([(700, 710, 90), (720, 800, 80), (740, 880, 110)]):
            corr += 1
            x("cpu_op", "aten::mm", t + l - 1, 7)
            x("cuda_runtime", "cudaLaunchKernel", t + l, 5, correlation=corr)
            x("kernel", "void gemm_kernel<float>(float const*, float*)", t + ks, kd, pid=0, tid=7, device=0,
              stream=7, correlation=corr)
    x("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 4200, 100, tid=2)
    import json
    with open(sys.argv[1], "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": ev}, f, indent=1)


if __name__ == "__main__":
    main()
