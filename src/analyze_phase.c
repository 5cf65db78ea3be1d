/*
 * analyze_phase.c -- inside the stages: phases, marks, kernel utilization,
 * kinds, and the durations a daemon reports itself.
 *
 * The six events say when the GPU phase starts and ends, not what fills
 * it: in a real prover it holds a wait for the GPU lock, host work (CPU
 * MSMs) and finalization besides the kernels (cuzk measured 90.1% GPU-phase
 * utilization against 46.3% kernel utilization).  Sub-phases (phase.h)
 * break it down; the phase named KERNEL is when the device computes, and
 * kernel utilization is the union of those over the same window as
 * utilization.
 */
#include "analyze.h"

#include "mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *analyze_kernel_phase = "KERNEL";

struct occ { /* one phase occurrence */
    uint32_t name;
    int within;
    int64_t d;
};

static int cmp_occ(const void *a, const void *b)
{
    const struct occ *x = a, *y = b;
    if (x->within != y->within)
        return x->within - y->within;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    return (x->d > y->d) - (x->d < y->d);
}

/* Rows by within, then the largest total first; unaccounted last. */
static int cmp_row(const void *a, const void *b)
{
    const struct phase_row *x = a, *y = b;
    if (x->within != y->within)
        return x->within - y->within;
    if ((x->name == PHASE_UNACCOUNTED) != (y->name == PHASE_UNACCOUNTED))
        return x->name == PHASE_UNACCOUNTED ? 1 : -1;
    return (x->total < y->total) - (x->total > y->total);
}

static int cmp_span_start(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* The length of the union of s[0..n) clipped to [lo, hi] (s reordered). */
static int64_t union_len(struct span *s, size_t n, int64_t lo, int64_t hi)
{
    if (n)
        qsort(s, n, sizeof *s, cmp_span_start);
    int64_t total = 0, a = 0, b = 0;
    int open = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t x = s[i].start < lo ? lo : s[i].start, y = s[i].end > hi ? hi : s[i].end;
        if (y <= x)
            continue;
        if (open && x <= b) {
            if (y > b)
                b = y;
            continue;
        }
        if (open)
            total += b - a;
        a = x, b = y, open = 1;
    }
    if (open)
        total += b - a;
    return total;
}

static int is_kernel(const struct run *r, const struct uphase *p)
{
    size_t n;
    const char *s = uphase_name(r, p, &n);
    return !p->mark && strlen(analyze_kernel_phase) == n && strncasecmp(s, analyze_kernel_phase, n) == 0;
}

/* A reported duration in ms ("36512", "3711.5"), in ns; -1 if not a number. */
static double reported_ns(const char *s, size_t n)
{
    char b[32];
    if (n == 0 || n >= sizeof b)
        return -1;
    memcpy(b, s, n);
    b[n] = 0;
    char *end;
    double v = strtod(b, &end);
    return *end == 0 && v >= 0 && isfinite(v) ? v * 1e6 : -1;
}

static void check_reported(const struct run *r, uint32_t ui, const char *key, int from, int to,
                           struct reported_check *c)
{
    const struct unit *u = &r->units[ui];
    size_t n;
    const char *v = unit_attr(r, ui, key, &n);
    if (!v || u->t[from] == T_NONE || u->t[to] == T_NONE)
        return;
    double rep = reported_ns(v, n), timed = (double)(u->t[to] - u->t[from]);
    if (rep < 0)
        return;
    c->checked++;
    if (fabs(timed - rep) > REPORTED_TOLERANCE * rep && fabs(timed - rep) > 1e6) {
        if (!c->disagree++) {
            c->first_line = u->line;
            c->first_reported = rep;
            c->first_timed = timed;
        }
    }
}

/* The device result of device id, or NULL. */
static struct device_result *dev_of(struct run_result *res, int32_t id)
{
    for (size_t i = 0; i < res->ndev; i++)
        if (res->dev[i].device == id)
            return &res->dev[i];
    return NULL;
}

struct kunit { /* a unit's kind, to group by */
    const char *k;
    size_t n;
    uint32_t unit;
};

static int cmp_kunit(const void *a, const void *b)
{
    const struct kunit *x = a, *y = b;
    if (!x->k || !y->k)
        return x->k ? -1 : y->k ? 1 : (x->unit > y->unit) - (x->unit < y->unit);
    size_t n = x->n < y->n ? x->n : y->n;
    int c = memcmp(x->k, y->k, n);
    if (c)
        return c;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    return (x->unit > y->unit) - (x->unit < y->unit);
}

