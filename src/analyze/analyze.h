/*
 * analyze.h -- where the GPU's time went: the definitions the README gives
 * ("How to read it"; docs/json.md and docs/cli.md state each rule) applied
 * to one run of units.
 *
 * busy      union of [GPU_START, GPU_END] per device, merged, never summed
 * window    [first GPU_START, last GPU_END] per device
 * idle      window - busy, each instant given one cause, first match wins:
 *           prep, queue, synthesis, no_work (they add up to idle exactly)
 * bottleneck, effective GPU time per unit, advice, throughput, stages.
 *
 * All times are int64 nanoseconds here; reports print seconds.
 */
#ifndef ANALYZE_H
#define ANALYZE_H

#include "model.h"
#include "phase.h"
#include "sort.h"

enum { ST_SYNTHESIS, ST_HANDOFF, ST_QUEUE, ST_PREP, ST_GPU, ST_N };
enum { CAUSE_PREP, CAUSE_QUEUE, CAUSE_SYNTHESIS, CAUSE_NO_WORK, CAUSE_N };
/* BN_CPU: the cores (kind cores, or from timing alone); BN_MEMORY and
 * BN_WAITING: the other kinds of contention (analyze_cpu.c) */
enum { BN_NONE, BN_GPU, BN_SYNTHESIS, BN_DISPATCH, BN_INPUT, BN_CPU, BN_GPU_PHASE, BN_MEMORY, BN_WAITING, BN_N };

extern const char *const stage_names[ST_N];
extern const char *const cause_names[CAUSE_N];
extern const char *const bottleneck_names[];

struct stage_stats {
    uint64_t count;
    double mean, p50, p90, p99, max; /* ns */
};

struct gap {
    int64_t start, end;
    int64_t by_cause[CAUSE_N];
};

/* A stretch of idle time with one cause (the views draw these). */
struct idle_seg {
    int64_t start, end;
    int cause;
};

/* One stream of a device (runs whose workers are streams: a PyTorch
 * trace's), by HTA's idle-time breakdown (analyze_stream.c). */
struct stream_result {
    int32_t stream;
    uint64_t ops;        /* its operations (units) */
    int64_t busy;        /* the union of its operations, ns */
    int64_t idle;        /* HTA's idle: the sum of its gaps = host_wait + kernel_wait + other */
    int64_t host_wait;   /* gaps whose operation's launch began after the previous one ended */
    int64_t kernel_wait; /* the other gaps under consecutive_kernel_delay */
    int64_t other;       /* the rest */
};

struct device_result {
    int32_t device;
    int32_t *workers; /* sorted, distinct */
    size_t nworkers;
    uint64_t units;   /* complete, consistent units proved on it */
    int64_t busy, window_start, window_end, idle, fill; /* fill < 0: no SYNTH_START to count it from */
    int64_t by_cause[CAUSE_N];
    struct gap *gaps; /* in time order (NULL unless KEEP_GAPS) */
    size_t ngaps;
    int64_t longest_gap;
    struct idle_seg *segs; /* every idle stretch by cause, in time order (none unless KEEP_SEGS) */
    size_t nsegs, segs_cap;
    double utilization;
    double gpu_per_unit; /* g: busy / units, ns */
    double prep_host;    /* mean prep of the units picked up while the device was idle: the
                          * workers' own host time, without waiting for the device (ns; 0: none) */
    int has_kernel;      /* its units have kernel phases */
    int64_t kernel_busy; /* the union of their kernel phases within the window */
    double kernel_utilization; /* kernel_busy / window; NAN without kernel phases */
    int has_driver;            /* the driver's readings cover some of the window (analyze_gpu.c) */
    double driver_utilization; /* their time-weighted mean, 0-1 */
    double driver_coverage;    /* the share of the window they cover */
    uint64_t driver_readings;
    struct stream_result *streams; /* by stream number (none unless the run's workers are streams) */
    size_t nstreams;
};

