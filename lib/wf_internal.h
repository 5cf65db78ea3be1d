/*
 * wf_internal.h -- what the recorder's files share (not installed).
 *
 * The recorder: per-thread rings, one writer.
 *
 *   wf_ring.c     the per-thread ring: the hot path (wf_mark), attaching a
 *                 thread to a recording, its exit, its role and name
 *   wf_writer.c   the writer thread: drains the rings and the pending
 *                 definitions into the trace, and the TIMELINE text sink
 *   wf_cpu.c      CPU sampling: the threads' CPU time and run-queue wait,
 *                 and the CPU records the writer writes of them
 *   wf_gpu.c      GPU sampling: the driver's utilization and SM clock of
 *                 each device through NVML, loaded at run time by the
 *                 writer (no build-time dependency)
 *   wf_defs.c     records in memory; units and user events, whose
 *                 definitions wait there for the writer
 *   wf_shm.c      the rings file (PATH.rings): the rings and a journal of
 *                 the definitions in a shared mapping, so that a mark
 *                 survives the process's death before the writer ran
 *   wf_session.c  a recording: open (options, the environment), close,
 *                 counters, fork and exit, the version
 *
 * Each marking thread owns a single-producer ring of 16-byte events.  The
 * owner writes a slot and publishes it with a release store of head; the
 * writer thread reads head with acquire, copies [tail, head) into the trace
 * and publishes tail.  The hot path therefore costs one clock read, a few
 * loads of the thread's own cache line and two stores: no lock, no system
 * call, no atomic read-modify-write.
 *
 * Lifetimes.  A ring belongs to its thread: only the owner allocates and
 * resets it, and it is freed by the thread's exit (TLS destructor) or, when
 * the thread exits while recording, by the writer after the last drain.
 * wf_close therefore never frees a ring that a thread might still touch.
 *
 * Sessions.  Each wf_open starts a session with a new nonzero id; wf_live
 * holds it while recording and 0 otherwise.  A ring remembers the session
 * it was attached to, so "ring attached and session live" is one compare.
 *
 * Crash survival.  The rings (their slots, and head, lost and roles) and
 * a journal of the definitions are in PATH.rings, mapped shared
 * (wf_shm.c): a mark that returned is in the page cache, which outlives
 * the process, SIGKILL included.  The writer write()s every flush period
 * (10 ms by default), each ring's events followed by a SEQ record saying
 * how far the ring is in the file, and only after the write() lets the
 * ring's slots be used again (tail); a reader of a trace that was not
 * closed takes the slots after the last SEQ from PATH.rings.  Records are
 * size-prefixed so readers stop cleanly at a torn end.
 *
 * fork().  The child inherits no writer thread; recording is off in the
 * child, its copy of the rings is dropped unread (the parent records them),
 * and its copy of the file descriptors is closed without writing.
 *
 * Locks.  wf_reg_mu guards the ring list, the session and open/close;
 * wf_def_mu the pending definitions and the user events' names.  Lock
 * order everywhere: wf_reg_mu before wf_def_mu.
 *
 * Every name here is hidden (not exported from the shared library) and
 * starts with wf_, so that it cannot clash with a program that links the
 * static library.
 */
#ifndef WF_INTERNAL_H
#define WF_INTERNAL_H

#include "waterfall.h"

#include "wf_format.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#pragma GCC visibility push(hidden)

#define WF_EV_ROLE WFT_EV_ROLE /* ring-only pseudo event: a role change */
#define WF_USER_EVENTS (WF_EVENT_MAX + 1 - WF_EVENT_USER_FIRST)
#define WF_BATCH_MAX 65536u          /* events per EVENTS record: 1 MiB, under WFT_REC_MAX */
#define WF_CLOCK_EVERY_NS 100000000u /* a calibration point each 100 ms */
#define WF_SCHED_FDS 128             /* schedstat files the writer keeps open, at most */

struct wf_slot {
    uint64_t ticks;
    uint64_t word; /* unit | event << 48, as in the file */
};

struct wf_ring {
    /* Owner's line: written by the marking thread only. */
    _Alignas(64) struct wft_ring_header *sh; /* head (slots ever written), lost (marks dropped
                                              * while full), roles (role pseudo-events in head):
                                              * in the rings file, or in own without one; written
                                              * by the owner with __atomic stores */
    uint64_t tail_seen;                      /* owner's cached copy of tail */
    uint64_t mask;                           /* capacity - 1 */
    struct wf_slot *slots;
    uint32_t session; /* the session this ring is attached to */
    int blocking;     /* copied from the session's options */

    /* Writer's line. */
    _Alignas(64) _Atomic uint64_t tail; /* slots in the file: free to be written again */
    uint64_t drained;                   /* slots copied into the writer's batch (tail once written) */

