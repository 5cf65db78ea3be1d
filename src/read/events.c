/*
 * events.c -- putting each event into its unit, segment by segment.
 *
 * A unit is found by a hash of its job id's bytes mixed with its partition,
 * in its segment's index (a small cache of recent units answers most
 * lookups); the job table is consulted only when a unit is new.  So an
 * event costs one lookup and one store.
 */
#include "events.h"

#include "mem.h"

#include <stdlib.h>
#include <string.h>

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    uint32_t ncap = *cap ? *cap : 4096;
    while (ncap < need) {
        if (ncap > UINT32_MAX / 2)
            return -1;
        ncap *= 2;
    }
    void *n = big_realloc(*p, (size_t)*cap * elem, (size_t)ncap * elem);
    if (!n)
        return -1;
    *p = n;
    *cap = ncap;
    return 0;
}

/* A new job, number p->jobs.n: its bytes onto the arena. */
static int job_add(struct evpart *p, const char *job, size_t len, uint64_t jh)
{
    uint32_t cap = p->jobs.cap;
    if (grow((void **)&p->jobs.off, &cap, p->jobs.n + 1, sizeof *p->jobs.off))
        return -1;
    cap = p->jobs.cap;
    if (grow((void **)&p->jobs.hash, &cap, p->jobs.n + 1, sizeof *p->jobs.hash))
        return -1;
    p->jobs.cap = cap;
    if (p->jobs.arena_len + len > p->jobs.arena_cap) {
        size_t ncap = p->jobs.arena_cap ? p->jobs.arena_cap : 65536;
        while (ncap < p->jobs.arena_len + len)
            ncap *= 2;
        char *n = big_realloc(p->jobs.arena, p->jobs.arena_cap, ncap);
        if (!n)
            return -1;
        p->jobs.arena = n;
        p->jobs.arena_cap = ncap;
    }
    memcpy(p->jobs.arena + p->jobs.arena_len, job, len);
    p->jobs.off[p->jobs.n] = (uint64_t)p->jobs.arena_len << 16 | len;
    p->jobs.hash[p->jobs.n] = jh;
    p->jobs.arena_len += len;
    return 0;
}

/* The job's number, adding it if new.  jh = hash_bytes(job, len, 0).
 * The index is kept at most half full: it is consulted for each new unit,
 * and a job's lookup compares its bytes. */
static int job_find(struct evpart *p, const char *job, size_t len, uint64_t jh, uint32_t *out)
{
    struct hindex *x = &p->find.jobs;
    if (!x->slot && hindex_rebuild(x, 1024, 0, NULL, NULL))
        return -1;
    size_t i = hindex_home(x, jh);
    for (int64_t k; (k = hindex_probe(x, jh, &i)) >= 0; i = hindex_next(x, i))
        if (p->jobs.hash[k] == jh) {
            size_t jl;
            const char *j = evpart_job(p, (uint32_t)k, &jl);
            if (jl == len && memcmp(j, job, len) == 0) {
                *out = (uint32_t)k;
                return 0;
            }
        }
    if (job_add(p, job, len, jh))
        return -1;
    hindex_put(x, i, jh, p->jobs.n);
    *out = p->jobs.n++;
    if ((uint64_t)p->jobs.n * 2 > x->mask + 1 &&
        hindex_grow(x, p->jobs.n, p->jobs.n, 1024, hindex_hash_at, p->jobs.hash))
        return -1;
    return 0;
}

/* Room for one more unit (and its side record, side: SIDE_*) in s. */
static int seg_grow(struct seg *s, int side)
{
    if (s->nunits < s->units_cap)
        return 0;
    if (s->nunits >= UINT32_MAX - 1)
        return -1;
    size_t ncap = s->units_cap ? s->units_cap * 2 : 4;
    struct unit *u = big_realloc(s->units, s->units_cap * sizeof *u, ncap * sizeof *u);
    if (!u)
        return -1;
    s->units = u;
    if (side == SIDE_ALL || (side == SIDE_FIRST && ncap <= SIDE_WINDOW)) {
        struct uside *d = big_realloc(s->side, s->side_cap * sizeof *d, ncap * sizeof *d);
        if (!d) {
            /* keep the units' capacity in step with the side's */
            s->units = big_realloc(u, ncap * sizeof *u, s->units_cap * sizeof *u);
            return -1;
        }
        s->side = d;
        s->side_cap = ncap;
    }
    s->units_cap = ncap;
    return 0;
}

/* A segment's units, for growing its index: their hashes are computed
 * again from their job's. */
struct seg_of {
    const struct evpart *p;
    const struct seg *s;
};

static uint64_t seg_unit_hash(const void *ctx, size_t k)
{
    const struct seg_of *c = ctx;
    const struct unit *u = &c->s->units[k];
    return unit_hash(c->p->jobs.hash[u->job], u->partition);
}

