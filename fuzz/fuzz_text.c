/*
 * fuzz_text.c -- libFuzzer target: a whole text log through the analysis:
 * read (as a file), model, analyse, and all three reports.  The causes
 * must add up to idle and utilization must stay in [0, 1].
 */
#include "analyze.h"
#include "ingest.h"
#include "model.h"
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

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
    char path[64], err[512];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    struct source src;
    struct model m = {0};
    if (ingest(&src, path, 0, err, sizeof err) == 0 &&
        model_add(&m, src.name, src.parts, src.nparts, src.native, src.lost_events) == 0) {
        struct run_result *res = calloc(m.nruns ? m.nruns : 1, sizeof *res);
        size_t n = 0;
        for (; res && n < m.nruns; n++) {
            if (analyze_run(&m.runs[n], &res[n]))
                break;
            const struct run_result *r = &res[n];
            int64_t sum = 0;
            for (int c = 0; c < CAUSE_N; c++) {
                if (r->by_cause[c] < 0)
                    abort();
                sum += r->by_cause[c];
            }
            if (sum != r->idle || r->utilization < 0 || r->utilization > 1.0000001 || r->busy > r->window + 0)
                if (!(r->window == 0 && r->busy == 0))
                    abort();
        }
        if (res) {
            struct report_opts o = {.gaps = 1, .max_gaps = 3};
            report_text(sink, &m, res, n, &o);
            report_json(sink, &m, res, n, &o);
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
