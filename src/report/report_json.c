/*
 * report_json.c -- `analyze --json` and `diff --json`: a stable schema
 * (docs/json.md).  Times are seconds as numbers; what is undefined (no
 * completed job, no synthesis event) is null, never NaN.
 */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void secs(FILE *f, double ns)
{
    json_num(f, ns / 1e9);
}

/* An integer of nanoseconds as exact seconds: absolute times from a Unix
 * epoch (1718000863.5 s) keep every digit (with %.9g they lost 3.5 s). */
static void secs_i(FILE *f, int64_t ns)
{
    char b[40];
    fputs(fmt_secs_exact(b, sizeof b, ns), f);
}

static void secs_or_null(FILE *f, double ns)
{
    if (ns < 0)
        fputs("null", f);
    else
        secs(f, ns);
}

void report_stage_json(FILE *f, const struct stage_stats *s)
{
    fprintf(f, "{\"count\": %llu, \"mean_s\": ", (unsigned long long)s->count);
    if (!s->count) {
        fputs("null, \"p50_s\": null, \"p90_s\": null, \"p99_s\": null, \"max_s\": null}", f);
        return;
    }
    secs(f, s->mean);
    fputs(", \"p50_s\": ", f);
    secs(f, s->p50);
    fputs(", \"p90_s\": ", f);
    secs(f, s->p90);
    fputs(", \"p99_s\": ", f);
    secs(f, s->p99);
    fputs(", \"max_s\": ", f);
    secs(f, s->max);
    fputc('}', f);
}

void report_causes_json(FILE *f, const int64_t *by)
{
    fputc('{', f);
    for (int c = 0; c < CAUSE_N; c++) {
        fprintf(f, "%s\"%s\": ", c ? ", " : "", cause_names[c]);
        secs_i(f, by[c]);
    }
    fputc('}', f);
}

static void gap_json(FILE *f, const struct gap *g)
{
    fputs("{\"start_s\": ", f);
    secs_i(f, g->start);
    fputs(", \"end_s\": ", f);
    secs_i(f, g->end);
    fputs(", \"length_s\": ", f);
    secs_i(f, g->end - g->start);
    fputs(", \"by_cause\": ", f);
    report_causes_json(f, g->by_cause);
    fputc('}', f);
}

/* A stream by HTA's idle-time breakdown (analyze_stream.c). */
static void stream_json(FILE *f, const struct stream_result *s, int first)
{
    fprintf(f, "%s{\"stream\": %d, \"operations\": %llu, \"busy_s\": ", first ? "" : ", ", s->stream,
            (unsigned long long)s->ops);
    secs_i(f, s->busy);
    fputs(", \"idle_s\": ", f);
    secs_i(f, s->idle);
    fputs(", \"host_wait_s\": ", f);
    secs_i(f, s->host_wait);
    fputs(", \"kernel_wait_s\": ", f);
    secs_i(f, s->kernel_wait);
    fputs(", \"other_s\": ", f);
    secs_i(f, s->other);
    fputc('}', f);
}

