/*
 * wf_session.c -- one recording: opening it (the options, the environment,
 * the trace's header, the writer thread), closing it, its counters, what
 * fork() and exit() do to it, WATERFALL_TRACE, and the library's version.
 */
#include "wf_internal.h"

#include "wf_clock.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

pthread_mutex_t wf_reg_mu = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t wf_cycle_mu = PTHREAD_MUTEX_INITIALIZER;
struct wf_session *wf_sess;
_Atomic uint32_t wf_live;
static uint32_t wf_next_session = 1;
static int wf_env_opened;
static wf_stats wf_last_stats;

/* The smallest growing structs a caller can have: those of version 0.2,
 * where they first appeared.  A size beyond WF_STRUCT_MAX is taken for
 * garbage (an uninitialized size), not for a struct of a later version. */
#define WF_CONFIG_MIN (offsetof(wf_config, sample_cpu) + sizeof(int))
#define WF_STATS_EX_MIN (offsetof(wf_stats_ex, units) + sizeof(uint32_t))
#define WF_STRUCT_MAX 4096u

/* ------------------------------------------------------------------ */
/* Options and the environment                                         */

static int env_int(const char *name, long dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return (int)dflt;
    char *end;
    long x = strtol(v, &end, 10);
    if (*end || x < 0 || x > (1L << 30))
        return (int)dflt;
    return (int)x;
}

static void opts_fill(wf_options *o)
{
    if (!o->ring_events)
        o->ring_events = (size_t)env_int("WATERFALL_RING", 65536);
    if (o->ring_events < 64)
        o->ring_events = 64;
    size_t p = 1;
    while (p < o->ring_events)
        p <<= 1;
    o->ring_events = p;
    if (!o->flush_ms)
        o->flush_ms = (unsigned)env_int("WATERFALL_FLUSH_MS", 10);
    if (!o->flush_ms)
        o->flush_ms = 10;
    if (!o->block_when_full)
        o->block_when_full = env_int("WATERFALL_BLOCK", 0) != 0;
    if (!o->timeline)
        o->timeline = getenv("WATERFALL_TIMELINE");
    if (o->timeline && !*o->timeline)
        o->timeline = NULL;
}

/* sample_cpu of wf_config: 1 yes, -1 no, 0 the environment's, else yes. */
static int cpu_fill(int sample_cpu)
{
    if (sample_cpu)
        return sample_cpu > 0;
    return env_int("WATERFALL_CPU", 1) != 0;
}

/* sample_gpu of wf_config: the same rule, with WATERFALL_GPU. */
static int gpu_fill(int sample_gpu)
{
    if (sample_gpu)
        return sample_gpu > 0;
    return env_int("WATERFALL_GPU", 1) != 0;
}

/* The NVML library the writer loads: WATERFALL_NVML_LIB, a test-only
 * override (tests/fake_nvml.c stands in for a driver), else the driver's
 * soname. */
static void nvml_path_fill(struct wf_session *s)
{
    const char *p = getenv("WATERFALL_NVML_LIB");
    snprintf(s->nvml_path, sizeof s->nvml_path, "%s", p && *p ? p : "libnvidia-ml.so.1");
}

/* A caller's wf_config into *k, by the growth rule of waterfall.h. */
static int config_read(wf_config *k, const wf_config *c)
{
    memset(k, 0, sizeof *k);
    if (c) {
        if (c->size < WF_CONFIG_MIN || c->size > WF_STRUCT_MAX)
            return -EINVAL;
        const unsigned char *more = (const unsigned char *)c + sizeof *k;
        for (size_t i = sizeof *k; i < c->size; i++)
            if (more[i - sizeof *k]) /* a member this library does not know, set */
                return -E2BIG;
        memcpy(k, c, c->size < sizeof *k ? c->size : sizeof *k);
    }
    k->size = sizeof *k;
    return 0;
}

