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

#include "durations.h"
#include "explain.h"
#include "mem.h"
#include "par.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The device computes in the GPU phase: a phase of the kernel's name
 * outside it (in synthesis, say) is not the device's. */
static int is_kernel_name(const struct run_result *res, const char *s, size_t n)
{
    return strlen(res->kernel_phase) == n && strncasecmp(s, res->kernel_phase, n) == 0;
}

int phase_is_kernel(const struct run_result *res, const struct uphase *p)
{
    size_t n;
    if (p->mark || p->within != WITHIN_GPU)
        return 0;
    const char *s = uphase_name(res->run, p, &n);
    return is_kernel_name(res, s, n);
}

/* The duration lines' barrier_wait (gpu_tid 0's, as the critical path's
 * row): the GPU waits in gpu_total for the host's prep_msm. */
static int is_barrier(const struct run *r, const struct uphase *p)
{
    size_t n;
    if (p->mark || p->within != WITHIN_GPU)
        return 0;
    const char *s = uphase_name(r, p, &n);
    return n == 12 && memcmp(s, "barrier_wait", 12) == 0;
}

int phase_row_is_kernel(const struct run_result *res, const struct phase_row *row)
{
    if (row->name == PHASE_UNACCOUNTED)
        return 0;
    struct uphase p = {row->name, 0, row->within, 0, 0, 0};
    return phase_is_kernel(res, &p);
}

/* Occurrences (phases' lengths) from which the rows are made on two
 * threads: a few hundred thousand units' worth. */
#define PHASE_SPLIT_MIN 1000000

/* A row to be: phases of one name within one stage, and their lengths
 * (a group's own array: millions of occurrences, and few groups, so
 * they are never gathered into one array to be sorted apart again). */
struct group {
    uint32_t name;
    int within;
    int64_t *d;
    size_t n, cap;
    /* the time its occurrences cover, each unit's merged: the share's
     * (a unit's occurrences of one name may overlap: two streams, or
     * START, START, END, END), with the last unit's furthest end */
    int64_t cover, cover_end;
    uint32_t cover_unit; /* UINT32_MAX: none yet */
};

