/*
 * test_abi.c -- a program built against the 0.1 header runs against
 * today's shared library.  tests/abi/waterfall-0.1.h is include/waterfall.h
 * as version 0.1.0 had it (the enum wf_event, wf_event_define returning
 * int, wf_options and wf_stats); this program uses every call of it, then
 * checks the trace with `waterfall dump`: the options it passed in the 0.1
 * layout were read as such, every mark is there with its unit, its user
 * event and its thread's role, and the 0.1 wf_stats adds up.
 */
#include "waterfall-0.1.h"

#include "check.h"

#ifdef WF_VERSION_PATCH /* only the new header (waterfall_version.h) has it */
#error "built against the new header, not tests/abi/waterfall-0.1.h"
#endif

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define UNITS 4

static wf_unit units[UNITS];
static int msm_done;

static void *gpu_worker(void *arg)
{
    (void)arg;
    wf_thread_name("abi-gpu");
    wf_thread_worker(0, 1);
    for (int i = 0; i < UNITS; i++) {
        wf_event ev = WF_GPU_PICKUP; /* the 0.1 enum, passed as 0.1 passed it */
        wf_mark(ev, units[i]);
        wf_mark(WF_GPU_START, units[i]);
        wf_mark((wf_event)msm_done, units[i]);
        wf_mark(WF_GPU_END, units[i]);
    }
    return NULL;
}

/* The first line of cmd's output, or "" (and the count of its lines). */
static int run_lines(const char *cmd, char *first, size_t n)
{
    FILE *p = popen(cmd, "r");
    int lines = 0;
    char buf[512];
    first[0] = 0;
    if (!p)
        return -1;
    while (fgets(buf, sizeof buf, p)) {
        if (lines++ == 0)
            snprintf(first, n, "%s", buf);
    }
    return pclose(p) == 0 ? lines : -1;
}

int main(void)
{
    char path[256], text[256], cmd[1024], line[512];
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(path, sizeof path, "%s/abi-%d.wft", tmp, (int)getpid());
    snprintf(text, sizeof text, "%s/abi-%d.txt", tmp, (int)getpid());

    /* The library loaded is the new one: it has wf_version, which 0.1 had not. */
    int (*version)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "wf_version");
    CHECK(version != NULL);
    if (version)
        printf("abi: built with header %d.%d, running library %d\n", WF_VERSION_MAJOR,
               WF_VERSION_MINOR, version());
    CHECK(version && version() >= 200);

    /* User events, defined before open, as an int. */
    msm_done = wf_event_define("MSM_DONE");
    CHECK(msm_done >= WF_EVENT_USER_FIRST && msm_done <= WF_EVENT_MAX);
    CHECK(wf_event_define("MSM_DONE") == msm_done);
    CHECK(wf_event_define("GPU_END") == WF_GPU_END);
    CHECK(wf_event_define("") == -EINVAL);
    CHECK(wf_event_name(msm_done) && strcmp(wf_event_name(msm_done), "MSM_DONE") == 0);
    CHECK(wf_event_name(WF_CHAN_SEND) && strcmp(wf_event_name(WF_CHAN_SEND), "CHAN_SEND") == 0);

    /* wf_options in the 0.1 layout: each member must arrive. */
    wf_options o = {.ring_events = 1000, .flush_ms = 7, .block_when_full = 1};
    o.timeline = text;
    o.timeline_decimals = 3;
    CHECK(wf_open_opts(path, &o) == 0);
    CHECK(wf_open(path) == -EALREADY);
    wf_thread_name("abi-main");
    for (int i = 0; i < UNITS; i++) {
        char job[32];
        snprintf(job, sizeof job, "abi-%d", i);
        units[i] = wf_unit_new(job, i);
        CHECK(units[i] != 0);
        wf_mark(WF_SYNTH_START, units[i]);
        wf_mark(WF_SYNTH_END, units[i]);
        wf_mark(WF_CHAN_SEND, units[i]);
    }
    pthread_t t;
    pthread_create(&t, NULL, gpu_worker, NULL);
    pthread_join(t, NULL);
    CHECK(wf_close() == 0);

    /* wf_stats in the 0.1 layout. */
    wf_stats st;
    memset(&st, 0xff, sizeof st);
    wf_get_stats(&st);
    CHECK_EQ_U(st.marked, UNITS * 7);
    CHECK_EQ_U(st.recorded, UNITS * 7);
    CHECK_EQ_U(st.lost, 0);
    CHECK_EQ_U(st.threads, 2);
    CHECK_EQ_U(st.units, UNITS);

    /* The trace, as the command reads it. */
    FILE *f = fopen(path, "rb");
    unsigned char magic[8] = {0};
    CHECK(f && fread(magic, 1, 8, f) == 8);
    if (f)
        fclose(f);
    CHECK(memcmp(magic, "\x89WFT\r\n\x1a\n", 8) == 0);
    snprintf(cmd, sizeof cmd, "%s dump %s", WATERFALL_BIN, path);
    CHECK(run_lines(cmd, line, sizeof line) == UNITS * 7);
    snprintf(cmd, sizeof cmd, "%s dump %s | grep -c ',MSM_DONE,abi-[0-9],worker=0,partition=[0-9],device=1$'",
             WATERFALL_BIN, path);
    CHECK(run_lines(cmd, line, sizeof line) == 1 && atoi(line) == UNITS);
    snprintf(cmd, sizeof cmd, "%s dump %s | grep -c ',SYNTH_START,abi-[0-9],partition=[0-9]$'",
             WATERFALL_BIN, path);
    CHECK(run_lines(cmd, line, sizeof line) == 1 && atoi(line) == UNITS);
    /* ring_events 1000 (rounded up to 1024), flush_ms 7, blocking */
    snprintf(cmd, sizeof cmd, "%s dump --stats %s 2>&1 | grep 'recorder:'", WATERFALL_BIN, path);
    CHECK(run_lines(cmd, line, sizeof line) == 1);
    CHECK(strstr(line, "ring 1024 events/thread") != NULL);
    CHECK(strstr(line, "flush every 7 ms") != NULL);
    CHECK(strstr(line, "drops when full") == NULL);
    if (!strstr(line, "ring 1024 events/thread") || !strstr(line, "flush every 7 ms"))
        fprintf(stderr, "dump --stats: %s", line);
    /* the TIMELINE lines, with 3 decimals */
    snprintf(cmd, sizeof cmd, "grep -c '^TIMELINE,[0-9]*\\.[0-9][0-9][0-9],' %s", text);
    CHECK(run_lines(cmd, line, sizeof line) == 1 && atoi(line) == UNITS * 7);
    remove(path);
    remove(text);
    return check_done("abi");
}
