/*
 * load.c -- the flow of the analysis: events -> units -> intervals ->
 * findings.  An input that yields nothing usable is an error naming it;
 * damage and skipped lines are warnings, and make the result partial.
 */
#include "load.h"

#include "decompress.h"
#include "sim.h"
#include "wf_exit.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <time.h>

/* WATERFALL_TIMING=1 prints how long each phase took (stderr). */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void phase(const char *what, double *t0)
{
    int on = getenv("WATERFALL_TIMING") != NULL; /* read each time: nothing kept between runs */
    double t = now_s();
    if (on) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        /* the anonymous memory held now (not the mapped log): what the
         * next phase can reuse without fresh pages */
        long anon = -1;
        FILE *f = fopen("/proc/self/status", "r");
        char l[128];
        while (f && fgets(l, sizeof l, f))
            if (!strncmp(l, "RssAnon:", 8))
                anon = atol(l + 8) / 1024;
        if (f)
            fclose(f);
        fprintf(stderr, "waterfall: %-8s %.3f s  (peak memory so far %ld MiB; anonymous now %ld MiB)\n", what,
                t - *t0, ru.ru_maxrss / 1024, anon);
    }
    *t0 = t;
}

static void warn_source(const char *cmd, const struct source *s)
{
    if (s->native) {
        if (s->damaged_bytes)
            fprintf(stderr, "%s: %s: warning: damaged records were skipped\n", cmd, s->name);
        if (s->torn || s->unclosed)
            fprintf(stderr, "%s: %s: note: the recording did not finish (cut off); read to its last whole record\n",
                    cmd, s->name);
        if (s->lost_events)
            fprintf(stderr, "%s: %s: warning: %llu events were lost while recording; figures may be off\n", cmd,
                    s->name, (unsigned long long)s->lost_events);
        if (s->rings == WFT_RINGS_READ && s->rings_events)
            fprintf(stderr, "%s: %s: note: %llu events its writer had not yet written were read from %s.rings\n",
                    cmd, s->name, (unsigned long long)s->rings_events, s->name);
        else if (s->rings >= WFT_RINGS_MISSING && s->rings != WFT_RINGS_RUNNING)
            fprintf(stderr, "%s: %s: warning: %s.rings %s: the marks not yet written when the recording stopped are lost\n",
                    cmd, s->name, s->name,
                    s->rings == WFT_RINGS_MISSING ? "is missing"
                    : s->rings == WFT_RINGS_OTHER ? "is another recording's" : "is damaged");
    }
}

/* What a file's first bytes say it is, when it is not a text log: a
 * compressed format this command does not read, or binary data (a NUL,
 * or mostly bytes that no text holds).  NULL: it looks like text (or
 * cannot be read again: stdin). */
static const char *not_text(const char *path)
{
    if (strcmp(path, "<stdin>") == 0)
        return NULL;
    unsigned char b[4096];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    ssize_t n = read(fd, b, sizeof b);
    close(fd);
    if (n <= 0)
        return NULL;
    static const struct {
        const char *magic, *what;
        size_t len;
    } known[] = {{"\3757zXZ", "xz-compressed data (decompress it first: gzip and zstd logs are read as they are)", 5},
                 {"BZh", "bzip2-compressed data (decompress it first: gzip and zstd logs are read as they are)", 3},
                 {"PK\x03\x04", "a zip archive (extract the log first)", 4},
                 {"\177ELF", "an executable (ELF), not a log", 4}};
    for (size_t k = 0; k < sizeof known / sizeof *known; k++)
        if ((size_t)n >= known[k].len && memcmp(b, known[k].magic, known[k].len) == 0)
            return known[k].what;
    size_t odd = 0;
    for (ssize_t i = 0; i < n; i++) {
        if (b[i] == 0)
            return "binary data (it holds NUL bytes), not a text log";
        odd += b[i] < 0x20 && b[i] != '\n' && b[i] != '\r' && b[i] != '\t' && b[i] != 0x1b && b[i] != '\f';
    }
    return odd * 10 > (size_t)n ? "binary data (control bytes in its first 4 KiB), not a text log" : NULL;
}

/* A source with no TIMELINE line at all: what it is, and where TIMELINE
 * lines usually are (a daemon prints them on stderr). */
