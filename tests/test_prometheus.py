#!/usr/bin/env python3
"""test_prometheus.py -- `waterfall watch --listen` with a real Prometheus.

Usage: test_prometheus.py WATERFALL REPO_ROOT

Three stand-in daemons (tests/standin_daemon.py) write their logs in real
time, as three hosts, the first rotating its log half way.  Each is
followed by `waterfall watch --listen 127.0.0.1:PORT`; a real Prometheus
(Debian's) on 127.0.0.1 scrapes the three every second and evaluates the
fleet's rules (prometheus/waterfall.rules.yml).  Once the daemons are done
and every watcher has settled, Prometheus's HTTP API must give, for each
host, the busy time by device, the idle time by cause and the units that
`analyze` gives on that host's whole log (the rotated file and the new
one), to the nanosecond; the fleet sums must be the sums over the hosts;
and the fleet's recorded utilization must be the sum of busy over the sum
of busy and idle, not a mean of the hosts' ratios.  The metrics pass
`promtool check metrics`.  Everything listens on loopback only, is bounded
in time, and is stopped by its pid.  Exit 77 (skipped) without prometheus.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

W, ROOT = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
CAUSES = ["prep", "queue", "synthesis", "no_work"]
fails = []
passes = 0


def check(cond, what):
    global passes
    if cond:
        passes += 1
    else:
        fails.append(what)
        print("FAIL: " + what, file=sys.stderr)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def wait_for(what, pred, limit):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            if pred():
                return True
        except Exception:
            pass
        time.sleep(0.25)
    check(False, "timed out waiting for " + what)
    return False


def metrics_of(port):
    """The watcher's /metrics as {name{labels}: value}."""
    out = {}
    for line in get("http://127.0.0.1:%d/metrics" % port).splitlines():
        if line and not line.startswith("#"):
            k, v = line.rsplit(" ", 1)
            out[k] = float(v)
    return out


def analyze(paths):
    text = b"".join(open(p, "rb").read() for p in paths if os.path.exists(p))
    r = subprocess.run([W, "analyze", "--json", "-"], input=text, capture_output=True)
    a = json.loads(r.stdout)
    busy, idle, units = {}, {}, 0
    for run in a["runs"]:
        units += run["units"] - run["in_flight"] - run["inconsistent_units"]
        for d in run["devices"]:
            busy[str(d["device"])] = busy.get(str(d["device"]), 0) + d["busy_s"]
            for c in CAUSES:
                key = (str(d["device"]), c)
                idle[key] = idle.get(key, 0) + (d["idle_by_cause"] or {}).get(c, 0)
    return busy, idle, units


def query(prom, expr):
    url = "http://127.0.0.1:%d/api/v1/query?%s" % (prom, urllib.parse.urlencode({"query": expr}))
    r = json.loads(get(url))
    assert r["status"] == "success", r
    return r["data"]["result"]


def close(a, b):
    return abs(a - b) <= 1e-9 + 1e-9 * max(abs(a), abs(b))


def main():
    if not shutil.which("prometheus"):
        print("test_prometheus: skipped: no prometheus (Debian's package prometheus)")
        return 77
    T = tempfile.mkdtemp()
    procs = []
    try:
        return run(T, procs)
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        shutil.rmtree(T, ignore_errors=True)