static int by_kind(const struct run *r, struct phase_result *ph)
{
    struct kunit *ku = malloc((r->nunits ? r->nunits : 1) * sizeof *ku);
    uint32_t *idx = malloc((r->nunits ? r->nunits : 1) * sizeof *idx);
    if (!ku || !idx) {
        free(ku);
        free(idx);
        return -1;
    }
    size_t n = 0, kinds = 0;
    for (size_t i = 0; i < r->nunits; i++) {
        if (r->units[i].flags & U_CONTRA)
            continue;
        ku[n].k = unit_attr(r, (uint32_t)i, "kind", &ku[n].n);
        ku[n++].unit = (uint32_t)i;
    }
    qsort(ku, n, sizeof *ku, cmp_kunit);
    for (size_t i = 0; i < n; i++)
        if (ku[i].k && (i == 0 || cmp_kunit(&(struct kunit){ku[i - 1].k, ku[i - 1].n, 0},
                                            &(struct kunit){ku[i].k, ku[i].n, 0})))
            kinds++;
    int rc = 0;
    if (kinds >= 2) {
        ph->kinds = calloc(kinds + 1, sizeof *ph->kinds);
        if (!ph->kinds)
            rc = -1;
        for (size_t i = 0; i < n && rc == 0;) {
            size_t j = i;
            while (j < n && !cmp_kunit(&(struct kunit){ku[i].k, ku[i].n, 0}, &(struct kunit){ku[j].k, ku[j].n, 0}))
                j++;
            struct kind_row *k = &ph->kinds[ph->nkinds++];
            k->kind = ku[i].k;
            k->klen = ku[i].n;
            for (size_t m = i; m < j; m++) {
                idx[m - i] = ku[m].unit;
                k->completed += r->units[ku[m].unit].t[EV_GPU_END] != T_NONE;
            }
            k->units = j - i;
            if (stages_of(r, idx, j - i, k->stage))
                rc = -1;
            i = j;
        }
    }
    free(ku);
    free(idx);
    return rc;
}

