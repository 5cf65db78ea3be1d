/*
 * wf_clock.h -- the recorder's timestamp source.
 *
 * On x86-64 with an invariant TSC the hot path reads the TSC (one rdtsc,
 * no fence: ordering against other threads comes from each thread's own
 * program order, and events of one unit are marked by threads that hand the
 * unit over through synchronising code).  Elsewhere, and where the TSC is
 * not invariant, it falls back to CLOCK_MONOTONIC through the vDSO.  The
 * calibration (ticks per nanosecond) is measured at open and refined by
 * the writer, which stores (ticks, monotonic ns) pairs in the trace.
 */
#ifndef WF_CLOCK_H
#define WF_CLOCK_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

/* Which source wfc_ticks reads: an enum wft_clock value, fixed at init. */
extern int wfc_source;

static inline uint64_t wfc_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t wfc_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_expect(wfc_source == 1, 1))
        return __rdtsc();
#elif defined(__aarch64__)
    if (__builtin_expect(wfc_source == 3, 1)) {
        uint64_t v;
        /* clang-format off: it would put each operand on a line of its own */
        __asm__ volatile("mrs %0, cntvct_el0"
                         : "=r"(v));
        /* clang-format on */
        return v;
    }
#endif
    return wfc_mono_ns();
}

/* Pick the source (once; thread-safe to call again). */
void wfc_init(void);

/* Measure ticks per ns over about ms milliseconds. */
double wfc_calibrate(unsigned ms);

#endif /* WF_CLOCK_H */
