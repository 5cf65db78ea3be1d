/*
 * device_cpu.c -- the "device" is the host's cores: proving runs on the
 * GPU worker's own thread, competing with synthesis for the CPU.  That
 * competition is the contention the story ends on.
 */
#include "device.h"
#include "engine.h"

#include <stdlib.h>

static int cpu_setup(const struct engine_config *c, double cpu_prove_s, char *err, size_t errlen)
{
    (void)c;
    (void)cpu_prove_s;
    (void)err;
    (void)errlen;
    return 0;
}

static int cpu_device_init(struct device *d)
{
    (void)d;
    return 0;
}

static void cpu_device_fini(struct device *d)
{
    (void)d;
}

static int cpu_worker_init(struct device_worker *w, const struct engine_config *c)
{
    r1cs_prover *p = malloc(sizeof *p);
    if (!p)
        return -1;
    if (r1cs_prover_init(p, c->log_n)) {
        free(p);
        return -1;
    }
    w->state = p;
    return 0;
}

static void cpu_worker_fini(struct device_worker *w)
{
    if (w->state) {
        r1cs_prover_free(w->state);
        free(w->state);
    }
    w->state = NULL;
}

/* The GPU phase holds the whole proof; inside it, the kernel is the
 * prover's computation (r1cs_prove_h: the NTTs) and CHECK the host's work
 * on its result (r1cs_prove_check: H at the check points, the digest), as
 * a GPU prover's host checks and commits to what the device returned.
 * Both run under the kernel lock, as they did when they were one call. */
static int cpu_prove(struct device_worker *w, const r1cs_witness *wit, uint64_t seed, r1cs_proof *out,
                     const struct prove_hooks *h)
{
    struct device *d = w->dev;
    r1cs_points pts;
    if (d->serial)
        pthread_mutex_lock(&d->kernel_lock);
    h->started(h->ctx);
    double t0 = device_now();
    h->phase(h->ctx, PHASE_KERNEL, 0);
    int rc = r1cs_prove_h(w->state, wit, seed, &pts);
    double tk = device_now();
    h->phase(h->ctx, PHASE_KERNEL, 1);
    if (rc == 0) {
        h->phase(h->ctx, PHASE_CHECK, 0);
        rc = r1cs_prove_check(w->state, &pts, out);
        h->phase(h->ctx, PHASE_CHECK, 1);
    }
    double t1 = device_now();
    h->finished(h->ctx);
    if (d->serial)
        pthread_mutex_unlock(&d->kernel_lock);
    busy_record(&d->busy, t0, t1);
    busy_record(&d->kernel, t0, tk);
    return rc;
}

static double cpu_unit_seconds(void)
{
    return 0;
}

const struct device_ops device_cpu_ops = {
    .name = "cpu",
    .emulated = 0,
    .setup = cpu_setup,
    .device_init = cpu_device_init,
    .device_fini = cpu_device_fini,
    .worker_init = cpu_worker_init,
    .worker_fini = cpu_worker_fini,
    .prove = cpu_prove,
    .unit_seconds = cpu_unit_seconds,
};
