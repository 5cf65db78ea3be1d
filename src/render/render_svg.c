/*
 * render_svg.c -- a static waterfall for READMEs and reviews, 1200 px wide.
 *
 * Per run: a lane per device (busy in blue, each idle stretch in the colour
 * of its cause), under it, when the device's units have kernel phases, its
 * kernel lane (the union of their kernel phases, the analysis' kernel
 * busy time), then the units in SYNTH_START order, each a bar of its
 * phases, the GPU phase's sub-phases drawn inside its bar (the kernel in
 * vermilion, the others each in a colour of their own).  Colours are the
 * Okabe-Ito palette (safe for colour-blind eyes).  Large inputs stay
 * small: at most 150 unit rows; past that a row stands for consecutive
 * units, and each phase's (and sub-phase's) spans in a row are merged at
 * pixel resolution before drawing, so the file grows with pixels, not
 * with units.  With a row per unit, the row's tooltip (<title>) names the
 * unit, its kind, its events (GPU_QUEUE as the log wrote it), its phases
 * and its marks.  Text from the input is XML-escaped.
 */
#include "render.h"


#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
#define KERNEL_COLOR "#D55E00"
#define LANE_BG "#F1F1F3"
/* the other sub-phases of the GPU phase, by their place in byte order */
static const char *const sub_color[] = {"#332288", "#882255", "#999933", "#555555"};
#define NSUB_COLOR (sizeof sub_color / sizeof sub_color[0])
#define KLANE_H 8
#define SUB_Y 2 /* a sub-phase: the lower part of its GPU bar */
#define TITLE_ITEMS 12 /* phases, and marks, listed in a row's tooltip */

struct dev_span {
    size_t dev;
    struct span s;
};

static int dev_span_cmp(const void *a, const void *b)
{
    const struct dev_span *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return (x->s.start > y->s.start) - (x->s.start < y->s.start);
}

struct dev_id {
    int32_t id;
    size_t dev;
};

