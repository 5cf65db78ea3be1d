/*
 * render_chrome.c -- the Chrome trace event format (JSON), which Perfetto
 * UI and chrome://tracing open.
 *
 * One process per run.  Tracks (threads): one per GPU worker, holding each
 * unit's prep and gpu slices; one per synthesis slot, holding synthesis
 * slices; one per device for its idle stretches, each named by its cause.
 * A unit's phases (phase.h) inside its GPU phase, or inside its synthesis,
 * are slices nested in that slice on its track, named by the phase; one
 * that overlaps a sibling without holding it (it could not nest) is an
 * async slice there instead.  Marks are instant events ("i") on the track
 * of the unit's slice they fall in, else on the run's process.  Complete
 * events ("X") nest properly on a track: top-level ones never overlap (a
 * slice that would overlap the one before it on its worker's track, bad
 * data, goes to an overflow track of that worker), each child lies within
 * its parent.  Args hold the job, partition and kind=, a queue wait's the
 * event it began at (GPU_QUEUE where the log wrote that).  Queue waits are async events ("b"/"e"),
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

/* The run being written, as one process: its id, and its origin (the
 * run's first event, ns), each run's own. */
struct proc {
    int pid;
    int64_t origin;
};

/* ns since the run's origin in 1/1024 us (rounded to nearest). */
static int64_t q1024(const struct proc *pr, int64_t ns)
{
    __int128 v = ((__int128)ns - pr->origin) * 1024;
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

static void us(FILE *f, const struct proc *pr, int64_t ns)
{
    dyadic(f, q1024(pr, ns));
}

static void meta(FILE *f, const struct proc *pr, int tid, const char *what, const char *name, int *first)
{
    fprintf(f, "%s\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\",\"args\":{\"name\":", *first ? "" : ",",
            pr->pid, tid, what);
    json_str(f, name, strlen(name));
    fputs("}}", f);
    *first = 0;
}

/* A unit's args: job, partition, kind=, and (from) the event a wait began at. */
static void unit_args(FILE *f, const struct run *r, const struct unit *u, const char *from)
{
    fputs(",\"args\":{\"job\":", f);
    json_str(f, r->jobs[u->job].id, r->jobs[u->job].len);
    if (u->partition >= 0)
        fprintf(f, ",\"partition\":%d", u->partition);
    size_t kl;
    const char *kind = r->nxattr ? unit_attr(r, (uint32_t)(u - r->units), "kind", &kl) : NULL;
    if (kind) {
        fputs(",\"kind\":", f);
        json_str(f, kind, kl);
    }
    if (from)
        fprintf(f, ",\"from\":\"%s\"", from);
    fputc('}', f);
}

static void slice(FILE *f, const struct proc *pr, int tid, const char *name, int64_t a, int64_t b, const struct run *r,
                  const struct unit *u, int *first)
{
    fprintf(f, "%s\n{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\",\"ts\":", *first ? "" : ",", pr->pid, tid,
            name);
    us(f, pr, a);
    fputs(",\"dur\":", f);
    dyadic(f, q1024(pr, b) - q1024(pr, a)); /* so that ts + dur is the next ts exactly */
    if (u)
        unit_args(f, r, u, NULL);
    fputc('}', f);
    *first = 0;
}

/* Where a unit's slices went: its synthesis slice's track and its GPU
 * phase's (0: none). */
struct placed {
    int stid, wtid;
};

struct qph { /* a phase in q1024 */
    int64_t qa, qb;
    size_t j;
};

static int qph_cmp(const void *x, const void *y)
{
    const struct qph *a = x, *b = y;
    if (a->qa != b->qa)
        return a->qa < b->qa ? -1 : 1;
    if (a->qb != b->qb)
        return a->qb > b->qb ? -1 : 1; /* the longer first: it holds the other */
    return (a->j > b->j) - (a->j < b->j);
}

/* Unit u's phases within `within` as slices nested in its slice [pa, pb]
 * on (pid, tid): a stack of the open ones, each child within the one on
 * top, in the q1024 times the viewer sees (so that a child ends exactly
 * where its parent does); one that would end past the slice on top (it
 * overlaps a sibling without holding it) becomes an async slice. */
static int nested(FILE *f, const struct proc *pr, int tid, const struct run *r, const struct unit *u,
                  const struct uphase *up, size_t np, int within, int64_t pa, int64_t pb, size_t *async_id, int *first)
{
    size_t n = 0;
    for (size_t j = 0; j < np; j++)
        n += !up[j].mark && up[j].within == within;
    if (!n)
        return 0;
    struct qph *q = malloc(n * sizeof *q);
    int64_t *stack = malloc((n + 1) * sizeof *stack);
    if (!q || !stack) {
        free(q);
        free(stack);
        return -1;
    }
    n = 0;
    for (size_t j = 0; j < np; j++)
        if (!up[j].mark && up[j].within == within)
            q[n++] = (struct qph){q1024(pr, up[j].start), q1024(pr, up[j].end), j};
    qsort(q, n, sizeof *q, qph_cmp);
    size_t depth = 1;
    stack[0] = q1024(pr, pb);
    (void)pa; /* within: the phase lies inside [pa, pb] (phase.h) */
    for (size_t k = 0; k < n; k++) {
        while (depth > 1 && stack[depth - 1] <= q[k].qa && stack[depth - 1] < q[k].qb)
            depth--;
        size_t nl;
        const char *nm = uphase_name(r, &up[q[k].j], &nl);
        if (q[k].qb <= stack[depth - 1]) {
            fprintf(f, "%s\n{\"ph\":\"X\",\"cat\":\"phase\",\"pid\":%d,\"tid\":%d,\"name\":", *first ? "" : ",",
                    pr->pid, tid);
            json_str(f, nm, nl);
            fputs(",\"ts\":", f);
            dyadic(f, q[k].qa);
            fputs(",\"dur\":", f);
            dyadic(f, q[k].qb - q[k].qa);
            unit_args(f, r, u, NULL);
            fputc('}', f);
            stack[depth++] = q[k].qb;
        } else {
            for (int e = 0; e < 2; e++) {
                fprintf(f, "%s\n{\"ph\":\"%c\",\"cat\":\"phase\",\"id2\":{\"local\":\"0x%zx\"},\"pid\":%d,"
                           "\"tid\":%d,\"name\":",
                        *first && !e ? "" : ",", e ? 'e' : 'b', *async_id, pr->pid, tid);
                json_str(f, nm, nl);
                fputs(",\"ts\":", f);
                dyadic(f, e ? q[k].qb : q[k].qa);
                if (!e)
                    unit_args(f, r, u, NULL);
                fputc('}', f);
            }
            ++*async_id;
        }
        *first = 0;
    }
    free(q);
    free(stack);
    return 0;
}

/* A unit's phases and marks: nested in its GPU and synthesis slices, the
 * marks on the track of the slice they fall in, else on the process. */
static int unit_phases_chrome(FILE *f, const struct proc *pr, const struct run *r, uint32_t ui, const struct placed *pl,
                              struct uphase **up, size_t *upcap, size_t *async_id, int *first)
{
    const struct unit *u = &r->units[ui];
    size_t np = unit_phases(r, ui, up, upcap);
    if (np == (size_t)-1)
        return -1;
    if (!np)
        return 0;
    if (pl->wtid && nested(f, pr, pl->wtid, r, u, *up, np, WITHIN_GPU, u->t[EV_GPU_START], u->t[EV_GPU_END],
                           async_id, first))
        return -1;
    if (pl->stid && nested(f, pr, pl->stid, r, u, *up, np, WITHIN_SYNTHESIS, u->t[EV_SYNTH_START],
                           u->t[EV_SYNTH_END], async_id, first))
        return -1;
    for (size_t j = 0; j < np; j++) {
        const struct uphase *p = &(*up)[j];
        if (!p->mark)
            continue;
        int tid = 0;
        if (pl->wtid && p->start >= u->t[EV_GPU_START] && p->start <= u->t[EV_GPU_END])
            tid = pl->wtid;
        else if (pl->stid && u->t[EV_SYNTH_END] != T_NONE && p->start >= u->t[EV_SYNTH_START] &&
                 p->start <= u->t[EV_SYNTH_END])
            tid = pl->stid;
        size_t nl;
        const char *nm = uphase_name(r, p, &nl);
        fprintf(f, "%s\n{\"ph\":\"i\",\"cat\":\"mark\",\"s\":\"%c\",\"pid\":%d,\"tid\":%d,\"name\":",
                *first ? "" : ",", tid ? 't' : 'p', pr->pid, tid ? tid : TID_IDLE);
        json_str(f, nm, nl);
        fputs(",\"ts\":", f);
        us(f, pr, p->start);
        unit_args(f, r, u, NULL);
        fputc('}', f);
        *first = 0;
    }
    return 0;
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

/* The idle stretches: one track per device, each slice named by its cause. */
static void chrome_idle_tracks(FILE *f, const struct run_result *res, const struct proc *pr, int *first)
{
    char name[64];
    for (size_t d = 0; d < res->ndev; d++) {
        const struct device_result *dv = &res->dev[d];
        snprintf(name, sizeof name, "GPU %d idle (by cause)", dv->device);
        meta(f, pr, TID_IDLE + (int)d, "thread_name", name, first);
        for (size_t i = 0; i < dv->nsegs; i++) {
            const struct idle_seg *s = &dv->segs[i];
            char nm[32];
            snprintf(nm, sizeof nm, "idle: %s", cause_names[s->cause]);
            slice(f, pr, TID_IDLE + (int)d, nm, s->start, s->end, res->run, NULL, first);
        }
    }
}

/* The synthesis slots: each unit's synthesis slice, on the first slot free
 * at its start (interval partitioning by start). */
static void chrome_synth_slots(FILE *f, const struct run *r, const struct proc *pr, int64_t last, struct placed *pl,
                               int *first)
{
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
            char name[32];
            snprintf(name, sizeof name, "synthesis slot %d", s);
            meta(f, pr, TID_SYNTH + s, "thread_name", name, first);
        }
        slice(f, pr, TID_SYNTH + s,
              open ? "synthesis (unfinished: no SYNTH_END)"
              : u->t[EV_SYNTH_END] == T_NONE ? "synthesis (no SYNTH_END)"
                                              : "synthesis",
              u->t[EV_SYNTH_START], end, r, u, first);
        if (pl && u->t[EV_SYNTH_END] != T_NONE)
            pl[u - r->units].stid = TID_SYNTH + s;
    }
    free(slots);
    free(order);
}