int analyze_phase(const struct run *r, struct run_result *res)
{
    struct phase_result *ph = &res->phase;
    memset(ph, 0, sizeof *ph);
    ph->kernel_utilization = NAN;
    for (size_t i = 0; i < res->ndev; i++)
        res->dev[i].kernel_utilization = NAN;
    if (!r->nxev && !r->nxattr)
        return 0;
    struct uphase *up = NULL;
    size_t upcap = 0, nocc = 0, occcap = 0, rowcap = 0, gcap = 0;
    struct occ *occ = NULL;
    struct span *gsub = NULL;                /* a unit's GPU sub-phases */
    struct span **kspans = calloc(res->ndev ? res->ndev : 1, sizeof *kspans); /* kernel phases by device */
    size_t *nk = calloc(res->ndev ? res->ndev : 1, sizeof *nk), *kc = calloc(res->ndev ? res->ndev : 1, sizeof *kc);
    int64_t encl[WITHIN_N] = {0};
    int any_gpu_sub = 0, rc = -1;
    struct { uint32_t name; uint64_t count; } *mk = NULL;
    size_t nmk = 0, mkcap = 0;
    if (!kspans || !nk || !kc)
        goto out;
    /* a first look: does any unit have a GPU sub-phase (then every GPU
     * phase gets an `unaccounted` row) */
    for (uint32_t u = 0; u < r->nunits; u++) {
        const struct unit *un = &r->units[u];
        if (un->flags & U_CONTRA)
            continue;
        if (un->t[EV_GPU_START] != T_NONE && un->t[EV_GPU_END] != T_NONE)
            encl[WITHIN_GPU] += un->t[EV_GPU_END] - un->t[EV_GPU_START];
        if (un->t[EV_SYNTH_START] != T_NONE && un->t[EV_SYNTH_END] != T_NONE)
            encl[WITHIN_SYNTHESIS] += un->t[EV_SYNTH_END] - un->t[EV_SYNTH_START];
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (int e = 0; e < EV_N; e++)
            if (un->t[e] != T_NONE) {
                lo = un->t[e] < lo ? un->t[e] : lo;
                hi = un->t[e] > hi ? un->t[e] : hi;
            }
        if (hi > lo)
            encl[WITHIN_UNIT] += hi - lo;
        check_reported(r, u, "synth_ms", EV_SYNTH_START, EV_SYNTH_END, &ph->synth_ms);
        check_reported(r, u, "gpu_ms", EV_GPU_START, EV_GPU_END, &ph->gpu_ms);
        size_t np = unit_phases(r, u, &up, &upcap);
        if (np == (size_t)-1)
            goto out;
        size_t ng = 0;
        int gpu_phase = un->t[EV_GPU_START] != T_NONE && un->t[EV_GPU_END] != T_NONE;
        struct device_result *d = gpu_phase ? dev_of(res, un->device) : NULL;
        for (size_t k = 0; k < np; k++) {
            const struct uphase *p = &up[k];
            if (p->mark) {
                size_t m = 0;
                while (m < nmk && mk[m].name != p->name)
                    m++;
                if (m == nmk) {
                    if (grow_heap((void **)&mk, &mkcap, nmk, sizeof *mk, 16))
                        goto out;
                    mk[nmk++].name = p->name, mk[m].count = 0;
                }
                mk[m].count++;
                continue;
            }
            if (grow_heap((void **)&occ, &occcap, nocc, sizeof *occ, 256))
                goto out;
            occ[nocc++] = (struct occ){p->name, p->within, p->end - p->start};
            ph->phases++;
            if (p->within == WITHIN_GPU) {
                if (grow_heap((void **)&gsub, &gcap, ng, sizeof *gsub, 16))
                    goto out;
                gsub[ng++] = (struct span){p->start, p->end};
                any_gpu_sub = 1;
            }
            if (d && is_kernel(r, p)) {
                size_t di = (size_t)(d - res->dev);
                if (grow_heap((void **)&kspans[di], &kc[di], nk[di], sizeof **kspans, 256))
                    goto out;
                kspans[di][nk[di]++] = (struct span){p->start, p->end};
            }
        }
        if (gpu_phase) {
            /* the part of the GPU phase no sub-phase covers (recorded for
             * every GPU phase; kept as a row only if some unit has one) */
            int64_t len = un->t[EV_GPU_END] - un->t[EV_GPU_START];
            int64_t cov = ng ? union_len(gsub, ng, un->t[EV_GPU_START], un->t[EV_GPU_END]) : 0;
            if (grow_heap((void **)&occ, &occcap, nocc, sizeof *occ, 256))
                goto out;
            occ[nocc++] = (struct occ){PHASE_UNACCOUNTED, WITHIN_GPU, len - cov};
        }
    }
    /* the rows: occurrences grouped by (within, name) */
    if (nocc)
        qsort(occ, nocc, sizeof *occ, cmp_occ);
    int64_t *v = scratch_alloc((nocc ? nocc : 1) * sizeof *v);
    if (!v)
        goto out;
    for (size_t i = 0; i < nocc;) {
        size_t j = i;
        while (j < nocc && occ[j].within == occ[i].within && occ[j].name == occ[i].name)
            j++;
        if (occ[i].name != PHASE_UNACCOUNTED || any_gpu_sub) {
            if (grow_heap((void **)&ph->rows, &rowcap, ph->nrows, sizeof *ph->rows, 8)) {
                scratch_free(v);
                goto out;
            }
            struct phase_row *row = &ph->rows[ph->nrows++];
            row->name = occ[i].name;
            row->within = occ[i].within;
            double total = 0;
            for (size_t m = i; m < j; m++) {
                v[m - i] = occ[m].d;
                total += (double)occ[m].d;
            }
            stage_fill(&row->st, v, j - i);
            row->total = total;
            row->share = encl[row->within] > 0 ? total / (double)encl[row->within] : NAN;
        }
        i = j;
    }
    scratch_free(v);
    if (ph->nrows)
        qsort(ph->rows, ph->nrows, sizeof *ph->rows, cmp_row);
    /* kernel utilization, per device and over the devices that have it */
    for (size_t i = 0; i < res->ndev; i++) {
        struct device_result *d = &res->dev[i];
        if (!nk[i] || !d->units)
            continue;
        d->has_kernel = 1;
        d->kernel_busy = union_len(kspans[i], nk[i], d->window_start, d->window_end);
        int64_t w = d->window_end - d->window_start;
        d->kernel_utilization = w > 0 ? (double)d->kernel_busy / (double)w : NAN;
        ph->has_kernel = 1;
        ph->kernel_busy += d->kernel_busy;
        ph->kernel_window += w;
        ph->gpu_busy_kernel_devs += d->busy;
    }
    if (ph->has_kernel && ph->kernel_window > 0)
        ph->kernel_utilization = (double)ph->kernel_busy / (double)ph->kernel_window;
    if (nmk) {
        ph->marks = malloc(nmk * sizeof *ph->marks);
        if (!ph->marks)
            goto out;
        for (size_t i = 0; i < nmk; i++)
            ph->marks[i] = (struct mark_row){mk[i].name, mk[i].count};
        ph->nmarks = nmk;
    }
    if (r->nxattr && by_kind(r, ph))
        goto out;
    rc = 0;
out:
    for (size_t i = 0; kspans && i < res->ndev; i++)
        free(kspans[i]);
    free(kspans);
    free(nk);
    free(kc);
    free(up);
    free(occ);
    free(gsub);
    free(mk);
    return rc;
}

void phase_result_free(struct phase_result *p)
{
    free(p->rows);
    free(p->marks);
    free(p->kinds);
    memset(p, 0, sizeof *p);
}
