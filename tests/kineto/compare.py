#!/usr/bin/env python3
"""compare.py -- waterfall's idle breakdown per stream against HTA's.

    python3 compare.py WATERFALL EXPECTED [ROOT]

EXPECTED is hta_expect.py's output; each trace named there is read from
ROOT (default: EXPECTED's folder) by `waterfall analyze --json`, and each
stream's host_wait, kernel_wait and other must equal HTA's to HTA's
rounding (two decimals of a µs: within 0.005 µs, plus a float's error).
A trace HTA refused is left out.  Exit 0: all equal; 1: a difference
(each printed); 2: waterfall failed on a trace.
"""
import json
import os
import subprocess
import sys

TOL_US = 0.0051


def streams_of(waterfall, path):
    out = subprocess.run([waterfall, "analyze", "--json", "--no-progress", path], capture_output=True, text=True)
    if out.returncode != 0:
        print(f"waterfall failed on {path}: {out.stderr.strip()}")
        sys.exit(2)
    d = json.loads(out.stdout)
    by = {}
    for run in d["runs"]:
        for dev in run["devices"]:
            for s in dev["streams"]:
                # HTA's breakdown is per stream of a rank; a stream number on
                # two devices would be two of ours: kept apart, flagged
                if s["stream"] in by:
                    by[s["stream"]] = None
                else:
                    by[s["stream"]] = s
    return by


def main():
    waterfall, expected = sys.argv[1], sys.argv[2]
    root = sys.argv[3] if len(sys.argv) > 3 else os.path.dirname(os.path.abspath(expected))
    cache = {}
    bad = checked = 0
    for line in open(expected):
        f = line.split()
        if len(f) < 3 or f[1] == "refused":
            continue
        name, stream = f[0], int(f[3])
        want = {f[4]: float(f[5]), f[6]: float(f[7]), f[8]: float(f[9])}
        if name not in cache:
            cache[name] = streams_of(waterfall, os.path.join(root, name))
        s = cache[name].get(stream)
        if s is None:
            print(f"{name} stream {stream}: HTA has it, waterfall has {'it on two devices' if stream in cache[name] else 'none'}")
            bad += 1
            continue
        for cat, hta in want.items():
            ours = s[cat + "_s"] * 1e6
            checked += 1
            if abs(ours - hta) > TOL_US:
                print(f"{name} stream {stream} {cat}: waterfall {ours:.3f} us, HTA {hta:.2f} us")
                bad += 1
    print(f"compare: {checked} figures of {len(cache)} traces, {bad} differences")
    sys.exit(1 if bad or not checked else 0)


if __name__ == "__main__":
    main()