static int cmp_time(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_group(const void *a, const void *b)
{
    const struct group *x = a, *y = b;
    if (x->within != y->within)
        return x->within - y->within;
    return (x->name > y->name) - (x->name < y->name); /* PHASE_UNACCOUNTED last */
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

/* The length of the union of s[0..n) clipped to [lo, hi] (s reordered):
 * sorted by sort_spans (a unit's dozen by its insertion pass, a device's
 * kernels, hundreds of thousands, by its radix sort, scratch from sp). */
static int64_t union_len(struct scratch_pool *sp, struct span *s, size_t n, int64_t lo, int64_t hi)
{
    if (sort_spans(sp, s, n))
        qsort(s, n, sizeof *s, cmp_span_start); /* the radix sort's scratch was not to be had */
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

/* Are s[0..n) in order of start and apart (as one GPU's kernels are)? */
static int disjoint(const struct span *s, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (s[i].start < s[i - 1].end)
            return 0;
    return 1;
}

int64_t barrier_idle(struct scratch_pool *sp, const struct span *k, size_t nk, const struct span *b, size_t nb,
                     int64_t lo, int64_t hi)
{
    if (!nk || !nb)
        return 0;
    if (disjoint(k, nk) && disjoint(b, nb)) { /* one kernel at a time: where a kernel and a wait overlap */
        int64_t idle = 0;
        for (size_t i = 0, j = 0; i < nk && j < nb;) {
            int64_t x = k[i].start > b[j].start ? k[i].start : b[j].start;
            int64_t y = k[i].end < b[j].end ? k[i].end : b[j].end;
            x = x < lo ? lo : x, y = y > hi ? hi : y;
            if (y > x)
                idle += y - x;
            if (k[i].end < b[j].end)
                i++;
            else
                j++;
        }
        return idle;
    }
    /* the four edges' times, each sorted: kernels' starts and ends, barriers' */
    size_t n[4] = {nk, nk, nb, nb};
    int64_t *t[4];
    for (int q = 0; q < 4; q++)
        t[q] = malloc(n[q] * sizeof *t[q]);
    int64_t idle = -1;
    if (!t[0] || !t[1] || !t[2] || !t[3])
        goto out;
    for (size_t i = 0; i < nk; i++)
        t[0][i] = k[i].start, t[1][i] = k[i].end;
    for (size_t i = 0; i < nb; i++)
        t[2][i] = b[i].start, t[3][i] = b[i].end;
    for (int q = 0; q < 4; q++)
        if (sort_times(sp, t[q], n[q]))
            goto out;
    /* a sweep: between two edges, K kernels run and B of them wait */
    size_t at[4] = {0, 0, 0, 0};
    int64_t K = 0, B = 0, prev = INT64_MIN;
    idle = 0;
    for (;;) {
        int q = -1;
        for (int r = 0; r < 4; r++)
            if (at[r] < n[r] && (q < 0 || t[r][at[r]] < t[q][at[q]]))
                q = r;
        if (q < 0)
            break;
        int64_t now = t[q][at[q]++];
        if (K > 0 && B >= K && prev != INT64_MIN) {
            int64_t x = prev < lo ? lo : prev, y = now > hi ? hi : now;
            if (y > x)
                idle += y - x;
        }
        prev = now;
        K += q == 0 ? 1 : q == 1 ? -1 : 0;
        B += q == 2 ? 1 : q == 3 ? -1 : 0;
    }
out:
    for (int q = 0; q < 4; q++)
        free(t[q]);
    return idle;
}

/* A reported duration in ms ("36512", "3711.5"), in ns; -1 if not a
 * number.  Digits and one '.', read by hand: strtod would follow the
 * locale of a program that links the library (a comma for the point). */
static double reported_ns(const char *s, size_t n)
{
    double v = 0, scale = 1;
    int digits = 0, dot = 0;
    if (n == 0 || n >= 32)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.' && !dot) {
            dot = 1;
            continue;
        }
        if (s[i] < '0' || s[i] > '9')
            return -1;
        digits++;
        if (dot)
            v += (s[i] - '0') * (scale /= 10);
        else
            v = v * 10 + (s[i] - '0');
    }
    return digits ? v * 1e6 : -1;
}

/* c's counts of unit ui; its excess over the reported, when outside, in
 * *excess (ns; else 0): the caller sums them (struct acc's, in unit order). */
static void check_reported(const struct run *r, uint32_t ui, const char *key, int from, int to,
                           struct reported_check *c, double *excess)
{
    *excess = 0;
    const struct unit *u = &r->units[ui];
    size_t n;
    uint64_t line = 0;
    const char *v = unit_attr_at(r, ui, key, &n, &line);
    if (!v || u->t[from] == T_NONE || u->t[to] == T_NONE)
        return;
    int64_t t0 = u->t[from];
    /* cuzk's gpu_ms is timed from gpu_prove_start's entry, inside the
     * spawn_blocking that GPU_START is printed before (pipeline.rs): where
     * a spawn line gave the unit its spawn_to_enter, that wait is not in it */
    size_t first, np = to == EV_GPU_END ? unit_dphases(r, ui, &first) : 0;
    for (size_t k = 0; k < np; k++) {
        const struct dphase *p = &r->dur.ph[first + k];
        size_t len;
        const char *name = strtab_get(r->strs, p->name, &len);
        if (len == 20 && !memcmp(name, "spawn_to_enter_START", 20) && p->a == t0 && p->b <= u->t[to]) {
            t0 = p->b;
            break;
        }
    }
    double rep = reported_ns(v, n), timed = (double)(u->t[to] - t0);
    if (rep < 0)
        return;
    c->checked++;
    if (timed - rep > REPORTED_TOLERANCE * rep && timed - rep > 1e6) {
        c->outside++;
        *excess = timed - rep;
    } else if (rep - timed > REPORTED_TOLERANCE * rep && rep - timed > 1e6) {
        if (!c->disagree++) {
            c->first_line = line;
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

static int by_kind(struct scratch_pool *sp, const struct run *r, struct phase_result *ph)
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
            if (stages_of(sp, r, idx, j - i, k->stage))
                rc = -1;
            i = j;
        }
    }
    free(ku);
    free(idx);
    return rc;
}

/* What the walk over the units gathers. */
struct acc {
    struct scratch_pool *sp; /* the analysis's */
    struct uphase *up; /* the unit's phases and marks */
    size_t upcap;
    struct group *g;   /* the occurrences (every phase, and each GPU phase's unaccounted part) by
                        * (within, name), and their index */
    size_t ng, gcap_;
    uint32_t *gidx;    /* group + 1 by hash (0: empty); gmask + 1 slots */
    size_t gmask;
    struct span *gsub; /* the unit's GPU sub-phases */
    size_t gcap;
    struct span_list *kern; /* kernel phases by device */
    struct span_list *bar;  /* barrier_wait phases by device (duration lines: barrier_idle) */
    size_t *ku, *gu;      /* by device: units with a kernel phase, units with a GPU phase */
    int64_t *nokern;      /* by device: the GPU phases of units with none, summed (ns) */
    struct mark_row *marks; /* the marks by name, as they first come */
    size_t nmarks, markcap;
    struct reported_check synth_ms, gpu_ms;
    /* the second half's terms of the sums of doubles (encl, the checks'
     * outside_ns), in unit order: acc_join adds them onto the first half's
     * sums in that order, and so gets the bits one walk gets (an addition
     * of doubles depends on its order) */
    struct acc_term {
        int sum; /* ACC_* */
        double v;
    } *terms;
    size_t nterms, termcap;
    int defer; /* the second half: its terms go to terms, not to its sums */
    double encl[WITHIN_N]; /* the enclosing stages' summed time, ns (a double: a long log's units' spans
                            * summed pass INT64_MAX, 292 years, where a queue grows without bound) */
    int any_gpu_sub;
};

static size_t group_home(const struct acc *a, uint32_t name, int within)
{
    uint64_t h = ((uint64_t)name << 2 | (uint64_t)within) * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 40) & a->gmask;
}

