/*
 * waterfall.h -- record the life of every unit of work in a CPU -> GPU
 * pipeline at close to the cost of reading the clock.
 *
 * A unit is created once (wf_unit_new) and then marked at each of the six
 * points of the pipeline (wf_mark).  Marks go to a per-thread ring buffer
 * with no lock and no system call; a writer thread drains the rings to a
 * native trace file (docs/format.md) and, optionally, to cuzk-style
 * "TIMELINE,<ms>,<EVENT>,<job>,<detail>" text lines.
 *
 * The caller is never blocked by default: when a ring is full the event is
 * dropped and counted, and the count is written into the trace.
 *
 * Thread-safety: every function may be called from any thread.  wf_open and
 * wf_close must not race each other.  See docs/api.md for the reference.
 *
 * ABI: the header only grows.  Every call and type of an earlier header
 * keeps its meaning and its layout, so a program built against an older
 * header runs against a newer library (tests/test_abi.c checks it against
 * the 0.1 header, tests/abi/waterfall-0.1.h).  Structs that may grow
 * (wf_config, wf_stats_ex) carry their size in their first member; see
 * "Growing structs" below and docs/api.md, "Versions and the ABI".
 */
#ifndef WATERFALL_H
#define WATERFALL_H

#include <stddef.h>
#include <stdint.h>

/* WF_VERSION_MAJOR, _MINOR, _PATCH, _STRING, _NUMBER: generated from the
 * version in CMakeLists.txt, installed beside this header. */
#include "waterfall_version.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define WF_API __attribute__((visibility("default")))
#else
#define WF_API
#endif

/* An event id: one of the six points of a unit's life below, or a user
 * event (wf_event_define).  A plain 32-bit integer, so that any id passes
 * to wf_mark without a cast, from C++ too.  (Header 0.1 had an enum here;
 * both are passed as a 32-bit int on the platforms this builds for, so the
 * ABI is the same.) */
typedef int32_t wf_event;

enum {
    WF_SYNTH_START = 0,       /* CPU synthesis of the unit begins */
    WF_SYNTH_END = 1,         /* synthesis finished */
    WF_CHAN_SEND = 2,         /* pushed to the GPU channel (a.k.a. GPU_QUEUE) */
    WF_GPU_PICKUP = 3,        /* a GPU worker received it from the channel */
    WF_GPU_START = 4,         /* GPU proving begins */
    WF_GPU_END = 5,           /* GPU proving completes */
    WF_EVENT_USER_FIRST = 16, /* wf_event_define returns ids from here */
    WF_EVENT_MAX = 4095       /* largest id a trace can hold */
};

/* A job, or one partition of it; 0 is "no unit". */
typedef uint64_t wf_unit;

/* Start recording to path: 0, or a negative errno.  -EALREADY when a
 * recording is open (unless it was opened by WATERFALL_TRACE, which takes
 * precedence: then 0 and the environment's path is kept). */
WF_API int wf_open(const char *path);

/* Flush everything and finish the file: 0, or a negative errno (the first
 * write error seen during the recording, if any). */
WF_API int wf_close(void);

/* A new unit for job_id (copied; NULL is ""), partition < 0: none.
 * Returns 0 when not recording: marks of unit 0 are ignored. */
WF_API wf_unit wf_unit_new(const char *job_id, int partition);

/* A detail key=value of unit, as a TIMELINE line's detail carries kind=...
 * (the analysis breaks stage times down by kind=).  Once per unit and key:
 * the first value of a key is the unit's.  The key is letters, digits, '_',
 * '-' and '.' (up to 64 bytes), and not one the unit already has by its
 * own means (job, partition, worker, device, gpu); the value is copied (up
 * to 256 bytes).  0 (also when not recording, or for unit 0), -EINVAL for
 * a bad key, -ENOMEM.  Takes the lock wf_unit_new takes. */
WF_API int wf_unit_detail(wf_unit unit, const char *key, const char *value);

/* The hot path: timestamp ev for unit on the calling thread's ring.
 * Does nothing before wf_open, after wf_close, or for unit 0. */
WF_API void wf_mark(wf_event ev, wf_unit unit);

/* ---- Threads ---------------------------------------------------------- */

/* Declare the calling thread a GPU worker of device: later marks of this
 * thread carry worker= and device= with no extra hot-path argument.
 * worker or device < 0 clears it.  Cheap; may be called again. */
WF_API void wf_thread_worker(int worker, int device);

/* Name the calling thread in the trace (copied, up to 31 bytes). */
WF_API void wf_thread_name(const char *name);

/* ---- User events ------------------------------------------------------ */

/* A user event named name (copied, up to 47 bytes; case kept).  The same
 * name returns the same id; a built-in name returns the built-in id.
 * Returns a negative errno when the table is full or name is empty; works
 * before wf_open.  wf_mark(wf_event_define("KERNEL_START"), u) needs no
 * cast (a negative id is ignored by wf_mark). */
WF_API wf_event wf_event_define(const char *name);

/* The name of ev ("SYNTH_START", a user name, or NULL if unknown). */
WF_API const char *wf_event_name(wf_event ev);

/* ---- Version ---------------------------------------------------------- */

