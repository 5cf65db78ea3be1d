/*
 * model.c -- from the readers' segments to runs of units.
 *
 * Each part (one reader thread's share of an input) has already put its
 * events into units, in segments split where the epoch restarts, and
 * evpart_link has said whether each part's first segment continues the
 * run before.  Here a segment that starts a run becomes that run (its
 * units are taken as they are, job numbers translated), and a continuing
 * one is joined to the run before: a unit met on both sides of the seam
 * takes the later part's events in line order, exactly as one reader
 * would have (the first of an event is kept, the rest are duplicates).
 */
#include "model.h"

#include "durations.h"

#include "mem.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The run's indexes (hindex.h) hold jobs by their hash and units by
 * unit_hash; they start at 1024 slots and are freed when the run is
 * complete. */
#define RUN_INDEX_MIN 1024

/* The most parts whose other events wait for a run to start (a reader
 * makes at most 8 parts; past this, they have no unit). */
#define MODEL_WAIT_MAX 64

/* Which of a part's other events take_extras takes: those decided when
 * the part is joined, or those that wait for the next run (XSEG_NEXT). */
enum { XT_NOW, XT_NEXT };

/* A part whose other events wait for the next run to start: all of them
 * (XT_NOW: a part of other events only, ahead of the input's first run),
 * or those that evpart_trailing gave the next run (XT_NEXT). */
struct xwait {
    int part, which;
    uint64_t base;
};

static int take_extras(struct model *m, struct evpart *p, const size_t *segrun, size_t cur, size_t prev,
                       uint64_t base, int which);

/* Does a part hold other events for the next run? */
static int has_next(const struct evpart *p)
{
    for (size_t i = 0; i < p->extra.n; i++)
        if (p->extra.list[i].seg == XSEG_NEXT)
            return 1;
    return 0;
}

/* A run has started (cur: its index + 1): the other events that waited
 * for it are its. */
static int take_waiting(struct model *m, struct evpart *parts, struct xwait *w, int *nw, size_t cur)
{
    int rc = 0;
    for (int k = 0; k < *nw; k++) {
        struct evpart *p = &parts[w[k].part];
        if (rc == 0 && take_extras(m, p, NULL, cur, 0, w[k].base, w[k].which))
            rc = -1;
        evpart_drop_events(p);
    }
    *nw = 0;
    return rc;
}

static uint64_t job_hash_of(const void *ctx, size_t v)
{
    const struct run *r = ctx;
    return r->jobs[v].hash;
}

static uint64_t unit_hash_of(const void *ctx, size_t v)
{
    const struct run *r = ctx;
    return unit_hash(r->jobs[r->units[v].job].hash, r->units[v].partition);
}

/* The run's job with this id (h: its hash, the same function in every
 * part), or -1, with *slot where a new one's index entry goes; -2 when
 * out of memory. */
static int64_t job_probe(struct run *r, const char *id, size_t len, uint64_t h, size_t *slot)
{
    struct hindex *x = &r->jindex;
    if (hindex_reserve(x, r->njobs, 0, RUN_INDEX_MIN, job_hash_of, r))
        return -2;
    size_t i = hindex_home(x, h);
    for (int64_t v; (v = hindex_probe(x, h, &i)) >= 0; i = hindex_next(x, i))
        if (r->jobs[v].len == len && memcmp(r->jobs[v].id, id, len) == 0)
            return v;
    *slot = i;
    return -1;
}

/* The run's job with this id, added if new. */
static int job_find(struct run *r, const char *id, size_t len, uint64_t h, uint32_t *out)
{
    size_t i = 0;
    int64_t v = job_probe(r, id, len, h, &i);
    if (v >= 0) {
        *out = (uint32_t)v;
        return 0;
    }
    if (v == -2 || grow_array((void **)&r->jobs, &r->jobs_cap, r->njobs + 1, sizeof *r->jobs))
        return -1;
    r->jobs[r->njobs] = (struct job){id, (uint32_t)len, 0, h};
    hindex_put(&r->jindex, i, h, (uint32_t)r->njobs);
    *out = (uint32_t)r->njobs++;
    return 0;
}

