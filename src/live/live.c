/*
 * live.c -- records into units as they come, and the settled horizon
 * (live.h says what is counted when, and why).
 *
 * The units are those of the model (struct unit), built by the model's
 * rules: the first of an event is kept (a repeat is a duplicate), a
 * record naming its worker or device sets the unit's, a restart of the
 * epoch starts a new run (model_is_restart, the readers' own test, with
 * the same wait for the next record).  Every instant is counted with the
 * analysis's own definitions (analyze.h: the unit spans and
 * idle_attribute), so watch and analyze cannot disagree on what busy or
 * an idle cause is.
 */
#include "live.h"

#include "build.h"
#include "durations.h"
#include "events.h"
#include "hindex.h"
#include "mem.h"
#include "sort.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

const double live_hist_le[LIVE_HIST_N] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                          0.25,  0.5,    1,     2.5,  5,     10,  30};

#define NS 1000000000LL

/* A unit key's hash, as the batch reader's (events.h): the job id's, mixed
 * with the partition. */
static uint64_t key_hash(const char *job, size_t len, int32_t partition)
{
    return unit_hash(hash_bytes(job, len, 0), partition);
}

int live_init(struct live *l, const struct live_opts *o)
{
    memset(l, 0, sizeof *l);
    l->o = *o;
    if (l->o.slack_ns < 0)
        l->o.slack_ns = 0;
    l->dur_kernel = !l->o.kernel_phase || strcasecmp(l->o.kernel_phase, "gpu_total") == 0;
    if (!l->o.kernel_phase)
        l->o.kernel_phase = "KERNEL";
    if (l->o.recent_ns <= 0)
        l->o.recent_ns = 60 * NS;
    if (l->o.recent_ns > (LIVE_BINS - 2) * NS)
        l->o.recent_ns = (LIVE_BINS - 2) * NS;
    l->mask = 1023;
    l->tab = calloc(l->mask + 1, sizeof *l->tab);
    l->done = calloc(l->o.keep ? l->o.keep : 1, sizeof *l->done);
    for (int i = 0; i < LIVE_BINS; i++)
        l->bins[i].sec = INT64_MIN;
    l->latest_s = INT64_MIN;
    l->dur_t = T_NONE;
    return l->tab && l->done ? 0 : -1;
}

static void gone_clear(struct live *l);

static void unit_free(struct live_unit *x)
{
    if (x)
        free(x->kern);
    free(x);
}

static void done_clear(struct live *l)
{
    for (size_t i = 0; i < l->ndone; i++)
        unit_free(l->done[(l->done_head + i) % (l->o.keep ? l->o.keep : 1)]);
    l->ndone = l->done_head = 0;
}

void live_free(struct live *l)
{
    if (l->tab)
        for (size_t i = 0; i <= l->mask; i++)
            unit_free(l->tab[i]);
    free(l->tab);
    free(l->gs);
    if (l->done)
        done_clear(l);
    free(l->done);
    free(l->dev);
    gone_clear(l);
    free(l->sp_queue.s);
    free(l->sp_synth.s);
    free(l->sp_busy.s);
    free(l->sp_prep.s);
    free(l->sp_kern.s);
    free(l->sp_bar.s);
    free(l->dcand);
    free(l->dscratch);
    dmux_free(l->mux);
    free(l->mring);
    free(l->dsect);
    free(l->dpend);
    free(l->msp);
    for (int c = 0; c < CAUSE_NO_WORK; c++)
        stair_free(&l->stair[c]);
    free(l->moves);
    free(l->open);
    memset(l, 0, sizeof *l);
}

/* ---- the units kept, by (job, partition) ---- */

static size_t slot_of(const struct live *l, const char *job, size_t len, int32_t partition, uint64_t h)
{
    size_t i = h & l->mask;
    for (; l->tab[i]; i = (i + 1) & l->mask) {
        const struct live_unit *x = l->tab[i];
        if (x->hash == h && x->u.partition == partition && x->job_len == len && memcmp(x->job, job, len) == 0)
            break;
    }
    return i;
}

static int tab_grow(struct live *l)
{
    size_t size = (l->mask + 1) * 2;
    struct live_unit **nt = calloc(size, sizeof *nt);
    if (!nt)
        return -1;
    for (size_t i = 0; i <= l->mask; i++)
        if (l->tab[i]) {
            size_t k = l->tab[i]->hash & (size - 1);
            while (nt[k])
                k = (k + 1) & (size - 1);
            nt[k] = l->tab[i];
        }
    free(l->tab);
    l->tab = nt;
    l->mask = size - 1;
    return 0;
}

/* Take slot i out, shifting back the entries after it that probed past
 * it (linear probing without tombstones). */
static void tab_remove(struct live *l, size_t i)
{
    l->gs_dirty = 1;
    l->tab[i] = NULL;
    l->n--;
    for (size_t j = (i + 1) & l->mask; l->tab[j]; j = (j + 1) & l->mask) {
        size_t home = l->tab[j]->hash & l->mask;
        /* j's entry may move to i when its home is not in (i, j] */
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            l->tab[i] = l->tab[j];
            l->tab[j] = NULL;
            i = j;
        }
    }
}

static int gone_find(const struct live *l, uint64_t h);

/* The unit of a key in the table, made when new.  With *gone given, a key
 * not in the table is looked up among the units gone first: found there,
 * NULL is returned with *gone its events (a bit per event); so the gone
 * set, large and cold, is read once per unit, not once per record. */
static struct live_unit *unit_get(struct live *l, const struct live_rec *r, int *gone)
{
    uint64_t h = r->hash;
    const char *job = r->job;
    size_t len = r->job_len;
    int32_t partition = r->partition;
    size_t i = slot_of(l, job, len, partition, h);
    if (l->tab[i])
        return l->tab[i];
    if (gone && l->gone.gen[0] && (*gone = gone_find(l, h)) >= 0)
        return NULL;
    if ((l->n + 1) * 2 > l->mask + 1) {
        if (tab_grow(l))
            return NULL;
        i = slot_of(l, job, len, partition, h);
    }
    struct live_unit *x = malloc(sizeof *x + len);
    if (!x)
        return NULL;
    memset(x, 0, sizeof *x);
    for (int e = 0; e < EV_N; e++)
        x->u.t[e] = T_NONE;
    x->u.partition = partition;
    x->u.worker = -1;
    x->cut = T_NONE;
    x->spawn = -1;
    x->u.line = l->seq;
    x->seq = l->seq++;
    x->hash = h;
    x->job_len = (uint32_t)len;
    memcpy(x->job, job, len);
    l->tab[i] = x;
    l->n++;
    return x;
}

/* ---- units gone from the table ---- */

#define GONE_SLOTS (2 * (size_t)GONE_GEN)

static uint64_t *gone_slot(uint64_t *g, uint64_t h)
{
    size_t i = (h >> 8) & (GONE_SLOTS - 1);
    while (g[i] && (g[i] >> 8) != (h >> 8))
        i = (i + 1) & (GONE_SLOTS - 1);
    return &g[i];
}

/* Ask for the gone set's slots of key hash h ahead of their use: the set
 * is large, and each new unit's lookup, and each unit's leaving, was a
 * miss to memory, a third of watch's time on a dense log (docs/bench.md).
 * Inlined always: GCC finds a function of prefetches alone free of side
 * effects, and drops the calls to it. */
static inline __attribute__((always_inline)) void gone_prefetch(const struct live *l, uint64_t h)
{
    size_t i = (h >> 8) & (GONE_SLOTS - 1);
    if (l->gone.gen[0])
        __builtin_prefetch(l->gone.gen[0] + i);
    if (l->gone.gen[1])
        __builtin_prefetch(l->gone.gen[1] + i);
}

/* The events a gone unit had (a bit per event), or -1 when not gone. */
static int gone_find(const struct live *l, uint64_t h)
{
    for (int k = 0; k < 2; k++)
        if (l->gone.gen[k]) {
            uint64_t e = *gone_slot(l->gone.gen[k], h);
            if (e)
                return (int)(e & 0xff);
        }
    return -1;
}

static int gone_add(struct live *l, const struct live_unit *x)
{
    if (!l->gone.gen[0] || l->gone.n == GONE_GEN) {
        uint64_t *g = big_alloc_full(GONE_SLOTS * sizeof *g); /* zeroed */
        if (!g)
            return -1;
        if (l->gone.gen[1])
            big_free(l->gone.gen[1], GONE_SLOTS * sizeof *g);
        l->gone.gen[1] = l->gone.gen[0];
        l->gone.gen[0] = g;
        l->gone.n = 0;
    }
    unsigned mask = 0x80; /* never 0: 0 is an empty slot */
    for (int e = 0; e < EV_N; e++)
        if (x->u.t[e] != T_NONE)
            mask |= 1u << e;
    uint64_t *p = gone_slot(l->gone.gen[0], x->hash);
    if (!*p)
        l->gone.n++;
    *p = (x->hash & ~0xffull) | mask;
    return 0;
}

static void gone_clear(struct live *l)
{
    for (int k = 0; k < 2; k++) {
        if (l->gone.gen[k])
            big_free(l->gone.gen[k], GONE_SLOTS * sizeof *l->gone.gen[k]);
        l->gone.gen[k] = NULL;
    }
    l->gone.n = 0;
}

