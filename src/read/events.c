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

static uint64_t hash_bytes(const char *s, size_t n, uint64_t seed)
{
    uint64_t h = seed ^ (n * 0x9E3779B97F4A7C15ull);
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, s, 8);
        h = (h ^ v) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
        s += 8;
        n -= 8;
    }
    uint64_t v = 0;
    memcpy(&v, s, n);
    h = (h ^ v) * 0x94d049bb133111ebull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return h;
}

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

/* Index entries: a number + 1 in the low 32 bits (0: empty), the hash's
 * high 32 bits above, so a probe rarely touches an entry that is not the
 * one sought.  hashes[k * stride] is entry k's hash. */
static int index_rebuild(uint64_t **idx, uint32_t *mask, uint32_t size, const uint64_t *hashes,
                         uint32_t n, size_t stride)
{
    uint64_t *ni = big_alloc_full((size_t)size * sizeof *ni); /* zeroed */
    if (!ni)
        return -1;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t h = *(const uint64_t *)((const char *)hashes + (size_t)k * stride);
        uint32_t i = (uint32_t)h & (size - 1);
        while (ni[i])
            i = (i + 1) & (size - 1);
        ni[i] = (h & 0xffffffff00000000ull) | (k + 1);
    }
    if (*idx)
        big_free(*idx, (size_t)(*mask + 1) * sizeof **idx);
    *idx = ni;
    *mask = size - 1;
    return 0;
}

/* The job's number, adding it if new.  jh = hash_bytes(job, len, 0). */
static int job_find(struct evpart *p, const char *job, size_t len, uint64_t jh, uint32_t *out)
{
    if (!p->jindex && index_rebuild(&p->jindex, &p->jindex_mask, 1024, NULL, 0, 8))
        return -1;
    uint32_t i = (uint32_t)jh & p->jindex_mask;
    for (;;) {
        uint64_t slot = p->jindex[i];
        uint32_t k = (uint32_t)slot;
        if (!k)
            break;
        if ((slot >> 32) == (jh >> 32) && p->job_hash[k - 1] == jh) {
            size_t jl;
            const char *j = evpart_job(p, k - 1, &jl);
            if (jl == len && memcmp(j, job, len) == 0) {
                *out = k - 1;
                return 0;
            }
        }
        i = (i + 1) & p->jindex_mask;
    }
    uint32_t cap = p->jobs_cap;
    if (grow((void **)&p->job_off, &cap, p->njobs + 1, sizeof *p->job_off))
        return -1;
    cap = p->jobs_cap;
    if (grow((void **)&p->job_hash, &cap, p->njobs + 1, sizeof *p->job_hash))
        return -1;
    p->jobs_cap = cap;
    if (p->arena_len + len > p->arena_cap) {
        size_t ncap = p->arena_cap ? p->arena_cap : 65536;
        while (ncap < p->arena_len + len)
            ncap *= 2;
        char *n = big_realloc(p->arena, p->arena_cap, ncap);
        if (!n)
            return -1;
        p->arena = n;
        p->arena_cap = ncap;
    }
    memcpy(p->arena + p->arena_len, job, len);
    p->job_off[p->njobs] = (uint64_t)p->arena_len << 16 | len;
    p->job_hash[p->njobs] = jh;
    p->arena_len += len;
    p->jindex[i] = (jh & 0xffffffff00000000ull) | (p->njobs + 1);
    *out = p->njobs++;
    if ((uint64_t)p->njobs * 2 > p->jindex_mask + 1 &&
        index_rebuild(&p->jindex, &p->jindex_mask, (p->jindex_mask + 1) * 2, p->job_hash, p->njobs, 8))
        return -1;
    return 0;
}

/* Room for one more unit (and its side record) in s. */
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
    if (side) {
        struct uside *d = big_realloc(s->side, s->units_cap * sizeof *d, ncap * sizeof *d);
        if (!d) {
            /* keep the units' capacity in step with the side's */
            s->units = big_realloc(u, ncap * sizeof *u, s->units_cap * sizeof *u);
            return -1;
        }
        s->side = d;
    }
    s->units_cap = ncap;
    return 0;
}

/* Grow a segment's unit index to hold one more than its units at three
 * quarters load; the units' hashes are computed again from their job's hash. */
