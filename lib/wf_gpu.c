/*
 * wf_gpu.c -- the driver's view of the GPUs: NVML, loaded with dlopen (so
 * the library has no build-time or link-time dependency on it and runs
 * unchanged where there is no driver), sampled by the writer thread at its
 * first pass 100 ms or more after the last: each device's utilization
 * series (nvmlDeviceGetSamples, the driver's own finer samples, where it
 * keeps them), its utilization rate and its SM clock.  The marking
 * threads do nothing more.
 *
 * What came of it is written once, as a GPU record: sampled, or why not
 * in words ("libnvidia-ml.so.1 not found", "nvmlInit_v2 failed: ...", "no
 * device"), which `waterfall dump --stats` prints as its gpu line.
 *
 * Loading and starting NVML is done on a thread of its own, started by the
 * writer's first pass: nvmlInit_v2 can take a second or more where the
 * driver is not kept loaded (no persistence mode), and the writer must go
 * on draining the rings meanwhile.  The writer writes the GPU and GPU_DEV
 * records once that thread is done, and only then samples; at wf_close it
 * waits for it WF_GPU_OPEN_WAIT_NS at most (a hung driver must not keep
 * the process from ending: then it is left running, and its memory kept).
 *
 * fork().  A child inherits NVML's state, started by its parent's threads,
 * which it does not have (their locks may be held): it never calls into
 * NVML, and its own recordings say so.
 *
 * The few NVML types and calls used are declared here as nvml.h has them
 * (opaque handles, enums as int), so that no NVML header is needed.
 */
#include "wf_internal.h"

#include "wf_clock.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- NVML, as nvml.h declares it (the subset used) --------------------- */

typedef int nvmlReturn_t; /* an enum in nvml.h: passed as an int */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
    unsigned int gpu, memory; /* percent over the driver's last sample period */
} nvmlUtilization_t;
typedef union {
    double dVal;
    int siVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    signed long long sllVal;
    unsigned short usVal;
} nvmlValue_t;
typedef struct {
    unsigned long long timeStamp; /* the host's time when the driver took it, us */
    nvmlValue_t sampleValue;
} nvmlSample_t;
enum { NVML_SUCCESS = 0, NVML_ERROR_NOT_FOUND = 6 };
enum { NVML_CLOCK_SM = 1 };                 /* nvmlClockType_t */
enum { NVML_GPU_UTILIZATION_SAMPLES = 1 };  /* nvmlSamplingType_t */
enum { NVML_VALUE_TYPE_DOUBLE = 0, NVML_VALUE_TYPE_UNSIGNED_INT = 1, NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
       NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3, NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
       NVML_VALUE_TYPE_SIGNED_INT = 5, NVML_VALUE_TYPE_UNSIGNED_SHORT = 6 };

struct nvml_fns {
    nvmlReturn_t (*init)(void);
    nvmlReturn_t (*shutdown)(void);
    const char *(*error_string)(nvmlReturn_t);
    nvmlReturn_t (*driver_version)(char *, unsigned int);
    nvmlReturn_t (*count)(unsigned int *);
    nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t *);
    nvmlReturn_t (*name)(nvmlDevice_t, char *, unsigned int);
    nvmlReturn_t (*uuid)(nvmlDevice_t, char *, unsigned int);
    nvmlReturn_t (*rates)(nvmlDevice_t, nvmlUtilization_t *);
    nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned int *);
    nvmlReturn_t (*samples)(nvmlDevice_t, int, unsigned long long, int *, unsigned int *, nvmlSample_t *);
};

#define WF_GPU_DEVICES WFT_GPU_DEVICES_MAX /* devices sampled, at most */
#define WF_GPU_OPEN_WAIT_NS 5000000000ull  /* wf_close waits this long for NVML to start */
#define WF_GPU_BATCH 512                    /* driver samples taken per device and cycle, at most */

/* This process is a fork()ed child of one that had started NVML. */
static int wf_gpu_forked;

struct wf_gpu {
    char path[256];     /* the library (the session's nvml_path) */
    pthread_t opener;   /* loads NVML (gpu_open_main) */
    int opener_started; /* 1: joined at the latest at the end */
    _Atomic int opened; /* the opener is done: rec and devs are ready */
    int announced;      /* the writer wrote them */
    struct wft_gpu rec;
    void *lib;
    struct nvml_fns f;
    int inited; /* nvmlInit_v2 succeeded: nvmlShutdown at the end */
    unsigned ndev;
    struct {
        nvmlDevice_t h;          /* NULL: NVML gave no handle, not sampled */
        unsigned long long seen; /* the driver's last sample taken */
        struct wft_gpu_dev rec;  /* its GPU_DEV record (WFT_GPUDEV_SERIES: the series works) */
    } dev[WF_GPU_DEVICES];
    uint64_t last_ns; /* when the devices were last sampled */
    nvmlSample_t buf[WF_GPU_BATCH];
};