int wf_config_init_size(wf_config *c, size_t size)
{
    if (!c || size < WF_CONFIG_MIN || size > WF_STRUCT_MAX)
        return -EINVAL;
    memset(c, 0, size);
    c->size = size;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Opening                                                             */

static int open_text(struct wf_session *s)
{
    s->text_fd = -1;
    if (!s->opts.timeline)
        return 0;
    if (strcmp(s->opts.timeline, "stderr") == 0) {
        s->text_fd = 2;
    } else if (strcmp(s->opts.timeline, "stdout") == 0) {
        s->text_fd = 1;
    } else {
        s->text_fd = open(s->opts.timeline, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (s->text_fd < 0)
            return -errno;
        s->text_owned = 1;
    }
    return 0;
}

static int write_header(struct wf_session *s, const char *path)
{
    struct wft_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, WFT_MAGIC, 8);
    h.version_major = WFT_VERSION_MAJOR;
    h.version_minor = WFT_VERSION_MINOR;
    h.header_size = WFT_HEADER_SIZE;
    h.endian = WFT_ENDIAN_MARK;
    h.clock = (uint32_t)wfc_source;
    h.ticks_per_ns = s->ticks_per_ns;
    struct timespec rt;
    uint64_t m0 = wfc_mono_ns();
    s->epoch_ticks = wfc_ticks();
    clock_gettime(CLOCK_REALTIME, &rt);
    uint64_t m1 = wfc_mono_ns();
    h.epoch_ticks = s->epoch_ticks;
    h.epoch_mono_ns = m0 + (m1 - m0) / 2;
    h.epoch_real_ns = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;
    h.pid = (uint32_t)s->pid;
    h.ring_events = (uint32_t)s->opts.ring_events;
    h.flush_ms = s->opts.flush_ms;
    /* the CPUs this process may run on (its affinity mask: a cpuset or
     * taskset shows here; a CPU quota does not), else those online */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t aff;
    if (sched_getaffinity(0, sizeof aff, &aff) == 0 && CPU_COUNT(&aff) > 0)
        cpus = CPU_COUNT(&aff);
    h.cpus = cpus > 0 ? (uint32_t)cpus : 0;
    /* the rings in PATH.rings (wf_shm.c) when PATH is a file (not a FIFO
     * or a device, which no reader recovers); else in private memory */
    struct stat st;
    if (fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode))
        s->shm = wf_shm_open(path, h.epoch_ticks, h.ring_events, h.pid);
    h.flags = (s->opts.block_when_full ? WFT_F_BLOCKING : 0) | (s->opts_cpu ? WFT_F_CPU : 0) |
              (s->opts_gpu ? WFT_F_GPU : 0) | (s->shm ? WFT_F_RINGS : 0);
    gethostname(h.host, sizeof h.host - 1);
    s->last_clock_ns = h.epoch_mono_ns;
    ssize_t w = write(s->fd, &h, sizeof h);
    if (w != (ssize_t)sizeof h)
        return w < 0 ? -errno : -EIO;
    s->good_off = sizeof h;
    /* The first calibration point is the epoch itself. */
    struct wft_clockpt c = {.ticks = h.epoch_ticks, .mono_ns = h.epoch_mono_ns};
    s->out_len = 0;
    wf_out_rec(s, WFT_CLOCK, &c, sizeof c);
    wf_write_all(s, s->out, s->out_len, 0);
    return s->write_err ? -s->write_err : 0;
}

static void session_free(struct wf_session *s)
{
    for (size_t i = 0; i < s->nunits; i++) {
        free(s->units[i].job);
        free(s->units[i].details);
    }
    free(s->units);
    free(s->out);
    free(s->text);
    free(s->late);
    pthread_mutex_destroy(&s->wake_mu);
    pthread_cond_destroy(&s->wake);
    free(s);
}

/* A session's files, with its header written (rc: 0 or a negative errno;
 * the session is returned either way, for session_abandon). */
