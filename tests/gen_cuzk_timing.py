#!/usr/bin/env python3
"""gen_cuzk_timing.py -- a cuzk daemon's stderr as its source prints it:
TIMELINE lines from engine.rs and CUZK_TIMING duration lines from
supraseal-c2's groth16_cuda.cu, with the truth of every interval.

The model follows the source (docs/sources/cuzk-timing.md):
  - a GPU worker picks a unit up (GPU_PICKUP), prints GPU_START, and the
    call enters spawn delay later (T0);
  - the calling thread works pre_lock ms, then waits for its GPU's mutex
    (FIFO here); at the lock L it prints pre_lock_cpu/mutex_wait;
  - a helper thread runs prep_msm from T0 + pre_lock, then b_g2_msm;
  - under the mutex, gpu_tid 0 (and 1.. for a call over several GPUs)
    runs ntt_msm_h, waits at the barrier for prep_msm, runs batch_add and
    tail_msm; gpu_total is from L to the tail's end;
  - mutex_held (to the unlock) and total_start_fn close the section;
  - split API: the worker moves on at the unlock; a finalizer joins
    b_g2_msm, and GPU_END follows (so one worker's phases may overlap);
  - async_dealloc runs detached after GPU_END.
Lines are printed in time order; values are truncated to whole ms.

Usage: gen_cuzk_timing.py OUT.log OUT.truth.json [options]
  --workers W (per GPU)  --gpus G  --jobs J  --partitions P  --synth S
  --call-gpus N (a call over N GPUs, gpu_tid 0..N-1; TIMELINE names device)
  --noise (tracing lines with ANSI colour)  --seed N  --delay MS (spawn)
  --plain OUT (the same run without the CUZK_TIMING lines)
  --marks (a NOTE_MARK record after each section line, timed between it
    and the next line: records the durations are timed from, of no unit)
  --spawn-lines (engine.rs's info! line "GPU_TIMING spawn_blocking
    prove_start" once the call returns: worker, partition, spawn_to_enter
    and prove_start, as tracing's fmt layer prints it)
"""
import argparse
import json
import random

ap = argparse.ArgumentParser()
ap.add_argument("log")
ap.add_argument("truth")
ap.add_argument("--workers", type=int, default=1)
ap.add_argument("--gpus", type=int, default=1)
ap.add_argument("--jobs", type=int, default=6)
ap.add_argument("--partitions", type=int, default=10)
ap.add_argument("--synth", type=int, default=15)
ap.add_argument("--call-gpus", type=int, default=1)
ap.add_argument("--noise", action="store_true")
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--delay", type=float, default=0.3)
ap.add_argument("--marks", action="store_true")
ap.add_argument("--plain")
ap.add_argument("--spawn-lines", action="store_true")
a = ap.parse_args()
rng = random.Random(a.seed)

lines = []  # (time_ms, seq, text, is_duration_line)
seq = [0]


def emit(t, text, dur=False):
    seq[0] += 1
    lines.append((t, seq[0], text, dur))


def tl(t, ev, job, detail):
    emit(t, "TIMELINE,%d,%s,%s,%s" % (int(t), ev, job, detail))


def cz(t, text):
    emit(t, "CUZK_TIMING: " + text, True)


def info(t, msg, fields):
    """A tracing info! line: a timestamp, the level, the target, the
    message, then its fields (with --noise, in fmt's ANSI styles)."""
    if a.noise:
        f = " ".join("\x1b[3m%s\x1b[0m\x1b[2m=\x1b[0m%s" % kv for kv in fields)
        emit(t, "\x1b[2m2026-12-05T10:00:%06.3fZ\x1b[0m \x1b[32m INFO\x1b[0m \x1b[2mcuzk_core::engine\x1b[0m\x1b[2m:\x1b[0m "
             "%s %s" % ((max(t, 0) / 1e3) % 60, msg, f), True)
    else:
        emit(t, "2026-12-05T10:00:%06.3fZ  INFO cuzk_core::engine: %s %s"
             % ((max(t, 0) / 1e3) % 60, msg, " ".join("%s=%s" % kv for kv in fields)), True)


def ms(x):
    return int(x)  # the source's duration_cast<milliseconds>: truncated


