/*
 * render_html.c -- the interactive view: one self-contained HTML page that
 * draws the waterfall on a <canvas> (zoom, pan, a tooltip per unit) and
 * shows each run's summary beside it.
 *
 * The page is the script and style of src/render/html/ (embedded at build time,
 * see src/render/html/embed.cmake) and the data, written here as one JSON object
 * in a <script type="application/json"> element.  The bulk of it, the six
 * times and four ids of every unit, goes as columns of integers, each in
 * base64 with the fewest bytes its range needs (column()), which the
 * script decodes into typed arrays: compact to write, quick to read, 100k
 * units make about 3.4 MB.  Times are in a quantum q (ns) that divides
 * them all (1e6 for a log in milliseconds): each unit's row key as the
 * step from the previous unit's, each event as its offset from the key.
 * A run whose times overflow that (absurd input) goes as Float64 ns.
 *
 * A unit's phases and marks (phase.h) go the same way, one list per run
 * in row order (row step, name, within, start after the unit's key,
 * length), their names once in a table for the page; a unit gives at most
 * MAX_UNIT_PHASES phases and MAX_UNIT_MARKS marks (the count of the rest
 * goes instead), so the page grows with units, not with a chatty log's
 * events.  Kinds (kind=) go as a table and a column of indexes, GPU_QUEUE
 * (a CHAN_SEND the log wrote so) as a column of 0 and 1, each device's
 * kernel time (the union of its kernel phases, render_kernels()) like its
 * idle stretches; none of them when the run has none.
 *
 * Job ids come from untrusted logs.  Every string is JSON-escaped so that
 * it cannot end its <script> element (`<`, `>`, `&` as \u003c...; U+2028
 * and U+2029 escaped; bytes that are not UTF-8 become U+FFFD); the script
 * puts text into the page with textContent only; and a Content-Security-
 * Policy allows the page's one script (by its hash) and no fetch at all.
 *
 * The summary's sentences are the text report's: explain.c words the
 * bottleneck, and the advice here follows its advice lines.
 */
#include "render.h"

#include "waterfall_version.h"
#include "explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* src/render/html/view.js and view.css, and the script's CSP hash (generated). */
extern const char wf_html_js[], wf_html_css[], wf_html_script_hash[];
extern const size_t wf_html_js_len, wf_html_css_len;

#define MAX_UNIT_PHASES 32
#define MAX_UNIT_MARKS 16

static void jstr0(FILE *f, const char *s)
{
    json_str(f, s, strlen(s));
}

/* Base64, buffered. */
struct b64 {
    FILE *f;
    unsigned char in[3];
    int n;
    char out[4096];
    size_t len;
};

static const char b64_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void b64_flush(struct b64 *b)
{
    fwrite(b->out, 1, b->len, b->f);
    b->len = 0;
}

static void b64_quad(struct b64 *b, int nin)
{
    uint32_t v = (uint32_t)b->in[0] << 16 | (uint32_t)(nin > 1 ? b->in[1] : 0) << 8 | (nin > 2 ? b->in[2] : 0);
    char *o = b->out + b->len;
    o[0] = b64_alphabet[v >> 18 & 63];
    o[1] = b64_alphabet[v >> 12 & 63];
    o[2] = nin > 1 ? b64_alphabet[v >> 6 & 63] : '=';
    o[3] = nin > 2 ? b64_alphabet[v & 63] : '=';
    b->len += 4;
    if (b->len + 4 > sizeof b->out)
        b64_flush(b);
}

static void b64_byte(struct b64 *b, unsigned char c)
{
    b->in[b->n++] = c;
    if (b->n == 3) {
        b64_quad(b, 3);
        b->n = 0;
    }
}

static void b64_begin(struct b64 *b, FILE *f)
{
    b->f = f;
    b->n = 0;
    b->len = 0;
    fputc('"', f);
}

static void b64_end(struct b64 *b)
{
    if (b->n)
        b64_quad(b, b->n);
    b64_flush(b);
    fputc('"', b->f);
}

static void b64_f64(struct b64 *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    for (int i = 0; i < 8; i++)
        b64_byte(b, (unsigned char)(u >> 8 * i));
}

/* A column of integers, as compact as its range allows: {"o": the least,
 * "w": bytes per value, "d": base64 of each value - o, little-endian};
 * w = 8: as Float64 (exact up to 2^53); w = 0: all are o, no data. */
