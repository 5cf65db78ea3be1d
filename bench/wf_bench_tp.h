/*
 * wf_bench_tp.h -- the LTTng-UST tracepoint provider of the benchmark: one
 * event, wf_bench:mark, carrying what a wf_mark carries (a unit id and an
 * event id).  Compiled into bench_mark when CMake finds LTTng-UST.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER wf_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "wf_bench_tp.h"

#if !defined(WF_BENCH_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define WF_BENCH_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

LTTNG_UST_TRACEPOINT_EVENT(
    wf_bench, mark,
    LTTNG_UST_TP_ARGS(uint64_t, job, int, ev),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, job, job)
        lttng_ust_field_integer(int, event, ev)))

#endif /* WF_BENCH_TP_H */

#include <lttng/tracepoint-event.h>
