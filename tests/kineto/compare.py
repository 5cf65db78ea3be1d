#!/usr/bin/env python3
"""compare.py -- waterfall's idle breakdown per stream against HTA's.

    python3 compare.py WATERFALL EXPECTED [ROOT]

EXPECTED is hta_expect.py's output; each trace named there is read from
ROOT (default: EXPECTED's folder) by `waterfall analyze --json`, and each
stream's host_wait, kernel_wait and other must equal HTA's to HTA's
rounding (two decimals of a µs: within 0.005 µs, plus a float's error).
A trace HTA refused is left out.

Per rank, HTA's temporal breakdown (hta_expect.py's `temporal` lines)
against waterfall's per-device utilization (runs[].devices[]: one run per
file, one device per rank): waterfall's busy_s and window_s must equal
HTA's own figure on the same events, ops_exact (HTA's
_get_idle_time_for_kernels on HTA's dataframe of the trace's kernels,
memcpys and memsets, its last-ProfilerStep filter and its ns rounding
left out), to the error of HTA's doubles (hta_expect.py's BOUND and ULP;
exact where the times are whole µs).  HTA's own temporal figure is
printed beside it with the difference and its reason, found from the
figures in between: the events (HTA's temporal breakdown takes every event with a stream,
and none without one), the last-ProfilerStep filter, the ns rounding.
A line per rank:

    temporal TRACE rank R: HTA U_hta, waterfall U_wf (HTA on the same
        events U_exact: equal|DIFFERS), HTA on its kernels only U_steps;
        HTA - waterfall D: REASONS

Exit 0: all equal; 1: a difference (each printed); 2: waterfall failed
on a trace.
"""
import json
import os
import subprocess
import sys

TOL_US = 0.0051


def analysis_of(waterfall, path, memo={}):
    if path not in memo:
        out = subprocess.run([waterfall, "analyze", "--json", "--no-progress", path], capture_output=True, text=True)
        if out.returncode not in (0, 4):  # 4: device operations skipped, counted
            print(f"waterfall failed on {path}: {out.stderr.strip()}")
            sys.exit(2)
        memo[path] = json.loads(out.stdout)
    return memo[path]


def streams_of(waterfall, path):
    d = analysis_of(waterfall, path)
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


def figure(v):
    """hta_expect.py's U,IDLE,SPAN,N[,BOUND,ULP]: a dict, None for none."""
    if v == "none":
        return None
    x = v.split(",")
    f = {"util": float(x[0]), "idle": float(x[1]), "span": float(x[2]), "n": int(x[3])}
    f["busy"] = f["span"] - f["idle"]
    if len(x) > 5:
        f["bound"], f["ulp"] = int(x[4]), float(x[5])
    return f


def same(a, b):
    return a is not None and b is not None and a["n"] == b["n"] and a["idle"] == b["idle"] and a["span"] == b["span"]


def reasons(f, extra):
    """Why HTA's temporal figure is not the one on the same events: each
    step from one to the other that changes it."""
    why = []
    hta, steps, all_, exact = f["hta"], f["ops_steps"], f["ops_all"], f["ops_exact"]
    if hta is None:
        return ["HTA's temporal breakdown fails on this trace"]
    if not same(hta, steps):
        kinds = [k for k in extra if not k.startswith("no-stream-ops")]
        if kinds:
            why.append("HTA's temporal breakdown takes every event with a stream, also " + ", ".join(kinds).replace(":", " x"))
        for k in extra:
            if k.startswith("no-stream-ops"):
                why.append(f"HTA's temporal breakdown leaves out {k.split(':')[1].lstrip('-')} device operations with no stream")
        if not why:
            why.append("HTA's events differ from its kernels (no other category named)")
    if not same(steps, all_) and steps is not None and all_ is not None:
        why.append(
            f"HTA's loader keeps {steps['n']} of {all_['n']} operations (_filter_irrelevant_gpu_kernels: those "
            "launched before the last ProfilerStep began)"
        )
    if not same(all_, exact) and all_ is not None and exact is not None:
        why.append("HTA rounds ns-resolution times to the µs (starts up, ends down)")
    return why


def temporal(waterfall, root, line):
    """One rank's temporal line: (printed line, 0 equal / 1 a difference)."""
    w = line.split()
    name, rank = w[0], w[1]
    kv = dict(x.split("=", 1) for x in w[3:])
    f = {k: figure(kv[k]) for k in ("hta", "ops_steps", "ops_all", "ops_exact")}
    extra = [] if kv["extra"] == "-" else kv["extra"].split(",")
    runs = analysis_of(waterfall, os.path.join(root, name))["runs"]
    devs = [dv for r in runs for dv in r["devices"]]
    head = f"temporal {name} rank {rank}:"
    if len(devs) != 1:
        return f"{head} waterfall has {len(devs)} devices for HTA's one rank: not compared", 1
    dv = devs[0]
    ex = f["ops_exact"]
    if ex is None:
        return f"{head} HTA gives no figure of its device operations: not compared", 1
    busy, window = dv["busy_s"] * 1e6, dv["window_s"] * 1e6
    # HTA's doubles: its busy off by up to BOUND ulps, its span by 2;
    # waterfall's JSON has 9 significant digits (1e-8 relative, and 1e-6 µs)
    tol_b = ex["bound"] * ex["ulp"] + busy * 1e-8 + 1e-6
    tol_w = 2 * ex["ulp"] + window * 1e-8 + 1e-6
    eq = abs(busy - ex["busy"]) <= tol_b and abs(window - ex["span"]) <= tol_w and ex["n"] == dv["units"]
    util = dv["utilization"]
    hta = f["hta"]
    steps = f["ops_steps"]
    fmt = lambda g: "none" if g is None else f"{g['util'] * 100:.4f}%"
    why = reasons(f, extra)
    diff = "" if hta is None else f"; HTA - waterfall {(hta['util'] - util) * 100:+.4f} points"
    out = (
        f"{head} HTA {fmt(hta)}, waterfall {util * 100:.4f}% (HTA on the same events {fmt(ex)}: "
        f"{'equal' if eq else 'DIFFERS'}), HTA on its kernels only {fmt(steps)}{diff}: "
        + ("; ".join(why) if why else "the same figure")
    )
    if not eq:
        out += (
            f"\n  busy: waterfall {busy:.3f} us, HTA {ex['busy']:.3f} us (+-{tol_b:.3f}); window: waterfall "
            f"{window:.3f} us, HTA {ex['span']:.3f} us (+-{tol_w:.3f}); operations: waterfall {dv['units']}, HTA {ex['n']}"
        )
    return out, 0 if eq else 1


def main():
    waterfall, expected = sys.argv[1], sys.argv[2]
    root = sys.argv[3] if len(sys.argv) > 3 else os.path.dirname(os.path.abspath(expected))
    cache = {}
    bad = checked = ranks = 0
    for line in open(expected):
        f = line.split()
        if len(f) > 2 and f[2] == "temporal":
            out, b = temporal(waterfall, root, line)
            print(out)
            bad += b
            ranks += 1
            continue
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
    print(f"compare: {checked} stream figures of {len(cache)} traces and {ranks} ranks' utilization, {bad} differences")
    sys.exit(1 if bad or not checked else 0)


if __name__ == "__main__":
    main()
