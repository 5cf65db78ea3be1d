/*
 * contention_prog.c -- a pipeline recorded with libwaterfall whose CPU
 * contention is known by construction, for the kinds of contention
 * (docs/cli.md "The kinds of contention"; tests/test_contention.sh,
 * tests/cpu_validate.sh).
 *
 *   contention_prog MODE OUT.wft
 *
 * UNITS_ALONE units are synthesized one at a time, then ROUNDS rounds in
 * which S syntheses start together (a barrier), so that the analysis sees
 * units alone (k = 1) and beside others (k = S).  One GPU worker proves
 * each unit in GPU_MS (a sleep: the device), so the GPU waits on
 * synthesis.  A unit's CPU work is a fixed count of loop iterations, not a
 * time, so what it costs in CPU does not depend on the machine's load:
 *   cores    S = twice the CPUs this process may use; the same work per
 *            unit: beside others the units wait for a core
 *   memory   S = 2 (no more than the cores of the story's machine); the
 *            work per unit is the base times the syntheses running (k),
 *            as memory bandwidth shared by k makes it: more CPU time per
 *            unit, no wait for a core
 *   waiting  S = 4; each unit sleeps half its time holding one shared
 *            mutex, then computes the other half: its CPU time stays flat
 *            and beside others it waits for the mutex, off the CPU (the
 *            k-th in a round waits k - 1 halves: 1.75x alone on average;
 *            their computing halves follow one another, no core is short)
 *   alloc    S = 3; each unit maps ALLOC_MB of memory, every page resident,
 *            at its start and unmaps it at its end, sleeping between: memory
 *            per synthesis in flight is ALLOC_MB by construction
 */

#include <waterfall.h>

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define UNITS_ALONE 5
#define ROUNDS 6
#define BASE_MS 40 /* a unit's CPU work alone */
#define GPU_MS 2
#define ALLOC_MB 48

enum { M_CORES,
       M_MEMORY,
       M_WAITING,
       M_ALLOC };
static int mode, S;
static unsigned long loops_per_ms;
static pthread_barrier_t round_start;
static pthread_mutex_t shared = PTHREAD_MUTEX_INITIALIZER; /* waiting: what the units wait on */

/* the GPU worker's queue */
static pthread_mutex_t qmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qcv = PTHREAD_COND_INITIALIZER;
static wf_unit queue[UNITS_ALONE + ROUNDS * 64];
static int qhead, qtail, qdone;

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static _Thread_local volatile unsigned long sink; /* each thread's own: the work is not optimized away, and no thread races another */
static void work(unsigned long loops)
{
    unsigned long x = sink;
    for (unsigned long i = 0; i < loops; i++)
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    sink = x;
}

/* Loop iterations per ms of this thread's CPU time (the best of three). */
static void calibrate(void)
{
    unsigned long best = 0, n = 2000000;
    for (int i = 0; i < 3; i++) {
        double t0 = cpu_ms();
        work(n);
        double dt = cpu_ms() - t0;
        unsigned long r = dt > 0 ? (unsigned long)((double)n / dt) : n;
        if (r > best)
            best = r;
    }
    loops_per_ms = best;
}

static void enqueue(wf_unit u)
{
    pthread_mutex_lock(&qmu);
    queue[qtail++] = u;
    pthread_cond_signal(&qcv);
    pthread_mutex_unlock(&qmu);
}

static void *gpu_worker(void *arg)
{
    (void)arg;
    wf_thread_name("gpu0-worker0");
    wf_thread_worker(0, 0);
    for (;;) {
        pthread_mutex_lock(&qmu);
        while (qhead == qtail && !qdone)
            pthread_cond_wait(&qcv, &qmu);
        if (qhead == qtail) {
            pthread_mutex_unlock(&qmu);
            return NULL;
        }
        wf_unit u = queue[qhead++];
        pthread_mutex_unlock(&qmu);
        wf_mark(WF_GPU_START, u);
        sleep_ms(GPU_MS);
        wf_mark(WF_GPU_END, u);
    }
}

