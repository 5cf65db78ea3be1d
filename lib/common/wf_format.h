/*
 * wf_format.h -- the byte layout of a native waterfall trace (*.wft).
 *
 * A trace is a fixed 256-byte header followed by a stream of records.
 * Every record starts with a 16-byte wft_rec and is padded to a multiple of
 * 8 bytes, so a reader can step over records it does not know and can tell
 * where a torn write ends.  Each record carries a CRC-32C of its body, so
 * damage inside a record is detected, not read as data.  All integers are little-endian as written by
 * the recording host (wft_header.endian tells).  docs/format.md is the prose
 * version of this file; keep them in step.
 *
 * Versioning: major changes when an existing field changes meaning; minor
 * when a record type or a field in reserved space is added.  A reader
 * accepts any minor of its major and skips record types it does not know.
 */
#ifndef WF_FORMAT_H
#define WF_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define WFT_MAGIC "\x89WFT\r\n\x1a\n" /* 8 bytes: PNG-style, catches text-mode mangling */
#define WFT_VERSION_MAJOR 1
#define WFT_VERSION_MINOR 5 /* 1: CPU records; 2: GPU records (the driver's view, NVML); 3: SEQ records, the rings file;
                              * 4: UNIT_DETAIL records;
                              * 5: MEM records */
#define WFT_HEADER_SIZE 256
#define WFT_ENDIAN_MARK 0x01020304u
#define WFT_REC_MAX (1u << 24) /* no record is larger: a bound for readers */

enum wft_clock {
    WFT_CLOCK_TSC = 1,       /* x86 invariant time-stamp counter */
    WFT_CLOCK_MONOTONIC = 2, /* CLOCK_MONOTONIC nanoseconds (ticks_per_ns 1) */
    WFT_CLOCK_CNTVCT = 3     /* arm64 virtual counter */
};

struct wft_header {
    uint8_t magic[8];       /* WFT_MAGIC */
    uint16_t version_major; /* WFT_VERSION_MAJOR */
    uint16_t version_minor; /* WFT_VERSION_MINOR */
    uint32_t header_size;   /* offset of the first record: WFT_HEADER_SIZE */
    uint32_t endian;        /* WFT_ENDIAN_MARK as the writer stored it */
    uint32_t clock;         /* enum wft_clock: what ticks are */
    double ticks_per_ns;    /* calibration at open; CLOCK records refine it */
    uint64_t epoch_ticks;   /* tick count at the epoch (time 0 of the trace) */
    uint64_t epoch_mono_ns; /* CLOCK_MONOTONIC at the epoch */
    int64_t epoch_real_ns;  /* CLOCK_REALTIME at the epoch, ns since 1970 */
    uint32_t pid;           /* recording process */
    uint32_t ring_events;   /* per-thread ring size used */
    uint32_t flush_ms;      /* writer period used */
    uint32_t flags;         /* WFT_F_* */
    char host[64];          /* gethostname(), NUL-terminated */
    uint32_t cpus;          /* CPUs online at open (minor >= 1; 0: unknown) */
    uint32_t pad;
    uint8_t reserved[256 - 8 - 4 - 4 - 4 - 4 - 8 - 8 - 8 - 8 - 16 - 64 - 8];
};

#define WFT_F_BLOCKING 1u /* recorded with block_when_full */
#define WFT_F_CPU 2u      /* threads' CPU time sampled (CPU records; minor >= 1) */
#define WFT_F_GPU 4u      /* GPU sampling was on: a GPU record says what came of it (minor >= 2) */
#define WFT_F_RINGS 8u    /* the rings were in PATH.rings while recording (minor >= 3; below) */

struct wft_rec {
    uint32_t size;     /* whole record in bytes, header included, multiple of 8 */
    uint16_t type;     /* enum wft_type */
    uint16_t check;    /* wft_check(size, type): a cheap filter for framing */
    uint32_t crc;      /* CRC-32C (Castagnoli) of bytes [16, size) of the record */
    uint32_t reserved; /* 0 */
};

/* CRC-32C of n bytes, continuing from crc (start with 0). */
uint32_t wft_crc32c(uint32_t crc, const void *data, size_t n);

static inline uint16_t wft_check(uint32_t size, uint16_t type)
{
    return (uint16_t)((size ^ (size >> 16) ^ type ^ 0x5746u) & 0xffffu);
}