static void device_json(FILE *f, const struct device_result *d, const struct report_opts *o)
{
    fprintf(f, "{\"device\": %d, \"workers\": [", d->device);
    for (size_t w = 0; w < d->nworkers; w++)
        fprintf(f, "%s%d", w ? ", " : "", d->workers[w]);
    fprintf(f, "], \"units\": %llu, \"busy_s\": ", (unsigned long long)d->units);
    secs_i(f, d->busy);
    fputs(", \"window_s\": ", f);
    secs_i(f, d->window_end - d->window_start);
    fputs(", \"window_start_s\": ", f);
    if (d->units)
        secs_i(f, d->window_start);
    else
        fputs("null", f);
    fputs(", \"window_end_s\": ", f);
    if (d->units)
        secs_i(f, d->window_end);
    else
        fputs("null", f);
    fputs(", \"utilization\": ", f);
    if (d->units)
        json_num(f, d->utilization);
    else
        fputs("null", f);
    fputs(", \"kernel_busy_s\": ", f);
    if (d->has_kernel)
        secs_i(f, d->kernel_busy);
    else
        fputs("null", f);
    fputs(", \"kernel_utilization\": ", f);
    if (d->has_kernel)
        json_num(f, d->kernel_utilization);
    else
        fputs("null", f);
    if (d->has_driver) {
        fputs(", \"driver_utilization\": ", f);
        json_num(f, d->driver_utilization);
        fputs(", \"driver_coverage\": ", f);
        json_num(f, d->driver_coverage);
        fprintf(f, ", \"driver_readings\": %llu", (unsigned long long)d->driver_readings);
    }
    fputs(", \"idle_s\": ", f);
    secs_i(f, d->idle);
    fputs(", \"idle_by_cause\": ", f);
    report_causes_json(f, d->by_cause);
    fprintf(f, ", \"gaps\": %zu, \"fill_s\": ", d->ngaps);
    if (d->units && d->fill >= 0)
        secs_i(f, d->fill);
    else
        fputs("null", f); /* no SYNTH_START to count it from, or no window to count it to */
    fputs(", \"gpu_s_per_unit\": ", f);
    if (d->units)
        secs(f, d->gpu_per_unit);
    else
        fputs("null", f);
    fputs(", \"streams\": [", f); /* [] but for a trace of streams (a PyTorch trace's) */
    for (size_t i = 0; i < d->nstreams; i++)
        stream_json(f, &d->streams[i], i == 0);
    fputc(']', f);
    if (o && o->gaps) {
        fputs(", \"gap_list\": [", f);
        size_t n;
        const struct gap **order = gaps_longest_first(d, o->max_gaps, &n);
        if (order) {
            for (size_t g = 0; g < n; g++) {
                fputs(g ? ", " : "", f);
                gap_json(f, order[g]);
            }
            free(order);
        }
        fputc(']', f);
    }
    fputc('}', f);
}

static void issues_json(FILE *f, const struct run *r)
{
    static const char *const kinds[3] = {"skipped", "duplicate", "contradiction"};
    fputc('[', f);
    int first = 1;
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < r->nissues[k]; i++) {
            const struct issue *is = &r->issues[k][i];
            fprintf(f, "%s{\"kind\": \"%s\", \"%s\": %llu, \"what\": ", first ? "" : ", ", kinds[k],
                    r->prov.at, (unsigned long long)is->line);
            const char *what = k == ISSUE_SKIPPED ? scan_err_key[is->detail] : ev_names[is->detail];
            json_str(f, what, strlen(what));
            fputc('}', f);
            first = 0;
        }
    fputc(']', f);
}

static void role_json(FILE *f, const struct cpu_role *ro)
{
    if (!ro->known) {
        fputs("null", f);
        return;
    }
    fputs("{\"used\": ", f);
    json_num(f, ro->used);
    fputs(", \"wanted\": ", f);
    json_num(f, ro->wanted);
    fputs(", \"starvation\": ", f);
    json_num(f, ro->starvation);
    fputc('}', f);
}

static void conc_json(FILE *f, const struct conc_row *rows, size_t n)
{
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s{\"concurrency\": %d, \"units\": %llu, \"mean_s\": ", i ? ", " : "", rows[i].k,
                (unsigned long long)rows[i].units);
        secs(f, rows[i].mean);
        if (rows[i].kind) {
            fputs(", \"kind\": ", f);
            json_str(f, rows[i].kind, rows[i].klen);
        }
        fputc('}', f);
    }
    fputc(']', f);
}

/* runs[].memory: from the recorder's memory samples, else null */
static void mem_json(FILE *f, const struct mem_use *m)
{
    fputs(", \"memory\": ", f);
    if (!m || !m->sampled) {
        fputs("null", f);
        return;
    }
    fprintf(f, "{\"source\": \"samples\", \"peak_bytes\": %llu, \"base_bytes\": %llu, \"per_synthesis_bytes\": ",
            (unsigned long long)m->peak_bytes, (unsigned long long)m->base_bytes);
    if (isnan(m->per_synthesis))
        fputs("null", f);
    else
        fprintf(f, "%.0f", m->per_synthesis);
    fputs(", \"available_min_bytes\": ", f);
    if (m->avail_known)
        fprintf(f, "%llu}", (unsigned long long)m->avail_min_bytes);
    else
        fputs("null}", f);
}

