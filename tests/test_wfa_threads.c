/*
 * test_wfa_threads.c -- libwaterfall-analysis from several threads at
 * once: each analysis's JSON equals the same one alone (nothing shared
 * between calls; ThreadSanitizer runs it in CI, label "threads"), and the
 * builder, options and statuses as a program meets them.
 */
#include "check.h"

#include <waterfall_analysis.h>

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

#define NTHREADS 4

static const char *inputs[2] = {SRC_DIR "/fuzz/corpus/text/cuzk.log", SRC_DIR "/fuzz/corpus/wft/engine.wft"};
static char *alone[2];

struct job {
    int which;
    int same;
};

static char *json_of(const char *path)
{
    wfa_result *r = NULL;
    wfa_analyze_file(path, NULL, &r);
    char *j = r ? strdup(wfa_result_json(r, NULL)) : NULL;
    wfa_result_free(r);
    return j;
}

static void *worker(void *arg)
{
    struct job *jb = arg;
    jb->same = 1;
    for (int k = 0; k < 3; k++) {
        char *j = json_of(inputs[jb->which]);
        jb->same &= j && alone[jb->which] && !strcmp(j, alone[jb->which]);
        free(j);
    }
    return NULL;
}

static void test_threads(void)
{
    for (int i = 0; i < 2; i++) {
        alone[i] = json_of(inputs[i]);
        CHECK(alone[i] && strlen(alone[i]) > 100);
    }
    pthread_t t[NTHREADS];
    struct job jb[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        jb[i].which = i % 2;
        CHECK(pthread_create(&t[i], NULL, worker, &jb[i]) == 0);
    }
    for (int i = 0; i < NTHREADS; i++) {
        pthread_join(t[i], NULL);
        CHECK(jb[i].same);
    }
    free(alone[0]);
    free(alone[1]);
}

static void test_options(void)
{
    wfa_options o;
    wfa_options_init(&o);
    CHECK(o.size == sizeof o && o.advise == -1 && o.kernel_phase == NULL);
    /* a caller built against an older, shorter header: the rest defaults */
    struct {
        size_t size;
        const char *kernel_phase;
    } old = {sizeof old, NULL};
    wfa_result *r = NULL;
    CHECK(wfa_analyze_file(inputs[0], (const wfa_options *)&old, &r) == WFA_OK);
    CHECK(r && wfa_result_runs(r) == 1);
    wfa_result_free(r);
    o.advise = 7;
    CHECK(wfa_analyze_file(inputs[0], &o, &r) == WFA_USAGE);
    CHECK(r && strstr(wfa_result_messages(r), "advise") != NULL && wfa_result_runs(r) == 0);
    wfa_result_free(r);
    wfa_options_init(&o);
    o.kernel_phase = "no spaces";
    CHECK(wfa_analyze_file(inputs[0], &o, &r) == WFA_USAGE);
    wfa_result_free(r);
    o.kernel_phase = "PROVE";
    CHECK(wfa_analyze_file(inputs[0], &o, &r) == WFA_OK);
    CHECK(r && strstr(wfa_result_json(r, NULL), "\"kernel_utilization\"") != NULL);
    wfa_result_free(r);
}

