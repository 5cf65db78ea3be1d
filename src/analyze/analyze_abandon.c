/*
 * analyze_abandon.c -- units that never finish a stage (docs/json.md,
 * "Units that never finish a stage").
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

/* The last event present at or after e, or -1. */
static int last_from(const struct unit *u, int e)
{
    int last = -1;
    for (; e < EV_N; e++)
        if (unit_has(u, e))
            last = e;
    return last;
}

int unit_open_state(const struct unit *u, int64_t *from)
{
    if (!unit_consistent(u) || last_from(u, EV_GPU_START) >= 0)
        return -1; /* started on the GPU: busy, or in flight on it */
    if (unit_has(u, EV_GPU_PICKUP)) {
        *from = u->t[EV_GPU_PICKUP];
        return CAUSE_PREP;
    }
    if (unit_has(u, EV_CHAN_SEND) || unit_has(u, EV_SYNTH_END)) {
        *from = unit_has(u, EV_CHAN_SEND) ? u->t[EV_CHAN_SEND] : u->t[EV_SYNTH_END];
        return CAUSE_QUEUE;
    }
    if (unit_has(u, EV_SYNTH_START)) {
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

/* Add (at, len) to a stair being built, unsorted (stair_sort sorts it). */
static int stair_push(struct stair *s, int64_t at, int64_t len)
{
    if (grow_heap((void **)&s->p, &s->cap, s->n, sizeof *s->p, 64))
        return -1;
    s->p[s->n++] = (struct span){at, len};
    return 0;
}

/* The completions pushed, sorted by time, then only the points where the
 * longest so far grows. */
static int stair_sort(struct scratch_pool *sp, struct stair *s)
{
    if (sort_spans(sp, s->p, s->n))
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

/* The stairs of the stages that bound the open states, asked only at
 * instants from the earliest open state of each on (min_from[c], for the
 * states c with nopen[c] units; no stair for the others).  A stair there
 * depends on the completions before min_from[c] only through the longest
 * of them, so those become one point at min_from[c], and only the later
 * ones are kept and sorted.  In a log cut while it ran, its open units
 * are near its end, and the stairs hold a few points, not one per unit
 * (three arrays of 16 bytes a unit, fresh memory, and their sorts: most
 * of analyze_run_opts's own time on a 1 GB log). */
static int stairs_build(struct scratch_pool *sp, const struct run *r, const size_t nopen[CAUSE_N],
                        const int64_t min_from[CAUSE_N], struct stair stairs[CAUSE_N])
{
    int64_t before[CAUSE_N];       /* the longest completed at or before min_from, */
    int has_before[CAUSE_N] = {0}; /* if any */
    for (size_t i = 0; i < r->nunits; i++)
        for (int c = 0; c < CAUSE_NO_WORK; c++) {
            int64_t at, len;
            if (!nopen[c] || !unit_stage_done(&r->units[i], open_stage(c), &at, &len))
                continue;
            if (at > min_from[c]) {
                if (stair_push(&stairs[c], at, len))
                    return -1;
            } else if (!has_before[c] || len > before[c]) {
                before[c] = len;
                has_before[c] = 1;
            }
        }
    for (int c = 0; c < CAUSE_NO_WORK; c++)
        if ((has_before[c] && stair_push(&stairs[c], min_from[c], before[c])) || stair_sort(sp, &stairs[c]))
            return -1;
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
    if (unit_has(u, EV_GPU_PICKUP))
        m[k++] = (struct worker_move){u->device, u->worker, u->t[EV_GPU_PICKUP]};
    if (unit_has(u, EV_GPU_START))
        m[k++] = (struct worker_move){u->device, u->worker, u->t[EV_GPU_START]};
    return k;
}

void worker_moves_sort(struct worker_move *m, size_t n)
{
    if (n > 1)
        qsort(m, n, sizeof *m, cmp_move);
}

/* The pickups and starts of units naming their worker, after `after`
 * (the earliest unit left in prep: worker_move_next is asked of no
 * earlier instant), sorted by device, worker and time. */
static int moves_build(const struct run *r, int64_t after, struct worker_move **out, size_t *n)
{
    struct worker_move *m = NULL;
    size_t k = 0, cap = 0;
    for (size_t i = 0; i < r->nunits; i++) {
        struct worker_move two[2];
        size_t got = worker_moves_of(&r->units[i], two);
        for (size_t j = 0; j < got; j++) {
            if (two[j].t <= after)
                continue;
            if (grow_heap((void **)&m, &cap, k, sizeof *m, 64)) {
                free(m);
                return -1;
            }
            m[k++] = two[j];
        }
    }
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

/* The units left in a state, in unit order, into ab->a, each with its
 * state's start (in .end for now); how many are in each state, and the
 * earliest start of each. */
static int open_units(const struct run *r, struct abandon_set *ab, size_t nopen[CAUSE_N], int64_t min_from[CAUSE_N])
{
    size_t cap = 0;
    for (int c = 0; c < CAUSE_N; c++) {
        nopen[c] = 0;
        min_from[c] = OPEN;
    }
    for (size_t i = 0; i < r->nunits; i++) {
        int64_t from;
        int st = unit_open_state(&r->units[i], &from);
        if (st < 0)
            continue;
        if (grow_heap((void **)&ab->a, &cap, ab->n, sizeof *ab->a, 16))
            return -1;
        ab->a[ab->n++] = (struct abandoned){(uint32_t)i, st, from};
        if (!nopen[st]++ || from < min_from[st])
            min_from[st] = from;
    }
    return 0;
}

int abandon_find(struct scratch_pool *sp, const struct run *r, int64_t last_end, struct abandon_set *ab)
{
    memset(ab, 0, sizeof *ab);
    size_t nopen[CAUSE_N];
    int64_t min_from[CAUSE_N];
    struct stair stairs[CAUSE_N] = {{0}};
    struct worker_move *moves = NULL;
    size_t nmoves = 0;
    int rc = -1;
    if (open_units(r, ab, nopen, min_from))
        goto out;
    if (!ab->n) {
        rc = 0;
        goto out;
    }
    if (stairs_build(sp, r, nopen, min_from, stairs) ||
        (nopen[CAUSE_PREP] && moves_build(r, min_from[CAUSE_PREP], &moves, &nmoves)))
        goto out;
    for (size_t k = 0; k < ab->n; k++) {
        struct abandoned *a = &ab->a[k];
        const struct unit *u = &r->units[a->unit];
        int st = a->state;
        int64_t from = a->end;
        int64_t next = st == CAUSE_PREP && u->worker >= 0 ? worker_move_next(moves, nmoves, u->device, u->worker, from)
                                                          : OPEN;
        a->end = abandon_end(st, from, &stairs[st], next);
        /* abandoned: the run went on without it (a unit still in its
         * stage when the last GPU_END came is only in flight) */
        if (a->end < last_end) {
            if (!ab->count)
                ab->first = a->unit;
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