/* ---- devices ---- */

static struct live_dev *dev_get(struct live *l, int32_t device)
{
    for (size_t i = 0; i < l->ndev; i++)
        if (l->dev[i].device == device)
            return &l->dev[i];
    if (grow_heap((void **)&l->dev, &l->dev_cap, l->ndev, sizeof *l->dev, 4))
        return NULL;
    /* kept sorted by id: the order of analyze's devices */
    size_t k = l->ndev;
    while (k > 0 && l->dev[k - 1].device > device) {
        l->dev[k] = l->dev[k - 1];
        k--;
    }
    struct live_dev *d = &l->dev[k];
    memset(d, 0, sizeof *d);
    d->device = device;
    d->ws = d->ws_gone = INT64_MAX;
    d->we = d->we_gone = INT64_MIN;
    d->settled = INT64_MIN;
    l->ndev++;
    return d;
}

/* ---- records ---- */

static int64_t first_time(const struct unit *u)
{
    for (int e = 0; e < EV_N; e++)
        if (unit_has(u, e))
            return u->t[e];
    return T_NONE;
}

/* Does the event at t, put into u, contradict the pipeline's order? */
static int contradicts(const struct unit *u, int ev, int64_t t)
{
    for (int e = 0; e < EV_N; e++)
        if (unit_has(u, e) && ((e < ev && u->t[e] > t) || (e > ev && u->t[e] < t)))
            return 1;
    return 0;
}

static void hist_add(struct live_hist *h, int64_t v)
{
    double s = (double)v / 1e9;
    int b = 0;
    while (b < LIVE_HIST_N && s > live_hist_le[b])
        b++;
    h->bucket[b]++;
    h->count++;
    h->sum_ns += v;
}

static int apply(struct live *l, const struct live_rec *r, int64_t t)
{
    int ev = r->ev, had = -1;
    struct live_unit *x = unit_get(l, r, &had);
    if (!x && had >= 0) {
        /* a unit already counted and gone: the event is a duplicate, or
         * came too late to count */
        if (had & (1 << ev))
            l->duplicates++;
        else
            l->late++;
        return 0;
    }
    if (!x)
        return -1;
    struct unit *u = &x->u;
    if (r->queue && ev == EV_CHAN_SEND)
        u->flags |= U_QUEUE;
    if (unit_has(u, ev)) {
        u->flags |= U_DUP;
        l->duplicates++;
        return 0;
    }
    if (t < l->horizon || x->cut != T_NONE)
        l->late++; /* its unit learns it; what was counted stays (a unit judged left in
                    * its state, open_hold, that continues all the same) */
    x->cut = T_NONE; /* it is no longer left in that state */
    if (!(u->flags & U_CONTRA) && contradicts(u, ev, t)) {
        u->flags |= U_CONTRA;
        l->contradictions++;
        /* what it counted toward before stays counted */
        if (t >= l->horizon && first_time(u) < l->horizon)
            l->late++;
    }
    u->t[ev] = t;
    if (ev == EV_GPU_START && !x->in_gs && !l->gs_dirty) { /* (dirty: made again with it) */
        if (grow_heap((void **)&l->gs, &l->gscap, l->ngs, sizeof *l->gs, 64))
            l->gs_dirty = 1;
        else
            l->gs[l->ngs++] = x, x->in_gs = 1;
    }
    if (r->worker >= 0 && u->worker < 0)
        u->worker = r->worker;
    if (r->device >= 0) {
        u->device = r->device;
        u->flags |= U_DEVSET;
        l->devices_named = 1;
    }
    return 0;
}

/* Widen a device's window by a completed unit's GPU phase. */
static int window_add(struct live *l, const struct unit *u, int gone)
{
    struct span b;
    if (!unit_consistent(u) || !unit_busy_span(u, &b))
        return 0;
    struct live_dev *d = dev_get(l, u->device);
    if (!d)
        return -1;
    int64_t *ws = gone ? &d->ws_gone : &d->ws, *we = gone ? &d->we_gone : &d->we;
    if (b.start < *ws)
        *ws = b.start;
    if (b.end > *we)
        *we = b.end;
    return 0;
}

/* Each device's window: that of the units gone, and of those in the
 * table as they are now (a later record may name another device). */
static int windows(struct live *l)
{
    for (size_t i = 0; i < l->ndev; i++) {
        l->dev[i].ws = l->dev[i].ws_gone;
        l->dev[i].we = l->dev[i].we_gone;
    }
    for (size_t i = 0; i <= l->mask; i++)
        if (l->tab[i] && window_add(l, &l->tab[i]->u, 0))
            return -1;
    return 0;
}

static void bins_clear(struct live *l)
{
    for (int i = 0; i < LIVE_BINS; i++)
        l->bins[i].sec = INT64_MIN;
    l->latest_s = INT64_MIN;
}

static int run_end(struct live *l);
static void flush_units(struct live *l);

static int run_begin(struct live *l, int64_t t)
{
    if (l->run && run_end(l))
        return -1;
    l->run++;
    l->run_first_seq = l->seq;
    l->run_max = t;
    l->horizon = INT64_MIN;
    l->devices_named = 0;
    /* the lines' clock keeps its origin: the run's first record was timed
     * on it before the run began (resetting it here re-based the second
     * record at 0, and the first unit's first stage came out empty) */
    memset(l->ended_in_flight, 0, sizeof l->ended_in_flight);
    l->ndsect = l->ndpend = 0; /* a new life of the daemon: new mutexes, no call open */
    l->nmsp = 0;
    dmux_free(l->mux);
    l->mux = NULL;
    l->mseq = l->mfed = 0;
    l->ndunlock = 0;
    for (int c = 0; c < CAUSE_NO_WORK; c++)
        l->stair[c].n = 0; /* a new run's stages */
    for (size_t i = 0; i < l->ndev; i++) {
        if (live_kernel_known_run(&l->dev[i])) { /* the run before, ended: its kernel time as analyze has it */
            l->dev[i].kernel_runs += l->dev[i].rkernel;
            l->dev[i].kernel_runs_any = 1;
        }
        l->dev[i].rbusy = l->dev[i].ridle = l->dev[i].rkernel = 0;
        l->dev[i].rhas_kernel = l->dev[i].rkdur = 0;
        l->dev[i].rgunits = l->dev[i].rkunits = 0;
        l->dev[i].rnokern = l->dev[i].rbidle = 0;
        memset(l->dev[i].rby_cause, 0, sizeof l->dev[i].rby_cause);
        l->dev[i].ws = l->dev[i].ws_gone = INT64_MAX;
        l->dev[i].we = l->dev[i].we_gone = INT64_MIN;
        l->dev[i].settled = INT64_MIN;
    }
    bins_clear(l);
    return 0;
}

/* A record at t follows the held one: does it look like a restart of the
 * run too?  Then the held one began a new run; else it was a late line. */
static int decide_held(struct live *l, int64_t t)
{
    l->held = 0;
    int64_t ht = l->hold.t_ns;
    if (model_is_restart(t, l->run_max) && run_begin(l, ht))
        return -1;
    if (apply(l, &l->hold, ht))
        return -1;
    if (ht > l->run_max)
        l->run_max = ht;
    return 0;
}

/* Put the record into the current run, or hold it (live.h: restarts). */
static int place(struct live *l, const struct live_rec *r, int64_t t)
{
    if (l->held && decide_held(l, t))
        return -1;
    if (!l->run) {
        if (run_begin(l, t))
            return -1;
    } else if (!l->o.one_run && model_is_restart(t, l->run_max)) {
        l->held = 1;
        l->hold = *r;
        l->hold.t_ns = t;
        l->hold.job_len = r->job_len < sizeof l->hold_job ? r->job_len : sizeof l->hold_job;
        memcpy(l->hold_job, r->job, l->hold.job_len);
        l->hold.job = l->hold_job;
        l->hold.hash = key_hash(l->hold_job, l->hold.job_len, l->hold.partition); /* of what is kept */
        return 0;
    }
    if (t > l->run_max)
        l->run_max = t;
    else if (l->run_max - t > l->max_lag)
        l->max_lag = l->run_max - t; /* lines of several threads, slightly out of order */
    return apply(l, r, t);
}

/* NAME_START or NAME_END of the kernel phase (the options', any case):
 * 1 start, 2 end, 0 neither. */
static int kernel_edge(const struct live *l, const struct live_rec *r)
{
    const char *kp = l->o.kernel_phase;
    size_t k = strlen(kp);
    if (r->name_len < k + 4 || strncasecmp(r->name, kp, k) != 0 || r->name[k] != '_')
        return 0;
    const char *rest = r->name + k + 1;
    size_t n = r->name_len - k - 1;
    return n == 5 && strncasecmp(rest, "START", 5) == 0 ? 1 : n == 3 && strncasecmp(rest, "END", 3) == 0 ? 2 : 0;
}

/* A kernel phase's edge, into its unit: a START waits for its END (the
 * oldest open one pairs first, as the model pairs phases). */
