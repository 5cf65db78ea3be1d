/*
 * analyze.c -- busy, window, idle causes, bottleneck, advice, stages.
 *
 * Every question is asked of interval sets: the busy time of a device is
 * the union of its units' [GPU_START, GPU_END]; "some unit is in prep" is
 * the union of [GPU_PICKUP, GPU_START) over the device's units; and so on.
 * Each set is built by sorting spans (radix) and merging them, so the cost
 * is linear in the units after the sort.  Then one walk over the idle gaps,
 * with a cursor in each set, gives every idle instant the first cause that
 * holds: prep, queue, synthesis, else no_work.  The causes therefore add
 * up to the idle time exactly, by construction.
 *
 * A unit whose events are missing is in a state until its next event that
 * is present, or until the log ends (open span): a unit synthesized but
 * never sent stays "in synthesis".  A unit whose events contradict the
 * pipeline's order (U_CONTRA) is left out of everything and reported.
 *
 * This file holds the definitions; which thread computes what (a second
 * thread on big runs) is analyze_sched.c's.
 */
#include "analyze.h"

#include "analyze_sched.h"
#include "mem.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

const char *const stage_names[ST_N] = {"synthesis", "handoff", "queue", "prep", "gpu"};
const char *const cause_names[CAUSE_N] = {"prep", "queue", "synthesis", "no_work"};
const char *const bottleneck_names[] = {NULL, "gpu", "synthesis", "dispatch", "input",
                                        "cpu", "gpu_phase", "memory", "waiting"};

/* Sorted, merged spans of one kind (a scratch array); *n in/out.  What
 * the merge freed goes back at once: the next array of the analysis takes
 * those pages instead of fresh ones. */
static int build_union(struct scratch_pool *sp, struct span **a, size_t *n)
{
    if (sort_spans(sp, *a, *n))
        return -1;
    *n = merge_spans(*a, *n);
    *a = scratch_shrink(*a, (*n ? *n : 1) * sizeof **a);
    return 0;
}

static size_t first_end_after(const struct span *s, size_t n, int64_t t, size_t h);

/* Start c at the first span that ends after t (a search, first_end_after:
 * a device whose gaps start late need not walk the spans before them). */
static void cursor_seek(struct cursor *c, int64_t t)
{
    c->i = first_end_after(c->s, c->n, t, 0);
}

/* Is t inside, and where does that answer change next? */
static int cursor_at(struct cursor *c, int64_t t, int64_t *next_change)
{
    while (c->i < c->n && c->s[c->i].end <= t)
        c->i++;
    if (c->i == c->n) {
        *next_change = OPEN;
        return 0;
    }
    if (c->s[c->i].start <= t) {
        *next_change = c->s[c->i].end;
        return 1;
    }
    *next_change = c->s[c->i].start;
    return 0;
}

void idle_sets_init(struct idle_sets *c, const struct span *prep, size_t np, const struct span *queue,
                    size_t nq, const struct span *synth, size_t ns, int64_t from)
{
    c->prep = (struct cursor){prep, np, 0};
    c->queue = (struct cursor){queue, nq, 0};
    c->synth = (struct cursor){synth, ns, 0};
    cursor_seek(&c->queue, from);
    cursor_seek(&c->synth, from);
}

