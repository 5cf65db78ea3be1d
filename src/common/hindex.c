/*
 * hindex.c -- growing and freeing the hash indexes (hindex.h); the
 * lookups are inline in the header.
 */
#include "hindex.h"

#include "mem.h"

uint64_t hindex_hash_at(const void *hashes, size_t v)
{
    return ((const uint64_t *)hashes)[v];
}

int hindex_rebuild(struct hindex *x, size_t size, size_t n, hindex_hash_fn hash_of, const void *ctx)
{
    /* on huge pages, made at once: the table is touched all over */
    uint64_t *ni = big_alloc_full(size * sizeof *ni); /* zeroed */
    if (!ni)
        return -1;
    for (size_t v = 0; v < n; v++) {
        uint64_t h = hash_of(ctx, v);
        size_t i = hindex_home_in(size - 1, h);
        while (ni[i])
            i = (i + 1) & (size - 1);
        ni[i] = (h & HINDEX_TAG) | (uint32_t)(v + 1);
    }
    hindex_free(x);
    x->slot = ni;
    x->mask = size - 1;
    return 0;
}

/* x's entries into a table of size slots, if it holds exactly things
 * 0..n-1 (numbers are distinct and below n: n entries are all of them):
 * *done is 0 when it does not (a run's index may hold only some of its
 * units: the caller puts them in by their hashes).  0, or -1 out of
 * memory.  Taken in slot order, each entry goes near where it was or one
 * old size on, so both tables are read and written nearly in order. */
static int hindex_rehome(struct hindex *x, size_t size, size_t n, int *done)
{
    *done = 0;
    size_t have = 0;
    for (size_t i = 0; i <= x->mask; i++)
        have += x->slot[i] != 0;
    if (have != n)
        return 0;
    uint64_t *ni = big_alloc_full(size * sizeof *ni); /* zeroed */
    if (!ni)
        return -1;
    for (size_t k = 0; k <= x->mask; k++) {
        uint64_t e = x->slot[k];
        if (!e)
            continue;
        size_t i = hindex_home_in(size - 1, e);
        while (ni[i])
            i = (i + 1) & (size - 1);
        ni[i] = e;
    }
    hindex_free(x);
    x->slot = ni;
    x->mask = size - 1;
    *done = 1;
    return 0;
}

int hindex_grow(struct hindex *x, size_t n, size_t want, size_t min_size, hindex_hash_fn hash_of,
                const void *ctx)
{
    size_t size = x->slot ? (x->mask + 1) * 2 : min_size;
    while (size * 3 < want * 4 && size <= ((size_t)1 << 32))
        size *= 2;
    if (size > ((size_t)1 << 32))
        return -1;
    if (x->slot) {
        int done;
        if (hindex_rehome(x, size, n, &done) != 0)
            return -1;
        if (done)
            return 0;
    }
    return hindex_rebuild(x, size, n, hash_of, ctx);
}

void hindex_free(struct hindex *x)
{
    if (x->slot)
        big_free(x->slot, (x->mask + 1) * sizeof *x->slot);
    x->slot = NULL;
    x->mask = 0;
}
