/*
 * engine.c -- the pipeline: jobs arrive, C synthesis threads build
 * witnesses, a bounded channel hands them to W workers on each of D
 * devices, which prove them.
 *
 * The semaphore: a synthesis thread takes a permit before it starts a unit
 * and gives it back only once the channel has accepted the unit.  So at
 * most C units are in synthesis or waiting to enter a full channel, and a
 * slow GPU stops synthesis instead of letting witnesses pile up in memory.
 *
 * Marks: SYNTH_START/SYNTH_END around synthesis, CHAN_SEND just before the
 * unit goes into the channel (so it is never after the pickup), and on the
 * worker GPU_PICKUP when it leaves the channel, GPU_START/GPU_END around
 * the device's proof.  Host-side prep between pickup and start checks the
 * witness (a∘b = c), as a real worker validates and stages its input, and
 * waits for the device's kernel lock when there is one.
 *
 * Inside GPU_START..GPU_END the backend reports its sub-phases
 * (device.h, enum prove_phase), marked as user events on the thread that
 * marks GPU_START and GPU_END: KERNEL_START/KERNEL_END around the device's
 * computation, CHECK_START/CHECK_END around the host's check of its
 * result (the cpu device; the emulated one has no host work there).  The
 * event ids are defined once, in engine_run, before the recording opens.
 */
#include "engine.h"

#include "channel.h"
#include "device.h"
#include "field.h"

#include <waterfall.h>

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct unit_work {
    uint64_t index;
    int job, partition;
    wf_unit wu;
    r1cs_witness w;
};

/* Witnesses are recycled: a unit's buffers go back to the pool when its
 * proof is done.  Fresh memory costs a page fault per 4 KiB, which on this
 * kind of machine is more than the synthesis itself at small sizes; the
 * pool holds at most the units in flight, which the semaphore and the
 * channel bound. */
struct pool {
    pthread_mutex_t mu;
    struct unit_work **free;
    size_t n, cap;
};

struct engine {
    const struct engine_config *cfg;
    unsigned rounds; /* synthesis rounds, from the config or calibrate() */
    struct pool pool;
    const struct device_ops *ops;
    struct device dev[64];
    struct channel chan;
    sem_t permits;
    _Atomic uint64_t next_unit;
    uint64_t total_units;
    double t0;
    _Atomic int synth_now, synth_max;
    _Atomic uint64_t errors, done, first_error;
};

/* The user events of the sub-phases: their ids, defined once by engine_run
 * (the same names always give the same ids, so a second run finds them
 * equal); a negative id (the table was full) is not marked. */
static const char *const phase_names[PHASE_COUNT][2] = {
    [PHASE_KERNEL] = {"KERNEL_START", "KERNEL_END"},
    [PHASE_CHECK] = {"CHECK_START", "CHECK_END"},
};
static int phase_ev[PHASE_COUNT][2];

struct worker_arg {
    struct engine *e;
    int device, worker;
};

void engine_defaults(struct engine_config *c)
{
    memset(c, 0, sizeof *c);
    /* The demo's workload: synthesis about 1.44x the emulated device time
     * per unit, as in the story (39 s against 27 s), scaled to ~20 ms.
     * Measured on this project's machines: a 2^17 proof takes ~45 ms on one
     * core, so at speed-up 2 the device holds ~22 ms; the synthesis rounds
     * are chosen at start from the same measurement (calibrate()), since
     * the ratio of synthesis to NTT speed differs from CPU to CPU. */
    c->jobs = 60;
    c->partitions = 1;
    c->synth_concurrency = 1;
    c->gpu_workers = 3; /* others stage the next units while one proves */
    c->devices = 1;
    c->channel = 6; /* room to absorb the bursts of a shared machine */
    c->log_n = 17;
    /* Synthesis rounds are chosen at start so that synthesis alone takes
     * 39/27 = 1.44x the device time, the cuzk figures' ratio (whose
     * concurrency 1 measured 70.9% GPU utilization). */
    c->synth_rounds = 0;
    c->synth_ratio = 39.0 / 27.0;
    c->kernel_lock = 1;
    c->device = "emulated";
    c->speedup = 2.0;
    c->seed = 1;
    c->corrupt_unit = -1;
    c->pin = 1;
}

