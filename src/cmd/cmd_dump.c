/*
 * cmd_dump.c -- `waterfall dump FILE`: a native trace as TIMELINE text.
 *
 * stdout gets one "TIMELINE,<ms>,<EVENT>,<job_id>,<detail>" line per event
 * in time order and nothing else, so grep, sort and `waterfall analyze` all
 * read it.  Statistics and warnings go to stderr.
 *
 * Another trace (a PyTorch profiler's, read_kineto.c) is dumped as the
 * model holds it: each device operation a unit, its launch, start and end
 * as CHAN_SEND, GPU_START and GPU_END, with its stream as the worker.
 */
#include "analyze.h"
#include "args.h"
#include "cmds.h"
#include "decompress.h"
#include "ingest.h"
#include "input.h"
#include "read_kineto.h"
#include "read_wft.h"
#include "wf_exit.h"
#include "wf_timeline.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static void dump_usage(FILE *f)
{
    fprintf(f,
            "usage: waterfall dump [options] FILE.wft | TRACE.json[.gz]\n"
            "  -p, --precision N  digits after the millisecond point, 0-6 (default 6: nanoseconds,\n"
            "                     so that the text analyses as the trace does)\n"
            "  -s, --stats        print the trace's statistics (stderr) instead of events\n"
            "  --stage STAGE=GLOB a PyTorch trace's CPU ranges named GLOB as STAGE's (synthesis or\n"
            "                     prep; repeatable): the units' stages, as analyze --stage reads them\n"
            "  -h, --help         this help\n"
            "FILE may be - for stdin.\n");
}

/* The gpu line: what came of GPU sampling (format 1.2), then a line per
 * device the driver saw, with its readings. */
static void print_gpu(FILE *f, const struct wft_trace *t)
{
    const struct wft_header *h = &t->hdr;
    if (!t->gpu_seen) {
        if (h->version_minor < 2)
            fprintf(f, "gpu:       not sampled (a trace of format %u.%u, before GPU sampling)\n",
                    h->version_major, h->version_minor);
        else if (!(h->flags & WFT_F_GPU))
            fprintf(f, "gpu:       not sampled (recorded with WATERFALL_GPU=0)\n");
        else
            fprintf(f, "gpu:       sampling was on, but the trace ends before saying what came of it\n");
        return;
    }
    fprintf(f, "gpu:       %s\n", t->gpu.text[0] ? t->gpu.text : "(no words)");
    for (size_t i = 0; i < t->ngpu_devs; i++) {
        const struct wft_gpu_dev *d = &t->gpu_devs[i];
        uint64_t util = 0, rates = 0, clocks = 0;
        double usum = 0, rsum = 0;
        uint32_t mhz_lo = UINT32_MAX, mhz_hi = 0;
        for (size_t k = 0; k < t->ngpu_pts; k++) { /* devices are 64 at most: a scan each */
            const struct wft_gpu_pt *q = &t->gpu_pts[k];
            if (q->device != d->device)
                continue;
            if (q->kind == WFT_GS_UTIL) {
                util++;
                usum += q->value;
            } else if (q->kind == WFT_GS_RATE) {
                rates++;
                rsum += q->value;
            } else if (q->kind == WFT_GS_SM_CLOCK) {
                clocks++;
                mhz_lo = q->value < mhz_lo ? q->value : mhz_lo;
                mhz_hi = q->value > mhz_hi ? q->value : mhz_hi;
            }
        }
        fprintf(f, "  device %u: %s%s%s; driver series %s", d->device, d->name[0] ? d->name : "?",
                d->uuid[0] ? ", " : "", d->uuid, d->flags & WFT_GPUDEV_SERIES ? "kept" : "not kept");
        if (util)
            fprintf(f, ", %llu samples (mean %.1f%%)", (unsigned long long)util, usum / (double)util);
        if (rates)
            fprintf(f, "; %llu rate readings (mean %.1f%%)", (unsigned long long)rates, rsum / (double)rates);
        if (clocks)
            fprintf(f, "; SM clock %u-%u MHz", mhz_lo, mhz_hi);
        fputc('\n', f);
    }
}

