/*
 * hindex.h -- open-addressing hash indexes of numbered things (a part's
 * jobs, a segment's or a run's units, a run's jobs).
 *
 * The things live in the caller's arrays, in number order; the index only
 * finds them.  An entry is the thing's hash's high 32 bits << 32 | its
 * number + 1 (0: empty), so a probe rarely has to look at a thing that is
 * not the one sought; numbers are below 2^32 - 1.  Linear probing, in a
 * table whose size is a power of two; the slot a new thing's entry goes
 * in is where the probe that missed it stopped.  The probe is inline: it
 * is on the path of every event whose unit is not a recent one.
 *
 * A thing's home slot is taken from the tag's bits too (the hash's high
 * 32), so a table grows from its own entries: the things' hashes are not
 * computed again (that read every thing, and their jobs, at random), and
 * the entries of slot i land near slot i or i + the old size, in order.
 */
#ifndef HINDEX_H
#define HINDEX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct hindex {
    uint64_t *slot; /* NULL: no table yet */
    size_t mask;    /* the table's size - 1 */
};

#define HINDEX_TAG 0xffffffff00000000ull

/* The hash of a key's bytes (a job id), eight bytes at a step: every
 * index of jobs and units hashes with it, so a key's hash is the same in
 * every stage. */
static inline uint64_t hash_bytes(const char *s, size_t n, uint64_t seed)
{
    uint64_t h = seed ^ (n * 0x9E3779B97F4A7C15ull);
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, s, 8);
        h = (h ^ v) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
        s += 8;
        n -= 8;
    }
    uint64_t v = 0;
    memcpy(&v, s, n);
    h = (h ^ v) * 0x94d049bb133111ebull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return h;
}

/* The hash of thing v, to put the things in again when the table grows. */
typedef uint64_t (*hindex_hash_fn)(const void *ctx, size_t v);

/* hindex_hash_fn for things whose hashes are an array (ctx: const uint64_t *). */
uint64_t hindex_hash_at(const void *hashes, size_t v);

/* Make x a table of size slots (a power of two) holding things 0..n-1
 * (hash_of may be NULL when n is 0).  0, or -1 out of memory (x kept). */
int hindex_rebuild(struct hindex *x, size_t size, size_t n, hindex_hash_fn hash_of, const void *ctx);

/* hindex_reserve's growth: a table twice the size (the first: min_size
 * slots), or more until want things fit.  The things are moved from the
 * old table's entries when it holds all n of them, else put in again by
 * hash_of. */
int hindex_grow(struct hindex *x, size_t n, size_t want, size_t min_size, hindex_hash_fn hash_of,
                const void *ctx);

/* Room for want things, and at least one more than the n it holds, with
 * the table at most three quarters full (a bigger one costs more to zero
 * than the longer probes cost).  0, or -1: out of memory, or past 2^32
 * slots (more than 32-bit numbers can fill). */
static inline int hindex_reserve(struct hindex *x, size_t n, size_t want, size_t min_size,
                                 hindex_hash_fn hash_of, const void *ctx)
{
    if (want < n + 1)
        want = n + 1;
    if (x->slot && want * 4 <= (x->mask + 1) * 3)
        return 0;
    return hindex_grow(x, n, want, min_size, hash_of, ctx);
}

void hindex_free(struct hindex *x);

/* Where the probe for hash h starts, in a table of size mask + 1: from
 * the bits the entry keeps (a table has at most 2^32 slots). */
static inline size_t hindex_home_in(size_t mask, uint64_t h)
{
    return (size_t)(h >> 32) & mask;
}

static inline size_t hindex_home(const struct hindex *x, uint64_t h)
{
    return hindex_home_in(x->mask, h);
}

static inline size_t hindex_next(const struct hindex *x, size_t i)
{
    return (i + 1) & x->mask;
}

/* The probe for hash h from slot *i on: the number of the next thing
 * whose entry carries h's tag (at slot *i; the caller compares its key,
 * and goes on from hindex_next when it is another), or -1 at an empty
 * slot, where a new thing's entry goes.  So a lookup reads:
 *     size_t i = hindex_home(x, h);
 *     for (int64_t k; (k = hindex_probe(x, h, &i)) >= 0; i = hindex_next(x, i))
 *         if (thing k's key is the one sought) ...found
 *     ...not there: hindex_put(x, i, h, number) adds it */
static inline int64_t hindex_probe(const struct hindex *x, uint64_t h, size_t *i)
{
    for (;;) {
        uint64_t e = x->slot[*i];
        if (!e)
            return -1;
        if ((e >> 32) == (h >> 32))
            return (int64_t)((uint32_t)e - 1);
        *i = (*i + 1) & x->mask;
    }
}

/* Thing v, of hash h, at slot i (where a probe for it stopped). */
static inline void hindex_put(struct hindex *x, size_t i, uint64_t h, uint32_t v)
{
    x->slot[i] = (h & HINDEX_TAG) | (uint32_t)(v + 1);
}

#endif /* HINDEX_H */
