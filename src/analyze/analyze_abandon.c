/*
 * analyze_abandon.c -- units that never finish a stage (DESIGN.md, "Units
 * that never finish a stage").
 *
 * A unit with nothing after its last event is in a state until the log
 * ends: picked up and never started (cuzk skips the GPU proving of a
 * failed job's partitions), in synthesis and never ended (the synthesis
 * failed), or ready and never picked up.  Held to the log's end, one such
 * unit gave its cause to every idle instant after it: a synthesis-bound
 * log read "prep 67%", bottleneck dispatch.  So each one stops holding its
 * cause at a bounded point:
 *
 *   - every such state stops once it has lasted as long as the longest of
 *     its stage completed by then (synthesis: SYNTH_END - SYNTH_START;
 *     queue: GPU_PICKUP - ready; prep: GPU_START - GPU_PICKUP; "by then":
 *     completed at or before that instant): the first T at or after its
 *     start `from` with T - from >= M(T), M(T) the longest completed at or
 *     before T.  It is never longer than the run's longest completed stage,
 *     and it is decided by what happened up to T, so that `watch` decides
 *     it as soon as its horizon passes T, as analyze does at the end;
 *   - a prep also stops at its worker's next pickup or start (the same
 *     worker= on the same device): the worker has moved on.
 *
 * The stage tables count completed stages only (unit_stage needs both
 * ends), so an abandoned span is never a stage time.
 */
#include "analyze.h"

#include "mem.h"
#include "sort.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int has(const struct unit *u, int e)
{
    return u->t[e] != T_NONE;
}

/* The last event present at or after e, or -1. */
static int last_from(const struct unit *u, int e)
{
    int last = -1;
    for (; e < EV_N; e++)
        if (has(u, e))
            last = e;
    return last;
}

int unit_open_state(const struct unit *u, int64_t *from)
{
    if (!unit_consistent(u) || last_from(u, EV_GPU_START) >= 0)
        return -1; /* started on the GPU: busy, or in flight on it */
    if (has(u, EV_GPU_PICKUP)) {
        *from = u->t[EV_GPU_PICKUP];
        return CAUSE_PREP;
    }
    if (has(u, EV_CHAN_SEND) || has(u, EV_SYNTH_END)) {
        *from = has(u, EV_CHAN_SEND) ? u->t[EV_CHAN_SEND] : u->t[EV_SYNTH_END];
        return CAUSE_QUEUE;
    }
    if (has(u, EV_SYNTH_START)) {
        *from = u->t[EV_SYNTH_START];
        return CAUSE_SYNTHESIS;
    }
    return -1;
}

int open_stage(int state)
{
    return state == CAUSE_PREP ? ST_PREP : state == CAUSE_QUEUE ? ST_QUEUE
                                                                : ST_SYNTHESIS;
}

int unit_stage_done(const struct unit *u, int stage, int64_t *at, int64_t *len)
{
    static const int end_ev[ST_N] = {EV_SYNTH_END, EV_CHAN_SEND, EV_GPU_PICKUP, EV_GPU_START, EV_GPU_END};
    if (!unit_stage(u, stage, len))
        return 0;
    *at = u->t[end_ev[stage]];
    return 1;
}

/* ---- the longest stage completed by each instant ---- */

/* How many points complete at or before t. */
static size_t stair_le(const struct stair *s, int64_t t)
{
    size_t h = 0;
    return s->n ? count_le_near((const char *)s->p + offsetof(struct span, start), sizeof *s->p, s->n, t, &h) : 0;
}

static int64_t longest_by(const struct stair *s, int64_t t)
{
    size_t k = stair_le(s, t);
    return k ? s->p[k - 1].end : 0;
}

int64_t stair_end(const struct stair *s, int64_t from)
{
    /* M only grows, and each round moves to a longer M: the rounds are at
     * most the steps of the stair between from and the answer */
    int64_t m = longest_by(s, from);
    for (;;) {
        int64_t t = from > 0 && m > OPEN - from ? OPEN : from + m; /* saturating: from may be negative */
        int64_t m2 = longest_by(s, t);
        if (m2 <= m)
            return t;
        m = m2;
    }
}

int stair_add(struct stair *s, int64_t at, int64_t len)
{
    size_t k = stair_le(s, at);
    if (k && s->p[k - 1].end >= len)
        return 0; /* as long a stage completed by then: nothing changes */
    /* the points after it that it outgrows go */
    size_t j = k;
    while (j < s->n && s->p[j].end <= len)
        j++;
    if (j == k) {
        if (grow_heap((void **)&s->p, &s->cap, s->n, sizeof *s->p, 16))
            return -1;
        memmove(s->p + k + 1, s->p + k, (s->n - k) * sizeof *s->p);
        s->n++;
    } else if (j > k + 1) {
        memmove(s->p + k + 1, s->p + j, (s->n - j) * sizeof *s->p);
        s->n -= j - k - 1;
    }
    s->p[k] = (struct span){at, len};
    return 0;
}

void stair_free(struct stair *s)
{
    free(s->p);
    memset(s, 0, sizeof *s);
}

/* The stair of one stage over the run's consistent units: their
 * completions sorted by time, then only the points where the longest so
 * far grows. */