/* What came of the rings file (format 1.3), when one was expected. */
static void print_rings(FILE *f, const struct wft_trace *t)
{
    switch (t->rings) {
    case WFT_RINGS_READ:
        fprintf(f, "rings:     %s.rings read: %llu events and %llu definitions its writer had not yet written",
                t->path, (unsigned long long)t->rings_events, (unsigned long long)t->rings_defs);
        if (t->rings_dropped)
            fprintf(f, "; %llu definitions were not kept in it (its journal was full)",
                    (unsigned long long)t->rings_dropped);
        if (t->rings_private)
            fprintf(f, "; %llu threads' rings could not be placed in it (the file could not grow or be mapped): their marks not "
                       "yet written are lost",
                    (unsigned long long)t->rings_private);
        fputc('\n', f);
        break;
    case WFT_RINGS_MISSING:
        fprintf(f, "rings:     %s.rings is missing: the marks not yet written when the recording stopped are lost\n",
                t->path);
        break;
    case WFT_RINGS_OTHER:
        fprintf(f, "rings:     %s.rings is another recording's (its epoch differs): not read\n", t->path);
        break;
    case WFT_RINGS_DAMAGED:
        fprintf(f, "rings:     %s.rings is damaged: not read\n", t->path);
        break;
    case WFT_RINGS_RUNNING:
        fprintf(f, "rings:     %s.rings not read: the recording (pid %u) is still running\n", t->path,
                t->hdr.pid);
        break;
    default:
        break;
    }
}