static int dev_id_cmp(const void *a, const void *b)
{
    const struct dev_id *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

int render_kernels(const struct run_result *res, struct render_kernels *k)
{
    const struct run *r = res->run;
    k->spans = NULL;
    k->first = calloc(res->ndev + 1, sizeof *k->first);
    if (!k->first)
        return -1;
    if (!res->phase.has_kernel)
        return 0;
    /* the devices by id (a run may have many), to find each unit's */
    struct dev_id *ids = malloc((res->ndev ? res->ndev : 1) * sizeof *ids);
    struct dev_span *all = NULL;
    struct uphase *up = NULL;
    size_t n = 0, cap = 0, upcap = 0;
    int rc = -1;
    if (!ids)
        goto out;
    for (size_t i = 0; i < res->ndev; i++)
        ids[i] = (struct dev_id){res->dev[i].device, i};
    qsort(ids, res->ndev, sizeof *ids, dev_id_cmp);
    for (uint32_t u = 0; u < r->nunits; u++) {
        const struct unit *un = &r->units[u];
        if ((un->flags & U_CONTRA) || un->t[EV_GPU_START] == T_NONE || un->t[EV_GPU_END] == T_NONE)
            continue;
        if (!unit_has_phases(r, u))
            continue;
        struct dev_id key = {un->device, 0}, *d = bsearch(&key, ids, res->ndev, sizeof *ids, dev_id_cmp);
        if (!d || !res->dev[d->dev].has_kernel)
            continue;
        const struct device_result *dv = &res->dev[d->dev];
        size_t np = unit_phases(r, u, &up, &upcap);
        if (np == (size_t)-1)
            goto out;
        for (size_t j = 0; j < np; j++) {
            if (!phase_is_kernel(res, &up[j]))
                continue;
            int64_t a = up[j].start < dv->window_start ? dv->window_start : up[j].start;
            int64_t b = up[j].end > dv->window_end ? dv->window_end : up[j].end;
            if (b <= a)
                continue;
            if (n == cap) {
                size_t nc = cap ? 2 * cap : 256;
                struct dev_span *na = realloc(all, nc * sizeof *na);
                if (!na)
                    goto out;
                all = na;
                cap = nc;
            }
            all[n++] = (struct dev_span){d->dev, {a, b}};
        }
    }
    qsort(all, n, sizeof *all, dev_span_cmp);
    k->spans = malloc((n ? n : 1) * sizeof *k->spans);
    if (!k->spans)
        goto out;
    size_t m = 0;
    for (size_t i = 0; i < n;) {
        size_t dev = all[i].dev;
        struct span cur = all[i].s;
        for (i++; i < n && all[i].dev == dev && all[i].s.start <= cur.end; i++)
            if (all[i].s.end > cur.end)
                cur.end = all[i].s.end;
        k->spans[m++] = cur;
        k->first[dev + 1] = m;
    }
    for (size_t i = 1; i <= res->ndev; i++) /* devices without spans start where the one before ends */
        if (k->first[i] < k->first[i - 1])
            k->first[i] = k->first[i - 1];
    rc = 0;
out:
    free(ids);
    free(all);
    free(up);
    if (rc)
        render_kernels_free(k);
    return rc;
}

void render_kernels_free(struct render_kernels *k)
{
    free(k->spans);
    free(k->first);
    k->spans = NULL;
    k->first = NULL;
}

static int name_cmp(const struct run *r, uint32_t a, uint32_t b)
{
    size_t an, bn;
    const char *as = strtab_get(r->strs, a, &an), *bs = strtab_get(r->strs, b, &bn);
    int c = memcmp(as, bs, an < bn ? an : bn);
    return c ? c : (an > bn) - (an < bn);
}

size_t render_subphase_names(const struct run_result *res, size_t nres, uint32_t **out)
{
    size_t n = 0, cap = 0;
    uint32_t *v = NULL;
    for (size_t i = 0; i < nres; i++) {
        const struct run *r = res[i].run;
        for (size_t k = 0; k < res[i].phase.nrows; k++) {
            const struct phase_row *row = &res[i].phase.rows[k];
            if (row->within != WITHIN_GPU || row->name == PHASE_UNACCOUNTED)
                continue;
            if (phase_row_is_kernel(&res[i], row))
                continue;
            size_t j = 0;
            while (j < n && v[j] != row->name)
                j++;
            if (j < n)
                continue;
            if (n == cap) {
                uint32_t *nv = realloc(v, (cap = cap ? 2 * cap : 8) * sizeof *nv);
                if (!nv) {
                    free(v);
                    return (size_t)-1;
                }
                v = nv;
            }
            /* insertion in byte order (few names) */
            for (j = n; j > 0 && name_cmp(r, v[j - 1], row->name) > 0; j--)
                v[j] = v[j - 1];
            v[j] = row->name;
            n++;
        }
    }
    *out = v;
    return n;
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

/* Merge the pixel spans s[0..n) (reordered) and draw them on one row. */
static void merged(FILE *f, struct pxspan *s, size_t n, double y, double h, const char *color)
{
    qsort(s, n, sizeof *s, pxcmp);
    for (size_t k = 0; k < n;) {
        double a = s[k].a, b = s[k].b;
        for (k++; k < n && s[k].a <= b + 0.5; k++)
            if (s[k].b > b)
                b = s[k].b;
        rect(f, a, b, y, h, color);
    }
}

/* A time of the run for a tooltip: ms from the run's start, as few
 * digits as it needs (to the ns). */
static void at_ms(FILE *f, const struct scale *sc, int64_t t)
{
    char b[48];
    snprintf(b, sizeof b, "%.6f", (double)(t - sc->t0) / 1e6);
    size_t n = strlen(b);
    while (n > 0 && b[n - 1] == '0')
        n--;
    if (n > 0 && b[n - 1] == '.')
        n--;
    fprintf(f, "%.*s ms", (int)n, b);
}

/* A unit's tooltip: the job id (first, as tests find it), partition and
 * kind; its events at their times (ms from the run's start, CHAN_SEND as
 * GPU_QUEUE where the log wrote that); its phases and marks. */
static void unit_title(FILE *f, const struct run *r, uint32_t ui, const struct scale *sc, const struct uphase *up,
                       size_t np)
{
    const struct unit *u = &r->units[ui];
    markup_text(f, r->jobs[u->job].id, r->jobs[u->job].len);
    if (u->partition >= 0)
        fprintf(f, " partition %d", u->partition);
    size_t kl;
    const char *kind = unit_attr(r, ui, "kind", &kl);
    if (kind) {
        fputs(" \xc2\xb7 kind ", f);
        markup_text(f, kind, kl);
    }
    int first = 1;
    for (int e = 0; e < EV_N; e++) {
        if (u->t[e] == T_NONE)
            continue;
        fputs(first ? "\n" : " \xc2\xb7 ", f);
        first = 0;
        fputs(e == EV_CHAN_SEND && (u->flags & U_QUEUE) ? "GPU_QUEUE" : ev_names[e], f);
        fputc(' ', f);
        at_ms(f, sc, u->t[e]);
    }
    for (int mark = 0; mark < 2; mark++) {
        size_t shown = 0, all = 0;
        for (size_t j = 0; j < np; j++) {
            if (!up[j].mark != !mark)
                continue;
            if (all++ >= TITLE_ITEMS)
                continue;
            fputs(shown++ ? " \xc2\xb7 " : "\n", f);
            size_t nl;
            const char *nm = uphase_name(r, &up[j], &nl);
            markup_text(f, nm, nl);
            if (mark) {
                fputs(" at ", f);
                at_ms(f, sc, up[j].start);
            } else {
                char d[32];
                fprintf(f, " %s", fmt_dur(d, sizeof d, (double)(up[j].end - up[j].start)));
                if (up[j].within != WITHIN_GPU)
                    fprintf(f, " (in %s)", up[j].within == WITHIN_SYNTHESIS ? "synthesis" : "the unit");
            }
        }
        if (all > shown)
            fprintf(f, " \xc2\xb7 %zu more %s", all - shown, mark ? "marks" : "phases");
    }
}

struct subspan {
    int cls; /* 0: the kernel, else 1 + its name's place among subn */
    struct pxspan s;
};

static int subcmp(const void *x, const void *y)
{
    const struct subspan *p = x, *q = y;
    if (p->cls != q->cls)
        return p->cls - q->cls;
    return (p->s.a > q->s.a) - (p->s.a < q->s.a);
}

/* A kernel lane: the spans (disjoint, in time order) as drawn at pixel
 * resolution: a span of whole pixels is one rectangle, a pixel column
 * partly covered is shaded by how much (fill-opacity in sixteenths), and
 * equal neighbouring columns are one rectangle; so the file grows with
 * pixels, not with kernels, and the area drawn stays the kernel time. */
static void kernel_lane(FILE *f, const struct scale *sc, const struct span *k, size_t n, double y)
{
    double cov[PLOT + 1] = {0};
    for (size_t i = 0; i < n; i++) {
        double a = px(sc, k[i].start) - LEFT, b = px(sc, k[i].end) - LEFT;
        int i0 = (int)a, i1 = (int)b;
        if (i0 == i1) {
            cov[i0] += b - a;
            continue;
        }
        cov[i0] += i0 + 1 - a;
        for (int c = i0 + 1; c < i1; c++)
            cov[c] += 1;
        cov[i1] += b - i1;
    }
    for (int c = 0; c < PLOT;) {
        int lv = (int)lround(16 * (cov[c] > 1 ? 1 : cov[c]));
        if (lv == 0 && cov[c] > 0)
            lv = 1; /* every kernel stays visible */
        int e = c + 1;
        while (e < PLOT && (int)lround(16 * (cov[e] > 1 ? 1 : cov[e])) == lv && !(lv == 0 && cov[e] > 0))
            e++;
        if (lv == 16)
            fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", LEFT + c, y, e - c,
                    KLANE_H, KERNEL_COLOR);
        else if (lv > 0)
            fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"%s\" fill-opacity=\"%.4g\"/>\n",
                    LEFT + c, y, e - c, KLANE_H, KERNEL_COLOR, lv / 16.0);
        c = e;
    }
}

