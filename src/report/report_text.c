/*
 * report_text.c -- the analysis for a person at a terminal: short, in
 * order of importance (utilization, where the idle time went, the
 * bottleneck in one sentence, the advice), then the detail.
 */
#include "report.h"


#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

int report_color_arg(const char *v, int *color)
{
    if (!strcmp(v, "always"))
        *color = 1;
    else if (!strcmp(v, "never"))
        *color = 0;
    else if (strcmp(v, "auto"))
        return -1;
    return 0;
}

struct paint {
    const char *bold, *dim, *red, *yellow, *green, *off;
};

static struct paint paint_for(const struct report_opts *o)
{
    if (o && o->color)
        return (struct paint){"\x1b[1m", "\x1b[2m", "\x1b[31m", "\x1b[33m", "\x1b[32m", "\x1b[0m"};
    return (struct paint){"", "", "", "", "", ""};
}

static double pct(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0;
}

static void issues_text(FILE *f, const struct run *r, const struct paint *p)
{
    static const char *const what[3] = {"skipped line", "duplicate event",
                                  "inconsistent unit (first seen here): this event is earlier than one before it"};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < r->nissues[k]; i++) {
            const struct issue *is = &r->issues[k][i];
            const char *detail = k == ISSUE_SKIPPED ? scan_err_text[is->detail] : ev_names[is->detail];
            fprintf(f, "  %s%s:%s%s%llu: %s (%s)%s\n", p->dim, r->source, run_counts_lines(r) ? "" : r->prov.at,
                    run_counts_lines(r) ? "" : " ", (unsigned long long)is->line, what[k], detail, p->off);
        }
}

static void advice_text(FILE *f, const struct run_result *res, const struct paint *p)
{
    char l1[512], l2[512];
    int emph = report_advice_lines(res, l1, sizeof l1, l2, sizeof l2);
    if (emph > 0)
        fprintf(f, "  %-14s %s%.*s%s%s\n", "advice", p->bold, emph, l1, p->off, l1 + emph);
    else
        fprintf(f, "  %-14s %s\n", "advice", l1);
    if (l2[0])
        fprintf(f, "  %-14s %s%s%s\n", "", p->dim, l2, p->off);
}

void report_causes_text(FILE *f, const int64_t *by, int64_t idle)
{
    char b[32];
    static const int order[CAUSE_N] = {CAUSE_SYNTHESIS, CAUSE_QUEUE, CAUSE_PREP, CAUSE_NO_WORK};
    int first = 1;
    for (int k = 0; k < CAUSE_N; k++) {
        int c = order[k];
        fprintf(f, "%s%s %s (%.0f%%)", first ? "" : " · ", cause_names[c],
                fmt_dur(b, sizeof b, (double)by[c]), pct((double)by[c], (double)idle));
        first = 0;
    }
}