static void print_stats(FILE *f, const struct wft_trace *t)
{
    const struct wft_header *h = &t->hdr;
    static const char *const clocks[] = {"?", "tsc", "monotonic", "cntvct"};
    char when[64] = "?";
    time_t secs = (time_t)(h->epoch_real_ns / 1000000000);
    struct tm tm;
    if (gmtime_r(&secs, &tm))
        snprintf(when + strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm),
                 sizeof when - 19, ".%06ldZ",
                 (long)((h->epoch_real_ns % 1000000000) / 1000));
    fprintf(f, "trace:     %s (format %u.%u, %llu bytes)\n", t->path, h->version_major,
            h->version_minor, (unsigned long long)t->file_size);
    fprintf(f, "host:      %s, pid %u\n", h->host[0] ? h->host : "?", h->pid);
    fprintf(f, "epoch:     %s\n", when);
    fprintf(f, "clock:     %s, %.6f ticks/ns", h->clock <= 3 ? clocks[h->clock] : "?",
            t->ticks_per_ns);
    if (t->ticks_per_ns != h->ticks_per_ns)
        fprintf(f, " (refined from %u points over %.3f s; %.6f at open)", t->clock_points,
                t->clock_span_s, h->ticks_per_ns);
    fprintf(f, "\n");
    fprintf(f, "recorder:  ring %u events/thread, flush every %u ms, %s when full\n",
            h->ring_events, h->flush_ms, h->flags & WFT_F_BLOCKING ? "blocks" : "drops");
    fprintf(f, "closed:    %s\n",
            t->closed ? "yes" : "no: the recording did not finish (killed, crashed, or still running)");
    print_rings(f, t);

    int64_t first = 0, last = 0;
    if (t->nev) {
        first = last = t->ev[0].ns;
        for (size_t i = 1; i < t->nev; i++) {
            if (t->ev[i].ns < first)
                first = t->ev[i].ns;
            if (t->ev[i].ns > last)
                last = t->ev[i].ns;
        }
    }
    fprintf(f, "events:    %zu", t->nev);
    if (t->nev)
        fprintf(f, " from %.3f ms to %.3f ms (duration %.3f ms)", first / 1e6, last / 1e6,
                (last - first) / 1e6);
    fprintf(f, "\n");
    fprintf(f, "lost:      %llu", (unsigned long long)t->lost);
    if (t->closed) {
        fprintf(f, " (the recorder counted %llu marked, %llu recorded, %llu lost)",
                (unsigned long long)t->end.marked, (unsigned long long)t->end.recorded,
                (unsigned long long)t->end.lost);
    }
    fprintf(f, "\n");
    fprintf(f, "units:     %zu\n", t->nunits);
    fprintf(f, "threads:   %zu\n", t->nthreads);
    int cpu = (h->flags & WFT_F_CPU) != 0;
    fprintf(f, "  %-6s %-8s %-20s %-8s %-8s %12s %10s%s\n", "thread", "tid", "name", "worker",
            "device", "events", "lost", cpu ? "          cpu" : "");
    for (size_t i = 0; i < t->nthreads; i++) {
        const struct wft_thread_info *th = &t->threads[i];
        char w[16] = "-", d[16] = "-";
        if (th->role_changed)
            snprintf(w, sizeof w, "several"); /* each event carries its own */
        else if (th->worker >= 0)
            snprintf(w, sizeof w, "%d", th->worker);
        if (th->device >= 0)
            snprintf(d, sizeof d, "%d", th->device);
        fprintf(f, "  %-6zu %-8u %-20s %-8s %-8s %12llu %10llu", i, th->tid,
                th->name[0] ? th->name : "-", w, d, (unsigned long long)th->events,
                (unsigned long long)th->lost);
        if (cpu)
            fprintf(f, " %10.3f s", (double)th->cpu_ns * 1e-9);
        fputc('\n', f);
    }
    print_gpu(f, t);
    if (!cpu) {
        fprintf(f, "cpu:       not sampled (recorded with WATERFALL_CPU=0, or before format 1.1)\n");
        return;
    }
    struct cpu_use u;
    wft_cpu_use(t, &u);
    free(u.spans); /* dump shows the totals only */
    fprintf(f, "cpu:       %zu samples%s", t->ncpu,
            u.wait_known ? "; a core's share used, and wanted (used + waiting for a core):" : "; a core's share used:");
    if (u.synth_wall_s > 0) {
        fprintf(f, " synthesis threads %.0f%%", 100 * u.synth_cpu_s / u.synth_wall_s);
        if (u.wait_known)
            fprintf(f, " and %.0f%%", 100 * u.synth_want_s / u.synth_wall_s);
        fprintf(f, " while synthesizing (%llu units);", (unsigned long long)u.synth_units);
    }
    if (u.gpu_wall_s > 0) {
        fprintf(f, " GPU workers %.0f%%", 100 * u.gpu_cpu_s / u.gpu_wall_s);
        if (u.wait_known)
            fprintf(f, " and %.0f%%", 100 * u.gpu_want_s / u.gpu_wall_s);
        fprintf(f, " during device time (%llu units)", (unsigned long long)u.gpu_units);
    }
    if (u.synth_wall_s <= 0 && u.gpu_wall_s <= 0)
        fprintf(f, " no synthesis or device interval inside the sampled spans");
    fputc('\n', f);
}

static void print_damage(FILE *f, const struct wft_trace *t)
{
    if (t->corrupt_at)
        fprintf(f, "waterfall: %s: damaged from byte %llu: %llu bytes skipped, %llu bad records; "
                   "everything readable is shown\n",
                t->path, (unsigned long long)t->corrupt_at,
                (unsigned long long)t->corrupt_bytes, (unsigned long long)t->bad_records);
    if (t->torn_at)
        fprintf(f, "waterfall: %s: ends in a torn record at byte %llu (the recording was cut off); "
                   "read up to there\n",
                t->path, (unsigned long long)t->torn_at);
    else if (!t->closed)
        fprintf(f, "waterfall: %s: no end record: the recording did not finish; read up to the "
                   "last complete record\n",
                t->path);
    if (t->lost)
        fprintf(f, "waterfall: %s: %llu events were lost while recording (rings full or write "
                   "errors); --stats shows which threads\n",
                t->path, (unsigned long long)t->lost);
}

