/*
 * render_chrome.c -- the Chrome trace event format (JSON), which Perfetto
 * UI and chrome://tracing open.
 *
 * One process per run.  Tracks (threads): one per GPU worker, holding each
 * unit's prep and gpu slices; one per synthesis slot, holding synthesis
 * slices; one per device for its idle stretches, each named by its cause.
 * Complete events ("X") never overlap on a track: a slice that would
 * overlap the one before it on its worker's track (bad data) goes to an
 * overflow track of that worker.  Queue waits are async events ("b"/"e"),
 * their ids scoped to the run's process (id2.local: Perfetto merges plain
 * ids across processes).  A unit that never finished a stage (no
 * SYNTH_END, no GPU_END) is drawn to the run's last event, named so.
 *
 * Times are microseconds since the run's first event (otherData.time_origin_s
 * holds it per process), as multiples of 1/1024 us: such numbers are exact
 * in decimal and in binary, so a viewer's ts + dur of one slice equals the
 * next slice's ts to the bit (with ns rounded to thousandths, 46 of 302
 * back-to-back pairs overlapped by 1e-9 us in double precision, and
 * speedscope's stack broke on them).
 */
#include "render.h"

#include "report.h"

#include <stdlib.h>
#include <string.h>

/* Track ids within a run's process. */
enum { TID_IDLE = 1, TID_SYNTH = 100, TID_WORKER = 10000 };

struct lane {
    int64_t last_end;
};

/* First lane of lanes[0..n) free at start; grows n when none is. */
static int lane_pick(struct lane **lanes, size_t *n, int64_t start, int64_t end)
{
    if (*n >= 999) /* a limit on lanes; past it the busiest lane takes it */
        return 998;
    for (size_t i = 0; i < *n; i++)
        if ((*lanes)[i].last_end <= start) {
            (*lanes)[i].last_end = end;
            return (int)i;
        }
    struct lane *nl = realloc(*lanes, (*n + 1) * sizeof *nl);
    if (!nl)
        return 0; /* out of memory: overlap on lane 0 rather than fail */
    *lanes = nl;
    nl[*n].last_end = end;
    return (int)(*n)++;
}

static int64_t time_origin; /* the run's first event, ns */

/* ns since the run's origin in 1/1024 us (rounded to nearest). */
static int64_t q1024(int64_t ns)
{
    __int128 v = ((__int128)ns - time_origin) * 1024;
    return (int64_t)(v >= 0 ? (v + 500) / 1000 : -((-v + 500) / 1000));
}

/* A q1024 value as an exact decimal number of microseconds. */
static void dyadic(FILE *f, int64_t q)
{
    uint64_t m = q < 0 ? (uint64_t)(-(q + 1)) + 1 : (uint64_t)q;
    uint64_t frac = (m & 1023) * 9765625ull; /* 10^10 / 1024: ten decimals, exact */
    fprintf(f, "%s%llu", q < 0 ? "-" : "", (unsigned long long)(m >> 10));
    if (frac) {
        char d[11];
        snprintf(d, sizeof d, "%010llu", (unsigned long long)frac);
        int n = 10;
        while (n > 0 && d[n - 1] == '0')
            n--;
        fprintf(f, ".%.*s", n, d);
    }
}

static void us(FILE *f, int64_t ns)
{
    dyadic(f, q1024(ns));
}

static void meta(FILE *f, int pid, int tid, const char *what, const char *name, int *first)
{
    fprintf(f, "%s\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\",\"args\":{\"name\":", *first ? "" : ",",
            pid, tid, what);
    json_str(f, name, strlen(name));
    fputs("}}", f);
    *first = 0;
}

static void slice(FILE *f, int pid, int tid, const char *name, int64_t a, int64_t b, const struct run *r,
                  const struct unit *u, int *first)
{
    fprintf(f, "%s\n{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\",\"ts\":", *first ? "" : ",", pid, tid,
            name);
    us(f, a);
    fputs(",\"dur\":", f);
    dyadic(f, q1024(b) - q1024(a)); /* so that ts + dur is the next ts exactly */
    if (u) {
        fputs(",\"args\":{\"job\":", f);
        json_str(f, r->jobs[u->job].id, r->jobs[u->job].len);
        if (u->partition >= 0)
            fprintf(f, ",\"partition\":%d", u->partition);
        fputc('}', f);
    }
    fputc('}', f);
    *first = 0;
}