/* Room in a segment's unit index for one more unit.  (At most three
 * quarters full: most lookups are answered by the cache of recent units
 * anyway.) */
static inline int seg_index_grow(struct evpart *p, struct seg *s)
{
    struct seg_of c = {p, s};
    return hindex_reserve(&s->uindex, s->nunits, 0, 16, seg_unit_hash, &c);
}

/* Equal bytes, compared a word at a time (job ids are short); from 8
 * bytes on, the last word may overlap the one before. */
static inline int same_bytes(const char *a, const char *b, size_t n)
{
    uint64_t x, y;
    if (n < 8) {
        while (n--)
            if (*a++ != *b++)
                return 0;
        return 1;
    }
    size_t last = n - 8;
    for (size_t i = 0; i < last; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y)
            return 0;
    }
    memcpy(&x, a + last, 8);
    memcpy(&y, b + last, 8);
    return x == y;
}

static inline int same_key(const struct evpart *p, const struct unit *u, const char *job, size_t len,
                           int32_t partition)
{
    if (u->partition != partition)
        return 0;
    size_t jl;
    const char *j = evpart_job(p, u->job, &jl);
    return jl == len && same_bytes(j, job, len);
}

/* A cheap hash for the cache of recent units: the length, the first and
 * last eight bytes and the partition, one multiply; the slot and the tag
 * are taken from the product's top bits, which depend on every bit of its
 * input (a hit is checked in full anyway).  Returns tag << 32 | slot. */
static inline uint64_t recent_key(const char *job, size_t len, int32_t partition)
{
    uint64_t a = 0, b = 0;
    if (len >= 8) {
        memcpy(&a, job, 8);
        memcpy(&b, job + len - 8, 8);
    } else {
        memcpy(&a, job, len);
    }
    uint64_t x = a ^ ((b << 29) | (b >> 35)) ^ ((uint64_t)len << 48) ^ (uint64_t)(uint32_t)partition;
    x ^= x >> 31;
    x *= 0x9E3779B97F4A7C15ull;
    return (x >> (64 - EV_RECENT_BITS)) | ((x >> (48 - EV_RECENT_BITS)) & 0xffff) << 32;
}

/* The recent-cache entry's generation and tag for segment count nsegs
 * and key rk. */
static inline uint64_t recent_gt(size_t nsegs, uint64_t rk)
{
    return (uint64_t)(nsegs & 0xffff) << 48 | (rk & 0xffff00000000ull);
}

/* The unit a recent-cache entry names, if it may be the one sought (its
 * generation and tag are gt's, and it is in the segment), else -1; the
 * caller compares the key in full. */
static inline int64_t recent_unit(uint64_t entry, uint64_t gt, const struct seg *s)
{
    uint32_t k = (uint32_t)entry;
    return (entry & 0xffffffff00000000ull) == gt && k < s->nunits ? (int64_t)k : -1;
}

static int unit_of(struct evpart *p, struct seg *s, const char *job, size_t len, int32_t partition,
                   int side, uint64_t line, const struct evhint *hint, uint32_t *out)
{
    /* A unit's events come close together in a log: a small direct-mapped
     * cache of recent units answers most lookups from L1, with a cheap
     * hash, instead of a full hash and a cache miss into the big index. */
    uint64_t rk = recent_key(job, len, partition), gt = recent_gt(p->segs.n, rk);
    uint64_t *rc = &p->find.recent[(uint32_t)rk];
    int64_t rk_unit = recent_unit(*rc, gt, s);
    if (rk_unit >= 0 && same_key(p, &s->units[rk_unit], job, len, partition)) {
        *out = (uint32_t)rk_unit;
        return 0;
    }
    uint64_t jh = hint && hint->have_jh ? hint->jh : hash_bytes(job, len, 0);
    uint64_t h = unit_hash(jh, partition);
    if (seg_index_grow(p, s))
        return -1;
    size_t i = hindex_home(&s->uindex, h);
    for (int64_t k; (k = hindex_probe(&s->uindex, h, &i)) >= 0; i = hindex_next(&s->uindex, i))
        if (same_key(p, &s->units[k], job, len, partition)) {
            *out = (uint32_t)k;
            *rc = gt | (uint64_t)k;
            return 0;
        }
    /* A new unit. */
    uint32_t j;
    if (job_find(p, job, len, jh, &j) || seg_grow(s, side))
        return -1;
    uint32_t k = (uint32_t)s->nunits++;
    struct unit *u = &s->units[k];
    for (int e = 0; e < EV_N; e++)
        u->t[e] = T_NONE;
    u->job = j;
    u->partition = partition;
    u->worker = -1;
    u->device = 0;
    u->line = line;
    u->flags = 0;
    hindex_put(&s->uindex, i, h, k);
    *rc = gt | k;
    *out = k;
    return 0;
}