/* Phases inside the stages (analyze_phase.c; phase.h defines them). */
#define PHASE_UNACCOUNTED UINT32_MAX /* the row of the GPU phase that no sub-phase covers */
struct phase_row {
    uint32_t name; /* its START event's name (the model's strings), or PHASE_UNACCOUNTED */
    int within;    /* WITHIN_* */
    struct stage_stats st;
    double total;  /* ns, summed over its occurrences */
    double share;  /* total over the enclosing phase's total (every unit that has it) */
    int parent;    /* the row of the phase that encloses it (duration lines' nesting), or -1 */
    int depth;     /* parents above it */
};
/* The GPU phase's critical path, from duration lines (durations.h): per
 * unit, the kernels (gpu_total) against the host work on the call's path
 * (prep_msm, then b_g2_msm, on a helper thread from before the lock). */
struct crit_path {
    int known;         /* the run has gpu_total and prep_msm phases */
    double kernels;    /* gpu_total's mean, ns */
    double barrier;    /* barrier_wait's mean: inside gpu_total, the GPU waits for prep_msm */
    double prep, bg2;  /* prep_msm's and b_g2_msm's means */
    double barrier_busy; /* barrier_wait's time with no kernel computing (barrier_idle), for the
                          * bottleneck rule (GPU idle) */
    int host_bound;    /* prep + bg2 outlast the kernels' own work (kernels - barrier) */
};
struct mark_row {
    uint32_t name;
    uint64_t count;
};
/* Stage times of the units of one kind (the attribute kind=). */
struct kind_row {
    const char *kind; /* its bytes (klen), or NULL: units with no kind */
    size_t klen;
    uint64_t units, completed;
    struct stage_stats stage[ST_N];
};
/* A duration the daemon reported (synth_ms=, gpu_ms=) against the
 * timestamps.  The daemon times work that lies between the two records
 * (cuzk: synthesize_auto inside SYNTH_START..SYNTH_END, after the blocking
 * pool's wait and the circuit's build), so the reported duration may be
 * shorter than the records' interval but never longer: longer by over 5%
 * and over 1 ms (the field's own precision) disagrees; shorter by as much
 * is time outside the work the daemon times, counted, not a warning. */
#define REPORTED_TOLERANCE 0.05
struct reported_check {
    uint64_t checked, disagree;
    uint64_t first_line;   /* the first disagreeing unit's detail */
    double first_reported, first_timed; /* ns */
    uint64_t outside;      /* units whose interval exceeds the reported by over the tolerance */
    double outside_ns;     /* interval - reported, summed over those units */
};
struct phase_result {
    struct phase_row *rows; /* by within, then name (owned) */
    size_t nrows;
    struct mark_row *marks; /* by name (owned) */
    size_t nmarks;
    int has_kernel;         /* some device has kernel phases */
    /* devices whose kernel phases (from duration lines) are in under 90% of
     * their units' GPU phases: the units that have them, and all */
    uint64_t kernel_units_partial, gpu_units_partial;
    /* over the devices that have it, from duration lines: the units whose
     * GPU phase has no kernel (its call not given) and the units with a
     * GPU phase: their kernels count as idle, so the figure is a floor */
    uint64_t kernel_units_missing, gpu_units_kernel;
    int64_t kernel_missing_busy; /* those units' GPU phases, summed: what their kernels can add at most */
    int64_t kernel_busy, kernel_window; /* over the devices with kernel phases */
    double kernel_utilization;          /* NAN: none */
    int64_t gpu_busy_kernel_devs;       /* those devices' GPU-phase busy time */
    /* the partial devices' kernel time too, for the bottleneck rule alone:
     * there it is a floor, as kernel_missing_busy makes one (the verdict
     * that the floor and the ceiling both give, else the GPU phase's) */
    struct {
        int64_t kernel_busy, kernel_window, gpu_busy, missing_busy;
    } partial;
    struct kind_row *kinds; /* when the run holds two kinds or more (owned) */
    size_t nkinds;
    struct reported_check synth_ms, gpu_ms;
    struct crit_path crit;
};

/* Stage time by concurrency: the units whose span saw k syntheses at once
 * (the mean count over the span, rounded; for a synthesis itself included,
 * for a GPU phase the syntheses beside it plus one). */