static size_t phys_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? (size_t)pages * (size_t)size : 0;
}

int engine_validate(const struct engine_config *c, char *err, size_t errlen)
{
#define NEED(cond, ...)                              \
    do {                                             \
        if (!(cond)) {                               \
            snprintf(err, errlen, __VA_ARGS__);      \
            return -1;                               \
        }                                            \
    } while (0)
    NEED(c->jobs >= 1 && c->jobs <= 10000000, "--jobs must be 1 to 10000000, not %d", c->jobs);
    NEED(c->partitions >= 1 && c->partitions <= 10000, "--partitions must be 1 to 10000, not %d", c->partitions);
    NEED((uint64_t)c->jobs * (uint64_t)c->partitions <= 100000000ull, "--jobs x --partitions is over 100 million units");
    NEED(c->synth_concurrency >= 1 && c->synth_concurrency <= 1024,
         "--synth-concurrency must be 1 to 1024, not %d", c->synth_concurrency);
    NEED(c->gpu_workers >= 1 && c->gpu_workers <= 64, "--gpu-workers must be 1 to 64, not %d", c->gpu_workers);
    NEED(c->devices >= 1 && c->devices <= 64, "--devices must be 1 to 64, not %d", c->devices);
    NEED(c->channel >= 1 && c->channel <= 1000000, "--channel must be 1 to 1000000, not %d", c->channel);
    NEED(c->log_n >= 4 && c->log_n <= 26, "--size must be 2^4 to 2^26 constraints (got 2^%u)", c->log_n);
    NEED(c->synth_rounds <= 10000, "--synth-rounds must be 1 to 10000 (0: from --synth-ratio)");
    NEED(c->synth_ratio > 0 && c->synth_ratio <= 1000, "--synth-ratio must be above 0");
    NEED(c->rate >= 0 && c->rate < 1e9, "--rate must be a number of jobs per second, 0 for all at once");
    NEED(c->speedup > 0 && c->speedup <= 1e6, "--speedup must be above 0");
    NEED(c->device_time >= 0 && c->device_time <= 3600, "--device-time must be 0 to 3600000 ms");
    NEED(c->device && device_find(c->device), "--device must be cpu or emulated, not '%s'",
         c->device ? c->device : "");
    /* Memory: every unit in flight holds a witness; every cpu worker a prover. */
    size_t in_flight = (size_t)c->synth_concurrency + (size_t)c->channel +
                       (size_t)c->gpu_workers * (size_t)c->devices;
    size_t witness = (size_t)3 * ((size_t)1 << c->log_n) * sizeof(gl);
    size_t provers = (size_t)c->gpu_workers * (size_t)c->devices + 1;
    double need = (double)in_flight * (double)witness + (double)provers * (double)r1cs_bytes(c->log_n);
    size_t have = phys_bytes();
    NEED(have == 0 || need < 0.75 * (double)have,
         "this run needs about %.1f GiB for witnesses and provers (%zu units in flight of 2^%u "
         "constraints), more than 3/4 of this machine's %.1f GiB: lower --size, --channel or concurrency",
         need / 1073741824.0, in_flight, c->log_n, (double)have / 1073741824.0);
    return 0;
#undef NEED
}

/* Time the prover and synthesis on this CPU at the run's size, seven times
 * each, interleaved, and keep the fastest of each: interference only ever
 * adds time, so the minimum is what the CPU can do, and a slow spell of a
 * shared machine during part of the calibration does not move it (the
 * median did, by 30% now and then).  From them: the cpu proof time (the
 * emulated device's model), and, unless given, the synthesis rounds that
 * make synthesis take synth_ratio times the device's time per unit. */
static double min7(const double *v)
{
    double m = v[0];
    for (int i = 1; i < 7; i++)
        m = fmin(m, v[i]);
    return m;
}

