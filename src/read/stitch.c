/*
 * stitch.c -- a reader's parts into runs of the model.
 *
 * Each part (one reader thread's share of an input) has already put its
 * events into units, in segments split where the epoch restarts, and
 * evpart_link has said whether each part's first segment continues the
 * run before.  Here a segment that starts a run becomes that run (its
 * units are taken as they are, job numbers translated), and a continuing
 * one is joined to the run before: a unit met on both sides of the seam
 * takes the later part's events in line order, exactly as one reader
 * would have (the first of an event is kept, the rest are duplicates).
 * The runs are built through the model's primitives (build.h).
 */
#include "stitch.h"

#include "build.h"
#include "durations.h"
#include "mem.h"

#include <stdlib.h>
#include <string.h>

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
        if (run_job(r, jid, jl, p->jobs.hash[x->job], &job)) {
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

/* Add the lines of b (sorted, part-relative) to the issue list a. */
static void issues_add(struct run *r, int kind, const struct pline *b, int nb, uint64_t base)
{
    for (int i = 0; i < nb; i++)
        run_issue(r, kind, base + b[i].line + 1, b[i].detail);
}

/* A segment that starts a run: the run takes its units. */
static struct run *adopt(struct model *m, const char *source, const struct provenance *prov, int index,
                         struct evpart *p, struct seg *s, uint64_t base, uint32_t *jstamp,
                         uint32_t *jval)
{
    struct run *r = model_run_new(m, source, prov, index);
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
        const struct role *ro = &p->roles.list[d->role[e]];
        if (unit_set(a, e, b->t[e], ro->worker, ro->device)) {
            r->duplicates++;
            keep_first(dups, ndups, (struct pline){b->line + d->dline[e], e});
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
    /* Their pages moved behind the run's units (big_append), not copied:
     * a copy's destination is fresh memory, which on the 2-vCPU Intel VM
     * cost 80 ms on one thread for the second part's 28 MB of the 1 GB
     * dense log (docs/bench.md, twelfth session).  Moved by 4 KiB pages,
     * as mremap once did, the first scan of them cost 40-120 ms per 26 MB
     * on the AMD VM before it; big_append moves only huge pages, and
     * copies where it cannot. */
    size_t first = r->nunits, U = sizeof *r->units;
    if (m) {
        size_t cap = r->units_cap * U;
        struct unit *v = big_append(r->units, first * U, &cap, s->units, m * U, s->units_cap * U);
        if (!v)
            return -1;
        r->units = v;
        r->units_cap = cap / U;
        s->units = NULL; /* big_append took its pages, or freed it */
        s->units_cap = 0;
    }
    r->nunits = first + m;
    if (more)
        for (size_t k = first; k < r->nunits; k++) {
            size_t slot;
            const struct unit *u = &r->units[k];
            run_unit(r, u->job, u->partition, &slot); /* not there: its place */
            hindex_put(&r->uindex, slot, unit_hash(r->jobs[u->job].hash, u->partition), (uint32_t)k);
        }
    return 0;
}

static int join(struct run *r, struct evpart *p, struct seg *s, uint64_t base, int more)
{
    if (run_reserve(r, r->njobs + p->jobs.n, more ? r->nunits + s->nunits : 0))
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
            if (run_job(r, jid, jl, p->jobs.hash[pj], &job)) {
                free(jmap);
                free(dest);
                return -1;
            }
            jmap[pj] = job + 1;
        }
        size_t slot;
        /* most units are of jobs the run has not seen (only jobs that
         * straddle the parts' border are in both): no lookup for them */
        int64_t found = job >= njobs_before ? -1 : run_unit(r, job, b->partition, &slot);
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
    uint64_t *counted; /* the parts' counted lines (ev_durs), the model's line numbers, in order */
    size_t ncounted, counted_cap;
    size_t open_from; /* entries [open_from, n) wait for a record (dline's next_us): a later part's first */
    size_t room;      /* every part's entries' capacity, summed (dur_take) */
};

/* Part p's entries onto the input's: each made the model's (its name, its
 * line, the last record before it), in place, then its list taken over
 * (the first part's) or moved onto the end and freed, so that the
 * millions of them are never held twice. */
static int dur_take(struct model *m, struct dur_acc *a, struct evpart *p, uint64_t base)
{
    struct ev_durs *d = &p->durs;
    for (size_t i = 0; i < d->ncounted; i++) {
        if (grow_heap((void **)&a->counted, &a->counted_cap, a->ncounted, sizeof *a->counted, 16))
            return -1;
        a->counted[a->ncounted++] = d->counted[i] + base + 1; /* the line's field only: it is far below 2^62 */
    }
    uint32_t *ids = d->n ? calloc(p->extra.strs.n + 1, sizeof *ids) : NULL; /* the part's name + 1 -> the model's */
    if (d->n && !ids)
        return -1;
    for (size_t i = a->open_from; d->seen && i < a->n; i++) /* the record after the parts' before */
        a->v[i].next_us = dline_next(a->v[i].t_prev, a->v[i].wall, d->first_t, d->first_wall);
    for (size_t i = 0; i < d->n; i++) {
        struct dline *x = &d->list[i];
        if (!ids[x->key]) {
            size_t len;
            const char *k = strtab_get(&p->extra.strs, x->key, &len);
            uint32_t id;
            if (strtab_intern(&m->strs, k, len, &id)) {
                free(ids);
                return -1;
            }
            ids[x->key] = id + 1;
        }
        x->key = ids[x->key] - 1;
        x->line += base + 1;
        if (x->t_prev == T_NONE && a->seen) { /* the last record is in a part before; the next, this part's first */
            x->t_prev = a->last_t, x->wall = a->last_wall;
            if (d->seen)
                x->next_us = dline_next(x->t_prev, x->wall, d->first_t, d->first_wall);
        }
    }
    free(ids);
    if (d->seen)
        a->last_t = d->last_t, a->last_wall = d->last_wall, a->seen = 1;
    if (d->seen) /* the part's entries after its last record wait for a later part's */
        a->open_from = a->n + d->next_from;
    if (!d->n)
        return 0;
    if (!a->v && a->room <= d->cap) {
        a->v = d->list, a->n = d->n, a->cap = d->cap;
    } else {
        if (!a->v) { /* room for every part's, so that pages moved in never need a to grow (mem.h) */
            if (!(a->v = big_alloc_flat(a->room * sizeof *a->v)))
                return -1;
            a->cap = a->room;
        }
        size_t cap = a->cap * sizeof *a->v;
        struct dline *v = big_append_flat(a->v, a->n * sizeof *v, &cap, d->list, d->n * sizeof *v, d->cap * sizeof *v);
        if (!v)
            return -1;
        a->v = v, a->cap = cap / sizeof *v, a->n += d->n;
    }
    d->list = NULL;
    d->n = d->cap = d->made = 0;
    return 0;
}

/* Each run of the input [first, m->nruns) places the entries on its lines
 * and counts its lines with no entry (those before the first run's first
 * line go to it). */
static int dur_give(struct model *m, struct dur_acc *a, size_t first)
{
    if (first == m->nruns) {
        m->xorphans += a->n; /* no run: no unit to give them to */
        return 0;
    }
    for (size_t i = 0, k = first; i < a->ncounted; i++) {
        uint64_t line = EV_COUNTED_LINE(a->counted[i]);
        while (k + 1 < m->nruns && line >= m->runs[k + 1].first_line)
            k++;
        struct dur_use *d = &m->runs[k].dur;
        d->lines++;
        switch (a->counted[i] >> EV_COUNTED_SHIFT) {
        case EV_COUNTED_INFO:
            d->info++;
            break;
        case EV_COUNTED_NTT:
            d->ntt++;
            break;
        default:
            if (!d->bad++)
                d->bad_first = line;
        }
    }
    if (!a->n)
        return 0;
    /* the runs' phases are written over their entries: the array becomes
     * theirs, freed with the last of them */
    struct dur_mem *dm = malloc(sizeof *dm);
    if (!dm)
        return -1;
    *dm = (struct dur_mem){a->v, a->cap * sizeof *a->v, 1};
    a->v = NULL, a->cap = 0;
    struct dline *v = dm->p;
    size_t i = 0;
    int rc = 0;
    for (size_t k = first; k < m->nruns && rc == 0; k++) {
        size_t j = i;
        while (j < a->n && (k + 1 == m->nruns || v[j].line < m->runs[k + 1].first_line))
            j++;
        if (j > i && dur_place(&m->runs[k], &m->strs, v + i, j - i, dm))
            rc = -1;
        i = j;
    }
    dur_mem_release(dm);
    return rc;
}

int stitch_add(struct model *m, const char *source, const struct provenance *prov, struct evpart *parts,
               int nparts, uint64_t lost_events)
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
    for (int pi = 0; pi < nparts; pi++)
        durs.room += parts[pi].durs.cap;
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
            r = adopt(m, source, prov, ++run_index, p, s, base, jstamp, jval);
            if (!r) {
                rc = -1;
                break;
            }
            segrun[si] = (size_t)(r - m->runs) + 1;
            r->lost_events = lost_events;
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
                    run_issue(r, ISSUE_SKIPPED, keep[i].line, keep[i].detail);
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
    big_free(durs.v, durs.cap * sizeof *durs.v);
    free(durs.counted);
    for (size_t i = first; i < m->nruns; i++)
        if (run_finish(&m->runs[i]))
            rc = -1;
    return rc;
}