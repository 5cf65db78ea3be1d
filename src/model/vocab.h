/*
 * vocab.h -- the analysis's words, which every input is put into: the
 * six pipeline events (EV_*), a unit with their times (struct unit),
 * why an input's line was skipped (enum scan_err), what a recording's
 * samples say of CPU, memory and the driver's GPU readings, and a
 * duration entry for the model to place.  Readers (read/, live/) include
 * it; nothing here knows of any reader.
 */
#ifndef VOCAB_H
#define VOCAB_H

#include "wf_timeline.h"

#include <stddef.h>
#include <stdint.h>

/* Event ids shared by every reader: the six pipeline points, the
 * library's own ids (waterfall.h; names in wf_timeline.h, defined once).
 * Any other name is EV_OTHER: data (a phase's start or end, or a mark),
 * kept by name. */
enum {
    EV_SYNTH_START = WF_SYNTH_START,
    EV_SYNTH_END = WF_SYNTH_END,
    EV_CHAN_SEND = WF_CHAN_SEND,
    EV_GPU_PICKUP = WF_GPU_PICKUP,
    EV_GPU_START = WF_GPU_START,
    EV_GPU_END = WF_GPU_END,
    EV_N = WFT_PIPELINE_EVENTS,
    EV_OTHER = EV_N
};
#define ev_names wft_event_names

/* Why a TIMELINE line did not parse. */
enum scan_err {
    SCAN_OK = 0,
    SCAN_NOT_RECORD,   /* "TIMELINE" is part of another word: not a record */
    SCAN_BAD_TIME,     /* missing, malformed, negative, NaN or overflowing time */
    SCAN_BAD_EVENT,    /* missing event name */
    SCAN_UNKNOWN_EVENT,/* an event name that is not a word (a name we do not know is data) */
    SCAN_NO_JOB,       /* missing or empty job id */
    SCAN_BAD_NUMBER,   /* a partition/worker/device value that is not a small integer */
    SCAN_TOO_LONG      /* a record over SCAN_LINE_MAX bytes */
};

extern const char *const scan_err_text[]; /* for people */
extern const char *const scan_err_key[];  /* for JSON */

#define T_NONE INT64_MIN /* an event the unit does not have */

enum unit_flags {
    U_DUP = 1,    /* some event appeared more than once (the first is kept) */
    U_CONTRA = 2, /* its events' times contradict the pipeline's order */
    U_DEVSET = 4, /* some event named its device */
    U_QUEUE = 8,  /* its CHAN_SEND was written GPU_QUEUE (shown so) */
};

struct unit {
    int64_t t[EV_N];   /* ns since the run's epoch, or T_NONE */
    uint32_t job;      /* index into the part's jobs, then the run's */
    int32_t partition; /* -1: none */
    int32_t worker;    /* -1: none */
    int32_t device;    /* from gpu=/device=; 0 when never given */
    uint64_t line;     /* where its first event was (line, or event number) */
    uint32_t flags;
};

#define MAX_ISSUES 5

/* Put event ev at t into unit u, the one rule every builder follows: the
 * first of an event is kept (a later one marks the unit U_DUP: returns
 * 1); the first worker named is kept; a device named sets it (the last
 * wins) and U_DEVSET.  worker, device: -1 when the event names none. */
static inline int unit_set(struct unit *u, int ev, int64_t t, int32_t worker, int32_t device)
{
    if (u->t[ev] != T_NONE) {
        u->flags |= U_DUP;
        return 1;
    }
    u->t[ev] = t;
    if (worker >= 0 && u->worker < 0)
        u->worker = worker;
    if (device >= 0) {
        u->device = device;
        u->flags |= U_DEVSET;
    }
    return 0;
}

/* The hash of a unit key: its job id's hash (the same in every part) mixed
 * with its partition. */
static inline uint64_t unit_hash(uint64_t job_hash, int32_t partition)
{
    uint64_t h = job_hash ^ ((uint64_t)(uint32_t)partition + 1) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return h;
}

/* One unit's stage as its thread's samples saw it: CPU time and what it
 * wanted over [a, b), interpolated between the samples at either side
 * (the analysis groups them by syntheses at once: analyze_cpu.c). */
struct cpu_span {
    int64_t a, b;        /* the stage's start and end, the events' time base */
    double cpu_s, want_s; /* want_s: cpu_s plus run-queue wait; cpu_s when unknown */
    int stage;           /* 0: synthesis, 1: the GPU phase */
    int wait_known;
};
/* What a native trace's CPU records say of the pipeline's threads
 * (a reader fills it; the model keeps it per run): the CPU time they
 * used while their units were synthesized and on the device, and the time
 * they wanted (used, plus waiting runnable for a CPU), interpolated
 * between samples, over the wall time of those intervals.  Only intervals
 * inside their thread's sampled span count. */
