/*
 * sim_fit.c -- calibrating the simulation from a traced run, fitting its
 * CPU contention model, and the simulator's advice for `analyze --advise sim`.
 *
 * What a trace gives, per complete unit: its synthesis time, its device
 * time (scaled to the device's effective time per unit when workers
 * overlapped on it), and its prep latency: GPU_START minus the moment both
 * the unit was picked up and its device was free (the host-side work that
 * keeps a free device waiting).  These are resampled.
 *
 * Where the units' GPU phases hold kernel phases, the device is held for
 * the kernels only (sim.h, kernel_model): each unit's GPU phase splits into
 * host work before its kernels (less any wait for the device), the
 * kernels, and host work after them (kernel_split).
 *
 * The contention fit.  Under the processor sharing of sim.h, the tasks
 * running at each instant of the trace (syntheses, preps, proofs) give
 * each kind a slowdown f >= 1 (sim_slowdowns).  For each candidate
 * (Ts, Th, h, weight) on a grid, every unit's synthesis time is divided by the
 * mean f of synthesis over it, and its device time by the mean f of
 * proofs over it; the candidate that leaves the least log-variance in
 * those base times is the fit: the model explains why the same work took
 * longer when more ran at once.  Ties go to the candidate that sees the
 * least slowdown.  R^2 says how much of the log-variance it explains.
 * When it explains less than a tenth, or sees no slowdown in the trace,
 * the contention is reported as not identifiable and left out.
 */
#include "sim.h"

#include "mem.h"
#include "sort.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIT_UNITS 5000 /* the fit looks at the first this many complete units */
#define FIT_MIN_VAR 1e-12 /* log-variance of stage times below which there is nothing to fit */

static int complete(const struct unit *u)
{
    return !(u->flags & U_CONTRA) && unit_has(u, EV_SYNTH_START) && unit_has(u, EV_SYNTH_END) &&
           unit_has(u, EV_GPU_START) && unit_has(u, EV_GPU_END) &&
           u->t[EV_SYNTH_END] >= u->t[EV_SYNTH_START] && u->t[EV_GPU_END] >= u->t[EV_GPU_START];
}

struct cu {            /* a complete unit, in seconds from the run's start */
    double ss, se, ps, gs, ge; /* ps: the start of its prep latency */
    double rd;                 /* ready: CHAN_SEND, else SYNTH_END */
    double pk;                 /* GPU_PICKUP, else GPU_START */
    int device, worker;
    /* the kernel model's parts (kernel_split): its kernels' first start
     * and last end (has_k), the barrier inside them (has_b: barrier_wait),
     * the ends of the helper's prep_msm and b_g2_msm (has_h), and its wait
     * for the device (has_w: mutex_wait's length) */
    double ks, ke, bs, be, hpe, hqs, hqe, mw;
    int has_k, has_b, has_h, has_w;
    /* indices of those times among the boundaries */
    uint32_t iss, ise, ips, igs, ige;
};

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int cmp_worker_pickup(const void *a, const void *b)
{
    const struct cu *x = *(const struct cu *const *)a, *y = *(const struct cu *const *)b;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    if (x->worker != y->worker)
        return x->worker < y->worker ? -1 : 1;
    return x->pk < y->pk ? -1 : x->pk > y->pk;
}

static int cmp_start(const void *a, const void *b)
{
    const struct cu *x = a, *y = b;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    return x->gs < y->gs ? -1 : x->gs > y->gs;
}

static uint32_t index_of(const double *t, size_t n, double v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (uint32_t)lo;
}

/* The running counts between boundaries. */
struct segs {
    double *t;   /* boundaries, sorted, distinct */
    size_t n;
    int32_t *ns, *np, *ng; /* counts on [t[k], t[k+1]) */
    uint32_t *combo;       /* which distinct (ns, np, ng) each segment has */
    int32_t (*cnt)[3];     /* the distinct count triples: few, whatever the trace's size */
    size_t ncombo;
    double (*f)[3]; /* their slowdowns by the cores (per candidate) */
    /* their slowdowns by work that grows with the syntheses at once
     * (sim_growth: the same for every candidate; 1 where none) */
    double (*g)[3];
    int grows;      /* some g is not 1 */
    double *cum[3]; /* the integral of each kind's slowdown up to t[k] (per candidate) */
};

/* The variance of the logs of x[0..n), the tenth at each end left out:
 * a few stalls of the machine should not decide the fit.  x is reordered. */
static double logvar(double *x, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] > 0)
            x[k++] = log(x[i]);
    if (k < 2)
        return 0;
    qsort(x, k, sizeof *x, cmp_dbl);
    size_t lo = k >= 20 ? k / 10 : 0, hi = k - lo;
    double m = 0, m2 = 0;
    size_t c = 0;
    for (size_t i = lo; i < hi; i++) {
        c++;
        double d = x[i] - m;
        m += d / (double)c;
        m2 += d * (x[i] - m);
    }
    return c > 1 ? m2 / (double)(c - 1) : 0;
}

/* The slowdown integrals for a candidate: the slowdowns of each distinct
 * count triple, then a running sum over the segments. */
static void integrate(struct segs *s, double cores, double ts, double th, double h, double hw)
{
    struct sim_params p = {.cores = cores, .synth_threads = ts, .host_threads = th, .host_share = h,
                           .host_weight = hw};
    for (size_t i = 0; i < s->ncombo; i++)
        sim_slowdowns(&p, s->cnt[i], s->f[i]);
    for (int c = 0; c < 3; c++)
        s->cum[c][0] = 0;
    for (size_t k = 0; k + 1 < s->n; k++) {
        const double *f = s->f[s->combo[k]], *g = s->g[s->combo[k]];
        double dt = s->t[k + 1] - s->t[k];
        for (int c = 0; c < 3; c++)
            s->cum[c][k + 1] = s->cum[c][k] + f[c] * g[c] * dt;
    }
}

/* The largest slowdown of any kind the last integrate() saw in the trace
 * (each segment's count triple is one of the distinct ones), by the
 * cores: the growth's own figures are reported apart. */
static double max_slowdown(const struct segs *s)
{
    double mx = 1;
    for (size_t q = 0; q < s->ncombo; q++)
        for (int j = 0; j < 3; j++)
            if (s->f[q][j] > mx)
                mx = s->f[q][j];
    return mx;
}

static double mean_over(const double *cum, const double *t, uint32_t a, uint32_t b)
{
    return t[b] > t[a] ? (cum[b] - cum[a]) / (t[b] - t[a]) : 1;
}

