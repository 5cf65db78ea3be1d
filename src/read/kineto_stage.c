/*
 * kineto_stage.c -- a PyTorch trace's CPU ranges as stages, or as
 * candidates for them (kineto_stage.h says the rule).
 */
#include "kineto_stage.h"

#include "mem.h"
#include "sort.h"
#include "vocab.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

int kranges_add(struct kranges *k, int64_t t0, int64_t t1, uint32_t name, uint32_t thread)
{
    if (grow_heap((void **)&k->r, &k->cap, k->n, sizeof *k->r, 1024))
        return -1;
    k->r[k->n++] = (struct krange){t0, t1, name, thread};
    return 0;
}

void kranges_free(struct kranges *k)
{
    strtab_free(&k->names);
    strtab_free(&k->threads);
    free(k->r);
    memset(k, 0, sizeof *k);
}

int stage_of_name(const char *s, size_t n)
{
    if (n == 9 && memcmp(s, "synthesis", 9) == 0)
        return EV_SYNTH_START;
    if (n == 4 && memcmp(s, "prep", 4) == 0)
        return EV_GPU_PICKUP;
    return -1;
}

/* ---- the mapping ---- */

/* A stage's range on a thread (the union of its matched ranges there). */
struct srange {
    uint32_t thread;
    int stage; /* 0: synthesis, 1: prep */
    int64_t t0, t1;
    size_t taken; /* synthesis: its unit + 1 (0: none yet) */
};

