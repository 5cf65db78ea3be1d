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
 * The samples decide where there are any; else the timing.  When a run
 * mixes kinds (kind= of its units), the timing compares each kind with
 * itself: a kind that takes longer alone is not contention.
 *
 * The kind of contention (samples only): each unit's stage is measured on
 * the thread that ran it (CPU time, and run-queue wait, over its span:
 * struct cpu_span), and grouped by k as its time is.  A unit beside others
 * that takes longer than one alone took that extra time somewhere: more
 * CPU time for the same work (memory bandwidth or caches), more run-queue
 * wait (cores), or more time off the CPU (waiting: a lock, I/O, page
 * faults); the largest part names the kind.  A role starved by CPU_STARVED
 * with no such comparison (too few units alone) waits for cores.
 *
 * The count of syntheses at time x is #(starts <= x) - #(ends <= x); its
 * integral up to x, F(x), comes from prefix sums of the sorted starts and
 * ends, so each unit's mean count (F(b) - F(a)) / (b - a) costs four
 * searches, each started where the previous unit's ended.  The sums are
 * exact (128 bits).  Each search's finger carries the prefix sum where it
 * stands, moved by the few elements it moves past; a long jump takes the
 * sum from those kept for every PREFIX_STEP-th element instead (a sum per
 * element took 32 bytes per unit, the biggest array of the analysis).
 */
#include "analyze.h"

#include "mem.h"
#include "phase.h"
#include "sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PREFIX_STEP 8

/* The sorted starts and ends of the synthesis spans, with prefix sums. */
struct counter {
    int64_t *st, *en; /* en[i] == INT64_MAX: never ended, counts as 0 in the sums */
    __int128 *sst, *sen; /* sst[k]: sum of st[0..k * PREFIX_STEP) */
    size_t n;
    struct scratch_pool *sp; /* where sst and sen come from */
};

/* The sum of a[0..i), from the kept sums s. */
static __int128 sum_to(const int64_t *a, const __int128 *s, size_t i, int open_zero)
{
    size_t k = i / PREFIX_STEP;
    __int128 v = s[k];
    for (size_t j = k * PREFIX_STEP; j < i; j++)
        v += open_zero && a[j] == INT64_MAX ? 0 : a[j];
    return v;
}

/* Where the last queries of one kind landed in st and en, with the sums of
 * the elements before those places. */
struct finger {
    size_t st, en;
    __int128 sst, sen;
};

/* The sum of a[0..i), from the sum s of a[0..from): moved along when i is
 * near, else taken from the kept sums. */
static __int128 sum_moved(const int64_t *a, const __int128 *kept, size_t from, __int128 s, size_t i,
                          int open_zero)
{
    if (i > from + PREFIX_STEP || from > i + PREFIX_STEP)
        return sum_to(a, kept, i, open_zero);
    for (; from < i; from++)
        s += open_zero && a[from] == INT64_MAX ? 0 : a[from];
    for (; from > i; from--)
        s -= open_zero && a[from - 1] == INT64_MAX ? 0 : a[from - 1];
    return s;
}

/* The integral of the count of syntheses from the start up to x. */
static __int128 area_to(const struct counter *c, int64_t x, struct finger *f)
{
    size_t i0 = f->st, j0 = f->en;
    size_t i = count_le_near(c->st, sizeof *c->st, c->n, x, &f->st);
    size_t j = count_le_near(c->en, sizeof *c->en, c->n, x, &f->en);
    f->sst = sum_moved(c->st, c->sst, i0, f->sst, i, 0);
    f->sen = sum_moved(c->en, c->sen, j0, f->sen, j, 1);
    return ((__int128)x * (__int128)i - f->sst) - ((__int128)x * (__int128)j - f->sen);
}

static double mean_count(const struct counter *c, int64_t a, int64_t b, struct finger *fa, struct finger *fb)
{
    return (double)(area_to(c, b, fb) - area_to(c, a, fa)) / (double)(b - a);
}

/* The counter over st and en (sorted, n each; synth_span leaves out a
 * synthesis that never ended, and an INT64_MAX end would count as never
 * reached all the same). */
