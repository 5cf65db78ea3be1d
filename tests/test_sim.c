/*
 * test_sim.c -- the simulator (src/sim/sim.c, src/sim/sim_fit.c) against answers
 * worked out by hand, its invariants, its contention fit on data whose
 * truth is known, and the published cuzk figures.
 */
#include "check.h"

#include "explain.h"
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct sim_params base(double synth, double gpu)
{
    struct sim_params p = {0};
    p.jobs = 10;
    p.partitions = 1;
    p.synth_concurrency = p.gpu_workers = p.devices = p.channel = 1;
    p.synth_threads = p.host_threads = 1;
    p.synth = (struct sim_dist){.mean = synth};
    p.gpu = (struct sim_dist){.mean = gpu};
    p.prep = (struct sim_dist){.mean = 0};
    p.calib_partitions = 1;
    p.seed = 1;
    return p;
}

/* sim_run and sim_calibrate where they must succeed: 0, or -1 with the
 * reason printed. */
static int run(const struct sim_params *p, struct sim_out *o)
{
    char err[256] = "";
    int rc = sim_run(p, o, err, sizeof err);
    if (rc)
        printf("sim_run: %s\n", err);
    CHECK(rc == 0 || rc == -1);
    return rc;
}

static int calibrate(const struct run *r, const struct run_result *res, double trace_cores, int fit,
                     const struct sim_params *given, struct sim_params *p, struct sim_fit *f)
{
    char err[256] = "";
    int rc = sim_calibrate(r, res, trace_cores, fit, given, p, f, err, sizeof err);
    if (rc)
        printf("sim_calibrate: %s\n", err);
    CHECK(rc == 0 || rc == -1);
    return rc;
}

static int near(double a, double b, double tol)
{
    return fabs(a - b) <= tol;
}

/* Most units at once in [t[from], t[to]). */
static int most_at_once(const struct run *r, int from, int to)
{
    int best = 0;
    for (size_t i = 0; i < r->nunits; i++) {
        int64_t t = r->units[i].t[from];
        int n = 0;
        for (size_t j = 0; j < r->nunits; j++)
            if (r->units[j].t[from] <= t && t < r->units[j].t[to])
                n++;
        if (n > best)
            best = n;
    }
    return best;
}

static void by_hand(void)
{
    /* Sequential synthesis 39 s, GPU 27 s, 10 jobs: the GPU's window runs
     * from the first GPU_START (39 s) to the last GPU_END (10 x 39 + 27);
     * busy 270 s; s per job = 417 s / 10. */
    struct sim_params p = base(39, 27);
    struct sim_out o;
    char err[256] = "untouched";
    CHECK(sim_check(&p, err, sizeof err) == 0);
    CHECK(!strcmp(err, "untouched")); /* no message where nothing failed */
    CHECK(run(&p, &o) == 0);
    CHECK(o.too_long == 0);
    CHECK(near(o.res.utilization, 270.0 / 378.0, 1e-9));
    CHECK(near(o.res.s_per_job * 1e-9, 41.7, 1e-6));
    CHECK(near(o.res.steady_s_per_job * 1e-9, 39, 1e-6));
    CHECK(o.res.bottleneck == BN_SYNTHESIS);
    CHECK(near((double)o.res.by_cause[CAUSE_SYNTHESIS] * 1e-9, 108, 1e-6));
    CHECK_EQ_U(o.res.jobs_completed, 10);
    sim_out_free(&o);

    /* Two syntheses at once feed a 27 s GPU faster than it proves: busy
     * from 39 s on, back to back. */
    p.synth_concurrency = 2;
    p.channel = 2;
    CHECK(run(&p, &o) == 0);
    CHECK(near(o.res.utilization, 1.0, 1e-9));
    CHECK(o.res.bottleneck == BN_GPU);
    CHECK(near(o.res.s_per_job * 1e-9, (39 + 270) / 10.0, 1e-6));
    sim_out_free(&o);

    /* Two devices, one worker each, synthesis faster than both: each
     * device proves 5 units back to back. */
    p = base(1, 10);
    p.synth_concurrency = 4;
    p.devices = 2;
    p.channel = 4;
    CHECK(run(&p, &o) == 0);
    CHECK(o.res.ndev == 2);
    CHECK(near(o.res.utilization, 1.0, 1e-9));
    CHECK(near(o.res.s_per_job * 1e-9, (1 + 50) / 10.0, 1e-6));
    sim_out_free(&o);

    /* Arrivals slower than the pipeline: the GPU waits for input. */
    p = base(1, 1);
    p.rate = 0.25; /* a job every 4 s */
    CHECK(run(&p, &o) == 0);
    CHECK(o.res.bottleneck == BN_INPUT);
    CHECK(near(o.res.utilization, 10.0 / (9 * 4 + 1), 1e-9));
    sim_out_free(&o);

    /* Prep latency keeps a free device waiting: idle by prep. */
    p = base(1, 1);
    p.synth_concurrency = 2;
    p.channel = 2;
    p.prep = (struct sim_dist){.mean = 0.5};
    CHECK(run(&p, &o) == 0);
    CHECK(o.res.by_cause[CAUSE_PREP] > 0);
    CHECK(near(o.res.utilization, 10.0 / (10 + 9 * 0.5), 1e-9));
    sim_out_free(&o);
}

