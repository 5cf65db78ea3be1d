/*
 * read_wft.h -- reading a native trace (*.wft) into memory.
 *
 * The reader never trusts the file: every record is checked against the
 * bytes that remain, a damaged stretch is skipped by scanning forward for
 * the next well-formed record (and counted), and a torn end -- the normal
 * state of a trace whose process died -- stops the read cleanly.
 */
#ifndef READ_WFT_H
#define READ_WFT_H

#include "events.h"
#include "wf_format.h"

#include <stddef.h>
#include <stdint.h>

struct wft_ev {
    int64_t ns;       /* since the trace's epoch */
    uint64_t unit;
    uint32_t event;   /* wf_event id */
    uint32_t thread;  /* index into wft_trace.threads */
    int32_t worker;   /* the thread's role when it marked; < 0: none */
    int32_t device;
};

struct wft_thread_info {
    uint32_t tid;
    int seen;         /* a THREAD record named it */
    char name[32];
    int32_t worker, device; /* role while reading (the last one at the end) */
    int roles;        /* a role was declared */
    int role_changed; /* ... and later a different one (a thread that works for several) */
    uint64_t events;
    uint64_t lost;    /* from its last LOST record */
    uint64_t cpu_ns;  /* its CPU time at its last CPU record (0: none) */
    uint64_t seq;     /* its ring's slots below this are in the file (SEQ records; format 1.3) */
    uint64_t after_seq; /* slots (events and role changes) in the file after its last SEQ: a write
                         * cut short by the process's death may hold them without their SEQ */
};

/* A sample of the process's memory (a MEM record, format 1.4). */
struct wft_mem_pt {
    int64_t ns;           /* since the trace's epoch */
    uint64_t rss_bytes;   /* resident memory */
    uint64_t avail_bytes; /* the system's available memory */
    uint32_t flags;       /* WFT_MEM_* */
};

/* A sample of a thread's CPU time (a CPU record). */
struct wft_cpu_pt {
    int64_t ns;       /* since the trace's epoch */
    uint64_t cpu_ns;  /* the thread's CPU time so far */
    uint64_t wait_ns; /* ... and time runnable, waiting for a CPU (0: unknown) */
    uint32_t thread;
    uint32_t flags;   /* WFT_CPU_* */
};

/* A GPU_SAMPLE record, what the command reads of it. */
struct wft_gpu_pt {
    int64_t ns;      /* since the trace's epoch */
    uint32_t device; /* NVML's index */
    uint16_t kind;   /* enum wft_gpu_kind */
    uint16_t flags;  /* WFT_GS_* */
    uint32_t value;
};

struct wft_unit_info {
    uint64_t unit;
    int32_t partition;
    char *job;        /* NUL-terminated copy */
    char *details;    /* its UNIT_DETAIL records as "k=v,k=v" (wft_detail_add; NUL-terminated), after wft_sort; or NULL */
    size_t details_len;
};

/* A UNIT_DETAIL record as read, before wft_sort gives it to its unit. */
struct wft_detail {
    uint64_t unit;
    char *kv; /* key_len bytes of key, then value_len of value */
    uint32_t key_len, value_len;
};

struct wft_trace {
    const char *path;
    struct wft_header hdr;
    uint64_t file_size;
    double ticks_per_ns;   /* refined from CLOCK records when they span >= 50 ms */
    uint32_t clock_points;
    uint64_t clk_first[2], clk_last[2]; /* the first and last CLOCK records: ticks, mono_ns */
    double clock_span_s;

    struct wft_ev *ev;
    size_t nev, ev_cap;
    struct wft_thread_info *threads;
    size_t nthreads;
    struct wft_cpu_pt *cpu;      /* CPU records, in file order until wft_sort */
    size_t ncpu, cpu_cap;
    struct wft_mem_pt *mem;      /* MEM records, by time after wft_sort */
    size_t nmem, mem_cap;
    int gpu_seen;                 /* a GPU record was read (format 1.2) */
    struct wft_gpu gpu;           /* ... that one, its strings NUL-terminated */
    struct wft_gpu_dev gpu_devs[WFT_GPU_DEVICES_MAX]; /* GPU_DEV records, strings NUL-terminated */
    size_t ngpu_devs;
    struct wft_gpu_pt *gpu_pts; /* GPU_SAMPLE records, by device, kind, time after wft_sort */
    size_t ngpu_pts, gpu_pts_cap;
    struct wft_unit_info *units; /* sorted by unit id after reading */
    size_t nunits, units_cap;
    struct wft_detail *details;  /* UNIT_DETAIL records, in file order (minor >= 4) */
    size_t ndetails, details_cap;
    char *event_names[4096];     /* user event names by id */