static void fit(struct cu *c, size_t n, double cores, struct sim_fit *f, struct segs *s,
                double *tmp_s, double *tmp_g)
{
    /* What is left to explain: the times, divided by the growth of the
     * work with the syntheses at once where that is measured (the fit is
     * of the cores' sharing; the growth's part is not theirs to claim). */
    if (s->grows)
        integrate(s, 0, 1, 1, 0, 1);
    for (size_t i = 0; i < n; i++) {
        tmp_s[i] = c[i].se - c[i].ss;
        tmp_g[i] = c[i].ge - c[i].gs;
        if (s->grows) {
            tmp_s[i] /= mean_over(s->cum[0], s->t, c[i].iss, c[i].ise);
            tmp_g[i] /= mean_over(s->cum[2], s->t, c[i].igs, c[i].ige);
        }
    }
    double v0s = logvar(tmp_s, n), v0g = logvar(tmp_g, n);
    /* A spread of log times under FIT_MIN_VAR is the rounding of the
     * division above (times that the growth explains entirely), nothing
     * for the cores to explain: a fit to it would fit the rounding. */
    if (v0s < FIT_MIN_VAR)
        v0s = 0;
    if (v0g < FIT_MIN_VAR)
        v0g = 0;
    static const double hs[] = {0, 0.25, 0.5, 0.75, 1};
    /* Threads from one core (a task that computes keeps at least one core
     * busy) to all of them, in steps of 2^(1/4), or coarser on big machines. */
    double vals[48];
    int nv = 0;
    for (double step = pow(2, 0.25);; step = step < 1.3 ? sqrt(2) : 2) {
        nv = 0;
        for (double v = 1; v < cores * 0.999 && nv < 46; v *= step)
            vals[nv++] = v;
        vals[nv++] = cores;
        if (nv <= 16 || step == 2)
            break;
    }
    static const double hws[] = {1, 2, 4};
    struct cand {
        double ts, th, h, hw, obj, lf, vs, vg;
    } *cd = malloc((size_t)nv * (size_t)nv * 15 * sizeof *cd);
    if (!cd) {
        f->why = "out of memory";
        return;
    }
    size_t nc = 0;
    for (int a = 0; a < nv; a++)
        for (int b = 0; b < nv; b++)
            for (int k = 0; k < 15; k++) {
                double ts = vals[a], th = vals[b], h = hs[k % 5], hw = hws[k / 5];
                if (h == 0 && hw != 1)
                    continue; /* no host work: its weight does not matter */
                integrate(s, cores, ts, th, h, hw);
                double lf = 0;
                for (size_t i = 0; i < n; i++) {
                    double fs = mean_over(s->cum[0], s->t, c[i].iss, c[i].ise);
                    double fg = mean_over(s->cum[2], s->t, c[i].igs, c[i].ige);
                    tmp_s[i] = (c[i].se - c[i].ss) / fs;
                    tmp_g[i] = (c[i].ge - c[i].gs) / fg;
                    lf += log(fs) + log(fg);
                }
                double vs = logvar(tmp_s, n), vg = logvar(tmp_g, n);
                cd[nc++] = (struct cand){ts, th, h, hw, (v0s > 0 ? vs / v0s : 1) + (v0g > 0 ? vg / v0g : 1),
                                         lf / (double)n, vs, vg};
            }
    /* The least unexplained variance; among candidates that tie with it,
     * the one that sees the least slowdown: a slowdown the same for every
     * unit cannot be told from slower work, so the data do not ask for it. */
    double best = INFINITY;
    for (size_t i = 0; i < nc; i++)
        if (cd[i].obj < best)
            best = cd[i].obj;
    size_t pick = 0;
    double pick_lf = INFINITY;
    for (size_t i = 0; i < nc; i++) {
        if (cd[i].obj <= best * (1 + 1e-3) + 1e-12 && cd[i].lf < pick_lf) {
            pick = i;
            pick_lf = cd[i].lf;
        }
    }
    double bts = cd[pick].ts, bth = cd[pick].th, bh = cd[pick].h, bhw = cd[pick].hw, bvs = cd[pick].vs, bvg = cd[pick].vg;
    free(cd);
    f->r2_synth = v0s > 0 ? 1 - bvs / v0s : 0;
    f->r2_gpu = v0g > 0 ? 1 - bvg / v0g : 0;
    f->synth_threads = bts;
    f->host_threads = bth;
    f->host_share = bh;
    f->host_weight = bhw;
    /* how much slowdown the fit sees in the trace */
    integrate(s, cores, bts, bth, bh, bhw);
    double mx = max_slowdown(s);
    f->max_slowdown = mx;
    /* Fitting k parameters to n noisy units "explains" about k / n of each
     * stage's variance by chance alone (the best of a grid, a little
     * more); the fit must explain twice what chance gives both stages
     * (k = 4), and at least a tenth. */
    double gain = f->r2_synth + f->r2_gpu, chance_bar = 2 * (2 * 4.0 / (double)(n ? n : 1));
    double need = chance_bar > 0.1 ? chance_bar : 0.1;
    f->fitted = gain >= need && mx > 1.02;
    if (!f->fitted)
        f->why = mx <= 1.02 ? "no slowdown shows in this trace (its concurrency never varied enough to show one)"
                 : need > 0.1 ? "no contention model explains more of the variation of its stage times than "
                                "chance would on this many units"
                              : "no contention model explains a tenth of the variation of its stage times";
}

/* The growth's slowdowns of each distinct count triple (gp: NULL, or the
 * params that hold the growth model). */
static void growth_of_combos(struct segs *s, const struct sim_params *gp)
{
    s->grows = gp && sim_has_growth(gp);
    for (size_t i = 0; i < s->ncombo; i++) {
        s->g[i][0] = s->g[i][1] = s->g[i][2] = 1;
        if (s->grows) {
            s->g[i][0] = sim_growth_factor(&gp->synth_growth, s->cnt[i][0]);
            s->g[i][2] = sim_growth_factor(&gp->gpu_growth, s->cnt[i][0] + 1);
        }
    }
}