static void invariants(void)
{
    /* A slow GPU behind a small channel: the channel never holds more than
     * K, synthesis never runs more than C at once, and a unit waiting for
     * the channel keeps its permit. */
    for (int k = 0; k <= 2; k++) {
        struct sim_params p = base(1, 5);
        p.jobs = 30;
        p.synth_concurrency = 3;
        p.gpu_workers = 2;
        p.channel = k;
        p.synth.cv = p.gpu.cv = 0.3;
        struct sim_out o;
        CHECK(run(&p, &o) == 0);
        CHECK(most_at_once(&o.run, EV_CHAN_SEND, EV_GPU_PICKUP) <= (k ? k : 1));
        CHECK(most_at_once(&o.run, EV_SYNTH_START, EV_SYNTH_END) <= 3);
        CHECK(most_at_once(&o.run, EV_SYNTH_START, EV_CHAN_SEND) <= 3);
        CHECK(most_at_once(&o.run, EV_GPU_PICKUP, EV_GPU_END) <= 2);
        CHECK_EQ_U(o.res.jobs_completed, 30);
        /* the causes add up to idle, as in analyze */
        int64_t sum = 0;
        for (int c = 0; c < CAUSE_N; c++)
            sum += o.res.by_cause[c];
        CHECK(sum == o.res.idle);
        for (size_t i = 0; i < o.run.nunits; i++) {
            const struct unit *u = &o.run.units[i];
            for (int e = 1; e < EV_N; e++)
                CHECK(u->t[e] >= u->t[e - 1]);
        }
        sim_out_free(&o);
    }

    /* Seeded: the same seed, the same run; another seed, another. */
    struct sim_params p = base(2, 1.5);
    p.jobs = 200;
    p.synth.cv = p.gpu.cv = 0.5;
    struct sim_out a, b, c;
    CHECK(run(&p, &a) == 0 && run(&p, &b) == 0);
    p.seed = 2;
    CHECK(run(&p, &c) == 0);
    CHECK(memcmp(a.run.units, b.run.units, a.run.nunits * sizeof *a.run.units) == 0);
    CHECK(a.res.s_per_job != c.res.s_per_job);
    sim_out_free(&a);
    sim_out_free(&b);
    sim_out_free(&c);

    /* Partitions split a job's work: 10 partitions of 1/10 the time. */
    p = base(10, 5);
    p.jobs = 20;
    p.partitions = 10;
    p.calib_partitions = 1;
    struct sim_out o;
    CHECK(run(&p, &o) == 0);
    CHECK_EQ_U(o.run.nunits, 200);
    CHECK_EQ_U(o.res.jobs_completed, 20);
    CHECK(near(o.res.steady_s_per_job * 1e-9, 10, 1e-6));
    CHECK(o.run.units[1].partition == 1);
    sim_out_free(&o);
}

static void contention(void)
{
    struct sim_params p = base(1, 1);
    p.cores = 2;
    /* Processor sharing by water-filling: 4 one-core syntheses on 2 cores
     * run at half speed; a 1-core task next to a 4-core one keeps its
     * core, the other gets what is left. */
    double f[3];
    int n1[3] = {4, 0, 0};
    sim_slowdowns(&p, n1, f);
    CHECK(near(f[0], 2, 1e-12));
    p.host_threads = 4;
    p.host_share = 1;
    int n2[3] = {1, 0, 1};
    sim_slowdowns(&p, n2, f);
    CHECK(near(f[0], 1, 1e-12) && near(f[2], 4, 1e-12));
    p.host_share = 0; /* a device with no host work never slows, nor slows others */
    int n3[3] = {2, 0, 1};
    sim_slowdowns(&p, n3, f);
    CHECK(near(f[0], 1, 1e-12) && near(f[2], 1, 1e-12));
    /* weighted: a GPU worker's work at twice a synthesis's weight gets its
     * core while two syntheses share the other */
    p.host_threads = 1;
    p.host_share = 1;
    p.host_weight = 2;
    int n5[3] = {2, 0, 1};
    sim_slowdowns(&p, n5, f);
    CHECK(near(f[0], 2, 1e-12) && near(f[2], 1, 1e-12));
    p.host_weight = 1; /* equal weights: all three share two cores */
    sim_slowdowns(&p, n5, f);
    CHECK(near(f[0], 1.5, 1e-12) && near(f[2], 1.5, 1e-12));
    p.cores = 0;
    int n4[3] = {100, 100, 100};
    sim_slowdowns(&p, n4, f);
    CHECK(f[0] == 1 && f[1] == 1 && f[2] == 1);

    /* In a run: 4 syntheses of 1 s on 2 cores each take 2 s. */
    p = base(1, 0.01);
    p.jobs = 4;
    p.synth_concurrency = 4;
    p.channel = 4;
    p.cores = 2;
    struct sim_out o;
    CHECK(run(&p, &o) == 0);
    CHECK(near(o.res.stage[ST_SYNTHESIS].mean * 1e-9, 2, 1e-6));
    sim_out_free(&o);
    /* More concurrency than the cores can take makes things worse when
     * the GPU's worker needs the CPU too (the story's concurrency 4). */
    p = base(1, 0.6);
    p.jobs = 100;
    p.cores = 2;
    p.host_share = 1;
    double spj[5];
    for (int c = 1; c <= 4; c++) {
        p.synth_concurrency = p.channel = c;
        CHECK(run(&p, &o) == 0);
        spj[c] = o.res.s_per_job;
        sim_out_free(&o);
    }
    CHECK(spj[2] < spj[1]);
    CHECK(spj[4] > spj[2]);
}