static void column(FILE *f, const int64_t *v, size_t n)
{
    int64_t lo = n ? v[0] : 0, hi = lo;
    for (size_t i = 1; i < n; i++) {
        if (v[i] < lo)
            lo = v[i];
        if (v[i] > hi)
            hi = v[i];
    }
    uint64_t range = (uint64_t)hi - (uint64_t)lo;
    int w = range == 0 ? 0 : range < 0x100 ? 1 : range < 0x10000 ? 2 : range <= 0xffffffff ? 4 : 8;
    fprintf(f, "{\"o\":%lld,\"w\":%d,\"n\":%zu,\"d\":", (long long)lo, w, n);
    struct b64 b;
    b64_begin(&b, f);
    for (size_t i = 0; i < n; i++) {
        uint64_t x = (uint64_t)v[i] - (uint64_t)lo;
        if (w == 8)
            b64_f64(&b, (double)x);
        else
            for (int k = 0; k < w; k++)
                b64_byte(&b, (unsigned char)(x >> 8 * k));
    }
    b64_end(&b);
    fputc('}', f);
}

/* How a run's times are written: in a quantum q (ns) that divides them
 * all, from t0, the run's first time drawn.  wide: the run's times are so
 * far apart that t - t0 overflows int64 (absurd input); they go as
 * Float64 ns instead, computed in doubles. */
struct tenc {
    int64_t t0, q;
    int wide;
};

static double rel(const struct tenc *e, int64_t t)
{
    return e->wide ? (double)t - (double)e->t0 : (double)(t - e->t0);
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* The units drawn, in row order: by SYNTH_START (their first event where
 * it is missing), ties by their place in the model. */
struct row {
    int64_t key;
    size_t unit;
};

static int row_cmp(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->unit > y->unit) - (x->unit < y->unit);
}

static int64_t first_event(const struct unit *u)
{
    int64_t lo = INT64_MAX;
    for (int e = 0; e < EV_N; e++)
        if (u->t[e] != T_NONE && u->t[e] < lo)
            lo = u->t[e];
    return lo;
}

/* t0 (the run's first time drawn), the quantum and the encoding. */
static struct tenc time_encoding(const struct run_result *res, const struct row *rows, size_t n)
{
    const struct run *r = res->run;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
#define SEE(t)                                                                                                         \
    do {                                                                                                               \
        if ((t) < lo)                                                                                                  \
            lo = (t);                                                                                                  \
        if ((t) > hi)                                                                                                  \
            hi = (t);                                                                                                  \
    } while (0)
    for (size_t i = 0; i < n; i++)
        for (int e = 0; e < EV_N; e++)
            if (r->units[rows[i].unit].t[e] != T_NONE)
                SEE(r->units[rows[i].unit].t[e]);
    for (size_t d = 0; d < res->ndev; d++)
        for (size_t s = 0; s < res->dev[d].nsegs; s++) {
            SEE(res->dev[d].segs[s].start);
            SEE(res->dev[d].segs[s].end);
        }
    for (size_t x = 0; x < r->nxev; x++) /* phases and marks (kernel spans are theirs, clipped to windows) */
        if (!(r->units[r->xev[x].unit].flags & U_CONTRA))
            SEE(r->xev[x].t);
    for (size_t u = 0; u < r->nunits; u++) { /* duration lines' phases */
        size_t first, k = unit_dphases(r, (uint32_t)u, &first);
        for (size_t x = first; x < first + k && !(r->units[u].flags & U_CONTRA); x++) {
            SEE(r->dur.ph[x].a);
            SEE(r->dur.ph[x].b);
        }
    }
#undef SEE
    struct tenc e = {lo == INT64_MAX ? 0 : lo, 1, 0};
    if (lo == INT64_MAX)
        return e;
    if (lo < 0 && hi > INT64_MAX + lo) {
        e.wide = 1;
        return e;
    }
    int64_t g = 0;
    for (size_t i = 0; i < n && g != 1; i++)
        for (int k = 0; k < EV_N; k++)
            if (r->units[rows[i].unit].t[k] != T_NONE)
                g = gcd64(r->units[rows[i].unit].t[k] - lo, g);
    for (size_t d = 0; d < res->ndev && g != 1; d++)
        for (size_t s = 0; s < res->dev[d].nsegs; s++)
            g = gcd64(gcd64(res->dev[d].segs[s].start - lo, g), res->dev[d].segs[s].end - lo);
    for (size_t x = 0; x < r->nxev && g != 1; x++)
        if (!(r->units[r->xev[x].unit].flags & U_CONTRA))
            g = gcd64(r->xev[x].t - lo, g);
    for (size_t u = 0; u < r->nunits && g != 1; u++) {
        size_t first, k = unit_dphases(r, (uint32_t)u, &first);
        for (size_t x = first; x < first + k && !(r->units[u].flags & U_CONTRA); x++)
            g = gcd64(gcd64(r->dur.ph[x].a - lo, g), r->dur.ph[x].b - lo);
    }
    e.q = g > 0 ? g : 1;
    return e;
}

/* ,"key": and the string s */
static void jkey_str(FILE *f, const char *key, const char *s)
{
    fprintf(f, ",\"%s\":", key);
    jstr0(f, s);
}

