/*
 * test_analyze.c -- every definition of the analysis (README, docs/json.md) on hand-built logs whose
 * answers are worked out by hand in the comments: busy merged across
 * workers, each idle cause, in-flight units, several runs in one log,
 * both text forms, ANSI and CRLF, partitions, devices, bottleneck, advice,
 * throughput, duplicates and contradictions.
 */
#include "check.h"
#include "trace_util.h"

#include "fmt.h"
#include "load.h"
#include "mem.h"
#include "report.h"
#include "scan.h"
#include "wf_exit.h"

#include <math.h>
#include <string.h>

#define MS 1000000LL

static struct loaded L;

/* Write text to a scratch file and load it; returns the status. */
static int load_text(const char *name, const char *text)
{
    const char *path = tmp_path(name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    char *argv[1] = {(char *)path};
    loaded_free(&L);
    int rc = load_inputs(&L, argv, 1, 0, "test", NULL);
    remove(path);
    return rc;
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-6 * (fabs(b) > 1 ? fabs(b) : 1);
}

#define CHECK_NEAR(a, b)                                                                        \
    do {                                                                                        \
        check_count++;                                                                          \
        if (!near((double)(a), (double)(b))) {                                                  \
            check_failures++;                                                                   \
            fprintf(stderr, "%s:%d: CHECK failed: %s ~ %s (%.9g vs %.9g)\n", __FILE__, __LINE__, \
                    #a, #b, (double)(a), (double)(b));                                          \
        }                                                                                       \
    } while (0)

static void merged_workers(void)
{
    /* Two workers on one device overlap: busy is the union [0,15] ms, not
     * 10 + 10; the window is [0,15]; utilization 1. */
    CHECK(load_text("merge.log",
                    "TIMELINE,0,GPU_START,a,worker=0\n"
                    "TIMELINE,5,GPU_START,b,worker=1\n"
                    "TIMELINE,10,GPU_END,a,worker=0\n"
                    "TIMELINE,15,GPU_END,b,worker=1\n") == WF_EXIT_OK);
    CHECK_EQ_U(L.nres, 1);
    const struct run_result *r = &L.res[0];
    CHECK_EQ_U(r->ndev, 1);
    CHECK_EQ_U(r->dev[0].busy, 15 * MS);
    CHECK_EQ_U(r->dev[0].window_end - r->dev[0].window_start, 15 * MS);
    CHECK_NEAR(r->utilization, 1.0);
    CHECK_EQ_U(r->dev[0].nworkers, 2);
    CHECK_EQ_U(r->idle, 0);
    CHECK(r->bottleneck == BN_GPU);
}

static void idle_causes(void)
{
    /* One device; each gap has its own cause (ms):
     *   a busy [0,10]
     *   gap [10,14): b picked up at 10, started at 14        -> prep 4
     *   b busy [14,20]
     *   gap [20,24): c ready (GPU_QUEUE) at 18, picked up 24  -> queue 4
     *   c busy [24,30]
     *   gap [30,34): d in synthesis [25,34)                   -> synthesis 4
     *   d busy [34,40]
     *   gap [40,50): nothing in flight [40,48)                -> no_work 8
     *                e in synthesis [48,50)                   -> synthesis 2
     *   e busy [50,60]; f starts synthesis at 55 and never ends (in flight)
     * busy 38 of a 60 window; idle 22 = 4 + 4 + 6 + 8; no_work is the
     * largest cause, so the bottleneck is input. */
    CHECK(load_text("causes.log",
                    "TIMELINE,0,GPU_START,a,\n"
                    "TIMELINE,10,GPU_END,a,\n"
                    "TIMELINE,10,GPU_PICKUP,b,\n"
                    "TIMELINE,14,GPU_START,b,\n"
                    "TIMELINE,18,GPU_QUEUE,c,\n"
                    "TIMELINE,20,GPU_END,b,\n"
                    "TIMELINE,24,GPU_PICKUP,c,\n"
                    "TIMELINE,24,GPU_START,c,\n"
                    "TIMELINE,25,SYNTH_START,d,\n"
                    "TIMELINE,30,GPU_END,c,\n"
                    "TIMELINE,34,SYNTH_END,d,\n"
                    "TIMELINE,34,CHAN_SEND,d,\n"
                    "TIMELINE,34,GPU_PICKUP,d,\n"
                    "TIMELINE,34,GPU_START,d,\n"
                    "TIMELINE,40,GPU_END,d,\n"
                    "TIMELINE,48,SYNTH_START,e,\n"
                    "TIMELINE,50,SYNTH_END,e,\n"
                    "TIMELINE,50,GPU_START,e,\n"
                    "TIMELINE,55,SYNTH_START,f,\n"
                    "TIMELINE,60,GPU_END,e,\n") == WF_EXIT_OK);
    const struct run_result *r = &L.res[0];
    CHECK_EQ_U(r->ndev, 1);
    const struct device_result *d = &r->dev[0];
    CHECK_EQ_U(d->busy, 38 * MS);
    CHECK_EQ_U(d->window_end - d->window_start, 60 * MS);
    CHECK_EQ_U(d->idle, 22 * MS);
    CHECK_EQ_U(d->by_cause[CAUSE_PREP], 4 * MS);
    CHECK_EQ_U(d->by_cause[CAUSE_QUEUE], 4 * MS);
    CHECK_EQ_U(d->by_cause[CAUSE_SYNTHESIS], 6 * MS);
    CHECK_EQ_U(d->by_cause[CAUSE_NO_WORK], 8 * MS);
    CHECK_EQ_U(d->by_cause[0] + d->by_cause[1] + d->by_cause[2] + d->by_cause[3], d->idle);
    CHECK_EQ_U(d->ngaps, 4);
    CHECK_EQ_U(d->gaps[3].by_cause[CAUSE_NO_WORK], 8 * MS);
    /* The idle stretches the views draw add up to the same causes. */
    int64_t by_seg[CAUSE_N] = {0};
    for (size_t i = 0; i < d->nsegs; i++) {
        by_seg[d->segs[i].cause] += d->segs[i].end - d->segs[i].start;
        if (i)
            CHECK(d->segs[i].start >= d->segs[i - 1].end);
    }
    for (int c = 0; c < CAUSE_N; c++)
        CHECK_EQ_U(by_seg[c], d->by_cause[c]);
    CHECK_EQ_U(d->nsegs, 5);
    CHECK_EQ_U(d->gaps[3].by_cause[CAUSE_SYNTHESIS], 2 * MS);
    CHECK_EQ_U(r->in_flight, 1); /* f */
    CHECK_EQ_U(r->units, 6);
    CHECK_NEAR(r->utilization, 38.0 / 60.0);
    CHECK(r->bottleneck == BN_INPUT);
    CHECK_EQ_U(r->synth_max, 1);
    CHECK_EQ_U(d->longest_gap, 10 * MS);
    /* Keeping neither the gap list nor the stretches changes no figure. */
    struct run_result lean;
    struct analyze_opts none = {.keep = 0};
    CHECK(analyze_run_opts(&L.model.runs[0], &none, &lean) == 0);
    const struct device_result *e = &lean.dev[0];
    CHECK(e->gaps == NULL && e->nsegs == 0);
    CHECK_EQ_U(e->ngaps, d->ngaps);
    CHECK_EQ_U(e->longest_gap, d->longest_gap);
    CHECK_EQ_U(e->idle, d->idle);
    for (int c = 0; c < CAUSE_N; c++)
        CHECK_EQ_U(e->by_cause[c], d->by_cause[c]);
    CHECK(lean.bottleneck == r->bottleneck);
    run_result_free(&lean);
}

static void sequential_story(void)
{
    /* The story, scaled: synthesis 38 ms strictly in sequence, GPU 26 ms.
     * Jobs j0..j3: synth [38k, 38(k+1)), sent at once, proved [38(k+1),
     * 38(k+1)+26).  Window [38, 178]; busy 4 x 26 = 104; idle 36 = three
     * gaps of 12, all synthesis.  g = 26, s = 38: advice ceil(38/26) = 2,
     * predicted now 26/38, at 2: 1.  s per job = 178/4; steady 38. */
    char log[4096];
    size_t n = 0;
    for (int k = 0; k < 4; k++) {
        int ss = 38 * k, se = 38 * (k + 1), gs = se, ge = se + 26;
        n += (size_t)snprintf(log + n, sizeof log - n,
                              "2026-02-18T19:21:07Z INFO noise line %d\r\n"
                              "TIMELINE,%d,SYNTH_START,j%d,\n"
                              "\x1b[2mTIMELINE,%d,SYNTH_END,j%d,synth_ms=38\x1b[0m\r\n"
                              "TIMELINE,%d,GPU_QUEUE,j%d,\n"
                              "TIMELINE,%d,GPU_PICKUP,j%d,worker=0\n"
                              "TIMELINE,%d,GPU_START,j%d,worker=0\n"
                              "TIMELINE,%d,GPU_END,j%d,worker=0,gpu_ms=26\n",
                              k, ss, k, se, k, se, k, se, k, gs, k, ge, k);
    }
    CHECK(load_text("story.log", log) == WF_EXIT_OK);
    const struct run_result *r = &L.res[0];
    CHECK_EQ_U(r->units, 4);
    CHECK_EQ_U(r->jobs_completed, 4);
    CHECK_EQ_U(r->busy, 104 * MS);
    CHECK_EQ_U(r->window, 140 * MS);
    CHECK_EQ_U(r->by_cause[CAUSE_SYNTHESIS], 36 * MS);
    CHECK_EQ_U(r->dev[0].ngaps, 3);
    CHECK_EQ_U(r->dev[0].fill, 38 * MS);
    CHECK(r->bottleneck == BN_SYNTHESIS);
    CHECK(r->advice.valid);
    CHECK_EQ_U(r->advice.needed, 2);
    CHECK_EQ_U(r->advice.current, 1);
    CHECK_NEAR(r->advice.predicted_now, 26.0 / 38.0);
    CHECK_NEAR(r->advice.predicted_needed, 1.0);
    CHECK_NEAR(r->s_per_job, 178.0 * MS / 4);
    CHECK_NEAR(r->steady_s_per_job, 38.0 * MS);
    CHECK_NEAR(r->stage[ST_SYNTHESIS].mean, 38.0 * MS);
    CHECK_NEAR(r->stage[ST_GPU].p90, 26.0 * MS);
    CHECK_EQ_U(r->stage[ST_HANDOFF].count, 4);
    CHECK_EQ_U(r->synth_max, 1);
    CHECK_EQ_U(r->run->skipped_lines, 0);
}


/* Synthesis concurrency counts SYNTH_START to SYNTH_END, as the semaphore
 * does.  Strictly sequential synthesis (37 ms each, the next one starting
 * as the previous ends) whose units are sent 1 ms after their SYNTH_END:
 * each next SYNTH_START comes before the previous CHAN_SEND.  With the
 * handoff counted that read as 2 at once, and the advice said 2 was enough;
 * it is 1, and the advice asks for 2 (g = 26 ms).  The idle cause
 * `synthesis` still runs to the ready time. */
static void handoff_not_concurrency(void)
{
    char log[4096];
    size_t n = 0;
    for (int k = 0; k < 4; k++) {
        int ss = 37 * k, se = 37 * (k + 1), send = se + 1, ge = send + 26;
        n += (size_t)snprintf(log + n, sizeof log - n,
                              "TIMELINE,%d,SYNTH_START,j%d,\nTIMELINE,%d,SYNTH_END,j%d,\n"
                              "TIMELINE,%d,CHAN_SEND,j%d,\nTIMELINE,%d,GPU_PICKUP,j%d,worker=0\n"
                              "TIMELINE,%d,GPU_START,j%d,worker=0\nTIMELINE,%d,GPU_END,j%d,worker=0\n",
                              ss, k, se, k, send, k, send, k, send, k, ge, k);
    }
    CHECK(load_text("handoff.log", log) == WF_EXIT_OK);
    const struct run_result *r = &L.res[0];
    CHECK_EQ_U(r->synth_max, 1);
    CHECK(r->bottleneck == BN_SYNTHESIS);
    CHECK_EQ_U(r->advice.current, 1);
    CHECK_EQ_U(r->advice.needed, 2);
    /* gaps [37(k+1)+27, 37(k+2)+1): 11 ms each, unit k+1 in synthesis to its send */
    CHECK_EQ_U(r->by_cause[CAUSE_SYNTHESIS], 3 * 11 * MS);
}

/* The CPU section from timing alone, in the seed's key=value form:
 * synthesis takes 38 s alone (units a0..a3, strictly in sequence) and
 * 50 s beside another (pairs p0..p3, started together); the GPU takes
 * 26 s.  synthesis_by_concurrency: k = 1: 4 units, 38 s; k = 2: 8 units,
 * 50 s (1.32x: contention).  The GPU idles while the pairs synthesize, so
 * the bottleneck would be synthesis; it is cpu, and the advice never asks
 * for more syntheses. */
static void cpu_from_timing(void)
{
    char log[16384];
    size_t n = 0;
    double t = 0;
    for (int k = 0; k < 4; k++, t += 38)
        n += (size_t)snprintf(log + n, sizeof log - n,
                              "TIMELINE synth_start job=a%d ts=%.3f\nTIMELINE synth_end job=a%d ts=%.3f\n"
                              "TIMELINE gpu_start job=a%d ts=%.3f worker=0\nTIMELINE gpu_end job=a%d ts=%.3f worker=0\n",
                              k, t, k, t + 38, k, t + 38, k, t + 38 + 26);
    t += 26;
    for (int k = 0; k < 4; k++, t += 52)
        for (int m = 0; m < 2; m++)
            n += (size_t)snprintf(log + n, sizeof log - n,
                                  "TIMELINE synth_start job=p%d-%d ts=%.3f\nTIMELINE synth_end job=p%d-%d ts=%.3f\n"
                                  "TIMELINE gpu_start job=p%d-%d ts=%.3f worker=0\n"
                                  "TIMELINE gpu_end job=p%d-%d ts=%.3f worker=0\n",
                                  k, m, t, k, m, t + 50, k, m, t + 50 + 26 * m, k, m, t + 50 + 26 * (m + 1));
    CHECK(load_text("cputiming.log", log) == WF_EXIT_OK);
    const struct run_result *r = &L.res[0];
    const struct cpu_result *c = &r->cpu;
    CHECK(c->source == CPU_SRC_TIMING);
    CHECK(!c->synth.known && !c->gpu.known);
    CHECK_EQ_U(c->nsynth_by, 2);
    if (c->nsynth_by == 2) {
        CHECK(c->synth_by[0].k == 1 && c->synth_by[1].k == 2);
        CHECK_EQ_U(c->synth_by[0].units, 4);
        CHECK_EQ_U(c->synth_by[1].units, 8);
        CHECK(fabs(c->synth_by[0].mean / (38e3 * MS) - 1) <= 0.02);
        CHECK(fabs(c->synth_by[1].mean / (50e3 * MS) - 1) <= 0.02);
    }
    CHECK(fabs(c->synth_slower - 50.0 / 38.0) < 0.01);
    CHECK(c->synth_contended && c->contention);
    CHECK(r->utilization < 0.95);
    CHECK(r->bottleneck == BN_CPU);
    CHECK(r->advice.needed <= r->advice.current || r->bottleneck == BN_CPU);
    char l1[512], l2[512];
    report_advice_lines(r, l1, sizeof l1, l2, sizeof l2);
    CHECK(strstr(l1, "no more syntheses") != NULL);
    /* the same JSON a script reads */
    const char *path = tmp_path("cputiming-cli.log");
    FILE *f = fopen(path, "w");
    fputs(log, f);
    fclose(f);
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "%s analyze --json %s | grep -q '\"cpu\": {\"source\": \"timing\", \"synthesis\": null, \"gpu_workers\": null, "
             "\"synthesis_by_concurrency\": \\[{\"concurrency\": 1, \"units\": 4, \"mean_s\": 38}, "
             "{\"concurrency\": 2, \"units\": 8, \"mean_s\": 50}\\]'",
             WATERFALL_BIN, path);
    CHECK(run_status(cmd) == 0);
    snprintf(cmd, sizeof cmd, "%s analyze --json %s | grep -q '\"bottleneck\": \"cpu\"'", WATERFALL_BIN, path);
    CHECK(run_status(cmd) == 0);
    remove(path);
}

/* The CPU section from samples, by the rule: a role that wanted a tenth of
 * a core or more and got 80% or less of it waits for a core.  The samples
 * are set on the run as a native trace's reader sets them. */
static void cpu_from_samples(void)
{
    static const char *story = "TIMELINE,0,SYNTH_START,a,\nTIMELINE,38,SYNTH_END,a,\nTIMELINE,38,GPU_START,a,worker=0\n"
                               "TIMELINE,64,GPU_END,a,worker=0\nTIMELINE,38,SYNTH_START,b,\nTIMELINE,76,SYNTH_END,b,\n"
                               "TIMELINE,76,GPU_START,b,worker=0\nTIMELINE,102,GPU_END,b,worker=0\n";
    static const char *busy = "TIMELINE,0,GPU_START,a,worker=0\nTIMELINE,10,GPU_END,a,worker=0\n"
                              "TIMELINE,10,GPU_START,b,worker=0\nTIMELINE,20,GPU_END,b,worker=0\n";
    struct {
        const char *log;
        double syn_used, syn_want, gpu_used, gpu_want;
        int bottleneck;
    } cases[] = {
        {story, 0.99, 1.00, 0.90, 0.92, BN_SYNTHESIS}, /* nothing starved */
        {story, 0.50, 1.00, 0.00, 0.01, BN_CPU},       /* synthesis starved 50% */
        {story, 0.85, 1.00, 0.00, 0.01, BN_SYNTHESIS}, /* 15%: under the bar */
        {busy, 0.50, 1.00, 0.95, 1.00, BN_GPU},        /* GPU saturated, its phase not waiting */
        {busy, 0.99, 1.00, 0.64, 1.00, BN_GPU + 100},  /* the GPU phase waits for a core: cpu */
        {busy, 0.99, 1.00, 0.01, 0.05, BN_GPU},        /* a worker that wants little is not judged */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK(load_text("cpusamples.log", cases[i].log) == WF_EXIT_OK);
        struct run *run = &L.model.runs[0];
        run->cpu = (struct cpu_use){.sampled = 1, .wait_known = 1,
                                        .synth_cpu_s = cases[i].syn_used, .synth_want_s = cases[i].syn_want,
                                        .synth_wall_s = 1, .synth_units = 2,
                                        .gpu_cpu_s = cases[i].gpu_used, .gpu_want_s = cases[i].gpu_want,
                                        .gpu_wall_s = 1, .gpu_units = 2};
        run->cpus = 2;
        struct run_result res;
        CHECK(analyze_run(run, &res) == 0);
        int want = cases[i].bottleneck == BN_GPU + 100 ? BN_CPU : cases[i].bottleneck;
        if (res.bottleneck != want)
            fprintf(stderr, "cpu case %zu: bottleneck %s, want %s\n", i, bottleneck_names[res.bottleneck],
                    bottleneck_names[want]);
        CHECK(res.bottleneck == want);
        CHECK(res.cpu.source == CPU_SRC_SAMPLES && res.cpu.synth.known && res.cpu.gpu.known);
        CHECK(fabs(res.cpu.synth.used - cases[i].syn_used) < 1e-9);
        CHECK(fabs(res.cpu.synth.wanted - cases[i].syn_want) < 1e-9);
        if (want == BN_CPU) {
            /* never more syntheses; what the cores could carry */
            CHECK(res.advice.cores == 2);
            CHECK(res.advice.synth_cpu_unit > 0 || cases[i].log == busy); /* busy has no synthesis */
            char l1[512], l2[512];
            report_advice_lines(&res, l1, sizeof l1, l2, sizeof l2);
            CHECK(strstr(l1, "run 2") == NULL && strstr(l1, "run 3") == NULL);
        }
        run_result_free(&res);
    }
}

/* The cpu bottleneck's advice never contradicts its own simulation: where
 * the pipeline wants more cores at once than there are, but one synthesis
 * fewer simulates slower, it does not advise fewer (a run beside other
 * work on a 2-core machine gave both, found by trying the README). */
static void cpu_advice_agrees(void)
{
    struct run_result res;
    memset(&res, 0, sizeof res);
    res.bottleneck = BN_CPU;
    res.advice = (struct advice){.valid = 1, .current = 2, .needed = 2, .model = "simulation", .contention = 2,
                                 .cores = 2, .synth_cpu_unit = 10e6, .host_cpu_unit = 1e6,
                                 .synth_cpu_target = 20e6, .reserve_cores = 1, .demand = 2.5, .sim_done = 1,
                                 .sim_util = {0.675, 0.503}, .sim_spj = {29.7e6, 39.5e6}};
    char l1[512], l2[512];
    report_advice_lines(&res, l1, sizeof l1, l2, sizeof l2);
    CHECK(strstr(l1, "not all at once: fewer syntheses") == NULL);
    CHECK(strstr(l1, "fewer syntheses at once would be slower (simulated)") != NULL);
    CHECK(strstr(l2, "at 2 syntheses 67.5%") != NULL && strstr(l2, "at 1 50.3%") != NULL);
    /* where the simulation finds one fewer as fast, fewer is the advice */
    res.advice.needed = 1;
    report_advice_lines(&res, l1, sizeof l1, l2, sizeof l2);
    CHECK(strstr(l1, "run 1 synthesis at once, not more (now 2)") != NULL);
    CHECK(strstr(l1, "but not all at once: fewer syntheses at once") != NULL);
}

static void runs_and_forms(void)
{
    /* Run 1 in the seed form (seconds), run 2 in the cuzk form after a
     * restart near zero, with partitions: job p has partitions 0 and 1;
     * it completes only when both have GPU_END. */
    CHECK(load_text("runs.log",
                    "TIMELINE synth_start job=abc ts=0.000\n"
                    "TIMELINE synth_end   job=abc ts=1.500\n"
                    "TIMELINE gpu_start   job=abc ts=2.000\n"
                    "TIMELINE gpu_end     job=abc ts=65.847\n"
                    "daemon restarted\n"
                    "TIMELINE,3,SYNTH_START,p,partition=0\n"
                    "TIMELINE,4,SYNTH_START,p,partition=1\n"
                    "TIMELINE,100,GPU_START,p,partition=0,worker=0\n"
                    "TIMELINE,200,GPU_END,p,partition=0,worker=0\n"
                    "TIMELINE,200,GPU_START,p,partition=1,worker=0\n") == WF_EXIT_OK);
    CHECK_EQ_U(L.nres, 2);
    const struct run_result *a = &L.res[0], *b = &L.res[1];
    CHECK_EQ_U(a->units, 1);
    CHECK_EQ_U(a->busy, 63847 * MS);
    CHECK_EQ_U(a->run->first_line, 1);
    CHECK_EQ_U(a->run->last_line, 4);
    CHECK_EQ_U(b->run->index, 2);
    CHECK_EQ_U(b->run->first_line, 6);
    CHECK_EQ_U(b->units, 2);
    CHECK_EQ_U(b->jobs, 1);
    CHECK_EQ_U(b->jobs_completed, 0);
    CHECK_EQ_U(b->in_flight, 1);
    CHECK_EQ_U(b->busy, 100 * MS);
    CHECK(b->s_per_job < 0); /* no job completed */
}

/* Logs collected as JSON lines: Docker's json-file driver wraps each line
 * of the daemon's stderr in {"log":"...\n",...}, colour codes escaped as
 * \u001b; a structured logger puts the record in a "msg" field.  The same
 * records as a plain log give the same analysis; a quote that does not
 * close a JSON string is part of the record as before. */
static void json_wrapped(void)
{
    const char *plain = "TIMELINE,0,SYNTH_START,job-1,partition=0\n"
                        "TIMELINE,100,SYNTH_END,job-1,partition=0\n"
                        "TIMELINE,101,CHAN_SEND,job-1,\n"
                        "TIMELINE,102,GPU_PICKUP,job-1,worker=0,partition=0\n"
                        "TIMELINE,103,GPU_START,job-1,worker=0,partition=0\n"
                        "TIMELINE,200,GPU_END,job-1,worker=0,partition=0\n";
    CHECK(load_text("plain.log", plain) == WF_EXIT_OK);
    CHECK_EQ_U(L.nres, 1);
    uint64_t busy = L.res[0].busy, units = L.res[0].units, done = L.res[0].jobs_completed;
    uint64_t in_flight = L.res[0].in_flight;
    int64_t q = (int64_t)L.res[0].stage[ST_QUEUE].p50;
    CHECK_EQ_U(busy, 97 * MS);
    CHECK(load_text("docker.log",
                    "{\"log\":\"2024-01-01T00:00:00.000Z \\u001b[32m INFO\\u001b[0m cuzk: "
                    "TIMELINE,0,SYNTH_START,job-1,partition=0\\n\",\"stream\":\"stderr\",\"time\":\"2024-01-01T00:00:00Z\"}\n"
                    "{\"log\":\"TIMELINE,100,SYNTH_END,job-1,partition=0\\n\",\"stream\":\"stderr\"}\n"
                    "{\"log\":\"TIMELINE,101,CHAN_SEND,job-1,\\n\",\"stream\":\"stderr\"}\n"
                    "{\"log\":\"\\u001b[2mTIMELINE,102,GPU_PICKUP,job-1,worker=0,partition=0\\u001b[0m\\r\\n\",\"stream\":\"stderr\"}\n"
                    "{\"log\":\"TIMELINE,103,GPU_START,job-1,worker=0,partition=0\\n\", \"stream\":\"stderr\"}\n"
                    "{\"msg\":\"TIMELINE,200,GPU_END,job-1,worker=0,partition=0\"}\n") == WF_EXIT_OK);
    CHECK_EQ_U(L.nres, 1);
    CHECK_EQ_U(L.res[0].units, units);
    CHECK_EQ_U(L.res[0].jobs, 1);
    CHECK_EQ_U(L.res[0].jobs_completed, done);
    CHECK_EQ_U(L.res[0].in_flight, in_flight);
    CHECK_EQ_U(L.res[0].busy, busy);
    CHECK_EQ_U((int64_t)L.res[0].stage[ST_QUEUE].p50, q);
    CHECK_EQ_U(L.res[0].run->skipped_lines, 0);
    /* the seed form, wrapped */
    CHECK(load_text("docker-seed.log",
                    "{\"log\":\"TIMELINE synth_start job=abc ts=0.000\\n\"}\n"
                    "{\"log\":\"TIMELINE gpu_start job=abc ts=2.000\\n\"}\n"
                    "{\"log\":\"TIMELINE gpu_end job=abc ts=3.500\\n\"}\n") == WF_EXIT_OK);
    CHECK_EQ_U(L.res[0].busy, 1500 * MS);
    /* quotes that close no JSON string stay in the record: a job id with
     * quotes, a detail value in quotes */
    CHECK(load_text("quotes.log",
                    "TIMELINE,0,SYNTH_START,\"job 1\",kind=\"porep\"\n"
                    "TIMELINE,5,GPU_START,\"job 1\",worker=0\n"
                    "TIMELINE,9,GPU_END,\"job 1\",worker=0\n") == WF_EXIT_OK);
    CHECK_EQ_U(L.res[0].units, 1);
    CHECK_EQ_U(L.res[0].busy, 4 * MS);
    CHECK_EQ_U(L.res[0].run->skipped_lines, 0);
}

static void devices(void)
{
    /* Two devices (gpu= and device= both name one), one worker each. */
    CHECK(load_text("dev.log",
                    "TIMELINE,0,GPU_START,a,worker=0,gpu=0\n"
                    "TIMELINE,10,GPU_END,a,worker=0,gpu=0\n"
                    "TIMELINE,0,GPU_START,b,worker=0,device=1\n"
                    "TIMELINE,5,GPU_END,b,worker=0,device=1\n"
                    "TIMELINE,15,GPU_START,c,worker=0,device=1\n"
                    "TIMELINE,20,GPU_END,c,worker=0,device=1\n") == WF_EXIT_OK);
    const struct run_result *r = &L.res[0];
    CHECK_EQ_U(r->ndev, 2);
    CHECK_EQ_U(r->dev[0].device, 0);
    CHECK_EQ_U(r->dev[1].device, 1);
    CHECK_EQ_U(r->dev[1].busy, 10 * MS);
    CHECK_EQ_U(r->dev[1].idle, 10 * MS);
    CHECK_EQ_U(r->dev[1].by_cause[CAUSE_NO_WORK], 10 * MS);
    CHECK_NEAR(r->dev[1].utilization, 0.5);
    CHECK_NEAR(r->utilization, 20.0 / 30.0);
}

static void bad_data(void)
{
    /* Duplicates keep the first; a unit going backwards is left out of
     * busy; malformed TIMELINE lines are skipped and counted with their
     * line numbers; GPU_TIMELINE is not a record at all. */
    CHECK(load_text("bad.log",
                    "TIMELINE,0,GPU_START,a,\n"              /* 1 */
                    "TIMELINE,10,GPU_END,a,\n"               /* 2 */
                    "TIMELINE,11,GPU_END,a,\n"               /* 3 duplicate */
                    "TIMELINE,30,GPU_START,x,\n"             /* 4 x goes backwards */
                    "TIMELINE,20,GPU_END,x,\n"               /* 5 */
                    "TIMELINE,abc,GPU_END,y,\n"              /* 6 bad time */
                    "TIMELINE,99999999999999999999,GPU_END,y,\n" /* 7 overflow */
                    "TIMELINE,5,FROB*NICATE,y,\n"            /* 8 malformed event name */
                    "TIMELINE,5,GPU_END\n"                   /* 9 no job */
                    "TIMELINE,5,GPU_END,y,partition=-1\n"    /* 10 bad number */
                    "TIMELINE,-5,GPU_END,y,\n"               /* 11 negative */
                    "TIMELINE,nan,GPU_END,y,\n"              /* 12 nan */
                    "GPU_TIMELINE enabled\n"                 /* 13 not a record */
                    "TIMELINE gpu_end ts=1.0\n"              /* 14 no job */
                    "TIMELINE,40,GPU_START,b,\n"             /* 15 */
                    "TIMELINE,50,GPU_END,b,\n") == WF_EXIT_OK);
    CHECK(L.partial); /* analyze exits 4 */
    const struct run_result *r = &L.res[0];
    const struct run *run = r->run;
    CHECK_EQ_U(run->skipped_lines, 8);
    CHECK_EQ_U(run->duplicates, 1);
    CHECK_EQ_U(r->inconsistent, 1);
    CHECK_EQ_U(r->busy, 20 * MS); /* a and b; x left out */
    CHECK_EQ_U(r->window, 50 * MS);
    CHECK_EQ_U(run->nissues[ISSUE_SKIPPED], 5);
    CHECK_EQ_U(run->issues[ISSUE_SKIPPED][0].line, 6);
    CHECK_EQ_U(run->issues[ISSUE_SKIPPED][0].detail, SCAN_BAD_TIME);
    CHECK_EQ_U(run->issues[ISSUE_SKIPPED][2].detail, SCAN_UNKNOWN_EVENT);
    CHECK_EQ_U(run->issues[ISSUE_SKIPPED][3].line, 9);
    CHECK_EQ_U(run->issues[ISSUE_DUPLICATE][0].line, 3);
    CHECK_EQ_U(run->issues[ISSUE_CONTRADICTION][0].line, 4);
    CHECK_EQ_U(L.model.timeline_lines, 15);
}

static void review_fixes(void)
{
    /* An inconsistent unit is left out of jobs completed and throughput
     * too, not only out of busy. */
    CHECK(load_text("incons.log",
                    "TIMELINE,0,SYNTH_START,j1,\n"
                    "TIMELINE,10,SYNTH_END,j1,\n"
                    "TIMELINE,10,GPU_START,j1,\n"
                    "TIMELINE,59,GPU_END,j1,\n"
                    "TIMELINE,100,SYNTH_START,j2,\n"
                    "TIMELINE,200,SYNTH_END,j2,\n"
                    "TIMELINE,190,GPU_START,j2,\n"
                    "TIMELINE,900,GPU_END,j2,\n") == WF_EXIT_OK);
    const struct run_result *r = &L.res[0];
    CHECK_EQ_U(r->inconsistent, 1);
    CHECK_EQ_U(r->jobs_completed, 1);
    CHECK_NEAR(r->s_per_job, 59.0 * MS);
    CHECK_EQ_U(r->window, 49 * MS);
    CHECK_EQ_U(r->in_flight, 0);

    /* Skipped lines just before a restart belong to the run they follow. */
    CHECK(load_text("skiprun.log",
                    "TIMELINE,0,GPU_START,a,\n"
                    "TIMELINE,2000,GPU_END,a,\n"
                    "TIMELINE,x,GPU_END,a,\n"
                    "TIMELINE,y,GPU_END,a,\n"
                    "TIMELINE,5,GPU_START,b,\n"
                    "TIMELINE,9,GPU_END,b,\n") == WF_EXIT_OK);
    CHECK_EQ_U(L.nres, 2);
    if (L.nres == 2) {
        CHECK_EQ_U(L.res[0].run->skipped_lines, 2);
        CHECK_EQ_U(L.res[0].run->nissues[ISSUE_SKIPPED], 2);
        CHECK_EQ_U(L.res[1].run->skipped_lines, 0);
    }

    /* A line printed 50 ms late early in a log does not start a run. */
    CHECK(load_text("late.log",
                    "TIMELINE,0,SYNTH_START,a,\n"
                    "TIMELINE,70,SYNTH_END,a,\n"
                    "TIMELINE,20,SYNTH_START,b,\n"
                    "TIMELINE,80,GPU_START,a,\n"
                    "TIMELINE,90,GPU_END,a,\n") == WF_EXIT_OK);
    CHECK_EQ_U(L.nres, 1);

    /* One unreadable input among several: the others are still analysed,
     * the status says one failed. */
    const char *good = tmp_path("good.log");
    FILE *f = fopen(good, "w");
    fputs("TIMELINE,0,GPU_START,a,\nTIMELINE,5,GPU_END,a,\n", f);
    fclose(f);
    char *argv[2] = {(char *)good, (char *)"/nonexistent/x.log"};
    loaded_free(&L);
    CHECK(load_inputs(&L, argv, 2, 0, "test", NULL) == WF_EXIT_INPUT);
    CHECK_EQ_U(L.nres, 1);
    remove(good);
}

static void parser(void)
{
    char scratch[SCAN_LINE_MAX];
    struct scan_rec r;
    const char *l1 = "TIMELINE,36512,SYNTH_END,9f1c2e7a-1b2c,partition=3,synth_ms=36512";
    CHECK(scan_line(l1, l1, l1 + strlen(l1), scratch, &r) == SCAN_OK);
    CHECK(r.t_ns == 36512 * MS && r.ev == EV_SYNTH_END && r.partition == 3 && r.worker == -1);
    CHECK(r.job_len == 13 && memcmp(r.job, "9f1c2e7a-1b2c", 13) == 0);
    const char *l2 = "TIMELINE,1.5,gpu_queue,j,monotonic";
    CHECK(scan_line(l2, l2, l2 + strlen(l2), scratch, &r) == SCAN_OK);
    CHECK(r.t_ns == 1500000 && r.ev == EV_CHAN_SEND && r.partition == -1);
    const char *l3 = "TIMELINE,7,GPU_START,j,worker=2,gpu=1\x1b[0m\r";
    CHECK(scan_line(l3, l3, l3 + strlen(l3), scratch, &r) == SCAN_OK);
    CHECK(r.worker == 2 && r.device == 1);
    const char *l4 = "TIMELINE gpu_end     job=abc ts=65.847";
    CHECK(scan_line(l4, l4, l4 + strlen(l4), scratch, &r) == SCAN_OK);
    CHECK(r.t_ns == 65847 * MS && r.ev == EV_GPU_END && r.job_len == 3);
    const char *l5 = "TIMELINE,5,GPU_END,j,worker=99999999999";
    CHECK(scan_line(l5, l5, l5 + strlen(l5), scratch, &r) == SCAN_BAD_NUMBER);
    const char *l6 = "TIMELINE,5.,GPU_END,j,";
    CHECK(scan_line(l6, l6, l6 + strlen(l6), scratch, &r) == SCAN_BAD_TIME);
    const char *l7 = "TIMELINEX,5,GPU_END,j,";
    CHECK(scan_line(l7, l7, l7 + strlen(l7), scratch, &r) == SCAN_NOT_RECORD);
    const char *l8 = "TIMELINE,5,GPU_END,,";
    CHECK(scan_line(l8, l8, l8 + strlen(l8), scratch, &r) == SCAN_NO_JOB);
    const char *l9 = "TIMELINE,inf,GPU_END,j,";
    CHECK(scan_line(l9, l9, l9 + strlen(l9), scratch, &r) == SCAN_BAD_TIME);
    const char *la = "TIMELINE,1e3,GPU_END,j,";
    CHECK(scan_line(la, la, la + strlen(la), scratch, &r) == SCAN_BAD_TIME);
    /* the finder, across SIMD block edges */
    char buf[200];
    for (int at = 0; at < 100; at++) {
        memset(buf, 'E', sizeof buf);
        memcpy(buf + at, "TIMELINE", 8);
        CHECK(scan_find(buf, buf + sizeof buf) == buf + at);
        CHECK(scan_find(buf, buf + at + 7) == NULL);
    }
    CHECK(model_is_restart(0, 10 * MS * 100));
    CHECK(!model_is_restart(990 * MS, 1000 * MS));
    CHECK(!model_is_restart(1, 40 * MS));      /* too small a drop */
    CHECK(!model_is_restart(20 * MS, 70 * MS)); /* a late line early in a log */
    CHECK(model_is_restart(3 * MS, 900 * MS));  /* a short run restarting near zero */
    CHECK(model_is_restart(60000 * MS, 3600000 * MS));
}

static void native_equals_text(void)
{
    /* A native trace and its `dump -p 6` text give the same analysis. */
    const char *wft = tmp_path("eq.wft"), *txt = tmp_path("eq.log");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s 4 >/dev/null && %s dump -p 6 %s > %s", DEMO_BIN, wft,
             WATERFALL_BIN, wft, txt);
    CHECK(run_status(cmd) == 0);
    char *argv[2] = {(char *)wft, (char *)txt};
    loaded_free(&L);
    CHECK(load_inputs(&L, argv, 2, 0, "test", NULL) == WF_EXIT_OK);
    CHECK_EQ_U(L.nres, 2);
    if (L.nres == 2) {
        const struct run_result *a = &L.res[0], *b = &L.res[1];
        CHECK_EQ_U(a->units, 4);
        CHECK_EQ_U(a->units, b->units);
        CHECK(labs((long)(a->busy - b->busy)) <= 4 * 1000); /* dump rounds each time to 1 ns... */
        CHECK(labs((long)(a->idle - b->idle)) <= 4 * 1000);
        for (int c = 0; c < CAUSE_N; c++)
            CHECK(labs((long)(a->by_cause[c] - b->by_cause[c])) <= 4 * 1000);
        /* the trace's CPU samples may find contention on a loaded machine;
         * its text has no samples, so only then may the two differ */
        if (!(a->cpu.source == CPU_SRC_SAMPLES && a->cpu.contention)) {
            CHECK(a->bottleneck == b->bottleneck);
            CHECK_EQ_U(a->advice.needed, b->advice.needed);
        }
    }
    remove(wft);
    remove(txt);
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The fast path for short cuzk records (and its eight-digits-at-a-time
 * numbers) must say what the general path says, on valid records and on
 * every kind of damage: random records, randomly mutated. */
static void fast_path_matches_reference(void)
{
    static const char *evs[] = {"SYNTH_START", "synth_end", "GPU_QUEUE", "gpu_pickup", "GPU_START",
                                "GPU_END",     "CHAN_SEND", "Gpu_End",   "BOGUS",      ""};
    static const char *keys[] = {"partition", "worker", "gpu", "device", "other", "part", "", "x"};
    static const char *ins[] = {",", "=", "\x1b[1m", " ", "\t", "\r", "9", "99999999999999999999", ".", "-", "0"};
    uint64_t rs = 88172645463325252ull;
#define RND() xorshift(&rs)
    char line[700], s1[SCAN_LINE_MAX], s2[SCAN_LINE_MAX];
    long differ = 0, okc = 0, n = 300000;
    for (long it = 0; it < n; it++) {
        char num[40];
        int nd = 1 + (int)(RND() % 22);
        for (int q = 0; q < nd; q++)
            num[q] = RND() % 9 == 0 ? "0x.a 9"[RND() % 6] : (char)('0' + RND() % 10);
        num[nd] = 0;
        const char *lead = RND() % 8 == 0 ? " " : "", *frac = RND() % 3 == 0 ? ".25" : "";
        const char *ev = evs[RND() % 10];
        unsigned long long jid = RND() % 1000000;
        int len = sprintf(line, "TIMELINE,%s%s%s,%s,job-%llx", lead, num, frac, ev, jid);
        int nk = (int)(RND() % 4);
        for (int k = 0; k < nk; k++) {
            const char *key = keys[RND() % 8];
            unsigned long long val = RND() % 5 == 0 ? RND() : RND() % 100;
            len += sprintf(line + len, ",%s=%llu", key, val);
        }
        if (RND() % 3 == 0)
            len += sprintf(line + len, "%s", RND() % 2 ? "\r" : "  ");
        if (RND() % 6 == 0)
            len += sprintf(line + len, ",%0*d", (int)(RND() % 120), 7);
        int muts = (int)(RND() % 3);
        for (int m = 0; m < muts; m++) {
            const char *f = ins[RND() % 11];
            size_t fl = strlen(f), at = 8 + RND() % (size_t)(len - 7);
            if (len + (int)fl >= 690)
                break;
            memmove(line + at + fl, line + at, (size_t)len - at);
            memcpy(line + at, f, fl);
            len += (int)fl;
        }
        line[len] = 0;
        struct scan_rec a, b;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        /* the copying fast path, the in-place one (room to read past the
         * line), and the general path */
        struct scan_rec c;
        memset(&c, 0, sizeof c);
        enum scan_err e1 = scan_line(line, line, line + len, s1, &a);
        enum scan_err e2 = scan_line_ref(line, line, line + len, s2, &b);
        enum scan_err e3 = scan_line_in(line, line, line + len, line + sizeof line, s1 + 2048, &c);
        okc += e1 == SCAN_OK;
        int same = e1 == e2 && e3 == e2 &&
                   (e1 != SCAN_OK ||
                    (a.t_ns == b.t_ns && a.ev == b.ev && a.job_len == b.job_len &&
                     memcmp(a.job, b.job, a.job_len) == 0 && a.partition == b.partition &&
                     a.worker == b.worker && a.device == b.device && c.t_ns == b.t_ns && c.ev == b.ev &&
                     c.job_len == b.job_len && memcmp(c.job, b.job, c.job_len) == 0 &&
                     c.partition == b.partition && c.worker == b.worker && c.device == b.device));
        if (!same && differ++ < 3)
            fprintf(stderr, "fast path differs (%d vs %d): %s\n", e1, e2, line);
    }
#undef RND
    CHECK_EQ_U(differ, 0);
    CHECK(okc > n / 10); /* the valid ones are many enough to mean something */
}

/* Units that never finish a stage (DESIGN.md; analyze_abandon.c): each
 * stops holding its cause once it has lasted as long as the longest of its
 * stage completed by then, and a prep also at its worker's next pickup or
 * start.  The same logs are in tests/data (abandoned-*.log), where
 * test_watch checks that watch decides them as analyze does. */
static void abandoned_units(void)
{
    /* The issue's four jobs: b is picked up by worker 1 at 202 and never
     * started.  The longest prep completed by 202 is a's 9 ms (101 to
     * 110), none longer completes by 211: b holds prep [202, 211).  Idle
     * [160, 306) and [356, 408) (198 ms): prep b 9 + c [301, 306) 5 + d
     * [401, 408) 7 = 21; queue b [200, 202) 2 + c 1 + d 1 = 4; the rest
     * synthesis, 173.  Held to the log's end, b made it prep 156 ms, and
     * the bottleneck dispatch. */
    CHECK(load_text("abandoned.log",
                    "TIMELINE,0,SYNTH_START,a,\n"
                    "TIMELINE,100,SYNTH_END,a,\n"
                    "TIMELINE,100,CHAN_SEND,a,\n"
                    "TIMELINE,100,SYNTH_START,b,\n"
                    "TIMELINE,101,GPU_PICKUP,a,worker=0\n"
                    "TIMELINE,110,GPU_START,a,worker=0\n"
                    "TIMELINE,160,GPU_END,a,worker=0\n"
                    "TIMELINE,200,SYNTH_END,b,\n"
                    "TIMELINE,200,CHAN_SEND,b,\n"
                    "TIMELINE,200,SYNTH_START,c,\n"
                    "TIMELINE,202,GPU_PICKUP,b,worker=1\n"
                    "TIMELINE,300,SYNTH_END,c,\n"
                    "TIMELINE,300,CHAN_SEND,c,\n"
                    "TIMELINE,300,SYNTH_START,d,\n"
                    "TIMELINE,301,GPU_PICKUP,c,worker=0\n"
                    "TIMELINE,306,GPU_START,c,worker=0\n"
                    "TIMELINE,356,GPU_END,c,worker=0\n"
                    "TIMELINE,400,SYNTH_END,d,\n"
                    "TIMELINE,400,CHAN_SEND,d,\n"
                    "TIMELINE,401,GPU_PICKUP,d,worker=1\n"
                    "TIMELINE,408,GPU_START,d,worker=1\n"
                    "TIMELINE,458,GPU_END,d,worker=1\n") == WF_EXIT_OK);
    const struct run_result *r = &L.res[0];
    CHECK_EQ_U(r->by_cause[CAUSE_PREP], 21 * MS);
    CHECK_EQ_U(r->by_cause[CAUSE_QUEUE], 4 * MS);
    CHECK_EQ_U(r->by_cause[CAUSE_SYNTHESIS], 173 * MS);
    CHECK_EQ_U(r->by_cause[CAUSE_NO_WORK], 0);
    CHECK(r->bottleneck == BN_SYNTHESIS);
    CHECK_EQ_U(r->abandoned, 1);
    CHECK_EQ_U(r->abandoned_by[CAUSE_PREP], 1);
    CHECK_EQ_U(r->in_flight, 1);
    /* the stage table holds completed preps only: a 9, c 5, d 7 */
    CHECK_EQ_U(r->stage[ST_PREP].count, 3);
    CHECK_NEAR(r->stage[ST_PREP].max, 9 * MS);

    /* The worker moves on first: b, picked up by worker 1 at 100, would
     * hold prep until 190 (a's prep of 90 ms), but worker 1 starts c at
     * 160.  Idle [100, 160): b's prep, 60; [210, 250): d in synthesis, 40
     * (b held to the end made it prep). */
    CHECK(load_text("abandoned-worker.log",
                    "TIMELINE,0,GPU_PICKUP,a,worker=0\n"
                    "TIMELINE,90,GPU_START,a,worker=0\n"
                    "TIMELINE,100,GPU_END,a,worker=0\n"
                    "TIMELINE,100,GPU_PICKUP,b,worker=1\n"
                    "TIMELINE,100,SYNTH_START,c,\n"
                    "TIMELINE,150,SYNTH_END,c,\n"
                    "TIMELINE,150,SYNTH_START,d,\n"
                    "TIMELINE,160,GPU_START,c,worker=1\n"
                    "TIMELINE,210,GPU_END,c,worker=1\n"
                    "TIMELINE,250,SYNTH_END,d,\n"
                    "TIMELINE,250,GPU_START,d,worker=0\n"
                    "TIMELINE,300,GPU_END,d,worker=0\n") == WF_EXIT_OK);
    r = &L.res[0];
    CHECK_EQ_U(r->by_cause[CAUSE_PREP], 60 * MS);
    CHECK_EQ_U(r->by_cause[CAUSE_SYNTHESIS], 40 * MS);
    CHECK_EQ_U(r->abandoned_by[CAUSE_PREP], 1);
    CHECK_EQ_U(r->stage[ST_PREP].count, 1);

    /* A synthesis that never ends (x, from 100) stops at 200: the longest
     * synthesis completed by then is 100 ms (a at 100, b at 200).  A unit
     * queued and never picked up (q, ready at 310) stops at 320: c's queue
     * wait of 10 ms completed at 300.  Idle: [150, 200) synthesis 50;
     * [250, 300) c's synthesis 40 and queue 10; [350, 400) nothing in
     * flight until d starts at 380: no_work 30, synthesis 20.  Held to the
     * end, q made [350, 400) queue. */
    CHECK(load_text("abandoned-sq.log",
                    "TIMELINE,0,SYNTH_START,a,\n"
                    "TIMELINE,100,SYNTH_END,a,\n"
                    "TIMELINE,100,CHAN_SEND,a,\n"
                    "TIMELINE,100,GPU_PICKUP,a,worker=0\n"
                    "TIMELINE,100,GPU_START,a,worker=0\n"
                    "TIMELINE,100,SYNTH_START,x,\n"
                    "TIMELINE,100,SYNTH_START,b,\n"
                    "TIMELINE,150,GPU_END,a,worker=0\n"
                    "TIMELINE,200,SYNTH_END,b,\n"
                    "TIMELINE,200,CHAN_SEND,b,\n"
                    "TIMELINE,200,GPU_PICKUP,b,worker=0\n"
                    "TIMELINE,200,GPU_START,b,worker=0\n"
                    "TIMELINE,200,SYNTH_START,c,\n"
                    "TIMELINE,250,GPU_END,b,worker=0\n"
                    "TIMELINE,290,SYNTH_END,c,\n"
                    "TIMELINE,290,CHAN_SEND,c,\n"
                    "TIMELINE,300,GPU_PICKUP,c,worker=0\n"
                    "TIMELINE,300,GPU_START,c,worker=0\n"
                    "TIMELINE,310,CHAN_SEND,q,\n"
                    "TIMELINE,350,GPU_END,c,worker=0\n"
                    "TIMELINE,380,SYNTH_START,d,\n"
                    "TIMELINE,400,SYNTH_END,d,\n"
                    "TIMELINE,400,CHAN_SEND,d,\n"
                    "TIMELINE,400,GPU_PICKUP,d,worker=0\n"
                    "TIMELINE,400,GPU_START,d,worker=0\n"
                    "TIMELINE,450,GPU_END,d,worker=0\n") == WF_EXIT_OK);
    r = &L.res[0];
    CHECK_EQ_U(r->by_cause[CAUSE_SYNTHESIS], 110 * MS);
    CHECK_EQ_U(r->by_cause[CAUSE_QUEUE], 10 * MS);
    CHECK_EQ_U(r->by_cause[CAUSE_NO_WORK], 30 * MS);
    CHECK_EQ_U(r->by_cause[CAUSE_PREP], 0);
    CHECK_EQ_U(r->abandoned, 2);
    CHECK_EQ_U(r->abandoned_by[CAUSE_SYNTHESIS], 1);
    CHECK_EQ_U(r->abandoned_by[CAUSE_QUEUE], 1);
    CHECK_EQ_U(r->stage[ST_SYNTHESIS].count, 4);
    CHECK_NEAR(r->stage[ST_SYNTHESIS].max, 100 * MS);
    CHECK_EQ_U(r->stage[ST_QUEUE].count, 4);

    /* A unit still in its stage when the last GPU_END comes is in flight,
     * not abandoned. */
    CHECK(load_text("inflight.log", "TIMELINE,0,SYNTH_START,a,\n"
                                    "TIMELINE,10,SYNTH_END,a,\n"
                                    "TIMELINE,10,GPU_START,a,\n"
                                    "TIMELINE,15,SYNTH_START,b,\n"
                                    "TIMELINE,20,GPU_END,a,\n") == WF_EXIT_OK);
    CHECK_EQ_U(L.res[0].abandoned, 0);
    CHECK_EQ_U(L.res[0].in_flight, 1);
}

/* The kernel phase is an option of each analysis, read from its result:
 * a run analysed with HOST_MSM as the kernel leaves nothing behind for
 * the next one analysed with the defaults. */
static void options_per_run(void)
{
    CHECK(load_text("kphase.log",
                    "TIMELINE,0,GPU_START,a,worker=0\n"
                    "TIMELINE,0,HOST_MSM_START,a,\n"
                    "TIMELINE,4,HOST_MSM_END,a,\n"
                    "TIMELINE,4,KERNEL_START,a,\n"
                    "TIMELINE,10,KERNEL_END,a,\n"
                    "TIMELINE,10,GPU_END,a,worker=0\n") == WF_EXIT_OK);
    const struct run *run = &L.model.runs[0];
    struct analyze_opts host = {.kernel_phase = "host_msm", .keep = KEEP_ALL};
    struct run_result a, b;
    CHECK(analyze_run_opts(run, &host, &a) == 0);
    CHECK(analyze_run(run, &b) == 0);
    CHECK(strcmp(a.kernel_phase, "host_msm") == 0);
    CHECK(strcmp(b.kernel_phase, "KERNEL") == 0);
    CHECK_EQ_U(a.phase.kernel_busy, 4 * MS);
    CHECK_EQ_U(b.phase.kernel_busy, 6 * MS);
    for (size_t i = 0; i < b.phase.nrows; i++) {
        size_t n;
        const char *s = phase_label(run, &b.phase.rows[i], &n);
        int kernel = n == 6 && strncmp(s, "KERNEL", 6) == 0;
        CHECK(phase_row_is_kernel(&b, &b.phase.rows[i]) == kernel);
        CHECK(phase_row_is_kernel(&a, &b.phase.rows[i]) == (n == 8 && strncmp(s, "HOST_MSM", 8) == 0));
    }
    run_result_free(&a);
    run_result_free(&b);
}

/* big_append (mem.c), which joins the parts' duration entries: the bytes
 * of both, in order, whether b's pages moved (both mapped, a cut inside a
 * page or not, b with or without room to shift) or b was copied (small
 * arrays), and a's later growth still works. */
static void mem_append(void)
{
    static const size_t sizes[][4] = {/* a used, a cap, b used, b cap */
                                      {1000, 4096, 500, 1024},
                                      {100000, 300000, 70000, 300000},
                                      {(4u << 20) + 123, 8u << 20, (3u << 20) + 7, 4u << 20},
                                      {(4u << 20) + 123, 8u << 20, 4u << 20, 4u << 20}, /* b full */
                                      {2u << 20, 2u << 20, (1u << 20) + 5, 2u << 20},
                                      {300000, 300000, 10, 100},
                                      {(6u << 20) - 1, 6u << 20, (5u << 20) + 3, 6u << 20}};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t an = sizes[k][0], acap = sizes[k][1], bn = sizes[k][2], bcap = sizes[k][3];
        unsigned char *a = big_alloc(acap), *b = big_alloc(bcap);
        CHECK(a && b);
        if (!a || !b)
            return;
        for (size_t i = 0; i < an; i++)
            a[i] = (unsigned char)(i * 7 + 1);
        for (size_t i = 0; i < bn; i++)
            b[i] = (unsigned char)(i * 13 + 5);
        unsigned char *j = big_append(a, an, &acap, b, bn, bcap);
        CHECK(j != NULL && acap >= an + bn);
        if (!j)
            return;
        size_t bad = 0;
        for (size_t i = 0; i < an; i++)
            bad += j[i] != (unsigned char)(i * 7 + 1);
        for (size_t i = 0; i < bn; i++)
            bad += j[an + i] != (unsigned char)(i * 13 + 5);
        CHECK_EQ_U(bad, 0);
        if (acap > an + bn)
            j[acap - 1] = 9; /* the whole capacity is writable */
        unsigned char *g = big_realloc(j, acap, acap + (1u << 20));
        CHECK(g != NULL && g[0] == 1 && g[an + bn - 1] == (unsigned char)((bn - 1) * 13 + 5));
        big_free(g, acap + (1u << 20));
    }
}

