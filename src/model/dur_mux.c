/*
 * dur_mux.c -- the critical sections of several devices' calls, told
 * apart by their times (see dur_mux.h).
 *
 * A reading (struct hyp) holds the open sections: for each, the interval
 * [llo, lhi] its lock L lies in, the offset from L of its last line, and
 * where each gpu_tid's lines have got to.  A line given to section X at
 * offset off from L_X was printed at L_X + off (the values are truncated
 * to whole ms: up to DUR_TOL less), so:
 *  - after the record before it: L_X >= lo - off - TOL;
 *  - after the line before it (printed at the reading's floor or later):
 *    L_X >= floor - off - CROSS;
 *  - before it, the last line of every other open section Y:
 *    L_Y <= lhi_X + off - lastoff_Y + CROSS;
 *  - an opening line before the record after it: L <= that record + 1 ms
 *    + TOL (the record's time is truncated to whole ms).
 * CROSS is two sections' truncation and the record's: 2 TOL + 1 ms.
 * Which line goes to which section is remembered as a chain of nodes per
 * reading (one node per line since the last decision, shared with the
 * readings it branched from), so that a branch costs a copy of the open
 * sections only.
 */
#include "dur_mux.h"

#include "durations.h"

#include <stdlib.h>
#include <string.h>

#define SMAX 8  /* open sections a reading keeps (the oldest, never closed, goes) */
#define TMAX 8  /* gpu_tids whose lines' order and offsets are kept */
#define HMAX 64 /* readings kept at once; more, and those of one structure are merged (merge_readings) */
#define TOL DUR_TOL
#define CROSS (2 * DUR_TOL + 1000000)
#define NONE_LO INT64_MIN
#define NONE_HI INT64_MAX

struct sect {
    uint64_t sid;
    int64_t llo, lhi; /* L's interval (NONE_LO / NONE_HI: open) */
    int64_t lastoff;  /* its last line's offset from L */
    int64_t pw;       /* pre_lock_cpu + mutex_wait */
    int64_t cur[TMAX];
    uint64_t done; /* gpu_tids that printed gpu_total */
    uint8_t stage[TMAX];
};

struct hyp {
    int64_t floor; /* the earliest time the last line given was printed (NONE_LO) */
    int multi;     /* a line fitted two sections half way through: several devices' sections interleave */
    uint32_t node; /* the node of its last line */
    int n;
    struct sect s[SMAX];
};

enum { N_OPEN, N_GIVE, N_STRAY };
struct node {
    uint32_t parent;
    uint8_t kind;
    uint64_t sid;
};

struct dmux {
    size_t pending;         /* decide by this many lines at the latest */
    uint64_t seq, base;     /* lines fed; the first line not yet decided */
    struct hyp *h, *nh;     /* the readings; the next line's */
    int nh_, nnh;
    struct node *nodes;     /* [0]: the root (the last decision) */
    size_t nnodes, ncap;
    uint64_t *taint;        /* sections found ambiguous since the last decision */
    size_t ntaint, tcap;
    struct dmux_out *out;   /* decisions not yet taken: [ohead, nout) */
    size_t nout, ohead, ocap;
    uint32_t *walk;         /* scratch: a chain's nodes */
    size_t wcap;
};

struct dmux *dmux_new(size_t pending)
{
    struct dmux *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->pending = pending < 16 ? 16 : pending;
    m->h = malloc(HMAX * sizeof *m->h);
    m->nh = malloc(HMAX * SMAX * sizeof *m->nh); /* each reading branches to SMAX at most */
    m->ncap = 1024;
    m->nodes = malloc(m->ncap * sizeof *m->nodes);
    if (!m->h || !m->nh || !m->nodes) {
        dmux_free(m);
        return NULL;
    }
    m->nodes[0] = (struct node){UINT32_MAX, N_OPEN, 0};
    m->nnodes = 1;
    m->h[0].floor = NONE_LO;
    m->h[0].multi = 0;
    m->h[0].node = 0;
    m->h[0].n = 0;
    m->nh_ = 1;
    return m;
}

