#!/usr/bin/env python3
"""hta_expect.py -- what HTA itself says of Kineto traces: the expected
values tests/test_kineto.sh compares waterfall with.

For each trace, HTA (Holistic Trace Analysis, run from its source) is asked
for its idle-time breakdown per stream (get_idle_time_breakdown, HTA's
default consecutive_kernel_delay of 30); one line per stream is written:

    <trace> <rank> stream <n> host_wait <us> kernel_wait <us> other <us>

in HTA's units (µs) and HTA's rounding (two decimals).  A trace HTA
refuses is written as `<name> refused <why>`.

And per rank, HTA's temporal breakdown (get_temporal_breakdown: its
utilization is 1 - idle_time / kernel_time) beside the same figure that
HTA's own function (BreakdownAnalysis._get_idle_time_for_kernels) gives
on HTA's own dataframe restricted to waterfall's device operations (cat
kernel, gpu_memcpy, gpu_memset and HTA's other kernel categories), three
ways; one line of key=value fields:

    <trace> <rank> temporal hta=U,IDLE,SPAN,N extra=CAT:N,...
        ops_steps=U,IDLE,SPAN,N ops_all=U,IDLE,SPAN,N
        ops_exact=U,IDLE,SPAN,N,BOUND,ULP

U is 1 - IDLE/SPAN, IDLE and SPAN in µs, N the events taken.  hta: HTA's
temporal breakdown (every event of the rank with a stream != -1), extra:
the categories among those that are not device operations, with their
counts, and no-stream-ops:-N where N device operations have no stream
(-1), which it leaves out.  ops_steps:
the device operations of the dataframe HTA's analyses take (its loader's
filter, Trace._filter_irrelevant_gpu_kernels, applied: kernels not
launched before the last ProfilerStep began are dropped; ns-resolution
times rounded); ops_all: of the trace as HTA parses it with that filter
left out (still rounded); ops_exact: that with HTA's ns rounding off too
(HTA_DISABLE_NS_ROUNDING): the events and times waterfall's device
utilization takes; ULP is the spacing of a double at the trace's times
where HTA reads them as doubles (0 where they are all whole µs), and
BOUND times ULP the most its busy time can be off by that (its window:
2 ULP).  A figure HTA cannot give is
`none`.

    python3 hta_expect.py HTA_SOURCE_DIR OUT TRACE...

<trace> is the path as given (run it from the traces' folder).

Needs HTA's Python dependencies (Debian: python3-pandas python3-ijson
python3-plotly python3-networkx python3-pydot python3-psutil).
"""
import logging
import os
import shutil
import sys
import tempfile


# waterfall's device operations (src/read/read_kineto.c, device_cat)
DEVICE_CATS = ("kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset", "mtia_ccp_events")


def fig(util, idle, span, n, *more):
    if util is None:
        return "none"
    return ",".join([f"{util:.12f}", f"{float(idle):.3f}", f"{float(span):.3f}", str(n)] + [str(m) for m in more])


def ops_figure(analysis, trace_df, exact=False):
    """HTA's own idle and span (_get_idle_time_for_kernels) of the rank's
    device operations: (utilization, idle, span, count[, groups, ulp])."""
    import math

    from hta.analyzers.breakdown_analysis import BreakdownAnalysis
    from hta.utils.utils import merge_kernel_intervals

    sym = analysis.t.symbol_table.get_sym_table()
    cats = [i for i, name in enumerate(sym) if name in DEVICE_CATS]
    ops = trace_df[trace_df["cat"].isin(cats)].copy()
    if ops.empty:
        return (None, 0, 0, 0)
    idle, span = BreakdownAnalysis._get_idle_time_for_kernels(ops.copy())
    f = (1 - idle / span if span > 0 else None, idle, span, len(ops))
    if exact:
        # HTA reads each time as a double: off by up to half its spacing
        # (ulp) at the trace's times; where they are all whole µs, exact.
        # An interval of one operation is its dur (the start's error
        # cancels); a merged one of several is off by up to ulp, and so is
        # the busy time where two intervals nearer than ulp may merge or
        # not: the bound is ulp times their count (BOUND, in ulps)
        ulp = 0.0
        if not ((ops["ts"] % 1 == 0).all() and (ops["dur"] % 1 == 0).all()):
            ulp = math.ulp(abs(float(analysis.t.min_ts)) + float((ops["ts"] + ops["dur"]).max()))
        o = ops.sort_values(by="ts")
        end = (o["ts"] + o["dur"]).cummax().shift()
        starts = o["ts"] > end  # a new interval
        group = starts.cumsum()
        sizes = group.value_counts()
        near = int(((o["ts"] - end).abs() <= 2 * ulp).sum()) if ulp else 0
        f += (int((sizes > 1).sum()) + near + 2, ulp)
    return f