/* Worker tracks: (device, worker) -> tid, with overflow lanes. */
struct wtrack {
    int32_t device, worker;
    struct lane *lanes;
    size_t nlanes;
};

static struct wtrack *wtrack_of(struct wtrack **w, size_t *n, int32_t device, int32_t worker)
{
    for (size_t i = 0; i < *n; i++)
        if ((*w)[i].device == device && (*w)[i].worker == worker)
            return &(*w)[i];
    struct wtrack *nw = realloc(*w, (*n + 1) * sizeof *nw);
    if (!nw)
        return NULL;
    *w = nw;
    nw[*n] = (struct wtrack){device, worker, NULL, 0};
    return &nw[(*n)++];
}

static int by_synth_start(const void *a, const void *b)
{
    const struct unit *x = *(const struct unit *const *)a, *y = *(const struct unit *const *)b;
    return (x->t[EV_SYNTH_START] > y->t[EV_SYNTH_START]) - (x->t[EV_SYNTH_START] < y->t[EV_SYNTH_START]);
}

/* The run's first and last event times. */
static void run_span(const struct run *r, int64_t *first_t, int64_t *last_t)
{
    *first_t = INT64_MAX;
    *last_t = INT64_MIN;
    for (size_t i = 0; i < r->nunits; i++)
        for (int e = 0; e < EV_N; e++)
            if (r->units[i].t[e] != T_NONE) {
                if (r->units[i].t[e] < *first_t)
                    *first_t = r->units[i].t[e];
                if (r->units[i].t[e] > *last_t)
                    *last_t = r->units[i].t[e];
            }
    if (*first_t == INT64_MAX)
        *first_t = *last_t = 0;
}

