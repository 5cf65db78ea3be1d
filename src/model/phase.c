/*
 * phase.c -- a unit's phases, marks and attributes (see phase.h).
 */
#include "phase.h"

#include "sort.h"

#include <stdlib.h>
#include <string.h>

const char *const within_names[WITHIN_N] = {"gpu", "synthesis", "unit"};

struct unit_key {
    const struct xitem *x;
    uint32_t u;
};

static int unit_before(const void *ctx, size_t i)
{
    const struct unit_key *k = ctx;
    return k->x[i].unit < k->u;
}

/* The first of x[0..n) (sorted by unit) of unit u, or n. */
static size_t first_of(const struct xitem *x, size_t n, uint32_t u)
{
    struct unit_key k = {x, u};
    return first_not_before(0, n, unit_before, &k);
}

size_t unit_xev(const struct run *r, uint32_t u, size_t *first)
{
    size_t e = *first = first_of(r->xev, r->nxev, u);
    while (e < r->nxev && r->xev[e].unit == u)
        e++;
    return e - *first;
}

/* 1 for NAME_START, 2 for NAME_END, 0 else; *base: NAME's length. */
static int suffix(const struct run *r, uint32_t name, size_t *base)
{
    size_t n;
    const char *s = strtab_get(r->strs, name, &n);
    if (n > 6 && memcmp(s + n - 6, "_START", 6) == 0) {
        *base = n - 6;
        return 1;
    }
    if (n > 4 && memcmp(s + n - 4, "_END", 4) == 0) {
        *base = n - 4;
        return 2;
    }
    *base = n;
    return 0;
}

static int same_base(const struct run *r, uint32_t a, uint32_t b, size_t n)
{
    size_t an, bn;
    const char *as = strtab_get(r->strs, a, &an), *bs = strtab_get(r->strs, b, &bn);
    return an >= n && bn >= n && memcmp(as, bs, n) == 0;
}

static int within(const struct unit *u, int64_t a, int64_t b)
{
    if (u->t[EV_GPU_START] != T_NONE && u->t[EV_GPU_END] != T_NONE && a >= u->t[EV_GPU_START] &&
        b <= u->t[EV_GPU_END])
        return WITHIN_GPU;
    if (u->t[EV_SYNTH_START] != T_NONE && u->t[EV_SYNTH_END] != T_NONE && a >= u->t[EV_SYNTH_START] &&
        b <= u->t[EV_SYNTH_END])
        return WITHIN_SYNTHESIS;
    return WITHIN_UNIT;
}

static int cmp_uphase(const void *a, const void *b)
{
    const struct uphase *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return (x->name > y->name) - (x->name < y->name); /* as the model sorts a unit's events */
}

size_t unit_dphases(const struct run *r, uint32_t u, size_t *first)
{
    if (!r->dur.ph_at || u >= r->nunits) {
        *first = 0;
        return 0;
    }
    *first = r->dur.ph_at[u];
    return r->dur.ph_at[u + 1] - r->dur.ph_at[u];
}

int unit_has_phases(const struct run *r, uint32_t u)
{
    size_t first;
    return unit_xev(r, u, &first) || unit_dphases(r, u, &first);
}

size_t unit_phases(const struct run *r, uint32_t u, struct uphase **buf, size_t *cap)
{
    size_t first, dfirst, n = unit_xev(r, u, &first), dn = unit_dphases(r, u, &dfirst);
    if (n + dn > *cap) {
        struct uphase *nb = realloc(*buf, (n + dn) * sizeof *nb);
        if (!nb)
            return (size_t)-1;
        *buf = nb;
        *cap = n + dn;
    }
    struct uphase *out = *buf;
    size_t k = 0;
    /* Each event becomes an entry: a START opens one (a mark until its END
     * comes), an END closes the earliest open START of its name. */
    for (size_t i = first; i < first + n; i++) {
        const struct xitem *x = &r->xev[i];
        size_t base;
        int sfx = suffix(r, x->name, &base);
        if (sfx == 2) {
            size_t j = 0;
            for (; j < k; j++) {
                size_t ob;
                if (out[j].mark == 2 && suffix(r, out[j].name, &ob) == 1 && ob == base &&
                    same_base(r, out[j].name, x->name, base))
                    break;
            }
            if (j < k) {
                out[j].mark = 0;
                out[j].end = x->t;
                continue;
            }
        }
        out[k++] = (struct uphase){x->name, sfx == 1 ? 2 : 1, 0, x->t, x->t, x->line};
    }
    for (size_t i = dfirst; i < dfirst + dn; i++) { /* duration lines' phases, whole */
        const struct dphase *d = &r->dur.ph[i];
        out[k++] = (struct uphase){d->name, 0, 0, d->a, d->b, d->line};
    }
    const struct unit *un = &r->units[u];
    for (size_t j = 0; j < k; j++) {
        if (out[j].mark)
            out[j].mark = 1; /* a START never closed is a mark too */
        else
            out[j].within = within(un, out[j].start, out[j].end);
    }
    size_t i = 1;
    while (i < k && cmp_uphase(&out[i - 1], &out[i]) <= 0) /* duration lines' phases come in order */
        i++;
    if (i < k)
        qsort(out, k, sizeof *out, cmp_uphase);
    return k;
}

const char *uphase_name(const struct run *r, const struct uphase *p, size_t *len)
{
    const char *s = strtab_get(r->strs, p->name, len);
    if (!p->mark)
        *len -= 6; /* _START */
    return s;
}

const char *unit_attr_at(const struct run *r, uint32_t u, const char *key, size_t *len, uint64_t *line)
{
    for (size_t i = first_of(r->xattr, r->nxattr, u); i < r->nxattr && r->xattr[i].unit == u; i++)
        if (strtab_is(r->strs, r->xattr[i].name, key)) {
            if (line)
                *line = r->xattr[i].line;
            return strtab_get(r->strs, r->xattr[i].val, len);
        }
    return NULL;
}

const char *unit_attr(const struct run *r, uint32_t u, const char *key, size_t *len)
{
    return unit_attr_at(r, u, key, len, NULL);
}
