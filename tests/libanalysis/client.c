/*
 * client.c -- a program that links only libwaterfall-analysis (found by
 * pkg-config): the analysis of each file given, its JSON on stdout, its
 * messages on stderr, its status as the exit status; --buffer reads the
 * file into memory first and analyses the bytes; --summary prints the
 * headline figures instead; --kernel-delay US sets the options'
 * consecutive_kernel_delay_us, --stage STAGE=GLOB adds to its stages (the
 * others are wfa_options_init's).
 */
#include <waterfall_analysis.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *b = malloc(cap);
    size_t r;
    while (b && (r = fread(b + len, 1, cap - len, f)) > 0)
        if ((len += r) == cap && !(b = realloc(b, cap *= 2)))
            break;
    fclose(f);
    *n = len;
    return b;
}

int main(int argc, char **argv)
{
    int buffer = 0, summary = 0, st = 0;
    wfa_options o;
    wfa_options_init(&o);
    const char *stages[8];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--stage") && i + 1 < argc && o.nstages < 8) {
            stages[o.nstages++] = argv[++i];
            o.stages = stages;
            continue;
        }
        if (!strcmp(argv[i], "--kernel-delay") && i + 1 < argc) {
            o.consecutive_kernel_delay_us = atof(argv[++i]);
            continue;
        }
        if (!strcmp(argv[i], "--buffer")) {
            buffer = 1;
            continue;
        }
        if (!strcmp(argv[i], "--summary")) {
            summary = 1;
            continue;
        }
        wfa_result *res = NULL;
        if (buffer) {
            size_t n = 0;
            char *b = slurp(argv[i], &n);
            if (!b) {
                fprintf(stderr, "client: %s: cannot read\n", argv[i]);
                return 1;
            }
            st = wfa_analyze_buffer(b, n, argv[i], &o, &res);
            free(b);
        } else {
            st = wfa_analyze_file(argv[i], &o, &res);
        }
        if (!res) {
            fprintf(stderr, "client: out of memory\n");
            return 1;
        }
        if (summary) {
            for (size_t k = 0; k < wfa_result_runs(res); k++)
                printf("run %zu: units %llu busy %.6f s window %.6f s utilization %.4f bottleneck %s\n", k + 1,
                       (unsigned long long)wfa_run_units(res, k), wfa_run_busy_s(res, k), wfa_run_window_s(res, k),
                       wfa_run_utilization(res, k), wfa_run_bottleneck(res, k));
        } else {
            size_t len;
            const char *j = wfa_result_json(res, &len);
            fwrite(j, 1, len, stdout);
        }
        fputs(wfa_result_messages(res), stderr);
        if (wfa_result_status(res) != st)
            fprintf(stderr, "client: the result's status %d is not the call's %d\n", wfa_result_status(res), st);
        wfa_result_free(res);
    }
    return st;
}
