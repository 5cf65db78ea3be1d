#!/usr/bin/env python3
"""gen_big.py -- a large Kineto-like trace for timing and memory.

    python3 gen_big.py OUT.json KERNELS [STREAMS]

KERNELS kernels round-robin over STREAMS streams (default 8) of device 0,
each launched by a cudaLaunchKernel (correlation-joined, with an ac2g flow
pair) inside a cpu_op, the way PyTorch's profiler writes them; times have
three decimals (ns resolution), and every 1000 kernels a ProfilerStep.
Written as a stream: the generator's memory does not grow with KERNELS.
"""
import random
import sys


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    streams = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    rnd = random.Random(1)
    t0 = 1712195495502095.0
    cpu = t0
    gpu_free = [t0] * streams
    with open(out, "w") as f:
        f.write('{\n  "schemaVersion": 1,\n  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},\n'
                '  "traceEvents": [\n')
        first = True
        step_start = cpu
        for i in range(n):
            evs = []
            if i % 1000 == 0:
                if i:
                    evs.append('{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 1, "tid": 1, '
                               '"ts": %.3f, "dur": %.3f, "args": {}}' % (i // 1000, step_start, cpu - step_start))
                step_start = cpu
            s = i % streams
            corr = i + 1
            lt = cpu + rnd.uniform(1, 3)
            ld = rnd.uniform(3, 6)
            kt = max(gpu_free[s] + rnd.uniform(0.5, 5), lt + ld + rnd.uniform(0, 10))
            kd = rnd.uniform(2, 40)
            gpu_free[s] = kt + kd
            cpu = lt + ld + rnd.uniform(0, 8)
            evs.append('{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": %.3f, "dur": %.3f, '
                       '"args": {"External id": %d, "Sequence number": %d}}' % (lt - 1, ld + 2, corr, i))
            evs.append('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, '
                       '"ts": %.3f, "dur": %.3f, "args": {"External id": %d, "cbid": 211, "correlation": %d}}'
                       % (lt, ld, corr, corr))
            evs.append('{"ph": "s", "id": %d, "pid": 1, "tid": 1, "ts": %.3f, "cat": "ac2g", "name": "ac2g"}' % (corr, lt))
            evs.append('{"ph": "X", "cat": "kernel", "name": "void gemm_kernel<float, 128, 64>(float const*, float*)", '
                       '"pid": 0, "tid": %d, "ts": %.3f, "dur": %.3f, "args": {"External id": %d, "queued": 0, '
                       '"device": 0, "context": 1, "stream": %d, "correlation": %d, "registers per thread": 128, '
                       '"shared memory": 0, "blocks per SM": 1.5, "warps per SM": 6, "grid": [216, 1, 1], '
                       '"block": [128, 1, 1], "est. achieved occupancy %%": 12}}' % (7 + s, kt, kd, corr, 7 + s, corr))
            evs.append('{"ph": "f", "id": %d, "pid": 0, "tid": %d, "ts": %.3f, "cat": "ac2g", "name": "ac2g", "bp": "e"}'
                       % (corr, 7 + s, kt))
            for e in evs:
                f.write(("    " if first else ",\n    ") + e)
                first = False
        f.write('\n  ],\n  "traceName": "gen_big"\n}\n')


if __name__ == "__main__":
    main()
