/*
 * device_emulated.c -- a stand-in accelerator: it holds the device for as
 * long as the proof would take on a GPU, without using the CPU.
 *
 * The model: before the run the engine times the real prover (device_cpu's
 * work) on this machine at the run's size (engine.c, calibrate()); a GPU
 * is taken to be `speedup` times faster, so one emulated proof holds its
 * device for t_cpu(n) / speedup, sleeping to an absolute deadline.
 *
 * With a kernel lock the device is a queue run by its own thread, like a
 * GPU stream: workers submit proofs and wait; the device thread runs them
 * back to back, marking GPU_END of one and GPU_START of the next in the
 * same instant (as a device-side timestamp would), for the worker that
 * submitted each.  So a host thread that is slow to be scheduled delays
 * the submission of work, not the device's own timeline.  Without the
 * lock every worker holds the device on its own, concurrently.
 *
 * The hold is the kernel: KERNEL_START and KERNEL_END are marked, on the
 * thread that marks GPU_START and GPU_END, right beside the clock reads
 * that bound the sleep, so the GPU phase is all kernel (no host work runs
 * inside it: the worker's check of the witness is its prep, before
 * GPU_START), and the kernel time the backend records is its busy time.
 *
 * The H quotient is not computed, since no device computes it; the
 * worker's host-side prep still checks the witness (a∘b = c), so a
 * corrupted unit is caught.  Everything that shows the run says the
 * device was emulated.
 */
#include "device.h"
#include "engine.h"

#include <waterfall.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double unit_s; /* emulated device time per proof */

static int emu_setup(const struct engine_config *c, double cpu_prove_s, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    unit_s = c->device_time > 0 ? c->device_time : cpu_prove_s / c->speedup;
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

/* One submitted proof, waiting in the device's queue. */
struct emu_job {
    const struct prove_hooks *h;
    struct emu_job *next;
    int done;
};

struct emu_dev {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    struct emu_job *head, *tail;
    int stop;
    struct device *dev;
};

/* The device thread.  A finished proof's submitter is told only after the
 * next queued proof has started: telling it first would wake it, and on a
 * busy machine it would take this thread's core before the next start. */
static void *emu_device_main(void *arg)
{
    struct emu_dev *ed = arg;
    char name[32];
    snprintf(name, sizeof name, "emulated-gpu%d", ed->dev->id);
    wf_thread_name(name);
    int role = -1;
    struct emu_job *prev = NULL;
    pthread_mutex_lock(&ed->mu);
    for (;;) {
        while (!ed->head && !ed->stop) {
            if (prev) {
                prev->done = 1;
                pthread_cond_broadcast(&ed->done);
                prev = NULL;
            }
            pthread_cond_wait(&ed->work, &ed->mu);
        }
        struct emu_job *j = ed->head;
        if (!j)
            break;
        ed->head = j->next;
        if (!ed->head)
            ed->tail = NULL;
        pthread_mutex_unlock(&ed->mu);
        if (j->h->worker != role) {
            role = j->h->worker;
            wf_thread_worker(role, ed->dev->id);
        }
        j->h->started(j->h->ctx);
        double t0 = device_now();
        j->h->phase(j->h->ctx, PHASE_KERNEL, 0);
        if (prev) {
            pthread_mutex_lock(&ed->mu);
            prev->done = 1;
            pthread_cond_broadcast(&ed->done);
            pthread_mutex_unlock(&ed->mu);
        }
        device_sleep_until(t0 + unit_s);
        double t1 = device_now();
        j->h->phase(j->h->ctx, PHASE_KERNEL, 1);
        j->h->finished(j->h->ctx);
        busy_record(&ed->dev->busy, t0, t1);
        busy_record(&ed->dev->kernel, t0, t1);
        prev = j;
        pthread_mutex_lock(&ed->mu);
    }
    if (prev) {
        prev->done = 1;
        pthread_cond_broadcast(&ed->done);
    }
    pthread_mutex_unlock(&ed->mu);
    return NULL;
}

static int emu_device_init(struct device *d)
{
    if (!d->serial)
        return 0;
    struct emu_dev *ed = calloc(1, sizeof *ed);
    if (!ed)
        return -1;
    ed->dev = d;
    pthread_mutex_init(&ed->mu, NULL);
    pthread_cond_init(&ed->work, NULL);
    pthread_cond_init(&ed->done, NULL);
    if (pthread_create(&ed->thread, NULL, emu_device_main, ed)) {
        free(ed);
        return -1;
    }
    d->state = ed;
    return 0;
}

static void emu_device_fini(struct device *d)
{
    struct emu_dev *ed = d->state;
    if (!ed)
        return;
    pthread_mutex_lock(&ed->mu);
    ed->stop = 1;
    pthread_cond_signal(&ed->work);
    pthread_mutex_unlock(&ed->mu);
    pthread_join(ed->thread, NULL);
    pthread_mutex_destroy(&ed->mu);
    pthread_cond_destroy(&ed->work);
    pthread_cond_destroy(&ed->done);
    free(ed);
    d->state = NULL;
}

static int emu_prove(struct device_worker *w, const r1cs_witness *wit, uint64_t seed, r1cs_proof *out,
                     const struct prove_hooks *h)
{
    (void)seed;
    (void)wit; /* the worker checked a∘b = c in its host-side prep */
    struct emu_dev *ed = w->dev->state;
    out->ok = 1; /* nothing to check here: no H was computed */
    out->commitment = 0;
    if (ed) {
        struct emu_job j = {h, NULL, 0};
        pthread_mutex_lock(&ed->mu);
        if (ed->tail)
            ed->tail->next = &j;
        else
            ed->head = &j;
        ed->tail = &j;
        pthread_cond_signal(&ed->work);
        while (!j.done)
            pthread_cond_wait(&ed->done, &ed->mu);
        pthread_mutex_unlock(&ed->mu);
        return 0;
    }
    h->started(h->ctx);
    double t0 = device_now();
    h->phase(h->ctx, PHASE_KERNEL, 0);
    device_sleep_until(t0 + unit_s);
    double t1 = device_now();
    h->phase(h->ctx, PHASE_KERNEL, 1);
    h->finished(h->ctx);
    busy_record(&w->dev->busy, t0, t1);
    busy_record(&w->dev->kernel, t0, t1);
    return 0;
}

static double emu_unit_seconds(void)
{
    return unit_s;
}

const struct device_ops device_emulated_ops = {
    .name = "emulated",
    .emulated = 1,
    .setup = emu_setup,
    .device_init = emu_device_init,
    .device_fini = emu_device_fini,
    .worker_init = emu_worker_init,
    .worker_fini = emu_worker_fini,
    .prove = emu_prove,
    .unit_seconds = emu_unit_seconds,
};