/* A duration in the unit its rounding prints: never "1000.0 ms" (the
 * chart's column said so at 999.96 ms), "1000.0 us" or "1000 ns". */
static void durations_print(void)
{
    char b[32];
    CHECK(strcmp(fmt_dur(b, sizeof b, 999.96e6), "1.00 s") == 0);
    CHECK(strcmp(fmt_dur(b, sizeof b, 999.94e6), "999.9 ms") == 0);
    CHECK(strcmp(fmt_dur(b, sizeof b, 999.96e3), "1.0 ms") == 0);
    CHECK(strcmp(fmt_dur(b, sizeof b, 999.6), "1.0 us") == 0);
    CHECK(strcmp(fmt_dur(b, sizeof b, 999.4), "999 ns") == 0);
    CHECK(strcmp(fmt_dur(b, sizeof b, 2.5e9), "2.50 s") == 0);
    CHECK(strcmp(fmt_dur(b, sizeof b, -999.96e6), "-1.00 s") == 0);
    CHECK(strcmp(fmt_dur(b, sizeof b, 99.996e9), "100 s") == 0);
    CHECK(strcmp(fmt_dur(b, sizeof b, 99.994e9), "99.99 s") == 0);
}

/* barrier_idle: the time a device's kernels all wait at barrier_wait,
 * against an instant-by-instant count on random spans, kernels apart (one
 * GPU: the one-pass path) or overlapping (GPUs merged: the sweep), each
 * wait inside its own kernel, clipped to a window. */
