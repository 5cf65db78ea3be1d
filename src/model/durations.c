/*
 * durations.c -- duration lines placed in time and given to units (see
 * durations.h).
 *
 * The source (supraseal-c2's groth16_cuda.cu, as cuzk's engine calls it)
 * fixes what a line is:
 *  - a call enters at T0, a little after its unit's GPU_START; its calling
 *    thread works pre_lock_cpu ms, waits mutex_wait ms for its device's
 *    mutex, and prints both once it holds it (L = T0 + pre + wait): that
 *    line opens the call's critical section;
 *  - under the mutex, a thread per GPU (gpu_tid) prints ntt_msm_h,
 *    barrier_wait, batch_add, then tail_msm with gpu_total, which spans all
 *    of them from L;
 *  - mutex_held and total_start_fn close the section, before the unlock;
 *  - around it: split_vectors/setup_to_split are the call's first line
 *    (before the lock); prep_msm and then b_g2_msm run on a helper thread
 *    from T0 + pre_lock_cpu (it starts as the calling thread goes for the
 *    lock), the barrier inside gpu_total waits for prep_msm, and b_g2_msm
 *    may end after the call returns, never after its unit's GPU_END;
 *    async_dealloc runs detached, later;
 *  - the engine (engine.rs) prints GPU_START, then spawns the call on a
 *    blocking thread, which enters it spawn_to_enter ms later (so T0 =
 *    GPU_START + spawn_to_enter) and, once gpu_prove_start returns
 *    (prove_start ms from T0, just after the unlock), prints both with
 *    its worker and partition but no job: the worker's open GPU phase
 *    with that partition, the last it started (it waits for this line's
 *    call before its next GPU_START).
 * One device's sections never interleave (its mutex), so a section's
 * lines are read in order as one call.  Calls are given to units in three
 * passes over the lines (sections, then the lines around them), each unit
 * a candidate while its GPU phase is open at the line: the time of the
 * last record before a line is when, at the earliest, it was printed.
 */
#include "durations.h"

#include "dur_mux.h"

#include "mem.h"
#include "par.h"
#include "sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MS 1000000LL
#define TOL DUR_TOL

enum dur_role { R_OPEN, R_CLOSE, R_GPU, R_ENTRY, R_PREP, R_BG2, R_RUN, R_SPAWN, R_OTHER };
enum dur_key {
    /* the values a call keeps (struct call's v) */
    K_PRE_LOCK, K_MUTEX_WAIT, K_PREP, K_BG2, K_NTT, K_BARRIER, K_GPU_TOTAL, K_HELD, K_TOTAL_FN,
    K_V,
    K_SPLIT = K_V, K_SETUP, K_BATCH, K_TAIL, K_DEALLOC,
    K_SPAWN_ENTER, K_PROVE_START, K_SPAWN_WORKER, K_SPAWN_PART, /* the spawn line's (DL_SPAWN) */
    K_N,
    K_OTHER = K_N
};
_Static_assert(K_OTHER < 256, "an entry's key is kept in a byte (struct place's kid)");
static const struct {
    const char *name;
    int role;
} key_table[K_N] = {
    [K_SPLIT] = {"split_vectors", R_ENTRY},   [K_SETUP] = {"setup_to_split", R_ENTRY},
    [K_PRE_LOCK] = {"pre_lock_cpu", R_OPEN},  [K_MUTEX_WAIT] = {"mutex_wait", R_OPEN},
    [K_PREP] = {"prep_msm", R_PREP},          [K_BG2] = {"b_g2_msm", R_BG2},
    [K_NTT] = {"ntt_msm_h", R_GPU},           [K_BARRIER] = {"barrier_wait", R_GPU},
    [K_BATCH] = {"batch_add", R_GPU},         [K_TAIL] = {"tail_msm", R_GPU},
    [K_GPU_TOTAL] = {"gpu_total", R_GPU},     [K_HELD] = {"mutex_held", R_CLOSE},
    [K_TOTAL_FN] = {"total_start_fn", R_CLOSE}, [K_DEALLOC] = {"async_dealloc", R_RUN},
    [K_SPAWN_ENTER] = {"spawn_to_enter", R_SPAWN}, [K_PROVE_START] = {"prove_start", R_SPAWN},
    [K_SPAWN_WORKER] = {"worker_id", R_SPAWN},   [K_SPAWN_PART] = {"partition", R_SPAWN},
};

/* What became of an entry (a spawn line's: E_SPAWN, given to its unit,
 * or E_SPAWN_LOST). */
enum { E_FLOAT = -1, E_STRAY = -2, E_OUTSIDE = -3, E_AMBIGUOUS = -4, E_INTERLEAVED = -5, E_SPAWN = -6, E_SPAWN_LOST = -7 };

struct call {
    uint64_t first, last;  /* its opening line; the last line given to it */
    uint64_t barrier_line; /* gpu_tid 0's barrier_wait (0: none) */
    uint64_t prep_line;    /* its prep_msm's line (0: none given) */
    int64_t t_pos;         /* the last record's time before its opening line */
    int64_t close_hi;      /* the first record's time after its closing line (INT64_MAX: none) */
    int64_t close_lo;      /* the last record's time before it (T_NONE: none) */
    int64_t v[K_V];        /* the calling thread's and gpu_tid 0's values, ms (-1: none): a call per section, millions */
    uint64_t tid_done;     /* gpu_tid k printed its gpu_total (bit k) */
    uint32_t unit;         /* UINT32_MAX: none */
    int64_t t0;            /* its entry: the unit's GPU_START + the delay it implies */
    uint8_t closed, interleaved, ambiguous, entry_given;
    uint8_t multi; /* when it closed, sections had interleaved (dur_mux.h): several devices */
};

struct place {
    struct run *r;
    struct strtab *strs;
    struct dline *dl; /* the entries; tally writes the phases over them */
    size_t n;
    struct dur_mem *mem; /* where dl lies: the run's phases will */
    uint8_t *kid;     /* per entry: its key (K_*; a byte: millions of entries) */
    int32_t *own;     /* per entry: its call, or E_* */
    struct call *c;
    size_t nc, ccap;  /* ccap: the lines that open a section (each opens a call) */
    size_t nlines;    /* the lines (classify counts them, and those that open or close a section) */
    uint64_t *closes; /* every closing line, given or stray, in line order (sections: as watch keeps them) */
    size_t ncloses, closes_cap;
    uint32_t *ent;    /* n + 1: sections' first entry of each line, then tally's entries by call */
    uint32_t *ucall;  /* per unit: its call + 1 (0: none) */
    uint32_t *uspawn; /* per unit: its spawn line's first entry + 1 (0: none) */
    int64_t *uenter;  /* per unit: that line's spawn_to_enter (ns; kept here, as in struct spawn_line) */
    struct spawn_line {
        uint64_t line;
        size_t e;             /* its first entry */
        uint32_t unit;        /* UINT32_MAX: none took it */
        int64_t enter, prove; /* its spawn_to_enter and prove_start (ns): read here, where the
                               * entries are long out of the cache by the time a section asks */
    } *sp;                    /* the spawn lines, in line order */
    size_t nsp;
    uint64_t sp_after; /* by_spawn's search: the first spawn line after this line */
    uint32_t *byS;    /* units with a GPU_START, by it */
    size_t nbyS;
    uint32_t *pname;  /* per key (the model's strings): its phase's START name + 1, on gpu_tid 0 or none */
    struct {
        uint32_t key, name;
        int32_t tid;
    } tname[64];      /* the same for gpu_tid >= 1, the first 64 */
    int ntname;
};

static int key_of(const struct strtab *strs, uint32_t id)
{
    for (int k = 0; k < K_N; k++)
        if (strtab_is(strs, id, key_table[k].name))
            return k;
    return K_OTHER;
}

/* Each entry's key, classified once per name (a log has a few names and
 * millions of entries): entries [i0, i1), with their own table of names
 * (a big input's two halves, a thread each). */