static int print_events(const struct wft_trace *t, int precision)
{
    char out[1 << 16]; /* the lines batched per write; on the stack, a call's own */
    size_t n = 0;
    char evbuf[24], jobbuf[32];
    for (size_t i = 0; i < t->nev; i++) {
        const struct wft_ev *e = &t->ev[i];
        const struct wft_unit_info *u = wft_unit_find(t, e->unit);
        const char *job = jobbuf;
        size_t job_len;
        if (u) {
            job = u->job;
            job_len = strlen(u->job);
        } else {
            job_len = (size_t)snprintf(jobbuf, sizeof jobbuf, "unit-%llu",
                                       (unsigned long long)e->unit);
        }
        if (n + WFT_LINE_MAX > sizeof out) {
            if (fwrite(out, 1, n, stdout) != n)
                return -1;
            n = 0;
        }
        n += wft_format_line_details(out + n, e->ns, precision, wft_event_label(t, e->event, evbuf), job,
                                     job_len, u ? u->partition : -1, e->worker, e->device,
                                     u ? u->details : NULL, u ? u->details_len : 0);
    }
    if (fwrite(out, 1, n, stdout) != n || fflush(stdout) != 0)
        return -1;
    return 0;
}

/* ---- another trace, as the model holds it ---- */

struct mev {
    int64_t t;
    uint32_t unit;
    int ev;
};

static int cmp_mev(const void *a, const void *b)
{
    const struct mev *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->unit != y->unit)
        return x->unit < y->unit ? -1 : 1;
    return x->ev - y->ev;
}

/* A run's events, in time order, as TIMELINE lines. */
static int print_run(const struct run *r, int precision)
{
    size_t n = 0;
    struct mev *v = malloc((r->nunits * EV_N + 1) * sizeof *v);
    if (!v)
        return -1;
    for (size_t u = 0; u < r->nunits; u++)
        for (int e = 0; e < EV_N; e++)
            if (r->units[u].t[e] != T_NONE)
                v[n++] = (struct mev){r->units[u].t[e], (uint32_t)u, e};
    qsort(v, n, sizeof *v, cmp_mev);
    char line[WFT_LINE_MAX];
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const struct unit *u = &r->units[v[i].unit];
        const struct job *j = &r->jobs[u->job];
        size_t k = wft_format_line_details(line, v[i].t, precision, ev_names[v[i].ev], j->id, j->len, u->partition,
                                           u->worker, u->device, NULL, 0);
        if (fwrite(line, 1, k, stdout) != k)
            rc = -1;
    }
    free(v);
    return rc;
}

/* Might the input be another reader's trace: a PyTorch trace's JSON, or
 * a compressed input (which may hold one)?  Else the native reader says
 * what it is not (empty, no magic). */
static int other_trace(const struct input *in)
{
    return dz_sniff(in->data, in->len) != DZ_NONE || kineto_sniff(in->data, in->len < 512 ? in->len : 512);
}

/* An input that is not a native trace: read through the readers (a
 * compressed one decompressed first); a trace another reader claims is
 * dumped, a text log is refused (it is TIMELINE text already). */