/* The run's heading: its source, its GPU (and kernel) utilization, its
 * bottleneck and its count of units. */
static double svg_heading(FILE *f, const struct run_result *res, double y)
{
    const struct run *r = res->run;
    fprintf(f, "<text x=\"10\" y=\"%.1f\" font-weight=\"bold\">", y + 14);
    markup_text(f, r->source, strlen(r->source));
    if (isnan(res->utilization))
        fprintf(f, " run %d: GPU utilization unknown (no window)", r->index);
    else
        fprintf(f, " run %d: GPU utilization %.1f%%", r->index, 100 * res->utilization);
    if (res->phase.has_kernel && !isnan(res->phase.kernel_utilization))
        fprintf(f, ", kernel utilization %.1f%%", 100 * res->phase.kernel_utilization);
    if (res->bottleneck)
        fprintf(f, ", bottleneck %s", bottleneck_names[res->bottleneck]);
    fprintf(f, ", %llu units</text>\n", (unsigned long long)res->units);
    return y + 24;
}

/* A device's kernel lane, under its lane: its label, its window's
 * background and its kernel spans k[0..n). */
static double svg_kernel_lane(FILE *f, const struct device_result *dv, const struct scale *sc, const struct span *k,
                              size_t n, double y)
{
    fprintf(f, "<g class=\"kernel-lane\" data-device=\"%d\">", dv->device);
    fprintf(f, "<text x=\"20\" y=\"%.1f\" font-size=\"9\">kernels", y + 7);
    if (!isnan(dv->kernel_utilization))
        fprintf(f, " (%.1f%%)", 100 * dv->kernel_utilization);
    fputs("</text>\n", f);
    rect(f, px(sc, dv->window_start), px(sc, dv->window_end), y, KLANE_H, LANE_BG);
    kernel_lane(f, sc, k, n, y);
    fputs("</g>\n", f);
    return y + KLANE_H + 4;
}

