/*
 * analyze_sched.h -- inside the analysis: how analyze_run spreads its work
 * over threads (analyze_sched.c), apart from what it computes (analyze.c).
 *
 * The stage statistics, the throughput, the synthesis concurrency and the
 * CPU section need only the units and the run's start: on a big run they
 * are tasks that a second thread takes, one at a time from a common
 * counter, while the main thread builds the shared sets and analyses the
 * devices; then each thread takes what is left of the other's work (the
 * main thread tasks, the second thread devices) until none is.
 */
#ifndef ANALYZE_SCHED_H
#define ANALYZE_SCHED_H

#include "analyze.h"

#include <pthread.h>
#include <stdatomic.h>

/* The run-wide sets every device shares: queue and synthesis. */
struct shared_sets {
    struct span *queue, *synth;
    size_t nqueue, nsynth;
    const struct abandon_set *ab; /* where the units left in a state stop holding it */
};

/* The devices to analyse: their ids, the units of device i,
 * dunits[dfirst[i] .. dfirst[i] + dcount[i]), in order, and its busy set
 * busy[i][0..nbusy[i]), merged. */
struct dev_lists {
    const int32_t *devs;
    const size_t *dcount, *dfirst;
    const uint32_t *dunits;
    const struct span *const *busy;
    const size_t *nbusy;
    size_t ndev;
};

/* The tasks that need only the units and the run's start, the longest
 * first: each fills its own fields of the result.  TASK_SYNTH: the
 * synthesis concurrency and the CPU section, over the devices' window [w0,
 * w1); TASK_STAGE + s: stage s's statistics; TASK_THROUGHPUT: the jobs
 * completed and their rate. */
enum { TASK_SYNTH, TASK_STAGE, TASK_THROUGHPUT = TASK_STAGE + ST_N, TASK_N };

/* What the scheduler runs, given by the analysis (analyze.c, which calls
 * the scheduler): the scheduler shares out the work, it does not know
 * what the work computes, so no call points back.  Each takes its scratch
 * arrays from sp (mem.h), and returns 0, or -1 when out of memory. */
struct sched_fns {
    /* task `task` (TASK_*) */
    int (*task)(struct scratch_pool *sp, const struct run *r, struct run_result *res, int task, int64_t w0,
                int64_t w1);
    /* one device, its busy set busy[0..nb) and the figures of its first
     * step in d: its units are r->units[ui[0..cap)], in order; keep: KEEP_* */
    int (*device)(struct scratch_pool *sp, const struct run *r, const uint32_t *ui, size_t cap,
                  const struct span *busy, size_t nb, const struct shared_sets *sh, unsigned keep,
                  struct device_result *d);
};

/* The work the two threads share. */
struct side_work {
    const struct sched_fns *fn;
    struct scratch_pool *sp;
    const struct run *r;
    struct run_result *res;
    unsigned keep; /* KEEP_*, for the devices */
    _Atomic int next_task;
    _Atomic int task_failed;
    int64_t w0, w1; /* the devices' window, for analyze_synth */
    /* the devices, once `ready` (set under mu, with `dl.devs` NULL on failure) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int ready;
    struct dev_lists dl;
    const struct shared_sets *shu;
    _Atomic size_t next;
    _Atomic int dev_failed;
    pthread_t th;
    int started; /* the second thread runs, not yet joined */
};

/* Begin: on a big run (r->units), the second thread starts on the tasks
 * (res->start must be set), fn's, with the scratch pool sp. */
void sched_start(struct side_work *w, const struct sched_fns *fn, struct scratch_pool *sp, const struct run *r,
                 struct run_result *res, unsigned keep, int64_t w0, int64_t w1);
/* The devices and their shared sets are ready: both threads analyse the
 * devices (res->dev[i] from dl's device i) and do the tasks, and this one
 * waits for the other (or, without it, does everything here).  0, or -1
 * when a device or a task failed. */
int sched_devices(struct side_work *w, const struct dev_lists *dl, const struct shared_sets *shu);
/* End, on success or failure: a second thread still waiting is told there
 * is nothing to do, and joined. */
void sched_end(struct side_work *w);

#endif /* ANALYZE_SCHED_H */
