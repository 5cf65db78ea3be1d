/*
 * cmd_simulate.c -- `waterfall simulate`: what another synthesis
 * concurrency, GPU count or channel size would do, predicted by the
 * discrete-event simulation of sim.c, calibrated from a trace (--from) or
 * from parameters (--synth-s, --gpu-s).  Everything it prints is
 * simulated, and says so.
 */
#include "args.h"
#include "cmds.h"
#include "load.h"
#include "report.h"
#include "sim.h"
#include "wf_exit.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void simulate_usage(FILE *f)
{
    fprintf(f,
            "usage: waterfall simulate (--from FILE | --synth-s S --gpu-s G) [knobs] [--sweep KNOB=A:B[:STEP]]\n"
            "calibration\n"
            "  --from FILE             a trace or TIMELINE log: its stage times are resampled,\n"
            "                          its contention is fitted; --run N picks a run (default 1)\n"
            "  --synth-s S, --gpu-s G  per-unit synthesis and device seconds, instead of a trace\n"
            "  --prep-s S              host-side prep latency per unit (default 0)\n"
            "  --dispatch-s S          dispatch latency: a free worker to GPU_PICKUP (default 0)\n"
            "  --spread CV             their coefficient of variation, lognormal (default 0)\n"
            "  --trace-cores N         the cores of the machine that recorded the trace\n"
            "                          (default: what the trace says, else this machine's, %ld)\n"
            "  --no-fit                leave CPU contention out: neither measured (the threads'\n"
            "                          CPU time in a native trace) nor fitted\n"
            "knobs (default: what the trace shows, else 1)\n"
            "  --synth-concurrency C   syntheses at once\n"
            "  --gpu-workers W         GPU workers per device\n"
            "  --devices D             devices\n"
            "  --channel K             channel capacity (0: rendezvous; default: the most seen\n"
            "                          waiting, at least C)\n"
            "  --jobs N, --partitions P, --rate R (jobs per second; 0: all at once)\n"
            "  --cores N               cores shared by synthesis and GPU host work (0: no contention;\n"
            "                          default: the trace's when contention is fitted or given)\n"
            "  --synth-threads T       cores one synthesis uses (default: fitted, else 1)\n"
            "  --host-threads T        cores one GPU worker's host work uses (default: fitted, else 1)\n"
            "  --host-share H          share of device time that is host CPU work, 0..1\n"
            "                          (default: fitted, else 0)\n"
            "  --host-weight X         a GPU worker's share of the cores against a synthesis's\n"
            "                          when they compete (default: fitted, else 1)\n"
            "                          any of these four with --from: the model is given, not\n"
            "                          fitted, and the trace's times are taken through it\n"
            "  --seed N                random seed (default 1): the same seed, the same result\n"
            "  --memory SIZE           the memory the process may use (k, M, G, T: powers of 1024):\n"
            "                          with a trace's memory samples, caps the concurrency at\n"
            "                          what fits, base + C x per synthesis <= SIZE\n"
            "output\n"
            "  --sweep KNOB=A:B[:STEP] one simulation per value of a knob (synth-concurrency,\n"
            "                          gpu-workers, devices, channel, cores, partitions, jobs, rate);\n"
            "                          the best (the smallest value within 2%% of the least s per job) is marked\n"
            "  --json                  JSON on stdout (docs/simulate.md)\n"
            "  --color=WHEN            auto, always, never (the sweep's chart)\n",
            sysconf(_SC_NPROCESSORS_ONLN));
}

/* --memory SIZE: a number of bytes, or of k, M, G, T (powers of 1024). */
static int parse_size(const char *v, double *out)
{
    char *end;
    double x = strtod(v, &end);
    static const char suf[] = "kMGT";
    const char *at = *end ? strchr(suf, *end == 'K' ? 'k' : *end) : NULL;
    if (at && *at)
        x *= pow(1024, (double)(at - suf + 1)), end++;
    if (end == v || *end || !(x >= 1) || x > 1e18) {
        fprintf(stderr, "waterfall simulate: --memory %s: a size in bytes, or with k, M, G or T (1 to 1e18 bytes)\n", v);
        return 1;
    }
    *out = x;
    return 0;
}