static int dump_other(const struct input *in, int precision, int stats, const struct stage_map *stages)
{
    /* the bytes again, as a file the readers can read (stdin was read whole) */
    int fd = memfd_create("dump", 0);
    size_t off = 0;
    while (fd >= 0 && off < in->len) {
        ssize_t w = write(fd, in->data + off, in->len - off);
        if (w <= 0) {
            close(fd);
            fd = -1;
        } else {
            off += (size_t)w;
        }
    }
    if (fd < 0 || lseek(fd, 0, SEEK_SET) != 0) {
        fprintf(stderr, "waterfall dump: %s: cannot hold the input to read it (memfd)\n", in->name);
        if (fd >= 0)
            close(fd);
        return WF_EXIT_FAIL;
    }
    char err[512];
    struct source src;
    struct model m = {0};
    m.stages = stages;
    int rc = WF_EXIT_OK;
    if (ingest_fd(&src, fd, in->name, &m, 0, err, sizeof err)) {
        fprintf(stderr, "waterfall dump: %s\n", err);
        rc = WF_EXIT_INPUT;
    } else if (!src.reader || !strcmp(src.reader, "text log")) {
        fprintf(stderr, "waterfall dump: %s: a text log, not a trace: it is TIMELINE text already\n", in->name);
        rc = WF_EXIT_INPUT;
    } else {
        for (size_t i = 0; i < m.nruns && rc == WF_EXIT_OK; i++) {
            const struct run *r = &m.runs[i];
            if (stats && !r->streams.streams) { /* a compressed native trace: what the model holds */
                fprintf(stderr, "trace:     %s (%s, %s; --stats of the uncompressed file says more)\n", in->name,
                        src.reader, dz_name(src.compressed));
                fprintf(stderr, "events:    %llu, in %zu units\n", (unsigned long long)r->events, r->nunits);
            } else if (stats) {
                const struct streams_use *s = &r->streams;
                fprintf(stderr, "trace:     %s (%s)\n", in->name, src.reader);
                if (s->rank >= 0)
                    fprintf(stderr, "rank:      %d\n", s->rank);
                fprintf(stderr,
                        "events:    %llu: %llu device operations (units), %llu launches, %llu other events ignored\n",
                        (unsigned long long)s->events, (unsigned long long)s->ops, (unsigned long long)s->launches,
                        (unsigned long long)s->ignored);
                fprintf(stderr, "skipped:   %llu device operations that could not be read\n",
                        (unsigned long long)r->skipped_lines);
            } else if (print_run(r, precision) || fflush(stdout) != 0) {
                fprintf(stderr, "waterfall dump: writing to stdout failed\n");
                rc = WF_EXIT_FAIL;
            }
        }
        if (rc == WF_EXIT_OK && !m.nruns) {
            source_explain_empty(&src, stderr, "waterfall dump");
            rc = WF_EXIT_INPUT; /* nothing to dump: as analyze says of it */
        }
    }
    model_free(&m);
    source_free(&src);
    close(fd);
    return rc;
}

int cmd_dump(int argc, char **argv)
{
    static const struct option longopts[] = {{"precision", required_argument, 0, 'p'},
                                             {"stats", no_argument, 0, 's'},
                                             {"stage", required_argument, 0, 'S'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    int precision = 6, stats = 0, c;
    struct stage_args stages = {0};
    struct analyze_opts ao = {0}; /* only its stages: what the reading takes */
    optind = 0; /* 0: a full reset of getopt (glibc), also when called again */
    while ((c = getopt_long(argc, argv, "p:sh", longopts, NULL)) != -1) {
        switch (c) {
        case 'p': {
            long v;
            if (arg_long("dump", "--precision", optarg, 0, 6, &v))
                return WF_EXIT_USAGE;
            precision = (int)v;
            break;
        }
        case 's':
            stats = 1;
            break;
        case 'S':
            if (stage_arg(optarg, "dump", &stages, &ao))
                return WF_EXIT_USAGE;
            break;
        case 'h':
            dump_usage(stdout);
            return WF_EXIT_OK;
        default:
            arg_suggest("waterfall dump", argv, longopts);
            dump_usage(stderr);
            return WF_EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        fprintf(stderr, "waterfall dump: expected one trace file\n");
        dump_usage(stderr);
        return WF_EXIT_USAGE;
    }
    char err[512];
    struct input in;
    if (input_open(&in, argv[optind], err, sizeof err)) {
        fprintf(stderr, "waterfall dump: %s\n", err);
        return WF_EXIT_INPUT;
    }
    if (!wft_sniff(in.data, in.len) && other_trace(&in)) {
        int rc = dump_other(&in, precision, stats, ao.stages);
        input_close(&in);
        return rc;
    }
    struct wft_trace t;
    if (wft_parse_recover(&t, in.name, in.data, in.len, err, sizeof err)) {
        fprintf(stderr, "waterfall dump: %s\n", err);
        wft_free(&t);
        input_close(&in);
        return WF_EXIT_INPUT;
    }
    wft_sort(&t);
    int rc = WF_EXIT_OK;
    if (stats)
        print_stats(stderr, &t);
    else if (print_events(&t, precision)) {
        fprintf(stderr, "waterfall dump: writing to stdout failed\n");
        rc = WF_EXIT_FAIL;
    }
    print_damage(stderr, &t);
    if (rc == WF_EXIT_OK && (t.corrupt_at || t.bad_records))
        rc = WF_EXIT_PARTIAL;
    wft_free(&t);
    input_close(&in);
    return rc;
}
