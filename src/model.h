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
#include "read_wft.h"
#include "scan.h"

#include <stddef.h>
#include <stdint.h>

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
    uint64_t late_lines; /* events whose time looked like a restart, not followed by the lines after them */
    struct issue issues[3][MAX_ISSUES]; /* the first few of each kind */
    int nissues[3];
    uint64_t lost_events; /* native traces: the recorder's count */
    uint64_t damaged_bytes; /* native traces: skipped as damaged */
    struct wft_cpu_use cpu; /* native traces: the threads' CPU use, when sampled */
    unsigned cpus;          /* native traces: the recording machine's CPUs (0: unknown) */
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

/* Add an input's units (parts in input order, linked by evpart_link) to
 * the model: its segments become runs, or join the run before.  The parts
 * must outlive the model (job ids point into them); the model takes their
 * units. */
int model_add(struct model *m, const char *source, struct evpart *parts, int nparts,
              int native, uint64_t lost_events);

void model_free(struct model *m);



#endif /* MODEL_H */
