/*
 * gen_chaos.c -- a random, messy TIMELINE log for the reader's tests:
 * several runs (each restarting its epoch), units interleaved, both text
 * forms, noise, ANSI colours, CRLF, "TIMELINE" inside other words, lines
 * that do not parse, duplicated, missing and contradictory events, times
 * a little out of order, workers and devices that change.  The same seed
 * gives the same bytes.
 *
 *   gen_chaos SEED LINES > log
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t rs;

static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

static int pick(int n) /* 0 .. n-1 */
{
    return (int)(rnd() % (uint64_t)n);
}

static int chance(int pct)
{
    return pick(100) < pct;
}

static const char *names[6] = {"SYNTH_START", "SYNTH_END", "GPU_QUEUE", "GPU_PICKUP", "GPU_START",
                               "GPU_END"};
static const char *seed_names[6] = {"synth_start", "synth_end", "chan_send", "gpu_pickup",
                                    "gpu_start", "gpu_end"};

static void noise(void)
{
    switch (pick(6)) {
    case 0:
        printf("2026-02-18T19:21:09.777777Z  WARN cuzk_core::memory: pool low free=%d\n", pick(9));
        break;
    case 1:
        printf("\x1b[2m2026-02-18T19:21:10Z\x1b[0m \x1b[34mDEBUG\x1b[0m msm took=%d.%02ds\n", pick(5),
               pick(100));
        break;
    case 2:
        printf("INFO NOTIMELINE_MARKER request accepted sector=%d\r\n", pick(99));
        break;
    case 3:
        printf("\n");
        break;
    case 4:
        printf("TIMELINES are nice, said nobody\n");
        break;
    default:
        printf("x TIMELINE,%s,SYNTH_START,bad-%d\n", chance(50) ? "12a" : "", pick(9));
        break;
    }
}

/* One event line for unit (job, part) at t_ms. */
static void event(int form, int run, int job, int part, int ev, int64_t t_us, int worker, int device)
{
    char jid[64];
    if (job % 7 == 3)
        snprintf(jid, sizeof jid, "r%d-job-%d-with-a-rather-long-identifier-%08x", run % 2, job,
                 (unsigned)job * 2654435761u);
    else
        snprintf(jid, sizeof jid, "j%d", job);
    const char *prefix = "";
    switch (pick(5)) {
    case 0:
        prefix = "2026-02-18T19:21:09.1Z INFO cuzk: ";
        break;
    case 1:
        prefix = "\x1b[32m";
        break;
    default:
        break;
    }
    const char *eol = chance(10) ? "\r\n" : "\n";
    if (form == 0) {
        printf("%sTIMELINE,%" PRId64 ".%03d,%s,%s", prefix, t_us / 1000, (int)(t_us % 1000), names[ev],
               jid);
        if (part >= 0)
            printf(",partition=%d", part);
        if (worker >= 0)
            printf(",worker=%d", worker);
        if (device >= 0)
            printf(",%s=%d", chance(50) ? "gpu" : "device", device);
        printf("%s", eol);
    } else {
        printf("%sTIMELINE %s job=%s ts=%" PRId64 ".%06d", prefix, seed_names[ev], jid,
               t_us / 1000000, (int)(t_us % 1000000));
        if (part >= 0)
            printf(" partition=%d", part);
        if (worker >= 0)
            printf(" worker=%d", worker);
        if (device >= 0)
            printf(" device=%d", device);
        printf("%s", eol);
    }
}

struct pending {
    int64_t t;
    int job, part, ev, worker, device;
};

static int cmp(const void *a, const void *b)
{
    const struct pending *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: gen_chaos SEED LINES\n");
        return 2;
    }
    rs = strtoull(argv[1], NULL, 10) * 0x9E3779B97F4A7C15ull + 1;
    long lines = atol(argv[2]);
    int runs = 1 + pick(4);
    long per_run = lines / runs + 1;
    int form = pick(3); /* 0 cuzk, 1 seed, 2 both */
    for (int run = 0; run < runs; run++) {
        /* units in this run: each has up to six events */
        int nunits = (int)(per_run / 8) + 1;
        struct pending *ev = calloc((size_t)nunits * 8, sizeof *ev);
        size_t n = 0;
        /* short runs make restarts near part boundaries hard to see */
        int64_t span_us = chance(30) ? 50000 + pick(400000) : 2000000 + pick(200000000);
        int njobs = nunits / (1 + pick(4)) + 1;
        for (int u = 0; u < nunits; u++) {
            int job = pick(njobs);
            int part = chance(60) ? pick(12) : -1;
            int64_t t = (int64_t)(rnd() % (uint64_t)span_us);
            int worker = pick(3), device = chance(20) ? pick(2) : -1;
            for (int e = 0; e < 6; e++) {
                if (chance(4))
                    continue; /* a missing event */
                int64_t te = t + (e ? pick(30000) : 0);
                if (chance(2))
                    te -= pick(60000); /* contradiction */
                if (te < 0)
                    te = 0;
                ev[n++] = (struct pending){te, job, part, e, e >= 3 ? worker : -1,
                                           e >= 3 ? device : -1};
                if (chance(2) && n < (size_t)nunits * 8)
                    ev[n++] = (struct pending){te + pick(5000), job, part, e, worker,
                                               chance(50) ? device : -1}; /* duplicate */
                t = te;
            }
        }
        qsort(ev, n, sizeof *ev, cmp);
        /* a few lines a little out of order, as threads print them */
        for (size_t i = 1; i < n; i++)
            if (chance(3)) {
                struct pending x = ev[i];
                ev[i] = ev[i - 1];
                ev[i - 1] = x;
            }
        for (size_t i = 0; i < n; i++) {
            while (chance(40))
                noise();
            int f = form == 2 ? pick(2) : form;
            event(f, run, ev[i].job, ev[i].part, ev[i].ev, ev[i].t, ev[i].worker, ev[i].device);
        }
        free(ev);
    }
    if (chance(50))
        printf("TIMELINE,99,SYNTH_START,torn-unit,partit"); /* a torn last line */
    return 0;
}