def run(T, procs):
    hosts = [
        {"log": os.path.join(T, "host1.log"), "args": ["--units", "50", "--seed", "3", "--gpus", "2", "--rotate"]},
        {"log": os.path.join(T, "host2.log"), "args": ["--units", "40", "--seed", "4"]},
        {"log": os.path.join(T, "host3.log"), "args": ["--units", "30", "--seed", "5", "--gpus", "2"]},
    ]
    for h in hosts:
        h["port"] = free_port()
        h["watch"] = subprocess.Popen([W, "watch", "--json-lines", "--interval", "0.2", "--quiet", "1",
                                       "--listen", "127.0.0.1:%d" % h["port"], h["log"]],
                                      stdout=subprocess.DEVNULL, stderr=open(h["log"] + ".err", "w"))
        procs.append(h["watch"])
    prom_port = free_port()
    rules = os.path.join(ROOT, "prometheus", "waterfall.rules.yml")
    with open(os.path.join(T, "prom.yml"), "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                "rule_files:\n  - %s\n"
                "scrape_configs:\n  - job_name: waterfall\n    static_configs:\n      - targets: [%s]\n"
                % (rules, ", ".join("'127.0.0.1:%d'" % h["port"] for h in hosts)))
    prom = subprocess.Popen(["prometheus", "--config.file=" + os.path.join(T, "prom.yml"),
                             "--storage.tsdb.path=" + os.path.join(T, "tsdb"),
                             "--web.listen-address=127.0.0.1:%d" % prom_port, "--log.level=warn"],
                            stdout=subprocess.DEVNULL, stderr=open(os.path.join(T, "prom.err"), "w"))
    procs.append(prom)
    wait_for("prometheus to start", lambda: "Ready" in get("http://127.0.0.1:%d/-/ready" % prom_port), 60)
    # its first scrapes come a few seconds later: the daemons start once
    # every watcher has been scraped, so the counters grow under its eyes
    wait_for("prometheus to scrape the three watchers",
             lambda: len([r for r in query(prom_port, 'up{job="waterfall"} == 1')]) == 3, 60)
    # the daemons write in real time (about 8 s), while Prometheus scrapes
    daemons = [subprocess.Popen([sys.executable, os.path.join(HERE, "standin_daemon.py"), h["log"], "--speed", "2"]
                                + h["args"]) for h in hosts]
    procs.extend(daemons)
    for d in daemons:
        d.wait(timeout=120)
    for h in hosts:
        h["busy"], h["idle"], h["units"] = analyze([h["log"] + ".1", h["log"]])
        wait_for("watcher %d to settle" % h["port"],
                 lambda: metrics_of(h["port"]).get("waterfall_units_completed_total") == h["units"], 60)
        m = metrics_of(h["port"])
        for dev, b in h["busy"].items():
            check(close(m.get('waterfall_gpu_busy_seconds_total{device="%s"}' % dev, -1), b),
                  "host %s device %s: /metrics busy differs from analyze's %r" % (h["log"], dev, b))
    # promtool accepts the exposition
    if shutil.which("promtool"):
        text = get("http://127.0.0.1:%d/metrics" % hosts[0]["port"])
        r = subprocess.run(["promtool", "check", "metrics"], input=text.encode(), capture_output=True)
        check(r.returncode == 0, "promtool check metrics: " + (r.stdout + r.stderr).decode())
    # Prometheus has scraped the settled figures
    for h in hosts:
        inst = "127.0.0.1:%d" % h["port"]
        wait_for("prometheus to scrape " + inst,
                 lambda: float(query(prom_port, 'waterfall_units_completed_total{instance="%s"}' % inst)[0]["value"][1])
                 == h["units"], 30)
        got = {r["metric"]["device"]: float(r["value"][1])
               for r in query(prom_port, 'waterfall_gpu_busy_seconds_total{instance="%s"}' % inst)}
        check(set(got) == set(h["busy"]), "host %s: devices %s in Prometheus, %s in analyze" % (inst, sorted(got), sorted(h["busy"])))
        for dev, b in h["busy"].items():
            check(close(got.get(dev, -1), b), "host %s device %s: busy %r in Prometheus, %r by analyze" % (inst, dev, got.get(dev), b))
        for r in query(prom_port, 'waterfall_gpu_idle_seconds_total{instance="%s"}' % inst):
            key = (r["metric"]["device"], r["metric"]["cause"])
            check(close(float(r["value"][1]), h["idle"].get(key, 0)),
                  "host %s device %s idle %s: %s in Prometheus, %r by analyze" % (inst, key[0], key[1], r["value"][1], h["idle"].get(key, 0)))
    # the fleet: sums over the hosts
    fleet_busy = sum(sum(h["busy"].values()) for h in hosts)
    v = float(query(prom_port, "sum(waterfall_gpu_busy_seconds_total)")[0]["value"][1])
    check(close(v, fleet_busy), "fleet busy %r, hosts sum to %r" % (v, fleet_busy))
    for c in CAUSES:
        want = sum(x for h in hosts for (d, cc), x in h["idle"].items() if cc == c)
        r = query(prom_port, 'sum(waterfall_gpu_idle_seconds_total{cause="%s"})' % c)
        check(close(float(r[0]["value"][1]), want), "fleet idle %s %s, hosts sum to %r" % (c, r[0]["value"][1], want))
    units = float(query(prom_port, "sum(waterfall_units_completed_total)")[0]["value"][1])
    check(units == sum(h["units"] for h in hosts), "fleet units %r" % units)
    # the recorded fleet utilization: the sum of busy over the sum of busy
    # and idle (the rates recorded at the same evaluation), not a mean of
    # the hosts' ratios
    def rules_at():
        t = "%.3f" % time.time()
        def at(expr):
            url = "http://127.0.0.1:%d/api/v1/query?%s" % (prom_port, urllib.parse.urlencode({"query": expr, "time": t}))
            return [float(r["value"][1]) for r in json.loads(get(url))["data"]["result"]]
        return (at("job:waterfall_gpu_utilization:ratio_rate5m"),
                at("sum(instance_device:waterfall_gpu_busy_seconds:rate5m) / sum(instance_device:waterfall_gpu_window_seconds:rate5m)"),
                at("instance:waterfall_gpu_utilization:ratio_rate5m"))
    got = []
    wait_for("the fleet's rules for the three hosts",
             lambda: got.append(rules_at()) or (len(got[-1][0]) == 1 and len(got[-1][1]) == 1 and len(got[-1][2]) == 3), 30)
    fleet, ratio, per = got[-1] if got else ([], [], [])
    if fleet and ratio and len(per) == 3:
        check(abs(fleet[0] - ratio[0]) < 1e-12, "fleet utilization %r, sum busy / sum window %r" % (fleet[0], ratio[0]))
        check(min(per) <= fleet[0] <= max(per), "fleet %r outside the hosts' %r" % (fleet[0], per))
        check(abs(sum(per) / 3 - fleet[0]) > 1e-9 or max(per) - min(per) < 1e-9,
              "fleet utilization %r is the hosts' mean" % fleet[0])
    print("test_prometheus: %d passed, %d failed" % (passes, len(fails)))
    return 1 if fails else 0


sys.exit(main())