int idle_attribute(struct idle_sets *c, int64_t a, int64_t b, int64_t by_cause[CAUSE_N],
                   int (*seg)(void *ctx, int64_t a, int64_t b, int cause), void *ctx)
{
    for (int64_t t = a; t < b;) {
        int64_t np_, nq, ns;
        int in_p = cursor_at(&c->prep, t, &np_), in_q = cursor_at(&c->queue, t, &nq),
            in_s = cursor_at(&c->synth, t, &ns);
        int64_t next = b;
        if (np_ < next)
            next = np_;
        if (nq < next)
            next = nq;
        if (ns < next)
            next = ns;
        int cause = in_p ? CAUSE_PREP : in_q ? CAUSE_QUEUE : in_s ? CAUSE_SYNTHESIS : CAUSE_NO_WORK;
        by_cause[cause] += next - t;
        if (seg && seg(ctx, t, next, cause))
            return -1;
        t = next;
    }
    return 0;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Append v to a[0..*m) unless it is one of the last 8 there: workers and
 * devices are few and repeat in runs, so the array stays short. */
static void squeeze_add(int32_t *a, size_t *m, int32_t v)
{
    for (size_t k = *m; k > 0 && *m - k < 8; k--)
        if (a[k - 1] == v)
            return;
    a[(*m)++] = v;
}

/* Sort and deduplicate a[0..n) in place; returns the distinct count. */
static size_t distinct(int32_t *a, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        squeeze_add(a, &m, a[i]);
    qsort(a, m, sizeof *a, cmp_i32);
    size_t o = 0;
    for (size_t i = 0; i < m; i++)
        if (o == 0 || a[o - 1] != a[i])
            a[o++] = a[i];
    return o;
}

/* Append an idle stretch, extending the last one when it continues it. */
static int seg_add(struct device_result *d, int64_t a, int64_t b, int cause)
{
    if (d->nsegs && d->segs[d->nsegs - 1].end == a && d->segs[d->nsegs - 1].cause == cause) {
        d->segs[d->nsegs - 1].end = b;
        return 0;
    }
    if (grow_heap((void **)&d->segs, &d->segs_cap, d->nsegs, sizeof *d->segs, 16))
        return -1;
    d->segs[d->nsegs++] = (struct idle_seg){a, b, cause};
    return 0;
}

/* The first of the sorted, disjoint spans s[0..n) that ends after t,
 * searched from h, the answer for a nearby earlier t (a device's units
 * come roughly in time order). */
static size_t first_end_after(const struct span *s, size_t n, int64_t t, size_t h)
{
    if (n == 0)
        return 0; /* s may be NULL: no offset into it */
    return count_le_near((const char *)s + offsetof(struct span, end), sizeof *s, n, t, &h);
}

/* Does s reach into a gap between the merged busy spans busy[0..nb)
 * (between two of them: idle time before the first or after the last is no
 * gap)?  *at: where the last such question landed (first_end_after). */
static int in_gaps(const struct span *busy, size_t nb, struct span s, size_t *at)
{
    size_t i = *at = first_end_after(busy, nb, s.start, *at);
    if (i == nb || s.end <= s.start)
        return 0;          /* after the last busy span's end, or empty */
    if (busy[i].start <= s.start) /* starts inside busy[i]: reaches the gap after it? */
        return i + 1 < nb && s.end > busy[i].end;
    if (i > 0)
        return 1;          /* starts in the gap before busy[i] */
    return nb > 1 && s.end > busy[0].end; /* starts before the first: reaches the gap after it? */
}

/* The workers' own prep: units picked up while the device was idle
 * (outside every busy span, busy[0..nb) merged) did not wait for it, so
 * their prep is host work alone; with several workers the others' prep
 * holds that wait.  Their mean, or 0 without one. */
static double prep_host(const struct run *r, const uint32_t *ui, size_t cap, const struct span *busy,
                        size_t nb)
{
    double psum = 0;
    size_t pn = 0, at = 0;
    for (size_t k = 0; k < cap; k++) {
        const struct unit *u = &r->units[ui[k]];
        if (!unit_has(u, EV_GPU_PICKUP) || !unit_has(u, EV_GPU_START) || u->t[EV_GPU_START] < u->t[EV_GPU_PICKUP])
            continue;
        int64_t t = u->t[EV_GPU_PICKUP];
        at = first_end_after(busy, nb, t, at);
        if (at == nb || busy[at].start > t) { /* in no busy span */
            psum += (double)(u->t[EV_GPU_START] - u->t[EV_GPU_PICKUP]);
            pn++;
        }
    }
    return pn ? psum / (double)pn : 0;
}

/* The idle gaps are the holes between the merged busy spans busy[0..nb)
 * (nb >= 1); each instant of them gets the first cause that holds: the
 * device's prep set prep[0..np), then the shared queue and synthesis. */
static int seg_add_cb(void *ctx, int64_t a, int64_t b, int cause)
{
    return seg_add(ctx, a, b, cause);
}

static int idle_gaps(struct device_result *d, const struct span *busy, size_t nb,
                     const struct span *prep, size_t np, const struct shared_sets *sh, unsigned keep)
{
    d->ngaps = nb - 1;
    if (keep & KEEP_GAPS) {
        d->gaps = calloc(d->ngaps ? d->ngaps : 1, sizeof *d->gaps);
        if (!d->gaps)
            return -1;
    }
    struct idle_sets c;
    idle_sets_init(&c, prep, np, sh->queue, sh->nqueue, sh->synth, sh->nsynth,
                   d->ngaps ? busy[0].end : 0);
    for (size_t g = 0; g < d->ngaps; g++) {
        struct gap one = {0}, *gp = d->gaps ? &d->gaps[g] : &one;
        gp->start = busy[g].end;
        gp->end = busy[g + 1].start;
        if (idle_attribute(&c, gp->start, gp->end, gp->by_cause, keep & KEEP_SEGS ? seg_add_cb : NULL, d))
            return -1;
        for (int c_ = 0; c_ < CAUSE_N; c_++)
            d->by_cause[c_] += gp->by_cause[c_];
        d->idle += gp->end - gp->start;
        if (gp->end - gp->start > d->longest_gap)
            d->longest_gap = gp->end - gp->start;
    }
    return 0;
}

/* One device: its units are r->units[ui[0..cap)], in order. */
/* A device's first step: its workers, units and window, and its busy set
 * busy[0..*nb) merged (a scratch array the caller frees; NULL without
 * one).  The shared sets are then built with the gaps known. */
static int device_busy(struct scratch_pool *sp, const struct run *r, int32_t dev, const uint32_t *ui, size_t cap,
                       struct device_result *d, struct span **busy_out, size_t *nb_out)
{
    memset(d, 0, sizeof *d);
    d->device = dev;
    *busy_out = NULL;
    *nb_out = 0;
    size_t n = cap ? cap : 1;
    struct span *busy = scratch_alloc(sp, n * sizeof *busy);
    int32_t *workers = malloc(n * sizeof *workers); /* kept in the result */
    if (!busy || !workers) {
        scratch_free(sp, busy);
        free(workers);
        return -1;
    }
    /* Units come roughly in time order: a span that starts within the last
     * one kept extends it, so the array holds about the merged set, not a
     * span per unit (the sort and merge below make the same union of any
     * order). */
    size_t nb = 0, nw = 0;
    int64_t end_max = INT64_MIN;
    for (size_t k = 0; k < cap; k++) {
        const struct unit *u = &r->units[ui[k]];
        if (u->worker >= 0)
            squeeze_add(workers, &nw, u->worker); /* touches a few entries, not one a unit */
        struct span b;
        if (!unit_busy_span(u, &b))
            continue;
        d->units++;
        if (b.end > end_max)
            end_max = b.end;
        struct span *last = nb ? &busy[nb - 1] : NULL;
        if (last && b.start >= last->start && b.start <= last->end) {
            if (b.end > last->end)
                last->end = b.end;
        } else {
            busy[nb++] = b;
        }
    }
    size_t nwu = distinct(workers, nw);
    int32_t *shrunk = realloc(workers, (nwu ? nwu : 1) * sizeof *workers);
    d->workers = shrunk ? shrunk : workers;
    d->nworkers = nwu;
    if (nb == 0) {
        scratch_free(sp, busy);
        return 0;
    }
    if (sort_spans(sp, busy, nb)) {
        scratch_free(sp, busy);
        return -1;
    }
    d->window_start = busy[0].start;
    d->window_end = end_max;
    nb = merge_spans(busy, nb);
    *busy_out = scratch_shrink(busy, nb * sizeof *busy);
    *nb_out = nb;
    return 0;
}

/* One device: the scheduler's (struct sched_fns). */
static int analyze_device(struct scratch_pool *sp, const struct run *r, const uint32_t *ui, size_t cap,
                          const struct span *busy, size_t nb, const struct shared_sets *sh, unsigned keep,
                          struct device_result *d)
{
    if (nb == 0)
        return 0;
    struct span *prep = scratch_alloc(sp, (cap ? cap : 1) * sizeof *prep);
    if (!prep)
        return -1;
    /* Only the prep spans that reach into an idle gap: the set is asked
     * about idle instants alone (most of a busy device's prep is in its
     * busy time; all of it cost 16 bytes a unit, and its sort). */
    size_t np = 0;
    for (size_t k = 0, at = 0; k < cap; k++)
        if (unit_prep_span(&r->units[ui[k]], &prep[np]) && abandon_cut(sh->ab, ui[k], &prep[np]) &&
            in_gaps(busy, nb, prep[np], &at))
            np++;
    if (build_union(sp, &prep, &np)) {
        scratch_free(sp, prep);
        return -1;
    }
    for (size_t i = 0; i < nb; i++)
        d->busy += busy[i].end - busy[i].start;
    d->gpu_per_unit = (double)d->busy / (double)d->units;
    d->prep_host = prep_host(r, ui, cap, busy, nb);
    if (idle_gaps(d, busy, nb, prep, np, sh, keep)) {
        scratch_free(sp, prep);
        return -1;
    }
    /* 0/0 is no figure: a device whose GPU phases all have zero length
     * (at the log's resolution) has no window to measure */
    d->utilization = d->window_end > d->window_start
                         ? (double)d->busy / (double)(d->window_end - d->window_start)
                         : NAN;
    scratch_free(sp, prep);
    return 0;
}



/* The device ids units name: few, but a hostile input may name many, so
 * they are found through a small hash index.  For each: its consistent
 * units, and whether one reached a GPU worker. */
struct devtab {
    struct devent {
        int32_t dev;
        int gpu;
        size_t count;
    } *e;
    size_t n, cap, last;
    uint32_t *idx; /* entry + 1 */
    size_t mask;
};

static int devtab_add(struct devtab *t, int32_t dev, int gpu)
{
    if (t->n && t->e[t->last].dev == dev) {
        t->e[t->last].count++;
        t->e[t->last].gpu |= gpu;
        return 0;
    }
    if (!t->idx || (t->n + 1) * 2 > t->mask + 1) {
        size_t size = t->idx ? (t->mask + 1) * 2 : 64;
        uint32_t *ni = calloc(size, sizeof *ni);
        if (!ni)
            return -1;
        for (size_t k = 0; k < t->n; k++) {
            size_t i = ((uint32_t)t->e[k].dev * 0x9E3779B1u) & (size - 1);
            while (ni[i])
                i = (i + 1) & (size - 1);
            ni[i] = (uint32_t)k + 1;
        }
        free(t->idx);
        t->idx = ni;
        t->mask = size - 1;
    }
    size_t i = ((uint32_t)dev * 0x9E3779B1u) & t->mask;
    while (t->idx[i]) {
        struct devent *e = &t->e[t->idx[i] - 1];
        if (e->dev == dev) {
            e->count++;
            e->gpu |= gpu;
            t->last = t->idx[i] - 1;
            return 0;
        }
        i = (i + 1) & t->mask;
    }
    if (grow_heap((void **)&t->e, &t->cap, t->n, sizeof *t->e, 16))
        return -1;
    t->e[t->n] = (struct devent){dev, gpu, 1};
    t->idx[i] = (uint32_t)t->n + 1;
    t->last = t->n++;
    return 0;
}

static int cmp_devent(const void *a, const void *b)
{
    int32_t x = ((const struct devent *)a)->dev, y = ((const struct devent *)b)->dev;
    return (x > y) - (x < y);
}

/* Synthesis concurrency, in two steps.  analyze_synth_sweep: the most
 * units in synthesis at once, from the spans' starts and ends sorted apart
 * (st and en, n each).  synth_mean: the mean number over [w0, w1), which
 * is the integral of the count over the window divided by its length; each
 * span adds clamp(end) - clamp(start), so the sums of clamped ends and
 * starts give it without pairing them. */
static int analyze_synth_sweep(struct scratch_pool *sp, int64_t *st, int64_t *en, size_t n, struct run_result *res)
{
    res->synth_max = 0;
    if (!n)
        return 0;
    if (sort_times(sp, st, n) || sort_times(sp, en, n))
        return -1;
    /* [start, end): at equal times the ends go first. */
    size_t i = 0, j = 0;
    int cur = 0;
    while (i < n) {
        if (j < n && en[j] <= st[i]) {
            cur--;
            j++;
        } else {
            cur++;
            i++;
            if (cur > res->synth_max)
                res->synth_max = cur;
        }
    }
    return 0;
}

static void synth_mean(const int64_t *st, const int64_t *en, size_t n, int64_t w0, int64_t w1,
                       struct run_result *res)
{
    /* over no window there is no mean (null), not a mean of 0 */
    res->synth_mean_active = w1 > w0 ? 0 : NAN;
    if (!n || w1 <= w0)
        return;
    __int128 area = 0; /* exact */
    for (size_t i = 0; i < n; i++) {
        int64_t a = st[i] < w0 ? w0 : st[i] > w1 ? w1 : st[i];
        int64_t b = en[i] < w0 ? w0 : en[i] > w1 ? w1 : en[i];
        area += (__int128)b - a;
    }
    res->synth_mean_active = (double)area / (double)(w1 - w0);
}

static int throughput(struct scratch_pool *sp, const struct run *r, struct run_result *res)
{
    /* A job completes when all its units have GPU_END, at the last one. */
    int64_t *done = scratch_alloc(sp, (r->njobs ? r->njobs : 1) * sizeof *done);
    uint32_t *left = scratch_alloc(sp, (r->njobs ? r->njobs : 1) * sizeof *left);
    if (!done || !left) {
        scratch_free(sp, done);
        scratch_free(sp, left);
        return -1;
    }
    for (size_t j = 0; j < r->njobs; j++) {
        done[j] = INT64_MIN;
        left[j] = r->jobs[j].units;
    }
    int64_t last_end = INT64_MIN;
    for (size_t i = 0; i < r->nunits; i++) {
        const struct unit *u = &r->units[i];
        if (!unit_has(u, EV_GPU_END) || !unit_consistent(u))
            continue; /* an inconsistent unit keeps its job from completing */
        left[u->job]--;
        if (u->t[EV_GPU_END] > done[u->job])
            done[u->job] = u->t[EV_GPU_END];
        if (u->t[EV_GPU_END] > last_end)
            last_end = u->t[EV_GPU_END];
    }
    size_t nd = 0;
    for (size_t j = 0; j < r->njobs; j++)
        if (left[j] == 0)
            done[nd++] = done[j];
    res->jobs_completed = nd;
    res->s_per_job = res->steady_s_per_job = -1;
    /* from the first SYNTH_START by definition: without one, undefined */
    if (nd > 0 && res->has_synth_start && last_end > res->start)
        res->s_per_job = (double)(last_end - res->start) / (double)nd;
    /* Steady: a rate over the steady part of the run, the completions
     * after the first tenth and before the last tenth (pipeline fill and
     * drain left out), over the time they took.  Not a median of the
     * intervals: jobs that finish in pairs 17 and 23 ms apart run at 20 ms
     * per job, where the median says 17 or 23. */
    if (nd >= 2 && sort_times(sp, done, nd) == 0) {
        size_t k = nd / 10;
        if (nd - 1 < 2 * k + 1)
            k = 0;
        res->steady_s_per_job = (double)(done[nd - 1 - k] - done[k]) / (double)(nd - 1 - 2 * k);
    }
    scratch_free(sp, done);
    scratch_free(sp, left);
    return 0;
}

static int rule_at(const struct bn_totals *t, const struct cpu_result *c);

int bottleneck_rule(const struct bn_totals *t, const struct cpu_result *c, int *on_phase)
{
    int bn = rule_at(t, c);
    if (on_phase)
        *on_phase = 0;
    if (t->has_kernel && t->kernel_missing_busy > 0) { /* the kernel time is a floor */
        struct bn_totals hi = *t;
        hi.kernel_busy += t->kernel_missing_busy;
        if (hi.kernel_busy > t->busy_kernel_devs)
            hi.kernel_busy = t->busy_kernel_devs;
        if (rule_at(&hi, c) != bn) { /* the calls not given decide it: judged on the GPU phase */
            hi = *t;
            hi.has_kernel = 0;
            bn = rule_at(&hi, c);
            if (on_phase)
                *on_phase = 1;
        }
    }
    return bn;
}

static int rule_at(const struct bn_totals *t, const struct cpu_result *c)
{
    if (t->busy <= 0 && t->window <= 0)
        return BN_NONE;
    /* With kernel phases, the device computes only in them: the time it
     * does not is the idle causes plus the GPU phase's other work, and the
     * largest of those decides (a GPU phase busy while its kernels idle is
     * not a GPU bottleneck). */
    double util = t->has_kernel ? (t->kernel_window > 0 ? (double)t->kernel_busy / (double)t->kernel_window : NAN)
                                : (t->window > 0 ? (double)t->busy / (double)t->window : NAN);
    int64_t in_phase = t->has_kernel ? t->busy_kernel_devs - t->kernel_busy : 0;
    if (t->barrier_busy > 0 && t->has_kernel && t->kernel_window > 0) {
        /* duration lines: gpu_total holds barrier_wait, where the GPU waits
         * (mutex held) for the host's prep_msm; the time in it when no
         * kernel of the device computes (barrier_idle: on one GPU, their
         * sum) is idle.  The rule counts it with the GPU phase's other work. */
        util -= t->barrier_busy / (double)t->kernel_window;
        in_phase += (int64_t)t->barrier_busy;
    }
    int bn;
    if (util >= 0.95) {
        bn = BN_GPU;
    } else {
        int big = CAUSE_SYNTHESIS;
        for (int k = 0; k < CAUSE_N; k++)
            if (t->by_cause[k] > t->by_cause[big])
                big = k;
        bn = big == CAUSE_SYNTHESIS ? BN_SYNTHESIS : big == CAUSE_NO_WORK ? BN_INPUT : BN_DISPATCH;
        if (in_phase > t->by_cause[big])
            bn = BN_GPU_PHASE;
    }
    /* cpu: the cores limit throughput.  Before synthesis, which more
     * syntheses cannot help when either stage waits for a core; and before
     * gpu when the GPU phase itself waits for one (its busy time then holds
     * that waiting, and more GPU would not help). */
    int kind = -1;
    if (bn == BN_SYNTHESIS && c->contention)
        kind = c->kind;
    else if ((bn == BN_GPU || bn == BN_GPU_PHASE) && c->gpu_contended)
        kind = c->source == CPU_SRC_SAMPLES ? c->gpu_kind : KIND_NONE;
    /* the kind from samples names it; from timing alone (KIND_NONE) the cores, as before */
    if (kind >= 0)
        bn = kind == KIND_MEMORY ? BN_MEMORY : kind == KIND_WAITING ? BN_WAITING : BN_CPU;
    return bn;
}

static void decide(struct run_result *res)
{
    for (size_t i = 0; i < res->ndev; i++) {
        const struct device_result *d = &res->dev[i];
        if (!d->units)
            continue;
        res->busy += d->busy;
        res->window += d->window_end - d->window_start;
        res->idle += d->idle;
        for (int c = 0; c < CAUSE_N; c++)
            res->by_cause[c] += d->by_cause[c];
    }
    res->utilization = res->window > 0 ? (double)res->busy / (double)res->window : NAN;
    const struct phase_result *ph = &res->phase;
    /* the devices whose kernel time is partial count too, as a floor: the
     * rule's verdict where every placement of their calls not given gives
     * the same one (a GPU phase that waits for the host, known from the
     * calls given), else the GPU phase's */
    struct bn_totals t = {res->busy,
                          res->window,
                          {0},
                          ph->has_kernel || ph->partial.kernel_window > 0,
                          ph->kernel_busy + ph->partial.kernel_busy,
                          ph->kernel_window + ph->partial.kernel_window,
                          ph->gpu_busy_kernel_devs + ph->partial.gpu_busy,
                          ph->crit.known ? ph->crit.barrier_busy : 0,
                          ph->kernel_missing_busy + ph->partial.missing_busy};
    memcpy(t.by_cause, res->by_cause, sizeof t.by_cause);
    res->bottleneck = bottleneck_rule(&t, &res->cpu, &res->bottleneck_on_phase);
    /* the kernels' share as the rule took it, where some of it is a floor
     * (a partial device, or GPU phases without their call's kernel) */
    res->kernel_floor = (ph->partial.kernel_window > 0 || ph->kernel_units_missing) && t.kernel_window > 0
                            ? (double)t.kernel_busy / (double)t.kernel_window
                            : NAN;
    /* Advice: c syntheses at once make c/s units per unit time; the devices
     * take sum(1/g).  No CPU contention in this formula. */
    struct advice *a = &res->advice;
    memset(a, 0, sizeof *a);
    a->model = "formula";
    a->synth_mean = res->stage[ST_SYNTHESIS].mean;
    for (size_t i = 0; i < res->ndev; i++)
        if (res->dev[i].units && res->dev[i].gpu_per_unit > 0)
            a->rate += 1.0 / res->dev[i].gpu_per_unit;
    a->current = res->synth_max > 0 ? res->synth_max : 1;
    /* The workers bound it too: W workers that each prepare (host time p)
     * then prove (g) feed a device at most W / (p + g) units per unit time
     * (one worker, p = 2 ms, g = 15 ms: 88%, whatever synthesis does). */
    double cap = 0;
    for (size_t i = 0; i < res->ndev; i++) {
        const struct device_result *d = &res->dev[i];
        if (d->units && d->gpu_per_unit > 0) {
            double w = d->nworkers ? (double)d->nworkers : 1;
            cap += fmin(1.0 / d->gpu_per_unit, w / (d->prep_host + d->gpu_per_unit));
        }
    }
    a->worker_cap = a->rate > 0 ? fmin(1.0, cap / a->rate) : 1;
    if (res->stage[ST_SYNTHESIS].count && a->synth_mean > 0 && a->rate > 0) {
        double need = a->synth_mean * a->rate;
        a->valid = 1;
        /* the least concurrency that reaches what the workers allow */
        a->needed = (int)ceil(need * a->worker_cap - 1e-9);
        if (a->needed < 1)
            a->needed = 1;
        a->predicted_now = fmin(a->worker_cap, a->current / need);
        a->predicted_needed = fmin(a->worker_cap, a->needed / need);
    }
    if (res->bottleneck == BN_CPU)
        advise_cpu(res, res->run ? res->run->cpus : 0);
    /* memory, waiting: never more syntheses; the fastest measured */
    if (res->bottleneck == BN_MEMORY || res->bottleneck == BN_WAITING) {
        int best = cpu_fastest(&res->cpu);
        a->needed = best >= 1 && best < a->current ? best : a->current;
    }
}

static int analyze_synth(struct scratch_pool *sp, const struct run *r, struct run_result *res, int64_t w0,
                         int64_t w1);

/* One task (TASK_*): the scheduler's (struct sched_fns). */
static int analyze_task(struct scratch_pool *sp, const struct run *r, struct run_result *res, int task, int64_t w0,
                        int64_t w1)
{
    if (task == TASK_SYNTH)
        return analyze_synth(sp, r, res, w0, w1);
    if (task == TASK_THROUGHPUT)
        return throughput(sp, r, res);
    int64_t *v = scratch_alloc(sp, (r->nunits ? r->nunits : 1) * sizeof *v);
    if (!v)
        return -1;
    stage_of(sp, r, NULL, r->nunits, task - TASK_STAGE, v, &res->stage[task - TASK_STAGE]);
    scratch_free(sp, v);
    return 0;
}

/* What analyze_run builds on its way (its own, freed at its end). */
struct run_work {
    struct scratch_pool *sp; /* the analysis's */
    struct devtab dt;
    struct shared_sets sh;
    int32_t *devs;                        /* the devices of units that reached a GPU worker */
    size_t *dcount, *dfirst, *dfill, ndu; /* their units: how many, where they start in dunits */
    uint32_t *dunits;
    struct span **busy; /* each device's busy set, merged (device_busy) */
    size_t *nbusy;
    struct abandon_set ab; /* the units left in a state, and where they stop holding it */
};

/* The run's counts and its start: the earliest SYNTH_START, else the
 * earliest event (the second thread needs it); and the devices' window
 * taken together, [*w0, *w1): from the earliest start to the latest end of
 * the consistent units' busy spans, which are exactly the spans of the
 * devices' own windows (INT64_MAX, INT64_MIN: none). */
static void run_begin(const struct run *r, struct run_result *res, int64_t *w0, int64_t *w1)
{
    memset(res, 0, sizeof *res);
    res->run = r;
    res->jobs = r->njobs;
    res->units = r->nunits;
    res->start = INT64_MAX;
    int64_t any_min = INT64_MAX;
    *w0 = INT64_MAX;
    *w1 = INT64_MIN;
    for (size_t i = 0; i < r->nunits; i++) {
        const struct unit *u = &r->units[i];
        if (!unit_consistent(u))
            continue; /* left out of every figure */
        if (unit_has(u, EV_SYNTH_START) && u->t[EV_SYNTH_START] < res->start)
            res->start = u->t[EV_SYNTH_START];
        for (int e = 0; e < EV_N; e++)
            if (unit_has(u, e) && u->t[e] < any_min)
                any_min = u->t[e];
        struct span b;
        if (unit_busy_span(u, &b)) {
            if (b.start < *w0)
                *w0 = b.start;
            if (b.end > *w1)
                *w1 = b.end;
        }
    }
    res->has_synth_start = res->start != INT64_MAX;
    if (res->start == INT64_MAX)
        res->start = any_min == INT64_MAX ? 0 : any_min;
}

/* One pass for the rest: the counts, and the devices (those of units that
 * reached a GPU worker, in order: a unit still queued has no device yet)
 * with each one's count of units. */
static int unit_pass(const struct run *r, struct run_result *res, struct run_work *w)
{
    for (size_t i = 0; i < r->nunits; i++) {
        const struct unit *u = &r->units[i];
        if (!unit_consistent(u)) {
            res->inconsistent++;
            continue;
        }
        if (!unit_has(u, EV_GPU_END))
            res->in_flight++;
        int gpu = unit_has(u, EV_GPU_PICKUP) || unit_has(u, EV_GPU_START) || unit_has(u, EV_GPU_END);
        if (devtab_add(&w->dt, u->device, gpu))
            return -1;
    }
    if (w->dt.n)
        qsort(w->dt.e, w->dt.n, sizeof *w->dt.e, cmp_devent);
    return 0;
}

/* The devices that reached a GPU worker, sorted, with their results
 * (res->dev) and where each one's units will start. */
static int device_table(struct run_result *res, struct run_work *w)
{
    const struct devtab *dt = &w->dt;
    w->devs = malloc((dt->n ? dt->n : 1) * sizeof *w->devs);
    w->dcount = malloc((dt->n ? dt->n : 1) * sizeof *w->dcount);
    if (!w->devs || !w->dcount)
        return -1;
    for (size_t k = 0; k < dt->n; k++)
        if (dt->e[k].gpu) {
            w->devs[w->ndu] = dt->e[k].dev;
            w->dcount[w->ndu++] = dt->e[k].count; /* its arrays are sized to its own units */
        }
    size_t ndu = w->ndu;
    res->dev = calloc(ndu ? ndu : 1, sizeof *res->dev);
    res->ndev = res->dev ? ndu : 0; /* run_result_free frees what device_busy gives them */
    w->dfirst = malloc((ndu ? ndu : 1) * sizeof *w->dfirst);
    w->dfill = malloc((ndu ? ndu : 1) * sizeof *w->dfill);
    if (!res->dev || !w->dfirst || !w->dfill)
        return -1;
    return 0;
}

/* Each device's units, in order (a counting sort by device; a unit finds
 * its device by binary search among the sorted ids). */
static int device_units(const struct run *r, struct run_work *w)
{
    size_t total = 0, ndu = w->ndu;
    for (size_t k = 0; k < ndu; k++) {
        w->dfirst[k] = w->dfill[k] = total;
        total += w->dcount[k];
    }
    w->dunits = scratch_alloc(w->sp, (total ? total : 1) * sizeof *w->dunits);
    if (!w->dunits)
        return -1;
    for (size_t i = 0; i < r->nunits; i++) {
        const struct unit *u = &r->units[i];
        if (!unit_consistent(u))
            continue;
        size_t lo = 0, hi = ndu;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (w->devs[mid] < u->device)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < ndu && w->devs[lo] == u->device)
            w->dunits[w->dfill[lo]++] = (uint32_t)i;
    }
    return 0;
}