/* The device lanes: busy over the device's window, each idle stretch in
 * its cause's colour, each with its kernel lane under it.  -1 when out of
 * memory (nothing drawn). */
static int svg_device_lanes(FILE *f, const struct run_result *res, const struct scale *sc, double *y)
{
    struct render_kernels kern = {0};
    if (render_kernels(res, &kern))
        return -1;
    for (size_t d = 0; d < res->ndev; d++) {
        const struct device_result *dv = &res->dev[d];
        if (isnan(dv->utilization))
            fprintf(f, "<text x=\"10\" y=\"%.1f\">GPU %d</text>\n", *y + 12, dv->device);
        else
            fprintf(f, "<text x=\"10\" y=\"%.1f\">GPU %d (%.1f%%)</text>\n", *y + 12, dv->device,
                    100 * dv->utilization);
        if (dv->units)
            rect(f, px(sc, dv->window_start), px(sc, dv->window_end), *y, LANE_H, BUSY_COLOR);
        for (size_t i = 0; i < dv->nsegs; i++)
            rect(f, px(sc, dv->segs[i].start), px(sc, dv->segs[i].end), *y, LANE_H,
                 cause_color[dv->segs[i].cause]);
        *y += LANE_H + 4;
        if (dv->has_kernel)
            *y = svg_kernel_lane(f, dv, sc, kern.spans + kern.first[d], kern.first[d + 1] - kern.first[d], *y);
    }
    render_kernels_free(&kern);
    return 0;
}

/* The unit rows' buffers, reused from row to row. */
struct rowbuf {
    struct pxspan *spans; /* one per unit */
    struct uphase *up;
    size_t upcap;
    struct subspan *subs;
    struct pxspan *sp2;
    size_t subcap;
};

/* A row's bars: each phase's spans over the row's units u[0..n), merged. */
static void svg_row_phases(FILE *f, const struct unit *const *u, size_t n, const struct scale *sc,
                           struct pxspan *spans, double y)
{
    for (int ph = 0; ph < ST_N; ph++) {
        size_t ns = 0;
        for (size_t k = 0; k < n; k++) {
            int64_t from[ST_N], to[ST_N];
            phases(u[k], from, to);
            if (from[ph] != T_NONE && to[ph] != T_NONE && to[ph] >= from[ph])
                spans[ns++] = (struct pxspan){px(sc, from[ph]), px(sc, to[ph])};
        }
        merged(f, spans, ns, y, ROW_H, phase_color[ph]);
    }
}

/* Unit ui's sub-phases of the GPU phase, added to rb->subs[0..*nsubs) by
 * colour class (the kernel's last).  -1 when its phases could not be read. */