/* CPU time per unit by concurrency (samples): its mean, s */
static void cpu_conc_json(FILE *f, const struct cpu_row *rows, size_t n)
{
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s{\"concurrency\": %d, \"units\": %llu, \"cpu_s\": ", i ? ", " : "", rows[i].k,
                (unsigned long long)rows[i].units);
        json_num(f, rows[i].cpu_s);
        fputc('}', f);
    }
    fputc(']', f);
}

/* Where a unit beside others spends its extra time (samples), per unit */
static void extra_json(FILE *f, const char *key, const struct cpu_extra *e)
{
    fprintf(f, ", \"%s\": ", key);
    if (!e->known) {
        fputs("null", f);
        return;
    }
    fputs("{\"slower\": ", f);
    json_num(f, e->slower);
    fputs(", \"cpu_grows\": ", f);
    json_num(f, e->cpu_grows);
    fputs(", \"more_cpu_s\": ", f);
    json_num(f, e->cpu);
    fputs(", \"more_run_queue_s\": ", f);
    json_num(f, e->wait);
    fputs(", \"more_off_cpu_s\": ", f);
    json_num(f, e->off);
    fputc('}', f);
}

/* runs[].cpu (docs/json.md) */
static void report_cpu_json(FILE *f, const struct cpu_result *c)
{
    fprintf(f, "{\"source\": \"%s\", \"synthesis\": ", c->source == CPU_SRC_SAMPLES ? "samples" : "timing");
    role_json(f, &c->synth);
    fputs(", \"gpu_workers\": ", f);
    role_json(f, &c->gpu);
    fputs(", \"synthesis_by_concurrency\": ", f);
    conc_json(f, c->synth_by, c->nsynth_by);
    fputs(", \"gpu_by_concurrency\": ", f);
    conc_json(f, c->gpu_by, c->ngpu_by);
    fputs(", \"synthesis_slower\": ", f);
    json_num(f, c->synth_slower);
    fputs(", \"gpu_slower\": ", f);
    json_num(f, c->gpu_slower);
    fprintf(f, ", \"synthesis_contended\": %s, \"gpu_contended\": %s, \"contention\": %s",
            c->synth_contended ? "true" : "false", c->gpu_contended ? "true" : "false",
            c->contention ? "true" : "false");
    fputs(", \"kind\": ", f);
    if (c->kind != KIND_NONE && c->contention)
        fprintf(f, "\"%s\"", kind_names[c->kind]);
    else
        fputs("null", f);
    extra_json(f, "synthesis_beside_others", &c->synth_extra);
    extra_json(f, "gpu_beside_others", &c->gpu_extra);
    fputs(", \"synthesis_cpu_by_concurrency\": ", f);
    cpu_conc_json(f, c->synth_cpu_by, c->nsynth_cpu_by);
    fputs(", \"gpu_cpu_by_concurrency\": ", f);
    cpu_conc_json(f, c->gpu_cpu_by, c->ngpu_cpu_by);
    fputc('}', f);
}

/* runs[].phases (docs/json.md) */
static void phases_json(FILE *f, const struct run_result *res)
{
    fputc('[', f);
    for (size_t i = 0; i < res->phase.nrows; i++) {
        const struct phase_row *row = &res->phase.rows[i];
        size_t n;
        const char *nm = phase_label(res->run, row, &n);
        fputs(i ? ", {\"name\": " : "{\"name\": ", f);
        json_str(f, nm, n);
        fprintf(f, ", \"within\": \"%s\", \"count\": %llu, \"mean_s\": ", within_names[row->within],
                (unsigned long long)row->st.count);
        secs(f, row->st.mean);
        fputs(", \"p50_s\": ", f);
        secs(f, row->st.p50);
        fputs(", \"p90_s\": ", f);
        secs(f, row->st.p90);
        fputs(", \"share\": ", f);
        json_num(f, row->share);
        if (res->run->dur.placed || res->run->dur.spawn_placed) { /* duration lines' phases nest (analyze.h) */
            fputs(", \"parent\": ", f);
            if (row->parent >= 0) {
                const char *pn = phase_label(res->run, &res->phase.rows[row->parent], &n);
                json_str(f, pn, n);
            } else {
                fputs("null", f);
            }
        }
        fputc('}', f);
    }
    fputc(']', f);
}