static int srange_cmp(const void *a, const void *b)
{
    const struct srange *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    if (x->stage != y->stage)
        return x->stage - y->stage;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* Each name's stage by the map: 0 none, 1 synthesis, 2 prep. */
static unsigned char *name_stages(const struct kranges *kr, const struct stage_map *map)
{
    unsigned char *st = calloc(kr->names.n ? kr->names.n : 1, 1);
    if (!st)
        return NULL;
    char buf[1024];
    for (uint32_t i = 0; i < kr->names.n; i++) {
        size_t n;
        const char *s = strtab_get(&kr->names, i, &n);
        /* fnmatch needs a C string; a name longer than any pattern
         * sensibly names is matched on its first 1023 bytes */
        if (n >= sizeof buf)
            n = sizeof buf - 1;
        memcpy(buf, s, n);
        buf[n] = 0;
        for (size_t r = 0; r < map->n; r++)
            if (fnmatch(map->rule[r].glob, buf, 0) == 0) {
                st[i] = map->rule[r].stage == EV_SYNTH_START ? 1 : 2;
                break;
            }
    }
    return st;
}

/* The last range of [lo, hi) (sorted by t0) that begins at or before t:
 * its index, or hi when none does. */
static size_t last_at_or_before(const struct srange *s, size_t lo, size_t hi, int64_t t)
{
    size_t hint = 0, k = count_le_near(&s[lo].t0, sizeof *s, hi - lo, t, &hint);
    return k ? lo + k - 1 : hi;
}

/* The first of s[0..n) (sorted) not below (th, stage). */
struct below_key {
    const struct srange *s;
    uint32_t th;
    int stage;
};

static int below(const void *ctx, size_t i)
{
    const struct below_key *k = ctx;
    return k->s[i].thread < k->th || (k->s[i].thread == k->th && k->s[i].stage < k->stage);
}

static size_t first_from(const struct srange *s, size_t n, uint32_t th, int stage)
{
    struct below_key k = {s, th, stage};
    return first_not_before(0, n, below, &k);
}

/* The ranges [*lo, *hi) of thread th and stage stage (0 or 1) in s. */
static void block_of(const struct srange *s, size_t n, uint32_t th, int stage, size_t *lo, size_t *hi)
{
    *lo = first_from(s, n, th, stage);
    *hi = stage == 0 ? first_from(s, n, th, 1) : th == UINT32_MAX ? n : first_from(s, n, th + 1, 0);
}

/* The order in which units take their synthesis range: by ready time. */
struct byready {
    int64_t ready;
    size_t op;
};

static int byready_cmp(const void *a, const void *b)
{
    const struct byready *x = a, *y = b;
    if (x->ready != y->ready)
        return x->ready < y->ready ? -1 : 1;
    return x->op < y->op ? -1 : x->op > y->op;
}

int kstage_assign(const struct kranges *kr, const struct stage_map *map, size_t nops, const int64_t *launch,
                  const uint32_t *thread, struct kstage *out, struct streams_use *use)
{
    for (size_t i = 0; i < nops; i++)
        out[i] = (struct kstage){launch[i], T_NONE, T_NONE, T_NONE};
    unsigned char *st = name_stages(kr, map);
    if (!st)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < kr->n; i++)
        n += st[kr->r[i].name] != 0;
    struct srange *s = malloc((n ? n : 1) * sizeof *s);
    struct byready *order = malloc((nops ? nops : 1) * sizeof *order);
    if (!s || !order) {
        free(st);
        free(s);
        free(order);
        return -1;
    }
    n = 0;
    for (size_t i = 0; i < kr->n; i++)
        if (st[kr->r[i].name])
            s[n++] = (struct srange){kr->r[i].thread, st[kr->r[i].name] - 1, kr->r[i].t0, kr->r[i].t1, 0};
    free(st);
    qsort(s, n, sizeof *s, srange_cmp);
    /* one stage's ranges on one thread: their union */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && s[m - 1].thread == s[i].thread && s[m - 1].stage == s[i].stage && s[i].t0 <= s[m - 1].t1) {
            if (s[i].t1 > s[m - 1].t1)
                s[m - 1].t1 = s[i].t1;
            continue;
        }
        s[m++] = s[i];
    }
    for (size_t i = 0; i < m; i++)
        use->stage_ranges[s[i].stage]++;
    /* prep: a range that holds the launch */
    for (size_t i = 0; i < nops; i++) {
        if (launch[i] == T_NONE)
            continue;
        size_t lo, hi;
        block_of(s, m, thread[i], 1, &lo, &hi);
        size_t j = last_at_or_before(s, lo, hi, launch[i]);
        if (j < hi && launch[i] <= s[j].t1) {
            out[i].pickup = out[i].ready = s[j].t0;
        }
    }
    /* synthesis: units in order of readiness take the latest range that
     * began at or before they are ready, if no unit took it yet */
    size_t no = 0;
    for (size_t i = 0; i < nops; i++)
        if (out[i].ready != T_NONE)
            order[no++] = (struct byready){out[i].ready, i};
    qsort(order, no, sizeof *order, byready_cmp);
    for (size_t k = 0; k < no; k++) {
        size_t i = order[k].op;
        size_t lo, hi;
        block_of(s, m, thread[i], 0, &lo, &hi);
        size_t j = last_at_or_before(s, lo, hi, out[i].ready);
        if (j == hi || s[j].taken)
            continue;
        s[j].taken = i + 1;
        out[i].synth0 = s[j].t0;
        out[i].synth1 = s[j].t1 < out[i].ready ? s[j].t1 : out[i].ready;
    }
    free(s);
    free(order);
    return 0;
}

/* ---- the candidates ---- */

/* Sums of times a hostile trace can put 2^63 apart: they stop at the
 * largest rather than wrap. */
static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t s;
    return __builtin_add_overflow(a, b, &s) ? (b > 0 ? INT64_MAX : INT64_MIN) : s;
}

static int64_t sat_sub(int64_t a, int64_t b)
{
    int64_t s;
    return __builtin_sub_overflow(a, b, &s) ? (b < 0 ? INT64_MAX : INT64_MIN) : s;
}

static int64_t sat_mul(int64_t a, int64_t b)
{
    int64_t s;
    return __builtin_mul_overflow(a, b, &s) ? ((a < 0) != (b < 0) ? INT64_MIN : INT64_MAX) : s;
}

