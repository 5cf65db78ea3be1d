/*
 * wf_record.c -- libwaterfall's recorder: per-thread rings, one writer.
 *
 * Each marking thread owns a single-producer ring of 16-byte events.  The
 * owner writes a slot and publishes it with a release store of head; the
 * writer thread reads head with acquire, copies [tail, head) into the trace
 * and publishes tail.  The hot path therefore costs one clock read, a few
 * loads of the thread's own cache line and two stores: no lock, no system
 * call, no atomic read-modify-write.
 *
 * Lifetimes.  A ring belongs to its thread: only the owner allocates and
 * resets it, and it is freed by the thread's exit (TLS destructor) or, when
 * the thread exits while recording, by the writer after the last drain.
 * wf_close therefore never frees a ring that a thread might still touch.
 *
 * Sessions.  Each wf_open starts a session with a new nonzero id; wf_live
 * holds it while recording and 0 otherwise.  A ring remembers the session
 * it was attached to, so "ring attached and session live" is one compare.
 *
 * Crash survival.  The writer write()s every flush period (10 ms by
 * default).  Data handed to write() is in the kernel's page cache and
 * survives the death of the process, SIGKILL included; records are
 * size-prefixed so readers stop cleanly at a torn end.
 *
 * fork().  The child inherits no writer thread; recording is off in the
 * child, its copy of the rings is dropped unread (the parent records them),
 * and its copy of the file descriptors is closed without writing.
 */
#include "waterfall.h"

#include "wf_clock.h"
#include "wf_format.h"
#include "wf_timeline.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define WF_EV_ROLE 0xffffu /* ring-only pseudo event: a role change */
#define WF_USER_EVENTS (WF_EVENT_MAX + 1 - WF_EVENT_USER_FIRST)
#define WF_BATCH_MAX 65536u /* events per EVENTS record: 1 MiB, under WFT_REC_MAX */
#define WF_CLOCK_EVERY_NS 100000000u /* a calibration point each 100 ms */

struct wf_slot {
    uint64_t ticks;
    uint64_t word; /* unit | event << 48, as in the file */
};

struct wf_ring {
    /* Owner's line: written by the marking thread only. */
    _Alignas(64) _Atomic uint64_t head; /* slots ever written */
    uint64_t tail_seen;                 /* owner's cached copy of tail */
    _Atomic uint64_t lost;              /* marks dropped while full */
    _Atomic uint64_t roles;             /* role pseudo-events in head */
    uint64_t mask;                      /* capacity - 1 */
    struct wf_slot *slots;
    uint32_t session; /* the session this ring is attached to */
    int blocking;     /* copied from the session's options */

    /* Writer's line. */
    _Alignas(64) _Atomic uint64_t tail; /* slots drained */

    /* Cold: under wf_reg_mu. */
    _Alignas(64) struct wf_ring *next;
    uint32_t index; /* thread index within the trace */
    uint32_t tid;
    int attached;          /* on the live session's list */
    int exited;            /* its thread is gone; the writer frees it */
    int announced;         /* THREAD record written */
    uint32_t name_gen, name_written;
    uint64_t lost_written; /* last LOST value written */
    int32_t worker, device; /* as the writer last saw them (text sink) */
    char name[32];
    clockid_t cpu_clock;    /* the thread's CPU clock (valid while it lives) */
    int has_cpu_clock;
    int sched_fd;           /* its schedstat, open while attached (-1: not yet) */
    int sample_cpu;         /* the session samples CPU time */
    struct wft_cpu cpu_prev; /* the last reading (ticks 0: none yet) */
    unsigned cpu_same;      /* readings in a row unchanged since the last that moved */
    struct wft_cpu cpu_last; /* read by the thread as it exited (ticks 0: none) */
};

/* One recording. */
struct wf_session {
    uint32_t id;
    int fd;          /* the trace */
    int text_fd;     /* TIMELINE lines, or -1 */
    int text_owned;  /* text_fd was opened by us */
    int decimals;
    wf_options opts;
    int opts_cpu; /* sample the threads' CPU time (WATERFALL_CPU, default on) */
    uint64_t last_cpu_ns; /* when the threads were last sampled (writer-private) */
    int sched_fds;        /* schedstat descriptors kept open (under wf_reg_mu) */
    pid_t pid;
    double ticks_per_ns;
    uint64_t epoch_ticks;
    uint64_t last_clock_ns;
    uint64_t first_unit; /* unit ids of this session start here */
    off_t good_off;      /* end of the last fully written batch */
    int write_err;       /* first write error, as a positive errno */

    pthread_t writer;
    pthread_mutex_t wake_mu;
    pthread_cond_t wake;
    int stop;       /* under wake_mu */

    /* Writer-private. */
    char *out;
    size_t out_len, out_cap;
    char *text;
    size_t text_len, text_cap;
    char *late; /* definitions taken mid-drain, written after the events */
    size_t late_len, late_cap;
    struct wf_unitname *units; /* for the text sink: id - first_unit */
    size_t nunits, units_cap;

    /* Totals (writer-private until joined). */
    _Atomic uint64_t recorded; /* read by wf_get_stats while live */
    uint64_t write_lost, dead_marked, dead_lost;
    uint32_t threads;
};