static uint32_t role_hash(int32_t worker, int32_t device)
{
    uint64_t h = ((uint64_t)(uint32_t)worker << 32 | (uint32_t)device) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32);
}

/* Role keys are few in a real log (a scan of them is cheapest), but a
 * hostile one may hold a new (worker, device) on every line: past 16 they
 * are found through a hash index. */
static int role_find(struct evpart *p, int32_t worker, int32_t device, uint32_t *out)
{
    if (p->roles.n) {
        const struct role *last = &p->roles.list[p->find.last_role];
        if (last->worker == worker && last->device == device) {
            *out = p->find.last_role;
            return 0;
        }
    }
    size_t slot = 0;
    if (!p->find.rindex) {
        for (uint32_t i = 0; i < p->roles.n; i++)
            if (p->roles.list[i].worker == worker && p->roles.list[i].device == device) {
                *out = p->find.last_role = i;
                return 0;
            }
    } else {
        slot = role_hash(worker, device) & p->find.rmask;
        while (p->find.rindex[slot]) {
            uint32_t i = p->find.rindex[slot] - 1;
            if (p->roles.list[i].worker == worker && p->roles.list[i].device == device) {
                *out = p->find.last_role = i;
                return 0;
            }
            slot = (slot + 1) & p->find.rmask;
        }
    }
    if (p->roles.n >= (1u << 29) - 1)
        return -1;
    if (p->roles.n == p->roles.cap) {
        uint32_t ncap = p->roles.cap ? p->roles.cap * 2 : 16;
        struct role *n = realloc(p->roles.list, ncap * sizeof *n);
        if (!n)
            return -1;
        p->roles.list = n;
        p->roles.cap = ncap;
    }
    p->roles.list[p->roles.n] = (struct role){worker, device};
    *out = p->find.last_role = p->roles.n++;
    if (p->find.rindex)
        p->find.rindex[slot] = p->roles.n;
    if (p->roles.n > 16 && (!p->find.rindex || (size_t)p->roles.n * 2 > (size_t)p->find.rmask + 1)) {
        size_t size = p->find.rindex ? ((size_t)p->find.rmask + 1) * 2 : 64;
        uint32_t *ni = calloc(size, sizeof *ni);
        if (!ni)
            return -1;
        for (uint32_t i = 0; i < p->roles.n; i++) {
            size_t k = role_hash(p->roles.list[i].worker, p->roles.list[i].device) & (size - 1);
            while (ni[k])
                k = (k + 1) & (size - 1);
            ni[k] = i + 1;
        }
        free(p->find.rindex);
        p->find.rindex = ni;
        p->find.rmask = (uint32_t)(size - 1);
    }
    return 0;
}

#define RESTART_MIN_NS 50000000    /* 50 ms */
#define RESTART_BIG_NS 1000000000LL /* 1 s */

int model_is_restart(int64_t t, int64_t run_max)
{
    int64_t drop = run_max - t;
    /* A big step back to the first half of the run, or a small one that
     * lands near zero.  A line printed a few tens of milliseconds late
     * early in a log is neither.  (Both tests only get easier as run_max
     * grows or t falls: evpart_link relies on it.) */
    return (drop >= RESTART_BIG_NS && t < run_max / 2) ||
           (drop >= RESTART_MIN_NS && t < run_max / 10);
}

/* The current segment (there is one). */
static inline struct seg *seg_last(struct evpart *p)
{
    return &p->segs.list[p->segs.n - 1];
}

static int seg_new(struct evpart *p, uint64_t line)
{
    if (grow_heap((void **)&p->segs.list, &p->segs.cap, p->segs.n, sizeof *p->segs.list, 4))
        return -1;
    struct seg *s = &p->segs.list[p->segs.n++];
    memset(s, 0, sizeof *s);
    if ((p->segs.n & 0xffff) == 0)
        memset(p->find.recent, 0, sizeof p->find.recent); /* the generation wrapped */
    s->first_line = s->last_line = line;
    return 0;
}

static int add_rec(struct evpart *p, int64_t t, int64_t pm)
{
    if (grow_heap((void **)&p->run.recs, &p->run.recs_cap, p->run.nrecs, sizeof *p->run.recs, 16))
        return -1;
    p->run.recs[p->run.nrecs++] = (struct prec){t, pm, p->run.nev};
    return 0;
}