static int build_segs(struct cu *c, size_t n, struct segs *s, const struct sim_params *gp)
{
    size_t nb = 5 * n;
    s->t = malloc((nb ? nb : 1) * sizeof *s->t);
    if (!s->t)
        return -1;
    for (size_t i = 0; i < n; i++) {
        s->t[5 * i] = c[i].ss, s->t[5 * i + 1] = c[i].se, s->t[5 * i + 2] = c[i].ps;
        s->t[5 * i + 3] = c[i].gs, s->t[5 * i + 4] = c[i].ge;
    }
    qsort(s->t, nb, sizeof *s->t, cmp_dbl);
    size_t m = 0;
    for (size_t i = 0; i < nb; i++)
        if (m == 0 || s->t[i] != s->t[m - 1])
            s->t[m++] = s->t[i];
    s->n = m;
    s->ns = calloc(m + 1, sizeof *s->ns);
    s->np = calloc(m + 1, sizeof *s->np);
    s->ng = calloc(m + 1, sizeof *s->ng);
    for (int k = 0; k < 3; k++)
        s->cum[k] = malloc((m + 1) * sizeof *s->cum[k]);
    if (!s->ns || !s->np || !s->ng || !s->cum[0] || !s->cum[1] || !s->cum[2])
        return -1;
    for (size_t i = 0; i < n; i++) {
        struct cu *u = &c[i];
        u->iss = index_of(s->t, m, u->ss), u->ise = index_of(s->t, m, u->se);
        u->ips = index_of(s->t, m, u->ps), u->igs = index_of(s->t, m, u->gs);
        u->ige = index_of(s->t, m, u->ge);
        s->ns[u->iss]++, s->ns[u->ise]--;
        s->np[u->ips]++, s->np[u->igs]--;
        s->ng[u->igs]++, s->ng[u->ige]--;
    }
    for (size_t k = 1; k < m; k++) {
        s->ns[k] += s->ns[k - 1];
        s->np[k] += s->np[k - 1];
        s->ng[k] += s->ng[k - 1];
    }
    /* the distinct triples, by an open-addressing table */
    size_t cap = 64;
    while (cap < 2 * m)
        cap *= 2;
    uint32_t *slot = calloc(cap, sizeof *slot); /* id + 1 */
    s->combo = malloc((m + 1) * sizeof *s->combo);
    s->cnt = malloc((m + 1) * sizeof *s->cnt);
    s->f = malloc((m + 1) * sizeof *s->f);
    s->g = malloc((m + 1) * sizeof *s->g);
    if (!slot || !s->combo || !s->cnt || !s->f || !s->g) {
        free(slot);
        return -1;
    }
    s->ncombo = 0;
    for (size_t k = 0; k < m; k++) {
        uint64_t h = ((uint64_t)(uint32_t)s->ns[k] * 0x9e3779b97f4a7c15ull) ^
                     ((uint64_t)(uint32_t)s->np[k] * 0xc2b2ae3d27d4eb4full) ^
                     ((uint64_t)(uint32_t)s->ng[k] * 0x165667b19e3779f9ull);
        size_t i = (size_t)(h >> 20) & (cap - 1);
        for (;; i = (i + 1) & (cap - 1)) {
            if (!slot[i]) {
                s->cnt[s->ncombo][0] = s->ns[k];
                s->cnt[s->ncombo][1] = s->np[k];
                s->cnt[s->ncombo][2] = s->ng[k];
                slot[i] = (uint32_t)++s->ncombo;
                break;
            }
            const int32_t *c3 = s->cnt[slot[i] - 1];
            if (c3[0] == s->ns[k] && c3[1] == s->np[k] && c3[2] == s->ng[k])
                break;
        }
        s->combo[k] = slot[i] - 1;
    }
    free(slot);
    growth_of_combos(s, gp);
    return 0;
}

static void segs_free(struct segs *s)
{
    free(s->t);
    free(s->ns);
    free(s->np);
    free(s->ng);
    for (int c = 0; c < 3; c++)
        free(s->cum[c]);
    free(s->combo);
    free(s->cnt);
    free(s->f);
    free(s->g);
}


/* The most units at once in [from, to) of each unit: a sweep. */
static int most_at_once(const struct cu *c, size_t n, size_t from, size_t to, double *at, int level,
                        double *span)
{
    double *st = malloc((n + 1) * sizeof *st), *en = malloc((n + 1) * sizeof *en);
    int cur = 0, mx = 0;
    if (!st || !en) {
        free(st);
        free(en);
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        st[i] = *(const double *)((const char *)&c[i] + from);
        en[i] = *(const double *)((const char *)&c[i] + to);
    }
    qsort(st, n, sizeof *st, cmp_dbl);
    qsort(en, n, sizeof *en, cmp_dbl);
    size_t i = 0, j = 0;
    double last = n ? st[0] : 0, t = last;
    *at = 0;
    while (i < n || j < n) {
        int end = j < n && (i >= n || en[j] <= st[i]); /* [start, end): ends first */
        t = end ? en[j] : st[i];
        if (cur >= level)
            *at += t - last;
        last = t;
        cur += end ? -1 : 1;
        end ? j++ : i++;
        if (cur > mx)
            mx = cur;
    }
    *span = n ? t - st[0] : 0;
    free(st);
    free(en);
    return mx;
}

/* The most syntheses at once (SYNTH_START to SYNTH_END); and whether
 * units waited for a synthesis permit.  A backlogged pipeline starts a
 * synthesis the moment a permit comes back (at a unit's SYNTH_END, its
 * ready time, or when a pickup makes room in the channel for a unit that
 * holds its permit until it is in: whichever the daemon does); a pipeline fed slower
 * than it synthesizes starts them later.  *starved: the median delay from
 * the latest such moment to each start (past the first `peak`) over the
 * mean synthesis time is above 5%. */
static int synth_peak(const struct cu *c, size_t n, int *starved)
{
    double at, span;
    int mx = most_at_once(c, n, offsetof(struct cu, ss), offsetof(struct cu, se), &at, 1 << 30, &span);
    if (mx < 1)
        mx = 1;
    *starved = 0;
    double *st = malloc((n + 1) * sizeof *st), *rel = malloc((3 * n + 1) * sizeof *rel);
    double *gap = malloc((n + 1) * sizeof *gap);
    if (st && rel && gap) {
        double mean = 0;
        for (size_t i = 0; i < n; i++) {
            st[i] = c[i].ss;
            rel[3 * i] = c[i].se;
            rel[3 * i + 1] = c[i].rd;
            rel[3 * i + 2] = c[i].pk;
            mean += c[i].se - c[i].ss;
        }
        mean /= (double)(n ? n : 1);
        qsort(st, n, sizeof *st, cmp_dbl);
        qsort(rel, 3 * n, sizeof *rel, cmp_dbl);
        size_t ng = 0, j = 0;
        for (size_t i = (size_t)mx; i < n; i++) {
            while (j < 3 * n && rel[j] <= st[i])
                j++;
            if (j > 0)
                gap[ng++] = st[i] - rel[j - 1];
        }
        if (ng >= 4 && mean > 0) {
            qsort(gap, ng, sizeof *gap, cmp_dbl);
            *starved = gap[ng / 2] > 0.05 * mean;
        }
    }
    free(st);
    free(rel);
    free(gap);
    return mx;
}

/* Jobs per second when the trace's pipeline waited for input: the GPU
 * idled with nothing in flight over 5% of its window, or syntheses did not
 * start when permits came back (synth_peak).  0: a backlog, all jobs at
 * once. */
static double arrival_rate(const struct run *r, const struct run_result *res, int starved)
{
    if (res->window > 0 && (double)res->by_cause[CAUSE_NO_WORK] >= 0.05 * (double)res->window)
        starved = 1;
    if (!starved || r->njobs < 2)
        return 0;
    int64_t *first = malloc(r->njobs * sizeof *first);
    if (!first)
        return 0;
    for (size_t j = 0; j < r->njobs; j++)
        first[j] = INT64_MAX;
    for (size_t i = 0; i < r->nunits; i++) {
        const struct unit *u = &r->units[i];
        if (unit_has(u, EV_SYNTH_START) && u->t[EV_SYNTH_START] < first[u->job])
            first[u->job] = u->t[EV_SYNTH_START];
    }
    size_t n = 0;
    for (size_t j = 0; j < r->njobs; j++)
        if (first[j] != INT64_MAX)
            first[n++] = first[j];
    double rate = 0;
    if (n >= 2 && sort_times(NULL, first, n) == 0 && first[n - 1] > first[0])
        rate = (double)(n - 1) / ((double)(first[n - 1] - first[0]) * 1e-9);
    free(first);
    return rate;
}

/* A completed job, for the workload: when its first unit started. */
struct tjob {
    int64_t first;
    uint32_t units;
};

