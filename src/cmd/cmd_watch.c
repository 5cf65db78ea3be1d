/*
 * cmd_watch.c -- `waterfall watch FILE|-`: follow a daemon's log as it
 * grows (live/: follow, live, view, metrics), show the live view or JSON
 * lines, and serve /metrics with --listen.
 *
 * The loop: read what is new, put its lines into the live state, move the
 * settled horizon, and every interval redraw the view (or print a line)
 * and publish the metrics.  Nothing here decides a figure: live.c does.
 */
#include "analyze.h"
#include "args.h"
#include "cmds.h"
#include "decompress.h"
#include "follow.h"
#include "follow_wft.h"
#include "lines.h"
#include "live.h"
#include "load.h"
#include "metrics.h"
#include "report.h"
#include "view.h"
#include "wf_exit.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static void watch_usage(FILE *f)
{
    fprintf(f,
            "usage: waterfall watch [options] FILE|-\n"
            "Follow a daemon's log as it is written (across rotation, like tail -F), or a native\n"
            "trace a recorder is writing, analyse it with analyze's definitions as it grows, and\n"
            "show it live.\n"
            "  --listen ADDR:PORT  serve Prometheus metrics on http://ADDR:PORT/metrics (a bare PORT\n"
            "                      listens on 127.0.0.1 only; docs/live.md lists the metrics)\n"
            "  --json-lines        one JSON object per interval on stdout instead of the live view\n"
            "  --once              read what the log holds now, decide it as analyze does at a log's\n"
            "                      end, print the totals as one JSON line, and exit\n"
            "  --interval SECONDS  how often the view, the JSON lines and the metrics are refreshed\n"
            "                      (default 1)\n"
            "  --slack SECONDS     how much later than its time a record may reach the log (lines of\n"
            "                      several threads); figures settle this far behind (default 2)\n"
            "  --quiet SECONDS     once the log has not grown for this long, the slack is dropped\n"
            "                      and everything read settles (default 5)\n"
            "  --recent SECONDS    the view's \"last\" window, in the log's time (default 60)\n"
            "  --units N           units in the view's chart (default: as the terminal allows)\n"
            "  --kernel-phase NAME the phase whose union is kernel time (default KERNEL)\n"
            "  --from-end          start at the file's end (default: read what it holds first)\n"
            "  --color WHEN        auto, always or never\n"
            "  -h, --help          this help\n"
            "In the live view, q quits.  Exit status: 0; 2 usage; 3 the log cannot be read or a\n"
            "port cannot be listened on; with --once, 4 when lines were skipped.\n");
}

struct watch_cli {
    const char *path, *listen;
    int json_lines, once, from_end, color, units;
    double interval, quiet;
    long settle_every; /* tests: settle after every N lines (0: when the input pauses) */
    struct live_opts lo;
};

/* The numeric options, parsed by one rule (args.h): the value's range,
 * and whether it is a whole number. */
enum { N_INTERVAL, N_QUIET, N_SLACK, N_RECENT, N_UNITS, N_SETTLE, N_N };
static const struct {
    const char *name;
    double lo, hi;
    int whole;
} nums[N_N] = {{"interval", 0.01, 3600, 0}, {"quiet", 0.01, 86400, 0},  {"slack", 0, 3600, 0},
               {"recent", 1, LIVE_BINS - 2, 0}, {"units", 1, 10000, 1}, {"settle-every", 1, 1e9, 1}};

static int num_arg(int k, const char *v, double *out)
{
    char opt[32];
    snprintf(opt, sizeof opt, "--%s", nums[k].name);
    long n;
    if (!nums[k].whole)
        return arg_double("watch", opt, v, nums[k].lo, nums[k].hi, out);
    if (arg_long("watch", opt, v, (long)nums[k].lo, (long)nums[k].hi, &n))
        return -1;
    *out = (double)n;
    return 0;
}

