/*
 * sim.h -- `waterfall simulate`: a discrete-event simulation of the
 * pipeline (jobs -> synthesis pool -> bounded channel -> GPU workers ->
 * devices), with CPU contention as processor sharing, calibrated from a
 * trace (sim_fit.c) or from parameters.
 *
 * The model, in the terms of the analysis (README, "How to read it"):
 *  - a job arrives (all at once, or `rate` jobs per second) and splits into
 *    `partitions` units, synthesized in arrival order;
 *  - at most `synth_concurrency` syntheses run at once (a semaphore); a
 *    unit keeps its permit until the channel accepts it (CHAN_SEND);
 *  - the channel holds at most `channel` units (0: a rendezvous);
 *  - `gpu_workers` workers per device take units from the channel: a free
 *    worker takes the oldest unit after a dispatch latency (GPU_PICKUP;
 *    the unit counts as waiting in the queue until then); each device proves one unit at a time (its effective
 *    time per unit, g = busy / units, which folds any overlap of workers);
 *    a picked-up unit waits for its device, then a short host-side prep
 *    latency runs (GPU_START), then the device time (GPU_END);
 *  - CPU contention: processor sharing of `cores` cores among the tasks
 *    that want them.  A synthesis can use `synth_threads` cores, a GPU
 *    worker's prep `host_threads`, and while its device proves, the
 *    worker keeps `host_share` x `host_threads` busy.  When they want more
 *    than `cores`, every task gets an equal share x of the cores (x times
 *    `host_weight` for a GPU worker's work: the scheduler may favour the
 *    thread that sleeps and wakes), or all it can use when that is less
 *    (water-filling), and runs at share / wanted of its speed: a task that wants 1 core of 2 while another
 *    wants 4 is not slowed; the other is.  Device time slows with its
 *    host work.  cores = 0: no contention.
 *
 * Times in the parameters are seconds of work at full speed, per unit at
 * `calib_partitions` partitions per job; other partition counts scale
 * them so that a job's work is the same.
 */
#ifndef SIM_H
#define SIM_H

#include "analyze.h"
#include "model.h"

#include <stddef.h>
#include <stdint.h>

/* The second contention term: work that grows with the syntheses running
 * at once, as the trace measured it (sim_growth.c; docs/simulate.md, "Work
 * that grows beside others").  Where the analysis names a role's kind of
 * contention `memory`, the same work takes more CPU time beside others
 * (memory bandwidth, caches): w(k) is the role's CPU time per unit at k
 * over that at the least k measured.  Where it names `waiting`, CPU time
 * stays flat and the units wait off the CPU: w(k) is the role's time per
 * unit less its run-queue wait (the cores' part, which the processor
 * sharing models) at k over that at the least k.  A task at k runs
 * 1 + share x (w(k) - 1) times as long: only the part of its time that
 * grows is stretched (a GPU phase is mostly device time).  k counts the
 * syntheses running, a synthesis itself included; for a GPU phase, those
 * beside it plus one, as the analysis groups them. */
#define SIM_GROWTH_MAX 32      /* measured concurrencies kept (the least ones) */
#define SIM_GROWTH_MIN_UNITS 3 /* a concurrency needs this many units to be a point:
                                * CPU_MIN_UNITS, the analysis's own bar for the kind */
struct sim_growth {
    int n;                    /* points; 0: no growth (the term is off) */
    int kind;                 /* KIND_MEMORY or KIND_WAITING: what w measures */
    int k[SIM_GROWTH_MAX];    /* concurrencies, ascending */
    double w[SIM_GROWTH_MAX]; /* w(k[i]) >= 1, non-decreasing, w(k[0]) = 1 */
    uint64_t units[SIM_GROWTH_MAX];
    double slope; /* beyond k[n-1]: w grows by this per synthesis (>= 0) */
    double share; /* 0..1: the share of the task's time that grows */
};

/* A distribution of per-unit times (seconds): resampled from measured
 * values, or lognormal with a mean and a coefficient of variation. */
struct sim_dist {
    double *v; /* measured values to resample (owned), or NULL */
    size_t n;
    double mean, cv; /* the parametric form, when v is NULL */
};

/* One unit's GPU phase under the kernel model, seconds at full speed from
 * its GPU_START.  The worker's thread runs `pre` (host work; a wait for the
 * device left out), then, holding the device, kernels k1; then the
 * kernels wait at a barrier for the helper thread's first part hp (cuzk:
 * prep_msm, which starts at GPU_START), then run k2 and release the
 * device.  The helper then runs hq (b_g2_msm).  `post` follows the later
 * of the kernels' end and the helper's, to GPU_END.  Without a barrier
 * the helper runs beside the kernels, and k2 = 0. */
struct sim_kparts {
    double pre, k1, k2, hp, hq, post;
    int barrier; /* k2 waits for hp (cuzk's barrier_wait); 0: k2 follows k1 */
};

