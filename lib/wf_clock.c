/*
 * wf_clock.c -- choosing and calibrating the timestamp source.
 *
 * The TSC is trusted only when CPUID says it is invariant (leaf 0x80000007,
 * EDX bit 8): then it ticks at a constant rate across P-states and cores.
 * WATERFALL_CLOCK=monotonic forces the fallback, for tests and odd hosts.
 */
#include "wf_clock.h"
#include "wf_format.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

int wfc_source = WFT_CLOCK_MONOTONIC;
static pthread_once_t wfc_once = PTHREAD_ONCE_INIT;

static int wfc_tsc_invariant(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d >> 8) & 1;
#else
    return 0;
#endif
}

static void wfc_pick(void)
{
    const char *force = getenv("WATERFALL_CLOCK");
    if (force && strcmp(force, "monotonic") == 0)
        return;
#if defined(__aarch64__)
    wfc_source = WFT_CLOCK_CNTVCT;
#else
    if (wfc_tsc_invariant())
        wfc_source = WFT_CLOCK_TSC;
#endif
}

void wfc_init(void)
{
    pthread_once(&wfc_once, wfc_pick);
}

/* A tick count and the monotonic time at it: the tightest of 16 reads
 * bracketed between two clock reads (the time is the bracket's middle). */
static void bracket(uint64_t *ticks, uint64_t *ns)
{
    uint64_t w = UINT64_MAX;
    *ticks = *ns = 0;
    for (int i = 0; i < 16; i++) {
        uint64_t a = wfc_mono_ns(), t = wfc_ticks(), b = wfc_mono_ns();
        if (b - a < w) {
            w = b - a;
            *ticks = t;
            *ns = a + (b - a) / 2;
        }
    }
}

double wfc_calibrate(unsigned ms)
{
    if (wfc_source == WFT_CLOCK_MONOTONIC)
        return 1.0;
#if defined(__aarch64__)
    {
        uint64_t f;
        /* clang-format off: it would put each operand on a line of its own */
        __asm__ volatile("mrs %0, cntfrq_el0"
                         : "=r"(f));
        /* clang-format on */
        if (f)
            return (double)f / 1e9;
    }
#endif
    /* Bracket each tick read between two clock reads and keep the tightest
     * bracket at each end: the error is then the bracket width over the
     * span, well under 1 ppm for a few milliseconds. */
    uint64_t best_t0, best_n0, best_t1, best_n1;
    bracket(&best_t0, &best_n0);
    uint64_t until = best_n0 + (uint64_t)ms * 1000000u;
    while (wfc_mono_ns() < until)
        ;
    bracket(&best_t1, &best_n1);
    if (best_n1 <= best_n0 || best_t1 <= best_t0)
        return 1.0;
    return (double)(best_t1 - best_t0) / (double)(best_n1 - best_n0);
}