/* The concurrency counts what the semaphore bounds: SYNTH_START to
 * SYNTH_END, not the handoff to CHAN_SEND (a next synthesis may start
 * before the previous unit is sent, and that is not two at once).  The
 * idle cause `synthesis` keeps its own spans, to the ready time.  The
 * spans' starts and ends go to st and en (sorted apart by the sweep), for
 * the peak (synth_max), the CPU section and the mean over the devices'
 * window [w0, w1) (synth_mean); then they are freed. */
static int analyze_synth(struct scratch_pool *sp, const struct run *r, struct run_result *res, int64_t w0,
                         int64_t w1)
{
    size_t cap = r->nunits ? r->nunits : 1, n = 0;
    int64_t *st = scratch_alloc(sp, cap * sizeof *st), *en = scratch_alloc(sp, cap * sizeof *en);
    int rc = -1;
    if (!st || !en)
        goto out;
    for (size_t i = 0; i < r->nunits; i++) {
        struct span s;
        if (unit_consistent(&r->units[i]) && synth_span(&r->units[i], &s)) {
            st[n] = s.start;
            en[n++] = s.end;
        }
    }
    if (analyze_synth_sweep(sp, st, en, n, res) || analyze_cpu(sp, r, res, st, en, n)) /* sorted by the sweep */
        goto out;
    synth_mean(st, en, n, w0, w1 > w0 ? w1 : w0, res);
    rc = 0;
out:
    scratch_free(sp, st);
    scratch_free(sp, en);
    return rc;
}