# --- synthesis: S at once, each partition a unit --------------------------
units = []
synth_free = [0.0] * a.synth
for j in range(a.jobs):
    for p in range(a.partitions):
        k = min(range(a.synth), key=lambda i: synth_free[i])
        ss = synth_free[k] + rng.uniform(0, 2)
        se = ss + rng.uniform(2500, 3500)
        synth_free[k] = se
        job = "job-%d" % j
        tl(ss, "SYNTH_START", job, "partition=%d" % p)
        tl(se, "SYNTH_END", job, "partition=%d,synth_ms=%d" % (p, ms(se - ss)))
        tl(se + 0.2, "GPU_QUEUE", job, "partition=%d" % p)
        units.append({"job": job, "p": p, "ready": se + 0.2})
units.sort(key=lambda u: u["ready"])

# --- GPU workers: worker w drives GPU w // workers --------------------------
nworkers = a.workers * a.gpus
worker_free = [0.0] * nworkers
mutex_free = {}
truth_units = []
kernel_spans = []  # gpu_tid 0's: the units' device in the log (none named: 0)
gpu_spans = []
keys = {}
outside = {}


def note(key, v):
    keys.setdefault(key, []).append(v)


for u in units:
    w = min(range(nworkers), key=lambda i: max(worker_free[i], u["ready"]))
    g = w // a.workers
    pick = max(worker_free[w], u["ready"]) + rng.uniform(0.1, 0.5)
    tl(pick, "GPU_PICKUP", u["job"], "worker=%d,partition=%d" % (w, u["p"]))
    S = pick + rng.uniform(0.1, 0.6)
    tl(S, "GPU_START", u["job"], "worker=%d,partition=%d" % (w, u["p"]))
    T0 = S + rng.uniform(0, a.delay)
    sv = rng.uniform(8, 14)
    sts = sv + rng.uniform(0.2, 1.5)
    cz(T0 + sts, "split_vectors_ms=%d setup_to_split_ms=%d" % (ms(sv), ms(sts)))
    pre = sts + rng.uniform(1, 3)
    # the GPUs the call uses: its worker's, or (gpu_index -1) 0..call_gpus-1
    gl = [g] if a.call_gpus == 1 else list(range(a.call_gpus))
    for x in gl:
        mutex_free.setdefault(x, 0.0)
    L = max([T0 + pre] + [mutex_free[x] for x in gl])
    mw = L - (T0 + pre)
    cz(L, "pre_lock_cpu_ms=%d mutex_wait_ms=%d" % (ms(pre), ms(mw)))
    prep = rng.uniform(1700, 2100)
    prep_end = T0 + pre + prep
    cz(prep_end, "prep_msm_ms=%d" % ms(prep))
    tail_end = L
    for tid, x in enumerate(gl):
        ntt = rng.uniform(800, 950)
        bw = max(0.0, prep_end - (L + ntt))
        ba = rng.uniform(280, 320)
        tm = rng.uniform(550, 600)
        b_end = L + ntt + bw + ba
        t_end = b_end + tm
        tot = t_end - L
        cz(L + ntt, "gpu_tid=%d ntt_msm_h_ms=%d" % (tid, ms(ntt)))
        cz(L + ntt + bw, "gpu_tid=%d barrier_wait_ms=%d" % (tid, ms(bw)))
        cz(b_end, "gpu_tid=%d batch_add_ms=%d" % (tid, ms(ba)))
        cz(t_end, "gpu_tid=%d tail_msm_ms=%d gpu_total_ms=%d" % (tid, ms(tm), ms(tot)))
        if tid == 0:
            kernel_spans.append((L, L + tot))
        else:
            note("gpu_total.gpu%d" % tid, tot)
        if tid == 0:
            note("ntt_msm_h", ntt), note("barrier_wait", bw), note("batch_add", ba)
            note("tail_msm", tm), note("gpu_total", tot)
        tail_end = max(tail_end, t_end)
    unlock = tail_end + rng.uniform(0.5, 2)
    held = unlock - L
    cz(unlock - 0.01, "mutex_held_ms=%d total_start_fn_ms=%d" % (ms(held), ms(unlock - T0)))
    for x in gl:
        mutex_free[x] = unlock
    if a.spawn_lines:  # gpu_prove_start returns just after the unlock
        ret = unlock + rng.uniform(0.02, 0.3)
        info(ret, "GPU_TIMING spawn_blocking prove_start",
             (("worker_id", w), ("partition", "Some(%d)" % u["p"]), ("spawn_to_enter_ms", ms(T0 - S)),
              ("prove_start_ms", ms(ret - T0))))
        note("spawn_to_enter", T0 - S)
        note("prove_start", ret - T0)
    bg2 = rng.uniform(420, 520)
    bg2_end = prep_end + bg2
    cz(bg2_end, "b_g2_msm_ms=%d num_circuits=1" % ms(bg2))
    worker_free[w] = unlock + rng.uniform(0.5, 1)  # split API: it moves on
    E = max(unlock, bg2_end) + rng.uniform(15, 30)  # join, epilogue
    tl(E, "GPU_END", u["job"], "worker=%d,partition=%d,gpu_ms=%d" % (w, u["p"], ms(E - T0)))
    dealloc = rng.uniform(5, 40)
    cz(E + rng.uniform(1, 60), "async_dealloc_ms=%d" % ms(dealloc))
    outside.setdefault("async_dealloc", []).append(dealloc)
    for k, v in (("pre_lock_cpu", pre), ("mutex_wait", mw), ("mutex_held", held), ("total_start_fn", unlock - T0),
                 ("prep_msm", prep), ("b_g2_msm", bg2), ("split_vectors", sv), ("setup_to_split", sts)):
        note(k, v)
    gpu_spans.append((S, E))
    truth_units.append({"job": u["job"], "partition": u["p"], "kernel_s": [L / 1e3, (L + tot) / 1e3],
                        "kernel_after_start_ms": L - S})

