/*
 * model.c -- from events to runs of units.
 *
 * Events are taken in input order.  A new run starts where the epoch
 * restarts: an event at least 1 s before the run's latest time and in its
 * first half, or at least 50 ms before it and in its first tenth (threads
 * printing out of order by a few milliseconds do not split a run; a
 * daemon starting again near zero does).
 *
 * Each part interned its own unit keys, so a per-part table maps a key to
 * its unit in the current run; on a miss the run's own (job, partition)
 * index is consulted, which joins the halves of a unit read by two threads.
 */
#include "model.h"

#include "mem.h"

#include <stdlib.h>
#include <string.h>

#define RESTART_MIN_NS 50000000    /* 50 ms */
#define RESTART_BIG_NS 1000000000LL /* 1 s */

int model_is_restart(int64_t t, int64_t run_max)
{
    int64_t drop = run_max - t;
    /* A big step back to the first half of the run, or a small one that
     * lands near zero.  A line printed a few tens of milliseconds late
     * early in a log is neither. */
    return (drop >= RESTART_BIG_NS && t < run_max / 2) ||
           (drop >= RESTART_MIN_NS && t < run_max / 10);
}

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

/* Open-addressing index of value+1 (0 empty) with a hash tag on top. */
/* Make room for one more than n entries, or for want entries (presizing);
 * the n existing entries are reinserted. */
static int index_grow(uint64_t **idx, size_t *mask, size_t n, size_t want,
                      uint64_t (*hash_of)(void *, size_t), void *ctx)
{
    if (want < n + 1)
        want = n + 1;
    if (*idx && want * 2 <= *mask + 1)
        return 0;
    size_t size = *idx ? (*mask + 1) * 2 : 1024;
    while (size < want * 2)
        size *= 2;
    uint64_t *ni = big_alloc(size * sizeof *ni);
    if (!ni)
        return -1;
    for (size_t v = 0; v < n; v++) {
        uint64_t h = hash_of(ctx, v);
        size_t i = h & (size - 1);
        while (ni[i])
            i = (i + 1) & (size - 1);
        ni[i] = (h & 0xffffffff00000000ull) | (v + 1);
    }
    if (*idx)
        big_free(*idx, (*mask + 1) * sizeof **idx);
    *idx = ni;
    *mask = size - 1;
    return 0;
}

static uint64_t job_hash_of(void *ctx, size_t v)
{
    struct run *r = ctx;
    return r->jobs[v].hash;
}

static uint64_t unit_key_hash(uint32_t job, int32_t partition)
{
    return mix((uint64_t)job << 32 ^ (uint32_t)partition ^ 0x5bd1e995u);
}

static uint64_t unit_hash_of(void *ctx, size_t v)
{
    struct run *r = ctx;
    return unit_key_hash(r->units[v].job, r->units[v].partition);
}

/* h: the job id's hash from its part (the same function in every part). */
static int job_find(struct run *r, const char *id, size_t len, uint64_t h, uint32_t *out)
{
    if (index_grow(&r->jindex, &r->jindex_mask, r->njobs, 0, job_hash_of, r))
        return -1;
    size_t i = h & r->jindex_mask;
    while (r->jindex[i]) {
        uint64_t e = r->jindex[i];
        uint32_t v = (uint32_t)e - 1;
        if ((e >> 32) == (h >> 32) && r->jobs[v].len == len && memcmp(r->jobs[v].id, id, len) == 0) {
            *out = v;
            return 0;
        }
        i = (i + 1) & r->jindex_mask;
    }
    if (grow_array((void **)&r->jobs, &r->jobs_cap, r->njobs + 1, sizeof *r->jobs))
        return -1;
    r->jobs[r->njobs] = (struct job){id, (uint32_t)len, 0, h};
    r->jindex[i] = (h & 0xffffffff00000000ull) | (r->njobs + 1);
    *out = (uint32_t)r->njobs++;
    return 0;
}

