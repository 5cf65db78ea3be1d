/*
 * report_sim.c -- `waterfall simulate`'s output, as text and as JSON
 * (docs/simulate.md): the calibration, the simulated setup, and the
 * predicted figures of one point or of each point of a sweep.  Every
 * figure printed here is simulated, and says so.
 */
#include "report.h"

#include <math.h>
#include <string.h>

/* A duration; "-" where it is undefined (negative, as the analysis marks
 * e.g. the steady s per job of a single job). */
static const char *dur(char *buf, size_t n, double ns)
{
    return fmt_dur(buf, n, ns >= 0 ? ns : NAN);
}

/* The workload: the trace's own jobs (each with its units), or jobs x
 * partitions. */
static void workload_text(FILE *f, const struct sim_params *p, const struct sim_fit *fit)
{
    if (!p->job_units) {
        fprintf(f, "%llu job%s x %d partition%s", (unsigned long long)p->jobs, p->jobs == 1 ? "" : "s",
                p->partitions, p->partitions == 1 ? "" : "s");
        return;
    }
    unsigned long long units = (unsigned long long)sim_units(p);
    fprintf(f, "the trace's %llu completed job%s, %llu unit%s", (unsigned long long)p->jobs, p->jobs == 1 ? "" : "s",
            units, units == 1 ? "" : "s");
    if (fit->parts_min != fit->parts_max)
        fprintf(f, " (%d to %d a job)", fit->parts_min, fit->parts_max);
    else
        fprintf(f, " (%d a job)", fit->parts_min);
}

static void setup_line(FILE *f, const struct sim_params *p, const struct sim_fit *fit)
{
    fprintf(f, "  %-13s ", "setup");
    workload_text(f, p, fit);
    fprintf(f, ", synthesis concurrency %d, %d device%s x %d worker%s, channel %d, ", p->synth_concurrency, p->devices,
            p->devices == 1 ? "" : "s", p->gpu_workers, p->gpu_workers == 1 ? "" : "s", p->channel);
    if (p->cores > 0)
        fprintf(f, "%g cores (synthesis %.2g, host %.2g, host share %.2g, weight %.2g), ", p->cores,
                p->synth_threads, p->host_threads, p->host_share, p->host_weight > 0 ? p->host_weight : 1);
    else
        fprintf(f, "no CPU contention, ");
    if (p->job_units && p->job_at)
        fprintf(f, "arriving as in the trace\n");
    else if (p->rate > 0 && !p->job_units)
        fprintf(f, "%g jobs/s\n", p->rate);
    else
        fprintf(f, "all jobs at once\n");
}

/* ---- the check: the simulation at the measured setting against the run ---- */

#define CHECK_POINTS 0.05 /* utilization: 5 points, and */
#define CHECK_SPJ 0.10    /* s per job: 10%, the bars the validation holds the simulator to */

/* How far the simulation at the measured setting is from the run: 1 within
 * the bars, 0 not, -1 nothing to compare (no figure on one side). */
static int check_within(const struct sim_report *s, double *dpts, double *dspj)
{
    const struct run_result *m = s->measured, *c = s->check ? &s->check->res : NULL;
    if (!m || !c || !(m->utilization >= 0) || !(c->utilization >= 0) || m->s_per_job <= 0 || c->s_per_job <= 0)
        return -1;
    *dpts = c->utilization - m->utilization;
    *dspj = c->s_per_job / m->s_per_job - 1;
    return fabs(*dpts) <= CHECK_POINTS && fabs(*dspj) <= CHECK_SPJ;
}

/* Why the simulation at the measured setting may miss the run: what the
 * model leaves out of this trace.  Up to 4 reasons, in why[]; their count. */