struct classify_half {
    struct place *P;
    size_t i0, i1;
    size_t lines, opens, closes; /* the lines; those that open a section, and close one */
    int rc;
};

static void classify_range(void *arg)
{
    struct classify_half *h = arg;
    struct place *P = h->P;
    int *by = calloc(P->strs->n + 1, sizeof *by); /* name -> K_* + 1 (0: not yet) */
    if (!by) {
        h->rc = -1;
        return;
    }
    size_t lines = 0, opens = 0, closes = 0; /* counted here: the halves' structs share a cache line */
    for (size_t i = h->i0, i1 = h->i1; i < i1; i++) {
        const struct dline *x = &P->dl[i];
        uint32_t id = x->key;
        if (!by[id])
            by[id] = key_of(P->strs, id) + 1;
        int k = by[id] - 1, spawn = x->tid == DL_SPAWN;
        if (spawn != (k < K_N && key_table[k].role == R_SPAWN))
            k = K_OTHER; /* a CUZK_TIMING key of the same name is not the engine's */
        P->kid[i] = (uint8_t)k;
        P->own[i] = E_FLOAT;
        if (i == 0 || P->dl[i - 1].line != x->line) {
            lines++;
            opens += k < K_N && key_table[k].role == R_OPEN;
            closes += k < K_N && key_table[k].role == R_CLOSE;
        }
    }
    h->lines = lines, h->opens = opens, h->closes = closes;
    free(by);
}

/* Entries on two threads from this many (a real daemon's log has millions). */
#define DUR_SPLIT_MIN 1000000

static int classify(struct place *P)
{
    struct classify_half h[2] = {{P, 0, P->n / 2, 0, 0, 0, 0}, {P, P->n / 2, P->n, 0, 0, 0, 0}};
    if (par_worth(P->n, DUR_SPLIT_MIN) && P->n >= 2) {
        par_two(classify_range, &h[0], &h[1]);
    } else {
        h[0].i1 = P->n, h[1].i0 = P->n;
        classify_range(&h[0]);
    }
    P->ccap = h[0].opens + h[1].opens;
    P->nlines = h[0].lines + h[1].lines;
    P->closes_cap = h[0].closes + h[1].closes;
    return h[0].rc || h[1].rc ? -1 : 0;
}

static int role_of(const struct place *P, size_t i)
{
    int k = P->kid[i];
    if (k == K_OTHER)
        return P->dl[i].tid >= 0 ? R_GPU : R_OTHER;
    return key_table[k].role;
}

static int64_t val(const struct call *c, int k)
{
    return c->v[k] < 0 ? 0 : c->v[k] * MS;
}

static int64_t gs(const struct place *P, uint32_t u)
{
    return P->r->units[u].t[EV_GPU_START];
}

static int64_t ge(const struct place *P, uint32_t u)
{
    return P->r->units[u].t[EV_GPU_END];
}

/* ---- pass 1: the critical sections, read in order ---- */

static int new_call(struct place *P, size_t i)
{
    if (P->nc == P->ccap)
        return -1; /* not reached: dur_place counted the opening lines */
    struct call c;
    memset(&c, 0, sizeof c);
    for (int k = 0; k < K_V; k++)
        c.v[k] = -1;
    c.first = c.last = P->dl[i].line;
    c.t_pos = P->dl[i].t_prev;
    c.close_hi = INT64_MAX;
    c.close_lo = T_NONE;
    c.unit = UINT32_MAX;
    P->c[P->nc] = c;
    return (int)P->nc++;
}

static void give(struct place *P, size_t i, size_t j, int ci)
{
    struct call *c = &P->c[ci];
    for (size_t e = i; e < j; e++) {
        P->own[e] = ci;
        int k = P->kid[e];
        int tid = P->dl[e].tid;
        if (k < K_V && tid <= 0 && c->v[k] < 0)
            c->v[k] = P->dl[e].ms;
        if (k == K_BARRIER && tid <= 0)
            c->barrier_line = P->dl[e].line;
        if (k == K_GPU_TOTAL && tid >= 0 && tid < 64)
            c->tid_done |= 1ull << tid;
    }
    c->last = P->dl[i].line;
}

int dur_mux_line(const int *dn, const int64_t *ns, int n, int tid, int64_t lo, int64_t hi, struct dmux_line *x)
{
    int first = n ? dn[0] : DN_OTHER, role;
    if (first == DN_PRE_LOCK || first == DN_MUTEX_WAIT)
        role = DMUX_OPEN;
    else if (first == DN_HELD || first == DN_TOTAL_FN)
        role = DMUX_CLOSE;
    else if ((first >= DN_NTT && first <= DN_TAIL) || first == DN_GPU_TOTAL || (first == DN_OTHER && tid >= 0))
        role = DMUX_GPU; /* a known GPU key, or one the table does not know on a gpu_tid line */
    else
        return -1; /* outside the section (prep_msm, ...), or a line of no gpu_tid and no known key */
    *x = (struct dmux_line){role, tid, 0, lo, hi, -1, -1};
    int64_t pre = -1, wait = -1;
    for (int i = 0; i < n; i++) {
        int d = dn[i];
        if (role == DMUX_OPEN) {
            if (d == DN_PRE_LOCK && pre < 0)
                pre = ns[i];
            else if (d == DN_MUTEX_WAIT && wait < 0)
                wait = ns[i];
        } else if (role == DMUX_CLOSE) {
            if (d == DN_HELD && x->v < 0)
                x->v = ns[i];
            else if (d == DN_TOTAL_FN && x->v2 < 0)
                x->v2 = ns[i];
        } else if (d == DN_GPU_TOTAL) {
            if (x->v2 < 0)
                x->v2 = ns[i];
        } else if (x->v < 0) {
            x->v = ns[i];
            x->step = d == DN_NTT ? 1 : d == DN_BARRIER ? 2 : d == DN_BATCH ? 3 : d == DN_TAIL ? 4 : 0;
        }
    }
    if (role == DMUX_OPEN)
        x->v = (pre < 0 ? 0 : pre) + (wait < 0 ? 0 : wait);
    return 0;
}

/* The mux's line for entries [i, j) of one line (dur_mux_line); -1: not
 * a section's.  kdn: each key's enum dur_name. */
static int mux_line(const struct place *P, size_t i, size_t j, const int *kdn, struct dmux_line *x)
{
    int dn[8];
    int64_t ns[8];
    int n = 0;
    for (size_t e = i; e < j && n < 8; e++, n++)
        dn[n] = kdn[P->kid[e]], ns[n] = P->dl[e].ms * MS;
    const struct dline *d = &P->dl[i];
    return dur_mux_line(dn, ns, n, (int)d->tid, d->t_prev,
                        d->next_us == DL_NEXT_NONE ? INT64_MAX : d->t_prev + (int64_t)d->next_us * 1000, x);
}
/* The end of the line that starts at entry i. */
static size_t line_end(const struct place *P, size_t i)
{
    size_t j = i + 1;
    while (j < P->n && P->dl[j].line == P->dl[i].line)
        j++;
    return j;
}

/* The mux's decisions: a line to its call, a call ambiguous, a line of none.
 * first[seq]: the line's first entry; callof[seq]: the call an opening line
 * made (-1: none). */
