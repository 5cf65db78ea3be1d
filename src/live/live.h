/*
 * live.h -- the definitions of `analyze`, applied while a log grows
 * (`waterfall watch`).
 *
 * Takes: the records of a log's lines (lines.h parses them) or of a
 * trace, in the order they were written.  Gives: settled totals (busy, idle by cause, units, stage
 * times) that only ever grow, the units in flight, and a snapshot of the
 * recent units as a run that `analyze_run` reads like any other.
 *
 * The settled horizon.  An instant t of device d is counted (busy, or idle
 * with its cause) once nothing that decides it can change any more:
 *   - every record up to t has been read: t is at least `slack` behind the
 *     latest time seen (lines from several threads reach a log slightly
 *     out of order); when the log has been quiet, or has ended, the slack
 *     is dropped;
 *   - t is inside d's window: a unit completed on d after t (the window
 *     ends at the latest GPU_END), and no unit still on d's GPU started at
 *     or before t (it may yet end, making t busy, or never end, leaving t
 *     out of busy);
 *   - no unit whose ready time is still open covers t: after SYNTH_END
 *     without CHAN_SEND, that time is synthesis (the handoff) if a
 *     CHAN_SEND follows and queue if none does;
 *   - no unit picked up without naming its device is in prep at t, when
 *     the run names devices (its GPU_START may name one);
 *   - no unit left in a state (picked up and not started, ready and not
 *     picked up, in synthesis and not ended) has lasted longer than the
 *     longest of its stage completed by t: analyze stops such a unit's
 *     cause there if nothing follows, and keeps it if its next event comes.
 *     Such a unit is judged left there, and holds nothing more, once its
 *     worker picks up or starts another unit (a prep), or once it has
 *     lasted twice the longest of its stage completed yet; a unit judged so
 *     that continues all the same is counted as late.
 * Each instant is counted once and never revised; at the end of a run
 * (the daemon restarted, or the log ended) the last ones are decided as
 * `analyze` decides them at the end of a log, so the totals then equal
 * those of `analyze` on the whole log.  A record that arrives behind the
 * horizon (later than the slack allows) still updates its unit but cannot
 * change what was counted: it is counted as late (records_late), and the
 * totals are exact while that count is 0.
 *
 * Memory: units are kept while in flight, until the horizon has passed
 * them, and then the last `keep` of them (for the view).
 *
 * Errors: 0, or -1 when out of memory (the layer's convention).
 */
#ifndef LIVE_H
#define LIVE_H

#include "analyze.h"
#include "dur_mux.h"
#include "model.h"
#include "scan.h"

#include <stddef.h>
#include <stdint.h>

#define LIVE_BINS 64     /* seconds of log time kept in bins: the last minute, and a few to spare */
#define LIVE_HIST_N 14   /* stage histogram buckets (le, in seconds), +Inf beyond */
extern const double live_hist_le[LIVE_HIST_N];

struct live_opts {
    int64_t slack_ns;  /* how far behind the latest time a record may come (default 2 s) */
    int64_t recent_ns; /* the "last minute" of the view and of the bottleneck (default 60 s) */
    size_t keep;       /* completed units kept for the view (default 200) */
    int one_run;       /* the input's clock never restarts (a recording): one run */
    const char *kernel_phase; /* the kernel phase's name (`--kernel-phase`; NULL: KERNEL) */
};

/* Lines of critical sections kept until the mux decides them: it decides by
 * DMUX_PENDING lines, and lines wait for their next record before. */
#define LIVE_MRING (2 * DMUX_PENDING)
/* Closed sections waiting for their unit, at most (then decided as they stand). */
#define LIVE_PEND_MAX 4096

/* A record as the live state reads it: what of a scan_rec it uses, and
 * its unit key's hash. */
