/*
 * render_chrome.c -- the Chrome trace event format (JSON), which Perfetto
 * UI and chrome://tracing open.
 *
 * One process per run.  Tracks (threads): one per GPU worker, holding each
 * unit's prep and gpu slices; one per synthesis slot, holding synthesis
 * slices; one per device for its idle stretches, each named by its cause.
 * Complete events ("X") never overlap on a track: a slice that would
 * overlap the one before it on its worker's track (bad data) goes to an
 * overflow track of that worker.  Queue waits are async events ("b"/"e").
 * Times are microseconds since the run's epoch.
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

static void us(FILE *f, int64_t ns)
{
    fprintf(f, "%.3f", (double)ns / 1e3);
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
    us(f, b - a);
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

static void run_chrome(FILE *f, const struct run_result *res, int pid, int *first)
{
    const struct run *r = res->run;
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
            r->units[i].t[EV_SYNTH_END] != T_NONE)
            order[n++] = &r->units[i];
    if (order)
        qsort(order, n, sizeof *order, by_synth_start);
    struct lane *slots = NULL;
    size_t nslots = 0;
    for (size_t i = 0; i < n; i++) {
        const struct unit *u = order[i];
        size_t before = nslots;
        int s = lane_pick(&slots, &nslots, u->t[EV_SYNTH_START], u->t[EV_SYNTH_END]);
        if (nslots != before) {
            snprintf(name, sizeof name, "synthesis slot %d", s);
            meta(f, pid, TID_SYNTH + s, "thread_name", name, first);
        }
        slice(f, pid, TID_SYNTH + s, "synthesis", u->t[EV_SYNTH_START], u->t[EV_SYNTH_END], r, u, first);
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
            fprintf(f, "%s\n{\"ph\":\"b\",\"cat\":\"queue\",\"name\":\"queue\",\"id\":%zu,\"pid\":%d,\"tid\":%d,\"ts\":",
                    *first ? "" : ",", i, pid, TID_IDLE);
            us(f, ready);
            fprintf(f, "},\n{\"ph\":\"e\",\"cat\":\"queue\",\"name\":\"queue\",\"id\":%zu,\"pid\":%d,\"tid\":%d,\"ts\":", i,
                    pid, TID_IDLE);
            us(f, pick);
            fputc('}', f);
            *first = 0;
        }
        int64_t a = pick, b = u->t[EV_GPU_END];
        if (a == T_NONE || b == T_NONE)
            continue;
        struct wtrack *w = wtrack_of(&wt, &nwt, u->device, u->worker);
        if (!w)
            break;
        size_t before = w->nlanes;
        int lane = lane_pick(&w->lanes, &w->nlanes, a, b);
        int tid = TID_WORKER + (int)(w - wt) * 1000 + lane;
        if (w->nlanes != before) {
            if (lane == 0)
                snprintf(name, sizeof name, "GPU %d worker %d", u->device, u->worker);
            else
                snprintf(name, sizeof name, "GPU %d worker %d (overlapping units %d)", u->device, u->worker, lane);
            meta(f, pid, tid, "thread_name", name, first);
        }
        if (u->t[EV_GPU_START] != T_NONE && u->t[EV_GPU_START] > a)
            slice(f, pid, tid, "prep", a, u->t[EV_GPU_START], r, u, first);
        if (u->t[EV_GPU_START] != T_NONE)
            slice(f, pid, tid, "gpu", u->t[EV_GPU_START], b, r, u, first);
    }
    for (size_t i = 0; i < nwt; i++)
        free(wt[i].lanes);
    free(wt);
}

int render_chrome(FILE *f, const struct run_result *res, size_t nres)
{
    fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"waterfall\"},\"traceEvents\":[", f);
    int first = 1;
    for (size_t i = 0; i < nres; i++)
        run_chrome(f, &res[i], (int)i + 1, &first);
    fputs("\n]}\n", f);
    return ferror(f) ? -1 : 0;
}
