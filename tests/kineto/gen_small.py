#!/usr/bin/env python3
"""gen_small.py -- small Kineto traces with a truth worked out by hand.

    python3 gen_small.py OUTDIR

writes OUTDIR/obj.json (Kineto's object form, rank 3, two devices),
OUTDIR/arr.json (the same events as Chrome's bare array: no rank),
OUTDIR/ns.json (times with sub-µs digits: HTA rounds them).

The truth (µs), stream by stream, gaps as HTA's rule takes them:

device 0, stream 7: kernels [100,110] launched at 90; [115,120] launched
  at 95 (before 110: no host wait; gap 5 < 30: kernel_wait 5); [200,210]
  launched at 150 (after 120: host_wait 80); [260,270] launched at 205
  (before 210; gap 50: other 50).  busy 35.
device 0, stream 8: a memcpy [100,150] launched at 80; a memset [160,170]
  launched at 155 (after 150: host_wait 10).  busy 60.
device 0: busy the union [100,150] [160,170] [200,210] [260,270] = 80 of
  a window [100,270] = 170: utilization 80/170.
device 1, stream 9: kernels [300,340] and [345,350], the second with no
  launch in the trace (no host wait: kernel_wait 5).  busy 45, window 50.
Also: a cpu_op, two ac2g flows, a process_name metadata event, an unknown
phase "Z", a cuda_sync, and a kernel with no dur: 6 ignored, 1 skipped.
Launches: 6 cuda_runtime calls, 1 cuda_driver: 7 (and 22 events).

ns.json, device 0 stream 7: [10.2, 20.7] launched at 5.5; [21.4, 30.0]
  launched at 20.9.  HTA rounds: [11, 20], [22, 30]; launch 21 > 20:
  host_wait 2 µs (exact times would give 0.7).  busy 10.5 + 8.6 = 19.1 µs.
"""
import json
import os
import sys


def k(cat, ts, dur, dev, stream, corr, name="k"):
    return {"ph": "X", "cat": cat, "name": name, "pid": dev, "tid": stream, "ts": ts, "dur": dur,
            "args": {"device": dev, "stream": stream, "correlation": corr, "External id": corr}}


def launch(ts, corr, cat="cuda_runtime"):
    return {"ph": "X", "cat": cat, "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ts, "dur": 4,
            "args": {"correlation": corr, "External id": corr}}


def events():
    return [
        {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python"}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 85, "dur": 100,
         "args": {"External id": 1}},
        launch(90, 1), launch(95, 2), launch(150, 3), launch(205, 4), launch(80, 5, "cuda_driver"), launch(155, 6),
        {"ph": "s", "cat": "ac2g", "id": 1, "pid": 1, "tid": 1, "ts": 90},
        {"ph": "f", "cat": "ac2g", "id": 1, "pid": 0, "tid": 7, "ts": 100, "bp": "e"},
        k("kernel", 100, 10, 0, 7, 1), k("kernel", 115, 5, 0, 7, 2), k("kernel", 200, 10, 0, 7, 3),
        k("kernel", 260, 10, 0, 7, 4),
        k("gpu_memcpy", 100, 50, 0, 8, 5, "Memcpy HtoD"), k("gpu_memset", 160, 10, 0, 8, 6, "Memset"),
        launch(290, 7), k("kernel", 300, 40, 1, 9, 7), k("kernel", 345, 5, 1, 9, 8),
        {"ph": "Z", "cat": "mystery", "name": "?", "pid": 1, "tid": 1, "ts": 5},
        {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0, "tid": 7, "ts": 280, "dur": 1,
         "args": {"device": 0, "stream": -1, "correlation": 99}},
        {"ph": "X", "cat": "kernel", "name": "no dur", "pid": 0, "tid": 7, "ts": 400,
         "args": {"device": 0, "stream": 7, "correlation": 9}},
    ]


def main():
    out = sys.argv[1]
    obj = {"schemaVersion": 1, "deviceProperties": [{"id": 0}, {"id": 1}],
           "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 4},
           "traceEvents": events(), "traceName": "hand.json"}
    with open(os.path.join(out, "obj.json"), "w") as f:
        json.dump(obj, f, indent=1)
    with open(os.path.join(out, "arr.json"), "w") as f:
        json.dump(events(), f)
    ns = {"schemaVersion": 1, "traceEvents": [
        launch(5.5, 1), launch(20.9, 2), k("kernel", 10.2, 10.5, 0, 7, 1), k("kernel", 21.4, 8.6, 0, 7, 2)]}
    with open(os.path.join(out, "ns.json"), "w") as f:
        json.dump(ns, f)


if __name__ == "__main__":
    main()
