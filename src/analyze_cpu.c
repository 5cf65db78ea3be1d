/*
 * analyze_cpu.c -- the CPU section of a run: does CPU contention limit
 * throughput (the story's third chapter)?
 *
 * Two sources, as docs/cli.md ("The cpu bottleneck") states them:
 *  - samples (native traces whose recorder sampled its threads' CPU time):
 *    the share of a core the synthesis threads used and wanted (used +
 *    run-queue wait) while synthesizing, and the GPU workers during the
 *    GPU phase; starvation = 1 - used / wanted.  A role that wants at
 *    least CPU_MIN_WANTED of a core and is starved by CPU_STARVED or more
 *    waits for a core.
 *  - timing (any log): each unit's synthesis time, and its GPU phase, by
 *    how many syntheses ran at once during it (the mean count over its
 *    span, rounded; a synthesis counts itself, a GPU phase adds one).  A
 *    stage whose mean beside others (k >= 2) is CPU_SLOWER times its mean
 *    alone (k = 1), over CPU_MIN_UNITS units or more on each side, waits
 *    for a core.
 * The samples decide where there are any; else the timing.
 *
 * The count of syntheses at time x is #(starts <= x) - #(ends <= x); its
 * integral up to x, F(x), comes from prefix sums of the sorted starts and
 * ends, so each unit's mean count (F(b) - F(a)) / (b - a) costs two binary
 * searches.
 */
#include "analyze.h"

#include "mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The sorted starts and ends of the synthesis spans, with prefix sums. */
struct counter {
    int64_t *st, *en;
    __int128 *sst, *sen; /* sst[i]: sum of st[0..i) */
    size_t n;
};

static size_t upto(const int64_t *a, size_t n, int64_t x) /* #(a[i] <= x) */
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The integral of the count of syntheses from the start up to x. */
static __int128 area_to(const struct counter *c, int64_t x)
{
    size_t i = upto(c->st, c->n, x), j = upto(c->en, c->n, x);
    return ((__int128)x * (__int128)i - c->sst[i]) - ((__int128)x * (__int128)j - c->sen[j]);
}

static double mean_count(const struct counter *c, int64_t a, int64_t b)
{
    return (double)(area_to(c, b) - area_to(c, a)) / (double)(b - a);
}

static int counter_build(const struct run *r, struct counter *c)
{
    size_t n = r->nunits ? r->nunits : 1;
    c->st = malloc(n * sizeof *c->st);
    c->en = malloc(n * sizeof *c->en);
    c->sst = malloc((n + 1) * sizeof *c->sst);
    c->sen = malloc((n + 1) * sizeof *c->sen);
    if (!c->st || !c->en || !c->sst || !c->sen)
        return -1;
    c->n = 0;
    for (size_t i = 0; i < r->nunits; i++) {
        struct span s;
        if (!(r->units[i].flags & U_CONTRA) && synth_span(&r->units[i], &s)) {
            c->st[c->n] = s.start;
            c->en[c->n++] = s.end;
        }
    }
    if (sort_times(c->st, c->n) || sort_times(c->en, c->n))
        return -1;
    c->sst[0] = c->sen[0] = 0;
    for (size_t i = 0; i < c->n; i++) {
        c->sst[i + 1] = c->sst[i] + c->st[i];
        c->sen[i + 1] = c->sen[i] + (c->en[i] == INT64_MAX ? 0 : c->en[i]); /* an open end is never <= x */
    }
    return 0;
}

static void counter_free(struct counter *c)
{
    free(c->st);
    free(c->en);
    free(c->sst);
    free(c->sen);
}

/* Group the (k, time) pairs into rows by k, ascending. */
struct acc_k {
    double sum;
    uint64_t n;
};

static int rows_from(const struct acc_k *a, int kmax, struct conc_row **rows, size_t *nrows)
{
    size_t n = 0;
    for (int k = 1; k <= kmax; k++)
        n += a[k].n > 0;
    *rows = calloc(n ? n : 1, sizeof **rows);
    if (!*rows)
        return -1;
    *nrows = 0;
    for (int k = 1; k <= kmax; k++)
        if (a[k].n)
            (*rows)[(*nrows)++] = (struct conc_row){k, a[k].n, a[k].sum / (double)a[k].n};
    return 0;
}

