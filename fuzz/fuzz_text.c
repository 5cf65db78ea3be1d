/*
 * fuzz_text.c -- libFuzzer target: a whole text log through the analysis:
 * read (as a file), model, analyse, and all three reports.  The causes
 * must add up to idle, busy must stay within the window, utilization in
 * [0, 1]; and the log read in one range and in 2 to 8 ranges (the parallel
 * reader's split, WATERFALL_READ_THREADS) must give the same JSON, byte for
 * byte.
 */
#include "analyze.h"
#include "ingest.h"
#include "model.h"
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static void check(const struct run_result *r)
{
    int64_t sum = 0;
    for (int c = 0; c < CAUSE_N; c++) {
        if (r->by_cause[c] < 0)
            abort();
        sum += r->by_cause[c];
    }
    if (sum != r->idle || r->utilization < 0 || r->utilization > 1.0000001 || r->busy > r->window)
        if (!(r->window == 0 && r->busy == 0))
            abort();
}

/* The file read with `threads` ranges, analysed and reported; its JSON in
 * *json (malloc'd; NULL when the file could not be read). */
static void analyse(const char *path, const char *threads, char **json, size_t *json_len, int all_reports)
{
    static FILE *sink;
    if (!sink)
        sink = fopen("/dev/null", "w");
    setenv("WATERFALL_READ_THREADS", threads, 1);
    *json = NULL;
    *json_len = 0;
    char err[512];
    struct source src;
    struct model m = {0};
    if (ingest(&src, path, &m, 0, err, sizeof err) == 0) {
        struct run_result *res = calloc(m.nruns ? m.nruns : 1, sizeof *res);
        size_t n = 0;
        for (; res && n < m.nruns; n++) {
            if (analyze_run(&m.runs[n], &res[n]))
                break;
            check(&res[n]);
        }
        if (res) {
            struct report_opts o = {.gaps = 1, .max_gaps = 3};
            FILE *j = open_memstream(json, json_len);
            if (j) {
                report_json(j, &m, res, n, &o);
                fclose(j);
            }
            if (all_reports) {
                report_text(sink, &m, res, n, &o);
                report_csv(sink, res, n);
            }
            for (size_t i = 0; i < n; i++)
                run_result_free(&res[i]);
            free(res);
        }
    }
    model_free(&m);
    source_free(&src);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    int fd = memfd_create("fuzz", 0);
    if (fd < 0)
        return 0;
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    char *one, *many;
    size_t one_len, many_len;
    char threads[4];
    snprintf(threads, sizeof threads, "%u", 2 + (unsigned)(size % 7));
    analyse(path, "1", &one, &one_len, 1);
    analyse(path, threads, &many, &many_len, 0);
    if ((one == NULL) != (many == NULL) || one_len != many_len || (one && memcmp(one, many, one_len))) {
        fprintf(stderr, "fuzz_text: one range and %s ranges give different JSON\n", threads);
        abort(); /* the split changes nothing */
    }
    free(one);
    free(many);
    close(fd);
    return 0;
}
