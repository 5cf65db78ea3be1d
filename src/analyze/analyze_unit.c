/*
 * analyze_unit.c -- the definitions, one unit at a time: the span a unit
 * holds each idle cause for, its synthesis, its time in each stage, and a
 * stage's statistics (stages_of).  The analysis (analyze.c, analyze_phase.c,
 * analyze_abandon.c) and watch (src/live/) all count with these, so that
 * every instant is counted alike; they call nothing back.
 */
#include "analyze.h"

#include "mem.h"
#include "sort.h"

#include <string.h>

/* The first present event at or after e, or OPEN. */
static int64_t next_present(const struct unit *u, int e)
{
    for (; e < EV_N; e++)
        if (unit_has(u, e))
            return u->t[e];
    return OPEN;
}

/* A unit's span in a state that starts with event `from`:
 * [t[from], first present event after it). */
static int state_span(const struct unit *u, int64_t from_t, int after, struct span *s)
{
    if (from_t == T_NONE)
        return 0;
    s->start = from_t;
    s->end = next_present(u, after);
    return s->end > s->start;
}

int synth_span(const struct unit *u, struct span *s)
{
    /* A synthesis that never ended (no SYNTH_END, no later event: failed,
     * or dropped by the daemon) is left out of the concurrency: when its
     * permit came back is unknown, and counting it to the log's end made
     * the mean 8.44 where the run had 7.87.  It is still in flight, and
     * still a cause of idle time (synthesis, to the log's end). */
    return unit_has(u, EV_SYNTH_START) && state_span(u, u->t[EV_SYNTH_START], EV_SYNTH_END, s) && s->end != OPEN;
}

int unit_busy_span(const struct unit *u, struct span *s)
{
    if (!unit_has(u, EV_GPU_START) || !unit_has(u, EV_GPU_END))
        return 0;
    *s = (struct span){u->t[EV_GPU_START], u->t[EV_GPU_END]};
    return 1;
}

int unit_prep_span(const struct unit *u, struct span *s)
{
    return state_span(u, u->t[EV_GPU_PICKUP], EV_GPU_START, s);
}

int unit_queue_span(const struct unit *u, struct span *s)
{
    /* ready, not yet picked up (pickup = GPU_PICKUP, else the next event
     * present) */
    return state_span(u, unit_ready(u), EV_GPU_PICKUP, s);
}

int unit_synth_cause_span(const struct unit *u, struct span *s)
{
    /* from SYNTH_START until ready (or the next event) */
    if (!unit_has(u, EV_SYNTH_START))
        return 0;
    int64_t ready = unit_ready(u);
    s->start = u->t[EV_SYNTH_START];
    s->end = ready != T_NONE ? ready : next_present(u, EV_GPU_PICKUP);
    return s->end > s->start;
}

int unit_stage(const struct unit *u, int stage, int64_t *v)
{
    static const int from[ST_N] = {EV_SYNTH_START, EV_SYNTH_END, -1, EV_GPU_PICKUP, EV_GPU_START};
    static const int to[ST_N] = {EV_SYNTH_END, EV_CHAN_SEND, EV_GPU_PICKUP, EV_GPU_START, EV_GPU_END};
    if (!unit_consistent(u) || !unit_has(u, to[stage]))
        return 0;
    int64_t a = from[stage] >= 0 ? u->t[from[stage]] : unit_ready(u);
    if (a == T_NONE)
        return 0;
    *v = u->t[to[stage]] - a;
    return 1;
}

void stage_fill(struct scratch_pool *sp, struct stage_stats *st, int64_t *v, size_t n)
{
    memset(st, 0, sizeof *st);
    st->count = n;
    if (!n)
        return;
    double sum = 0;
    int64_t mx = v[0];
    for (size_t i = 0; i < n; i++) {
        sum += (double)v[i];
        if (v[i] > mx)
            mx = v[i];
    }
    st->mean = sum / (double)n;
    st->max = (double)mx;
    if (sort_times(sp, v, n) == 0) { /* then quantile() finds each at once */
        st->p50 = sorted_quantile(v, n, 0.50);
        st->p90 = sorted_quantile(v, n, 0.90);
        st->p99 = sorted_quantile(v, n, 0.99);
    } else {
        st->p50 = quantile(v, n, 0.50);
        st->p90 = quantile(v, n, 0.90);
        st->p99 = quantile(v, n, 0.99);
    }
}

/* Stage s of the units r->units[idx[0..n)] (idx NULL: the first n), in v
 * (room for n). */
void stage_of(struct scratch_pool *sp, const struct run *r, const uint32_t *idx, size_t n, int s, int64_t *v,
                     struct stage_stats *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (unit_stage(&r->units[idx ? idx[i] : i], s, &v[k]))
            k++;
    stage_fill(sp, out, v, k);
}

int stages_of(struct scratch_pool *sp, const struct run *r, const uint32_t *idx, size_t n, struct stage_stats *out)
{
    int64_t *v = scratch_alloc(sp, (n ? n : 1) * sizeof *v);
    if (!v)
        return -1;
    for (int s = 0; s < ST_N; s++)
        stage_of(sp, r, idx, n, s, v, &out[s]);
    scratch_free(sp, v);
    return 0;
}