/* `, "key": {"units": n, "of": m}`, or null where m is 0: the units of a
 * device's GPU phases that have the kernel phase (kernel_partial) or lack
 * it (kernel_missing), of those with a GPU phase */
static void units_of_json(FILE *f, const char *key, uint64_t n, uint64_t of)
{
    fprintf(f, ", \"%s\": ", key);
    if (of)
        fprintf(f, "{\"units\": %llu, \"of\": %llu}", (unsigned long long)n, (unsigned long long)of);
    else
        fputs("null", f);
}

/* runs[].durations (docs/json.md, "Duration lines"): only where the run
 * has duration lines, so that other runs' JSON is as it was. */
static void durations_json(FILE *f, const struct run_result *res)
{
    const struct dur_use *d = &res->run->dur;
    fprintf(f, ", \"durations\": {\"source\": \"CUZK_TIMING\", \"lines\": %llu, \"values\": %llu, \"placed\": %llu, "
               "\"guessed\": %llu, \"calls\": %llu, \"units\": %llu, \"ambiguous\": %llu, \"interleaved\": %llu, \"stray\": %llu, "
               "\"outside\": %llu, \"spawn_lines\": %llu, \"spawn_placed\": %llu, \"messages\": %llu, "
               "\"ntt_h_lines\": %llu, \"unreadable\": %llu, \"first_unreadable_line\": ",
            (unsigned long long)d->lines, (unsigned long long)d->values, (unsigned long long)d->placed,
            (unsigned long long)d->guessed, (unsigned long long)d->calls, (unsigned long long)d->units, (unsigned long long)d->ambiguous,
            (unsigned long long)d->interleaved, (unsigned long long)d->stray, (unsigned long long)d->outside,
            (unsigned long long)d->spawn_lines, (unsigned long long)d->spawn_placed, (unsigned long long)d->info,
            (unsigned long long)d->ntt, (unsigned long long)d->bad);
    if (d->bad)
        fprintf(f, "%llu", (unsigned long long)d->bad_first);
    else
        fputs("null", f);
    fputs(", \"outside_by_name\": [", f);
    for (size_t i = 0; i < d->nmarks; i++) {
        size_t n;
        const char *nm = strtab_get(res->run->strs, d->marks[i].name, &n);
        fputs(i ? ", {\"name\": " : "{\"name\": ", f);
        json_str(f, nm, n);
        fprintf(f, ", \"count\": %llu, \"mean_s\": ", (unsigned long long)d->marks[i].count);
        secs(f, 1e6 * (double)d->marks[i].total_ms / (double)d->marks[i].count);
        fputc('}', f);
    }
    fputs("]", f);
    units_of_json(f, "kernel_partial", res->phase.kernel_units_partial, res->phase.gpu_units_partial);
    units_of_json(f, "kernel_missing", res->phase.kernel_units_missing,
                  res->phase.kernel_units_missing ? res->phase.gpu_units_kernel : 0);
    fputs(", \"critical_path\": ", f);
    const struct crit_path *c = &res->phase.crit;
    if (!c->known) {
        fputs("null}", f);
        return;
    }
    fputs("{\"kernels_s\": ", f);
    secs(f, c->kernels);
    fputs(", \"barrier_wait_s\": ", f);
    secs(f, c->barrier);
    fputs(", \"prep_msm_s\": ", f);
    secs(f, c->prep);
    fputs(", \"b_g2_msm_s\": ", f);
    secs(f, c->bg2);
    fprintf(f, ", \"host_bound\": %s}}", c->host_bound ? "true" : "false");
}