struct live_rec {
    int64_t t_ns;
    uint64_t hash; /* of the job id and partition (live_rec_of) */
    const char *job, *name;
    uint32_t job_len, name_len;
    int32_t partition, worker, device;
    int16_t ev; /* EV_*, or EV_OTHER (name) */
    uint8_t queue, wall;
    uint8_t has_line; /* a record with its own ts= on a line with a timestamp: */
    int64_t line_ns;  /* that timestamp (the offset between the two clocks) */
    /* ev == LIVE_EV_DUR: a duration line (scan_dur), what watch places of it */
    uint8_t dn;                     /* its durations */
    int8_t dtid;                    /* gpu_tid=, or -1; SCAN_TID_SPAWN: the engine's spawn line, its
                                     * worker and partition above, spawn_to_enter in dms[0] */
    uint8_t dname[SCAN_DUR_MAX];    /* enum dur_name (durations.h) */
    int64_t dms[SCAN_DUR_MAX];
};
#define LIVE_EV_DUR (-2) /* live_rec.ev of a duration line */
/* A unit while it is kept: the model's unit, its job id inline. */
struct live_unit {
    struct unit u;  /* u.job: unused (the id is here) */
    uint64_t hash;  /* of the job id and partition */
    uint64_t seq;   /* order of arrival: the view's order */
    uint32_t job_len;
    uint8_t counted; /* its completion and stages went into the counts */
    uint8_t stair_in; /* its completed stages (1 << ST_*) already in the run's stairs */
    int64_t next;     /* left in prep: its worker's next pickup or start, this settle (worker_moves) */
    int64_t cut;      /* judged left in its state (its worker moved on, or it lasted twice
                       * the longest of its stage): where it stopped holding its cause
                       * (T_NONE: not so) */
    uint8_t dur_call;  /* a duration lines' section was given to it */
    uint8_t dur_kern;  /* and that section had its kernel (gpu_total): dk (a failed call's has none) */
    int64_t dbar;      /* that section's barrier_wait (ns; 0: none) */
    uint8_t in_gs;     /* in live's gs */
    int64_t dka, dkb;  /* that kernel (gpu_total), clamped into the GPU phase when counted */
    int64_t dba, dbb;  /* and its barrier_wait, placed as analyze places it (dbb <= dba: none) */
    int64_t spawn;     /* its spawn line's spawn_to_enter (ns; -1: none given yet) */
    uint16_t nkern, kern_cap, nkopen;
    struct span *kern; /* its kernel phases (live_opts.kernel_phase), paired */
    int64_t kopen[4];  /* kernel phases started and not yet ended, oldest first */
    char job[];
};

/* One device: settled totals over every run, and this run's state. */
struct live_dev {
    int32_t device;
    int64_t busy, idle, by_cause[CAUSE_N]; /* ns, settled, all runs */
    int64_t kernel;                         /* ns of kernel phases, settled, all runs */
    int has_kernel;                         /* some unit of it had a kernel phase */
    int kdur;                               /* ... from duration lines (gpu_total) */
    uint64_t gunits, kunits;                /* units counted with a GPU phase; of those, with kernels */
    int64_t ws, we;                         /* this run's window so far (we: latest GPU_END) */
    int64_t ws_gone, we_gone;               /* that of the units gone from the table */
    int64_t settled;                        /* this run: instants before it are counted */
    /* busy, idle by cause and kernel time of this run alone: the
     * bottleneck now is decided on them (live_bottleneck) */
    int64_t rbusy, ridle, rby_cause[CAUSE_N], rkernel;
    int rhas_kernel, rkdur;                 /* has_kernel, kdur and the units of this run alone */
    uint64_t rgunits, rkunits;
    int64_t rnokern;                        /* this run's GPU phases of units with no kernel (bn_totals) */
    int64_t rbidle;                         /* this run's barrier_wait with no kernel computing (barrier_idle) */
    int64_t kernel_runs;                    /* kernel time of the runs before whose kernel time was known */
    int kernel_runs_any;                    /* ... some was */
};

/* Per-second bins of log time: what was settled in each (all devices). */
struct live_bin {
    int64_t sec; /* which second of the run (INT64_MIN: empty) */
    int run;
    int64_t busy, by_cause[CAUSE_N];
};

struct live_hist {
    uint64_t bucket[LIVE_HIST_N + 1]; /* counts, not cumulative; the last is +Inf */
    uint64_t count;
    int64_t sum_ns;
};

/* Units that left the table, by their key's hash, with the events they
 * had (the low 8 bits): a record for one is a duplicate, or late.  Two
 * generations of GONE_GEN each, so the memory stays bounded; a unit older
 * than both is forgotten (a record for it then starts a new unit). */
#define GONE_GEN (1u << 20)
struct live_gone {
    uint64_t *gen[2]; /* open addressing, 2 * GONE_GEN slots each; 0 empty */
    size_t n;         /* in gen[0] */
};

