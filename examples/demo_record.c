/*
 * demo_record.c -- the smallest honest pipeline: one synthesis thread hands
 * jobs through a one-slot channel to one GPU worker thread, and both mark
 * the six points of every job with libwaterfall.  The "work" is sleeping
 * (synthesis 30 ms, proving 20 ms), so the trace shows the classic gap: the
 * GPU idles while the next job is synthesized.
 *
 *   demo_record [trace.wft] [jobs]
 */
#include <waterfall.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static wf_unit channel;     /* one slot; 0 when empty */
static int done;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void work_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void *gpu_worker(void *arg)
{
    (void)arg;
    wf_thread_name("gpu-worker-0");
    wf_thread_worker(0, 0); /* worker 0 of device 0: rides on every mark below */
    for (;;) {
        pthread_mutex_lock(&mu);
        while (!channel && !done)
            pthread_cond_wait(&cv, &mu);
        wf_unit u = channel;
        channel = 0;
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&mu);
        if (!u)
            return NULL;
        wf_mark(WF_GPU_PICKUP, u);
        work_ms(2); /* host-side preparation */
        wf_mark(WF_GPU_START, u);
        work_ms(20);
        wf_mark(WF_GPU_END, u);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] == '-' && argv[1][1]) {
        fprintf(stderr, "usage: demo_record [TRACE.wft [JOBS]]  (default: demo.wft 5)\n");
        return strcmp(argv[1], "-h") && strcmp(argv[1], "--help") ? 2 : 0;
    }
    const char *path = argc > 1 ? argv[1] : "demo.wft";
    int jobs = argc > 2 ? atoi(argv[2]) : 5;
    if (jobs < 1) {
        fprintf(stderr, "demo_record: JOBS must be a positive number, not '%s'\n", argv[2]);
        return 2;
    }
    int rc = wf_open(path);
    if (rc < 0) {
        fprintf(stderr, "demo_record: cannot record to %s (%d)\n", path, rc);
        return 1;
    }
    wf_thread_name("synthesis");
    pthread_t gpu;
    pthread_create(&gpu, NULL, gpu_worker, NULL);
    for (int j = 0; j < jobs; j++) {
        char id[32];
        snprintf(id, sizeof id, "job-%d", j);
        wf_unit u = wf_unit_new(id, -1);
        wf_mark(WF_SYNTH_START, u);
        work_ms(30);
        wf_mark(WF_SYNTH_END, u);
        pthread_mutex_lock(&mu);
        while (channel)
            pthread_cond_wait(&cv, &mu);
        wf_mark(WF_CHAN_SEND, u);
        channel = u;
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&mu);
    }
    pthread_mutex_lock(&mu);
    done = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    pthread_join(gpu, NULL);
    rc = wf_close();
    if (rc < 0) {
        fprintf(stderr, "demo_record: finishing %s failed (%d)\n", path, rc);
        return 1;
    }
    return 0;
}
