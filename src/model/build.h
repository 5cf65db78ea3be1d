/*
 * build.h -- the one way into the model: runs built from events.
 *
 * Two levels.  The builder (struct mbuild, mb_*) takes events one at a
 * time, in any order, from any reader: an event of the six, another
 * event (a phase's start or end, a mark), a detail, what a recording
 * sampled, and where one run ends and the next begins.  The rules it
 * applies are the model's (vocab.h: unit_set); which events form a run
 * is the caller's to say (mb_break): restart detection, late lines and
 * splitting an input among threads are a reader's business.
 *
 * Below it, the run primitives the builder is made of, for a reader that
 * builds whole segments of units itself and hands them over (the text
 * reader, read/stitch.c): a new run, a job, a unit's lookup, an issue, and
 * run_finish, which attaches the other events and details to their units.
 *
 * Errors: 0, or -1 when out of memory.
 */
#ifndef BUILD_H
#define BUILD_H

#include "model.h"

/* ---- the builder ---- */

struct mbuild {
    struct model *m;
    const char *source;
    struct provenance prov;
    size_t cur;       /* the run being built, + 1 (0: none yet); mb_run gives it */
    size_t first;     /* the builder's first run in m->runs */
    int index;        /* the runs begun */
    int broken;       /* mb_break: the next event begins a run */
};

/* Build runs of source (its name: kept, not copied) into m. */
void mb_init(struct mbuild *b, struct model *m, const char *source, const struct provenance *prov);

/* One of the six events (ev: EV_*) of unit (job, partition) at t (ns since
 * the run's epoch); worker, device: -1 when not named; line: where it is
 * in the input (1-based: a line, or an event's number).  flags: U_QUEUE
 * where a CHAN_SEND was written GPU_QUEUE. */
int mb_event(struct mbuild *b, int64_t t, const char *job, size_t job_len, int32_t partition, int ev,
             int32_t worker, int32_t device, uint64_t line, uint32_t flags);

/* A whole unit of a job new to the run (the caller knows its id names no
 * job of the run yet, such as a trace's event number): its events t[EV_*]
 * (T_NONE: not seen), all naming worker and device, as that many mb_event
 * calls would make it, without looking the job up.  The run's indexes are
 * dropped, and made again from its arrays at the next lookup (mb_event,
 * mb_other, mb_detail): a reader adds all such units first. */
int mb_unit(struct mbuild *b, const char *job, size_t job_len, int32_t partition, const int64_t t[EV_N],
            int32_t worker, int32_t device, uint64_t line, uint32_t flags);

/* Another event of the unit (job, partition: -1 for the job's one unit):
 * a phase's start or end (NAME_START, NAME_END) or a mark, by name. */
int mb_other(struct mbuild *b, int64_t t, const char *job, size_t job_len, int32_t partition,
             const char *name, size_t name_len, uint64_t line);

/* A detail of the unit the analysis does not read itself (key=value; the
 * first value of a key is kept). */
int mb_detail(struct mbuild *b, const char *job, size_t job_len, int32_t partition, const char *key,
              size_t key_len, const char *val, size_t val_len, uint64_t line);

/* A line of the input that could not be read (why: enum scan_err). */
int mb_skip(struct mbuild *b, uint64_t line, int why);

/* The run being built (begun if none is): for what a recording sampled
 * beside its events (cpu, mem, gpu, cpus, lost_events, damaged_bytes). */
struct run *mb_run(struct mbuild *b);

/* Has the builder begun a run? */
static inline int mb_holds(const struct mbuild *b)
{
    return b->cur != 0;
}

/* The events after this begin a new run (a restart). */
void mb_break(struct mbuild *b);

/* The runs are complete: each unit's other events and details attached,
 * contradictions found.  0, or -1. */
int mb_finish(struct mbuild *b);

/* ---- the run primitives ---- */

struct run *model_run_new(struct model *m, const char *source, const struct provenance *prov, int index);
/* Room in the run's indexes for this many jobs and units (0: as now). */
int run_reserve(struct run *r, size_t jobs, size_t units);
/* The run's job with this id (h: hash_bytes(id, len, 0)), added if new;
 * the id is not copied. */
int run_job(struct run *r, const char *id, size_t len, uint64_t h, uint32_t *job);
/* The unit of (job, partition), or -1, with *slot where a new one's
 * index entry goes. */
int64_t run_unit(struct run *r, uint32_t job, int32_t partition, size_t *slot);
/* A whole unit, its events already set, onto the end of the run (not
 * indexed: for a run built of units, not looked up; live's snapshot). */
int run_add_unit(struct run *r, uint32_t job, const struct unit *u, uint64_t line);
/* Job j of the run's units, other events and details becomes map[j]. */
void run_remap_jobs(struct run *r, const uint32_t *map);
/* A data problem worth pointing at (the first MAX_ISSUES of each kind). */
void run_issue(struct run *r, int kind, uint64_t line, int detail);
/* Attach the other events and details to their units, drop jobs with no
 * unit, count contradictions; times read by wall clocks count from the
 * run's first. */
int run_finish(struct run *r);

/* Free a run's arrays. */
void run_free(struct run *r);
/* A copy of a job id that the model keeps until it is freed (NULL: out
 * of memory); model_free_ids frees them (model_free does). */
const char *model_keep_id(struct model *m, const char *id, size_t len);
void model_free_ids(struct model *m);

#endif /* BUILD_H */