static int kernel_add(struct live *l, const struct live_rec *r, int edge, int64_t t)
{
    struct live_unit *x = unit_get(l, r, NULL);
    if (!x)
        return -1;
    if (edge == 1) {
        if (x->nkopen < sizeof x->kopen / sizeof *x->kopen)
            x->kopen[x->nkopen++] = t;
        return 0;
    }
    if (!x->nkopen)
        return 0; /* an END without its START is a mark */
    int64_t a = x->kopen[0];
    memmove(x->kopen, x->kopen + 1, --x->nkopen * sizeof *x->kopen);
    if (x->nkern == x->kern_cap) {
        if (x->kern_cap >= UINT16_MAX / 2)
            return 0;
        uint16_t cap = x->kern_cap ? (uint16_t)(x->kern_cap * 2) : 4;
        struct span *n = realloc(x->kern, cap * sizeof *n);
        if (!n)
            return -1;
        x->kern = n;
        x->kern_cap = cap;
    }
    x->kern[x->nkern++] = (struct span){a, t};
    return 0;
}

/* A record's time on the run's one clock: 0, or 1 when it cannot be put
 * on it (skipped: a figure from two clocks mixed is never made).  A log
 * with ts= first is on the records' clock, and a record timed by its line
 * joins it through the offset of the latest pair whose epoch changed
 * (events.h, clock_epoch: analyze's pairs).  A
 * log timed by its lines first counts from its first line's time; from
 * the first record that carries both on, every record is put on the ts=
 * clock as above and shifted by that record's offset onto the lines'
 * clock: each time is then analyze's (which aligns on the ts= clock, a
 * record before the first pair by that pair) plus one constant, so the
 * figures are analyze's.  (analyze, which can read the log again, also
 * aligns a ts=-first log's line-timed records before its first pair.) */
static int timed(struct live *l, const struct live_rec *r, int64_t *t)
{
    if (!r->wall) { /* it carries ts= */
        if (r->has_line) { /* and its line's time: a pair, taken as analyze keeps one (events.h) */
            int64_t off = r->line_ns - r->t_ns, ep = clock_epoch(off);
            if (!l->have_off || ep != l->off_epoch)
                l->clock_off = off;
            l->off_epoch = ep;
            l->have_off = 1;
            if (l->have_wall && !l->have_shift) {
                l->shift = l->clock_off - l->wall_origin;
                l->have_shift = 1;
            }
        }
        l->saw_ts = 1;
        if (!l->have_wall) {
            *t = r->t_ns;
            return 0;
        }
        if (!l->have_shift)
            return 1; /* on the lines' clock, and no pair yet */
        *t = r->t_ns + l->shift;
        return 0;
    }
    if (l->have_wall || !l->saw_ts) { /* a log on its lines' clock */
        if (!l->have_wall) {
            l->have_wall = 1;
            l->wall_origin = r->t_ns;
        }
        *t = l->have_shift ? r->t_ns - l->clock_off + l->shift : r->t_ns - l->wall_origin;
        return 0;
    }
    if (!l->have_off)
        return 1;
    *t = r->t_ns - l->clock_off;
    return 0;
}

/* ---- duration lines: each section's kernel, given as analyze gives it ---- */

/* The table's units with a GPU_START, made again from the table when
 * units left it; each unit's slot (dur_cand's id) is looked up. */
static int gs_list(struct live *l)
{
    if (!l->gs_dirty)
        return 0;
    l->ngs = 0;
    for (size_t i = 0; i <= l->mask; i++) {
        struct live_unit *x = l->tab[i];
        if (!x)
            continue;
        x->in_gs = 0;
        if (x->u.t[EV_GPU_START] == T_NONE)
            continue;
        if (grow_heap((void **)&l->gs, &l->gscap, l->ngs, sizeof *l->gs, 64))
            return -1;
        l->gs[l->ngs++] = x, x->in_gs = 1;
    }
    l->gs_dirty = 0;
    return 0;
}

static size_t slot_of_unit(const struct live *l, const struct live_unit *x)
{
    return slot_of(l, x->job, x->job_len, x->u.partition, x->hash);
}

static struct live_unlock *dur_unlock(struct live *l, int32_t device)
{
    for (size_t i = 0; i < l->ndunlock; i++)
        if (l->dunlock[i].device == device)
            return &l->dunlock[i];
    if (l->ndunlock == sizeof l->dunlock / sizeof *l->dunlock)
        return NULL;
    l->dunlock[l->ndunlock] = (struct live_unlock){device, T_NONE, INT64_MAX};
    return &l->dunlock[l->ndunlock++];
}

/* The units whose GPU phase was open at section c's opening line, as
 * candidates (GPU_END: T_NONE while not read yet); their count. */
static int dur_cands(struct live *l, const struct live_sect *c, size_t *n)
{
    if (l->dcap < l->n + 1) {
        size_t cap = 2 * (l->n + 1);
        struct dur_cand *nc = realloc(l->dcand, cap * sizeof *nc);
        if (nc)
            l->dcand = nc;
        int64_t *ns = nc ? realloc(l->dscratch, 2 * cap * sizeof *ns) : NULL; /* and dur_try's ends */
        if (!ns)
            return -1;
        l->dscratch = ns;
        l->dcap = cap;
    }
    *n = 0;
    if (gs_list(l))
        return -1;
    /* each worker's last unit started by the section's opening line: an
     * earlier one of its, never ended, is no candidate (durations.c,
     * sweep_to: its worker moved on) */
    int64_t lastS[256];
    uint64_t lastq[256];
    for (int w = 0; w < 256; w++)
        lastS[w] = INT64_MIN, lastq[w] = 0;
    /* and each worker's first GPU_START after it (INT64_MAX: none read
     * yet): the worker awaited its last unit's call before it, so a unit
     * with no GPU_END (a failed call's) ends its call by then (durations.c) */
    int64_t nextS[256];
    for (int w = 0; w < 256; w++)
        nextS[w] = INT64_MAX;
    for (size_t g = 0; g < l->ngs; g++) {
        const struct live_unit *x = l->gs[g];
        int w = x->u.worker;
        int64_t S = x->u.t[EV_GPU_START];
        if (w >= 0 && w < 256 && S <= c->t_pos && (S > lastS[w] || (S == lastS[w] && x->seq > lastq[w])))
            lastS[w] = S, lastq[w] = x->seq;
    }
    for (size_t g = 0; g < l->ngs; g++) {
        const struct live_unit *x = l->gs[g];
        int w = x->u.worker;
        int64_t S = x->u.t[EV_GPU_START];
        if (w >= 0 && w < 256 && (S > lastS[w] || (S == lastS[w] && x->seq > lastq[w])) && S < nextS[w])
            nextS[w] = S;
    }
    for (size_t g = 0; g < l->ngs; g++) {
        const struct live_unit *x = l->gs[g];
        int64_t S = x->u.t[EV_GPU_START], E = x->u.t[EV_GPU_END];
        if (x->dur_call || S > c->t_pos || (E != T_NONE && E < c->t_pos - DUR_TOL))
            continue;
        int w = x->u.worker;
        if (E == T_NONE && w >= 0 && w < 256 && (lastS[w] > S || (lastS[w] == S && lastq[w] > x->seq)))
            continue;
        struct live_unlock *ut = c->multi && !(x->u.flags & U_DEVSET) ? NULL : dur_unlock(l, x->u.device);
        if (E == T_NONE && w >= 0 && w < 256 && nextS[w] != INT64_MAX)
            E = nextS[w];
        struct dur_cand d = {S, E, ut ? ut->t : T_NONE, ut ? ut->hi : INT64_MAX, (uint32_t)slot_of_unit(l, x)};
        size_t k = (*n)++; /* in slot order, as a scan of the table met them (ties go by it) */
        for (; k > 0 && l->dcand[k - 1].id > d.id; k--)
            l->dcand[k] = l->dcand[k - 1];
        l->dcand[k] = d;
    }
    return 0;
}

/* dur_choose with the GPU_ENDs not read yet put at `floor` (the earliest
 * they can come), ranked by slot up (dir 1) or down (dir -1); dir 0:
 * as they are (never: the log's end). */
static int dur_try(struct live *l, const struct dur_sect *s, size_t n, int64_t floor, int dir, int64_t *d)
{
    struct dur_cand *c = l->dcand;
    int64_t *was = l->dscratch + l->dcap; /* (an end that is its worker's next GPU_START, dur_cands, is known) */
    for (size_t k = 0; dir && k < n; k++)
        if ((was[k] = c[k].end) == T_NONE)
            c[k].end = floor + (dir > 0 ? (int64_t)c[k].id : (int64_t)(l->mask - c[k].id));
    int k = dur_choose(s, c, n, d, l->dscratch);
    for (size_t q = 0; dir && q < n; q++)
        c[q].end = was[q];
    return k;
}

/* Could candidate k of the n in l->dcand still get a spawn line?  It has
 * none, no GPU_END, and its worker has started no unit since (the engine
 * prints the line before either).  latest[w]: worker w's latest
 * GPU_START (workers 0..255; others are taken as still to come). */
static int spawn_to_come(const struct live *l, const struct dur_cand *c, const int64_t *latest)
{
    const struct live_unit *x = l->tab[c->id];
    if (x->spawn >= 0 || x->u.t[EV_GPU_END] != T_NONE)
        return 0;
    return x->u.worker < 0 || x->u.worker >= 256 || latest[x->u.worker] <= x->u.t[EV_GPU_START];
}