/* ,"key": and the number v */
static void jkey_num(FILE *f, const char *key, double v)
{
    fprintf(f, ",\"%s\":", key);
    json_num(f, v);
}

/* ,"key":[...]: the lines s[0..n), the first always, the others where not empty */
static void jkey_lines(FILE *f, const char *key, const char *const *s, size_t n)
{
    fprintf(f, ",\"%s\":[", key);
    jstr0(f, s[0]);
    for (size_t i = 1; i < n; i++)
        if (s[i][0]) {
            fputc(',', f);
            jstr0(f, s[i]);
        }
    fputs("]", f);
}

/* The summary's warnings: what went wrong in the input, as the text report words it. */
static void summary_warnings(FILE *f, const struct run_result *res)
{
    const struct run *r = res->run;
    char line[640];
    fputs(",\"warnings\":[", f);
    int first = 1;
    struct {
        uint64_t n;
        const char *one, *many;
    } warn[] = {{res->in_flight, "in flight (no GPU_END when the log ends)", NULL},
                {r->skipped_lines, "line skipped", "lines skipped"},
                {r->duplicates, "duplicate event", "duplicate events"},
                {res->inconsistent, "inconsistent unit left out", "inconsistent units left out"},
                {r->lost_events, "event lost while recording", "events lost while recording"},
                {r->damaged_bytes, "byte of the trace damaged and skipped", "bytes of the trace damaged and skipped"}};
    for (size_t i = 0; i < sizeof warn / sizeof warn[0]; i++)
        if (warn[i].n) {
            snprintf(line, sizeof line, "%llu %s", (unsigned long long)warn[i].n,
                     warn[i].n == 1 || !warn[i].many ? warn[i].one : warn[i].many);
            fputs(first ? "" : ",", f);
            jstr0(f, line);
            first = 0;
        }
    fputs("]", f);
}

/* The summary's utilization: the GPU's, and with kernel phases the
 * kernels' and what fills the rest of the GPU phase (the text report's lines). */
static void summary_util(FILE *f, const struct run_result *res)
{
    char b1[32], b2[32], b3[32], line[640];
    int64_t fill = INT64_MAX;
    for (size_t i = 0; i < res->ndev; i++)
        if (res->dev[i].units && res->dev[i].fill < fill)
            fill = res->dev[i].fill;
    jkey_num(f, "util", res->utilization);
    char fills[64];
    if (fill >= 0)
        snprintf(fills, sizeof fills, "%s of pipeline fill before",
                 fmt_dur(b3, sizeof b3, fill == INT64_MAX ? NAN : (double)fill));
    else
        snprintf(fills, sizeof fills, "no SYNTH_START: pipeline fill unknown");
    snprintf(line, sizeof line, "busy %s of a %s window%s (%s)", fmt_dur(b1, sizeof b1, (double)res->busy),
             fmt_dur(b2, sizeof b2, (double)res->window), res->ndev > 1 ? " over all devices" : "", fills);
    jkey_str(f, "util_text", line);
    if (!res->phase.has_kernel)
        return;
    char fillb[256];
    jkey_num(f, "kutil", res->phase.kernel_utilization);
    const char *kn = res->kernel_phase;
    size_t kl = strlen(kn);
    snprintf(line, sizeof line, "%.*s phases busy %s of the same window", (int)(kl < 64 ? kl : 64), kn,
             fmt_dur(b1, sizeof b1, (double)res->phase.kernel_busy));
    jkey_str(f, "kernel_text", line);
    jkey_str(f, "fill_text", report_phase_fill(fillb, sizeof fillb, res));
}

/* The summary's idle time: its gaps, and each cause's share in the text report's order. */
static void summary_idle(FILE *f, const struct run_result *res)
{
    char b1[32], line[640];
    idle_sentence(line, sizeof line, res);
    jkey_str(f, "idle_text", line);
    jkey_num(f, "idle", (double)res->idle);
    static const int order[CAUSE_N] = {CAUSE_SYNTHESIS, CAUSE_QUEUE, CAUSE_PREP, CAUSE_NO_WORK};
    fputs(",\"causes\":[", f);
    for (int k = 0; k < CAUSE_N; k++) {
        int c = order[k];
        fprintf(f, "%s{\"cause\":%d,\"ns\":", k ? "," : "", c);
        json_num(f, (double)res->by_cause[c]);
        jkey_str(f, "text", fmt_dur(b1, sizeof b1, (double)res->by_cause[c]));
        jkey_num(f, "pct", res->idle > 0 ? 100.0 * (double)res->by_cause[c] / (double)res->idle : 0);
        fputs("}", f);
    }
    fputs("]", f);
}

/* The summary's verdict: the bottleneck, the advice (the text report's two
 * lines), the throughput and the CPU's lines. */