void evpart_hint(struct evpart *p, const char *job, size_t job_len, int32_t partition,
                 struct evhint *h)
{
    h->have_jh = 0;
    if (!p->segs.n)
        return;
    uint64_t rk = recent_key(job, job_len, partition);
    struct seg *s = seg_last(p);
    int64_t k = recent_unit(p->find.recent[(uint32_t)rk], recent_gt(p->segs.n, rk), s);
    if (k >= 0) {
        /* most likely a recent unit: both its cache lines (80 bytes: three
         * units in four straddle two, and add_now reads the flags and the
         * worker past the times).  In a log in time order a unit's events
         * lie far apart, and the unit has left the cache since the last. */
        const char *u = (const char *)&s->units[k];
        __builtin_prefetch(u);
        __builtin_prefetch(u + sizeof s->units[k] - 1);
        return;
    }
    /* not a recent unit: its index slot is needed, and when it is a new
     * unit (most often), its job's slot in the job index */
    h->jh = hash_bytes(job, job_len, 0);
    h->have_jh = 1;
    if (s->uindex.slot)
        __builtin_prefetch(&s->uindex.slot[hindex_home(&s->uindex, unit_hash(h->jh, partition))]);
    if (p->find.jobs.slot)
        __builtin_prefetch(&p->find.jobs.slot[hindex_home(&p->find.jobs, h->jh)]);
}

int evpart_add(struct evpart *p, int64_t t_ns, const char *job, size_t job_len,
               int32_t partition, int ev, int32_t worker, int32_t device, uint64_t line)
{
    return evpart_add_hinted(p, t_ns, job, job_len, partition, ev, worker, device, line, NULL);
}

static int add_now(struct evpart *p, int64_t t_ns, const char *job, size_t job_len, int32_t partition, int ev,
                   uint32_t role, uint64_t line, const struct evhint *hint);

/* An event of the current run below every earlier one of the part: where
 * a restart hidden from the part could be (evpart_link checks them). */
static int note_low(struct evpart *p, int64_t t)
{
    if (p->set.want_recs && !p->set.has_in && !p->run.split_seen &&
        t < p->run.recs[p->run.nrecs - 1].t)
        return add_rec(p, t, p->run.max);
    return 0;
}

/* The other events whose run was undecided go with the event of the six
 * just added: its segment is the current one. */
static void x_settle(struct evpart *p, int cont)
{
    if (!p->held.x_pending)
        return;
    for (size_t i = p->held.x_pending - 1; i < p->extra.n; i++) {
        struct xrec *x = &p->extra.list[i];
        if (x->seg != XSEG_HELD)
            continue;
        x->seg = (uint32_t)(p->segs.n - 1);
        /* one whose time looked like a restart, in a run that went on:
         * a line written late, counted as the events of the six are */
        if (cont && (x->kind & XR_LOOKS_RESTART)) {
            seg_last(p)->late++;
            x->kind |= XR_LATE;
        }
        x->kind &= ~XR_LOOKS_RESTART;
    }
    p->held.x_pending = 0;
}

static void hold(struct evpart *p, int64_t t_ns, const char *job, size_t job_len, int32_t partition, int ev,
                 int32_t worker, int32_t device, uint64_t line)
{
    p->held.on = 1;
    p->held.ev.t = t_ns;
    p->held.ev.partition = partition;
    p->held.ev.worker = worker;
    p->held.ev.device = device;
    p->held.ev.ev = ev;
    p->held.ev.line = line;
    p->held.ev.job_len = job_len < sizeof p->held.ev.job ? job_len : sizeof p->held.ev.job;
    memcpy(p->held.ev.job, job, p->held.ev.job_len);
}

/* The held event, now that what follows it is known: a restart (the next
 * event looks like one too) starts a segment with it; else it was late,
 * and joins the current run as any event below its latest time would. */
static int unhold(struct evpart *p, int restart)
{
    const struct held_event *h = &p->held.ev;
    p->held.on = 0;
    uint32_t role;
    if (role_find(p, h->worker, h->device, &role))
        return -1;
    int64_t t = h->t;
    if (p->segs.n == 0) { /* a part's first event, its state known (has_in) */
        if (seg_new(p, h->line))
            return -1;
        p->run.first_restart = restart;
        p->run.max = restart || t > p->set.m_in ? t : p->set.m_in;
        if (!restart)
            p->segs.list[0].late++;
    } else if (restart) {
        hindex_free(&seg_last(p)->uindex); /* the model needs only the part's last */
        if (seg_new(p, h->line))
            return -1;
        p->run.split_seen = 1;
        p->run.max = t;
    } else {
        seg_last(p)->late++;
        if (note_low(p, t))
            return -1;
    }
    if (add_now(p, t, h->job, h->job_len, h->partition, h->ev, role, h->line, NULL))
        return -1;
    x_settle(p, !restart); /* what came while it was held goes where it went */
    /* the lines skipped while it was held follow it, into its run */
    struct seg *s = seg_last(p);
    s->skipped += p->held.skipped;
    for (int i = 0; i < p->held.nskips && s->nskips < MAX_ISSUES; i++)
        s->skips[s->nskips++] = p->held.skips[i];
    p->held.skipped = 0;
    p->held.nskips = 0;
    return 0;
}

