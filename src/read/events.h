/*
 * events.h -- what every reader produces: the units of one input, built
 * as its events go by.
 *
 * A reader may split its input among threads; each thread fills its own
 * `evpart`, and the parts are in input order.  A part interns job ids and
 * role keys (worker, device), and puts each event straight into its unit
 * (job id, partition): no event is stored on its own.
 *
 * Runs.  A log may hold several lives of a daemon, each restarting its
 * epoch near zero (model_is_restart).  A part splits its events into
 * *segments* where it sees a restart.  A part that starts in the middle
 * of the input cannot know the run it starts in, so its first segment is
 * provisional: evpart_link, given the state at the end of the part before,
 * says whether that segment continues the run before, starts a new one,
 * or (rarely: a restart hidden from the part's own view) that the part
 * must be read again with the state known.  Taken in order, the parts give
 * exactly what one reader would have.  The model (model.c) stitches the
 * segments into runs.
 */
#ifndef EVENTS_H
#define EVENTS_H

#include "hindex.h"
#include "scan.h"
#include "strtab.h"
#include "vocab.h"

#include <stddef.h>
#include <stdint.h>


/* Bits on evpart_add's ev, beside the EV_* in the low byte. */
#define EV_MASK 0xff
#define EV_QUEUE_BIT 0x100 /* CHAN_SEND written as GPU_QUEUE */
#define EV_WALL_BIT 0x200  /* the time is the line's own wall clock (no ts=) */

/* What is not one of a unit's six events, kept per unit key for the model
 * to attach: another event (a phase's start or end, or a mark), or a
 * detail the analysis does not read itself (an attribute: kind=, ...). */
enum { XR_EVENT, XR_ATTR };
#define XR_KIND 0x0f          /* kind's XR_*; the bits above are flags: */
#define XR_LOOKS_RESTART 0x10 /* while undecided: its time looked like a restart */
#define XR_LATE 0x20          /* counted as written late */
#define XSEG_HELD UINT32_MAX /* added while an event was held, or with a time that looks like a
                               * restart: its segment is that of the next event of the six */
#define XSEG_PREV (UINT32_MAX - 1) /* ahead of the part's first event of the six, which starts a
                                    * run: of the run before the part (evpart_link) */
#define XSEG_NEXT (UINT32_MAX - 2) /* waited past the part's end for an event of the six that
                                    * starts a run: of that run (evpart_trailing) */
struct xrec {
    int64_t t;        /* XR_EVENT: its time */
    uint64_t line;    /* part-relative, 0-based (text), or the event's number */
    uint32_t job;     /* the part's job */
    int32_t partition;
    uint32_t key;     /* the part's strings: the event's name (upper case), or the key */
    uint32_t val;     /* XR_ATTR: the value */
    uint32_t seg;     /* its segment (0 also before the part's first) */
    uint32_t kind;    /* XR_* */
};


/* A line worth pointing at: part-relative (0-based) while reading. */
struct pline {
    uint64_t line;
    int detail; /* enum scan_err, or an EV_* */
};

/* Where each event of a unit came from: kept for the units of a part's
 * first segment, which may join a unit of the part before. */
struct uside {
    uint32_t dline[EV_N]; /* its line - the unit's first line (at most 2^32 - 1) */
    uint32_t role[EV_N];
};

/* A stretch of a part within one run. */
struct seg {
    struct unit *units;
    struct uside *side; /* NULL unless the part keeps it */
    size_t nunits, units_cap;
    size_t side_cap; /* units [0, side_cap) have a side record */
    uint64_t first_line, last_line; /* part-relative, 0-based */
    uint64_t events, duplicates, skipped;
    uint64_t late; /* events whose time looked like a restart but that the next one did not follow */
    uint64_t wall; /* events timed by their line's own clock */
    struct pline dups[MAX_ISSUES], skips[MAX_ISSUES];
    int ndups, nskips;
    /* its units by unit_hash; only the part's last segment keeps it, for
     * the model */
    struct hindex uindex;
};


/* The first events of a part whose time is below every earlier one: the
 * only places where a restart hidden from the part can be. */
struct prec {
    int64_t t, pm; /* its time; the part's latest time before it */
    uint64_t ev;   /* its index among the part's events */
};

struct role {
    int32_t worker, device; /* -1: none */
};

#define EV_RECENT_BITS 10
#define EV_RECENT (1u << EV_RECENT_BITS)

/*
 * A part is in two halves, as Lua's lzio.h keeps a stream: first its
 * public side (the reader's settings, and what the stages after the
 * reader read: the model, the commands' messages), then the builder's
 * state, which only events.c reads (and read_text, to join the parts:
 * struct ev_run's times).
 */