static int counter_build(struct counter *c, struct scratch_pool *sp, int64_t *st, int64_t *en, size_t n)
{
    c->sp = sp;
    c->st = st;
    c->en = en;
    c->n = n;
    size_t nk = n / PREFIX_STEP + 1;
    c->sst = scratch_alloc(sp, nk * sizeof *c->sst);
    c->sen = scratch_alloc(sp, nk * sizeof *c->sen);
    if (!c->sst || !c->sen)
        return -1;
    __int128 a = 0, b = 0;
    for (size_t i = 0; i < n; i++) {
        if (i % PREFIX_STEP == 0) {
            c->sst[i / PREFIX_STEP] = a;
            c->sen[i / PREFIX_STEP] = b;
        }
        a += st[i];
        b += en[i] == INT64_MAX ? 0 : en[i]; /* an open end is never <= x */
    }
    if (n % PREFIX_STEP == 0) {
        c->sst[n / PREFIX_STEP] = a;
        c->sen[n / PREFIX_STEP] = b;
    }
    return 0;
}

static void counter_free(struct counter *c)
{
    scratch_free(c->sp, c->sst);
    scratch_free(c->sp, c->sen);
}

/* Stage times summed by k, grown as k grows. */
struct acc_k {
    double sum;
    uint64_t n;
};

struct by_k {
    struct acc_k *a;
    size_t cap;
    int kmax;
};

static int by_k_add(struct by_k *b, int k, double t)
{
    if ((size_t)k >= b->cap) {
        size_t cap = b->cap ? b->cap : 16;
        while (cap <= (size_t)k)
            cap *= 2;
        struct acc_k *na = realloc(b->a, cap * sizeof *na);
        if (!na)
            return -1;
        memset(na + b->cap, 0, (cap - b->cap) * sizeof *na);
        b->a = na;
        b->cap = cap;
    }
    b->a[k].sum += t;
    b->a[k].n++;
    if (k > b->kmax)
        b->kmax = k;
    return 0;
}

/* The run's kinds, when it mixes two or more (units without kind= are
 * the kind ""): each unit's, as an index into name/len sorted by name. */
#define CPU_MAX_KINDS 16 /* more: not grouped */
struct kinds {
    int n;
    const char *name[CPU_MAX_KINDS];
    size_t len[CPU_MAX_KINDS];
    uint8_t *of; /* per unit (owned) */
};