int evpart_settle(struct evpart *p, int64_t t_next)
{
    if (!p->held.on)
        return 0; /* other events that wait: evpart_trailing */
    int64_t ref = p->segs.n ? p->run.max : p->set.m_in;
    int rc = unhold(p, t_next != INT64_MIN && model_is_restart(t_next, ref));
    evpart_compact(p);
    if (rc) {
        p->diag.oom = 1;
        return -1;
    }
    return 0;
}

/* The part's first record, and the record after its first event of the
 * six (either kind: the record after an event decides whether it was a
 * restart), for evpart_link and the part before. */
static inline void note_record(struct evpart *p, int64_t t)
{
    if (!p->run.nrec++)
        p->run.t_first = t;
    if (p->run.nseen && !p->run.has_second) {
        p->run.t_second = t;
        p->run.has_second = 1;
    }
}

int evpart_add_hinted(struct evpart *p, int64_t t_ns, const char *job, size_t job_len,
                      int32_t partition, int ev, int32_t worker, int32_t device, uint64_t line,
                      const struct evhint *hint)
{
    if (p->diag.oom)
        return -1;
    note_record(p, t_ns);
    p->run.nseen++;
    if (p->held.on) {
        /* this event decides the held one: against the run it would have
         * restarted, does it look like a restart too? */
        int64_t ref = p->segs.n ? p->run.max : p->set.m_in;
        if (unhold(p, model_is_restart(t_ns, ref)))
            goto oom;
    }
    uint32_t role;
    if (role_find(p, worker, device, &role))
        goto oom;
    /* Which run: a restart of the epoch starts a segment. */
    if (p->segs.n == 0) {
        if (p->set.has_in && !p->set.native && model_is_restart(t_ns, p->set.m_in)) {
            hold(p, t_ns, job, job_len, partition, ev, worker, device, line);
            return 0;
        }
        if (seg_new(p, line))
            goto oom;
        if (p->set.has_in) {
            p->run.first_restart = 0;
            p->run.max = t_ns > p->set.m_in ? t_ns : p->set.m_in;
        } else {
            if (p->set.want_recs && add_rec(p, t_ns, INT64_MIN))
                goto oom;
            p->run.max = t_ns;
        }
    } else if (!p->set.native && model_is_restart(t_ns, p->run.max)) {
        hold(p, t_ns, job, job_len, partition, ev, worker, device, line);
        return 0;
    } else {
        if (note_low(p, t_ns))
            goto oom;
        if (t_ns > p->run.max)
            p->run.max = t_ns;
    }
    if (add_now(p, t_ns, job, job_len, partition, ev, role, line, hint))
        goto oom;
    x_settle(p, 1);
    return 0;
oom:
    p->diag.oom = 1;
    return -1;
}

/* Put the event into its unit in the current segment. */
static int add_now(struct evpart *p, int64_t t_ns, const char *job, size_t job_len, int32_t partition, int ev,
                   uint32_t role, uint64_t line, const struct evhint *hint)
{
    /* Its unit in the current segment. */
    struct seg *s = seg_last(p);
    int side = p->segs.n == 1 ? p->set.want_side : SIDE_NONE;
    uint32_t ui;
    if (unit_of(p, s, job, job_len, partition, side, line, hint, &ui))
        return -1;
    struct unit *u = &s->units[ui];
    if (ev & EV_WALL_BIT)
        s->wall++;
    if (ev & EV_QUEUE_BIT)
        u->flags |= U_QUEUE;
    ev &= EV_MASK;
    s->events++;
    s->last_line = line;
    p->run.nev++;
    const struct role *ro = &p->roles.list[role];
    if (unit_set(u, ev, t_ns, ro->worker, ro->device)) {
        s->duplicates++;
        if (s->ndups < MAX_ISSUES)
            s->dups[s->ndups++] = (struct pline){line, ev};
        return 0;
    }
    if (ui < s->side_cap) {
        uint64_t d = line - u->line;
        s->side[ui].dline[ev] = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
        s->side[ui].role[ev] = role;
    }
    return 0;
}