enum wft_type {
    WFT_THREAD = 1,    /* struct wft_thread: a thread appears or is renamed */
    WFT_UNIT = 2,      /* struct wft_unit + job id bytes */
    WFT_EVENT_DEF = 3, /* struct wft_event_def + name bytes */
    WFT_EVENTS = 4,    /* struct wft_events + count struct wft_event */
    WFT_ROLE = 5,      /* struct wft_role: worker/device of later events */
    WFT_LOST = 6,      /* struct wft_lost: events a thread dropped so far */
    WFT_CLOCK = 7,     /* struct wft_clockpt: a calibration point */
    WFT_END = 8,       /* struct wft_end: written by wf_close only */
    WFT_CPU = 9,       /* struct wft_cpu: a thread's CPU time so far (minor >= 1) */
    WFT_GPU = 10,      /* struct wft_gpu: what came of GPU sampling, once (minor >= 2) */
    WFT_GPU_DEV = 11,  /* struct wft_gpu_dev: a device the driver sees (minor >= 2) */
    WFT_GPU_SAMPLE = 12, /* struct wft_gpu_sample: one reading of a device (minor >= 2) */
    WFT_SEQ = 13,        /* struct wft_seq: how far a thread's ring is in the file (minor >= 3) */
    WFT_UNIT_DETAIL = 14, /* struct wft_unit_detail + key and value bytes (minor >= 4) */
    WFT_MEM = 15          /* struct wft_mem: the process's resident memory (minor >= 5) */
};

struct wft_thread {
    struct wft_rec rec;
    uint32_t thread; /* index within the trace, from 0 */
    uint32_t tid;    /* OS thread id */
    char name[32];   /* NUL-terminated; may be empty */
};

struct wft_unit {
    struct wft_rec rec;
    uint64_t unit;     /* the wf_unit handle, >= 1 */
    int32_t partition; /* < 0: none */
    uint32_t job_len;  /* bytes of job id that follow (no NUL) */
    /* char job[job_len], then padding to 8 */
};

/* A detail key=value of a unit (wf_unit_detail), as a TIMELINE line's
 * detail carries kind=...: the first value of a key is the unit's. */
struct wft_unit_detail {
    struct wft_rec rec;
    uint64_t unit;      /* the wf_unit handle, >= 1 */
    uint32_t key_len;   /* bytes of key that follow (no NUL) */
    uint32_t value_len; /* bytes of value after the key (no NUL) */
    /* char key[key_len], char value[value_len], then padding to 8 */
};

#define WFT_DETAIL_KEY_MAX 64    /* longest key kept */
#define WFT_DETAIL_VALUE_MAX 256 /* longest value kept */

struct wft_event_def {
    struct wft_rec rec;
    uint32_t event;    /* id >= WF_EVENT_USER_FIRST */
    uint32_t name_len; /* bytes of name that follow (no NUL) */
    /* char name[name_len], then padding to 8 */
};

struct wft_event {
    uint64_t ticks; /* raw clock ticks; see the header and CLOCK records */
    uint64_t word;  /* unit in bits 0-47, event id in bits 48-63 */
};

#define WFT_UNIT_BITS 48
#define WFT_UNIT_MASK ((UINT64_C(1) << WFT_UNIT_BITS) - 1)

struct wft_events {
    struct wft_rec rec;
    uint32_t thread; /* which thread marked them, in marking order */
    uint32_t count;  /* struct wft_event that follow */
};

struct wft_role {
    struct wft_rec rec;
    uint32_t thread;
    int32_t worker; /* < 0: none */
    int32_t device; /* < 0: none */
    uint32_t pad;
};

struct wft_lost {
    struct wft_rec rec;
    uint32_t thread;
    uint32_t pad;
    uint64_t lost; /* cumulative: the last LOST record of a thread counts */
};

/* A thread's CPU time, and the time it waited runnable for a CPU, at a
 * moment (Linux: /proc/self/task/TID/schedstat; else the thread's CPU
 * clock, and no wait).  The writer samples every live thread once a cycle
 * when it moved (and once more when it stops moving), and a thread reads
 * its own as it exits.  Between two samples the thread used (cpu_ns
 * difference) / (time difference) of a core, and wanted (cpu_ns + wait_ns
 * differences) / (time difference): what it would have used with a core
 * to itself. */
#define WFT_CPU_WAIT 1u /* wait_ns is known */
struct wft_cpu {
    struct wft_rec rec;
    uint32_t thread;
    uint32_t flags;   /* WFT_CPU_* */
    uint64_t ticks;   /* when it was read, as event ticks */
    uint64_t cpu_ns;  /* the thread's CPU time since it started */
    uint64_t wait_ns; /* the time it spent runnable, waiting for a CPU */
};

