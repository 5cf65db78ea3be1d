/*
 * load.c -- the flow of the analysis: events -> units -> intervals ->
 * findings.  An input that yields nothing usable is an error naming it;
 * damage and skipped lines are warnings, and make the result partial.
 */
#include "load.h"

#include "sim.h"
#include "wf_exit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

/* One input into l->model: a path, or (path NULL) an open fd named name. */
static void load_one(struct loaded *l, const char *path, int fd, const char *name, int progress, const char *cmd,
                     double *t0)
{
    char err[512];
    struct source *s = &l->src[l->nsrc];
    size_t before = l->model.nruns;
    /* what an input that fails midway added to the model's counts is taken back */
    struct model counts = l->model;
    int failed = path ? ingest(s, path, &l->model, progress, err, sizeof err)
                      : ingest_fd(s, fd, name, &l->model, progress, err, sizeof err);
    phase("read", t0);
    if (!failed && s->text.rereads && getenv("WATERFALL_TIMING"))
        fprintf(l->msgs,
                "waterfall: %d of %d parts read twice (a restart at a part's start, or a unit continued from "
                "the part before past the part's first %u units)\n",
                s->text.rereads, s->text.nparts, SIDE_WINDOW);
    if (failed) {
        /* The other inputs are still analysed; the status says one failed. */
        fprintf(l->msgs, "%s: %s\n", cmd, err);
        model_drop_runs(&l->model, before); /* they point into the source */
        memcpy(l->model.skipped_by, counts.skipped_by, sizeof counts.skipped_by);
        l->model.timeline_lines = counts.timeline_lines;
        l->model.bytes = counts.bytes;
        l->model.xorphans = counts.xorphans;
        l->oom |= s->oom;
        source_free(s);
        l->failed_inputs++;
        return;
    }
    l->nsrc++;
    source_warn(s, l->msgs, cmd);
    for (int p = 0; p < s->nparts; p++)
        if (s->parts[p].diag.oom) {
            fprintf(l->msgs, "%s: %s: out of memory: events past some point were not read\n", cmd, s->name);
            l->partial = 1;
            break;
        }
    if (s->damaged_bytes || s->lost_events)
        l->partial = 1;
    if (l->model.nruns == before) {
        source_explain_empty(s, l->msgs, cmd);
        l->failed_inputs++;
    }
}

/* The inputs read, then analysed. */
static int load_all(struct loaded *l, char **paths, int fd, const char *name, int n, int progress,
                    const char *cmd, const struct analyze_opts *o, FILE *msgs)
{
    memset(l, 0, sizeof *l);
    l->msgs = msgs;
    l->model.stages = o ? o->stages : NULL;
    l->src = calloc((size_t)n, sizeof *l->src);
    if (!l->src)
        return WF_EXIT_FAIL;
    double t0 = now_s();
    for (int i = 0; i < n; i++)
        load_one(l, paths ? paths[i] : NULL, fd, name, progress, cmd, &t0);
    if (l->oom)
        return WF_EXIT_FAIL; /* said, with the input, by load_one */
    int rc = loaded_analyze(l, cmd, o);
    if (l->nres && l->nres == l->model.nruns)
        phase("analyze", &t0);
    return rc;
}

int load_inputs(struct loaded *l, char **paths, int npaths, int progress, const char *cmd,
                const struct analyze_opts *o)
{
    return load_inputs_to(l, paths, npaths, progress, cmd, o, stderr);
}

int load_inputs_to(struct loaded *l, char **paths, int npaths, int progress, const char *cmd,
                   const struct analyze_opts *o, FILE *msgs)
{
    return load_all(l, paths, -1, NULL, npaths, progress, cmd, o, msgs);
}

int load_fd_to(struct loaded *l, int fd, const char *name, const char *cmd, const struct analyze_opts *o,
               FILE *msgs)
{
    return load_all(l, NULL, fd, name, 1, 0, cmd, o, msgs);
}

int loaded_analyze(struct loaded *l, const char *cmd, const struct analyze_opts *o)
{
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
            fprintf(l->msgs, "%s: out of memory in the analysis\n", cmd);
            return WF_EXIT_FAIL;
        }
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
    fprintf(l->msgs, "%s: exit status 4, the analysis is partial: %s\n", cmd, why);
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
         * contention that a fit may identify, or the GPU waits for input:
         * the formula assumes a unit is always there to synthesize, and
         * only the simulation keeps the log's arrivals (a newcomer's log:
         * bottleneck input, and the formula's "run 2 at once -> 100%") */
        int input = res->bottleneck == BN_INPUT;
        int want = mode > 0 || res->run->cpu.sampled || res->cpu.contention || input;
        if (res->advice.valid && want && sim_advise(res->run, res, trace_cores, mode < 0 && !input) < 0)
            fprintf(l->msgs, "%s: %s run %d: the simulation could not run; the advice is the formula's\n", cmd,
                    res->run->source, res->run->index);
        /* host work inside the GPU phase: what one more GPU worker would
         * do, where the simulation can hold the device for the kernels */
        if (res->advice.valid && res->bottleneck == BN_GPU_PHASE &&
            sim_advise_workers(res->run, res, trace_cores) < 0)
            fprintf(l->msgs, "%s: %s run %d: the simulation of one more GPU worker could not run\n", cmd,
                    res->run->source, res->run->index);
    }
}

int loaded_status(const struct loaded *l, int rc, int write_failed, const char *cmd, const char *what)
{
    if (write_failed) {
        fprintf(l->msgs, "%s: %s failed\n", cmd, what);
        return WF_EXIT_FAIL;
    }
    if (rc == WF_EXIT_OK && l->partial) {
        loaded_partial_note(l, cmd);
        return WF_EXIT_PARTIAL;
    }
    return rc;
}