int evpart_extra(struct evpart *p, int kind, int64_t t_ns, const char *job, size_t job_len,
                 int32_t partition, const char *name, size_t name_len, const char *val, size_t val_len,
                 uint64_t line)
{
    if (p->diag.oom)
        return -1;
    struct xrec x = {.t = t_ns, .line = line, .partition = partition, .kind = (uint32_t)kind};
    int looks = 0; /* its time looks like a restart of the run it is in */
    if (kind == XR_EVENT && !p->set.native) {
        note_record(p, t_ns);
        /* an event held for what follows it: this record follows it */
        if (p->held.on && unhold(p, model_is_restart(t_ns, p->segs.n ? p->run.max : p->set.m_in))) {
            p->diag.oom = 1;
            return -1;
        }
        looks = p->segs.n ? model_is_restart(t_ns, p->run.max)
                          : p->set.has_in && model_is_restart(t_ns, p->set.m_in);
    }
    /* Its run is that of the events of the six around it: while one is
     * held, or when its own time looks like a restart (the first lines of
     * a new life of the daemon), the next one decides. */
    int undecided = kind == XR_ATTR ? p->held.attr_undecided : p->held.on || looks;
    if (kind == XR_EVENT)
        p->held.x_last = undecided;
    if (looks)
        x.kind |= XR_LOOKS_RESTART;
    x.seg = undecided ? XSEG_HELD : p->segs.n ? (uint32_t)(p->segs.n - 1) : 0;
    if (undecided && !p->held.x_pending)
        p->held.x_pending = p->extra.n + 1;
    if (job_find(p, job, job_len, hash_bytes(job, job_len, 0), &x.job) ||
        (kind == XR_EVENT ? strtab_intern_upper(&p->extra.strs, name, name_len, &x.key)
                          : strtab_intern(&p->extra.strs, name, name_len, &x.key) ||
                                strtab_intern(&p->extra.strs, val, val_len, &x.val)) ||
        grow_heap((void **)&p->extra.list, &p->extra.cap, p->extra.n, sizeof *p->extra.list, 64)) {
        p->diag.oom = 1;
        return -1;
    }
    p->extra.list[p->extra.n++] = x;
    return 0;
}

int evpart_add_rec(struct evpart *p, const struct scan_rec *r, uint64_t line, const struct evhint *h)
{
    if (r->ev < EV_N) {
        int ev = r->ev | (r->queue ? EV_QUEUE_BIT : 0) | (r->wall ? EV_WALL_BIT : 0);
        if (evpart_add_hinted(p, r->t_ns, r->job, r->job_len, r->partition, ev, r->worker, r->device,
                              line, h))
            return -1;
    } else if (evpart_extra(p, XR_EVENT, r->t_ns, r->job, r->job_len, r->partition, r->name,
                            r->name_len, NULL, 0, line)) {
        return -1;
    }
    /* the record's details go where its event went */
    if (r->nkv)
        p->held.attr_undecided = r->ev < EV_N ? p->held.on : p->held.x_last;
    for (int i = 0; i < r->nkv; i++)
        if (evpart_extra(p, XR_ATTR, r->t_ns, r->job, r->job_len, r->partition, r->kv[i].k,
                         r->kv[i].kn, r->kv[i].v, r->kv[i].vn, line))
            return -1;
    return 0;
}

void evpart_skip(struct evpart *p, uint64_t line, int why)
{
    p->diag.skipped++;
    p->diag.skipped_by[why & 7]++;
    struct pline pl = {line, why};
    if (p->diag.nskip_first < 8)
        p->diag.skip_first[p->diag.nskip_first++] = pl;
    if (p->held.on) { /* the run they belong to is decided with the held event */
        p->held.skipped++;
        if (p->held.nskips < MAX_ISSUES)
            p->held.skips[p->held.nskips++] = pl;
    } else if (p->segs.n == 0) {
        p->diag.pre_skipped++;
        if (p->diag.npre_skips < MAX_ISSUES)
            p->diag.pre_skips[p->diag.npre_skips++] = pl;
    } else {
        struct seg *s = seg_last(p);
        s->skipped++;
        if (s->nskips < MAX_ISSUES)
            s->skips[s->nskips++] = pl;
    }
}

/* A part that continues the run before: its other events ahead of its
 * first event of the six whose time looks like a restart of that run were
 * written late (one reader would have counted them so: x_settle). */
static void late_before_first(struct evpart *p, int64_t m_prev)
{
    struct seg *s = &p->segs.list[0];
    for (size_t i = 0; i < p->extra.n && p->extra.list[i].line < s->first_line; i++) {
        const struct xrec *x = &p->extra.list[i];
        if ((x->kind & XR_KIND) == XR_EVENT && model_is_restart(x->t, m_prev))
            s->late++;
    }
}

/* A part whose first event of the six starts a new run: its other events
 * ahead of that event whose time does not look like a restart of the run
 * before are that run's (one reader would have put them there), and so
 * are the details on their lines. */
