/*
 * wf_writer.c -- the writer thread.  Once a flush period (sooner while a
 * ring fills) it takes the pending definitions, drains every ring into
 * EVENTS records, writes THREAD, ROLE, LOST and CPU records, GPU records
 * (wf_gpu.c) and a clock point every 100 ms, and write()s the batch; with a TIMELINE sink it also
 * formats each event as a text line.  The caller of wf_mark never waits
 * for it (unless block_when_full is set and its ring is full).
 */
#include "wf_internal.h"

#include "wf_clock.h"
#include "wf_timeline.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* The TIMELINE text sink                                              */

/* The text sink's entry for unit (grown to hold it), or NULL. */
static struct wf_unitname *text_unit(struct wf_session *s, uint64_t unit)
{
    if (unit < s->first_unit)
        return NULL;
    size_t i = unit - s->first_unit;
    if (i >= s->units_cap) {
        size_t ncap = s->units_cap ? s->units_cap : 1024;
        while (ncap <= i)
            ncap *= 2;
        struct wf_unitname *n = realloc(s->units, ncap * sizeof *n);
        if (!n)
            return NULL;
        memset(n + s->units_cap, 0, (ncap - s->units_cap) * sizeof *n);
        s->units = n;
        s->units_cap = ncap;
    }
    if (i >= s->nunits)
        s->nunits = i + 1;
    return &s->units[i];
}