    /* Cold: under wf_reg_mu. */
    _Alignas(64) struct wf_ring *next;
    uint32_t index; /* thread index within the trace */
    uint32_t tid;
    int attached;  /* on the live session's list */
    int exited;    /* its thread is gone; the writer frees it */
    int announced; /* THREAD record written */
    uint32_t name_gen, name_written;
    uint64_t lost_written;  /* last LOST value written */
    int32_t worker, device; /* as the writer last saw them (text sink) */
    char name[32];
    clockid_t cpu_clock; /* the thread's CPU clock (valid while it lives) */
    int has_cpu_clock;
    int sched_fd;            /* its schedstat, open while attached (-1: not yet) */
    int sample_cpu;          /* the session samples CPU time */
    struct wft_cpu cpu_prev; /* the last reading (ticks 0: none yet) */
    unsigned cpu_same;       /* readings in a row unchanged since the last that moved */
    struct wft_cpu cpu_last; /* read by the thread as it exited (ticks 0: none) */
    void *map;               /* its stretch of the rings file (NULL: slots and own are private) */
    size_t map_len, region;
    struct wf_slot *priv;    /* private slots, without the rings file */
    size_t priv_cap;
    struct wft_ring_header own;
};

struct wf_unitname {
    char *job;
    uint32_t job_len;
    int32_t partition;
    char *details; /* "k=v,k=v" (wf_unit_detail), WFT_DETAILS_MAX bytes once one came; or NULL */
    size_t details_len;
};

/* One recording. */
struct wf_session {
    uint32_t id;
    int fd;         /* the trace */
    int text_fd;    /* TIMELINE lines, or -1 */
    int text_owned; /* text_fd was opened by us */
    int decimals;
    wf_options opts;      /* with the defaults and the environment filled in */
    int opts_cpu;         /* sample the threads' CPU time (sample_cpu, WATERFALL_CPU, default on) */
    uint64_t last_cpu_ns; /* when the threads were last sampled (writer-private) */
    int mem_opened;       /* statm_fd and meminfo_fd were opened (writer-private; wf_mem.c) */
    int statm_fd, meminfo_fd; /* -1: could not be opened */
    int opts_gpu;         /* sample the GPUs (sample_gpu, WATERFALL_GPU, default on) */
    char nvml_path[256];  /* the NVML library to load (WATERFALL_NVML_LIB: test-only) */
    struct wf_gpu *gpu;   /* NVML's state (writer-private; wf_gpu.c) */
    int sched_fds;        /* schedstat descriptors kept open (under wf_reg_mu) */
    pid_t pid;
    double ticks_per_ns;
    uint64_t epoch_ticks;
    uint64_t last_clock_ns;
    uint64_t first_unit; /* unit ids of this session start here */
    off_t good_off;      /* end of the last fully written batch */
    struct wf_shm *shm;  /* PATH.rings, or NULL (wf_shm.c) */
    uint64_t journal_taken; /* the journal's end when the writer last took the definitions */
    struct wf_ring *retired; /* rings of exited threads, drained, freed once written */
    char stall_path[256];    /* test-only (WATERFALL_TEST_STALL): the writer stops for good once
                              * this file exists */
    int write_err;       /* first write error, as a positive errno */

    pthread_t writer;
    pthread_mutex_t wake_mu;
    pthread_cond_t wake;
    int stop; /* under wake_mu */

    /* Writer-private. */
    char *out;
    size_t out_len, out_cap;
    char *text;
    size_t text_len, text_cap;
    char *late; /* definitions taken mid-drain, written after the events */
    size_t late_len, late_cap;
    struct wf_unitname *units; /* for the text sink: id - first_unit */
    size_t nunits, units_cap;

    /* Totals (writer-private until joined). */
    _Atomic uint64_t recorded; /* read by wf_get_stats while live */
    uint64_t write_lost, dead_marked, dead_lost;
    uint32_t threads;
};

/* ---- State (wf_session.c) ---------------------------------------------- */

extern pthread_mutex_t wf_reg_mu;  /* rings, open/close */
/* Held by the writer through each cycle, and by fork() (wf_session.c's
 * prepare handler), so that a child is never forked while the writer is
 * inside an allocator: a sanitizer's allocator keeps its locks across
 * fork(), and the child's first allocation, or LeakSanitizer's check at
 * its exit, then waited forever.  Lock order: wf_cycle_mu, wf_reg_mu,
 * wf_def_mu. */
extern pthread_mutex_t wf_cycle_mu;
extern struct wf_session *wf_sess; /* the live (or last) session */
extern _Atomic uint32_t wf_live;   /* live session id, 0 when closed */

/* ---- The per-thread ring (wf_ring.c) ---------------------------------- */

extern struct wf_ring *wf_rings; /* rings attached to the live session */

/* Marks a ring accepted: slots written minus role changes. */
uint64_t wf_ring_marks(struct wf_ring *r);

/* Free a ring its thread no longer uses. */
void wf_ring_free(struct wf_ring *r);

/* In a forked child (one thread, the locks held): free every ring on the
 * list unread and forget the calling thread's own. */
void wf_rings_drop_in_child(void);