static int mux_take(struct place *P, struct dmux *mx, const uint32_t *first, const int *callof)
{
    struct dmux_out o[256];
    size_t n;
    while ((n = dmux_take(mx, o, sizeof o / sizeof *o)) > 0)
        for (size_t q = 0; q < n; q++) {
            if (o[q].kind == DMUX_AMBIG) {
                if (callof[o[q].sid] >= 0)
                    P->c[callof[o[q].sid]].interleaved = 1;
                continue;
            }
            size_t i = first[o[q].seq], j = line_end(P, i);
            int ci = o[q].kind == DMUX_GIVE ? callof[o[q].sid] : -1;
            if (ci < 0) {
                for (size_t e = i; e < j; e++)
                    P->own[e] = E_STRAY;
                continue;
            }
            give(P, i, j, ci);
            if (role_of(P, i) == R_CLOSE) {
                const struct dline *d = &P->dl[i]; /* as watch reads it: its line's hi (mux_line) */
                P->c[ci].closed = 1, P->c[ci].multi = (uint8_t)o[q].multi;
                P->c[ci].close_hi = d->next_us == DL_NEXT_NONE ? INT64_MAX : d->t_prev + (int64_t)d->next_us * 1000;
                P->c[ci].close_lo = d->t_prev;
            }
        }
    return 0;
}

/* ---- the units open at a point of the input ---- */

/* The units with a GPU_START, by it, then by unit: a span each (start:
 * its GPU_START, end: the unit), in unit order, sorted by the radix sort,
 * which keeps the order of equal starts. */
static int by_gpu_start(struct place *P)
{
    const struct run *r = P->r;
    struct span *bs = malloc((r->nunits + 1) * sizeof *bs);
    if (!bs)
        return -1;
    for (size_t u = 0; u < r->nunits; u++)
        if (r->units[u].t[EV_GPU_START] != T_NONE)
            bs[P->nbyS++] = (struct span){r->units[u].t[EV_GPU_START], (int64_t)u};
    if (sort_spans(NULL, bs, P->nbyS)) {
        free(bs);
        return -1;
    }
    for (size_t i = 0; i < P->nbyS; i++)
        P->byS[i] = (uint32_t)bs[i].end;
    free(bs);
    return 0;
}

/* A sweep over the units by GPU_START: those started by t and not ended
 * before it (a unit with no GPU_END stays until its worker starts
 * another). */
struct sweep {
    uint32_t *v;
    int64_t *d; /* scratch beside v */
    size_t n, next;
};

static void sweep_to(struct place *P, struct sweep *s, int64_t t)
{
    const struct unit *U = P->r->units;
    while (s->next < P->nbyS && gs(P, P->byS[s->next]) <= t) {
        uint32_t u = P->byS[s->next++];
        if (U[u].worker >= 0) /* its worker's unit before it, if unended, ended here */
            for (size_t k = 0; k < s->n; k++)
                if (U[s->v[k]].worker == U[u].worker && ge(P, s->v[k]) == T_NONE) {
                    s->v[k] = s->v[--s->n];
                    break;
                }
        s->v[s->n++] = u;
    }
    size_t w = 0;
    for (size_t k = 0; k < s->n; k++) {
        int64_t e = ge(P, s->v[k]);
        if (e == T_NONE || e >= t - TOL)
            s->v[w++] = s->v[k];
    }
    s->n = w;
}

/* ---- pass 2: each section to a unit ---- */

struct unlock {
    int32_t device;
    int64_t t, hi; /* the last unlock, and the latest it can be (dur_unlock_hi) */
};

static struct unlock *unlock_of(struct unlock *ul, size_t *nul, int32_t device)
{
    for (size_t i = 0; i < *nul; i++)
        if (ul[i].device == device)
            return &ul[i];
    if (*nul == 64)
        return NULL;
    ul[*nul] = (struct unlock){device, T_NONE, INT64_MAX};
    return &ul[(*nul)++];
}

/* Unit u's device's last unlock, for call c; NULL where it says nothing:
 * several devices' sections interleave and the log never names u's device
 * (cuzk's TIMELINE names the worker), so "its device" is not known. */
static struct unlock *dev_unlock(struct place *P, const struct call *c, struct unlock *ul, size_t *nul, uint32_t u)
{
    const struct unit *x = &P->r->units[u];
    if (c->multi && !(x->flags & U_DEVSET))
        return NULL;
    return unlock_of(ul, nul, x->device);
}

/* The delay from a unit's GPU_START to the section's call's entry that
 * the section implies (its opening line printed after the record before
 * it; a wait ends at the unlock before it, and no lock is taken before
 * it), or -1 when the unit cannot have made it. */
static int64_t entry_delay(const struct dur_sect *s, const struct dur_cand *c, int relax)
{
    int64_t L = c->start + s->pre + s->wait, d = 0;
    if (s->t_pos != T_NONE && s->t_pos - TOL > L)
        d = s->t_pos - TOL - L;
    if (c->unlock != T_NONE) {
        int64_t at = relax && c->unlock_hi != INT64_MAX ? c->unlock_hi : c->unlock;
        if (s->waited && L > at + TOL)
            return -1; /* it waited, so it locked at that unlock (relax: by its latest), not after */
        if (L + d < c->unlock - TOL)
            d = c->unlock - TOL - L;
    }
    if (c->end != T_NONE && L + d + s->held > c->end + TOL)
        return -1;
    return d;
}

static int ends_first(const struct dur_cand *a, const struct dur_cand *b)
{
    if (a->end != b->end) {
        if (a->end == T_NONE || b->end == T_NONE)
            return b->end == T_NONE; /* no GPU_END: last */
        return a->end < b->end;
    }
    return a->start < b->start || (a->start == b->start && a->id < b->id);
}

static int choose(const struct dur_sect *s, const struct dur_cand *c, size_t n, int64_t *delay, int64_t *scratch,
                  int relax)
{
    /* The least delay wins; within TOL of it, the earliest GPU_END (the
     * unit that locked first ends first: giving it the earlier call
     * leaves every later call a unit that can still hold it), then the
     * earliest GPU_START. */
    int64_t dmin = -1;
    for (size_t k = 0; k < n; k++) {
        scratch[k] = entry_delay(s, &c[k], relax);
        if (scratch[k] >= 0 && (dmin < 0 || scratch[k] < dmin))
            dmin = scratch[k];
    }
    if (dmin < 0)
        return DUR_NONE;
    /* Where the least delay is forced (the entry is held back by the
     * record before the opening line, or by the unlock), every unit it
     * forces enters at that same instant: their delays differ only by
     * their GPU_STARTs and say nothing of which made the call, so they tie
     * with it (the earliest GPU_END then, not the latest GPU_START). */
    int64_t emin = INT64_MAX;
    for (size_t k = 0; k < n; k++)
        if (scratch[k] >= 0 && scratch[k] <= dmin + TOL && c[k].start + scratch[k] < emin)
            emin = c[k].start + scratch[k];
    int best = -1;
    for (size_t k = 0; k < n; k++)
        if (scratch[k] >= 0 && (scratch[k] <= dmin + TOL || (scratch[k] > 0 && c[k].start + scratch[k] <= emin + TOL)) &&
            (best < 0 || ends_first(&c[k], &c[best])))
            best = (int)k;
    /* Another could have made it too.  The choice moves the call by the
     * difference of their entries: a guess, unless that is within TOL or
     * 5% of the call's length (then every figure is the same). */
    for (size_t k = 0; k < n; k++) {
        if ((int)k == best || scratch[k] < 0 ||
            (scratch[k] > dmin + TOL && !(scratch[k] > 0 && c[k].start + scratch[k] <= emin + TOL)))
            continue;
        int64_t move = (c[k].start + scratch[k]) - (c[best].start + scratch[best]);
        if (move < 0)
            move = -move;
        if (move > TOL && move * 20 > s->held)
            return DUR_AMBIGUOUS;
    }
    *delay = scratch[best];
    return best;
}

int dur_choose(const struct dur_sect *s, const struct dur_cand *c, size_t n, int64_t *delay, int64_t *scratch)
{
    /* a section that waited locked at the unlock before it, which is only
     * bounded (dur_unlock_hi): every unit whose lock falls in that interval
     * fits, and the rule chooses among them all */
    return choose(s, c, n, delay, scratch, s->waited);
}

