/*
 * render.h -- the views: drawn from the analysis (run_result), never from
 * the input.  One file per format: render_chrome.c (Chrome trace JSON, for
 * Perfetto), render_svg.c (a static waterfall), render_html.c (the
 * interactive view: one self-contained page, its script in src/html/).
 */
#ifndef RENDER_H
#define RENDER_H

#include "analyze.h"

#include <stdio.h>

/* 0, or -1 when writing failed. */
int render_chrome(FILE *f, const struct run_result *res, size_t nres);
int render_svg(FILE *f, const struct run_result *res, size_t nres);
int render_html(FILE *f, const struct run_result *res, size_t nres);

/* Text in HTML or SVG markup, outside a script: <, >, & and " escaped,
 * control bytes shown as '?'. */
void render_markup_text(FILE *f, const char *s, size_t n);

/* The terminal chart: width columns, the first rows units, colour or letters. */
void render_term(FILE *f, const struct run_result *res, int width, int rows, int color);

#endif /* RENDER_H */