struct wf_unitname {
    char *job;
    uint32_t job_len;
    int32_t partition;
};

static pthread_mutex_t wf_reg_mu = PTHREAD_MUTEX_INITIALIZER; /* rings, open/close */
static pthread_mutex_t wf_def_mu = PTHREAD_MUTEX_INITIALIZER; /* pending defs, events */
static struct wf_ring *wf_rings;           /* rings attached to the live session */
static struct wf_session *wf_sess;         /* the live (or last) session */
static _Atomic uint32_t wf_live;           /* live session id, 0 when closed */
static uint32_t wf_next_session = 1;
static _Atomic uint64_t wf_next_unit = 1;
static _Atomic uint32_t wf_units_made;
static int wf_env_opened;
static wf_stats wf_last_stats;

/* Unit and event definitions waiting for the writer, as file records. */
static char *wf_defs;
static size_t wf_defs_len, wf_defs_cap;
static char wf_event_names[WF_USER_EVENTS][48];
static int wf_nevents;

/* initial-exec: one %fs-relative load, no __tls_get_addr, in the .so too */
static __thread struct wf_ring *wf_tls __attribute__((tls_model("initial-exec")));
static __thread int32_t wf_tls_worker = -1, wf_tls_device = -1;
static __thread char wf_tls_name[32];
static pthread_key_t wf_key;
static pthread_once_t wf_key_once = PTHREAD_ONCE_INIT;

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */

static int buf_reserve(char **buf, size_t *cap, size_t len, size_t more)
{
    if (len + more <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 4096;
    while (ncap < len + more)
        ncap *= 2;
    char *n = realloc(*buf, ncap);
    if (!n)
        return -ENOMEM;
    *buf = n;
    *cap = ncap;
    return 0;
}

static size_t pad8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static void rec_init(struct wft_rec *r, uint32_t size, uint16_t type)
{
    r->size = size;
    r->type = type;
    r->check = wft_check(size, type);
    r->crc = 0;
    r->reserved = 0;
}

/* Checksum a complete record in place (its body follows its header). */
static void rec_seal(char *rec)
{
    struct wft_rec r;
    memcpy(&r, rec, sizeof r);
    r.crc = wft_crc32c(0, rec + sizeof r, r.size - sizeof r);
    memcpy(rec, &r, sizeof r);
}

/* Append a record with a fixed part and trailing bytes to a buffer. */
static int rec_append(char **buf, size_t *len, size_t *cap, uint16_t type,
                      void *fixed, size_t fixed_size, const void *tail,
                      size_t tail_len)
{
    size_t size = pad8(fixed_size + tail_len);
    if (buf_reserve(buf, cap, *len, size))
        return -ENOMEM;
    rec_init((struct wft_rec *)fixed, (uint32_t)size, type);
    memcpy(*buf + *len, fixed, fixed_size);
    if (tail_len)
        memcpy(*buf + *len + fixed_size, tail, tail_len);
    memset(*buf + *len + fixed_size + tail_len, 0, size - fixed_size - tail_len);
    rec_seal(*buf + *len);
    *len += size;
    return 0;
}

static uint32_t wf_gettid(void)
{
    return (uint32_t)syscall(SYS_gettid);
}

/* ------------------------------------------------------------------ */
/* The hot path                                                        */

/* Off the hot path, and kept out of wf_mark so that it needs no register
 * saves (measured: a few tenths of a ns, within noise, but free). */
static void wf_mark_slow(unsigned ev, uint64_t unit) __attribute__((noinline, cold));
static void wf_full(struct wf_ring *r, unsigned ev, uint64_t unit) __attribute__((noinline, cold));

static inline void wf_put(struct wf_ring *r, unsigned ev, uint64_t unit)
{
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    if (__builtin_expect(h - r->tail_seen > r->mask, 0)) {
        r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (h - r->tail_seen > r->mask) {
            wf_full(r, ev, unit);
            return;
        }
    }
    struct wf_slot *s = &r->slots[h & r->mask];
    s->ticks = wfc_ticks();
    s->word = (unit & WFT_UNIT_MASK) | (uint64_t)ev << WFT_UNIT_BITS;
    atomic_store_explicit(&r->head, h + 1, memory_order_release);
}

void wf_mark(wf_event ev, wf_unit unit)
{
    struct wf_ring *r = wf_tls;
    if (__builtin_expect(r != NULL && r->session == atomic_load_explicit(
                                                       &wf_live, memory_order_relaxed),
                         1)) {
        if (unit == 0 || (unsigned)ev > WF_EVENT_MAX)
            return;
        wf_put(r, (unsigned)ev, unit);
        return;
    }
    wf_mark_slow((unsigned)ev, unit);
}

static void wf_full(struct wf_ring *r, unsigned ev, uint64_t unit)
{
    if (r->blocking) {
        /* Wait for the writer; give up (and count) if the session ends. */
        while (atomic_load_explicit(&wf_live, memory_order_acquire) == r->session) {
            struct timespec ts = {0, 50000};
            nanosleep(&ts, NULL);
            uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
            r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
            if (h - r->tail_seen <= r->mask) {
                wf_put(r, ev, unit);
                return;
            }
        }
    }
    atomic_store_explicit(&r->lost,
                          atomic_load_explicit(&r->lost, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

/* ------------------------------------------------------------------ */
/* Attaching a thread                                                  */

#define SCHED_FDS 128 /* schedstat files the writer keeps open, at most */

/* A thread's CPU time and run-queue wait (tid 0: the calling thread's),
 * from schedstat: three numbers, CPU ns, wait ns, time slices.  Failing
 * that (no /proc, no CONFIG_SCHED_INFO), its CPU clock and no wait.  c->ticks
 * is 0 when neither could be read. */
static void cpu_sample(int *fdp, uint32_t tid, clockid_t clk, int has_clk, struct wft_cpu *c)
{
    char path[64], buf[96];
    if (tid)
        snprintf(path, sizeof path, "/proc/self/task/%u/schedstat", tid);
    else
        snprintf(path, sizeof path, "/proc/thread-self/schedstat");
    c->ticks = wfc_ticks();
    /* The writer keeps each thread's file open (*fdp; a read from offset 0
     * each cycle costs a third of an open, read and close). */
    int fd = fdp && *fdp >= 0 ? *fdp : open(path, O_RDONLY | O_CLOEXEC);
    if (fdp && *fdp < 0 && fd >= 0)
        *fdp = fd;
    if (fd >= 0) {
        ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
        if (!fdp)
            close(fd);
        if (n > 0) {
            buf[n] = 0;
            char *e1, *e2;
            unsigned long long run = strtoull(buf, &e1, 10), wait = strtoull(e1, &e2, 10);
            if (e1 != buf && e2 != e1 && (run || wait)) { /* "0 0 0": schedstats off */
                c->cpu_ns = run;
                c->wait_ns = wait;
                c->flags = WFT_CPU_WAIT;
                return;
            }
        }
    }
    struct timespec ts;
    if (has_clk && clock_gettime(tid ? clk : CLOCK_THREAD_CPUTIME_ID, &ts) == 0) {
        c->cpu_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        c->wait_ns = 0;
        c->flags = 0;
        return;
    }
    c->ticks = 0;
}

static void wf_thread_gone(void *p)
{
    struct wf_ring *r = p;
    struct wft_cpu last = {0};
    if (r->sample_cpu) /* its last CPU time, for the writer */
        cpu_sample(NULL, 0, r->cpu_clock, r->has_cpu_clock, &last);
    pthread_mutex_lock(&wf_reg_mu);
    if (r->attached) {
        r->cpu_last = last;
        r->exited = 1; /* the writer drains and frees it */
    } else {
        free(r->slots);
        free(r);
    }
    pthread_mutex_unlock(&wf_reg_mu);
    wf_tls = NULL;
}

static void wf_key_make(void)
{
    pthread_key_create(&wf_key, wf_thread_gone);
}

static uint64_t wf_role_word(int32_t worker, int32_t device)
{
    uint64_t w = (uint64_t)(uint32_t)(worker + 1) & 0xffffffu;
    uint64_t d = (uint64_t)(uint32_t)(device + 1) & 0xffffffu;
    return w | d << 24;
}

/* A role change rides in the ring so it stays in order with the marks.
 * It is not a mark, so roles counts them out of head.  Only a full ring in
 * dropping mode can drop one; the marks dropped around it are counted. */
static void wf_put_role(struct wf_ring *r)
{
    uint64_t before = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint64_t lost = atomic_load_explicit(&r->lost, memory_order_relaxed);
    wf_put(r, WF_EV_ROLE, wf_role_word(wf_tls_worker, wf_tls_device));
    if (atomic_load_explicit(&r->head, memory_order_relaxed) != before)
        atomic_store_explicit(&r->roles,
                              atomic_load_explicit(&r->roles, memory_order_relaxed) + 1,
                              memory_order_relaxed);
    else /* dropped: undo the count, it was not a mark */
        atomic_store_explicit(&r->lost, lost, memory_order_relaxed);
}

/* Attach the calling thread to the live session; NULL if none. */
static struct wf_ring *wf_attach(void)
{
    pthread_once(&wf_key_once, wf_key_make);
    pthread_mutex_lock(&wf_reg_mu);
    uint32_t live = atomic_load_explicit(&wf_live, memory_order_acquire);
    struct wf_session *s = wf_sess;
    if (live == 0 || s == NULL || s->pid != getpid()) {
        pthread_mutex_unlock(&wf_reg_mu);
        return NULL;
    }
    struct wf_ring *r = wf_tls;
    size_t cap = s->opts.ring_events;
    if (r && r->mask + 1 != cap) {
        free(r->slots);
        r->slots = NULL;
    }
    if (!r) {
        if (posix_memalign((void **)&r, 64, sizeof *r)) {
            pthread_mutex_unlock(&wf_reg_mu);
            return NULL;
        }
        memset(r, 0, sizeof *r);
    }
    if (!r->slots) {
        r->slots = calloc(cap, sizeof *r->slots);
        if (!r->slots) {
            free(r);
            wf_tls = NULL;
            pthread_setspecific(wf_key, NULL);
            pthread_mutex_unlock(&wf_reg_mu);
            return NULL;
        }
    }
    r->mask = cap - 1;
    atomic_store_explicit(&r->head, 0, memory_order_relaxed);
    atomic_store_explicit(&r->tail, 0, memory_order_relaxed);
    atomic_store_explicit(&r->lost, 0, memory_order_relaxed);
    atomic_store_explicit(&r->roles, 0, memory_order_relaxed);
    r->tail_seen = 0;
    r->blocking = s->opts.block_when_full;
    r->index = s->threads++;
    r->tid = wf_gettid();
    r->attached = 1;
    r->exited = 0;
    r->announced = 0;
    r->lost_written = 0;
    r->worker = r->device = -1;
    r->sample_cpu = s->opts_cpu;
    r->sched_fd = -1; /* a new ring, or closed by wf_close */
    r->has_cpu_clock = pthread_getcpuclockid(pthread_self(), &r->cpu_clock) == 0;
    memset(&r->cpu_prev, 0, sizeof r->cpu_prev);
    memset(&r->cpu_last, 0, sizeof r->cpu_last);
    r->cpu_same = 0;
    memcpy(r->name, wf_tls_name, sizeof r->name);
    r->name_gen = 1;
    r->name_written = 0;
    r->next = wf_rings;
    wf_rings = r;
    r->session = live;
    wf_tls = r;
    pthread_setspecific(wf_key, r);
    if (wf_tls_worker >= 0 || wf_tls_device >= 0)
        wf_put_role(r);
    pthread_mutex_unlock(&wf_reg_mu);
    return r;
}

static void wf_mark_slow(unsigned ev, uint64_t unit)
{
    if (atomic_load_explicit(&wf_live, memory_order_acquire) == 0)
        return;
    if (unit == 0 || ev > WF_EVENT_MAX)
        return;
    struct wf_ring *r = wf_attach();
    if (r)
        wf_put(r, ev, unit);
}

void wf_thread_worker(int worker, int device)
{
    wf_tls_worker = worker < 0 ? -1 : worker;
    wf_tls_device = device < 0 ? -1 : device;
    struct wf_ring *r = wf_tls;
    if (r && r->session == atomic_load_explicit(&wf_live, memory_order_relaxed))
        wf_put_role(r);
    else if (atomic_load_explicit(&wf_live, memory_order_relaxed))
        wf_attach(); /* announces the role */
}

void wf_thread_name(const char *name)
{
    snprintf(wf_tls_name, sizeof wf_tls_name, "%s", name ? name : "");
    pthread_mutex_lock(&wf_reg_mu);
    struct wf_ring *r = wf_tls;
    if (r && r->attached) {
        memcpy(r->name, wf_tls_name, sizeof r->name);
        r->name_gen++;
    }
    pthread_mutex_unlock(&wf_reg_mu);
}

/* ------------------------------------------------------------------ */
/* Units and user events                                               */

wf_unit wf_unit_new(const char *job_id, int partition)
{
    if (atomic_load_explicit(&wf_live, memory_order_acquire) == 0)
        return 0;
    if (!job_id)
        job_id = "";
    size_t len = strnlen(job_id, 4096);
    uint64_t id = atomic_fetch_add_explicit(&wf_next_unit, 1, memory_order_relaxed);
    if (id > WFT_UNIT_MASK)
        return 0;
    struct wft_unit u = {.unit = id,
                         .partition = partition < 0 ? -1 : partition,
                         .job_len = (uint32_t)len};
    pthread_mutex_lock(&wf_def_mu);
    int rc = rec_append(&wf_defs, &wf_defs_len, &wf_defs_cap, WFT_UNIT, &u,
                        sizeof u, job_id, len);
    pthread_mutex_unlock(&wf_def_mu);
    if (rc)
        return 0;
    atomic_fetch_add_explicit(&wf_units_made, 1, memory_order_relaxed);
    return id;
}

static int wf_event_def_rec(int id) /* under wf_def_mu */
{
    const char *name = wf_event_names[id - WF_EVENT_USER_FIRST];
    struct wft_event_def d = {.event = (uint32_t)id, .name_len = (uint32_t)strlen(name)};
    return rec_append(&wf_defs, &wf_defs_len, &wf_defs_cap, WFT_EVENT_DEF, &d,
                      sizeof d, name, d.name_len);
}

int wf_event_define(const char *name)
{
    if (!name || !*name)
        return -EINVAL;
    for (unsigned i = 0; i < 6; i++)
        if (strcmp(name, wft_builtin_name(i)) == 0)
            return (int)i;
    pthread_mutex_lock(&wf_def_mu);
    for (int i = 0; i < wf_nevents; i++) {
        if (strncmp(wf_event_names[i], name, sizeof wf_event_names[i] - 1) == 0) {
            pthread_mutex_unlock(&wf_def_mu);
            return WF_EVENT_USER_FIRST + i;
        }
    }
    if (wf_nevents == WF_USER_EVENTS) {
        pthread_mutex_unlock(&wf_def_mu);
        return -ENOSPC;
    }
    int id = WF_EVENT_USER_FIRST + wf_nevents;
    snprintf(wf_event_names[wf_nevents], sizeof wf_event_names[0], "%s", name);
    wf_nevents++;
    if (atomic_load_explicit(&wf_live, memory_order_acquire))
        wf_event_def_rec(id);
    pthread_mutex_unlock(&wf_def_mu);
    return id;
}

const char *wf_event_name(int ev)
{
    if (ev >= 0 && ev < 6)
        return wft_builtin_name((unsigned)ev);
    const char *n = NULL;
    pthread_mutex_lock(&wf_def_mu);
    if (ev >= WF_EVENT_USER_FIRST && ev < WF_EVENT_USER_FIRST + wf_nevents)
        n = wf_event_names[ev - WF_EVENT_USER_FIRST];
    pthread_mutex_unlock(&wf_def_mu);
    return n;
}

/* ------------------------------------------------------------------ */
/* The writer                                                          */

/* Marks a ring accepted: slots written minus role changes. */
static uint64_t ring_marks(struct wf_ring *r)
{
    return atomic_load_explicit(&r->head, memory_order_relaxed) -
           atomic_load_explicit(&r->roles, memory_order_relaxed);
}

static void out_rec(struct wf_session *s, uint16_t type, void *fixed, size_t size)
{
    rec_append(&s->out, &s->out_len, &s->out_cap, type, fixed, size, NULL, 0);
}

/* Keep a copy of unit names for the text sink. */
static void text_learn_units(struct wf_session *s, const char *defs, size_t len)
{
    for (size_t off = 0; off + sizeof(struct wft_rec) <= len;) {
        const struct wft_rec *rec = (const void *)(defs + off);
        if (rec->type == WFT_UNIT) {
            const struct wft_unit *u = (const void *)rec;
            if (u->unit >= s->first_unit) {
                size_t i = u->unit - s->first_unit;
                if (i >= s->units_cap) {
                    size_t ncap = s->units_cap ? s->units_cap : 1024;
                    while (ncap <= i)
                        ncap *= 2;
                    struct wf_unitname *n = realloc(s->units, ncap * sizeof *n);
                    if (!n)
                        return;
                    memset(n + s->units_cap, 0, (ncap - s->units_cap) * sizeof *n);
                    s->units = n;
                    s->units_cap = ncap;
                }
                char *job = malloc(u->job_len + 1);
                if (job) {
                    memcpy(job, u + 1, u->job_len);
                    job[u->job_len] = 0;
                    free(s->units[i].job);
                    s->units[i].job = job;
                    s->units[i].job_len = u->job_len;
                    s->units[i].partition = u->partition;
                    if (i >= s->nunits)
                        s->nunits = i + 1;
                }
            }
        }
        off += rec->size;
    }
}

/* The text sink met a unit whose definition was appended after this cycle
 * took the pending ones (a mark always follows its unit's definition, so
 * it is there now).  Take them; they go into the file after the events. */
static void take_late_defs(struct wf_session *s)
{
    size_t from = s->late_len;
    pthread_mutex_lock(&wf_def_mu);
    if (wf_defs_len && !buf_reserve(&s->late, &s->late_cap, s->late_len, wf_defs_len)) {
        memcpy(s->late + s->late_len, wf_defs, wf_defs_len);
        s->late_len += wf_defs_len;
        wf_defs_len = 0;
    }
    pthread_mutex_unlock(&wf_def_mu);
    text_learn_units(s, s->late + from, s->late_len - from);
}

static void text_event(struct wf_session *s, struct wf_ring *r, const struct wf_slot *e)
{
    unsigned ev = (unsigned)(e->word >> WFT_UNIT_BITS);
    uint64_t unit = e->word & WFT_UNIT_MASK;
    char evbuf[48], jobbuf[32];
    const char *name = wft_builtin_name(ev);
    if (!name) {
        pthread_mutex_lock(&wf_def_mu);
        if (ev >= WF_EVENT_USER_FIRST && (int)(ev - WF_EVENT_USER_FIRST) < wf_nevents)
            snprintf(evbuf, sizeof evbuf, "%s", wf_event_names[ev - WF_EVENT_USER_FIRST]);
        else
            snprintf(evbuf, sizeof evbuf, "EVENT_%u", ev);
        pthread_mutex_unlock(&wf_def_mu);
        name = evbuf;
    }
    const char *job = jobbuf;
    size_t job_len;
    int partition = -1;
    size_t i = unit - s->first_unit;
    if (unit >= s->first_unit && (i >= s->nunits || !s->units[i].job))
        take_late_defs(s); /* made after this cycle took the definitions */
    if (unit >= s->first_unit && i < s->nunits && s->units[i].job) {
        job = s->units[i].job;
        job_len = s->units[i].job_len;
        partition = s->units[i].partition;
    } else {
        job_len = (size_t)snprintf(jobbuf, sizeof jobbuf, "unit-%llu",
                                   (unsigned long long)unit);
    }
    double ns = (double)(int64_t)(e->ticks - s->epoch_ticks) / s->ticks_per_ns;
    if (buf_reserve(&s->text, &s->text_cap, s->text_len, WFT_LINE_MAX))
        return;
    s->text_len += wft_format_line(s->text + s->text_len, (int64_t)ns, s->decimals, name,
                                   job, job_len, partition, r->worker, r->device);
}

/* Move [tail, head) of one ring into the output; split at role changes. */
static uint64_t drain_ring(struct wf_session *s, struct wf_ring *r)
{
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
    uint64_t n = h - t;
    while (t < h) {
        /* One EVENTS record covers slots up to the next role change. */
        size_t hdr_at = s->out_len;
        struct wft_events ev = {.thread = r->index, .count = 0};
        if (buf_reserve(&s->out, &s->out_cap, s->out_len,
                        sizeof ev + (h - t) * sizeof(struct wft_event) + sizeof(struct wft_role)))
            break;
        s->out_len += sizeof ev;
        while (t < h && ev.count < WF_BATCH_MAX) {
            const struct wf_slot *e = &r->slots[t & r->mask];
            unsigned id = (unsigned)(e->word >> WFT_UNIT_BITS);
            if (id == WF_EV_ROLE)
                break;
            memcpy(s->out + s->out_len, e, sizeof *e);
            s->out_len += sizeof *e;
            ev.count++;
            if (s->text_fd >= 0)
                text_event(s, r, e);
            t++;
        }
        if (ev.count) {
            rec_init(&ev.rec, (uint32_t)(sizeof ev + ev.count * sizeof(struct wft_event)),
                     WFT_EVENTS);
            memcpy(s->out + hdr_at, &ev, sizeof ev);
            rec_seal(s->out + hdr_at);
        } else {
            s->out_len = hdr_at;
        }
        if (t < h && ev.count < WF_BATCH_MAX) { /* a role change */
            const struct wf_slot *e = &r->slots[t & r->mask];
            int32_t w = (int32_t)(e->word & 0xffffffu) - 1;
            int32_t d = (int32_t)((e->word >> 24) & 0xffffffu) - 1;
            struct wft_role role = {.thread = r->index, .worker = w, .device = d};
            out_rec(s, WFT_ROLE, &role, sizeof role);
            r->worker = w;
            r->device = d;
            n--; /* not an event */
            t++;
        }
    }
    atomic_store_explicit(&r->tail, t, memory_order_release);
    return n;
}

static void write_all(struct wf_session *s, const char *p, size_t len, uint64_t events)
{
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(s->fd, p + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (!s->write_err)
                s->write_err = w < 0 ? errno : EIO;
            /* Roll back the partial batch so the file stays well formed. */
            if (ftruncate(s->fd, s->good_off) == 0)
                lseek(s->fd, s->good_off, SEEK_SET);
            s->write_lost += events;
            return;
        }
        done += (size_t)w;
    }
    s->good_off += (off_t)len;
    atomic_fetch_add_explicit(&s->recorded, events, memory_order_relaxed);
}

static void write_text(struct wf_session *s)
{
    size_t done = 0;
    while (done < s->text_len) {
        ssize_t w = write(s->text_fd, s->text + done, s->text_len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break; /* the text sink is best effort; the trace is the record */
        done += (size_t)w;
    }
    s->text_len = 0;
}

/* One pass: definitions, every ring, lost counts, a clock point.
 * Returns the fullest ring's fill fraction, to adapt the period. */
/* A CPU record of a thread: read here while it lives (it cannot finish
 * exiting while wf_reg_mu, held here, is: wf_thread_gone takes it), or as
 * it read it itself on the way out.  Written when it moved, and once more
 * when it stops moving; when it moves again after idling, the last
 * unchanged reading goes first, so that a reader interpolating between
 * records puts the rise after the idle stretch, not across it. */
static void cpu_record(struct wf_session *s, struct wf_ring *r, int exited)
{
    struct wft_cpu c = {0};
    if (exited) {
        c = r->cpu_last;
    } else {
        /* a descriptor kept open for the first SCHED_FDS threads; the
         * others open and close theirs each time */
        int had = r->sched_fd >= 0, *fdp = had || s->sched_fds < SCHED_FDS ? &r->sched_fd : NULL;
        cpu_sample(fdp, r->tid, r->cpu_clock, r->has_cpu_clock, &c);
        s->sched_fds += !had && r->sched_fd >= 0;
    }
    if (!c.ticks)
        return;
    c.thread = r->index;
    int moved = !r->cpu_prev.ticks || c.cpu_ns != r->cpu_prev.cpu_ns || c.wait_ns != r->cpu_prev.wait_ns;
    if (moved) {
        if (r->cpu_same >= 2) /* the idle stretch's last reading was held back */
            out_rec(s, WFT_CPU, &r->cpu_prev, sizeof r->cpu_prev);
        out_rec(s, WFT_CPU, &c, sizeof c);
        r->cpu_same = 0;
    } else if (++r->cpu_same == 1) {
        out_rec(s, WFT_CPU, &c, sizeof c); /* it stopped moving */
    }
    r->cpu_prev = c;
}

static double writer_cycle(struct wf_session *s)
{
    double fullest = 0;
    uint64_t events = 0;
    s->out_len = 0;

    pthread_mutex_lock(&wf_def_mu);
    if (wf_defs_len) {
        if (!buf_reserve(&s->out, &s->out_cap, 0, wf_defs_len)) {
            memcpy(s->out, wf_defs, wf_defs_len);
            s->out_len = wf_defs_len;
        }
        wf_defs_len = 0;
    }
    pthread_mutex_unlock(&wf_def_mu);
    if (s->text_fd >= 0 && s->out_len)
        text_learn_units(s, s->out, s->out_len);

    pthread_mutex_lock(&wf_reg_mu);
    /* CPU samples once a flush period: not on the fast cycles (every ms)
     * the writer runs while a ring fills (half a period's slack for the
     * wake-up's jitter). */
    uint64_t cpu_now = wfc_mono_ns();
    int cpu_due = cpu_now - s->last_cpu_ns >= (uint64_t)s->opts.flush_ms * 500000u;
    if (cpu_due)
        s->last_cpu_ns = cpu_now;
    struct wf_ring **pp = &wf_rings;
    while (*pp) {
        struct wf_ring *r = *pp;
        int exited = r->exited; /* read before head: no marks after it */
        if (!r->announced || r->name_gen != r->name_written) {
            struct wft_thread th = {.thread = r->index, .tid = r->tid};
            memcpy(th.name, r->name, sizeof th.name);
            th.name[sizeof th.name - 1] = 0;
            out_rec(s, WFT_THREAD, &th, sizeof th);
            r->announced = 1;
            r->name_written = r->name_gen;
        }
        uint64_t used = atomic_load_explicit(&r->head, memory_order_acquire) -
                        atomic_load_explicit(&r->tail, memory_order_relaxed);
        double fill = (double)used / (double)(r->mask + 1);
        if (fill > fullest)
            fullest = fill;
        events += drain_ring(s, r);
        uint64_t lost = atomic_load_explicit(&r->lost, memory_order_relaxed);
        if (lost != r->lost_written) {
            struct wft_lost l = {.thread = r->index, .lost = lost};
            out_rec(s, WFT_LOST, &l, sizeof l);
            r->lost_written = lost;
        }
        if (r->sample_cpu && (exited || cpu_due))
            cpu_record(s, r, exited);
        if (exited) {
            s->dead_marked += ring_marks(r) + lost;
            s->dead_lost += lost;
            *pp = r->next;
            if (r->sched_fd >= 0) {
                close(r->sched_fd);
                s->sched_fds--;
            }
            free(r->slots);
            free(r);
            continue;
        }
        pp = &r->next;
    }
    pthread_mutex_unlock(&wf_reg_mu);
    if (s->late_len) {
        if (!buf_reserve(&s->out, &s->out_cap, s->out_len, s->late_len)) {
            memcpy(s->out + s->out_len, s->late, s->late_len);
            s->out_len += s->late_len;
        }
        s->late_len = 0;
    }

    uint64_t now = wfc_mono_ns();
    if (now - s->last_clock_ns >= WF_CLOCK_EVERY_NS) {
        struct wft_clockpt c = {.ticks = wfc_ticks(), .mono_ns = now};
        if (wfc_source != WFT_CLOCK_MONOTONIC)
            c.mono_ns = wfc_mono_ns();
        else
            c.mono_ns = c.ticks; /* one read: the calibration stays exactly 1 */
        out_rec(s, WFT_CLOCK, &c, sizeof c);
        s->last_clock_ns = now;
    }
    if (s->out_len)
        write_all(s, s->out, s->out_len, events);
    if (s->text_fd >= 0 && s->text_len)
        write_text(s);
    return fullest;
}

static void *writer_main(void *arg)
{
    struct wf_session *s = arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* signals are the program's */
    pthread_mutex_lock(&s->wake_mu);
    while (!s->stop) {
        pthread_mutex_unlock(&s->wake_mu);
        double fill = writer_cycle(s);
        /* A ring past a quarter full gets drained again soon. */
        uint64_t ns = fill > 0.25 ? 1000000u : (uint64_t)s->opts.flush_ms * 1000000u;
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += (time_t)(ns / 1000000000u);
        until.tv_nsec += (long)(ns % 1000000000u);
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&s->wake_mu);
        if (!s->stop)
            pthread_cond_timedwait(&s->wake, &s->wake_mu, &until);
    }
    pthread_mutex_unlock(&s->wake_mu);
    writer_cycle(s);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Open and close                                                      */

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

static int write_header(struct wf_session *s)
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
    h.flags = (s->opts.block_when_full ? WFT_F_BLOCKING : 0) | (s->opts_cpu ? WFT_F_CPU : 0);
    gethostname(h.host, sizeof h.host - 1);
    s->last_clock_ns = h.epoch_mono_ns;
    ssize_t w = write(s->fd, &h, sizeof h);
    if (w != (ssize_t)sizeof h)
        return w < 0 ? -errno : -EIO;
    s->good_off = sizeof h;
    /* The first calibration point is the epoch itself. */
    struct wft_clockpt c = {.ticks = h.epoch_ticks, .mono_ns = h.epoch_mono_ns};
    s->out_len = 0;
    out_rec(s, WFT_CLOCK, &c, sizeof c);
    write_all(s, s->out, s->out_len, 0);
    return s->write_err ? -s->write_err : 0;
}

static void session_free(struct wf_session *s)
{
    for (size_t i = 0; i < s->nunits; i++)
        free(s->units[i].job);
    free(s->units);
    free(s->out);
    free(s->text);
    free(s->late);
    pthread_mutex_destroy(&s->wake_mu);
    pthread_cond_destroy(&s->wake);
    free(s);
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

int wf_open_opts(const char *path, const wf_options *opts)
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
    struct wf_session *s = calloc(1, sizeof *s);
    if (!s) {
        pthread_mutex_unlock(&wf_reg_mu);
        return -ENOMEM;
    }
    if (opts)
        s->opts = *opts;
    opts_fill(&s->opts);
    s->opts_cpu = env_int("WATERFALL_CPU", 1) != 0;
    s->decimals = s->opts.timeline_decimals;
    s->pid = getpid();
    s->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc = s->fd < 0 ? -errno : 0;
    if (rc == 0)
        rc = open_text(s);
    if (rc == 0) {
        s->ticks_per_ns = wfc_calibrate(2);
        rc = write_header(s);
    }
    pthread_mutex_init(&s->wake_mu, NULL);
    /* The writer's deadlines are on CLOCK_MONOTONIC (writer_main), so the
     * condition waits on it too: with the default (CLOCK_REALTIME) every
     * deadline lies decades in the past and the writer spins a core. */
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->wake, &ca);
    pthread_condattr_destroy(&ca);
    if (rc == 0) {
        s->id = wf_next_session++;
        if (wf_next_session == 0)
            wf_next_session = 1;
        s->first_unit = atomic_load(&wf_next_unit);
        atomic_store(&wf_units_made, 0);
        /* User events defined before open go in first. */
        pthread_mutex_lock(&wf_def_mu);
        wf_defs_len = 0;
        for (int i = 0; i < wf_nevents; i++)
            wf_event_def_rec(WF_EVENT_USER_FIRST + i);
        pthread_mutex_unlock(&wf_def_mu);
        rc = -pthread_create(&s->writer, NULL, writer_main, s);
    }
    if (rc) {
        if (s->fd >= 0)
            close(s->fd);
        if (s->text_owned)
            close(s->text_fd);
        session_free(s);
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

int wf_open(const char *path)
{
    return wf_open_opts(path, NULL);
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

    pthread_mutex_lock(&wf_reg_mu);
    uint64_t marked = s->dead_marked, lost = s->dead_lost;
    for (struct wf_ring *r = wf_rings, *next; r; r = next) {
        next = r->next;
        uint64_t l = atomic_load_explicit(&r->lost, memory_order_relaxed);
        marked += ring_marks(r) + l;
        lost += l;
        r->attached = 0;
        if (r->sched_fd >= 0)
            close(r->sched_fd);
        r->sched_fd = -1;
        if (r->exited) {
            free(r->slots);
            free(r);
        }
    }
    wf_rings = NULL;
    lost += s->write_lost;
    struct wft_end end = {.marked = marked,
                          .recorded = atomic_load(&s->recorded),
                          .lost = lost,
                          .threads = s->threads,
                          .units = atomic_load(&wf_units_made)};
    s->out_len = 0;
    out_rec(s, WFT_END, &end, sizeof end);
    write_all(s, s->out, s->out_len, 0);
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
            uint64_t l = atomic_load_explicit(&r->lost, memory_order_relaxed);
            now.marked += ring_marks(r) + l;
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

/* ------------------------------------------------------------------ */
/* Process events: fork, exit, the environment                        */

/* Lock order everywhere: wf_reg_mu before wf_def_mu. */
static void wf_atfork_prepare(void)
{
    pthread_mutex_lock(&wf_reg_mu);
    pthread_mutex_lock(&wf_def_mu);
}

static void wf_atfork_parent(void)
{
    pthread_mutex_unlock(&wf_def_mu);
    pthread_mutex_unlock(&wf_reg_mu);
}

static void wf_atfork_child(void)
{
    /* No writer here: stop recording, drop the inherited rings unread and
     * close the inherited descriptors without writing a byte.  Only this
     * thread exists here, so every ring on the list is ours to free (also
     * when the fork came while another thread was in wf_close, which had
     * not yet taken them off); this thread's own is forgotten by its TLS
     * too. */
    int own = 0;
    for (struct wf_ring *r = wf_rings, *next; r; r = next) {
        next = r->next;
        own |= r == wf_tls;
        if (r->sched_fd >= 0) /* the parent's thread's file */
            close(r->sched_fd);
        free(r->slots);
        free(r);
    }
    wf_rings = NULL;
    if (own) { /* a ring means the key exists: forget it in the key too */
        wf_tls = NULL;
        pthread_setspecific(wf_key, NULL);
    }
    if (atomic_load_explicit(&wf_live, memory_order_relaxed) && wf_sess) {
        atomic_store_explicit(&wf_live, 0, memory_order_relaxed);
        close(wf_sess->fd);
        if (wf_sess->text_owned)
            close(wf_sess->text_fd);
        for (size_t i = 0; i < wf_sess->nunits; i++)
            free(wf_sess->units[i].job);
        free(wf_sess->units);
        free(wf_sess->out);
        free(wf_sess->text);
        free(wf_sess->late);
        free(wf_sess); /* its mutex may be held by the vanished writer: no destroy */
        wf_sess = NULL;
        wf_defs_len = 0;
        wf_env_opened = 0;
    }
    pthread_mutex_unlock(&wf_def_mu);
    pthread_mutex_unlock(&wf_reg_mu);
    pthread_mutex_init(&wf_reg_mu, NULL);
    pthread_mutex_init(&wf_def_mu, NULL);
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