static int calibrate(const struct engine_config *c, struct engine_result *r, char *err, size_t errlen)
{
    /* Synthesis in the run writes a different witness each time (the pool
     * cycles through the units in flight), so it meets cold caches; here it
     * cycles through up to four witnesses for the same reason (measured:
     * one warm witness made synthesis look 10-15% faster than in the run). */
    r1cs_witness w[4];
    r1cs_prover p;
    size_t bytes = (size_t)3 * ((size_t)1 << c->log_n) * sizeof(gl);
    int nw = bytes > ((size_t)64 << 20) ? 1 : 4;
    memset(w, 0, sizeof w);
    int rc = r1cs_prover_init(&p, c->log_n);
    for (int k = 0; k < nw && rc == 0; k++)
        rc = r1cs_witness_alloc(&w[k], c->log_n);
    if (rc) {
        for (int k = 0; k < nw; k++)
            r1cs_witness_free(&w[k]);
        r1cs_prover_free(&p);
        snprintf(err, errlen, "out of memory for a witness and a prover of 2^%u constraints", c->log_n);
        return -1;
    }
    double prove = 1e30, s1[7], s4[7];
    for (int i = 0; i < 7; i++) {
        r1cs_witness *wi = &w[i % nw], *wj = &w[(i + 1) % nw];
        double t0 = device_now();
        r1cs_synthesize(wi, c->seed + (uint64_t)i, 1);
        double t1 = device_now();
        r1cs_synthesize(wj, c->seed + (uint64_t)i, 4);
        double t2 = device_now();
        r1cs_proof pr;
        r1cs_prove(&p, wj, (uint64_t)i, &pr);
        double t3 = device_now();
        s1[i] = t1 - t0;
        s4[i] = t2 - t1;
        prove = fmin(prove, t3 - t2);
    }
    r1cs_prover_free(&p);
    for (int k = 0; k < nw; k++)
        r1cs_witness_free(&w[k]);
    double m1 = min7(s1), m4 = min7(s4);
    double per_round = fmax((m4 - m1) / 3, 1e-9), base = fmax(m1 - per_round, 0);
    double device = !device_find(c->device)->emulated ? prove
                    : c->device_time > 0                ? c->device_time
                                                        : prove / c->speedup;
    unsigned rounds = c->synth_rounds;
    if (!rounds) {
        double want = (c->synth_ratio * device - base) / per_round;
        rounds = want < 1 ? 1 : want > 10000 ? 10000 : (unsigned)(want + 0.5);
    }
    r->cpu_prove_s = prove;
    r->synth_rounds = rounds;
    r->synth_s = base + rounds * per_round;
    return 0;
}

static struct unit_work *unit_get(struct engine *e)
{
    struct unit_work *u = NULL;
    pthread_mutex_lock(&e->pool.mu);
    if (e->pool.n)
        u = e->pool.free[--e->pool.n];
    pthread_mutex_unlock(&e->pool.mu);
    if (u)
        return u;
    u = calloc(1, sizeof *u);
    if (u && r1cs_witness_alloc(&u->w, e->cfg->log_n)) {
        free(u);
        u = NULL;
    }
    return u;
}

static void unit_put(struct engine *e, struct unit_work *u)
{
    pthread_mutex_lock(&e->pool.mu);
    if (e->pool.n == e->pool.cap) {
        size_t ncap = e->pool.cap ? e->pool.cap * 2 : 16;
        struct unit_work **nf = realloc(e->pool.free, ncap * sizeof *nf);
        if (nf) {
            e->pool.free = nf;
            e->pool.cap = ncap;
        }
    }
    if (e->pool.n < e->pool.cap) {
        e->pool.free[e->pool.n++] = u;
        u = NULL;
    }
    pthread_mutex_unlock(&e->pool.mu);
    if (u) {
        r1cs_witness_free(&u->w);
        free(u);
    }
}