struct conc_row {
    int k;
    uint64_t units;
    double mean;      /* ns */
    const char *kind; /* when the run mixes kinds: the units' kind= (rows by kind, then k); else NULL */
    size_t klen;
};

/* The CPU section (analyze_cpu.c): what the cores gave each role, and
 * whether contention limits throughput (the `cpu` bottleneck). */
enum { CPU_SRC_TIMING, CPU_SRC_SAMPLES };
struct cpu_role {
    int known;         /* sampled, and the role ran */
    double used;       /* share of a core used while in the role */
    double wanted;     /* used + run-queue wait; NAN when the wait is unknown */
    double starvation; /* 1 - used / wanted; NAN when wanted is unknown or under CPU_MIN_WANTED */
};
#define CPU_MIN_WANTED 0.1 /* a role wanting less than a tenth of a core is not judged */
#define CPU_STARVED 0.2    /* starvation from which a role waits for a core */
#define CPU_SLOWER 1.25    /* timing: a stage this much slower beside others than alone ... */
#define CPU_MIN_UNITS 3    /* ... over at least this many units on each side */
/* CPU time per unit by concurrency (from samples): the units of one k,
 * each measured on the thread that ran its stage; means per unit, s. */
struct cpu_row {
    int k;
    uint64_t units;
    double cpu_s;  /* CPU time */
    double want_s; /* CPU time plus run-queue wait */
    double wall_s; /* the stage's time */
};
/* The kind of contention, where samples tell it (docs/cli.md "The kinds of
 * contention"): the extra time of a unit beside others, split into more
 * run-queue wait (cores), more CPU time (memory: bandwidth or caches) and
 * more time off the CPU (waiting: a lock, I/O, page faults). */
enum { KIND_NONE, KIND_CORES, KIND_MEMORY, KIND_WAITING };
extern const char *const kind_names[];
/* A role's extra time beside others (k >= 2) over alone (k = 1), per unit,
 * from its cpu_rows, over CPU_MIN_UNITS units or more on each side. */
struct cpu_extra {
    int known;
    double slower;               /* wall beside over wall alone */
    double cpu_grows;            /* CPU time per unit beside over alone */
    double alone_s, beside_s;    /* the stage's mean time per unit, s */
    double wall, cpu, wait, off; /* extra s per unit: wall = cpu + wait + off */
    int kind;                    /* the largest part (KIND_*) */
};
struct cpu_result {
    int source;                      /* CPU_SRC_* */
    int kind;                        /* KIND_* of the contention that limits (samples only) */
    struct cpu_row *synth_cpu_by, *gpu_cpu_by; /* by k, ascending (owned; samples only) */
    size_t nsynth_cpu_by, ngpu_cpu_by;
    struct cpu_extra synth_extra, gpu_extra;
    int synth_kind, gpu_kind;        /* KIND_* of each role (KIND_NONE: not contended) */
    struct cpu_role synth, gpu;      /* from samples: synthesis threads, GPU workers */
    struct conc_row *synth_by, *gpu_by; /* by k, ascending (owned) */
    size_t nsynth_by, ngpu_by;
    double synth_slower, gpu_slower; /* timing: mean at k >= 2 over mean at k = 1; NAN: too few units */
    int synth_contended, gpu_contended; /* by the rule of the source */
    int contention;                  /* either */
    double gpu_at_once;              /* mean GPU phases at once over the window (for reserving cores) */
};

