/*
 * seed_rings.c -- makes fuzz_rings's seeds from real recordings: a child
 * records with small rings, the writer stopped part-way (the test-only
 * WATERFALL_TEST_STALL) so that some marks are in PATH.rings alone, and is
 * killed; the trace and its rings file are packed as fuzz_rings reads
 * them (fuzz_rings.c: a 4-byte length, the trace, the rings file), the
 * journal cut to the bytes it holds (the recorder's is 4 MiB; a reader
 * takes any capacity the header states), so that a seed is a few pages.
 * Usage: seed_rings DIR OUT   (DIR: a scratch directory)
 */
#include <waterfall.h>

#include "wf_format.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* A second marking thread, named and given a role: the rings file then
 * holds two rings and their headers. */
static void *gpu_thread(void *arg)
{
    (void)arg;
    wf_thread_name("gpu-worker");
    wf_thread_worker(0, 0);
    for (int i = 0; i < 12; i++) {
        wf_unit u = wf_unit_new("job", i);
        wf_mark(WF_GPU_PICKUP, u);
        wf_mark(WF_GPU_START, u);
        wf_mark(WF_GPU_END, u);
    }
    return NULL;
}

static void child(const char *path, const char *stall)
{
    setenv("WATERFALL_TEST_STALL", stall, 1);
    wf_config c;
    wf_config_init(&c);
    c.ring_events = 64; /* small seeds: the fuzzer mutates every byte */
    c.sample_cpu = 1;
    c.sample_gpu = -1;
    if (wf_open_config(path, &c) != 0)
        _exit(2);
    wf_thread_name("synth");
    for (int i = 0; i < 6; i++) { /* written by the writer */
        wf_unit u = wf_unit_new("job", i);
        wf_mark(WF_SYNTH_START, u);
        wf_mark(WF_SYNTH_END, u);
    }
    sleep_ms(40);
    close(open(stall, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)); /* the writer stops */
    sleep_ms(40);
    for (int i = 6; i < 12; i++) { /* in the rings file alone */
        wf_unit u = wf_unit_new("job", i);
        wf_mark(WF_SYNTH_START, u);
        wf_mark(wf_event_define("PREP_MSM_START"), u);
        wf_mark(WF_SYNTH_END, u);
    }
    pthread_t th;
    pthread_create(&th, NULL, gpu_thread, NULL);
    pthread_join(th, NULL);
    kill(getpid(), SIGKILL);
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16;
    unsigned char *b = malloc(cap);
    *len = 0;
    size_t n;
    while (b && (n = fread(b + *len, 1, cap - *len, f)) > 0)
        if ((*len += n) == cap) {
            unsigned char *nb = realloc(b, cap *= 2);
            if (!nb)
                free(b);
            b = nb;
        }
    fclose(f);
    return b;
}

/* The rings file with its journal cut to journal_end bytes (rounded up to
 * 64): positions below the capacity do not move, so nothing wraps. */
static unsigned char *compact(const unsigned char *d, size_t len, size_t *out_len)
{
    struct wft_rings_header h;
    if (len < WFT_RINGS_PAGE)
        return NULL;
    memcpy(&h, d, sizeof h);
    uint64_t cap = (h.journal_end + 63) / 64 * 64;
    if (cap < 64)
        cap = 64;
    if (h.journal_end > h.journal_cap || h.rings_off > len || h.journal_off + cap > len)
        return NULL;
    uint64_t rings = h.nrings * h.ring_bytes;
    if (rings > len - h.rings_off)
        return NULL;
    *out_len = WFT_RINGS_PAGE + cap + rings;
    unsigned char *o = calloc(1, *out_len);
    if (!o)
        return NULL;
    h.journal_off = WFT_RINGS_PAGE;
    h.journal_cap = cap;
    uint64_t old_rings = h.rings_off;
    h.rings_off = WFT_RINGS_PAGE + cap;
    memcpy(o, d, WFT_RINGS_PAGE);
    memcpy(o, &h, sizeof h);
    memcpy(o + WFT_RINGS_PAGE, d + WFT_RINGS_PAGE, cap);
    memcpy(o + h.rings_off, d + old_rings, rings);
    return o;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: seed_rings DIR OUT\n");
        return 2;
    }
    char path[4096], rings[4200], stall[4200];
    snprintf(path, sizeof path, "%s/seed.wft", argv[1]);
    snprintf(rings, sizeof rings, "%s.rings", path);
    snprintf(stall, sizeof stall, "%s/stall", argv[1]);
    remove(stall);
    pid_t pid = fork();
    if (pid == 0)
        child(path, stall);
    int st;
    waitpid(pid, &st, 0);
    if (!WIFSIGNALED(st)) {
        fprintf(stderr, "seed_rings: the recording child did not die as planned\n");
        return 1;
    }
    size_t tl, rl, cl;
    unsigned char *tr = slurp(path, &tl), *rg = slurp(rings, &rl), *c = rg ? compact(rg, rl, &cl) : NULL;
    if (!tr || !c) {
        fprintf(stderr, "seed_rings: cannot read %s and its rings file\n", path);
        free(tr);
        free(rg);
        free(c);
        return 1;
    }
    FILE *out = fopen(argv[2], "wb");
    uint32_t n = (uint32_t)tl;
    if (!out || fwrite(&n, 4, 1, out) != 1 || fwrite(tr, 1, tl, out) != tl || fwrite(c, 1, cl, out) != cl ||
        fclose(out)) {
        fprintf(stderr, "seed_rings: cannot write %s\n", argv[2]);
        return 1;
    }
    printf("%s: trace %zu bytes, rings file %zu bytes (%zu as recorded)\n", argv[2], tl, cl, rl);
    free(tr);
    free(rg);
    free(c);
    return 0;
}
