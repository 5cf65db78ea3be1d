/*
 * fuzz_wft.c -- libFuzzer target: the native trace reader on any bytes.
 * Whatever the input, parsing must not crash, hang or read out of bounds,
 * and what it returns must be self-consistent.
 */
#include "read_wft.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    struct wft_trace t;
    char err[256];
    if (wft_parse(&t, "fuzz", data, size, err, sizeof err) == 0) {
        wft_sort(&t);
        for (size_t i = 1; i < t.nev; i++)
            if (t.ev[i].ns < t.ev[i - 1].ns)
                abort(); /* sorted means sorted */
        for (size_t i = 0; i < t.nev; i++) {
            char buf[24];
            if (!wft_event_label(&t, t.ev[i].event, buf))
                abort();
            wft_unit_find(&t, t.ev[i].unit);
        }
        struct cpu_use u;
        wft_cpu_use(&t, &u);
        if (u.synth_cpu_s < 0 || u.gpu_cpu_s < 0 || u.synth_wall_s < 0 || u.gpu_wall_s < 0 ||
            u.synth_cpu_s > u.synth_want_s + 1e-6 * (1 + u.synth_want_s) ||
            u.gpu_cpu_s > u.gpu_want_s + 1e-6 * (1 + u.gpu_want_s))
            abort(); /* used <= wanted, nothing negative */
    }
    wft_free(&t);
    return 0;
}
