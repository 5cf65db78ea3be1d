/*
 * device_emulated.c -- a stand-in accelerator: it holds the device for as
 * long as the proof would take on a GPU, without using the CPU.
 *
 * The model: at setup the real prover (device_cpu's work) is timed on this
 * machine at the run's size, the fastest of seven proofs (interference
 * from other work only ever adds time, so the minimum is the steadiest
 * measure of what this CPU can do); a GPU is taken to
 * be `speedup` times faster, so one emulated proof holds its device for
 * t_cpu(n) / speedup, sleeping to an absolute deadline.  With a kernel
 * lock the device is a queue, like a GPU stream: a proof submitted while
 * another runs starts the instant that one ends, so no host thread's
 * wake-up latency is counted as device idle time.  The witness is
 * still checked (a∘b = c, O(n), on the host) so a corrupted unit is caught;
 * the H quotient is not computed, since no device computes it.  Everything
 * that shows the run says the device was emulated.
 */
#include "device.h"
#include "engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double unit_s;   /* emulated device time per proof */
static double cpu_s;    /* measured cpu time per proof */

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int emu_setup(const struct engine_config *c, char *err, size_t errlen)
{
    r1cs_witness w;
    r1cs_prover p;
    if (r1cs_witness_alloc(&w, c->log_n) || r1cs_prover_init(&p, c->log_n)) {
        snprintf(err, errlen, "out of memory calibrating the emulated device");
        return -ENOMEM;
    }
    r1cs_synthesize(&w, c->seed ^ 0xca11b, 1);
    double t[7];
    for (int i = 0; i < 7; i++) {
        r1cs_proof pr;
        double t0 = device_now();
        r1cs_prove(&p, &w, (uint64_t)i, &pr);
        t[i] = device_now() - t0;
    }
    qsort(t, 7, sizeof t[0], dcmp);
    cpu_s = t[0];
    unit_s = cpu_s / c->speedup;
    r1cs_prover_free(&p);
    r1cs_witness_free(&w);
    return 0;
}

static int emu_worker_init(struct device_worker *w, const struct engine_config *c)
{
    (void)c;
    w->state = NULL;
    return 0;
}

static void emu_worker_fini(struct device_worker *w)
{
    (void)w;
}

static void sleep_until(double t)
{
    struct timespec ts;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static int emu_prove(struct device_worker *w, const r1cs_witness *wit, uint64_t seed, r1cs_proof *out,
                     const struct prove_hooks *h)
{
    (void)seed;
    (void)wit; /* the worker checked a∘b = c in its host-side prep */
    struct device *d = w->dev;
    double start = device_now();
    if (d->serial) {
        pthread_mutex_lock(&d->kernel_lock);
        if (d->free_at > start)
            start = d->free_at;
        d->free_at = start + unit_s;
        pthread_mutex_unlock(&d->kernel_lock);
        sleep_until(start);
    }
    /* The device's busy time is what this thread saw: from its wake-up at
     * the planned start to its wake-up at the planned end.  The marks are
     * taken beside these clock reads, so trace and truth measure the same
     * thing; sleeping to absolute deadlines keeps wake-up delays from
     * adding up. */
    h->started(h->ctx);
    double t0 = device_now();
    sleep_until(start + unit_s);
    double t1 = device_now();
    h->finished(h->ctx);
    busy_record(&d->busy, t0, t1);
    out->ok = 1; /* nothing to check here: no H was computed */
    out->commitment = 0;
    return 0;
}

static double emu_unit_seconds(void)
{
    return unit_s;
}

double device_emulated_cpu_seconds(void);
double device_emulated_cpu_seconds(void)
{
    return cpu_s;
}

const struct device_ops device_emulated_ops = {
    .name = "emulated",
    .emulated = 1,
    .setup = emu_setup,
    .worker_init = emu_worker_init,
    .worker_fini = emu_worker_fini,
    .prove = emu_prove,
    .unit_seconds = emu_unit_seconds,
};