static int check_why(const struct sim_report *s, char why[4][160])
{
    int n = 0;
    const struct sim_fit *fit = s->fit;
    if (fit->units_left_out)
        snprintf(why[n++], 160, "%llu unit%s of jobs that did not complete in the trace are not simulated, "
                                "though the measured run spent time on them",
                 (unsigned long long)fit->units_left_out, fit->units_left_out == 1 ? "" : "s");
    if (s->measured->cpu.contention && !fit->fitted && !fit->measured && !fit->given)
        snprintf(why[n++], 160, "the trace's stages are slower beside others (CPU contention) and the simulation "
                                "has no model of it");
    if (s->calib->synth.v && s->calib->synth.n < 30)
        snprintf(why[n++], 160, "only %zu complete units to resample", s->calib->synth.n);
    if (!n)
        snprintf(why[n++], 160, "the pipeline is not the model's (docs/simulate.md, \"The model\"): its channel's "
                                "capacity is a guess (%d), or its stages depend on each other otherwise",
                 s->meas_params ? s->meas_params->channel : -1);
    return n;
}

static void check_text(FILE *f, const struct sim_report *s)
{
    double dp, ds;
    int in = check_within(s, &dp, &ds);
    if (in < 0)
        return;
    const struct run_result *m = s->measured, *c = &s->check->res;
    char a[32], b[32];
    if (in) {
        fprintf(f, "  %-13s at the measured setting: %.1f%% and %s per job simulated, %.1f%% and %s measured "
                   "(within %.0f points and %.0f%%)\n",
                "check", 100 * c->utilization, dur(a, sizeof a, c->s_per_job), 100 * m->utilization,
                dur(b, sizeof b, m->s_per_job), 100 * CHECK_POINTS, 100 * CHECK_SPJ);
        return;
    }
    char why[4][160];
    int n = check_why(s, why);
    fprintf(f, "  %-13s at the measured setting the simulation misses the measured run: %.1f%% and %s per job "
               "simulated, %.1f%% and %s measured (%+.1f points, %+.0f%%): ",
            "warning", 100 * c->utilization, dur(a, sizeof a, c->s_per_job), 100 * m->utilization,
            dur(b, sizeof b, m->s_per_job), 100 * dp, 100 * ds);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%s", i ? "; " : "", why[i]);
    fputc('\n', f);
}

static void check_json(FILE *f, const struct sim_report *s)
{
    double dp, ds;
    int in = check_within(s, &dp, &ds);
    if (in < 0) {
        fputs(", \"check\": null", f);
        return;
    }
    const struct run_result *m = s->measured, *c = &s->check->res;
    fprintf(f, ", \"check\": {\"utilization_measured\": ");
    json_num(f, m->utilization);
    fputs(", \"utilization_simulated\": ", f);
    json_num(f, c->utilization);
    fputs(", \"s_per_job_measured\": ", f);
    json_num(f, m->s_per_job * 1e-9);
    fputs(", \"s_per_job_simulated\": ", f);
    json_num(f, c->s_per_job * 1e-9);
    fprintf(f, ", \"within\": %s, \"why\": [", in ? "true" : "false");
    if (!in) {
        char why[4][160];
        int n = check_why(s, why);
        for (int i = 0; i < n; i++) {
            fputs(i ? ", " : "", f);
            json_str(f, why[i], strlen(why[i]));
        }
    }
    fputs("]}", f);
}

/* The second contention term, when the trace measured it: a role's work
 * per unit by the syntheses at once (sim_growth). */
static void growth_text(FILE *f, const char *role, const struct sim_growth *g)
{
    if (g->n < 2)
        return;
    fprintf(f, "  %-13s %s %s by concurrency, measured (%s): ", "work growth", role,
            g->kind == KIND_MEMORY ? "CPU time per unit" : "time per unit off the run queue",
            g->kind == KIND_MEMORY ? "memory bandwidth or caches" : "waiting off the CPU, its CPU time flat");
    for (int i = 0; i < g->n; i++)
        fprintf(f, "%s%.2fx at %d", i ? " · " : "", g->w[i], g->k[i]);
    fprintf(f, ", +%.2fx per synthesis beyond; %.0f%% of its time grows so; in every simulated point\n", g->slope,
            100 * g->share);
}

