/*
 * sim_growth.c -- the simulator's second contention term: work that grows
 * with the syntheses running at once, as the trace measured it (sim.h,
 * struct sim_growth; docs/simulate.md, "Work that grows beside others").
 *
 * Processor sharing slows a task only when the cores are short.  Memory
 * bandwidth and caches slow it even when they are not: the same work
 * takes more CPU time beside others (cuzk's Phase 9: 12-27% with ten
 * syntheses).  A shared lock does the same in wall time, with the CPU time
 * flat.  The recorder's samples measure either one per unit, by how many
 * syntheses ran at once (the analysis's cpu_rows), and that measurement is
 * the model: w(k), the work per unit at k over that at the least k seen,
 * linear between the points, and beyond them the slope of a least-squares
 * line through them.
 */
#include "sim.h"

#include <math.h>
#include <string.h>

/* The part of a row's time per unit that grows: CPU time (memory), or the
 * time neither running nor waiting for a core (waiting: the stage's time
 * less its run-queue wait, which is the cores' share and the processor
 * sharing's to model, not this term's). */
static double row_work(const struct cpu_row *r, int kind)
{
    if (kind == KIND_MEMORY)
        return r->cpu_s;
    double runq = r->want_s - r->cpu_s;
    return r->wall_s - (runq > 0 ? runq : 0);
}

/* Pool adjacent violators: the non-decreasing sequence nearest w (least
 * squares, weighted by the units behind each point).  A dip in the points
 * is noise (a few units at that k), not work that got cheaper beside
 * more others; kept, it would make the simulation favour the very
 * concurrency the stage slows at. */
static void monotone(double *w, const uint64_t *units, int n)
{
    double v[SIM_GROWTH_MAX], wt[SIM_GROWTH_MAX];
    int len[SIM_GROWTH_MAX], nb = 0;
    for (int i = 0; i < n; i++) {
        v[nb] = w[i], wt[nb] = (double)units[i], len[nb] = 1;
        nb++;
        while (nb >= 2 && v[nb - 2] > v[nb - 1]) {
            double s = wt[nb - 2] + wt[nb - 1];
            v[nb - 2] = (v[nb - 2] * wt[nb - 2] + v[nb - 1] * wt[nb - 1]) / s;
            wt[nb - 2] = s;
            len[nb - 2] += len[nb - 1];
            nb--;
        }
    }
    for (int b = 0, i = 0; b < nb; b++)
        for (int j = 0; j < len[b]; j++)
            w[i++] = v[b];
}

/* The slope of the least-squares line of w over k, each point weighted by
 * its units (the mean of more units is surer). */
static double ls_slope(const int *k, const double *w, const uint64_t *units, int n)
{
    double sw = 0, sk = 0, sy = 0;
    for (int i = 0; i < n; i++) {
        sw += (double)units[i];
        sk += (double)units[i] * k[i];
        sy += (double)units[i] * w[i];
    }
    double mk = sk / sw, my = sy / sw, num = 0, den = 0;
    for (int i = 0; i < n; i++) {
        num += (double)units[i] * (k[i] - mk) * (w[i] - my);
        den += (double)units[i] * (k[i] - mk) * (k[i] - mk);
    }
    return den > 0 ? num / den : 0;
}

void sim_growth_from_rows(const struct cpu_row *rows, size_t n, int kind, struct sim_growth *g)
{
    memset(g, 0, sizeof *g);
    if (kind != KIND_MEMORY && kind != KIND_WAITING)
        return;
    int m = 0;
    for (size_t i = 0; i < n && m < SIM_GROWTH_MAX; i++)
        if (rows[i].units >= SIM_GROWTH_MIN_UNITS && rows[i].k >= 1 && row_work(&rows[i], kind) > 0 &&
            rows[i].wall_s > 0 && (m == 0 || rows[i].k > g->k[m - 1])) {
            g->k[m] = rows[i].k;
            g->units[m] = rows[i].units;
            g->w[m] = row_work(&rows[i], kind);
            m++;
        }
    if (m < 2) /* one concurrency shows no growth */
        return;
    const struct cpu_row *first = NULL;
    for (size_t i = 0; i < n && !first; i++)
        if (rows[i].k == g->k[0])
            first = &rows[i];
    double base = g->w[0];
    for (int i = 0; i < m; i++)
        g->w[i] /= base;
    /* Beyond the points, the trend of all of them, not of the last two:
     * one noisy point at the largest k would set it alone.  Never
     * negative: more syntheses beside a unit do not make its work cheaper
     * (a line that falls is noise, or a machine that got quieter), and a
     * falling w would advise the concurrency this model exists to warn of. */
    double slope = ls_slope(g->k, g->w, g->units, m);
    g->slope = slope > 0 ? slope : 0;
    monotone(g->w, g->units, m);
    for (int i = 0; i < m; i++) /* the least k is the reference: never below it */
        if (g->w[i] < 1)
            g->w[i] = 1;
    double share = base / first->wall_s;
    g->share = share > 1 ? 1 : share;
    g->kind = kind;
    g->n = m;
}

double sim_growth_w(const struct sim_growth *g, double k)
{
    if (g->n < 2 || k <= g->k[0])
        return 1;
    int last = g->n - 1;
    if (k >= g->k[last])
        return g->w[last] + g->slope * (k - g->k[last]);
    int i = 1;
    while (g->k[i] < k)
        i++;
    double a = g->k[i - 1], b = g->k[i];
    return g->w[i - 1] + (g->w[i] - g->w[i - 1]) * (k - a) / (b - a);
}

double sim_growth_factor(const struct sim_growth *g, double k)
{
    if (g->n < 2)
        return 1;
    return 1 + g->share * (sim_growth_w(g, k) - 1);
}

int sim_has_growth(const struct sim_params *p)
{
    return p->synth_growth.n >= 2 || p->gpu_growth.n >= 2;
}