static void reported_json(FILE *f, const char *key, const struct reported_check *c, int first)
{
    fprintf(f, "%s\"%s\": {\"checked\": %llu, \"disagree\": %llu, \"first_line\": ", first ? "" : ", ", key,
            (unsigned long long)c->checked, (unsigned long long)c->disagree);
    if (c->disagree) {
        fprintf(f, "%llu, \"first_reported_s\": ", (unsigned long long)c->first_line);
        secs(f, c->first_reported);
        fputs(", \"first_timed_s\": ", f);
        secs(f, c->first_timed);
    } else {
        fputs("null, \"first_reported_s\": null, \"first_timed_s\": null", f);
    }
    fprintf(f, ", \"outside\": %llu, \"outside_s\": ", (unsigned long long)c->outside);
    secs(f, c->outside_ns);
    fputc('}', f);
}

/* The phases inside the stages, marks, kinds, the daemon's own durations,
 * and where the times come from (docs/json.md, RUN). */
/* A PyTorch trace's CPU ranges: the stages mapped (--stage), and the
 * ranges most open while a device idled (read/kineto_stage.h). */
static void stage_map_json(FILE *f, const struct run *r)
{
    const struct streams_use *su = &r->streams;
    fprintf(f,
            ", \"stage_map\": {\"mapped\": %s, \"cpu_ranges\": %llu, \"synthesis\": {\"ranges\": %llu, "
            "\"units\": %llu}, \"prep\": {\"ranges\": %llu, \"units\": %llu}, \"candidates\": [",
            su->mapped ? "true" : "false", (unsigned long long)su->cpu_ranges,
            (unsigned long long)su->stage_ranges[0], (unsigned long long)su->stage_units[0],
            (unsigned long long)su->stage_ranges[1], (unsigned long long)su->stage_units[1]);
    for (int i = 0; i < su->ncand; i++) {
        const struct kcand *c = &su->cand[i];
        size_t n;
        const char *nm = strtab_get(r->strs, c->name, &n);
        fputs(i ? ", {\"name\": " : "{\"name\": ", f);
        json_str(f, nm, n);
        fputs(", \"idle_s\": ", f);
        secs_i(f, c->idle);
        fputs(", \"idle_share\": ", f);
        json_num(f, su->cand_idle ? (double)c->idle / (double)su->cand_idle : 0);
        fprintf(f, ", \"ranges\": %llu, \"span_s\": ", (unsigned long long)c->ranges);
        secs_i(f, c->span);
        fputc('}', f);
    }
    fputs("]}", f);
}

static void inside_json(FILE *f, const struct run_result *res)
{
    const struct run *r = res->run;
    fputs(", \"kernel_utilization\": ", f);
    if (res->phase.has_kernel)
        json_num(f, res->phase.kernel_utilization);
    else
        fputs("null", f);
    if (res->has_driver) { /* only where a native trace holds NVML's readings (docs/gpu.md) */
        fputs(", \"driver_utilization\": ", f);
        json_num(f, res->driver_utilization);
        fprintf(f, ", \"driver_source\": \"%s\"",
                res->driver_source == GPU_OBS_SERIES ? "nvml_samples" : "nvml_rates");
    }
    fputs(", \"phases\": ", f);
    phases_json(f, res);
    fputs(", \"marks\": {", f);
    for (size_t i = 0; i < res->phase.nmarks; i++) {
        size_t n;
        const char *nm = strtab_get(r->strs, res->phase.marks[i].name, &n);
        fputs(i ? ", " : "", f);
        json_str(f, nm, n);
        fprintf(f, ": %llu", (unsigned long long)res->phase.marks[i].count);
    }
    fputc('}', f);
    if (r->dur.lines || r->dur.values || r->dur.spawn_lines)
        durations_json(f, res);
    fputs(", \"by_kind\": {", f);
    for (size_t i = 0; i < res->phase.nkinds; i++) {
        const struct kind_row *k = &res->phase.kinds[i];
        fputs(i ? ", " : "", f);
        if (k->kind)
            json_str(f, k->kind, k->klen);
        else
            fputs("\"\"", f);
        fprintf(f, ": {\"units\": %llu, \"completed\": %llu, \"stages\": {", (unsigned long long)k->units,
                (unsigned long long)k->completed);
        for (int st = 0; st < ST_N; st++) {
            fprintf(f, "%s\"%s\": ", st ? ", " : "", stage_names[st]);
            report_stage_json(f, &k->stage[st]);
        }
        fputs("}}", f);
    }
    fputs("}, \"reported\": {", f);
    reported_json(f, "synth_ms", &res->phase.synth_ms, 1);
    reported_json(f, "gpu_ms", &res->phase.gpu_ms, 0);
    fprintf(f, "}, \"other_events_without_unit\": %llu, \"clock\": ", (unsigned long long)r->xorphans);
    if (r->wall_events) {
        fputs("{\"from\": \"line_timestamps\", \"origin_unix_s\": ", f);
        secs_i(f, r->wall_origin);
        fputc('}', f);
    } else {
        fputs("{\"from\": \"records\", \"origin_unix_s\": null}", f);
    }
    if (r->streams.streams)
        stage_map_json(f, r);
}

