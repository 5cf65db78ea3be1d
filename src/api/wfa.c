/*
 * wfa.c -- libwaterfall-analysis (include/waterfall_analysis.h): the
 * command's own flow (load.c: inputs -> model -> findings -> advice ->
 * JSON), its messages kept in the result instead of printed.
 */
#include "waterfall_analysis.h"

#include "build.h"
#include "kineto_stage.h"
#include "load.h"
#include "report.h"
#include "wf_exit.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

/* Numbers are written as JSON has them ("0.5"), whatever locale the
 * program that links the library set: the C locale on the calling thread
 * (where the reports are written) while a call works, then the caller's
 * again.  The analysis parses no number through the locale. */
struct c_locale {
    locale_t c, old;
};

static void c_locale_on(struct c_locale *x)
{
    x->c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    x->old = x->c ? uselocale(x->c) : (locale_t)0;
}

static void c_locale_off(struct c_locale *x)
{
    if (x->c) {
        uselocale(x->old);
        freelocale(x->c);
    }
}

/* How the library's messages begin, where the command's say "waterfall analyze". */
#define WFA_WHO "waterfall-analysis"

struct wfa_result {
    struct loaded l;
    char *names[2];    /* a builder's source and kind, which its runs point at */
    char *kernel_phase; /* the options', which the findings point at */
    struct stage_rule *stage_rule; /* the options' stages, as the reader takes them */
    struct stage_map stages;
    int status;
    char *json;
    size_t json_len;
    char *msgs;
    size_t msgs_len;
};

struct wfa_builder {
    struct model m;
    struct mbuild b;
    char *source, *kind;
    int oom;   /* a call ran out of memory: the analysis says so */
    int spent; /* analysed: its model is the result's */
};

void wfa_options_init(wfa_options *o)
{
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
    o->advise = -1;
    o->consecutive_kernel_delay_us = HTA_KERNEL_DELAY_US;
}

/* The caller's options as this library knows them: fields past the
 * caller's size keep their defaults. */
static void options_of(const wfa_options *in, wfa_options *o)
{
    wfa_options_init(o);
    if (in)
        memcpy(o, in, in->size < sizeof *o ? in->size : sizeof *o);
    o->size = sizeof *o;
}

static int options_ok(const wfa_options *o, FILE *msgs)
{
    if (o->advise < -1 || o->advise > 1) {
        fprintf(msgs, WFA_WHO ": advise is -1 (auto), 0 (formula) or 1 (sim), not %d\n", o->advise);
        return 0;
    }
    if (!(o->trace_cores == 0 || (o->trace_cores >= 0.01 && o->trace_cores <= 1e6))) {
        fprintf(msgs, WFA_WHO ": trace_cores is 0 (the trace's) or 0.01 to 1e6\n");
        return 0;
    }
    if (!(o->consecutive_kernel_delay_us >= 0 && o->consecutive_kernel_delay_us <= 1e12)) {
        fprintf(msgs, WFA_WHO ": consecutive_kernel_delay_us is 0 to 1e12 (µs)\n");
        return 0;
    }
    for (size_t i = 0; i < o->nstages; i++) {
        const char *v = o->stages ? o->stages[i] : NULL;
        const char *eq = v ? strchr(v, '=') : NULL;
        if (!eq || stage_of_name(v, (size_t)(eq - v)) < 0 || !eq[1]) {
            fprintf(msgs, WFA_WHO ": stages[%zu] is STAGE=GLOB, STAGE synthesis or prep, not '%s'\n", i,
                    v ? v : "(null)");
            return 0;
        }
    }
    if (o->kernel_phase && !phase_name_ok(o->kernel_phase)) {
        fprintf(msgs, WFA_WHO ": kernel_phase is a phase name (NAME of NAME_START/NAME_END), not '%s'\n",
                o->kernel_phase);
        return 0;
    }
    return 1;
}

/* The findings after the model: advice, then the JSON that `analyze
 * --json` prints, both into the result. */
static int finish(wfa_result *r, FILE *msgs, const wfa_options *o, int rc)
{
    struct loaded *l = &r->l;
    if (l->nres > 0 && (rc == WF_EXIT_OK || rc == WF_EXIT_INPUT)) {
        loaded_advise(l, o->advise, o->trace_cores, WFA_WHO);
        struct report_opts ro = {.gaps = o->gaps != 0, .max_gaps = o->max_gaps};
        FILE *j = open_memstream(&r->json, &r->json_len);
        if (!j)
            rc = WF_EXIT_FAIL;
        else {
            report_json(j, &l->model, l->res, l->nres, &ro);
            int bad = ferror(j);
            if (fclose(j) || bad)
                rc = WF_EXIT_FAIL;
        }
        rc = loaded_status(l, rc, rc == WF_EXIT_FAIL, WFA_WHO, "writing the JSON");
    }
    r->status = rc;
    fclose(msgs);
    return rc;
}

static wfa_result *result_new(FILE **msgs)
{
    wfa_result *r = calloc(1, sizeof *r);
    if (r && !(*msgs = open_memstream(&r->msgs, &r->msgs_len))) {
        free(r);
        r = NULL;
    }
    return r;
}