/* Mean at k >= 2 over mean at k = 1, over CPU_MIN_UNITS units or more on
 * each side; NAN otherwise. */
static double slower(const struct conc_row *rows, size_t n)
{
    double alone = 0, beside = 0;
    uint64_t na = 0, nb = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].k == 1) {
            alone = rows[i].mean;
            na = rows[i].units;
        } else {
            beside += rows[i].mean * (double)rows[i].units;
            nb += rows[i].units;
        }
    }
    if (na < CPU_MIN_UNITS || nb < CPU_MIN_UNITS || alone <= 0)
        return NAN;
    return beside / (double)nb / alone;
}

static void role_from(struct cpu_role *ro, double cpu_s, double want_s, double wall_s, int wait_known)
{
    memset(ro, 0, sizeof *ro);
    ro->starvation = ro->wanted = NAN;
    if (!(wall_s > 0))
        return;
    ro->known = 1;
    ro->used = cpu_s / wall_s;
    if (wait_known) {
        ro->wanted = want_s / wall_s;
        if (ro->wanted < ro->used)
            ro->wanted = ro->used;
        if (ro->wanted >= CPU_MIN_WANTED)
            ro->starvation = 1 - ro->used / ro->wanted;
    }
}

int analyze_cpu(const struct run *r, struct run_result *res)
{
    struct cpu_result *c = &res->cpu;
    memset(c, 0, sizeof *c);
    c->synth_slower = c->gpu_slower = NAN;
    role_from(&c->synth, r->cpu.synth_cpu_s, r->cpu.synth_want_s, r->cpu.synth_wall_s, r->cpu.wait_known);
    role_from(&c->gpu, r->cpu.gpu_cpu_s, r->cpu.gpu_want_s, r->cpu.gpu_wall_s, r->cpu.wait_known);
    c->source = r->cpu.sampled ? CPU_SRC_SAMPLES : CPU_SRC_TIMING;

    struct counter cn = {0};
    int kmax = 1, rc = -1;
    struct acc_k *as = NULL, *ag = NULL;
    int *ks = NULL, *kg = NULL;
    size_t n = r->nunits ? r->nunits : 1;
    ks = malloc(n * sizeof *ks);
    kg = malloc(n * sizeof *kg);
    if (!ks || !kg || counter_build(r, &cn))
        goto out;
    /* each unit's k for its synthesis and its GPU phase (0: none) */
    int64_t gpu_sum = 0, w0 = INT64_MAX, w1 = INT64_MIN;
    for (size_t i = 0; i < r->nunits; i++) {
        const struct unit *u = &r->units[i];
        ks[i] = kg[i] = 0;
        if (u->flags & U_CONTRA)
            continue;
        int64_t a = u->t[EV_SYNTH_START], b = u->t[EV_SYNTH_END];
        if (a != T_NONE && b != T_NONE && b > a) {
            ks[i] = (int)lround(mean_count(&cn, a, b));
            if (ks[i] < 1)
                ks[i] = 1;
        }
        a = u->t[EV_GPU_START], b = u->t[EV_GPU_END];
        if (a != T_NONE && b != T_NONE && b > a) {
            kg[i] = (int)lround(mean_count(&cn, a, b)) + 1;
            gpu_sum += b - a;
            if (a < w0)
                w0 = a;
            if (b > w1)
                w1 = b;
        }
        if (ks[i] > kmax)
            kmax = ks[i];
        if (kg[i] > kmax)
            kmax = kg[i];
    }
    c->gpu_at_once = w1 > w0 ? (double)gpu_sum / (double)(w1 - w0) : 0;
    as = calloc((size_t)kmax + 1, sizeof *as);
    ag = calloc((size_t)kmax + 1, sizeof *ag);
    if (!as || !ag)
        goto out;
    for (size_t i = 0; i < r->nunits; i++) {
        const struct unit *u = &r->units[i];
        if (ks[i]) {
            as[ks[i]].sum += (double)(u->t[EV_SYNTH_END] - u->t[EV_SYNTH_START]);
            as[ks[i]].n++;
        }
        if (kg[i]) {
            ag[kg[i]].sum += (double)(u->t[EV_GPU_END] - u->t[EV_GPU_START]);
            ag[kg[i]].n++;
        }
    }
    if (rows_from(as, kmax, &c->synth_by, &c->nsynth_by) || rows_from(ag, kmax, &c->gpu_by, &c->ngpu_by))
        goto out;
    c->synth_slower = slower(c->synth_by, c->nsynth_by);
    c->gpu_slower = slower(c->gpu_by, c->ngpu_by);
    if (c->source == CPU_SRC_SAMPLES) {
        c->synth_contended = c->synth.starvation >= CPU_STARVED;
        c->gpu_contended = c->gpu.starvation >= CPU_STARVED;
    } else {
        c->synth_contended = c->synth_slower >= CPU_SLOWER;
        c->gpu_contended = c->gpu_slower >= CPU_SLOWER;
    }
    c->contention = c->synth_contended || c->gpu_contended;
    rc = 0;
out:
    counter_free(&cn);
    free(ks);
    free(kg);
    free(as);
    free(ag);
    return rc;
}