static void growth_json(FILE *f, const char *key, const struct sim_growth *g)
{
    if (g->n < 2)
        return;
    fprintf(f, ", \"%s\": {\"measure\": \"%s\", \"factors\": [", key, g->kind == KIND_MEMORY ? "cpu_s" : "time_less_run_queue_s");
    for (int i = 0; i < g->n; i++)
        fprintf(f, "%s{\"concurrency\": %d, \"units\": %llu, \"factor\": %.6f}", i ? ", " : "", g->k[i],
                (unsigned long long)g->units[i], g->w[i]);
    fprintf(f, "], \"slope\": %.6f, \"share\": %.6f}", g->slope, g->share);
}

static void calib_text(FILE *f, const char *from, const struct sim_params *p, const struct sim_fit *fit)
{
    char a[32], b[32], c[32], d[32];
    if (!from) {
        fprintf(f, "  %-13s from parameters: synthesis %s, device %s, prep %s, dispatch %s per unit, spread %.2g\n",
                "calibration", fmt_dur(a, sizeof a, p->synth.mean * 1e9), fmt_dur(b, sizeof b, p->gpu.mean * 1e9),
                fmt_dur(c, sizeof c, p->prep.mean * 1e9), fmt_dur(d, sizeof d, p->pickup.mean * 1e9), p->synth.cv);
        return;
    }
    fprintf(f, "  %-13s from %s: %zu complete unit%s resampled: synthesis %s, %s %s%s, prep %s, "
               "dispatch %s per unit (means%s)\n",
            "calibration", from, p->synth.n, p->synth.n == 1 ? "" : "s", fmt_dur(a, sizeof a, sim_dist_mean(&p->synth) * 1e9),
            p->kernel_model ? "GPU phase" : "device", fmt_dur(b, sizeof b, sim_dist_mean(&p->gpu) * 1e9),
            p->kernel_model ? " (drawn in the parts the device model line gives)" : " (effective)", fmt_dur(c, sizeof c, sim_dist_mean(&p->prep) * 1e9),
            fmt_dur(d, sizeof d, sim_dist_mean(&p->pickup) * 1e9),
            fit->fitted || fit->given || fit->measured || sim_has_growth(p) ? ", without contention" : "");
    if (fit->measured)
        fprintf(f, "  %-13s measured, not fitted: the recorder sampled the threads' CPU time: a synthesis thread "
                   "wanted %.0f%% of a core while synthesizing, a GPU worker's %.0f%% during device time; on the "
                   "trace's %g cores a synthesis uses 1 core, a GPU worker's host work 1 core, busy %.0f%% of "
                   "device time; the worst slowdown it sees in the trace is %.2fx\n",
                "contention", 100 * fit->synth_cpu_share, 100 * fit->host_cpu_share, fit->trace_cores,
                100 * fit->host_share, fit->max_slowdown);
    else if (fit->given)
        fprintf(f, "  %-13s given, not fitted: on the trace's %g cores a synthesis uses %.2g core%s, a GPU worker's "
                   "host work %.2g core%s, busy %.0f%% of device time, weighted %gx; the worst slowdown it sees in "
                   "the trace is %.2fx\n",
                "contention", fit->trace_cores, fit->synth_threads, fit->synth_threads == 1 ? "" : "s",
                fit->host_threads, fit->host_threads == 1 ? "" : "s", 100 * fit->host_share, fit->host_weight,
                fit->max_slowdown);
    else if (fit->fitted)
        fprintf(f, "  %-13s fitted on %g cores from %zu units: a synthesis uses %.2g core%s, a GPU worker's host "
                   "work %.2g core%s, busy %.0f%% of device time, weighted %gx; explains %.0f%% of the variation of synthesis "
                   "times, %.0f%% of device times; the worst slowdown in the trace was %.2fx\n",
                "contention", fit->trace_cores, fit->units_used, fit->synth_threads,
                fit->synth_threads == 1 ? "" : "s", fit->host_threads, fit->host_threads == 1 ? "" : "s",
                100 * fit->host_share, fit->host_weight, 100 * fit->r2_synth, 100 * fit->r2_gpu, fit->max_slowdown);
    else
        fprintf(f, "  %-13s not fitted: %s; %s\n", "contention", fit->why,
                p->cores > 0 ? "the model runs with the given --cores and threads"
                             : "left out (--synth-threads, --host-threads, --host-share give it)");
    growth_text(f, "synthesis", &p->synth_growth);
    growth_text(f, "GPU phase", &p->gpu_growth);
}