struct sim_params {
    /* the workload */
    uint64_t jobs;
    int partitions;
    double rate; /* jobs per second; 0: all at once */
    /* the pipeline */
    int synth_concurrency, gpu_workers, devices, channel;
    /* the CPU */
    double cores;        /* 0: unlimited (no contention) */
    double synth_threads; /* cores one synthesis uses */
    double host_threads;  /* cores one GPU worker's host work uses */
    double host_share;    /* 0..1: the share of device time that is host CPU work */
    double host_weight;   /* a GPU worker's share of the cores against a synthesis's
                           * (weighted sharing; 0 or 1: equal) */
    /* work that grows with the syntheses at once (n = 0: none), of a
     * synthesis and of a GPU worker's proof */
    struct sim_growth synth_growth, gpu_growth;
    /* per-unit times at full speed */
    struct sim_dist synth, prep, gpu;
    /* The device held for the kernels only (kernel_model; sim_fit.c sets
     * it from a trace whose units have kernel phases): each unit's GPU
     * phase is drawn whole from kparts[0..nkparts) (owned), and a unit
     * waits for its device only for its kernels, so another worker's host
     * work runs beside them, as under cuzk's device mutex.
     * worker_at_unlock: a worker takes its next unit when its kernels end
     * (cuzk's split API: the trace's workers overlapped their own GPU
     * phases), else at GPU_END.  kernel_model = 0: a device holds a unit's
     * whole GPU phase for `gpu`, as described above.  The simulated units
     * get KERNEL phases, so their analysis has a kernel utilization. */
    int kernel_model, worker_at_unlock;
    struct sim_kparts *kparts;
    size_t nkparts;
    struct sim_dist pickup; /* dispatch latency: a free worker to GPU_PICKUP */
    int calib_partitions;
    uint64_t seed;
    /* The trace's own workload (sim_calibrate), used instead of `jobs`
     * jobs of `partitions` units at `rate` while set: its completed jobs
     * in the order they started, job j with job_units[j] units (a log may
     * mix partition counts), arriving job_at[j] seconds after the first
     * (NULL: all at once, a backlog).  `jobs` is their count and
     * `partitions` the mean, rounded, for the report; the per-unit times
     * are the trace's as they are.  Owned by the calibration's params
     * (sim_params_free); a point's copy only points to them. */
    uint32_t *job_units;
    double *job_at;
};

/* The units a setting simulates: the trace's jobs' or jobs x partitions. */
uint64_t sim_units(const struct sim_params *p);
/* Leave the trace's workload for jobs x partitions at rate (a point that
 * sets --jobs, --partitions or --rate); does not free it. */
void sim_uniform(struct sim_params *p);

/* What one simulation gives: a run in the model's terms (units with their
 * six events), analysed with the same code as `waterfall analyze`. */
struct sim_out {
    struct run run;
    struct run_result res;
    char *ids; /* the job ids' bytes */
    struct strtab *strs; /* the KERNEL phases' names (kernel_model), or NULL */
    uint64_t events; /* simulation events processed */
    double sim_s, analyze_s; /* seconds spent simulating, and analysing */
    int too_long; /* sim_run failed: the simulated time would pass SIM_MAX_S
                   * (the setting's fault; 0: out of memory) */
};

/* The slowdown of each kind of task (synthesis, prep, proof: >= 1) when
 * n[k] of each run at once: the processor sharing of the cores, times the
 * growth of the work with the syntheses at once (n[0]). */
void sim_slowdowns(const struct sim_params *p, const int n[3], double f[3]);

/* The growth model from a role's CPU time per unit by concurrency (the
 * analysis's cpu_rows, ascending; kind: the role's KIND_*): g->n = 0 when
 * the kind is neither memory nor waiting, or fewer than two concurrencies
 * have SIM_GROWTH_MIN_UNITS units. */
void sim_growth_from_rows(const struct cpu_row *rows, size_t n, int kind, struct sim_growth *g);
/* w(k): interpolated between the points, extrapolated beyond the last
 * with its slope; 1 below the first, and where there is no model. */
double sim_growth_w(const struct sim_growth *g, double k);
/* The slowdown the growth gives a task at k: 1 + share x (w(k) - 1). */
double sim_growth_factor(const struct sim_growth *g, double k);
/* Does p hold a growth model (of either role)? */
int sim_has_growth(const struct sim_params *p);

/* Check the parameters: 0, or -1 with the message for the user in err
 * (it names the option). */
int sim_check(const struct sim_params *p, char *err, size_t errlen);

/* Simulate and analyse: 0, or -1 with the reason in err: out of memory,
 * or the simulated time would pass SIM_MAX_S (the nanosecond timestamps
 * would overflow; out->too_long says it was this, the setting's fault). */