static int krange_by_name(const void *a, const void *b)
{
    const struct krange *x = a, *y = b;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* An operation's time on its device. */
struct dspan {
    int64_t ts, end;
    int32_t device;
};

static int dspan_cmp(const void *a, const void *b)
{
    const struct dspan *x = a, *y = b;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* The devices' idle time before t, summed over the devices, as a
 * piecewise linear function: at each gap's start or end a point (its
 * time, the idle before it, and how many devices idle after it), so that
 * the idle within [t0, t1] is two binary searches, whatever the names and
 * gaps (a walk over the gaps per name was their product). */
struct ipoint {
    int64_t t, before, slope;
};

struct idle_fn {
    struct ipoint *p;
    size_t n;
    int64_t first, last; /* the devices' window: first operation to last end */
    int64_t total;       /* the idle of all devices */
};

struct edge {
    int64_t t;
    int d; /* +1 a gap begins, -1 one ends */
};

static int edge_cmp(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->d - y->d;
}

/* Each device's gaps (its operations' union's holes), as f.  0, or -1. */
static int idle_of(const struct kop *ops, size_t nops, struct idle_fn *f)
{
    memset(f, 0, sizeof *f);
    struct dspan *o = malloc((nops ? nops : 1) * sizeof *o);
    struct edge *e = malloc((nops ? 2 * nops : 1) * sizeof *e);
    if (!o || !e) {
        free(o);
        free(e);
        return -1;
    }
    int one_device = 1, in_order = 1;
    for (size_t i = 0; i < nops; i++) {
        o[i] = (struct dspan){ops[i].ts, sat_add(ops[i].ts, ops[i].dur), ops[i].device};
        if (i && o[i].device != o[0].device)
            one_device = 0;
        if (i && in_order && dspan_cmp(&o[i - 1], &o[i]) > 0)
            in_order = 0;
    }
    /* a trace's operations are mostly of one device and nearly in time
     * order: the radix sort (adaptive) by start then, else qsort */
    struct span *sp = !in_order && one_device ? malloc((nops ? nops : 1) * sizeof *sp) : NULL;
    if (sp) {
        for (size_t i = 0; i < nops; i++)
            sp[i] = (struct span){o[i].ts, o[i].end};
        if (sort_spans(NULL, sp, nops) == 0) {
            for (size_t i = 0; i < nops; i++)
                o[i].ts = sp[i].start, o[i].end = sp[i].end;
            in_order = 1;
        }
        free(sp);
    }
    if (!in_order)
        qsort(o, nops, sizeof *o, dspan_cmp);
    size_t ne = 0;
    f->first = INT64_MAX;
    f->last = INT64_MIN;
    for (size_t i = 0; i < nops;) {
        size_t j = i + 1;
        int64_t end = o[i].end;
        if (o[i].ts < f->first)
            f->first = o[i].ts;
        for (; j < nops && o[j].device == o[i].device; j++) {
            if (o[j].ts > end) {
                e[ne++] = (struct edge){end, 1};
                e[ne++] = (struct edge){o[j].ts, -1};
            }
            if (o[j].end > end)
                end = o[j].end;
        }
        if (end > f->last)
            f->last = end;
        i = j;
    }
    free(o);
    size_t k = 1; /* one device's gaps come in order already */
    while (k < ne && edge_cmp(&e[k - 1], &e[k]) <= 0)
        k++;
    if (k < ne)
        qsort(e, ne, sizeof *e, edge_cmp);
    f->p = malloc((ne ? ne : 1) * sizeof *f->p);
    if (!f->p) {
        free(e);
        return -1;
    }
    int64_t before = 0, slope = 0, t = ne ? e[0].t : 0;
    for (size_t i = 0; i < ne; i++) {
        before = sat_add(before, sat_mul(slope, sat_sub(e[i].t, t)));
        t = e[i].t;
        slope += e[i].d;
        if (f->n && f->p[f->n - 1].t == t)
            f->p[f->n - 1].slope = slope;
        else
            f->p[f->n++] = (struct ipoint){t, before, slope};
    }
    f->total = before;
    free(e);
    return 0;
}

/* The devices' idle before t. */
static int64_t idle_before(const struct idle_fn *f, int64_t t)
{
    size_t hint = 0, a = f->n ? count_le_near(&f->p[0].t, sizeof *f->p, f->n, t, &hint) : 0;
    if (a == 0)
        return 0;
    const struct ipoint *p = &f->p[a - 1];
    return sat_add(p->before, sat_mul(p->slope, sat_sub(t, p->t)));
}

static int is_step(const struct kranges *kr, uint32_t name)
{
    size_t n;
    const char *s = strtab_get(&kr->names, name, &n);
    return n >= 13 && memcmp(s, "ProfilerStep#", 13) == 0;
}

static void cand_put(struct streams_use *use, const struct kcand *c)
{
    int at = use->ncand;
    while (at > 0 && use->cand[at - 1].idle < c->idle)
        at--;
    if (at >= KCAND_MAX)
        return;
    int last = use->ncand < KCAND_MAX ? use->ncand : KCAND_MAX - 1;
    memmove(&use->cand[at + 1], &use->cand[at], (size_t)(last - at) * sizeof *c);
    use->cand[at] = *c;
    if (use->ncand < KCAND_MAX)
        use->ncand++;
}

/* kr's ranges by name, then start (krange_by_name): by counting the
 * names (a trace has few), each name's in file order, which is mostly
 * in time order already (sorted where it is not).  0, or -1 out of memory. */
static int ranges_by_name(struct kranges *kr)
{
    if (!kr->n)
        return 0;
    size_t nn = kr->names.n, *at = calloc(nn + 1, sizeof *at);
    struct krange *v = malloc(kr->n * sizeof *v);
    if (!at || !v) {
        free(at);
        free(v);
        return -1;
    }
    for (size_t i = 0; i < kr->n; i++)
        at[kr->r[i].name + 1]++;
    for (size_t q = 0; q < nn; q++)
        at[q + 1] += at[q];
    for (size_t i = 0; i < kr->n; i++)
        v[at[kr->r[i].name]++] = kr->r[i];
    free(at);
    free(kr->r);
    kr->r = v, kr->cap = kr->n;
    for (size_t i = 0; i < kr->n;) {
        size_t j = i + 1;
        int sorted = 1;
        for (; j < kr->n && v[j].name == v[i].name; j++)
            if (v[j].t0 < v[j - 1].t0)
                sorted = 0;
        if (!sorted)
            qsort(v + i, j - i, sizeof *v, krange_by_name);
        i = j;
    }
    return 0;
}

int kstage_candidates(struct kranges *kr, const struct kop *ops, size_t nops, struct model *m,
                      struct streams_use *use)
{
    struct idle_fn f;
    if (idle_of(ops, nops, &f))
        return -1;
    use->cand_idle = f.total;
    int64_t window = sat_sub(f.last, f.first);
    if (ranges_by_name(kr)) {
        free(f.p);
        return -1;
    }
    struct krange *r = kr->r;
    int rc = 0;
    for (size_t i = 0; i < kr->n && !rc;) {
        size_t e = i;
        while (e < kr->n && r[e].name == r[i].name)
            e++;
        struct kcand c = {r[i].name, e - i, 0, 0};
        /* the union of the name's ranges, on any thread: its idle, and
         * how much of the devices' window it spans */
        int64_t u0 = r[i].t0, u1 = r[i].t1, inside = 0;
        for (size_t j = i + 1; j <= e; j++) {
            if (j < e && r[j].t0 <= u1) {
                if (r[j].t1 > u1)
                    u1 = r[j].t1;
                continue;
            }
            c.span = sat_add(c.span, sat_sub(u1, u0));
            c.idle = sat_add(c.idle, sat_sub(idle_before(&f, u1), idle_before(&f, u0)));
            int64_t a = u0 > f.first ? u0 : f.first, b = u1 < f.last ? u1 : f.last;
            if (b > a)
                inside = sat_add(inside, sat_sub(b, a));
            if (j < e) {
                u0 = r[j].t0;
                u1 = r[j].t1;
            }
        }
        int room = use->ncand < KCAND_MAX || c.idle > use->cand[KCAND_MAX - 1].idle;
        int whole = window > 0 && (__int128)inside * 10 >= (__int128)window * 9;
        if (c.idle > 0 && room && !whole && !is_step(kr, c.name)) {
            size_t n;
            const char *s = strtab_get(&kr->names, c.name, &n);
            uint32_t id;
            if (strtab_intern(&m->strs, s, n, &id))
                rc = -1;
            c.name = id;
            cand_put(use, &c);
        }
        i = e;
    }
    free(f.p);
    return rc;
}