/* The analysis's options: the kernel phase's name is copied into the
 * result, which the findings point at until it is freed. */
static int analyze_opts_of(wfa_result *r, const wfa_options *o, struct analyze_opts *ao)
{
    ao->keep = o->gaps ? KEEP_GAPS : 0;
    ao->kernel_phase = NULL;
    ao->kernel_delay_us = o->consecutive_kernel_delay_us;
    ao->kernel_delay_set = 1;
    if (o->kernel_phase && !(ao->kernel_phase = r->kernel_phase = strdup(o->kernel_phase)))
        return -1;
    ao->stages = NULL;
    if (o->nstages) { /* checked by options_ok; the globs are the caller's, read while loading */
        if (!(r->stage_rule = calloc(o->nstages, sizeof *r->stage_rule)))
            return -1;
        for (size_t i = 0; i < o->nstages; i++) {
            const char *eq = strchr(o->stages[i], '=');
            r->stage_rule[i] = (struct stage_rule){stage_of_name(o->stages[i], (size_t)(eq - o->stages[i])), eq + 1};
        }
        r->stages = (struct stage_map){r->stage_rule, o->nstages};
        ao->stages = &r->stages;
    }
    return 0;
}

static int analyze_file(const char *path, const wfa_options *in, wfa_result **out)
{
    FILE *msgs;
    wfa_options o;
    options_of(in, &o);
    if (!(*out = result_new(&msgs)))
        return WFA_FAIL;
    struct analyze_opts ao;
    if (!options_ok(&o, msgs))
        return finish(*out, msgs, &o, WF_EXIT_USAGE);
    if (analyze_opts_of(*out, &o, &ao))
        return finish(*out, msgs, &o, WF_EXIT_FAIL);
    char *paths[1] = {(char *)path};
    int rc = load_inputs_to(&(*out)->l, paths, 1, 0, WFA_WHO, &ao, msgs);
    return finish(*out, msgs, &o, rc);
}

