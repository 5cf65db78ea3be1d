/*
 * model.h -- events grouped into runs and units.
 *
 * A *unit* is one job, or one partition of it (partition=N), with the time
 * of each of its six events.  A *run* is one life of the daemon: a log may
 * hold several, each restarting its epoch near zero; a native trace is one.
 * The model keeps what the analysis needs and what the reports show about
 * bad input: duplicates, contradictions, skipped lines, with where they
 * were first seen.
 */
#ifndef MODEL_H
#define MODEL_H

#include "events.h"
#include "scan.h"

#include <stddef.h>
#include <stdint.h>

#define T_NONE INT64_MIN /* an event the unit does not have */

enum unit_flags {
    U_DUP = 1,        /* some event appeared more than once (the first is kept) */
    U_CONTRA = 2,     /* its events' times contradict the pipeline's order */
};

struct unit {
    int64_t t[EV_N];   /* ns since the run's epoch, or T_NONE */
    uint32_t job;      /* index into run.jobs */
    int32_t partition; /* -1: none */
    int32_t worker;    /* -1: none */
    int32_t device;    /* from gpu=/device=; 0 when never given */
    uint64_t line;     /* where its first event was (line, or event number) */
    uint32_t flags;
};

struct job {
    const char *id; /* not NUL-terminated */
    uint32_t len;
    uint32_t units;
    uint64_t hash;
};

/* A data problem worth pointing at. */
struct issue {
    uint64_t line;
    int kind;  /* ISSUE_* */
    int detail; /* enum scan_err, or an EV_* */
};

enum { ISSUE_SKIPPED, ISSUE_DUPLICATE, ISSUE_CONTRADICTION };

#define MAX_ISSUES 5

struct run {
    const char *source; /* the input's name */
    int native;         /* lines are event numbers */
    int index;          /* 1-based within its source */
    struct unit *units;
    size_t nunits, units_cap;
    struct job *jobs;
    size_t njobs, jobs_cap;
    uint64_t events;
    uint64_t first_line, last_line;
    uint64_t skipped_lines, duplicates, contradictions;
    struct issue issues[3][MAX_ISSUES]; /* the first few of each kind */
    int nissues[3];
    uint64_t lost_events; /* native traces: the recorder's count */
    uint64_t damaged_bytes; /* native traces: skipped as damaged */
    /* lookup tables while building */
    uint64_t *uindex, *jindex;
    size_t uindex_mask, jindex_mask;
};

struct model {
    struct run *runs;
    size_t nruns, runs_cap;
    /* skipped-line reasons across all inputs, by enum scan_err */
    uint64_t skipped_by[8];
    uint64_t timeline_lines, bytes;
};

/* Add an input's events (parts in input order) to the model.  native:
 * one run, no epoch-restart splitting.  The parts must outlive the model
 * (job ids point into them); their event blocks may be freed after. */
int model_add(struct model *m, const char *source, struct evpart *parts, int nparts,
              int native, uint64_t lost_events);

void model_free(struct model *m);

/* Is this the restart of a daemon's epoch?  (Exposed for the tests.) */
int model_is_restart(int64_t t, int64_t run_max);

#endif /* MODEL_H */
