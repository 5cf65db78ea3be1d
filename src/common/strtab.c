/*
 * strtab.c -- interned strings (see strtab.h).
 */
#include "strtab.h"

#include <stdlib.h>
#include <string.h>

static uint32_t hash_of(const char *s, size_t n)
{
    uint32_t h = 2166136261u; /* FNV-1a: the strings are short */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static int rehash(struct strtab *t, uint32_t size)
{
    uint32_t *ni = calloc(size, sizeof *ni);
    if (!ni)
        return -1;
    for (uint32_t k = 0; k < t->n; k++) {
        size_t n;
        const char *s = strtab_get(t, k, &n);
        uint32_t i = hash_of(s, n) & (size - 1);
        while (ni[i])
            i = (i + 1) & (size - 1);
        ni[i] = k + 1;
    }
    free(t->idx);
    t->idx = ni;
    t->mask = size - 1;
    return 0;
}

int strtab_intern(struct strtab *t, const char *s, size_t n, uint32_t *id)
{
    if (n > 0xffff)
        n = 0xffff;
    if ((!t->idx || (t->n + 1) * 4 > (t->mask + 1) * 3) && rehash(t, t->idx ? (t->mask + 1) * 2 : 64))
        return -1;
    uint32_t i = hash_of(s, n) & t->mask;
    while (t->idx[i]) {
        size_t kn;
        const char *k = strtab_get(t, t->idx[i] - 1, &kn);
        if (kn == n && memcmp(k, s, n) == 0) {
            *id = t->idx[i] - 1;
            return 0;
        }
        i = (i + 1) & t->mask;
    }
    if (t->n == t->off_cap) {
        uint32_t nc = t->off_cap ? t->off_cap * 2 : 64;
        uint64_t *no = realloc(t->off, nc * sizeof *no);
        if (!no)
            return -1;
        t->off = no;
        t->off_cap = nc;
    }
    if (t->len + n > t->cap) {
        size_t nc = t->cap ? t->cap : 1024;
        while (nc < t->len + n)
            nc *= 2;
        char *nb = realloc(t->bytes, nc);
        if (!nb)
            return -1;
        t->bytes = nb;
        t->cap = nc;
    }
    if (n) /* an empty string may be the first: no bytes yet */
        memcpy(t->bytes + t->len, s, n);
    t->off[t->n] = (uint64_t)t->len << 16 | n;
    t->len += n;
    t->idx[i] = t->n + 1;
    *id = t->n++;
    return 0;
}

int strtab_intern_upper(struct strtab *t, const char *s, size_t n, uint32_t *id)
{
    char u[256];
    if (n > sizeof u)
        n = sizeof u;
    for (size_t i = 0; i < n; i++)
        u[i] = s[i] >= 'a' && s[i] <= 'z' ? (char)(s[i] - 32) : s[i];
    return strtab_intern(t, u, n, id);
}

int strtab_is(const struct strtab *t, uint32_t id, const char *s)
{
    size_t n;
    const char *k = strtab_get(t, id, &n);
    return strlen(s) == n && memcmp(k, s, n) == 0;
}

void strtab_free(struct strtab *t)
{
    free(t->bytes);
    free(t->off);
    free(t->idx);
    memset(t, 0, sizeof *t);
}
