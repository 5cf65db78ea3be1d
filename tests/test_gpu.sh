#!/bin/sh
# test_gpu.sh -- GPU sampling without a GPU (docs/gpu.md): what a trace
# says when there is no driver, no device, or sampling is off, and the
# recorder's NVML path end to end against tests/fake_nvml.c, a STAND-IN
# for the driver (it is not a GPU: its figures are scripted).  The real
# driver is checked on a GPU machine by tests/gpu/run.sh.
# Usage: test_gpu.sh WATERFALL DEMO_RECORD FAKE_NVML_SO
W="$1"
REC="$2"
FAKE="$3"
. "$(dirname "$0")/lib.sh"

# record NAME [VAR=VALUE...]: demo_record's pipeline (12 jobs, ~0.4 s)
# into $T/NAME.wft, its dump --stats into $T/NAME.stats.
record() {
    name=$1
    shift
    env "$@" "$REC" "$T/$name.wft" 12 >/dev/null 2>"$T/$name.rec.err" || bad "$name: demo_record failed: $(cat "$T/$name.rec.err")"
    "$W" dump --stats "$T/$name.wft" 2>"$T/$name.stats" || bad "$name: dump --stats failed: $(cat "$T/$name.stats")"
}
gpu_line() { grep '^gpu:' "$T/$1.stats"; }
json() { "$W" analyze --json "$T/$1.wft" 2>/dev/null; }
# driver NAME: the run's driver_utilization and driver_source ("none" without)
driver() {
    json "$1" | python3 -c 'import json,sys
r=json.load(sys.stdin)["runs"][0]
print(r.get("driver_utilization","none"), r.get("driver_source","none"))'
}

# No driver: one clear line, and analyze as without sampling.
record nolib WATERFALL_NVML_LIB=/nonexistent/libnvidia-ml.so.1
[ "$(gpu_line nolib)" = "gpu:       no NVML: /nonexistent/libnvidia-ml.so.1 not found" ] && ok ||
    bad "no driver: gpu line is '$(gpu_line nolib)'"
[ "$(driver nolib)" = "none none" ] && ok || bad "no driver: analyze reports a driver figure: $(driver nolib)"
"$W" analyze "$T/nolib.wft" 2>/dev/null | grep -q 'driver util' && bad "no driver: a driver line in analyze" || ok
[ -s "$T/nolib.rec.err" ] && bad "no driver: the recorder printed: $(cat "$T/nolib.rec.err")" || ok
grep -q '^units: *12$' "$T/nolib.stats" && ok || bad "no driver: not 12 units: $(grep units "$T/nolib.stats")"

# Sampling off.
record off WATERFALL_GPU=0 WATERFALL_NVML_LIB="$FAKE"
[ "$(gpu_line off)" = "gpu:       not sampled (recorded with WATERFALL_GPU=0)" ] && ok ||
    bad "WATERFALL_GPU=0: gpu line is '$(gpu_line off)'"

# A library that is not NVML (lacks its functions).
record notnvml WATERFALL_NVML_LIB=libm.so.6
gpu_line notnvml | grep -q '^gpu:       no NVML: libm.so.6 lacks nvmlInit_v2$' && ok ||
    bad "not NVML: gpu line is '$(gpu_line notnvml)'"

# The driver loads but fails, or sees no device.
record initfail WATERFALL_NVML_LIB="$FAKE" FAKE_NVML_MODE=initfail
gpu_line initfail | grep -q '^gpu:       no NVML: nvmlInit_v2 failed: Unknown Error' && ok ||
    bad "init fails: gpu line is '$(gpu_line initfail)'"
record nodev WATERFALL_NVML_LIB="$FAKE" FAKE_NVML_MODE=nodev
gpu_line nodev | grep -q '^gpu:       no device: NVML (driver stand-in 0.0) sees none$' && ok ||
    bad "no device: gpu line is '$(gpu_line nodev)'"
[ "$(driver nodev)" = "none none" ] && ok || bad "no device: analyze reports a driver figure"

# The stand-in's device at a 40% duty cycle: the driver's series.
record series WATERFALL_NVML_LIB="$FAKE" FAKE_NVML_DUTY=40
gpu_line series | grep -q '^gpu:       sampled by NVML (driver stand-in 0.0), 1 device$' && ok ||
    bad "series: gpu line is '$(gpu_line series)'"