static struct wf_session *session_new(const char *path, const wf_options *opts, int sample_cpu,
                                      int sample_gpu, int *rc)
{
    struct wf_session *s = calloc(1, sizeof *s);
    if (!s) {
        *rc = -ENOMEM;
        return NULL;
    }
    if (opts)
        s->opts = *opts;
    opts_fill(&s->opts);
    s->opts_cpu = cpu_fill(sample_cpu);
    s->opts_gpu = gpu_fill(sample_gpu);
    nvml_path_fill(s);
    const char *stall = getenv("WATERFALL_TEST_STALL"); /* test-only: wf_writer.c */
    snprintf(s->stall_path, sizeof s->stall_path, "%s", stall ? stall : "");
    s->decimals = s->opts.timeline_decimals;
    s->pid = getpid();
    s->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    *rc = s->fd < 0 ? -errno : 0;
    if (*rc == 0)
        *rc = open_text(s);
    if (*rc == 0) {
        s->ticks_per_ns = wfc_calibrate(2);
        *rc = write_header(s, path);
    }
    pthread_mutex_init(&s->wake_mu, NULL);
    /* The writer's deadlines are on CLOCK_MONOTONIC (wf_writer_main), so
     * the condition waits on it too: with the default (CLOCK_REALTIME) every
     * deadline lies decades in the past and the writer spins a core. */
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->wake, &ca);
    pthread_condattr_destroy(&ca);
    return s;
}

/* Number the session, queue the user events defined before it, start its
 * writer (under wf_reg_mu): 0 or a negative errno. */
static int session_start(struct wf_session *s)
{
    s->id = wf_next_session++;
    if (wf_next_session == 0)
        wf_next_session = 1;
    s->first_unit = atomic_load(&wf_next_unit);
    atomic_store(&wf_units_made, 0);
    /* User events defined before open go in first. */
    pthread_mutex_lock(&wf_def_mu);
    wf_journal = s->shm;
    wf_defs_len = 0;
    for (int i = 0; i < wf_nevents; i++)
        wf_event_def_rec(WF_EVENT_USER_FIRST + i);
    pthread_mutex_unlock(&wf_def_mu);
    return -pthread_create(&s->writer, NULL, wf_writer_main, s);
}

static void wf_atfork_prepare(void);
static void wf_atfork_parent(void);
static void wf_atfork_child(void);
static void wf_atexit(void);

static void wf_once_process(void)
{
    pthread_atfork(wf_atfork_prepare, wf_atfork_parent, wf_atfork_child);
    atexit(wf_atexit);
}

/* wf_open_opts and wf_open_config: sample_cpu and sample_gpu as in wf_config. */
static int session_open(const char *path, const wf_options *opts, int sample_cpu, int sample_gpu)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    if (!path || !*path)
        return -EINVAL;
    pthread_once(&once, wf_once_process);
    wfc_init();
    pthread_mutex_lock(&wf_reg_mu);
    if (atomic_load_explicit(&wf_live, memory_order_relaxed)) {
        int env = wf_env_opened;
        pthread_mutex_unlock(&wf_reg_mu);
        return env ? 0 : -EALREADY;
    }
    int rc;
    struct wf_session *s = session_new(path, opts, sample_cpu, sample_gpu, &rc);
    if (s && rc == 0)
        rc = session_start(s);
    if (rc) {
        if (s) {
            pthread_mutex_lock(&wf_def_mu);
            wf_journal = NULL;
            pthread_mutex_unlock(&wf_def_mu);
            wf_shm_close(s->shm, 1);
            if (s->fd >= 0)
                close(s->fd);
            if (s->text_owned)
                close(s->text_fd);
            session_free(s);
        }
        pthread_mutex_unlock(&wf_reg_mu);
        return rc;
    }
    struct wf_session *old = wf_sess;
    wf_sess = s;
    if (old)
        session_free(old);
    atomic_store_explicit(&wf_live, s->id, memory_order_release);
    pthread_mutex_unlock(&wf_reg_mu);
    return 0;
}

int wf_open_opts(const char *path, const wf_options *opts)
{
    return session_open(path, opts, 0, 0);
}

int wf_open(const char *path)
{
    return wf_open_opts(path, NULL);
}

int wf_open_config(const char *path, const wf_config *c)
{
    wf_config k;
    int rc = config_read(&k, c);
    if (rc)
        return rc;
    wf_options o = {.ring_events = k.ring_events,
                    .flush_ms = k.flush_ms,
                    .block_when_full = k.block_when_full,
                    .timeline = k.timeline,
                    .timeline_decimals = k.timeline_decimals};
    return session_open(path, &o, k.sample_cpu, k.sample_gpu);
}

/* ------------------------------------------------------------------ */
/* Closing, counters                                                   */

/* The marks in r's ring past the writer's last drain: a thread that saw
 * the session live just before wf_close ended it can publish a mark after
 * the writer's last pass.  It is counted in marked (the ring's head), so
 * it is counted lost too: marked == recorded + lost holds after close. */