#define ADVICE_GROWTH_PTS 32 /* the growth model's points the advice carries: all (sim.h's SIM_GROWTH_MAX) */
struct advice {
    int valid;               /* needs synthesis times and a device with units */
    double synth_mean;       /* s, ns */
    double rate;             /* sum over devices of 1/g, units per ns */
    int current;             /* synthesis concurrency seen (its maximum) */
    int needed;              /* ceil(s * rate): the concurrency that saturates */
    double predicted_now;    /* min(1, current / (s * rate)) */
    double predicted_needed; /* min(1, needed / (s * rate)) */
    double worker_cap;       /* the most the workers can feed the devices, as a share of the devices'
                              * rate: sum of min(1/g, W/(prep + g)) over sum of 1/g (<= 1) */
    const char *model;       /* "formula", or "simulation" */
    int contention;          /* simulation: CPU contention 0 left out, 1 fitted, 2 measured */
    /* with the cpu bottleneck (never more syntheses): what would fit the
     * cores, and the simulation at the current concurrency and one lower */
    double cores;            /* the cores of the machine that ran it; 0: unknown */
    double synth_cpu_unit;   /* core-ns a synthesis wanted per unit */
    double host_cpu_unit;    /* core-ns the GPU workers wanted per unit */
    double synth_cpu_target; /* core-ns per synthesis that would fit at the GPU's rate; <= 0: none */
    int reserve_cores;       /* cores to reserve for the GPU workers */
    double demand;           /* cores the pipeline wants at once: its syntheses and GPU phases */
    int sim_done;            /* the two simulated points below are set */
    double sim_util[2], sim_spj[2]; /* [0]: at current, [1]: at current - 1 (ns) */
    /* with the gpu_phase bottleneck, where the simulation holds the device
     * for the kernels only (sim.h, kernel_model): the GPU workers per
     * device now, and the simulation at them [0] and at one more [1] */
    int workers_done, workers_now;
    double workers_util[2], workers_spj[2];
    /* with memory or waiting, simulated: the model of work that grows with
     * the syntheses at once that the simulation used (docs/simulate.md) */
    int growth_n;    /* its points shown here (0: the simulation had none) */
    int growth_role; /* 0: synthesis's, 1: the GPU phase's */
    int growth_kind; /* KIND_MEMORY: CPU time per unit; KIND_WAITING: time per unit off the run queue */
    int growth_k[ADVICE_GROWTH_PTS];
    double growth_w[ADVICE_GROWTH_PTS];   /* the work at k over that at growth_k[0] */
    double growth_slope;                  /* beyond the last point, per synthesis */
    double growth_util[2], growth_spj[2]; /* simulated at needed [0] and current [1] (ns) */
};

struct run_result {
    const struct run *run;
    const char *kernel_phase; /* the kernel phase's name in this run (analyze_opts) */
    uint64_t jobs, jobs_completed, units, in_flight, inconsistent;
    struct device_result *dev;
    size_t ndev;
    struct stage_stats stage[ST_N];
    int64_t start;           /* earliest SYNTH_START (or event) of the run */
    int64_t busy, window, idle, by_cause[CAUSE_N]; /* over all devices */
    double utilization;      /* busy / window over all devices */
    int bottleneck;
    /* where some kernel time is a floor (calls not given): the kernels'
     * share of the window at that floor (NAN: none is), and whether the
     * floor and its ceiling gave two verdicts, so that the GPU phase's
     * decided (bottleneck_rule) */
    double kernel_floor;
    int bottleneck_on_phase;
    double s_per_job, steady_s_per_job; /* ns; negative: undefined */
    int synth_max;
    double synth_mean_active; /* mean syntheses in flight over the window; NAN: no window */
    int has_synth_start;      /* some unit has SYNTH_START: s per job and the fill are defined */
    struct cpu_result cpu;
    struct phase_result phase;
    int has_driver;            /* some device has the driver's readings */
    double driver_utilization; /* over those devices' readings */
    double driver_coverage;    /* the share of those devices' windows the readings cover */
    uint64_t driver_readings;
    int driver_source;         /* GPU_OBS_*: the readings' kind */
    struct advice advice;
    /* units that never finished a stage and stopped holding its cause
     * before the run's last GPU_END (analyze_abandon.c), by the state
     * they were left in (CAUSE_*: prep, queue, synthesis) */
    uint64_t abandoned, abandoned_by[CAUSE_N];
    uint32_t abandoned_first; /* the first of them (r->units) */
};

/* What the caller chooses of an analysis: passed to each one, never kept
 * by it, so that nothing of one run's options is left for the next. */