static void summary_verdict(FILE *f, const struct run_result *res)
{
    char b1[32], b2[32], line[640], l2[512], l3[512];
    jkey_str(f, "bottleneck", bottleneck_names[res->bottleneck]);
    jkey_str(f, "bottleneck_text", bottleneck_sentence(line, sizeof line, res));
    report_advice_lines(res, line, sizeof line, l2, sizeof l2);
    jkey_lines(f, "advice", (const char *const[]){line, l2}, 2);
    char mean[48] = " (no GPU window for a mean)";
    if (isfinite(res->synth_mean_active))
        snprintf(mean, sizeof mean, ", mean %.2f over the GPU window", res->synth_mean_active);
    snprintf(line, sizeof line, "%s per job, steady %s per job; synthesis concurrency max %d%s",
             fmt_dur(b1, sizeof b1, res->s_per_job >= 0 ? res->s_per_job : NAN),
             fmt_dur(b2, sizeof b2, res->steady_s_per_job >= 0 ? res->steady_s_per_job : NAN), res->synth_max, mean);
    jkey_str(f, "throughput", line);
    report_cpu_lines(&res->cpu, line, sizeof line, l2, sizeof l2, l3, sizeof l3);
    jkey_lines(f, "cpu", (const char *const[]){line, l2, l3}, 3);
    if (res->run && memory_sentence(line, sizeof line, &res->run->mem))
        jkey_str(f, "memory", line);
}

/* The summary's stage table: each stage's count, then its mean and percentiles. */
static void summary_stages(FILE *f, const struct run_result *res)
{
    char b1[32];
    fputs(",\"stages\":[", f);
    for (int k = 0; k < ST_N; k++) {
        const struct stage_stats *st = &res->stage[k];
        fprintf(f, "%s[%d,%llu", k ? "," : "", k, (unsigned long long)st->count);
        const double v[] = {st->mean, st->p50, st->p90, st->p99, st->max};
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
            fputc(',', f);
            jstr0(f, st->count ? fmt_dur(b1, sizeof b1, v[i]) : "-");
        }
        fputs("]", f);
    }
    fputs("]", f);
}

/* A run's summary beside its waterfall: the counts and warnings, then
 * (where a GPU was measured) the text report's figures and sentences. */
static void summary(FILE *f, const struct run_result *res)
{
    fprintf(f, "{\"units\":%llu,\"jobs\":%llu,\"jobs_completed\":%llu", (unsigned long long)res->units,
            (unsigned long long)res->jobs, (unsigned long long)res->jobs_completed);
    summary_warnings(f, res);
    if (res->bottleneck == BN_NONE) {
        jkey_str(f, "none", "no unit has both GPU_START and GPU_END: nothing to measure on a GPU yet");
        fputs("}", f);
        return;
    }
    summary_util(f, res);
    summary_idle(f, res);
    summary_verdict(f, res);
    summary_stages(f, res);
    fputs("}", f);
}

/* The i-th of a device's idle stretches, as a span (for spans_json). */
static struct span seg_at(const void *v, size_t i)
{
    const struct idle_seg *s = (const struct idle_seg *)v + i;
    return (struct span){s->start, s->end};
}

/* The i-th of a device's kernel spans (for spans_json). */
static struct span span_at(const void *v, size_t i)
{
    return ((const struct span *)v)[i];
}

/* The n spans [start, end) at(items, 0..n) as the page reads them:
 * Float64 ns pairs from t0 (wide), or columns in q: the gap since the
 * previous one's end (the first: since t0), and the length. */
static int spans_json(FILE *f, const struct tenc *e, const void *items, size_t n,
                      struct span (*at)(const void *, size_t))
{
    if (e->wide) {
        struct b64 b;
        b64_begin(&b, f);
        for (size_t s = 0; s < n; s++) {
            b64_f64(&b, rel(e, at(items, s).start));
            b64_f64(&b, rel(e, at(items, s).end));
        }
        b64_end(&b);
        return 0;
    }
    int64_t *v = calloc(n ? n : 1, sizeof *v);
    if (!v)
        return -1;
    int64_t prev = e->t0;
    for (size_t s = 0; s < n; s++) {
        v[s] = (at(items, s).start - prev) / e->q;
        prev = at(items, s).end;
    }
    fputs("{\"gap\":", f);
    column(f, v, n);
    for (size_t s = 0; s < n; s++)
        v[s] = (at(items, s).end - at(items, s).start) / e->q;
    fputs(",\"len\":", f);
    column(f, v, n);
    fputc('}', f);
    free(v);
    return 0;
}

/* A device: its workers and figures, its idle stretches by cause, and
 * where its units have kernel phases its kernel lane. */