/* Which of its first segment's units a part keeps struct uside for: none;
 * the first SIDE_WINDOW (a unit that continues the part before is met
 * near the part's start, and the reader reads the part again, SIDE_ALL,
 * in the rare case where one was not: read_text.c); all. */
enum { SIDE_NONE, SIDE_FIRST, SIDE_ALL };
#define SIDE_WINDOW (1u << 16)

/* The reader's settings, made before the part's first event. */
struct ev_settings {
    int native;    /* one run: never split */
    int want_side; /* keep struct uside for the first segment: SIDE_* */
    int want_recs; /* keep the records evpart_link needs (a part after the first) */
    int has_in;    /* the state at the part's start is known: */
    int64_t m_in;  /* the latest time of the run it starts in */
    int clock;     /* CLOCK_*: how records timed by their lines are read */
    const struct clock_map *align; /* CLOCK_ALIGN: the offsets between the clocks */
    uint64_t line_base;            /* CLOCK_ALIGN: the input's lines before the part */
};

/* Two clocks in one log: records with ts= (the daemon's epoch) and
 * records timed by their line's RFC 3339 timestamp.  A record that
 * carries both (ts= on a line with a timestamp) gives the offset between
 * them, line time - ts.  When an input mixes the clocks, read_text reads
 * it twice more: CLOCK_PAIRS notes those offsets and nothing else, then
 * CLOCK_ALIGN reads the events, each record timed by its line put on the
 * ts= clock by the offset nearest before it (the first after it, when
 * none is before). */
enum { CLOCK_AS_READ, CLOCK_PAIRS, CLOCK_ALIGN };
/* The offset between the two clocks, in whole seconds, is its epoch; a
 * pair is noted where the epoch changes from the pair seen before it (a
 * restart moves it by more; the delay between a daemon's ts= and its
 * logger's timestamp stays within one).  Judged against the pair seen
 * before, not the last one kept, so that each part of a split input
 * decides its pairs as one reader would (its first pair is judged when
 * the parts are joined), and watch, reading once, as analyze (live.c,
 * timed). */
#define CLOCK_EPOCH_NS 1000000000LL
static inline int64_t clock_epoch(int64_t off)
{
    return off >= 0 ? off / CLOCK_EPOCH_NS : -((-off + CLOCK_EPOCH_NS - 1) / CLOCK_EPOCH_NS);
}
struct clock_pair {
    uint64_t line; /* part-relative (in a part), or the input's (in the map) */
    int64_t off;   /* line time - ts, ns */
};
struct clock_map {
    struct clock_pair *pairs; /* by line */
    size_t n;
};
/* CLOCK_PAIRS: what a part saw of the two clocks. */
struct ev_clock {
    struct clock_pair *pairs; /* where the offset's epoch changes, and the part's first */
    size_t n, cap;
    int64_t last_epoch; /* the epoch of the last pair seen (not only kept) */
    int seen;           /* a pair was seen */
    uint64_t nwall, nrec;           /* records timed by their lines; by their own ts */
    uint64_t first_wall, first_rec; /* part-relative lines of the first of each */
};

/* The part's segments, in order: its stretches within one run each. */
struct ev_segs {
    struct seg *list;
    size_t n, cap;
    int first_cont; /* set by evpart_link: the first continues the run before */
};

/* The job ids the part's units and other events name: their bytes in an
 * arena, by offset (the model's jobs point into it), and their hashes
 * (the same in every part, so the model finds a job of several parts). */
struct ev_jobs {
    char *arena;
    size_t arena_len, arena_cap;
    uint64_t *off;  /* offset << 16 | length (job ids are at most 1024 bytes) */
    uint64_t *hash; /* hash of the job id's bytes */
    uint32_t n, cap;
};

/* The (worker, device) keys of the events (few), by number: struct uside
 * names them, for a unit that the model joins across parts. */
struct ev_roles {
    struct role *list;
    uint32_t n, cap;
};

/* The events that are not one of a unit's six, and the attributes
 * (struct xrec), with their strings: the model attaches them. */
struct ev_extras {
    struct xrec *list;
    size_t n, cap;
    struct strtab strs;
};