/* Unit i's queue wait, from ready to pick, as an async pair ("b"/"e") on
 * the process's first track, its id the unit's index. */
static void chrome_queue_wait(FILE *f, const struct run *r, size_t i, int64_t ready, int64_t pick,
                              const struct proc *pr, int *first)
{
    const struct unit *u = &r->units[i];
    fprintf(f,
            "%s\n{\"ph\":\"b\",\"cat\":\"queue\",\"name\":\"queue\",\"id2\":{\"local\":\"0x%zx\"},\"pid\":%d,"
            "\"tid\":%d,\"ts\":",
            *first ? "" : ",", i, pr->pid, TID_IDLE);
    us(f, pr, ready);
    /* the event the wait began at, as the log wrote it */
    unit_args(f, r, u,
              u->t[EV_CHAN_SEND] == T_NONE ? ev_names[EV_SYNTH_END]
              : u->flags & U_QUEUE         ? "GPU_QUEUE"
                                           : ev_names[EV_CHAN_SEND]);
    fprintf(f,
            "},\n{\"ph\":\"e\",\"cat\":\"queue\",\"name\":\"queue\",\"id2\":{\"local\":\"0x%zx\"},\"pid\":%d,"
            "\"tid\":%d,\"ts\":",
            i, pr->pid, TID_IDLE);
    us(f, pr, pick);
    fputc('}', f);
    *first = 0;
}