static int analyze_buffer(const void *data, size_t len, const char *name, const wfa_options *in, wfa_result **out)
{
    if (!name)
        name = "<buffer>";
    /* The readers read files: the bytes become one in memory (memfd), so
     * that a native trace is mapped and a log read in parallel ranges as
     * from disk. */
    int fd = memfd_create("waterfall-analysis", MFD_CLOEXEC);
    FILE *msgs;
    wfa_options o;
    options_of(in, &o);
    if (!(*out = result_new(&msgs))) {
        if (fd >= 0)
            close(fd);
        return WFA_FAIL;
    }
    size_t done = 0;
    while (fd >= 0 && done < len) {
        ssize_t w = write(fd, (const char *)data + done, len - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    if (fd < 0 || done < len || lseek(fd, 0, SEEK_SET) != 0) {
        fprintf(msgs, WFA_WHO ": %s: cannot hold %zu bytes in memory\n", name, len);
        if (fd >= 0)
            close(fd);
        return finish(*out, msgs, &o, WF_EXIT_FAIL);
    }
    struct analyze_opts ao;
    int bad = !options_ok(&o, msgs) ? WF_EXIT_USAGE : analyze_opts_of(*out, &o, &ao) ? WF_EXIT_FAIL : 0;
    if (bad) {
        close(fd);
        return finish(*out, msgs, &o, bad);
    }
    int rc = load_fd_to(&(*out)->l, fd, name, WFA_WHO, &ao, msgs);
    close(fd);
    return finish(*out, msgs, &o, rc);
}

int wfa_analyze_file(const char *path, const wfa_options *o, wfa_result **out)
{
    struct c_locale l;
    c_locale_on(&l);
    int rc = analyze_file(path, o, out);
    c_locale_off(&l);
    return rc;
}

int wfa_analyze_buffer(const void *data, size_t len, const char *name, const wfa_options *o, wfa_result **out)
{
    struct c_locale l;
    c_locale_on(&l);
    int rc = analyze_buffer(data, len, name, o, out);
    c_locale_off(&l);
    return rc;
}

const char *wfa_result_json(const wfa_result *r, size_t *len)
{
    if (len)
        *len = r->json ? r->json_len : 0;
    return r->json ? r->json : "";
}

const char *wfa_result_messages(const wfa_result *r)
{
    return r->msgs ? r->msgs : "";
}

int wfa_result_status(const wfa_result *r)
{
    return r->status;
}

size_t wfa_result_runs(const wfa_result *r)
{
    return r->l.nres;
}

static const struct run_result *run_at(const wfa_result *r, size_t i)
{
    return i < r->l.nres ? &r->l.res[i] : NULL;
}

double wfa_run_utilization(const wfa_result *r, size_t i)
{
    const struct run_result *x = run_at(r, i);
    return x && x->window > 0 ? x->utilization : NAN;
}

double wfa_run_busy_s(const wfa_result *r, size_t i)
{
    const struct run_result *x = run_at(r, i);
    return x ? x->busy / 1e9 : NAN;
}

double wfa_run_window_s(const wfa_result *r, size_t i)
{
    const struct run_result *x = run_at(r, i);
    return x ? x->window / 1e9 : NAN;
}

uint64_t wfa_run_units(const wfa_result *r, size_t i)
{
    const struct run_result *x = run_at(r, i);
    return x ? x->units : 0;
}

const char *wfa_run_bottleneck(const wfa_result *r, size_t i)
{
    const struct run_result *x = run_at(r, i);
    return x ? bottleneck_names[x->bottleneck] : NULL;
}

void wfa_result_free(wfa_result *r)
{
    if (!r)
        return;
    loaded_free(&r->l);
    free(r->json);
    free(r->msgs);
    free(r->names[0]);
    free(r->names[1]);
    free(r->kernel_phase);
    free(r->stage_rule);
    free(r);
}

/* ---- events from a program ---- */

wfa_builder *wfa_builder_new(const char *source, const char *kind)
{
    wfa_builder *b = calloc(1, sizeof *b);
    if (!b || !(b->source = strdup(source ? source : "events")) || !(b->kind = strdup(kind ? kind : "events"))) {
        wfa_builder_free(b);
        return NULL;
    }
    /* positions are the caller's lines; no label beside the run's name */
    struct provenance p = {b->kind, "line", NULL};
    mb_init(&b->b, &b->m, b->source, &p);
    return b;
}

/* The pipeline event a name is (EV_*, with *flags U_QUEUE for GPU_QUEUE),
 * or -1: another event. */
static int event_of(const char *name, uint32_t *flags)
{
    *flags = 0;
    if (!strcasecmp(name, "GPU_QUEUE")) {
        *flags = U_QUEUE;
        return EV_CHAN_SEND;
    }
    for (int e = 0; e < EV_N; e++) /* any case, as the text reader reads them */
        if (!strcasecmp(name, ev_names[e]))
            return e;
    return -1;
}

int wfa_builder_event(wfa_builder *b, int64_t t_ns, const char *job, int32_t partition, const char *event,
                      int32_t worker, int32_t device, uint64_t line)
{
    if (b->spent || !job || !*job || !event || !*event)
        return WFA_USAGE;
    uint32_t flags;
    int ev = event_of(event, &flags);
    int rc = ev >= 0 ? mb_event(&b->b, t_ns, job, strlen(job), partition, ev, worker, device, line, flags)
                     : mb_other(&b->b, t_ns, job, strlen(job), partition, event, strlen(event), line);
    if (rc)
        b->oom = 1;
    b->m.timeline_lines++; /* the records read, as a log's TIMELINE lines count */
    return rc ? WFA_FAIL : WFA_OK;
}

int wfa_builder_detail(wfa_builder *b, const char *job, int32_t partition, const char *key, const char *value,
                       uint64_t line)
{
    if (b->spent || !job || !*job || !key || !*key || !value)
        return WFA_USAGE;
    if (mb_detail(&b->b, job, strlen(job), partition, key, strlen(key), value, strlen(value), line)) {
        b->oom = 1;
        return WFA_FAIL;
    }
    return WFA_OK;
}

void wfa_builder_run_break(wfa_builder *b)
{
    if (!b->spent)
        mb_break(&b->b);
}

static int builder_analyze(wfa_builder *b, const wfa_options *in, wfa_result **out)
{
    FILE *msgs;
    wfa_options o;
    options_of(in, &o);
    if (b->spent) {
        *out = NULL;
        return WFA_USAGE;
    }
    if (!(*out = result_new(&msgs)))
        return WFA_FAIL;
    struct loaded *l = &(*out)->l;
    l->msgs = msgs;
    struct analyze_opts ao;
    if (!options_ok(&o, msgs)) /* the events stay: the caller may try again */
        return finish(*out, msgs, &o, WF_EXIT_USAGE);
    if (analyze_opts_of(*out, &o, &ao))
        return finish(*out, msgs, &o, WF_EXIT_FAIL);
    b->spent = 1;
    if (b->oom || mb_finish(&b->b)) {
        fprintf(msgs, WFA_WHO ": %s: out of memory building the model\n", b->source);
        return finish(*out, msgs, &o, WF_EXIT_FAIL);
    }
    /* the result takes the model, and the names its runs point at */
    model_move(&l->model, &b->m);
    (*out)->names[0] = b->source;
    (*out)->names[1] = b->kind;
    b->source = b->kind = NULL;
    if (l->model.nruns == 0)
        fprintf(msgs, WFA_WHO ": %s: no pipeline events were given\n", (*out)->names[0]);
    int rc = loaded_analyze(l, WFA_WHO, &ao);
    return finish(*out, msgs, &o, rc);
}

int wfa_builder_analyze(wfa_builder *b, const wfa_options *o, wfa_result **out)
{
    struct c_locale l;
    c_locale_on(&l);
    int rc = builder_analyze(b, o, out);
    c_locale_off(&l);
    return rc;
}

void wfa_builder_free(wfa_builder *b)
{
    if (!b)
        return;
    model_free(&b->m);
    free(b->source);
    free(b->kind);
    free(b);
}