static int num(const char *opt, const char *v, double lo, double hi, double *out)
{
    return arg_double("simulate", opt, v, lo, hi, out);
}

static int integer(const char *opt, const char *v, long lo, long hi, long *out)
{
    return arg_long("simulate", opt, v, lo, hi, out);
}

enum knob { KN_NONE, KN_SYNTH, KN_WORKERS, KN_DEVICES, KN_CHANNEL, KN_CORES, KN_PARTS, KN_JOBS, KN_RATE, KN_N };
static const char *const knob_names[KN_N] = {"", "synth-concurrency", "gpu-workers", "devices", "channel",
                                             "cores", "partitions", "jobs", "rate"};

static void set_knob(struct sim_params *p, int k, double v)
{
    switch (k) {
    case KN_SYNTH: p->synth_concurrency = (int)v; break;
    case KN_WORKERS: p->gpu_workers = (int)v; break;
    case KN_DEVICES: p->devices = (int)v; break;
    case KN_CHANNEL: p->channel = (int)v; break;
    case KN_CORES: p->cores = v; break;
    case KN_PARTS: p->partitions = (int)v; break;
    case KN_JOBS: p->jobs = (uint64_t)v; break;
    case KN_RATE: p->rate = v; break;
    }
}

struct sweep {
    int knob;
    double a, b, step;
};

static int parse_sweep(const char *v, struct sweep *s)
{
    const char *eq = strchr(v, '=');
    s->knob = KN_NONE;
    for (int k = 1; eq && k < KN_N; k++) {
        size_t n = strlen(knob_names[k]);
        if ((size_t)(eq - v) == n && !strncmp(v, knob_names[k], n))
            s->knob = k;
        /* also the underscore spelling of the JSON */
        char alt[32];
        snprintf(alt, sizeof alt, "%s", knob_names[k]);
        for (char *c = alt; *c; c++)
            if (*c == '-')
                *c = '_';
        if ((size_t)(eq - v) == n && !strncmp(v, alt, n))
            s->knob = k;
    }
    if (s->knob == KN_NONE) {
        fprintf(stderr, "waterfall simulate: --sweep needs KNOB=A:B[:STEP] with KNOB one of "
                        "synth-concurrency, gpu-workers, devices, channel, cores, partitions, jobs, rate; "
                        "not '%s'\n", v);
        return -1;
    }
    char *end;
    s->a = strtod(eq + 1, &end);
    s->step = s->knob == KN_RATE ? 0 : 1;
    if (*end != ':' || !isfinite(s->a)) {
        fprintf(stderr, "waterfall simulate: --sweep %s: give a range A:B, e.g. %s=1:8\n", v, knob_names[s->knob]);
        return -1;
    }
    char *b = end + 1;
    s->b = strtod(b, &end);
    if (end == b || !isfinite(s->b)) {
        fprintf(stderr, "waterfall simulate: --sweep %s: bad end of range\n", v);
        return -1;
    }
    if (*end == ':') {
        char *st = end + 1;
        s->step = strtod(st, &end);
        if (end == st || *end || !(s->step > 0) || !isfinite(s->step)) {
            fprintf(stderr, "waterfall simulate: --sweep %s: the step must be positive\n", v);
            return -1;
        }
    } else if (*end) {
        fprintf(stderr, "waterfall simulate: --sweep %s: trailing '%s'\n", v, end);
        return -1;
    }
    if (s->knob == KN_RATE && s->step == 0)
        s->step = (s->b - s->a) / 8;
    int whole = s->knob != KN_CORES && s->knob != KN_RATE;
    /* the same limits as the options' */
    static const double lo[KN_N] = {0, 1, 1, 1, 0, 0.01, 1, 1, 1e-9};
    static const double hi[KN_N] = {0, 100000, 100000, 100000, 10000000, 1e6, 100000, 50000000, 1e9};
    if (s->a < lo[s->knob] || s->b > hi[s->knob]) {
        fprintf(stderr, "waterfall simulate: --sweep %s: %s goes from %g to %g%s\n", v, knob_names[s->knob],
                lo[s->knob], hi[s->knob],
                s->knob == KN_CORES  ? " (--cores 0, no contention, is not a number of cores to sweep)"
                : s->knob == KN_RATE ? " (--rate 0, all at once, is not a rate to sweep)"
                                     : "");
        return -1;
    }
    if (s->b < s->a || s->a < 0 || (whole && (s->a != floor(s->a) || s->b != floor(s->b) ||
                                             s->step != floor(s->step))) ||
        !(s->step > 0) || (s->b - s->a) / s->step > 1000) {
        fprintf(stderr, "waterfall simulate: --sweep %s: need 0 <= A <= B, %sat most 1000 points\n", v,
                whole ? "whole numbers, " : "a positive step, ");
        return -1;
    }
    return 0;
}