static void result_text(FILE *f, const struct run_result *r)
{
    char a[32], b[32];
    fprintf(f, "  %-13s GPU utilization %.1f%%, %s per job (steady %s), bottleneck %s\n", "predicted",
            100 * r->utilization, dur(a, sizeof a, r->s_per_job), dur(b, sizeof b, r->steady_s_per_job),
            r->bottleneck ? bottleneck_names[r->bottleneck] : "none");
    char c[32];
    fprintf(f, "  %-13s %s", "idle", fmt_dur(c, sizeof c, (double)r->idle));
    if (r->idle > 0) {
        fputs(": ", f);
        report_causes_text(f, r->by_cause, r->idle);
    }
    fputc('\n', f);
}

static void jnum(FILE *f, const char *k, double v)
{
    fprintf(f, "\"%s\": ", k);
    json_num(f, v);
}

static void result_json(FILE *f, const struct run_result *r)
{
    jnum(f, "utilization", r->utilization);
    fputs(", ", f);
    jnum(f, "s_per_job", r->s_per_job >= 0 ? r->s_per_job * 1e-9 : NAN);
    fputs(", ", f);
    jnum(f, "steady_s_per_job", r->steady_s_per_job >= 0 ? r->steady_s_per_job * 1e-9 : NAN);
    fputs(", ", f);
    jnum(f, "busy_s", (double)r->busy * 1e-9);
    fputs(", ", f);
    jnum(f, "window_s", (double)r->window * 1e-9);
    fputs(", ", f);
    jnum(f, "idle_s", (double)r->idle * 1e-9);
    fputs(", \"idle_by_cause\": ", f);
    report_causes_json(f, r->by_cause);
    fprintf(f, ", \"bottleneck\": \"%s\", \"jobs_completed\": %llu, \"units\": %llu",
            r->bottleneck ? bottleneck_names[r->bottleneck] : "none", (unsigned long long)r->jobs_completed,
            (unsigned long long)r->units);
    fputs(", \"stages\": {", f);
    for (int s = 0; s < ST_N; s++) {
        fprintf(f, "%s\"%s\": ", s ? ", " : "", stage_names[s]);
        report_stage_json(f, &r->stage[s]);
    }
    fputc('}', f);
}

static void params_json(FILE *f, const struct sim_params *p)
{
    fprintf(f, "\"params\": {\"workload\": \"%s\", \"units\": %llu, ", p->job_units ? "trace" : "uniform",
            (unsigned long long)sim_units(p));
    fprintf(f, "\"jobs\": %llu, \"partitions\": %d, \"rate\": %.9g, \"synth_concurrency\": %d, "
               "\"gpu_workers\": %d, \"devices\": %d, \"channel\": %d, \"cores\": %.9g, \"synth_threads\": %.9g, "
               "\"host_threads\": %.9g, \"host_share\": %.9g, \"host_weight\": %.9g, \"seed\": %llu}",
            (unsigned long long)p->jobs, p->partitions, p->rate, p->synth_concurrency, p->gpu_workers, p->devices,
            p->channel, p->cores, p->synth_threads, p->host_threads, p->host_share,
            p->host_weight > 0 ? p->host_weight : 1, (unsigned long long)p->seed);
}

