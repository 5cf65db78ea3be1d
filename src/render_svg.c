/*
 * render_svg.c -- a static waterfall for READMEs and reviews, 1200 px wide.
 *
 * Per run: a lane per device (busy in blue, each idle stretch in the colour
 * of its cause), then the units in SYNTH_START order, each a bar of its
 * phases.  Colours are the Okabe-Ito palette (safe for colour-blind eyes).
 * Large inputs stay small: at most 150 unit rows; past that a row stands
 * for consecutive units, and each phase's spans in a row are merged at
 * pixel resolution before drawing, so the file grows with pixels, not
 * with units.  Text from the input is XML-escaped.
 */
#include "render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 1200
#define LEFT 150
#define RIGHT 20
#define PLOT (WIDTH - LEFT - RIGHT)
#define MAX_ROWS 150
#define ROW_H 5
#define LANE_H 16

static const char *const phase_color[ST_N] = {"#E69F00", "#F0E442", "#56B4E9", "#CC79A7", "#009E73"};
static const char *const cause_color[CAUSE_N] = {"#CC79A7", "#56B4E9", "#E69F00", "#BBBBBB"};
#define BUSY_COLOR "#0072B2"

void render_markup_text(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '<')
            fputs("&lt;", f);
        else if (c == '>')
            fputs("&gt;", f);
        else if (c == '&')
            fputs("&amp;", f);
        else if (c == '"')
            fputs("&quot;", f);
        else if (c < 0x20 || c == 0x7f)
            fputc('?', f);
        else
            fputc(c, f);
    }
}

struct scale {
    int64_t t0, t1;
};

static double px(const struct scale *s, int64_t t)
{
    double span = (double)(s->t1 - s->t0);
    double x = span > 0 ? (double)(t - s->t0) / span * PLOT : 0;
    return LEFT + (x < 0 ? 0 : x > PLOT ? PLOT : x);
}

static void rect(FILE *f, double x0, double x1, double y, double h, const char *color)
{
    double w = x1 - x0;
    if (w < 0.5)
        w = 0.5; /* every span stays visible */
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n", x0, y, w, h, color);
}

static int by_start(const void *a, const void *b)
{
    const struct unit *x = *(const struct unit *const *)a, *y = *(const struct unit *const *)b;
    int64_t ax = x->t[EV_SYNTH_START] != T_NONE ? x->t[EV_SYNTH_START] : x->t[EV_GPU_START];
    int64_t bx = y->t[EV_SYNTH_START] != T_NONE ? y->t[EV_SYNTH_START] : y->t[EV_GPU_START];
    return (ax > bx) - (ax < bx);
}

/* The five phases of a unit as [from, to) pairs (T_NONE when absent). */
static void phases(const struct unit *u, int64_t from[ST_N], int64_t to[ST_N])
{
    int64_t ready = u->t[EV_CHAN_SEND] != T_NONE ? u->t[EV_CHAN_SEND] : u->t[EV_SYNTH_END];
    from[ST_SYNTHESIS] = u->t[EV_SYNTH_START], to[ST_SYNTHESIS] = u->t[EV_SYNTH_END];
    from[ST_HANDOFF] = u->t[EV_SYNTH_END], to[ST_HANDOFF] = u->t[EV_CHAN_SEND];
    from[ST_QUEUE] = ready, to[ST_QUEUE] = u->t[EV_GPU_PICKUP];
    from[ST_PREP] = u->t[EV_GPU_PICKUP], to[ST_PREP] = u->t[EV_GPU_START];
    from[ST_GPU] = u->t[EV_GPU_START], to[ST_GPU] = u->t[EV_GPU_END];
}

/* Pixel spans of one phase in one row, merged before drawing. */
struct pxspan {
    double a, b;
};

static int pxcmp(const void *x, const void *y)
{
    const struct pxspan *p = x, *q = y;
    return (p->a > q->a) - (p->a < q->a);
}

static void axis(FILE *f, const struct scale *s, double y)
{
    double span = (double)(s->t1 - s->t0) / 1e9;
    if (span <= 0)
        return;
    double raw = span / 8, step = pow(10, floor(log10(raw)));
    if (raw / step >= 5)
        step *= 5;
    else if (raw / step >= 2)
        step *= 2;
    const char *unit = step >= 1 ? "s" : "ms";
    double mult = step >= 1 ? 1 : 1e3;
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#444\"/>\n", LEFT, y, LEFT + PLOT, y);
    for (double t = 0; t <= span + 1e-12; t += step) {
        double x = LEFT + t / span * PLOT;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>", x, y, x, y + 4);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g %s</text>\n", x, y + 16,
                round(t * mult * 1000) / 1000, unit);
    }
}