/* A calibrated model p against the truth it came from, both at
 * concurrency c (channel c): within 5 points of utilization and 10% of s
 * per job. */
static void predicts(const char *label, struct sim_params *truth, struct sim_params *p, int c)
{
    struct sim_out t, q;
    truth->synth_concurrency = truth->channel = c;
    p->synth_concurrency = p->channel = c;
    p->seed = 7;
    CHECK(run(truth, &t) == 0 && run(p, &q) == 0);
    printf("%s c=%d truth %.1f%% %.3f s/job, predicted %.1f%% %.3f s/job\n", label, c, 100 * t.res.utilization,
           t.res.s_per_job * 1e-9, 100 * q.res.utilization, q.res.s_per_job * 1e-9);
    CHECK(near(q.res.utilization, t.res.utilization, 0.05));
    CHECK(fabs(q.res.s_per_job / t.res.s_per_job - 1) < 0.10);
    sim_out_free(&t);
    sim_out_free(&q);
}

/* The fit, on a run whose contention is known: simulate with it, calibrate
 * from the result, and predict other concurrencies against the truth. */
static void fit_known(void)
{
    struct sim_params truth = base(1.0, 0.45);
    truth.jobs = 400;
    truth.synth_concurrency = 3;
    truth.gpu_workers = 2;
    truth.channel = 4;
    truth.cores = 2;
    truth.synth_threads = 1;
    truth.host_threads = 1;
    truth.host_share = 1;
    truth.synth.cv = truth.gpu.cv = 0.1;
    struct sim_out o;
    CHECK(run(&truth, &o) == 0);
    struct sim_params p = {0};
    struct sim_fit fit;
    CHECK(calibrate(&o.run, &o.res, 2, 1, NULL, &p, &fit) == 0);
    CHECK(fit.fitted);
    CHECK(fit.r2_synth > 0.3);
    printf("fit: synth_threads %.2f host_threads %.2f host_share %.2f r2 %.2f %.2f\n", fit.synth_threads,
           fit.host_threads, fit.host_share, fit.r2_synth, fit.r2_gpu);
    sim_trace_defaults(&p, &fit);
    CHECK(p.synth_concurrency == 3 && p.gpu_workers == 2 && p.devices == 1);
    CHECK(near(sim_dist_mean(&p.synth), 1.0, 0.1));
    CHECK(near(sim_dist_mean(&p.gpu), 0.45, 0.05));
    for (int c = 1; c <= 5; c += 2)
        predicts("fitted,", &truth, &p, c);
    sim_params_free(&p);
    sim_out_free(&o);

    /* No contention in the trace: nothing to fit, and it says so. */
    struct sim_params quiet = base(1, 0.5);
    quiet.jobs = 50;
    quiet.synth.cv = 0.1;
    CHECK(run(&quiet, &o) == 0);
    CHECK(calibrate(&o.run, &o.res, 8, 1, NULL, &p, &fit) == 0);
    CHECK(!fit.fitted && fit.why != NULL);
    /* the simulator's advice for it: 2 syntheses of 1 s feed a 0.5 s GPU
     * on average; with the 10% spread a third takes the last idle out */
    /* asked only where a contention model is known: none is, so it is not
     * an error, and the advice stays the formula's */
    o.res.advice.valid = 1;
    o.res.advice.model = "formula";
    CHECK(sim_advise(&o.run, &o.res, 8, 1) == 0);
    CHECK(!strcmp(o.res.advice.model, "formula"));
    CHECK(sim_advise(&o.run, &o.res, 8, 0) == 0);
    CHECK(!strcmp(o.res.advice.model, "simulation"));
    CHECK(o.res.advice.needed == 2 || o.res.advice.needed == 3);
    CHECK(o.res.advice.current == 1 && o.res.advice.predicted_now < 0.6);
    CHECK(o.res.advice.predicted_needed > 0.97);
    sim_params_free(&p);
    sim_out_free(&o);
}

/* 200 jobs at concurrency 1, two workers, on 1.5 cores: a synthesis and
 * a busy prover slow each other. */
static struct sim_params contended(void)
{
    struct sim_params p = base(1.0, 0.9);
    p.jobs = 200;
    p.gpu_workers = 2;
    p.channel = 4;
    p.cores = 1.5;
    p.synth_threads = p.host_threads = p.host_share = 1;
    p.synth.cv = p.gpu.cv = 0.1;
    return p;
}

