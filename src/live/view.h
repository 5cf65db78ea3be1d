/*
 * view.h -- what watch shows of the live state (live.h): a screen for a
 * terminal, redrawn in place, or one JSON object per line for scripts.
 */
#ifndef VIEW_H
#define VIEW_H

#include "live.h"

#include <stdio.h>

/* One JSON object, one line: the settled totals, the last `recent` of log
 * time, the units in flight, the stages, the bottleneck now.  state:
 * "running", or "final" for the last line. */
void view_json(FILE *f, const struct live *l, int bottleneck, const char *state);

struct view_screen {
    const struct live *l;
    const char *source;
    const char *status;               /* "" or a note (" (quiet)", " (ended)") */
    int bottleneck;                   /* BN_* now */
    const struct run_result *chart;   /* the last units, analysed: the chart (NULL: none) */
    int width, rows, color;
};
void view_draw(FILE *f, const struct view_screen *v);

#endif /* VIEW_H */