/* ---- Loading ------------------------------------------------------------ */

/* Every call used, or the name of the first one missing. */
static const char *nvml_bind(struct wf_gpu *g)
{
    static const struct {
        const char *name;
        size_t off;
    } syms[] = {
        {"nvmlInit_v2", offsetof(struct nvml_fns, init)},
        {"nvmlShutdown", offsetof(struct nvml_fns, shutdown)},
        {"nvmlErrorString", offsetof(struct nvml_fns, error_string)},
        {"nvmlSystemGetDriverVersion", offsetof(struct nvml_fns, driver_version)},
        {"nvmlDeviceGetCount_v2", offsetof(struct nvml_fns, count)},
        {"nvmlDeviceGetHandleByIndex_v2", offsetof(struct nvml_fns, handle)},
        {"nvmlDeviceGetName", offsetof(struct nvml_fns, name)},
        {"nvmlDeviceGetUUID", offsetof(struct nvml_fns, uuid)},
        {"nvmlDeviceGetUtilizationRates", offsetof(struct nvml_fns, rates)},
        {"nvmlDeviceGetClockInfo", offsetof(struct nvml_fns, clock)},
        {"nvmlDeviceGetSamples", offsetof(struct nvml_fns, samples)},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *p = dlsym(g->lib, syms[i].name);
        if (!p)
            return syms[i].name;
        /* POSIX: a function pointer and a void * convert both ways */
        memcpy((char *)&g->f + syms[i].off, &p, sizeof p);
    }
    return NULL;
}

static const char *nvml_err(const struct wf_gpu *g, nvmlReturn_t rc)
{
    const char *e = g->f.error_string ? g->f.error_string(rc) : NULL;
    return e ? e : "unknown error";
}

/* Load and start NVML, describing the outcome in *rec (state, text). */
static void nvml_open(struct wf_gpu *g, struct wft_gpu *rec)
{
    if (wf_gpu_forked) {
        rec->state = WFT_GPU_NO_INIT;
        snprintf(rec->text, sizeof rec->text, "no NVML: started by the parent before fork()");
        return;
    }
    g->lib = dlopen(g->path, RTLD_NOW | RTLD_LOCAL);
    if (!g->lib) {
        rec->state = WFT_GPU_NO_LIB;
        snprintf(rec->text, sizeof rec->text, "no NVML: %.80s not found", g->path);
        return;
    }
    const char *missing = nvml_bind(g);
    if (missing) {
        rec->state = WFT_GPU_NO_INIT;
        snprintf(rec->text, sizeof rec->text, "no NVML: %.60s lacks %.40s", g->path, missing);
        return;
    }
    nvmlReturn_t rc = g->f.init();
    if (rc != NVML_SUCCESS) {
        rec->state = WFT_GPU_NO_INIT;
        snprintf(rec->text, sizeof rec->text, "no NVML: nvmlInit_v2 failed: %s", nvml_err(g, rc));
        return;
    }
    g->inited = 1;
    if (g->f.driver_version(rec->driver, sizeof rec->driver) != NVML_SUCCESS)
        rec->driver[0] = 0;
    unsigned n = 0;
    rc = g->f.count(&n);
    if (rc != NVML_SUCCESS || n == 0) {
        rec->state = WFT_GPU_NO_DEVICE;
        snprintf(rec->text, sizeof rec->text, "no device: NVML (driver %s) sees none%s%s",
                 rec->driver[0] ? rec->driver : "?", rc ? ": " : "", rc ? nvml_err(g, rc) : "");
        return;
    }
    g->ndev = n < WF_GPU_DEVICES ? n : WF_GPU_DEVICES;
    rec->state = WFT_GPU_SAMPLED;
    rec->devices = g->ndev;
    snprintf(rec->text, sizeof rec->text, "sampled by NVML (driver %s), %u device%s%s",
             rec->driver[0] ? rec->driver : "?", g->ndev, g->ndev == 1 ? "" : "s",
             n > g->ndev ? " (the first of more)" : "");
}

/* The opener: NVML loaded and started, the GPU record and a GPU_DEV
 * record per device made ready for the writer. */