static int cmp_tjob(const void *a, const void *b)
{
    int64_t x = ((const struct tjob *)a)->first, y = ((const struct tjob *)b)->first;
    return (x > y) - (x < y);
}

/* The trace's own workload (sim_params job_units, job_at): its completed
 * jobs (every unit consistent, with GPU_END: analyze's jobs_completed) in
 * the order they started, each with its own units, not the mean partition
 * count (19 jobs x 2 partitions simulated 38 of a log's 45 units), and
 * arriving as they arrived in the trace when its pipeline waited for input
 * (f->rate > 0: the jobs' first SYNTH_STARTs), else all at once.  0, or -1
 * out of memory. */
static int trace_jobs(const struct run *r, struct sim_params *p, struct sim_fit *f)
{
    size_t nj = r->njobs;
    struct tjob *t = calloc(nj ? nj : 1, sizeof *t);
    uint32_t *done = calloc(nj ? nj : 1, sizeof *done);
    if (!t || !done) {
        free(t), free(done);
        return -1;
    }
    for (size_t j = 0; j < nj; j++)
        t[j].first = INT64_MAX;
    for (size_t i = 0; i < r->nunits; i++) {
        const struct unit *u = &r->units[i];
        int64_t at = T_NONE;
        for (int e = 0; e < EV_N && at == T_NONE; e++)
            at = u->t[e]; /* its first event: SYNTH_START where it has one */
        if (at != T_NONE && at < t[u->job].first)
            t[u->job].first = at;
        if (unit_consistent(u) && unit_has(u, EV_GPU_END))
            done[u->job]++;
    }
    size_t k = 0;
    f->units = f->units_left_out = 0;
    f->parts_min = INT32_MAX, f->parts_max = 0;
    for (size_t j = 0; j < nj; j++) {
        uint32_t n = r->jobs[j].units;
        if (done[j] != n || n == 0) {
            f->units_left_out += n;
            continue;
        }
        t[k++] = (struct tjob){t[j].first, n};
        f->units += n;
        if ((int)n < f->parts_min)
            f->parts_min = (int)n;
        if ((int)n > f->parts_max)
            f->parts_max = (int)n;
    }
    free(done);
    if (k == 0) {
        free(t);
        f->parts_min = f->parts_max = 0;
        return 0; /* no job completed: jobs x partitions, as before */
    }
    qsort(t, k, sizeof *t, cmp_tjob);
    p->job_units = malloc(k * sizeof *p->job_units);
    p->job_at = f->rate > 0 ? malloc(k * sizeof *p->job_at) : NULL;
    if (!p->job_units || (f->rate > 0 && !p->job_at)) {
        free(t);
        return -1;
    }
    for (size_t j = 0; j < k; j++) {
        p->job_units[j] = t[j].units;
        if (p->job_at)
            p->job_at[j] = (double)(t[j].first - t[0].first) * 1e-9;
    }
    free(t);
    f->jobs = k;
    f->partitions = (int)lround((double)f->units / (double)k);
    return 0;
}

/* The complete units of the run, in seconds from its start, in the run's
 * order (c: one for each). */
static int named(const struct run *r, const struct uphase *p, const char *name)
{
    size_t n;
    const char *s = uphase_name(r, p, &n);
    return !p->mark && p->within == WITHIN_GPU && n == strlen(name) && strncasecmp(s, name, n) == 0;
}

/* Unit u's parts for the kernel model (struct cu), seconds from t0: the
 * span of its kernel phases, and the duration lines' phases that the
 * source puts on the call's path (docs/cli.md, "Duration lines"). */
static void gpu_parts(const struct run *r, const struct run_result *res, uint32_t u, double t0, struct cu *x,
                      struct uphase **buf, size_t *cap)
{
    x->has_k = x->has_b = x->has_h = x->has_w = 0;
    if (!unit_has_phases(r, u))
        return;
    size_t n = unit_phases(r, u, buf, cap);
    if (n == (size_t)-1)
        return;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    int hq = 0;
    for (size_t i = 0; i < n; i++) {
        const struct uphase *p = &(*buf)[i];
        double a = ((double)p->start - t0) * 1e-9, b = ((double)p->end - t0) * 1e-9;
        if (phase_is_kernel(res, p)) {
            lo = p->start < lo ? p->start : lo;
            hi = p->end > hi ? p->end : hi;
        } else if (named(r, p, "barrier_wait")) {
            x->bs = a, x->be = b, x->has_b = 1;
        } else if (named(r, p, "prep_msm")) {
            x->hpe = b, x->has_h = 1;
        } else if (named(r, p, "b_g2_msm")) {
            x->hqs = a, x->hqe = b, hq = 1;
        } else if (named(r, p, "mutex_wait")) {
            x->mw = b - a, x->has_w = 1;
        }
    }
    if (lo > hi)
        return;
    x->has_k = 1;
    x->ks = ((double)lo - t0) * 1e-9;
    x->ke = ((double)hi - t0) * 1e-9;
    if (!hq)
        x->hqs = x->hqe = x->has_h ? x->hpe : x->gs;
    /* a barrier is a wait inside the kernels for the helper's prep_msm */
    x->has_b = x->has_b && x->has_h && x->bs >= x->ks && x->be <= x->ke && x->be >= x->bs;
}

static void collect_units(const struct run *r, const struct run_result *res, struct cu *c)
{
    size_t k = 0;
    double t0 = (double)res->start;
    struct uphase *buf = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < r->nunits; i++) {
        const struct unit *u = &r->units[i];
        if (!complete(u))
            continue;
        struct cu *x = &c[k++];
        x->ss = ((double)u->t[EV_SYNTH_START] - t0) * 1e-9;
        x->se = ((double)u->t[EV_SYNTH_END] - t0) * 1e-9;
        x->gs = ((double)u->t[EV_GPU_START] - t0) * 1e-9;
        x->ge = ((double)u->t[EV_GPU_END] - t0) * 1e-9;
        x->rd = unit_has(u, EV_CHAN_SEND) && u->t[EV_CHAN_SEND] >= u->t[EV_SYNTH_END]
                    ? ((double)u->t[EV_CHAN_SEND] - t0) * 1e-9
                    : x->se;
        x->ps = unit_has(u, EV_GPU_PICKUP) ? ((double)u->t[EV_GPU_PICKUP] - t0) * 1e-9 : x->gs;
        x->pk = x->ps;
        if (x->ps > x->gs)
            x->ps = x->gs;
        x->device = u->device;
        x->worker = u->worker;
        x->has_k = 0;
        if (run_has_phases(r))
            gpu_parts(r, res, (uint32_t)i, t0, x, &buf, &cap);
    }
    free(buf);
}

/* The dispatch latencies wd[0..n): from the later of ready and the worker
 * free (its previous unit's GPU_END) to GPU_PICKUP (GPU_START without one).
 * byw: room for n pointers. */
