/*
 * fuzz_kineto.c -- libFuzzer target: a PyTorch (Kineto) trace through the
 * analysis: read as a file (read_kineto.c's streaming yajl reader, chosen
 * by ingest's sniffing, so inputs that lose the JSON shape go to the other
 * readers as they would), model, analyse, and all three reports.  Each
 * stream's HTA categories must add up to its idle, busy stay within the
 * window, utilization in [0, 1], and the causes add up to idle.
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
    for (int c = 0; c < CAUSE_N; c++)
        sum += r->by_cause[c];
    if (sum != r->idle || r->utilization < 0 || r->utilization > 1.0000001 || r->busy > r->window)
        if (!(r->window == 0 && r->busy == 0))
            abort();
    for (size_t d = 0; d < r->ndev; d++)
        for (size_t s = 0; s < r->dev[d].nstreams; s++) {
            const struct stream_result *st = &r->dev[d].streams[s];
            if (st->host_wait + st->kernel_wait + st->other != st->idle || st->busy < 0 || st->ops == 0)
                abort();
        }
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static FILE *sink;
    if (!sink)
        sink = fopen("/dev/null", "w");
    int fd = memfd_create("fuzz", 0);
    if (fd < 0)
        return 0;
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
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
            report_json(sink, &m, res, n, &o);
            report_text(sink, &m, res, n, &o);
            report_csv(sink, res, n);
            for (size_t i = 0; i < n; i++)
                run_result_free(&res[i]);
            free(res);
        }
    }
    model_free(&m);
    source_free(&src);
    close(fd);
    return 0;
}