static int gap_cmp(const void *a, const void *b)
{
    const struct gap *x = *(const struct gap *const *)a, *y = *(const struct gap *const *)b;
    int64_t lx = x->end - x->start, ly = y->end - y->start;
    if (lx != ly)
        return lx > ly ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

const struct gap **gaps_longest_first(const struct device_result *d, size_t max, size_t *n)
{
    const struct gap **order = malloc(d->ngaps * sizeof *order + 1);
    if (!order)
        return NULL;
    for (size_t g = 0; g < d->ngaps; g++)
        order[g] = &d->gaps[g];
    qsort(order, d->ngaps, sizeof *order, gap_cmp);
    *n = max && max < d->ngaps ? max : d->ngaps;
    return order;
}

static void gaps_text(FILE *f, const struct device_result *d, const struct report_opts *o,
                      const struct paint *p)
{
    size_t n;
    const struct gap **order = gaps_longest_first(d, o->max_gaps, &n);
    if (!order)
        return;
    fprintf(f, "\n  %sidle gaps on device %d, longest first (%zu of %zu)%s\n", p->bold, d->device, n,
            d->ngaps, p->off);
    fprintf(f, "  %12s %12s %10s   %s\n", "start (s)", "end (s)", "length", "by cause");
    for (size_t i = 0; i < n; i++) {
        const struct gap *g = order[i];
        char len[32], c[32];
        fprintf(f, "  %12.6f %12.6f %10s  ", g->start / 1e9, g->end / 1e9,
                fmt_dur(len, sizeof len, (double)(g->end - g->start)));
        for (int k = 0; k < CAUSE_N; k++)
            if (g->by_cause[k])
                fprintf(f, " %s %s", cause_names[k], fmt_dur(c, sizeof c, (double)g->by_cause[k]));
        fputc('\n', f);
    }
    free(order);
}

/* The driver's utilization (NVML's readings; analyze_gpu.c), beside the
 * timeline's and the kernel phases'. */
static void driver_text(FILE *f, const struct run_result *res, const struct paint *p)
{
    fprintf(f, "  %-14s %s%.1f%%%s  NVML's %s over the same window (%llu readings covering %.0f%% of it)\n",
            "driver util.", p->bold, 100 * res->driver_utilization, p->off,
            res->driver_source == GPU_OBS_SERIES ? "utilization samples" : "utilization rates, read every 100 ms,",
            (unsigned long long)res->driver_readings, 100 * res->driver_coverage);
}

/* The CPU section: the samples' shares, then stage time by concurrency. */
static void cpu_text(FILE *f, const struct cpu_result *c, const struct paint *p)
{
    char l1[512], l2[512], l3[512];
    int emph = report_cpu_lines(c, l1, sizeof l1, l2, sizeof l2, l3, sizeof l3);
    if (emph >= 0)
        fprintf(f, "  %-14s %.*s%s%s%s\n", "cpu", emph, l1, p->bold, l1 + emph, p->off);
    else
        fprintf(f, "  %-14s %s\n", "cpu", l1);
    if (l2[0])
        fprintf(f, "  %-14s %s\n", "", l2);
    if (l3[0])
        fprintf(f, "  %-14s %s\n", "", l3);
}

static void stat_cells(FILE *f, const struct stage_stats *st)
{
    char m[32], a[32], c[32];
    fprintf(f, " %10s %10s %10s", fmt_dur(m, sizeof m, st->mean), fmt_dur(a, sizeof a, st->p50),
            fmt_dur(c, sizeof c, st->p90));
}

/* A reported duration longer than its records' interval is a warning (the
 * daemon times work between them); a shorter one is a note: the stage holds
 * time the daemon does not time (analyze.h). */
static void reported_text(FILE *f, const char *key, const struct reported_check *c, const struct paint *p)
{
    char a[32], b[32];
    if (c->disagree)
        fprintf(f, "  %swarning%s        the daemon's %s disagrees with the timestamps by over %.0f%% on %llu of %llu "
                   "units (first at line %llu: %s reported, %s timed)\n",
                p->yellow, p->off, key, 100 * REPORTED_TOLERANCE, (unsigned long long)c->disagree,
                (unsigned long long)c->checked, (unsigned long long)c->first_line,
                fmt_dur(a, sizeof a, c->first_reported), fmt_dur(b, sizeof b, c->first_timed));
    if (c->outside)
        fprintf(f, "  %snote            %s stage runs over %.0f%% past the daemon's %s on %llu of %llu units, %s in "
                   "all: time it does not time (%s)%s\n",
                p->dim, strcmp(key, "gpu_ms") ? "the synthesis" : "the GPU", 100 * REPORTED_TOLERANCE, key,
                (unsigned long long)c->outside, (unsigned long long)c->checked, fmt_dur(a, sizeof a, c->outside_ns),
                strcmp(key, "gpu_ms") ? "cuzk's synth_ms leaves out the blocking pool's wait and the circuit's build"
                                      : "cuzk's gpu_ms leaves out the blocking pool's wait where no spawn line gives it",
                p->off);
}

/* Units that never finished a stage (analyze_abandon.c): how many, in
 * which state, and the bounded point where each stopped holding its cause,
 * so that a reader knows the idle causes were not held to the log's end. */
static void abandoned_text(FILE *f, const struct run_result *res, const struct paint *p)
{
    static const char *const left[CAUSE_N] = {"picked up and never started", "ready and never picked up",
                                        "in synthesis and never ended", NULL};
    if (!res->abandoned)
        return;
    const struct run *r = res->run;
    fprintf(f, "  %swarning%s        %llu unit%s abandoned (", p->yellow, p->off, (unsigned long long)res->abandoned,
            res->abandoned == 1 ? "" : "s");
    const char *sep = "";
    for (int c = 0; c < CAUSE_NO_WORK; c++)
        if (res->abandoned_by[c]) {
            fprintf(f, "%s%llu %s", sep, (unsigned long long)res->abandoned_by[c], left[c]);
            sep = ", ";
        }
    fprintf(f, "; the first one's first %s: %llu): each holds its idle cause only as long as the longest such stage "
               "completed by then, and a prep only until its worker's next pickup or start\n",
            r->prov.at, (unsigned long long)r->units[res->abandoned_first].line);
}

/* The rows under parent (-1: the top), each followed by its own: a
 * duration line's phases nest as its source runs them (analyze.h). */
static void phase_rows_text(FILE *f, const struct run *r, const struct phase_result *ph, int parent)
{
    for (size_t i = 0; i < ph->nrows; i++) {
        const struct phase_row *row = &ph->rows[i];
        if (row->parent != parent)
            continue;
        size_t len;
        const char *name = phase_label(r, row, &len);
        int ind = 2 * (row->depth < 5 ? row->depth : 5), w = 22 - ind;
        fprintf(f, "  %*s%-*.*s %-9s %8llu", ind, "", w, (int)(len > (size_t)w ? (size_t)w : len), name,
                within_names[row->within], (unsigned long long)row->st.count);
        stat_cells(f, &row->st);
        if (isnan(row->share)) /* no enclosing time to share */
            fprintf(f, " %7s\n", "-");
        else
            fprintf(f, " %6.1f%%\n", 100 * row->share);
        phase_rows_text(f, r, ph, (int)i);
    }
}

/* What the duration lines gave, and what they could not (durations.h). */
static void durations_text(FILE *f, const struct run *r, const struct paint *p)
{
    const struct dur_use *d = &r->dur;
    char b[32];
    fprintf(f, "  %-22s ", "duration lines");
    if (d->lines || d->values)
        fprintf(f, "CUZK_TIMING: %llu lines; %llu of %llu durations placed in %llu units' GPU phases (%llu calls)",
                (unsigned long long)d->lines, (unsigned long long)d->placed, (unsigned long long)d->values,
                (unsigned long long)d->units, (unsigned long long)d->calls);
    else
        fputs("no CUZK_TIMING lines", f);
    for (size_t i = 0; i < d->nmarks; i++) {
        size_t n;
        const char *nm = strtab_get(r->strs, d->marks[i].name, &n);
        fprintf(f, "%s%.*s x%llu (mean %s)", i ? ", " : "; outside any GPU phase: ", (int)n, nm,
                (unsigned long long)d->marks[i].count,
                fmt_dur(b, sizeof b, 1e6 * (double)d->marks[i].total_ms / (double)d->marks[i].count));
    }
    if (d->info)
        fprintf(f, "; %llu message%s with no duration", (unsigned long long)d->info, d->info == 1 ? "" : "s");
    if (d->ntt)
        fprintf(f, "; CUZK_NTT_H: %llu line%s (ntt_msm_h's breakdown, counted, not placed)", (unsigned long long)d->ntt,
                d->ntt == 1 ? "" : "s");
    if (d->spawn_lines)
        fprintf(f, "; GPU_TIMING spawn_blocking: %llu lines, %llu given to units", (unsigned long long)d->spawn_lines,
                (unsigned long long)d->spawn_placed);
    fputc('\n', f);
    if (d->spawn_lines > d->spawn_placed)
        fprintf(f, "  %s%-22s %llu spawn lines not given to a unit (no GPU phase of their worker and partition open, "
                   "or its call's section does not fit the entry the line gives)%s\n",
                p->yellow, "", (unsigned long long)(d->spawn_lines - d->spawn_placed), p->off);
    if (d->guessed)
        fprintf(f, "  %s%-22s %llu of the placed durations given by a guess: printed outside a section, they fit "
                   "several calls that place them over 3 ms and 5%% of the value apart, and the earliest took them%s\n",
                p->yellow, "", (unsigned long long)d->guessed, p->off);
    uint64_t lost = d->ambiguous + d->interleaved + d->stray;
    if (lost)
        fprintf(f, "  %s%-22s %llu durations not given to a unit: %llu of calls no one open GPU phase fits (two could, "
                   "or none), "
                   "%llu of calls whose lines interleave (several GPUs, no device named), %llu of lines no open "
                   "section takes (its first line missing, or after its GPU thread's tail_msm)%s\n",
                p->yellow, "", (unsigned long long)lost, (unsigned long long)d->ambiguous,
                (unsigned long long)d->interleaved, (unsigned long long)d->stray, p->off);
    if (d->bad)
        fprintf(f, "  %s%-22s %llu unreadable (the first at line %llu)%s\n", p->yellow, "", (unsigned long long)d->bad,
                (unsigned long long)d->bad_first, p->off);
}

/* Phases inside the stages, marks, kinds, and the daemon's own durations. */
static void phases_text(FILE *f, const struct run_result *res, const struct paint *p)
{
    const struct run *r = res->run;
    const struct phase_result *ph = &res->phase;
    if (ph->nrows) {
        fprintf(f, "\n  %s%-22s %-9s %8s %10s %10s %10s %7s%s\n", p->dim, "phase", "within", "count", "mean", "p50",
                "p90", "share", p->off);
        phase_rows_text(f, r, ph, -1);
    }
    if (r->dur.lines || r->dur.values || r->dur.spawn_lines)
        durations_text(f, r, p);
    if (ph->nmarks) {
        fprintf(f, "  %-22s", "marks");
        for (size_t i = 0; i < ph->nmarks; i++) {
            size_t len;
            const char *name = strtab_get(r->strs, ph->marks[i].name, &len);
            fprintf(f, "%s%.*s x%llu", i ? ", " : " ", (int)len, name, (unsigned long long)ph->marks[i].count);
        }
        fputc('\n', f);
    }
    if (ph->nkinds) {
        fprintf(f, "\n  %s%-22s %8s %10s %10s %10s %10s %10s%s\n", p->dim, "kind (mean per stage)", "units",
                "synthesis", "handoff", "queue", "prep", "gpu", p->off);
        for (size_t i = 0; i < ph->nkinds; i++) {
            const struct kind_row *k = &ph->kinds[i];
            if (k->kind)
                fprintf(f, "  %-22.*s", (int)(k->klen > 22 ? 22 : k->klen), k->kind);
            else
                fprintf(f, "  %-22s", "(no kind)");
            fprintf(f, " %8llu", (unsigned long long)k->units);
            for (int s = 0; s < ST_N; s++) {
                char m[32];
                fprintf(f, " %10s", k->stage[s].count ? fmt_dur(m, sizeof m, k->stage[s].mean) : "-");
            }
            fputc('\n', f);
        }
    }
    if (ph->synth_ms.disagree || ph->gpu_ms.disagree || ph->synth_ms.outside || ph->gpu_ms.outside)
        fputc('\n', f);
    reported_text(f, "synth_ms", &ph->synth_ms, p);
    reported_text(f, "gpu_ms", &ph->gpu_ms, p);
}

/* The run's counts and what is wrong with its input, and its clock. */
static void counts_text(FILE *f, const struct run_result *res, const struct paint *pp)
{
    const struct run *r = res->run;
    struct paint p = *pp;
#define PL(n) ((n) == 1 ? "" : "s")
    fprintf(f, "  %llu job%s (%llu completed), %llu unit%s", (unsigned long long)res->jobs, PL(res->jobs),
            (unsigned long long)res->jobs_completed, (unsigned long long)res->units, PL(res->units));
    if (res->in_flight)
        fprintf(f, ", %s%llu in flight%s", p.yellow, (unsigned long long)res->in_flight, p.off);
    if (r->skipped_lines)
        fprintf(f, ", %s%llu line%s skipped%s", p.yellow, (unsigned long long)r->skipped_lines,
                PL(r->skipped_lines), p.off);
    if (r->duplicates)
        fprintf(f, ", %s%llu duplicate event%s%s", p.yellow, (unsigned long long)r->duplicates, PL(r->duplicates),
                p.off);
    if (r->late_lines)
        fprintf(f, ", %s%llu late line%s (written after later ones; not a restart)%s", p.yellow,
                (unsigned long long)r->late_lines, PL(r->late_lines), p.off);
    if (r->xorphans)
        fprintf(f, ", %llu other event%s or detail%s that match no unit (kept out)",
                (unsigned long long)r->xorphans, PL(r->xorphans), PL(r->xorphans));
    if (res->inconsistent)
        fprintf(f, ", %s%llu inconsistent unit%s left out%s", p.red, (unsigned long long)res->inconsistent,
                PL(res->inconsistent), p.off);
    if (r->lost_events)
        fprintf(f, ", %s%llu event%s lost while recording%s", p.red, (unsigned long long)r->lost_events,
                PL(r->lost_events), p.off);
    if (r->damaged_bytes)
        fprintf(f, ", %s%llu byte%s of the trace damaged and skipped%s", p.red,
                (unsigned long long)r->damaged_bytes, PL(r->damaged_bytes), p.off);
#undef PL
    fputc('\n', f);
    issues_text(f, r, &p);
    if (r->wall_events) {
        time_t sec = (time_t)(r->wall_origin / 1000000000);
        struct tm tm;
        char when[48] = "?";
        if (gmtime_r(&sec, &tm))
            strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
        fprintf(f, "  %-14s the lines' own timestamps (%llu record%s without ts=): times count from the run's first "
                   "record, %s\n",
                "clock", (unsigned long long)r->wall_events, r->wall_events == 1 ? "" : "s", when);
    }

}

/* A trace of streams' CPU ranges: the stages mapped (--stage), or what a
 * mapping would add; and the ranges most open while a device idled. */
static void stage_map_text(FILE *f, const struct run *r, const struct paint *p)
{
    const struct streams_use *su = &r->streams;
    if (su->mapped)
        fprintf(f, "  %-14s by --stage: synthesis %llu range%s, %llu unit%s · prep %llu range%s, %llu unit%s\n",
                "stages", (unsigned long long)su->stage_ranges[0], su->stage_ranges[0] == 1 ? "" : "s",
                (unsigned long long)su->stage_units[0], su->stage_units[0] == 1 ? "" : "s",
                (unsigned long long)su->stage_ranges[1], su->stage_ranges[1] == 1 ? "" : "s",
                (unsigned long long)su->stage_units[1], su->stage_units[1] == 1 ? "" : "s");
    else
        fprintf(f, "  %-14s not mapped: the idle causes take each launch as the hand-off; --stage "
                   "synthesis=GLOB or prep=GLOB (CPU range names) would say which stage of the host the devices "
                   "waited for\n",
                "stages");
    if (!su->ncand) {
        fprintf(f, "  %-14s %s%llu CPU range%s; none open while a device idled (steps and whole-run ranges aside)%s\n",
                "", p->dim, (unsigned long long)su->cpu_ranges, su->cpu_ranges == 1 ? "" : "s", p->off);
        return;
    }
    fprintf(f, "  %-14s ", "open at idle");
    for (int i = 0; i < su->ncand; i++) {
        const struct kcand *c = &su->cand[i];
        size_t n;
        const char *nm = strtab_get(r->strs, c->name, &n);
        /* a trace's name, any bytes: its control bytes (a terminal's escapes) shown as '?' */
        fprintf(f, "%s'", i ? " · " : "");
        for (size_t b = 0; b < (n > 60 ? 57 : n); b++)
            fputc((unsigned char)nm[b] < 0x20 || nm[b] == 0x7f ? '?' : nm[b], f);
        fprintf(f, "%s' %.0f%% (%llu)", n > 60 ? "..." : "",
                su->cand_idle ? 100.0 * (double)c->idle / (double)su->cand_idle : 0, (unsigned long long)c->ranges);
    }
    fprintf(f, "\n  %-14s %sthe share of the devices' idle time during which a range of that name was open "
               "(ranges), on any CPU thread%s\n",
            "", p->dim, p->off);
}

/* A trace of streams (a PyTorch trace's): what it held, each device's
 * utilization, and each stream's idle time by HTA's three categories. */
static void streams_text(FILE *f, const struct run_result *res, const struct paint *p)
{
    const struct streams_use *su = &res->run->streams;
    char b1[32], b2[32], b3[32];
    fprintf(f, "  %-14s ", "trace");
    if (su->rank >= 0)
        fprintf(f, "rank %d · ", su->rank);
    fprintf(f, "%llu events: %llu device operations, %llu launches (operations without one: %llu; launched "
               "after they began: %llu), %llu other events ignored\n",
            (unsigned long long)su->events, (unsigned long long)su->ops, (unsigned long long)su->launches,
            (unsigned long long)su->unlaunched, (unsigned long long)su->late_launch,
            (unsigned long long)su->ignored);
    for (size_t i = 0; i < res->ndev; i++) {
        const struct device_result *d = &res->dev[i];
        fprintf(f, "  device %-7d %s%.1f%%%s  busy %s of a %s window, idle %s\n", d->device, p->bold,
                100 * d->utilization, p->off, fmt_dur(b1, sizeof b1, (double)d->busy),
                fmt_dur(b2, sizeof b2, (double)(d->window_end - d->window_start)),
                fmt_dur(b3, sizeof b3, (double)d->idle));
        for (size_t k = 0; k < d->nstreams; k++) {
            const struct stream_result *st = &d->streams[k];
            fprintf(f, "    stream %-5d %llu ops, busy %s, idle %s: ", st->stream, (unsigned long long)st->ops,
                    fmt_dur(b1, sizeof b1, (double)st->busy), fmt_dur(b2, sizeof b2, (double)st->idle));
            fprintf(f, "host_wait %s · ", fmt_dur(b1, sizeof b1, (double)st->host_wait));
            fprintf(f, "kernel_wait %s · ", fmt_dur(b1, sizeof b1, (double)st->kernel_wait));
            fprintf(f, "other %s\n", fmt_dur(b1, sizeof b1, (double)st->other));
        }
    }
    fprintf(f, "  %-14s per stream by HTA's rule%s\n", "",
            su->us_rounded ? " (its times rounded to the µs, as HTA reads this trace)" : "");
    stage_map_text(f, res->run, p);
}

static void run_text(FILE *f, const struct run_result *res, size_t nruns_in_source,
                     const struct report_opts *o)
{
    const struct run *r = res->run;
    struct paint p = paint_for(o);
    char b1[32], b2[32], b3[32], b4[640];
    fprintf(f, "%s%s%s", p.bold, r->source, p.off);
    if (nruns_in_source > 1)
        fprintf(f, " %srun %d%s", p.bold, r->index, p.off);
    fprintf(f, " %s(%ss %llu-%llu)%s\n", p.dim, r->prov.at,
            (unsigned long long)r->first_line, (unsigned long long)r->last_line, p.off);
    counts_text(f, res, &p);

    if (res->bottleneck == BN_NONE) {
        uint64_t proved = 0;
        for (size_t i = 0; i < res->ndev; i++)
            proved += res->dev[i].units;
        if (proved)
            fprintf(f, "  every GPU phase has zero length (GPU_START = GPU_END at the log's resolution): no window "
                       "to measure utilization in\n\n");
        else
            fprintf(f, "  no unit has both GPU_START and GPU_END: nothing to measure on a GPU yet\n\n");
        const struct dur_use *d = &r->dur;
        if (d->values && !d->placed) /* the GPU library's lines, with no phase to place them in */
            fprintf(f, "  %sCUZK_TIMING: %llu lines, %llu durations, none placed: no unit's GPU phase (GPU_START .. "
                       "GPU_END) was open where they were printed (cuzk with CUZK_DISABLE_SPLIT_PROVE=1 prints "
                       "neither)%s\n\n",
                    p.dim, (unsigned long long)d->lines, (unsigned long long)d->values, p.off);
        return;
    }
    const char *uc = res->utilization >= 0.95 ? p.green : res->utilization >= 0.8 ? p.yellow : p.red;
    int64_t fill = INT64_MAX;
    for (size_t i = 0; i < res->ndev; i++)
        if (res->dev[i].units && res->dev[i].fill < fill)
            fill = res->dev[i].fill;
    fprintf(f, "\n  %-14s %s%s%.1f%%%s  busy %s of a %s window", "GPU utilization", p.bold, uc,
            100 * res->utilization, p.off, fmt_dur(b1, sizeof b1, (double)res->busy),
            fmt_dur(b2, sizeof b2, (double)res->window));
    if (res->ndev > 1)
        fprintf(f, " over %zu devices", res->ndev);
    if (fill >= 0)
        fprintf(f, " (%s of pipeline fill before)\n", fmt_dur(b3, sizeof b3, (double)fill));
    else
        fputs(" (no SYNTH_START: pipeline fill unknown)\n", f);
    if (res->phase.has_kernel) {
        const struct phase_result *ph = &res->phase;
        const char *kc = ph->kernel_utilization >= 0.95 ? p.green : ph->kernel_utilization >= 0.8 ? p.yellow : p.red;
        char fillb[256];
        fprintf(f, "  %-14s %s%s%s%.1f%%%s  %s phases busy %s of the same window; the GPU phase's rest: %s\n",
                "kernel util.", p.bold, kc, ph->kernel_units_missing ? "at least " : "", 100 * ph->kernel_utilization,
                p.off, res->kernel_phase, fmt_dur(b1, sizeof b1, (double)ph->kernel_busy),
                report_phase_fill(fillb, sizeof fillb, res));
        if (ph->kernel_units_missing)
            fprintf(f, "  %-14s %s%llu of %llu GPU phases have no %s (their calls' duration lines could not be given "
                       "to a unit: below): their kernels count as idle, so the figure is a floor%s\n",
                    "", p.yellow, (unsigned long long)ph->kernel_units_missing,
                    (unsigned long long)ph->gpu_units_kernel, res->kernel_phase, p.off);
    }
    if (res->phase.gpu_units_partial) {
        const struct phase_result *ph = &res->phase;
        fprintf(f, "  %-14s %snot known%s%s: %s phases in only %llu of %llu units' GPU phases (the other calls' "
                   "duration lines could not be given to a unit: below); %s%s\n",
                ph->has_kernel ? "" : "kernel util.", p.yellow, p.off, ph->has_kernel ? " on the other devices" : "",
                res->kernel_phase, (unsigned long long)ph->kernel_units_partial,
                (unsigned long long)ph->gpu_units_partial,
                ph->has_kernel ? "kernel utilization above is of the devices that have it; " : "",
                res->bottleneck_on_phase ? "the bottleneck is judged on the GPU phase (the calls not given decide it)"
                                         : "the bottleneck takes the calls given as a floor (wherever the others go, "
                                           "it is the same)");
    }
    if (res->has_driver)
        driver_text(f, res, &p);
    fprintf(f, "  %-14s %s: ", "idle", idle_sentence(b4, sizeof b4, res));
    report_causes_text(f, res->by_cause, res->idle);
    fputc('\n', f);
    if (res->run->streams.streams)
        streams_text(f, res, &p);
    abandoned_text(f, res, &p);
    fprintf(f, "  %-14s %s%s%s\n", "bottleneck", p.bold, bottleneck_sentence(b4, sizeof b4, res), p.off);
    advice_text(f, res, &p);
    fprintf(f, "  %-14s %s per job", "throughput", fmt_dur(b1, sizeof b1, res->s_per_job >= 0 ? res->s_per_job : NAN));
    fprintf(f, ", steady %s per job", fmt_dur(b2, sizeof b2, res->steady_s_per_job >= 0 ? res->steady_s_per_job : NAN));
    if (isfinite(res->synth_mean_active))
        fprintf(f, "; synthesis concurrency max %d, mean %.2f over the GPU window\n", res->synth_max,
                res->synth_mean_active);
    else
        fprintf(f, "; synthesis concurrency max %d (no GPU window for a mean)\n", res->synth_max);
    cpu_text(f, &res->cpu, &p);
    char mb[320];
    if (res->run && memory_sentence(mb, sizeof mb, &res->run->mem))
        fprintf(f, "  %-14s %s\n", "memory", mb);

    if (o->chart && o->draw_chart) {
        fputc('\n', f);
        o->draw_chart(f, res, o->width, o->chart, o->color);
    }
    fprintf(f, "\n  %s%-10s %8s %10s %10s %10s %10s %10s%s\n", p.dim, "stage", "count", "mean", "p50", "p90",
            "p99", "max", p.off);
    for (int s = 0; s < ST_N; s++) {
        const struct stage_stats *st = &res->stage[s];
        char m[32], a[32], c[32], d[32], e[32];
        if (!st->count) {
            fprintf(f, "  %-10s %8s\n", stage_names[s], "0");
            continue;
        }
        fprintf(f, "  %-10s %8llu %10s %10s %10s %10s %10s\n", stage_names[s], (unsigned long long)st->count,
                fmt_dur(m, sizeof m, st->mean), fmt_dur(a, sizeof a, st->p50), fmt_dur(c, sizeof c, st->p90),
                fmt_dur(d, sizeof d, st->p99), fmt_dur(e, sizeof e, st->max));
    }
    phases_text(f, res, &p);
    if (res->ndev > 1) {
        fputc('\n', f);
        for (size_t i = 0; i < res->ndev; i++) {
            const struct device_result *d = &res->dev[i];
            fprintf(f, "  device %-3d %zu workers, %llu units: utilization %.1f%%, ", d->device, d->nworkers,
                    (unsigned long long)d->units, 100 * d->utilization);
            if (d->has_kernel)
                fprintf(f, "kernels %.1f%%, ", 100 * d->kernel_utilization);
            if (d->has_driver)
                fprintf(f, "driver %.1f%%, ", 100 * d->driver_utilization);
            fprintf(f, "busy %s, idle %s: ", fmt_dur(b1, sizeof b1, (double)d->busy),
                    fmt_dur(b2, sizeof b2, (double)d->idle));
            report_causes_text(f, d->by_cause, d->idle);
            fputc('\n', f);
        }
    }
    if (o->gaps)
        for (size_t i = 0; i < res->ndev; i++)
            if (res->dev[i].ngaps)
                gaps_text(f, &res->dev[i], o, &p);
    fputc('\n', f);
}

void report_text(FILE *f, const struct model *m, const struct run_result *res, size_t nres,
                 const struct report_opts *o)
{
    (void)m;
    for (size_t i = 0; i < nres; i++) {
        size_t same = 0;
        for (size_t j = 0; j < nres; j++)
            same += res[j].run->source == res[i].run->source;
        run_text(f, &res[i], same, o);
    }
}

static void diff_row(FILE *f, const char *name, const char *a, const char *b, const char *chg)
{
    fprintf(f, "  %-22s %14s %14s   %s\n", name, a, b, chg);
}

static void diff_dur(FILE *f, const char *name, double a, double b)
{
    char x[32], y[32], c[48];
    if (a < 0 || b < 0 || !isfinite(a) || !isfinite(b)) {
        diff_row(f, name, fmt_dur(x, sizeof x, a < 0 ? NAN : a), fmt_dur(y, sizeof y, b < 0 ? NAN : b), "");
        return;
    }
    char d[32];
    fmt_dur(d, sizeof d, b - a);
    /* a percentage of a tiny baseline (queue p50 60 us -> 48 ms: +79387%)
     * says nothing: shown only when the baseline is a tenth or more of the
     * larger figure (-90% to +900%), else the absolute change alone */
    if (a > 0 && a >= 0.1 * b)
        snprintf(c, sizeof c, "%s%s (%+.0f%%)", b >= a ? "+" : "", d, 100 * (b - a) / a);
    else
        snprintf(c, sizeof c, "%s%s", b >= a ? "+" : "", d);
    diff_row(f, name, fmt_dur(x, sizeof x, a), fmt_dur(y, sizeof y, b), c);
}

static void label(char *buf, size_t n, const struct run_result *r)
{
    snprintf(buf, n, "%s#%d", r->run->source, r->run->index);
}

/* A role's share of a core, used / wanted, or "-". */
static void share_cell(char *b, size_t n, const struct cpu_role *ro, int wanted)
{
    double v = wanted ? ro->wanted : ro->used;
    if (!ro->known || isnan(v))
        snprintf(b, n, "-");
    else
        snprintf(b, n, "%.0f%%", 100 * v);
}

/* The CPU sections of both runs side by side: the samples' shares, stage
 * time alone and beside others, the verdict. */
static void diff_cpu(FILE *f, const struct run_result *a, const struct run_result *b)
{
    static const char *const rows[4] = {"cpu: synthesis used", "cpu: synthesis wanted", "cpu: GPU workers used",
                                  "cpu: GPU workers wanted"};
    char x[32], y[32], c[32];
    for (int i = 0; i < 4; i++) {
        const struct cpu_role *ra = i < 2 ? &a->cpu.synth : &a->cpu.gpu, *rb = i < 2 ? &b->cpu.synth : &b->cpu.gpu;
        if (!ra->known && !rb->known)
            continue;
        share_cell(x, sizeof x, ra, i & 1);
        share_cell(y, sizeof y, rb, i & 1);
        c[0] = 0;
        if (ra->known && rb->known) {
            double va = i & 1 ? ra->wanted : ra->used, vb = i & 1 ? rb->wanted : rb->used;
            if (!isnan(va) && !isnan(vb))
                snprintf(c, sizeof c, "%+.0f points", 100 * (vb - va));
        }
        diff_row(f, rows[i], x, y, c);
    }
    for (int st = 0; st < 2; st++) {
        const char *what = st ? "cpu: GPU phase" : "cpu: synthesis";
        double sa = st ? a->cpu.gpu_slower : a->cpu.synth_slower, sb = st ? b->cpu.gpu_slower : b->cpu.synth_slower;
        if (isnan(sa) && isnan(sb))
            continue;
        char name[48];
        snprintf(name, sizeof name, "%s beside/alone", what + 5);
        snprintf(x, sizeof x, isnan(sa) ? "-" : "%.2fx", sa);
        snprintf(y, sizeof y, isnan(sb) ? "-" : "%.2fx", sb);
        diff_row(f, name, x, y, "");
    }
    diff_row(f, "cpu: contention", a->cpu.contention ? "yes" : "no", b->cpu.contention ? "yes" : "no", "");
}

/* A's phase of b's row's name (the same within), or NULL. */
static const struct phase_row *same_phase(const struct run_result *a, const struct run_result *b,
                                          const struct phase_row *row)
{
    size_t n, m;
    const char *nm = phase_label(b->run, row, &n);
    for (size_t i = 0; i < a->phase.nrows; i++) {
        const struct phase_row *o = &a->phase.rows[i];
        const char *on = phase_label(a->run, o, &m);
        if (o->within == row->within && m == n && !memcmp(on, nm, n))
            return o;
    }
    return NULL;
}

/* The GPU sub-phases' means side by side: A's rows, then B's that A has
 * not.  Where either run has duration lines (the rows a real daemon's
 * GPU library gives); other runs' diffs are as they were. */
static void diff_phases(FILE *f, const struct run_result *a, const struct run_result *b)
{
    if (!a->run->dur.placed && !b->run->dur.placed && !a->run->dur.spawn_placed && !b->run->dur.spawn_placed)
        return;
    /* how many units each side's means are over: a side whose calls were
     * mostly not given has means of a few */
    char ua[24], ub[24];
    snprintf(ua, sizeof ua, "%llu", (unsigned long long)a->run->dur.units);
    snprintf(ub, sizeof ub, "%llu", (unsigned long long)b->run->dur.units);
    diff_row(f, "  units given a call", ua, ub, "");
    for (int side = 0; side < 2; side++) {
        const struct run_result *x = side ? b : a, *y = side ? a : b;
        for (size_t i = 0; i < x->phase.nrows; i++) {
            const struct phase_row *row = &x->phase.rows[i], *o = same_phase(y, x, row);
            if (row->within != WITHIN_GPU || (side && o))
                continue;
            size_t n;
            const char *nm = phase_label(x->run, row, &n);
            char name[40];
            snprintf(name, sizeof name, "  phase: %.*s", (int)(n > 29 ? 29 : n), nm);
            double mx = row->st.mean, my = o ? o->st.mean : NAN;
            diff_dur(f, name, side ? my : mx, side ? mx : my);
        }
    }
}

void report_diff_text(FILE *f, const struct run_result *a, const struct run_result *b,
                      const struct report_opts *o)
{
    struct paint p = paint_for(o);
    char la[256], lb[256], x[32], y[32], c[32];
    label(la, sizeof la, a);
    label(lb, sizeof lb, b);
    fprintf(f, "%sA%s %s\n%sB%s %s\n\n", p.bold, p.off, la, p.bold, p.off, lb);
    fprintf(f, "  %s%-22s %14s %14s   %s%s\n", p.dim, "", "A", "B", "change", p.off);
    snprintf(x, sizeof x, isnan(a->utilization) ? "-" : "%.1f%%", 100 * a->utilization);
    snprintf(y, sizeof y, isnan(b->utilization) ? "-" : "%.1f%%", 100 * b->utilization);
    snprintf(c, sizeof c, isnan(a->utilization) || isnan(b->utilization) ? "" : "%+.1f points",
             100 * (b->utilization - a->utilization));
    diff_row(f, "GPU utilization", x, y, c);
    if (a->phase.has_kernel || b->phase.has_kernel) {
        double ka = a->phase.kernel_utilization, kb = b->phase.kernel_utilization;
        snprintf(x, sizeof x, isnan(ka) ? "-" : "%.1f%%", 100 * ka);
        snprintf(y, sizeof y, isnan(kb) ? "-" : "%.1f%%", 100 * kb);
        snprintf(c, sizeof c, isnan(ka) || isnan(kb) ? "" : "%+.1f points", 100 * (kb - ka));
        diff_row(f, "kernel utilization", x, y, c);
    }
    diff_phases(f, a, b);
    diff_dur(f, "s per job", a->s_per_job, b->s_per_job);
    diff_dur(f, "steady s per job", a->steady_s_per_job, b->steady_s_per_job);
    diff_dur(f, "idle", (double)a->idle, (double)b->idle);
    for (int k = 0; k < CAUSE_N; k++) {
        char name[40];
        snprintf(name, sizeof name, "  idle: %s", cause_names[k]);
        diff_dur(f, name, (double)a->by_cause[k], (double)b->by_cause[k]);
    }
    for (int s = 0; s < ST_N; s++) {
        char name[40];
        snprintf(name, sizeof name, "%s p50", stage_names[s]);
        diff_dur(f, name, a->stage[s].count ? a->stage[s].p50 : NAN, b->stage[s].count ? b->stage[s].p50 : NAN);
    }
    snprintf(x, sizeof x, "%d", a->synth_max);
    snprintf(y, sizeof y, "%d", b->synth_max);
    diff_row(f, "synthesis concurrency", x, y, "");
    diff_cpu(f, a, b);
    /* the kind of contention, where samples told it on either side */
    const char *ka = a->cpu.contention && a->cpu.kind ? kind_names[a->cpu.kind] : "-";
    const char *kb = b->cpu.contention && b->cpu.kind ? kind_names[b->cpu.kind] : "-";
    if (a->cpu.source == CPU_SRC_SAMPLES || b->cpu.source == CPU_SRC_SAMPLES)
        diff_row(f, "contention kind", ka, kb, "");
    diff_row(f, "bottleneck", a->bottleneck ? bottleneck_names[a->bottleneck] : "-",
             b->bottleneck ? bottleneck_names[b->bottleneck] : "-", "");
}