static void dispatch_latency(struct cu *c, size_t n, struct cu **byw, double *wd)
{
    for (size_t i = 0; i < n; i++)
        byw[i] = &c[i];
    qsort(byw, n, sizeof *byw, cmp_worker_pickup);
    for (size_t i = 0; i < n; i++) {
        double from = byw[i]->rd;
        if (i > 0 && byw[i - 1]->device == byw[i]->device && byw[i - 1]->worker == byw[i]->worker &&
            byw[i - 1]->ge > from)
            from = byw[i - 1]->ge;
        wd[i] = byw[i]->pk > from ? byw[i]->pk - from : 0;
    }
}

/* The prep latency: each unit's ps moves to max(pickup, the device free),
 * before GPU_START; c is sorted by device and GPU_START.  Returns the sum
 * of the device times. */
static double prep_latency(struct cu *c, size_t n)
{
    qsort(c, n, sizeof *c, cmp_start);
    double free_at = -INFINITY, gpu_sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || c[i].device != c[i - 1].device)
            free_at = -INFINITY;
        if (free_at > c[i].ps)
            c[i].ps = free_at < c[i].gs ? free_at : c[i].gs;
        if (c[i].ge > free_at)
            free_at = c[i].ge;
        gpu_sum += c[i].ge - c[i].gs;
    }
    return gpu_sum;
}

/* The model is the user's (given), or measured: no fit.  The slowdown it
 * sees in the trace goes in sg; 1 when the times are to be divided by it. */
static int model_known(struct cu *c, size_t n, double cores, const struct sim_params *given,
                       int measure, double m_gpu, struct sim_fit *f, struct segs *sg,
                       const struct sim_params *gp)
{
    struct sim_params mp = {.synth_threads = 1, .host_threads = 1, .host_share = m_gpu > 1 ? 1 : m_gpu,
                            .host_weight = 1};
    if (given)
        mp = *given;
    f->given = given != NULL;
    f->measured = measure;
    f->synth_threads = mp.synth_threads;
    f->host_threads = mp.host_threads;
    f->host_share = mp.host_share;
    f->host_weight = mp.host_weight;
    f->units_used = n;
    if (build_segs(c, n, sg, gp) == 0) {
        integrate(sg, cores, f->synth_threads, f->host_threads, f->host_share, f->host_weight);
        f->max_slowdown = max_slowdown(sg);
        return 1;
    }
    f->given = f->measured = 0;
    f->why = "out of memory";
    return 0;
}

/* The units the fit looks at: those of the first *nf in SYNTH_START order
 * (c itself when there are no more; else a copy, or NULL when out of
 * memory); *nf: how many. */