struct cpu_use {
    int sampled;            /* the trace has CPU records */
    int wait_known;         /* every sample used has the run-queue wait */
    double synth_cpu_s, synth_want_s, synth_wall_s;
    uint64_t synth_units;
    double gpu_cpu_s, gpu_want_s, gpu_wall_s; /* the thread that marked GPU_START */
    uint64_t gpu_units;
    struct cpu_span *spans; /* every stage interval inside its thread's samples, by end
                             * (owned by the source: source_free; runs borrow it) */
    size_t nspans;
};

/* What a native trace's MEM records say of memory (format 1.4; the model
 * keeps it per run): resident memory's peak and base, and the bytes each
 * synthesis in flight holds: the least-squares slope of resident memory
 * over the syntheses in flight at each sample (SYNTH_START to SYNTH_END),
 * and base its intercept (none in flight), else the least sample. */
struct mem_use {
    int sampled;            /* some MEM record has resident memory */
    uint64_t samples;
    uint64_t peak_bytes, base_bytes;
    double per_synthesis;   /* bytes; NAN: the samples saw one count in flight only */
    int avail_known;
    uint64_t avail_min_bytes; /* the least available memory seen */
};

/* What a native trace says of the driver's view of its GPUs (GPU records,
 * format 1.2; docs/gpu.md), as the model keeps it per run: the utilization
 * readings.  A reading
 * says what share of (from, ns] a kernel ran on NVML's device `device`:
 * the driver's own series where it keeps one (nvmlDeviceGetSamples), else
 * its utilization rate read every 100 ms (then from is the read before). */
enum { GPU_OBS_NONE, GPU_OBS_SERIES, GPU_OBS_RATES }; /* what the readings are */
struct gpu_pt {
    int64_t from, ns; /* since the trace's epoch */
    uint32_t device;
    uint32_t pct;
};
struct gpu_obs {
    int source;         /* GPU_OBS_*: what pts are */
    struct gpu_pt *pts; /* by device, then time (owned: malloc) */
    size_t npts;
};

#define DUR_NAME_MAX 48 /* longest duration name kept (without _ms) */

/* Duration lines (scan_dur) in input order, one entry per duration, for
 * the model to place in its unit's GPU phase (model/durations.c).  They
 * carry no time and no job: where they are in the input is all there is,
 * so each keeps its line and the time of the last record before it. */
/* The engine's spawn line (scan.h) is four entries on its line, in this
 * order: spawn_to_enter and prove_start (ms), then worker_id and
 * partition (their values in ms; partition -1: None), all of tid
 * DL_SPAWN. */
#define DL_SPAWN (-2)
#define DL_SPAWN_N 4 /* entries of one spawn line: spawn_to_enter, prove_start, worker_id, partition */
struct dline {
    uint64_t line;  /* part-relative, 0-based; the input's, 1-based, in the model */
    int64_t t_prev; /* the last record's time before it (the records' clock); T_NONE:
                     * none before it in the part (the model looks in the part before) */
    /* 32 bytes an entry, millions of them: the rest packed in 64 bits */
    int64_t ms : 40;  /* its value (scan_dur: 11 digits at most) */
    int64_t tid : 16; /* gpu_tid=, or -1 (above INT16_MAX: INT16_MAX); DL_SPAWN: an entry of the
                       * engine's spawn line (scan.h) */
    uint64_t at : 7;  /* its place among the line's durations (SCAN_DUR_MAX at most) */
    uint64_t wall : 1; /* t_prev is a line's own wall clock (EV_WALL_BIT) */
    uint32_t key;     /* the name without _ms: the part's strings (extra.strs), then the model's */
    uint32_t next_us; /* the first record after it: its time - t_prev, in us (DL_NEXT_NONE: none read,
                       * a record of the other clock, or over an hour later) */
};
#define DL_NEXT_NONE UINT32_MAX
_Static_assert(sizeof(struct dline) == 32, "a duration entry stays 32 bytes: millions of them");

/* The next record's time (ns) as a dline keeps it after one at t_prev. */
static inline uint32_t dline_next(int64_t t_prev, int prev_wall, int64_t t, int wall)
{
    if (t_prev == T_NONE || prev_wall != wall)
        return DL_NEXT_NONE;
    int64_t us = t > t_prev ? (t - t_prev) / 1000 : 0;
    return us >= (int64_t)DL_NEXT_NONE ? DL_NEXT_NONE : (uint32_t)us;
}

#endif /* VOCAB_H */