    int closed;              /* an END record was read */
    struct wft_end end;
    uint64_t lost;           /* sum of the threads' last LOST counts */
    uint64_t torn_at;        /* offset of a torn final record, or 0 */
    uint64_t corrupt_bytes;  /* bytes skipped as unreadable */
    uint64_t corrupt_at;     /* offset of the first damage, or 0 */
    uint64_t bad_records;    /* well-framed records with bad contents */

    /* The rings file (format 1.3, read_rings.c): read when the trace did
     * not finish and was recorded with one. */
    int rings;                 /* enum wft_rings_state */
    uint64_t rings_events;     /* events taken from it */
    uint64_t rings_defs;       /* unit and event definitions taken from it */
    uint64_t rings_dropped;    /* definitions the recorder could not keep in it */
    uint64_t rings_private;    /* threads whose ring was not in it (the file could not grow) */
};

enum wft_rings_state {
    WFT_RINGS_NONE = 0,   /* none expected: the trace finished, or was recorded without one */
    WFT_RINGS_READ,       /* read: rings_events and rings_defs came from it */
    WFT_RINGS_MISSING,    /* expected, not there (moved without it, or removed) */
    WFT_RINGS_OTHER,      /* there, but another recording's (its epoch differs) */
    WFT_RINGS_DAMAGED,    /* there, but not readable as one */
    WFT_RINGS_RUNNING     /* not read: its recording process still runs (its writer will write them) */
};

/* Is this buffer's start a native trace? */
int wft_sniff(const void *data, size_t len);

/* Parse data[0..len) as a trace named path.  Returns 0, or -1 with a
 * message in err when nothing usable could be read (not a trace, a
 * version this reader does not know).  Damage past a valid header is not
 * an error: it is counted in the trace and the read goes on. */
int wft_parse(struct wft_trace *t, const char *path, const void *data, size_t len,
              char *err, size_t errlen);

/* The same, and for a trace that did not finish, what its rings file
 * (path.rings) holds that the trace lacks (read_rings.c): the marks its
 * writer had not yet written.  t->rings says what came of it. */
int wft_parse_recover(struct wft_trace *t, const char *path, const void *data, size_t len,
                      char *err, size_t errlen);

#define WFT_MAX_THREADS (1u << 20) /* a sane bound on thread indexes: past it, damage */

/* For read_rings.c: a thread's entry (made when new; NULL past the
 * bound, or out of memory), one record read as the trace's are (0, or -1
 * when its contents are bad), whether a whole intact record lies at off
 * of d ... */
struct wft_thread_info *wft_thread_at(struct wft_trace *t, uint32_t idx);
int wft_take_record(struct wft_trace *t, const unsigned char *p, uint32_t size, uint16_t type);
int wft_rec_whole(const unsigned char *d, size_t len, size_t off);
/* ... and what an EVENTS, ROLE or CPU record gives, as read_wft.c takes
 * them: count events of 16 bytes at q marked by thread (0, or -1 out of
 * memory or a thread index past the bound), a thread's role, a CPU
 * reading (0, or -1 out of memory). */
int wft_add_events(struct wft_trace *t, uint32_t thread, const unsigned char *q, uint32_t count);
void wft_thread_role(struct wft_thread_info *th, int32_t worker, int32_t device);
int wft_add_cpu(struct wft_trace *t, struct wft_thread_info *th, const struct wft_cpu *r);

/* wft_parse in two steps, for read_rings.c to put the rings file's marks
 * between them: the header and records (times still in ticks; 0, or -1
 * with err set, as wft_parse), then the clock's calibration, which turns
 * every time into ns since the epoch, and the lost counts' sum. */
int wft_parse_records(struct wft_trace *t, const char *path, const void *data, size_t len,
                      char *err, size_t errlen);
void wft_parse_finish(struct wft_trace *t);

/* Sort events by time, keeping each thread's marking order. */
void wft_sort(struct wft_trace *t);

/* What the MEM records say (after wft_sort): peak and base resident
 * memory, and memory per synthesis in flight. */
void wft_mem_use(const struct wft_trace *t, struct mem_use *u);

/* The CPU use of the synthesis and GPU intervals (after wft_sort); the
 * caller frees u->spans. */
void wft_cpu_use(const struct wft_trace *t, struct cpu_use *u);

/* The driver's utilization readings (GPU_OBS_*, after wft_sort) into *g;
 * 0, or -1 when out of memory. */
int wft_gpu_obs(const struct wft_trace *t, struct gpu_obs *g);

/* The unit's record, or NULL. */
const struct wft_unit_info *wft_unit_find(const struct wft_trace *t, uint64_t unit);

/* The name of event id ev in this trace (built-in, defined, or "EVENT_<n>"
 * written into buf[24]). */
const char *wft_event_label(const struct wft_trace *t, uint32_t ev, char *buf);

void wft_free(struct wft_trace *t);

#endif /* READ_WFT_H */