static int device(FILE *f, const struct device_result *d, const struct tenc *e, const struct span *kern, size_t nkern)
{
    char b1[32];
    fprintf(f, "{\"id\":%d,\"workers\":[", d->device);
    for (size_t w = 0; w < d->nworkers; w++)
        fprintf(f, "%s%d", w ? "," : "", d->workers[w]);
    fprintf(f, "],\"units\":%llu", (unsigned long long)d->units);
    jkey_num(f, "util", d->utilization);
    jkey_num(f, "ws", d->units ? rel(e, d->window_start) : NAN);
    jkey_num(f, "we", d->units ? rel(e, d->window_end) : NAN);
    jkey_str(f, "busy", fmt_dur(b1, sizeof b1, (double)d->busy));
    jkey_str(f, "idle", fmt_dur(b1, sizeof b1, (double)d->idle));
    fputs(",\"by_cause\":[", f);
    for (int c = 0; c < CAUSE_N; c++) {
        fputs(c ? "," : "", f);
        jstr0(f, fmt_dur(b1, sizeof b1, (double)d->by_cause[c]));
    }
    fputs("],\"segs\":", f);
    if (spans_json(f, e, d->segs, d->nsegs, seg_at))
        return -1;
    fputs(",\"seg_causes\":\"", f);
    for (size_t s = 0; s < d->nsegs; s++)
        fputc('0' + d->segs[s].cause, f);
    fputc('"', f);
    if (d->has_kernel) {
        /* its kernel lane: the union of its kernel phases */
        jkey_num(f, "kutil", d->kernel_utilization);
        jkey_str(f, "kbusy", fmt_dur(b1, sizeof b1, (double)d->kernel_busy));
        fputs(",\"kern\":", f);
        if (spans_json(f, e, kern, nkern, span_at))
            return -1;
    }
    fputc('}', f);
    return 0;
}

/* The names of the phases and marks on the page, one table for all runs:
 * a phase by its START event's id, a mark by its own. */
struct names {
    int32_t *idx; /* [2 * id + mark]: its place in the table, or -1 */
    size_t nidx;
    uint32_t *id;
    unsigned char *mark;
    size_t n, cap;
};

static int32_t name_index(struct names *nm, const struct run *r, const struct uphase *p)
{
    size_t nstr = r->strs->n;
    if (nm->nidx < 2 * nstr) {
        int32_t *ni = realloc(nm->idx, 2 * nstr * sizeof *ni);
        if (!ni)
            return -1;
        for (size_t i = nm->nidx; i < 2 * nstr; i++)
            ni[i] = -1;
        nm->idx = ni;
        nm->nidx = 2 * nstr;
    }
    size_t k = 2 * (size_t)p->name + (p->mark != 0);
    if (nm->idx[k] >= 0)
        return nm->idx[k];
    if (nm->n == nm->cap) {
        size_t nc = nm->cap ? 2 * nm->cap : 16;
        uint32_t *nid = realloc(nm->id, nc * sizeof *nid);
        if (nid)
            nm->id = nid;
        unsigned char *nmk = nid ? realloc(nm->mark, nc) : NULL;
        if (!nmk)
            return -1;
        nm->mark = nmk;
        nm->cap = nc;
    }
    nm->id[nm->n] = p->name;
    nm->mark[nm->n] = p->mark != 0;
    return nm->idx[k] = (int32_t)nm->n++;
}

static void names_free(struct names *nm)
{
    free(nm->idx);
    free(nm->id);
    free(nm->mark);
}

struct kindv {
    const char *s; /* interned: one value, one pointer */
    size_t len;
};

static int cmp_kindv(const void *a, const void *b)
{
    const char *x = ((const struct kindv *)a)->s, *y = ((const struct kindv *)b)->s;
    return (x > y) - (x < y);
}

/* The kinds (kind=) of the units in row order: a table of the values and
 * a column of each unit's place in it (-1: none). */
static int kinds_json(FILE *f, const struct run *r, const struct row *rows, size_t n)
{
    struct kindv *k = malloc((n ? n : 1) * sizeof *k), *t = malloc((n ? n : 1) * sizeof *t);
    int64_t *v = malloc((n ? n : 1) * sizeof *v);
    int rc = -1;
    if (!k || !t || !v)
        goto out;
    size_t nt = 0;
    for (size_t i = 0; i < n; i++) {
        k[i].s = unit_attr(r, (uint32_t)rows[i].unit, "kind", &k[i].len);
        if (k[i].s)
            t[nt++] = k[i];
    }
    rc = 0;
    if (!nt)
        goto out;
    qsort(t, nt, sizeof *t, cmp_kindv);
    size_t m = 0;
    for (size_t i = 0; i < nt; i++)
        if (!m || t[m - 1].s != t[i].s)
            t[m++] = t[i];
    fputs(",\"kinds\":[", f);
    for (size_t j = 0; j < m; j++) {
        fputs(j ? "," : "", f);
        json_str(f, t[j].s, t[j].len);
    }
    fputs("],\"kind\":", f);
    for (size_t i = 0; i < n; i++)
        v[i] = k[i].s ? (const struct kindv *)bsearch(&k[i], t, m, sizeof *t, cmp_kindv) - t : -1;
    column(f, v, n);
out:
    free(k);
    free(t);
    free(v);
    return rc;
}

