/*
 * builder.c -- runs built one event at a time (build.h's mb_*): the
 * neutral way in, for any reader that does not build its own segments.
 */
#include "build.h"

#include "mem.h"

#include <stdlib.h>
#include <string.h>

void mb_init(struct mbuild *b, struct model *m, const char *source, const struct provenance *prov)
{
    memset(b, 0, sizeof *b);
    b->m = m;
    b->source = source;
    b->prov = *prov;
    b->first = m->nruns;
}

struct run *mb_run(struct mbuild *b)
{
    if (!b->cur || b->broken) {
        if (!model_run_new(b->m, b->source, &b->prov, ++b->index))
            return NULL;
        b->cur = b->m->nruns;
        b->broken = 0;
    }
    return &b->m->runs[b->cur - 1];
}

void mb_break(struct mbuild *b)
{
    b->broken = b->cur != 0;
}

/* The run's job of this id, its bytes kept by the model when it is new. */
static int job_of(struct mbuild *b, struct run *r, const char *id, size_t len, uint32_t *job)
{
    size_t before = r->njobs;
    if (run_job(r, id, len, hash_bytes(id, len, 0), job))
        return -1;
    if (r->njobs > before && !(r->jobs[*job].id = model_keep_id(b->m, id, len)))
        return -1;
    return 0;
}

/* A position joins the run's range of lines. */
static void note_line(struct run *r, uint64_t line)
{
    if (!r->events || line < r->first_line)
        r->first_line = line;
    if (!r->events || line > r->last_line)
        r->last_line = line;
    r->events++;
}

int mb_event(struct mbuild *b, int64_t t, const char *id, size_t len, int32_t partition, int ev,
             int32_t worker, int32_t device, uint64_t line, uint32_t flags)
{
    struct run *r = mb_run(b);
    uint32_t job;
    if (!r || ev < 0 || ev >= EV_N || job_of(b, r, id, len, &job) ||
        run_reserve(r, 0, r->nunits + 1))
        return -1;
    size_t slot;
    int64_t u = run_unit(r, job, partition, &slot);
    if (u < 0) {
        if (r->nunits >= UINT32_MAX - 1 ||
            grow_array((void **)&r->units, &r->units_cap, r->nunits + 1, sizeof *r->units))
            return -1;
        struct unit *n = &r->units[r->nunits];
        for (int e = 0; e < EV_N; e++)
            n->t[e] = T_NONE;
        n->job = job, n->partition = partition, n->worker = -1, n->device = 0;
        n->line = line, n->flags = 0;
        hindex_put(&r->uindex, slot, unit_hash(r->jobs[job].hash, partition), (uint32_t)r->nunits);
        r->jobs[job].units++;
        u = (int64_t)r->nunits++;
    }
    note_line(r, line);
    struct unit *x = &r->units[u];
    x->flags |= flags & U_QUEUE;
    if (unit_set(x, ev, t, worker, device)) {
        r->duplicates++;
        run_issue(r, ISSUE_DUPLICATE, line, ev);
    }
    return 0;
}

int mb_unit(struct mbuild *b, const char *id, size_t len, int32_t partition, const int64_t t[EV_N],
            int32_t worker, int32_t device, uint64_t line, uint32_t flags)
{
    int any = 0;
    for (int e = 0; e < EV_N; e++)
        any |= t[e] != T_NONE;
    if (!any) /* no event: mb_event would have made no unit */
        return 0;
    struct run *r = mb_run(b);
    if (!r || r->nunits >= UINT32_MAX - 1 || r->njobs >= UINT32_MAX - 1 ||
        grow_array((void **)&r->jobs, &r->jobs_cap, r->njobs + 1, sizeof *r->jobs) ||
        grow_array((void **)&r->units, &r->units_cap, r->nunits + 1, sizeof *r->units))
        return -1;
    const char *kept = model_keep_id(b->m, id, len);
    if (!kept)
        return -1;
    /* an index would now miss this job and unit: hindex_reserve makes it
     * again from all of them when one is next wanted */
    hindex_free(&r->jindex);
    hindex_free(&r->uindex);
    uint32_t job = (uint32_t)r->njobs++;
    r->jobs[job] = (struct job){kept, (uint32_t)len, 1, hash_bytes(id, len, 0)};
    struct unit *u = &r->units[r->nunits++];
    for (int e = 0; e < EV_N; e++)
        u->t[e] = T_NONE;
    u->job = job, u->partition = partition, u->worker = -1, u->device = 0;
    u->line = line, u->flags = flags & U_QUEUE;
    for (int e = 0; e < EV_N; e++)
        if (t[e] != T_NONE) {
            unit_set(u, e, t[e], worker, device);
            note_line(r, line);
        }
    return 0;
}

