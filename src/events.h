/*
 * events.h -- what every reader produces: the events of one input, in
 * input order, compactly (20 bytes each), with their unit keys interned.
 *
 * A reader may split its input among threads; each thread fills its own
 * `evpart`, and the parts are in input order.  A unit key is the pair
 * (job id, partition), interned per part; a role key is the pair
 * (worker, device).  The model (model.c) turns parts into runs of units.
 */
#ifndef EVENTS_H
#define EVENTS_H

#include <stddef.h>
#include <stdint.h>

/* Events per block: 2^17 x 20 bytes = 2.5 MiB, on huge pages where the
 * kernel gives them. */
#define EVB_SHIFT 17
#define EVB_SIZE (1u << EVB_SHIFT)

struct evblock {
    int64_t t_ns[EVB_SIZE];
    uint32_t ukey[EVB_SIZE]; /* unit key within the part */
    uint32_t evw[EVB_SIZE];  /* event id in bits 0-2, role key in bits 3-31 */
    uint32_t line[EVB_SIZE]; /* line within the part (text), or event index (native) */
};

#define EV_RECENT 1024

struct ukey {
    uint64_t hash;
    uint32_t job;      /* index into the part's job table */
    int32_t partition; /* -1: none */
};

struct role {
    int32_t worker, device; /* -1: none */
};

struct evpart {
    /* events */
    struct evblock **blocks;
    size_t nblocks;
    uint64_t nev;
    /* job ids: bytes in an arena, by offset */
    char *arena;
    size_t arena_len, arena_cap;
    uint64_t *job_off;  /* offset << 16 | length (job ids are at most 1024 bytes) */
    uint64_t *job_hash; /* hash of the job id's bytes: the same in every part */
    uint32_t njobs, jobs_cap;
    uint64_t *jindex;   /* like kindex, for jobs */
    uint32_t jindex_mask;
    /* unit keys, with an open-addressing index */
    struct ukey *keys;
    uint32_t nkeys, keys_cap;
    uint64_t *kindex; /* hash high bits << 32 | key + 1; 0 = empty */
    uint32_t kindex_mask;
    uint32_t recent[EV_RECENT]; /* key + 1 of recently used keys, by hash */
    /* role keys (few) */
    struct role *roles;
    uint32_t nroles, roles_cap;
    /* what the part read */
    uint64_t lines;  /* newlines in the part (text) */
    uint64_t bytes;
    uint64_t timeline_lines;
    uint64_t skipped;
    uint64_t skipped_by[8]; /* by enum scan_err */
    struct {
        uint64_t line;
        int err;
    } skip_first[8];
    int nskip_first;
    int oom; /* ran out of memory: events after that point are not kept */
    /* Skipped lines, placed between events so the model can tell which
     * run they fell in: skip_count[i] lines came just before event
     * skip_at[i].  One entry per stretch of skipped lines. */
    uint64_t *skip_at, *skip_count;
    size_t nskip_marks, skip_marks_cap;
};

/* Append an event; returns 0, or -1 (out of memory, counted in p->oom). */
int evpart_add(struct evpart *p, int64_t t_ns, const char *job, size_t job_len,
               int32_t partition, int ev, int32_t worker, int32_t device, uint32_t line);

/* Note a skipped line before the next event; returns -1 out of memory. */
int evpart_skip(struct evpart *p);

/* The job id of a unit key, as bytes. */
static inline const char *evpart_job(const struct evpart *p, uint32_t job, size_t *len)
{
    uint64_t o = p->job_off[job];
    *len = (size_t)(o & 0xffff);
    return p->arena + (o >> 16);
}

/* After reading: free the lookup indexes (the model needs keys and jobs,
 * not the means of finding them). */
void evpart_compact(struct evpart *p);

/* Free the event blocks only; keys and job ids stay (the model points
 * into them). */
void evpart_drop_events(struct evpart *p);
void evpart_free(struct evpart *p);

/* Bytes a part holds, for the memory report. */
size_t evpart_bytes(const struct evpart *p);

#endif /* EVENTS_H */