/* Grow the n int64 columns c[0..nc) to hold at least need values. */
static int grow_cols(int64_t **c, int nc, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 256;
    while (ncap < need)
        ncap *= 2;
    for (int i = 0; i < nc; i++) {
        int64_t *x = realloc(c[i], ncap * sizeof *x);
        if (!x)
            return -1;
        c[i] = x;
    }
    *cap = ncap;
    return 0;
}

/* The columns c[0..nc) of n values each, as "keys[i]":column, comma-separated. */
static void columns_json(FILE *f, const char *const *keys, int64_t *const *c, int nc, size_t n)
{
    for (int i = 0; i < nc; i++) {
        fprintf(f, "%s\"%s\":", i ? "," : "", keys[i]);
        column(f, c[i], n);
    }
}

/* Wide times, after ,"t":, as Float64 ns from t0: the phases' (start, end)
 * pairs, or the marks' times, in the order and within the limits of
 * phases_json. */
static int wide_times(FILE *f, const struct run *r, const struct row *rows, size_t n, const struct tenc *e, int marks,
                      struct uphase **up, size_t *upcap)
{
    struct b64 b;
    fputs(",\"t\":", f);
    b64_begin(&b, f);
    for (size_t i = 0; i < n; i++) {
        if (!unit_has_phases(r, (uint32_t)rows[i].unit))
            continue;
        size_t k = unit_phases(r, (uint32_t)rows[i].unit, up, upcap);
        if (k == (size_t)-1)
            return -1;
        size_t cnt = 0;
        for (size_t j = 0; j < k; j++) {
            const struct uphase *p = &(*up)[j];
            if (!p->mark != !marks || cnt++ >= (size_t)(marks ? MAX_UNIT_MARKS : MAX_UNIT_PHASES))
                continue;
            b64_f64(&b, rel(e, p->start));
            if (!marks)
                b64_f64(&b, rel(e, p->end));
        }
    }
    b64_end(&b);
    return 0;
}

/* The phases ("ph") and marks ("mk") of the units in row order, each a
 * list of columns: row step (from the previous entry's row), name (in the
 * names table), for phases within (WITHIN_*); then in q their start after
 * the unit's key and their length (a mark: its time after the key), or
 * (wide) Float64 ns from t0 in "t".  "more": the units whose phases or
 * marks went past the limits, with how many were left out. */
static int phases_json(FILE *f, const struct run *r, const struct row *rows, size_t n, const struct tenc *e,
                       struct names *nm)
{
    enum { P_ROW, P_NAME, P_WITHIN, P_A, P_D, M_ROW, M_NAME, M_A, X_ROW, X_P, X_M, NCOL };
    int64_t *c[NCOL] = {0};
    size_t cap[3] = {0}, np = 0, nmk = 0, nmore = 0;
    size_t prow = 0, mrow = 0, xrow = 0;
    struct uphase *up = NULL;
    size_t upcap = 0;
    int rc = -1;
    for (size_t i = 0; i < n; i++) {
        if (!unit_has_phases(r, (uint32_t)rows[i].unit))
            continue;
        size_t k = unit_phases(r, (uint32_t)rows[i].unit, &up, &upcap);
        if (k == (size_t)-1)
            goto out;
        size_t sp = 0, sm = 0;
        for (size_t j = 0; j < k; j++) {
            const struct uphase *p = &up[j];
            int32_t ni = name_index(nm, r, p);
            if (ni < 0)
                goto out;
            if (!p->mark) {
                if (sp++ >= MAX_UNIT_PHASES)
                    continue;
                if (grow_cols(c + P_ROW, 5, &cap[0], np + 1))
                    goto out;
                c[P_ROW][np] = (int64_t)(i - prow);
                prow = i;
                c[P_NAME][np] = ni;
                c[P_WITHIN][np] = p->within;
                c[P_A][np] = e->wide ? 0 : (p->start - rows[i].key) / e->q;
                c[P_D][np] = e->wide ? 0 : (p->end - p->start) / e->q;
                np++;
            } else {
                if (sm++ >= MAX_UNIT_MARKS)
                    continue;
                if (grow_cols(c + M_ROW, 3, &cap[1], nmk + 1))
                    goto out;
                c[M_ROW][nmk] = (int64_t)(i - mrow);
                mrow = i;
                c[M_NAME][nmk] = ni;
                c[M_A][nmk] = e->wide ? 0 : (p->start - rows[i].key) / e->q;
                nmk++;
            }
        }
        if (sp > MAX_UNIT_PHASES || sm > MAX_UNIT_MARKS) {
            if (grow_cols(c + X_ROW, 3, &cap[2], nmore + 1))
                goto out;
            c[X_ROW][nmore] = (int64_t)(i - xrow);
            xrow = i;
            c[X_P][nmore] = sp > MAX_UNIT_PHASES ? (int64_t)(sp - MAX_UNIT_PHASES) : 0;
            c[X_M][nmore] = sm > MAX_UNIT_MARKS ? (int64_t)(sm - MAX_UNIT_MARKS) : 0;
            nmore++;
        }
    }
    static const char *const ph_keys[] = {"r", "nm", "w", "a", "d"}, *const mk_keys[] = {"r", "nm", "a"},
                             *const more_keys[] = {"r", "p", "m"};
    if (np) { /* wide: "t" in place of "a" and "d" */
        fputs(",\"ph\":{", f);
        columns_json(f, ph_keys, c + P_ROW, e->wide ? 3 : 5, np);
        if (e->wide && wide_times(f, r, rows, n, e, 0, &up, &upcap))
            goto out;
        fputc('}', f);
    }
    if (nmk) { /* wide: "t" in place of "a" */
        fputs(",\"mk\":{", f);
        columns_json(f, mk_keys, c + M_ROW, e->wide ? 2 : 3, nmk);
        if (e->wide && wide_times(f, r, rows, n, e, 1, &up, &upcap))
            goto out;
        fputc('}', f);
    }
    if (nmore) {
        fputs(",\"more\":{", f);
        columns_json(f, more_keys, c + X_ROW, 3, nmore);
        fputc('}', f);
    }
    rc = 0;
out:
    for (int i = 0; i < NCOL; i++)
        free(c[i]);
    free(up);
    return rc;
}