#define SIM_MAX_S 9.0e9
int sim_run(const struct sim_params *p, struct sim_out *out, char *err, size_t errlen);
void sim_out_free(struct sim_out *out);
/* Free the simulated units, keep the figures (out->res; out->run's counts). */
void sim_out_drop_run(struct sim_out *out);
void sim_dist_free(struct sim_dist *d);
void sim_params_free(struct sim_params *p); /* its distributions */
double sim_dist_mean(const struct sim_dist *d);

/* The best of n settings by their s per job (spj, ns; <= 0: undefined):
 * the first whose s per job is within tol (0.01: 1%) of the least. */
size_t sim_best(const double *spj, size_t n, double tol);
/* The tolerance of a sweep's best and of the simulated advice: settings
 * within 2% of the least s per job count as equal, and the smallest wins.
 * Resampling a trace of tens of jobs moves s per job by a percent or two
 * from one seed to the next, so a finer rule lets noise pick. */
#define SIM_BEST_TOL 0.02

/* Calibration from an analysed run (sim_fit.c). */
struct sim_fit {
    int fitted;           /* the contention model was identified from the trace */
    int given;            /* the contention model is the user's (sim_calibrate's given) */
    int measured;         /* ... or from the threads' CPU time the recorder sampled */
    double synth_cpu_share, host_cpu_share; /* measured: the share of a core a synthesis
                                             * thread wanted while synthesizing, a GPU
                                             * worker's thread during device time (used +
                                             * run-queue wait; used alone when the wait is
                                             * unknown); < 0: not sampled */
    double trace_cores;   /* the cores the trace's machine had (an input) */
    double synth_threads, host_threads, host_share, host_weight;
    double r2_synth, r2_gpu; /* how much of the log-variance of stage times the model explains */
    double max_slowdown;  /* the largest slowdown the fitted model sees in the trace */
    size_t units_used;
    const char *why;      /* when not fitted: the reason */
    /* what the trace showed, for the defaults */
    int synth_max, workers_max, devices, partitions;
    uint64_t jobs;
    int channel_seen;     /* most units waiting in the channel at once */
    double rate;          /* jobs per second, when the trace's GPU waited for input; else 0 */
    /* the device model (sim_params kernel_model): the units whose GPU
     * phase held kernel phases, and the means of the split, seconds at
     * full speed; kernel_why: why the kernel model is not used although
     * the trace has kernel phases (NULL: it is, or there are none) */
    size_t kernel_units, helper_units; /* ... and those with a helper's host path (prep_msm) */
    size_t barrier_units;              /* ... and those whose kernels waited for it (barrier_wait over 1 ms) */
    double pre_mean, kernel_mean, helper_mean, post_mean; /* kernel_mean: over kernel_units */
    const char *kernel_why;
    /* the trace's workload (sim_params job_units): its completed jobs, */
    uint64_t units;              /* their units, */
    int parts_min, parts_max;    /* the fewest and most units of one, */
    uint64_t units_left_out;     /* and the units of the jobs that did not complete */
};

/* Fill p's distributions (and f) from a run; trace_cores: the cores of the
 * machine that recorded it (<= 0: the trace's own count, else this
 * machine's).  given: NULL, or the contention model to use
 * instead of a fit (its synth_threads, host_threads, host_share,
 * host_weight): the trace's times are divided by the slowdown it sees in
 * the trace.  Returns 0, or -1 with the reason in err: the trace has no
 * complete unit, or out of memory. */
int sim_calibrate(const struct run *r, const struct run_result *res, double trace_cores, int fit_contention,
                  const struct sim_params *given, struct sim_params *p, struct sim_fit *f, char *err,
                  size_t errlen);

/* The knobs a trace implies (its jobs, partitions, concurrency, workers,
 * devices, channel occupancy, arrival rate, fitted contention). */
void sim_trace_defaults(struct sim_params *p, const struct sim_fit *f);

/* The concurrency the simulator advises for an analysed run: fills
 * res->advice with model "simulation" (with the cpu bottleneck, its
 * figures at the current concurrency and one lower).  need_model: only
 * where a contention model is measured or fitted, else the advice is
 * left as it was (res->advice.model says which it is).  0, or -1 when the
 * simulation could not run (out of memory, no complete unit: the caller
 * says the advice is the formula's). */
int sim_advise(const struct run *r, struct run_result *res, double trace_cores, int need_model);

/* With the gpu_phase bottleneck: what one more GPU worker per device
 * would do, where the trace's kernel phases give the kernel model (its
 * host work inside the phase then runs beside another unit's kernels):
 * fills res->advice's workers_* (workers_done = 1).  0 (also where there
 * is no kernel model: nothing is set), or -1 when the simulation could
 * not run. */
int sim_advise_workers(const struct run *r, struct run_result *res, double trace_cores);

#endif /* SIM_H */
