/*
 * fuzz_wft.c -- libFuzzer target: the native trace reader on any bytes.
 * Whatever the input, parsing must not crash, hang or read out of bounds,
 * and what it returns must be self-consistent (trace_check.h).
 */
#include "read_wft.h"
#include "trace_check.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    struct wft_trace t;
    char err[256];
    if (wft_parse(&t, "fuzz", data, size, err, sizeof err) == 0)
        trace_check(&t);
    wft_free(&t);
    return 0;
}