int dur_spawn_fits(const struct dur_sect *s, const struct dur_cand *c, int64_t spawn, int64_t prove, int64_t total_fn)
{
    int64_t L = c->start + spawn + s->pre + s->wait;
    if (s->t_pos != T_NONE && L < s->t_pos - TOL)
        return 0; /* the section's first line is printed at L, after the record before it */
    int64_t hi = c->unlock_hi != INT64_MAX ? c->unlock_hi : c->unlock; /* the entry here is the line's own */
    if (c->unlock != T_NONE && (L < c->unlock - TOL || (s->waited && L > hi + TOL)))
        return 0; /* it locked before the device's unlock, or it waited and locked after its latest */
    if (c->end != T_NONE && L + s->held > c->end + TOL)
        return 0;
    if (prove >= 0 && total_fn >= 0 && prove < total_fn - TOL)
        return 0; /* gpu_prove_start returns after the unlock that total_start_fn reaches */
    return 1;
}

void dur_clamp(int64_t *a, int64_t *b, int64_t lo, int64_t hi)
{
    if (hi != T_NONE && *b > hi && *b - hi <= TOL)
        *a -= *b - hi, *b = hi;
    if (lo != T_NONE && *a < lo && lo - *a <= TOL)
        *b += lo - *a, *a = lo;
}

/* Unit u's spawn_to_enter (ns), or -1 when no spawn line was given to it. */
static int64_t spawn_of(const struct place *P, uint32_t u)
{
    return P->uspawn[u] ? P->uenter[u] : -1;
}

static void assign(struct place *P, struct call *c, uint32_t u, int64_t d)
{
    c->unit = u;
    c->t0 = gs(P, u) + d;
    P->ucall[u] = (uint32_t)(c - P->c) + 1;
}

static int64_t held_of(const struct call *c)
{
    return c->v[K_HELD] >= 0 ? val(c, K_HELD) : val(c, K_GPU_TOTAL);
}

static int spawn_after(const void *ctx, size_t i)
{
    const struct place *P = ctx;
    return P->sp[i].line <= P->sp_after;
}

/* Does a closing line of closes[0..n) (sorted) lie strictly between lines a and b? */
static int close_between(const uint64_t *closes, size_t n, uint64_t a, uint64_t b)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* the first after a */
        size_t mid = lo + (hi - lo) / 2;
        if (closes[mid] <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && closes[lo] < b;
}

/* The candidate that the spawn line printed first after the call's
 * closing line names, when the section fits it there (durations.h,
 * dur_spawn_fits): its index, with its spawn as the delay; else -1.
 * Where another closing line lies between the two (several devices'
 * calls unlock at once), the line may be that section's: no unit from it. */
static int by_spawn(struct place *P, const struct call *c, const struct dur_sect *sect, const struct dur_cand *cand,
                    size_t nc, int64_t *d, const uint64_t *closes, size_t ncloses)
{
    if (!c->closed || !P->nsp)
        return -1;
    P->sp_after = c->last;
    size_t i = first_not_before(0, P->nsp, spawn_after, P);
    if (i == P->nsp || P->sp[i].unit == UINT32_MAX || close_between(closes, ncloses, c->last, P->sp[i].line))
        return -1;
    uint32_t u = P->sp[i].unit;
    int64_t total_fn = c->v[K_TOTAL_FN] >= 0 ? val(c, K_TOTAL_FN) : -1;
    for (size_t k = 0; k < nc; k++)
        if (cand[k].id == u && P->uspawn[u] == P->sp[i].e + 1 &&
            dur_spawn_fits(sect, &cand[k], P->sp[i].enter, P->sp[i].prove, total_fn)) {
            *d = P->sp[i].enter;
            return (int)k;
        }
    return -1;
}

static int sections_to_units(struct place *P)
{
    struct sweep s = {malloc((P->nbyS + 1) * sizeof *s.v), malloc((P->nbyS + 1) * sizeof *s.d), 0, 0};
    struct dur_cand *cand = malloc((P->nbyS + 1) * sizeof *cand);
    struct unlock ul[64];
    size_t nul = 0, ncloses = P->ncloses;
    const uint64_t *closes = P->closes;
    /* Each unit's worker's next GPU_START (T_NONE: none): the worker awaits
     * its call before it, so a unit with no GPU_END (a failed call's: the
     * engine prints none) ends its call by then (workers 0-255, as watch) */
    int64_t *next_start = malloc((P->r->nunits + 1) * sizeof *next_start);
    int rc = -1;
    if (!s.v || !s.d || !cand || !next_start)
        goto out;
    {
        uint32_t lastu[256];
        for (int w = 0; w < 256; w++)
            lastu[w] = UINT32_MAX;
        for (size_t u = 0; u < P->r->nunits; u++)
            next_start[u] = T_NONE;
        for (size_t i = 0; i < P->nbyS; i++) {
            uint32_t u = P->byS[i];
            int32_t w = P->r->units[u].worker;
            if (w < 0 || w >= 256)
                continue;
            if (lastu[w] != UINT32_MAX)
                next_start[lastu[w]] = gs(P, u);
            lastu[w] = u;
        }
    }
    for (size_t ci = 0; ci < P->nc; ci++) {
        struct call *c = &P->c[ci];
        if (c->interleaved || c->t_pos == T_NONE)
            continue;
        sweep_to(P, &s, c->t_pos);
        size_t nc = 0;
        for (size_t k = 0; k < s.n; k++) {
            uint32_t u = s.v[k];
            if (P->ucall[u])
                continue;
            struct unlock *ut = dev_unlock(P, c, ul, &nul, u);
            int64_t end = ge(P, u) != T_NONE ? ge(P, u) : next_start[u];
            cand[nc++] = (struct dur_cand){gs(P, u), end, ut ? ut->t : T_NONE, ut ? ut->hi : INT64_MAX, u};
        }
        struct dur_sect sect = {val(c, K_PRE_LOCK), val(c, K_MUTEX_WAIT), held_of(c), c->v[K_MUTEX_WAIT] >= 2,
                                c->t_pos};
        int64_t d;
        int k = by_spawn(P, c, &sect, cand, nc, &d, closes, ncloses);
        if (k < 0)
            k = dur_choose(&sect, cand, nc, &d, s.d);
        if (k == DUR_AMBIGUOUS || (k == DUR_NONE && nc))
            c->ambiguous = 1; /* GPU phases were open, but none fits it: not "outside" either (as a line's, below) */
        if (k < 0) { /* none fits: outside any GPU phase, or ambiguous; its mutex was still held */
            struct unlock *ut = nc && c->closed ? dev_unlock(P, c, ul, &nul, cand[0].id) : NULL;
            for (size_t q = 1; ut && q < nc; q++)
                if (dev_unlock(P, c, ul, &nul, cand[q].id) != ut)
                    ut = NULL; /* its candidates are on several devices: whose is not known */
            if (ut)
                dur_unlock_unplaced(&ut->t, &ut->hi, sect.held, c->close_lo, c->close_hi);
            continue;
        }
        uint32_t u = cand[k].id;
        if (P->uspawn[u] && d != spawn_of(P, u)) { /* chosen by the lines: enter at the engine's entry */
            if (dur_spawn_fits(&sect, &cand[k], spawn_of(P, u), -1, -1)) {
                d = spawn_of(P, u);
            } else { /* the line contradicts the call: not given, counted */
                for (size_t e = P->uspawn[u] - 1; e < P->uspawn[u] - 1 + DL_SPAWN_N; e++)
                    P->own[e] = E_SPAWN_LOST;
                P->uspawn[u] = 0;
            }
        }
        assign(P, c, u, d);
        struct unlock *ut = dev_unlock(P, c, ul, &nul, u);
        if (ut) {
            ut->t = c->t0 + sect.pre + sect.wait + sect.held;
            ut->hi = dur_unlock_hi(ut->t, c->close_hi);
        }
    }
    rc = 0;
out:
    free(s.v);
    free(s.d);
    free(cand);
    free(next_start);
    return rc;
}

/* ---- pass 0, in pass 1's walk: the engine's spawn lines, each to its worker's unit ---- */

