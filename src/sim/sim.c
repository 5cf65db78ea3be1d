/*
 * sim.c -- the discrete-event simulation of the pipeline (model in sim.h).
 *
 * Under processor sharing every task of one kind (synthesis, prep, proof)
 * progresses at the same rate 1/f_k(t), which depends only on how many
 * tasks of each kind run (sim_slowdowns).  So each kind has one virtual
 * clock v_k (dv_k/dt = 1/f_k) and a heap of its tasks keyed by the virtual
 * time at which they finish: nothing is rescheduled when the rates
 * change.  Each step takes the earliest finish of the three heaps, or the
 * next arrival.  Times are seconds (double) inside; the units it writes
 * hold nanoseconds like the model's.
 */
#include "sim.h"

#include "mem.h"
#include "strtab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define MAX_UNITS 50000000ull

/* ---- random numbers: splitmix64, seeded, the same everywhere ---- */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double rng_unit(uint64_t *s) /* (0, 1) */
{
    return ((double)(rng_next(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* An index into n resampled values. */
static size_t draw(size_t n, uint64_t *s)
{
    return (size_t)(((unsigned __int128)rng_next(s) * n) >> 64);
}

static double sample(const struct sim_dist *d, uint64_t *s)
{
    if (d->v && d->n)
        return d->v[draw(d->n, s)];
    if (d->cv <= 0)
        return d->mean;
    /* lognormal with the given mean and coefficient of variation; the two
     * draws in a fixed order, so a seed gives the same run everywhere */
    double s2 = log1p(d->cv * d->cv), mu = log(d->mean) - s2 / 2;
    double u1 = rng_unit(s);
    double u2 = rng_unit(s);
    double z = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
    return exp(mu + sqrt(s2) * z);
}

void sim_params_free(struct sim_params *p)
{
    sim_dist_free(&p->synth);
    sim_dist_free(&p->gpu);
    free(p->kparts);
    p->kparts = NULL;
    p->nkparts = 0;
    sim_dist_free(&p->prep);
    sim_dist_free(&p->pickup);
    free(p->job_units);
    free(p->job_at);
    p->job_units = NULL;
    p->job_at = NULL;
}

uint64_t sim_units(const struct sim_params *p)
{
    if (!p->job_units)
        return p->jobs * (uint64_t)p->partitions;
    uint64_t n = 0;
    for (uint64_t j = 0; j < p->jobs; j++)
        n += p->job_units[j];
    return n;
}

void sim_uniform(struct sim_params *p)
{
    p->job_units = NULL;
    p->job_at = NULL;
}

/* When job j arrives (seconds from the start). */
static double job_arrival(const struct sim_params *p, uint64_t j)
{
    if (p->job_units)
        return p->job_at ? p->job_at[j] : 0;
    return p->rate > 0 ? (double)j / p->rate : 0;
}

/* Job j's units. */
static size_t job_units(const struct sim_params *p, uint64_t j)
{
    return p->job_units ? p->job_units[j] : (size_t)p->partitions;
}

double sim_dist_mean(const struct sim_dist *d)
{
    if (!d->v || !d->n)
        return d->mean;
    double sum = 0;
    for (size_t i = 0; i < d->n; i++)
        sum += d->v[i];
    return sum / (double)d->n;
}

void sim_dist_free(struct sim_dist *d)
{
    free(d->v);
    d->v = NULL;
    d->n = 0;
}

static int dist_ok(const struct sim_dist *d, int may_be_zero)
{
    if (d->v && d->n) {
        for (size_t i = 0; i < d->n; i++)
            if (!(d->v[i] >= 0) || !isfinite(d->v[i]))
                return 0;
        return may_be_zero || sim_dist_mean(d) > 0;
    }
    return isfinite(d->mean) && isfinite(d->cv) && d->cv >= 0 && d->cv <= 100 &&
           (may_be_zero ? d->mean >= 0 : d->mean > 0);
}

static int kparts_ok(const struct sim_params *p)
{
    if (!p->kparts || !p->nkparts)
        return 0;
    for (size_t i = 0; i < p->nkparts; i++) {
        const struct sim_kparts *k = &p->kparts[i];
        double v[6] = {k->pre, k->k1, k->k2, k->hp, k->hq, k->post};
        for (int j = 0; j < 6; j++)
            if (!(v[j] >= 0) || !isfinite(v[j]))
                return 0;
    }
    return 1;
}

/* Why the parameters cannot be simulated; NULL: they can. */
static const char *check_reason(const struct sim_params *p)
{
    if (p->jobs < 1)
        return "--jobs must be at least 1";
    if (p->partitions < 1)
        return "--partitions must be at least 1";
    if ((double)p->jobs * p->partitions > (double)MAX_UNITS || (double)sim_units(p) > (double)MAX_UNITS)
        return "too many units: jobs x partitions must be at most 50 million";
    if (p->synth_concurrency < 1)
        return "--synth-concurrency must be at least 1";
    if (p->synth_concurrency > 100000)
        return "--synth-concurrency must be at most 100000";
    if (p->gpu_workers < 1)
        return "--gpu-workers must be at least 1 (a device with no worker never proves)";
    if (p->devices < 1)
        return "--devices must be at least 1";
    if ((double)p->gpu_workers * p->devices > 100000)
        return "too many GPU workers: --gpu-workers x --devices must be at most 100000";
    if (p->channel < 0)
        return "--channel must be 0 (a rendezvous) or more";
    if (p->channel > 10000000)
        return "--channel must be at most 10000000";
    if (!(p->rate >= 0) || !isfinite(p->rate))
        return "--rate must be a number of jobs per second, 0 for all at once";
    if (!(p->cores >= 0) || !isfinite(p->cores))
        return "--cores must be a number of cores, 0 for no contention";
    if (!(p->synth_threads > 0) || !isfinite(p->synth_threads) || !(p->host_threads > 0) ||
        !isfinite(p->host_threads))
        return "--synth-threads and --host-threads must be positive";
    if (!(p->host_share >= 0 && p->host_share <= 1))
        return "--host-share must be between 0 and 1";
    if (!(p->host_weight >= 0 && p->host_weight <= 1000))
        return "--host-weight must be a positive number (1: shares like a synthesis)";
    if (p->calib_partitions < 1)
        return "the calibration's partition count must be at least 1";
    if (!dist_ok(&p->synth, 0))
        return "synthesis time must be positive and finite (--synth-s), its spread between 0 and 100";
    if (!dist_ok(&p->gpu, 0))
        return "GPU time must be positive and finite (--gpu-s), its spread between 0 and 100";
    if (p->kernel_model && !kparts_ok(p))
        return "the kernel model needs the trace's parts of each unit's GPU phase, finite and not negative";
    if (!dist_ok(&p->prep, 1))
        return "prep time must be zero or positive and finite (--prep-s)";
    if (!dist_ok(&p->pickup, 1))
        return "dispatch latency must be zero or positive and finite (--dispatch-s)";
    if (!p->job_units && p->rate > 0 && (double)(p->jobs - 1) / p->rate > SIM_MAX_S)
        return "--rate is too slow for --jobs: the last job would arrive after 9e9 s";
    return NULL;
}

int sim_check(const struct sim_params *p, char *err, size_t errlen)
{
    const char *why = check_reason(p);
    if (!why)
        return 0;
    snprintf(err, errlen, "%s", why);
    return -1;
}

/* ---- a binary min-heap of (virtual finish time, unit, kind) ---- */

struct hent {
    double key;
    uint32_t unit;
    uint32_t kind;
};

struct heap {
    struct hent *a;
    size_t n, cap;
};

static int heap_push(struct heap *h, double key, uint32_t unit, uint32_t kind)
{
    if (h->n == h->cap && grow_array((void **)&h->a, &h->cap, h->n + 1, sizeof *h->a))
        return -1;
    size_t i = h->n++;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (h->a[up].key <= key)
            break;
        h->a[i] = h->a[up];
        i = up;
    }
    h->a[i] = (struct hent){key, unit, kind};
    return 0;
}

static struct hent heap_pop(struct heap *h)
{
    struct hent top = h->a[0], last = h->a[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->a[c + 1].key < h->a[c].key)
            c++;
        if (last.key <= h->a[c].key)
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->n)
        h->a[i] = last;
    return top;
}

/* ---- a FIFO of unit or worker numbers ---- */

struct fifo {
    uint32_t *a;
    size_t head, n, cap; /* cap: a power of two */
};

static int fifo_init(struct fifo *q, size_t cap)
{
    size_t c = 4;
    while (c < cap)
        c *= 2;
    q->a = malloc(c * sizeof *q->a);
    q->head = q->n = 0;
    q->cap = c;
    return q->a ? 0 : -1;
}

static void fifo_push(struct fifo *q, uint32_t v)
{
    q->a[(q->head + q->n++) & (q->cap - 1)] = v;
}

static uint32_t fifo_pop(struct fifo *q)
{
    uint32_t v = q->a[q->head];
    q->head = (q->head + 1) & (q->cap - 1);
    q->n--;
    return v;
}

/* ---- the simulation ---- */

/* The kinds of work that progress at their own rate: synthesis and prep
 * (CPU tasks), proofs (device time, with a host share), and dispatch
 * latencies (wall time: never slowed). */
enum { CL_SYNTH, CL_PREP, CL_GPU, CL_PICK, CL_N };

struct sim {
    const struct sim_params *p;
    struct unit *u;
    size_t nunits, next_unit, avail;
    uint64_t rng;
    double t;          /* real time */
    double v[CL_N];    /* each kind's virtual time: its work done per task */
    int n[CL_N];       /* tasks of each kind running */
    int permits;
    int in_gpu; /* the kernel model: units between GPU_START and GPU_END, which the
                 * contention counts as proofs (a unit's helper is not a second
                 * one, and a unit waiting for its device still is one, as the
                 * fit counted them: sim_fit.c, build_segs) */
    uint64_t arrived;  /* jobs arrived so far */
    double scale;      /* work per unit at this partition count / at the calibration's */
    struct heap h[CL_N];
    struct fifo chan, blocked, idle;
    struct fifo *devq; /* per device: picked-up units waiting for it */
    char *dev_busy;
    /* the kernel model (sim_params kernel_model): each unit's part of its
     * GPU phase on the worker's thread (SEG_*) and what else holds (K_*),
     * its draw (an index into kparts), and its kernels' start and end, ns */
    uint8_t *seg, *kst;
    uint32_t *kidx;
    int64_t *kt;
    uint64_t events;
    int too_long; /* the simulated time passed SIM_MAX_S (step failed for it, not for memory) */
};

/* The processor sharing of the cores alone. */
static void cores_slowdowns(const struct sim_params *p, const int n[3], double f[3])
{
    f[0] = f[1] = f[2] = 1;
    if (p->cores <= 0)
        return;
    double cap[3] = {p->synth_threads, p->host_threads, p->host_share * p->host_threads};
    double hw = p->host_weight > 0 ? p->host_weight : 1, w[3] = {1, hw, hw};
    double want = n[0] * cap[0] + n[1] * cap[1] + n[2] * cap[2];
    if (want <= p->cores)
        return;
    /* Weighted water-filling: a task of kind k gets w[k] x of the cores,
     * or what its threads can use when that is less; x such that the
     * cores are all given.  Kinds that can use least per weight fill
     * first. */
    int order[3] = {0, 1, 2};
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (cap[order[j]] / w[order[j]] < cap[order[i]] / w[order[i]]) {
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
    double left = p->cores, x = INFINITY, weight = n[0] * w[0] + n[1] * w[1] + n[2] * w[2];
    for (int i = 0; i < 3; i++) {
        int k = order[i];
        if (!n[k])
            continue;
        double share = left / weight;
        if (cap[k] <= w[k] * share) {
            left -= n[k] * cap[k];
            weight -= n[k] * w[k];
        } else {
            x = share;
            break;
        }
    }
    for (int k = 0; k < 3; k++)
        if (cap[k] > w[k] * x)
            f[k] = cap[k] / (w[k] * x);
}

void sim_slowdowns(const struct sim_params *p, const int n[3], double f[3])
{
    cores_slowdowns(p, n, f);
    /* Work that grows with the syntheses at once multiplies it: the cores
     * share out the work, the growth says how much work there is.  A
     * proof counts the syntheses beside it plus itself, as the analysis
     * groups a GPU phase; prep is outside the GPU phase the samples
     * measured, and is left as it is. */
    if (p->synth_growth.n)
        f[0] *= sim_growth_factor(&p->synth_growth, n[0]);
    if (p->gpu_growth.n)
        f[2] *= sim_growth_factor(&p->gpu_growth, n[0] + 1);
}

static int64_t ns(double s)
{
    return (int64_t)llround(s * 1e9);
}

/* A task of kind cl for unit id; tag: which of the unit's tasks it is
 * (the kernel model's TASK_*: a unit's GPU phase can run two at once). */
static int begin_task(struct sim *s, int cl, double work, uint32_t id, uint32_t tag)
{
    s->n[cl]++;
    return heap_push(&s->h[cl], s->v[cl] + work, id, (uint32_t)cl | tag << 4);
}

static int begin(struct sim *s, int cl, double work, uint32_t id)
{
    return begin_task(s, cl, work, id, 0);
}

static int start_synth(struct sim *s)
{
    while (s->permits < s->p->synth_concurrency && s->next_unit < s->avail) {
        uint32_t id = (uint32_t)s->next_unit++;
        s->u[id].t[EV_SYNTH_START] = ns(s->t);
        s->permits++;
        if (begin(s, CL_SYNTH, sample(&s->p->synth, &s->rng) * s->scale, id))
            return -1;
    }
    return 0;
}

/* The kernel model (sim.h, struct sim_kparts): a unit's GPU phase runs on
 * the worker's thread (TASK_MAIN: SEG_PRE, then SEG_K1 and SEG_K2 holding
 * the device, then SEG_POST) and on a helper thread (TASK_HELPER: hp,
 * then hq); K_* say what of it is done. */
enum { SEG_PRE, SEG_K1, SEG_K2, SEG_POST };
enum { TASK_MAIN, TASK_HELPER };
enum { K_HP = 1, K_HQ = 2, K_BARRIER = 4, K_KERNELS = 8 }; /* done: hp, hq; waiting at the barrier; kernels done */

static const struct sim_kparts *kp(const struct sim *s, uint32_t id)
{
    return &s->p->kparts[s->kidx[id]];
}

static int main_task(struct sim *s, uint32_t id, int seg, double work)
{
    s->seg[id] = (uint8_t)seg;
    return begin_task(s, CL_GPU, work * s->scale, id, TASK_MAIN);
}

static int start_gpu(struct sim *s, uint32_t id)
{
    s->u[id].t[EV_GPU_START] = ns(s->t);
    if (!s->p->kernel_model)
        return begin(s, CL_GPU, sample(&s->p->gpu, &s->rng) * s->scale, id);
    s->kidx[id] = (uint32_t)draw(s->p->nkparts, &s->rng);
    s->in_gpu++;
    const struct sim_kparts *k = kp(s, id);
    s->kst[id] = 0;
    if (k->hp > 0 || k->hq > 0) {
        if (begin_task(s, CL_GPU, k->hp * s->scale, id, TASK_HELPER))
            return -1;
    } else {
        s->kst[id] = K_HP | K_HQ;
    }
    return main_task(s, id, SEG_PRE, k->pre);
}

/* The kernel model: the device is free; the next unit whose host work
 * before its kernels is done takes it. */
static int try_kernels(struct sim *s, int d)
{
    if (s->dev_busy[d] || !s->devq[d].n)
        return 0;
    uint32_t id = fifo_pop(&s->devq[d]);
    s->dev_busy[d] = 1;
    s->kt[2 * (size_t)id] = ns(s->t);
    return main_task(s, id, SEG_K1, kp(s, id)->k1);
}

static void worker_free(struct sim *s, const struct unit *u)
{
    fifo_push(&s->idle, (uint32_t)u->worker * (uint32_t)s->p->devices + (uint32_t)u->device);
}

/* The unit's prep latency (GPU_PICKUP or its device free, to GPU_START)
 * runs, then its GPU phase starts. */
static int start_prep(struct sim *s, uint32_t id)
{
    double l = sample(&s->p->prep, &s->rng);
    return l > 0 ? begin(s, CL_PREP, l, id) : start_gpu(s, id);
}

/* The device is free: its next picked-up unit goes on. */
static int try_device(struct sim *s, int d)
{
    if (s->dev_busy[d] || !s->devq[d].n)
        return 0;
    uint32_t id = fifo_pop(&s->devq[d]);
    s->dev_busy[d] = 1;
    return start_prep(s, id);
}

/* The worker has the unit (GPU_PICKUP): it waits for its device (under
 * the kernel model, only its kernels wait: its prep latency runs now). */
static int picked(struct sim *s, uint32_t id)
{
    struct unit *u = &s->u[id];
    u->t[EV_GPU_PICKUP] = ns(s->t);
    if (s->p->kernel_model)
        return start_prep(s, id);
    fifo_push(&s->devq[u->device], id);
    return try_device(s, u->device);
}

/* A free worker takes the unit; it has it after the dispatch latency. */
static int pickup(struct sim *s, uint32_t worker, uint32_t id)
{
    struct unit *u = &s->u[id];
    u->worker = (int32_t)(worker / (uint32_t)s->p->devices);
    u->device = (int32_t)(worker % (uint32_t)s->p->devices);
    double l = sample(&s->p->pickup, &s->rng);
    return l > 0 ? begin(s, CL_PICK, l, id) : picked(s, id);
}

static void send(struct sim *s, uint32_t id)
{
    s->u[id].t[EV_CHAN_SEND] = ns(s->t);
    s->permits--; /* the permit goes back once the channel has the unit */
}

static int dispatch(struct sim *s)
{
    const int k = s->p->channel;
    for (;;) {
        if (s->idle.n && s->chan.n) {
            uint32_t id = fifo_pop(&s->chan);
            if (pickup(s, fifo_pop(&s->idle), id))
                return -1;
            if (s->blocked.n && s->chan.n < (size_t)k) {
                uint32_t b = fifo_pop(&s->blocked);
                send(s, b);
                fifo_push(&s->chan, b);
            }
        } else if (s->idle.n && s->blocked.n && k == 0) {
            uint32_t b = fifo_pop(&s->blocked); /* a rendezvous: straight to the worker */
            send(s, b);
            if (pickup(s, fifo_pop(&s->idle), b))
                return -1;
        } else {
            break;
        }
    }
    return start_synth(s);
}

/* The kernel model: the unit's kernels and its helper are both done. */
static int after_both(struct sim *s, uint32_t id)
{
    return main_task(s, id, SEG_POST, kp(s, id)->post);
}

/* The kernel model: the helper thread's part is done. */
static int helper_done(struct sim *s, uint32_t id)
{
    if (!(s->kst[id] & K_HP)) { /* prep_msm: the barrier opens, b_g2_msm follows */
        s->kst[id] |= K_HP;
        if (s->kst[id] & K_BARRIER) {
            s->kst[id] &= (uint8_t)~K_BARRIER;
            if (main_task(s, id, SEG_K2, kp(s, id)->k2))
                return -1;
        }
        return begin_task(s, CL_GPU, kp(s, id)->hq * s->scale, id, TASK_HELPER);
    }
    s->kst[id] |= K_HQ;
    return s->kst[id] & K_KERNELS ? after_both(s, id) : 0;
}

/* The kernel model: a part of the GPU phase on the worker's thread is done. */
static int main_done(struct sim *s, uint32_t id)
{
    struct unit *u = &s->u[id];
    switch (s->seg[id]) {
    case SEG_PRE: /* its kernels wait for the device */
        fifo_push(&s->devq[u->device], id);
        return try_kernels(s, u->device);
    case SEG_K1: /* the barrier: the rest of the kernels need the helper's first part */
        if (!kp(s, id)->barrier || (s->kst[id] & K_HP))
            return main_task(s, id, SEG_K2, kp(s, id)->k2);
        s->kst[id] |= K_BARRIER;
        return 0;
    case SEG_K2:
        s->kt[2 * (size_t)id + 1] = ns(s->t);
        s->dev_busy[u->device] = 0;
        s->kst[id] |= K_KERNELS;
        if (try_kernels(s, u->device) || ((s->kst[id] & K_HQ) && after_both(s, id)))
            return -1;
        if (!s->p->worker_at_unlock)
            return 0;
        worker_free(s, u);
        return dispatch(s);
    default:
        u->t[EV_GPU_END] = ns(s->t);
        s->in_gpu--;
        if (s->p->worker_at_unlock)
            return 0;
        worker_free(s, u);
        return dispatch(s);
    }
}

static int finish(struct sim *s, int cl, uint32_t id, uint32_t tag)
{
    struct unit *u = &s->u[id];
    switch (cl) {
    case CL_SYNTH:
        u->t[EV_SYNTH_END] = ns(s->t);
        if (s->chan.n < (size_t)s->p->channel) {
            send(s, id);
            fifo_push(&s->chan, id);
        } else {
            fifo_push(&s->blocked, id); /* holds its permit */
        }
        return dispatch(s);
    case CL_PREP:
        return start_gpu(s, id);
    case CL_PICK:
        return picked(s, id);
    default:
        if (s->p->kernel_model)
            return tag == TASK_HELPER ? helper_done(s, id) : main_done(s, id);
        u->t[EV_GPU_END] = ns(s->t);
        s->dev_busy[u->device] = 0;
        worker_free(s, u);
        if (try_device(s, u->device))
            return -1;
        return dispatch(s);
    }
}

/* One event: the next arrival or the earliest finish of any kind.  0, or
 * -1: out of memory, or s->too_long. */
static int step(struct sim *s)
{
    double arrival = INFINITY;
    if (s->arrived < s->p->jobs)
        arrival = job_arrival(s->p, s->arrived);
    double f[CL_N];
    int n[3] = {s->n[CL_SYNTH], s->n[CL_PREP], s->p->kernel_model ? s->in_gpu : s->n[CL_GPU]};
    sim_slowdowns(s->p, n, f);
    f[CL_PICK] = 1;
    double dt = arrival - s->t;
    int next = -1;
    for (int k = 0; k < CL_N; k++)
        if (s->h[k].n) {
            double d = (s->h[k].a[0].key - s->v[k]) * f[k];
            if (d < 0)
                d = 0;
            if (d < dt) {
                dt = d;
                next = k;
            }
        }
    s->events++;
    if (dt > 0) {
        s->t += dt;
        for (int k = 0; k < CL_N; k++)
            s->v[k] += dt / f[k];
    }
    if (s->t > SIM_MAX_S) {
        s->too_long = 1;
        return -1;
    }
    if (next < 0) {
        s->avail += job_units(s->p, s->arrived++);
        return start_synth(s);
    }
    struct hent e = heap_pop(&s->h[next]);
    s->v[next] = e.key; /* exactly, against drift */
    s->n[next]--;
    return finish(s, next, e.unit, e.kind >> 4);
}

static int build_jobs(const struct sim_params *p, struct sim_out *o)
{
    struct run *r = &o->run;
    r->jobs = calloc(p->jobs, sizeof *r->jobs);
    o->ids = malloc(p->jobs * 16);
    if (!r->jobs || !o->ids)
        return -1;
    r->njobs = r->jobs_cap = p->jobs;
    char *w = o->ids;
    for (uint64_t j = 0; j < p->jobs; j++) {
        char digits[24];
        int nd = 0;
        uint64_t v = j;
        do {
            digits[nd++] = (char)('0' + v % 10);
            v /= 10;
        } while (v);
        memcpy(w, "sim-", 4);
        for (int i = 0; i < nd; i++)
            w[4 + i] = digits[nd - 1 - i];
        int n = 4 + nd;
        r->jobs[j] = (struct job){.id = w, .len = (uint32_t)n, .units = (uint32_t)job_units(p, j), .hash = j};
        w += n;
    }
    return 0;
}

/* The kernel model's KERNEL phases, as a trace's other events (by unit,
 * in time order), so that the simulated run's analysis has its kernel
 * utilization as a measured run's has. */
static int kernel_phases(const struct sim *s, struct sim_out *o)
{
    struct run *r = &o->run;
    uint32_t start, end;
    o->strs = calloc(1, sizeof *o->strs);
    if (!o->strs || strtab_intern(o->strs, "KERNEL_START", 12, &start) ||
        strtab_intern(o->strs, "KERNEL_END", 10, &end))
        return -1;
    r->strs = o->strs;
    r->xev = malloc(s->nunits * 2 * sizeof *r->xev);
    if (!r->xev)
        return -1;
    r->nxev = r->xev_cap = s->nunits * 2;
    for (size_t i = 0; i < s->nunits; i++) {
        uint64_t line = r->units[i].line;
        r->xev[2 * i] = (struct xitem){.t = s->kt[2 * i], .line = line, .unit = (uint32_t)i, .name = start};
        r->xev[2 * i + 1] = (struct xitem){.t = s->kt[2 * i + 1], .line = line, .unit = (uint32_t)i, .name = end};
    }
    return 0;
}

int sim_run(const struct sim_params *p, struct sim_out *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    double t0 = now_s();
    struct sim s = {.p = p, .rng = p->seed ^ 0x5157a7e5eed5ull};
    s.nunits = (size_t)sim_units(p);
    /* the trace's own jobs take its per-unit times as they are */
    s.scale = p->job_units ? 1 : (double)p->calib_partitions / p->partitions;
    size_t nw = (size_t)p->gpu_workers * (size_t)p->devices;
    int rc = -1, unfinished = 0;
    s.u = big_alloc(s.nunits * sizeof *s.u);
    s.devq = calloc((size_t)p->devices, sizeof *s.devq);
    s.dev_busy = calloc((size_t)p->devices, 1);
    if (p->kernel_model) {
        s.seg = malloc(s.nunits);
        s.kst = malloc(s.nunits);
        s.kidx = malloc(s.nunits * sizeof *s.kidx);
        s.kt = big_alloc(s.nunits * 2 * sizeof *s.kt);
        if (!s.seg || !s.kst || !s.kidx || !s.kt)
            goto out;
    }
    if (!s.u || !s.devq || !s.dev_busy || fifo_init(&s.chan, (size_t)p->channel + 1) ||
        fifo_init(&s.blocked, (size_t)p->synth_concurrency + 1) || fifo_init(&s.idle, nw + 1))
        goto out;
    for (int d = 0; d < p->devices; d++)
        if (fifo_init(&s.devq[d], (size_t)p->gpu_workers + 1))
            goto out;
    for (size_t i = 0, j = 0, k = 0; i < s.nunits; i++) {
        struct unit *u = &s.u[i];
        for (int e = 0; e < EV_N; e++)
            u->t[e] = T_NONE;
        size_t nj = job_units(p, j);
        u->job = (uint32_t)j;
        u->partition = nj > 1 ? (int32_t)k : -1;
        if (++k == nj)
            j++, k = 0;
        u->worker = -1;
        u->device = 0;
        u->line = i + 1;
        u->flags = 0;
    }
    for (uint32_t w = 0; w < nw; w++)
        fifo_push(&s.idle, w); /* device-major round robin: w % devices is the device */
    while (s.h[CL_SYNTH].n || s.h[CL_PREP].n || s.h[CL_GPU].n || s.h[CL_PICK].n || s.arrived < p->jobs)
        if (step(&s))
            goto out;
    for (size_t i = 0; i < s.nunits; i++)
        if (s.u[i].t[EV_GPU_END] == T_NONE) { /* cannot happen: every unit is proved */
            snprintf(err, errlen, "internal error: unit %zu never finished", i);
            unfinished = 1;
            goto out;
        }
    o->events = s.events;
    o->run.source = "simulation";
    o->run.prov = (struct provenance){"simulated", "event", "simulated"}; /* numbered as a trace's events; never measured */
    o->run.index = 1;
    o->run.units = s.u;
    o->run.nunits = o->run.units_cap = s.nunits;
    o->run.events = s.nunits * EV_N + (p->kernel_model ? s.nunits * 2 : 0); /* and the KERNEL phases' */
    s.u = NULL;
    if (build_jobs(p, o) || (p->kernel_model && kernel_phases(&s, o)))
        goto out;
    double t1 = now_s();
    if (analyze_run(&o->run, &o->res))
        goto out;
    o->sim_s = t1 - t0;
    o->analyze_s = now_s() - t1;
    rc = 0;
out:
    big_free(s.u, s.nunits * sizeof *s.u);
    for (int k = 0; k < CL_N; k++)
        free(s.h[k].a);
    free(s.chan.a);
    free(s.blocked.a);
    free(s.idle.a);
    if (s.devq)
        for (int d = 0; d < p->devices; d++)
            free(s.devq[d].a);
    free(s.devq);
    free(s.dev_busy);
    free(s.seg);
    free(s.kst);
    free(s.kidx);
    big_free(s.kt, s.kt ? s.nunits * 2 * sizeof *s.kt : 0);
    if (rc) {
        sim_out_free(o);
        o->too_long = s.too_long;
        if (s.too_long)
            snprintf(err, errlen,
                     "the simulated run would last past %.0e s (the nanosecond timestamps would overflow): give "
                     "shorter times, fewer jobs or a faster --rate",
                     SIM_MAX_S);
        else if (!unfinished)
            snprintf(err, errlen, "out of memory");
    }
    return rc;
}

size_t sim_best(const double *spj, size_t n, double tol)
{
    double least = INFINITY;
    for (size_t i = 0; i < n; i++)
        if (spj[i] > 0 && spj[i] < least)
            least = spj[i];
    for (size_t i = 0; i < n; i++)
        if (spj[i] > 0 && spj[i] <= least * (1 + tol))
            return i;
    return 0;
}

/* The simulated units, jobs and kernel phases; not the names, which
 * the figures' phase rows may still name. */
static void drop_units(struct sim_out *o)
{
    big_free(o->run.units, o->run.nunits * sizeof *o->run.units);
    free(o->run.jobs);
    free(o->ids);
    free(o->run.xev);
    o->run.units = NULL;
    o->run.jobs = NULL;
    o->ids = NULL;
    o->run.xev = NULL;
    o->run.nxev = o->run.xev_cap = 0;
}

void sim_out_drop_run(struct sim_out *o)
{
    drop_units(o);
}

void sim_out_free(struct sim_out *o)
{
    run_result_free(&o->res);
    drop_units(o);
    if (o->strs) {
        strtab_free(o->strs);
        free(o->strs);
    }
    memset(o, 0, sizeof *o);
}
