/*
 * scan.h -- finding and parsing TIMELINE records in text.
 *
 * Two forms are read, anywhere in a line (after a log prefix, among ANSI
 * colour codes, before a '\r'):
 *
 *   TIMELINE,<offset_ms>,<EVENT>,<job_id>,<detail>     cuzk; detail k=v,k=v
 *   TIMELINE <event> job=<job_id> ts=<seconds>         the seed form
 *
 * and the same after TIMELINE as a Rust logger's target:
 *
 *   <time>  INFO TIMELINE: <event> job=<job_id> ...    tracing-subscriber
 *   [<time> INFO  TIMELINE] <event> job=<job_id> ...   env_logger
 *   {"timestamp":..,"fields":{"message":"<event>","job":..},"target":"TIMELINE"}
 *
 * In the seed form fields come in any order, values may be quoted, event=
 * names the event, and a record without ts= takes the line's own RFC 3339
 * timestamp (r->wall).  docs/cli.md lists every shape.
 *
 * scan_find locates candidate records fast (SIMD where the CPU has it);
 * scan_line parses one.  Neither allocates.
 */
#ifndef SCAN_H
#define SCAN_H

#include "vocab.h"

#include <stddef.h>
#include <stdint.h>


#define SCAN_LINE_MAX 4096 /* longest record parsed; longer lines are skipped */
#define SCAN_JOB_MAX 1024  /* longest job id kept */

#define SCAN_KV_MAX 8    /* detail keys kept per record beyond the ones the analysis reads */
#define SCAN_NAME_MAX 64 /* longest event name of EV_OTHER */

/* A detail key=value the analysis does not read itself (kind=, synth_ms=,
 * a bare word such as `monolithic`: vn 0), as written. */
struct scan_kv {
    const char *k, *v;
    uint16_t kn, vn;
};

struct scan_rec {
    int64_t t_ns;        /* since the run's epoch */
    int ev;              /* EV_*, or EV_OTHER */
    const char *job;     /* points into the caller's buffer or scratch */
    size_t job_len;
    int32_t partition;   /* -1: none */
    int32_t worker;      /* -1: none */
    int32_t device;      /* -1: none (gpu= or device=) */
    const char *name;    /* EV_OTHER: the event's name as written */
    size_t name_len;
    uint8_t queue;       /* EV_CHAN_SEND written as GPU_QUEUE */
    uint8_t wall;        /* t_ns is the line's own wall-clock time (no ts= in the record) */
    uint8_t nkv;
    struct scan_kv kv[SCAN_KV_MAX];
    const char *cut; /* a raw CSV record that another thread's line cut: where that line begins (scan_cut) */
};

/* The first byte c in [p, end), or end: inline, for the short spans of
 * a record, where a call to memchr costs more than the search. */
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
static inline const char *scan_byte(const char *p, const char *end, char c)
{
#if defined(__SSE2__)
    const __m128i n = _mm_set1_epi8(c);
    while (end - p >= 16) {
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), n));
        if (m)
            return p + __builtin_ctz(m);
        p += 16;
    }
#endif
    while (p < end && *p != c)
        p++;
    return p;
}

/* The first "TIMELINE" at or after p, or NULL. */
const char *scan_find(const char *p, const char *end);

/* Parse the record at tl (which points at "TIMELINE") up to eol (the line's
 * end, without '\n'); ls is where the line starts, or any byte before it
 * in the same buffer (a chunk's start): [ls, eol) may be read.  The line's
 * start is looked for (back from tl, SCAN_LINE_MAX bytes at most) only
 * when a record needs it: its own timestamp, a JSON line's fields.
 * scratch (SCAN_LINE_MAX bytes) holds a cleaned copy when the line has
 * ANSI codes, JSON escapes or quoted values; r->job may point into it. */
enum scan_err scan_line(const char *ls, const char *tl, const char *eol, char *scratch,
                        struct scan_rec *r);

/* The same, told that the bytes up to `readable` (at or past eol) may be
 * read: a short record is then parsed where it is, not copied first
 * (r->job may point into the caller's buffer). */
enum scan_err scan_line_in(const char *ls, const char *tl, const char *eol, const char *readable,
                           char *scratch, struct scan_rec *r);

/* A record cut by another thread's line.  cuzk's eprintln! writes a
 * TIMELINE record in pieces (Rust's stderr is unbuffered: a write per
 * argument), and the GPU library's fprintf of a whole CUZK_ line can land
 * between two: "TIMELINE,5481CUZK_TIMING: async_dealloc_ms=12\n" then
 * ",GPU_END,job-1,...\n".  scan_cut: where, in the record [tl, eol), such
 * a line (CUZK_TIMING: or CUZK_NTT_H:) begins (a CSV record only), or NULL.  scan_joined: the record's
 * head [tl, cut) and its rest, the next line [n0, n1) (no hit of its
 * own), parsed as one record; joined (SCAN_LINE_MAX bytes) holds it and
 * r->job may point into it or into scratch.  pre: the head's line before
 * tl (pn bytes): a collector that prefixes each line (journalctl's
 * "Dec 06 05:00:00 host cuzk[123]: ") prefixes the rest too, and a rest
 * that begins with the same bytes (digits aside, and a date-time of any
 * width for a date-time: docker logs -t) is read without them.
 * The cut must fall between two of the record's pieces: inside its
 * detail (one write) only at the end, with an empty rest. */
