/*
 * durations.h -- a GPU library's duration lines (CUZK_TIMING), placed in
 * time and given to units as phases of their GPU phase.
 *
 * The lines carry no time and no job (scan.h); the library's source says
 * what each duration measures, on which thread, and in what order the
 * lines are printed (docs/cli.md, "Duration lines"; docs/sources/
 * cuzk-timing.md has the source's lines).  So a line belongs to a call,
 * a call to the unit whose GPU phase made it, and each duration becomes a
 * phase NAME_START/NAME_END at the time the source implies, anchored at
 * the unit's GPU_START.  What cannot be given to a unit without guessing
 * is counted, never dropped.
 */
#ifndef DURATIONS_H
#define DURATIONS_H

#include "model.h"

/* Place the run's duration entries (sorted by line, then place on the
 * line; lines 1-based, times on the run's raw clock) as phases (r->xev)
 * and count them (r->dur).  strs: the model's strings, where the phases'
 * names go.  0, or -1 when out of memory. */
int dur_place(struct run *r, struct strtab *strs, const struct dline *dl, size_t n);

/* The name of the phase that encloses duration phase `name` (n bytes) by
 * the source's nesting (gpu_total within mutex_held, ntt_msm_h within
 * gpu_total, ...), into out; its length, or 0 for a phase of no parent. */
size_t dur_parent(const char *name, size_t n, char *out, size_t cap);

#endif /* DURATIONS_H */