/* The track of a unit's worker slices from a to b: its worker's first lane
 * free at a (named when new), or -1 when out of memory. */
static int chrome_worker_tid(FILE *f, const struct unit *u, int64_t a, int64_t b, struct wtrack **wt, size_t *nwt,
                             const struct proc *pr, int *first)
{
    struct wtrack *w = wtrack_of(wt, nwt, u->device, u->worker);
    if (!w)
        return -1;
    size_t before = w->nlanes;
    int lane = lane_pick(&w->lanes, &w->nlanes, a, b);
    int tid = TID_WORKER + (int)(w - *wt) * 1000 + lane;
    if (w->nlanes != before) {
        char wn[32] = "(no worker= in the log)", name[96];
        if (u->worker >= 0)
            snprintf(wn, sizeof wn, "worker %d", u->worker);
        if (lane == 0)
            snprintf(name, sizeof name, "GPU %d %s", u->device, wn);
        else
            snprintf(name, sizeof name, "GPU %d %s (overlapping units %d)", u->device, wn, lane);
        meta(f, pr, tid, "thread_name", name, first);
    }
    return tid;
}

/* The worker tracks: each unit's queue wait, then its prep and gpu slices
 * on its worker's track (an overflow lane of it where they would overlap). */
static void chrome_worker_tracks(FILE *f, const struct run *r, const struct proc *pr, int64_t last, struct placed *pl,
                                 int *first)
{
    struct wtrack *wt = NULL;
    size_t nwt = 0;
    for (size_t i = 0; i < r->nunits; i++) {
        const struct unit *u = &r->units[i];
        if (u->flags & U_CONTRA)
            continue;
        int64_t ready = u->t[EV_CHAN_SEND] != T_NONE ? u->t[EV_CHAN_SEND] : u->t[EV_SYNTH_END];
        int64_t pick = u->t[EV_GPU_PICKUP] != T_NONE ? u->t[EV_GPU_PICKUP] : u->t[EV_GPU_START];
        if (ready != T_NONE && pick != T_NONE && pick > ready)
            chrome_queue_wait(f, r, i, ready, pick, pr, first);
        int64_t a = pick, b = u->t[EV_GPU_END];
        if (a == T_NONE)
            continue;
        int open = b == T_NONE; /* never finished: drawn to the run's last event */
        if (open)
            b = last;
        if (b <= a && open)
            continue;
        int tid = chrome_worker_tid(f, u, a, b, &wt, &nwt, pr, first);
        if (tid < 0)
            break;
        int64_t gs = u->t[EV_GPU_START];
        if (gs == T_NONE)
            slice(f, pr, tid, open ? "prep (unfinished: no GPU_START)" : "prep (no GPU_START)", a, b, r, u, first);
        else if (gs > a)
            slice(f, pr, tid, "prep", a, gs, r, u, first);
        if (gs != T_NONE)
            slice(f, pr, tid, open ? "gpu (unfinished: no GPU_END)" : "gpu", gs, b, r, u, first);
        if (pl && gs != T_NONE && !open)
            pl[i].wtid = tid;
    }
    for (size_t i = 0; i < nwt; i++)
        free(wt[i].lanes);
    free(wt);
}