/* The group of (within, name), added if new: a few names, millions of
 * occurrences, so each finds its group here, not by a sort. */
static int64_t group_of(struct acc *a, uint32_t name, int within)
{
    size_t i = a->gidx ? group_home(a, name, within) : 0;
    for (; a->gidx && a->gidx[i]; i = (i + 1) & a->gmask) {
        const struct group *g = &a->g[a->gidx[i] - 1];
        if (g->name == name && g->within == within)
            return a->gidx[i] - 1;
    }
    if (!a->gidx || 2 * (a->ng + 1) > a->gmask + 1) { /* grow the index, at most half full */
        size_t slots = a->gidx ? 2 * (a->gmask + 1) : 64;
        uint32_t *nx = calloc(slots, sizeof *nx);
        if (!nx)
            return -1;
        free(a->gidx);
        a->gidx = nx, a->gmask = slots - 1;
        for (size_t k = 0; k < a->ng; k++) {
            size_t j = group_home(a, a->g[k].name, a->g[k].within);
            while (a->gidx[j])
                j = (j + 1) & a->gmask;
            a->gidx[j] = (uint32_t)k + 1;
        }
        for (i = group_home(a, name, within); a->gidx[i];)
            i = (i + 1) & a->gmask;
    }
    if (grow_heap((void **)&a->g, &a->gcap_, a->ng, sizeof *a->g, 16))
        return -1;
    a->g[a->ng] = (struct group){name, within, NULL, 0, 0, 0, 0, UINT32_MAX};
    a->gidx[i] = (uint32_t)++a->ng;
    return (int64_t)a->ng - 1;
}

/* An occurrence [start, end) of unit u (its occurrences come by start). */
static int add_occ(struct acc *a, uint32_t name, int within, uint32_t u, int64_t start, int64_t end)
{
    int64_t g = group_of(a, name, within);
    if (g < 0)
        return -1;
    struct group *x = &a->g[g];
    if (grow_array_flat((void **)&x->d, &x->cap, x->n + 1, sizeof *x->d)) /* millions, in order */
        return -1;
    x->d[x->n++] = end - start;
    if (x->cover_unit != u) {
        x->cover_unit = u;
        x->cover += end - start;
        x->cover_end = end;
    } else if (end > x->cover_end) {
        x->cover += end - (start > x->cover_end ? start : x->cover_end);
        x->cover_end = end;
    }
    return 0;
}

static int add_mark(struct acc *a, uint32_t name, uint64_t count)
{
    size_t m = 0;
    while (m < a->nmarks && a->marks[m].name != name)
        m++;
    if (m == a->nmarks) {
        if (grow_heap((void **)&a->marks, &a->markcap, a->nmarks, sizeof *a->marks, 16))
            return -1;
        a->marks[a->nmarks++] = (struct mark_row){name, 0};
    }
    a->marks[m].count += count;
    return 0;
}