static int svg_unit_subs(const struct run_result *res, uint32_t ui, const struct scale *sc, const uint32_t *subn,
                         size_t nsub, struct rowbuf *rb, size_t *nsubs)
{
    const struct run *r = res->run;
    size_t np = unit_phases(r, ui, &rb->up, &rb->upcap);
    if (np == (size_t)-1)
        return -1;
    for (size_t j = 0; j < np; j++) {
        const struct uphase *p = &rb->up[j];
        if (p->mark || p->within != WITHIN_GPU)
            continue;
        int cls = -1;
        if (phase_is_kernel(res, p))
            cls = (int)nsub + 1;
        else
            for (size_t m = 0; m < nsub; m++)
                if (subn[m] == p->name)
                    cls = (int)m + 1;
        if (cls < 0)
            continue;
        if (*nsubs == rb->subcap) {
            size_t nc = rb->subcap ? 2 * rb->subcap : 64;
            struct subspan *ns2 = realloc(rb->subs, nc * sizeof *ns2);
            struct pxspan *np2 = ns2 ? realloc(rb->sp2, nc * sizeof *np2) : NULL;
            if (ns2)
                rb->subs = ns2;
            if (!np2)
                break; /* out of memory: the unit's other sub-phases are left out */
            rb->sp2 = np2;
            rb->subcap = nc;
        }
        rb->subs[(*nsubs)++] = (struct subspan){cls, {px(sc, p->start), px(sc, p->end)}};
    }
    return 0;
}

/* A row's sub-phases of the GPU phase, inside its bar: each colour's spans
 * over the row's units u[0..n) merged, the kernel's last (on top). */
static void svg_row_subphases(FILE *f, const struct run_result *res, const struct unit *const *u, size_t n,
                              const struct scale *sc, const uint32_t *subn, size_t nsub, struct rowbuf *rb, double y)
{
    size_t nsubs = 0;
    for (size_t k = 0; k < n; k++)
        if (svg_unit_subs(res, (uint32_t)(u[k] - res->run->units), sc, subn, nsub, rb, &nsubs))
            break;
    if (!nsubs)
        return;
    qsort(rb->subs, nsubs, sizeof *rb->subs, subcmp);
    fputs("<g class=\"subphases\">", f);
    for (size_t k = 0; k < nsubs;) {
        size_t e = k;
        while (e < nsubs && rb->subs[e].cls == rb->subs[k].cls)
            e++;
        for (size_t m = k; m < e; m++)
            rb->sp2[m - k] = rb->subs[m].s;
        const char *c = rb->subs[k].cls == (int)nsub + 1 ? KERNEL_COLOR : sub_color[(rb->subs[k].cls - 1) % NSUB_COLOR];
        merged(f, rb->sp2, e - k, y + SUB_Y, ROW_H - SUB_Y, c);
        k = e;
    }
    fputs("</g>\n", f);
}

/* A row's tooltip (a row per unit): an invisible rectangle over the row, on
 * top, that takes the pointer (a browser gives the pointer to painted shapes
 * only, unless pointer-events says otherwise), with no outline in any
 * renderer. */
static void svg_row_title(FILE *f, const struct run *r, uint32_t ui, const struct scale *sc, struct rowbuf *rb,
                          double y)
{
    size_t np = run_has_phases(r) ? unit_phases(r, ui, &rb->up, &rb->upcap) : 0;
    if (np == (size_t)-1)
        np = 0;
    fprintf(f,
            "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"none\" "
            "pointer-events=\"all\"><title>",
            LEFT, y, PLOT, ROW_H);
    unit_title(f, r, ui, sc, rb->up, np);
    fputs("</title></rect>\n", f);
}

/* The unit rows, in SYNTH_START order: at most MAX_ROWS, a row standing
 * for consecutive units past that; each its phases' bars, its GPU phase's
 * sub-phases, and with a row per unit its tooltip. */
static double svg_unit_rows(FILE *f, const struct run_result *res, double y, const struct scale *sc,
                            const uint32_t *subn, size_t nsub)
{
    const struct run *r = res->run;
    const struct unit **order = malloc((r->nunits ? r->nunits : 1) * sizeof *order);
    struct rowbuf rb = {malloc((r->nunits ? r->nunits : 1) * sizeof *rb.spans), NULL, 0, NULL, NULL, 0};
    if (!order || !rb.spans) {
        free(order);
        free(rb.spans);
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
        svg_row_phases(f, order + lo, hi - lo, sc, rb.spans, y);
        if (run_has_phases(r))
            svg_row_subphases(f, res, order + lo, hi - lo, sc, subn, nsub, &rb, y);
        if (per_row == 1)
            svg_row_title(f, r, (uint32_t)(order[lo] - r->units), sc, &rb, y);
        y += ROW_H + 1;
    }
    free(order);
    free(rb.spans);
    free(rb.up);
    free(rb.subs);
    free(rb.sp2);
    return y + 8;
}