/* Keep a copy of unit names, and of their details, for the text sink. */
static void text_learn_units(struct wf_session *s, const char *defs, size_t len)
{
    for (size_t off = 0; off + sizeof(struct wft_rec) <= len;) {
        const struct wft_rec *rec = (const void *)(defs + off);
        if (rec->type == WFT_UNIT) {
            const struct wft_unit *u = (const void *)rec;
            struct wf_unitname *n = text_unit(s, u->unit);
            char *job = n ? malloc(u->job_len + 1) : NULL;
            if (job) {
                memcpy(job, u + 1, u->job_len);
                job[u->job_len] = 0;
                free(n->job);
                n->job = job;
                n->job_len = u->job_len;
                n->partition = u->partition;
            }
        } else if (rec->type == WFT_UNIT_DETAIL) {
            const struct wft_unit_detail *d = (const void *)rec;
            struct wf_unitname *n = text_unit(s, d->unit);
            if (n && !n->details)
                n->details = malloc(WFT_DETAILS_MAX);
            if (n && n->details) {
                const char *key = (const char *)(d + 1);
                wft_detail_add(n->details, &n->details_len, key, d->key_len, key + d->key_len, d->value_len);
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
    if (wf_defs_len && !wf_buf_reserve(&s->late, &s->late_cap, s->late_len, wf_defs_len)) {
        memcpy(s->late + s->late_len, wf_defs, wf_defs_len);
        s->late_len += wf_defs_len;
        wf_defs_len = 0;
    }
    s->journal_taken = wf_shm_journal_end(s->shm);
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
    const char *job = jobbuf, *details = NULL;
    size_t job_len, details_len = 0;
    int partition = -1;
    size_t i = unit - s->first_unit;
    if (unit >= s->first_unit && (i >= s->nunits || !s->units[i].job))
        take_late_defs(s); /* made after this cycle took the definitions */
    if (unit >= s->first_unit && i < s->nunits && s->units[i].job) {
        job = s->units[i].job;
        job_len = s->units[i].job_len;
        partition = s->units[i].partition;
        details = s->units[i].details;
        details_len = s->units[i].details_len;
    } else {
        job_len = (size_t)snprintf(jobbuf, sizeof jobbuf, "unit-%llu",
                                   (unsigned long long)unit);
    }
    double ns = (double)(int64_t)(e->ticks - s->epoch_ticks) / s->ticks_per_ns;
    if (wf_buf_reserve(&s->text, &s->text_cap, s->text_len, WFT_LINE_MAX))
        return;
    s->text_len += wft_format_line_details(s->text + s->text_len, (int64_t)ns, s->decimals, name, job,
                                           job_len, partition, r->worker, r->device, details, details_len);
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

/* ------------------------------------------------------------------ */
/* Draining and writing                                                */

/* Move [drained, head) of one ring into the output, split at role
 * changes, and a SEQ record after them; its tail moves once they are
 * written (publish). */
static uint64_t drain_ring(struct wf_session *s, struct wf_ring *r)
{
    uint64_t t = r->drained;
    uint64_t h = __atomic_load_n(&r->sh->head, __ATOMIC_ACQUIRE);
    uint64_t n = h - t;
    while (t < h) {
        /* One EVENTS record covers slots up to the next role change. */
        size_t hdr_at = s->out_len;
        struct wft_events ev = {.thread = r->index, .count = 0};
        if (wf_buf_reserve(&s->out, &s->out_cap, s->out_len,
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
            wf_rec_init(&ev.rec, (uint32_t)(sizeof ev + ev.count * sizeof(struct wft_event)),
                        WFT_EVENTS);
            memcpy(s->out + hdr_at, &ev, sizeof ev);
            wf_rec_seal(s->out + hdr_at);
        } else {
            s->out_len = hdr_at;
        }
        if (t < h && ev.count < WF_BATCH_MAX) { /* a role change */
            const struct wf_slot *e = &r->slots[t & r->mask];
            int32_t w, d;
            wft_role_of(e->word, &w, &d);
            struct wft_role role = {.thread = r->index, .worker = w, .device = d};
            wf_out_rec(s, WFT_ROLE, &role, sizeof role);
            r->worker = w;
            r->device = d;
            n--; /* not an event */
            t++;
        }
    }
    if (t != r->drained) {
        struct wft_seq q = {.thread = r->index, .next = t};
        wf_out_rec(s, WFT_SEQ, &q, sizeof q);
        r->drained = t;
    }
    return n;
}

/* The batch is written: the rings' drained slots may be written again,
 * the retired rings' stretches serve other threads, the journal's
 * definitions taken are in the file. */
static void publish(struct wf_session *s)
{
    pthread_mutex_lock(&wf_reg_mu);
    for (struct wf_ring *r = wf_rings; r; r = r->next)
        atomic_store_explicit(&r->tail, r->drained, memory_order_release);
    for (struct wf_ring *r = s->retired, *next; r; r = next) {
        next = r->next;
        wf_shm_ring_done(s->shm, r);
        wf_ring_free(r);
    }
    s->retired = NULL;
    pthread_mutex_unlock(&wf_reg_mu);
    wf_shm_journal_done(s->shm, s->journal_taken);
}

void wf_write_all(struct wf_session *s, const char *p, size_t len, uint64_t events)
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

/* ------------------------------------------------------------------ */
/* One cycle                                                           */

/* The pending definitions go first in the output (and to the text sink's
 * table of units). */
static void take_defs(struct wf_session *s)
{
    pthread_mutex_lock(&wf_def_mu);
    if (wf_defs_len) {
        if (!wf_buf_reserve(&s->out, &s->out_cap, 0, wf_defs_len)) {
            memcpy(s->out, wf_defs, wf_defs_len);
            s->out_len = wf_defs_len;
        }
        wf_defs_len = 0;
    }
    s->journal_taken = wf_shm_journal_end(s->shm);
    pthread_mutex_unlock(&wf_def_mu);
    if (s->text_fd >= 0 && s->out_len)
        text_learn_units(s, s->out, s->out_len);
}

/* Every ring: its THREAD record when new or renamed, its events, its LOST
 * count when it moved, its CPU record when due; a ring whose thread has
 * exited is retired after its last drain, and freed once written
 * (publish; under wf_reg_mu).  Returns the
 * fullest ring's fill fraction; *events gets the events drained. */
static double drain_rings(struct wf_session *s, int cpu_due, uint64_t *events)
{
    double fullest = 0;
    struct wf_ring **pp = &wf_rings;
    while (*pp) {
        struct wf_ring *r = *pp;
        int exited = r->exited; /* read before head: no marks after it */
        if (!r->announced || r->name_gen != r->name_written) {
            struct wft_thread th = {.thread = r->index, .tid = r->tid};
            memcpy(th.name, r->name, sizeof th.name);
            th.name[sizeof th.name - 1] = 0;
            wf_out_rec(s, WFT_THREAD, &th, sizeof th);
            r->announced = 1;
            r->name_written = r->name_gen;
        }
        uint64_t used = __atomic_load_n(&r->sh->head, __ATOMIC_ACQUIRE) -
                        atomic_load_explicit(&r->tail, memory_order_relaxed);
        double fill = (double)used / (double)(r->mask + 1);
        if (fill > fullest)
            fullest = fill;
        *events += drain_ring(s, r);
        uint64_t lost = __atomic_load_n(&r->sh->lost, __ATOMIC_RELAXED);
        if (lost != r->lost_written) {
            struct wft_lost l = {.thread = r->index, .lost = lost};
            wf_out_rec(s, WFT_LOST, &l, sizeof l);
            r->lost_written = lost;
        }
        if (r->sample_cpu && (exited || cpu_due))
            wf_cpu_record(s, r, exited);
        if (exited) {
            s->dead_marked += wf_ring_marks(r) + lost;
            s->dead_lost += lost;
            *pp = r->next;
            if (r->sched_fd >= 0) {
                close(r->sched_fd);
                s->sched_fds--;
            }
            r->next = s->retired;
            s->retired = r;
            continue;
        }
        pp = &r->next;
    }
    return fullest;
}

/* One pass: definitions, every ring, lost counts, the GPUs, a clock
 * point (final: the last pass, which samples the GPUs whatever the time).
 * Returns the fullest ring's fill fraction, to adapt the period. */
static double writer_cycle(struct wf_session *s, int final)
{
    uint64_t events = 0;
    s->out_len = 0;
    take_defs(s);

    pthread_mutex_lock(&wf_reg_mu);
    /* CPU samples once a flush period: not on the fast cycles (every ms)
     * the writer runs while a ring fills (half a period's slack for the
     * wake-up's jitter). */
    uint64_t cpu_now = wfc_mono_ns();
    int cpu_due = cpu_now - s->last_cpu_ns >= (uint64_t)s->opts.flush_ms * 500000u;
    if (cpu_due)
        s->last_cpu_ns = cpu_now;
    double fullest = drain_rings(s, cpu_due, &events);
    pthread_mutex_unlock(&wf_reg_mu);
    if (cpu_due && s->opts_cpu) /* memory with the CPU samples, outside the lock */
        wf_mem_record(s);
    if (s->late_len) {
        if (!wf_buf_reserve(&s->out, &s->out_cap, s->out_len, s->late_len)) {
            memcpy(s->out + s->out_len, s->late, s->late_len);
            s->out_len += s->late_len;
        }
        s->late_len = 0;
    }
    if (s->opts_gpu) /* NVML's calls take microseconds: never under a lock */
        wf_gpu_cycle(s, final);

    uint64_t now = wfc_mono_ns();
    if (now - s->last_clock_ns >= WF_CLOCK_EVERY_NS) {
        struct wft_clockpt c = {.ticks = wfc_ticks(), .mono_ns = now};
        if (wfc_source != WFT_CLOCK_MONOTONIC)
            c.mono_ns = wfc_mono_ns();
        else
            c.mono_ns = c.ticks; /* one read: the calibration stays exactly 1 */
        wf_out_rec(s, WFT_CLOCK, &c, sizeof c);
        s->last_clock_ns = now;
    }
    if (s->out_len)
        wf_write_all(s, s->out, s->out_len, events);
    publish(s);
    if (s->text_fd >= 0 && s->text_len)
        write_text(s);
    return fullest;
}

/* Test-only (WATERFALL_TEST_STALL=FILE, docs/api.md): once FILE exists
 * the writer stops for good, as a writer that the scheduler never runs
 * again would: the marks stay in the rings file. */
static int stalled(const struct wf_session *s)
{
    return s->stall_path[0] && access(s->stall_path, F_OK) == 0;
}

void *wf_writer_main(void *arg)
{
    struct wf_session *s = arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* signals are the program's */
    pthread_mutex_lock(&s->wake_mu);
    while (!s->stop) {
        pthread_mutex_unlock(&s->wake_mu);
        if (stalled(s)) { /* test-only: no cycle until wf_close */
            pthread_mutex_lock(&s->wake_mu);
            while (!s->stop)
                pthread_cond_wait(&s->wake, &s->wake_mu);
            break;
        }
        pthread_mutex_lock(&wf_cycle_mu);
        double fill = writer_cycle(s, 0);
        pthread_mutex_unlock(&wf_cycle_mu);
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
    pthread_mutex_lock(&wf_cycle_mu);
    writer_cycle(s, 1);
    pthread_mutex_unlock(&wf_cycle_mu);
    wf_gpu_close(s);
    return NULL;
}