static void worker_latest(const struct live *l, int64_t *latest)
{
    for (int w = 0; w < 256; w++)
        latest[w] = INT64_MIN;
    for (size_t g = 0; g < l->ngs; g++) { /* (gs_list made it, in dur_cands) */
        const struct live_unit *x = l->gs[g];
        if (x->u.worker >= 0 && x->u.worker < 256 && x->u.t[EV_GPU_START] > latest[x->u.worker])
            latest[x->u.worker] = x->u.t[EV_GPU_START];
    }
}

/* May a spawn line still come for one of the candidates c[0..n)? */
static int spawns_to_come(const struct live *l, const struct dur_cand *c, size_t n)
{
    int64_t latest[256];
    worker_latest(l, latest);
    for (size_t k = 0; k < n; k++)
        if (spawn_to_come(l, &c[k], latest))
            return 1;
    return 0;
}

/* Give the closed sections, in order, to the units they fit (the rule of
 * model/durations.c, sections_to_units), each once its choice cannot
 * change: analyze knows every GPU_END, and a unit's that is still to come
 * could decide a tie or a fit.  end: the log (or run) ended, decide all. */
static int dur_decide(struct live *l, int end)
{
    int64_t lag = l->max_lag + l->max_lag / 2, floor = l->run_max - (lag > l->o.slack_ns ? lag : l->o.slack_ns);
    while (l->ndpend) {
        const struct live_pend *p = &l->dpend[0];
        const struct live_sect *c = &p->c;
        for (int i = 0; !end && c->multi && i < l->ndsect; i++)
            if (l->dsect[i].sid < c->sid)
                return 0; /* an older section is still open: analyze gives it its unit first */
        int64_t d = 0;
        int k = DUR_NONE;
        /* a section with no gpu_total (a failed call: its GPU thread printed
         * nothing, the mutex was still held and released) is given as
         * analyze gives it, and moves its device's unlock, with no kernel */
        if (!c->interleaved && c->t_pos != T_NONE) {
            size_t n;
            if (dur_cands(l, c, &n))
                return -1;
            if (!end && !p->sp_seen && spawns_to_come(l, l->dcand, n))
                return 0; /* its call's own spawn line is still to come: wait */
            /* held: mutex_held, else gpu_total (durations.c, held_of) */
            int64_t held = p->held >= 0 ? p->held : c->gpu_total >= 0 ? c->gpu_total : 0;
            struct dur_sect sect = {c->pre, c->wait, held, c->wait >= 2000000, c->t_pos};
            k = DUR_NONE;
            for (size_t q = 0; p->sp_seen && p->sp_seq != UINT64_MAX && q < n; q++)
                if (l->tab[l->dcand[q].id]->seq == p->sp_seq &&
                    dur_spawn_fits(&sect, &l->dcand[q], p->sp_spawn, p->sp_prove, p->total_fn)) {
                    k = (int)q, d = p->sp_spawn; /* as analyze gives it (durations.c, by_spawn) */
                    break;
                }
            if (k < 0) {
                k = dur_try(l, &sect, n, floor, 0, &d);
                if (!end) {
                    int64_t d1, d2;
                    int k1 = dur_try(l, &sect, n, floor, 1, &d1), k2 = dur_try(l, &sect, n, floor, -1, &d2);
                    int64_t kd = k >= 0 ? d : 0;
                    if (k1 != k || k2 != k || (k >= 0 && (d1 != kd || d2 != kd)))
                        return 0; /* a GPU_END to come decides it: wait */
                }
                if (k >= 0) { /* chosen by the lines: enter at the engine's entry where it fits */
                    struct live_unit *x = l->tab[l->dcand[k].id];
                    if (!end && x->spawn < 0 && spawns_to_come(l, &l->dcand[k], 1))
                        return 0;
                    if (x->spawn >= 0 && d != x->spawn) {
                        if (dur_spawn_fits(&sect, &l->dcand[k], x->spawn, -1, -1))
                            d = x->spawn;
                        else
                            x->spawn = -1; /* it contradicts the call (analyze counts it) */
                    }
                }
            }
            if (k < 0 && n) { /* no unit took it: its mutex was still held (durations.c) */
                struct live_unlock *ut = NULL;
                for (size_t q = 0; q < n; q++) {
                    const struct live_unit *y = l->tab[l->dcand[q].id];
                    struct live_unlock *uq = c->multi && !(y->u.flags & U_DEVSET) ? NULL : dur_unlock(l, y->u.device);
                    if (!uq || (q && uq != ut)) {
                        ut = NULL;
                        break;
                    }
                    ut = uq;
                }
                if (ut)
                    dur_unlock_unplaced(&ut->t, &ut->hi, held, p->close_lo, p->close_hi);
            }
            if (k >= 0) {
                struct live_unit *x = l->tab[l->dcand[k].id];
                int64_t L = x->u.t[EV_GPU_START] + d + c->pre + c->wait;
                x->dur_call = 1;
                x->dur_kern = c->gpu_total >= 0;
                x->dbar = c->barrier > 0 ? c->barrier : 0;
                x->dba = L + c->bar_at, x->dbb = x->dba + x->dbar;
                x->dka = L, x->dkb = L + (c->gpu_total >= 0 ? c->gpu_total : 0);
                struct live_unlock *ut = c->multi && !(x->u.flags & U_DEVSET) ? NULL : dur_unlock(l, x->u.device);
                if (ut) {
                    ut->t = L + held;
                    ut->hi = dur_unlock_hi(ut->t, p->close_hi);
                }
                l->dur_given++;
            }
        }
        memmove(l->dpend, l->dpend + 1, (size_t)--l->ndpend * sizeof *l->dpend);
    }
    return 0;
}

/* The earliest GPU_START among the units a waiting section may go to:
 * the horizon stays before it (the section's kernel may fall after). */
static int64_t dur_hold(struct live *l, int64_t h)
{
    /* and, while the mux has not decided some lines (several readings),
     * the sections still open to it: one of them may be closed already */
    int open = l->mux && dmux_undecided(l->mux) ? l->ndsect : 0;
    int use_gs = gs_list(l) == 0; /* out of memory: the whole table */
    for (int i = 0; i < l->ndpend + open; i++) {
        int64_t t_pos = i < l->ndpend ? l->dpend[i].c.t_pos : l->dsect[i - l->ndpend].t_pos;
        for (size_t q = 0; q < (use_gs ? l->ngs : l->mask + 1); q++) {
            const struct live_unit *x = use_gs ? l->gs[q] : l->tab[q];
            int64_t S = x ? x->u.t[EV_GPU_START] : T_NONE;
            if (x && !x->dur_call && S != T_NONE && S <= t_pos && S < h)
                h = S;
        }
    }
    return h;
}

/* The engine's spawn line: to its worker's open GPU phase of that
 * partition, the last started (durations.c, spawns); the sections that
 * waited for it are decided (dur_decide). */
static int spawn_in(struct live *l, const struct live_rec *r)
{
    l->spawn_lines++;
    if (l->dur_t == T_NONE)
        return 0;
    struct live_unit *best = NULL;
    int use_gs = gs_list(l) == 0; /* the units with a GPU_START; out of memory: the whole table */
    for (size_t i = 0; i < (use_gs ? l->ngs : l->mask + 1); i++) {
        struct live_unit *x = use_gs ? l->gs[i] : l->tab[i];
        int64_t S = x ? x->u.t[EV_GPU_START] : T_NONE, E = x ? x->u.t[EV_GPU_END] : T_NONE;
        if (!x || x->u.worker != r->worker || (r->partition >= 0 && x->u.partition != r->partition) ||
            x->spawn >= 0 || S == T_NONE || S > l->dur_t || (E != T_NONE && E < l->dur_t - DUR_TOL))
            continue;
        if (!best || S > best->u.t[EV_GPU_START] || (S == best->u.t[EV_GPU_START] && x->seq > best->seq))
            best = x;
    }
    if (best)
        best->spawn = r->dms[0] * 1000000;
    /* The first spawn line after a closing line: its call's where no
     * other section closed between (durations.c, by_spawn); else none. */
    for (size_t i = 0; i < l->nmsp; i++) {
        struct live_mline *m = &l->mring[l->msp[i] % LIVE_MRING];
        if (l->msp[i] + LIVE_MRING <= l->mseq)
            continue; /* gone from the ring */
        m->sp_seen = 1, m->sp_seq = best && i + 1 == l->nmsp ? best->seq : UINT64_MAX;
        m->sp_spawn = r->dms[0] * 1000000, m->sp_prove = r->dms[1] * 1000000;
    }
    l->nmsp = 0;
    for (int i = 0; i < l->ndpend; i++) /* the closed sections waiting for it */
        if (!l->dpend[i].sp_seen && l->dpend[i].close_seq + LIVE_MRING > l->mseq) {
            const struct live_mline *m = &l->mring[l->dpend[i].close_seq % LIVE_MRING];
            l->dpend[i].sp_seen = 1;
            l->dpend[i].sp_seq = m->sp_seq;
            l->dpend[i].sp_spawn = m->sp_spawn, l->dpend[i].sp_prove = m->sp_prove;
        }
    return dur_decide(l, 0);
}