/* Memory (minor >= 5): the writer reads the process's resident memory now
 * (/proc/self/statm, not the peak) and the system's available memory
 * (/proc/meminfo MemAvailable) once a flush period, with the CPU samples
 * (WFT_F_CPU): nothing on the marking path.  A reader that does not know
 * the type skips it. */
#define WFT_MEM_RSS 1u   /* rss_bytes is known */
#define WFT_MEM_AVAIL 2u /* avail_bytes is known */
struct wft_mem {
    struct wft_rec rec;
    uint64_t ticks;       /* when it was read, as event ticks */
    uint64_t rss_bytes;   /* the process's resident memory */
    uint64_t avail_bytes; /* the system's available memory */
    uint32_t flags;       /* WFT_MEM_* */
    uint32_t pad;
};

/* GPU sampling (minor >= 2; docs/format.md).  With WFT_F_GPU the writer
 * tries NVML (libnvidia-ml.so.1, loaded at run time) and writes one GPU
 * record saying what came of it: sampled, or why not, in words (the line
 * `waterfall dump --stats` prints).  Then a GPU_DEV record per device and,
 * every 100 ms, GPU_SAMPLE records. */
enum wft_gpu_state {
    WFT_GPU_SAMPLED = 0,   /* NVML loaded, devices sampled */
    WFT_GPU_NO_LIB = 1,    /* the library could not be loaded */
    WFT_GPU_NO_INIT = 2,   /* it loaded, but lacks a function or nvmlInit_v2 failed */
    WFT_GPU_NO_DEVICE = 3  /* it sees no device */
};
struct wft_gpu {
    struct wft_rec rec;
    uint32_t state;   /* enum wft_gpu_state */
    uint32_t devices; /* devices sampled */
    char driver[32];  /* the driver's version, NUL-terminated ("" unknown) */
    char text[120];   /* NUL-terminated: what came of it, in words */
};

#define WFT_GPU_DEVICES_MAX 64 /* GPU_DEV records a trace holds, at most */
#define WFT_GPUDEV_SERIES 1u /* the driver keeps a utilization series (nvmlDeviceGetSamples) */
struct wft_gpu_dev {
    struct wft_rec rec;
    uint32_t device; /* NVML's index of the device */
    uint32_t flags;  /* WFT_GPUDEV_* */
    char name[64];   /* NUL-terminated */
    char uuid[96];   /* NUL-terminated ("GPU-..."); "" unknown */
};

enum wft_gpu_kind {
    WFT_GS_UTIL = 1,    /* a sample of the driver's series: value = percent of the time since its
                         * sample before during which a kernel ran; ticks = the driver's time */
    WFT_GS_RATE = 2,    /* nvmlDeviceGetUtilizationRates when read: value = GPU percent over the
                         * driver's last period, value2 = memory percent */
    WFT_GS_SM_CLOCK = 3 /* nvmlDeviceGetClockInfo(SM) when read: value = MHz */
};
#define WFT_GS_APPROX 1u /* the driver's timestamp matched no host clock: ticks is when it was read */
struct wft_gpu_sample {
    struct wft_rec rec;
    uint32_t device;    /* NVML's index */
    uint16_t kind;      /* enum wft_gpu_kind */
    uint16_t flags;     /* WFT_GS_APPROX */
    uint64_t ticks;     /* when, as event ticks */
    uint64_t driver_us; /* WFT_GS_UTIL: the driver's own timestamp (us); else 0 */
    uint32_t value;
    uint32_t value2;
};

/* After a thread's EVENTS (and ROLE) records of a batch: its ring's slots
 * numbered below next (marks and role changes, counted from 0) are in the
 * file.  A reader recovering the rings file takes the slots from next on. */
struct wft_seq {
    struct wft_rec rec;
    uint32_t thread;
    uint32_t pad;
    uint64_t next;
};

/* ---- The rings file (minor >= 3; docs/format.md, "The rings file") ----
 *
 * While a trace PATH is recorded, the per-thread rings live in PATH.rings,
 * a file mapped shared: a mark that returned is in the page cache even if
 * the process dies before the writer copies it into PATH.  wf_close
 * removes the file; a reader of a trace without an END record reads it
 * back when its epoch matches.  Layout: a header page, the definitions
 * journal (journal_cap bytes: copies of the UNIT and EVENT_DEF records not
 * yet in PATH, back to back, wrapping to its start; a record header of
 * size 0 means "continued at the start"), then the rings, each a header
 * page and ring_events slots of struct wft_event.  Fields the recorder
 * changes while it runs are stored with atomic release stores. */