/* advice.work_by_concurrency: the simulation's model of work that grows
 * with the syntheses at once (memory, waiting), and what it gave. */
static void growth_json(FILE *f, const struct advice *a)
{
    fprintf(f, ", \"work_by_concurrency\": {\"stage\": \"%s\", \"measure\": \"%s\", \"factors\": [",
            a->growth_role ? "gpu" : "synthesis", a->growth_kind == KIND_MEMORY ? "cpu_s" : "time_less_run_queue_s");
    for (int i = 0; i < a->growth_n; i++) {
        fprintf(f, "%s{\"concurrency\": %d, \"factor\": ", i ? ", " : "", a->growth_k[i]);
        json_num(f, a->growth_w[i]);
        fputc('}', f);
    }
    fputs("], \"slope\": ", f);
    json_num(f, a->growth_slope);
    fputs(", \"simulated\": [", f);
    int at[2] = {a->needed, a->current};
    for (int i = 0; i < (a->needed != a->current ? 2 : 1); i++) {
        fprintf(f, "%s{\"synthesis_concurrency\": %d, \"utilization\": ", i ? ", " : "", at[i]);
        json_num(f, a->growth_util[i]);
        fputs(", \"s_per_job\": ", f);
        secs_or_null(f, a->growth_spj[i]);
        fputc('}', f);
    }
    fputs("]}", f);
}

/* runs[].advice (docs/json.md, ADVICE) */
static void advice_json(FILE *f, const struct run_result *res)
{
    fputs(", \"advice\": ", f);
    const struct advice *a = &res->advice;
    if (!a->valid) {
        fputs("null", f);
    } else {
        fprintf(f, "{\"synthesis_concurrency\": %d, \"predicted_utilization\": ", a->needed);
        json_num(f, a->predicted_needed);
        fprintf(f, ", \"current_concurrency\": %d, \"predicted_utilization_now\": ", a->current);
        json_num(f, a->predicted_now);
        fputs(", \"worker_cap\": ", f);
        json_num(f, a->worker_cap);
        fputs(", \"synthesis_s\": ", f);
        secs(f, a->synth_mean);
        fputs(", \"gpu_s_per_unit\": ", f);
        secs(f, a->rate > 0 ? 1.0 / a->rate : 0);
        fprintf(f, ", \"model\": \"%s\"", a->model);
        if (!strcmp(a->model, "simulation"))
            fprintf(f, ", \"contention_fitted\": %s, \"contention_model\": \"%s\"",
                    a->contention ? "true" : "false",
                    a->contention == 2 ? "measured" : a->contention ? "fitted" : "none");
        if (a->growth_n)
            growth_json(f, a);
        if (res->bottleneck == BN_GPU_PHASE) {
            fputs(", \"gpu_phase\": {\"simulated\": ", f);
            if (a->workers_done) {
                for (int i = 0; i < 2; i++) {
                    fprintf(f, "%s{\"gpu_workers_per_device\": %d, \"utilization\": ", i ? ", " : "[",
                            a->workers_now + i);
                    json_num(f, a->workers_util[i]);
                    fputs(", \"s_per_job\": ", f);
                    secs_or_null(f, a->workers_spj[i]);
                    fputc('}', f);
                }
                fputs("]}", f);
            } else {
                fputs("null}", f);
            }
        }
        if (res->bottleneck == BN_CPU) {
            fputs(", \"cpu\": {\"cores\": ", f);
            json_num(f, a->cores > 0 ? a->cores : NAN);
            fputs(", \"synthesis_cpu_s_per_unit\": ", f);
            secs(f, a->synth_cpu_unit);
            fputs(", \"gpu_workers_cpu_s_per_unit\": ", f);
            secs(f, a->host_cpu_unit);
            fputs(", \"synthesis_cpu_s_target\": ", f);
            json_num(f, a->cores > 0 ? a->synth_cpu_target / 1e9 : NAN);
            fprintf(f, ", \"reserve_cores_for_gpu_workers\": %d, \"simulated\": ", a->reserve_cores);
            if (a->sim_done) {
                fprintf(f, "[{\"synthesis_concurrency\": %d, \"utilization\": ", a->current);
                json_num(f, a->sim_util[0]);
                fputs(", \"s_per_job\": ", f);
                secs_or_null(f, a->sim_spj[0]);
                if (a->current > 1) {
                    fprintf(f, "}, {\"synthesis_concurrency\": %d, \"utilization\": ", a->current - 1);
                    json_num(f, a->sim_util[1]);
                    fputs(", \"s_per_job\": ", f);
                    secs_or_null(f, a->sim_spj[1]);
                }
                fputs("}]", f);
            } else {
                fputs("null", f);
            }
            fputc('}', f);
        }
        fputc('}', f);
    }
}

