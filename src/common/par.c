/*
 * par.c -- a second thread for one half of a piece of work (par.h).
 */
#include "par.h"

#include <pthread.h>
#include <stdlib.h>

int par_worth(size_t n, size_t min)
{
    const char *force = getenv("WATERFALL_ANALYSIS_THREADS");
    if (force && force[0] == '1' && !force[1])
        return 0;
    if (force && force[0] == '2' && !force[1])
        return 1;
    return n >= min;
}

struct par_job {
    void (*fn)(void *);
    void *arg;
};

static void *par_thread(void *p)
{
    struct par_job *j = p;
    j->fn(j->arg);
    return NULL;
}

void par_two(void (*fn)(void *), void *a, void *b)
{
    struct par_job j = {fn, b};
    pthread_t th;
    int started = pthread_create(&th, NULL, par_thread, &j) == 0;
    fn(a);
    if (started)
        pthread_join(th, NULL);
    else
        fn(b);
}
