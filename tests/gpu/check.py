#!/usr/bin/env python3
"""check.py -- the device check's verdicts (tests/gpu/run.sh): reads what
run.sh left in OUT and prints one line per check and the figures behind it.
Usage: check.py OUT KERNEL_SLACK_MS DUTY_TOL; exit 0 when every check passed."""
import json
import re
import statistics
import sys

out, slack, tol = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
fails = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        fails.append(what)


stats = open(out + "/stats.txt").read()
gpu = [l for l in stats.splitlines() if l.startswith("gpu:") or l.startswith("  device ")]
print("\n".join(gpu))
check(any("sampled by NVML" in l for l in gpu), "1. NVML sampled the device (the trace's gpu line)")

units, kms, hms, khz = [], 0.0, 0.0, 0
for l in open(out + "/units.txt"):
    m = re.match(r"unit (\d+) kernel_ms ([\d.]+) host_kernel_ms ([\d.]+)", l)
    if m:
        units.append((float(m.group(2)), float(m.group(3))))
    m = re.match(r"intended_kernel_ms ([\d.]+) host_ms ([\d.]+) sm_clock_khz (\d+)", l)
    if m:
        kms, hms, khz = float(m.group(1)), float(m.group(2)), int(m.group(3))
if not units:
    print("FAIL  no units in units.txt: gpu_check printed nothing usable\nFAILED: 1 checks")
    sys.exit(1)
dev = [u[0] for u in units]
over = [u[1] - u[0] for u in units]
print("units %d; kernel by CUDA events: mean %.4f ms, min %.4f, max %.4f (intended %.1f ms at %d kHz)"
      % (len(units), statistics.mean(dev), min(dev), max(dev), kms, khz))
print("host-stamped kernel phase minus CUDA events: mean %.4f ms, min %.4f, max %.4f"
      % (statistics.mean(over), min(over), max(over)))
check(min(over) > -0.005, "2a. no host-stamped kernel phase is shorter than its kernel (5 us of clock error allowed)")
check(statistics.mean(over) < slack, "2b. host stamps add under %.2f ms on average (launch + synchronize)" % slack)

# The phases from the trace (dump's TIMELINE lines): GPU and KERNEL per unit.
ev = {}
for l in open(out + "/timeline.log"):
    f = l.rstrip("\n").split(",")
    if len(f) >= 4 and f[0] == "TIMELINE":
        ev.setdefault(f[3], {})[f[2]] = float(f[1])
gpu_ms = [e["GPU_END"] - e["GPU_START"] for e in ev.values() if "GPU_END" in e and "GPU_START" in e]
ker_ms = [e["KERNEL_END"] - e["KERNEL_START"] for e in ev.values() if "KERNEL_END" in e and "KERNEL_START" in e]
if not gpu_ms or not ker_ms:
    gpu_ms, ker_ms = gpu_ms or [0.0], ker_ms or [0.0]
    check(False, "3. the trace has GPU and kernel phases")
extra = statistics.mean(gpu_ms) - statistics.mean(ker_ms)
print("trace: GPU phase mean %.4f ms, kernel phase mean %.4f ms: %.4f ms of host work inside (intended %.1f)"
      % (statistics.mean(gpu_ms), statistics.mean(ker_ms), extra, hms))
check(abs(extra - hms) < 0.5, "3. the GPU phases are longer than the kernel phases by the host work (within 0.5 ms)")

r = json.load(open(out + "/analyze.json"))["runs"][0]
duty = sum(dev) / 1e3 / r["window_s"]
print("analyze: utilization (GPU phases) %.4f, kernel utilization (host-stamped) %s, driver utilization (NVML) %s (%s)"
      % (r["utilization"], r.get("kernel_utilization"), r.get("driver_utilization"), r.get("driver_source")))
print("kernels' duty cycle by CUDA events over the window: %.4f" % duty)
d = r.get("driver_utilization")
check(d is not None and abs(d - duty) <= tol, "4. NVML's utilization is within %.2f of the duty cycle" % tol)
print("passed" if not fails else "FAILED: %d checks" % len(fails))
sys.exit(1 if fails else 0)
