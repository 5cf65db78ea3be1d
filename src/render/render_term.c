/*
 * render_term.c -- the waterfall in a terminal (`analyze --chart`): a lane
 * per device, then the first units, one character per time bucket, as
 * wide as the terminal.  Each character shows what took most of its
 * bucket: for a device, busy or the idle cause; for a unit, its phase.
 * With colour it is a coloured block; without, a letter, so the chart
 * survives a pipe and a log file.
 */
#include "render.h"

#include <string.h>

/* busy, then the idle causes; then the five phases of a unit. */
static const char *const dev_color[1 + CAUSE_N] = {"\x1b[34m", "\x1b[35m", "\x1b[36m", "\x1b[33m", "\x1b[90m"};
static const char dev_letter[1 + CAUSE_N] = {'#', 'p', 'q', 's', '.'};
static const char *const phase_color[ST_N] = {"\x1b[33m", "\x1b[93m", "\x1b[36m", "\x1b[35m", "\x1b[32m"};
static const char phase_letter[ST_N] = {'S', 'h', 'q', 'p', 'G'};

#define MAX_COLS 400

static int64_t overlap(int64_t a, int64_t b, int64_t c, int64_t d)
{
    int64_t lo = a > c ? a : c, hi = b < d ? b : d;
    return hi > lo ? hi - lo : 0;
}

/* The index of the largest of v[0..n), the first on a tie; -1 when none is
 * above 0 (the column stays blank). */
static int largest(const int64_t *v, int n)
{
    int best = -1;
    int64_t most = 0;
    for (int k = 0; k < n; k++)
        if (v[k] > most) {
            most = v[k];
            best = k;
        }
    return best;
}

static void cell(FILE *f, int color, const char *col, char letter)
{
    if (color)
        fprintf(f, "%s\u2588\x1b[0m", col);
    else
        fputc(letter, f);
}

#define LABEL_W 12 /* a unit's row label */

/* A unit's row label, LABEL_W columns at most: its job id and, always,
 * its partition ("/3"); an id too long for both is cut, marked '~'
 * (partitions of one long id must stay apart). */
static void unit_label(char *label, const char *id, size_t len, int32_t partition)
{
    char part[16] = "";
    if (partition >= 0)
        snprintf(part, sizeof part, "/%d", partition);
    size_t pl = strlen(part) < LABEL_W - 2 ? strlen(part) : LABEL_W - 2;
    size_t room = LABEL_W - pl, n = len <= room ? len : room - 1;
    memcpy(label, id, n);
    for (size_t k = 0; k < n; k++)
        if ((unsigned char)label[k] < 0x20 || label[k] == 0x7f)
            label[k] = '?'; /* untrusted text never drives the terminal */
    if (n < len)
        label[n++] = '~';
    memcpy(label + n, part, pl);
    label[n + pl] = 0;
}

void render_term(FILE *f, const struct run_result *res, int width, int rows, int color)
{
    const struct run *r = res->run;
    int cols = width - 16;
    if (cols < 10)
        cols = 10;
    if (cols > MAX_COLS)
        cols = MAX_COLS;
    int64_t t0 = res->start, t1 = t0;
    for (size_t i = 0; i < r->nunits; i++)
        for (int e = 0; e < EV_N; e++)
            if (r->units[i].t[e] != T_NONE && r->units[i].t[e] > t1)
                t1 = r->units[i].t[e];
    if (t1 <= t0)
        return;
    double bucket = (double)(t1 - t0) / cols;

    for (size_t d = 0; d < res->ndev; d++) {
        const struct device_result *dv = &res->dev[d];
        fprintf(f, "  GPU %-9d ", dv->device);
        size_t seg = 0;
        for (int c = 0; c < cols; c++) {
            int64_t a = t0 + (int64_t)(c * bucket), b = t0 + (int64_t)((c + 1) * bucket);
            int64_t share[1 + CAUSE_N] = {0};
            if (dv->units)
                share[0] = overlap(a, b, dv->window_start, dv->window_end);
            while (seg < dv->nsegs && dv->segs[seg].end <= a)
                seg++;
            for (size_t s = seg; s < dv->nsegs && dv->segs[s].start < b; s++) {
                int64_t o = overlap(a, b, dv->segs[s].start, dv->segs[s].end);
                share[1 + dv->segs[s].cause] += o;
                share[0] -= o;
            }
            int best = largest(share, CAUSE_N + 1);
            if (best < 0)
                fputc(' ', f);
            else
                cell(f, color, dev_color[best], dev_letter[best]);
        }
        fputc('\n', f);
    }
    int shown = 0;
    for (size_t i = 0; i < r->nunits && shown < rows; i++) {
        const struct unit *u = &r->units[i];
        if (u->flags & U_CONTRA)
            continue;
        char label[LABEL_W + 1];
        unit_label(label, r->jobs[u->job].id, r->jobs[u->job].len, u->partition);
        fprintf(f, "  %-12s ", label);
        int64_t ready = u->t[EV_CHAN_SEND] != T_NONE ? u->t[EV_CHAN_SEND] : u->t[EV_SYNTH_END];
        int64_t from[ST_N] = {u->t[EV_SYNTH_START], u->t[EV_SYNTH_END], ready, u->t[EV_GPU_PICKUP],
                              u->t[EV_GPU_START]};
        int64_t to[ST_N] = {u->t[EV_SYNTH_END], u->t[EV_CHAN_SEND], u->t[EV_GPU_PICKUP], u->t[EV_GPU_START],
                            u->t[EV_GPU_END]};
        for (int c = 0; c < cols; c++) {
            int64_t a = t0 + (int64_t)(c * bucket), b = t0 + (int64_t)((c + 1) * bucket);
            int64_t in[ST_N];
            for (int s = 0; s < ST_N; s++)
                in[s] = from[s] != T_NONE && to[s] != T_NONE ? overlap(a, b, from[s], to[s]) : 0;
            int best = largest(in, ST_N);
            if (best < 0)
                fputc(' ', f);
            else
                cell(f, color, phase_color[best], phase_letter[best]);
        }
        fputc('\n', f);
        shown++;
    }
    if ((size_t)shown < r->nunits)
        fprintf(f, "  %-12s (%zu more units; --chart=N shows N)\n", "", r->nunits - (size_t)shown);
    fprintf(f, "  %-12s ", "");
    for (int k = 0; k <= CAUSE_N; k++) {
        cell(f, color, dev_color[k], dev_letter[k]);
        fprintf(f, " %s  ", k ? cause_names[k - 1] : "busy");
    }
    fputs("| ", f);
    for (int s = 0; s < ST_N; s++) {
        cell(f, color, phase_color[s], phase_letter[s]);
        fprintf(f, " %s  ", stage_names[s]);
    }
    char w[32];
    fprintf(f, "\n  %-12s one column = %s\n", "", fmt_dur(w, sizeof w, bucket));
}