static int watch_parse(int argc, char **argv, struct watch_cli *o)
{
    enum { O_NUM = 256, O_LISTEN = O_NUM + N_N, O_JSONL, O_ONCE, O_FROMEND, O_COLOR, O_KPHASE };
    static const struct option rest[] = {
        {"listen", required_argument, 0, O_LISTEN},   {"json-lines", no_argument, 0, O_JSONL},
        {"once", no_argument, 0, O_ONCE},             {"from-end", no_argument, 0, O_FROMEND},
        {"color", required_argument, 0, O_COLOR},     {"colour", required_argument, 0, O_COLOR},
        {"kernel-phase", required_argument, 0, O_KPHASE}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    /* the numeric options come from their table, the others after them */
    struct option longopts[N_N + sizeof rest / sizeof *rest];
    for (int k = 0; k < N_N; k++)
        longopts[k] = (struct option){nums[k].name, required_argument, 0, O_NUM + k};
    memcpy(longopts + N_N, rest, sizeof rest);
    double num[N_N] = {1, 5, 2, 60, 0, 0}; /* the defaults */
    *o = (struct watch_cli){.color = -1, .lo = {.keep = 200}};
    int c;
    optind = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c >= O_NUM && c < O_NUM + N_N) {
            if (num_arg(c - O_NUM, optarg, &num[c - O_NUM]))
                return WF_EXIT_USAGE;
        } else if (c == O_LISTEN) {
            o->listen = optarg;
        } else if (c == O_JSONL || c == O_ONCE || c == O_FROMEND) {
            *(c == O_JSONL ? &o->json_lines : c == O_ONCE ? &o->once : &o->from_end) = 1;
        } else if (c == O_COLOR) {
            if (report_color_arg(optarg, &o->color)) {
                fprintf(stderr, "waterfall watch: --color takes auto, always or never\n");
                return WF_EXIT_USAGE;
            }
        } else if (c == O_KPHASE) {
            if (kernel_phase_arg(optarg, "watch", &o->lo.kernel_phase))
                return WF_EXIT_USAGE;
        } else {
            if (c != 'h')
                arg_suggest("waterfall watch", argv, longopts);
            watch_usage(c == 'h' ? stdout : stderr);
            return c == 'h' ? WF_EXIT_OK : WF_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "waterfall watch: one log to follow (a file, or - for stdin)\n");
        watch_usage(stderr);
        return WF_EXIT_USAGE;
    }
    o->path = argv[optind];
    o->interval = num[N_INTERVAL];
    o->quiet = num[N_QUIET];
    o->lo.slack_ns = (int64_t)(num[N_SLACK] * 1e9);
    o->lo.recent_ns = (int64_t)(num[N_RECENT] * 1e9);
    o->units = (int)num[N_UNITS];
    o->settle_every = (long)num[N_SETTLE];
    if (o->units > (int)o->lo.keep)
        o->lo.keep = (size_t)o->units;
    return WF_GO_ON;
}

/* ---- the loop's state ---- */