/* The version of the library loaded at run time, which may be newer than
 * the header a program was built with (WF_VERSION_NUMBER): MAJOR * 10000 +
 * MINOR * 100 + PATCH, and as "MAJOR.MINOR.PATCH". */
WF_API int wf_version(void);
WF_API const char *wf_version_string(void);

/* ---- Growing structs -------------------------------------------------- */

/*
 * wf_config and wf_stats_ex may gain members in later versions without
 * breaking programs built against this header.  The rule:
 *   - the first member, size, holds sizeof the struct as the caller was
 *     compiled: wf_config_init sets it; for wf_stats_ex set it yourself
 *     (wf_stats_ex st = {.size = sizeof st};);
 *   - members are only ever appended, and a member's 0 means its default;
 *   - the library reads (or fills) the members that fit in size and takes
 *     the defaults for (or leaves out) the rest; a struct larger than the
 *     library knows is accepted when the members it does not know are 0,
 *     and refused with -E2BIG otherwise (a newer program asking an older
 *     library for something it cannot do).
 */

/* Options of a recording (wf_open_config).  0 or NULL in any member means
 * its default, which is the environment's value where there is one (see
 * Environment below), else the value given here. */
typedef struct wf_config {
    size_t size;           /* sizeof(wf_config) as compiled: wf_config_init sets it */
    size_t ring_events;    /* per-thread ring size in events; 0: 65536 */
    unsigned flush_ms;     /* the writer's period; 0: 10 */
    int block_when_full;   /* 1: wait for room instead of dropping */
    const char *timeline;  /* also write TIMELINE text lines here:
                              a path, "stderr", "stdout", or NULL */
    int timeline_decimals; /* digits after the millisecond point, 0-6 */
    int sample_cpu;        /* sample the threads' CPU time: 1 yes, -1 no,
                              0: WATERFALL_CPU, else yes */
    int sample_gpu;        /* sample the GPUs through NVML when it loads:
                              1 yes, -1 no, 0: WATERFALL_GPU, else yes
                              (docs/gpu.md) */
} wf_config;

/* Set *c to the defaults (all 0) for a struct of size bytes, c->size to
 * size: 0, or -EINVAL (NULL, or size smaller than any wf_config). */
WF_API int wf_config_init_size(wf_config *c, size_t size);

/* Set *c to the defaults, with c->size the size this header gives it. */
static inline int wf_config_init(wf_config *c) { return wf_config_init_size(c, sizeof *c); }

/* wf_open with a wf_config (NULL: the defaults).  As wf_open, and -EINVAL
 * for a size smaller than any wf_config, -E2BIG as above. */
WF_API int wf_open_config(const char *path, const wf_config *c);

/* Counters of the current (or the last closed) recording, as wf_stats has
 * them, in a struct that can grow. */
typedef struct wf_stats_ex {
    size_t size;       /* sizeof(wf_stats_ex) as compiled: set it before the call */
    uint64_t marked;   /* marks accepted by the rings plus marks dropped */
    uint64_t recorded; /* events handed to the file */
    uint64_t lost;     /* events dropped: ring full or write error */
    uint32_t threads;  /* threads that marked */
    uint32_t units;    /* units created */
} wf_stats_ex;

/* Fill the members of *st that fit in st->size (members this library does
 * not know are set to 0): 0, or -EINVAL (NULL, or a size smaller than any
 * wf_stats_ex).  The figures are exact once wf_close has returned. */
WF_API int wf_get_stats_ex(wf_stats_ex *st);

/* ---- Options and counters of version 0.1 (fixed: they never grow) ------ */

/* wf_config's first options, without its size (their meaning is there). */
typedef struct {
    size_t ring_events;
    unsigned flush_ms;
    int block_when_full;
    const char *timeline;
    int timeline_decimals;
} wf_options;

/* wf_open with options; opts may be NULL (the defaults).  The same as
 * wf_open_config with the same members and sample_cpu 0. */
WF_API int wf_open_opts(const char *path, const wf_options *opts);

/* wf_stats_ex's counters, without its size (their meaning is there). */
typedef struct {
    uint64_t marked, recorded, lost;
    uint32_t threads, units;
} wf_stats;

/* Fill *st; the figures are exact once wf_close has returned. */
WF_API void wf_get_stats(wf_stats *st);

/*
 * Environment.  WATERFALL_TRACE is read when the library is loaded;
 * WATERFALL_CLOCK at the first open of the process; the others at each
 * open, for the options left at 0 (or NULL):
 *   WATERFALL_TRACE=path      record to path from program start, close at exit
 *                             ("%p" in path is replaced by the process id)
 *   WATERFALL_TIMELINE=dest   also write TIMELINE lines (path|stderr|stdout)
 *   WATERFALL_BLOCK=1         block instead of dropping when a ring is full
 *   WATERFALL_RING=N          per-thread ring size in events
 *   WATERFALL_FLUSH_MS=N      writer period in milliseconds
 *   WATERFALL_CPU=0           do not sample the threads' CPU time
 *   WATERFALL_GPU=0           do not sample the GPUs (NVML)
 *   WATERFALL_CLOCK=monotonic CLOCK_MONOTONIC instead of the TSC (or arm64's
 *                             virtual counter)
 * N is a decimal number from 0 to 2^30; anything else is ignored.
 */

#ifdef __cplusplus
}
#endif

#endif /* WATERFALL_H */