static int kind_cmp(const char *a, size_t la, const char *b, size_t lb)
{
    int c = memcmp(a, b, la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

/* 0 (and k->n < 2 when the run has one kind, or too many), or -1. */
static int kinds_of(const struct run *r, struct kinds *k)
{
    memset(k, 0, sizeof *k);
    if (!r->nxattr || !r->nunits)
        return 0;
    k->of = malloc(r->nunits);
    if (!k->of)
        return -1;
    for (size_t i = 0; i < r->nunits; i++) {
        size_t len = 0;
        const char *s = unit_attr(r, (uint32_t)i, "kind", &len);
        if (!s)
            s = "", len = 0;
        int j = 0;
        while (j < k->n && kind_cmp(k->name[j], k->len[j], s, len) != 0)
            j++;
        if (j == k->n) {
            if (k->n == CPU_MAX_KINDS) {
                k->n = 0; /* too many to compare one by one */
                return 0;
            }
            k->name[j] = s;
            k->len[j] = len;
            k->n++;
        }
        k->of[i] = (uint8_t)j;
    }
    /* by name, so that rows come in a stable order */
    int order[CPU_MAX_KINDS], rank[CPU_MAX_KINDS];
    for (int j = 0; j < k->n; j++)
        order[j] = j;
    for (int a = 1; a < k->n; a++)
        for (int b = a; b > 0; b--) {
            int x = order[b], y = order[b - 1];
            if (kind_cmp(k->name[x], k->len[x], k->name[y], k->len[y]) >= 0)
                break;
            order[b] = y;
            order[b - 1] = x;
        }
    const char *nm[CPU_MAX_KINDS];
    size_t ln[CPU_MAX_KINDS];
    for (int j = 0; j < k->n; j++) {
        rank[order[j]] = j;
        nm[j] = k->name[order[j]];
        ln[j] = k->len[order[j]];
    }
    memcpy(k->name, nm, sizeof nm);
    memcpy(k->len, ln, sizeof ln);
    for (size_t i = 0; i < r->nunits; i++)
        k->of[i] = (uint8_t)rank[k->of[i]];
    return 0;
}

/* The rows by k, ascending, of each kind in turn (nb of them: b[0..nb),
 * named by ks when there are two or more). */
static int rows_from(const struct by_k *b, int nb, const struct kinds *ks, struct conc_row **rows, size_t *nrows)
{
    size_t n = 0;
    for (int g = 0; g < nb; g++)
        for (int k = 1; k <= b[g].kmax; k++)
            n += b[g].a[k].n > 0;
    *rows = calloc(n ? n : 1, sizeof **rows);
    if (!*rows)
        return -1;
    *nrows = 0;
    for (int g = 0; g < nb; g++)
        for (int k = 1; k <= b[g].kmax; k++)
            if (b[g].a[k].n)
                (*rows)[(*nrows)++] = (struct conc_row){k, b[g].a[k].n, b[g].a[k].sum / (double)b[g].a[k].n,
                                                        nb > 1 ? ks->name[g] : NULL, nb > 1 ? ks->len[g] : 0};
    return 0;
}

static double slower_one(const struct conc_row *rows, size_t n);

/* Mean at k >= 2 over mean at k = 1, over CPU_MIN_UNITS units or more on
 * each side; NAN otherwise.  Rows of several kinds: each kind's ratio,
 * weighted by its units beside others (kinds without both sides left
 * out). */
static double slower(const struct conc_row *rows, size_t n)
{
    if (!n || !rows[0].kind)
        return slower_one(rows, n);
    double sum = 0, w = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        uint64_t beside = 0;
        while (j < n && rows[j].klen == rows[i].klen && memcmp(rows[j].kind, rows[i].kind, rows[i].klen) == 0) {
            beside += rows[j].k >= 2 ? rows[j].units : 0;
            j++;
        }
        double s = slower_one(rows + i, j - i);
        if (!isnan(s)) {
            sum += s * (double)beside;
            w += (double)beside;
        }
        i = j;
    }
    return w > 0 ? sum / w : NAN;
}

static double slower_one(const struct conc_row *rows, size_t n)
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

const char *const kind_names[] = {NULL, "cores", "memory", "waiting"};

/* CPU time per unit summed by k, grown as k grows. */
struct cpu_acc {
    double cpu, want, wall;
    uint64_t n;
};
struct cpu_by_k {
    struct cpu_acc *a;
    size_t cap;
    int kmax;
};

static int cpu_by_k_add(struct cpu_by_k *b, int k, const struct cpu_span *sp)
{
    if ((size_t)k >= b->cap) {
        size_t cap = b->cap ? b->cap : 16;
        while (cap <= (size_t)k)
            cap *= 2;
        struct cpu_acc *na = realloc(b->a, cap * sizeof *na);
        if (!na)
            return -1;
        memset(na + b->cap, 0, (cap - b->cap) * sizeof *na);
        b->a = na;
        b->cap = cap;
    }
    b->a[k].cpu += sp->cpu_s;
    b->a[k].want += sp->want_s;
    b->a[k].wall += (double)(sp->b - sp->a) * 1e-9;
    b->a[k].n++;
    if (k > b->kmax)
        b->kmax = k;
    return 0;
}

static int cpu_rows_from(const struct cpu_by_k *b, struct cpu_row **rows, size_t *nrows)
{
    size_t n = 0;
    for (int k = 1; k <= b->kmax; k++)
        n += b->a[k].n > 0;
    *rows = calloc(n ? n : 1, sizeof **rows);
    if (!*rows)
        return -1;
    *nrows = 0;
    for (int k = 1; k <= b->kmax; k++) {
        const struct cpu_acc *x = &b->a[k];
        if (x->n) {
            double m = (double)x->n;
            (*rows)[(*nrows)++] = (struct cpu_row){k, x->n, x->cpu / m, x->want / m, x->wall / m};
        }
    }
    return 0;
}

/* Beside others (k >= 2, weighted by units) against alone (k = 1), and
 * which part of the extra time is largest. */
static struct cpu_extra extra_of(const struct cpu_row *rows, size_t n)
{
    struct cpu_extra e = {0};
    struct cpu_row alone = {0}, beside = {0};
    for (size_t i = 0; i < n; i++) {
        struct cpu_row *x = rows[i].k == 1 ? &alone : &beside;
        double u = (double)rows[i].units;
        x->units += rows[i].units;
        x->cpu_s += rows[i].cpu_s * u, x->want_s += rows[i].want_s * u, x->wall_s += rows[i].wall_s * u;
    }
    if (alone.units < CPU_MIN_UNITS || beside.units < CPU_MIN_UNITS || !(alone.wall_s > 0) ||
        !(alone.cpu_s > 0))
        return e;
    double na = (double)alone.units, nb = (double)beside.units;
    double ac = alone.cpu_s / na, aw = alone.want_s / na, al = alone.wall_s / na;
    double bc = beside.cpu_s / nb, bw = beside.want_s / nb, bl = beside.wall_s / nb;
    e.known = 1;
    e.slower = bl / al;
    e.cpu_grows = bc / ac;
    e.alone_s = al;
    e.beside_s = bl;
    e.wall = bl - al;
    e.cpu = bc - ac;
    e.wait = (bw - bc) - (aw - ac);
    e.off = (bl - bw) - (al - aw);
    e.kind = e.cpu >= e.wait && e.cpu >= e.off ? KIND_MEMORY : e.wait >= e.off ? KIND_CORES : KIND_WAITING;
    return e;
}

/* A role's kind of contention, or KIND_NONE: slower beside others by
 * CPU_SLOWER (its sampled units) names the largest part of the extra time;
 * else starvation alone says cores. */
static int kind_of(const struct cpu_role *ro, const struct cpu_extra *e)
{
    if (e->known && e->slower >= CPU_SLOWER && e->wall > 0)
        return e->kind;
    if (ro->starvation >= CPU_STARVED)
        return KIND_CORES;
    return KIND_NONE;
}

/* Each sampled unit's CPU time by its k (as the timing groups its stage
 * time), and the kinds they show. */
static int cpu_kinds(const struct run *r, struct cpu_result *c, const struct counter *cn)
{
    struct cpu_by_k bk[2] = {{0}};
    struct finger f[4] = {{0, 0, 0, 0}};
    int rc = -1;
    for (size_t i = 0; i < r->cpu.nspans; i++) {
        const struct cpu_span *sp = &r->cpu.spans[i];
        if (sp->b <= sp->a || (sp->stage != 0 && sp->stage != 1))
            continue;
        int st = sp->stage;
        double m = mean_count(cn, sp->a, sp->b, &f[2 * st], &f[2 * st + 1]);
        int k = (int)lround(m) + st; /* a GPU phase adds itself, as in the timing */
        if (cpu_by_k_add(&bk[st], k < 1 ? 1 : k, sp))
            goto out;
    }
    if (cpu_rows_from(&bk[0], &c->synth_cpu_by, &c->nsynth_cpu_by) ||
        cpu_rows_from(&bk[1], &c->gpu_cpu_by, &c->ngpu_cpu_by))
        goto out;
    c->synth_extra = extra_of(c->synth_cpu_by, c->nsynth_cpu_by);
    c->gpu_extra = extra_of(c->gpu_cpu_by, c->ngpu_cpu_by);
    c->synth_kind = kind_of(&c->synth, &c->synth_extra);
    c->gpu_kind = kind_of(&c->gpu, &c->gpu_extra);
    rc = 0;
out:
    free(bk[0].a);
    free(bk[1].a);
    return rc;
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

int analyze_cpu(struct scratch_pool *sp, const struct run *r, struct run_result *res, int64_t *st, int64_t *en,
                size_t nspans)
{
    struct cpu_result *c = &res->cpu;
    memset(c, 0, sizeof *c);
    c->synth_slower = c->gpu_slower = NAN;
    role_from(&c->synth, r->cpu.synth_cpu_s, r->cpu.synth_want_s, r->cpu.synth_wall_s, r->cpu.wait_known);
    role_from(&c->gpu, r->cpu.gpu_cpu_s, r->cpu.gpu_want_s, r->cpu.gpu_wall_s, r->cpu.wait_known);
    c->source = r->cpu.sampled ? CPU_SRC_SAMPLES : CPU_SRC_TIMING;

    struct counter cn = {0};
    struct by_k bs[CPU_MAX_KINDS] = {{0}}, bg[CPU_MAX_KINDS] = {{0}};
    struct kinds ks;
    int rc = -1;
    if (kinds_of(r, &ks) || counter_build(&cn, sp, st, en, nspans))
        goto out;
    int nk = ks.n >= 2 ? ks.n : 1; /* groups of units compared among themselves */
    /* each unit's k for its synthesis and its GPU phase */
    int64_t gpu_sum = 0, w0 = INT64_MAX, w1 = INT64_MIN;
    struct finger f[4] = {{0, 0, 0, 0}}; /* synthesis start, end; GPU start, end */
    for (size_t i = 0; i < r->nunits; i++) {
        const struct unit *u = &r->units[i];
        if (u->flags & U_CONTRA)
            continue;
        int g = nk > 1 ? ks.of[i] : 0;
        int64_t a = u->t[EV_SYNTH_START], b = u->t[EV_SYNTH_END];
        if (a != T_NONE && b != T_NONE && b > a) {
            int k = (int)lround(mean_count(&cn, a, b, &f[0], &f[1]));
            if (by_k_add(&bs[g], k < 1 ? 1 : k, (double)(b - a)))
                goto out;
        }
        a = u->t[EV_GPU_START], b = u->t[EV_GPU_END];
        if (a != T_NONE && b != T_NONE && b > a) {
            if (by_k_add(&bg[g], (int)lround(mean_count(&cn, a, b, &f[2], &f[3])) + 1, (double)(b - a)))
                goto out;
            gpu_sum += b - a;
            if (a < w0)
                w0 = a;
            if (b > w1)
                w1 = b;
        }
    }
    c->gpu_at_once = w1 > w0 ? (double)gpu_sum / (double)(w1 - w0) : 0;
    if (rows_from(bs, nk, &ks, &c->synth_by, &c->nsynth_by) || rows_from(bg, nk, &ks, &c->gpu_by, &c->ngpu_by))
        goto out;
    c->synth_slower = slower(c->synth_by, c->nsynth_by);
    c->gpu_slower = slower(c->gpu_by, c->ngpu_by);
    if (c->source == CPU_SRC_SAMPLES) {
        if (cpu_kinds(r, c, &cn))
            goto out;
        c->synth_contended = c->synth_kind != KIND_NONE;
        c->gpu_contended = c->gpu_kind != KIND_NONE;
        /* the kind that limits: synthesis's, which the bottleneck checks first */
        c->kind = c->synth_contended ? c->synth_kind : c->gpu_kind;
    } else {
        c->synth_contended = c->synth_slower >= CPU_SLOWER;
        c->gpu_contended = c->gpu_slower >= CPU_SLOWER;
    }
    c->contention = c->synth_contended || c->gpu_contended;
    rc = 0;
out:
    counter_free(&cn);
    for (int g = 0; g < CPU_MAX_KINDS; g++) {
        free(bs[g].a);
        free(bg[g].a);
    }
    free(ks.of);
    return rc;
}

int cpu_fastest(const struct cpu_result *c)
{
    int best = 0;
    double rate = 0;
    for (size_t i = 0; i < c->nsynth_by; i++) {
        const struct conc_row *x = &c->synth_by[i];
        if (x->units >= CPU_MIN_UNITS && x->mean > 0 && x->k / x->mean > rate * (1 + 1e-9))
            best = x->k, rate = x->k / x->mean;
    }
    return best;
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