/* Up to this many devices, a shared span is kept only where it reaches
 * into some device's gaps (a check per device); past it, all are kept. */
#define GAP_FILTER_MAX 16

/* Does s reach into some device's gaps?  at: a finger per device. */
static int in_any_gaps(const struct run_work *w, struct span s, size_t *at)
{
    if (w->ndu > GAP_FILTER_MAX)
        return 1;
    for (size_t k = 0; k < w->ndu; k++)
        if (in_gaps(w->busy[k], w->nbusy[k], s, &at[k]))
            return 1;
    return 0;
}

/* A shared set (queue, or synthesis), of the consistent units' spans that
 * reach into a device's gaps (the only instants it is asked about: its
 * spans inside busy time, most of them, would cost 16 bytes a unit and a
 * sort), merged. */
static int shared_set(const struct run *r, const struct run_work *w, int (*span_of)(const struct unit *, struct span *),
                      struct span **set, size_t *n)
{
    *set = scratch_alloc(w->sp, (r->nunits ? r->nunits : 1) * sizeof **set);
    size_t *at = calloc(w->ndu ? w->ndu : 1, sizeof *at);
    if (!*set || !at) {
        free(at);
        return -1;
    }
    *n = 0;
    for (size_t i = 0; i < r->nunits; i++)
        if (unit_consistent(&r->units[i]) && span_of(&r->units[i], &(*set)[*n]) &&
            abandon_cut(&w->ab, (uint32_t)i, &(*set)[*n]) && in_any_gaps(w, (*set)[*n], at))
            (*n)++;
    free(at);
    return build_union(w->sp, set, n);
}