static void barrier_idle_counts(void)
{
    srand(7);
    int bad = 0;
    for (int it = 0; it < 20000 && !bad; it++) {
        struct span k[8], b[8];
        int nk = 1 + rand() % 6, nb = 0, apart = rand() % 2;
        int64_t t = 0;
        for (int i = 0; i < nk; i++) {
            int64_t s = apart ? t + rand() % 5 : rand() % 40, e = s + 1 + rand() % 10;
            k[i] = (struct span){s, e};
            t = e;
            if (rand() % 2 && e - s >= 2) {
                int64_t bs = s + rand() % (e - s - 1);
                b[nb++] = (struct span){bs, bs + 1 + rand() % (e - bs)};
            }
        }
        int64_t lo = rand() % 10, hi = lo + rand() % 60, want = 0;
        for (int64_t x = lo; x < hi; x++) {
            int K = 0, B = 0;
            for (int i = 0; i < nk; i++)
                K += k[i].start <= x && x < k[i].end;
            for (int i = 0; i < nb; i++)
                B += b[i].start <= x && x < b[i].end;
            want += K > 0 && B >= K;
        }
        bad = barrier_idle(NULL, k, (size_t)nk, b, (size_t)nb, lo, hi) != want;
    }
    CHECK(!bad);
    /* two GPUs: one waits 2-4 under the other's kernel 0-10: not idle */
    struct span k2[2] = {{0, 10}, {1, 6}}, b2[1] = {{2, 4}};
    CHECK(barrier_idle(NULL, k2, 2, b2, 1, 0, 100) == 0);
    struct span k1[2] = {{0, 5}, {6, 10}}, b1[2] = {{1, 3}, {7, 12}};
    CHECK(barrier_idle(NULL, k1, 2, b1, 2, 0, 9) == 2 + 2); /* one GPU: the waits, clipped */
}

int main(void)
{
    durations_print();
    merged_workers();
    idle_causes();
    sequential_story();
    runs_and_forms();
    json_wrapped();
    devices();
    bad_data();
    parser();
    fast_path_matches_reference();
    native_equals_text();
    review_fixes();
    handoff_not_concurrency();
    cpu_from_timing();
    cpu_from_samples();
    cpu_advice_agrees();
    abandoned_units();
    options_per_run();
    mem_append();
    barrier_idle_counts();
    loaded_free(&L);
    return check_done("analyze");
}