static void run_chrome(FILE *f, const struct run_result *res, int pid, int *first)
{
    const struct run *r = res->run;
    int64_t last;
    run_span(r, &time_origin, &last);
    char name[512];
    snprintf(name, sizeof name, "%s run %d%s", r->source, r->index, r->native ? "" : " (text log)");
    meta(f, pid, TID_IDLE, "process_name", name, first);

    /* Idle stretches, one track per device, named by cause. */
    for (size_t d = 0; d < res->ndev; d++) {
        const struct device_result *dv = &res->dev[d];
        snprintf(name, sizeof name, "GPU %d idle (by cause)", dv->device);
        meta(f, pid, TID_IDLE + (int)d, "thread_name", name, first);
        for (size_t i = 0; i < dv->nsegs; i++) {
            const struct idle_seg *s = &dv->segs[i];
            char nm[32];
            snprintf(nm, sizeof nm, "idle: %s", cause_names[s->cause]);
            slice(f, pid, TID_IDLE + (int)d, nm, s->start, s->end, r, NULL, first);
        }
    }

    /* Synthesis slots: interval partitioning by start. */
    const struct unit **order = malloc((r->nunits ? r->nunits : 1) * sizeof *order);
    size_t n = 0;
    for (size_t i = 0; order && i < r->nunits; i++)
        if (!(r->units[i].flags & U_CONTRA) && r->units[i].t[EV_SYNTH_START] != T_NONE &&
            (r->units[i].t[EV_SYNTH_END] != T_NONE || r->units[i].t[EV_SYNTH_START] < last))
            order[n++] = &r->units[i];
    if (order)
        qsort(order, n, sizeof *order, by_synth_start);
    struct lane *slots = NULL;
    size_t nslots = 0;
    for (size_t i = 0; i < n; i++) {
        const struct unit *u = order[i];
        size_t before = nslots;
        /* as the analysis has it: to SYNTH_END, else to the unit's next
         * event; a synthesis that never ended (failed, dropped) to the
         * run's last event */
        int64_t end = T_NONE;
        for (int e = EV_SYNTH_END; e < EV_N && end == T_NONE; e++)
            end = u->t[e];
        int open = end == T_NONE;
        if (open)
            end = last;
        int s = lane_pick(&slots, &nslots, u->t[EV_SYNTH_START], end);
        if (nslots != before) {
            snprintf(name, sizeof name, "synthesis slot %d", s);
            meta(f, pid, TID_SYNTH + s, "thread_name", name, first);
        }
        slice(f, pid, TID_SYNTH + s,
              open ? "synthesis (unfinished: no SYNTH_END)"
              : u->t[EV_SYNTH_END] == T_NONE ? "synthesis (no SYNTH_END)"
                                              : "synthesis",
              u->t[EV_SYNTH_START], end, r, u, first);
    }
    free(slots);
    free(order);

    /* Worker tracks: prep and gpu slices; queue waits as async events. */
    struct wtrack *wt = NULL;
    size_t nwt = 0;
    for (size_t i = 0; i < r->nunits; i++) {
        const struct unit *u = &r->units[i];
        if (u->flags & U_CONTRA)
            continue;
        int64_t ready = u->t[EV_CHAN_SEND] != T_NONE ? u->t[EV_CHAN_SEND] : u->t[EV_SYNTH_END];
        int64_t pick = u->t[EV_GPU_PICKUP] != T_NONE ? u->t[EV_GPU_PICKUP] : u->t[EV_GPU_START];
        if (ready != T_NONE && pick != T_NONE && pick > ready) {
            fprintf(f,
                    "%s\n{\"ph\":\"b\",\"cat\":\"queue\",\"name\":\"queue\",\"id2\":{\"local\":\"0x%zx\"},\"pid\":%d,"
                    "\"tid\":%d,\"ts\":",
                    *first ? "" : ",", i, pid, TID_IDLE);
            us(f, ready);
            fprintf(f,
                    "},\n{\"ph\":\"e\",\"cat\":\"queue\",\"name\":\"queue\",\"id2\":{\"local\":\"0x%zx\"},\"pid\":%d,"
                    "\"tid\":%d,\"ts\":",
                    i, pid, TID_IDLE);
            us(f, pick);
            fputc('}', f);
            *first = 0;
        }
        int64_t a = pick, b = u->t[EV_GPU_END];
        if (a == T_NONE)
            continue;
        int open = b == T_NONE; /* never finished: drawn to the run's last event */
        if (open)
            b = last;
        if (b <= a && open)
            continue;
        struct wtrack *w = wtrack_of(&wt, &nwt, u->device, u->worker);
        if (!w)
            break;
        size_t before = w->nlanes;
        int lane = lane_pick(&w->lanes, &w->nlanes, a, b);
        int tid = TID_WORKER + (int)(w - wt) * 1000 + lane;
        if (w->nlanes != before) {
            char wn[32] = "(no worker= in the log)";
            if (u->worker >= 0)
                snprintf(wn, sizeof wn, "worker %d", u->worker);
            if (lane == 0)
                snprintf(name, sizeof name, "GPU %d %s", u->device, wn);
            else
                snprintf(name, sizeof name, "GPU %d %s (overlapping units %d)", u->device, wn, lane);
            meta(f, pid, tid, "thread_name", name, first);
        }
        int64_t gs = u->t[EV_GPU_START];
        if (gs == T_NONE)
            slice(f, pid, tid, open ? "prep (unfinished: no GPU_START)" : "prep (no GPU_START)", a, b, r, u, first);
        else if (gs > a)
            slice(f, pid, tid, "prep", a, gs, r, u, first);
        if (gs != T_NONE)
            slice(f, pid, tid, open ? "gpu (unfinished: no GPU_END)" : "gpu", gs, b, r, u, first);
    }
    for (size_t i = 0; i < nwt; i++)
        free(wt[i].lanes);
    free(wt);
}

int render_chrome(FILE *f, const struct run_result *res, size_t nres)
{
    fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"waterfall\",\"time_origin_s\":{", f);
    for (size_t i = 0; i < nres; i++) { /* each process's ts 0, in the run's own seconds */
        int64_t a, b;
        run_span(res[i].run, &a, &b);
        char t[40];
        fprintf(f, "%s\"%zu\":%s", i ? "," : "", i + 1, fmt_secs_exact(t, sizeof t, a));
    }
    fputs("}},\"traceEvents\":[", f);
    int first = 1;
    for (size_t i = 0; i < nres; i++)
        run_chrome(f, &res[i], (int)i + 1, &first);
    fputs("\n]}\n", f);
    return ferror(f) ? -1 : 0;
}
