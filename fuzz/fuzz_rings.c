/*
 * fuzz_rings.c -- libFuzzer target: a trace that did not finish, read with
 * whatever its rings file holds (read_rings.c).  The input is a 4-byte
 * length n, a trace of n bytes, then the rings file (fuzz/seed_rings.c
 * makes the seeds from killed recordings).  Both are written beside each
 * other in a scratch directory, as a crashed recorder leaves them.
 *
 * Beyond trace_check.h: the rings file only ever adds to the trace.  When
 * it was read, the events are the trace's own plus those it reports taken
 * from the rings; when it was not, the trace is read as if it were absent.
 */
#include "read_wft.h"
#include "trace_check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static int put(const char *path, const unsigned char *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(d, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static char dir[64], trace[96], rings[128];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/fuzz_rings.XXXXXX");
        if (!mkdtemp(dir))
            abort();
        snprintf(trace, sizeof trace, "%s/t.wft", dir);
        snprintf(rings, sizeof rings, "%s/t.wft.rings", dir);
    }
    uint32_t n;
    if (size < 4)
        return 0;
    memcpy(&n, data, 4);
    if (n > size - 4)
        n = (uint32_t)(size - 4);
    const unsigned char *tr = data + 4, *rg = tr + n;
    size_t rn = size - 4 - n;
    if (put(trace, tr, n) || put(rings, rg, rn))
        abort();

    struct wft_trace alone, with;
    char err[256];
    int a = wft_parse(&alone, trace, tr, n, err, sizeof err);
    int w = wft_parse_recover(&with, trace, tr, n, err, sizeof err);
    if (a == 0 && w == 0) {
        trace_check(&with);
        if (with.rings == WFT_RINGS_READ) {
            if (with.nev != alone.nev + with.rings_events)
                abort(); /* the rings add what they report, and only that */
        } else if (with.nev != alone.nev) {
            abort(); /* a rings file not taken changes nothing */
        }
    } else if (a == 0) {
        abort(); /* a rings file never makes a readable trace unreadable */
    }
    wft_free(&alone);
    wft_free(&with);
    return 0;
}