/* The enclosing stages' time of one unit.  The unit's own span runs from
 * its first event to its last, its phases and marks included (np of them
 * in up): a phase within the unit lies outside its stages, often before
 * its first event of the six, and a share of a span that left it out
 * could pass 1. */
enum { ACC_SYNTH_OUTSIDE = WITHIN_N, ACC_GPU_OUTSIDE }; /* a sum of struct acc's: encl[w] for w < WITHIN_N */

static double *acc_sum(struct acc *a, int sum)
{
    return sum < WITHIN_N ? &a->encl[sum] : sum == ACC_SYNTH_OUTSIDE ? &a->synth_ms.outside_ns : &a->gpu_ms.outside_ns;
}

static int acc_add(struct acc *a, int sum, double v)
{
    if (!a->defer) {
        *acc_sum(a, sum) += v;
        return 0;
    }
    if (grow_heap((void **)&a->terms, &a->termcap, a->nterms, sizeof *a->terms, 256))
        return -1;
    a->terms[a->nterms++] = (struct acc_term){sum, v};
    return 0;
}

static int add_enclosing(const struct unit *un, const struct uphase *up, size_t np, struct acc *a)
{
    if (un->t[EV_GPU_START] != T_NONE && un->t[EV_GPU_END] != T_NONE)
        if (acc_add(a, WITHIN_GPU, (double)(un->t[EV_GPU_END] - un->t[EV_GPU_START])))
            return -1;
    if (un->t[EV_SYNTH_START] != T_NONE && un->t[EV_SYNTH_END] != T_NONE)
        if (acc_add(a, WITHIN_SYNTHESIS, (double)(un->t[EV_SYNTH_END] - un->t[EV_SYNTH_START])))
            return -1;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int e = 0; e < EV_N; e++)
        if (un->t[e] != T_NONE) {
            lo = un->t[e] < lo ? un->t[e] : lo;
            hi = un->t[e] > hi ? un->t[e] : hi;
        }
    for (size_t k = 0; k < np; k++) {
        lo = up[k].start < lo ? up[k].start : lo;
        hi = up[k].end > hi ? up[k].end : hi;
    }
    if (hi > lo)
        return acc_add(a, WITHIN_UNIT, (double)(hi - lo));
    return 0;
}

/* One consistent unit: its phases, marks, kernel phases and the part of
 * its GPU phase that no sub-phase covers. */
static int walk_unit(const struct run *r, struct run_result *res, uint32_t u, struct acc *a)
{
    const struct unit *un = &r->units[u];
    double xs, xg;
    check_reported(r, u, "synth_ms", EV_SYNTH_START, EV_SYNTH_END, &a->synth_ms, &xs);
    check_reported(r, u, "gpu_ms", EV_GPU_START, EV_GPU_END, &a->gpu_ms, &xg);
    if ((xs != 0 && acc_add(a, ACC_SYNTH_OUTSIDE, xs)) || (xg != 0 && acc_add(a, ACC_GPU_OUTSIDE, xg)))
        return -1;
    size_t np = unit_phases(r, u, &a->up, &a->upcap), ng = 0;
    if (np == (size_t)-1)
        return -1;
    if (add_enclosing(un, a->up, np, a))
        return -1;
    int gpu_phase = un->t[EV_GPU_START] != T_NONE && un->t[EV_GPU_END] != T_NONE;
    struct device_result *d = gpu_phase ? dev_of(res, un->device) : NULL;
    int kernels = 0;
    for (size_t k = 0; k < np; k++) {
        const struct uphase *p = &a->up[k];
        if (p->mark) {
            if (add_mark(a, p->name, 1))
                return -1;
            continue;
        }
        if (add_occ(a, p->name, p->within, u, p->start, p->end))
            return -1;
        if (p->within == WITHIN_GPU) {
            if (grow_heap((void **)&a->gsub, &a->gcap, ng, sizeof *a->gsub, 16))
                return -1;
            a->gsub[ng++] = (struct span){p->start, p->end};
            a->any_gpu_sub = 1;
        }
        if (d && phase_is_kernel(res, p)) {
            if (span_list_add(&a->kern[d - res->dev], (struct span){p->start, p->end}))
                return -1;
            kernels = 1;
        } else if (d && r->dur.placed && is_barrier(r, p) &&
                   span_list_add(&a->bar[d - res->dev], (struct span){p->start, p->end})) {
            return -1;
        }
    }
    if (d) {
        a->gu[d - res->dev]++;
        a->ku[d - res->dev] += (size_t)kernels;
        if (!kernels)
            a->nokern[d - res->dev] += un->t[EV_GPU_END] - un->t[EV_GPU_START];
    }
    if (!gpu_phase)
        return 0;
    /* recorded for every GPU phase; a row only if some unit has a sub-phase */
    int64_t len = un->t[EV_GPU_END] - un->t[EV_GPU_START];
    int64_t cov = ng ? union_len(a->sp, a->gsub, ng, un->t[EV_GPU_START], un->t[EV_GPU_END]) : 0;
    return add_occ(a, PHASE_UNACCOUNTED, WITHIN_GPU, u, 0, len - cov);
}