static void calib_json(FILE *f, const char *from, const struct sim_params *p, const struct sim_fit *fit)
{
    fputs("\"calibration\": {\"source\": ", f);
    if (from) {
        json_str(f, from, strlen(from));
        fprintf(f, ", \"units\": %zu, ", p->synth.n);
    } else {
        fputs("\"parameters\", \"spread\": ", f);
        fprintf(f, "%.9g, ", p->synth.cv);
    }
    jnum(f, "synth_s", sim_dist_mean(&p->synth));
    fputs(", ", f);
    jnum(f, "gpu_s", sim_dist_mean(&p->gpu));
    fputs(", ", f);
    jnum(f, "prep_s", sim_dist_mean(&p->prep));
    if (from) {
        fprintf(f, ", \"contention\": {\"fitted\": %s, \"given\": %s, \"measured\": %s, \"trace_cores\": %.9g",
                fit->fitted ? "true" : "false", fit->given ? "true" : "false", fit->measured ? "true" : "false",
                fit->trace_cores);
        if (fit->synth_cpu_share >= 0)
            fprintf(f, ", \"synth_cpu_share\": %.6f", fit->synth_cpu_share);
        if (fit->host_cpu_share >= 0)
            fprintf(f, ", \"host_cpu_share\": %.6f", fit->host_cpu_share);
        growth_json(f, "synthesis_work_by_concurrency", &p->synth_growth);
        growth_json(f, "gpu_work_by_concurrency", &p->gpu_growth);
        if (fit->given || fit->measured || fit->fitted) {
            fprintf(f, ", \"synth_threads\": %.9g, \"host_threads\": %.9g, \"host_share\": %.9g, "
                       "\"host_weight\": %.9g, \"max_slowdown\": %.6f",
                    fit->synth_threads, fit->host_threads, fit->host_share, fit->host_weight, fit->max_slowdown);
            if (fit->fitted)
                fprintf(f, ", \"r2_synth\": %.6f, \"r2_gpu\": %.6f, \"units\": %zu", fit->r2_synth, fit->r2_gpu,
                        fit->units_used);
            fputc('}', f);
        } else {
            fprintf(f, ", \"why\": \"%s\"}", fit->why);
        }
    }
    fputc('}', f);
}