struct watch {
    struct watch_cli o;
    struct live l;
    struct follow *f;
    struct metrics_server *srv;
    struct lines_pipe *pipe; /* the log read and parsed (lines.h) */
    uint64_t since_settle;
    double last_growth, last_emit, last_record;
    int screen, keys, bottleneck;
    int stream; /* a pipe, FIFO, socket or terminal: it ends when it ends */
    struct termios saved;
};

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static double now_s(int realtime)
{
    struct timespec ts;
    clock_gettime(realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Settle every so many lines (--settle-every; else 65536): memory stays
 * bounded while a big log is caught up. */
static int lines_read(struct watch *w, uint64_t n)
{
    w->since_settle += n;
    if (w->since_settle < (uint64_t)(w->o.settle_every ? w->o.settle_every : 65536))
        return 0;
    w->since_settle = 0;
    return live_settle(&w->l, 0, 0);
}

/* A parsed chunk's records into the live state, settling after every so
 * many lines as if they were read one by one: the records before a
 * settle point are applied before it, those after it after. */
static int chunk_in(struct watch *w, const struct lines_chunk *c)
{
    if (c->failed)
        return -1;
    uint64_t every = (uint64_t)(w->o.settle_every ? w->o.settle_every : 65536), counted = 0;
    size_t i = 0;
    while (i < c->nrec) {
        uint64_t room = every - w->since_settle; /* lines until the next settle */
        size_t j = i;
        while (j < c->nrec && c->at[j] + 1 - counted <= room)
            j++;
        if (j == i) { /* the settle comes before record i's line */
            counted += room;
            if (lines_read(w, room))
                return -1;
            continue;
        }
        if (live_recs(&w->l, c->rec + i, j - i) || lines_read(w, c->at[j - 1] + 1 - counted))
            return -1;
        counted = c->at[j - 1] + 1;
        i = j;
    }
    w->l.lines += c->lines;
    w->l.skipped += c->skipped;
    for (size_t k = 0; k < sizeof c->skipped_by / sizeof *c->skipped_by; k++)
        w->l.skipped_by[k] += c->skipped_by[k];
    if (c->nrec)
        w->last_record = now_s(1); /* once a chunk: the clock is not free */
    return lines_read(w, c->lines - counted);
}

/* The bottleneck now, and the chart's analysis (into *chart, when asked;
 * its run in *chart_m). */
static int analyse_now(struct watch *w, struct model *chart_m, struct run_result *chart, int rows)
{
    struct model m;
    struct run_result res;
    struct analyze_opts ao = {.kernel_phase = w->o.lo.kernel_phase, .keep = KEEP_ALL};
    /* the rule on the run's settled totals (analyze's at a log's end); the
     * units kept give the CPU contention */
    w->bottleneck = live_bottleneck(&w->l, NULL);
    if (live_snapshot(&w->l, 0, &m))
        return -1;
    if (m.nruns && m.runs[0].nunits) {
        if (analyze_run_opts(&m.runs[0], &ao, &res)) {
            live_snapshot_free(&m);
            return -1;
        }
        w->bottleneck = live_bottleneck(&w->l, &res);
        run_result_free(&res);
    }
    live_snapshot_free(&m);
    if (!chart)
        return 0;
    if (live_snapshot(&w->l, (size_t)rows, chart_m))
        return -1;
    static const struct strtab no_strs;
    struct run none = {.source = "watch", .prov = {"watch", "unit", NULL}, .strs = &no_strs, .index = w->l.run};
    if (analyze_run_opts(chart_m->nruns ? &chart_m->runs[0] : &none, &ao, chart)) { /* none: no unit yet */
        live_snapshot_free(chart_m);
        return -1;
    }
    return 0;
}

static void term_size(int *cols, int *rows)
{
    struct winsize ws;
    *cols = 100, *rows = 30;
    if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row) {
        *cols = ws.ws_col;
        *rows = ws.ws_row;
    }
}

static int emit(struct watch *w, const char *state, int final)
{
    int want_chart = w->screen;
    struct model cr = {0};
    struct run_result chart = {0};
    int cols, rows;
    term_size(&cols, &rows);
    int units = w->o.units ? w->o.units : rows - 14;
    if (units < 1)
        units = 1;
    if (analyse_now(w, &cr, want_chart ? &chart : NULL, units))
        return -1;
    if (w->srv) {
        char *text;
        size_t len;
        if (metrics_text(&w->l, w->bottleneck, w->last_record, &text, &len))
            return -1;
        metrics_publish(w->srv, text, len);
    }
    if (w->screen) {
        struct view_screen v = {&w->l, w->o.path, state, w->bottleneck, &chart, cols, units,
                                w->o.color < 0 ? getenv("NO_COLOR") == NULL : w->o.color};
        view_draw(stdout, &v);
        run_result_free(&chart);
        live_snapshot_free(&cr);
    } else if (w->o.json_lines || final) { /* not a terminal: at least the final figures */
        view_json(stdout, &w->l, w->bottleneck, final ? "final" : "running");
        fflush(stdout);
    }
    w->last_emit = now_s(0);
    return ferror(stdout) ? -1 : 0;
}

/* ---- the terminal ---- */

static void screen_on(struct watch *w)
{
    fputs("\x1b[?1049h\x1b[?25l\x1b[2J", stdout); /* the alternate screen, no cursor */
    if (isatty(0) && strcmp(w->o.path, "-") != 0 && tcgetattr(0, &w->saved) == 0) {
        struct termios t = w->saved;
        t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
        t.c_cc[VMIN] = 0;
        t.c_cc[VTIME] = 0;
        w->keys = tcsetattr(0, TCSANOW, &t) == 0;
    }
}

static void screen_off(struct watch *w)
{
    if (w->keys)
        tcsetattr(0, TCSANOW, &w->saved);
    fputs("\x1b[?25h\x1b[?1049l", stdout);
    fflush(stdout);
}

/* Was q pressed? */
static int quit_key(struct watch *w)
{
    if (!w->keys)
        return 0;
    struct pollfd p = {0, POLLIN, 0};
    char c;
    while (poll(&p, 1, 0) == 1 && read(0, &c, 1) == 1)
        if (c == 'q' || c == 'Q')
            return 1;
    return 0;
}

/* ---- the loop ---- */

/* A log that ended is decided as analyze decides a log's end, and so is a
 * watch that was stopped: what it read is all it will read, so its totals
 * are analyze's of that much of the log.  The units the daemon had not
 * finished stay in flight, out of busy, as analyze leaves them.  (Settling
 * a stop as a quiet log instead left out the GPU time of every unit that
 * completed after another one started on the GPU and never ended.) */
static int finish(struct watch *w, int ended)
{
    if (live_settle(&w->l, 1, 1) || emit(w, ended ? " (ended)" : " (stopped)", 1))
        return WF_EXIT_FAIL;
    return WF_EXIT_OK;
}

/* The oldest chunk in flight, once parsed, into the live state. */
static int chunk_next(struct watch *w)
{
    struct lines_chunk *c = lines_pipe_next(w->pipe);
    int rc = chunk_in(w, c);
    lines_pipe_done(w->pipe, c);
    if (rc)
        fprintf(stderr, "waterfall watch: out of memory\n");
    return rc;
}

/* Read until there is nothing new (*got: 1 when something was read): 0,
 * or -1, said on stderr.  Each chunk read is parsed on the pipe's thread
 * while the next is read and the ones before are applied here (lines.h);
 * all that was read is in the live state when it returns. */
static int drain(struct watch *w, int *got)
{
    *got = 0;
    char err[512];
    for (;;) {
        struct lines_chunk *c = lines_pipe_idle(w->pipe);
        if (!c) { /* all in flight */
            if (chunk_next(w))
                return -1;
            continue;
        }
        ssize_t n = follow_read(w->f, c->buf, LINES_CHUNK, err, sizeof err);
        if (n < 0) {
            fprintf(stderr, "waterfall watch: %s\n", err);
            return -1;
        }
        if (n == 0)
            break;
        *got = 1;
        lines_pipe_submit(w->pipe, c, (size_t)n, 0);
        if (stop_flag || (!w->o.once && now_s(0) - w->last_emit >= w->o.interval))
            break; /* the view stays fresh while a big log is caught up */
    }
    while (lines_pipe_next(w->pipe))
        if (chunk_next(w))
            return -1;
    return 0;
}

static int follow_loop(struct watch *w)
{
    int rc = WF_EXIT_OK, ended = 0;
    while (!stop_flag && !quit_key(w)) {
        int got;
        if (drain(w, &got) != 0) {
            rc = WF_EXIT_INPUT;
            break;
        }
        double t = now_s(0);
        if (got)
            w->last_growth = t;
        /* --once: a file ends where it is now, a stream where it ends */
        if (!got && ((w->o.once && !w->stream) || follow_eof(w->f))) {
            ended = 1;
            break;
        }
        /* Settled once an interval, just before the figures are shown:
         * settling scans the units in flight, and a log written in many
         * small pieces would otherwise pay that scan for each of them
         * (what is settled does not depend on when: live.h). */
        int quiet = !got && t - w->last_growth >= w->o.quiet;
        if (t - w->last_emit >= w->o.interval &&
            (live_settle(&w->l, quiet, 0) || emit(w, quiet ? " (quiet)" : "", 0))) {
            rc = WF_EXIT_FAIL;
            break;
        }
        if (!got)
            follow_wait(w->f, 100);
    }
    if (rc != WF_EXIT_OK)
        return rc;
    /* the end: a last line without its newline is a line */
    if (lines_pipe_end(w->pipe) && chunk_next(w))
        return WF_EXIT_FAIL;
    return finish(w, ended);
}

/* The recorder closed a trace whose clock conversion was refined after
 * events were fed: feed the finished trace again, all of it with the
 * final conversion, into a new state, so that the totals end equal to
 * analyze's (follow_wft.h).  The state read so far stays where the new
 * reading fails or does not find the trace closed (it was removed or
 * replaced meanwhile): it is then within the refinement. */
static void refeed(struct watch *w)
{
    struct live fresh;
    struct wft_follow tf = {.path = w->o.path};
    char err[512];
    int got;
    if (live_init(&fresh, &w->o.lo) == 0 && wft_follow_step(&tf, &fresh, &got, err, sizeof err) == 0 &&
        tf.closed) {
        live_free(&w->l);
        w->l = fresh;
    } else {
        live_free(&fresh);
    }
    wft_follow_free(&tf);
}

/* A native trace: read again whenever it grows (follow_wft.h). */
static int trace_loop(struct watch *w)
{
    struct wft_follow tf = {.path = w->o.path};
    char err[512];
    int rc = WF_EXIT_OK, ended = 0;
    while (!stop_flag && !quit_key(w)) {
        int got;
        if (wft_follow_step(&tf, &w->l, &got, err, sizeof err) != 0) {
            fprintf(stderr, "waterfall watch: %s\n", err);
            rc = WF_EXIT_INPUT;
            break;
        }
        double t = now_s(0);
        if (got) {
            w->last_growth = t;
            w->last_record = now_s(1);
        }
        /* the recorder closed its trace (END record): the run is over */
        if (!got && (w->o.once || tf.closed)) {
            if (tf.closed && tf.refined)
                refeed(w);
            ended = 1;
            break;
        }
        int quiet = !got && t - w->last_growth >= w->o.quiet; /* settled as above */
        if (t - w->last_emit >= w->o.interval &&
            (live_settle(&w->l, quiet, 0) || emit(w, quiet ? " (quiet)" : "", 0))) {
            rc = WF_EXIT_FAIL;
            break;
        }
        if (!got)
            poll(NULL, 0, 100);
    }
    wft_follow_free(&tf);
    return rc != WF_EXIT_OK ? rc : finish(w, ended);
}

/* What can be said of the path before following it: a compressed log
 * cannot be followed (it is complete: analyze reads it), and a path that
 * does not exist yet is waited for, which is said once, on stderr, so
 * that a mistyped name is not a silent wait.  1: refuse it. */
static int watch_check_path(const struct watch_cli *o)
{
    if (strcmp(o->path, "-") == 0)
        return 0;
    int fd = open(o->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            fprintf(stderr, "waterfall watch: %s does not exist (yet)%s\n", o->path,
                    o->once ? ": nothing to read" : "; waiting for it to appear");
        return 0;
    }
    struct stat st;
    unsigned char head[8];
    ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? pread(fd, head, sizeof head, 0) : 0;
    close(fd);
    int kind = n > 0 ? dz_sniff(head, (size_t)n) : DZ_NONE;
    if (kind == DZ_NONE)
        return 0;
    fprintf(stderr,
            "waterfall watch: %s: %s-compressed: watch follows a log while it is written, and a compressed log "
            "is complete: read it with `waterfall analyze %s`\n",
            o->path, dz_name(kind), o->path);
    return 1;
}

int cmd_watch(int argc, char **argv)
{
    struct watch w = {0};
    int rc = watch_parse(argc, argv, &w.o);
    if (rc != WF_GO_ON)
        return rc;
    char err[512];
    if (watch_check_path(&w.o))
        return WF_EXIT_INPUT;
    /* a recording is read as records (follow_wft.h); anything else as lines */
    int records = follow_wft_claims(w.o.path);
    w.o.lo.one_run = records;
    if (!records && !(w.f = follow_open(w.o.path, !w.o.from_end, err, sizeof err))) {
        fprintf(stderr, "waterfall watch: %s\n", err);
        return WF_EXIT_INPUT;
    }
    if (w.o.listen && !(w.srv = metrics_serve(w.o.listen, err, sizeof err))) {
        fprintf(stderr, "waterfall watch: %s\n", err);
        follow_close(w.f);
        return WF_EXIT_INPUT;
    }
    struct stat st;
    if (strcmp(w.o.path, "-") == 0 ? fstat(0, &st) == 0 : stat(w.o.path, &st) == 0)
        w.stream = !S_ISREG(st.st_mode);
    if ((!records && !(w.pipe = lines_pipe_new())) || live_init(&w.l, &w.o.lo)) {
        fprintf(stderr, "waterfall watch: out of memory\n");
        rc = WF_EXIT_FAIL;
        goto out;
    }
    struct sigaction sa = {0};
    sa.sa_handler = on_signal; /* no SA_RESTART: the wait returns at once */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    w.screen = !w.o.json_lines && !w.o.once && isatty(1);
    if (w.screen)
        screen_on(&w);
    w.last_growth = now_s(0);
    if (emit(&w, "", 0)) /* the metrics exist from the start */
        rc = WF_EXIT_FAIL;
    else
        rc = records ? trace_loop(&w) : follow_loop(&w);
    if (w.screen) {
        screen_off(&w);
        if (rc == WF_EXIT_OK) /* what the screen said, left in the terminal */
            view_json(stdout, &w.l, w.bottleneck, "final");
    }
    if (rc == WF_EXIT_FAIL)
        fprintf(stderr, "waterfall watch: out of memory, or stdout could not be written\n");
    if (rc == WF_EXIT_OK && w.o.once && w.l.skipped) {
        unsigned long long bad = w.l.skipped - w.l.unaligned, un = w.l.unaligned;
        if (bad)
            fprintf(stderr, "waterfall watch: %llu TIMELINE line%s skipped (they did not parse)\n", bad,
                    bad == 1 ? "" : "s");
        if (un)
            fprintf(stderr,
                    "waterfall watch: %llu record%s skipped: timed by %s line's timestamp where others carry ts= "
                    "(or the reverse), and no record before %s carried both, so the two clocks could not be "
                    "aligned (analyze, which reads the log again, aligns them by any record that carries both)\n",
                    un, un == 1 ? "" : "s", un == 1 ? "its" : "their", un == 1 ? "it" : "them");
        rc = WF_EXIT_PARTIAL;
    }
out:
    metrics_stop(w.srv);
    live_free(&w.l);
    lines_pipe_free(w.pipe);
    follow_close(w.f);
    return rc;
}