/* The spawn line at entries [i, j) (sections walks the lines: one pass over
 * millions of entries, not two). */
static void spawn_line(struct place *P, struct sweep *s, size_t i, size_t j)
{
    const struct unit *U = P->r->units;
    /* scan_dur's order: spawn_to_enter, prove_start, worker_id, partition */
    int64_t w = P->dl[i + 2].ms, part = P->dl[i + 3].ms, t = P->dl[i].t_prev;
    int32_t to = E_SPAWN_LOST;
    uint32_t best = UINT32_MAX;
    if (t != T_NONE) {
        sweep_to(P, s, t);
        for (size_t k = 0; k < s->n; k++) {
            uint32_t u = s->v[k];
            if (U[u].worker != w || (part >= 0 && U[u].partition != part) || P->uspawn[u])
                continue;
            if (best == UINT32_MAX || gs(P, u) > gs(P, best) || (gs(P, u) == gs(P, best) && u > best))
                best = u;
        }
    }
    if (best != UINT32_MAX) {
        P->uspawn[best] = (uint32_t)i + 1;
        P->uenter[best] = P->dl[i].ms * MS;
        to = E_SPAWN;
    }
    P->sp[P->nsp++] = (struct spawn_line){P->dl[i].line, i, best, P->dl[i].ms * MS, P->dl[i + 1].ms * MS};
    for (size_t e = i; e < j; e++)
        P->own[e] = to;
}

/* The critical sections: each opening line makes a call; the lines after
 * it go to the open call they belong to, which the mux decides (several
 * devices' sections interleave: dur_mux.h). */
static int sections(struct place *P)
{
    size_t nl = P->nlines;
    /* entries < UINT32_MAX (dur_place); room for one an entry: tally takes
     * it over for its list of entries by call, its pages already made */
    uint32_t *first = P->ent = big_alloc_flat((P->n + 1) * sizeof *first);
    int *callof = malloc((nl + 1) * sizeof *callof);
    struct dmux *mx = dmux_new(DMUX_PENDING);
    P->closes = malloc((P->closes_cap + 1) * sizeof *P->closes);
    struct sweep sw = {malloc((P->nbyS + 1) * sizeof *sw.v), NULL, 0, 0}; /* the spawn lines' */
    P->sp = malloc((P->n / 4 + 1) * sizeof *P->sp);                      /* four entries a line */
    int rc = first && callof && mx && P->closes && sw.v && P->sp ? 0 : -1;
    int kdn[K_N + 1]; /* each key's name as watch reads it (dur_name_of): the mux's lines are the same */
    for (int k = 0; k < K_N; k++)
        kdn[k] = dur_name_of(key_table[k].name, strlen(key_table[k].name));
    kdn[K_OTHER] = DN_OTHER;
    uint64_t seq = 0;
    for (size_t i = 0; rc == 0 && i < P->n;) {
        size_t j = line_end(P, i);
        struct dmux_line x;
        if (role_of(P, i) == R_CLOSE && P->ncloses < P->closes_cap)
            P->closes[P->ncloses++] = P->dl[i].line;
        if (P->dl[i].tid == DL_SPAWN && j - i == DL_SPAWN_N) /* no section's (dur_mux_line) */
            spawn_line(P, &sw, i, j);
        if (mux_line(P, i, j, kdn, &x) == 0) {
            first[seq] = (uint32_t)i;
            callof[seq] = -1;
            if (x.role == DMUX_OPEN) {
                callof[seq] = new_call(P, i);
                if (callof[seq] >= 0)
                    give(P, i, j, callof[seq]);
            }
            seq++;
            if (dmux_feed(mx, &x) || mux_take(P, mx, first, callof))
                rc = -1;
        }
        i = j;
    }
    if (rc == 0 && (dmux_end(mx) || mux_take(P, mx, first, callof)))
        rc = -1;
    dmux_free(mx);
    free(sw.v);
    free(callof);
    return rc;
}

/* ---- pass 3: the lines around the sections ---- */

/* When the line at entry i would have been printed had unit u's call made
 * it, or T_NONE when it cannot have; T_AFTER: a name the table does not
 * know, on the calling thread after its call's section, when it is not
 * known (the call returns after the unlock, and its unit's GPU phase is
 * still open). */
#define T_AFTER (INT64_MIN + 1)
static int64_t printed_at(const struct place *P, size_t i, size_t j, const struct call *c, int role)
{
    uint64_t line = P->dl[i].line;
    int64_t ms = P->dl[i].ms * MS;
    switch (role) {
    case R_ENTRY: { /* the call's first line, before its lock */
        if (c->entry_given || c->first <= line)
            return T_NONE;
        int64_t sts = 0;
        for (size_t e = i; e < j; e++)
            if (P->dl[e].ms * MS > sts)
                sts = P->dl[e].ms * MS; /* setup_to_split holds split_vectors */
        if (c->v[K_PRE_LOCK] >= 0 && sts > val(c, K_PRE_LOCK) + TOL)
            return T_NONE;
        return c->t0 + sts;
    }
    case R_PREP: { /* before its section's barrier_wait */
        if (c->v[K_PREP] >= 0)
            return T_NONE;
        if (c->barrier_line ? line > c->barrier_line : c->closed && line > c->last)
            return T_NONE;
        int64_t mw = val(c, K_MUTEX_WAIT), ntt = val(c, K_NTT), bw = val(c, K_BARRIER);
        if (c->v[K_BARRIER] >= 2 && (ms > mw + ntt + bw + 4 * MS || ms + 4 * MS < mw + ntt + bw))
            return T_NONE; /* the barrier waited for this prep: they end together */
        if (c->v[K_NTT] >= 0 && c->v[K_BARRIER] >= 0 && c->v[K_BARRIER] < 2 && ms > mw + ntt + bw + 4 * MS)
            return T_NONE; /* the barrier did not wait: it ended before */
        return c->t0 + val(c, K_PRE_LOCK) + ms;
    }
    case R_BG2: { /* after its prep_msm, before its unit's GPU_END */
        if (c->v[K_PREP] < 0 || c->prep_line >= line || c->v[K_BG2] >= 0)
            return T_NONE;
        int64_t end = c->t0 + val(c, K_PRE_LOCK) + val(c, K_PREP) + ms;
        if (ge(P, c->unit) != T_NONE && end > ge(P, c->unit) + TOL)
            return T_NONE;
        return end;
    }
    default: /* a name the table does not know: a line of an open section */
        if (line < c->first)
            return T_NONE;
        if (c->closed && line > c->last) /* or, on the calling thread, after it (around) */
            return role == R_OTHER ? T_AFTER : T_NONE;
        return c->t0 + ms;
    }
}

