/* wf_bench_tp.c -- instantiates the wf_bench tracepoint provider (probes
 * and tracepoint definitions) in bench_mark itself. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "wf_bench_tp.h"