static void prev_before_first(struct evpart *p, int64_t m_prev)
{
    const struct seg *s = &p->segs.list[0];
    int prev = 0;
    uint64_t at = UINT64_MAX; /* the line of the last event decided */
    for (size_t i = 0; i < p->extra.n && p->extra.list[i].line < s->first_line; i++) {
        struct xrec *x = &p->extra.list[i];
        if ((x->kind & XR_KIND) == XR_EVENT) {
            prev = !model_is_restart(x->t, m_prev);
            at = x->line;
        } else if (x->line != at) {
            continue;
        }
        if (prev)
            x->seg = XSEG_PREV;
    }
}

/* Does the part's first segment hold an other event, after its first
 * event of the six, that looks like a restart of the run before (latest
 * time m_prev) and that the part did not count as late?  It judged it
 * against its own latest time, which was then below m_prev: since a
 * restart only gets easier to see as the latest time grows, an event
 * judged against m_prev or more would have been flagged. */
static int late_hidden(const struct evpart *p, int64_t m_prev)
{
    const struct seg *s = &p->segs.list[0];
    for (size_t i = 0; i < p->extra.n; i++) {
        const struct xrec *x = &p->extra.list[i];
        if (x->seg == 0 && x->line >= s->first_line && (x->kind & XR_KIND) == XR_EVENT &&
            !(x->kind & (XR_LATE | XR_LOOKS_RESTART)) && model_is_restart(x->t, m_prev))
            return 1;
    }
    return 0;
}

int evpart_link(struct evpart *p, int has_prev, int64_t m_prev, int64_t *m_out)
{
    p->segs.first_cont = 0;
    if (p->segs.n == 0) {
        *m_out = m_prev;
        return 0;
    }
    *m_out = p->run.max;
    if (!has_prev)
        return 0;
    if (p->set.has_in) {
        p->segs.first_cont = !p->run.first_restart;
        if (!p->segs.first_cont)
            prev_before_first(p, m_prev);
        return 0;
    }
    /* Where the part's latest time is still below m_prev, the run's state
     * is m_prev, not what the part saw; a restart there can only be at a
     * time below every earlier one: a record. */
    for (size_t i = 0; i < p->run.nrecs && p->run.recs[i].pm < m_prev; i++)
        if (model_is_restart(p->run.recs[i].t, m_prev)) {
            if (p->run.recs[i].ev == 0) {
                /* its first event looks like a restart: it is one if the
                 * event after it does too (the part's second, or the next
                 * part's first: t_after), else it was one late line */
                int64_t t2 = p->run.has_second ? p->run.t_second : p->run.t_after;
                if (t2 != INT64_MIN && model_is_restart(t2, m_prev))
                {
                    prev_before_first(p, m_prev);
                    return 0; /* its first event starts a run: the part is right */
                }
                /* it was late: the part took it for its run's start, and
                 * judged what followed against it; read it again knowing
                 * the run it is in (then the late line is held and kept) */
                return 1;
            }
            return 1; /* a restart the part could not see: read it again */
        }
    /* an other event in it that looks like a restart of the run before
     * but was not judged so: the part judged it against its own latest
     * time, below the run's (it was written late): read it again */
    if (late_hidden(p, m_prev))
        return 1;
    p->segs.first_cont = 1;
    late_before_first(p, m_prev);
    if (p->segs.n == 1 && m_prev > p->run.max)
        *m_out = m_prev;
    return 0;
}

void evpart_trailing(struct evpart *p, int cont, int has_run, int64_t m_in)
{
    if (p->segs.n) {
        if (!p->held.x_pending)
            return;
        if (cont) {
            x_settle(p, 1); /* written late, in the run they are in */
            return;
        }
        for (size_t i = p->held.x_pending - 1; i < p->extra.n; i++)
            if (p->extra.list[i].seg == XSEG_HELD) {
                p->extra.list[i].seg = XSEG_NEXT;
                p->extra.list[i].kind &= ~(uint32_t)XR_LOOKS_RESTART;
            }
        p->held.x_pending = 0;
        return;
    }
    /* a part of other events only: those whose time looks like a restart
     * of the run they are in, and the details on their lines */
    if (!has_run)
        return;
    int looks = 0;
    uint64_t at = UINT64_MAX;
    for (size_t i = 0; i < p->extra.n; i++) {
        struct xrec *x = &p->extra.list[i];
        if ((x->kind & XR_KIND) == XR_EVENT) {
            looks = model_is_restart(x->t, m_in);
            at = x->line;
            if (looks && cont)
                p->diag.late_extras++;
        } else if (x->line != at) {
            continue;
        }
        if (looks && !cont)
            x->seg = XSEG_NEXT;
    }
}

void evpart_compact(struct evpart *p)
{
    if (p->held.on)
        return; /* an event still to be added needs the index: evpart_settle compacts */
    hindex_free(&p->find.jobs);
    memset(p->find.recent, 0, sizeof p->find.recent);
}

