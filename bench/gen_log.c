/*
 * gen_log.c -- a cuzk-style daemon log of any size, for benchmarks and
 * large-input tests.
 *
 *   gen_log [--bytes N] [--noise F] [--partitions P] [--concurrency C]
 *           [--workers W] [--synth-s S] [--seed S] [--jobs J] [--tracing]
 *           [--channel K] [--dense] [--busy] [--cuzk-timing] > log
 *
 * It simulates the pipeline (C syntheses at once, each job split into P
 * partitions, W GPU workers on one device, a channel of K between them,
 * K = C by default) and prints the TIMELINE lines a
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
 *
 * --busy is the shape of a busy cuzk daemon that prints its records with
 * eprintln! (issue 28): 10 syntheses in flight, 10 partitions a job, 2 GPU
 * workers, synthesis a little slower than keeps the GPU fed (14 s mean against
 * 2.65 s of GPU per unit on each of 2 workers), 70% tracing noise with
 * colour, 1 GiB.  Options after it override it.
 *
 * --cuzk-timing adds, to each unit's GPU phase, the CUZK_TIMING duration
 * lines of its proving call as supraseal-c2 prints them (docs/cli.md):
 * the workers share one device mutex, a call's helper thread runs
 * prep_msm then b_g2_msm, the kernels wait at the barrier for prep_msm,
 * and a worker moves on when its call unlocks (the split API), its
 * GPU_END coming once b_g2_msm is joined; the engine's spawn line
 * follows each call's unlock (with ANSI colour, as tracing prints it).
 * The issue 30 bench shape is
 * --busy --cuzk-timing.
 *
 * The lines come in time order, as a daemon prints them: each job is
 * scheduled when its turn comes, and its events wait in a heap until no
 * job still to be scheduled can print an earlier one (a job's synthesis
 * starts no earlier than the earliest free synthesis slot).
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
    int a, b; /* a duration line's values, ms */
};

/* Duration lines (kinds 6 on): their format, with a and b. */
static const char *const dur_fmt[] = {
    "CUZK_TIMING: split_vectors_ms=%d setup_to_split_ms=%d",
    "CUZK_TIMING: pre_lock_cpu_ms=%d mutex_wait_ms=%d",
    "CUZK_TIMING: prep_msm_ms=%d",
    "CUZK_TIMING: gpu_tid=0 ntt_msm_h_ms=%d",
    "CUZK_TIMING: gpu_tid=0 barrier_wait_ms=%d",
    "CUZK_TIMING: gpu_tid=0 batch_add_ms=%d",
    "CUZK_TIMING: gpu_tid=0 tail_msm_ms=%d gpu_total_ms=%d",
    "CUZK_TIMING: mutex_held_ms=%d total_start_fn_ms=%d",
    "CUZK_TIMING: b_g2_msm_ms=%d num_circuits=1",
    "CUZK_TIMING: async_dealloc_ms=%d",
    /* the engine's tracing line once gpu_prove_start returns (engine.rs):
     * worker and partition, then a and b */
    "\x1b[2m2026-02-18T19:21:07.560000Z\x1b[0m \x1b[32m INFO\x1b[0m \x1b[2mcuzk_core::engine\x1b[0m\x1b[2m:\x1b[0m "
    "GPU_TIMING spawn_blocking prove_start \x1b[3mworker_id\x1b[0m\x1b[2m=\x1b[0m%d \x1b[3mpartition\x1b[0m\x1b[2m=\x1b[0mSome(%d) "
    "\x1b[3mspawn_to_enter_ms\x1b[0m\x1b[2m=\x1b[0m%d \x1b[3mprove_start_ms\x1b[0m\x1b[2m=\x1b[0m%d",
};
#define DUR_SPAWN 10 /* dur_fmt's spawn line */
#define DUR_KIND 6

static const char *names[6] = {"SYNTH_START", "SYNTH_END", "GPU_QUEUE", "GPU_PICKUP",
                               "GPU_START", "GPU_END"};

/* A min-heap of events by time (ties: by order of scheduling, so that a
 * unit's events keep their order). */
struct heap {
    struct ev *v;
    uint64_t *seq;
    size_t n, cap;
    uint64_t next_seq;
};

static int ev_less(const struct heap *h, size_t a, size_t b)
{
    return h->v[a].t < h->v[b].t || (h->v[a].t == h->v[b].t && h->seq[a] < h->seq[b]);
}

static void heap_swap(struct heap *h, size_t a, size_t b)
{
    struct ev t = h->v[a];
    h->v[a] = h->v[b];
    h->v[b] = t;
    uint64_t s = h->seq[a];
    h->seq[a] = h->seq[b];
    h->seq[b] = s;
}