/* A row's figures from its group's lengths (sorted here for the
 * quantiles before they are summed): rows are filled one at a time by
 * each thread that takes them (struct fill_job). */
struct fill_job {
    struct acc *a;
    struct phase_row *rows;
    const struct group *groups; /* rows[k]'s is groups[k] */
    size_t n;
    atomic_size_t next;
};

static void fill_rows(void *p)
{
    struct fill_job *j = p;
    for (size_t k; (k = atomic_fetch_add(&j->next, 1)) < j->n;) {
        struct phase_row *row = &j->rows[k];
        const struct group *gr = &j->groups[k];
        int64_t *g = gr->d;
        if (sort_times(j->a->sp, g, gr->n)) /* ascending, as stage_fill sums them */
            qsort(g, gr->n, sizeof *g, cmp_time); /* the radix sort's scratch was not to be had */
        row->total = 0;
        for (size_t m = 0; m < gr->n; m++)
            row->total += (double)g[m];
        stage_fill(j->a->sp, &row->st, g, gr->n);
        /* of the time its occurrences cover, each unit's merged: never
         * more than the enclosing stages' (json.md, "phases") */
        row->share = j->a->encl[row->within] > 0 ? (double)gr->cover / j->a->encl[row->within] : NAN;
    }
}

/* The rows: occurrences grouped by (within, name), the largest first.
 * The groups in (within, name) order, each a row (a few dozen rows, each
 * of a phase's hundreds of thousands of lengths: on two threads where
 * the run is big). */
static int make_rows(struct acc *a, struct phase_result *ph)
{
    struct group *sorted = malloc((a->ng ? a->ng : 1) * sizeof *sorted);
    if (!sorted)
        return -1;
    size_t n = 0, values = 0;
    for (size_t k = 0; k < a->ng; k++)
        if (a->g[k].name != PHASE_UNACCOUNTED || a->any_gpu_sub)
            sorted[n++] = a->g[k], values += a->g[k].n;
    if (n)
        qsort(sorted, n, sizeof *sorted, cmp_group);
    if (n && !(ph->rows = calloc(n, sizeof *ph->rows))) {
        free(sorted);
        return -1;
    }
    ph->nrows = n;
    for (size_t k = 0; k < n; k++)
        ph->rows[k].name = sorted[k].name, ph->rows[k].within = sorted[k].within;
    struct fill_job j = {.a = a, .rows = ph->rows, .groups = sorted, .n = n};
    atomic_init(&j.next, 0);
    if (n > 1 && par_worth(values, PHASE_SPLIT_MIN))
        par_two(fill_rows, &j, &j);
    else
        fill_rows(&j);
    free(sorted);
    if (n)
        qsort(ph->rows, n, sizeof *ph->rows, cmp_row);
    return 0;
}

/* The rows' nesting by the duration lines' source (dur_parent), and
 * their depth.  Other phases have none: a log's own NAME_START/NAME_END
 * say nothing of how they nest. */