static void run_json(FILE *f, const struct run_result *res, const struct report_opts *o)
{
    const struct run *r = res->run;
    fputs("{\"source\": ", f);
    json_str(f, r->source, strlen(r->source));
    fprintf(f, ", \"run\": %d, \"format\": ", r->index);
    json_str(f, r->prov.kind, strlen(r->prov.kind)); /* a library's caller names it */
    fprintf(f, ", \"first_%s\": %llu, \"last_%s\": %llu", r->prov.at, (unsigned long long)r->first_line,
            r->prov.at, (unsigned long long)r->last_line);
    fprintf(f,
            ", \"jobs\": %llu, \"jobs_completed\": %llu, \"units\": %llu, \"in_flight\": %llu, "
            "\"events\": %llu, \"skipped_lines\": %llu, \"duplicate_events\": %llu, "
            "\"inconsistent_units\": %llu, \"lost_events\": %llu, \"damaged_bytes\": %llu, \"late_lines\": %llu",
            (unsigned long long)res->jobs, (unsigned long long)res->jobs_completed,
            (unsigned long long)res->units, (unsigned long long)res->in_flight,
            (unsigned long long)r->events, (unsigned long long)r->skipped_lines,
            (unsigned long long)r->duplicates, (unsigned long long)res->inconsistent,
            (unsigned long long)r->lost_events, (unsigned long long)r->damaged_bytes,
            (unsigned long long)r->late_lines);
    fprintf(f, ", \"abandoned_units\": %llu, \"abandoned_by_stage\": {\"synthesis\": %llu, \"queue\": %llu, "
               "\"prep\": %llu}",
            (unsigned long long)res->abandoned, (unsigned long long)res->abandoned_by[CAUSE_SYNTHESIS],
            (unsigned long long)res->abandoned_by[CAUSE_QUEUE], (unsigned long long)res->abandoned_by[CAUSE_PREP]);
    fputs(", \"issues\": ", f);
    issues_json(f, r);
    fputs(", \"utilization\": ", f);
    if (res->window > 0 || res->busy > 0)
        json_num(f, res->utilization);
    else
        fputs("null", f);
    fputs(", \"busy_s\": ", f);
    secs_i(f, res->busy);
    fputs(", \"window_s\": ", f);
    secs_i(f, res->window);
    fputs(", \"idle_s\": ", f);
    secs_i(f, res->idle);
    fputs(", \"idle_by_cause\": ", f);
    report_causes_json(f, res->by_cause);
    fputs(", \"devices\": [", f);
    int firstd = 1;
    for (size_t i = 0; i < res->ndev; i++) {
        fputs(firstd ? "" : ", ", f);
        device_json(f, &res->dev[i], o);
        firstd = 0;
    }
    fputs("], \"stages\": {", f);
    for (int s = 0; s < ST_N; s++) {
        fprintf(f, "%s\"%s\": ", s ? ", " : "", stage_names[s]);
        report_stage_json(f, &res->stage[s]);
    }
    fputs("}, \"synthesis_concurrency\": {\"max\": ", f);
    fprintf(f, "%d, \"mean_active\": ", res->synth_max);
    json_num(f, res->synth_mean_active);
    fputs("}, \"throughput\": {\"s_per_job\": ", f);
    secs_or_null(f, res->s_per_job);
    fputs(", \"steady_s_per_job\": ", f);
    secs_or_null(f, res->steady_s_per_job);
    fputc('}', f);
    inside_json(f, res);
    fputs(", \"cpu\": ", f);
    report_cpu_json(f, &res->cpu);
    mem_json(f, res->run ? &res->run->mem : NULL);
    fputs(", \"bottleneck\": ", f);
    if (res->bottleneck == BN_NONE)
        fputs("null", f);
    else
        fprintf(f, "\"%s\"", bottleneck_names[res->bottleneck]);
    advice_json(f, res);
    fputc('}', f);
}