/* The command line (knobs: NAN or -1 when not given). */
struct sim_cli {
    const char *from;
    long run_no;
    double synth_s, gpu_s, prep_s, disp_s, spread, tcores; /* tcores 0: the trace's, else this machine's */
    int nofit, json, color, have_sweep;
    struct sweep sw;
    double k_cores, k_sth, k_hth, k_hsh, k_hw, k_rate;
    double mem_budget; /* --memory, bytes; 0: none */
    long k_c, k_w, k_d, k_k, k_parts, k_jobs;
    unsigned long long seed;
};

/* WF_GO_ON to go ahead, else the exit status. */
static int sim_parse(int argc, char **argv, struct sim_cli *o)
{
    enum {
        O_FROM = 256, O_RUN, O_SYNTH_S, O_GPU_S, O_PREP_S, O_SPREAD, O_TCORES, O_NOFIT, O_C, O_W, O_D, O_K,
        O_JOBS, O_PARTS, O_RATE, O_CORES, O_STH, O_HTH, O_HSH, O_HW, O_DISP, O_SEED, O_SWEEP, O_JSON, O_COLOR,
        O_MEMORY
    };
    static const struct option longopts[] = {
        {"from", required_argument, 0, O_FROM}, {"run", required_argument, 0, O_RUN},
        {"synth-s", required_argument, 0, O_SYNTH_S}, {"gpu-s", required_argument, 0, O_GPU_S},
        {"prep-s", required_argument, 0, O_PREP_S}, {"dispatch-s", required_argument, 0, O_DISP}, {"spread", required_argument, 0, O_SPREAD},
        {"trace-cores", required_argument, 0, O_TCORES}, {"no-fit", no_argument, 0, O_NOFIT},
        {"synth-concurrency", required_argument, 0, O_C}, {"gpu-workers", required_argument, 0, O_W},
        {"devices", required_argument, 0, O_D}, {"channel", required_argument, 0, O_K},
        {"jobs", required_argument, 0, O_JOBS}, {"partitions", required_argument, 0, O_PARTS},
        {"rate", required_argument, 0, O_RATE}, {"cores", required_argument, 0, O_CORES},
        {"synth-threads", required_argument, 0, O_STH}, {"host-threads", required_argument, 0, O_HTH},
        {"host-share", required_argument, 0, O_HSH}, {"host-weight", required_argument, 0, O_HW},
        {"seed", required_argument, 0, O_SEED}, {"memory", required_argument, 0, O_MEMORY},
        {"sweep", required_argument, 0, O_SWEEP}, {"json", no_argument, 0, O_JSON},
        {"color", required_argument, 0, O_COLOR}, {"colour", required_argument, 0, O_COLOR},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    *o = (struct sim_cli){.run_no = 1, .synth_s = -1, .gpu_s = -1, .color = isatty(1) && !getenv("NO_COLOR"),
                          .k_cores = NAN, .k_sth = NAN, .k_hth = NAN, .k_hsh = NAN, .k_hw = NAN, .k_rate = NAN,
                          .k_c = -1, .k_w = -1, .k_d = -1, .k_k = -1, .k_parts = -1, .k_jobs = -1, .seed = 1};
    long lv;
    int c;
    optind = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case O_FROM: o->from = optarg; break;
        case O_RUN: bad = integer("--run", optarg, 1, 1000000, &o->run_no); break;
        case O_SYNTH_S: bad = num("--synth-s", optarg, 1e-9, 1e9, &o->synth_s); break;
        case O_GPU_S: bad = num("--gpu-s", optarg, 1e-9, 1e9, &o->gpu_s); break;
        case O_PREP_S: bad = num("--prep-s", optarg, 0, 1e9, &o->prep_s); break;
        case O_DISP: bad = num("--dispatch-s", optarg, 0, 1e9, &o->disp_s); break;
        case O_SPREAD: bad = num("--spread", optarg, 0, 100, &o->spread); break;
        case O_TCORES:
            bad = num("--trace-cores", optarg, 0.01, 1e6, &o->tcores);
            break;
        case O_NOFIT: o->nofit = 1; break;
        case O_C: bad = integer("--synth-concurrency", optarg, 1, 100000, &o->k_c); break;
        case O_W: bad = integer("--gpu-workers", optarg, 1, 100000, &o->k_w); break;
        case O_D: bad = integer("--devices", optarg, 1, 100000, &o->k_d); break;
        case O_K: bad = integer("--channel", optarg, 0, 10000000, &o->k_k); break;
        case O_JOBS: bad = integer("--jobs", optarg, 1, 50000000, &o->k_jobs); break;
        case O_PARTS: bad = integer("--partitions", optarg, 1, 100000, &o->k_parts); break;
        case O_RATE: bad = num("--rate", optarg, 0, 1e9, &o->k_rate); break;
        case O_CORES: bad = num("--cores", optarg, 0, 1e6, &o->k_cores); break;
        case O_STH: bad = num("--synth-threads", optarg, 1e-6, 1e6, &o->k_sth); break;
        case O_HTH: bad = num("--host-threads", optarg, 1e-6, 1e6, &o->k_hth); break;
        case O_HSH: bad = num("--host-share", optarg, 0, 1, &o->k_hsh); break;
        case O_HW: bad = num("--host-weight", optarg, 0.001, 1000, &o->k_hw); break;
        case O_SEED:
            bad = integer("--seed", optarg, 0, 2147483647L, &lv);
            o->seed = (unsigned long long)lv;
            break;
        case O_SWEEP:
            bad = parse_sweep(optarg, &o->sw);
            o->have_sweep = 1;
            break;
        case O_JSON: o->json = 1; break;
        case O_MEMORY: bad = parse_size(optarg, &o->mem_budget); break;
        case O_COLOR:
            if (report_color_arg(optarg, &o->color)) {
                fprintf(stderr, "waterfall simulate: --color takes auto, always or never\n");
                bad = 1;
            }
            break;
        case 'h': simulate_usage(stdout); return WF_EXIT_OK;
        default:
            arg_suggest("waterfall simulate", argv, longopts);
            simulate_usage(stderr);
            return WF_EXIT_USAGE;
        }
        if (bad)
            return WF_EXIT_USAGE;
    }
    if (optind < argc) {
        fprintf(stderr, "waterfall simulate: unexpected '%s' (the trace goes after --from)\n", argv[optind]);
        return WF_EXIT_USAGE;
    }
    if (!o->from && (o->synth_s < 0 || o->gpu_s < 0)) {
        fprintf(stderr, "waterfall simulate: give --from FILE, or both --synth-s and --gpu-s\n");
        simulate_usage(stderr);
        return WF_EXIT_USAGE;
    }
    if (o->mem_budget > 0 && !o->from) {
        fprintf(stderr, "waterfall simulate: --memory needs --from, a trace with memory samples: memory per "
                        "synthesis comes from them\n");
        return WF_EXIT_USAGE;
    }
    if (o->from && (o->synth_s >= 0 || o->gpu_s >= 0)) {
        fprintf(stderr, "waterfall simulate: --from and --synth-s/--gpu-s do not go together: one calibration\n");
        return WF_EXIT_USAGE;
    }
    return WF_GO_ON;
}