static struct cu *fit_subset(struct cu *c, size_t n, size_t *nf)
{
    if (n <= *nf)
        return c;
    struct cu *sub = malloc(n * sizeof *sub);
    if (!sub)
        return NULL;
    memcpy(sub, c, n * sizeof *sub);
    double *st = malloc(n * sizeof *st);
    if (!st) {
        free(sub);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        st[i] = sub[i].ss;
    qsort(st, n, sizeof *st, cmp_dbl);
    double cut = st[*nf - 1];
    size_t m = 0;
    for (size_t i = 0; i < n && m < *nf; i++)
        if (sub[i].ss <= cut)
            sub[m++] = sub[i];
    *nf = m;
    free(st);
    return sub;
}

/* The fit, on the first FIT_UNITS units in time (ws, wg: room for n, used
 * as its scratch).  When it fits, the slowdown it sees over all the units
 * goes in sg, and 1: the times are to be divided by it. */
static int model_fit(struct cu *c, size_t n, double cores, struct sim_fit *f, struct segs *sg,
                     double *ws, double *wg, const struct sim_params *gp)
{
    size_t nf = n < FIT_UNITS ? n : FIT_UNITS;
    struct cu *sub = fit_subset(c, n, &nf);
    if (sub && build_segs(sub, nf, sg, gp) == 0) {
        fit(sub, nf, cores, f, sg, ws, wg);
        f->units_used = nf;
    } else {
        f->why = "out of memory";
    }
    if (sub != c)
        free(sub);
    segs_free(sg);
    memset(sg, 0, sizeof *sg);
    if (f->fitted && build_segs(c, n, sg, gp) == 0) {
        integrate(sg, cores, f->synth_threads, f->host_threads, f->host_share, f->host_weight);
        return 1;
    } else if (f->fitted) {
        f->fitted = 0;
        f->why = "out of memory";
    }
    return 0;
}

/* Work that grows with the syntheses at once, and no model of the cores:
 * the trace's times are divided by the growth alone (1), unless there is
 * none (0). */
static int model_growth_only(struct cu *c, size_t n, struct segs *sg, const struct sim_params *gp)
{
    segs_free(sg);
    memset(sg, 0, sizeof *sg);
    if (!sim_has_growth(gp) || build_segs(c, n, sg, gp))
        return 0;
    integrate(sg, 0, 1, 1, 0, 1);
    return 1;
}

/* The CPU contention model: given, measured, fitted, or none.  Returns 1
 * when the trace's times are to be divided by the slowdown it sees there
 * (in sg), so that the simulation slows them again only where it runs
 * differently.  The growth of the work with the syntheses at once (gp's,
 * where measured) is in that slowdown with any of them, and alone when
 * none is.
 *
 * The threads' CPU time, when the recorder sampled it: what a thread
 * wanted is what it used plus what it waited runnable for a core (the
 * kernel's run-queue wait), so a machine that was short of cores does not
 * hide it.  A synthesis thread that wants half a core or more while
 * synthesizing is one thread of work, and the GPU workers' host share is
 * what their threads wanted during device time.  A synthesis thread that
 * mostly sleeps has its work elsewhere (a pool the trace does not see):
 * then the fit. */
static int contention_model(const struct run *r, struct cu *c, size_t n, double trace_cores,
                            int fit_contention, const struct sim_params *given, struct sim_fit *f,
                            struct segs *sg, double *ws, double *wg, const struct sim_params *gp)
{
    f->trace_cores = trace_cores;
    f->why = "not asked for";
    const struct cpu_use *cu = &r->cpu;
    double m_syn = cu->synth_wall_s > 0
                       ? (cu->wait_known ? cu->synth_want_s : cu->synth_cpu_s) / cu->synth_wall_s
                       : -1;
    double m_gpu = cu->gpu_wall_s > 0 ? (cu->wait_known ? cu->gpu_want_s : cu->gpu_cpu_s) / cu->gpu_wall_s : -1;
    int measure = !given && fit_contention && cu->sampled && m_syn >= 0.5 && m_gpu >= 0;
    f->synth_cpu_share = m_syn;
    f->host_cpu_share = m_gpu;
    if (given || measure)
        return model_known(c, n, trace_cores, given, measure, m_gpu, f, sg, gp);
    if (fit_contention && model_fit(c, n, trace_cores, f, sg, ws, wg, gp))
        return 1;
    return model_growth_only(c, n, sg, gp);
}

/* The growth of each role's work with the syntheses at once, where the
 * analysis names its kind memory or waiting (from the recorder's samples);
 * none with --no-fit, which leaves contention out. */
static void growth_model(const struct run_result *res, int fit_contention, struct sim_params *p)
{
    const struct cpu_result *c = &res->cpu;
    memset(&p->synth_growth, 0, sizeof p->synth_growth);
    memset(&p->gpu_growth, 0, sizeof p->gpu_growth);
    if (!fit_contention || c->source != CPU_SRC_SAMPLES)
        return;
    sim_growth_from_rows(c->synth_cpu_by, c->nsynth_cpu_by, c->synth_kind, &p->synth_growth);
    sim_growth_from_rows(c->gpu_cpu_by, c->ngpu_cpu_by, c->gpu_kind, &p->gpu_growth);
}

/* The base times, to resample: measured, divided by the slowdown the
 * model sees (deflate: sg holds it). */
static void base_times(const struct cu *c, size_t n, int deflate, const struct segs *sg, double *ws,
                       double *wg, double *wp)
{
    for (size_t i = 0; i < n; i++) {
        double ds = c[i].se - c[i].ss, dg = c[i].ge - c[i].gs, dp = c[i].gs - c[i].ps;
        if (deflate) {
            ds /= mean_over(sg->cum[0], sg->t, c[i].iss, c[i].ise);
            dg /= mean_over(sg->cum[2], sg->t, c[i].igs, c[i].ige);
            dp /= mean_over(sg->cum[1], sg->t, c[i].ips, c[i].igs);
        }
        ws[i] = ds, wg[i] = dg, wp[i] = dp;
    }
}

static int cmp_kernel_start(const void *a, const void *b)
{
    const struct cu *x = *(const struct cu *const *)a, *y = *(const struct cu *const *)b;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    return x->ks < y->ks ? -1 : x->ks > y->ks;
}

#define KERNEL_MIN_SHARE 0.9 /* the kernel model needs kernel phases in this share of the complete units */
#define KERNEL_HANDOFF 1e-3  /* s: kernels starting this soon after the device's last ones waited for it */
#define PHASE_OVERLAP 1.02   /* GPU phases summing to more than this times the busy time overlap */

/* How much the GPU phases overlap on their devices: their summed time
 * (gpu_sum, prep_latency) over the devices' busy time, 1 where workers
 * never share a device at once. */
static double phase_overlap(const struct run_result *res, double gpu_sum)
{
    double busy = 0;
    for (size_t d = 0; d < res->ndev; d++)
        busy += (double)res->dev[d].busy * 1e-9;
    return busy > 0 ? gpu_sum / busy : 1;
}

/* The kernel model (sim.h): each unit's GPU phase, wg[i] at full speed (c
 * sorted as wg), into its parts (struct sim_kparts), each scaled by wg[i]
 * over the measured phase.  The wait for the device is left out of the
 * host work before the kernels: mutex_wait where a duration line gives it;
 * else a unit whose kernels began at the device's last kernels' end
 * (within KERNEL_HANDOFF, or 1% of its kernels) waited, and its host work
 * before them is the median of the units' that did not wait, never more
 * than it had.  A unit without kernels holds the device for its whole
 * phase.  The prep latency wp[i] runs from the later of GPU_PICKUP and
 * the device's last kernels' end (not its last GPU_END: a unit may wait
 * for its device before GPU_START, as `waterfall run`'s do, or inside its
 * phase, as cuzk's do).  Sets f's kernel figures.
 * 1: the model holds (*out allocated, n of them); 0: it does not (f says
 * why, where the trace has kernels); -1: out of memory. */
static int kernel_split(struct cu *c, size_t n, int from_lines, double overlap, double *wg, double *wp,
                        struct sim_fit *f, struct sim_kparts **out, int *at_unlock)
{
    size_t nk = 0;
    for (size_t i = 0; i < n; i++)
        nk += c[i].has_k;
    f->kernel_units = nk;
    if (nk == 0)
        return 0;
    if ((double)nk < KERNEL_MIN_SHARE * (double)n) {
        f->kernel_why = "fewer than 9 in 10 complete units have kernel phases";
        return 0;
    }
    /* A kernel phase may only mark where the kernels ran in a phase that
     * holds the device throughout (`waterfall run` holds it from GPU_START
     * to GPU_END, its CHECK included).  What shows a device free outside
     * the kernels: duration lines (their source takes the device's mutex
     * for the kernels only), or GPU phases that overlap on one device
     * (overlap: phase_overlap). */
    if (!from_lines && !(overlap > PHASE_OVERLAP)) {
        f->kernel_why = "nothing shows the device free outside them: no duration lines, and the GPU phases never "
                        "overlap on a device";
        return 0;
    }
    struct cu **by = malloc(n * sizeof *by);
    double *free_pre = malloc(n * sizeof *free_pre);
    char *waited = calloc(n, 1);
    struct sim_kparts *k = calloc(n, sizeof *k);
    if (!by || !free_pre || !waited || !k) {
        free(by), free(free_pre), free(waited), free(k);
        return -1;
    }
    /* waits for the device, and whether kernels of units overlap on one
     * (then the device does not serialize them by unit: the fold stays) */
    size_t m = 0, nfree = 0;
    for (size_t i = 0; i < n; i++)
        if (c[i].has_k)
            by[m++] = &c[i];
    qsort(by, m, sizeof *by, cmp_kernel_start);
    double sum = 0, uni = 0, last_end = -INFINITY;
    for (size_t i = 0; i < m; i++) {
        struct cu *x = by[i];
        if (i == 0 || x->device != by[i - 1]->device)
            last_end = -INFINITY;
        double d = x->ke - x->ks, tol = fmax(KERNEL_HANDOFF, 0.01 * d);
        sum += d;
        uni += x->ke > last_end ? x->ke - fmax(x->ks, last_end) : 0;
        if (x->has_w ? x->mw > KERNEL_HANDOFF : last_end > x->gs && x->ks - last_end <= tol)
            waited[x - c] = 1;
        /* the median host work before the kernels, of units whose device
         * was free at their GPU_START: whether a unit waits depends on
         * its host work (the longer, the less), whether its device was
         * free does not */
        if (last_end <= x->gs)
            free_pre[nfree++] = x->ks - x->gs;
        last_end = fmax(last_end, x->ke);
    }
    double fill = 0;
    if (nfree) {
        qsort(free_pre, nfree, sizeof *free_pre, cmp_dbl);
        fill = free_pre[nfree / 2];
    }
    free(by), free(free_pre);
    if (sum > 1.02 * uni) {
        free(waited), free(k);
        f->kernel_why = "kernel phases of different units overlap on one device";
        return 0;
    }
    double sp = 0, sk = 0, sh = 0, sq = 0;
    size_t barriers = 0;
    for (size_t i = 0; i < n; i++) {
        const struct cu *x = &c[i];
        double phase = x->ge - x->gs, scale = phase > 0 ? wg[i] / phase : 1;
        struct sim_kparts *p = &k[i];
        if (!x->has_k) {
            p->k1 = wg[i];
        } else {
            double pre = x->ks - x->gs;
            if (x->has_w)
                pre = fmax(0, pre - x->mw);
            else if (waited[i] && fill < pre)
                pre = fill;
            p->pre = pre;
            p->barrier = x->has_b;
            barriers += (size_t)(x->has_b && x->be - x->bs > KERNEL_HANDOFF); /* it waited there */
            p->k1 = (x->has_b ? x->bs : x->ke) - x->ks;
            p->k2 = x->has_b ? x->ke - x->be : 0;
            double end = x->ke;
            if (x->has_h) {
                p->hp = fmax(0, x->hpe - x->gs);
                p->hq = fmax(0, x->hqe - x->hqs); /* b_g2_msm's own time: it follows prep_msm */
                end = fmax(end, x->hqe);
                f->helper_units++;
            }
            p->post = fmax(0, x->ge - end);
            p->pre *= scale, p->k1 *= scale, p->k2 *= scale;
            p->hp *= scale, p->hq *= scale, p->post *= scale;
        }
        sp += p->pre, sh += p->hp + p->hq, sq += p->post;
        sk += x->has_k ? p->k1 + p->k2 : 0;
    }
    free(waited);
    /* the prep latency: from the later of the pickup and the device's
     * last kernels' end (c is by device, then GPU_START: prep_latency),
     * or from the pickup where mutex_wait says the unit waits for its
     * device inside its phase (its GPU_START is not held back); scaled as
     * the contention model scaled the old one (base_times) */
    double free_at = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || c[i].device != c[i - 1].device)
            free_at = -INFINITY;
        double from = c[i].has_w ? c[i].pk : fmax(c[i].pk, fmin(free_at, c[i].gs));
        double was = c[i].gs - c[i].ps, scale = was > 0 ? wp[i] / was : 1;
        wp[i] = c[i].gs > from ? (c[i].gs - from) * scale : 0;
        free_at = fmax(free_at, c[i].has_k ? c[i].ke : c[i].ge);
    }
    f->barrier_units = barriers;
    f->pre_mean = sp / (double)n;
    f->kernel_mean = sk / (double)nk;
    f->helper_mean = f->helper_units ? sh / (double)f->helper_units : 0;
    f->post_mean = sq / (double)n;
    /* a worker that began a unit before its previous unit's GPU_END takes
     * its next unit when the kernels end (cuzk's split API) */
    struct cu **bw = malloc(n * sizeof *bw);
    if (!bw) {
        free(k);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        bw[i] = &c[i];
    qsort(bw, n, sizeof *bw, cmp_worker_pickup);
    *at_unlock = 0;
    for (size_t i = 1; i < n; i++)
        if (bw[i]->worker >= 0 && bw[i]->device == bw[i - 1]->device && bw[i]->worker == bw[i - 1]->worker &&
            bw[i]->gs < bw[i - 1]->ge - KERNEL_HANDOFF)
            *at_unlock = 1;
    free(bw);
    *out = k;
    return 1;
}