/* ---- Records and definitions (wf_defs.c) ------------------------------- */

extern pthread_mutex_t wf_def_mu; /* pending definitions, user events */

/* Unit and event definitions waiting for the writer, as file records. */
extern char *wf_defs;
extern size_t wf_defs_len, wf_defs_cap;
extern char wf_event_names[WF_USER_EVENTS][48];
extern int wf_nevents;
extern _Atomic uint64_t wf_next_unit;
extern _Atomic uint32_t wf_units_made;

static inline size_t wf_pad8(size_t n) { return (n + 7) & ~(size_t)7; }

/* Room for more bytes after len in *buf (doubling from 4 KiB): 0 or -ENOMEM. */
int wf_buf_reserve(char **buf, size_t *cap, size_t len, size_t more);

/* Fill a record header; checksum a complete record in place (its body
 * follows its header). */
void wf_rec_init(struct wft_rec *r, uint32_t size, uint16_t type);
void wf_rec_seal(char *rec);

/* Append a record with a fixed part and trailing bytes to a buffer. */
int wf_rec_append(char **buf, size_t *len, size_t *cap, uint16_t type, void *fixed,
                  size_t fixed_size, const void *tail, size_t tail_len);

/* Append a fixed-size record to the session's output (the writer's batch). */
void wf_out_rec(struct wf_session *s, uint16_t type, void *fixed, size_t size);

/* Append user event id's definition to the pending ones (under wf_def_mu). */
int wf_event_def_rec(int id);

/* ---- The writer (wf_writer.c) ------------------------------------------ */

/* The writer thread's body; arg is its session. */
void *wf_writer_main(void *arg);

/* Write p to the trace, counting events as recorded; on an error roll the
 * file back to its last complete batch and count them lost. */
void wf_write_all(struct wf_session *s, const char *p, size_t len, uint64_t events);

/* ---- The rings file (wf_shm.c) ----------------------------------------- */

struct wf_shm;
extern struct wf_shm *wf_journal; /* the live session's, for definitions (under wf_def_mu) */

/* PATH.rings made and mapped; NULL when it cannot be (the rings stay private). */
struct wf_shm *wf_shm_open(const char *trace, uint64_t epoch_ticks, uint32_t ring_events, uint32_t pid);
/* Unmap it; remove: delete the file too (every slot is in PATH); 0 in a
 * forked child, whose parent's file stays as it is. */
void wf_shm_close(struct wf_shm *m, int remove);
/* A stretch of it for r, mapped and pre-faulted (under wf_reg_mu): 0, or -1. */
int wf_shm_ring(struct wf_shm *m, struct wf_ring *r);
/* r's slots are all in PATH: its stretch may serve another thread (under wf_reg_mu). */
void wf_shm_ring_done(struct wf_shm *m, struct wf_ring *r);
/* Unmap r's stretch (by its owner, or once its thread is gone). */
void wf_shm_ring_unmap(struct wf_ring *r);
/* A definition record into the journal (under wf_def_mu). */
void wf_shm_journal(struct wf_shm *m, const char *rec, size_t size);
uint64_t wf_shm_journal_end(const struct wf_shm *m);
/* The journal's bytes up to upto are in PATH. */
void wf_shm_journal_done(struct wf_shm *m, uint64_t upto);

/* ---- CPU sampling (wf_cpu.c) ------------------------------------------- */

/* A thread's CPU time and run-queue wait (tid 0: the calling thread's);
 * *fdp, when given, keeps its schedstat file open between readings.
 * c->ticks is 0 when nothing could be read. */
void wf_cpu_sample(int *fdp, uint32_t tid, clockid_t clk, int has_clk, struct wft_cpu *c);

/* A CPU reading of r's thread, kept in its ring's header (the rings file). */
void wf_cpu_keep(struct wf_ring *r, const struct wft_cpu *c);

/* The writer's CPU record of a ring's thread, if it is due one (under
 * wf_reg_mu; exited: use what the thread read as it exited). */
void wf_cpu_record(struct wf_session *s, struct wf_ring *r, int exited);
/* A MEM record of the process's resident and the system's available
 * memory (wf_mem.c; the writer, with the CPU samples); its files closed. */
void wf_mem_record(struct wf_session *s);
void wf_mem_close(struct wf_session *s);

/* ---- GPU sampling (wf_gpu.c) ------------------------------------------- */

/* The writer's GPU work for one cycle (not under a lock): on the first,
 * load NVML and write the GPU record (and the devices'); then, every
 * WF_GPU_EVERY_NS or when final, a sample of each device. */
#define WF_GPU_EVERY_NS 100000000u
void wf_gpu_cycle(struct wf_session *s, int final);

/* Unload NVML (the writer, as it ends). */
void wf_gpu_close(struct wf_session *s);

/* In a forked child: forget NVML's state without calling into it. */
void wf_gpu_drop_in_child(struct wf_session *s);

#pragma GCC visibility pop

#endif /* WF_INTERNAL_H */