static int run_html(FILE *f, const struct run_result *res, struct names *nm)
{
    const struct run *r = res->run;
    struct row *rows = malloc((r->nunits ? r->nunits : 1) * sizeof *rows);
    if (!rows)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < r->nunits; i++) {
        const struct unit *u = &r->units[i];
        if (u->flags & U_CONTRA)
            continue; /* left out of the analysis, and so of the view */
        rows[n++] = (struct row){u->t[EV_SYNTH_START] != T_NONE ? u->t[EV_SYNTH_START] : first_event(u), i};
    }
    qsort(rows, n, sizeof *rows, row_cmp);
    struct tenc e = time_encoding(res, rows, n);

    int64_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) {
        free(rows);
        return -1;
    }
    fputs("{\"source\":", f);
    jstr0(f, r->source);
    fprintf(f, ",\"index\":%d,\"native\":%d,\"t0\":", r->index, !run_counts_lines(r)); /* the view says "in the log" or "in the trace" */
    json_num(f, (double)e.t0);
    fprintf(f, ",\"q\":%lld,\"n\":%zu", (long long)e.q, n);
    if (e.wide) {
        /* The six times of each unit, Float64 ns from t0 (NaN: absent). */
        fputs(",\"enc\":\"f64\",\"t\":", f);
        struct b64 b;
        b64_begin(&b, f);
        for (size_t i = 0; i < n; i++)
            for (int k = 0; k < EV_N; k++) {
                int64_t t = r->units[rows[i].unit].t[k];
                b64_f64(&b, t == T_NONE ? NAN : rel(&e, t));
            }
        b64_end(&b);
    } else {
        /* In q: each unit's row key as the step from the previous one's
         * (they are sorted, so the steps are small), then each event as
         * its time after the unit's key; "none" (one below the least of
         * a column) marks an absent event. */
        fputs(",\"enc\":\"col\",\"key\":", f);
        int64_t prev = e.t0;
        for (size_t i = 0; i < n; i++) {
            v[i] = (rows[i].key - prev) / e.q;
            prev = rows[i].key;
        }
        column(f, v, n);
        fputs(",\"ev\":[", f);
        for (int k = 0; k < EV_N; k++) {
            int64_t least = 0;
            for (size_t i = 0; i < n; i++) {
                int64_t t = r->units[rows[i].unit].t[k];
                v[i] = t == T_NONE ? INT64_MAX : (t - rows[i].key) / e.q;
                if (v[i] < least)
                    least = v[i];
            }
            for (size_t i = 0; i < n; i++)
                if (v[i] == INT64_MAX)
                    v[i] = least - 1;
            fprintf(f, "%s{\"none\":%lld,\"c\":", k ? "," : "", (long long)(least - 1));
            column(f, v, n);
            fputc('}', f);
        }
        fputs("]", f);
    }
    /* Per unit: job index, partition, worker, device (-1: none). */
    fputs(",\"u\":[", f);
    for (int k = 0; k < 4; k++) {
        for (size_t i = 0; i < n; i++) {
            const struct unit *u = &r->units[rows[i].unit];
            v[i] = k == 0 ? (int64_t)u->job : k == 1 ? u->partition : k == 2 ? u->worker : u->device;
        }
        fputs(k ? "," : "", f);
        column(f, v, n);
    }
    fputs("]", f);
    /* CHAN_SEND written GPU_QUEUE: 1 per such unit (shown so) */
    int queue = 0;
    for (size_t i = 0; i < n; i++)
        queue |= (v[i] = (r->units[rows[i].unit].flags & U_QUEUE) != 0) != 0;
    if (queue) {
        fputs(",\"queue\":", f);
        column(f, v, n);
    }
    int rc = (r->nxattr ? kinds_json(f, r, rows, n) : 0) || (run_has_phases(r) ? phases_json(f, r, rows, n, &e, nm) : 0);
    free(v);
    free(rows);
    if (rc)
        return -1;
    fputs(",\"jobs\":[", f);
    for (size_t j = 0; j < r->njobs; j++) {
        if (j)
            fputc(',', f);
        json_str(f, r->jobs[j].id, r->jobs[j].len);
    }
    fputs("],\"devices\":[", f);
    struct render_kernels kern;
    if (render_kernels(res, &kern))
        return -1;
    for (size_t d = 0; d < res->ndev; d++) {
        fputs(d ? "," : "", f);
        if (device(f, &res->dev[d], &e, kern.spans + kern.first[d], kern.first[d + 1] - kern.first[d])) {
            render_kernels_free(&kern);
            return -1;
        }
    }
    render_kernels_free(&kern);
    fputs("],\"summary\":", f);
    summary(f, res);
    fputs("}", f);
    return 0;
}

