/*
 * events.c -- interning unit keys and storing events in blocks.
 *
 * Blocks of 65536 events never move once allocated, so a growing input
 * never needs a realloc of everything read so far (a doubling array would
 * briefly need twice the memory).  Unit keys are looked up by a hash of
 * the job id's bytes mixed with the partition; the job table is consulted
 * only when a key is new.
 */
#include "events.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Large arrays come straight from mmap with transparent huge pages asked
 * for: a multi-gigabyte log would otherwise spend much of its time in
 * page faults, one per 4 KiB of events (measured: a third of the time in a
 * VM).  Sizes are kept in the callers. */
static void *big_alloc(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (n >= (2u << 20))
        madvise(p, n, MADV_HUGEPAGE);
#endif
    return p;
}

static void *big_realloc(void *old, size_t old_n, size_t n)
{
    if (!old)
        return big_alloc(n);
    void *p = mremap(old, old_n, n, MREMAP_MAYMOVE);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (n >= (2u << 20))
        madvise(p, n, MADV_HUGEPAGE);
#endif
    return p;
}

static void big_free(void *p, size_t n)
{
    if (p)
        munmap(p, n);
}

static uint64_t hash_bytes(const char *s, size_t n, uint64_t seed)
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

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    uint32_t ncap = *cap ? *cap : 4096;
    while (ncap < need) {
        if (ncap > UINT32_MAX / 2)
            return -1;
        ncap *= 2;
    }
    void *n = big_realloc(*p, (size_t)*cap * elem, (size_t)ncap * elem);
    if (!n)
        return -1;
    *p = n;
    *cap = ncap;
    return 0;
}

/* Index entries: the key's number + 1 in the low 32 bits (0: empty), the
 * hash's high 32 bits above, so a probe rarely touches a key that is not
 * the one sought. */
static int rehash(struct evpart *p, uint32_t size)
{
    uint64_t *idx = big_alloc((size_t)size * sizeof *idx); /* zeroed */
    if (!idx)
        return -1;
    for (uint32_t k = 0; k < p->nkeys; k++) {
        uint32_t i = (uint32_t)p->keys[k].hash & (size - 1);
        while (idx[i])
            i = (i + 1) & (size - 1);
        idx[i] = (p->keys[k].hash & 0xffffffff00000000ull) | (k + 1);
    }
    if (p->kindex)
        big_free(p->kindex, (size_t)(p->kindex_mask + 1) * sizeof *p->kindex);
    p->kindex = idx;
    p->kindex_mask = size - 1;
    return 0;
}

static int job_add(struct evpart *p, const char *job, size_t len, uint32_t *out)
{
    if (grow((void **)&p->job_off, &p->jobs_cap, p->njobs + 1, sizeof *p->job_off))
        return -1;
    if (p->arena_len + len > p->arena_cap) {
        size_t ncap = p->arena_cap ? p->arena_cap : 65536;
        while (ncap < p->arena_len + len)
            ncap *= 2;
        char *n = big_realloc(p->arena, p->arena_cap, ncap);
        if (!n)
            return -1;
        p->arena = n;
        p->arena_cap = ncap;
    }
    memcpy(p->arena + p->arena_len, job, len);
    p->job_off[p->njobs] = (uint64_t)p->arena_len << 16 | len;
    p->arena_len += len;
    *out = p->njobs++;
    return 0;
}

static int key_find(struct evpart *p, const char *job, size_t len, int32_t partition,
                    uint32_t *out)
{
    uint64_t h = hash_bytes(job, len, (uint64_t)(uint32_t)partition);
    /* A unit's events come close together in a log: a small direct-mapped
     * cache of recent keys answers most lookups from L1 instead of a
     * cache miss into the big index. */
    uint32_t *slot_recent = &p->recent[h & (EV_RECENT - 1)];
    if (*slot_recent) {
        const struct ukey *u = &p->keys[*slot_recent - 1];
        if (u->hash == h && u->partition == partition) {
            size_t jl;
            const char *j = evpart_job(p, u->job, &jl);
            if (jl == len && memcmp(j, job, len) == 0) {
                *out = *slot_recent - 1;
                return 0;
            }
        }
    }
    if (!p->kindex && rehash(p, 1024))
        return -1;
    uint32_t i = (uint32_t)h & p->kindex_mask;
    for (;;) {
        uint64_t slot = p->kindex[i];
        uint32_t k = (uint32_t)slot;
        if (!k)
            break;
        const struct ukey *u = &p->keys[k - 1];
        if ((slot >> 32) == (h >> 32) && u->hash == h && u->partition == partition) {
            size_t jl;
            const char *j = evpart_job(p, u->job, &jl);
            if (jl == len && memcmp(j, job, len) == 0) {
                *out = k - 1;
                *slot_recent = k;
                return 0;
            }
        }
        i = (i + 1) & p->kindex_mask;
    }
    /* New key: one job entry per key keeps this simple; the model merges
     * jobs by their bytes. */
    if (p->nkeys >= (1u << 31) || grow((void **)&p->keys, &p->keys_cap, p->nkeys + 1, sizeof *p->keys))
        return -1;
    uint32_t job_idx;
    if (job_add(p, job, len, &job_idx))
        return -1;
    p->keys[p->nkeys] = (struct ukey){h, job_idx, partition};
    p->kindex[i] = (h & 0xffffffff00000000ull) | (p->nkeys + 1);
    *slot_recent = p->nkeys + 1;
    *out = p->nkeys++;
    if ((uint64_t)p->nkeys * 2 > p->kindex_mask + 1 && rehash(p, (p->kindex_mask + 1) * 2))
        return -1;
    return 0;
}