static void nest_rows(const struct run *r, struct phase_result *ph)
{
    for (size_t i = 0; i < ph->nrows; i++)
        ph->rows[i].parent = -1, ph->rows[i].depth = 0;
    if (!r->dur.placed && !r->dur.spawn_placed)
        return;
    for (size_t i = 0; i < ph->nrows; i++) {
        struct phase_row *row = &ph->rows[i];
        if (row->name == PHASE_UNACCOUNTED)
            continue;
        size_t n, pn;
        const char *nm = phase_label(r, row, &n);
        char parent[DUR_NAME_MAX + 32];
        if (!(pn = dur_parent(nm, n, parent, sizeof parent)))
            continue;
        for (size_t j = 0; j < ph->nrows; j++) {
            size_t m;
            const char *o = ph->rows[j].name == PHASE_UNACCOUNTED ? NULL : phase_label(r, &ph->rows[j], &m);
            if (o && j != i && ph->rows[j].within == row->within && m == pn && !memcmp(o, parent, pn)) {
                row->parent = (int)j;
                break;
            }
        }
    }
    for (size_t i = 0; i < ph->nrows; i++)
        for (int p = ph->rows[i].parent, guard = 0; p >= 0 && guard < 16; p = ph->rows[p].parent, guard++)
            ph->rows[i].depth++;
}

static const struct phase_row *gpu_row(const struct run *r, const struct phase_result *ph, const char *name)
{
    for (size_t i = 0; i < ph->nrows; i++) {
        size_t n;
        const struct phase_row *row = &ph->rows[i];
        if (row->within == WITHIN_GPU && row->name != PHASE_UNACCOUNTED) {
            const char *s = phase_label(r, row, &n);
            if (n == strlen(name) && !memcmp(s, name, n))
                return row;
        }
    }
    return NULL;
}

/* The critical path of the GPU phase, where duration lines give it
 * (docs/json.md, "critical_path"): host work on the call's path outlasts
 * the kernels' own work when prep_msm + b_g2_msm > gpu_total -
 * barrier_wait, 5% of slack for the values' truncation and noise. */
static void critical_path(const struct run *r, struct phase_result *ph)
{
    struct crit_path *c = &ph->crit;
    memset(c, 0, sizeof *c);
    const struct phase_row *k = gpu_row(r, ph, "gpu_total"), *p = gpu_row(r, ph, "prep_msm"),
                           *b = gpu_row(r, ph, "b_g2_msm"), *w = gpu_row(r, ph, "barrier_wait");
    if (!r->dur.placed || !k || !p)
        return;
    c->known = 1;
    c->kernels = k->st.mean;
    c->barrier = w ? w->st.mean : 0;
    c->barrier_busy = 0; /* the barriers' idle time: kernel_figures */
    c->prep = p->st.mean;
    c->bg2 = b ? b->st.mean : 0;
    c->host_bound = c->prep + c->bg2 > 1.05 * (c->kernels - c->barrier);
}

/* Kernel utilization, per device and over the devices that have it.
 * Where the kernel phase comes from duration lines and some calls could
 * not be given to their units, a device whose units have it in fewer
 * than KERNEL_MIN_UNITS of their GPU phases has none: its union would
 * leave the others' kernels out and read as idle kernels, and the
 * bottleneck would follow it (counted in ph->kernel_units_partial). */
#define KERNEL_MIN_UNITS 0.9
static int kernel_figures(const struct run *r, struct acc *a, struct run_result *res)
{
    struct phase_result *ph = &res->phase;
    int64_t bidle = 0; /* the barriers' idle time over the devices the rule takes (critical_path) */
    /* the kernel phase is the duration lines' gpu_total (its own name, or a
     * GPU's of a call over several: gpu_total.gpu1) */
    int from_lines = r->dur.placed && res->kernel_phase && strncmp(res->kernel_phase, "gpu_total", 9) == 0;
    for (size_t i = 0; i < res->ndev; i++) {
        struct device_result *d = &res->dev[i];
        struct span_list *k = &a->kern[i], *b = &a->bar[i];
        if (!k->n || !d->units)
            continue;
        /* in order of start: the kernels by union_len's sort, the waits here */
        int64_t kb = union_len(a->sp, k->s, k->n, d->window_start, d->window_end);
        if (b->n && sort_spans(a->sp, b->s, b->n))
            qsort(b->s, b->n, sizeof *b->s, cmp_span_start);
        int64_t bi = barrier_idle(a->sp, k->s, k->n, b->s, b->n, d->window_start, d->window_end);
        if (bi < 0)
            return -1;
        bidle += bi;
        if (from_lines && (double)a->ku[i] < KERNEL_MIN_UNITS * (double)a->gu[i]) {
            ph->kernel_units_partial += a->ku[i];
            ph->gpu_units_partial += a->gu[i];
            /* no figure, but a floor for the bottleneck rule (decide) */
            ph->partial.kernel_busy += kb;
            ph->partial.kernel_window += d->window_end - d->window_start;
            ph->partial.gpu_busy += d->busy;
            ph->partial.missing_busy += a->nokern[i];
            continue;
        }
        d->has_kernel = 1;
        if (from_lines) {
            ph->kernel_units_missing += a->gu[i] - a->ku[i];
            ph->gpu_units_kernel += a->gu[i];
            ph->kernel_missing_busy += a->nokern[i];
        }
        d->kernel_busy = kb;
        int64_t w = d->window_end - d->window_start;
        d->kernel_utilization = w > 0 ? (double)d->kernel_busy / (double)w : NAN;
        ph->has_kernel = 1;
        ph->kernel_busy += d->kernel_busy;
        ph->kernel_window += w;
        ph->gpu_busy_kernel_devs += d->busy;
    }
    if (ph->has_kernel && ph->kernel_window > 0)
        ph->kernel_utilization = (double)ph->kernel_busy / (double)ph->kernel_window;
    if (ph->crit.known)
        ph->crit.barrier_busy = (double)bidle;
    return 0;
}