/* A contention model the user knows, given instead of fitted: on a trace
 * at concurrency 1, where nothing varies and no fit is possible, the
 * trace's times are divided by the slowdown the model sees there, and the
 * model predicts the other concurrencies. */
static void given_known(void)
{
    struct sim_params truth = contended();
    struct sim_out o;
    CHECK(run(&truth, &o) == 0);
    struct sim_params p = {0}, given = {.synth_threads = 1, .host_threads = 1, .host_share = 1, .host_weight = 1};
    struct sim_fit fit;
    CHECK(calibrate(&o.run, &o.res, 1.5, 1, &given, &p, &fit) == 0);
    CHECK(fit.given && !fit.fitted && !fit.measured);
    CHECK(fit.max_slowdown > 1.3 && fit.max_slowdown < 1.4); /* 2 threads on 1.5 cores: 1.33 */
    sim_trace_defaults(&p, &fit);
    CHECK(p.cores == 1.5 && p.host_share == 1);
    /* the times at full speed, not as slowed in the trace */
    CHECK(near(sim_dist_mean(&p.synth), 1.0, 0.08));
    CHECK(near(sim_dist_mean(&p.gpu), 0.9, 0.07));
    for (int c = 2; c <= 3; c++)
        predicts("given,", &truth, &p, c);
    sim_params_free(&p);
    sim_out_free(&o);
}

/* The threads' CPU time, sampled by the recorder, gives the same model:
 * a synthesis thread that wants a whole core is one thread of work, and
 * the GPU workers' share is what their threads wanted in device time. */
static void measured_known(void)
{
    struct sim_params truth = contended();
    struct sim_out o;
    CHECK(run(&truth, &o) == 0);
    /* what the recorder would have measured: wanted = wall for both (used
     * is less where they waited for a core) */
    o.run.cpu = (struct cpu_use){.sampled = 1, .wait_known = 1, .synth_cpu_s = 150, .synth_want_s = 198,
                                     .synth_wall_s = 200, .synth_units = 200, .gpu_cpu_s = 140,
                                     .gpu_want_s = 176, .gpu_wall_s = 180, .gpu_units = 200};
    struct sim_params p = {0};
    struct sim_fit fit;
    CHECK(calibrate(&o.run, &o.res, 1.5, 1, NULL, &p, &fit) == 0);
    CHECK(fit.measured && !fit.fitted && !fit.given);
    CHECK(near(fit.synth_cpu_share, 0.99, 1e-9) && near(fit.host_cpu_share, 176.0 / 180, 1e-9));
    sim_trace_defaults(&p, &fit);
    CHECK(p.cores == 1.5 && p.synth_threads == 1 && p.host_threads == 1 && near(p.host_share, 176.0 / 180, 1e-9));
    CHECK(near(sim_dist_mean(&p.synth), 1.0, 0.08));
    predicts("measured,", &truth, &p, 3);
    sim_params_free(&p);
    /* --no-fit leaves it out; a synthesis thread that mostly sleeps (its
     * work in a pool the trace does not see) is not measured: the fit */
    CHECK(calibrate(&o.run, &o.res, 1.5, 0, NULL, &p, &fit) == 0);
    CHECK(!fit.measured);
    sim_params_free(&p);
    o.run.cpu.synth_want_s = 20;
    CHECK(calibrate(&o.run, &o.res, 1.5, 1, NULL, &p, &fit) == 0);
    CHECK(!fit.measured && near(fit.synth_cpu_share, 0.1, 1e-9));
    sim_params_free(&p);
    sim_out_free(&o);
}

/* The arrival rate a trace implies: a backlog when jobs waited for the
 * synthesis permits, the rate of job starts when they did not. */
static void arrivals(void)
{
    struct sim_params t = base(1, 0.5);
    t.jobs = 100;
    t.synth_concurrency = t.channel = 2;
    t.synth.cv = 0.1;
    struct sim_out o;
    struct sim_params p = {0};
    struct sim_fit fit;
    CHECK(run(&t, &o) == 0); /* a backlog: permits always taken */
    CHECK(calibrate(&o.run, &o.res, 4, 0, NULL, &p, &fit) == 0);
    CHECK(fit.rate == 0);
    CHECK(fit.synth_max == 2);
    sim_out_free(&o);
    t.rate = 0.8; /* a job every 1.25 s: the permits are mostly free */
    CHECK(run(&t, &o) == 0);
    CHECK(calibrate(&o.run, &o.res, 4, 0, NULL, &p, &fit) == 0);
    CHECK(near(fit.rate, 0.8, 0.01));
    /* and the simulation from that calibration gives the trace back */
    sim_trace_defaults(&p, &fit);
    struct sim_out q;
    CHECK(run(&p, &q) == 0);
    CHECK(near(q.res.utilization, o.res.utilization, 0.03));
    CHECK(fabs(q.res.s_per_job / o.res.s_per_job - 1) < 0.03);
    sim_out_free(&q);
    sim_out_free(&o);
    sim_params_free(&p);
}