static int around(struct place *P)
{
    struct sweep s = {malloc((P->nbyS + 1) * sizeof *s.v), NULL, 0, 0};
    if (!s.v)
        return -1;
    for (size_t i = 0; i < P->n;) {
        size_t j = i + 1;
        while (j < P->n && P->dl[j].line == P->dl[i].line)
            j++;
        if (P->own[i] != E_FLOAT) {
            i = j;
            continue;
        }
        int role = role_of(P, i);
        int64_t t = P->dl[i].t_prev;
        /* and the first record after it: a line is printed between the two */
        int64_t t_next = P->dl[i].next_us == DL_NEXT_NONE || t == T_NONE ? INT64_MAX
                                                                         : t + (int64_t)P->dl[i].next_us * 1000;
        int32_t to = E_OUTSIDE;
        if (role != R_RUN && t != T_NONE) {
            sweep_to(P, &s, t);
            /* The earliest fit wins: two within TOL of each other place the
             * line within TOL of each other too, so either is as good.
             * Farther apart (by the calls' rule: over TOL and 5% of the
             * line's longest value), which unit printed it is a guess: it
             * is still given, so that the phases' means keep it (the two
             * units' values swap at most), and counted as guessed. */
            int64_t best = 0, amin = INT64_MAX, amax = INT64_MIN;
            int32_t bc = -1, ac = -1;
            size_t after = 0, later = 0; /* the calls whose section it follows next (T_AFTER), and the
                                          * last; those it follows after another's closing line */
            for (size_t k = 0; k < s.n; k++) {
                uint32_t u = s.v[k];
                if (!P->ucall[u])
                    continue;
                const struct call *c = &P->c[P->ucall[u] - 1];
                int64_t at = printed_at(P, i, j, c, role);
                if (at == T_AFTER) { /* printed by the call that closed last before it, as a spawn line is */
                    if (close_between(P->closes, P->ncloses, c->last, P->dl[i].line))
                        later++;
                    else
                        after++, ac = (int32_t)(c - P->c);
                    continue;
                }
                if (at == T_NONE || at < t - TOL || (t_next != INT64_MAX && at > t_next + TOL))
                    continue; /* printed before the record that precedes it, or after the one that follows */
                if (bc < 0 || at - t < best)
                    best = at - t, bc = (int32_t)(c - P->c);
                amin = at < amin ? at : amin;
                amax = at > amax ? at : amax;
            }
            if (bc >= 0) {
                to = bc;
                int64_t longest = 0;
                for (size_t e = i; e < j; e++)
                    longest = P->dl[e].ms * MS > longest ? P->dl[e].ms * MS : longest;
                if (amax - amin > TOL && (amax - amin) * 20 > longest)
                    P->r->dur.guessed += j - i;
            }
            else if (after + later) /* a key the table does not know is still a phase: of the one
                                     * open unit whose call it follows next; else whose is not known */
                to = after == 1 ? ac : E_AMBIGUOUS;
            else if (s.n && role != R_OTHER)
                to = E_AMBIGUOUS; /* GPU phases were open, but none has a call that fits it */
        }
        for (size_t e = i; e < j; e++)
            P->own[e] = to;
        if (to >= 0) {
            struct call *c = &P->c[to];
            if (role == R_ENTRY)
                c->entry_given = 1;
            for (size_t e = i; e < j; e++)
                if (P->kid[e] == K_PREP || P->kid[e] == K_BG2)
                    c->v[P->kid[e]] = P->dl[e].ms;
            if (role == R_PREP)
                c->prep_line = P->dl[i].line;
        }
        i = j;
    }
    free(s.v);
    return 0;
}

/* ---- the phases ---- */

/* The START name of entry e's phase: KEY_START, or KEY.gpuK_START for
 * gpu_tid k >= 1 (a call over several GPUs), interned once per name. */
static int phase_name(struct place *P, size_t e, uint32_t *id)
{
    uint32_t key = P->dl[e].key;
    int tid = P->dl[e].tid;
    if (tid <= 0 && P->pname[key]) {
        *id = P->pname[key] - 1;
        return 0;
    }
    for (int i = 0; tid > 0 && i < P->ntname; i++)
        if (P->tname[i].key == key && P->tname[i].tid == tid) {
            *id = P->tname[i].name;
            return 0;
        }
    size_t kn;
    const char *k = strtab_get(P->strs, key, &kn);
    char name[DUR_NAME_MAX + 24];
    int len = tid > 0 ? snprintf(name, sizeof name, "%.*s.gpu%d_START", (int)kn, k, tid)
                      : snprintf(name, sizeof name, "%.*s_START", (int)kn, k);
    if (strtab_intern(P->strs, name, (size_t)len, id))
        return -1;
    if (tid <= 0)
        P->pname[key] = *id + 1;
    else if (P->ntname < (int)(sizeof P->tname / sizeof *P->tname))
        P->tname[P->ntname].key = key, P->tname[P->ntname].tid = tid, P->tname[P->ntname++].name = *id;
    return 0;
}

/* Entry e's phase, written over the entry (tally): it is read before. */
static int add_phase(struct place *P, size_t e, uint32_t unit, int64_t a, int64_t b)
{
    const struct unit *u = &P->r->units[unit];
    dur_clamp(&a, &b, u->t[EV_GPU_START], u->t[EV_GPU_END]);
    uint32_t id;
    if (phase_name(P, e, &id))
        return -1;
    struct dphase x = {a, b, P->dl[e].line, id};
    memcpy(&P->dl[e], &x, sizeof x); /* memcpy: the same bytes, read as a phase from now on */
    return 0;
}

/* The calling thread's durations and gpu_tid lines as the source orders
 * them, from the call's entry t0. */
static int call_phases(struct place *P, size_t ci, const uint32_t *ent, size_t m)
{
    const struct call *c = &P->c[ci];
    int64_t t0 = c->t0, pre = val(c, K_PRE_LOCK), L = t0 + pre + val(c, K_MUTEX_WAIT);
    int64_t prep_end = t0 + pre + val(c, K_PREP);
    int64_t cur[64], gtot[64];
    for (int k = 0; k < 64; k++)
        cur[k] = L, gtot[k] = -1;
    int64_t sts = -1;
    for (size_t q = 0; q < m; q++)
        if (P->kid[ent[q]] == K_SETUP)
            sts = P->dl[ent[q]].ms * MS;
    for (size_t q = 0; q < m; q++) {
        size_t e = ent[q];
        int64_t ms = P->dl[e].ms * MS, a, b;
        int tid = P->dl[e].tid, k = P->kid[e];
        if (tid >= 0 && tid < 64) { /* a GPU thread's lines follow each other from L */
            if (k == K_GPU_TOTAL) {
                a = L, b = L + ms;
            } else if (k == K_TAIL && P->dl[e].t_prev >= 0) { /* tally kept its line's gpu_total there */
                gtot[tid] = P->dl[e].t_prev * MS; /* the tail ends with the total */
                a = L + gtot[tid] - ms, b = L + gtot[tid];
            } else {
                a = cur[tid], b = cur[tid] + ms;
            }
            if (k != K_GPU_TOTAL)
                cur[tid] = b;
        } else {
            switch (k) {
            case K_PRE_LOCK: a = t0, b = t0 + ms; break;
            case K_MUTEX_WAIT: a = t0 + pre, b = L; break;
            case K_HELD: a = L, b = L + ms; break;
            case K_TOTAL_FN: a = t0, b = t0 + ms; break;
            case K_SETUP: a = t0, b = t0 + ms; break;
            case K_SPLIT: a = sts >= 0 ? t0 + sts - ms : t0, b = a + ms; break;
            case K_PREP: a = t0 + pre, b = prep_end; break;
            case K_BG2: a = prep_end, b = prep_end + ms; break;
            default: a = t0, b = t0 + ms; break; /* a name the table does not know */
            }
        }
        if (add_phase(P, e, c->unit, a, b))
            return -1;
    }
    return 0;
}

/* The spawn line's two intervals: from GPU_START to the call's entry, and
 * the call from its entry to gpu_prove_start's return. */
static int spawn_phases(struct place *P, uint32_t u)
{
    size_t e = P->uspawn[u] - 1;
    int64_t S = gs(P, u), enter = P->dl[e].ms * MS, run = P->dl[e + 1].ms * MS;
    return add_phase(P, e, u, S, S + enter) || add_phase(P, e + 1, u, S + enter, S + enter + run) ? -1 : 0;
}

static int mark_outside(struct run *r, const struct dline *x)
{
    struct dur_use *d = &r->dur;
    for (size_t i = 0; i < d->nmarks; i++)
        if (d->marks[i].name == x->key) {
            d->marks[i].count++;
            d->marks[i].total_ms += x->ms;
            return 0;
        }
    struct dur_mark *nm = realloc(d->marks, (d->nmarks + 1) * sizeof *nm);
    if (!nm)
        return -1;
    d->marks = nm;
    d->marks[d->nmarks++] = (struct dur_mark){x->key, 1, x->ms};
    return 0;
}

