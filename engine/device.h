/*
 * device.h -- one interface, one file per device backend (device_cpu.c,
 * device_emulated.c; a CUDA backend plugs in the same way).
 *
 * A backend proves a witness on a device.  It measures its own busy time
 * and its kernel time (the ground truth `--truth` writes), independently
 * of the trace.
 *
 * Errors, as engine.h: setup, which the user's configuration can fail,
 * returns 0, or -1 with a message in err; the others return 0 or -1 with
 * no message (out of memory, a thread that would not start, a caller's
 * mistake), and the engine, which knows which device or worker it was,
 * says it.
 */
#ifndef DEVICE_H
#define DEVICE_H

#include "field.h"

#include <pthread.h>

struct engine_config;

struct busy_log {
    pthread_mutex_t mu;
    double *start, *end; /* seconds, CLOCK_MONOTONIC */
    size_t n, cap;
};

struct device {
    const struct device_ops *ops;
    int id;
    struct busy_log busy;   /* the GPU phases: from GPU_START to GPU_END */
    struct busy_log kernel; /* the kernel holds inside them (KERNEL_START..KERNEL_END) */
    pthread_mutex_t kernel_lock;
    int serial;     /* one proof at a time (--kernel-lock) */
    void *state;    /* the backend's */
};

/* Per worker thread: scratch the backend may keep (a prover of one size). */
struct device_worker {
    struct device *dev;
    void *state;
};

/* The sub-phases of a proof the backend reports through prove_hooks.phase
 * (the engine marks them as <NAME>_START/<NAME>_END, docs/engine.md). */
enum prove_phase {
    PHASE_KERNEL, /* KERNEL: the device computes (cpu: the NTTs; emulated: the hold) */
    PHASE_CHECK,  /* CHECK: host work on the result (cpu: the proof's check, the digest) */
    PHASE_COUNT
};

struct prove_hooks {
    void (*started)(void *ctx);
    void (*finished)(void *ctx);
    /* Between started and finished, on the same thread: phase p begins
     * (end == 0) or ends (end == 1). */
    void (*phase)(void *ctx, enum prove_phase p, int end);
    void *ctx;
    int worker; /* who submitted it: a device that marks on its own thread
                   declares this worker before it does */
};

struct device_ops {
    const char *name;
    int emulated; /* 1: no real device; said wherever it shows */
    /* Once per run, before any device, with the cpu proof time measured
     * at the run's size.  0, or -1 with a message in err. */
    int (*setup)(const struct engine_config *c, double cpu_prove_s, char *err, size_t errlen);
    /* Per device, before its workers start and after they stop; 0 or -1. */
    int (*device_init)(struct device *d);
    void (*device_fini)(struct device *d);
    int (*worker_init)(struct device_worker *w, const struct engine_config *c); /* 0 or -1 */
    void (*worker_fini)(struct device_worker *w);
    /* Prove; out->ok says whether the proof checked.  Serialises proofs
     * when dev->serial.  Calls h->started(h->ctx) the moment the device
     * begins and h->finished(h->ctx) the moment it ends (the pipeline marks
     * GPU_START and GPU_END there), and records as busy the interval
     * between its own clock reads next to those two calls; likewise it
     * calls h->phase around each sub-phase, and records as kernel time the
     * interval between its clock reads next to the PHASE_KERNEL calls.
     * 0, or -1 when it could not prove (out->ok stays 0: a failed unit). */
    int (*prove)(struct device_worker *w, const r1cs_witness *wit, uint64_t check_seed,
                 r1cs_proof *out, const struct prove_hooks *h);
    /* What the backend measured at setup (for the report). */
    double (*unit_seconds)(void);
};

extern const struct device_ops device_cpu_ops;
extern const struct device_ops device_emulated_ops;

const struct device_ops *device_find(const char *name);

/* Busy-time bookkeeping shared by the backends. */
double device_now(void);
void device_sleep_until(double t); /* CLOCK_MONOTONIC seconds, absolute */
void busy_record(struct busy_log *b, double start, double end);
double busy_union(struct busy_log *b); /* seconds; -1: out of memory */

#endif /* DEVICE_H */
