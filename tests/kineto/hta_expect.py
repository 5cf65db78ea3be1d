#!/usr/bin/env python3
"""hta_expect.py -- what HTA itself says of Kineto traces: the expected
values tests/test_kineto.sh compares waterfall with.

For each trace, HTA (Holistic Trace Analysis, run from its source) is asked
for its idle-time breakdown per stream (get_idle_time_breakdown, HTA's
default consecutive_kernel_delay of 30); one line per stream is written:

    <trace> <rank> stream <n> host_wait <us> kernel_wait <us> other <us>

in HTA's units (µs) and HTA's rounding (two decimals).  A trace HTA
refuses is written as `<name> refused <why>`.

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
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
