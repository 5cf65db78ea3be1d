/*
 * stitch.h -- a reader's parts (events.h) into the model's runs.
 */
#ifndef STITCH_H
#define STITCH_H

#include "events.h"
#include "model.h"

/* Add an input's units (parts in input order, linked by evpart_link) to
 * the model: its segments become runs, or join the run before.  The parts
 * must outlive the model (job ids point into them); the model takes their
 * units.  lost_events: the recorder's count, given to the input's runs.
 * 0, or -1 when out of memory. */
int stitch_add(struct model *m, const char *source, const struct provenance *prov, struct evpart *parts,
               int nparts, uint64_t lost_events);

#endif /* STITCH_H */
