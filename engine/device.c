/*
 * device.c -- picking a backend by name, and the busy-time log every
 * backend keeps: intervals recorded inside prove(), merged at the end (a
 * device with several workers is busy once, not twice, while they overlap).
 */
#include "device.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const struct device_ops *device_find(const char *name)
{
    if (!strcmp(name, "cpu"))
        return &device_cpu_ops;
    if (!strcmp(name, "emulated"))
        return &device_emulated_ops;
    return NULL;
}

double device_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void device_sleep_until(double t)
{
    struct timespec ts;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

void busy_record(struct busy_log *b, double start, double end)
{
    pthread_mutex_lock(&b->mu);
    if (b->n == b->cap) {
        size_t ncap = b->cap ? b->cap * 2 : 256;
        double *s = realloc(b->start, ncap * sizeof *s);
        if (s)
            b->start = s;
        double *e = realloc(b->end, ncap * sizeof *e);
        if (e)
            b->end = e;
        if (s && e)
            b->cap = ncap;
    }
    if (b->n < b->cap) {
        b->start[b->n] = start;
        b->end[b->n] = end;
        b->n++;
    }
    pthread_mutex_unlock(&b->mu);
}

static int by_start(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

double busy_union(struct busy_log *b)
{
    double *iv = malloc((b->n ? b->n : 1) * 2 * sizeof *iv);
    if (!iv)
        return -1;
    for (size_t i = 0; i < b->n; i++) {
        iv[2 * i] = b->start[i];
        iv[2 * i + 1] = b->end[i];
    }
    qsort(iv, b->n, 2 * sizeof *iv, by_start);
    double total = 0, cs = 0, ce = -1e300;
    for (size_t i = 0; i < b->n; i++) {
        double s = iv[2 * i], e = iv[2 * i + 1];
        if (s > ce) {
            if (ce > cs)
                total += ce - cs;
            cs = s;
            ce = e;
        } else if (e > ce) {
            ce = e;
        }
    }
    if (b->n && ce > cs)
        total += ce - cs;
    free(iv);
    return total;
}