struct live {
    struct live_opts o;
    struct live_gone gone;
    /* the units kept, by (job, partition): open addressing, deleted by
     * shifting back */
    struct live_unit **tab;
    struct live_unit **gs; /* the units of the table with a GPU_START (gs_list): the duration
                            * lines' candidates are among them, not among the units queued */
    size_t ngs, gscap;
    int gs_dirty;          /* units left the table or moved: made again from it when asked */
    size_t mask, n;
    /* A settle's sets of spans (live.c), kept from one to the next so that
     * their memory is not allocated and faulted in again each time. */
    struct span_list sp_queue, sp_synth, sp_busy, sp_prep, sp_kern, sp_bar;
    /* this run's longest completed stage by each instant, by the state it
     * bounds (CAUSE_PREP, CAUSE_QUEUE, CAUSE_SYNTHESIS): where a unit left
     * in a state stops holding its cause (analyze.h, abandon_end) */
    struct stair stair[CAUSE_NO_WORK];
    /* the table's workers' pickups and starts, sorted, for a prep left
     * open (rebuilt by each settle that has one) */
    struct worker_move *moves;
    size_t nmoves, moves_cap;
    int moves_sorted; /* moves is the index; else each open prep's x->next is set */
    struct live_unit **open; /* the units left in a state, for the settle (open_scan) */
    size_t nopen, open_cap;
    uint64_t seq;
    /* completed units the horizon has passed, for the view: a ring */
    struct live_unit **done;
    size_t ndone, done_head;
    struct live_dev *dev;
    size_t ndev, dev_cap;
    /* the current run */
    int run;              /* 1-based; 0 before the first record */
    uint64_t run_first_seq; /* the first unit of the run (struct live_unit seq) */
    int64_t run_max;      /* its latest time */
    int64_t max_lag;      /* the most a record came behind run_max (all runs) */
    int64_t horizon;      /* instants before it are settled, all devices */
    int64_t wall_origin;  /* records timed by their line's clock count from here */
    int have_wall;
    /* a log that mixes the clocks (docs/cli.md): records with ts= seen,
     * and the offset line time - ts of the latest pair kept (timed) */
    int saw_ts, have_off;
    int64_t clock_off, off_epoch; /* off_epoch: the last pair's (events.h, clock_epoch) */
    /* a log on its lines' clock: the first pair's offset less the lines'
     * origin, by which the ts= clock is shifted onto it (timed) */
    int have_shift;
    int64_t shift;
    int devices_named;    /* some record of the run named its device */
    int held;             /* a record whose time looks like a restart waits for the next */
    int dur_kernel;       /* the duration lines' gpu_total is the kernel: no --kernel-phase, or
                           * gpu_total named (analyze.c, kernel_phase_of) */
    struct live_rec hold;
    char hold_job[SCAN_JOB_MAX];
    /* counts, all runs */
    uint64_t records, late, duplicates, contradictions, others;
    uint64_t lines, skipped, skipped_by[8]; /* of a log: counted by the caller (lines.h) */
    uint64_t unaligned; /* of skipped: records on the other clock, none yet carrying both (timed) */
    uint64_t units_completed;
    size_t ended_in_flight[ST_N]; /* the last run's units still in flight when it ended, by stage */
    struct live_hist stage[ST_N];
    struct live_bin bins[LIVE_BINS];
    int64_t latest_s;     /* the latest second of log time settled */
    /* duration lines (durations.h): the sections open, in order; each
     * device's last unlock; the time of the last record, where a line
     * was printed at the earliest */
    /* the critical sections' lines, read apart by the mux (dur_mux.h) as
     * analyze reads them: each waits for the record after it (its `hi`),
     * then goes in; mring holds them by their seq until decided */
    struct dmux *mux;
    struct live_mline {
        struct dmux_line x;
        int64_t pre, wait;       /* an opening line's */
        int64_t held, total_fn;  /* a closing line's (-1: none) */
        /* a closing line's: the first spawn line after it (durations.c, by_spawn): its
         * unit (seq; UINT64_MAX: none), spawn_to_enter and prove_start */
        uint8_t sp_seen;
        uint64_t sp_seq;
        int64_t sp_spawn, sp_prove;
    } *mring;                    /* LIVE_MRING of them, by seq */
    uint64_t *msp;               /* closing lines still without a spawn line after them (seqs) */
    size_t nmsp, msp_cap;
    uint64_t mseq, mfed;         /* lines kept; lines given to the mux */
    struct live_sect {
        int64_t pre, wait, gpu_total, t_pos;
        uint64_t tid_done;
        int64_t barrier;         /* its barrier_wait (gpu_tid 0 or none; -1: none read) */
        int64_t cur0;            /* gpu_tid 0's lines so far, summed: the next one starts there after
                                  * the lock (durations.c, call_phases) */
        int64_t bar_at;          /* the barrier_wait's start after the lock */
        uint64_t sid;            /* its opening line's seq */
        uint8_t interleaved, multi;
    } *dsect;                    /* the sections opened and not yet closed (one LIVE_MRING lines old goes) */
    int ndsect;
    size_t dsect_cap;
    struct live_unlock {
        int32_t device;
        int64_t t, hi; /* the last unlock, and the latest it can be (durations.h, dur_unlock_hi) */
    } dunlock[64];
    size_t ndunlock;
    struct live_pend { /* closed sections not yet given: which unit fits may turn on a
                        * GPU_END still to come (dur_decide) */
        struct live_sect c;
        int64_t held, total_fn; /* mutex_held; total_start_fn (-1: none) */
        int64_t close_hi;       /* the first record's time after its closing line (INT64_MAX: none) */
        int64_t close_lo;       /* the last record's time before it (INT64_MIN: none) */
        uint64_t close_seq;     /* its closing line (the mux's seq) */
        /* the engine's spawn line read first after it (durations.h,
         * dur_spawn_fits): its unit (seq; UINT64_MAX: none), spawn_to_enter
         * and prove_start, ns */
        uint8_t sp_seen;
        uint64_t sp_seq;
        int64_t sp_spawn, sp_prove;
    } *dpend;
    int ndpend;
    size_t dpend_cap;
    int64_t dur_t;
    uint64_t dur_lines, dur_given; /* duration lines read; sections given a unit */
    uint64_t spawn_lines;          /* the engine's spawn lines read */
    struct dur_cand *dcand;        /* dur_choose's arrays, kept between sections */
    int64_t *dscratch;
    size_t dcap;
    /* a native trace's latest memory sample (follow_wft.c; format 1.4) */
    int rss_known;
    uint64_t rss_bytes;   /* the recording process's resident memory */
};

