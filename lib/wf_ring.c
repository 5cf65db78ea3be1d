/*
 * wf_ring.c -- the per-thread ring: the hot path (wf_mark), attaching a
 * thread to the live recording on its first mark, the thread's exit, its
 * role and its name.  wf_internal.h describes the ring and its lifetime.
 */
#include "wf_internal.h"

#include "wf_clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct wf_ring *wf_rings;

/* initial-exec: one %fs-relative load, no __tls_get_addr, in the .so too */
static __thread struct wf_ring *wf_tls __attribute__((tls_model("initial-exec")));
static __thread int32_t wf_tls_worker = -1, wf_tls_device = -1;
static __thread char wf_tls_name[32];
static pthread_key_t wf_key;
static pthread_once_t wf_key_once = PTHREAD_ONCE_INIT;

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
    uint64_t h = __atomic_load_n(&r->sh->head, __ATOMIC_RELAXED);
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
    __atomic_store_n(&r->sh->head, h + 1, __ATOMIC_RELEASE);
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
            uint64_t h = __atomic_load_n(&r->sh->head, __ATOMIC_RELAXED);
            r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
            if (h - r->tail_seen <= r->mask) {
                wf_put(r, ev, unit);
                return;
            }
        }
    }
    __atomic_store_n(&r->sh->lost, __atomic_load_n(&r->sh->lost, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

uint64_t wf_ring_marks(struct wf_ring *r)
{
    return __atomic_load_n(&r->sh->head, __ATOMIC_RELAXED) -
           __atomic_load_n(&r->sh->roles, __ATOMIC_RELAXED);
}

void wf_ring_free(struct wf_ring *r)
{
    wf_shm_ring_unmap(r);
    free(r->priv);
    free(r);
}

/* ------------------------------------------------------------------ */
/* Attaching a thread                                                  */

static void wf_thread_gone(void *p)
{
    struct wf_ring *r = p;
    struct wft_cpu last = {0};
    if (r->sample_cpu) /* its last CPU time, for the writer */
        wf_cpu_sample(NULL, 0, r->cpu_clock, r->has_cpu_clock, &last);
    pthread_mutex_lock(&wf_reg_mu);
    if (r->attached) {
        r->cpu_last = last;
        wf_cpu_keep(r, &last); /* kept in the rings file too: the writer may not run again */
        r->exited = 1; /* the writer drains and frees it */
    } else {
        wf_ring_free(r);
    }
    pthread_mutex_unlock(&wf_reg_mu);
    wf_tls = NULL;
}

static void wf_key_make(void)
{
    pthread_key_create(&wf_key, wf_thread_gone);
}

/* A role change rides in the ring so it stays in order with the marks.
 * It is not a mark, so roles counts them out of head.  Only a full ring in
 * dropping mode can drop one; the marks dropped around it are counted. */
static void wf_put_role(struct wf_ring *r)
{
    uint64_t before = __atomic_load_n(&r->sh->head, __ATOMIC_RELAXED);
    uint64_t lost = __atomic_load_n(&r->sh->lost, __ATOMIC_RELAXED);
    wf_put(r, WF_EV_ROLE, wft_role_word(wf_tls_worker, wf_tls_device));
    if (__atomic_load_n(&r->sh->head, __ATOMIC_RELAXED) != before)
        __atomic_store_n(&r->sh->roles, __atomic_load_n(&r->sh->roles, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
    else /* dropped: undo the count, it was not a mark */
        __atomic_store_n(&r->sh->lost, lost, __ATOMIC_RELAXED);
}

/* The calling thread's ring with room for cap slots (under wf_reg_mu):
 * its own, or a new one, its slots in a stretch of the session's rings
 * file (else private); NULL, the thread's ring forgotten, when out of
 * memory. */
static struct wf_ring *wf_ring_get(struct wf_session *s, size_t cap)
{
    struct wf_ring *r = wf_tls;
    if (!r) {
        if (posix_memalign((void **)&r, 64, sizeof *r))
            return NULL;
        memset(r, 0, sizeof *r);
        r->sh = &r->own;
    }
    wf_shm_ring_unmap(r); /* an earlier session's stretch (its file is gone) */
    if (s->shm && wf_shm_ring(s->shm, r) == 0) {
        free(r->priv);
        r->priv = NULL;
        return r;
    }
    if (r->priv && r->priv_cap != cap) {
        free(r->priv);
        r->priv = NULL;
    }
    if (!r->priv) {
        r->priv = calloc(cap, sizeof *r->priv);
        if (!r->priv) {
            free(r);
            wf_tls = NULL;
            pthread_setspecific(wf_key, NULL);
            return NULL;
        }
        r->priv_cap = cap;
    }
    r->slots = r->priv;
    return r;
}

/* Reset r for session s, as thread index s->threads (under wf_reg_mu). */
static void wf_ring_reset(struct wf_ring *r, struct wf_session *s, size_t cap)
{
    r->mask = cap - 1;
    struct wft_ring_header *h = r->sh;
    __atomic_store_n(&h->head, 0, __ATOMIC_RELAXED);
    atomic_store_explicit(&r->tail, 0, memory_order_relaxed);
    r->drained = 0;
    __atomic_store_n(&h->lost, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&h->roles, 0, __ATOMIC_RELAXED);
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
    /* what a reader of the rings file needs of the thread; then the ring
     * is its (state last) */
    h->thread = r->index;
    h->tid = r->tid;
    h->cpu_ticks = 0;
    memcpy(h->name, r->name, sizeof h->name);
    __atomic_store_n(&h->state, WFT_RING_USED, __ATOMIC_RELEASE);
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
    size_t cap = s->opts.ring_events;
    struct wf_ring *r = wf_ring_get(s, cap);
    if (!r) {
        pthread_mutex_unlock(&wf_reg_mu);
        return NULL;
    }
    wf_ring_reset(r, s, cap);
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

void wf_rings_drop_in_child(void)
{
    /* Only this thread exists here, so every ring on the list is ours to
     * free (also when the fork came while another thread was in wf_close,
     * which had not yet taken them off); this thread's own is forgotten by
     * its TLS too. */
    int own = 0;
    for (struct wf_ring *r = wf_rings, *next; r; r = next) {
        next = r->next;
        own |= r == wf_tls;
        if (r->sched_fd >= 0) /* the parent's thread's file */
            close(r->sched_fd);
        wf_ring_free(r);
    }
    wf_rings = NULL;
    if (own) { /* a ring means the key exists: forget it in the key too */
        wf_tls = NULL;
        pthread_setspecific(wf_key, NULL);
    }
}

/* ------------------------------------------------------------------ */
/* A thread's role and name                                            */

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
        memcpy(r->sh->name, wf_tls_name, sizeof r->sh->name);
        r->name_gen++;
    }
    pthread_mutex_unlock(&wf_reg_mu);
}