/* The mux's decisions: a section ambiguous, a line to its section (a
 * closing line closes it: it waits in dpend for its unit). */
static int mux_take(struct live *l)
{
    struct dmux_out o[64];
    size_t n;
    int closed = 0;
    while ((n = dmux_take(l->mux, o, sizeof o / sizeof *o)) > 0)
        for (size_t q = 0; q < n; q++) {
            int i = 0;
            while (i < l->ndsect && l->dsect[i].sid != o[q].sid)
                i++;
            if (o[q].kind == DMUX_STRAY || i == l->ndsect)
                continue; /* a line of no section; or of one gone (the oldest of too many) */
            struct live_sect *c = &l->dsect[i];
            if (o[q].kind == DMUX_AMBIG) {
                c->interleaved = 1;
                continue;
            }
            const struct live_mline *m = &l->mring[o[q].seq % LIVE_MRING];
            if (m->x.role == DMUX_GPU) {
                if (m->x.v2 >= 0 && m->x.tid >= 0 && m->x.tid < 64)
                    c->tid_done |= 1ull << m->x.tid;
                if (m->x.step == 2 && m->x.tid <= 0 && c->barrier < 0) {
                    c->barrier = m->x.v; /* as analyze's barrier_wait row keeps it: gpu_tid 0 or none */
                    c->bar_at = m->x.tid == 0 ? c->cur0 : -(c->pre + c->wait); /* none: the call's entry */
                }
                if (m->x.tid == 0 && m->x.step != 4 && m->x.v >= 0)
                    c->cur0 += m->x.v; /* a gpu_tid's lines follow each other (the tail ends with gpu_total) */
                if (m->x.v2 >= 0 && m->x.tid <= 0 && c->gpu_total < 0)
                    c->gpu_total = m->x.v2; /* as analyze keeps it: the first, of gpu_tid 0 or none */
                continue;
            }
            if (m->x.role != DMUX_CLOSE)
                continue;
            c->multi = (uint8_t)o[q].multi;
            if (l->ndpend == LIVE_PEND_MAX && dur_decide(l, 1))
                return -1; /* too many waiting: decide them as they stand */
            if (grow_heap((void **)&l->dpend, &l->dpend_cap, (size_t)l->ndpend + 1, sizeof *l->dpend, 32))
                return -1;
            int at = l->ndpend; /* in the sections' opening order, as analyze gives them units */
            while (at > 0 && l->dpend[at - 1].c.sid > c->sid)
                at--;
            memmove(&l->dpend[at + 1], &l->dpend[at], (size_t)(l->ndpend - at) * sizeof *l->dpend);
            l->ndpend++;
            struct live_pend *p = &l->dpend[at];
            *p = (struct live_pend){.c = *c, .held = m->held, .total_fn = m->total_fn, .close_seq = o[q].seq,
                                    .close_hi = m->x.hi, .close_lo = m->x.lo}; /* as analyze reads them (durations.c, mux_take) */
            if (m->sp_seen) { /* its call's spawn line, read already */
                p->sp_seen = 1;
                p->sp_seq = m->sp_seq;
                p->sp_spawn = m->sp_spawn, p->sp_prove = m->sp_prove;
            }
            memmove(c, c + 1, (size_t)(l->ndsect - i - 1) * sizeof *c);
            l->ndsect--;
            closed = 1;
        }
    return closed ? dur_decide(l, 0) : 0;
}

/* The lines kept since the last record go to the mux, `hi` the record
 * after them (T_NONE: none, at the end). */
static int mux_pump(struct live *l, int64_t hi, int end)
{
    if (!l->mux)
        return 0;
    for (; l->mfed < l->mseq; l->mfed++) {
        struct live_mline *m = &l->mring[l->mfed % LIVE_MRING];
        /* as analyze's reader keeps it (dline_next): in whole us after lo */
        uint32_t us = hi == T_NONE ? DL_NEXT_NONE : dline_next(m->x.lo, 0, hi, 0);
        m->x.hi = us == DL_NEXT_NONE ? INT64_MAX : m->x.lo + (int64_t)us * 1000;
        if (dmux_feed(l->mux, &m->x))
            return -1;
    }
    if (end && dmux_end(l->mux))
        return -1;
    return mux_take(l);
}

/* A duration line: a line of a critical section is kept for the mux
 * (opening, a gpu_tid's, closing: by its first duration, as analyze
 * reads it); the engine's spawn line gives its unit's entry (spawn_in). */
static int dur_in(struct live *l, const struct live_rec *r)
{
    if (r->dtid == SCAN_TID_SPAWN)
        return l->run ? spawn_in(l, r) : 0;
    l->dur_lines++;
    if (!r->dn || !l->run)
        return 0;
    int dn[SCAN_DUR_MAX];
    int64_t ns[SCAN_DUR_MAX];
    for (int i = 0; i < r->dn; i++)
        dn[i] = r->dname[i], ns[i] = r->dms[i] * 1000000;
    struct dmux_line x;
    if (dur_mux_line(dn, ns, r->dn, r->dtid, l->dur_t, INT64_MAX, &x))
        return 0; /* a line outside the section: no figure of watch's */
    if (!l->mux && !(l->mux = dmux_new(DMUX_PENDING)))
        return -1;
    if (!l->mring && !(l->mring = malloc(LIVE_MRING * sizeof *l->mring)))
        return -1;
    if (l->mseq - l->mfed >= LIVE_MRING / 2 && mux_pump(l, T_NONE, 0))
        return -1; /* no record for that long: they go in without one after them */
    int64_t v[DN_OTHER + 1];
    for (int k = 0; k <= DN_OTHER; k++)
        v[k] = -1;
    for (int i = 0; i < r->dn; i++)
        if (v[r->dname[i]] < 0)
            v[r->dname[i]] = r->dms[i] * 1000000;
    struct live_mline *m = &l->mring[l->mseq % LIVE_MRING];
    *m = (struct live_mline){.x = x,
                             .pre = v[DN_PRE_LOCK] < 0 ? 0 : v[DN_PRE_LOCK],
                             .wait = v[DN_MUTEX_WAIT] < 0 ? 0 : v[DN_MUTEX_WAIT],
                             .held = v[DN_HELD], .total_fn = v[DN_TOTAL_FN]};
    if (x.role == DMUX_OPEN) {
        int w = 0; /* sections opened LIVE_MRING lines ago: never closed, and past what is kept */
        for (int i = 0; i < l->ndsect; i++)
            if (l->dsect[i].sid + LIVE_MRING > l->mseq)
                l->dsect[w++] = l->dsect[i];
        l->ndsect = w;
        if (grow_heap((void **)&l->dsect, &l->dsect_cap, (size_t)l->ndsect + 1, sizeof *l->dsect, 16))
            return -1;
        l->dsect[l->ndsect++] = (struct live_sect){m->pre, m->wait, -1, l->dur_t, 0, -1, 0, 0, l->mseq, 0, 0};
    } else if (x.role == DMUX_CLOSE) {
        size_t gone = 0; /* closing lines past the ring (a log without spawn lines): no spawn line for them */
        while (gone < l->nmsp && l->msp[gone] + LIVE_MRING <= l->mseq)
            gone++;
        if (gone) {
            memmove(l->msp, l->msp + gone, (l->nmsp - gone) * sizeof *l->msp);
            l->nmsp -= gone;
        }
        if (grow_heap((void **)&l->msp, &l->msp_cap, l->nmsp, sizeof *l->msp, 16))
            return -1;
        l->msp[l->nmsp++] = l->mseq; /* the spawn line after it gives its unit (spawn_in) */
    }
    l->mseq++;
    return 0;
}

static int record_in(struct live *l, const struct live_rec *r)
{
    l->records++;
    int64_t t;
    if (r->ev == LIVE_EV_DUR)
        return dur_in(l, r);
    int other = r->ev < 0 || r->ev >= EV_N;
    int edge = other ? kernel_edge(l, r) : 0;
    if (other && (!edge || !l->run)) {
        l->others++; /* other phases and marks: the live figures do not use them */
        /* ... but, as in analyze's reader, the record after one held as a
         * possible restart decides it, whatever its kind */
        if (l->held && !timed(l, r, &t))
            return decide_held(l, t);
        /* ... and is the record before the duration lines after it, as
         * analyze's reader keeps it (evpart_dur_clock: every record); one
         * timed by its line's own clock only once the run has that clock's
         * origin (its first pipeline record's) */
        if (l->run && (!r->wall || l->have_wall) && !timed(l, r, &t)) {
            if (l->mseq > l->mfed && mux_pump(l, t, 0))
                return -1;
            l->dur_t = t;
        }
        return 0;
    }
    if (timed(l, r, &t)) { /* read, but on a clock not yet aligned with the run's */
        l->skipped++;
        l->unaligned++;
        return 0;
    }
    if (l->mseq > l->mfed && mux_pump(l, t, 0)) /* the record after the lines kept */
        return -1;
    l->dur_t = t;
    if (edge) {
        if (l->held && decide_held(l, t))
            return -1;
        return kernel_add(l, r, edge, t);
    }
    return place(l, r, t);
}

