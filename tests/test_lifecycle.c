/*
 * test_lifecycle.c -- marks outside open/close do nothing; threads that
 * exit keep their events; a thread outliving one recording joins the next;
 * wrong calls get their errors; an idle recording does not spin; the API
 * that grows (the version, wf_config and wf_stats_ex by their size, the CPU
 * sampling option, one event type) does what waterfall.h says.
 */
#include "check.h"
#include "trace_util.h"

#include <waterfall.h>

#include <errno.h>
#include <pthread.h>
#include <sys/resource.h>
#include <time.h>

/* CPU time of the whole process (every thread), user and system. */
static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Load path's trace and check its header's options and its events. */
static void check_trace(const char *path, uint32_t ring, uint32_t flush_ms, int cpu, size_t nev)
{
    struct wft_trace tr;
    struct input in;
    CHECK(load_trace(path, &tr, &in) == 0);
    CHECK_EQ_U(tr.hdr.ring_events, ring);
    CHECK_EQ_U(tr.hdr.flush_ms, flush_ms);
    CHECK_EQ_U(!!(tr.hdr.flags & WFT_F_CPU), cpu);
    if (!cpu)
        CHECK_EQ_U(tr.ncpu, 0);
    CHECK_EQ_U(tr.nev, nev);
    unload_trace(&tr, &in);
}

/* The API that grows: the version, wf_config and wf_stats_ex by the growth
 * rule of waterfall.h, the sample_cpu option, one event type. */
static void growing_api(void)
{
    char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", WF_VERSION_MAJOR, WF_VERSION_MINOR, WF_VERSION_PATCH);
    CHECK(strcmp(v, WF_VERSION_STRING) == 0);
    CHECK(wf_version() == WF_VERSION_NUMBER);
    CHECK(strcmp(wf_version_string(), WF_VERSION_STRING) == 0);

    /* wf_config_init: the size, and 0 (the defaults) everywhere else */
    wf_config c;
    memset(&c, 0x55, sizeof c);
    CHECK(wf_config_init(&c) == 0);
    CHECK(c.size == sizeof c && c.ring_events == 0 && c.flush_ms == 0 && c.block_when_full == 0);
    CHECK(c.timeline == NULL && c.timeline_decimals == 0 && c.sample_cpu == 0);
    CHECK(wf_config_init_size(NULL, sizeof c) == -EINVAL);
    CHECK(wf_config_init_size(&c, sizeof(size_t)) == -EINVAL);

    /* A size too small, or garbage: refused, nothing opened. */
    const char *p = tmp_path("life-config.wft");
    wf_config bad = c;
    bad.size = sizeof(size_t);
    CHECK(wf_open_config(p, &bad) == -EINVAL);
    bad.size = (size_t)1 << 20;
    CHECK(wf_open_config(p, &bad) == -EINVAL);
    CHECK(wf_open_config(NULL, &c) == -EINVAL);
    /* A later version's wf_config: a member this library does not know is
     * refused when set, accepted when 0 (its default). */
    struct {
        wf_config c;
        uint64_t later;
    } big;
    memset(&big, 0x55, sizeof big);
    CHECK(wf_config_init_size(&big.c, sizeof big) == 0);
    CHECK(big.c.size == sizeof big && big.later == 0);
    big.later = 1;
    CHECK(wf_open_config(p, &big.c) == -E2BIG);
    CHECK(wf_close() == -EBADF);
    big.later = 0;
    big.c.ring_events = 100; /* rounded up to 128 */
    big.c.flush_ms = 3;
    big.c.sample_cpu = -1; /* off */
    CHECK(wf_open_config(p, &big.c) == 0);
    wf_unit u = wf_unit_new("config", -1);
    wf_mark(wf_event_define("KERNEL_START"), u); /* one event type: no cast */
    wf_event k = wf_event_define("KERNEL_END");
    CHECK(k > WF_EVENT_USER_FIRST && strcmp(wf_event_name(k), "KERNEL_END") == 0);
    wf_mark(k, u);
    wf_mark(wf_event_define(""), u); /* a negative errno: ignored */

    /* wf_stats_ex of a later version: what this library knows, then 0 */
    struct {
        wf_stats_ex st;
        uint64_t later;
    } sx;
    memset(&sx, 0xff, sizeof sx);
    sx.st.size = sizeof sx;
    CHECK(wf_get_stats_ex(&sx.st) == 0);
    CHECK(sx.st.size == sizeof sx && sx.later == 0);
    CHECK_EQ_U(sx.st.marked, 2);
    CHECK_EQ_U(sx.st.units, 1);
    CHECK_EQ_U(sx.st.threads, 1);
    CHECK(wf_close() == 0);
    wf_stats_ex se = {.size = sizeof se};
    CHECK(wf_get_stats_ex(&se) == 0);
    wf_stats st;
    wf_get_stats(&st);
    CHECK(se.size == sizeof se && se.marked == st.marked && se.recorded == st.recorded &&
          se.lost == st.lost && se.threads == st.threads && se.units == st.units);
    CHECK_EQ_U(se.marked, 2);
    CHECK_EQ_U(se.recorded, 2);
    wf_stats_ex small = {.size = sizeof(size_t)};
    CHECK(wf_get_stats_ex(&small) == -EINVAL);
    CHECK(wf_get_stats_ex(NULL) == -EINVAL);
    check_trace(p, 128, 3, 0, 2);

    /* sample_cpu: 1 wins over WATERFALL_CPU=0, 0 follows it; NULL: the
     * defaults */
    setenv("WATERFALL_CPU", "0", 1);
    wf_config on;
    wf_config_init(&on);
    on.sample_cpu = 1;
    CHECK(wf_open_config(p, &on) == 0);
    CHECK(wf_close() == 0);
    check_trace(p, 65536, 10, 1, 0);
    wf_config_init(&on);
    CHECK(wf_open_config(p, &on) == 0);
    CHECK(wf_close() == 0);
    check_trace(p, 65536, 10, 0, 0);
    unsetenv("WATERFALL_CPU");
    CHECK(wf_open_config(p, NULL) == 0);
    CHECK(wf_open_config(p, NULL) == -EALREADY);
    CHECK(wf_close() == 0);
    check_trace(p, 65536, 10, 1, 0);
    remove(p);
}