/* The units' phases, nested in the slices placed for them, and their marks. */
static void chrome_phases(FILE *f, const struct run *r, const struct proc *pr, const struct placed *pl, int *first)
{
    struct uphase *up = NULL;
    size_t upcap = 0, async_id = r->nunits; /* past the queue waits' ids */
    for (size_t i = 0; pl && i < r->nunits; i++) {
        if ((r->units[i].flags & U_CONTRA) || !unit_has_phases(r, (uint32_t)i))
            continue;
        if (unit_phases_chrome(f, pr, r, (uint32_t)i, &pl[i], &up, &upcap, &async_id, first))
            break;
    }
    free(up);
}

/* One run as one process: its name, then its tracks. */
static void run_chrome(FILE *f, const struct run_result *res, int pid, int *first)
{
    const struct run *r = res->run;
    struct proc pr = {pid, 0};
    int64_t last;
    run_bounds(r, &pr.origin, &last);
    char name[512];
    snprintf(name, sizeof name, "%s run %d%s%s%s", r->source, r->index, r->prov.label ? " (" : "",
             r->prov.label ? r->prov.label : "", r->prov.label ? ")" : "");
    meta(f, &pr, TID_IDLE, "process_name", name, first);
    chrome_idle_tracks(f, res, &pr, first);
    /* Where each unit's slices went, for its phases and marks. */
    struct placed *pl = run_has_phases(r) ? calloc(r->nunits, sizeof *pl) : NULL;
    chrome_synth_slots(f, r, &pr, last, pl, first);
    chrome_worker_tracks(f, r, &pr, last, pl, first);
    chrome_phases(f, r, &pr, pl, first);
    free(pl);
}

int render_chrome(FILE *f, const struct run_result *res, size_t nres)
{
    fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"waterfall\",\"time_origin_s\":{", f);
    for (size_t i = 0; i < nres; i++) { /* each process's ts 0, in the run's own seconds */
        int64_t a, b;
        run_bounds(res[i].run, &a, &b);
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