#define WFT_RINGS_MAGIC "\x89WFR\r\n\x1a\n"
#define WFT_RINGS_PAGE 4096u
struct wft_rings_header {
    uint8_t magic[8];      /* WFT_RINGS_MAGIC */
    uint32_t version;      /* 1 */
    uint32_t page;         /* WFT_RINGS_PAGE */
    uint32_t pid;          /* the recording process */
    uint32_t ring_events;  /* slots a ring, a power of two */
    uint64_t epoch_ticks;  /* the trace header's: the trace this file belongs to */
    uint64_t journal_off;  /* where the definitions journal starts */
    uint64_t journal_cap;  /* its size */
    uint64_t rings_off;    /* where ring 0 starts */
    uint64_t ring_bytes;   /* a ring's size: its header page and its slots */
    uint64_t nrings;       /* rings the file holds (it grows by one as a thread needs one) */
    uint64_t journal_end;  /* bytes ever appended to the journal (position: end % journal_cap) */
    uint64_t journal_done; /* of them, those whose records PATH holds */
    uint64_t journal_dropped; /* definitions not journaled: it was full */
    uint64_t private_rings;   /* threads whose ring could not be placed here (the file could not
                               * grow: a full disk): their marks are safe only once written */
};

#define WFT_RING_FREE 0u /* never used, or its thread's slots are all in PATH */
#define WFT_RING_USED 1u /* a thread's, of this trace */
struct wft_ring_header {
    uint64_t head;   /* slots ever written (the marking thread's own count) */
    uint64_t lost;   /* marks dropped while full */
    uint64_t roles;  /* of head, role changes (not marks) */
    uint32_t state;  /* WFT_RING_* */
    uint32_t thread; /* its thread's index in PATH */
    uint32_t tid;
    uint32_t cpu_flags; /* the thread's last CPU reading (cpu_ticks 0: none), as a CPU record's */
    uint64_t cpu_ticks, cpu_ns, cpu_wait_ns;
    char name[32];   /* the thread's name, NUL-terminated */
};

/* A role change rides in a ring as a slot of this event id: worker + 1 in
 * bits 0-23 of the unit, device + 1 in bits 24-47 (0: none). */
#define WFT_EV_ROLE 0xffffu
static inline uint64_t wft_role_word(int32_t worker, int32_t device)
{
    return ((uint64_t)(uint32_t)(worker + 1) & 0xffffffu) | ((uint64_t)(uint32_t)(device + 1) & 0xffffffu) << 24;
}
static inline void wft_role_of(uint64_t word, int32_t *worker, int32_t *device)
{
    *worker = (int32_t)(word & 0xffffffu) - 1;
    *device = (int32_t)((word >> 24) & 0xffffffu) - 1;
}

struct wft_clockpt {
    struct wft_rec rec;
    uint64_t ticks;
    uint64_t mono_ns;
};

struct wft_end {
    struct wft_rec rec;
    uint64_t marked;   /* recorded + lost */
    uint64_t recorded; /* events written into this file */
    uint64_t lost;     /* dropped: rings full or write errors */
    uint32_t threads;
    uint32_t units;
};

_Static_assert(sizeof(struct wft_header) == WFT_HEADER_SIZE, "header size");
_Static_assert(sizeof(struct wft_rec) == 16, "record header");
_Static_assert(sizeof(struct wft_mem) == 16 + 32, "mem record");
_Static_assert(sizeof(struct wft_event) == 16, "event size");
_Static_assert(sizeof(struct wft_events) % 8 == 0, "events align");
_Static_assert(sizeof(struct wft_thread) % 8 == 0, "thread align");
_Static_assert(sizeof(struct wft_unit) % 8 == 0, "unit align");
_Static_assert(sizeof(struct wft_role) % 8 == 0, "role align");
_Static_assert(sizeof(struct wft_end) % 8 == 0, "end align");
_Static_assert(sizeof(struct wft_gpu) % 8 == 0, "gpu align");
_Static_assert(sizeof(struct wft_gpu_dev) % 8 == 0, "gpu_dev align");
_Static_assert(sizeof(struct wft_gpu_sample) % 8 == 0, "gpu_sample align");
_Static_assert(sizeof(struct wft_seq) % 8 == 0, "seq align");
_Static_assert(sizeof(struct wft_unit_detail) % 8 == 0, "unit detail align");
_Static_assert(sizeof(struct wft_rings_header) <= WFT_RINGS_PAGE, "rings header");
_Static_assert(sizeof(struct wft_ring_header) <= WFT_RINGS_PAGE, "ring header");

#endif /* WF_FORMAT_H */