enum { KEEP_GAPS = 1, KEEP_SEGS = 2, KEEP_ALL = KEEP_GAPS | KEEP_SEGS };
struct analyze_opts {
    /* the kernel phase (`--kernel-phase`), kept as a pointer: the string
     * must outlive the results.  NULL: KERNEL, or gpu_total where the run
     * has duration lines placed (durations.h) */
    const char *kernel_phase;
    /* what of each device's gaps (the list; ngaps counts them all the
     * same) and idle stretches by cause to keep (KEEP_*): only --gaps and
     * the views show them, and on a big run they are some 20 MB that a
     * report without them need not touch */
    unsigned keep;
    /* HTA's consecutive_kernel_delay (`--consecutive-kernel-delay`), in the
     * trace's own unit, µs, as HTA's code compares it; unset: HTA's 30 */
    int kernel_delay_set;
    double kernel_delay_us;
    /* how a PyTorch trace's CPU ranges become stages (`--stage`), for the
     * reading before the analysis (load.h); NULL: none */
    const struct stage_map *stages;
};

/* Can v be a phase's NAME (of NAME_START/NAME_END), as --kernel-phase
 * takes it: 1 to 64 letters, digits, '_', '.', '-' or ':'. */
int phase_name_ok(const char *v);

/* What the bottleneck rule decides on: a run's totals over its devices
 * (ns), the kernel figures over the devices whose kernel time is known,
 * and barrier_wait's total where the GPU phase's critical path is known
 * (else 0).  analyze fills it from its results; watch from its own
 * settled totals (live.h), so that the two decide alike. */
struct bn_totals {
    int64_t busy, window, by_cause[CAUSE_N];
    int has_kernel;
    int64_t kernel_busy, kernel_window, busy_kernel_devs;
    double barrier_busy;
    /* the GPU phases with no kernel where the kernel time is a floor (their
     * calls not given): what their kernels can add at most.  Where the
     * rule decides otherwise at that ceiling than at the floor, it judges
     * on the GPU phase, as where the kernel time is not known. */
    int64_t kernel_missing_busy;
};
/* The bottleneck (BN_*) of those totals, with c's CPU contention;
 * *on_phase (may be NULL): 1 where the kernel time is a floor and the
 * verdicts at it and at its ceiling differ, so that the GPU phase's is
 * given. */
int bottleneck_rule(const struct bn_totals *t, const struct cpu_result *c, int *on_phase);

/* The time within [lo, hi) that a device's kernels k[0..nk) spend waiting
 * at barrier_wait, b[0..nb), with none of them computing: each barrier
 * lies in its own kernel, so the kernels that compute at an instant are
 * those running less those waiting.  On one GPU (one mutex) the kernels
 * are disjoint, and this is the barriers' sum; on several GPUs that the
 * log merges into one device, one GPU's wait under another's kernels is
 * not idle.  Reorders neither array (where both are in order of start and
 * apart, as on one GPU, one pass over them); -1 when out of memory. */
int64_t barrier_idle(struct scratch_pool *sp, const struct span *k, size_t nk, const struct span *b, size_t nb,
                     int64_t lo, int64_t hi);

/* Analyse one run with the options o (NULL: the defaults, keeping
 * everything); 0, or -1 when out of memory. */
int analyze_run_opts(const struct run *r, const struct analyze_opts *o, struct run_result *out);
/* The same with the defaults. */
int analyze_run(const struct run *r, struct run_result *out);
void run_result_free(struct run_result *res);

/* Is p, a phase of a unit of res's run, the kernel (res->kernel_phase, in
 * the GPU phase)? */
struct uphase;
int phase_is_kernel(const struct run_result *res, const struct uphase *p);
/* A phase row's name ("unaccounted" for the GPU phase's uncovered part). */
const char *phase_label(const struct run *r, const struct phase_row *row, size_t *len);
/* Is a row of res->phase the kernel phase's (the same rule)? */
int phase_row_is_kernel(const struct run_result *res, const struct phase_row *row);