void live_rec_of(struct live_rec *o, const struct scan_rec *r)
{
    *o = (struct live_rec){.t_ns = r->t_ns,
                           .hash = key_hash(r->job, r->job_len, r->partition),
                           .job = r->job,
                           .name = r->name,
                           .job_len = (uint32_t)r->job_len,
                           .name_len = (uint32_t)r->name_len,
                           .partition = r->partition,
                           .worker = r->worker,
                           .device = r->device,
                           .ev = (int16_t)r->ev,
                           .queue = r->queue,
                           .wall = r->wall};
}

/* How many records ahead the gone set's slots are asked for: far enough
 * for the memory to answer, near enough to stay in the cache. */
#define AHEAD 16

int live_recs(struct live *l, const struct live_rec *v, size_t n)
{
    for (size_t i = 0; i < n && i < AHEAD; i++)
        gone_prefetch(l, v[i].hash);
    for (size_t i = 0; i < n; i++) {
        if (i + AHEAD < n)
            gone_prefetch(l, v[i + AHEAD].hash);
        if (record_in(l, &v[i]))
            return -1;
    }
    return 0;
}

int live_record(struct live *l, const struct scan_rec *r)
{
    struct live_rec o;
    live_rec_of(&o, r);
    return record_in(l, &o);
}

/* ---- the settled horizon ---- */

/* Add [a, b) of one kind to the per-second bins. */
static void bins_add(struct live *l, int64_t a, int64_t b, int cause /* -1: busy */)
{
    while (a < b) {
        int64_t sec = a >= 0 ? a / NS : (a - NS + 1) / NS;
        int64_t cut = (sec + 1) * NS < b ? (sec + 1) * NS : b;
        struct live_bin *bn = &l->bins[((sec % LIVE_BINS) + LIVE_BINS) % LIVE_BINS];
        if (bn->sec != sec || bn->run != l->run) {
            memset(bn, 0, sizeof *bn);
            bn->sec = sec;
            bn->run = l->run;
        }
        if (cause < 0)
            bn->busy += cut - a;
        else
            bn->by_cause[cause] += cut - a;
        if (sec > l->latest_s)
            l->latest_s = sec;
        a = cut;
    }
}

static int spans_merge(struct span_list *v)
{
    if (sort_spans(NULL, v->s, v->n))
        return -1;
    v->n = merge_spans(v->s, v->n);
    return 0;
}

static int idle_bin(void *ctx, int64_t a, int64_t b, int cause)
{
    bins_add(ctx, a, b, cause);
    return 0;
}

/* ---- units left in a state (analyze.h: abandon_end) ---- */

/* x->stair_in: a unit with GPU_END has every event it will have (a later
 * one is late): its stages are in the stairs for good, and it is not
 * looked at again. */
#define STAIR_FINAL 0x80

/* A few units left in prep (a worker's unit in prep at a settle is the
 * common case) find their workers' next moves in one pass over the table;
 * many (a failed batch) by a sorted index, not a pass each. */
#define FEW_OPEN_PREP 16

/* Each unit of l->open left in prep: its worker's first pickup or start
 * after its pickup (x->next), or the sorted index for worker_next.  0, or
 * -1 out of memory. */
static int worker_moves(struct live *l, int open_prep)
{
    struct live_unit *few[FEW_OPEN_PREP];
    size_t nfew = 0;
    for (size_t o = 0; open_prep <= FEW_OPEN_PREP && o < l->nopen; o++) {
        int64_t from;
        if (unit_open_state(&l->open[o]->u, &from) == CAUSE_PREP)
            few[nfew++] = l->open[o];
    }
    l->nmoves = 0;
    for (size_t i = 0; i <= l->mask; i++) {
        if (!l->tab[i])
            continue;
        if (grow_heap((void **)&l->moves, &l->moves_cap, l->nmoves + 2, sizeof *l->moves, 64))
            return -1;
        size_t k = worker_moves_of(&l->tab[i]->u, l->moves + l->nmoves);
        if (open_prep > FEW_OPEN_PREP) {
            l->nmoves += k; /* kept, to sort */
            continue;
        }
        for (size_t m = 0; m < k; m++) {
            const struct worker_move *mv = &l->moves[l->nmoves + m];
            for (size_t o = 0; o < nfew; o++) {
                struct live_unit *x = few[o];
                if (x->u.worker == mv->worker && x->u.device == mv->device && mv->t > x->u.t[EV_GPU_PICKUP] &&
                    mv->t < x->next)
                    x->next = mv->t;
            }
        }
    }
    l->moves_sorted = open_prep > FEW_OPEN_PREP;
    if (l->moves_sorted)
        worker_moves_sort(l->moves, l->nmoves);
    return 0;
}

/* One pass over the table: the stages its units completed go into the
 * run's stairs, once each; the units left in a state (not yet judged so)
 * are listed for open_hold (l->open); and, when one of them was left in
 * prep, the workers' moves are sorted for worker_next.  0, or -1 out of
 * memory. */
static int open_scan(struct live *l)
{
    int open_prep = 0;
    l->nopen = l->nmoves = 0;
    for (size_t i = 0; i <= l->mask; i++) {
        struct live_unit *x = l->tab[i];
        if (!x || (x->stair_in & STAIR_FINAL) || !unit_consistent(&x->u))
            continue;
        for (int c = 0; c < CAUSE_NO_WORK; c++) {
            int st = open_stage(c);
            int64_t at, len;
            if (!(x->stair_in & (1u << st)) && unit_stage_done(&x->u, st, &at, &len)) {
                if (stair_add(&l->stair[c], at, len))
                    return -1;
                x->stair_in |= (uint8_t)(1u << st);
            }
        }
        if (unit_has(&x->u, EV_GPU_END))
            x->stair_in |= STAIR_FINAL;
        int64_t from;
        int state = unit_open_state(&x->u, &from);
        if (state < 0 || x->cut != T_NONE)
            continue;
        if (grow_heap((void **)&l->open, &l->open_cap, l->nopen, sizeof *l->open, 16))
            return -1;
        l->open[l->nopen++] = x;
        x->next = OPEN;
        open_prep += state == CAUSE_PREP;
    }
    return open_prep ? worker_moves(l, open_prep) : 0;
}

/* The first pickup or start after t of another unit of x's worker on its
 * device (OPEN: none read).  A unit that moved on and left the table
 * did so after its device was counted past it, and so after x's prep was
 * decided (horizon_of). */
static int64_t worker_next(const struct live *l, const struct live_unit *x, int64_t t)
{
    if (x->u.worker < 0)
        return OPEN;
    if (!l->moves_sorted)
        return x->next; /* worker_moves found it */
    return worker_move_next(l->moves, l->nmoves, x->u.device, x->u.worker, t);
}

/* Where x's state stops holding its cause if nothing follows, as analyze
 * decides it with what has been read (OPEN: x is not left in a state). */
static int64_t open_end(const struct live *l, const struct live_unit *x)
{
    int64_t from;
    int st = unit_open_state(&x->u, &from);
    if (st < 0)
        return OPEN;
    if (x->cut != T_NONE)
        return x->cut;
    return abandon_end(st, from, &l->stair[st], st == CAUSE_PREP ? worker_next(l, x, from) : OPEN);
}

/* A span of x that lasts to the end of the log stops where its state does;
 * 1 when something is left of it. */
static int open_cut(const struct live *l, const struct live_unit *x, struct span *s)
{
    if (s->end == OPEN)
        s->end = open_end(l, x);
    return s->end > s->start;
}

/* The longest of a stage completed so far (0: none). */
static int64_t longest_yet(const struct stair *s)
{
    return s->n ? s->p[s->n - 1].end : 0;
}

/* The horizon h (every record before it read) as the units left in a state
 * allow: an instant after such a unit's bounded point is its cause's if its
 * next event comes, and not if none does, so it waits.  It is judged left
 * there for good (x->cut), and waits no more, when its worker has moved on
 * (a prep), or when it has lasted twice the longest of its stage completed
 * yet: a stage that does end so late is rare, and its record is then
 * counted as late.  So a failed job's unit holds the horizon a bounded
 * time, not to the end of the run. */
static int64_t open_hold(struct live *l, int64_t h)
{
    int64_t hold = h;
    for (size_t i = 0; i < l->nopen; i++) { /* open_scan's list */
        struct live_unit *x = l->open[i];
        int64_t from;
        int st = unit_open_state(&x->u, &from);
        int64_t e = stair_end(&l->stair[st], from); /* final when before h */
        if (st == CAUSE_PREP) {
            int64_t next = worker_next(l, x, from);
            if (next < h) {
                x->cut = next < e ? next : e;
                continue;
            }
        }
        int64_t m = longest_yet(&l->stair[st]);
        if (e < h && m > 0 && h - from >= 2 * m) {
            x->cut = e;
            continue;
        }
        if (e < hold)
            hold = e;
    }
    return hold;
}

/* Count device d's instants [lo, hi): busy where a completed unit's GPU
 * phase covers them, else idle by cause. */
