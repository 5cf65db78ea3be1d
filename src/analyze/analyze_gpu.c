/*
 * analyze_gpu.c -- the driver's view beside the timeline's: the NVML
 * utilization readings of a native trace (format 1.2; docs/gpu.md) over
 * each device's window, the same window as utilization and kernel
 * utilization.  The pipeline's device N is NVML's device N.
 *
 *   driver utilization = sum(pct x |reading ^ window|) / sum(|reading ^ window|)
 *   coverage           = sum(|reading ^ window|) / window
 *
 * A reading says what share of its span a kernel ran, by the driver's own
 * count: it sees kernels, not the host work inside the GPU phase, so it
 * sits near kernel utilization, below the GPU phase's.
 */
#include "analyze.h"

static double overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
    int64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
    return hi > lo ? (double)(hi - lo) : 0.0;
}

void analyze_gpu(const struct run *r, struct run_result *res)
{
    const struct gpu_obs *g = &r->gpu;
    double acc_all = 0, span_all = 0, win_all = 0;
    uint64_t n_all = 0;
    size_t k = 0; /* the devices and the readings are both in device order: one walk */
    for (size_t i = 0; i < res->ndev; i++) {
        struct device_result *d = &res->dev[i];
        if (!d->units || d->window_end <= d->window_start || d->device < 0)
            continue;
        while (k < g->npts && g->pts[k].device < (uint32_t)d->device)
            k++;
        double acc = 0, span = 0;
        uint64_t n = 0;
        for (; k < g->npts && g->pts[k].device == (uint32_t)d->device; k++) {
            const struct gpu_pt *q = &g->pts[k];
            double ov = overlap(q->from, q->ns, d->window_start, d->window_end);
            if (ov > 0) {
                acc += q->pct * ov;
                span += ov;
                n++;
            }
        }
        if (!n)
            continue;
        d->has_driver = 1;
        d->driver_utilization = acc / span / 100.0;
        d->driver_coverage = span / (double)(d->window_end - d->window_start);
        d->driver_readings = n;
        acc_all += acc;
        span_all += span;
        win_all += (double)(d->window_end - d->window_start);
        n_all += n;
    }
    if (span_all > 0) {
        res->has_driver = 1;
        res->driver_utilization = acc_all / span_all / 100.0;
        res->driver_coverage = span_all / win_all;
        res->driver_readings = n_all;
        res->driver_source = g->source;
    }
}