/* The definitions, one unit at a time (README.md, "How to read it";
 * docs/json.md), shared by the analysis and by watch (src/live/), so that
 * both count every instant alike.  Each returns 1 and sets *s when the
 * unit has the span (end OPEN: to the end of the log), 0 when not.  A unit
 * that is not consistent (U_CONTRA) is left out of everything: callers
 * check unit_consistent first. */
static inline int unit_consistent(const struct unit *u)
{
    return !(u->flags & U_CONTRA);
}
/* Does unit u have event e (EV_*)? */
static inline int unit_has(const struct unit *u, int e)
{
    return u->t[e] != T_NONE;
}
/* When the unit was ready for the GPU: CHAN_SEND, else SYNTH_END (T_NONE:
 * neither). */
static inline int64_t unit_ready(const struct unit *u)
{
    return unit_has(u, EV_CHAN_SEND) ? u->t[EV_CHAN_SEND] : u->t[EV_SYNTH_END];
}
int unit_busy_span(const struct unit *u, struct span *s);        /* [GPU_START, GPU_END] */
int unit_prep_span(const struct unit *u, struct span *s);        /* the cause prep on its device */
int unit_queue_span(const struct unit *u, struct span *s);       /* the cause queue */
int unit_synth_cause_span(const struct unit *u, struct span *s); /* the cause synthesis */
/* A unit's time in stage ST_* (stage_names), when it has both ends. */
int unit_stage(const struct unit *u, int stage, int64_t *v);

/* Every idle instant's cause, first match wins: prep of the device, then
 * the queue and synthesis sets shared by all devices.  The three sets are
 * sorted and merged (sort_spans, merge_spans); idle_attribute walks
 * [a, b) forward (each call at or after the last one's b), adds each
 * cause's time to by_cause, and calls seg (when given) for each stretch. */
struct cursor {
    const struct span *s;
    size_t n, i;
};
struct idle_sets {
    struct cursor prep, queue, synth;
};
void idle_sets_init(struct idle_sets *c, const struct span *prep, size_t np, const struct span *queue,
                    size_t nq, const struct span *synth, size_t ns, int64_t from);
int idle_attribute(struct idle_sets *c, int64_t a, int64_t b, int64_t by_cause[CAUSE_N],
                   int (*seg)(void *ctx, int64_t a, int64_t b, int cause), void *ctx);

/* A unit's synthesis as the semaphore bounds it: [SYNTH_START, SYNTH_END),
 * or to its next event present when SYNTH_END is missing; 0 when it has no
 * SYNTH_START, the span is empty, or it never ended (no later event). */
int synth_span(const struct unit *u, struct span *s);

/* The CPU section of an analysed run (analyze_cpu.c): samples from a
 * native trace, stage time by concurrency from the timing; sets
 * res->cpu.  st and en: the synth_span()s of the consistent units, their
 * starts and ends each sorted (analyze_run's, for the concurrency).  0, or
 * -1 when out of memory.  Here and below, sp: the analysis's scratch pool
 * (mem.h; NULL: none). */
int analyze_cpu(struct scratch_pool *sp, const struct run *r, struct run_result *res, int64_t *st, int64_t *en,
                size_t nspans);
/* Fill st from the n values v (reordered). */
void stage_fill(struct scratch_pool *sp, struct stage_stats *st, int64_t *v, size_t n);
/* The stage statistics of the units idx[0..n) (idx NULL: the first n). */
int stages_of(struct scratch_pool *sp, const struct run *r, const uint32_t *idx, size_t n, struct stage_stats *out);
/* Stage s (ST_*) of the units r->units[idx[0..n)] (idx NULL: the first
 * n), using v (room for n) as scratch. */
void stage_of(struct scratch_pool *sp, const struct run *r, const uint32_t *idx, size_t n, int s, int64_t *v,
              struct stage_stats *out);

/* The driver's utilization (NVML's readings of a native trace) over each
 * device's window (analyze_gpu.c): sets the devices' and res's driver
 * figures, when there are readings. */
void analyze_gpu(const struct run *r, struct run_result *res);

/* HTA's idle-time breakdown per stream of each device, for a run whose
 * workers are streams (analyze_stream.c): sets the devices' streams.  0,
 * or -1 when out of memory. */