/* One run: its heading, its device lanes, its unit rows. */
static double run_svg(FILE *f, const struct run_result *res, double y, const struct scale *sc, const uint32_t *subn,
                      size_t nsub)
{
    y = svg_heading(f, res, y);
    if (svg_device_lanes(f, res, sc, &y))
        return y;
    return svg_unit_rows(f, res, y + 6, sc, subn, nsub);
}

/* A legend's colour swatch at (x, y) and the start of its label (the
 * caller writes the label and </text>). */
static void swatch(FILE *f, double x, double y, const char *color)
{
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">", x, y,
            color, x + 16, y + 10);
}

/* The legend's row of the GPU phase's sub-phases: the others by name,
 * then the kernel (where any run has kernel phases), wrapping at the
 * right edge. */
static double svg_legend_inside_gpu(FILE *f, const struct run_result *res, const uint32_t *subn, size_t nsub,
                                    int any_kernel, double y)
{
    double x = LEFT;
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">inside gpu:</text>\n", x, y + 10);
    x += 70;
    for (size_t i = 0; i < nsub + (any_kernel != 0); i++) {
        if (i < nsub) {
            size_t nl;
            const char *nm = strtab_get(res[0].run->strs, subn[i], &nl);
            swatch(f, x, y, sub_color[i % NSUB_COLOR]);
            markup_text(f, nm, nl - 6); /* _START */
        } else {
            swatch(f, x, y, KERNEL_COLOR);
            const char *kn = res[0].kernel_phase;
            markup_text(f, kn, strlen(kn));
            fputs(" (kernel)", f);
        }
        fputs("</text>\n", f);
        x += 130;
        if (x > WIDTH - 130) {
            x = LEFT + 70;
            y += 18;
        }
    }
    return y + 18;
}

/* The legend: GPU busy and the idle causes, the phases, and the GPU
 * phase's sub-phases where there are any. */
static double svg_legend(FILE *f, const struct run_result *res, size_t nres, const uint32_t *subn, size_t nsub,
                         double y)
{
    double x = LEFT;
    swatch(f, x, y, BUSY_COLOR);
    fputs("GPU busy</text>\n", f);
    x += 90;
    for (int c = 0; c < CAUSE_N; c++, x += 130) {
        swatch(f, x, y, cause_color[c]);
        fprintf(f, "idle: %s</text>\n", cause_names[c]);
    }
    y += 18;
    x = LEFT;
    for (int s = 0; s < ST_N; s++, x += 130) {
        swatch(f, x, y, phase_color[s]);
        fprintf(f, "%s</text>\n", stage_names[s]);
    }
    y += 18;
    int any_kernel = 0;
    for (size_t i = 0; i < nres; i++)
        any_kernel |= res[i].phase.has_kernel;
    if (any_kernel || nsub)
        y = svg_legend_inside_gpu(f, res, subn, nsub, any_kernel, y);
    return y;
}

int render_svg(FILE *f, const struct run_result *res, size_t nres)
{
    /* One time scale for all runs: each run from its own start, as long as the longest. */
    int64_t span = 1, lo, hi;
    for (size_t i = 0; i < nres; i++) {
        run_bounds(res[i].run, &lo, &hi);
        if (hi > lo && hi - lo > span)
            span = hi - lo;
    }
    /* Height: known only after drawing; draw into a buffer first. */
    char *body = NULL;
    size_t body_len = 0;
    FILE *b = open_memstream(&body, &body_len);
    if (!b)
        return -1;
    uint32_t *subn = NULL;
    size_t nsub = render_subphase_names(res, nres, &subn);
    if (nsub == (size_t)-1) {
        fclose(b);
        free(body);
        return -1;
    }
    double y = 10;
    for (size_t i = 0; i < nres; i++) {
        run_bounds(res[i].run, &lo, &hi);
        y = run_svg(b, &res[i], y, &(struct scale){lo, lo + span}, subn, nsub);
    }
    axis(b, &(struct scale){0, span}, y);
    y = svg_legend(b, res, nres, subn, nsub, y + 28);
    free(subn);
    y += 6;
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