/* An item for run_finish to attach: another event, or a detail. */
static int extra(struct mbuild *b, int is_event, int64_t t, const char *id, size_t len,
                 int32_t partition, const char *k, size_t kn, const char *v, size_t vn, uint64_t line)
{
    struct run *r = mb_run(b);
    uint32_t job, key, val = 0;
    if (!r || job_of(b, r, id, len, &job) ||
        (is_event ? strtab_intern_upper(&b->m->strs, k, kn, &key)
                  : strtab_intern(&b->m->strs, k, kn, &key) || strtab_intern(&b->m->strs, v, vn, &val)))
        return -1;
    struct xitem it = {is_event ? t : 0, line, 0, key, val, job, partition};
    if (is_event) {
        if (grow_heap((void **)&r->xev, &r->xev_cap, r->nxev, sizeof *r->xev, 64))
            return -1;
        r->xev[r->nxev++] = it;
        note_line(r, line);
    } else {
        if (grow_heap((void **)&r->xattr, &r->xattr_cap, r->nxattr, sizeof *r->xattr, 64))
            return -1;
        r->xattr[r->nxattr++] = it;
    }
    return 0;
}

int mb_other(struct mbuild *b, int64_t t, const char *job, size_t job_len, int32_t partition,
             const char *name, size_t name_len, uint64_t line)
{
    return extra(b, 1, t, job, job_len, partition, name, name_len, NULL, 0, line);
}

int mb_detail(struct mbuild *b, const char *job, size_t job_len, int32_t partition, const char *key,
              size_t key_len, const char *val, size_t val_len, uint64_t line)
{
    return extra(b, 0, 0, job, job_len, partition, key, key_len, val, val_len, line);
}

int mb_skip(struct mbuild *b, uint64_t line, int why)
{
    struct run *r = mb_run(b);
    if (!r)
        return -1;
    b->m->skipped_by[why & 7]++;
    r->skipped_lines++;
    run_issue(r, ISSUE_SKIPPED, line, why);
    return 0;
}

/* A run of other events and details only (no unit) is no run: they
 * count as having no unit, as a text log's before its first event do. */
static void drop_unitless(struct mbuild *b)
{
    struct model *m = b->m;
    size_t k = b->first;
    for (size_t i = b->first; i < m->nruns; i++) {
        struct run *r = &m->runs[i];
        if (r->nunits) {
            r->index = (int)(k - b->first) + 1;
            m->runs[k++] = *r;
            continue;
        }
        m->xorphans += r->nxev + r->nxattr;
        run_free(r);
    }
    m->nruns = k;
}

/* Jobs numbered by their first unit, as a reader that builds its units
 * first numbers them (here a job first named by a phase or a detail would
 * come earlier); jobs of no unit after them (run_finish drops them). */
static int jobs_by_first_unit(struct run *r)
{
    uint32_t *map = malloc((r->njobs ? r->njobs : 1) * sizeof *map);
    struct job *tmp = malloc((r->njobs ? r->njobs : 1) * sizeof *tmp);
    if (!map || !tmp) {
        free(map);
        free(tmp);
        return -1;
    }
    memset(map, 0xff, r->njobs * sizeof *map);
    uint32_t n = 0;
    for (size_t i = 0; i < r->nunits; i++)
        if (map[r->units[i].job] == UINT32_MAX)
            map[r->units[i].job] = n++;
    for (size_t j = 0; j < r->njobs; j++) {
        if (map[j] == UINT32_MAX)
            map[j] = n++;
        tmp[map[j]] = r->jobs[j];
    }
    memcpy(r->jobs, tmp, r->njobs * sizeof *tmp);
    run_remap_jobs(r, map);
    free(map);
    free(tmp);
    hindex_free(&r->jindex); /* by the old numbers; run_finish rebuilds what it needs */
    return 0;
}

int mb_finish(struct mbuild *b)
{
    drop_unitless(b);
    int rc = 0;
    for (size_t i = b->first; i < b->m->nruns; i++)
        if (jobs_by_first_unit(&b->m->runs[i]) || run_finish(&b->m->runs[i]))
            rc = -1;
    return rc;
}