def load(trace_dir, filtered=True, rounded=True):
    """TraceAnalysis of trace_dir; filtered=False leaves out HTA's filter of
    the last ProfilerStep (Trace._filter_irrelevant_gpu_kernels), and
    rounded=False its rounding of ns-resolution times."""
    from hta.common.trace import Trace
    from hta.configs.env_options import HTAEnvOptions
    from hta.trace_analysis import TraceAnalysis

    keep = Trace._filter_irrelevant_gpu_kernels
    opts = HTAEnvOptions.instance()
    was = opts.disable_ns_rounding()
    try:
        if not filtered:
            Trace._filter_irrelevant_gpu_kernels = lambda self, *a, **k: None
        opts.set_disable_ns_rounding(not rounded)
        return TraceAnalysis(trace_dir=trace_dir)
    finally:
        Trace._filter_irrelevant_gpu_kernels = keep
        opts.set_disable_ns_rounding(was)


def temporal_lines(name, d, t, ranks):
    """Per rank: HTA's temporal breakdown, and its figure on the device
    operations three ways (the module's docstring)."""
    out = []
    try:
        tb = t.get_temporal_breakdown(visualize=False)
    except Exception:  # its symbol table or its asserts: no figure
        tb = None
    loads = []
    for filtered, rounded in ((False, True), (False, False)):
        try:
            loads.append(load(d, filtered=filtered, rounded=rounded))
        except Exception:
            loads.append(None)
    sym = t.t.symbol_table.get_sym_table()
    for rank in ranks:
        df = t.t.traces[rank]
        on = df[df["stream"].ne(-1)]
        hta = (None, 0, 0, 0)
        if tb is not None:
            row = tb[tb["rank"] == rank]
            if len(row):
                idle, span = float(row["idle_time(us)"].iloc[0]), float(row["kernel_time(us)"].iloc[0])
                hta = (1 - idle / span if span > 0 else None, idle, span, len(on))
        extra = {}
        ids = [i for i, nm in enumerate(sym) if nm in DEVICE_CATS]
        nostream = int((df["cat"].isin(ids) & df["stream"].eq(-1)).sum())
        if nostream:  # device operations HTA's temporal breakdown leaves out
            extra["no-stream-ops"] = -nostream
        for c in on["cat"]:
            if sym[c] not in DEVICE_CATS:
                extra[sym[c]] = extra.get(sym[c], 0) + 1
        figs = [ops_figure(t, df)]
        for a, exact in zip(loads, (False, True)):
            ok = a is not None and rank in a.t.traces
            figs.append(ops_figure(a, a.t.traces[rank], exact) if ok else (None, 0, 0, 0))
        out.append(
            f"{name} {rank} temporal hta={fig(*hta)} extra={','.join(f'{k}:{v}' for k, v in sorted(extra.items())) or '-'} "
            f"ops_steps={fig(*figs[0])} ops_all={fig(*figs[1])} ops_exact={fig(*figs[2])}"
        )
    return out


def main():
    hta_dir, out_path, traces = sys.argv[1], sys.argv[2], sys.argv[3:]
    sys.path.insert(0, hta_dir)
    logging.disable(logging.CRITICAL)
    from hta.trace_analysis import TraceAnalysis  # noqa: E402

    lines = []
    for trace in traces:
        name = trace
        with tempfile.TemporaryDirectory() as d:
            shutil.copy(trace, d)
            try:
                t = TraceAnalysis(trace_dir=d)
                ranks = sorted(t.t.traces.keys())
                idle, _ = t.get_idle_time_breakdown(ranks=ranks, visualize=False)
            except Exception as e:  # HTA refuses some traces (no GPU events, ...)
                why = " ".join(str(e).split())[:120] or type(e).__name__
                lines.append(f"{name} refused {why}")
                continue
            for rank in ranks:
                r = idle[idle["rank"] == rank]
                for stream in sorted(set(int(s) for s in r["stream"])):
                    s = r[r["stream"].astype(int) == stream]
                    cat = {c: float(v) for c, v in zip(s["idle_category"], s["idle_time"])}
                    lines.append(
                        f"{name} {rank} stream {stream} host_wait {cat.get('host_wait', 0.0):.2f} "
                        f"kernel_wait {cat.get('kernel_wait', 0.0):.2f} other {cat.get('other', 0.0):.2f}"
                    )
            lines.extend(temporal_lines(name, d, t, ranks))
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