/* The names of the phases to be made: the keys of the entries that will
 * be phases (want[key] 1; 2 once interned), how many, and whether one is
 * a gpu_tid >= 1's (named apart, per GPU). */
struct names_first {
    uint8_t *want;
    size_t n;
    int multi;
};

static void names_want(struct names_first *nf, const struct dline *x)
{
    if (x->tid > 0)
        nf->multi = 1;
    else if (!nf->want[x->key])
        nf->want[x->key] = 1, nf->n++;
}

/* Each unit u's phases would take its call's entries ent[at[c]..at[c + 1])
 * in order, then its spawn line's first two: the names interned in the
 * order that walk first meets them, until all are (a dozen names, met in
 * the first units). */
static int names_first(struct place *P, struct names_first *nf, const size_t *at, const uint32_t *ent)
{
    for (size_t u = 0; nf->n && u < P->r->nunits; u++) {
        size_t e0 = P->ucall[u] ? at[P->ucall[u] - 1] : 0, e1 = P->ucall[u] ? at[P->ucall[u]] : 0;
        for (size_t q = e0; nf->n && q < e1 + (P->uspawn[u] ? 2 : 0); q++) {
            size_t e = q < e1 ? ent[q] : P->uspawn[u] - 1 + (q - e1);
            uint32_t id;
            if (nf->want[P->dl[e].key] == 1) {
                if (phase_name(P, e, &id))
                    return -1;
                nf->want[P->dl[e].key] = 2, nf->n--;
            }
        }
    }
    return 0;
}

/* How many phases unit u makes: its call's entries (ent[at[c]..at[c + 1])),
 * and its spawn line's first two. */
static size_t unit_nph(const struct place *P, const size_t *at, size_t u)
{
    return (P->ucall[u] ? at[P->ucall[u]] - at[P->ucall[u] - 1] : 0) + (P->uspawn[u] ? 2 : 0);
}

/* Units [u0, u1): each one's phases written over its entries, and where
 * each goes among the run's (dest: the cycle of moves below). */
struct phase_half {
    struct place *P;
    const size_t *at;
    const uint32_t *ent;
    uint32_t u0, u1;
    int rc;
};

static void unit_phases_range(void *arg)
{
    struct phase_half *h = arg;
    struct place *P = h->P;
    const size_t *at = h->at;
    struct dphase *ph = (struct dphase *)(void *)P->dl;
    uint32_t *dest = (uint32_t *)P->own;
    uint32_t *lst = NULL; /* a unit's entries that became phases */
    size_t lcap = 0;
    int rc = 0;
    for (size_t u = h->u0; rc == 0 && u < h->u1; u++) {
        if (!(P->ucall[u] || P->uspawn[u]))
            continue;
        size_t ci = P->ucall[u] - 1, m = unit_nph(P, at, u);
        if (m > lcap) {
            uint32_t *nl = realloc(lst, m * sizeof *nl);
            if (!nl) {
                rc = -1;
                break;
            }
            lst = nl, lcap = m;
        }
        size_t k = 0;
        if (P->ucall[u]) {
            rc = call_phases(P, ci, h->ent + at[ci], at[ci + 1] - at[ci]);
            memcpy(lst, h->ent + at[ci], (at[ci + 1] - at[ci]) * sizeof *lst);
            k = at[ci + 1] - at[ci];
        }
        if (rc == 0 && P->uspawn[u]) {
            rc = spawn_phases(P, (uint32_t)u);
            lst[k] = P->uspawn[u] - 1, lst[k + 1] = P->uspawn[u];
        }
        /* by start, line and name, as unit_phases gives them: a dozen
         * each, so that it finds them in order and need not sort them */
        for (size_t q = 1; rc == 0 && q < m; q++) {
            uint32_t x = lst[q];
            const struct dphase *px = &ph[x];
            size_t j = q;
            for (; j > 0; j--) {
                const struct dphase *pj = &ph[lst[j - 1]];
                if (!(pj->a > px->a || (pj->a == px->a && (pj->line > px->line ||
                                                         (pj->line == px->line && pj->name > px->name)))))
                    break;
                lst[j] = lst[j - 1];
            }
            lst[j] = x;
        }
        if (rc)
            break; /* lst is not all set */
        for (size_t q = 0; q < m; q++)
            dest[lst[q]] = (uint32_t)(P->r->dur.ph_at[u] + q);
    }
    free(lst);
    h->rc = rc;
}

static int tally(struct place *P)
{
    struct run *r = P->r;
    struct dur_use *d = &r->dur;
    uint64_t prev_line = 0;
    /* the keys whose phases will be named (struct names_first) */
    struct names_first nf = {calloc(P->strs->n + 1, 1), 0, 0};
    if (!nf.want)
        return -1;
    /* and each call's entries counted (at: a counting sort by call, below) */
    size_t *at = calloc(P->nc + 1, sizeof *at);
    if (!at) {
        free(nf.want);
        return -1;
    }
    for (size_t e = 0; e < P->n; e++) {
        int32_t o = P->own[e];
        if (o >= 0)
            at[o + 1]++;
        if (o == E_SPAWN || o == E_SPAWN_LOST || P->dl[e].tid == DL_SPAWN) { /* counted by line, apart */
            if (P->dl[e].line != prev_line) {
                d->spawn_lines++;
                d->spawn_placed += o == E_SPAWN;
                if (o == E_SPAWN && e + 1 < P->n) /* spawn_phases: its first two */
                    names_want(&nf, &P->dl[e]), names_want(&nf, &P->dl[e + 1]);
            }
            if (o >= 0) /* a call's all the same (none today: the scanner's spawn lines are whole) */
                names_want(&nf, &P->dl[e]);
            prev_line = P->dl[e].line;
            continue;
        }
        d->values++;
        if (P->dl[e].line != prev_line)
            d->lines++;
        prev_line = P->dl[e].line;
        if (o >= 0 && P->c[o].unit == UINT32_MAX) /* a section no unit took */
            o = P->c[o].interleaved ? E_INTERLEAVED : P->c[o].ambiguous ? E_AMBIGUOUS : E_OUTSIDE;
        if (o >= 0) {
            d->placed++;
            names_want(&nf, &P->dl[e]);
        } else if (o == E_INTERLEAVED)
            d->interleaved++;
        else if (o == E_AMBIGUOUS)
            d->ambiguous++;
        else if (o == E_STRAY)
            d->stray++;
        else if (mark_outside(r, &P->dl[e])) {
            free(nf.want);
            free(at);
            return -1;
        } else
            d->outside++;
    }
    /* each call's entries, in line order */
    uint32_t *ent = P->ent;
    int rc = 0;
    for (size_t ci = 0; ci < P->nc; ci++)
        at[ci + 1] += at[ci];
    for (size_t e = 0; e < P->n; e++)
        if (P->own[e] >= 0)
            ent[at[P->own[e]]++] = (uint32_t)e;
    for (size_t ci = P->nc; ci > 0; ci--) /* at[ci] is now where call ci ends */
        at[ci] = at[ci - 1];
    at[0] = 0;
    size_t nph = 0;
    for (size_t ci = 0; ci < P->nc; ci++) {
        d->calls++;
        if (P->c[ci].unit != UINT32_MAX) {
            d->units++;
            nph += at[ci + 1] - at[ci];
        }
    }
    nph += 2 * d->spawn_placed;
    /* The phases are written over the entries, entry e's over e (a phase
     * is 32 bytes, as an entry is, and an entry gives one at most), so the
     * millions of them never take memory of their own; then moved into
     * unit order.  Entries are read before they are overwritten, but for
     * a tail_msm's end, its line's gpu_total (the next entry, maybe given
     * first): kept in its own entry's t_prev, which is no longer read. */
    for (size_t e = 0; e < P->n; e++)
        if (P->kid[e] == K_TAIL)
            P->dl[e].t_prev = e + 1 < P->n && P->dl[e + 1].line == P->dl[e].line &&
                                      P->kid[e + 1] == K_GPU_TOTAL
                                  ? P->dl[e + 1].ms
                                  : -1;
    struct dphase *ph = (struct dphase *)(void *)P->dl;
    uint32_t *dest = (uint32_t *)P->own; /* each entry's place among the phases (own is read no more) */
    for (size_t e = 0; e < P->n; e++)
        dest[e] = UINT32_MAX;
    if (rc == 0 && nph && !(d->ph_at = malloc((r->nunits + 1) * sizeof *d->ph_at)))
        rc = -1;
    size_t k0 = 0;
    for (size_t u = 0; rc == 0 && nph && u <= r->nunits; u++) { /* where each unit's phases go */
        d->ph_at[u] = k0;
        if (u < r->nunits)
            k0 += unit_nph(P, at, u);
    }
    /* Each unit's phases made over its entries, on two threads where there
     * are millions: the units' entries are apart, and so are their places
     * among the phases.  A name is interned the first time a phase takes it
     * (its id orders phases that start together), so the names are interned
     * first, in that order, here; then a thread only reads them.  A call
     * over several GPUs names its phases apart (.gpuK): those stay on one
     * thread. */
    struct phase_half h[2] = {{P, at, ent, 0, (uint32_t)r->nunits, 0}, {P, at, ent, 0, 0, 0}};
    if (rc == 0 && nph && !nf.multi && par_worth(P->n, DUR_SPLIT_MIN) && r->nunits >= 2) {
        rc = names_first(P, &nf, at, ent);
        h[0].u1 = h[1].u0 = (uint32_t)(r->nunits / 2), h[1].u1 = (uint32_t)r->nunits;
        if (rc == 0)
            par_two(unit_phases_range, &h[0], &h[1]);
    } else if (rc == 0 && nph) {
        unit_phases_range(&h[0]);
    }
    free(nf.want);
    if (rc == 0)
        rc = h[0].rc || h[1].rc ? -1 : 0;
    /* into unit order, in place: each cycle of moves carried once */
    for (size_t s0 = 0; rc == 0 && s0 < P->n; s0++) {
        if (dest[s0] == UINT32_MAX)
            continue;
        struct dphase carry = ph[s0];
        uint32_t t = dest[s0];
        dest[s0] = UINT32_MAX;
        while (dest[t] != UINT32_MAX) { /* t holds a phase not yet moved: take it on */
            struct dphase next = ph[t];
            uint32_t tt = dest[t];
            dest[t] = UINT32_MAX;
            ph[t] = carry;
            carry = next, t = tt;
        }
        ph[t] = carry;
    }
    if (rc == 0 && nph) {
        d->ph = ph, d->nph = k0, d->ph_cap = 0;
        d->mem = P->mem, P->mem->refs++;
    }
    if (rc == 0) { /* the entries past the phases are done with: their whole pages go back */
        uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), lo = (uintptr_t)(ph + k0), hi = (uintptr_t)(P->dl + P->n);
        lo = (lo + pg - 1) / pg * pg, hi = hi / pg * pg;
        if (hi > lo)
            madvise((void *)lo, hi - lo, MADV_DONTNEED);
    }
    free(at);
    return rc;
}

