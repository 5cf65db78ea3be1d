#!/bin/sh
# demo.sh -- the README's main job (`make demo`): the story in one command.
#
# The same pipeline runs twice on the embedded default workload: first with
# synthesis strictly in sequence (concurrency 1), then with two syntheses
# at once (a semaphore with 2 permits).  Both runs are traced, analysed,
# and compared; the traces and reports land in demo-out/.
set -e
W=${1:-build/waterfall}
OUT=${2:-demo-out}
mkdir -p "$OUT"

echo "== 1. synthesis in sequence (concurrency 1) =="
"$W" run --synth-concurrency 1 --out "$OUT/sequential.wft" --truth "$OUT/sequential.truth.json"
echo
"$W" analyze --no-progress "$OUT/sequential.wft" | tee "$OUT/sequential.txt"

# The same workload again: the synthesis rounds and the device time that
# run 1 measured on this machine, so only the concurrency differs.
T="$OUT/sequential.truth.json"
ROUNDS=$(sed -n 's/.*"synth_rounds": \([0-9]*\).*/\1/p' "$T")
DEVICE_MS=$(sed -n 's/.*"device_unit_s": \([0-9.]*\).*/\1/p' "$T" | awk '{printf "%.6f", $1 * 1000}')

echo "== 2. synthesis in parallel (concurrency 2), the same workload =="
"$W" run --synth-concurrency 2 --synth-rounds "$ROUNDS" --device-time "$DEVICE_MS" \
    --out "$OUT/parallel.wft" --truth "$OUT/parallel.truth.json"
echo
"$W" analyze --no-progress "$OUT/parallel.wft" | tee "$OUT/parallel.txt"

echo "== before -> after =="
"$W" diff "$OUT/sequential.wft" "$OUT/parallel.wft" | tee "$OUT/diff.txt"
"$W" analyze --json "$OUT/sequential.wft" >"$OUT/sequential.json"
"$W" analyze --json "$OUT/parallel.wft" >"$OUT/parallel.json"
"$W" render "$OUT/sequential.wft" "$OUT/parallel.wft" -o "$OUT/report.svg"
"$W" render "$OUT/sequential.wft" "$OUT/parallel.wft" -o "$OUT/report.chrome.json"
"$W" render "$OUT/sequential.wft" "$OUT/parallel.wft" -o "$OUT/report.html"
echo
echo "== 3. and 3 or 4 syntheses at once? (SIMULATED from the sequential run, no benchmark) =="
"$W" simulate --from "$OUT/sequential.wft" --channel 6 --sweep synth-concurrency=1:4 | tee "$OUT/simulate.txt"
echo
# The third chapter: the cores run out.  The proofs now run on this CPU
# (--device cpu, as a prover's host work does: cuzk's GPU phase holds CPU
# MSMs), so syntheses and proofs share the cores; more syntheses at once
# make every stage slower, and the analysis says so from the recorder's
# CPU samples.
echo "== 4. the cores run out: the proofs on this CPU (--device cpu), 1 then 4 syntheses at once =="
"$W" run --device cpu --jobs 24 --synth-concurrency 1 --out "$OUT/cpu1.wft" --truth "$OUT/cpu1.truth.json" --quiet
CROUNDS=$(sed -n 's/.*"synth_rounds": \([0-9]*\).*/\1/p' "$OUT/cpu1.truth.json")
"$W" run --device cpu --jobs 24 --synth-concurrency 4 --synth-rounds "$CROUNDS" --out "$OUT/cpu4.wft" --truth "$OUT/cpu4.truth.json" --quiet
"$W" analyze --no-progress "$OUT/cpu1.wft" >"$OUT/cpu1.txt"
echo "concurrency 1 ($OUT/cpu1.txt, abridged):"
grep -E '^  (GPU utilization|bottleneck|cpu) ' "$OUT/cpu1.txt"
echo
echo "concurrency 4:"
"$W" analyze --no-progress "$OUT/cpu4.wft" | tee "$OUT/cpu4.txt"
echo "== 1 -> 4, the same workload ($OUT/cpu-diff.txt, abridged) =="
"$W" diff "$OUT/cpu1.wft" "$OUT/cpu4.wft" >"$OUT/cpu-diff.txt"
grep -E '^  (GPU utilization|kernel utilization|s per job|steady s per job|synthesis p50|gpu p50|cpu: synthesis used|cpu: GPU workers used|bottleneck) ' "$OUT/cpu-diff.txt"
echo
# The fourth chapter: the GPU phase is not all kernels.  The engine marks
# its sub-phases (KERNEL around the device's computation, CHECK around the
# host's check of the result), and the analysis tells the two apart.
echo "== 5. inside the GPU phase: kernels against the phase ($OUT/cpu1.txt, abridged) =="
grep -E '^  (GPU utilization|kernel util\.) ' "$OUT/cpu1.txt"
sed -n '/^  phase  /,/^$/p' "$OUT/cpu1.txt"
echo "in $OUT/: the traces, the reports (text, JSON), the engine's own accounting (*.truth.json), the sweep (simulate.txt),"
echo "a waterfall of both runs (report.svg), the same to explore in a browser: zoom, pan, hover (report.html),"
echo "and a Chrome trace for https://ui.perfetto.dev (report.chrome.json)"