/* One unit's synthesis, k of them running at once. */
static void synthesize(const char *job, int k)
{
    wf_unit u = wf_unit_new(job, 0);
    /* alloc: the memory is made resident before the unit's start is
     * marked, and given back before its end: the unit holds it exactly
     * while it counts in flight.  (Populating 48 MiB took 50 ms and more
     * on a loaded VM, a ramp the slope read as 15-20% less memory.) */
    size_t n = (size_t)ALLOC_MB << 20;
    void *m = mode == M_ALLOC ? mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0)
                              : MAP_FAILED;
    wf_mark(WF_SYNTH_START, u);
    unsigned long base = loops_per_ms * BASE_MS;
    if (mode == M_CORES)
        work(base);
    else if (mode == M_MEMORY)
        work(base * (unsigned long)k);
    else if (mode == M_ALLOC) {
        /* resident at once: MAP_POPULATE faults every page in, in the
         * kernel (touching them one by one took 150 ms per 48 MiB in a VM);
         * given back at munmap, whose cost (unmapping resident pages) is
         * the only ramp left inside the unit */
        sleep_ms(4 * BASE_MS);
        if (m != MAP_FAILED)
            munmap(m, n);
    } else {
        pthread_mutex_lock(&shared);
        sleep_ms(BASE_MS / 2);
        pthread_mutex_unlock(&shared);
        work(base / 2);
    }
    wf_mark(WF_SYNTH_END, u);
    enqueue(u);
}

static void *synth_thread(void *arg)
{
    int id = (int)(size_t)arg;
    char name[32], job[48];
    snprintf(name, sizeof name, "synthesis%d", id);
    wf_thread_name(name);
    for (int r = 0; r < ROUNDS; r++) {
        pthread_barrier_wait(&round_start);
        snprintf(job, sizeof job, "r%d-s%d", r, id);
        synthesize(job, S);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: contention_prog cores|memory|waiting|alloc OUT.wft\n");
        return 2;
    }
    mode = !strcmp(argv[1], "cores") ? M_CORES : !strcmp(argv[1], "memory") ? M_MEMORY
                                             : !strcmp(argv[1], "waiting")  ? M_WAITING
                                             : !strcmp(argv[1], "alloc")    ? M_ALLOC
                                                                            : -1;
    if (mode < 0) {
        fprintf(stderr, "contention_prog: unknown mode %s\n", argv[1]);
        return 2;
    }
    cpu_set_t aff;
    int cpus = sched_getaffinity(0, sizeof aff, &aff) == 0 ? CPU_COUNT(&aff) : 2;
    S = mode == M_CORES ? 2 * (cpus < 1 ? 1 : cpus) : mode == M_WAITING ? 4
                                                  : mode == M_ALLOC     ? 3
                                                                        : 2;
    if (S > 64)
        S = 64;
    calibrate();
    wf_options o = {.flush_ms = 5};
    if (wf_open_opts(argv[2], &o) != 0) {
        fprintf(stderr, "contention_prog: cannot record to %s\n", argv[2]);
        return 1;
    }
    wf_thread_name("main");
    pthread_t gw, th[64];
    pthread_create(&gw, NULL, gpu_worker, NULL);
    /* alone: one synthesis at a time, on its own thread as the others */
    for (int i = 0; i < UNITS_ALONE; i++) {
        char job[32];
        snprintf(job, sizeof job, "alone-%d", i);
        synthesize(job, 1);
        sleep_ms(GPU_MS + 3); /* its proof done before the next starts */
    }
    pthread_barrier_init(&round_start, NULL, (unsigned)S);
    for (int i = 0; i < S; i++)
        pthread_create(&th[i], NULL, synth_thread, (void *)(size_t)i);
    for (int i = 0; i < S; i++)
        pthread_join(th[i], NULL);
    pthread_mutex_lock(&qmu);
    qdone = 1;
    pthread_cond_signal(&qcv);
    pthread_mutex_unlock(&qmu);
    pthread_join(gw, NULL);
    pthread_barrier_destroy(&round_start);
    return wf_close() == 0 ? 0 : 1;
}