int dur_place(struct run *r, struct strtab *strs, struct dline *dl, size_t n, struct dur_mem *mem)
{
    _Static_assert(sizeof(struct dphase) == sizeof(struct dline) && _Alignof(struct dphase) <= _Alignof(struct dline),
                   "a phase is written over its entry (tally)");
    if (n >= UINT32_MAX)
        return -1; /* an entry's place is kept in 32 bits: 128 GB of entries */
    struct place P = {.r = r, .strs = strs, .dl = dl, .n = n, .mem = mem};
    int rc = -1;
    /* millions of entries, each array read in order: small pages (mem.h, big_alloc_flat) */
    P.kid = big_alloc_flat(n * sizeof *P.kid);
    P.own = big_alloc_flat(n * sizeof *P.own);
    P.ucall = calloc(r->nunits + 1, sizeof *P.ucall);
    P.uspawn = calloc(r->nunits + 1, sizeof *P.uspawn);
    P.uenter = malloc((r->nunits + 1) * sizeof *P.uenter);
    P.byS = malloc((r->nunits + 1) * sizeof *P.byS);
    P.pname = calloc(strs->n + 1, sizeof *P.pname);
    if (!P.kid || !P.own || !P.ucall || !P.uspawn || !P.uenter || !P.byS || !P.pname || classify(&P))
        goto out;
    P.c = big_alloc_flat((P.ccap + 1) * sizeof *P.c); /* a call per opening line */
    if (!P.c)
        goto out;
    if (by_gpu_start(&P) || sections(&P) || sections_to_units(&P) || around(&P))
        goto out;
    rc = tally(&P);
out:
    big_free(P.kid, n * sizeof *P.kid);
    big_free(P.own, n * sizeof *P.own);
    big_free(P.c, (P.ccap + 1) * sizeof *P.c);
    free(P.ucall);
    free(P.uspawn);
    free(P.uenter);
    free(P.sp);
    free(P.closes);
    big_free(P.ent, (n + 1) * sizeof *P.ent);
    free(P.byS);
    free(P.pname);
    return rc;
}

/* The source's nesting: each name's enclosing interval on the same thread
 * (or, for the calling thread's, its section), as call_phases places them. */
static const char *const nest[][2] = {
    {"pre_lock_cpu", "total_start_fn"}, {"mutex_wait", "total_start_fn"}, {"mutex_held", "total_start_fn"},
    {"setup_to_split", "pre_lock_cpu"},   {"split_vectors", "setup_to_split"}, {"gpu_total", "mutex_held"},
    {"ntt_msm_h", "gpu_total"},           {"barrier_wait", "gpu_total"},     {"batch_add", "gpu_total"},
    {"tail_msm", "gpu_total"},           {"total_start_fn", "prove_start"},
};

size_t dur_parent(const char *name, size_t n, char *out, size_t cap)
{
    /* a call over several GPUs: gpu_tid k's names end in .gpuK, and so do
     * their parents, up to gpu_total.gpuK, whose parent is the section */
    size_t base = n, tn = 0;
    for (size_t i = n; i > 4; i--)
        if (name[i - 1] == '.' ) {
            if (n - i > 3 && memcmp(name + i, "gpu", 3) == 0)
                base = i - 1, tn = n - base;
            break;
        }
    for (size_t k = 0; k < sizeof nest / sizeof nest[0]; k++)
        if (strlen(nest[k][0]) == base && memcmp(name, nest[k][0], base) == 0) {
            const char *p = nest[k][1];
            int keep = tn && strcmp(p, "mutex_held") != 0;
            int len = snprintf(out, cap, "%s%.*s", p, keep ? (int)tn : 0, name + base);
            return len > 0 && (size_t)len < cap ? (size_t)len : 0;
        }
    return 0;
}

int dur_name_of(const char *name, size_t n)
{
    static const char *const names[] = {[DN_PRE_LOCK] = "pre_lock_cpu", [DN_MUTEX_WAIT] = "mutex_wait",
                                        [DN_GPU_TOTAL] = "gpu_total", [DN_HELD] = "mutex_held",
                                        [DN_TOTAL_FN] = "total_start_fn", [DN_NTT] = "ntt_msm_h",
                                        [DN_BARRIER] = "barrier_wait", [DN_BATCH] = "batch_add",
                                        [DN_TAIL] = "tail_msm"};
    static const char *const around[] = {"prep_msm", "b_g2_msm", "split_vectors", "setup_to_split",
                                         "async_dealloc"};
    for (int k = 0; k < DN_AROUND; k++)
        if (strlen(names[k]) == n && !memcmp(name, names[k], n))
            return k;
    for (size_t k = 0; k < sizeof around / sizeof *around; k++)
        if (strlen(around[k]) == n && !memcmp(name, around[k], n))
            return DN_AROUND;
    return DN_OTHER;
}