static uint64_t wf_undrained_marks(struct wf_ring *r)
{
    uint64_t head = __atomic_load_n(&r->sh->head, __ATOMIC_ACQUIRE), n = 0;
    for (uint64_t k = r->drained; k < head; k++)
        n += (r->slots[k & r->mask].word >> WFT_UNIT_BITS) != WF_EV_ROLE;
    return n;
}

int wf_close(void)
{
    pthread_mutex_lock(&wf_reg_mu);
    struct wf_session *s = wf_sess;
    if (!atomic_load_explicit(&wf_live, memory_order_relaxed) || !s || s->pid != getpid()) {
        pthread_mutex_unlock(&wf_reg_mu);
        return -EBADF;
    }
    atomic_store_explicit(&wf_live, 0, memory_order_release);
    wf_env_opened = 0;
    pthread_mutex_unlock(&wf_reg_mu);

    pthread_mutex_lock(&s->wake_mu);
    s->stop = 1;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->wake_mu);
    pthread_join(s->writer, NULL);
    wf_mem_close(s);

    pthread_mutex_lock(&wf_reg_mu);
    uint64_t marked = s->dead_marked, lost = s->dead_lost;
    s->out_len = 0;
    for (struct wf_ring *r = wf_rings, *next; r; r = next) {
        next = r->next;
        uint64_t l = __atomic_load_n(&r->sh->lost, __ATOMIC_RELAXED), u = wf_undrained_marks(r);
        marked += wf_ring_marks(r) + l;
        lost += l + u;
        /* A thread that marked into a full ring, or past the writer's last
         * drain, after the writer's last pass: its thread's lost count in
         * the file is brought to what END says (a reader sums them). */
        if (r->announced && l + u != r->lost_written) {
            struct wft_lost rec = {.thread = r->index, .lost = l + u};
            wf_out_rec(s, WFT_LOST, &rec, sizeof rec);
            r->lost_written = l + u;
        }
        r->attached = 0;
        if (r->sched_fd >= 0)
            close(r->sched_fd);
        r->sched_fd = -1;
        if (r->exited)
            wf_ring_free(r);
    }
    wf_rings = NULL;
    lost += s->write_lost;
    struct wft_end end = {.marked = marked,
                          .recorded = atomic_load(&s->recorded),
                          .lost = lost,
                          .threads = s->threads,
                          .units = atomic_load(&wf_units_made)};
    wf_out_rec(s, WFT_END, &end, sizeof end);
    wf_write_all(s, s->out, s->out_len, 0);
    wf_last_stats = (wf_stats){.marked = marked,
                               .recorded = end.recorded,
                               .lost = lost,
                               .threads = s->threads,
                               .units = end.units};
    int rc = s->write_err ? -s->write_err : 0;
    if (fsync(s->fd) < 0 && errno != EINVAL && !rc)
        rc = -errno;
    if (close(s->fd) < 0 && !rc)
        rc = -errno;
    if (s->text_owned)
        close(s->text_fd);
    s->fd = s->text_fd = -1;
    /* every slot is in the file now: the rings file goes (the threads'
     * stretches stay mapped until each maps another or exits) */
    pthread_mutex_lock(&wf_def_mu);
    wf_journal = NULL;
    pthread_mutex_unlock(&wf_def_mu);
    wf_shm_close(s->shm, 1);
    s->shm = NULL;
    pthread_mutex_unlock(&wf_reg_mu);
    return rc;
}

void wf_get_stats(wf_stats *st)
{
    pthread_mutex_lock(&wf_reg_mu);
    if (atomic_load_explicit(&wf_live, memory_order_relaxed) && wf_sess) {
        wf_stats now = {0};
        struct wf_session *s = wf_sess;
        now.marked = s->dead_marked;
        now.lost = s->dead_lost;
        for (struct wf_ring *r = wf_rings; r; r = r->next) {
            uint64_t l = __atomic_load_n(&r->sh->lost, __ATOMIC_RELAXED);
            now.marked += wf_ring_marks(r) + l;
            now.lost += l;
        }
        now.recorded = atomic_load_explicit(&s->recorded, memory_order_relaxed);
        now.threads = s->threads;
        now.units = atomic_load(&wf_units_made);
        *st = now;
    } else {
        *st = wf_last_stats;
    }
    pthread_mutex_unlock(&wf_reg_mu);
}