/* The device's effective time per unit: busy / units, which folds in any
 * overlap of workers on one device (wg[0..n) scaled to it); and the most
 * workers on a device, and the devices, into f. */
static void device_time(const struct run_result *res, double overlap, double *wg, size_t n, int fold,
                        struct sim_fit *f)
{
    int wmax = 1, ndev = 0;
    for (size_t d = 0; d < res->ndev; d++)
        if (res->dev[d].units) {
            ndev++;
            if ((int)res->dev[d].nworkers > wmax)
                wmax = (int)res->dev[d].nworkers;
        }
    if (fold && overlap > PHASE_OVERLAP)
        for (size_t i = 0; i < n; i++)
            wg[i] /= overlap;
    f->workers_max = wmax;
    f->devices = ndev > 0 ? ndev : 1;
}

int sim_calibrate(const struct run *r, const struct run_result *res, double trace_cores, int fit_contention,
                  const struct sim_params *given, struct sim_params *p, struct sim_fit *f, char *err,
                  size_t errlen)
{
    memset(f, 0, sizeof *f);
    if (trace_cores <= 0) /* the trace's, else this machine's */
        trace_cores = r->cpus ? (double)r->cpus : (double)sysconf(_SC_NPROCESSORS_ONLN);
    if (!(trace_cores > 0))
        trace_cores = 1;
    size_t n = 0;
    for (size_t i = 0; i < r->nunits; i++)
        n += complete(&r->units[i]);
    if (n == 0) {
        snprintf(err, errlen, "the trace has no complete unit (SYNTH_START, SYNTH_END, GPU_START and GPU_END, "
                              "consistent): nothing to calibrate from");
        return -1;
    }
    struct cu *c = malloc(n * sizeof *c);
    double *ws = malloc(n * sizeof *ws), *wg = malloc(n * sizeof *wg), *wp = malloc(n * sizeof *wp);
    double *wd = malloc(n * sizeof *wd);
    struct cu **byw = malloc(n * sizeof *byw);
    if (!c || !ws || !wg || !wp || !wd || !byw) {
        free(c), free(ws), free(wg), free(wp), free(wd), free(byw);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    collect_units(r, res, c);
    dispatch_latency(c, n, byw, wd);
    free(byw);
    double overlap = phase_overlap(res, prep_latency(c, n));
    struct segs sg = {0};
    growth_model(res, fit_contention, p);
    int deflate = contention_model(r, c, n, trace_cores, fit_contention, given, f, &sg, ws, wg, p);
    base_times(c, n, deflate, &sg, ws, wg, wp);
    segs_free(&sg);
    struct sim_kparts *kparts = NULL;
    int at_unlock = 0, km = kernel_split(c, n, r->dur.placed > 0, overlap, wg, wp, f, &kparts, &at_unlock);
    if (km < 0) {
        free(c), free(ws), free(wg), free(wp), free(wd);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    device_time(res, overlap, wg, n, !km, f);
    /* the distributions resampled */
    sim_params_free(p);
    p->pickup = (struct sim_dist){.v = wd, .n = n};
    p->synth = (struct sim_dist){.v = ws, .n = n};
    p->gpu = (struct sim_dist){.v = wg, .n = n};
    p->prep = (struct sim_dist){.v = wp, .n = n};
    p->kernel_model = km;
    p->worker_at_unlock = at_unlock;
    p->kparts = kparts;
    p->nkparts = km ? n : 0;
    /* what the trace shows of the pipeline, for the defaults */
    int starved;
    f->synth_max = synth_peak(c, n, &starved);
    double at, span; /* the most units ready but not yet picked up at once */
    f->channel_seen = most_at_once(c, n, offsetof(struct cu, rd), offsetof(struct cu, pk), &at, 1 << 30, &span);
    free(c);
    f->jobs = res->jobs_completed ? res->jobs_completed : 1;
    f->partitions = r->njobs ? (int)lround((double)r->nunits / (double)r->njobs) : 1;
    if (f->partitions < 1)
        f->partitions = 1;
    f->rate = arrival_rate(r, res, starved);
    if (trace_jobs(r, p, f)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    p->calib_partitions = f->partitions;
    return 0;
}

void sim_trace_defaults(struct sim_params *p, const struct sim_fit *f)
{
    p->jobs = f->jobs; /* the count of job_units, when the trace's jobs are set */
    p->partitions = f->partitions;
    p->rate = f->rate;
    p->synth_concurrency = f->synth_max;
    p->gpu_workers = f->workers_max;
    p->devices = f->devices;
    p->channel = f->channel_seen;
    int m = f->fitted || f->given || f->measured;
    p->cores = m ? f->trace_cores : 0;
    p->synth_threads = m ? f->synth_threads : 1;
    p->host_threads = m ? f->host_threads : 1;
    p->host_share = m ? f->host_share : 0;
    p->host_weight = m ? f->host_weight : 1;
    p->seed = 1;
}

/* The growth model the advice names: the contended role's, else the
 * other's; NULL when the simulation had none. */
static const struct sim_growth *advice_growth(const struct run_result *res, const struct sim_params *p, int *role)
{
    const struct sim_growth *g[2] = {&p->synth_growth, &p->gpu_growth};
    int first = res->cpu.synth_contended ? 0 : 1;
    for (int i = 0; i < 2; i++) {
        int r = i ? 1 - first : first;
        if (g[r]->n >= 2) {
            *role = r;
            return g[r];
        }
    }
    return NULL;
}

/* memory, waiting: never more syntheses than now.  With a growth model
 * (CPU time per unit by concurrency, or time per unit for waiting) the
 * simulation sees the contention, and its best (spj[1..], the least
 * concurrency within SIM_BEST_TOL of the least s per job, already in
 * advice.needed) is the advice.  Without one (too few units at each
 * concurrency) its model is the cores' alone, blind to this contention:
 * then never above the concurrency measured fastest either. */
static void advise_growth(struct run_result *res, const struct sim_params *p, int current, const double *spj,
                          const double *util)
{
    struct advice *a = &res->advice;
    int role = 0;
    const struct sim_growth *g = advice_growth(res, p, &role);
    if (a->needed > current)
        a->needed = current;
    if (!g) {
        int best = cpu_fastest(&res->cpu);
        if (best >= 1 && a->needed > best)
            a->needed = best;
    } else {
        a->growth_n = g->n < ADVICE_GROWTH_PTS ? g->n : ADVICE_GROWTH_PTS;
        a->growth_role = role;
        a->growth_kind = g->kind;
        for (int i = 0; i < a->growth_n; i++)
            a->growth_k[i] = g->k[i], a->growth_w[i] = g->w[i];
        a->growth_slope = g->slope;
        a->growth_util[0] = util[a->needed], a->growth_spj[0] = spj[a->needed];
        a->growth_util[1] = util[current], a->growth_spj[1] = spj[current];
    }
    a->predicted_needed = util[a->needed];
}

/* The workload the advice simulates some 8 times: the trace's own jobs
 * where the GPU waits for input (their arrivals are the answer), at most
 * the first ADVISE_ARRIVALS_MAX units of them; else the trace's where
 * they are enough for a steady state and not too many, else a steady one
 * (jobs x partitions, uniform arrivals, 20 to 20000 units). */
#define ADVISE_ARRIVALS_MAX 200000
static void advise_workload(struct sim_params *p, int arrivals)
{
    if (arrivals && p->job_units) {
        uint64_t n = 0, j = 0;
        for (; j < p->jobs && n < ADVISE_ARRIVALS_MAX; j++)
            n += p->job_units[j];
        p->jobs = j;
        return;
    }
    if (p->job_units && (p->jobs < 20 || sim_units(p) > 20000)) {
        free(p->job_units), free(p->job_at);
        sim_uniform(p);
    }
    if (!p->job_units && p->jobs * (uint64_t)p->partitions > 20000) /* plenty for a steady state */
        p->jobs = 20000 / (uint64_t)p->partitions + 1;
    if (!p->job_units && p->jobs < 20)
        p->jobs = 20;
}

int sim_advise_workers(const struct run *r, struct run_result *res, double trace_cores)
{
    struct sim_params p = {0};
    struct sim_fit f;
    char err[256];
    if (sim_calibrate(r, res, trace_cores, 1, NULL, &p, &f, err, sizeof err))
        return -1;
    int rc = 0;
    if (p.kernel_model) {
        sim_trace_defaults(&p, &f);
        advise_workload(&p, res->bottleneck == BN_INPUT);
        struct advice *a = &res->advice;
        for (int i = 0; i < 2 && rc == 0; i++) {
            p.gpu_workers = f.workers_max + i;
            struct sim_out o;
            if (sim_run(&p, &o, err, sizeof err)) {
                rc = -1;
                break;
            }
            a->workers_util[i] = o.res.utilization;
            a->workers_spj[i] = o.res.s_per_job;
            sim_out_free(&o);
        }
        a->workers_now = f.workers_max;
        a->workers_done = rc == 0;
    }
    sim_params_free(&p);
    return rc;
}

int sim_advise(const struct run *r, struct run_result *res, double trace_cores, int need_model)
{
    struct sim_params p = {0};
    struct sim_fit f;
    char err[256]; /* the caller says the simulation could not run, not why */
    if (sim_calibrate(r, res, trace_cores, 1, NULL, &p, &f, err, sizeof err))
        return -1;
    if (need_model && !f.measured && !f.fitted && !sim_has_growth(&p)) {
        sim_params_free(&p);
        return 0; /* nothing known of the contention: the formula stays */
    }
    sim_trace_defaults(&p, &f);
    advise_workload(&p, res->bottleneck == BN_INPUT);
    int formula = res->advice.valid ? res->advice.needed : 1;
    int top = formula * 2 > 8 ? formula * 2 : 8;
    if (top > 64)
        top = 64;
    if (top < f.synth_max)
        top = f.synth_max;
    double *spj = calloc((size_t)top + 1, sizeof *spj), *util = calloc((size_t)top + 1, sizeof *util);
    int rc = -1;
    if (!spj || !util)
        goto out;
    for (int c = 1; c <= top; c++) {
        p.synth_concurrency = c;
        if (p.channel < c)
            p.channel = c;
        struct sim_out o;
        if (sim_run(&p, &o, err, sizeof err))
            goto out;
        spj[c] = o.res.s_per_job;
        util[c] = o.res.utilization;
        sim_out_free(&o);
    }
    int need = 1 + (int)sim_best(spj + 1, (size_t)top, SIM_BEST_TOL);
    struct advice *a = &res->advice;
    a->model = "simulation";
    a->contention = f.measured ? 2 : f.fitted ? 1 : 0; /* a contention model in the simulation */
    a->valid = 1;
    a->needed = need;
    a->current = f.synth_max;
    a->predicted_now = util[f.synth_max];
    a->predicted_needed = util[need];
    if (res->bottleneck == BN_MEMORY || res->bottleneck == BN_WAITING)
        advise_growth(res, &p, f.synth_max, spj, util);
    if (res->bottleneck == BN_CPU) {
        /* never more syntheses: the simulation at the current setting and
         * one lower, and the cores it simulated */
        int c = f.synth_max;
        a->sim_done = (f.measured || f.fitted) && c >= 1;
        a->sim_util[0] = util[c], a->sim_spj[0] = spj[c];
        a->sim_util[1] = c > 1 ? util[c - 1] : NAN, a->sim_spj[1] = c > 1 ? spj[c - 1] : -1;
        if (a->needed > c)
            a->needed = c;
        advise_cpu(res, f.trace_cores);
    }
    rc = 0;
out:
    free(spj);
    free(util);
    sim_params_free(&p);
    return rc;
}