void dmux_free(struct dmux *m)
{
    if (!m)
        return;
    free(m->h);
    free(m->nh);
    free(m->nodes);
    free(m->taint);
    free(m->out);
    free(m->walk);
    free(m);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

static int emit(struct dmux *m, int kind, uint64_t seq, uint64_t sid, int multi)
{
    if (grow((void **)&m->out, &m->ocap, m->nout + 1, sizeof *m->out))
        return -1;
    m->out[m->nout++] = (struct dmux_out){kind, seq, sid, multi};
    return 0;
}

static int node(struct dmux *m, uint32_t parent, int kind, uint64_t sid, uint32_t *at)
{
    if (m->nnodes >= UINT32_MAX - 1 || grow((void **)&m->nodes, &m->ncap, m->nnodes + 1, sizeof *m->nodes))
        return -1;
    m->nodes[m->nnodes] = (struct node){parent, (uint8_t)kind, sid};
    *at = (uint32_t)m->nnodes++;
    return 0;
}

static int taint(struct dmux *m, uint64_t sid)
{
    for (size_t i = 0; i < m->ntaint; i++)
        if (m->taint[i] == sid)
            return 0;
    if (grow((void **)&m->taint, &m->tcap, m->ntaint + 1, sizeof *m->taint))
        return -1;
    m->taint[m->ntaint++] = sid;
    return 0;
}

/* Readings a and b gave some lines since the last decision to different
 * sections: those sections are ambiguous.  Their chains are as long. */
static int disagree(struct dmux *m, uint32_t a, uint32_t b)
{
    while (a != b && a != 0 && b != 0) {
        const struct node *x = &m->nodes[a], *y = &m->nodes[b];
        if (x->kind != y->kind || x->sid != y->sid) {
            if ((x->kind == N_GIVE && taint(m, x->sid)) || (y->kind == N_GIVE && taint(m, y->sid)))
                return -1;
        }
        a = x->parent, b = y->parent;
    }
    return 0;
}

/* Reading k is the one left: its lines are decided. */
static int commit(struct dmux *m, int k)
{
    struct hyp *h = &m->h[k];
    if (m->ntaint == 0 && h->node != 0 && m->nodes[h->node].parent == 0 && k == 0) {
        /* the usual case: one line since the last decision */
        const struct node *x = &m->nodes[h->node];
        if (x->kind == N_GIVE ? emit(m, DMUX_GIVE, m->base, x->sid, h->multi)
                              : x->kind == N_STRAY ? emit(m, DMUX_STRAY, m->base, 0, h->multi) : 0)
            return -1;
        m->nh_ = 1;
        h->node = 0;
        m->nnodes = 1;
        m->base++;
        return 0;
    }
    size_t n = 0;
    for (uint32_t x = h->node; x != 0; x = m->nodes[x].parent)
        n++;
    if (grow((void **)&m->walk, &m->wcap, n + 1, sizeof *m->walk))
        return -1;
    size_t i = n;
    for (uint32_t x = h->node; x != 0; x = m->nodes[x].parent)
        m->walk[--i] = x;
    for (size_t t = 0; t < m->ntaint; t++)
        if (emit(m, DMUX_AMBIG, 0, m->taint[t], h->multi))
            return -1;
    m->ntaint = 0;
    for (i = 0; i < n; i++) {
        const struct node *x = &m->nodes[m->walk[i]];
        if (x->kind == N_GIVE ? emit(m, DMUX_GIVE, m->base + i, x->sid, h->multi)
                              : x->kind == N_STRAY ? emit(m, DMUX_STRAY, m->base + i, 0, h->multi) : 0)
            return -1;
    }
    if (k != 0)
        m->h[0] = *h;
    m->nh_ = 1;
    m->h[0].node = 0;
    m->nnodes = 1;
    m->base += n;
    return 0;
}

/* Keep reading 0, the others' differences counted as ambiguous. */
static int force(struct dmux *m)
{
    for (int k = 1; k < m->nh_; k++)
        if (disagree(m, m->h[0].node, m->h[k].node))
            return -1;
    return commit(m, 0);
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* Are readings a and b in the same state?  exact: their times too (then
 * one stands for both); else their structure only (which section is at
 * which step: merged, their intervals widened, where there are too many). */
static int same_state(const struct hyp *a, const struct hyp *b, int exact)
{
    if (a->n != b->n || (exact && a->floor != b->floor))
        return 0;
    for (int i = 0; i < a->n; i++) {
        const struct sect *x = &a->s[i], *y = &b->s[i];
        if (x->sid != y->sid || x->done != y->done ||
            (exact && (x->llo != y->llo || x->lhi != y->lhi || x->lastoff != y->lastoff)) ||
            memcmp(x->stage, y->stage, sizeof x->stage) || memcmp(x->cur, y->cur, sizeof x->cur))
            return 0;
    }
    return 1;
}

/* Merge readings nh[0..n) in the same state (same_state); their count.
 * What they read otherwise is ambiguous; the merged one's intervals hold
 * both's (a relaxation: it never loses the true reading). */
static int merge_readings(struct dmux *m, int n, int exact)
{
    int w = 0;
    for (int k = 0; k < n; k++) {
        int j = 0;
        while (j < w && !same_state(&m->nh[j], &m->nh[k], exact))
            j++;
        if (j == w) {
            if (w != k)
                m->nh[w] = m->nh[k];
            w++;
            continue;
        }
        struct hyp *a = &m->nh[j];
        const struct hyp *b = &m->nh[k];
        if (disagree(m, a->node, b->node))
            return -1;
        a->floor = a->floor == NONE_LO || b->floor == NONE_LO ? NONE_LO : min64(a->floor, b->floor);
        a->multi |= b->multi;
        for (int i = 0; i < a->n; i++) {
            a->s[i].llo = min64(a->s[i].llo, b->s[i].llo);
            a->s[i].lhi = max64(a->s[i].lhi, b->s[i].lhi);
            a->s[i].lastoff = min64(a->s[i].lastoff, b->s[i].lastoff);
        }
    }
    return w;
}

/* May section s take line x?  strict: by the source's order of lines (a
 * gpu_tid's steps in turn, the close once no gpu_tid is half way); else
 * only as before the mux: a gpu_tid that printed gpu_total takes no more. */
static int fits(const struct sect *s, const struct dmux_line *x, int strict)
{
    if (x->role == DMUX_CLOSE) { /* its GPU threads are joined: each printed its gpu_total */
        if (!strict)
            return 1;
        for (int t = 0; t < TMAX; t++)
            if (s->stage[t] != 0 && s->stage[t] != 4)
                return 0;
        return s->done != 0;
    }
    if (x->tid < 0) /* a GPU key printed with no gpu_tid: any open section */
        return 1;
    if (x->tid < 64 && (s->done >> x->tid & 1))
        return 0;
    if (!strict || x->tid >= TMAX)
        return 1;
    int st = s->stage[x->tid];
    if (st >= 4)
        return 0;
    return x->v2 >= 0 || x->step == 0 || x->step == 4 || st < x->step;
}

/* The line's offset from its section's L (-1: not known). */
static int64_t offset(const struct sect *s, const struct dmux_line *x)
{
    if (x->role == DMUX_CLOSE)
        return x->v >= 0 ? x->v : x->v2 >= 0 ? x->v2 - s->pw : -1;
    if (x->v2 >= 0)
        return x->v2;
    if (x->tid < 0 || x->tid >= TMAX || x->v < 0)
        return -1;
    return s->cur[x->tid] + x->v;
}

/* Give line x to section i of reading h, its node under parent.  prune:
 * 0 when the times contradict it (the reading is impossible); without it
 * the times only narrow what they can.  1: given; -1: out of memory. */
static int apply(struct dmux *m, struct hyp *h, int i, const struct dmux_line *x, uint32_t parent, int prune)
{
    struct sect *s = &h->s[i];
    int64_t off = offset(s, x);
    if (off >= 0) {
        int64_t a = s->llo;
        if (x->lo != NONE_LO)
            a = max64(a, x->lo - off - TOL);
        if (h->floor != NONE_LO)
            a = max64(a, h->floor - off - CROSS);
        int ok = a <= s->lhi;
        for (int k = 0; ok && prune && s->lhi != NONE_HI && k < h->n; k++)
            if (k != i && h->s[k].lhi != NONE_HI &&
                min64(h->s[k].lhi, s->lhi + off - h->s[k].lastoff + CROSS) < h->s[k].llo)
                ok = 0;
        if (!ok && prune)
            return 0;
        if (ok) {
            s->llo = a;
            h->floor = a == NONE_LO ? h->floor : max64(h->floor, a + off);
            for (int k = 0; s->lhi != NONE_HI && k < h->n; k++)
                if (k != i) {
                    int64_t c = s->lhi + off - h->s[k].lastoff + CROSS;
                    if (c >= h->s[k].llo && c < h->s[k].lhi)
                        h->s[k].lhi = c;
                }
            s->lastoff = off;
        }
    }
    uint64_t sid = s->sid;
    if (x->role == DMUX_CLOSE) {
        memmove(&h->s[i], &h->s[i + 1], (size_t)(h->n - i - 1) * sizeof *s);
        h->n--;
    } else if (x->tid < 0) {
        /* nothing to keep: no thread to follow */
    } else if (x->v2 >= 0) {
        if (x->tid < 64)
            s->done |= 1ull << x->tid;
        if (x->tid < TMAX)
            s->stage[x->tid] = 4;
    } else if (x->tid < TMAX) {
        if (x->step > s->stage[x->tid])
            s->stage[x->tid] = (uint8_t)x->step;
        if (off >= 0)
            s->cur[x->tid] = off;
    }
    return node(m, parent, N_GIVE, sid, &h->node) ? -1 : 1;
}

static int open_line(struct dmux *m, const struct dmux_line *x, uint64_t seq)
{
    for (int k = 0; k < m->nh_; k++) {
        struct hyp *h = &m->h[k];
        if (h->n == SMAX) { /* the oldest never closed */
            if (taint(m, h->s[0].sid))
                return -1;
            memmove(&h->s[0], &h->s[1], (SMAX - 1) * sizeof *h->s);
            h->n--;
        }
        struct sect *s = &h->s[h->n++];
        memset(s, 0, sizeof *s);
        s->sid = seq;
        int64_t lo = x->lo;
        if (h->floor != NONE_LO)
            lo = lo == NONE_LO ? h->floor : max64(lo, h->floor);
        s->llo = lo == NONE_LO ? NONE_LO : lo - TOL;
        s->lhi = x->hi == NONE_HI ? NONE_HI : x->hi + 1000000 + TOL; /* printed before that record */
        if (s->lhi < s->llo)
            s->lhi = s->llo; /* the record came earlier than the lines say: the times hold no bound */
        s->pw = x->v < 0 ? 0 : x->v;
        if (node(m, h->node, N_OPEN, seq, &h->node))
            return -1;
    }
    return 0;
}

int dmux_feed(struct dmux *m, const struct dmux_line *x)
{
    uint64_t seq = m->seq++;
    if (x->role == DMUX_OPEN) {
        if (open_line(m, x, seq))
            return -1;
        if (m->nh_ == 1)
            return commit(m, 0);
        return m->seq - m->base >= m->pending || m->nnodes > 64 * m->pending ? force(m) : 0;
    }
    int cand[SMAX];
    /* the usual case: one reading, one section the line fits */
    if (m->nh_ == 1) {
        struct hyp *h = &m->h[0];
        int nc = 0;
        for (int strict = 1; strict >= 0 && nc == 0; strict--)
            for (int i = 0; i < h->n; i++)
                if (fits(&h->s[i], x, strict))
                    cand[nc++] = i;
        if (nc <= 1) {
            if (nc == 0 ? node(m, h->node, N_STRAY, 0, &h->node) : apply(m, h, cand[0], x, h->node, 0) < 0)
                return -1;
            return commit(m, 0);
        }
    }
    int nn = 0;
    for (int k = 0; k < m->nh_; k++) {
        const struct hyp *h = &m->h[k];
        int nc = 0;
        for (int i = 0; i < h->n; i++) /* by the source's order only: a reading it contradicts goes */
            if (fits(&h->s[i], x, 1))
                cand[nc++] = i;
        if (nc > 1 && h->n > 2) { /* three or more sections open: the times do not tell them apart well
                                   * enough (measured); none is read from here, all are ambiguous */
            for (int c = 0; c < nc; c++)
                if (taint(m, h->s[cand[c]].sid))
                    return -1;
            nc = 1;
        }
        int from = nn;
        for (int c = 0; c < nc; c++) {
            m->nh[nn] = *h;
            int r = apply(m, &m->nh[nn], cand[c], x, h->node, 1);
            if (r < 0)
                return -1;
            nn += r;
        }
        for (int c = from; nn - from > 1 && c < nn; c++)
            m->nh[c].multi = 1; /* two sections half way took it, each in time: several devices */
    }
    if (nn == 0) { /* no reading holds: the times contradict the model; as before the mux */
        if (force(m))
            return -1;
        struct hyp *h = &m->h[0];
        for (int i = 0; i < h->n; i++)
            if (taint(m, h->s[i].sid))
                return -1;
        int c = -1;
        for (int i = 0; i < h->n && c < 0; i++)
            if (fits(&h->s[i], x, 0))
                c = i;
        if (c < 0 ? node(m, h->node, N_STRAY, 0, &h->node) : apply(m, h, c, x, h->node, 0) < 0)
            return -1;
        return commit(m, 0);
    }
    /* readings in the same state are one: what they read otherwise is
     * ambiguous; too many, and those of one structure are one */
    int w = merge_readings(m, nn, 1);
    if (w > HMAX)
        w = merge_readings(m, w, 0);
    if (w < 0)
        return -1;
    int keep = w < HMAX ? w : HMAX;
    memcpy(m->h, m->nh, (size_t)keep * sizeof *m->h);
    int over = w > HMAX;
    if (over) /* too many readings: the ones left out are counted against reading 0 */
        for (int k = HMAX; k < w; k++)
            if (disagree(m, m->nh[0].node, m->nh[k].node))
                return -1;
    m->nh_ = keep;
    if (m->nh_ == 1)
        return commit(m, 0);
    if (over || m->seq - m->base >= m->pending || m->nnodes > 64 * m->pending)
        return force(m);
    return 0;
}

uint64_t dmux_undecided(const struct dmux *m)
{
    return m->seq - m->base;
}

int dmux_end(struct dmux *m)
{
    return m->nh_ == 1 ? commit(m, 0) : force(m);
}

size_t dmux_take(struct dmux *m, struct dmux_out *out, size_t cap)
{
    size_t n = m->nout - m->ohead < cap ? m->nout - m->ohead : cap;
    if (n == 0)
        return 0; /* m->out may be NULL: nothing decided yet */
    memcpy(out, m->out + m->ohead, n * sizeof *out);
    m->ohead += n;
    if (m->ohead == m->nout)
        m->ohead = m->nout = 0;
    return n;
}