struct ev_durs {
    struct dline *list;
    size_t n, cap;
    size_t made; /* the list's bytes whose pages are made (big_prefault) */
    int64_t last_t; /* the last record's time so far (T_NONE: none yet) */
    uint8_t last_wall, seen;
    size_t next_from;   /* entries [next_from, n) wait for the next record (dline's next_us) */
    int64_t first_t;    /* the part's first record's time (first_wall: its clock), for the entries
                         * before it, whose t_prev is in a part before (stitch.c) */
    uint8_t first_wall;
    uint64_t lines, info, bad; /* duration lines; those with no duration; unreadable ones */
    uint64_t ntt;              /* CUZK_NTT_H lines (scan.h, DUR_NTT) */
    uint64_t bad_first;        /* the first unreadable one's line (part-relative) */
    /* the lines of those three, in order: each its part-relative line,
     * its kind (DUR_INFO, DUR_NTT, else unreadable) in the top two bits,
     * so that each is counted in the run that holds it (stitch.c) */
    uint64_t *counted;
    size_t ncounted, counted_cap;
};
#define EV_COUNTED_SHIFT 62
#define EV_COUNTED_LINE(x) ((x) & ((UINT64_C(1) << EV_COUNTED_SHIFT) - 1))
enum { EV_COUNTED_INFO, EV_COUNTED_NTT, EV_COUNTED_BAD };

/* What the part read, for the model's counts and the commands' messages. */
struct ev_diag {
    uint64_t lines; /* newlines in the part (text) */
    uint64_t bytes;
    uint64_t timeline_lines;
    uint64_t skipped;
    uint64_t skipped_by[8]; /* by enum scan_err */
    struct pline skip_first[8];
    int nskip_first;
    /* skipped lines before the part's first event: they belong to the
     * run current at its start */
    uint64_t pre_skipped;
    struct pline pre_skips[MAX_ISSUES];
    int npre_skips;
    int oom; /* ran out of memory: events after that point are not kept */
    uint64_t late_extras; /* a part with no event of the six: its other events written late */
};

/* Builder: the run the part is in as it reads, and what evpart_link needs
 * to place the part among the others. */
struct ev_run {
    int64_t max;       /* the current run's latest time */
    int first_restart; /* has_in: the first event restarts the epoch */
    int split_seen;    /* a restart was seen within the part */
    struct prec *recs;
    size_t nrecs, recs_cap;
    uint64_t nev;              /* events put into units */
    uint64_t nseen;            /* events seen, held ones included */
    uint64_t nrec;             /* records seen: events of the six, and the others (text) */
    int64_t t_first;           /* the part's first record's time */
    int64_t t_second;          /* the record after its first event of the six (has_second) */
    int has_second;
    int64_t t_after;           /* the next part's first event time (INT64_MIN: none), for
                                * evpart_link; read_text sets it before linking */
};

/* Builder: the means of finding a unit, a job or a role while reading
 * (evpart_compact frees the job index: the model needs the jobs, not
 * these). */
struct ev_find {
    struct hindex jobs; /* the part's jobs by their hash */
    /* recent units, by a cheap hash: generation << 48 | tag << 32 | unit,
     * where the generation is the segment's number (mod 2^16: the table is
     * cleared when it wraps) and the tag is more bits of the cheap hash */
    uint64_t recent[EV_RECENT];
    uint32_t last_role;
    uint32_t *rindex; /* role + 1 by hash, once there are many */
    uint32_t rmask;
};

/* Builder: what waits for the next event of the six to know its run.  A
 * restart is a new epoch that the lines after it continue from: an event
 * whose time looks like a restart is held until the next one says so (it
 * looks like a restart of the same run too), or says that it was one late
 * line (it continues the run): then the held event joins the run, counted
 * late.  evpart_settle decides the last one. */
struct ev_hold {
    int on; /* an event is held: */
    struct held_event {
        int64_t t;
        int32_t partition, worker, device;
        int ev;
        uint64_t line;
        size_t job_len;
        char job[SCAN_JOB_MAX];
    } ev;
    uint64_t skipped; /* lines skipped while it was held: they go where it goes */
    struct pline skips[MAX_ISSUES];
    int nskips;
    size_t x_pending; /* + 1: the first of the extras whose segment waits */
    int x_last;         /* the last other event's segment waits */
    int attr_undecided; /* the details being added are of an event whose run waits */
};

struct evpart {
    /* public: the reader's settings, and what the stages after it read */
    struct ev_settings set;
    struct ev_segs segs;
    struct ev_jobs jobs;
    struct ev_roles roles;
    struct ev_extras extra;
    struct ev_durs durs;
    struct ev_diag diag;
    struct ev_clock clock; /* CLOCK_PAIRS only */
    /* the builder's state */
    struct ev_run run;
    struct ev_find find;
    struct ev_hold held;
};

/* Put an event into its unit; returns 0, or -1 (out of memory, counted in
 * p->diag.oom).  line: part-relative, 0-based (text), or the event's number. */