static void explain_no_timeline(const char *cmd, const struct source *s)
{
    if (s->native) {
        fprintf(stderr, "%s: %s: no TIMELINE records found (the trace holds no pipeline events)\n", cmd, s->name);
        return;
    }
    const char *what = s->compressed ? NULL : not_text(s->name);
    if (what) {
        fprintf(stderr, "%s: %s: %s: no TIMELINE records found\n", cmd, s->name, what);
        return;
    }
    uint64_t lines = 0;
    for (int i = 0; i < s->nparts; i++)
        lines += s->parts[i].diag.lines;
    fprintf(stderr,
            "%s: %s: no TIMELINE records in its %llu line%s of %stext; a daemon prints them on stderr: "
            "capture it too (`daemon ... >log 2>&1`)\n",
            cmd, s->name, (unsigned long long)lines, lines == 1 ? "" : "s",
            s->compressed ? (s->compressed == DZ_GZIP ? "gzip-compressed " : "zstd-compressed ") : "");
}

/* The first skipped lines of a source that produced no run at all. */
static void explain_empty(const char *cmd, const struct source *s)
{
    uint64_t tl = 0, sk = 0, base = 0;
    for (int i = 0; i < s->nparts; i++) {
        tl += s->parts[i].diag.timeline_lines;
        sk += s->parts[i].diag.skipped;
    }
    if (tl == 0) {
        explain_no_timeline(cmd, s);
        return;
    }
    const char *what = s->native || s->compressed ? NULL : not_text(s->name);
    fprintf(stderr, "%s: %s: %s%snone of its %llu TIMELINE lines could be read (%llu skipped)\n", cmd, s->name,
            what ? what : "", what ? ": " : "", (unsigned long long)tl, (unsigned long long)sk);
    int shown = 0;
    for (int i = 0; i < s->nparts && shown < 5; i++) {
        const struct ev_diag *d = &s->parts[i].diag;
        for (int k = 0; k < d->nskip_first && shown < 5; k++, shown++)
            fprintf(stderr, "  %s:%llu: %s\n", s->name, (unsigned long long)(base + d->skip_first[k].line + 1),
                    scan_err_text[d->skip_first[k].detail]);
        base += d->lines;
    }
}

int load_inputs(struct loaded *l, char **paths, int npaths, int progress, const char *cmd,
                const struct analyze_opts *o)
{
    memset(l, 0, sizeof *l);
    l->src = calloc((size_t)npaths, sizeof *l->src);
    if (!l->src)
        return WF_EXIT_FAIL;
    char err[512];
    double t0 = now_s();
    for (int i = 0; i < npaths; i++) {
        struct source *s = &l->src[l->nsrc];
        int failed = ingest(s, paths[i], progress, err, sizeof err);
        phase("read", &t0);
        if (!failed && s->text.rereads && getenv("WATERFALL_TIMING"))
            fprintf(stderr,
                    "waterfall: %d of %d parts read twice (a restart at a part's start, or a unit continued from "
                    "the part before past the part's first %u units)\n",
                    s->text.rereads, s->text.nparts, SIDE_WINDOW);
        if (failed) {
            /* The other inputs are still analysed; the status says one failed. */
            fprintf(stderr, "%s: %s\n", cmd, err);
            source_free(s);
            l->failed_inputs++;
            continue;
        }
        l->nsrc++;
        size_t before = l->model.nruns;
        if (model_add(&l->model, s->name, s->parts, s->nparts, s->native, s->lost_events)) {
            fprintf(stderr, "%s: %s: out of memory building the model\n", cmd, s->name);
            return WF_EXIT_FAIL;
        }
        source_drop_events(s);
        phase("model", &t0);
        warn_source(cmd, s);
        for (int p = 0; p < s->nparts; p++)
            if (s->parts[p].diag.oom) {
                fprintf(stderr, "%s: %s: out of memory: events past some point were not read\n", cmd, s->name);
                l->partial = 1;
                break;
            }
        if (s->damaged_bytes || s->lost_events)
            l->partial = 1;
        for (size_t r = before; r < l->model.nruns; r++) {
            l->model.runs[r].damaged_bytes = s->damaged_bytes;
            l->model.runs[r].cpu = s->cpu; /* a native trace is one run */
            l->model.runs[r].mem = s->mem;
            l->model.runs[r].cpus = s->cpus;
            if (r == before) { /* the readings move to the run */
                l->model.runs[r].gpu = s->gpu;
                s->gpu.pts = NULL;
                s->gpu.npts = 0;
            }
        }
        if (l->model.nruns == before) {
            explain_empty(cmd, s);
            l->failed_inputs++;
        }
    }
    if (l->model.nruns == 0)
        return WF_EXIT_INPUT;
    for (size_t i = 0; i < l->model.nruns; i++)
        if (l->model.runs[i].skipped_lines)
            l->partial = 1;
    l->res = calloc(l->model.nruns ? l->model.nruns : 1, sizeof *l->res);
    if (!l->res)
        return WF_EXIT_FAIL;
    for (size_t i = 0; i < l->model.nruns; i++, l->nres++)
        if (analyze_run_opts(&l->model.runs[i], o, &l->res[i])) {
            fprintf(stderr, "%s: out of memory in the analysis\n", cmd);
            return WF_EXIT_FAIL;
        }
    phase("analyze", &t0);
    return l->failed_inputs ? WF_EXIT_INPUT : WF_EXIT_OK;
}