int render_html(FILE *f, const struct run_result *res, size_t nres)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n", f);
    /* Nothing may be fetched: no network, no other file; only the page's
     * own script (by its hash) runs. */
    fprintf(f,
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src '%s'; "
            "style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">\n",
            wf_html_script_hash);
    fputs("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"waterfall " WF_VERSION_STRING "\">\n"
          "<link rel=\"icon\" href=\"data:,\">\n<title>waterfall: ",
          f);
    for (size_t i = 0; i < nres; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= !strcmp(res[j].run->source, res[i].run->source);
        if (seen)
            continue;
        if (i)
            fputs(", ", f);
        markup_text(f, res[i].run->source, strlen(res[i].run->source));
    }
    fputs("</title>\n<style>\n", f);
    fwrite(wf_html_css, 1, wf_html_css_len, f);
    fputs("</style>\n</head>\n<body>\n"
          "<noscript><p>This view needs JavaScript. <code>waterfall render -o view.svg</code> draws a static "
          "one.</p></noscript>\n"
          "<script type=\"application/json\" id=\"wf-data\">",
          f);
    fputs("{\"generator\":\"waterfall " WF_VERSION_STRING "\",\"runs\":[", f);
    struct names nm = {0};
    for (size_t i = 0; i < nres; i++) {
        if (i)
            fputs(",\n", f);
        if (run_html(f, &res[i], &nm)) {
            names_free(&nm);
            return -1;
        }
    }
    /* The names of the phases and marks; the kernel phase's; the GPU
     * phase's other sub-phases in their colours' order (as the SVG's). */
    fputs("],\n\"names\":[", f);
    int any_kernel = 0;
    for (size_t i = 0; i < nm.n; i++) {
        struct uphase p = {nm.id[i], nm.mark[i], 0, 0, 0, 0};
        size_t len;
        const char *s = uphase_name(res[0].run, &p, &len);
        fputs(i ? "," : "", f);
        json_str(f, s, len);
    }
    fputs("],\"kernels\":[", f);
    for (size_t i = 0; i < nm.n; i++) {
        struct uphase p = {nm.id[i], nm.mark[i], 0, 0, 0, 0};
        if (phase_is_kernel(&res[0], &p)) {
            fprintf(f, "%s%zu", any_kernel ? "," : "", i);
            any_kernel = 1;
        }
    }
    names_free(&nm);
    fputs("],\"kernel_phase\":", f);
    jstr0(f, nres ? res[0].kernel_phase : "KERNEL");
    fputs(",\"subphases\":[", f);
    uint32_t *subn = NULL;
    size_t nsub = render_subphase_names(res, nres, &subn);
    if (nsub == (size_t)-1)
        return -1;
    for (size_t i = 0; i < nsub; i++) {
        size_t len;
        const char *s = strtab_get(res[0].run->strs, subn[i], &len);
        fputs(i ? "," : "", f);
        json_str(f, s, len - 6); /* _START */
    }
    free(subn);
    fputs("]}</script>\n<script>", f);
    fwrite(wf_html_js, 1, wf_html_js_len, f);
    fputs("</script>\n</body>\n</html>\n", f);
    return ferror(f) ? -1 : 0;
}
