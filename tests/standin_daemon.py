#!/usr/bin/env python3
"""standin_daemon.py -- a proving daemon's log, written in real time.

Usage: standin_daemon.py LOG [--units N] [--seed S] [--speed X]
                             [--gpus G] [--rotate]

It runs a small pipeline in simulation (syntheses two at a time, a channel,
one GPU worker per device, jobs of 1-3 partitions, durations drawn from the
seed) and writes the TIMELINE lines a cuzk-style daemon prints, among other
log lines, each at its own time: log time is the simulation's, wall time
runs X times faster (default 10).  With --rotate, half way through it
rotates its log by rename (LOG -> LOG.1) and reopens LOG, as a daemon does
on logrotate's signal.  Prints nothing; the log is the output.
"""
import argparse
import heapq
import os
import random
import time


def simulate(units, seed, gpus):
    rng = random.Random(seed)
    events = []  # (t_ms, order, line)
    n = 0

    def ev(t, name, job, detail):
        nonlocal n
        events.append((t, n, "TIMELINE,%d,%s,%s,%s" % (t, name, job, detail)))
        n += 1

    todo = []
    j = 0
    while len(todo) < units:
        parts = rng.randint(1, 3)
        for p in range(parts):
            todo.append(("job-%04d" % j, p if parts > 1 else None))
        j += 1
    todo = todo[:units]
    synth_free = [0, 0]  # two syntheses at once
    gpu_free = [0] * gpus
    ready = []  # (ready time, order, unit)
    for k, (job, part) in enumerate(todo):
        detail = "partition=%d" % part if part is not None else ""
        slot = min(range(2), key=lambda s: synth_free[s])
        start = synth_free[slot] + rng.randint(0, 30)
        end = start + rng.randint(150, 400)
        send = end + rng.randint(0, 3)
        synth_free[slot] = send
        ev(start, "SYNTH_START", job, detail)
        ev(end, "SYNTH_END", job, detail)
        ev(send, "CHAN_SEND", job, detail)
        heapq.heappush(ready, (send, k, job, detail))
    while ready:
        send, k, job, detail = heapq.heappop(ready)
        g = min(range(gpus), key=lambda d: gpu_free[d])
        pick = max(send, gpu_free[g]) + rng.randint(0, 2)
        start = pick + rng.randint(5, 40)
        end = start + rng.randint(100, 260)
        gpu_free[g] = end
        sep = "," if detail else ""
        ev(pick, "GPU_PICKUP", job, detail + sep + "worker=%d,gpu=%d" % (g, g))
        ev(start, "GPU_START", job, detail + sep + "worker=%d,gpu=%d" % (g, g))
        ev(end, "GPU_END", job, detail + sep + "worker=%d,gpu=%d" % (g, g))
    events.sort()
    return events


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--units", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--speed", type=float, default=10.0)
    ap.add_argument("--gpus", type=int, default=1)
    ap.add_argument("--rotate", action="store_true")
    a = ap.parse_args()
    events = simulate(a.units, a.seed, a.gpus)
    rng = random.Random(a.seed + 1)
    f = open(a.log, "a")
    t0 = time.monotonic()
    for i, (t, _, line) in enumerate(events):
        if a.rotate and i == len(events) // 2:
            f.close()
            os.rename(a.log, a.log + ".1")
            f = open(a.log, "a")
        wait = t0 + t / 1000.0 / a.speed - time.monotonic()
        if wait > 0:
            f.flush()
            time.sleep(wait)
        if rng.random() < 0.3:
            f.write("2026-12-03T10:00:00.000000Z  INFO cuzk_server: heartbeat queue_depth=%d\n" % rng.randint(0, 9))
        f.write(line + "\n")
    f.close()


main()