/* The part's other events and attributes, to the runs its segments went
 * to (segrun: run index + 1 per segment; cur: the run current when the
 * part has no segment, or with XT_NEXT the run that starts after it, + 1,
 * or 0; prev: the run before the part, + 1, for those evpart_link gave
 * it: XSEG_PREV). */
static int take_extras(struct model *m, struct evpart *p, const size_t *segrun, size_t cur, size_t prev,
                       uint64_t base, int which)
{
    if (!p->extra.n)
        return 0;
    uint32_t *smap = calloc(p->extra.strs.n ? p->extra.strs.n : 1, sizeof *smap); /* model string + 1 */
    if (!smap)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < p->extra.n && rc == 0; i++) {
        const struct xrec *x = &p->extra.list[i];
        if ((x->seg == XSEG_NEXT) != (which == XT_NEXT))
            continue;
        size_t ri = cur;
        if (which == XT_NOW && x->seg == XSEG_PREV)
            ri = prev;
        else if (which == XT_NOW && p->segs.n)
            ri = segrun[x->seg < p->segs.n ? x->seg : p->segs.n - 1];
        if (!ri) {
            m->xorphans++;
            continue;
        }
        struct run *r = &m->runs[ri - 1];
        size_t jl;
        const char *jid = evpart_job(p, x->job, &jl);
        /* the job may not have a unit yet: a later part can bring it (a job
         * that never gets one is dropped with its events, run_finish) */
        uint32_t job;
        if (job_find(r, jid, jl, p->jobs.hash[x->job], &job)) {
            rc = -1;
            break;
        }
        uint32_t ids[2] = {x->key, x->val};
        int kind = (int)(x->kind & XR_KIND);
        for (int k = 0; k < (kind == XR_ATTR ? 2 : 1); k++) {
            if (!smap[ids[k]]) {
                size_t n;
                const char *sv = strtab_get(&p->extra.strs, ids[k], &n);
                uint32_t id;
                if (strtab_intern(&m->strs, sv, n, &id)) {
                    rc = -1;
                    break;
                }
                smap[ids[k]] = id + 1;
            }
            ids[k] = smap[ids[k]] - 1;
        }
        if (rc)
            break;
        uint64_t line = base + x->line + 1;
        if (kind == XR_EVENT) {
            if (grow_heap((void **)&r->xev, &r->xev_cap, r->nxev, sizeof *r->xev, 64))
                rc = -1;
            else
                r->xev[r->nxev++] = (struct xitem){x->t, line, 0, ids[0], 0, (uint32_t)job, x->partition};
            r->events++;
            /* the run's line range holds every event it counts */
            if (line < r->first_line)
                r->first_line = line;
            if (line > r->last_line)
                r->last_line = line;
        } else {
            if (grow_heap((void **)&r->xattr, &r->xattr_cap, r->nxattr, sizeof *r->xattr, 64))
                rc = -1;
            else
                r->xattr[r->nxattr++] = (struct xitem){0, line, 0, ids[0], ids[1], (uint32_t)job, x->partition};
        }
    }
    free(smap);
    return rc;
}

static void issue(struct run *r, int kind, uint64_t line, int detail)
{
    if (r->nissues[kind] < MAX_ISSUES) {
        struct issue *is = &r->issues[kind][r->nissues[kind]++];
        is->line = line;
        is->kind = kind;
        is->detail = detail;
    }
}

static struct run *run_new(struct model *m, const char *source, int native, int index)
{
    if (grow_array((void **)&m->runs, &m->runs_cap, m->nruns + 1, sizeof *m->runs))
        return NULL;
    struct run *r = &m->runs[m->nruns++];
    memset(r, 0, sizeof *r);
    r->source = source;
    r->native = native;
    r->index = index;
    r->strs = &m->strs;
    return r;
}

/* Units whose present events go backwards along the pipeline. */
static void check_order(struct run *r)
{
    for (size_t i = 0; i < r->nunits; i++) {
        struct unit *u = &r->units[i];
        int64_t last = T_NONE;
        for (int e = 0; e < EV_N; e++) {
            if (u->t[e] == T_NONE)
                continue;
            if (last != T_NONE && u->t[e] < last) {
                u->flags |= U_CONTRA;
                r->contradictions++;
                issue(r, ISSUE_CONTRADICTION, u->line, e);
                break;
            }
            last = u->t[e];
        }
    }
}

