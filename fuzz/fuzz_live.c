/*
 * fuzz_live.c -- libFuzzer target: `watch`'s reader and live state on any
 * bytes, fed in chunks of random sizes (lines cut anywhere) and settled at
 * random points, against `analyze` on the same bytes.
 *
 * The input's first byte seeds the chunk sizes and settle points; the rest
 * is the log.  The invariant is docs/live.md's promise: once the log has
 * ended, the settled totals (busy, idle by cause, units completed, runs,
 * stage counts) equal analyze's summed over its runs, whenever no record
 * came behind the horizon and the log is clean (below); and in any case
 * idle is the sum of its causes.
 */
#include "analyze.h"
#include "ingest.h"
#include "lines.h"
#include "live.h"
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static uint32_t rng_next(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static int saw_wall, saw_ts; /* records timed by their line; by ts= (or an offset) */

static void chunk_apply(struct live *l, const struct lines_chunk *c)
{
    for (size_t i = 0; i < c->nrec; i++) {
        saw_wall |= c->rec[i].wall;
        saw_ts |= !c->rec[i].wall;
    }
    if (c->failed || live_recs(l, c->rec, c->nrec))
        abort(); /* memory: not under the fuzzer's limits */
    l->lines += c->lines;
    l->skipped += c->skipped;
}

/* The log through the pipe as watch reads it; 0, or -1 (memory). */
static int live_read(struct live *l, const unsigned char *d, size_t n, uint32_t seed)
{
    struct lines_pipe *p = lines_pipe_new();
    if (!p)
        return -1;
    size_t at = 0;
    while (at < n) {
        struct lines_chunk *c = lines_pipe_idle(p);
        if (!c) { /* all in flight: apply the oldest */
            c = lines_pipe_next(p);
            chunk_apply(l, c);
            lines_pipe_done(p, c);
            continue;
        }
        uint32_t r = rng_next(&seed);
        size_t len = r % 8 == 0 ? 1 + r % 7 : 1 + r % 4096; /* often tiny: lines cut anywhere */
        if (len > n - at)
            len = n - at;
        memcpy(c->buf, d + at, len);
        at += len;
        lines_pipe_submit(p, c, len, 0);
        if (rng_next(&seed) % 4 == 0) { /* apply what was read, and settle, now and then */
            struct lines_chunk *k;
            while ((k = lines_pipe_next(p))) {
                chunk_apply(l, k);
                lines_pipe_done(p, k);
            }
            if (live_settle(l, rng_next(&seed) % 8 == 0, 0))
                abort();
        }
    }
    struct lines_chunk *k;
    while ((k = lines_pipe_next(p))) {
        chunk_apply(l, k);
        lines_pipe_done(p, k);
    }
    if (lines_pipe_end(p)) {
        k = lines_pipe_next(p);
        chunk_apply(l, k);
        lines_pipe_done(p, k);
    }
    lines_pipe_free(p);
    return live_settle(l, 1, 1);
}

static int near(int64_t a, int64_t b)
{
    return a == b;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    if (size < 1)
        return 0;
    uint32_t seed = data[0];
    data++, size--;

    saw_wall = saw_ts = 0;
    struct live l;
    struct live_opts lo = {.slack_ns = 2000000000, .recent_ns = 60000000000, .keep = 200};
    if (live_init(&l, &lo) || live_read(&l, data, size, seed))
        abort();
    int64_t busy = 0, idle = 0, cause[CAUSE_N] = {0};
    for (size_t i = 0; i < l.ndev; i++) {
        const struct live_dev *d = &l.dev[i];
        int64_t sum = 0;
        for (int c = 0; c < CAUSE_N; c++)
            sum += d->by_cause[c], cause[c] += d->by_cause[c];
        if (sum != d->idle)
            abort(); /* idle is the sum of its causes */
        busy += d->busy, idle += d->idle;
    }

    /* analyze on the same bytes */
    int fd = memfd_create("fuzz", 0);
    if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
        abort();
    char path[64], err[512];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    struct source src;
    struct model m = {0};
    int read_ok = ingest(&src, path, &m, 0, err, sizeof err) == 0;
    /* Compared on a clean log: one clock, nothing late, duplicated,
     * contradictory or skipped.  On a log that mixes clocks, analyze aligns
     * them over the whole log and watch with what it has read so far
     * (docs/live.md); a contradiction or a duplicate is judged by analyze
     * on the unit's final events and by watch as they come.  What is left
     * to differ is what the random chunks and settle points could change,
     * which must be nothing. */
    int clean = !(saw_wall && saw_ts) && l.late == 0 && l.duplicates == 0 && l.contradictions == 0 &&
                l.skipped == 0;
    for (size_t i = 0; read_ok && i < m.nruns; i++)
        clean &= m.runs[i].duplicates == 0 && m.runs[i].contradictions == 0 && m.runs[i].late_lines == 0 &&
                 m.runs[i].skipped_lines == 0;
    if (read_ok && clean) {
        int64_t a_busy = 0, a_idle = 0, a_cause[CAUSE_N] = {0};
        uint64_t a_done = 0;
        for (size_t i = 0; i < m.nruns; i++) {
            struct run_result r;
            if (analyze_run(&m.runs[i], &r))
                abort();
            a_busy += r.busy, a_idle += r.idle;
            for (int c = 0; c < CAUSE_N; c++)
                a_cause[c] += r.by_cause[c];
            a_done += r.units - r.in_flight - r.inconsistent;
            run_result_free(&r);
        }
        int same = near(a_busy, busy) && near(a_idle, idle) && a_done == l.units_completed &&
                   (size_t)l.run == m.nruns;
        for (int c = 0; c < CAUSE_N; c++)
            same = same && near(a_cause[c], cause[c]);
        if (!same) {
            fprintf(stderr, "fuzz_live: watch and analyze differ: busy %lld/%lld idle %lld/%lld units %llu/%llu runs %d/%zu\n",
                    (long long)busy, (long long)a_busy, (long long)idle, (long long)a_idle,
                    (unsigned long long)l.units_completed, (unsigned long long)a_done, l.run, m.nruns);
            abort();
        }
    }
    model_free(&m);
    source_free(&src);
    close(fd);
    live_free(&l);
    return 0;
}
