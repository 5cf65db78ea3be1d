/*
 * phase.h -- a unit's phases, marks and attributes, from its other events
 * and details (struct xitem).
 *
 * A pair <NAME>_START / <NAME>_END on one unit is a phase NAME; each END
 * closes the earliest open START of its name.  An event with neither
 * suffix, or one left without its pair, is a mark.  A phase lies within
 * the GPU phase when it is inside [GPU_START, GPU_END], else within
 * synthesis when inside [SYNTH_START, SYNTH_END], else within the unit.
 * Shared by the analysis and the views (which draw what the analysis
 * defined, the same way).
 */
#ifndef PHASE_H
#define PHASE_H

#include "model.h"

enum { WITHIN_GPU, WITHIN_SYNTHESIS, WITHIN_UNIT, WITHIN_N };
extern const char *const within_names[WITHIN_N];

struct uphase {
    uint32_t name; /* a phase: its START event's name; a mark: its name (the model's strings) */
    int mark;
    int within;    /* phases: WITHIN_* */
    int64_t start, end; /* a mark: start == end */
    uint64_t line;
};

/* The run's other events of unit u: *first and the count (sorted by time). */
size_t unit_xev(const struct run *r, uint32_t u, size_t *first);

/* The phases duration lines gave unit u (r->dur.ph): *first and the count. */
size_t unit_dphases(const struct run *r, uint32_t u, size_t *first);

/* Has unit u a phase or a mark of either kind? */
int unit_has_phases(const struct run *r, uint32_t u);

/* Does the run hold other events or duration lines' phases? */
#define run_has_phases(r) ((r)->nxev || (r)->dur.nph)

/* Unit u's phases and marks, in time order, into *buf (grown as needed,
 * free() it).  Returns the count, or (size_t)-1 when out of memory. */
size_t unit_phases(const struct run *r, uint32_t u, struct uphase **buf, size_t *cap);

/* A phase's name (its START event's name without _START) or a mark's. */
const char *uphase_name(const struct run *r, const struct uphase *p, size_t *len);

/* The value of unit u's attribute key (its bytes, *len of them), or NULL. */
const char *unit_attr(const struct run *r, uint32_t u, const char *key, size_t *len);
/* The same, and the line (or event number) that gave it, into *line. */
const char *unit_attr_at(const struct run *r, uint32_t u, const char *key, size_t *len, uint64_t *line);

#endif /* PHASE_H */