static void cuzk(void)
{
    /* The published figures: synthesis 39 s and GPU 27 s per proof; at
     * concurrency 1 the daemon measured 70.9% GPU utilization, and with
     * parallel synthesis 99.3%. */
    struct sim_params p = base(39, 27);
    p.jobs = 20;
    struct sim_out o;
    CHECK(run(&p, &o) == 0);
    printf("cuzk c=1: %.1f%% (measured 70.9%%)\n", 100 * o.res.utilization);
    CHECK(near(o.res.utilization, 0.709, 0.05));
    sim_out_free(&o);
    p.synth_concurrency = p.channel = 2;
    CHECK(run(&p, &o) == 0);
    printf("cuzk c=2: %.1f%% (measured 99.3%%)\n", 100 * o.res.utilization);
    CHECK(near(o.res.utilization, 0.993, 0.05));
    sim_out_free(&o);
}

static void bad_params(void)
{
    struct sim_params p = base(1, 1);
    char err[256];
    p.gpu_workers = 0;
    CHECK(sim_check(&p, err, sizeof err) == -1);
    CHECK(!strcmp(err, "--gpu-workers must be at least 1 (a device with no worker never proves)"));
    p = base(-1, 1);
    CHECK(sim_check(&p, err, sizeof err) == -1 && strstr(err, "synthesis time must be positive"));
    p = base(1, NAN);
    err[0] = 0;
    CHECK(sim_check(&p, err, sizeof err) == -1 && strstr(err, "GPU time"));
    /* a short buffer holds the message's start, terminated */
    char small[8];
    p.gpu_workers = 0;
    CHECK(sim_check(&p, small, sizeof small) == -1 && !strcmp(small, "--gpu-w"));
#define REJECTS(field, value, what)                                       \
    do {                                                                  \
        struct sim_params q = base(1, 1);                                 \
        q.field = value;                                                  \
        err[0] = 0;                                                       \
        CHECK(sim_check(&q, err, sizeof err) == -1 && strstr(err, what)); \
    } while (0)
    REJECTS(devices, 0, "--devices");
    REJECTS(synth_concurrency, 0, "--synth-concurrency");
    REJECTS(host_share, 1.5, "--host-share");
    REJECTS(jobs, 1000000000, "50 million");
#undef REJECTS
    /* a run with no complete unit */
    struct run r = {0};
    struct unit u = {.t = {0, T_NONE, T_NONE, T_NONE, T_NONE, T_NONE}, .partition = -1};
    struct job j = {.id = "x", .len = 1, .units = 1};
    r.units = &u;
    r.nunits = 1;
    r.jobs = &j;
    r.njobs = 1;
    struct run_result res;
    CHECK(analyze_run(&r, &res) == 0);
    struct sim_fit fit;
    p = (struct sim_params){0};
    err[0] = 0;
    CHECK(sim_calibrate(&r, &res, 2, 1, NULL, &p, &fit, err, sizeof err) == -1);
    CHECK(!strcmp(err, "the trace has no complete unit (SYNTH_START, SYNTH_END, GPU_START and GPU_END, "
                       "consistent): nothing to calibrate from"));
    /* the advice cannot be simulated from it either: -1, the formula stays */
    res.advice.valid = 1;
    res.advice.model = "formula";
    CHECK(sim_advise(&r, &res, 2, 0) == -1);
    CHECK(!strcmp(res.advice.model, "formula"));
    run_result_free(&res);
    /* a setting that passes the check but whose run would pass SIM_MAX_S:
     * -1, the setting's fault (too_long), with the message simulate prints */
    p = base(1e9, 1); /* ten syntheses of 1e9 s one after another */
    CHECK(sim_check(&p, err, sizeof err) == 0);
    struct sim_out o;
    err[0] = 0;
    CHECK(sim_run(&p, &o, err, sizeof err) == -1);
    CHECK(o.too_long == 1 && o.run.units == NULL && o.run.nunits == 0);
    CHECK(!strcmp(err, "the simulated run would last past 9e+09 s (the nanosecond timestamps would overflow): "
                       "give shorter times, fewer jobs or a faster --rate"));
    sim_out_free(&o); /* harmless after a failure */
}

/* ---- work that grows with the syntheses at once (sim_growth.c) ---- */

static struct cpu_row row(int k, uint64_t units, double cpu_s, double want_s, double wall_s)
{
    return (struct cpu_row){k, units, cpu_s, want_s, wall_s};
}