/* The units left in a state (abandon_find), and those of them the run
 * went on without, for the report. */
static int run_abandoned(const struct run *r, struct run_result *res, struct run_work *w, int64_t w1)
{
    if (abandon_find(w->sp, r, w1, &w->ab))
        return -1;
    w->sh.ab = &w->ab;
    res->abandoned = w->ab.count;
    memcpy(res->abandoned_by, w->ab.by_state, sizeof res->abandoned_by);
    res->abandoned_first = w->ab.first;
    return 0;
}

/* Everything the devices are analysed from: their units and busy sets,
 * then the shared sets.  w1: the devices' last GPU_END. */
static int run_prepare(const struct run *r, struct run_result *res, struct run_work *w, int64_t w1)
{
    if (unit_pass(r, res, w) || device_table(res, w) || device_units(r, w) || run_abandoned(r, res, w, w1))
        return -1;
    w->busy = calloc(w->ndu ? w->ndu : 1, sizeof *w->busy);
    w->nbusy = calloc(w->ndu ? w->ndu : 1, sizeof *w->nbusy);
    if (!w->busy || !w->nbusy)
        return -1;
    for (size_t k = 0; k < w->ndu; k++)
        if (device_busy(w->sp, r, w->devs[k], w->dunits + w->dfirst[k], w->dcount[k], &res->dev[k], &w->busy[k],
                        &w->nbusy[k]))
            return -1;
    if (shared_set(r, w, unit_queue_span, &w->sh.queue, &w->sh.nqueue) ||
        shared_set(r, w, unit_synth_cause_span, &w->sh.synth, &w->sh.nsynth))
        return -1;
    return 0;
}