static int acc_init(struct acc *a, struct scratch_pool *sp, size_t nd)
{
    *a = (struct acc){.sp = sp};
    a->kern = calloc(nd, sizeof *a->kern);
    a->bar = calloc(nd, sizeof *a->bar);
    a->ku = calloc(nd, sizeof *a->ku);
    a->gu = calloc(nd, sizeof *a->gu);
    a->nokern = calloc(nd, sizeof *a->nokern);
    return a->kern && a->bar && a->ku && a->gu && a->nokern ? 0 : -1;
}

static void acc_free(struct acc *a, size_t nd)
{
    for (size_t i = 0; i < nd; i++) {
        if (a->kern)
            span_list_free(&a->kern[i]);
        if (a->bar)
            span_list_free(&a->bar[i]);
    }
    free(a->kern);
    free(a->bar);
    free(a->ku);
    free(a->gu);
    free(a->nokern);
    free(a->up);
    for (size_t i = 0; i < a->ng; i++)
        big_free(a->g[i].d, a->g[i].cap * sizeof *a->g[i].d);
    free(a->g);
    free(a->gidx);
    free(a->gsub);
    free(a->marks);
    free(a->terms);
}

/* The walk over units [u0, u1), into its own acc (a cache line of its
 * own: each thread writes its half's sums and counts unit after unit). */
struct walk_half {
    _Alignas(64) const struct run *r;
    struct run_result *res; /* read: the devices and the kernel's name */
    struct acc a;
    uint32_t u0, u1;
    int rc;
};

static void walk_range(void *p)
{
    struct walk_half *h = p;
    int rc = 0;
    for (uint32_t u = h->u0; u < h->u1 && rc == 0; u++)
        if (!(h->r->units[u].flags & U_CONTRA))
            rc = walk_unit(h->r, h->res, u, &h->a);
    h->rc = rc;
}

static void checks_join(struct reported_check *a, const struct reported_check *b)
{
    if (!a->disagree && b->disagree)
        a->first_line = b->first_line, a->first_reported = b->first_reported, a->first_timed = b->first_timed;
    a->checked += b->checked;
    a->disagree += b->disagree;
    a->outside += b->outside; /* outside_ns: b's terms, added by acc_join */
}

/* The second half's walk (units after the first's) joined onto the
 * first's, as one walk over all of them would have left it: each group's
 * lengths appended (make_rows sorts them), the integer sums added, the
 * second half's terms of the sums of doubles added one by one in unit
 * order (struct acc's terms), the marks and the first disagreement in unit
 * order. */