void evpart_drop_events(struct evpart *p)
{
    for (size_t i = 0; i < p->segs.n; i++) {
        struct seg *s = &p->segs.list[i];
        big_free(s->units, s->units_cap * sizeof *s->units);
        big_free(s->side, s->side ? s->side_cap * sizeof *s->side : 0);
        hindex_free(&s->uindex);
    }
    free(p->segs.list);
    p->segs.list = NULL;
    p->segs.n = p->segs.cap = 0;
    free(p->run.recs);
    p->run.recs = NULL;
    p->run.nrecs = p->run.recs_cap = 0;
    free(p->extra.list);
    p->extra.list = NULL;
    p->extra.n = p->extra.cap = 0;
    big_free(p->durs.list, p->durs.cap * sizeof *p->durs.list);
    p->durs.list = NULL;
    p->durs.n = p->durs.cap = p->durs.made = 0;
    free(p->durs.counted);
    p->durs.counted = NULL;
    p->durs.ncounted = p->durs.counted_cap = 0;
}

void evpart_free(struct evpart *p)
{
    p->held.on = 0; /* an event never settled: dropped with the part, index and all */
    evpart_drop_events(p);
    big_free(p->jobs.arena, p->jobs.arena_cap);
    big_free(p->jobs.off, (size_t)p->jobs.cap * sizeof *p->jobs.off);
    big_free(p->jobs.hash, (size_t)p->jobs.cap * sizeof *p->jobs.hash);
    evpart_compact(p);
    free(p->clock.pairs);
    free(p->roles.list);
    free(p->find.rindex);
    strtab_free(&p->extra.strs);
    memset(p, 0, sizeof *p);
}

/* The entries' pages are made this many bytes at a time (a multiple of
 * the page size, and more than BIG_MIN: the list is then mapped, not on
 * the heap). */
#define DUR_PREFAULT (4u << 20)

int evpart_dur(struct evpart *p, const struct scan_dur *d, int kind, uint64_t line)
{
    struct ev_durs *u = &p->durs;
    u->lines++;
    if (kind != DUR_LINE) { /* counted, in the run that holds the line */
        uint64_t k = kind == DUR_INFO ? EV_COUNTED_INFO : kind == DUR_NTT ? EV_COUNTED_NTT : EV_COUNTED_BAD;
        if (grow_heap((void **)&u->counted, &u->counted_cap, u->ncounted, sizeof *u->counted, 16)) {
            p->diag.oom = 1;
            return -1;
        }
        u->counted[u->ncounted++] = line | k << EV_COUNTED_SHIFT;
        if (k == EV_COUNTED_INFO)
            u->info++;
        else if (k == EV_COUNTED_NTT)
            u->ntt++;
        else if (!u->bad++)
            u->bad_first = line;
        return 0;
    }
    int spawn = d->tid == SCAN_TID_SPAWN, n = d->n + (spawn ? 2 : 0);
    for (int i = 0; i < n; i++) {
        static const struct {
            const char *k;
            uint8_t kn;
        } ids[2] = {{"worker_id", 9}, {"partition", 9}}; /* the spawn line's (vocab.h, DL_SPAWN) */
        const char *k = i < d->n ? d->d[i].k : ids[i - d->n].k;
        size_t kn = i < d->n ? d->d[i].kn : ids[i - d->n].kn;
        int64_t v = i < d->n ? d->d[i].ms : i == d->n ? d->worker : d->partition;
        uint32_t key;
        if (strtab_intern(&p->extra.strs, k, kn, &key)) {
            p->diag.oom = 1;
            return -1;
        }
        if (grow_array_flat((void **)&u->list, &u->cap, u->n + 1, sizeof *u->list)) { /* millions, in order */
            p->diag.oom = 1;
            return -1;
        }
        size_t bytes = u->cap * sizeof *u->list, at = u->n * sizeof *u->list;
        if (bytes >= DUR_PREFAULT && at >= u->made) { /* the next pages at once (the cuzk log's readers: 0.376 -> 0.356 s) */
            size_t to = u->made + DUR_PREFAULT < bytes ? u->made + DUR_PREFAULT : bytes;
            big_prefault(u->list, u->made, to);
            u->made = to;
        }
        int16_t tid = spawn ? DL_SPAWN : (int16_t)(d->tid > INT16_MAX ? INT16_MAX : d->tid);
        u->list[u->n++] = (struct dline){.line = line, .t_prev = u->seen ? u->last_t : T_NONE, .ms = v, .tid = tid,
                                         .at = (uint64_t)i, .wall = u->last_wall, .key = key, .next_us = DL_NEXT_NONE};
    }
    return 0;
}
