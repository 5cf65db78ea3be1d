#!/usr/bin/env python3
"""cmp_watch.py -- does watch's last JSON line equal analyze on the whole log?

Usage: cmp_watch.py ANALYZE.json WATCH.jsonl [--allow-late]

Compares the settled totals (busy, idle, idle by cause, units completed,
each stage's count and sum, kernel time by device) of watch's last line
with the sums over the runs of `analyze --json`, and its bottleneck with
the last run's.  Times are compared to the nanosecond (both print
exact decimal seconds; 1e-6 relative covers the JSON's 9 significant
digits on big sums).  watch is exact when no record came behind its
horizon (late == 0); with --allow-late, a line with late > 0 is not
compared (only its own invariants are checked).  A native trace followed
while written is compared as exactly: watch feeds it again with its final
clock conversion when the recorder closes it (follow_wft.h).  Prints what
differs; exit status 1 when something does.
"""
import json
import sys


REL = 1e-6


def close(a, b, units=0):
    return abs(a - b) <= 1e-9 + REL * max(abs(a), abs(b))


def main():
    a = json.load(open(sys.argv[1]))
    lines = [l for l in open(sys.argv[2]) if l.strip()]
    if not lines:
        print("watch printed nothing")
        return 1
    w = json.loads(lines[-1])
    bad = []
    causes = ["prep", "queue", "synthesis", "no_work"]
    # invariants of watch's own figures
    if not close(w["idle_s"], sum(w["idle_by_cause"][c] for c in causes)):
        bad.append("idle is not the sum of its causes")
    for d in w["devices"]:
        if not close(d["idle_s"], sum(d["idle_by_cause"][c] for c in causes)):
            bad.append("device %d: idle is not the sum of its causes" % d["device"])
    if w["late"] and "--allow-late" in sys.argv:
        for b in bad:
            print(b)
        return 1 if bad else 0
    runs = a["runs"]
    want = {
        "busy_s": sum(r["busy_s"] or 0 for r in runs),
        "idle_s": sum(r["idle_s"] or 0 for r in runs),
        "units_completed": sum(r["units"] - r["in_flight"] - r["inconsistent_units"] for r in runs),
        "runs": len(runs),
    }
    for c in causes:
        want["idle " + c] = sum((r["idle_by_cause"] or {}).get(c) or 0 for r in runs)
    got = dict(w)
    got["runs"] = w["runs"]
    for c in causes:
        got["idle " + c] = w["idle_by_cause"][c]
    for k, v in want.items():
        if not close(v, got[k]):
            bad.append("%s: analyze %r, watch %r" % (k, v, got[k]))
    # the units the daemon had not finished stay in flight: the last run's
    # (a restart ends the runs before it)
    if runs and w.get("in_flight") is not None:
        wf = sum(w["in_flight"].values())
        if wf != runs[-1]["in_flight"]:
            bad.append("in flight: analyze %d (last run), watch %d" % (runs[-1]["in_flight"], wf))
    for s in ["synthesis", "handoff", "queue", "prep", "gpu"]:
        n = sum(r["stages"][s]["count"] for r in runs)
        tot = sum(r["stages"][s]["count"] * (r["stages"][s]["mean_s"] or 0) for r in runs)
        if n != w["stages"][s]["count"] or not close(tot, w["stages"][s]["sum_s"], n):
            bad.append("stage %s: analyze %d, %r s; watch %d, %r s" % (s, n, tot, w["stages"][s]["count"],
                                                                      w["stages"][s]["sum_s"]))
    # kernel time by device, where the log has kernel phases
    kern = {}
    for r in runs:
        for d in r["devices"]:
            if d.get("kernel_busy_s") is not None:
                kern[d["device"]] = kern.get(d["device"], 0) + d["kernel_busy_s"]
    wk = {d["device"]: d.get("kernel_busy_s") for d in w["devices"]}
    for dev, k in kern.items():
        if wk.get(dev) is None or not close(k, wk[dev]):
            bad.append("device %d kernel: analyze %r, watch %r" % (dev, k, wk.get(dev)))
    for dev, k in wk.items():  # a kernel time analyze does not know (too few calls given) is not watch's either
        if k is not None and dev not in kern:
            bad.append("device %d kernel: analyze None, watch %r" % (dev, k))
    # the bottleneck now: analyze's rule on the current (last) run's totals;
    # not where analyze judged the CPU from a native trace's samples, which
    # watch does not read (docs/live.md, "Limits")
    samples = runs and (runs[-1].get("cpu") or {}).get("source") == "samples"
    if runs and not samples and w.get("bottleneck") != runs[-1]["bottleneck"]:
        bad.append("bottleneck: analyze %r (last run), watch %r" % (runs[-1]["bottleneck"], w.get("bottleneck")))
    if w["late"]:
        bad.append("%d records came behind the horizon" % w["late"])
    for b in bad:
        print(b)
    return 1 if bad else 0


sys.exit(main())