int evpart_add(struct evpart *p, int64_t t_ns, const char *job, size_t job_len,
               int32_t partition, int ev, int32_t worker, int32_t device, uint64_t line);

/* Add a parsed record: one of the six events (evpart_add, with the
 * record's GPU_QUEUE spelling and clock), or another event, and the
 * details the analysis does not read.  0, or -1 when out of memory. */
struct evhint;
int evpart_add_rec(struct evpart *p, const struct scan_rec *r, uint64_t line, const struct evhint *h);

/* Keep an event that is not one of the six (name: any case), or an
 * attribute (kind XR_ATTR: key name, value val) of the unit (job,
 * partition).  0, or -1 when out of memory. */
int evpart_extra(struct evpart *p, int kind, int64_t t_ns, const char *job, size_t job_len,
                 int32_t partition, const char *name, size_t name_len, const char *val, size_t val_len,
                 uint64_t line);

/* What a look ahead at an event learned (evpart_hint): when its unit is
 * not among the recent ones, the job id's hash, and the index slot it
 * leads to is on its way into the cache. */
struct evhint {
    uint64_t jh;
    int have_jh;
};

/* Look ahead at the next event while the one before is still to be
 * added: a new unit's index lookup is a cache miss, and this starts it
 * early.  Only a hint: evpart_add_hinted checks everything again. */
void evpart_hint(struct evpart *p, const char *job, size_t job_len, int32_t partition,
                 struct evhint *h);
int evpart_add_hinted(struct evpart *p, int64_t t_ns, const char *job, size_t job_len,
                      int32_t partition, int ev, int32_t worker, int32_t device, uint64_t line,
                      const struct evhint *h);

/* Keep a duration line's durations (d: scan_dur's reading, kind its
 * result) at the part's line.  0, or -1 when out of memory. */
int evpart_dur(struct evpart *p, const struct scan_dur *d, int kind, uint64_t line);
/* A record was read at this point of the input: the time the duration
 * lines after it keep (wall: EV_WALL_BIT's meaning). */
static inline void evpart_dur_clock(struct evpart *p, int64_t t, int wall)
{
    struct ev_durs *u = &p->durs;
    if (!u->seen)
        u->first_t = t, u->first_wall = (uint8_t)(wall != 0);
    for (; u->next_from < u->n; u->next_from++) /* the entries since the last record: this is their next */
        u->list[u->next_from].next_us =
            dline_next(u->list[u->next_from].t_prev, u->list[u->next_from].wall, t, wall != 0);
    p->durs.last_t = t;
    p->durs.last_wall = (uint8_t)(wall != 0);
    p->durs.seen = 1;
}

/* Note a skipped line (why: enum scan_err). */
void evpart_skip(struct evpart *p, uint64_t line, int why);

/* The job id of a part's job, as bytes. */
static inline const char *evpart_job(const struct evpart *p, uint32_t job, size_t *len)
{
    uint64_t o = p->jobs.off[job];
    *len = (size_t)(o & 0xffff);
    return p->jobs.arena + (o >> 16);
}

/* Is this the restart of a daemon's epoch?  (Exposed for the tests.) */
int model_is_restart(int64_t t, int64_t run_max);

/* The part's input has ended; t_next is the time of the next event in
 * the input (the next part's first), or INT64_MIN at the input's end.
 * Decides an event still held.  Returns 0, or -1 when out of memory. */
int evpart_settle(struct evpart *p, int64_t t_next);

/* Join a part to the one before.  has_prev/m_prev: whether a part before
 * had events, and the latest time of the run it ended in.  Returns 0 and
 * sets *m_out (the state at the part's end) and p->segs.first_cont, or 1
 * when the part must be read again with set.has_in = 1, set.m_in = m_prev. */
int evpart_link(struct evpart *p, int has_prev, int64_t m_prev, int64_t *m_out);

/* After every part is linked: the other events that wait past the part's
 * end for the next event of the six (their times look like a restart),
 * now that its fate is known: cont, it went on in the run (they were
 * written late, and stay), or it started a run (they are that run's:
 * XSEG_NEXT); at the input's end, cont.  A part with no event of the six:
 * has_run, a run was before it, whose latest time is m_in. */
void evpart_trailing(struct evpart *p, int cont, int has_run, int64_t m_in);

/* After reading: free the job index (the model needs the jobs, not the
 * means of finding them). */
void evpart_compact(struct evpart *p);

/* Free the segments (the model has taken what it keeps); keys and job ids
 * stay (the model points into them). */
void evpart_drop_events(struct evpart *p);
void evpart_free(struct evpart *p);

#endif /* EVENTS_H */
