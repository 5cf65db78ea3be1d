/*
 * analyze_sched.c -- the scheduling of analyze_run: a second thread for
 * the tasks that need only the units, then both threads on what is left
 * of the tasks and the devices (analyze_sched.h).  What each step
 * computes is in analyze.c, which hands it over (struct sched_fns).
 */
#include "analyze_sched.h"

#include <string.h>

#define SIDE_THREAD_MIN 100000 /* units: below this a thread costs more than it saves */

/* Take devices from the common counter until none is left. */
static void analyze_devices(struct side_work *w)
{
    for (;;) {
        size_t i = atomic_fetch_add(&w->next, 1);
        if (i >= w->dl.ndev || atomic_load(&w->dev_failed))
            return;
        const struct dev_lists *dl = &w->dl;
        if (w->fn->device(w->sp, w->r, dl->dunits + dl->dfirst[i], dl->dcount[i], dl->busy[i], dl->nbusy[i],
                          w->shu, w->keep, &w->res->dev[i]))
            atomic_store(&w->dev_failed, 1);
    }
}

/* Take tasks from the common counter until none is left. */
static void analyze_tasks(struct side_work *w)
{
    for (;;) {
        int t = atomic_fetch_add(&w->next_task, 1);
        if (t >= TASK_N || atomic_load(&w->task_failed))
            return;
        if (w->fn->task(w->sp, w->r, w->res, t, w->w0, w->w1))
            atomic_store(&w->task_failed, 1);
    }
}

static void *side_run(void *arg)
{
    struct side_work *w = arg;
    analyze_tasks(w);
    pthread_mutex_lock(&w->mu);
    while (!w->ready)
        pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
    if (w->dl.devs)
        analyze_devices(w);
    return NULL;
}

/* Hand the devices to the side thread (dl NULL: nothing to do). */
static void devices_ready(struct side_work *w, const struct dev_lists *dl, const struct shared_sets *shu)
{
    pthread_mutex_lock(&w->mu);
    if (dl)
        w->dl = *dl;
    else
        memset(&w->dl, 0, sizeof w->dl);
    w->shu = shu;
    w->ready = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void sched_start(struct side_work *w, const struct sched_fns *fn, struct scratch_pool *sp, const struct run *r,
                 struct run_result *res, unsigned keep, int64_t w0, int64_t w1)
{
    memset(w, 0, sizeof *w);
    w->fn = fn;
    w->sp = sp;
    w->r = r;
    w->res = res;
    w->keep = keep;
    w->w0 = w0;
    w->w1 = w1;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    atomic_init(&w->next, 0);
    atomic_init(&w->dev_failed, 0);
    atomic_init(&w->next_task, 0);
    atomic_init(&w->task_failed, 0);
    w->started = r->nunits >= SIDE_THREAD_MIN && pthread_create(&w->th, NULL, side_run, w) == 0;
}

int sched_devices(struct side_work *w, const struct dev_lists *dl, const struct shared_sets *shu)
{
    devices_ready(w, dl, shu);
    analyze_devices(w);
    analyze_tasks(w);
    if (w->started) {
        pthread_join(w->th, NULL);
        w->started = 0;
    } else {
        side_run(w);
    }
    return atomic_load(&w->dev_failed) || atomic_load(&w->task_failed) ? -1 : 0;
}

void sched_end(struct side_work *w)
{
    if (w->started) {
        devices_ready(w, NULL, NULL);
        pthread_join(w->th, NULL);
        w->started = 0;
    }
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
}