/* w(k) from rows, by hand. */
static void growth_model(void)
{
    struct sim_growth g;
    /* memory: CPU time per unit 10, 20, 25 ms at 1, 2, 3 (10 units each):
     * w = 1, 2, 2.5; the least-squares slope through (1, 1), (2, 2),
     * (3, 2.5): mean k 2, mean w 11/6, sum (k - 2)(w - 11/6) = 5/6 + 2/3
     * = 1.5 over sum (k - 2)^2 = 2: 0.75 per synthesis. */
    struct cpu_row r1[] = {row(1, 10, 0.010, 0.010, 0.010), row(2, 10, 0.020, 0.020, 0.020),
                           row(3, 10, 0.025, 0.025, 0.026)};
    sim_growth_from_rows(r1, 3, KIND_MEMORY, &g);
    CHECK(g.n == 3 && g.kind == KIND_MEMORY);
    CHECK(near(g.w[0], 1, 1e-12) && near(g.w[1], 2, 1e-12) && near(g.w[2], 2.5, 1e-12));
    CHECK(near(g.slope, 0.75, 1e-12));
    CHECK(near(g.share, 1, 1e-12));
    CHECK(near(sim_growth_w(&g, 1), 1, 1e-12));
    CHECK(near(sim_growth_w(&g, 1.5), 1.5, 1e-12)); /* linear between the points */
    CHECK(near(sim_growth_w(&g, 2.5), 2.25, 1e-12));
    CHECK(near(sim_growth_w(&g, 5), 2.5 + 2 * 0.75, 1e-12)); /* the slope beyond */
    CHECK(near(sim_growth_w(&g, 0), 1, 1e-12));              /* below the least k: never below 1 */
    double last = 0;
    int mono = 1;
    for (double k = 0; k <= 20; k += 0.25) {
        double w = sim_growth_w(&g, k);
        mono &= w >= last && w >= 1;
        last = w;
    }
    CHECK(mono);
    /* the share of the time that grows: 8 of 10 ms CPU, so w = 2 stretches
     * a unit 1 + 0.8 x (2 - 1) = 1.8 times */
    struct cpu_row r2[] = {row(1, 5, 0.008, 0.008, 0.010), row(2, 5, 0.016, 0.016, 0.020)};
    sim_growth_from_rows(r2, 2, KIND_MEMORY, &g);
    CHECK(g.n == 2 && near(g.share, 0.8, 1e-12) && near(sim_growth_factor(&g, 2), 1.8, 1e-12));
    CHECK(near(g.slope, 1, 1e-12)); /* two points: their own line */
    /* a dip is pooled with its neighbour (weighted by units), never a
     * fall: 1, 2 (10 units), 1.6 (10 units) -> 1, 1.8, 1.8; the slope
     * from the points as measured: (0.5333 + 0.0667) / 2 = 0.3 */
    struct cpu_row r3[] = {row(1, 10, 0.010, 0.010, 0.010), row(2, 10, 0.020, 0.020, 0.020),
                           row(3, 10, 0.016, 0.016, 0.016)};
    sim_growth_from_rows(r3, 3, KIND_MEMORY, &g);
    CHECK(near(g.w[1], 1.8, 1e-12) && near(g.w[2], 1.8, 1e-12) && near(g.slope, 0.3, 1e-12));
    /* work that gets cheaper beside others is noise: w stays 1, slope 0 */
    struct cpu_row r4[] = {row(1, 10, 0.010, 0.010, 0.010), row(2, 10, 0.008, 0.008, 0.008),
                           row(3, 10, 0.007, 0.007, 0.007)};
    sim_growth_from_rows(r4, 3, KIND_MEMORY, &g);
    CHECK(g.n == 3 && g.w[1] == 1 && g.w[2] == 1 && g.slope == 0 && sim_growth_w(&g, 10) == 1);
    /* waiting: CPU time flat, time per unit grows; the run-queue wait
     * (want - cpu) is the cores' and comes off: (17 - 1) / 10 = 1.6 */
    struct cpu_row r5[] = {row(1, 4, 0.005, 0.005, 0.010), row(2, 4, 0.005, 0.006, 0.017)};
    sim_growth_from_rows(r5, 2, KIND_WAITING, &g);
    CHECK(g.n == 2 && g.kind == KIND_WAITING && near(g.w[1], 1.6, 1e-12) && near(g.share, 1, 1e-12));
    /* no model: the cores' kind, a concurrency with too few units (2 <
     * SIM_GROWTH_MIN_UNITS) leaving one point, no rows */
    sim_growth_from_rows(r1, 3, KIND_CORES, &g);
    CHECK(g.n == 0 && sim_growth_factor(&g, 5) == 1);
    struct cpu_row r6[] = {row(1, 10, 0.010, 0.010, 0.010), row(2, 2, 0.020, 0.020, 0.020)};
    sim_growth_from_rows(r6, 2, KIND_MEMORY, &g);
    CHECK(g.n == 0);
    sim_growth_from_rows(NULL, 0, KIND_MEMORY, &g);
    CHECK(g.n == 0);
    /* the least k measured is the reference, whatever it is */
    struct cpu_row r7[] = {row(2, 10, 0.020, 0.020, 0.020), row(4, 10, 0.030, 0.030, 0.030)};
    sim_growth_from_rows(r7, 2, KIND_MEMORY, &g);
    CHECK(g.k[0] == 2 && near(sim_growth_w(&g, 3), 1.25, 1e-12) && near(sim_growth_w(&g, 1), 1, 1e-12));

    /* in the slowdowns: the cores' sharing times the growth; a proof
     * counts the syntheses beside it plus itself */
    struct sim_params p = base(1, 1);
    sim_growth_from_rows(r1, 3, KIND_MEMORY, &p.synth_growth);
    sim_growth_from_rows(r2, 2, KIND_MEMORY, &p.gpu_growth);
    double f[3];
    int n1[3] = {2, 0, 1};
    sim_slowdowns(&p, n1, f); /* no cores model: the growth alone */
    CHECK(near(f[0], 2, 1e-12) && f[1] == 1 && near(f[2], 1 + 0.8 * (2 + 1 - 1), 1e-12));
    p.cores = 2; /* 4 one-core syntheses on 2 cores: 2x, times w(4) = 3.25 */
    int n2[3] = {4, 0, 0};
    sim_slowdowns(&p, n2, f);
    CHECK(near(f[0], 2 * 3.25, 1e-12));
}