static int seg_index_grow(struct evpart *p, struct seg *s)
{
    /* at most three quarters full: a bigger table costs more to zero than
     * the longer probes cost (most lookups are answered by the cache of
     * recent units anyway) */
    if (s->uindex && (s->nunits + 1) * 4 <= ((size_t)s->umask + 1) * 3)
        return 0;
    size_t size = s->uindex ? ((size_t)s->umask + 1) * 2 : 16;
    if (size > ((size_t)1 << 32))
        return -1;
    uint64_t *ni = big_alloc_full(size * sizeof *ni); /* zeroed */
    if (!ni)
        return -1;
    for (size_t k = 0; k < s->nunits; k++) {
        uint64_t h = unit_hash(p->job_hash[s->units[k].job], s->units[k].partition);
        size_t i = h & (size - 1);
        while (ni[i])
            i = (i + 1) & (size - 1);
        ni[i] = (h & 0xffffffff00000000ull) | (k + 1);
    }
    big_free(s->uindex, s->uindex ? ((size_t)s->umask + 1) * sizeof *ni : 0);
    s->uindex = ni;
    s->umask = (uint32_t)(size - 1);
    return 0;
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
    uint64_t rk = recent_key(job, len, partition), gt = recent_gt(p->nsegs, rk);
    uint64_t *rc = &p->recent[(uint32_t)rk];
    int64_t rk_unit = recent_unit(*rc, gt, s);
    if (rk_unit >= 0 && same_key(p, &s->units[rk_unit], job, len, partition)) {
        *out = (uint32_t)rk_unit;
        return 0;
    }
    uint64_t jh = hint && hint->have_jh ? hint->jh : hash_bytes(job, len, 0);
    uint64_t h = unit_hash(jh, partition);
    if (seg_index_grow(p, s))
        return -1;
    size_t i = h & s->umask;
    for (;;) {
        uint64_t e = s->uindex[i];
        if (!e)
            break;
        uint32_t k = (uint32_t)e - 1;
        if ((e >> 32) == (h >> 32) && same_key(p, &s->units[k], job, len, partition)) {
            *out = k;
            *rc = gt | k;
            return 0;
        }
        i = (i + 1) & s->umask;
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
    s->uindex[i] = (h & 0xffffffff00000000ull) | (k + 1);
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
    if (p->nroles && p->roles[p->last_role].worker == worker && p->roles[p->last_role].device == device) {
        *out = p->last_role;
        return 0;
    }
    size_t slot = 0;
    if (!p->rindex) {
        for (uint32_t i = 0; i < p->nroles; i++)
            if (p->roles[i].worker == worker && p->roles[i].device == device) {
                *out = p->last_role = i;
                return 0;
            }
    } else {
        slot = role_hash(worker, device) & p->rmask;
        while (p->rindex[slot]) {
            uint32_t i = p->rindex[slot] - 1;
            if (p->roles[i].worker == worker && p->roles[i].device == device) {
                *out = p->last_role = i;
                return 0;
            }
            slot = (slot + 1) & p->rmask;
        }
    }
    if (p->nroles >= (1u << 29) - 1)
        return -1;
    if (p->nroles == p->roles_cap) {
        uint32_t ncap = p->roles_cap ? p->roles_cap * 2 : 16;
        struct role *n = realloc(p->roles, ncap * sizeof *n);
        if (!n)
            return -1;
        p->roles = n;
        p->roles_cap = ncap;
    }
    p->roles[p->nroles] = (struct role){worker, device};
    *out = p->last_role = p->nroles++;
    if (p->rindex)
        p->rindex[slot] = p->nroles;
    if (p->nroles > 16 && (!p->rindex || (size_t)p->nroles * 2 > (size_t)p->rmask + 1)) {
        size_t size = p->rindex ? ((size_t)p->rmask + 1) * 2 : 64;
        uint32_t *ni = calloc(size, sizeof *ni);
        if (!ni)
            return -1;
        for (uint32_t i = 0; i < p->nroles; i++) {
            size_t k = role_hash(p->roles[i].worker, p->roles[i].device) & (size - 1);
            while (ni[k])
                k = (k + 1) & (size - 1);
            ni[k] = i + 1;
        }
        free(p->rindex);
        p->rindex = ni;
        p->rmask = (uint32_t)(size - 1);
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

static int seg_new(struct evpart *p, uint64_t line)
{
    if (grow_heap((void **)&p->segs, &p->segs_cap, p->nsegs, sizeof *p->segs, 4))
        return -1;
    struct seg *s = &p->segs[p->nsegs++];
    memset(s, 0, sizeof *s);
    if ((p->nsegs & 0xffff) == 0)
        memset(p->recent, 0, sizeof p->recent); /* the generation wrapped */
    s->first_line = s->last_line = line;
    return 0;
}

static int add_rec(struct evpart *p, int64_t t, int64_t pm)
{
    if (grow_heap((void **)&p->recs, &p->recs_cap, p->nrecs, sizeof *p->recs, 16))
        return -1;
    p->recs[p->nrecs++] = (struct prec){t, pm, p->nev};
    return 0;
}

void evpart_hint(struct evpart *p, const char *job, size_t job_len, int32_t partition,
                 struct evhint *h)
{
    h->have_jh = 0;
    if (!p->nsegs)
        return;
    uint64_t rk = recent_key(job, job_len, partition);
    struct seg *s = &p->segs[p->nsegs - 1];
    int64_t k = recent_unit(p->recent[(uint32_t)rk], recent_gt(p->nsegs, rk), s);
    if (k >= 0) {
        __builtin_prefetch(&s->units[k]);
        return; /* most likely a recent unit */
    }
    /* not a recent unit: its index slot is needed */
    h->jh = hash_bytes(job, job_len, 0);
    h->have_jh = 1;
    if (s->uindex)
        __builtin_prefetch(&s->uindex[unit_hash(h->jh, partition) & s->umask]);
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
    if (p->want_recs && !p->has_in && !p->split_seen && t < p->recs[p->nrecs - 1].t)
        return add_rec(p, t, p->run_max);
    return 0;
}

/* The other events whose run was undecided go with the event of the six
 * just added: its segment is the current one. */
static void x_settle(struct evpart *p)
{
    if (!p->x_pending)
        return;
    for (size_t i = p->x_pending - 1; i < p->nx; i++)
        if (p->x[i].seg == XSEG_HELD)
            p->x[i].seg = (uint32_t)(p->nsegs - 1);
    p->x_pending = 0;
}

static void hold(struct evpart *p, int64_t t_ns, const char *job, size_t job_len, int32_t partition, int ev,
                 int32_t worker, int32_t device, uint64_t line)
{
    p->held = 1;
    p->hold.t = t_ns;
    p->hold.partition = partition;
    p->hold.worker = worker;
    p->hold.device = device;
    p->hold.ev = ev;
    p->hold.line = line;
    p->hold.job_len = job_len < sizeof p->hold.job ? job_len : sizeof p->hold.job;
    memcpy(p->hold.job, job, p->hold.job_len);
}

/* The held event, now that what follows it is known: a restart (the next
 * event looks like one too) starts a segment with it; else it was late,
 * and joins the current run as any event below its latest time would. */
static int unhold(struct evpart *p, int restart)
{
    p->held = 0;
    uint32_t role;
    if (role_find(p, p->hold.worker, p->hold.device, &role))
        return -1;
    int64_t t = p->hold.t;
    if (p->nsegs == 0) { /* a part's first event, its state known (has_in) */
        if (seg_new(p, p->hold.line))
            return -1;
        p->seg0_restart = restart;
        p->run_max = restart || t > p->m_in ? t : p->m_in;
        if (!restart)
            p->segs[0].late++;
    } else if (restart) {
        struct seg *prev = &p->segs[p->nsegs - 1];
        big_free(prev->uindex, prev->uindex ? ((size_t)prev->umask + 1) * sizeof *prev->uindex : 0);
        prev->uindex = NULL;
        if (seg_new(p, p->hold.line))
            return -1;
        p->split_seen = 1;
        p->run_max = t;
    } else {
        p->segs[p->nsegs - 1].late++;
        if (note_low(p, t))
            return -1;
    }
    if (add_now(p, t, p->hold.job, p->hold.job_len, p->hold.partition, p->hold.ev, role, p->hold.line, NULL))
        return -1;
    x_settle(p); /* what came while it was held goes where it went */
    /* the lines skipped while it was held follow it, into its run */
    struct seg *s = &p->segs[p->nsegs - 1];
    s->skipped += p->held_skipped;
    for (int i = 0; i < p->nheld_skips && s->nskips < MAX_ISSUES; i++)
        s->skips[s->nskips++] = p->held_skips[i];
    p->held_skipped = 0;
    p->nheld_skips = 0;
    return 0;
}

int evpart_settle(struct evpart *p, int64_t t_next)
{
    if (!p->held)
        return 0;
    int64_t ref = p->nsegs ? p->run_max : p->m_in;
    int rc = unhold(p, t_next != INT64_MIN && model_is_restart(t_next, ref));
    evpart_compact(p);
    if (rc) {
        p->oom = 1;
        return -1;
    }
    return 0;
}

int evpart_add_hinted(struct evpart *p, int64_t t_ns, const char *job, size_t job_len,
                      int32_t partition, int ev, int32_t worker, int32_t device, uint64_t line,
                      const struct evhint *hint)
{
    if (p->oom)
        return -1;
    if (p->nseen == 0)
        p->t_first = t_ns;
    else if (p->nseen == 1)
        p->t_second = t_ns;
    p->nseen++;
    if (p->held) {
        /* this event decides the held one: against the run it would have
         * restarted, does it look like a restart too? */
        int64_t ref = p->nsegs ? p->run_max : p->m_in;
        if (unhold(p, model_is_restart(t_ns, ref)))
            goto oom;
    }
    uint32_t role;
    if (role_find(p, worker, device, &role))
        goto oom;
    /* Which run: a restart of the epoch starts a segment. */
    if (p->nsegs == 0) {
        if (p->has_in && !p->native && model_is_restart(t_ns, p->m_in)) {
            hold(p, t_ns, job, job_len, partition, ev, worker, device, line);
            return 0;
        }
        if (seg_new(p, line))
            goto oom;
        if (p->has_in) {
            p->seg0_restart = 0;
            p->run_max = t_ns > p->m_in ? t_ns : p->m_in;
        } else {
            if (p->want_recs && add_rec(p, t_ns, INT64_MIN))
                goto oom;
            p->run_max = t_ns;
        }
    } else if (!p->native && model_is_restart(t_ns, p->run_max)) {
        hold(p, t_ns, job, job_len, partition, ev, worker, device, line);
        return 0;
    } else {
        if (note_low(p, t_ns))
            goto oom;
        if (t_ns > p->run_max)
            p->run_max = t_ns;
    }
    if (add_now(p, t_ns, job, job_len, partition, ev, role, line, hint))
        goto oom;
    x_settle(p);
    return 0;
oom:
    p->oom = 1;
    return -1;
}

/* Put the event into its unit in the current segment. */
static int add_now(struct evpart *p, int64_t t_ns, const char *job, size_t job_len, int32_t partition, int ev,
                   uint32_t role, uint64_t line, const struct evhint *hint)
{
    /* Its unit in the current segment. */
    struct seg *s = &p->segs[p->nsegs - 1];
    int side = p->want_side && p->nsegs == 1;
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
    p->nev++;
    if (u->t[ev] != T_NONE) {
        u->flags |= U_DUP;
        s->duplicates++;
        if (s->ndups < MAX_ISSUES)
            s->dups[s->ndups++] = (struct pline){line, ev};
        return 0;
    }
    u->t[ev] = t_ns;
    const struct role *ro = &p->roles[role];
    if (ro->worker >= 0 && u->worker < 0)
        u->worker = ro->worker;
    if (ro->device >= 0) {
        u->device = ro->device;
        u->flags |= U_DEVSET;
    }
    if (side) {
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
    if (p->oom)
        return -1;
    struct xrec x = {.t = t_ns, .line = line, .partition = partition, .kind = (uint32_t)kind};
    /* Its run is that of the events of the six around it: while one is
     * held, or when its own time looks like a restart (the first lines of
     * a new life of the daemon), the next one decides. */
    int undecided = p->held || (kind == XR_EVENT && !p->native && p->nsegs && model_is_restart(t_ns, p->run_max)) ||
                    (kind == XR_ATTR && p->x_pending);
    x.seg = undecided ? XSEG_HELD : p->nsegs ? (uint32_t)(p->nsegs - 1) : 0;
    if (undecided && !p->x_pending)
        p->x_pending = p->nx + 1;
    if (job_find(p, job, job_len, hash_bytes(job, job_len, 0), &x.job) ||
        (kind == XR_EVENT ? strtab_intern_upper(&p->strs, name, name_len, &x.key)
                          : strtab_intern(&p->strs, name, name_len, &x.key) ||
                                strtab_intern(&p->strs, val, val_len, &x.val)) ||
        grow_heap((void **)&p->x, &p->x_cap, p->nx, sizeof *p->x, 64)) {
        p->oom = 1;
        return -1;
    }
    p->x[p->nx++] = x;
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
    for (int i = 0; i < r->nkv; i++)
        if (evpart_extra(p, XR_ATTR, r->t_ns, r->job, r->job_len, r->partition, r->kv[i].k,
                         r->kv[i].kn, r->kv[i].v, r->kv[i].vn, line))
            return -1;
    return 0;
}

void evpart_skip(struct evpart *p, uint64_t line, int why)
{
    p->skipped++;
    p->skipped_by[why & 7]++;
    struct pline pl = {line, why};
    if (p->nskip_first < 8)
        p->skip_first[p->nskip_first++] = pl;
    if (p->held) { /* the run they belong to is decided with the held event */
        p->held_skipped++;
        if (p->nheld_skips < MAX_ISSUES)
            p->held_skips[p->nheld_skips++] = pl;
    } else if (p->nsegs == 0) {
        p->pre_skipped++;
        if (p->npre_skips < MAX_ISSUES)
            p->pre_skips[p->npre_skips++] = pl;
    } else {
        struct seg *s = &p->segs[p->nsegs - 1];
        s->skipped++;
        if (s->nskips < MAX_ISSUES)
            s->skips[s->nskips++] = pl;
    }
}

int evpart_link(struct evpart *p, int has_prev, int64_t m_prev, int64_t *m_out)
{
    p->seg0_cont = 0;
    if (p->nsegs == 0) {
        *m_out = m_prev;
        return 0;
    }
    *m_out = p->run_max;
    if (!has_prev)
        return 0;
    if (p->has_in) {
        p->seg0_cont = !p->seg0_restart;
        return 0;
    }
    /* Where the part's latest time is still below m_prev, the run's state
     * is m_prev, not what the part saw; a restart there can only be at a
     * time below every earlier one: a record. */
    for (size_t i = 0; i < p->nrecs && p->recs[i].pm < m_prev; i++)
        if (model_is_restart(p->recs[i].t, m_prev)) {
            if (p->recs[i].ev == 0) {
                /* its first event looks like a restart: it is one if the
                 * event after it does too (the part's second, or the next
                 * part's first: t_after), else it was one late line */
                int64_t t2 = p->nseen >= 2 ? p->t_second : p->t_after;
                if (t2 != INT64_MIN && model_is_restart(t2, m_prev))
                    return 0; /* its first event starts a run: the part is right */
                /* it was late: the part took it for its run's start, and
                 * judged what followed against it; read it again knowing
                 * the run it is in (then the late line is held and kept) */
                return 1;
            }
            return 1; /* a restart the part could not see: read it again */
        }
    p->seg0_cont = 1;
    if (p->nsegs == 1 && m_prev > p->run_max)
        *m_out = m_prev;
    return 0;
}

void evpart_compact(struct evpart *p)
{
    if (p->held)
        return; /* an event still to be added needs the index: evpart_settle compacts */
    if (p->jindex)
        big_free(p->jindex, (size_t)(p->jindex_mask + 1) * sizeof *p->jindex);
    p->jindex = NULL;
    memset(p->recent, 0, sizeof p->recent);
}

void evpart_drop_events(struct evpart *p)
{
    for (size_t i = 0; i < p->nsegs; i++) {
        struct seg *s = &p->segs[i];
        big_free(s->units, s->units_cap * sizeof *s->units);
        big_free(s->side, s->side ? s->units_cap * sizeof *s->side : 0);
        big_free(s->uindex, s->uindex ? ((size_t)s->umask + 1) * sizeof *s->uindex : 0);
    }
    free(p->segs);
    p->segs = NULL;
    p->nsegs = p->segs_cap = 0;
    free(p->recs);
    p->recs = NULL;
    p->nrecs = p->recs_cap = 0;
    free(p->x);
    p->x = NULL;
    p->nx = p->x_cap = 0;
}

void evpart_free(struct evpart *p)
{
    p->held = 0; /* an event never settled: dropped with the part, index and all */
    evpart_drop_events(p);
    big_free(p->arena, p->arena_cap);
    big_free(p->job_off, (size_t)p->jobs_cap * sizeof *p->job_off);
    big_free(p->job_hash, (size_t)p->jobs_cap * sizeof *p->job_hash);
    evpart_compact(p);
    free(p->roles);
    free(p->rindex);
    strtab_free(&p->strs);
    memset(p, 0, sizeof *p);
}