static int count_device(struct live *l, struct live_dev *d, int64_t lo, int64_t hi, const struct span_list *queue,
                        const struct span_list *synth)
{
    struct span_list *busy = &l->sp_busy, *prep = &l->sp_prep, *kern = &l->sp_kern, *bar = &l->sp_bar;
    busy->n = prep->n = kern->n = bar->n = 0;
    int rc = -1;
    for (size_t i = 0; i <= l->mask; i++) {
        const struct live_unit *x = l->tab[i];
        if (!x || x->u.device != d->device || !unit_consistent(&x->u))
            continue;
        struct span s;
        if (unit_busy_span(&x->u, &s) && s.end > lo) {
            if (span_list_add(busy, s))
                goto out;
            /* a kernel phase counts inside the GPU phase only */
            for (uint16_t k = 0; k < x->nkern; k++)
                if (x->kern[k].start >= s.start && x->kern[k].end <= s.end && span_list_add(kern, x->kern[k]))
                    goto out;
            if (x->dur_kern && l->dur_kernel) { /* moved in as analyze moves it (dur_clamp) */
                d->kdur = d->rkdur = 1;
                struct span ks = {x->dka, x->dkb};
                dur_clamp(&ks.start, &ks.end, s.start, s.end);
                if (ks.start >= s.start && ks.end <= s.end && span_list_add(kern, ks))
                    goto out;
            }
            if (x->dur_call && l->dur_kernel && x->dbb > x->dba) { /* as analyze: every unit's, moved in */
                struct span bs = {x->dba, x->dbb};
                dur_clamp(&bs.start, &bs.end, s.start, s.end);
                if (span_list_add(bar, bs))
                    goto out;
            }
        }
        if (unit_prep_span(&x->u, &s) && open_cut(l, x, &s) && s.end > lo && span_list_add(prep, s))
            goto out;
    }
    /* before the kernels merge: how many run at once is what tells a wait
     * under another GPU's kernels (barrier_idle) */
    int64_t bi = barrier_idle(NULL, kern->s, kern->n, bar->s, bar->n, lo, hi);
    if (bi < 0)
        goto out;
    d->rbidle += bi;
    if (spans_merge(busy) || spans_merge(prep) || spans_merge(kern))
        goto out;
    if (kern->n)
        d->has_kernel = d->rhas_kernel = 1;
    for (size_t k = 0; k < kern->n; k++) {
        int64_t a = kern->s[k].start > lo ? kern->s[k].start : lo, b = kern->s[k].end < hi ? kern->s[k].end : hi;
        if (b > a)
            d->kernel += b - a, d->rkernel += b - a;
    }
    struct idle_sets c;
    idle_sets_init(&c, prep->s, prep->n, queue->s, queue->n, synth->s, synth->n, lo);
    int64_t t = lo;
    for (size_t k = 0; k <= busy->n && t < hi; k++) {
        int64_t bs = k < busy->n ? busy->s[k].start : hi, be = k < busy->n ? busy->s[k].end : hi;
        if (be <= t)
            continue;
        if (bs > hi)
            bs = hi;
        if (bs > t) {
            int64_t by[CAUSE_N] = {0};
            if (idle_attribute(&c, t, bs, by, idle_bin, l))
                goto out;
            for (int q = 0; q < CAUSE_N; q++) {
                d->by_cause[q] += by[q];
                d->idle += by[q];
                d->rby_cause[q] += by[q];
                d->ridle += by[q];
            }
            t = bs;
        }
        if (be > hi)
            be = hi;
        if (be > t) {
            d->busy += be - t;
            d->rbusy += be - t;
            bins_add(l, t, be, -1);
            t = be;
        }
    }
    rc = 0;
out:
    return rc;
}

/* How far every device may be counted: the horizon (live.h's rules that
 * concern all devices). */
static int64_t horizon_of(struct live *l, int quiet, int end)
{
    if (end)
        return OPEN;
    int64_t slack = l->o.slack_ns, lag = l->max_lag + l->max_lag / 2;
    int64_t h = quiet ? l->run_max : l->run_max - (lag > slack ? lag : slack);
    for (size_t i = 0; i <= l->mask; i++) {
        const struct unit *u = l->tab[i] ? &l->tab[i]->u : NULL;
        if (!u || !unit_consistent(u) || unit_has(u, EV_GPU_START) || unit_has(u, EV_GPU_END))
            continue;
        /* the ready time is open: synthesis (handoff) or queue */
        if (unit_has(u, EV_SYNTH_END) && !unit_has(u, EV_CHAN_SEND) && !unit_has(u, EV_GPU_PICKUP) &&
            u->t[EV_SYNTH_END] < h)
            h = u->t[EV_SYNTH_END];
        /* in prep on a device it may not have named yet */
        if (l->devices_named && unit_has(u, EV_GPU_PICKUP) && !(u->flags & U_DEVSET) && u->t[EV_GPU_PICKUP] < h)
            h = u->t[EV_GPU_PICKUP];
    }
    return open_hold(l, h);
}

/* The earliest GPU_START of a unit still on device's GPU (OPEN: none). */
static int64_t on_gpu_since(const struct live *l, int32_t device)
{
    int64_t m = OPEN;
    for (size_t i = 0; i <= l->mask; i++) {
        const struct unit *u = l->tab[i] ? &l->tab[i]->u : NULL;
        if (u && u->device == device && unit_consistent(u) && unit_has(u, EV_GPU_START) && !unit_has(u, EV_GPU_END) &&
            u->t[EV_GPU_START] < m)
            m = u->t[EV_GPU_START];
    }
    return m;
}

/* A unit whose records have all been read (its GPU_END is behind the
 * horizon, or it left the table) is counted: its completion and its
 * stages, as analyze counts them. */
static void unit_count(struct live *l, struct live_unit *x)
{
    if (x->counted)
        return;
    x->counted = 1;
    if (unit_consistent(&x->u) && unit_has(&x->u, EV_GPU_START) && unit_has(&x->u, EV_GPU_END)) {
        struct live_dev *d = dev_get(l, x->u.device);
        if (d) { /* kernel utilization's cover (live_kernel_known) */
            int k = (l->dur_kernel && x->dur_kern) || x->nkern;
            d->gunits++, d->rgunits++;
            d->kunits += k, d->rkunits += k;
            if (!k)
                d->rnokern += x->u.t[EV_GPU_END] - x->u.t[EV_GPU_START];
        }
    }
    if (unit_consistent(&x->u)) {
        if (unit_has(&x->u, EV_GPU_END))
            l->units_completed++;
        for (int s = 0; s < ST_N; s++) {
            int64_t v;
            if (unit_stage(&x->u, s, &v))
                hist_add(&l->stage[s], v);
        }
    }
}

/* A unit leaves the table: counted if it was not yet, and remembered as
 * gone. */
static int unit_gone(struct live *l, struct live_unit *x, int remember)
{
    if (window_add(l, &x->u, 1))
        return -1;
    unit_count(l, x);
    return remember ? gone_add(l, x) : 0;
}

static void done_push(struct live *l, struct live_unit *x)
{
    size_t cap = l->o.keep;
    if (!cap) {
        unit_free(x);
        return;
    }
    if (l->ndone == cap) {
        unit_free(l->done[l->done_head]);
        l->done[l->done_head] = x;
        l->done_head = (l->done_head + 1) % cap;
        return;
    }
    l->done[(l->done_head + l->ndone++) % cap] = x;
}

/* Units that leave the table together go to the kept completed ones in
 * the order they completed (GPU_END; those with none last, by arrival), so
 * that the ring keeps the last `keep` to complete, not those a scan of the
 * table met last: the bottleneck now is analysed on them (live_snapshot). */
static int cmp_done(const void *a, const void *b)
{
    const struct live_unit *x = *(const struct live_unit *const *)a, *y = *(const struct live_unit *const *)b;
    int64_t ex = unit_has(&x->u, EV_GPU_END) ? x->u.t[EV_GPU_END] : INT64_MAX;
    int64_t ey = unit_has(&y->u, EV_GPU_END) ? y->u.t[EV_GPU_END] : INT64_MAX;
    if (ex != ey)
        return (ex > ey) - (ex < ey);
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static void done_push_all(struct live *l, struct live_unit **v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_done);
    for (size_t i = 0; i < n; i++)
        done_push(l, v[i]);
}

/* Units every device's counting has passed leave the table: those that
 * completed before each device's settled point, and before any unit still
 * on a GPU started (its device's window may yet reach back to it). */
static int retire(struct live *l, int64_t h)
{
    int64_t bound = h;
    for (size_t i = 0; i < l->ndev; i++)
        if (l->dev[i].ws != INT64_MAX && l->dev[i].settled < bound)
            bound = l->dev[i].settled;
    for (size_t i = 0; i <= l->mask; i++) {
        const struct unit *u = l->tab[i] ? &l->tab[i]->u : NULL;
        if (u && unit_has(u, EV_GPU_START) && !unit_has(u, EV_GPU_END) && u->t[EV_GPU_START] < bound)
            bound = u->t[EV_GPU_START];
    }
    /* the gone set's slots of the units that leave, asked for first (a
     * miss to memory each, otherwise) */
    for (size_t i = 0; i <= l->mask; i++) {
        const struct live_unit *x = l->tab[i];
        if (x && unit_has(&x->u, EV_GPU_END) && x->u.t[EV_GPU_END] <= bound)
            gone_prefetch(l, x->hash);
    }
    struct live_unit **out = malloc((l->n ? l->n : 1) * sizeof *out);
    size_t nout = 0;
    for (size_t i = 0; i <= l->mask;) {
        struct live_unit *x = l->tab[i];
        if (x && unit_has(&x->u, EV_GPU_END) && x->u.t[EV_GPU_END] <= bound) {
            tab_remove(l, i);
            if (unit_gone(l, x, 1)) {
                done_push_all(l, out, nout);
                free(out);
                done_push(l, x);
                return -1;
            }
            if (out)
                out[nout++] = x;
            else
                done_push(l, x); /* out of memory: in the table's order */
            continue; /* slot i may hold a shifted entry now */
        }
        i++;
    }
    done_push_all(l, out, nout);
    free(out);
    return 0;
}