void report_json(FILE *f, const struct model *m, const struct run_result *res, size_t nres,
                 const struct report_opts *o)
{
    fputs("{\"version\": 1, \"runs\": [", f);
    for (size_t i = 0; i < nres; i++) {
        fputs(i ? ",\n  " : "\n  ", f);
        run_json(f, &res[i], o);
    }
    fprintf(f, "%s], \"timeline_lines\": %llu, \"skipped_by_reason\": {", nres ? "\n" : "",
            (unsigned long long)m->timeline_lines);
    int first = 1;
    for (int e = 2; e < 8; e++) {
        fprintf(f, "%s\"%s\": %llu", first ? "" : ", ", scan_err_key[e],
                (unsigned long long)m->skipped_by[e]);
        first = 0;
    }
    fputs("}}\n", f);
}

static void delta(FILE *f, const char *name, double a, double b, int first)
{
    fprintf(f, "%s\"%s\": {\"a\": ", first ? "" : ", ", name);
    json_num(f, a);
    fputs(", \"b\": ", f);
    json_num(f, b);
    fputs(", \"change\": ", f);
    json_num(f, b - a);
    fputc('}', f);
}

void report_diff_json(FILE *f, const struct run_result *a, const struct run_result *b)
{
    fputs("{\"version\": 1, \"a\": ", f);
    run_json(f, a, NULL);
    fputs(",\n \"b\": ", f);
    run_json(f, b, NULL);
    fputs(",\n \"change\": {", f);
    delta(f, "utilization", a->utilization, b->utilization, 1);
    delta(f, "kernel_utilization", a->phase.kernel_utilization, b->phase.kernel_utilization, 0);
    delta(f, "s_per_job", a->s_per_job < 0 ? NAN : a->s_per_job / 1e9,
          b->s_per_job < 0 ? NAN : b->s_per_job / 1e9, 0);
    delta(f, "steady_s_per_job", a->steady_s_per_job < 0 ? NAN : a->steady_s_per_job / 1e9,
          b->steady_s_per_job < 0 ? NAN : b->steady_s_per_job / 1e9, 0);
    for (int c = 0; c < CAUSE_N; c++) {
        char name[48];
        snprintf(name, sizeof name, "idle_%s_s", cause_names[c]);
        delta(f, name, (double)a->by_cause[c] / 1e9, (double)b->by_cause[c] / 1e9, 0);
    }
    for (int s = 0; s < ST_N; s++) {
        char name[48];
        snprintf(name, sizeof name, "%s_p50_s", stage_names[s]);
        delta(f, name, a->stage[s].count ? a->stage[s].p50 / 1e9 : NAN,
              b->stage[s].count ? b->stage[s].p50 / 1e9 : NAN, 0);
    }
    fputs("}}\n", f);
}
