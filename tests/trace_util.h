/*
 * trace_util.h -- helpers the recorder tests share: load a trace with the
 * tool's own reader, run the tool, make temporary paths.
 */
#ifndef TRACE_UTIL_H
#define TRACE_UTIL_H

#include "input.h"
#include "read_wft.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A path in the test's scratch directory (ctest runs in build/tests). */
static inline const char *tmp_path(const char *name)
{
    static char buf[8][512];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, 512, "%s/%s-%d", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name,
             (int)getpid());
    return p;
}

/* Read path into t (sorted), with what its rings file holds when it did
 * not finish; returns wft_parse_recover's result. */
static inline int load_trace(const char *path, struct wft_trace *t, struct input *in)
{
    char err[512];
    if (input_open(in, path, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        memset(t, 0, sizeof *t);
        return -1;
    }
    int rc = wft_parse_recover(t, path, in->data, in->len, err, sizeof err);
    if (rc)
        fprintf(stderr, "%s\n", err);
    else
        wft_sort(t);
    return rc;
}

static inline void unload_trace(struct wft_trace *t, struct input *in)
{
    wft_free(t);
    input_close(in);
}

/* Run a shell command; its exit status (or -1). */
static inline int run_status(const char *cmd)
{
    int st = system(cmd);
    if (st == -1 || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

#endif /* TRACE_UTIL_H */
