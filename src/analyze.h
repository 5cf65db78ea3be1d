/*
 * analyze.h -- where the GPU's time went: the definitions of DESIGN.md
 * ("Definitions") applied to one run of units.
 *
 * busy      union of [GPU_START, GPU_END] per device, merged, never summed
 * window    [first GPU_START, last GPU_END] per device
 * idle      window - busy, each instant given one cause, first match wins:
 *           prep, queue, synthesis, no_work (they add up to idle exactly)
 * bottleneck, effective GPU time per unit, advice, throughput, stages.
 *
 * All times are int64 nanoseconds here; reports print seconds.
 */
#ifndef ANALYZE_H
#define ANALYZE_H

#include "model.h"
#include "sort.h"

enum { ST_SYNTHESIS, ST_HANDOFF, ST_QUEUE, ST_PREP, ST_GPU, ST_N };
enum { CAUSE_PREP, CAUSE_QUEUE, CAUSE_SYNTHESIS, CAUSE_NO_WORK, CAUSE_N };
enum { BN_NONE, BN_GPU, BN_SYNTHESIS, BN_DISPATCH, BN_INPUT };

extern const char *const stage_names[ST_N];
extern const char *const cause_names[CAUSE_N];
extern const char *const bottleneck_names[];

struct stage_stats {
    uint64_t count;
    double mean, p50, p90, p99, max; /* ns */
};

struct gap {
    int64_t start, end;
    int64_t by_cause[CAUSE_N];
};

/* A stretch of idle time with one cause (the views draw these). */
struct idle_seg {
    int64_t start, end;
    int cause;
};

struct device_result {
    int32_t device;
    int32_t *workers; /* sorted, distinct */
    size_t nworkers;
    uint64_t units;   /* complete, consistent units proved on it */
    int64_t busy, window_start, window_end, idle, fill;
    int64_t by_cause[CAUSE_N];
    struct gap *gaps; /* in time order */
    size_t ngaps;
    struct idle_seg *segs; /* every idle stretch by cause, in time order */
    size_t nsegs, segs_cap;
    double utilization;
    double gpu_per_unit; /* g: busy / units, ns */
};

struct advice {
    int valid;               /* needs synthesis times and a device with units */
    double synth_mean;       /* s, ns */
    double rate;             /* sum over devices of 1/g, units per ns */
    int current;             /* synthesis concurrency seen (its maximum) */
    int needed;              /* ceil(s * rate): the concurrency that saturates */
    double predicted_now;    /* min(1, current / (s * rate)) */
    double predicted_needed; /* min(1, needed / (s * rate)) */
    const char *model;       /* "formula", or "simulation" */
    int contention;          /* simulation: CPU contention 0 left out, 1 fitted, 2 measured */
};

struct run_result {
    const struct run *run;
    uint64_t jobs, jobs_completed, units, in_flight, inconsistent;
    struct device_result *dev;
    size_t ndev;
    struct stage_stats stage[ST_N];
    int64_t start;           /* earliest SYNTH_START (or event) of the run */
    int64_t busy, window, idle, by_cause[CAUSE_N]; /* over all devices */
    double utilization;      /* busy / window over all devices */
    int bottleneck;
    double s_per_job, steady_s_per_job; /* ns; negative: undefined */
    int synth_max;
    double synth_mean_active; /* mean syntheses in flight over the window */
    struct advice advice;
};

/* Analyse one run; 0, or -1 when out of memory. */
int analyze_run(const struct run *r, struct run_result *out);
void run_result_free(struct run_result *res);

#endif /* ANALYZE_H */