grep -q '^  device 0: stand-in (tests/fake_nvml.c, not a GPU), GPU-0*-0000-0000-0000-0*; driver series kept, [0-9]* samples (mean 40.0%); [0-9]* rate readings (mean 40.0%); SM clock 1980-1980 MHz$' \
    "$T/series.stats" && ok || bad "series: device line: $(grep '^  device' "$T/series.stats")"
[ "$(driver series)" = "0.4 nvml_samples" ] && ok || bad "series: analyze says $(driver series), not 0.4 nvml_samples"
"$W" analyze "$T/series.wft" 2>/dev/null | grep -q "^  driver util\. *40\.0%  NVML's utilization samples over the same window" && ok ||
    bad "series: no driver line in analyze: $("$W" analyze "$T/series.wft" 2>&1 | head -20)"
json series | python3 -c 'import json,sys
d=json.load(sys.stdin)["runs"][0]["devices"][0]
assert d["driver_utilization"]==0.4 and 0<d["driver_coverage"]<=1 and d["driver_readings"]>=5, d' && ok ||
    bad "series: device JSON lacks the driver figures"

# No series: the utilization rate read every 100 ms.
record rates WATERFALL_NVML_LIB="$FAKE" FAKE_NVML_MODE=noseries FAKE_NVML_DUTY=75
grep -q '^  device 0: .*; driver series not kept; [0-9]* rate readings (mean 75.0%)' "$T/rates.stats" && ok ||
    bad "rates: device line: $(grep '^  device' "$T/rates.stats")"
[ "$(driver rates)" = "0.75 nvml_rates" ] && ok || bad "rates: analyze says $(driver rates), not 0.75 nvml_rates"

# A driver slow to start (2 s in nvmlInit_v2): NVML is loaded on a thread
# of its own, so the writer drains the rings meanwhile: the 0.4 s of marks
# go out in several EVENTS records (one a flush period) before the GPU
# record (a writer that waited for NVML holds them all, at most one record
# before); and sampling still starts.
record slow WATERFALL_NVML_LIB="$FAKE" FAKE_NVML_INIT_MS=2000
order=$(python3 - "$T/slow.wft" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
off, before = struct.unpack_from("<I", d, 12)[0], 0
while off + 16 <= len(d):
    size, typ = struct.unpack_from("<IH", d, off)
    if size < 16 or size % 8 or typ == 10:
        break
    before += typ == 4
    off += size
print(before)
PY
)
[ "$order" -ge 3 ] && ok || bad "slow driver: $order EVENTS records before the GPU record: the writer waited for NVML"
gpu_line slow | grep -q '^gpu:       sampled by NVML' && ok || bad "slow driver: gpu line is '$(gpu_line slow)'"
grep -q '^lost: *0' "$T/slow.stats" && ok || bad "slow driver: events lost: $(grep '^lost' "$T/slow.stats")"

# The analysis is otherwise the one without sampling: same units, same events.
for n in series rates; do
    "$W" dump "$T/$n.wft" >/dev/null 2>"$T/$n.dump.err" && [ ! -s "$T/$n.dump.err" ] && ok ||
        bad "$n: dump warned: $(cat "$T/$n.dump.err")"
done

# A driver that never finishes starting: wf_close waits 5 s for it, then
# the trace says so and the program ends.
record hung WATERFALL_NVML_LIB="$FAKE" FAKE_NVML_INIT_MS=60000
gpu_line hung | grep -q '^gpu:       no NVML: nvmlInit_v2 still running at wf_close, after 5 s$' && ok ||
    bad "hung driver: gpu line is '$(gpu_line hung)'"
grep -q '^closed: *yes' "$T/hung.stats" && ok || bad "hung driver: the trace was not closed"

# A trace of format 1.1 (before GPU records), made from one of 1.2: the
# header's minor and flag, and the GPU record left out.
python3 - "$T/nolib.wft" "$T/old.wft" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<H", d, 10, 1)
struct.pack_into("<I", d, 68, struct.unpack_from("<I", d, 68)[0] & ~4)
out, off = d[:256], 256
while off + 16 <= len(d):
    size, typ = struct.unpack_from("<IH", d, off)
    if size < 16 or off + size > len(d):
        break
    if typ != 10:
        out += d[off:off + size]
    off += size
open(sys.argv[2], "wb").write(out)
PY
"$W" dump --stats "$T/old.wft" 2>"$T/old.stats" || bad "format 1.1: dump --stats failed"
[ "$(gpu_line old)" = "gpu:       not sampled (a trace of format 1.1, before GPU sampling)" ] && ok ||
    bad "format 1.1: gpu line is '$(gpu_line old)'"

finish gpu
