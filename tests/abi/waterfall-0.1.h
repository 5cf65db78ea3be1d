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
 */
#ifndef WATERFALL_H
#define WATERFALL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define WF_API __attribute__((visibility("default")))
#else
#define WF_API
#endif

#define WF_VERSION_MAJOR 0
#define WF_VERSION_MINOR 1

/* The six points of a unit's life, then room for user events. */
typedef enum {
    WF_SYNTH_START = 0, /* CPU synthesis of the unit begins */
    WF_SYNTH_END = 1,   /* synthesis finished */
    WF_CHAN_SEND = 2,   /* pushed to the GPU channel (a.k.a. GPU_QUEUE) */
    WF_GPU_PICKUP = 3,  /* a GPU worker received it from the channel */
    WF_GPU_START = 4,   /* GPU proving begins */
    WF_GPU_END = 5,     /* GPU proving completes */
    WF_EVENT_USER_FIRST = 16, /* wf_event_define returns ids from here */
    WF_EVENT_MAX = 4095       /* largest id a trace can hold */
} wf_event;

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
 * name returns the same id.  Returns a negative errno when the table is
 * full or name is empty; works before wf_open. */
WF_API int wf_event_define(const char *name);

/* The name of ev ("SYNTH_START", a user name, or NULL if unknown). */
WF_API const char *wf_event_name(int ev);

/* ---- Options ---------------------------------------------------------- */

typedef struct {
    size_t ring_events;      /* per-thread ring size in events; 0: 65536 */
    unsigned flush_ms;       /* the writer's period; 0: 10 */
    int block_when_full;     /* 1: wait for room instead of dropping */
    const char *timeline;    /* also write TIMELINE text lines here:
                                a path, "stderr", "stdout", or NULL */
    int timeline_decimals;   /* digits after the millisecond point, 0-6 */
} wf_options;

/* wf_open with options; opts may be NULL (the defaults). */
WF_API int wf_open_opts(const char *path, const wf_options *opts);

/* Counters of the current (or the last closed) recording. */
typedef struct {
    uint64_t marked;   /* marks accepted by the rings plus marks dropped */
    uint64_t recorded; /* events handed to the file */
    uint64_t lost;     /* events dropped: ring full or write error */
    uint32_t threads;  /* threads that marked */
    uint32_t units;    /* units created */
} wf_stats;

/* Fill *st; the figures are exact once wf_close has returned. */
WF_API void wf_get_stats(wf_stats *st);

/*
 * Environment (read when the library is loaded, and by wf_open):
 *   WATERFALL_TRACE=path      record to path from program start, close at exit
 *                             ("%p" in path is replaced by the process id)
 *   WATERFALL_TIMELINE=dest   also write TIMELINE lines (path|stderr|stdout)
 *   WATERFALL_BLOCK=1         block instead of dropping when a ring is full
 *   WATERFALL_RING=N          per-thread ring size in events
 *   WATERFALL_FLUSH_MS=N      writer period in milliseconds
 */

#ifdef __cplusplus
}
#endif

#endif /* WATERFALL_H */