#define SCAN_CUT_PREFIX_MAX 256 /* a longer prefix is not looked for on the rest */
#define SCAN_JSON_KEY_MAX 64
const char *scan_cut(const char *tl, const char *eol);
/* Where the head is a JSON string's (pre, its line before the record, ends
 * in "KEY":"), its key (0: none): the rest is that key's string in the
 * next entry (Docker's "log", journald's "MESSAGE"), decoded. */
size_t scan_json_key(const char *pre, size_t pn, const char **key);
enum scan_err scan_joined(const char *tl, const char *cut, const char *n0, const char *n1, const char *pre,
                          size_t pn, const char *key, size_t kn, char *joined, char *scratch, struct scan_rec *r);

/* The same without the fast path for short cuzk records: the reference
 * the tests hold scan_line to. */
enum scan_err scan_line_ref(const char *ls, const char *tl, const char *eol, char *scratch,
                            struct scan_rec *r);

/* The line's own time (ns since 1970): the first RFC 3339 date-time on
 * tl's line before the record (or, in a JSON line, after it), as a record
 * without ts= is timed.  lo: as scan_line's ls.  1, or 0 when there is
 * none.  For the records that carry both clocks (read_text aligns them). */
int scan_line_time(const char *lo, const char *tl, const char *eol, int64_t *ns);

/* Duration lines: a GPU library's own timings, printed beside the
 * records without a time or a job (cuzk's supraseal-c2 prints them):
 *
 *   CUZK_TIMING: [gpu_tid=N] <name>_ms=<int> [<name>_ms=<int> ...] [k=v ...]
 *
 * Which unit each belongs to and when it ran is the model's business
 * (model/durations.c); the scanner only reads the words. */
#define SCAN_DUR_MAX 4      /* durations kept per line (the library prints at most two) */
#define SCAN_DUR_KEY_MAX DUR_NAME_MAX /* longest name kept (vocab.h) */
#define SCAN_TID_SPAWN (-2) /* scan_dur.tid of the engine's spawn line (below) */
struct scan_dur {
    int32_t tid; /* gpu_tid=, the thread's index in the call (-1: none; SCAN_TID_SPAWN) */
    int32_t worker, partition; /* a spawn line's worker_id= and partition= (-1: None) */
    uint8_t n, nattr;
    struct {
        const char *k; /* the name without _ms (into the line or scratch) */
        uint8_t kn;
        int64_t ms;
    } d[SCAN_DUR_MAX];
    struct scan_kv attr[SCAN_KV_MAX]; /* other key=value words (num_circuits=1) */
};
enum scan_dur_kind {
    DUR_LINE,    /* durations read */
    DUR_INFO,    /* no duration: a message ("d_a_cache allocated ... on gpu 0") */
    DUR_BAD,     /* a _ms value or gpu_tid that is not a count, or too many durations */
    DUR_TOO_LONG, /* over SCAN_LINE_MAX bytes */
    DUR_NTT      /* CUZK_NTT_H: ntt_msm_h's own breakdown (groth16_ntt_h.cu, "d_b_alloc=12ms ...",
                  * one a circuit, no gpu_tid): counted, not placed */
};

/* The engine's own timing of each proving call (cuzk's engine.rs, an
 * info! line printed once gpu_prove_start returns, with no job):
 *
 *   GPU_TIMING spawn_blocking prove_start worker_id=W partition=Some(P)
 *     spawn_to_enter_ms=<int> prove_start_ms=<int>
 *
 * scan_dur reads it as a duration line of tid SCAN_TID_SPAWN, its two
 * durations in that order, with the worker and partition (None: -1); a
 * line without all four is unreadable. */

/* Read the duration line whose tag (CUZK_TIMING:, or the spawn line's) is
 * at tag, up to eol.  scratch (SCAN_LINE_MAX bytes) takes a copy without
 * ANSI codes. */
enum scan_dur_kind scan_dur(const char *tag, const char *eol, char *scratch, struct scan_dur *d);

/* The first TIMELINE, CUZK_TIMING: or spawn line's tag at or after p, or NULL; the newlines
 * before it are added to *nl (as scan_find_count). */
const char *scan_find_any_count(const char *p, const char *end, uint64_t *nl);

/* scan_find, adding the newlines in [p, hit) (or [p, end) when there is
 * no hit) to *nl: one pass over the bytes instead of two. */
const char *scan_find_count(const char *p, const char *end, uint64_t *nl);

/* Newlines in [p, end). */
uint64_t scan_count_lines(const char *p, const char *end);

#endif /* SCAN_H */