static void test_builder(void)
{
    wfa_builder *b = wfa_builder_new("mine", "test");
    CHECK(b != NULL);
    const char *evs[] = {"SYNTH_START", "SYNTH_END", "GPU_QUEUE", "GPU_PICKUP", "GPU_START", "GPU_END"};
    int64_t ms = 1000000;
    for (int j = 0; j < 2; j++)
        for (int e = 0; e < 6; e++)
            CHECK(wfa_builder_event(b, (j * 100 + e * 10) * ms, j ? "b" : "a", -1, evs[e], 0, 0,
                                    (uint64_t)(j * 6 + e + 1)) == WFA_OK);
    CHECK(wfa_builder_event(b, 5 * ms, "a", -1, "synth_start", -1, -1, 13) == WFA_OK); /* a duplicate, any case */
    CHECK(wfa_builder_event(b, 5 * ms, "", -1, "SYNTH_START", -1, -1, 14) == WFA_USAGE);
    CHECK(wfa_builder_detail(b, "a", -1, "kind", "winning", 1) == WFA_OK);
    CHECK(wfa_builder_detail(b, "b", -1, "kind", "wdpost", 7) == WFA_OK);
    wfa_result *r = NULL;
    wfa_options bad;
    wfa_options_init(&bad);
    bad.advise = 9; /* refused, and the events stay for another try */
    CHECK(wfa_builder_analyze(b, &bad, &r) == WFA_USAGE);
    wfa_result_free(r);
    CHECK(wfa_builder_analyze(b, NULL, &r) == WFA_OK);
    CHECK(r && wfa_result_runs(r) == 1);
    CHECK(wfa_run_units(r, 0) == 2);
    /* busy: [40, 50] and [140, 150] ms; window [40, 150] */
    CHECK(fabs(wfa_run_busy_s(r, 0) - 0.020) < 1e-9);
    CHECK(fabs(wfa_run_window_s(r, 0) - 0.110) < 1e-9);
    CHECK(fabs(wfa_run_utilization(r, 0) - 0.020 / 0.110) < 1e-9);
    const char *j = wfa_result_json(r, NULL);
    CHECK(strstr(j, "\"format\": \"test\"") != NULL);
    CHECK(strstr(j, "\"duplicate_events\": 1") != NULL);
    CHECK(strstr(j, "\"kind\": \"duplicate\", \"line\": 13") != NULL);
    CHECK(strstr(j, "\"by_kind\": {\"wdpost\": {\"units\": 1") != NULL); /* by kind: two kinds */
    /* spent: nothing more goes in, and the result stays whole after it is freed */
    CHECK(wfa_builder_event(b, 0, "c", -1, "SYNTH_START", -1, -1, 1) == WFA_USAGE);
    wfa_result *again = NULL;
    CHECK(wfa_builder_analyze(b, NULL, &again) == WFA_USAGE && again == NULL);
    wfa_builder_free(b);
    CHECK(strstr(wfa_result_json(r, NULL), "\"source\": \"mine\"") != NULL);
    wfa_result_free(r);
    /* nothing given: no run, said */
    b = wfa_builder_new("empty", "test");
    CHECK(wfa_builder_analyze(b, NULL, &r) == WFA_INPUT);
    CHECK(r && strstr(wfa_result_messages(r), "empty: no pipeline events") != NULL);
    wfa_result_free(r);
    wfa_builder_free(b);
}

/* Bytes in memory, unnamed; and a host program whose locale writes a
 * comma for the point: the JSON still has "0.5". */
static void test_buffer_locale(void)
{
    static const char log[] = "TIMELINE,0,SYNTH_START,a,\nTIMELINE,5,SYNTH_END,a,\nTIMELINE,6,GPU_START,a,\n"
                              "TIMELINE,8,GPU_END,a,\nTIMELINE,9,GPU_START,b,\nTIMELINE,11,GPU_END,b,\n";
    wfa_result *r = NULL;
    CHECK(wfa_analyze_buffer(log, sizeof log - 1, NULL, NULL, &r) == WFA_OK);
    CHECK(r && strstr(wfa_result_json(r, NULL), "\"source\": \"\\u003cbuffer\\u003e\"") != NULL);
    char *plain = r ? strdup(wfa_result_json(r, NULL)) : NULL;
    wfa_result_free(r);
    const char *comma[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"};
    const char *got = NULL;
    for (size_t i = 0; i < 4 && !got; i++)
        got = setlocale(LC_NUMERIC, comma[i]);
    if (!got) {
        printf("wfa_threads: no locale with a decimal comma here (locales): the JSON's numbers under one not checked\n");
    } else {
        char probe[16];
        snprintf(probe, sizeof probe, "%.1f", 0.5);
        CHECK(strcmp(probe, "0,5") == 0);
        CHECK(wfa_analyze_buffer(log, sizeof log - 1, NULL, NULL, &r) == WFA_OK);
        CHECK(r && plain && strcmp(wfa_result_json(r, NULL), plain) == 0);
        wfa_result_free(r);
        setlocale(LC_NUMERIC, "C");
    }
    free(plain);
}

int main(void)
{
    test_buffer_locale();
    test_options();
    test_builder();
    test_threads();
    return check_done("wfa_threads");
}