/* The devices' pipeline fill. */
static void device_fill(struct run_result *res)
{
    for (size_t i = 0; i < res->ndev; i++) {
        struct device_result *d = &res->dev[i];
        if (d->units && !res->has_synth_start) {
            d->fill = -1; /* from the first SYNTH_START: undefined without one */
        } else if (d->units) {
            d->fill = d->window_start - res->start;
            if (d->fill < 0)
                d->fill = 0;
        }
    }
}

static void run_work_free(struct run_work *w)
{
    free(w->devs);
    free(w->dcount);
    free(w->dfirst);
    free(w->dfill);
    scratch_free(w->sp, w->dunits);
    free(w->dt.e);
    free(w->dt.idx);
    scratch_free(w->sp, w->sh.queue);
    scratch_free(w->sp, w->sh.synth);
    for (size_t k = 0; w->busy && k < w->ndu; k++)
        scratch_free(w->sp, w->busy[k]);
    free(w->busy);
    free(w->nbusy);
    abandon_free(&w->ab);
}

int analyze_run(const struct run *r, struct run_result *res)
{
    return analyze_run_opts(r, NULL, res);
}

/* A duration line's gpu_total spans the kernels of its call (durations.h):
 * where the log has them and the user named no phase, it is the kernel. */
static const char *kernel_phase_of(const struct run *r, const char *named)
{
    if (named)
        return named;
    return r->dur.placed ? "gpu_total" : "KERNEL";
}