int live_settle(struct live *l, int quiet, int end)
{
    if (!l->run)
        return 0;
    if (end && l->held) {
        /* nothing follows the held record: it was a late line of the run */
        l->held = 0;
        if (apply(l, &l->hold, l->hold.t_ns))
            return -1;
    }
    if ((end && mux_pump(l, T_NONE, 1)) || open_scan(l) || dur_decide(l, end))
        return -1;
    int64_t h = horizon_of(l, quiet, end);
    if (l->ndpend || (l->mux && dmux_undecided(l->mux)))
        h = dur_hold(l, h);
    struct span_list *queue = &l->sp_queue, *synth = &l->sp_synth;
    queue->n = synth->n = 0;
    int rc = -1;
    if (windows(l))
        return -1;
    for (size_t i = 0; i <= l->mask; i++) {
        const struct unit *u = l->tab[i] ? &l->tab[i]->u : NULL;
        struct span s;
        if (!u || !unit_consistent(u))
            continue;
        if (unit_queue_span(u, &s) && open_cut(l, l->tab[i], &s) && span_list_add(queue, s))
            goto out;
        if (unit_synth_cause_span(u, &s) && open_cut(l, l->tab[i], &s) && span_list_add(synth, s))
            goto out;
    }
    if (spans_merge(queue) || spans_merge(synth))
        goto out;
    for (size_t i = 0; i < l->ndev; i++) {
        struct live_dev *d = &l->dev[i];
        if (d->ws == INT64_MAX)
            continue;
        int64_t hi = h < d->we ? h : d->we;
        if (!end) {
            int64_t g = on_gpu_since(l, d->device);
            if (g < hi)
                hi = g;
        }
        int64_t lo = d->settled > d->ws ? d->settled : d->ws;
        if (hi > lo && count_device(l, d, lo, hi, queue, synth))
            goto out;
        if (hi > d->settled)
            d->settled = hi;
    }
    if (h > l->horizon)
        l->horizon = h;
    if (end)
        flush_units(l);
    else {
        for (size_t i = 0; i <= l->mask; i++)
            if (l->tab[i] && unit_has(&l->tab[i]->u, EV_GPU_END) && l->tab[i]->u.t[EV_GPU_END] <= h)
                unit_count(l, l->tab[i]);
        if (retire(l, h))
            goto out;
    }
    rc = 0;
out:
    return rc;
}

/* The run ended: decide the rest as analyze decides a log's end (done by
 * live_settle), then start afresh (the counts stay). */
static int run_end(struct live *l)
{
    if (live_settle(l, 1, 1))
        return -1;
    gone_clear(l); /* a new run's units are new */
    return 0;
}

static int in_flight_stage(const struct unit *u);

/* At a run's end every unit is final: counted, and out of the table.
 * Those still in flight stay counted as such (ended_in_flight): a watch
 * stopped, or a log ended, leaves open what the daemon had not finished,
 * as analyze's in_flight does. */
static void flush_units(struct live *l)
{
    l->gs_dirty = 1;
    memset(l->ended_in_flight, 0, sizeof l->ended_in_flight);
    struct live_unit **out = malloc((l->n ? l->n : 1) * sizeof *out);
    size_t nout = 0;
    for (size_t i = 0; i <= l->mask; i++)
        if (l->tab[i]) {
            int st = in_flight_stage(&l->tab[i]->u);
            if (st >= 0)
                l->ended_in_flight[st]++;
            unit_gone(l, l->tab[i], 0); /* out of memory: only its window lost, and the run is over */
            if (out)
                out[nout++] = l->tab[i];
            else
                done_push(l, l->tab[i]); /* out of memory: in the table's order */
            l->tab[i] = NULL;
        }
    done_push_all(l, out, nout);
    free(out);
    l->n = 0;
}

/* ---- what is shown ---- */

/* The stage a unit in flight is in, or -1 when it is not in flight
 * (completed, or left out as inconsistent). */
static int in_flight_stage(const struct unit *u)
{
    if (!unit_consistent(u) || unit_has(u, EV_GPU_END))
        return -1;
    return unit_has(u, EV_GPU_START)    ? ST_GPU
           : unit_has(u, EV_GPU_PICKUP) ? ST_PREP
           : unit_has(u, EV_CHAN_SEND)  ? ST_QUEUE
           : unit_has(u, EV_SYNTH_END)  ? ST_HANDOFF
                                   : ST_SYNTHESIS;
}

void live_now(const struct live *l, struct live_now *o)
{
    memset(o, 0, sizeof *o);
    for (int s = 0; s < ST_N; s++) {
        o->in_flight[s] = l->ended_in_flight[s];
        o->in_flight_total += l->ended_in_flight[s];
    }
    for (size_t i = 0; i <= l->mask; i++) {
        int st = l->tab[i] ? in_flight_stage(&l->tab[i]->u) : -1;
        if (st < 0)
            continue;
        o->in_flight[st]++;
        o->in_flight_total++;
    }
    if (l->latest_s == INT64_MIN)
        return;
    int64_t secs = l->o.recent_ns / NS;
    o->recent_to = (l->latest_s + 1) * NS;
    o->recent_from = o->recent_to - secs * NS;
    for (int i = 0; i < LIVE_BINS; i++) {
        const struct live_bin *b = &l->bins[i];
        if (b->sec == INT64_MIN || b->run != l->run || b->sec <= l->latest_s - secs)
            continue;
        o->busy += b->busy;
        for (int c = 0; c < CAUSE_N; c++)
            o->by_cause[c] += b->by_cause[c];
    }
}

static int cmp_seq(const void *a, const void *b)
{
    uint64_t x = (*(const struct live_unit *const *)a)->seq, y = (*(const struct live_unit *const *)b)->seq;
    return (x > y) - (x < y);
}

int live_bottleneck(const struct live *l, const struct run_result *kept)
{
    struct bn_totals t = {0};
    int kdur = 0;
    int64_t bidle = 0;
    for (size_t i = 0; i < l->ndev; i++) {
        const struct live_dev *d = &l->dev[i];
        int64_t w = d->rbusy + d->ridle;
        t.busy += d->rbusy;
        t.window += w;
        for (int c = 0; c < CAUSE_N; c++)
            t.by_cause[c] += d->rby_cause[c];
        /* as analyze's decide takes a device: where its kernel time is known,
         * and where it is partial (a floor) */
        if (w > 0 && d->rhas_kernel) {
            t.has_kernel = 1;
            t.kernel_busy += d->rkernel;
            t.kernel_window += w;
            t.busy_kernel_devs += d->rbusy;
            kdur |= d->rkdur;
            bidle += d->rbidle;
            if (d->rkdur) /* a floor where calls were not given (analyze_phase.c, kernel_figures) */
                t.kernel_missing_busy += d->rnokern;
        }
    }
    /* barrier_wait counts where the kernel is the duration lines' gpu_total
     * (analyze: where its critical path is known) */
    t.barrier_busy = kdur ? (double)bidle : 0;
    static const struct cpu_result none;
    return bottleneck_rule(&t, kept ? &kept->cpu : &none, NULL);
}

int live_snapshot(const struct live *l, size_t last, struct model *m)
{
    memset(m, 0, sizeof *m);
    /* the units in flight and the completed ones the ring keeps (it may
     * still hold units of the run before), in order of arrival */
    size_t cap = l->o.keep ? l->o.keep : 1, n = 0;
    const struct live_unit **v = malloc((l->mask + 1 + l->ndone) * sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i <= l->mask; i++)
        if (l->tab[i])
            v[n++] = l->tab[i];
    for (size_t i = 0; i < l->ndone; i++) {
        const struct live_unit *x = l->done[(l->done_head + i) % cap];
        if (x->seq >= l->run_first_seq)
            v[n++] = x;
    }
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_seq);
    size_t from = last && n > last ? n - last : 0;
    /* a run of whole units, through the model's run primitives (build.h):
     * their positions are their numbers of arrival */
    static const struct provenance prov = {"watch", "unit", NULL};
    struct run *r = n ? model_run_new(m, "watch", &prov, l->run) : NULL;
    int rc = n && !r ? -1 : 0;
    for (size_t i = from; i < n && rc == 0; i++) {
        const struct live_unit *x = v[i];
        uint32_t job;
        rc = run_job(r, x->job, x->job_len, hash_bytes(x->job, x->job_len, 0), &job) ||
                     run_add_unit(r, job, &x->u, x->seq)
                 ? -1
                 : 0;
    }
    free(v);
    if (rc)
        model_free(m);
    return rc;
}

void live_snapshot_free(struct model *m)
{
    model_free(m);
}