static void heap_push(struct heap *h, struct ev e)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 1024;
        h->v = realloc(h->v, h->cap * sizeof *h->v);
        h->seq = realloc(h->seq, h->cap * sizeof *h->seq);
        if (!h->v || !h->seq) {
            fprintf(stderr, "gen_log: out of memory\n");
            exit(1);
        }
    }
    size_t i = h->n++;
    h->v[i] = e;
    h->seq[i] = h->next_seq++;
    while (i && ev_less(h, i, (i - 1) / 2)) {
        heap_swap(h, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static struct ev heap_pop(struct heap *h)
{
    struct ev top = h->v[0];
    h->n--;
    if (h->n) {
        heap_swap(h, 0, h->n);
        for (size_t i = 0;;) {
            size_t l = 2 * i + 1, r = l + 1, m = i;
            if (l < h->n && ev_less(h, l, m))
                m = l;
            if (r < h->n && ev_less(h, r, m))
                m = r;
            if (m == i)
                break;
            heap_swap(h, i, m);
            i = m;
        }
    }
    return top;
}

static const char *noise[] = {
    "2026-02-18T19:21:07.512034Z  INFO cuzk_core::engine: synthesis complete, sending to GPU synth_ms=36512 circuit_id=porep-32g",
    "\x1b[2m2026-02-18T19:21:07.560000Z\x1b[0m \x1b[32m INFO\x1b[0m cuzk_core::engine: GPU_TIMING prove_start returned",
    "2026-02-18T19:21:08.001200Z DEBUG cuzk_core::srs: parameter cache hit key=stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0",
    "2026-02-18T19:21:09.777777Z  WARN cuzk_core::memory: pinned buffer pool low free=3 total=16",
    "\x1b[2m2026-02-18T19:21:10.100000Z\x1b[0m \x1b[34mDEBUG\x1b[0m bellperson::groth16::prover: msm bases=134217728 window=16 took=1.83s",
    "2026-02-18T19:21:11.000001Z  INFO cuzk_server::grpc: request accepted sector=17 proof=porep-c2 queue_depth=4",
};

static int ms(double s)
{
    return (int)(s * 1000); /* duration_cast<milliseconds>: truncated */
}

static void dur(struct heap *h, double t, int k, int job, int part, int w, double a, double b)
{
    heap_push(h, (struct ev){t, DUR_KIND + k, job, part, w, ms(a), ms(b)});
}

/* One proving call from GPU_START gs, by the source's order; the worker's
 * next pickup (*free: at the unlock) and the unit's GPU_END (returned). */
static double call(struct heap *h, int job, int part, int w, double gs, double *mutex, double *free)
{
    double t0 = gs + 0.0003, sv = 0.009 + uniform() * 0.004, sts = sv + 0.001, pre = sts + 0.002;
    double L = t0 + pre > *mutex ? t0 + pre : *mutex, wait = L - t0 - pre;
    double prep = 1.8 + uniform() * 0.2, prep_end = t0 + pre + prep;
    double ntt = 0.85 + uniform() * 0.05, bw = prep_end > L + ntt ? prep_end - L - ntt : 0;
    double ba = 0.29 + uniform() * 0.02, tail = 0.57 + uniform() * 0.02, total = ntt + bw + ba + tail;
    double held = total + 0.001, bg2 = 0.46 + uniform() * 0.04;
    *mutex = L + held;
    *free = L + held + 0.0005;
    double ge = (L + held > prep_end + bg2 ? L + held : prep_end + bg2) + 0.02;
    dur(h, t0 + sts, 0, job, part, w, sv, sts);
    dur(h, L, 1, job, part, w, pre, wait);
    dur(h, prep_end, 2, job, part, w, prep, 0);
    dur(h, L + ntt, 3, job, part, w, ntt, 0);
    dur(h, L + ntt + bw, 4, job, part, w, bw, 0);
    dur(h, L + ntt + bw + ba, 5, job, part, w, ba, 0);
    dur(h, L + total, 6, job, part, w, tail, total);
    dur(h, L + held - 0.0001, 7, job, part, w, held, L + held - t0);
    dur(h, prep_end + bg2, 8, job, part, w, bg2, 0);
    dur(h, ge + 0.03, 9, job, part, w, 0.005 + uniform() * 0.03, 0);
    dur(h, L + held + 0.0002, DUR_SPAWN, job, part, w, t0 - gs, L + held + 0.0002 - t0);
    return ge;
}

int main(int argc, char **argv)
{
    uint64_t bytes = 1ull << 30;
    double noise_frac = 0.7;
    int parts = 10, conc = 2, workers = 2;
    long long jobs = -1; /* -1: as many as the bytes allow */
    int tracing = 0, cuzk = 0;
    double synth_s = 3.9; /* mean synthesis time; +-7.7% */
    double mutex_free = 0; /* --cuzk-timing: the device's mutex */
    int chan = 0;          /* the channel's room (0: the synthesis concurrency) */
    for (int i = 1; i < argc; i += 2) {
        if (!strcmp(argv[i], "--busy")) {
            tracing = 0;
            parts = 10;
            conc = 10;
            workers = 2;
            synth_s = 14.0;
            noise_frac = 0.7;
            bytes = 1ull << 30;
            jobs = -1;
            i--;
            continue;
        }
        if (!strcmp(argv[i], "--cuzk-timing")) {
            cuzk = 1;
            i--;
            continue;
        }
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
        else if (!strcmp(argv[i], "--channel"))
            chan = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--workers"))
            workers = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--synth-s"))
            synth_s = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--jobs"))
            jobs = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed"))
            rng = strtoull(argv[i + 1], NULL, 10) * 0x9E3779B97F4A7C15ull + 1;
        else {
            fprintf(stderr, "gen_log: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (chan == 0)
        chan = conc;
    if (parts < 1 || conc < 1 || workers < 1 || chan < 1 || chan > 4096 || noise_frac < 0 || noise_frac >= 1 || !(synth_s > 0.1)) {
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
    struct heap h = {0};
    static double picks[4096]; /* the last `chan` units' pickups, by unit % chan */
    uint64_t units = 0;
    int done = 0; /* no job is left to schedule */
    for (int job = 0; !done;) {
        if (written >= bytes)
            break;
        /* Schedule the next job's partitions: synthesis on the earliest free
         * slot, then the earliest free GPU worker. */
        if (jobs >= 0 && job >= jobs) {
            done = 1;
        } else {
            for (int p = 0; p < parts; p++) {
                int s = 0;
                for (int i = 1; i < conc; i++)
                    if (synth_free[i] < synth_free[s])
                        s = i;
                double st = synth_free[s], se = st + synth_s * (0.923 + uniform() * 0.154);
                /* the channel holds at most `chan` units: a send waits
                 * for the pickup of the unit `chan` before it, and the
                 * synthesis keeps its slot (its permit) until then (the
                 * slot of a send that did not wait frees at SYNTH_END, as
                 * the logs made before the channel had it) */
                double q = se + 0.004;
                if (units >= (uint64_t)chan && q < picks[units % (uint64_t)chan])
                    q = picks[units % (uint64_t)chan];
                synth_free[s] = q > se + 0.004 ? q : se;
                int w = 0;
                for (int i = 1; i < workers; i++)
                    if (gpu_free[i] < gpu_free[w])
                        w = i;
                double pick = q > gpu_free[w] ? q : gpu_free[w];
                picks[units++ % (uint64_t)chan] = pick;
                double gs = pick + 0.05, ge = gs + 2.5 + uniform() * 0.3;
                gpu_free[w] = ge;
                if (cuzk)
                    ge = call(&h, job, p, w, gs, &mutex_free, &gpu_free[w]);
                double ts[6] = {st, se, q, pick + 0.001, gs, ge};
                for (int e = 0; e < 6; e++)
                    heap_push(&h, (struct ev){ts[e], e, job, p, w, 0, 0});
            }
            job++;
        }
        /* Print what no later job can precede: its synthesis starts at
         * the earliest free slot or after. */
        double horizon = synth_free[0];
        for (int i = 1; i < conc; i++)
            if (synth_free[i] < horizon)
                horizon = synth_free[i];
        while (h.n && (done || h.v[0].t < horizon) && written < bytes) {
            struct ev ev = heap_pop(&h);
            char line[512];
            const struct ev *e = &ev;
            int len = 0;
            if (e->kind >= DUR_KIND) { /* the C library's fprintf: no prefix */
                if (e->kind - DUR_KIND == DUR_SPAWN)
                    len = snprintf(line, sizeof line, dur_fmt[DUR_SPAWN], e->worker, e->part, e->a, e->b);
                else
                    len = snprintf(line, sizeof line, dur_fmt[e->kind - DUR_KIND], e->a, e->b);
                line[len++] = '\n';
                memcpy(out + n, line, (size_t)len);
                n += (size_t)len;
                tl_bytes += (uint64_t)len;
                written += (uint64_t)len;
                if (n > sizeof out - 1024) {
                    fwrite(out, 1, n, stdout);
                    n = 0;
                }
                continue;
            }
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
    free(h.v);
    free(h.seq);
    return 0;
}
