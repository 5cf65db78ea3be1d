/*
 * kineto_stage.h -- a PyTorch trace's CPU ranges (cpu_op,
 * user_annotation, python_function): mapped to waterfall's stages where
 * the user names them (`--stage synthesis=GLOB`, `--stage prep=GLOB`),
 * and offered as candidates for a mapping where not.
 *
 * The rule (docs/cli.md, "PyTorch traces: which stage of the host"): on the thread
 * that launches a device operation,
 *   prep       a prep range that holds the launch is the unit's prep:
 *              GPU_PICKUP at its start, and the unit is ready (CHAN_SEND)
 *              there too;
 *   synthesis  the latest synthesis range that began at or before the
 *              unit is ready makes the unit it was the first to precede:
 *              SYNTH_START at its start, SYNTH_END at its end (or where
 *              the unit is ready, if sooner).  One unit per range, so that
 *              synthesis concurrency counts the ranges, not the kernels.
 * The ranges of one stage on one thread are taken as their union.
 */
#ifndef KINETO_STAGE_H
#define KINETO_STAGE_H

#include "model.h"
#include "strtab.h"

#include <stddef.h>
#include <stdint.h>

/* A device operation as the reader keeps it. */
struct kop {
    int64_t ts, dur; /* ns */
    int64_t corr;    /* -1: none */
    uint64_t index;  /* the event's number in traceEvents, from 1 */
    int32_t device, stream;
};

/* A CPU range: [t0, t1] ns, its name's and its thread's ids. */
struct krange {
    int64_t t0, t1;
    uint32_t name, thread;
};

struct kranges {
    struct strtab names;   /* the ranges' names */
    struct strtab threads; /* "pid\x1ftid", as the trace writes them */
    struct krange *r;
    size_t n, cap;
};

int kranges_add(struct kranges *k, int64_t t0, int64_t t1, uint32_t name, uint32_t thread);
void kranges_free(struct kranges *k);

/* The stages of one operation's unit, from its launch at tl (T_NONE: no
 * launch) on thread: ready, and T_NONE where the unit has none. */
struct kstage {
    int64_t ready, synth0, synth1, pickup;
};

/* Each operation i launched at launch[i] on thread[i] (T_NONE: none)
 * gets its stages in out[i]; use->stage_ranges counts the ranges (the
 * units given a stage are the reader's to count, as it makes them).
 * 0, or -1 out of memory. */
int kstage_assign(const struct kranges *kr, const struct stage_map *map, size_t nops, const int64_t *launch,
                  const uint32_t *thread, struct kstage *out, struct streams_use *use);

/* Of the ranges of each name, the device idle time (summed over the
 * devices, within each one's window) during which one is open: the
 * largest into use->cand (names interned in m->strs).  A step
 * (ProfilerStep#N) and a name whose ranges cover nearly the whole trace
 * (90% of the devices' window or more: the program, the training loop)
 * are left out: they hold every gap.  Sorts kr's ranges (by name): the last use of
 * them.  0, or -1 out of memory. */
int kstage_candidates(struct kranges *kr, const struct kop *ops, size_t nops, struct model *m,
                      struct streams_use *use);

/* The stage a rule names ("synthesis", "prep"): EV_SYNTH_START or
 * EV_GPU_PICKUP; -1 for any other. */
int stage_of_name(const char *s, size_t n);

#endif /* KINETO_STAGE_H */