static int role_find(struct evpart *p, int32_t worker, int32_t device, uint32_t *out)
{
    for (uint32_t i = 0; i < p->nroles; i++)
        if (p->roles[i].worker == worker && p->roles[i].device == device) {
            *out = i;
            return 0;
        }
    if (p->nroles >= (1u << 29) - 1)
        return -1;
    if (p->nroles == p->roles_cap) {
        uint32_t ncap = p->roles_cap ? p->roles_cap * 2 : 16;
        struct role *n = realloc(p->roles, ncap * sizeof *n);
        if (!n)
            return -1;
        p->roles = n;
        p->roles_cap = ncap;
    }
    p->roles[p->nroles] = (struct role){worker, device};
    *out = p->nroles++;
    return 0;
}

int evpart_add(struct evpart *p, int64_t t_ns, const char *job, size_t job_len,
               int32_t partition, int ev, int32_t worker, int32_t device, uint32_t line)
{
    if (p->oom)
        return -1;
    uint32_t key, role;
    if (key_find(p, job, job_len, partition, &key) || role_find(p, worker, device, &role))
        goto oom;
    size_t b = (size_t)(p->nev >> EVB_SHIFT), i = (size_t)(p->nev & (EVB_SIZE - 1));
    if (b == p->nblocks) {
        struct evblock **nb = realloc(p->blocks, (p->nblocks + 1) * sizeof *nb);
        if (!nb)
            goto oom;
        p->blocks = nb;
        nb[b] = big_alloc(sizeof **nb);
        if (!nb[b])
            goto oom;
        p->nblocks++;
    }
    struct evblock *blk = p->blocks[b];
    blk->t_ns[i] = t_ns;
    blk->ukey[i] = key;
    blk->evw[i] = (uint32_t)ev | role << 3;
    blk->line[i] = line;
    p->nev++;
    return 0;
oom:
    p->oom = 1;
    return -1;
}

int evpart_skip(struct evpart *p)
{
    if (p->nskip_marks && p->skip_at[p->nskip_marks - 1] == p->nev) {
        p->skip_count[p->nskip_marks - 1]++;
        return 0;
    }
    if (p->nskip_marks == p->skip_marks_cap) {
        size_t ncap = p->skip_marks_cap ? p->skip_marks_cap * 2 : 64;
        uint64_t *a = realloc(p->skip_at, ncap * sizeof *a);
        if (!a)
            return -1;
        p->skip_at = a;
        uint64_t *c = realloc(p->skip_count, ncap * sizeof *c);
        if (!c)
            return -1;
        p->skip_count = c;
        p->skip_marks_cap = ncap;
    }
    p->skip_at[p->nskip_marks] = p->nev;
    p->skip_count[p->nskip_marks] = 1;
    p->nskip_marks++;
    return 0;
}

void evpart_drop_events(struct evpart *p)
{
    for (size_t b = 0; b < p->nblocks; b++)
        big_free(p->blocks[b], sizeof **p->blocks);
    free(p->blocks);
    p->blocks = NULL;
    p->nblocks = 0;
}

void evpart_free(struct evpart *p)
{
    free(p->skip_at);
    free(p->skip_count);
    evpart_drop_events(p);
    big_free(p->arena, p->arena_cap);
    big_free(p->job_off, (size_t)p->jobs_cap * sizeof *p->job_off);
    big_free(p->keys, (size_t)p->keys_cap * sizeof *p->keys);
    if (p->kindex)
        big_free(p->kindex, (size_t)(p->kindex_mask + 1) * sizeof *p->kindex);
    free(p->roles);
    memset(p, 0, sizeof *p);
}

size_t evpart_bytes(const struct evpart *p)
{
    return p->nblocks * sizeof(struct evblock) + p->arena_cap +
           (size_t)p->jobs_cap * sizeof *p->job_off + (size_t)p->keys_cap * sizeof *p->keys +
           (p->kindex ? (size_t)(p->kindex_mask + 1) * sizeof *p->kindex : 0);
}