/* With the cpu bottleneck: what synthesis may cost per unit for the cores
 * to keep the GPU at its rate, and what the GPU workers need reserved.
 * CPU time per unit is what a stage used (its work); the GPU's rate is the
 * one it would have without waiting for a core: a GPU phase whose worker
 * wanted w of a core and used u would take (1 - w + u) of its time.  The
 * cores must then give rate x (synthesis + host work per unit). */
void advise_cpu(struct run_result *res, double cores)
{
    struct advice *a = &res->advice;
    const struct cpu_result *c = &res->cpu;
    a->cores = cores;
    a->synth_cpu_unit = a->host_cpu_unit = a->synth_cpu_target = 0;
    a->reserve_cores = 0;
    double rate = a->rate;
    if (c->source == CPU_SRC_SAMPLES && c->synth.known) {
        a->synth_cpu_unit = a->synth_mean * c->synth.used;
    } else { /* timing: one thread of work, its time alone */
        a->synth_cpu_unit = a->synth_mean;
        if (c->nsynth_by && c->synth_by[0].k == 1 && c->synth_by[0].units >= CPU_MIN_UNITS)
            a->synth_cpu_unit = c->synth_by[0].mean;
        if (c->ngpu_by && c->gpu_by[0].k == 1 && c->gpu_by[0].units >= CPU_MIN_UNITS && c->gpu_by[0].mean > 0)
            rate *= res->stage[ST_GPU].mean / c->gpu_by[0].mean;
    }
    if (c->source == CPU_SRC_SAMPLES && c->gpu.known && !isnan(c->gpu.wanted)) {
        a->host_cpu_unit = res->stage[ST_GPU].mean * c->gpu.used;
        double stretch = 1 - c->gpu.wanted + c->gpu.used;
        if (stretch > 0.01 && stretch < 1)
            rate /= stretch;
        if (c->gpu.wanted >= CPU_MIN_WANTED) {
            a->reserve_cores = (int)ceil(c->gpu.wanted * (c->gpu_at_once > 0 ? c->gpu_at_once : 1) - 1e-9);
            if (a->reserve_cores < 1)
                a->reserve_cores = 1;
        }
    }
    if (cores > 0 && rate > 0)
        a->synth_cpu_target = cores / rate - a->host_cpu_unit;
    /* at the run's peak concurrency, with the GPU phases at their mean */
    double s_w = c->synth.known && !isnan(c->synth.wanted) ? c->synth.wanted : 1;
    double g_w = c->gpu.known && !isnan(c->gpu.wanted) ? c->gpu.wanted : 0;
    a->demand = a->current * s_w + c->gpu_at_once * g_w;
}