/* Spread synthesis threads over the cores.  Left to itself the scheduler
 * wakes a thread on the core of the thread that woke it (the channel and
 * the semaphore wake them often), and two syntheses share one core for
 * milliseconds at a time: measured here, that made each synthesis 1.6x
 * slower with two of them, though two run side by side at full speed. */
static void pin_to(int slot)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 2)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(slot % ncpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

struct synth_arg {
    struct engine *e;
    int slot;
};

static void *synth_main(void *arg)
{
    struct synth_arg *sa = arg;
    struct engine *e = sa->e;
    const struct engine_config *c = e->cfg;
    if (c->pin)
        pin_to(sa->slot);
    wf_thread_name("synthesis");
    for (;;) {
        uint64_t i = atomic_fetch_add(&e->next_unit, 1);
        if (i >= e->total_units)
            break;
        int job = (int)(i / (uint64_t)c->partitions), part = (int)(i % (uint64_t)c->partitions);
        if (c->rate > 0)
            device_sleep_until(e->t0 + (double)job / c->rate);
        struct unit_work *u = unit_get(e);
        if (!u) {
            atomic_fetch_add(&e->errors, 1);
            continue;
        }
        u->index = i;
        u->job = job;
        u->partition = part;
        char id[32];
        snprintf(id, sizeof id, "job-%d", job);
        u->wu = wf_unit_new(id, c->partitions > 1 ? part : -1);

        while (sem_wait(&e->permits) == -1 && errno == EINTR)
            ;
        int now = atomic_fetch_add(&e->synth_now, 1) + 1;
        for (int m = atomic_load(&e->synth_max); now > m && !atomic_compare_exchange_weak(&e->synth_max, &m, now);)
            ;
        wf_mark(WF_SYNTH_START, u->wu);
        r1cs_synthesize(&u->w, c->seed * 0x9E3779B97F4A7C15ull + i, e->rounds);
        if (c->corrupt_unit >= 0 && (uint64_t)c->corrupt_unit == i)
            u->w.c[u->w.n / 2] = gl_add(u->w.c[u->w.n / 2], 1);
        wf_mark(WF_SYNTH_END, u->wu);
        atomic_fetch_sub(&e->synth_now, 1);
        wf_mark(WF_CHAN_SEND, u->wu);
        if (channel_send(&e->chan, u))
            unit_put(e, u);
        sem_post(&e->permits); /* the channel took it: the permit goes back */
    }
    return NULL;
}

static void mark_start(void *u)
{
    wf_mark(WF_GPU_START, ((struct unit_work *)u)->wu);
}

static void mark_end(void *u)
{
    wf_mark(WF_GPU_END, ((struct unit_work *)u)->wu);
}

static void mark_phase(void *u, enum prove_phase p, int end)
{
    int ev = phase_ev[p][end != 0];
    if (ev >= 0)
        wf_mark((wf_event)ev, ((struct unit_work *)u)->wu);
}

static void *gpu_main(void *arg)
{
    struct worker_arg *wa = arg;
    struct engine *e = wa->e;
    struct device *d = &e->dev[wa->device];
    char name[32];
    snprintf(name, sizeof name, "gpu%d-worker%d", wa->device, wa->worker);
    wf_thread_name(name);
    wf_thread_worker(wa->worker, wa->device);
    struct device_worker w = {.dev = d};
    if (e->ops->worker_init(&w, e->cfg)) {
        fprintf(stderr, "waterfall run: %s: out of memory for the prover\n", name);
        /* keep draining so synthesis does not block forever */
    }
    for (;;) {
        struct unit_work *u = channel_recv(&e->chan);
        if (!u)
            break;
        wf_mark(WF_GPU_PICKUP, u->wu);
        int ok = r1cs_check(&u->w); /* host-side prep: validate the input */
        r1cs_proof proof = {0, 0};
        if (ok && (w.state || e->ops->emulated)) {
            struct prove_hooks h = {mark_start, mark_end, mark_phase, u, wa->worker};
            e->ops->prove(&w, &u->w, u->index ^ 0x5eed, &proof, &h);
        }
        if (!ok || !proof.ok) {
            if (atomic_fetch_add(&e->errors, 1) == 0)
                atomic_store(&e->first_error, u->index);
        }
        atomic_fetch_add(&e->done, 1);
        unit_put(e, u);
    }
    e->ops->worker_fini(&w);
    return NULL;
}

static int write_truth(const struct engine *e, const struct engine_result *r, char *err, size_t errlen)
{
    FILE *f = fopen(e->cfg->truth, "w");
    if (!f) {
        snprintf(err, errlen, "%s: cannot write: %s", e->cfg->truth, strerror(errno));
        return -1;
    }
    fprintf(f, "{\"units\": %llu, \"errors\": %llu, \"device_backend\": \"%s\", \"emulated\": %s, \"devices\": [",
            (unsigned long long)r->units, (unsigned long long)r->errors, e->ops->name,
            e->ops->emulated ? "true" : "false");
    for (int d = 0; d < r->ndev; d++)
        fprintf(f, "%s{\"device\": %d, \"busy_s\": %.9f, \"kernel_busy_s\": %.9f}", d ? ", " : "", d,
                r->busy_s[d], r->kernel_busy_s[d]);
    fprintf(f,
            "], \"channel_max\": %zu, \"synth_max\": %d, \"wall_s\": %.6f, \"synth_rounds\": %u, "
            "\"calibration\": {\"cpu_prove_s\": %.6f, \"synth_s\": %.6f, \"device_unit_s\": %.6f}}\n",
            r->channel_max, r->synth_max, r->wall_s, r->synth_rounds, r->cpu_prove_s, r->synth_s,
            e->ops->emulated ? r->emulated_unit_s : r->cpu_prove_s);
    if (fclose(f) != 0) {
        snprintf(err, errlen, "%s: write failed", e->cfg->truth);
        return -1;
    }
    return 0;
}

/* Start the devices: 0, or -1 (those started are stopped again). */
static int devices_start(struct engine *e, const struct engine_config *c, char *err, size_t errlen)
{
    for (int d = 0; d < c->devices; d++) {
        e->dev[d].id = d;
        e->dev[d].ops = e->ops;
        pthread_mutex_init(&e->dev[d].busy.mu, NULL);
        pthread_mutex_init(&e->dev[d].kernel.mu, NULL);
        pthread_mutex_init(&e->dev[d].kernel_lock, NULL);
        e->dev[d].serial = c->kernel_lock;
        if (e->ops->device_init(&e->dev[d])) {
            snprintf(err, errlen, "cannot start device %d", d);
            for (int k = 0; k < d; k++)
                e->ops->device_fini(&e->dev[k]);
            return -1;
        }
    }
    return 0;
}

/* Run the pipeline's threads to the end: the GPU workers, then the
 * syntheses; 0, or -1 when not all could start (then the syntheses stop
 * early and the message is in err). */
static int threads_run(struct engine *e, const struct engine_config *c, char *err, size_t errlen)
{
    int nsynth = c->synth_concurrency;
    int nworkers = c->gpu_workers * c->devices;
    pthread_t *st = calloc((size_t)nsynth, sizeof *st), *gt = calloc((size_t)nworkers, sizeof *gt);
    struct worker_arg *wa = calloc((size_t)nworkers, sizeof *wa);
    struct synth_arg *sa = calloc((size_t)nsynth, sizeof *sa);
    int started_s = 0, started_g = 0, rc = 0;
    e->t0 = device_now();
    if (st && gt && wa && sa) {
        for (int i = 0; i < nworkers; i++) {
            wa[i] = (struct worker_arg){e, i / c->gpu_workers, i % c->gpu_workers};
            if (pthread_create(&gt[i], NULL, gpu_main, &wa[i]) == 0)
                started_g++;
        }
        for (int i = 0; i < nsynth; i++) {
            sa[i] = (struct synth_arg){e, i};
            if (pthread_create(&st[i], NULL, synth_main, &sa[i]) == 0)
                started_s++;
        }
    }
    if (started_s < nsynth || started_g < nworkers) {
        snprintf(err, errlen, "could not start %d synthesis and %d GPU worker threads",
                 nsynth, nworkers);
        rc = -1;
        atomic_store(&e->next_unit, e->total_units); /* stop synthesis */
    }
    for (int i = 0; i < started_s; i++)
        pthread_join(st[i], NULL);
    channel_close(&e->chan);
    for (int i = 0; i < started_g; i++)
        pthread_join(gt[i], NULL);
    free(st);
    free(gt);
    free(wa);
    free(sa);
    return rc;
}

/* What the run measured, into r; the devices' logs are freed. */
static void results_take(struct engine *e, const struct engine_config *c, struct engine_result *r)
{
    r->units = atomic_load(&e->done);
    r->errors = atomic_load(&e->errors);
    r->first_error_unit = atomic_load(&e->first_error);
    r->channel_max = e->chan.max_count;
    r->synth_max = atomic_load(&e->synth_max);
    r->emulated_unit_s = e->ops->emulated ? e->ops->unit_seconds() : 0;
    r->ndev = c->devices;
    for (int d = 0; d < c->devices; d++) {
        r->busy_s[d] = busy_union(&e->dev[d].busy);
        r->kernel_busy_s[d] = busy_union(&e->dev[d].kernel);
        free(e->dev[d].busy.start);
        free(e->dev[d].busy.end);
        free(e->dev[d].kernel.start);
        free(e->dev[d].kernel.end);
        pthread_mutex_destroy(&e->dev[d].busy.mu);
        pthread_mutex_destroy(&e->dev[d].kernel.mu);
        pthread_mutex_destroy(&e->dev[d].kernel_lock);
    }
}

int engine_run(const struct engine_config *c, struct engine_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (engine_validate(c, err, errlen))
        return -1;
    struct engine *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    e->cfg = c;
    e->ops = device_find(c->device);
    e->total_units = (uint64_t)c->jobs * (uint64_t)c->partitions;
    if (calibrate(c, r, err, errlen)) {
        free(e);
        return -1;
    }
    e->rounds = r->synth_rounds;
    for (int p = 0; p < PHASE_COUNT; p++)
        for (int k = 0; k < 2; k++)
            phase_ev[p][k] = wf_event_define(phase_names[p][k]);
    if (e->ops->setup(c, r->cpu_prove_s, err, errlen) || channel_init(&e->chan, (size_t)c->channel)) {
        if (!err[0])
            snprintf(err, errlen, "out of memory");
        free(e);
        return -1;
    }
    sem_init(&e->permits, 0, (unsigned)c->synth_concurrency);
    pthread_mutex_init(&e->pool.mu, NULL);
    if (devices_start(e, c, err, errlen)) {
        channel_destroy(&e->chan);
        free(e);
        return -1;
    }
    if (c->out) {
        int rc = wf_open(c->out);
        if (rc) {
            snprintf(err, errlen, "%s: cannot record: %s", c->out, strerror(-rc));
            channel_destroy(&e->chan);
            free(e);
            return -1;
        }
    }
    int rc = threads_run(e, c, err, errlen);
    for (int d = 0; d < c->devices; d++)
        e->ops->device_fini(&e->dev[d]);
    r->wall_s = device_now() - e->t0;
    if (c->out) {
        int crc = wf_close();
        if (crc && rc == 0) {
            snprintf(err, errlen, "%s: finishing the trace failed: %s", c->out, strerror(-crc));
            rc = -1;
        }
    }
    results_take(e, c, r);
    if (rc == 0 && c->truth && write_truth(e, r, err, errlen))
        rc = -1;
    sem_destroy(&e->permits);
    channel_destroy(&e->chan);
    for (size_t i = 0; i < e->pool.n; i++) {
        r1cs_witness_free(&e->pool.free[i]->w);
        free(e->pool.free[i]);
    }
    free(e->pool.free);
    pthread_mutex_destroy(&e->pool.mu);
    free(e);
    return rc ? -1 : 0;
}
