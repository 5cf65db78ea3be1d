/*
 * render.h -- the views: drawn from the analysis (run_result), never from
 * the input.  One file per format: render_chrome.c (Chrome trace JSON, for
 * Perfetto), render_svg.c (a static waterfall), render_html.c (the
 * interactive view: one self-contained page, its script in src/render/html/).
 */
#ifndef RENDER_H
#define RENDER_H

#include "analyze.h"
#include "fmt.h"

#include <stdio.h>

/* 0, or -1 when writing failed. */
int render_chrome(FILE *f, const struct run_result *res, size_t nres);
int render_svg(FILE *f, const struct run_result *res, size_t nres);
int render_html(FILE *f, const struct run_result *res, size_t nres);


/* Sub-phases and kernels, drawn the way the analysis defined them
 * (phase.h, analyze_phase.c). */


/* Each device's kernel time as the analysis measured its kernel_busy: the
 * kernel phases of its units that have a GPU phase (GPU_START and
 * GPU_END), clipped to its window, merged into disjoint spans in time
 * order.  Device i (res->dev[i]) has spans[first[i] .. first[i + 1]). */
struct render_kernels {
    struct span *spans;
    size_t *first; /* res->ndev + 1 */
};
/* 0, or -1 when out of memory. */
int render_kernels(const struct run_result *res, struct render_kernels *k);
void render_kernels_free(struct render_kernels *k);

/* The names (START event ids, the model's strings) of the GPU phase's
 * sub-phases other than the kernel's over the runs, from the analysis'
 * phase rows, in byte order: a sub-phase's colour is its place here
 * (cycling through the views' few colours).  *out: free it.  The count,
 * or (size_t)-1 when out of memory. */
size_t render_subphase_names(const struct run_result *res, size_t nres, uint32_t **out);

/* The terminal chart: width columns, the first rows units, colour or letters. */
void render_term(FILE *f, const struct run_result *res, int width, int rows, int color);

#endif /* RENDER_H */