static void *gpu_open_main(void *arg)
{
    struct wf_gpu *g = arg;
    nvml_open(g, &g->rec);
    for (unsigned i = 0; i < g->ndev; i++) {
        struct wft_gpu_dev *d = &g->dev[i].rec;
        d->device = i;
        if (g->f.handle(i, &g->dev[i].h) != NVML_SUCCESS) {
            g->dev[i].h = NULL;
            continue;
        }
        if (g->f.name(g->dev[i].h, d->name, sizeof d->name) != NVML_SUCCESS)
            d->name[0] = 0;
        if (g->f.uuid(g->dev[i].h, d->uuid, sizeof d->uuid) != NVML_SUCCESS)
            d->uuid[0] = 0;
        d->name[sizeof d->name - 1] = d->uuid[sizeof d->uuid - 1] = 0;
        /* The series is tried once here; a driver without it answers
         * NOT_SUPPORTED (NOT_FOUND only means no sample yet). */
        unsigned cnt = 0;
        int vt;
        nvmlReturn_t rc = g->f.samples(g->dev[i].h, NVML_GPU_UTILIZATION_SAMPLES, 0, &vt, &cnt, NULL);
        d->flags = rc == NVML_SUCCESS || rc == NVML_ERROR_NOT_FOUND ? WFT_GPUDEV_SERIES : 0;
    }
    atomic_store_explicit(&g->opened, 1, memory_order_release);
    return NULL;
}

/* Final: wait for the opener, WF_GPU_OPEN_WAIT_NS at most; 1 when it is
 * done (joined), 0 when it is still in NVML. */