int analyze_run_opts(const struct run *r, const struct analyze_opts *o, struct run_result *res)
{
    unsigned keep = o ? o->keep : KEEP_ALL;
    int64_t w0, w1;
    run_begin(r, res, &w0, &w1);
    res->kernel_phase = kernel_phase_of(r, o ? o->kernel_phase : NULL);
    struct scratch_pool sp; /* the analysis's arrays, one after another: pages reused */
    scratch_pool_init(&sp);
    struct side_work side;
    static const struct sched_fns fns = {analyze_task, analyze_device};
    sched_start(&side, &fns, &sp, r, res, keep, w0, w1); /* the run's start first: the second thread needs it */
    struct run_work w = {.sp = &sp};
    int rc = -1;
    if (run_prepare(r, res, &w, w1))
        goto out;
    struct dev_lists dl = {w.devs, w.dcount, w.dfirst, w.dunits, (const struct span *const *)w.busy, w.nbusy,
                           w.ndu};
    if (sched_devices(&side, &dl, &w.sh))
        goto out;
    device_fill(res);
    if (analyze_phase(&sp, r, res))
        goto out;
    analyze_gpu(r, res);
    if (analyze_streams(r, o, res))
        goto out;
    decide(res);
    rc = 0;
out:
    sched_end(&side);
    run_work_free(&w);
    scratch_pool_free(&sp);
    return rc;
}

void run_result_free(struct run_result *res)
{
    for (size_t i = 0; i < res->ndev; i++) {
        free(res->dev[i].workers);
        free(res->dev[i].gaps);
        free(res->dev[i].segs);
        free(res->dev[i].streams);
    }
    free(res->dev);
    free(res->cpu.synth_by);
    free(res->cpu.gpu_by);
    free(res->cpu.synth_cpu_by);
    free(res->cpu.gpu_cpu_by);
    phase_result_free(&res->phase);
    memset(res, 0, sizeof *res);
}