/* A bar of n eighths. */
static void bar(FILE *f, double frac, int width)
{
    static const char *const part[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    if (!(frac >= 0))
        frac = 0;
    if (frac > 1)
        frac = 1;
    int eighths = (int)lround(frac * width * 8);
    for (int i = 0; i < eighths / 8; i++)
        fputs("█", f);
    fputs(part[eighths % 8], f);
    for (int i = eighths / 8 + (eighths % 8 != 0); i < width; i++)
        fputc(' ', f);
}

/* The measured run's GPU phases hold work besides their kernels (GPU
 * sub-phases): what more GPU workers per device could overlap with other
 * units' kernels, which the simulation does not model (sim.h: a device
 * holds a unit's whole GPU phase).  Its fill (report_phase_fill) in buf,
 * or NULL when there is none or no measured run. */
static const char *unmodelled_fill(const struct sim_report *s, char *buf, size_t n)
{
    const struct run_result *m = s->measured;
    if (!m)
        return NULL;
    for (size_t i = 0; i < m->phase.nrows; i++) {
        const struct phase_row *row = &m->phase.rows[i];
        if (row->within == WITHIN_GPU && row->name != PHASE_UNACCOUNTED && !phase_row_is_kernel(m, row))
            return report_phase_fill(buf, n, m);
    }
    return NULL;
}

/* The device model (sim.h): held for the kernels only, with the parts of
 * the GPU phase the trace gave; or held for the whole GPU phase, with the
 * measured phase's work that this leaves out and, where the trace had
 * kernel phases, why they were not used. */
static void device_model_text(FILE *f, const struct sim_report *s)
{
    const struct sim_params *p = s->calib;
    const struct sim_fit *fit = s->fit;
    char a[32], b[32], c[32], d[32], fill[512];
    if (p && p->kernel_model) {
        fprintf(f, "  %-13s a device is held for its units' kernels only (kernel phases in %zu of %zu units), so "
                   "another worker's host work runs beside them; per unit: host work before them %s, kernels %s, "
                   "after %s",
                "device model", fit->kernel_units, p->nkparts, fmt_dur(a, sizeof a, fit->pre_mean * 1e9),
                fmt_dur(b, sizeof b, fit->kernel_mean * 1e9), fmt_dur(c, sizeof c, fit->post_mean * 1e9));
        if (fit->helper_units)
            fprintf(f, "; prep_msm + b_g2_msm on a helper thread from GPU_START, %s in %zu units",
                    fmt_dur(d, sizeof d, fit->helper_mean * 1e9), fit->helper_units);
        if (fit->barrier_units)
            fprintf(f, ", the kernels waiting over 1 ms for prep_msm at barrier_wait in %zu", fit->barrier_units);
        fprintf(f, "; a worker takes its next unit %s\n",
                p->worker_at_unlock ? "when its kernels end (the trace's workers began units before their last "
                                      "GPU_END)"
                                    : "at GPU_END");
        return;
    }
    const char *uf = unmodelled_fill(s, fill, sizeof fill);
    const char *why = fit ? fit->kernel_why : NULL;
    if (!uf && !why)
        return;
    fprintf(f, "  %-13s each device holds a unit's whole GPU phase, one unit at a time%s%s%s", "device model",
            why ? " (its kernel phases are not used: " : "", why ? why : "", why ? ")" : "");
    if (uf)
        fprintf(f, "; the trace's GPU phases also hold %s: more GPU workers per device could overlap that work with "
                   "other units' kernels, which is not simulated, so gpu-workers points do not show that gain",
                uf);
    fputc('\n', f);
}

static void device_model_json(FILE *f, const struct sim_report *s)
{
    const struct sim_params *p = s->calib;
    const struct sim_fit *fit = s->fit;
    if (p && p->kernel_model) {
        fprintf(f, ", \"device_model\": {\"holds\": \"kernels\", \"kernel_units\": %zu, \"units\": %zu, ",
                fit->kernel_units, p->nkparts);
        jnum(f, "pre_s", fit->pre_mean);
        fputs(", ", f);
        jnum(f, "kernels_s", fit->kernel_mean);
        fputs(", ", f);
        jnum(f, "post_s", fit->post_mean);
        fprintf(f, ", \"helper_units\": %zu, \"helper_s\": ", fit->helper_units);
        if (fit->helper_units)
            fprintf(f, "%.9g", fit->helper_mean);
        else
            fputs("null", f);
        fprintf(f, ", \"worker_free_at\": \"%s\", \"kernels_not_used\": null, \"gpu_phase_work_not_modelled\": null}",
                p->worker_at_unlock ? "kernels_end" : "gpu_end");
        return;
    }
    char fill[512];
    const char *uf = unmodelled_fill(s, fill, sizeof fill);
    fputs(", \"device_model\": {\"holds\": \"gpu_phase\", \"kernels_not_used\": ", f);
    if (fit && fit->kernel_why)
        json_str(f, fit->kernel_why, strlen(fit->kernel_why));
    else
        fputs("null", f);
    fputs(", \"gpu_phase_work_not_modelled\": ", f);
    if (uf)
        json_str(f, uf, strlen(uf));
    else
        fputs("null", f);
    fputc('}', f);
}

void report_sim_json(FILE *f, const struct sim_report *s)
{
    fprintf(f, "{\"simulated\": true, ");
    result_json(f, &s->outs[s->best].res);
    fprintf(f, ", ");
    params_json(f, &s->params[s->best]);
    fprintf(f, ", ");
    calib_json(f, s->from, s->calib, s->fit);
    if (s->from)
        check_json(f, s);
    device_model_json(f, s);
    if (s->knob) {
        fprintf(f, ", \"sweep\": {\"knob\": \"%s\", ", s->knob);
        if (s->ranked)
            fprintf(f, "\"best\": %.9g, \"points\": [", s->vals[s->best]);
        else
            fprintf(f, "\"best\": null, \"points\": [");
        for (size_t i = 0; i < s->npts; i++) {
            fprintf(f, "%s{\"value\": %.9g, ", i ? ", " : "", s->vals[i]);
            result_json(f, &s->outs[i].res);
            if (s->mem && s->mem->nofit)
                fprintf(f, ", \"fits_memory\": %s", s->mem->nofit[i] ? "false" : "true");
            fprintf(f, "}");
        }
        fprintf(f, "]}");
    }
    if (s->mem)
        fprintf(f, ", \"memory\": {\"budget_bytes\": %.0f, \"base_bytes\": %.0f, \"per_synthesis_bytes\": %.0f, "
                   "\"max_concurrency\": %d, \"asked_concurrency\": %d}",
                s->mem->budget, s->mem->base, s->mem->per_synthesis, s->mem->max_concurrency, s->mem->asked);
    fprintf(f, "}\n");
}

/* Bytes in the unit that keeps three figures or fewer before the point. */
static const char *size_text(char *b, size_t n, double v)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (v >= 1024 && u < 4)
        v /= 1024, u++;
    snprintf(b, n, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
    return b;
}

/* A sweep's table: a row per point, the best starred. */
static void sweep_text(FILE *f, const struct sim_report *s, int color)
{
    fprintf(f, "\n  %17s  %11s  %10s  %10s  %-34s%s\n", s->knob, "utilization", "s per job", "steady",
            "idle: synthesis / queue / prep / no_work", color ? "  utilization" : "");
    static const int order[CAUSE_N] = {CAUSE_SYNTHESIS, CAUSE_QUEUE, CAUSE_PREP, CAUSE_NO_WORK};
    for (size_t i = 0; i < s->npts; i++) {
        const struct run_result *r = &s->outs[i].res;
        char a[32], b[32], cs[CAUSE_N][32], cause[160];
        for (int k = 0; k < CAUSE_N; k++)
            fmt_dur(cs[k], sizeof cs[k], (double)r->by_cause[order[k]]);
        snprintf(cause, sizeof cause, "%s / %s / %s / %s", cs[0], cs[1], cs[2], cs[3]);
        int star = i == s->best && s->ranked;
        fprintf(f, "  %15.6g %s  %10.1f%%  %10s  %10s  %-34s", s->vals[i], star ? "*" : " ", 100 * r->utilization,
                dur(a, sizeof a, r->s_per_job), dur(b, sizeof b, r->steady_s_per_job), cause);
        if (color) {
            fputs("  ", f);
            fputs(star ? "\033[32m" : "\033[2m", f);
            bar(f, r->utilization, 20);
            fputs("\033[0m", f);
        }
        if (s->mem && s->mem->nofit && s->mem->nofit[i])
            fprintf(f, "  does not fit in memory (%d syntheses at once need %s)", s->params[i].synth_concurrency,
                    size_text((char[32]){0}, 32, s->mem->base + s->params[i].synth_concurrency * s->mem->per_synthesis));
        fputc('\n', f);
    }
    if (s->mem && !s->ranked && s->mem->nofit)
        fprintf(f, "  no point fits in memory: no best\n");
    else if (s->ranked)
        fprintf(f, "  * best: %s %g, %.1f%% GPU utilization, %s per job\n", s->knob, s->vals[s->best],
                100 * s->outs[s->best].res.utilization, dur((char[32]){0}, 32, s->outs[s->best].res.s_per_job));
    else
        fprintf(f, "  (%s is the workload, not a setting: no best)\n", s->knob);
}

static void memory_text(FILE *f, const struct sim_memory *m)
{
    char a[32], b[32], c[32];
    fprintf(f, "  %-13s %s allowed: base %s + %s per synthesis in flight (the trace's memory samples) fit %d at once",
            "memory", size_text(a, sizeof a, m->budget), size_text(b, sizeof b, m->base),
            size_text(c, sizeof c, m->per_synthesis), m->max_concurrency);
    if (m->asked > m->max_concurrency)
        fprintf(f, "; synthesis concurrency capped at %d (from %d)", m->max_concurrency, m->asked);
    fputc('\n', f);
}

void report_sim_text(FILE *f, const struct sim_report *s, int color)
{
    fprintf(f, "waterfall simulate: SIMULATED, not measured: a discrete-event simulation (seed %llu)\n", s->seed);
    calib_text(f, s->from, s->calib, s->fit);
    if (s->mem)
        memory_text(f, s->mem);
    setup_line(f, &s->params[s->knob ? s->best : 0], s->fit);
    device_model_text(f, s);
    check_text(f, s);
    if (!s->knob)
        result_text(f, &s->outs[0].res);
    else
        sweep_text(f, s, color);
}
