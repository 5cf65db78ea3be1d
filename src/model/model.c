/*
 * model.c -- runs of units: building them (build.h: a new run, a job,
 * a unit, an issue, and at the end each unit's other events and details
 * attached to it), and what the analysis asks of a finished one.
 * Readers fill runs through build.h; how they split an input into runs
 * is theirs (read/stitch.c for the text reader's parts).
 */
#include "build.h"

#include "mem.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The run's indexes (hindex.h) hold jobs by their hash and units by
 * unit_hash; they start at 1024 slots and are freed when the run is
 * complete. */
#define RUN_INDEX_MIN 1024

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

int run_reserve(struct run *r, size_t jobs, size_t units)
{
    return hindex_reserve(&r->jindex, r->njobs, jobs, RUN_INDEX_MIN, job_hash_of, r) ||
           hindex_reserve(&r->uindex, r->nunits, units, RUN_INDEX_MIN, unit_hash_of, r);
}

/* The run's job with this id (h: its hash, the same function in every
 * part), or -1, with *slot where a new one's index entry goes (the index
 * has room: run_job reserves it first). */
static int64_t job_probe(const struct run *r, const char *id, size_t len, uint64_t h, size_t *slot)
{
    const struct hindex *x = &r->jindex;
    size_t i = hindex_home(x, h);
    for (int64_t v; (v = hindex_probe(x, h, &i)) >= 0; i = hindex_next(x, i))
        if (r->jobs[v].len == len && memcmp(r->jobs[v].id, id, len) == 0)
            return v;
    *slot = i;
    return -1;
}

/* (build.h) */
int run_job(struct run *r, const char *id, size_t len, uint64_t h, uint32_t *out)
{
    if (hindex_reserve(&r->jindex, r->njobs, 0, RUN_INDEX_MIN, job_hash_of, r))
        return -1;
    size_t i = 0;
    int64_t v = job_probe(r, id, len, h, &i);
    if (v >= 0) {
        *out = (uint32_t)v;
        return 0;
    }
    if (grow_array((void **)&r->jobs, &r->jobs_cap, r->njobs + 1, sizeof *r->jobs))
        return -1;
    r->jobs[r->njobs] = (struct job){id, (uint32_t)len, 0, h};
    hindex_put(&r->jindex, i, h, (uint32_t)r->njobs);
    *out = (uint32_t)r->njobs++;
    return 0;
}

int run_add_unit(struct run *r, uint32_t job, const struct unit *u, uint64_t line)
{
    if (r->nunits >= UINT32_MAX - 1 || grow_array((void **)&r->units, &r->units_cap, r->nunits + 1, sizeof *r->units))
        return -1;
    struct unit *x = &r->units[r->nunits++];
    *x = *u;
    x->job = job;
    x->line = line;
    r->jobs[job].units++;
    return 0;
}

void run_issue(struct run *r, int kind, uint64_t line, int detail)
{
    if (r->nissues[kind] < MAX_ISSUES) {
        struct issue *is = &r->issues[kind][r->nissues[kind]++];
        is->line = line;
        is->kind = kind;
        is->detail = detail;
    }
}

struct run *model_run_new(struct model *m, const char *source, const struct provenance *prov, int index)
{
    if (grow_array((void **)&m->runs, &m->runs_cap, m->nruns + 1, sizeof *m->runs))
        return NULL;
    struct run *r = &m->runs[m->nruns++];
    memset(r, 0, sizeof *r);
    r->source = source;
    r->prov = *prov;
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
                run_issue(r, ISSUE_CONTRADICTION, u->line, e);
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
        int64_t u = x[i].job == UINT32_MAX ? -1 : run_unit(r, x[i].job, x[i].partition, &slot);
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
    for (size_t i = 0; i < r->dur.nph; i++)
        if (r->dur.ph[i].a < t0)
            t0 = r->dur.ph[i].a;
    if (t0 == INT64_MAX)
        return;
    r->wall_origin = t0;
    for (size_t i = 0; i < r->nunits; i++)
        for (int e = 0; e < EV_N; e++)
            if (r->units[i].t[e] != T_NONE)
                r->units[i].t[e] -= t0;
    for (size_t i = 0; i < r->nxev; i++)
        r->xev[i].t -= t0;
    for (size_t i = 0; i < r->dur.nph; i++)
        r->dur.ph[i].a -= t0, r->dur.ph[i].b -= t0;
}

void run_remap_jobs(struct run *r, const uint32_t *map)
{
    for (size_t i = 0; i < r->nunits; i++)
        r->units[i].job = map[r->units[i].job];
    for (size_t i = 0; i < r->nxev; i++)
        r->xev[i].job = map[r->xev[i].job];
    for (size_t i = 0; i < r->nxattr; i++)
        r->xattr[i].job = map[r->xattr[i].job];
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
    run_remap_jobs(r, map);
    free(map);
    hindex_free(&r->jindex);
    return 0;
}

int run_finish(struct run *r)
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

int64_t run_unit(struct run *r, uint32_t job, int32_t partition, size_t *slot)
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

/* Job ids the model keeps itself, in blocks freed with the model (runs
 * point into them, as they point into a text reader's arenas). */
struct idblock {
    struct idblock *next;
    size_t used, cap;
    char bytes[];
};

const char *model_keep_id(struct model *m, const char *id, size_t len)
{
    struct idblock *b = m->ids;
    if (!b || b->cap - b->used < len) {
        size_t cap = len > 65536 ? len : 65536;
        struct idblock *n = malloc(sizeof *n + cap);
        if (!n)
            return NULL;
        n->next = b, n->used = 0, n->cap = cap;
        m->ids = b = n;
    }
    char *at = b->bytes + b->used;
    memcpy(at, id, len);
    b->used += len;
    return at;
}

void model_free_ids(struct model *m)
{
    for (struct idblock *b = m->ids, *n; b; b = n) {
        n = b->next;
        free(b);
    }
    m->ids = NULL;
}

void run_free(struct run *r)
{
    big_free(r->units, r->units_cap * sizeof *r->units);
    big_free(r->jobs, r->jobs_cap * sizeof *r->jobs);
    hindex_free(&r->uindex);
    hindex_free(&r->jindex);
    free(r->xev);
    free(r->xattr);
    free(r->gpu.pts);
    free(r->dur.marks);
    if (r->dur.mem)
        dur_mem_release(r->dur.mem);
    else
        big_free(r->dur.ph, r->dur.ph_cap * sizeof *r->dur.ph);
    free(r->dur.ph_at);
}

void dur_mem_release(struct dur_mem *dm)
{
    if (dm && --dm->refs == 0) {
        big_free(dm->p, dm->bytes);
        free(dm);
    }
}

void model_drop_runs(struct model *m, size_t from)
{
    for (size_t i = from; i < m->nruns; i++)
        run_free(&m->runs[i]);
    if (from < m->nruns)
        m->nruns = from;
}

void model_move(struct model *dst, struct model *src)
{
    *dst = *src;
    memset(src, 0, sizeof *src);
    for (size_t i = 0; i < dst->nruns; i++)
        dst->runs[i].strs = &dst->strs;
}

void model_free(struct model *m)
{
    model_drop_runs(m, 0);
    big_free(m->runs, m->runs_cap * sizeof *m->runs);
    model_free_ids(m);
    strtab_free(&m->strs);
    memset(m, 0, sizeof *m);
}
