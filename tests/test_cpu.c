/*
 * test_cpu.c -- the recorder samples its threads' CPU time: a thread that
 * computes between SYNTH_START and SYNTH_END wants a whole core there, a
 * worker that sleeps between GPU_START and GPU_END wants none; the header
 * says how many CPUs the machine had; WATERFALL_CPU=0 turns sampling off.
 */
#include "check.h"
#include "trace_util.h"

#include <waterfall.h>

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

#define UNITS 8
#define SPAN_MS 40

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void spin_ms(int ms)
{
    volatile unsigned long x = 0;
    double end = now_s() + ms * 1e-3;
    while (now_s() < end)
        x++;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {0, (long)ms * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static wf_unit units[UNITS];

static void *worker(void *arg)
{
    (void)arg;
    wf_thread_name("gpu0-worker0");
    wf_thread_worker(0, 0);
    for (int i = 0; i < UNITS; i++) {
        wf_mark(WF_GPU_START, units[i]);
        sleep_ms(SPAN_MS); /* a GPU worker that waits on its device */
        wf_mark(WF_GPU_END, units[i]);
        sleep_ms(5);
    }
    return NULL;
}

/* Record the pattern to path: synthesis computes, the worker sleeps. */
static void record(const char *path)
{
    wf_options o = {.flush_ms = 5};
    CHECK(wf_open_opts(path, &o) == 0);
    wf_thread_name("synthesis");
    for (int i = 0; i < UNITS; i++)
        units[i] = wf_unit_new("job", i);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    for (int i = 0; i < UNITS; i++) {
        wf_mark(WF_SYNTH_START, units[i]);
        spin_ms(SPAN_MS);
        wf_mark(WF_SYNTH_END, units[i]);
        sleep_ms(5);
    }
    pthread_join(t, NULL);
    CHECK(wf_close() == 0);
}

/* A MEM record of body n bytes (flags, rss) appended at buf + at. */
static size_t put_mem(unsigned char *buf, size_t at, uint32_t body, uint32_t flags, uint64_t rss)
{
    struct wft_mem m = {.ticks = 0, .rss_bytes = rss, .avail_bytes = 0, .flags = flags};
    uint32_t size = 16 + body;
    m.rec = (struct wft_rec){.size = size, .type = WFT_MEM, .check = wft_check(size, WFT_MEM)};
    memcpy(buf + at, &m, size);
    struct wft_rec r = m.rec;
    r.crc = wft_crc32c(0, buf + at + 16, size - 16);
    memcpy(buf + at, &r, sizeof r);
    return at + size;
}

/* MEM records are read defensively: one shorter than its struct is a bad
 * record, one with no flag says nothing, a good one is read. */
static void mem_records_defensive(const struct input *in, size_t nmem)
{
    unsigned char *b = malloc(in->len + 3 * sizeof(struct wft_mem));
    CHECK(b != NULL);
    memcpy(b, in->data, in->len);
    size_t n = put_mem(b, in->len, 16, WFT_MEM_RSS, 1); /* short: 16 of 32 bytes */
    n = put_mem(b, n, 32, 0, 2);                        /* neither value known */
    n = put_mem(b, n, 32, WFT_MEM_RSS, 3);
    struct wft_trace t;
    char err[256];
    CHECK(wft_parse(&t, "mem", b, n, err, sizeof err) == 0);
    CHECK_EQ_U(t.bad_records, 1);
    CHECK_EQ_U(t.nmem, nmem + 1);
    CHECK(t.mem[t.nmem - 1].rss_bytes == 3);
    wft_free(&t);
    free(b);
}

/* The process's open descriptors (the writer keeps one per recording
 * thread while it records, and must close them all). */
static int open_fds(void)
{
    int n = 0;
    for (int fd = 0; fd < 1024; fd++)
        n += fcntl(fd, F_GETFD) != -1;
    return n;
}

int main(void)
{
    const char *p = tmp_path("cpu.wft");
    int fds = open_fds();
    record(p);
    CHECK(open_fds() == fds);
    struct wft_trace tr;
    struct input in;
    CHECK(load_trace(p, &tr, &in) == 0);
    CHECK(tr.hdr.version_minor >= 1);
    CHECK(tr.hdr.flags & WFT_F_CPU);
    cpu_set_t aff; /* the CPUs this process may run on */
    CHECK(sched_getaffinity(0, sizeof aff, &aff) == 0);
    CHECK(tr.hdr.cpus == (uint32_t)CPU_COUNT(&aff));
    CHECK(tr.ncpu >= 4);
    /* every thread's samples only grow */
    for (size_t i = 1; i < tr.ncpu; i++)
        if (tr.cpu[i].thread == tr.cpu[i - 1].thread)
            CHECK(tr.cpu[i].cpu_ns >= tr.cpu[i - 1].cpu_ns && tr.cpu[i].ns >= tr.cpu[i - 1].ns);
    struct cpu_use u;
    wft_cpu_use(&tr, &u);
    CHECK(u.sampled);
    /* each unit's own stage intervals, as many as the totals counted */
    CHECK(u.nspans == u.synth_units + u.gpu_units);
    for (size_t i = 0; i < u.nspans; i++)
        CHECK(u.spans[i].b > u.spans[i].a && u.spans[i].cpu_s >= 0 && u.spans[i].want_s >= u.spans[i].cpu_s);
    free(u.spans);
    /* Intervals at the start, before a thread's first sample, do not count:
     * most do.  What a thread wanted is what it used plus its run-queue
     * wait, so a loaded machine (a sanitizer, other tests, CPU-bound
     * processes beside the suite: tests/under_load.sh) does not move it: a
     * spinning thread wants a whole core whether or not it gets one.
     * Samples 5 ms apart over 40 ms intervals, each span reaching up to a
     * period past the end: a spinning thread wants 0.75 to 1.25 of a core,
     * a sleeping one under 0.25.  (The span once stopped at the last sample
     * inside the interval and lost the wait still open there: 0.59 to 0.75
     * with eight CPU-bound processes beside the test.) */
    CHECK(u.synth_units >= UNITS / 2 && u.gpu_units >= UNITS / 2);
    double syn = (u.wait_known ? u.synth_want_s : u.synth_cpu_s) / u.synth_wall_s;
    double gpu = (u.wait_known ? u.gpu_want_s : u.gpu_cpu_s) / u.gpu_wall_s;
    printf("cpu: synthesis wanted %.2f of a core (%llu units), the worker %.2f (%llu units); wait %s\n", syn,
           (unsigned long long)u.synth_units, gpu, (unsigned long long)u.gpu_units,
           u.wait_known ? "known" : "unknown");
    CHECK(syn > 0.75 && syn < 1.25);
    /* The sleeping worker: what it *used* is small whatever the load; what
     * it wanted holds its wake-up latency, which a loaded machine stretches
     * (0.27 once with the whole suite and two builds beside it). */
    CHECK(u.gpu_cpu_s / u.gpu_wall_s < 0.25);
    CHECK(gpu < syn);
    CHECK(u.synth_cpu_s <= u.synth_want_s + 1e-9 && u.gpu_cpu_s <= u.gpu_want_s + 1e-9);
    /* memory samples (format 1.4) come with the CPU samples: resident
     * memory now, and the system's available memory */
    CHECK(tr.hdr.version_minor >= 5);
    CHECK(tr.nmem >= 4);
    for (size_t i = 0; i < tr.nmem; i++)
        CHECK((tr.mem[i].flags & WFT_MEM_RSS) && tr.mem[i].rss_bytes > 0 && (i == 0 || tr.mem[i].ns >= tr.mem[i - 1].ns));
    struct mem_use mu;
    wft_mem_use(&tr, &mu);
    CHECK(mu.sampled && mu.peak_bytes >= mu.base_bytes && mu.samples == tr.nmem);
    mem_records_defensive(&in, tr.nmem);
    unload_trace(&tr, &in);

    /* dump --stats shows the column and the shares */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s dump --stats %s 2>&1 >/dev/null | grep -q '^cpu: .*synthesis threads'", WATERFALL_BIN,
             p);
    CHECK(run_status(cmd) == 0);

    /* WATERFALL_CPU=0: no samples, and the header says so */
    setenv("WATERFALL_CPU", "0", 1);
    record(p);
    CHECK(load_trace(p, &tr, &in) == 0);
    CHECK(!(tr.hdr.flags & WFT_F_CPU));
    CHECK(tr.ncpu == 0);
    wft_cpu_use(&tr, &u);
    CHECK(!u.sampled);
    unload_trace(&tr, &in);
    snprintf(cmd, sizeof cmd, "%s dump --stats %s 2>&1 >/dev/null | grep -q '^cpu: *not sampled'", WATERFALL_BIN, p);
    CHECK(run_status(cmd) == 0);
    remove(p);
    return check_done("cpu");
}
