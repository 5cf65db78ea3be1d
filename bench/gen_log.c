/*
 * gen_log.c -- a cuzk-style daemon log of any size, for benchmarks and
 * large-input tests.
 *
 *   gen_log [--bytes N] [--noise F] [--partitions P] [--concurrency C]
 *           [--workers W] [--seed S] [--jobs J] [--tracing] [--dense] > log
 *
 * It simulates the pipeline (C syntheses at once, each job split into P
 * partitions, W GPU workers on one device) and prints the TIMELINE lines a
 * daemon prints, mixed with tracing output (timestamps, levels, ANSI
 * colours, CRLF now and then) so that noise makes up fraction F of the
 * bytes (default 0.7).  It stops after N bytes (default 1 GiB), at a line
 * boundary, or after J whole jobs (J x P units) when --jobs is given.
 * Deterministic for a given seed.
 *
 * --tracing prints each record as the daemon's tracing subscriber does: a
 * timestamp, a level and a target before the TIMELINE body.
 *
 * --dense is the shape of a busy cuzk daemon's log where the records are
 * most of the bytes (the shape issue 20 measured: 694k units, 4.16 M
 * records in 1 GB): --tracing, 69,400 jobs of 10 partitions, 43% noise,
 * which comes to about 10^9 bytes.  Options after it override it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double uniform(void)
{
    return (double)(next() >> 11) / 9007199254740992.0;
}

struct ev {
    double t;
    int kind, job, part, worker;
};

static const char *names[6] = {"SYNTH_START", "SYNTH_END", "GPU_QUEUE", "GPU_PICKUP",
                               "GPU_START", "GPU_END"};

static int ev_cmp(const void *a, const void *b)
{
    const struct ev *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

static const char *noise[] = {
    "2026-02-18T19:21:07.512034Z  INFO cuzk_core::engine: synthesis complete, sending to GPU synth_ms=36512 circuit_id=porep-32g",
    "\x1b[2m2026-02-18T19:21:07.560000Z\x1b[0m \x1b[32m INFO\x1b[0m cuzk_core::engine: GPU_TIMING prove_start returned",
    "2026-02-18T19:21:08.001200Z DEBUG cuzk_core::srs: parameter cache hit key=stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0",
    "2026-02-18T19:21:09.777777Z  WARN cuzk_core::memory: pinned buffer pool low free=3 total=16",
    "\x1b[2m2026-02-18T19:21:10.100000Z\x1b[0m \x1b[34mDEBUG\x1b[0m bellperson::groth16::prover: msm bases=134217728 window=16 took=1.83s",
    "2026-02-18T19:21:11.000001Z  INFO cuzk_server::grpc: request accepted sector=17 proof=porep-c2 queue_depth=4",
};

int main(int argc, char **argv)
{
    uint64_t bytes = 1ull << 30;
    double noise_frac = 0.7;
    int parts = 10, conc = 2, workers = 2;
    long long jobs = -1; /* -1: as many as the bytes allow */
    int tracing = 0;
    for (int i = 1; i < argc; i += 2) {
        if (!strcmp(argv[i], "--tracing")) {
            tracing = 1;
            i--;
            continue;
        }
        if (!strcmp(argv[i], "--dense")) {
            tracing = 1;
            jobs = 69400;
            noise_frac = 0.43;
            bytes = UINT64_MAX;
            i--;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "gen_log: %s needs a value\n", argv[i]);
            return 2;
        }
        if (!strcmp(argv[i], "--bytes"))
            bytes = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--noise"))
            noise_frac = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--partitions"))
            parts = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--concurrency"))
            conc = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--workers"))
            workers = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--jobs"))
            jobs = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed"))
            rng = strtoull(argv[i + 1], NULL, 10) * 0x9E3779B97F4A7C15ull + 1;
        else {
            fprintf(stderr, "gen_log: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (parts < 1 || conc < 1 || workers < 1 || noise_frac < 0 || noise_frac >= 1) {
        fprintf(stderr, "gen_log: bad parameters\n");
        return 2;
    }
    static char out[1 << 20];
    size_t n = 0;
    uint64_t written = 0, tl_bytes = 0, noise_bytes = 0;
    double synth_free[64] = {0}, gpu_free[64] = {0};
    if (conc > 64)
        conc = 64;
    if (workers > 64)
        workers = 64;
    struct ev *evs = malloc(sizeof *evs * 6 * (size_t)parts);
    for (int job = 0; written < bytes && (jobs < 0 || job < jobs); job++) {
        /* Schedule the job's partitions: synthesis on the earliest free slot,
         * then the earliest free GPU worker. */
        int k = 0;
        for (int p = 0; p < parts; p++) {
            int s = 0;
            for (int i = 1; i < conc; i++)
                if (synth_free[i] < synth_free[s])
                    s = i;
            double st = synth_free[s], se = st + 3.6 + uniform() * 0.6;
            synth_free[s] = se;
            double q = se + 0.004;
            int w = 0;
            for (int i = 1; i < workers; i++)
                if (gpu_free[i] < gpu_free[w])
                    w = i;
            double pick = q > gpu_free[w] ? q : gpu_free[w];
            double gs = pick + 0.05, ge = gs + 2.5 + uniform() * 0.3;
            gpu_free[w] = ge;
            double ts[6] = {st, se, q, pick + 0.001, gs, ge};
            for (int e = 0; e < 6; e++)
                evs[k++] = (struct ev){ts[e], e, job, p, w};
        }
        qsort(evs, (size_t)k, sizeof *evs, ev_cmp);
        for (int i = 0; i < k && written < bytes; i++) {
            char line[512];
            const struct ev *e = &evs[i];
            int len = 0;
            if (tracing) { /* the wall clock of the event, as tracing prints it */
                long long us = (long long)(e->t * 1e6) + 1771442467512034ll % 86400000000ll;
                len = snprintf(line, sizeof line, "2026-02-18T%02lld:%02lld:%02lld.%06lldZ  INFO cuzk_core::pipeline: ",
                               us / 3600000000ll % 24, us / 60000000 % 60, us / 1000000 % 60, us % 1000000);
            }
            len += snprintf(line + len, sizeof line - (size_t)len,
                               "TIMELINE,%lld,%s,%08x-%04x-4%03x-8%03x-%012llx,", (long long)(e->t * 1000),
                               names[e->kind], (unsigned)e->job * 2654435761u, e->job & 0xffff,
                               e->job & 0xfff, (e->job >> 12) & 0xfff,
                               (unsigned long long)e->job * 11400714819323198485ull & 0xffffffffffffull);
            if (e->kind >= 3)
                len += snprintf(line + len, sizeof line - (size_t)len, "worker=%d,partition=%d", e->worker,
                                e->part);
            else
                len += snprintf(line + len, sizeof line - (size_t)len, "partition=%d", e->part);
            line[len++] = '\n';
            memcpy(out + n, line, (size_t)len);
            n += (size_t)len;
            tl_bytes += (uint64_t)len;
            written += (uint64_t)len;
            /* Noise until its share of the bytes is reached. */
            while (noise_bytes < noise_frac / (1 - noise_frac) * (double)tl_bytes && written < bytes) {
                const char *l = noise[next() % (sizeof noise / sizeof noise[0])];
                size_t ll = strlen(l);
                memcpy(out + n, l, ll);
                n += ll;
                if (next() % 8 == 0)
                    out[n++] = '\r';
                out[n++] = '\n';
                noise_bytes += ll + 1;
                written += ll + 1;
                if (n > sizeof out - 1024) {
                    fwrite(out, 1, n, stdout);
                    n = 0;
                }
            }
            if (n > sizeof out - 1024) {
                fwrite(out, 1, n, stdout);
                n = 0;
            }
        }
    }
    fwrite(out, 1, n, stdout);
    free(evs);
    return 0;
}