# a line before any GPU phase: the one-time pool message and a stray dealloc
emit(-1, "CUZK_TIMING: set pool release threshold to MAX on gpu 0", True)

# --- the truth, by the definitions: kernel busy over the GPU window -------
def union(spans, lo, hi):
    tot, cur = 0.0, None
    for s, e in sorted(spans):
        s, e = max(s, lo), min(e, hi)
        if e <= s:
            continue
        if cur and s <= cur[1]:
            cur[1] = max(cur[1], e)
        else:
            if cur:
                tot += cur[1] - cur[0]
            cur = [s, e]
    return tot + (cur[1] - cur[0] if cur else 0)


# TIMELINE times are whole ms: the window is what the log says.  The log
# names no device, so every unit is device 0's.
lo, hi = int(min(s for s, _ in gpu_spans)), int(max(e for _, e in gpu_spans))
kutil = union(kernel_spans, lo, hi) / (hi - lo)

lines.sort()
if a.marks:  # a mark between each section line and the line after it, timed between them
    marked = []
    for i, (t, q, text, dur) in enumerate(lines):
        marked.append((t, q, text, dur))
        if dur and i + 1 < len(lines) and ("gpu_tid" in text or "pre_lock" in text):
            tm = (t + lines[i + 1][0]) / 2
            marked.append((tm, q, "TIMELINE,%d,NOTE_MARK,mark-%d," % (int(tm), i), False))
    lines = marked
with open(a.log, "w") as f, (open(a.plain, "w") if a.plain else open("/dev/null", "w")) as fp:
    for t, _, text, dur in lines:
        if a.noise and rng.random() < 0.5:
            f.write("\x1b[2m2026-12-05T10:00:%06.3fZ\x1b[0m \x1b[32m INFO\x1b[0m cuzk_core::engine: "
                    "\x1b[1mGPU_TIMING prove_start returned\x1b[0m worker_id=0\n" % ((max(t, 0) / 1e3) % 60))
        f.write(text + "\n")
        if not dur:
            fp.write(text + "\n")

json.dump({"kernel_utilization": kutil,
           "means_ms": {k: sum(v) / len(v) for k, v in keys.items()},
           "counts": {k: len(v) for k, v in keys.items()},
           "outside": {k: len(v) for k, v in outside.items()},
           "units": len(truth_units), "unit_list": truth_units}, open(a.truth, "w"), indent=1)