int live_init(struct live *l, const struct live_opts *o);
void live_free(struct live *l);

void live_rec_of(struct live_rec *o, const struct scan_rec *r);

/* Records, in the order they were written.  Their units' entries are
 * asked of memory a few records ahead.  0, or -1 out of memory. */
int live_recs(struct live *l, const struct live_rec *v, size_t n);

/* One record: a native trace's, or a line's. */
int live_record(struct live *l, const struct scan_rec *r);

/* Move the horizon as far as the rules allow.  quiet: the log has not
 * grown for a while (the slack is dropped); end: the log has ended (the
 * run is decided as `analyze` decides the end of a log). */
int live_settle(struct live *l, int quiet, int end);

/* What the view and /metrics show of the current state. */
struct live_now {
    size_t in_flight[ST_N]; /* by the stage each unit is in */
    size_t in_flight_total;
    int64_t busy, by_cause[CAUSE_N]; /* settled over the last `recent` of log time */
    int64_t recent_from, recent_to;
};
void live_now(const struct live *l, struct live_now *out);

/* The current run's kept units (in flight, and the last `keep` completed
 * ones) as a model of one run (none when no unit is kept), built through
 * the model's run primitives, for analyze_run_opts: the bottleneck now,
 * the view's chart.  last: only the last so many, in order of arrival (0:
 * all).  A job's partitions are one job, as in the model of a log.  Its
 * jobs point into l: free it with live_snapshot_free before l changes. */
int live_snapshot(const struct live *l, size_t last, struct model *m);
void live_snapshot_free(struct model *m);

/* The bottleneck now (BN_*): analyze's rule (analyze.h, bottleneck_rule)
 * on the current run's settled totals, which are analyze's own at the end
 * of a log; kept: the analysis of the units kept (live_snapshot), which
 * gives what totals cannot, the CPU contention and, where it has kernel
 * phases, nothing else; barrier_wait comes from the duration lines'
 * sections given to units, as analyze's row has it. */
struct run_result;
int live_bottleneck(const struct live *l, const struct run_result *kept);

/* Is device d's kernel time known?  As analyze has it (analyze_phase.c,
 * kernel_figures): not where its kernels come from duration lines and its
 * units have them in under 90% of their GPU phases (calls not given). */
static inline int live_kernel_known(const struct live_dev *d)
{
    return d->has_kernel && !(d->kdur && (double)d->kunits < 0.9 * (double)d->gunits);
}
/* The same over the current run alone (analyze decides it run by run). */
static inline int live_kernel_known_run(const struct live_dev *d)
{
    return d->rhas_kernel && !(d->rkdur && (double)d->rkunits < 0.9 * (double)d->rgunits);
}
/* Device d's kernel time as analyze sums it over runs, each run's where
 * it is known (ns into *ns); 0 where no run's is. */
static inline int live_kernel_runs(const struct live_dev *d, int64_t *ns)
{
    int now = live_kernel_known_run(d);
    *ns = d->kernel_runs + (now ? d->rkernel : 0);
    return now || d->kernel_runs_any;
}

#endif /* LIVE_H */
