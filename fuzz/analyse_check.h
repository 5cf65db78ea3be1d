/*
 * analyse_check.h -- a whole input through the analysis, as the command
 * reads it (ingest, chosen by content), for the targets that feed files
 * (fuzz_text, fuzz_kineto): every run analysed and its figures checked
 * (the causes add up to idle, busy within the window, utilization in
 * [0, 1]; a trace of streams: HTA's categories add up to each stream's
 * idle), then the reports.  Aborts (the fuzzer's crash) when one does not
 * hold.
 */
#ifndef ANALYSE_CHECK_H
#define ANALYSE_CHECK_H

#include "analyze.h"
#include "ingest.h"
#include "model.h"
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* The fuzzer's bytes as a file (a memfd): its descriptor, and its path in
 * path[64]; -1 when it cannot be made. */
static inline int analyse_memfd(const unsigned char *data, size_t size, char *path)
{
    int fd = memfd_create("fuzz", 0);
    if (fd < 0)
        return -1;
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return -1;
    }
    snprintf(path, 64, "/proc/self/fd/%d", fd);
    return fd;
}

static inline void analyse_check_run(const struct run_result *r)
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
    /* a trace of streams: HTA's categories add up to its idle (a category
     * may be negative, as HTA's is: operations that overlap on a stream
     * make a negative gap, which it sums as kernel_wait) */
    for (size_t d = 0; d < r->ndev; d++)
        for (size_t s = 0; s < r->dev[d].nstreams; s++) {
            const struct stream_result *st = &r->dev[d].streams[s];
            if (st->busy < 0 || st->ops == 0 || st->host_wait + st->kernel_wait + st->other != st->idle)
                abort();
        }
}

/* The file read with `threads` ranges (and a trace's CPU ranges as the
 * stages says: NULL none), analysed and reported; its JSON in *json
 * (malloc'd; NULL when the file could not be read). */
static inline void analyse(const char *path, const char *threads, const struct stage_map *stages, char **json,
                           size_t *json_len, int all_reports)
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
    m.stages = stages;
    if (ingest(&src, path, &m, 0, err, sizeof err) == 0) {
        struct run_result *res = calloc(m.nruns ? m.nruns : 1, sizeof *res);
        size_t n = 0;
        for (; res && n < m.nruns; n++) {
            if (analyze_run(&m.runs[n], &res[n]))
                break;
            analyse_check_run(&res[n]);
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

#endif /* ANALYSE_CHECK_H */