static wf_unit shared_unit;

static void *short_lived(void *arg)
{
    long n = (long)arg;
    char name[16];
    snprintf(name, sizeof name, "short-%ld", n);
    wf_thread_name(name);
    wf_thread_worker((int)n, 0);
    wf_mark(WF_GPU_PICKUP, shared_unit);
    wf_mark(WF_GPU_START, shared_unit);
    wf_mark(WF_GPU_END, shared_unit);
    return NULL; /* exits while recording: its ring must be drained, then freed */
}

int main(void)
{
    /* Before any open: nothing happens, nothing is created. */
    CHECK(wf_unit_new("early", 0) == 0);
    wf_mark(WF_SYNTH_START, 1);
    wf_mark(WF_SYNTH_START, 0);
    CHECK(wf_close() == -EBADF);
    CHECK(wf_open(NULL) == -EINVAL);
    CHECK(wf_open("") == -EINVAL);
    CHECK(wf_open("/nonexistent-dir/x.wft") == -ENOENT);

    const char *p1 = tmp_path("life1.wft");
    CHECK(wf_open(p1) == 0);
    shared_unit = wf_unit_new("shared", -1);
    wf_mark(WF_SYNTH_START, shared_unit);
    wf_mark(WF_SYNTH_START, 0);           /* unit 0: ignored */
    wf_mark((wf_event)5000, shared_unit); /* beyond WF_EVENT_MAX: ignored */
    for (long i = 0; i < 16; i++) {
        pthread_t t;
        pthread_create(&t, NULL, short_lived, (void *)i);
        pthread_join(t, NULL);
    }
    wf_mark(WF_SYNTH_END, shared_unit);
    CHECK(wf_close() == 0);

    /* After close: again nothing. */
    wf_mark(WF_GPU_END, shared_unit);
    CHECK(wf_unit_new("late", 0) == 0);
    wf_stats st;
    wf_get_stats(&st);
    CHECK_EQ_U(st.marked, 2 + 16 * 3);
    CHECK_EQ_U(st.recorded, 2 + 16 * 3);
    CHECK_EQ_U(st.threads, 17);

    struct wft_trace tr;
    struct input in;
    CHECK(load_trace(p1, &tr, &in) == 0);
    CHECK_EQ_U(tr.nev, 2 + 16 * 3);
    CHECK_EQ_U(tr.nthreads, 17);
    int named = 0, worker_marks = 0;
    for (size_t i = 0; i < tr.nthreads; i++)
        named += strncmp(tr.threads[i].name, "short-", 6) == 0;
    for (size_t i = 0; i < tr.nev; i++)
        if (tr.ev[i].event >= WF_GPU_PICKUP)
            worker_marks += tr.ev[i].worker >= 0 && tr.ev[i].device == 0;
    CHECK_EQ_U(named, 16);
    CHECK_EQ_U(worker_marks, 16 * 3);
    unload_trace(&tr, &in);

    /* A second recording in the same process: the main thread's ring is
     * reattached and starts empty; units are new. */
    const char *p2 = tmp_path("life2.wft");
    CHECK(wf_open(p2) == 0);
    wf_unit u = wf_unit_new("second", 2);
    CHECK(u != 0 && u != shared_unit);
    wf_mark(WF_SYNTH_START, u);
    wf_mark(WF_SYNTH_START, shared_unit); /* from the last session: unnamed here */
    CHECK(wf_close() == 0);
    CHECK(load_trace(p2, &tr, &in) == 0);
    CHECK_EQ_U(tr.nev, 2);
    CHECK_EQ_U(tr.nunits, 1);
    const struct wft_unit_info *ui = wft_unit_find(&tr, u);
    CHECK(ui && strcmp(ui->job, "second") == 0 && ui->partition == 2);
    CHECK(wft_unit_find(&tr, shared_unit) == NULL);
    unload_trace(&tr, &in);

    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s dump %s | grep -c ',SYNTH_START,unit-%llu,$' | grep -qx 1",
             WATERFALL_BIN, p2, (unsigned long long)shared_unit);
    CHECK(run_status(cmd) == 0);

    growing_api();

    /* An idle recording sleeps: the writer wakes every flush interval
     * (10 ms) and goes back to sleep.  Its condition wait once took a
     * CLOCK_MONOTONIC deadline as CLOCK_REALTIME, timed out at once and
     * spun a core for the whole session.  Over 400 ms idle the process
     * may use a quarter of that (40 wake-ups take well under 1 ms each,
     * even under a sanitizer or valgrind); a spinning writer uses it all. */
    const char *p3 = tmp_path("life3.wft");
    CHECK(wf_open(p3) == 0);
    double cpu0 = cpu_seconds();
    struct timespec idle = {0, 400 * 1000 * 1000};
    while (nanosleep(&idle, &idle) != 0 && errno == EINTR)
        ;
    double idle_cpu = cpu_seconds() - cpu0;
    CHECK(wf_close() == 0);
    if (!(idle_cpu < 0.1))
        fprintf(stderr, "idle recording used %.3f s of CPU in 0.4 s\n", idle_cpu);
    CHECK(idle_cpu < 0.1);
    remove(p1);
    remove(p2);
    remove(p3);
    return check_done("lifecycle");
}