static double run_svg(FILE *f, const struct run_result *res, double y, const struct scale *sc)
{
    const struct run *r = res->run;
    fprintf(f, "<text x=\"10\" y=\"%.1f\" font-weight=\"bold\">", y + 14);
    render_markup_text(f, r->source, strlen(r->source));
    if (isnan(res->utilization))
        fprintf(f, " run %d: GPU utilization unknown (no window)", r->index);
    else
        fprintf(f, " run %d: GPU utilization %.1f%%", r->index, 100 * res->utilization);
    if (res->bottleneck)
        fprintf(f, ", bottleneck %s", bottleneck_names[res->bottleneck]);
    fprintf(f, ", %llu units</text>\n", (unsigned long long)res->units);
    y += 24;

    /* Device lanes. */
    for (size_t d = 0; d < res->ndev; d++) {
        const struct device_result *dv = &res->dev[d];
        if (isnan(dv->utilization))
            fprintf(f, "<text x=\"10\" y=\"%.1f\">GPU %d</text>\n", y + 12, dv->device);
        else
            fprintf(f, "<text x=\"10\" y=\"%.1f\">GPU %d (%.1f%%)</text>\n", y + 12, dv->device,
                    100 * dv->utilization);
        if (dv->units)
            rect(f, px(sc, dv->window_start), px(sc, dv->window_end), y, LANE_H, BUSY_COLOR);
        for (size_t i = 0; i < dv->nsegs; i++)
            rect(f, px(sc, dv->segs[i].start), px(sc, dv->segs[i].end), y, LANE_H,
                 cause_color[dv->segs[i].cause]);
        y += LANE_H + 4;
    }
    y += 6;

    /* Unit rows. */
    const struct unit **order = malloc((r->nunits ? r->nunits : 1) * sizeof *order);
    struct pxspan *spans = malloc((r->nunits ? r->nunits : 1) * sizeof *spans);
    if (!order || !spans) {
        free(order);
        free(spans);
        return y;
    }
    size_t n = 0;
    for (size_t i = 0; i < r->nunits; i++)
        if (!(r->units[i].flags & U_CONTRA))
            order[n++] = &r->units[i];
    qsort(order, n, sizeof *order, by_start);
    size_t per_row = (n + MAX_ROWS - 1) / MAX_ROWS, rows = per_row ? (n + per_row - 1) / per_row : 0;
    fprintf(f, "<text x=\"10\" y=\"%.1f\">units%s</text>\n", y + 10,
            per_row > 1 ? " (a row = consecutive units)" : "");
    for (size_t row = 0; row < rows; row++) {
        size_t lo = row * per_row, hi = lo + per_row < n ? lo + per_row : n;
        for (int ph = 0; ph < ST_N; ph++) {
            size_t ns = 0;
            for (size_t k = lo; k < hi; k++) {
                int64_t from[ST_N], to[ST_N];
                phases(order[k], from, to);
                if (from[ph] != T_NONE && to[ph] != T_NONE && to[ph] >= from[ph])
                    spans[ns++] = (struct pxspan){px(sc, from[ph]), px(sc, to[ph])};
            }
            qsort(spans, ns, sizeof *spans, pxcmp);
            for (size_t k = 0; k < ns;) {
                double a = spans[k].a, b = spans[k].b;
                for (k++; k < ns && spans[k].a <= b + 0.5; k++)
                    if (spans[k].b > b)
                        b = spans[k].b;
                rect(f, a, b, y, ROW_H, phase_color[ph]);
            }
        }
        if (per_row == 1) {
            /* a tooltip with the job id: an invisible rectangle over the
             * row, on top, that takes the pointer (a browser gives the
             * pointer to painted shapes only, unless pointer-events says
             * otherwise), with no outline in any renderer */
            const struct unit *u = order[lo];
            fprintf(f,
                    "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"none\" "
                    "pointer-events=\"all\"><title>",
                    LEFT, y, PLOT, ROW_H);
            render_markup_text(f, r->jobs[u->job].id, r->jobs[u->job].len);
            if (u->partition >= 0)
                fprintf(f, " partition %d", u->partition);
            fputs("</title></rect>\n", f);
        }
        y += ROW_H + 1;
    }
    free(order);
    free(spans);
    return y + 8;
}

int render_svg(FILE *f, const struct run_result *res, size_t nres)
{
    /* One time scale for all runs: each run from its own start. */
    struct scale sc = {0, 1};
    int64_t span = 1;
    for (size_t i = 0; i < nres; i++) {
        const struct run *r = res[i].run;
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (size_t k = 0; k < r->nunits; k++)
            for (int e = 0; e < EV_N; e++)
                if (r->units[k].t[e] != T_NONE) {
                    if (r->units[k].t[e] < lo)
                        lo = r->units[k].t[e];
                    if (r->units[k].t[e] > hi)
                        hi = r->units[k].t[e];
                }
        if (hi > lo && hi - lo > span)
            span = hi - lo;
    }
    /* Height: known only after drawing; draw into a buffer first. */
    char *body = NULL;
    size_t body_len = 0;
    FILE *b = open_memstream(&body, &body_len);
    if (!b)
        return -1;
    double y = 10;
    for (size_t i = 0; i < nres; i++) {
        const struct run *r = res[i].run;
        int64_t lo = INT64_MAX;
        for (size_t k = 0; k < r->nunits; k++)
            for (int e = 0; e < EV_N; e++)
                if (r->units[k].t[e] != T_NONE && r->units[k].t[e] < lo)
                    lo = r->units[k].t[e];
        sc.t0 = lo == INT64_MAX ? 0 : lo;
        sc.t1 = sc.t0 + span;
        y = run_svg(b, &res[i], y, &sc);
    }
    sc.t0 = 0;
    sc.t1 = span;
    axis(b, &sc, y);
    y += 28;
    /* Legend. */
    double x = LEFT;
    fprintf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">GPU busy</text>\n",
            x, y, BUSY_COLOR, x + 16, y + 10);
    x += 90;
    for (int c = 0; c < CAUSE_N; c++, x += 130)
        fprintf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">idle: %s</text>\n",
                x, y, cause_color[c], x + 16, y + 10, cause_names[c]);
    y += 18;
    x = LEFT;
    for (int s = 0; s < ST_N; s++, x += 130)
        fprintf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
                x, y, phase_color[s], x + 16, y + 10, stage_names[s]);
    y += 24;
    fclose(b);
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\" "
            "font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            WIDTH, y, WIDTH, y);
    fwrite(body, 1, body_len, f);
    fputs("</svg>\n", f);
    free(body);
    return ferror(f) ? -1 : 0;
}
