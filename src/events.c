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

#include "mem.h"

#include <stdlib.h>
#include <string.h>

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

/* Index entries: a number + 1 in the low 32 bits (0: empty), the hash's
 * high 32 bits above, so a probe rarely touches an entry that is not the
 * one sought.  hashes[k * stride] is entry k's hash. */
static int index_rebuild(uint64_t **idx, uint32_t *mask, uint32_t size, const uint64_t *hashes,
                         uint32_t n, size_t stride)
{
    uint64_t *ni = big_alloc((size_t)size * sizeof *ni); /* zeroed */
    if (!ni)
        return -1;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t h = *(const uint64_t *)((const char *)hashes + (size_t)k * stride);
        uint32_t i = (uint32_t)h & (size - 1);
        while (ni[i])
            i = (i + 1) & (size - 1);
        ni[i] = (h & 0xffffffff00000000ull) | (k + 1);
    }
    if (*idx)
        big_free(*idx, (size_t)(*mask + 1) * sizeof **idx);
    *idx = ni;
    *mask = size - 1;
    return 0;
}

/* The job's number, adding it if new.  jh = hash_bytes(job, len, 0). */
static int job_find(struct evpart *p, const char *job, size_t len, uint64_t jh, uint32_t *out)
{
    if (!p->jindex && index_rebuild(&p->jindex, &p->jindex_mask, 1024, NULL, 0, 8))
        return -1;
    uint32_t i = (uint32_t)jh & p->jindex_mask;
    for (;;) {
        uint64_t slot = p->jindex[i];
        uint32_t k = (uint32_t)slot;
        if (!k)
            break;
        if ((slot >> 32) == (jh >> 32) && p->job_hash[k - 1] == jh) {
            size_t jl;
            const char *j = evpart_job(p, k - 1, &jl);
            if (jl == len && memcmp(j, job, len) == 0) {
                *out = k - 1;
                return 0;
            }
        }
        i = (i + 1) & p->jindex_mask;
    }
    uint32_t cap = p->jobs_cap;
    if (grow((void **)&p->job_off, &cap, p->njobs + 1, sizeof *p->job_off))
        return -1;
    cap = p->jobs_cap;
    if (grow((void **)&p->job_hash, &cap, p->njobs + 1, sizeof *p->job_hash))
        return -1;
    p->jobs_cap = cap;
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
    p->job_hash[p->njobs] = jh;
    p->arena_len += len;
    p->jindex[i] = (jh & 0xffffffff00000000ull) | (p->njobs + 1);
    *out = p->njobs++;
    if ((uint64_t)p->njobs * 2 > p->jindex_mask + 1 &&
        index_rebuild(&p->jindex, &p->jindex_mask, (p->jindex_mask + 1) * 2, p->job_hash, p->njobs, 8))
        return -1;
    return 0;
}

static uint64_t key_hash(uint64_t jh, int32_t partition)
{
    uint64_t h = jh ^ ((uint64_t)(uint32_t)partition + 1) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return h;
}

static int key_find(struct evpart *p, const char *job, size_t len, int32_t partition,
                    uint32_t *out)
{
    uint64_t jh = hash_bytes(job, len, 0), h = key_hash(jh, partition);
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
    if (!p->kindex && index_rebuild(&p->kindex, &p->kindex_mask, 1024, NULL, 0, 16))
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
    /* A new key. */
    if (p->nkeys >= (1u << 31) || grow((void **)&p->keys, &p->keys_cap, p->nkeys + 1, sizeof *p->keys))
        return -1;
    uint32_t job_idx;
    if (job_find(p, job, len, jh, &job_idx))
        return -1;
    p->keys[p->nkeys] = (struct ukey){h, job_idx, partition};
    p->kindex[i] = (h & 0xffffffff00000000ull) | (p->nkeys + 1);
    *slot_recent = p->nkeys + 1;
    *out = p->nkeys++;
    if ((uint64_t)p->nkeys * 2 > p->kindex_mask + 1 &&
        index_rebuild(&p->kindex, &p->kindex_mask, (p->kindex_mask + 1) * 2, &p->keys[0].hash,
                      p->nkeys, sizeof *p->keys))
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

void evpart_compact(struct evpart *p)
{
    if (p->kindex)
        big_free(p->kindex, (size_t)(p->kindex_mask + 1) * sizeof *p->kindex);
    if (p->jindex)
        big_free(p->jindex, (size_t)(p->jindex_mask + 1) * sizeof *p->jindex);
    p->kindex = p->jindex = NULL;
    memset(p->recent, 0, sizeof p->recent);
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
    big_free(p->job_hash, (size_t)p->jobs_cap * sizeof *p->job_hash);
    big_free(p->keys, (size_t)p->keys_cap * sizeof *p->keys);
    evpart_compact(p);
    free(p->roles);
    memset(p, 0, sizeof *p);
}

size_t evpart_bytes(const struct evpart *p)
{
    return p->nblocks * sizeof(struct evblock) + p->arena_cap +
           (size_t)p->jobs_cap * sizeof *p->job_off + (size_t)p->keys_cap * sizeof *p->keys +
           (p->kindex ? (size_t)(p->kindex_mask + 1) * sizeof *p->kindex : 0);
}