/* Calibrate from the trace's run (--from): an exit status, OK or PARTIAL
 * to go ahead. */
static int sim_from_trace(const struct sim_cli *o, struct loaded *l, struct sim_params *p, struct sim_fit *fit)
{
    char *paths[1] = {(char *)o->from};
    int rc = load_inputs(l, paths, 1, isatty(2), "waterfall simulate", NULL);
    if (l->nres == 0)
        return rc == WF_EXIT_OK ? WF_EXIT_INPUT : rc;
    if ((size_t)o->run_no > l->nres) {
        fprintf(stderr, "waterfall simulate: %s holds %zu run%s; --run %ld is not one\n", o->from, l->nres,
                l->nres == 1 ? "" : "s", o->run_no);
        return WF_EXIT_USAGE;
    }
    const struct run_result *res = &l->res[o->run_no - 1];
    struct timespec c0, c1;
    clock_gettime(CLOCK_MONOTONIC, &c0);
    /* A contention model on the command line replaces the fit, in the
     * calibration as in the simulation (sim_calibrate). */
    struct sim_params given = {.synth_threads = isnan(o->k_sth) ? 1 : o->k_sth,
                               .host_threads = isnan(o->k_hth) ? 1 : o->k_hth,
                               .host_share = isnan(o->k_hsh) ? 0 : o->k_hsh,
                               .host_weight = isnan(o->k_hw) ? 1 : o->k_hw};
    int have_given = !isnan(o->k_sth) || !isnan(o->k_hth) || !isnan(o->k_hsh) || !isnan(o->k_hw);
    char err[512];
    int bad = sim_calibrate(res->run, res, o->tcores, !o->nofit, have_given ? &given : NULL, p, fit, err,
                            sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &c1);
    if (getenv("WATERFALL_TIMING"))
        fprintf(stderr, "timing: calibration and contention fit %.3f s\n",
                (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-9);
    if (bad) {
        fprintf(stderr, "waterfall simulate: %s: %s\n", o->from, err);
        return WF_EXIT_INPUT;
    }
    if (l->nres > 1 && !o->json)
        fprintf(stderr, "waterfall simulate: %s holds %zu runs; calibrating from run %ld (--run picks another)\n",
                o->from, l->nres, o->run_no);
    sim_trace_defaults(p, fit);
    if (rc == WF_EXIT_OK && l->partial) {
        rc = WF_EXIT_PARTIAL;
        loaded_partial_note(l, "waterfall simulate");
    }
    return rc;
}

/* --memory: the most syntheses at once that fit, from the trace's memory
 * samples (base + C x per synthesis <= the budget); the concurrency capped
 * there.  OK, or USAGE with the reason on stderr. */
static int memory_cap(const struct sim_cli *o, const struct loaded *l, struct sim_params *p, struct sim_memory *m)
{
    const struct run *r = l->res[o->run_no - 1].run;
    const struct mem_use *u = r ? &r->mem : NULL;
    if (!u || !u->sampled || isnan(u->per_synthesis)) {
        fprintf(stderr, "waterfall simulate: --memory: %s has %s: record it with libwaterfall 1.4 or later, CPU "
                        "sampling on, through syntheses at more than one concurrency\n",
                o->from, !u || !u->sampled ? "no memory samples" : "no memory per synthesis (one count in flight only)");
        return WF_EXIT_USAGE;
    }
    m->budget = o->mem_budget;
    m->base = (double)u->base_bytes;
    m->per_synthesis = u->per_synthesis;
    double c = u->per_synthesis > 0 ? floor((m->budget - m->base) / u->per_synthesis + 1e-9) : 1e6;
    if (c < 1) {
        fprintf(stderr, "waterfall simulate: --memory %.0f bytes: not even one synthesis fits (base %.0f + %.0f "
                        "per synthesis, from the trace's memory samples)\n",
                m->budget, m->base, u->per_synthesis);
        return WF_EXIT_USAGE;
    }
    m->max_concurrency = c > 1e6 ? 1000000 : (int)c;
    m->asked = p->synth_concurrency;
    if (p->synth_concurrency > m->max_concurrency)
        p->synth_concurrency = m->max_concurrency;
    return WF_EXIT_OK;
}

/* Calibrate from --synth-s and --gpu-s. */
static void sim_from_params(const struct sim_cli *o, struct sim_params *p)
{
    p->synth = (struct sim_dist){.mean = o->synth_s, .cv = o->spread};
    p->gpu = (struct sim_dist){.mean = o->gpu_s, .cv = o->spread};
    p->prep = (struct sim_dist){.mean = o->prep_s, .cv = o->spread};
    p->pickup = (struct sim_dist){.mean = o->disp_s, .cv = o->spread};
    p->calib_partitions = 1;
    p->jobs = 100;
    p->partitions = 1;
    p->synth_concurrency = p->gpu_workers = p->devices = 1;
    p->channel = -1;
    p->synth_threads = p->host_threads = 1;
}

/* The knobs given on the command line, over the calibration's. */
static void sim_knobs(const struct sim_cli *o, struct sim_params *p)
{
    if (o->k_c > 0) p->synth_concurrency = (int)o->k_c;
    if (o->k_w > 0) p->gpu_workers = (int)o->k_w;
    if (o->k_d > 0) p->devices = (int)o->k_d;
    if (o->k_k >= 0) p->channel = (int)o->k_k;
    /* another workload than the trace's: jobs x partitions at a rate (the
     * trace's stays with the measured setting, which frees it) */
    if (o->k_jobs > 0 || o->k_parts > 0 || !isnan(o->k_rate))
        sim_uniform(p);
    if (o->k_jobs > 0) p->jobs = (uint64_t)o->k_jobs;
    if (o->k_parts > 0) p->partitions = (int)o->k_parts;
    if (!isnan(o->k_rate)) p->rate = o->k_rate;
    if (!isnan(o->k_cores)) p->cores = o->k_cores;
    if (!isnan(o->k_sth)) p->synth_threads = o->k_sth;
    if (!isnan(o->k_hth)) p->host_threads = o->k_hth;
    if (!isnan(o->k_hsh)) p->host_share = o->k_hsh;
    if (!isnan(o->k_hw)) p->host_weight = o->k_hw;
    p->seed = o->seed;
}

/* Each point's parameters (one, or the sweep's): OK, or USAGE with the
 * reason on stderr. */
static int sim_points(const struct sim_cli *o, const struct sim_params *p, struct sim_params *pp, double *vals,
                      size_t npts)
{
    for (size_t i = 0; i < npts; i++) {
        pp[i] = *p;
        if (o->have_sweep) {
            vals[i] = o->sw.a + (double)i * o->sw.step;
            set_knob(&pp[i], o->sw.knob, vals[i]);
            if (o->sw.knob == KN_JOBS || o->sw.knob == KN_PARTS || o->sw.knob == KN_RATE)
                sim_uniform(&pp[i]); /* another workload than the trace's (p keeps it, to free) */
        }
        if (!o->from) /* --synth-s and --gpu-s are per unit, whatever the partitions */
            pp[i].calib_partitions = pp[i].partitions;
        if (o->k_k < 0 && !(o->have_sweep && o->sw.knob == KN_CHANNEL))
            pp[i].channel = pp[i].channel > pp[i].synth_concurrency ? pp[i].channel : pp[i].synth_concurrency;
        char bad[256];
        if (sim_check(&pp[i], bad, sizeof bad)) {
            fprintf(stderr, "waterfall simulate: %s%s%s%s\n", bad, o->have_sweep ? " (in the sweep of " : "",
                    o->have_sweep ? knob_names[o->sw.knob] : "", o->have_sweep ? ")" : "");
            return WF_EXIT_USAGE;
        }
    }
    return WF_EXIT_OK;
}

/* Is a point the measured setting (the trace's own knobs and workload)? */
static int is_measured(const struct sim_params *a, const struct sim_params *m)
{
    return a->synth_concurrency == m->synth_concurrency && a->gpu_workers == m->gpu_workers &&
           a->devices == m->devices && a->channel == m->channel && a->cores == m->cores &&
           a->synth_threads == m->synth_threads && a->host_threads == m->host_threads &&
           a->host_share == m->host_share && a->host_weight == m->host_weight && a->jobs == m->jobs &&
           a->partitions == m->partitions && a->rate == m->rate && a->job_units == m->job_units &&
           a->job_at == m->job_at;
}

/* The simulation at the measured setting, to hold against the measured
 * run: a point of the sweep that is it, else one more run (*own: 1, the
 * caller frees it).  NULL when it could not run (said on stderr). */
static const struct sim_out *measured_point(const struct sim_params *meas, const struct sim_params *pp,
                                            const struct sim_out *outs, size_t npts, struct sim_out *extra,
                                            int *own)
{
    *own = 0;
    for (size_t i = 0; i < npts; i++)
        if (is_measured(&pp[i], meas))
            return &outs[i];
    char err[256];
    if (sim_check(meas, err, sizeof err) || sim_run(meas, extra, err, sizeof err)) {
        fprintf(stderr, "waterfall simulate: the measured setting could not be simulated: no check against the "
                        "measured run\n");
        return NULL;
    }
    sim_out_drop_run(extra);
    *own = 1;
    return extra;
}

/* Simulate each point, keeping its figures (spj: its s per job): OK, or
 * an exit status with the reason on stderr. */
static int sim_runs(const struct sim_params *pp, struct sim_out *outs, double *spj, size_t npts)
{
    for (size_t i = 0; i < npts; i++) {
        char err[256];
        if (sim_run(&pp[i], &outs[i], err, sizeof err)) {
            fprintf(stderr, "waterfall simulate: %s\n", err);
            return outs[i].too_long ? WF_EXIT_USAGE : WF_EXIT_FAIL; /* the setting's fault, or memory's */
        }
        if (getenv("WATERFALL_TIMING"))
            fprintf(stderr, "timing: %zu units, %llu events: simulation %.3f s (%.2fM units/s), analysis %.3f s\n",
                    outs[i].run.nunits, (unsigned long long)outs[i].events, outs[i].sim_s,
                    (double)outs[i].run.nunits / outs[i].sim_s * 1e-6, outs[i].analyze_s);
        spj[i] = outs[i].res.s_per_job;
        sim_out_drop_run(&outs[i]); /* the figures stay; the units go */
    }
    return WF_EXIT_OK;
}

int cmd_simulate(int argc, char **argv)
{
    struct sim_cli o;
    int rc = sim_parse(argc, argv, &o);
    if (rc != WF_GO_ON)
        return rc;
    struct sim_params p = {0}, meas = {0};
    struct sim_fit fit = {0};
    struct loaded l = {0};
    struct sim_out extra = {0};
    int own_extra = 0;
    rc = WF_EXIT_OK;
    if (o.from)
        rc = sim_from_trace(&o, &l, &p, &fit);
    else
        sim_from_params(&o, &p);
    size_t npts = o.have_sweep ? (size_t)floor((o.sw.b - o.sw.a) / o.sw.step + 1e-9) + 1 : 1;
    struct sim_out *outs = NULL;
    double *vals = NULL, *spj = NULL;
    struct sim_params *pp = NULL;
    if (rc != WF_EXIT_OK && rc != WF_EXIT_PARTIAL)
        goto done;
    /* the measured setting: the trace's knobs and workload, as the points
     * get them (the channel at least the concurrency); it owns the
     * trace's workload */
    meas = p;
    if (meas.channel < meas.synth_concurrency)
        meas.channel = meas.synth_concurrency;
    meas.seed = o.seed;
    sim_knobs(&o, &p);
    struct sim_memory mem = {0};
    if (o.mem_budget > 0) {
        rc = memory_cap(&o, &l, &p, &mem);
        if (rc != WF_EXIT_OK && rc != WF_EXIT_PARTIAL)
            goto done;
    }
    outs = calloc(npts, sizeof *outs);
    vals = calloc(npts, sizeof *vals);
    spj = calloc(npts, sizeof *spj);
    pp = calloc(npts, sizeof *pp);
    if (!outs || !vals || !spj || !pp) {
        fprintf(stderr, "waterfall simulate: out of memory\n");
        rc = WF_EXIT_FAIL;
        goto done;
    }
    int st = sim_points(&o, &p, pp, vals, npts);
    if (st == WF_EXIT_OK)
        st = sim_runs(pp, outs, spj, npts);
    if (st != WF_EXIT_OK) {
        rc = st;
        goto done;
    }
    /* The best: the least s per job; among points within SIM_BEST_TOL of
     * it, the first (the smaller value).  Jobs and the arrival rate are the
     * workload, not a setting: their sweeps rank nothing. */
    int ranked = o.have_sweep && o.sw.knob != KN_JOBS && o.sw.knob != KN_RATE;
    unsigned char *nofit = NULL;
    if (mem.budget > 0) {
        /* a point whose syntheses would not fit is not a candidate */
        nofit = calloc(npts, 1);
        if (!nofit) {
            fprintf(stderr, "waterfall simulate: out of memory\n");
            rc = WF_EXIT_FAIL;
            goto done;
        }
        size_t fit_n = 0;
        for (size_t i = 0; i < npts; i++) {
            nofit[i] = pp[i].synth_concurrency > mem.max_concurrency;
            fit_n += !nofit[i];
            if (nofit[i])
                spj[i] = INFINITY;
        }
        if (!fit_n)
            ranked = 0;
    }
    mem.nofit = nofit;
    size_t best = ranked ? sim_best(spj, npts, SIM_BEST_TOL) : 0;
    struct sim_report sr = {.from = o.from, .calib = &p, .fit = &fit, .params = pp, .outs = outs, .vals = vals,
                            .npts = npts, .best = best, .ranked = ranked, .seed = o.seed,
                            .knob = o.have_sweep ? knob_names[o.sw.knob] : NULL,
                            .mem = mem.budget > 0 ? &mem : NULL};
    /* the check: the simulation at the measured setting against the run */
    if (o.from) {
        sr.measured = &l.res[o.run_no - 1];
        sr.meas_params = &meas;
        sr.check = measured_point(&meas, pp, outs, npts, &extra, &own_extra);
    }
    if (o.json)
        report_sim_json(stdout, &sr);
    else
        report_sim_text(stdout, &sr, o.color);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "waterfall simulate: write failed\n");
        rc = WF_EXIT_FAIL;
    }
    free(nofit);
done:
    if (own_extra)
        sim_out_free(&extra);
    /* the trace's workload is the measured setting's, once it was taken
     * (p's own may be gone) */
    if (meas.job_units || meas.job_at) {
        free(meas.job_units);
        free(meas.job_at);
        p.job_units = NULL;
        p.job_at = NULL;
    }
    if (outs)
        for (size_t i = 0; i < npts; i++)
            sim_out_free(&outs[i]);
    free(outs);
    free(vals);
    free(spj);
    free(pp);
    sim_params_free(&p);
    if (o.from)
        loaded_free(&l);
    return rc;
}