#define HTA_KERNEL_DELAY_US 30.0
int analyze_streams(const struct run *r, const struct analyze_opts *o, struct run_result *res);

/* Phases, marks, kernel utilization, kinds and reported durations of an
 * analysed run (analyze_phase.c): sets res->phase and the devices' kernel
 * figures.  0, or -1 when out of memory. */
int analyze_phase(struct scratch_pool *sp, const struct run *r, struct run_result *res);
void phase_result_free(struct phase_result *p);

/* The synthesis concurrency measured fastest: the k whose syntheses
 * complete most per unit of time (k over their mean time at k), over
 * CPU_MIN_UNITS units or more; 0: none. */
int cpu_fastest(const struct cpu_result *c);

/* The cpu bottleneck's advice figures (cores: 0 unknown). */
void advise_cpu(struct run_result *res, double cores);

/* OPEN: a span that lasts to the end of the log. */
#define OPEN INT64_MAX

/* Units that never finish a stage (analyze_abandon.c; docs/json.md, "Units
 * that never finish a stage"): a unit with nothing after its last event
 * stops holding its idle cause once it has lasted as long as the longest
 * of its stage completed by then, and a prep also at its worker's next
 * pickup or start. */
/* The state a unit was left in with nothing after it: CAUSE_PREP (picked
 * up), CAUSE_QUEUE (ready), CAUSE_SYNTHESIS (started); *from: when it
 * began.  -1: none (it reached the GPU, or is inconsistent). */
int unit_open_state(const struct unit *u, int64_t *from);
/* The stage (ST_*) whose completions bound a state (CAUSE_*). */
int open_stage(int state);
/* A unit's completed stage: when it completed and how long it took. */
int unit_stage_done(const struct unit *u, int stage, int64_t *at, int64_t *len);
/* The longest of a stage completed by each instant: points p[i] with
 * start = a completion time and end = the longest completed at or before
 * it, both increasing. */
struct stair {
    struct span *p;
    size_t n, cap;
};
/* A completion (watch adds them as they come); 0, or -1 out of memory. */
int stair_add(struct stair *s, int64_t at, int64_t len);
/* The first T >= from with T - from >= the longest completed at or before T. */
int64_t stair_end(const struct stair *s, int64_t from);
void stair_free(struct stair *s);
/* A worker's pickups and starts, for "the worker's next pickup or start". */
struct worker_move {
    int32_t device, worker;
    int64_t t;
};
/* A unit's moves (at most 2, into m; none without worker= or when
 * inconsistent); their count. */
size_t worker_moves_of(const struct unit *u, struct worker_move *m);
/* Sort by device, worker, time. */
void worker_moves_sort(struct worker_move *m, size_t n);
/* In sorted m[0..n): the worker's first move after t on device (OPEN: none). */
int64_t worker_move_next(const struct worker_move *m, size_t n, int32_t device, int32_t worker, int64_t t);
/* Where a state that began at `from` stops holding its cause: stair_end
 * on its stage's stair, and for a prep worker_next (OPEN: none) if sooner. */
int64_t abandon_end(int state, int64_t from, const struct stair *st, int64_t worker_next);

/* The run's units left in a state, in unit order, each with its end. */
struct abandoned {
    uint32_t unit;
    int state; /* CAUSE_* */
    int64_t end;
};
struct abandon_set {
    struct abandoned *a;
    size_t n;
    /* abandoned: those whose state stopped before the run's last GPU_END
     * (the run went on without them) */
    uint64_t count, by_state[CAUSE_N];
    uint32_t first; /* the first of them */
};
/* last_end: the run's last GPU_END.  0, or -1 out of memory. */
int abandon_find(struct scratch_pool *sp, const struct run *r, int64_t last_end, struct abandon_set *ab);
/* Cut unit's span s (when open) where its state stops holding its cause;
 * 1 when something is left of it. */
int abandon_cut(const struct abandon_set *ab, uint32_t unit, struct span *s);
void abandon_free(struct abandon_set *ab);

#endif /* ANALYZE_H */