/* A trace whose synthesis CPU time per unit doubles from 1 to 2 at once
 * (memory), on cores plenty: its run at 2, the analysis's rows as the
 * samples would give them, and the bottleneck memory. */
static void doubling_trace(struct sim_out *o, double w2)
{
    struct sim_params t = base(1, 0.3);
    t.jobs = 40;
    t.synth_concurrency = t.channel = 2;
    struct cpu_row rows[] = {row(1, 6, 1.0, 1.0, 1.0), row(2, 34, w2, w2, w2)};
    sim_growth_from_rows(rows, 2, KIND_MEMORY, &t.synth_growth);
    CHECK(run(&t, o) == 0);
    struct cpu_result *c = &o->res.cpu;
    c->source = CPU_SRC_SAMPLES;
    c->synth_cpu_by = malloc(sizeof rows);
    memcpy(c->synth_cpu_by, rows, sizeof rows);
    c->nsynth_cpu_by = 2;
    c->synth_kind = c->kind = KIND_MEMORY;
    c->synth_extra = (struct cpu_extra){.known = 1, .slower = w2, .cpu_grows = w2, .alone_s = 1, .beside_s = w2, .wall = w2 - 1, .cpu = w2 - 1, .kind = KIND_MEMORY};
    c->synth_contended = c->contention = 1;
    o->res.bottleneck = BN_MEMORY;
}

static void growth_sim(void)
{
    struct sim_out o, q;
    doubling_trace(&o, 2.0);
    /* By hand: the syntheses of 1 s run in pairs, each at 2x: 2 s a pair;
     * the GPU (0.3 s a unit) keeps up.  s per job = (20 x 2 + 2 x 0.3) / 40
     * = 1.015 s. */
    CHECK(near(o.res.s_per_job * 1e-9, 1.015, 1e-6));
    /* Calibrated from it, the growth comes back, the synthesis time at full
     * speed is 1 s (the trace's 2 s divided by the 2x it saw), and the
     * trace's own concurrency reproduces the trace. */
    struct sim_params p = {0};
    struct sim_fit fit;
    CHECK(calibrate(&o.run, &o.res, 64, 1, NULL, &p, &fit) == 0);
    CHECK(p.synth_growth.n == 2 && near(p.synth_growth.w[1], 2, 1e-12) && p.gpu_growth.n == 0);
    CHECK(near(sim_dist_mean(&p.synth), 1.0, 1e-6));
    sim_trace_defaults(&p, &fit);
    CHECK(p.synth_concurrency == 2);
    CHECK(run(&p, &q) == 0);
    CHECK(near(q.res.s_per_job / o.res.s_per_job, 1, 0.01));
    sim_out_free(&q);
    /* At 1: 1 s a unit, s per job (40 + 0.3) / 40 = 1.0075 s; at 3, w(3) =
     * 3 (slope 1): three at once in 3 s, (13 x 3 + 1 x 1 + 0.3) / 40 =
     * 1.0075.  Every concurrency makes a unit a second at best; the least
     * within 2% of the best is 1. */
    p.synth_concurrency = p.channel = 1;
    CHECK(run(&p, &q) == 0);
    CHECK(near(q.res.s_per_job * 1e-9, 1.0075, 1e-6));
    sim_out_free(&q);
    sim_params_free(&p);
    /* the advice: the simulation's best, 1, below the 2 it ran */
    o.res.advice.valid = 1;
    o.res.advice.needed = 1;
    CHECK(sim_advise(&o.run, &o.res, 64, 1) == 0);
    struct advice *a = &o.res.advice;
    printf("doubling: advice %d (now %d), simulated %.4f s per job there, %.4f now\n", a->needed, a->current,
           a->growth_spj[0] * 1e-9, a->growth_spj[1] * 1e-9);
    CHECK(!strcmp(a->model, "simulation") && a->current == 2 && a->needed == 1);
    CHECK(a->growth_n == 2 && a->growth_role == 0 && a->growth_kind == KIND_MEMORY && near(a->growth_w[1], 2, 1e-12));
    CHECK(near(a->growth_spj[0] * 1e-9, 1.0075, 1e-6) && near(a->growth_spj[1] * 1e-9, 1.015, 1e-6));
    /* the advice says so, with the numbers */
    char l1[512], l2[512];
    report_advice_lines(&o.res, l1, sizeof l1, l2, sizeof l2);
    printf("  %s\n  %s\n", l1, l2);
    CHECK(strstr(l1, "run 1 synthesis at once, not more (now 2; the simulation's best)") != NULL);
    CHECK(strstr(l2, "SIMULATED with synthesis CPU time per unit by concurrency as its contention model (1.00x at 1 · "
                     "2.00x at 2, +1.00x per synthesis beyond): at 1 ") != NULL);
    CHECK(strstr(l2, "at 2 (now)") != NULL);
    sim_out_free(&o);

    /* 2.5x at 2: a pair takes 2.5 s, 0.8 units a second against 1 alone;
     * 1 is best outright. */
    doubling_trace(&o, 2.5);
    o.res.advice.valid = 1;
    CHECK(sim_advise(&o.run, &o.res, 64, 1) == 0);
    CHECK(o.res.advice.needed == 1);
    sim_out_free(&o);
    /* 1.5x at 2: a pair in 1.5 s is faster than one alone, and more would
     * be faster still (w(k) = 1 + 0.5 (k - 1), k / w(k) grows); the advice
     * never asks for more than the 2 it ran. */
    doubling_trace(&o, 1.5);
    o.res.advice.valid = 1;
    CHECK(sim_advise(&o.run, &o.res, 64, 1) == 0);
    CHECK(o.res.advice.needed == 2 && o.res.advice.current == 2);
    sim_out_free(&o);
}