/* Two tuples of keys: the first that differs decides. */
static int cmp_keys(const uint64_t *x, const uint64_t *y, int n)
{
    for (int i = 0; i < n; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* A time as a key that sorts as the time does. */
static uint64_t time_key(int64_t t)
{
    return (uint64_t)t ^ (1ull << 63);
}

/* Events by unit, then time, then line (a START and its END in the same
 * millisecond stay in the order the log wrote them), then name: a
 * duration line's phase has its START and END on one line, and a START's
 * name is interned before its END's (durations.c). */
static int cmp_xev(const void *a, const void *b)
{
    const struct xitem *x = a, *y = b;
    uint64_t kx[4] = {x->unit, time_key(x->t), x->line, x->name},
             ky[4] = {y->unit, time_key(y->t), y->line, y->name};
    return cmp_keys(kx, ky, 4);
}

/* Attributes by unit, then key, then line (the first value of a key first). */
static int cmp_xattr(const void *a, const void *b)
{
    const struct xitem *x = a, *y = b;
    uint64_t kx[3] = {x->unit, x->name, x->line}, ky[3] = {y->unit, y->name, y->line};
    return cmp_keys(kx, ky, 3);
}

static int64_t unit_lookup(struct run *r, uint32_t job, int32_t partition, size_t *slot);

/* An event with no partition= of a job whose one unit has one (a daemon
 * that names the partition on the six events only) belongs to that unit:
 * its index, or -1 (a job of several units: which one is unknown). */
static int64_t only_unit(struct run *r, uint32_t **only, uint32_t job)
{
    if (r->jobs[job].units != 1)
        return -1;
    if (!*only) {
        *only = calloc(r->njobs ? r->njobs : 1, sizeof **only);
        if (!*only)
            return -1;
        for (size_t i = 0; i < r->nunits; i++)
            (*only)[r->units[i].job] = (uint32_t)i + 1;
    }
    return (int64_t)(*only)[job] - 1;
}

/* Give each item its unit (by job and partition), leave out those of no
 * unit (counted), and sort them; returns the count kept. */
static size_t attach(struct run *r, struct xitem *x, size_t n, uint32_t **only,
                     int (*cmp)(const void *, const void *))
{
    size_t k = 0, slot;
    for (size_t i = 0; i < n; i++) {
        int64_t u = x[i].job == UINT32_MAX ? -1 : unit_lookup(r, x[i].job, x[i].partition, &slot);
        if (u < 0 && x[i].partition < 0 && x[i].job != UINT32_MAX)
            u = only_unit(r, only, x[i].job);
        if (u < 0) {
            r->xorphans++;
            continue;
        }
        x[k] = x[i];
        x[k++].unit = (uint32_t)u;
    }
    if (k)
        qsort(x, k, sizeof *x, cmp);
    return k;
}

/* Attach the other events and the attributes to their units, sorted by
 * unit; an attribute keeps the first value of each key. */
static int attach_extras(struct run *r)
{
    if (!r->nxev && !r->nxattr)
        return 0;
    /* a complete index of the run's units (a run keeps only part of one) */
    hindex_free(&r->uindex);
    if (hindex_reserve(&r->uindex, r->nunits, 0, RUN_INDEX_MIN, unit_hash_of, r))
        return -1;
    uint32_t *only = NULL; /* a job's one unit + 1 (jobs of several units: 0) */
    r->nxev = attach(r, r->xev, r->nxev, &only, cmp_xev);
    size_t k = attach(r, r->xattr, r->nxattr, &only, cmp_xattr);
    free(only);
    size_t m = 0;
    for (size_t i = 0; i < k; i++)
        if (!m || r->xattr[m - 1].unit != r->xattr[i].unit || r->xattr[m - 1].name != r->xattr[i].name)
            r->xattr[m++] = r->xattr[i];
    r->nxattr = m;
    return 0;
}

/* A run timed by its lines' own clocks (no ts=) counts from its first
 * record, like a daemon's epoch. */
static void wall_shift(struct run *r)
{
    int64_t t0 = INT64_MAX;
    for (size_t i = 0; i < r->nunits; i++)
        for (int e = 0; e < EV_N; e++)
            if (r->units[i].t[e] != T_NONE && r->units[i].t[e] < t0)
                t0 = r->units[i].t[e];
    for (size_t i = 0; i < r->nxev; i++)
        if (r->xev[i].t < t0)
            t0 = r->xev[i].t;
    if (t0 == INT64_MAX)
        return;
    r->wall_origin = t0;
    for (size_t i = 0; i < r->nunits; i++)
        for (int e = 0; e < EV_N; e++)
            if (r->units[i].t[e] != T_NONE)
                r->units[i].t[e] -= t0;
    for (size_t i = 0; i < r->nxev; i++)
        r->xev[i].t -= t0;
}

/* Jobs that only other events named (no unit: no event of the six in the
 * run) are not jobs of the run: dropped, their events and details left
 * without a unit (counted as such by attach). */
static int drop_empty_jobs(struct run *r)
{
    size_t n = 0;
    for (size_t j = 0; j < r->njobs; j++)
        n += r->jobs[j].units > 0;
    if (n == r->njobs)
        return 0;
    uint32_t *map = malloc(r->njobs * sizeof *map);
    if (!map)
        return -1;
    n = 0;
    for (size_t j = 0; j < r->njobs; j++) {
        map[j] = r->jobs[j].units ? (uint32_t)n : UINT32_MAX;
        if (r->jobs[j].units)
            r->jobs[n++] = r->jobs[j];
    }
    r->njobs = n;
    for (size_t i = 0; i < r->nunits; i++)
        r->units[i].job = map[r->units[i].job];
    for (size_t i = 0; i < r->nxev; i++)
        r->xev[i].job = map[r->xev[i].job];
    for (size_t i = 0; i < r->nxattr; i++)
        r->xattr[i].job = map[r->xattr[i].job];
    free(map);
    hindex_free(&r->jindex);
    return 0;
}

static int run_finish(struct run *r)
{
    if (drop_empty_jobs(r) || attach_extras(r))
        return -1;
    if (r->wall_events)
        wall_shift(r);
    check_order(r);
    hindex_free(&r->uindex);
    hindex_free(&r->jindex);
    return 0;
}

/* The unit of (job, partition) in r, or -1; *slot is where a new one's
 * index entry goes. */
static int64_t unit_lookup(struct run *r, uint32_t job, int32_t partition, size_t *slot)
{
    uint64_t h = unit_hash(r->jobs[job].hash, partition);
    struct hindex *x = &r->uindex;
    size_t i = hindex_home(x, h);
    int64_t v;
    while ((v = hindex_probe(x, h, &i)) >= 0 &&
           (r->units[v].job != job || r->units[v].partition != partition))
        i = hindex_next(x, i);
    *slot = i;
    return v;
}

/* Add the lines of b (sorted, part-relative) to the issue list a. */
static void issues_add(struct run *r, int kind, const struct pline *b, int nb, uint64_t base)
{
    for (int i = 0; i < nb; i++)
        issue(r, kind, base + b[i].line + 1, b[i].detail);
}

/* A segment that starts a run: the run takes its units. */
static struct run *adopt(struct model *m, const char *source, int native, int index,
                         struct evpart *p, struct seg *s, uint64_t base, uint32_t *jstamp,
                         uint32_t *jval)
{
    struct run *r = run_new(m, source, native, index);
    if (!r)
        return NULL;
    r->units = s->units;
    r->nunits = s->nunits;
    r->units_cap = s->units_cap;
    big_free(s->side, s->side ? s->side_cap * sizeof *s->side : 0);
    s->side = NULL;
    s->side_cap = 0;
    s->units = NULL;
    /* The part's last segment keeps its index: the next part may join it,
     * and the run's index is keyed the same way. */
    r->uindex = s->uindex;
    s->uindex = (struct hindex){0};
    s->nunits = s->units_cap = 0;
    uint32_t stamp = (uint32_t)m->nruns; /* unique to this run */
    for (size_t i = 0; i < r->nunits; i++) {
        struct unit *u = &r->units[i];
        uint32_t pj = u->job;
        if (jstamp[pj] != stamp) {
            if (grow_array((void **)&r->jobs, &r->jobs_cap, r->njobs + 1, sizeof *r->jobs))
                return NULL;
            size_t jl;
            const char *id = evpart_job(p, pj, &jl);
            r->jobs[r->njobs] = (struct job){id, (uint32_t)jl, 0, p->jobs.hash[pj]};
            jstamp[pj] = stamp;
            jval[pj] = (uint32_t)r->njobs++;
        }
        u->job = jval[pj];
        r->jobs[u->job].units++;
        u->line += base + 1;
    }
    r->first_line = base + s->first_line + 1;
    r->last_line = base + s->last_line + 1;
    r->events = s->events;
    r->duplicates = s->duplicates;
    r->late_lines = s->late;
    r->wall_events = s->wall;
    r->skipped_lines = s->skipped;
    issues_add(r, ISSUE_DUPLICATE, s->dups, s->ndups, base);
    issues_add(r, ISSUE_SKIPPED, s->skips, s->nskips, base);
    return r;
}

/* Keep the first MAX_ISSUES lines, in order. */
static void keep_first(struct pline *list, int *n, struct pline x)
{
    int k = *n < MAX_ISSUES ? (*n)++ : MAX_ISSUES;
    if (k == MAX_ISSUES) {
        if (x.line >= list[MAX_ISSUES - 1].line)
            return;
        k = MAX_ISSUES - 1;
    }
    while (k > 0 && list[k - 1].line > x.line) {
        list[k] = list[k - 1];
        k--;
    }
    list[k] = x;
}

/* A part's first segment that continues run r.  more: a later part will
 * join r too, so the units added here must be findable.  The units met on
 * both sides are merged; the rest are gathered at the front of the part's
 * array, whose pages are then moved onto the end of the run's. */
/* A unit met on both sides of a seam: b's events (d: where they were)
 * join a's, in line order, after those of the run so far; the first of an
 * event is kept, the rest are duplicates. */
static void merge_unit(struct run *r, struct evpart *p, struct unit *a, const struct unit *b,
                       const struct uside *d, struct pline *dups, int *ndups)
{
    /* The same unit on both sides: its events here, in line order,
     * after those of the run so far. */
    int order[EV_N], n = 0;
    for (int e = 0; e < EV_N; e++) {
        if (b->t[e] == T_NONE)
            continue;
        int k = n++;
        while (k > 0 && d->dline[order[k - 1]] > d->dline[e]) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = e;
    }
    a->flags |= b->flags & (U_DUP | U_QUEUE);
    for (int k = 0; k < n; k++) {
        int e = order[k];
        if (a->t[e] != T_NONE) {
            a->flags |= U_DUP;
            r->duplicates++;
            keep_first(dups, ndups, (struct pline){b->line + d->dline[e], e});
            continue;
        }
        a->t[e] = b->t[e];
        const struct role *ro = &p->roles.list[d->role[e]];
        if (ro->worker >= 0 && a->worker < 0)
            a->worker = ro->worker;
        if (ro->device >= 0) {
            a->device = ro->device;
            a->flags |= U_DEVSET;
        }
    }
}

/* The units of s new to the run (dest: their run job, UINT32_MAX for
 * those merged), in their order, onto the end of the run's array: the
 * part's pages are moved, not copied, where they can be.  more: a later
 * part joins the run too, so they are indexed.  0, or -1. */
static int append_new(struct run *r, struct seg *s, const uint32_t *dest, uint64_t base, int more)
{
    /* The units new to the run, in their order, at the front of s. */
    size_t m = 0;
    for (size_t i = 0; i < s->nunits; i++) {
        if (dest[i] == UINT32_MAX)
            continue;
        struct unit u = s->units[i];
        u.job = dest[i];
        u.line += base + 1;
        r->jobs[u.job].units++;
        s->units[m++] = u;
    }
    /* Copied, not moved page by page into place (mremap, as big_append
     * once did): in this VM the first scan of pages moved that way cost
     * 40-120 ms per 26 MB (unseen by the guest's fault counters), a copy
     * 5; the whole analysis took 20% less CPU on the bench logs, for
     * 10 MiB more at its peak (docs/bench.md). */
    size_t first = r->nunits, U = sizeof *r->units;
    if (m) {
        if (grow_array((void **)&r->units, &r->units_cap, first + m, sizeof *r->units))
            return -1;
        memcpy(r->units + first, s->units, m * U);
    }
    r->nunits = first + m;
    if (more)
        for (size_t k = first; k < r->nunits; k++) {
            size_t slot;
            const struct unit *u = &r->units[k];
            unit_lookup(r, u->job, u->partition, &slot); /* not there: its place */
            hindex_put(&r->uindex, slot, unit_hash(r->jobs[u->job].hash, u->partition), (uint32_t)k);
        }
    return 0;
}

static int join(struct run *r, struct evpart *p, struct seg *s, uint64_t base, int more)
{
    if (hindex_reserve(&r->jindex, r->njobs, r->njobs + p->jobs.n, RUN_INDEX_MIN, job_hash_of, r) ||
        hindex_reserve(&r->uindex, r->nunits, more ? r->nunits + s->nunits : 0, RUN_INDEX_MIN,
                       unit_hash_of, r))
        return -1;
    if (r->nunits + s->nunits >= UINT32_MAX - 1)
        return -1;
    uint32_t *jmap = calloc(p->jobs.n ? p->jobs.n : 1, sizeof *jmap); /* run job + 1 */
    uint32_t *dest = malloc((s->nunits ? s->nunits : 1) * sizeof *dest); /* run job, or none */
    if (!jmap || !dest) {
        free(jmap);
        free(dest);
        return -1;
    }
    struct pline dups[MAX_ISSUES];
    int ndups = 0;
    for (int i = 0; i < s->ndups; i++)
        keep_first(dups, &ndups, s->dups[i]);
    size_t njobs_before = r->njobs; /* a job added here has no unit in the run yet */
    for (size_t i = 0; i < s->nunits; i++) {
        struct unit *b = &s->units[i];
        uint32_t pj = b->job, job;
        if (jmap[pj]) {
            job = jmap[pj] - 1;
        } else {
            size_t jl;
            const char *jid = evpart_job(p, pj, &jl);
            if (job_find(r, jid, jl, p->jobs.hash[pj], &job)) {
                free(jmap);
                free(dest);
                return -1;
            }
            jmap[pj] = job + 1;
        }
        size_t slot;
        /* most units are of jobs the run has not seen (only jobs that
         * straddle the parts' border are in both): no lookup for them */
        int64_t found = job >= njobs_before ? -1 : unit_lookup(r, job, b->partition, &slot);
        if (found < 0) {
            dest[i] = job;
            continue;
        }
        dest[i] = UINT32_MAX;
        if (i >= s->side_cap) { /* never: read_text reads such a part again, with all of them */
            free(jmap);
            free(dest);
            return -1;
        }
        merge_unit(r, p, &r->units[found], b, &s->side[i], dups, &ndups);
    }
    size_t side_bytes = s->side ? s->side_cap * sizeof *s->side : 0;
    if (append_new(r, s, dest, base, more)) {
        free(jmap);
        free(dest);
        return -1;
    }
    free(jmap);
    free(dest);
    r->last_line = base + s->last_line + 1;
    r->events += s->events;
    r->duplicates += s->duplicates;
    r->late_lines += s->late;
    r->wall_events += s->wall;
    r->skipped_lines += s->skipped;
    issues_add(r, ISSUE_DUPLICATE, dups, ndups, base);
    issues_add(r, ISSUE_SKIPPED, s->skips, s->nskips, base);
    if (s->units)
        big_free(s->units, s->units_cap * sizeof *s->units);
    big_free(s->side, side_bytes);
    s->units = NULL;
    s->side = NULL;
    s->nunits = s->units_cap = s->side_cap = 0;
    return 0;
}

/* The duration entries of an input's parts, on the input's lines, with
 * the names in the model's strings (dur_take), until the runs are known. */
struct dur_acc {
    struct dline *v;
    size_t n, cap;
    int64_t last_t;
    uint8_t last_wall, seen;
    uint64_t info, bad, bad_first;
};

static int dur_take(struct model *m, struct dur_acc *a, const struct evpart *p, uint64_t base)
{
    const struct ev_durs *d = &p->durs;
    if (d->bad && !a->bad)
        a->bad_first = base + d->bad_first + 1;
    a->info += d->info;
    a->bad += d->bad;
    if (a->n + d->n > a->cap) {
        size_t nc = 2 * (a->n + d->n);
        struct dline *nv = realloc(a->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        a->v = nv, a->cap = nc;
    }
    for (size_t i = 0; i < d->n; i++) {
        struct dline x = d->list[i];
        size_t len;
        const char *k = strtab_get(&p->extra.strs, x.key, &len);
        if (strtab_intern(&m->strs, k, len, &x.key))
            return -1;
        x.line += base + 1;
        if (x.t_prev == T_NONE && a->seen) /* the last record is in a part before */
            x.t_prev = a->last_t, x.wall = a->last_wall;
        a->v[a->n++] = x;
    }
    if (d->seen)
        a->last_t = d->last_t, a->last_wall = d->last_wall, a->seen = 1;
    return 0;
}

/* Each run of the input [first, m->nruns) places the entries on its lines
 * (those before the first run's first line go to it); the counts of
 * lines with no entry go to the first. */
static int dur_give(struct model *m, struct dur_acc *a, size_t first)
{
    if (first == m->nruns) {
        m->xorphans += a->n; /* no run: no unit to give them to */
        return 0;
    }
    m->runs[first].dur.info = a->info;
    m->runs[first].dur.bad = a->bad;
    m->runs[first].dur.bad_first = a->bad_first;
    m->runs[first].dur.lines = a->info + a->bad;
    size_t i = 0;
    for (size_t k = first; k < m->nruns; k++) {
        size_t j = i;
        while (j < a->n && (k + 1 == m->nruns || a->v[j].line < m->runs[k + 1].first_line))
            j++;
        if (j > i && dur_place(&m->runs[k], &m->strs, a->v + i, j - i))
            return -1;
        i = j;
    }
    return 0;
}

int model_add(struct model *m, const char *source, struct evpart *parts, int nparts,
              int native, uint64_t lost_events)
{
    struct run *r = NULL; /* the run the input is in */
    size_t first = m->nruns;
    int run_index = 0;
    uint64_t base = 0, pending_skips = 0;
    struct pline pending[MAX_ISSUES];
    int npending = 0;
    struct xwait wait[MODEL_WAIT_MAX];
    int nwait = 0;
    int rc = 0;
    struct dur_acc durs = {0};
    for (int pi = 0; pi < nparts && rc == 0; pi++) {
        struct evpart *p = &parts[pi];
        if (dur_take(m, &durs, p, base))
            rc = -1;
        size_t prev_run = r ? (size_t)(r - m->runs) + 1 : 0; /* the run before the part, + 1 */
        for (int e = 0; e < 8; e++)
            m->skipped_by[e] += p->diag.skipped_by[e];
        m->timeline_lines += p->diag.timeline_lines;
        m->bytes += p->diag.bytes;
        /* Lines skipped before the part's first event belong to the run
         * it starts in, or to the input's first run. */
        if (r) {
            r->skipped_lines += p->diag.pre_skipped;
            issues_add(r, ISSUE_SKIPPED, p->diag.pre_skips, p->diag.npre_skips, base);
        } else {
            pending_skips += p->diag.pre_skipped;
            for (int i = 0; i < p->diag.npre_skips && npending < MAX_ISSUES; i++)
                pending[npending++] =
                    (struct pline){base + p->diag.pre_skips[i].line, p->diag.pre_skips[i].detail};
        }
        uint32_t *jstamp = NULL, *jval = NULL;
        if (p->segs.n > (p->segs.first_cont ? 1u : 0u)) {
            jstamp = calloc(p->jobs.n ? p->jobs.n : 1, sizeof *jstamp);
            jval = malloc((p->jobs.n ? p->jobs.n : 1) * sizeof *jval);
            if (!jstamp || !jval) {
                free(jstamp);
                free(jval);
                return -1;
            }
        }
        size_t *segrun = calloc(p->segs.n ? p->segs.n : 1, sizeof *segrun);
        if (!segrun) {
            free(jstamp);
            free(jval);
            return -1;
        }
        for (size_t si = 0; si < p->segs.n; si++) {
            struct seg *s = &p->segs.list[si];
            if (si == 0 && p->segs.first_cont && r) {
                /* does a later part join this run too? */
                int more = 0;
                for (int k = pi + 1; k < nparts && p->segs.n == 1; k++)
                    if (parts[k].segs.n) {
                        more = parts[k].segs.first_cont;
                        break;
                    }
                if (join(r, p, s, base, more)) {
                    rc = -1;
                    break;
                }
                segrun[si] = (size_t)(r - m->runs) + 1;
                continue;
            }
            r = adopt(m, source, native, ++run_index, p, s, base, jstamp, jval);
            if (!r) {
                rc = -1;
                break;
            }
            segrun[si] = (size_t)(r - m->runs) + 1;
            r->lost_events = native ? lost_events : 0;
            if (nwait && take_waiting(m, parts, wait, &nwait, segrun[si])) {
                rc = -1;
                break;
            }
            if (run_index == 1 && (pending_skips || npending)) {
                /* before the first event: ahead of everything the run has */
                r->skipped_lines += pending_skips;
                struct issue keep[MAX_ISSUES];
                int nk = r->nissues[ISSUE_SKIPPED];
                memcpy(keep, r->issues[ISSUE_SKIPPED], sizeof keep);
                r->nissues[ISSUE_SKIPPED] = 0;
                issues_add(r, ISSUE_SKIPPED, pending, npending, 0);
                for (int i = 0; i < nk; i++)
                    issue(r, ISSUE_SKIPPED, keep[i].line, keep[i].detail);
                pending_skips = 0;
                npending = 0;
            }
        }
        free(jstamp);
        free(jval);
        /* Other events that wait for a run to start, as one reader would
         * have put them: a part of other events only ahead of the input's
         * first run (a byte range holding a job's phases ahead of its
         * pipeline events), and those evpart_trailing gave the next run. */
        int waits = 0;
        if (rc == 0 && !r && !p->segs.n && p->extra.n && nwait < MODEL_WAIT_MAX) {
            wait[nwait++] = (struct xwait){pi, XT_NOW, base};
            waits = 1;
        } else if (rc == 0) {
            if (take_extras(m, p, segrun, r ? (size_t)(r - m->runs) + 1 : 0, prev_run, base, XT_NOW))
                rc = -1;
            if (r && !p->segs.n)
                r->late_lines += p->diag.late_extras;
            if (has_next(p) && nwait < MODEL_WAIT_MAX) {
                wait[nwait++] = (struct xwait){pi, XT_NEXT, base};
                waits = 1;
            }
        }
        free(segrun);
        base += p->diag.lines;
        if (!waits)
            evpart_drop_events(p); /* what the runs did not take */
    }
    for (int k = 0; k < nwait; k++) { /* no run came: they have no unit */
        const struct evpart *p = &parts[wait[k].part];
        for (size_t i = 0; i < p->extra.n; i++)
            m->xorphans += wait[k].which == XT_NOW || p->extra.list[i].seg == XSEG_NEXT;
        evpart_drop_events(&parts[wait[k].part]);
    }
    if (rc == 0 && dur_give(m, &durs, first))
        rc = -1;
    free(durs.v);
    for (size_t i = first; i < m->nruns; i++)
        if (run_finish(&m->runs[i]))
            rc = -1;
    return rc;
}

void run_bounds(const struct run *r, int64_t *lo, int64_t *hi)
{
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    for (size_t k = 0; k < r->nunits; k++)
        for (int e = 0; e < EV_N; e++)
            if (r->units[k].t[e] != T_NONE) {
                if (r->units[k].t[e] < *lo)
                    *lo = r->units[k].t[e];
                if (r->units[k].t[e] > *hi)
                    *hi = r->units[k].t[e];
            }
    if (*lo == INT64_MAX)
        *lo = *hi = 0;
}

void model_free(struct model *m)
{
    for (size_t i = 0; i < m->nruns; i++) {
        struct run *r = &m->runs[i];
        big_free(r->units, r->units_cap * sizeof *r->units);
        big_free(r->jobs, r->jobs_cap * sizeof *r->jobs);
        hindex_free(&r->uindex);
        hindex_free(&r->jindex);
        free(r->xev);
        free(r->xattr);
        free(r->gpu.pts);
        free(r->dur.marks);
    }
    big_free(m->runs, m->runs_cap * sizeof *m->runs);
    strtab_free(&m->strs);
    memset(m, 0, sizeof *m);
}