int wf_get_stats_ex(wf_stats_ex *st)
{
    if (!st || st->size < WF_STATS_EX_MIN || st->size > WF_STRUCT_MAX)
        return -EINVAL;
    wf_stats now;
    wf_get_stats(&now);
    wf_stats_ex x = {.size = st->size,
                     .marked = now.marked,
                     .recorded = now.recorded,
                     .lost = now.lost,
                     .threads = now.threads,
                     .units = now.units};
    size_t size = st->size, n = size < sizeof x ? size : sizeof x;
    memcpy(st, &x, n);
    memset((char *)st + n, 0, size - n); /* members this library does not know */
    return 0;
}

/* ------------------------------------------------------------------ */
/* The version (waterfall_version.h, from CMakeLists.txt)              */

int wf_version(void)
{
    return WF_VERSION_NUMBER;
}

const char *wf_version_string(void)
{
    return WF_VERSION_STRING;
}

/* ------------------------------------------------------------------ */
/* Process events: fork, exit, the environment                        */

/* Lock order everywhere: wf_cycle_mu, wf_reg_mu, wf_def_mu. */
static void wf_atfork_prepare(void)
{
    pthread_mutex_lock(&wf_cycle_mu); /* the writer between cycles */
    pthread_mutex_lock(&wf_reg_mu);
    pthread_mutex_lock(&wf_def_mu);
}

static void wf_atfork_parent(void)
{
    pthread_mutex_unlock(&wf_def_mu);
    pthread_mutex_unlock(&wf_reg_mu);
    pthread_mutex_unlock(&wf_cycle_mu);
}

static void wf_atfork_child(void)
{
    /* No writer here: stop recording, drop the inherited rings unread and
     * close the inherited descriptors without writing a byte. */
    wf_rings_drop_in_child();
    if (atomic_load_explicit(&wf_live, memory_order_relaxed) && wf_sess) {
        atomic_store_explicit(&wf_live, 0, memory_order_relaxed);
        close(wf_sess->fd);
        if (wf_sess->text_owned)
            close(wf_sess->text_fd);
        for (size_t i = 0; i < wf_sess->nunits; i++) {
            free(wf_sess->units[i].job);
            free(wf_sess->units[i].details);
        }
        free(wf_sess->units);
        free(wf_sess->out);
        free(wf_sess->text);
        free(wf_sess->late);
        wf_gpu_drop_in_child(wf_sess);
        wf_mem_close(wf_sess); /* the parent's /proc/self */
        wf_shm_close(wf_sess->shm, 0); /* the parent's file stays as it is */
        wf_journal = NULL;
        for (struct wf_ring *r = wf_sess->retired, *next; r; r = next) {
            next = r->next;
            wf_ring_free(r);
        }
        free(wf_sess); /* its mutex may be held by the vanished writer: no destroy */
        wf_sess = NULL;
        wf_defs_len = 0;
        wf_env_opened = 0;
    }
    pthread_mutex_unlock(&wf_def_mu);
    pthread_mutex_unlock(&wf_reg_mu);
    pthread_mutex_unlock(&wf_cycle_mu);
    pthread_mutex_init(&wf_reg_mu, NULL);
    pthread_mutex_init(&wf_def_mu, NULL);
    pthread_mutex_init(&wf_cycle_mu, NULL);
}

static void wf_atexit(void)
{
    if (atomic_load_explicit(&wf_live, memory_order_relaxed))
        wf_close();
}

__attribute__((constructor)) static void wf_from_env(void)
{
    const char *p = getenv("WATERFALL_TRACE");
    if (!p || !*p)
        return;
    char path[4096];
    size_t o = 0;
    for (; *p && o + 24 < sizeof path; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            o += (size_t)snprintf(path + o, sizeof path - o, "%ld", (long)getpid());
            p++;
        } else {
            path[o++] = *p;
        }
    }
    path[o] = 0;
    if (wf_open_opts(path, NULL) == 0)
        wf_env_opened = 1;
    else
        fprintf(stderr, "waterfall: cannot record to %s (WATERFALL_TRACE)\n", path);
}