void loaded_partial_note(const struct loaded *l, const char *cmd)
{
    uint64_t skipped = 0, lost = 0, damaged = 0;
    for (size_t i = 0; i < l->model.nruns; i++) {
        skipped += l->model.runs[i].skipped_lines;
        lost += l->model.runs[i].lost_events;
        damaged += l->model.runs[i].damaged_bytes;
    }
    char why[256];
    size_t k = 0;
    why[0] = 0;
    if (skipped)
        k += (size_t)snprintf(why + k, sizeof why - k, "%llu line%s skipped", (unsigned long long)skipped,
                              skipped == 1 ? "" : "s");
    if (lost && k < sizeof why)
        k += (size_t)snprintf(why + k, sizeof why - k, "%s%llu event%s lost while recording", k ? ", " : "",
                              (unsigned long long)lost, lost == 1 ? "" : "s");
    if (damaged && k < sizeof why)
        k += (size_t)snprintf(why + k, sizeof why - k, "%s%llu damaged byte%s of a trace skipped", k ? ", " : "",
                              (unsigned long long)damaged, damaged == 1 ? "" : "s");
    if (!k)
        snprintf(why, sizeof why, "some events were not read (out of memory)");
    fprintf(stderr, "%s: exit status 4, the analysis is partial: %s\n", cmd, why);
}

void loaded_free(struct loaded *l)
{
    for (size_t i = 0; i < l->nres; i++)
        run_result_free(&l->res[i]);
    free(l->res);
    model_free(&l->model);
    for (size_t i = 0; i < l->nsrc; i++)
        source_free(&l->src[i]);
    free(l->src);
    memset(l, 0, sizeof *l);
}

void loaded_advise(struct loaded *l, int mode, double trace_cores, const char *cmd)
{
    for (size_t i = 0; mode && i < l->nres; i++) {
        struct run_result *res = &l->res[i];
        /* auto: where the CPU samples give a model, or the timing shows
         * contention that a fit may identify */
        int want = mode > 0 || res->run->cpu.sampled || res->cpu.contention;
        if (res->advice.valid && want && sim_advise(res->run, res, trace_cores, mode < 0) < 0)
            fprintf(stderr, "%s: %s run %d: the simulation could not run; the advice is the formula's\n", cmd,
                    res->run->source, res->run->index);
    }
}

int advise_arg(const char *v, const char *cmd, int *mode)
{
    if (!strcmp(v, "sim") || !strcmp(v, "simulation"))
        *mode = 1;
    else if (!strcmp(v, "auto"))
        *mode = -1;
    else if (!strcmp(v, "formula"))
        *mode = 0;
    else {
        fprintf(stderr, "waterfall %s: --advise takes auto, formula or sim, not '%s'\n", cmd, v);
        return -1;
    }
    return 0;
}

int kernel_phase_arg(const char *v, const char *cmd, const char **name)
{
    size_t n = strlen(v);
    int ok = n > 0 && n <= 64;
    for (size_t i = 0; ok && i < n; i++)
        ok = (v[i] >= 'A' && v[i] <= 'Z') || (v[i] >= 'a' && v[i] <= 'z') || (v[i] >= '0' && v[i] <= '9') ||
             v[i] == '_' || v[i] == '.' || v[i] == '-' || v[i] == ':';
    if (!ok) {
        fprintf(stderr, "waterfall %s: --kernel-phase takes a phase name (NAME of NAME_START/NAME_END), not '%s'\n",
                cmd, v);
        return -1;
    }
    *name = v;
    return 0;
}

int loaded_status(const struct loaded *l, int rc, int write_failed, const char *cmd, const char *what)
{
    if (write_failed) {
        fprintf(stderr, "%s: %s failed\n", cmd, what);
        return WF_EXIT_FAIL;
    }
    if (rc == WF_EXIT_OK && l->partial) {
        loaded_partial_note(l, cmd);
        return WF_EXIT_PARTIAL;
    }
    return rc;
}