static int acc_join(struct acc *a, struct acc *b, size_t nd)
{
    for (size_t k = 0; k < b->ng; k++) {
        const struct group *y = &b->g[k];
        int64_t gi = group_of(a, y->name, y->within);
        if (gi < 0)
            return -1;
        struct group *x = &a->g[gi];
        /* b's pages moved behind a's lengths, not copied into fresh ones */
        size_t cap = y->cap * sizeof *x->d;
        int64_t *d = y->d;
        if (x->d) {
            cap = x->cap * sizeof *x->d;
            d = big_append_flat(x->d, x->n * sizeof *x->d, &cap, y->d, y->n * sizeof *x->d, y->cap * sizeof *x->d);
        }
        if (y->d && !d)
            return -1;
        b->g[k].d = NULL, b->g[k].cap = 0; /* a's now */
        x->d = d, x->cap = cap / sizeof *x->d;
        x->n += y->n;
        x->cover += y->cover; /* the halves' units are apart: each unit's cover is in one */
    }
    for (size_t i = 0; i < nd; i++) {
        if (span_list_append(&a->kern[i], &b->kern[i]) || span_list_append(&a->bar[i], &b->bar[i]))
            return -1;
        a->ku[i] += b->ku[i];
        a->gu[i] += b->gu[i];
        a->nokern[i] += b->nokern[i];
    }
    for (size_t m = 0; m < b->nmarks; m++)
        if (add_mark(a, b->marks[m].name, b->marks[m].count))
            return -1;
    for (size_t k = 0; k < b->nterms; k++) /* in unit order, after the first half's */
        *acc_sum(a, b->terms[k].sum) += b->terms[k].v;
    a->any_gpu_sub |= b->any_gpu_sub;
    checks_join(&a->synth_ms, &b->synth_ms);
    checks_join(&a->gpu_ms, &b->gpu_ms);
    return 0;
}

int analyze_phase(struct scratch_pool *sp, const struct run *r, struct run_result *res)
{
    struct phase_result *ph = &res->phase;
    memset(ph, 0, sizeof *ph);
    ph->kernel_utilization = NAN;
    for (size_t i = 0; i < res->ndev; i++)
        res->dev[i].kernel_utilization = NAN;
    if (!run_has_phases(r) && !r->nxattr)
        return 0;
    size_t nd = res->ndev ? res->ndev : 1;
    /* a big run's units in two halves, a thread each (a real daemon's log:
     * hundreds of thousands of units, a dozen phases each) */
    int two = r->nunits >= 2 && par_worth(r->nunits, PHASE_SPLIT_MIN / 16);
    uint32_t mid = two ? (uint32_t)(r->nunits / 2) : (uint32_t)r->nunits;
    struct walk_half h[2] = {{r, res, {0}, 0, mid, 0}, {r, res, {0}, mid, (uint32_t)r->nunits, 0}};
    int rc = acc_init(&h[0].a, sp, nd);
    if (two && acc_init(&h[1].a, sp, nd))
        rc = -1;
    h[1].a.defer = 1;
    if (rc == 0 && two)
        par_two(walk_range, &h[0], &h[1]);
    else if (rc == 0)
        walk_range(&h[0]);
    struct acc *a = &h[0].a;
    rc = rc ? rc : h[0].rc ? h[0].rc : two ? h[1].rc : 0;
    if (rc == 0 && two)
        rc = acc_join(a, &h[1].a, nd);
    if (rc == 0) {
        ph->synth_ms = a->synth_ms, ph->gpu_ms = a->gpu_ms;
        ph->marks = a->marks, ph->nmarks = a->nmarks; /* ph's now */
        a->marks = NULL;
        rc = make_rows(a, ph);
    }
    if (rc == 0) {
        nest_rows(r, ph);
        critical_path(r, ph);
        rc = kernel_figures(r, a, res);
        if (rc == 0 && r->nxattr)
            rc = by_kind(sp, r, ph);
    }
    acc_free(&h[0].a, nd);
    if (two)
        acc_free(&h[1].a, nd);
    return rc;
}

void phase_result_free(struct phase_result *p)
{
    free(p->rows);
    free(p->marks);
    free(p->kinds);
    memset(p, 0, sizeof *p);
}

int phase_name_ok(const char *v)
{
    size_t n = strlen(v);
    int ok = n > 0 && n <= 64;
    for (size_t i = 0; ok && i < n; i++)
        ok = (v[i] >= 'A' && v[i] <= 'Z') || (v[i] >= 'a' && v[i] <= 'z') || (v[i] >= '0' && v[i] <= '9') ||
             v[i] == '_' || v[i] == '.' || v[i] == '-' || v[i] == ':';
    return ok;
}

const char *phase_label(const struct run *r, const struct phase_row *row, size_t *len)
{
    if (row->name == PHASE_UNACCOUNTED) {
        *len = 11;
        return "unaccounted";
    }
    size_t n;
    const char *s = strtab_get(r->strs, row->name, &n);
    *len = n - 6; /* _START */
    return s;
}
