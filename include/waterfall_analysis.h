/*
 * waterfall_analysis.h -- libwaterfall-analysis: why an accelerator sits
 * idle in a CPU -> GPU pipeline, as a library.
 *
 * It reads what `waterfall analyze` reads (a native trace, or a text log
 * with TIMELINE lines, gzip or zstd compressed too), or events a program
 * gives it one by one (wfa_builder), and returns the analysis: the JSON
 * document that `waterfall analyze --json` prints (docs/json.md), and the
 * headline figures of each run.
 *
 *     wfa_result *res;
 *     int st = wfa_analyze_file("daemon.log", NULL, &res);
 *     if (res && wfa_result_runs(res) > 0)
 *         printf("%.1f%%\n", 100 * wfa_run_utilization(res, 0));
 *     fputs(res ? wfa_result_messages(res) : "out of memory\n", stderr);
 *     wfa_result_free(res);
 *
 * Errors: every call that can fail returns a status, WFA_OK (0) or one of
 * the WFA_* below, the same numbers as the command's exit statuses; what
 * went wrong is in wfa_result_messages, one line each, naming the input
 * and the line.  A result is given whenever memory allows, also when an
 * input failed: the others are analysed.
 *
 * Handles are opaque; wfa_options grows at its end, its size first (as
 * wf_config in waterfall.h).  Thread-safe: no state is shared between
 * calls.  Link with `pkg-config --libs waterfall-analysis`.
 */
#ifndef WATERFALL_ANALYSIS_H
#define WATERFALL_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define WFA_API __attribute__((visibility("default")))
#else
#define WFA_API
#endif

/* Statuses (the command's exit statuses, docs/cli.md). */
enum {
    WFA_OK = 0,
    WFA_FAIL = 1,    /* out of memory, or a write failed */
    WFA_USAGE = 2,   /* a bad argument (an option out of range) */
    WFA_INPUT = 3,   /* an input could not be read or held nothing usable */
    WFA_PARTIAL = 4, /* analysed, but some input was damaged, lost events or had lines skipped */
};

typedef struct wfa_options {
    size_t size;              /* sizeof(wfa_options), as the caller was built */
    const char *kernel_phase; /* the phase whose share of the GPU phase is kernel time (NULL: the
                               * input's own, as `--kernel-phase` leaves it) */
    int advise;               /* -1: auto (default), 0: the formula, 1: the simulator (`--advise`) */
    double trace_cores;       /* the recording machine's cores for the simulation (0: the trace's) */
    int gaps;                 /* list each idle gap in the JSON (`--gaps`): 0 or 1 */
    size_t max_gaps;          /* with gaps: at most this many (0: the command's default) */
    double consecutive_kernel_delay_us; /* PyTorch traces: HTA's kernel_wait threshold, in the
                                         * trace's µs (`--consecutive-kernel-delay`; default 30) */
    const char *const *stages; /* PyTorch traces: nstages rules "STAGE=GLOB" (`--stage`), STAGE
                                * synthesis or prep, GLOB a pattern of CPU range names; NULL: none */
    size_t nstages;
} wfa_options;

/* The defaults: what `waterfall analyze --json` does. */
WFA_API void wfa_options_init(wfa_options *o);

typedef struct wfa_result wfa_result;

/* Analyse a file ("-": stdin) or bytes in memory (name: how messages
 * name them).  *out: the result (NULL only when out of memory). */
WFA_API int wfa_analyze_file(const char *path, const wfa_options *o, wfa_result **out);
WFA_API int wfa_analyze_buffer(const void *data, size_t len, const char *name, const wfa_options *o,
                               wfa_result **out);

/* The analysis as `waterfall analyze --json` prints it (NUL-terminated;
 * owned by the result).  len may be NULL. */
WFA_API const char *wfa_result_json(const wfa_result *r, size_t *len);
/* What the command would have said on stderr ("" when nothing). */
WFA_API const char *wfa_result_messages(const wfa_result *r);
/* The status the analysis ended with (WFA_*). */
WFA_API int wfa_result_status(const wfa_result *r);

/* Runs: one per life of the daemon (a log may hold several). */
WFA_API size_t wfa_result_runs(const wfa_result *r);
/* The GPU's utilization over the run's window, 0..1 (NaN: no window). */
WFA_API double wfa_run_utilization(const wfa_result *r, size_t run);
/* Busy time and window, seconds. */
WFA_API double wfa_run_busy_s(const wfa_result *r, size_t run);
WFA_API double wfa_run_window_s(const wfa_result *r, size_t run);
/* Units (jobs, or partitions of them) in the run. */
WFA_API uint64_t wfa_run_units(const wfa_result *r, size_t run);
/* The bottleneck's name, as the JSON's "bottleneck" says it. */
WFA_API const char *wfa_run_bottleneck(const wfa_result *r, size_t run);

WFA_API void wfa_result_free(wfa_result *r);

/*
 * Events from a program: any input a reader of its own understands (a
 * CSV, a profiler's trace) gets the whole analysis.  Events come in any
 * order; a unit is (job, partition); partition -1: none.  event: one of
 * the six (SYNTH_START, SYNTH_END, CHAN_SEND or GPU_QUEUE, GPU_PICKUP,
 * GPU_START, GPU_END), or any other name: a phase's NAME_START or
 * NAME_END, or a mark.  t_ns: since the run's epoch.  worker, device: -1
 * when not known.  line: where it is in the caller's input (1-based), the
 * position reports point at.
 */
typedef struct wfa_builder wfa_builder;

/* source: the input's name; kind: what it is, as the JSON's "format"
 * names it (e.g. "csv").  NULL when out of memory. */
WFA_API wfa_builder *wfa_builder_new(const char *source, const char *kind);
WFA_API int wfa_builder_event(wfa_builder *b, int64_t t_ns, const char *job, int32_t partition,
                              const char *event, int32_t worker, int32_t device, uint64_t line);
/* A detail of the unit the analysis keeps (key=value, e.g. kind=winning). */
WFA_API int wfa_builder_detail(wfa_builder *b, const char *job, int32_t partition, const char *key,
                               const char *value, uint64_t line);
/* The events after this are a new run (the daemon restarted). */
WFA_API void wfa_builder_run_break(wfa_builder *b);
/* Analyse what was given.  The builder is spent (free it after). */
WFA_API int wfa_builder_analyze(wfa_builder *b, const wfa_options *o, wfa_result **out);
WFA_API void wfa_builder_free(wfa_builder *b);

#ifdef __cplusplus
}
#endif

#endif /* WATERFALL_ANALYSIS_H */