static int unit_find(struct run *r, uint32_t job, int32_t partition, uint64_t line, uint32_t *out)
{
    if (index_grow(&r->uindex, &r->uindex_mask, r->nunits, 0, unit_hash_of, r))
        return -1;
    uint64_t h = unit_key_hash(job, partition);
    size_t i = h & r->uindex_mask;
    while (r->uindex[i]) {
        uint64_t e = r->uindex[i];
        uint32_t v = (uint32_t)e - 1;
        if ((e >> 32) == (h >> 32) && r->units[v].job == job && r->units[v].partition == partition) {
            *out = v;
            return 0;
        }
        i = (i + 1) & r->uindex_mask;
    }
    if (r->nunits >= UINT32_MAX - 1 ||
        grow_array((void **)&r->units, &r->units_cap, r->nunits + 1, sizeof *r->units))
        return -1;
    struct unit *u = &r->units[r->nunits];
    for (int e = 0; e < EV_N; e++)
        u->t[e] = T_NONE;
    u->job = job;
    u->partition = partition;
    u->worker = -1;
    u->device = 0;
    u->line = line;
    u->flags = 0;
    r->jobs[job].units++;
    r->uindex[i] = (h & 0xffffffff00000000ull) | (r->nunits + 1);
    *out = (uint32_t)r->nunits++;
    return 0;
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

static void index_free(uint64_t **idx, size_t mask)
{
    if (*idx)
        big_free(*idx, (mask + 1) * sizeof **idx);
    *idx = NULL;
}

static void run_finish(struct run *r)
{
    check_order(r);
    index_free(&r->uindex, r->uindex_mask);
    index_free(&r->jindex, r->jindex_mask);
}

/* The first run of an input usually holds all its units: size it once. */
static int presize(struct run *r, size_t units)
{
    if (units < 1024)
        return 0;
    if (grow_array((void **)&r->units, &r->units_cap, units, sizeof *r->units))
        return -1;
    return index_grow(&r->uindex, &r->uindex_mask, r->nunits, units, unit_hash_of, r);
}

struct keymap {
    uint32_t run; /* model run index + 1; 0: none */
    uint32_t unit;
};

int model_add(struct model *m, const char *source, struct evpart *parts, int nparts,
              int native, uint64_t lost_events)
{
    struct run *r = NULL;
    int run_index = 0;
    int64_t run_max = 0;
    uint64_t line_base = 0, pending_skips = 0;
    int rc = 0;
    size_t total_keys = 0;
    for (int pi = 0; pi < nparts; pi++)
        total_keys += parts[pi].nkeys;
    for (int pi = 0; pi < nparts && rc == 0; pi++) {
        struct evpart *p = &parts[pi];
        for (int e = 0; e < 8; e++)
            m->skipped_by[e] += p->skipped_by[e];
        m->timeline_lines += p->timeline_lines;
        m->bytes += p->bytes;
        struct keymap *km = calloc(p->nkeys ? p->nkeys : 1, sizeof *km);
        if (!km)
            return -1;
        size_t mark = 0;
        for (uint64_t n = 0; n < p->nev; n++) {
            /* Skipped lines that came before this event. */
            while (mark < p->nskip_marks && p->skip_at[mark] <= n)
                pending_skips += p->skip_count[mark++];
            const struct evblock *b = p->blocks[n >> EVB_SHIFT];
            size_t k = n & (EVB_SIZE - 1);
            int64_t t = b->t_ns[k];
            uint64_t line = line_base + b->line[k] + 1;
            /* Skipped lines before this event belong to the run they
             * follow, not to one this event may start. */
            if (pending_skips && r) {
                r->skipped_lines += pending_skips;
                pending_skips = 0;
            }
            if (!r || (!native && model_is_restart(t, run_max))) {
                if (r)
                    run_finish(r);
                r = run_new(m, source, native, ++run_index);
                if (!r) {
                    rc = -1;
                    break;
                }
                r->first_line = line;
                r->lost_events = native ? lost_events : 0;
                run_max = t;
                if (run_index == 1 && presize(r, total_keys)) {
                    rc = -1;
                    break;
                }
            }
            if (pending_skips) {
                r->skipped_lines += pending_skips;
                pending_skips = 0;
            }
            if (t > run_max)
                run_max = t;
            uint32_t key = b->ukey[k];
            uint32_t ev = b->evw[k] & 7, role = b->evw[k] >> 3;
            uint32_t ui;
            uint32_t run_id = (uint32_t)(r - m->runs) + 1;
            if (km[key].run == run_id) {
                ui = km[key].unit;
            } else {
                size_t jl;
                uint32_t pj = p->keys[key].job;
                const char *jid = evpart_job(p, pj, &jl);
                uint32_t job;
                if (job_find(r, jid, jl, p->job_hash[pj], &job) ||
                    unit_find(r, job, p->keys[key].partition, line, &ui)) {
                    rc = -1;
                    break;
                }
                km[key].run = run_id;
                km[key].unit = ui;
            }
            struct unit *u = &r->units[ui];
            r->events++;
            r->last_line = line;
            if (u->t[ev] != T_NONE) {
                u->flags |= U_DUP;
                r->duplicates++;
                issue(r, ISSUE_DUPLICATE, line, (int)ev);
                continue;
            }
            u->t[ev] = t;
            const struct role *ro = &p->roles[role];
            if (ro->worker >= 0 && u->worker < 0)
                u->worker = ro->worker;
            if (ro->device >= 0)
                u->device = ro->device;
        }
        while (mark < p->nskip_marks)
            pending_skips += p->skip_count[mark++];
        /* The first skipped lines, with their global numbers. */
        for (int i = 0; i < p->nskip_first; i++) {
            struct run *tr = r ? r : NULL;
            if (!tr)
                break;
            /* attribute the report to the run the line falls in */
            for (size_t ri = m->nruns; ri-- > 0;) {
                struct run *cand = &m->runs[ri];
                if (cand->source != source)
                    break;
                tr = cand;
                if (cand->first_line <= line_base + p->skip_first[i].line + 1)
                    break;
            }
            issue(tr, ISSUE_SKIPPED, line_base + p->skip_first[i].line + 1, p->skip_first[i].err);
        }
        line_base += p->lines;
        free(km);
        evpart_drop_events(p); /* done with them: keep the peak down */
    }
    if (r) {
        r->skipped_lines += pending_skips;
        run_finish(r);
    }
    return rc;
}

void model_free(struct model *m)
{
    for (size_t i = 0; i < m->nruns; i++) {
        struct run *r = &m->runs[i];
        big_free(r->units, r->units_cap * sizeof *r->units);
        big_free(r->jobs, r->jobs_cap * sizeof *r->jobs);
        index_free(&r->uindex, r->uindex_mask);
        index_free(&r->jindex, r->jindex_mask);
    }
    big_free(m->runs, m->runs_cap * sizeof *m->runs);
    memset(m, 0, sizeof *m);
}
