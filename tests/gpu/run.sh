#!/bin/sh
# tests/gpu/run.sh -- the device check, for a machine with an NVIDIA GPU
# (docs/gpu.md; not part of `make test`: CI has no GPU).  From the
# repository root:  OUT=/some/dir sh tests/gpu/run.sh
#
# It builds waterfall and tests/gpu/gpu_check.cu (nvcc), runs UNITS units
# of host work around one kernel of known duration each, recorded with
# libwaterfall while the recorder samples the GPU through the real NVML,
# then checks:
#   1. the trace's gpu line says NVML sampled the device;
#   2. host-stamped kernel phases (KERNEL_START before the launch,
#      KERNEL_END after the synchronize) are no shorter than the kernels
#      by CUDA events, and longer by the launch and synchronize only (under
#      KERNEL_SLACK_MS on average);
#   3. the GPU phases are longer than the kernel phases by the host work;
#   4. the driver's utilization (NVML, from the trace) agrees with the
#      kernels' duty cycle by CUDA events, within DUTY_TOL.
# Figures go to $OUT (figures.txt, the trace, dump --stats, analyze); the
# exit status is 0 when every check passed, 1 when one failed, 77 when
# there is no GPU.  It takes about a minute and a half: the build, and
# UNITS x 15 ms (600: 9 s, so that the driver's readings that straddle the
# run's ends weigh little).
set -u
OUT=${OUT:-/tmp/waterfall-gpu-check}
UNITS=${UNITS:-600}
KERNEL_MS=${KERNEL_MS:-10}
HOST_MS=${HOST_MS:-5}
KERNEL_SLACK_MS=${KERNEL_SLACK_MS:-0.2}
DUTY_TOL=${DUTY_TOL:-0.10}
B=${BUILD:-build-gpu}
export CUDA_DEVICE_ORDER=PCI_BUS_ID # CUDA's device 0 is NVML's device 0
mkdir -p "$OUT"
exec 3>&1
log() { echo "gpu check: $*" >&3; }

if ! nvidia-smi -L >"$OUT/devices.txt" 2>&1; then
    log "no GPU here (nvidia-smi -L: $(head -1 "$OUT/devices.txt"))"
    exit 77
fi
log "$(head -1 "$OUT/devices.txt"); driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release >"$OUT/build.log" 2>&1 &&
    cmake --build "$B" -j "$(nproc)" --target waterfall waterfall_static >>"$OUT/build.log" 2>&1 &&
    "$NVCC" -O2 -Iinclude -I"$B/include" tests/gpu/gpu_check.cu "$B/libwaterfall.a" -lpthread -ldl \
        -o "$B/gpu_check" >>"$OUT/build.log" 2>&1 || {
    log "build failed:"
    tail -30 "$OUT/build.log" >&2
    exit 1
}
W="$B/waterfall"
"$B/gpu_check" "$OUT/check.wft" "$UNITS" "$KERNEL_MS" "$HOST_MS" >"$OUT/units.txt" 2>"$OUT/gpu_check.err" || {
    log "gpu_check failed: $(cat "$OUT/gpu_check.err")"
    exit 1
}
"$W" dump --stats "$OUT/check.wft" 2>"$OUT/stats.txt"
"$W" analyze "$OUT/check.wft" >"$OUT/analyze.txt" 2>&1
"$W" analyze --json "$OUT/check.wft" >"$OUT/analyze.json" 2>"$OUT/analyze.err"
"$W" dump -p 6 "$OUT/check.wft" >"$OUT/timeline.log" 2>/dev/null

python3 tests/gpu/check.py "$OUT" "$KERNEL_SLACK_MS" "$DUTY_TOL" | tee "$OUT/figures.txt"
exit "$(tail -1 "$OUT/figures.txt" | grep -q "^passed" && echo 0 || echo 1)"
