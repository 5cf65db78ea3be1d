/*
 * view.c -- what watch shows: a screen redrawn in place (like top) when
 * stdout is a terminal, or one JSON object per interval (--json-lines).
 */
#include "view.h"

#include "fmt.h"
#include "render.h"

#include <stdio.h>
#include <string.h>

static double sec(int64_t ns)
{
    return (double)ns / 1e9;
}

static void totals(const struct live *l, int64_t *busy, int64_t *idle, int64_t by[CAUSE_N])
{
    *busy = *idle = 0;
    memset(by, 0, CAUSE_N * sizeof *by);
    for (size_t i = 0; i < l->ndev; i++) {
        *busy += l->dev[i].busy;
        *idle += l->dev[i].idle;
        for (int c = 0; c < CAUSE_N; c++)
            by[c] += l->dev[i].by_cause[c];
    }
}

static void json_causes(FILE *f, const int64_t by[CAUSE_N])
{
    fputc('{', f);
    for (int c = 0; c < CAUSE_N; c++) {
        fprintf(f, "%s\"%s\":", c ? "," : "", cause_names[c]);
        json_num(f, sec(by[c]));
    }
    fputc('}', f);
}

static void json_util(FILE *f, int64_t busy, int64_t idle)
{
    if (busy + idle > 0)
        json_num(f, (double)busy / (double)(busy + idle));
    else
        fputs("null", f);
}

void view_json(FILE *f, const struct live *l, int bottleneck, const char *state)
{
    int64_t busy, idle, by[CAUSE_N];
    totals(l, &busy, &idle, by);
    struct live_now now;
    live_now(l, &now);
    fprintf(f, "{\"state\":\"%s\",\"runs\":%d,\"log_s\":", state, l->run);
    json_num(f, l->run ? sec(l->run_max) : 0);
    fputs(",\"settled_s\":", f);
    json_num(f, l->run && l->horizon > INT64_MIN ? sec(l->horizon == OPEN ? l->run_max : l->horizon) : 0);
    fprintf(f, ",\"records\":%llu,\"skipped\":%llu,\"late\":%llu,\"duplicates\":%llu,\"units_completed\":%llu",
            (unsigned long long)l->records, (unsigned long long)l->skipped, (unsigned long long)l->late,
            (unsigned long long)l->duplicates, (unsigned long long)l->units_completed);
    fputs(",\"busy_s\":", f);
    json_num(f, sec(busy));
    fputs(",\"idle_s\":", f);
    json_num(f, sec(idle));
    fputs(",\"utilization\":", f);
    json_util(f, busy, idle);
    fputs(",\"idle_by_cause\":", f);
    json_causes(f, by);
    fputs(",\"devices\":[", f);
    for (size_t i = 0; i < l->ndev; i++) {
        const struct live_dev *d = &l->dev[i];
        fprintf(f, "%s{\"device\":%d,\"busy_s\":", i ? "," : "", d->device);
        json_num(f, sec(d->busy));
        fputs(",\"idle_s\":", f);
        json_num(f, sec(d->idle));
        fputs(",\"idle_by_cause\":", f);
        json_causes(f, d->by_cause);
        fputs(",\"kernel_busy_s\":", f); /* as analyze's runs sum it */
        int64_t kns;
        if (live_kernel_runs(d, &kns))
            json_num(f, sec(kns));
        else
            fputs("null", f);
        fputc('}', f);
    }
    fprintf(f, "],\"recent\":{\"seconds\":%lld,\"utilization\":", (long long)(l->o.recent_ns / 1000000000));
    json_util(f, now.busy, now.by_cause[0] + now.by_cause[1] + now.by_cause[2] + now.by_cause[3]);
    fputs(",\"idle_by_cause\":", f);
    json_causes(f, now.by_cause);
    fputs("},\"in_flight\":{", f);
    for (int s = 0; s < ST_N; s++)
        fprintf(f, "%s\"%s\":%zu", s ? "," : "", stage_names[s], now.in_flight[s]);
    fputs("},\"stages\":{", f);
    for (int s = 0; s < ST_N; s++) {
        fprintf(f, "%s\"%s\":{\"count\":%llu,\"sum_s\":", s ? "," : "", stage_names[s],
                (unsigned long long)l->stage[s].count);
        json_num(f, sec(l->stage[s].sum_ns));
        fputc('}', f);
    }
    fputs("},\"bottleneck\":", f);
    if (bottleneck > BN_NONE)
        fprintf(f, "\"%s\"", bottleneck_names[bottleneck]);
    else
        fputs("null", f);
    fputs("}\n", f);
}

static void pct(FILE *f, int64_t part, int64_t whole)
{
    if (whole > 0)
        fprintf(f, "%5.1f%%", 100.0 * (double)part / (double)whole);
    else
        fputs("    - ", f);
}

/* One line: utilization, then idle by cause, as shares of the window. */
static void share_line(FILE *f, const char *label, int64_t busy, const int64_t by[CAUSE_N])
{
    int64_t whole = busy;
    for (int c = 0; c < CAUSE_N; c++)
        whole += by[c];
    fprintf(f, "%-16s", label);
    pct(f, busy, whole);
    fputs("  ", f);
    for (int c = 0; c < CAUSE_N; c++) {
        pct(f, by[c], whole);
        fputs("  ", f);
    }
    fputs("\x1b[K\n", f);
}

void view_draw(FILE *f, const struct view_screen *v)
{
    const struct live *l = v->l;
    int64_t busy, idle, by[CAUSE_N];
    totals(l, &busy, &idle, by);
    struct live_now now;
    live_now(l, &now);
    char a[32], b[32];
    fputs("\x1b[H", f); /* home: redrawn in place, line by line, each line cleared to its end */
    fprintf(f, "waterfall watch %s   run %d   log %s   settled %s%s\x1b[K\n", v->source, l->run,
            fmt_dur(a, sizeof a, l->run ? (double)l->run_max : 0),
            fmt_dur(b, sizeof b, l->run && l->horizon > INT64_MIN && l->horizon != OPEN ? (double)l->horizon : 0),
            v->status ? v->status : "");
    fprintf(f, "records %llu   skipped %llu   late %llu   units done %llu   in flight %zu (synthesis %zu, "
               "handoff %zu, queue %zu, prep %zu, gpu %zu)\x1b[K\n",
            (unsigned long long)l->records, (unsigned long long)l->skipped, (unsigned long long)l->late,
            (unsigned long long)l->units_completed, now.in_flight_total, now.in_flight[ST_SYNTHESIS],
            now.in_flight[ST_HANDOFF], now.in_flight[ST_QUEUE], now.in_flight[ST_PREP], now.in_flight[ST_GPU]);
    fprintf(f, "\x1b[K\n%-16s  busy   prep   queue  synth  no_work\x1b[K\n", "");
    char label[32];
    snprintf(label, sizeof label, "last %llds", (long long)(l->o.recent_ns / 1000000000));
    share_line(f, label, now.busy, now.by_cause);
    share_line(f, "since start", busy, by);
    fprintf(f, "bottleneck now: %s\x1b[K\n\x1b[K\n",
            v->bottleneck > BN_NONE ? bottleneck_names[v->bottleneck] : "(not enough units yet)");
    if (v->chart && v->chart->run && v->chart->run->nunits)
        render_term(f, v->chart, v->width, v->rows, v->color);
    fputs("\x1b[J", f); /* clear what the last screen had below */
    fprintf(f, "q quits\x1b[K");
    fflush(f);
}
