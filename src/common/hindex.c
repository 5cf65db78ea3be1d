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
        size_t i = h & (size - 1);
        while (ni[i])
            i = (i + 1) & (size - 1);
        ni[i] = (h & HINDEX_TAG) | (uint32_t)(v + 1);
    }
    hindex_free(x);
    x->slot = ni;
    x->mask = size - 1;
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
    return hindex_rebuild(x, size, n, hash_of, ctx);
}

void hindex_free(struct hindex *x)
{
    if (x->slot)
        big_free(x->slot, (x->mask + 1) * sizeof *x->slot);
    x->slot = NULL;
    x->mask = 0;
}