/* The kernel model (sim.h, struct sim_kparts), worked out by hand: ten
 * units ready at once (synthesis 1 ms, four at a time), each GPU phase 1 s
 * of host work, 1 s of kernels under the device, 1 s of host work after. */
static double kernel_spj(struct sim_kparts *k, int workers, int at_unlock, double *kernel_util)
{
    struct sim_params p = base(0.001, 3);
    p.synth_concurrency = p.channel = 4;
    p.gpu_workers = workers;
    p.jobs = 10;
    p.kernel_model = 1;
    p.worker_at_unlock = at_unlock;
    p.kparts = k;
    p.nkparts = 1;
    struct sim_out o;
    if (run(&p, &o))
        return -1;
    double spj = (double)o.res.s_per_job * 1e-9;
    if (kernel_util)
        *kernel_util = o.res.phase.kernel_utilization;
    sim_out_free(&o);
    return spj;
}

static void kernel_model(void)
{
    struct sim_kparts k = {.pre = 1, .k1 = 1, .post = 1};
    /* one worker: 3 s a unit, one after another, from 1 ms on */
    CHECK(near(kernel_spj(&k, 1, 0, NULL), 3.0001, 1e-6));
    /* two: the second's host work runs beside the first's kernels; each
     * worker takes a unit every 3 s, half a period apart: unit 9 (the
     * second worker's fifth) ends at 4.001 + 4 x 3 s */
    CHECK(near(kernel_spj(&k, 2, 0, NULL), 1.6001, 1e-6));
    /* three: the device is the limit, 1 s a unit; unit 9's kernels start
     * at 1.001 + 9 and its host work after them ends 2 s later */
    double ku = 0;
    CHECK(near(kernel_spj(&k, 3, 0, &ku), 1.2001, 1e-6));
    CHECK(near(ku, 10.0 / 12.0, 1e-6)); /* KERNEL phases: 10 s of the window, the first GPU_START to the last GPU_END */
    /* one worker that takes its next unit when its kernels end (cuzk's
     * split API): a unit every 2 s, the last one's GPU_END 1 s after */
    CHECK(near(kernel_spj(&k, 1, 1, NULL), 2.1001, 1e-6));
    /* the barrier: kernels 0.5 s, then a wait for the helper's 2 s of
     * prep_msm, 0.5 s more while b_g2_msm runs 0.5 s: 2.5 s a unit */
    struct sim_kparts b = {.k1 = 0.5, .k2 = 0.5, .hp = 2, .hq = 0.5, .barrier = 1};
    CHECK(near(kernel_spj(&b, 1, 0, NULL), 2.5001, 1e-6));
    /* ... and two workers: the second's prep_msm runs beside the first's
     * kernels, so the device holds each unit 2.5 s but the pair overlaps:
     * the second enters at 1 ms too, its barrier opens at 2.001, and it
     * waits for the device until 2.501 */
    CHECK(kernel_spj(&b, 2, 0, NULL) < 2.5001 * 0.7);
    /* no barrier: the helper runs beside the kernels, the unit ends with
     * the later of the two */
    b.barrier = 0;
    CHECK(near(kernel_spj(&b, 1, 0, NULL), 2.5001, 1e-6));
    /* a part that is not a number is refused */
    struct sim_params p = base(1, 1);
    p.kernel_model = 1;
    struct sim_kparts nan_part = {.pre = NAN, .k1 = 1};
    p.kparts = &nan_part;
    p.nkparts = 1;
    char err[256];
    CHECK(sim_check(&p, err, sizeof err) == -1);
    p.kparts = NULL;
    CHECK(sim_check(&p, err, sizeof err) == -1);
}

int main(void)
{
    by_hand();
    kernel_model();
    invariants();
    contention();
    fit_known();
    given_known();
    measured_known();
    arrivals();
    cuzk();
    bad_params();
    growth_model();
    growth_sim();
    return check_done("test_sim");
}