static int opener_done(struct wf_gpu *g, int final)
{
    uint64_t until = wfc_mono_ns() + WF_GPU_OPEN_WAIT_NS;
    while (!atomic_load_explicit(&g->opened, memory_order_acquire)) {
        if (!final || wfc_mono_ns() >= until)
            return 0;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    if (g->opener_started) {
        pthread_join(g->opener, NULL);
        g->opener_started = 0;
    }
    return 1;
}

/* The opener's outcome into the trace, once it is done (final: wait, or
 * say that it is not). */
static int gpu_announce(struct wf_session *s, struct wf_gpu *g, int final)
{
    if (g->announced)
        return 1;
    if (!opener_done(g, final)) {
        if (!final)
            return 0;
        struct wft_gpu late;
        memset(&late, 0, sizeof late);
        late.state = WFT_GPU_NO_INIT;
        snprintf(late.text, sizeof late.text, "no NVML: nvmlInit_v2 still running at wf_close, after %u s",
                 (unsigned)(WF_GPU_OPEN_WAIT_NS / 1000000000u));
        wf_out_rec(s, WFT_GPU, &late, sizeof late);
        g->announced = 1; /* with opener_started still set: nothing is sampled */
        return 1;
    }
    wf_out_rec(s, WFT_GPU, &g->rec, sizeof g->rec);
    for (unsigned i = 0; i < g->ndev; i++)
        if (g->dev[i].h)
            wf_out_rec(s, WFT_GPU_DEV, &g->dev[i].rec, sizeof g->dev[i].rec);
    g->announced = 1;
    return 1;
}

/* ---- Sampling ----------------------------------------------------------- */

/* A sample value as a number, by its type. */
static double nvml_value(int type, nvmlValue_t v)
{
    switch (type) {
    case NVML_VALUE_TYPE_DOUBLE:
        return v.dVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG:
        return (double)v.ulVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
        return (double)v.ullVal;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
        return (double)v.sllVal;
    case NVML_VALUE_TYPE_SIGNED_INT:
        return v.siVal;
    case NVML_VALUE_TYPE_UNSIGNED_SHORT:
        return v.usVal;
    default:
        return v.uiVal;
    }
}

/* The host's clocks now, read together, to place the driver's timestamps
 * (microseconds of a host clock: CLOCK_REALTIME as drivers have it, and
 * CLOCK_MONOTONIC is tried too) on the trace's ticks. */
struct now {
    uint64_t ticks, real_us, mono_us;
    double tpn;
};

/* The ticks of a driver timestamp, or now's with *approx set when it lies
 * within a minute of neither clock (then it is not one of them). */
static uint64_t driver_ticks(const struct now *n, unsigned long long ts, int *approx)
{
    int64_t dr = (int64_t)(n->real_us - ts), dm = (int64_t)(n->mono_us - ts);
    int64_t d = llabs(dr) <= llabs(dm) ? dr : dm;
    *approx = llabs(d) > 60000000;
    if (*approx)
        return n->ticks;
    return n->ticks - (uint64_t)(int64_t)((double)d * 1000.0 * n->tpn);
}

static void put_sample(struct wf_session *s, uint32_t dev, uint16_t kind, uint16_t flags, uint64_t ticks,
                       uint64_t driver_us, uint32_t value, uint32_t value2)
{
    struct wft_gpu_sample r;
    memset(&r, 0, sizeof r);
    r.device = dev;
    r.kind = kind;
    r.flags = flags;
    r.ticks = ticks;
    r.driver_us = driver_us;
    r.value = value;
    r.value2 = value2;
    wf_out_rec(s, WFT_GPU_SAMPLE, &r, sizeof r);
}

/* The driver's samples of device i since the last ones taken. */
static void sample_series(struct wf_session *s, struct wf_gpu *g, unsigned i, const struct now *n)
{
    unsigned cnt = 0;
    int vt = NVML_VALUE_TYPE_UNSIGNED_INT;
    nvmlDevice_t h = g->dev[i].h;
    if (g->f.samples(h, NVML_GPU_UTILIZATION_SAMPLES, g->dev[i].seen, &vt, &cnt, NULL) != NVML_SUCCESS || !cnt)
        return;
    if (cnt > WF_GPU_BATCH)
        cnt = WF_GPU_BATCH;
    if (g->f.samples(h, NVML_GPU_UTILIZATION_SAMPLES, g->dev[i].seen, &vt, &cnt, g->buf) != NVML_SUCCESS)
        return;
    /* NVML promises no order: each sample newer than the last taken
     * counts, and the newest of them is where the next call starts. */
    unsigned long long seen = g->dev[i].seen, newest = seen;
    for (unsigned k = 0; k < cnt && k < WF_GPU_BATCH; k++) {
        unsigned long long ts = g->buf[k].timeStamp;
        if (ts <= seen)
            continue; /* a driver that returns the last one again */
        int approx;
        uint64_t t = driver_ticks(n, ts, &approx);
        double v = nvml_value(vt, g->buf[k].sampleValue);
        put_sample(s, i, WFT_GS_UTIL, approx ? WFT_GS_APPROX : 0, t, ts, v > 0 ? (uint32_t)(v + 0.5) : 0, 0);
        if (ts > newest)
            newest = ts;
    }
    g->dev[i].seen = newest;
}

static void sample_devices(struct wf_session *s, struct wf_gpu *g)
{
    struct now n;
    struct timespec rt;
    n.mono_us = wfc_mono_ns() / 1000;
    n.ticks = wfc_ticks();
    clock_gettime(CLOCK_REALTIME, &rt);
    n.real_us = (uint64_t)rt.tv_sec * 1000000u + (uint64_t)rt.tv_nsec / 1000u;
    n.tpn = s->ticks_per_ns;
    for (unsigned i = 0; i < g->ndev; i++) {
        nvmlDevice_t h = g->dev[i].h;
        if (!h)
            continue;
        if (g->dev[i].rec.flags & WFT_GPUDEV_SERIES)
            sample_series(s, g, i, &n);
        /* read within a millisecond of n's clocks (a 100 ms period): stamped with them */
        nvmlUtilization_t u;
        if (g->f.rates(h, &u) == NVML_SUCCESS)
            put_sample(s, i, WFT_GS_RATE, 0, n.ticks, 0, u.gpu, u.memory);
        unsigned mhz;
        if (g->f.clock(h, NVML_CLOCK_SM, &mhz) == NVML_SUCCESS)
            put_sample(s, i, WFT_GS_SM_CLOCK, 0, n.ticks, 0, mhz, 0);
    }
}

void wf_gpu_cycle(struct wf_session *s, int final)
{
    if (!s->gpu) {
        struct wf_gpu *g = calloc(1, sizeof *g);
        if (!g) {
            s->opts_gpu = 0; /* no memory for it: give up quietly, as the text sink does */
            return;
        }
        snprintf(g->path, sizeof g->path, "%s", s->nvml_path);
        s->gpu = g;
        if (pthread_create(&g->opener, NULL, gpu_open_main, g) == 0)
            g->opener_started = 1;
        else
            gpu_open_main(g); /* no thread to spare: here, as a last resort */
    }
    struct wf_gpu *g = s->gpu;
    if (!gpu_announce(s, g, final) || g->opener_started || !g->ndev)
        return;
    uint64_t now = wfc_mono_ns();
    if (!final && g->last_ns && now - g->last_ns < WF_GPU_EVERY_NS)
        return;
    g->last_ns = now;
    sample_devices(s, g);
}

void wf_gpu_close(struct wf_session *s)
{
    struct wf_gpu *g = s->gpu;
    if (!g)
        return;
    s->gpu = NULL;
    /* announced with the opener not joined: the last pass waited for it in vain */
    if (g->opener_started && (g->announced || !opener_done(g, 1))) {
        pthread_detach(g->opener); /* still in the driver: it keeps g, and NVML stays loaded */
        return;
    }
    if (g->inited)
        g->f.shutdown();
    if (g->lib)
        dlclose(g->lib);
    free(g);
}

void wf_gpu_drop_in_child(struct wf_session *s)
{
    /* NVML's state belongs to the parent's writer (and its opener, which
     * the child does not have): the child only frees its copy of the
     * memory and leaves the library mapped. */
    if (s->gpu)
        wf_gpu_forked = 1;
    free(s->gpu);
    s->gpu = NULL;
}