static int stair_build(const struct run *r, int stage, struct stair *s)
{
    memset(s, 0, sizeof *s);
    s->p = malloc((r->nunits ? r->nunits : 1) * sizeof *s->p);
    if (!s->p)
        return -1;
    for (size_t i = 0; i < r->nunits; i++) {
        int64_t at, len;
        if (unit_stage_done(&r->units[i], stage, &at, &len))
            s->p[s->n++] = (struct span){at, len};
    }
    if (sort_spans(s->p, s->n))
        return -1;
    size_t o = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (o && s->p[o - 1].start == s->p[i].start && s->p[o - 1].end < s->p[i].end)
            o--; /* the same instant: the longer one */
        if (!o || s->p[i].end > s->p[o - 1].end)
            s->p[o++] = s->p[i];
    }
    s->n = o;
    return 0;
}

/* ---- the run's abandoned units ---- */

static int cmp_move(const void *a, const void *b)
{
    const struct worker_move *x = a, *y = b;
    if (x->device != y->device)
        return (x->device > y->device) - (x->device < y->device);
    if (x->worker != y->worker)
        return (x->worker > y->worker) - (x->worker < y->worker);
    return (x->t > y->t) - (x->t < y->t);
}

size_t worker_moves_of(const struct unit *u, struct worker_move *m)
{
    size_t k = 0;
    if (!unit_consistent(u) || u->worker < 0)
        return 0;
    if (has(u, EV_GPU_PICKUP))
        m[k++] = (struct worker_move){u->device, u->worker, u->t[EV_GPU_PICKUP]};
    if (has(u, EV_GPU_START))
        m[k++] = (struct worker_move){u->device, u->worker, u->t[EV_GPU_START]};
    return k;
}

void worker_moves_sort(struct worker_move *m, size_t n)
{
    if (n > 1)
        qsort(m, n, sizeof *m, cmp_move);
}

/* Every pickup and start of a unit naming its worker, sorted by device,
 * worker and time (only built when some unit was left in prep). */
static int moves_build(const struct run *r, struct worker_move **out, size_t *n)
{
    struct worker_move *m = malloc((2 * r->nunits + 1) * sizeof *m);
    if (!m)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < r->nunits; i++)
        k += worker_moves_of(&r->units[i], m + k);
    worker_moves_sort(m, k);
    *out = m;
    *n = k;
    return 0;
}

int64_t worker_move_next(const struct worker_move *m, size_t n, int32_t device, int32_t worker, int64_t t)
{
    struct worker_move key = {device, worker, t};
    size_t lo = 0, hi = n;
    while (lo < hi) { /* the first move past (device, worker, t) */
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_move(&m[mid], &key) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && m[lo].device == device && m[lo].worker == worker ? m[lo].t : OPEN;
}

int64_t abandon_end(int state, int64_t from, const struct stair *st, int64_t worker_next)
{
    int64_t e = stair_end(st, from);
    if (state == CAUSE_PREP && worker_next < e)
        e = worker_next;
    return e;
}

int abandon_find(const struct run *r, int64_t last_end, struct abandon_set *ab)
{
    memset(ab, 0, sizeof *ab);
    size_t n = 0, nprep = 0;
    for (size_t i = 0; i < r->nunits; i++) {
        int64_t from;
        int st = unit_open_state(&r->units[i], &from);
        n += st >= 0;
        nprep += st == CAUSE_PREP;
    }
    if (!n)
        return 0;
    struct stair stairs[CAUSE_N] = {{0}};
    struct worker_move *moves = NULL;
    size_t nmoves = 0;
    int rc = -1;
    ab->a = malloc(n * sizeof *ab->a);
    if (!ab->a)
        goto out;
    for (int c = 0; c < CAUSE_NO_WORK; c++)
        if (stair_build(r, open_stage(c), &stairs[c]))
            goto out;
    if (nprep && moves_build(r, &moves, &nmoves))
        goto out;
    for (size_t i = 0; i < r->nunits; i++) {
        const struct unit *u = &r->units[i];
        int64_t from;
        int st = unit_open_state(u, &from);
        if (st < 0)
            continue;
        int64_t next = st == CAUSE_PREP && u->worker >= 0 ? worker_move_next(moves, nmoves, u->device, u->worker, from)
                                                          : OPEN;
        int64_t e = abandon_end(st, from, &stairs[st], next);
        ab->a[ab->n++] = (struct abandoned){(uint32_t)i, st, e};
        /* abandoned: the run went on without it (a unit still in its
         * stage when the last GPU_END came is only in flight) */
        if (e < last_end) {
            if (!ab->count)
                ab->first = (uint32_t)i;
            ab->count++;
            ab->by_state[st]++;
        }
    }
    rc = 0;
out:
    for (int c = 0; c < CAUSE_N; c++)
        stair_free(&stairs[c]);
    free(moves);
    return rc;
}

int abandon_cut(const struct abandon_set *ab, uint32_t unit, struct span *s)
{
    if (s->end == OPEN && ab && ab->n) {
        size_t lo = 0, hi = ab->n; /* in unit order */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (ab->a[mid].unit < unit)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < ab->n && ab->a[lo].unit == unit)
            s->end = ab->a[lo].end;
    }
    return s->end > s->start;
}

void abandon_free(struct abandon_set *ab)
{
    free(ab->a);
    memset(ab, 0, sizeof *ab);
}
