/*
 * trace_check.h -- what every trace the native reader returns must hold,
 * whatever bytes it was read from (fuzz_wft, fuzz_rings): events sorted
 * after wft_sort, every event named, and CPU use with nothing negative and
 * used <= wanted.  Aborts (the fuzzer's crash) when one does not hold.
 */
#ifndef TRACE_CHECK_H
#define TRACE_CHECK_H

#include "read_wft.h"

#include <stdlib.h>

static inline void trace_check(struct wft_trace *t)
{
    wft_sort(t);
    for (size_t i = 1; i < t->nev; i++)
        if (t->ev[i].ns < t->ev[i - 1].ns)
            abort(); /* sorted means sorted */
    for (size_t i = 0; i < t->nev; i++) {
        char buf[24];
        if (!wft_event_label(t, t->ev[i].event, buf))
            abort();
        wft_unit_find(t, t->ev[i].unit);
    }
    struct cpu_use u;
    wft_cpu_use(t, &u);
    if (u.synth_cpu_s < 0 || u.gpu_cpu_s < 0 || u.synth_wall_s < 0 || u.gpu_wall_s < 0 ||
        u.synth_cpu_s > u.synth_want_s + 1e-6 * (1 + u.synth_want_s) ||
        u.gpu_cpu_s > u.gpu_want_s + 1e-6 * (1 + u.gpu_want_s))
        abort(); /* used <= wanted, nothing negative */
    free(u.spans);
}

#endif /* TRACE_CHECK_H */
