/*
 * read_text.c -- reading TIMELINE records out of text logs of any size.
 *
 * A regular file is split into as many byte ranges as there are cores (up
 * to 8); each thread pread()s its range in 256 KiB steps and parses the
 * lines that start in it into its own evpart, so the parts, taken in
 * order, are the file's events in file order.  A pipe is read by one
 * thread.  Memory is the chunk buffers plus what the parts keep: it grows
 * with the events found, not with the bytes read.
 *
 * A regular file is mapped and parsed a window at a time (the windows'
 * pages are dropped once parsed); WATERFALL_MMAP=0, or a file that cannot
 * be mapped, is read with pread() into a buffer that stays in the L2
 * cache.  Which costs less depends on the machine: on the AMD VM of the
 * first measurements the copy did, on the Intel VM of the twelfth session
 * the mapping (7-10% less time on the 1 GB logs, docs/bench.md) once the
 * scan's AVX2 loops stopped leaving dirty upper halves behind.
 *
 * Lines are counted as they go by (SIMD), so every skipped record and every
 * event carries its line number; a part's numbers are relative to its own
 * start and the model adds the lines of the parts before it.
 */
#include "read_text.h"

#include "scan.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file or a pipe is read in steps of READ_STEP (small enough to stay in
 * the L2 cache while it is parsed) into a buffer of LINE_MAX bytes: a line that
 * long or longer is not parsed (if it holds TIMELINE it counts as one
 * skipped record).  A mapped file follows the same rule. */
#define LINE_MAX_BYTES (4u << 20)
#define READ_STEP (256u << 10)
/* A mapped file is parsed a window at a time; each window's pages are
 * let go once it is done, so the mapping never holds much of the file. */
#define WINDOW (8u << 20)
#define MAX_THREADS 8
#ifndef LOOK_AHEAD
#define LOOK_AHEAD 4 /* records parsed before the first of them is added (parse_lines) */
#endif

struct worker {
    int fd;
    uint64_t start, end; /* lines starting in [start, end) belong here */
    int is_pipe;
    struct evpart *part;
    int err; /* errno of a failed read; ESTALE: the file shrank while it was read */
    uint64_t size; /* a regular file's size when it was opened */
    struct progress *prog;
    const char *prefix; /* bytes already read from a pipe (format sniffing) */
    size_t prefix_len;
    const char *map; /* the file, mapped (NULL: read it) */
    uint64_t map_len;
};

struct progress {
    _Atomic uint64_t done;
    uint64_t total;
    const char *name;
    int show;
    int shown; /* the last percentage printed (leader only) */
};

/* The offset between the clocks in effect at the input's line: that of
 * the nearest pair at or before it, else the first. */
static int64_t clock_offset(const struct clock_map *m, uint64_t line)
{
    size_t lo = 0, hi = m->n; /* the first pair after line */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->pairs[mid].line <= line)
            lo = mid + 1;
        else
            hi = mid;
    }
    return m->pairs[lo ? lo - 1 : 0].off;
}

/* A record, when the input's clocks are mixed (set.clock): CLOCK_PAIRS
 * notes what it says of the two clocks and adds nothing (0); CLOCK_ALIGN
 * puts a record timed by its line on the ts= clock (1: add it).  Only
 * the readings of a mixed input come here. */
static int clock_rec(struct evpart *p, struct scan_rec *r, const char *ls, const char *tl, const char *eol,
                     uint64_t line)
{
    if (p->set.clock == CLOCK_ALIGN) {
        if (r->wall) {
            r->t_ns -= clock_offset(p->set.align, p->set.line_base + line);
            r->wall = 0;
        }
        return 1;
    }
    struct ev_clock *c = &p->clock;
    int64_t lt;
    if (r->wall) {
        if (!c->nwall++)
            c->first_wall = line;
        return 0;
    }
    if (!c->nrec++)
        c->first_rec = line;
    if (!scan_line_time(ls, tl, eol, &lt))
        return 0;
    int64_t off = lt - r->t_ns, epoch = clock_epoch(off);
    int same = c->seen && epoch == c->last_epoch;
    c->seen = 1;
    c->last_epoch = epoch;
    if (same)
        return 0;
    if (c->n == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 16;
        struct clock_pair *np = realloc(c->pairs, ncap * sizeof *np);
        if (!np) {
            p->diag.oom = 1;
            return 0;
        }
        c->pairs = np;
        c->cap = ncap;
    }
    c->pairs[c->n++] = (struct clock_pair){line, off};
    return 0;
}

/* A record read apart from parse_lines' ring (its look ahead flushed):
 * in the clocks' pass, only its clocks; else added now, or skipped (e). */
static void rec_now(struct evpart *p, struct scan_rec *r, enum scan_err e, const char *buf, const char *hit,
                    const char *eol, uint64_t line)
{
    if (e != SCAN_OK) {
        if (e != SCAN_NOT_RECORD)
            evpart_skip(p, line, e);
        return;
    }
    if (__builtin_expect(p->set.clock != CLOCK_AS_READ, 0) && !clock_rec(p, r, buf, hit, eol, line))
        return; /* the clocks' pass: nothing added */
    struct evhint h;
    evpart_dur_clock(p, r->t_ns, r->wall);
    evpart_hint(p, r->job, r->job_len, r->partition, &h);
    evpart_add_rec(p, r, line, &h);
}

/* A record that another thread's line cut (scan.h, scan_cut): joined
 * with its rest, the next line, and added, then the cutting line read as
 * the line it is.  *eol is the head's line end; more: the bytes past end
 * that may be read (the next range's or window's: a rest there is left to
 * it, where it has no hit).  What was done (CUT_LATER: the rest is not
 * here yet, the line is to be read again with the next chunk). */
enum { CUT_NONE, CUT_LATER, CUT_JOINED, CUT_JOINED_NEXT };
static int cut_join(struct evpart *p, const char *buf, const char *hit, const char *cut, const char **eol,
                    const char *end, const char *more, int final, uint64_t line)
{
    const char *n0 = *eol + 1, *stop = more > end ? more : end;
    if (n0 > stop || (n0 == stop && final))
        return CUT_NONE; /* no line after it */
    const char *n1 = memchr(n0, '\n', (size_t)(stop - n0));
    if (!n1) {
        if ((size_t)(stop - n0) >= SCAN_LINE_MAX)
            return CUT_NONE; /* too long to be a record's rest */
        if (!final)
            return CUT_LATER; /* the rest is not all read yet */
        n1 = stop; /* the input's last line */
    }
    char *joined = malloc(2 * SCAN_LINE_MAX); /* a rare path: the stack holds the ring's */
    if (!joined)
        return CUT_NONE;
    struct scan_rec r;
    int how = CUT_NONE;
    const char *ls = hit > buf ? memrchr(buf, '\n', (size_t)(hit - buf)) : NULL;
    ls = ls ? ls + 1 : buf; /* the head's line: its prefix before the record */
    const char *key = NULL;
    size_t kn = scan_json_key(ls, (size_t)(hit - ls), &key);
    if (scan_joined(hit, cut, n0, n1, ls, (size_t)(hit - ls), key, kn, joined, joined + SCAN_LINE_MAX, &r) ==
        SCAN_OK) {
        rec_now(p, &r, SCAN_OK, buf, hit, *eol, line);
        /* the cutting line, printed after the record began: a duration
         * line, a message, or a tracing line (which may hold a spawn line
         * or a record of its own) */
        uint64_t nl = 0;
        const char *tag = scan_find_any_count(cut, *eol, &nl);
        if (tag && *tag != 'T' && p->set.clock != CLOCK_PAIRS) {
            struct scan_dur d;
            evpart_dur(p, &d, scan_dur(tag, *eol, joined, &d), line);
        } else if (tag && *tag == 'T') {
            struct scan_rec r2;
            enum scan_err e2 = scan_line_in(cut, tag, *eol, *eol, joined, &r2);
            if (e2 != SCAN_NOT_RECORD)
                p->diag.timeline_lines++;
            rec_now(p, &r2, e2, cut, tag, *eol, line);
        }
        how = CUT_JOINED;
        if (n0 < end) { /* the rest is this chunk's: taken */
            *eol = n1;
            how = CUT_JOINED_NEXT;
        }
    }
    free(joined);
    return how;
}

/* Parse the complete lines in [buf, buf+len); returns the bytes used (up to
 * the last '\n', or everything when last is set).  *line is the number of
 * the line at buf (0-based within the part); buf is where a line starts. */
static size_t parse_lines(struct evpart *p, const char *buf, size_t len, int last,
                          uint64_t *line, int long_check, const char *readable, const char *more, int final)
{
    const char *end = buf + len, *pos = buf;
    const char *lstart = buf; /* where pos's line starts (long_check) */
    /* A record is added LOOK_AHEAD - 1 records late: the look ahead at
     * each (evpart_hint) starts fetching its unit, or a new unit's index
     * slot, that long before it is needed (one record ahead left most of
     * that miss in the add).  A ring of records, each with its scratch
     * buffer, since a pending record's job id may be in it: never copied. */
    char scratch[LOOK_AHEAD][SCAN_LINE_MAX];
    struct scan_rec rec[LOOK_AHEAD];
    struct evhint hint[LOOK_AHEAD];
    uint64_t rline[LOOK_AHEAD];
    unsigned head = 0, pending = 0; /* the oldest pending record, and how many */
#define ADD_OLDEST()                                                                               \
    do {                                                                                           \
        evpart_add_rec(p, &rec[head], rline[head], &hint[head]);                                   \
        head = (head + 1) % LOOK_AHEAD;                                                            \
        pending--;                                                                                 \
    } while (0)
#define FLUSH()                                                                                    \
    do {                                                                                           \
        while (pending)                                                                            \
            ADD_OLDEST();                                                                          \
    } while (0)
    uint64_t rest = 0; /* newlines in [pos, the end of what is used) */
    const char *carry = NULL; /* a cut record's line, read again with the next chunk */
    for (;;) {
        uint64_t nl = 0;
        const char *hit = scan_find_any_count(pos, end, &nl);
        if (!hit) {
            rest = nl;
            break;
        }
        /* libc's memchr, not scan_byte's 16 bytes a step: on the 1 GB cuzk
         * log (5.7 million hits, most of them duration lines) the whole
         * read took a quarter less CPU; the TIMELINE logs, the same */
        const char *eol = memchr(hit, '\n', (size_t)(end - hit));
        if (!eol)
            eol = end;
        if (eol == end) {
            if (!last) {
                rest = nl; /* the line goes on in the next chunk */
                break;
            }
        }
        if (long_check) {
            /* the rule of the pipe reader's buffer: lines of LINE_MAX_BYTES
             * or more are skipped whole (the start is looked for only when
             * the line may be that long) */
            const char *ls0 = nl ? NULL : lstart;
            if (nl && (size_t)(eol - pos) >= LINE_MAX_BYTES)
                ls0 = (const char *)memrchr(pos, '\n', (size_t)(hit - pos)) + 1;
            if (ls0 && (size_t)(eol - ls0) >= LINE_MAX_BYTES) {
                *line += nl;
                FLUSH();
                /* a record too long, as work() counts one: a line that
                 * holds TIMELINE (the hit may be a duration line's tag) */
                if (*hit == 'T' || scan_find(ls0, eol)) {
                    p->diag.timeline_lines++;
                    evpart_skip(p, *line, SCAN_TOO_LONG);
                }
                if (eol == end) {
                    pos = end;
                    break;
                }
                *line += 1;
                pos = lstart = eol + 1;
                continue;
            }
        }
        *line += nl;
        /* buf starts a line: the parser looks back from the hit for the
         * line's start only when a record needs it (the line's own
         * timestamp, a JSON line's fields before its target) */
        unsigned sc = (head + pending) % LOOK_AHEAD; /* free: pending < LOOK_AHEAD */
        if (*hit != 'T') { /* a duration line, or the engine's spawn line (scan.h) */
            if (p->set.clock != CLOCK_PAIRS) {
                /* the input's last line with no newline (a log still being
                 * written) may end in a value cut short (gpu_total_ms=2 of
                 * 2712): counted as unreadable, with its line, not read */
                struct scan_dur d;
                evpart_dur(p, &d, eol == end && last ? DUR_BAD : scan_dur(hit, eol, scratch[sc], &d), *line);
            }
            if (eol == end) {
                pos = end;
                break;
            }
            *line += 1;
            pos = lstart = eol + 1;
            continue;
        }
        struct scan_rec *r = &rec[sc];
        enum scan_err e = scan_line_in(buf, hit, eol, readable, scratch[sc], r);
        if (e == SCAN_NOT_RECORD) {
            /* Not a record, but a real one may follow on the same line. */
            if (long_check && nl)
                lstart = (const char *)memrchr(pos, '\n', (size_t)(hit - pos)) + 1;
            pos = hit + 8;
            continue;
        }
        p->diag.timeline_lines++;
        int how = CUT_NONE;
        if (__builtin_expect(r->cut != NULL, 0)) { /* a record another line cut: joined with its rest */
            FLUSH();
            how = cut_join(p, buf, hit, r->cut, &eol, end, more, final, *line);
            if (how == CUT_LATER) { /* the rest is in the next chunk: this line is read again with it */
                p->diag.timeline_lines--;
                carry = hit > buf ? (const char *)memrchr(buf, '\n', (size_t)(hit - buf)) : NULL;
                carry = carry ? carry + 1 : buf;
                break;
            }
            if (how == CUT_JOINED_NEXT)
                *line += 1; /* the head's line; eol is now the rest's */
        }
        if (how != CUT_NONE) {
            /* added, with the line that cut it */
        } else if (e == SCAN_OK && __builtin_expect(p->set.clock != CLOCK_AS_READ, 0) &&
                   !clock_rec(p, r, buf, hit, eol, *line)) {
            /* the clocks' pass: nothing added */
        } else if (e == SCAN_OK) {
            evpart_dur_clock(p, r->t_ns, r->wall);
            evpart_hint(p, r->job, r->job_len, r->partition, &hint[sc]);
            rline[sc] = *line;
            if (++pending == LOOK_AHEAD)
                ADD_OLDEST();
        } else {
            FLUSH();
            evpart_skip(p, *line, e);
        }
        if (eol == end) {
            pos = end;
            break;
        }
        *line += 1;
        pos = lstart = eol + 1;
    }
    FLUSH();
#undef FLUSH
#undef ADD_OLDEST
    /* What is used ends at the last newline; an unfinished last line is
     * left for the next chunk.  Every newline in [pos, end) is before it. */
    const char *used_to = end;
    if (carry)
        used_to = carry; /* *line is the carried line's */
    else if (!last) {
        const char *nl = memrchr(pos, '\n', (size_t)(end - pos));
        used_to = nl ? nl + 1 : pos;
    }
    *line += rest;
    return (size_t)(used_to - buf);
}

static ssize_t read_some(struct worker *w, char *buf, size_t want, uint64_t off)
{
    for (;;) {
        ssize_t r = w->is_pipe ? read(w->fd, buf, want) : pread(w->fd, buf, want, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        return r;
    }
}

static void progress_tick(struct progress *pr, uint64_t n, int leader)
{
    if (!pr || !pr->show)
        return;
    uint64_t done = atomic_fetch_add(&pr->done, n) + n;
    int pct = pr->total ? (int)(done * 100 / pr->total) : 0;
    if (leader && pr->total && pct != pr->shown) {
        fprintf(stderr, "\r  reading %s: %3d%%", pr->name, pct);
        pr->shown = pct;
    }
}

/* A SIGBUS while a mapped file is read means it shrank under us (a log
 * truncated by rotation): the reading thread gives up with an error
 * instead of the process dying. */
static _Thread_local sigjmp_buf *bus_jmp;

/* The handler before ours (the library may live in a program that has
 * one): a SIGBUS that is not a mapped read's goes to it. */
static struct sigaction bus_prev;

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
    if (bus_jmp)
        siglongjmp(*bus_jmp, 1);
    if (bus_prev.sa_flags & SA_SIGINFO) {
        if (bus_prev.sa_sigaction) {
            bus_prev.sa_sigaction(sig, si, ctx);
            return;
        }
    } else if (bus_prev.sa_handler == SIG_IGN) {
        return;
    } else if (bus_prev.sa_handler != SIG_DFL) {
        bus_prev.sa_handler(sig);
        return;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_sigbus(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &bus_prev);
}

static void catch_sigbus(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install_sigbus);
}

/* A mapped range: the same lines as work() would read, a window at a time. */
static void work_map(struct worker *w)
{
    struct evpart *p = w->part;
    const char *m = w->map, *fe = m + w->map_len;
    uint64_t line = 0;
    sigjmp_buf jb;
    if (sigsetjmp(jb, 0)) {
        bus_jmp = NULL;
        w->err = ESTALE; /* reported as the file having shrunk */
        goto done;
    }
    bus_jmp = &jb;
    const char *a = m + w->start, *e = m + w->end;
    if (w->start > 0) { /* a line that started before is not ours */
        const char *nl = memchr(a - 1, '\n', (size_t)(fe - (a - 1)));
        a = nl ? nl + 1 : fe;
    }
    if (e < fe && w->end > 0) { /* the line that crosses the end is (a range ending at 0 has none) */
        const char *nl = memchr(e - 1, '\n', (size_t)(fe - (e - 1)));
        e = nl ? nl + 1 : fe;
    }
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t pmask = ~(uintptr_t)(page > 0 ? page - 1 : 4095);
    while (a < e) {
        const char *we = e;
        if ((size_t)(e - a) > WINDOW) {
            const char *nl = memchr(a + WINDOW - 1, '\n', (size_t)(e - (a + WINDOW - 1)));
            we = nl ? nl + 1 : e;
        }
        parse_lines(p, a, (size_t)(we - a), 1, &line, 1, fe, fe, 1);
        progress_tick(w->prog, (uint64_t)(we - a), w->start == 0);
        /* done with these pages: keep the process's memory small */
        uintptr_t from = (uintptr_t)a & pmask, to = (uintptr_t)we & pmask;
        if (to > from)
            madvise((void *)from, to - from, MADV_DONTNEED);
        a = we;
    }
    bus_jmp = NULL;
done:
    evpart_compact(p);
    p->diag.lines = line;
    p->diag.bytes = w->end - w->start;
}

/* One thread's range.  buf holds the stream's bytes [buf_off, buf_off+len). */
static void *work(void *arg)
{
    struct worker *w = arg;
    struct evpart *p = w->part;
    if (w->map) {
        work_map(w);
        return NULL;
    }
    char *buf = malloc(LINE_MAX_BYTES);
    if (!buf) {
        w->err = ENOMEM;
        return NULL;
    }
    /* A range after the first starts one byte early: if that byte is '\n'
     * the first line is ours, else it belongs to the range before. */
    int skipping = !w->is_pipe && w->start > 0;
    uint64_t off = skipping ? w->start - 1 : w->start; /* next byte to read */
    uint64_t buf_off = off, line = 0, long_line_no = 0;
    size_t len = 0;
    int long_line = 0, long_has_tl = 0, eof = 0;
    if (w->prefix_len && w->prefix_len <= LINE_MAX_BYTES) {
        memcpy(buf, w->prefix, w->prefix_len);
        len = w->prefix_len;
    }
    while (!eof || len) {
        if (!eof) {
            size_t want = LINE_MAX_BYTES - len < READ_STEP ? LINE_MAX_BYTES - len : READ_STEP;
            ssize_t r = read_some(w, buf + len, want, off);
            if (r < 0) {
                w->err = errno;
                break;
            }
            eof = r == 0;
            if (eof && !w->is_pipe && off < w->size) {
                w->err = ESTALE; /* cut (a log rotated by truncation): not a shorter answer */
                break;
            }
            off += (uint64_t)r;
            len += (size_t)r;
            progress_tick(w->prog, (uint64_t)r, w->start == 0);
        }
        size_t from = 0;
        if (skipping || long_line) {
            char *nl = memchr(buf, '\n', len);
            if (long_line && !long_has_tl && scan_find(buf, nl ? nl : buf + len))
                long_has_tl = 1;
            if (!nl) {
                if (eof) {
                    if (long_line && long_has_tl) { /* a long last line, cut off */
                        p->diag.timeline_lines++;
                        evpart_skip(p, long_line_no, SCAN_TOO_LONG);
                    }
                    break;
                }
                /* keep 7 bytes: a TIMELINE may straddle the chunks */
                size_t keep = len > 7 ? 7 : len;
                memmove(buf, buf + len - keep, keep);
                buf_off += len - keep;
                len = keep;
                continue;
            }
            if (long_line) {
                if (long_has_tl) {
                    p->diag.timeline_lines++;
                    evpart_skip(p, long_line_no, SCAN_TOO_LONG);
                }
                line++;
            }
            skipping = long_line = 0;
            from = (size_t)(nl + 1 - buf);
        }
        /* Lines that start at or after the range's end are not ours. */
        size_t limit = len;
        int last = eof;
        if (!w->is_pipe) {
            if (buf_off + from >= w->end)
                break;
            if (buf_off + len > w->end) {
                size_t e = (size_t)(w->end - buf_off); /* >= from + 1 */
                char *nl = memchr(buf + e - 1, '\n', len - (e - 1));
                if (nl) {
                    limit = (size_t)(nl + 1 - buf);
                    last = 1;
                }
            }
        }
        /* past a range's end, its next line may be read (a cut record's rest) */
        size_t used = from + parse_lines(p, buf + from, limit - from, last, &line, 0, buf + LINE_MAX_BYTES,
                                         buf + len, eof);
        if (last && used >= limit)
            break; /* else a cut record's line waits for its rest (read_text's cut_join): read on */
        if (used == 0 && len == LINE_MAX_BYTES) {
            /* One line fills the buffer: skip to its end, noting a record. */
            long_line = 1;
            long_has_tl = scan_find(buf, buf + len) != NULL;
            long_line_no = line;
            memmove(buf, buf + len - 7, 7);
            buf_off += len - 7;
            len = 7;
            continue;
        }
        memmove(buf, buf + used, len - used);
        buf_off += used;
        len -= used;
        if (eof && len == 0)
            break;
    }
    evpart_compact(p);
    p->diag.lines = line;
    p->diag.bytes = (w->is_pipe ? off : (off < w->end ? off : w->end)) - w->start;
    free(buf);
    return NULL;
}

/* How many byte ranges to read a file of size bytes in (a pipe: 1). */
static int ranges_for(int is_pipe, uint64_t size)
{
    int n = 1;
    if (!is_pipe && size >= (64u << 20)) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        n = cpus < 1 ? 1 : cpus > MAX_THREADS ? MAX_THREADS : (int)cpus;
    }
    /* WATERFALL_READ_THREADS=N splits a file of any size into N ranges
     * (1 to 8): the tests use it to check that the split changes nothing. */
    const char *force = getenv("WATERFALL_READ_THREADS");
    if (force && !is_pipe && size > 0) {
        int f = atoi(force);
        n = f < 1 ? 1 : f > MAX_THREADS ? MAX_THREADS : f;
    }
    return n;
}

/* Read the ranges: w[0] on this thread, the others on their own.  When
 * not all threads start, one thread reads everything; returns how many
 * parts there are. */
static int read_ranges(struct text_input *in, struct worker *w, pthread_t *th, int n, int is_pipe, uint64_t size)
{
    int started = 1;
    for (int i = 1; i < n; i++)
        if (pthread_create(&th[i], NULL, work, &w[i]) == 0)
            started++;
        else
            break;
    if (started < n) {
        /* Could not start them all: do it in one thread. */
        for (int i = 1; i < started; i++)
            pthread_join(th[i], NULL);
        struct ev_settings set = in->parts[0].set;
        for (int i = 0; i < n; i++)
            evpart_free(&in->parts[i]);
        in->parts[0].set = set;
        in->nparts = n = 1;
        w[0].end = is_pipe ? UINT64_MAX : size;
    }
    work(&w[0]);
    for (int i = 1; i < n; i++)
        pthread_join(th[i], NULL);
    return n;
}

/* The job ids of the parts before one, to ask whether a job was met
 * before it: thing v of the index is job v - base[k] of part k. */
struct seen_jobs {
    const struct evpart *parts;
    size_t base[MAX_THREADS + 1]; /* base[k]: the jobs of the parts before part k */
    int n;                        /* the parts in it: 0 .. n - 1 */
    struct hindex x;
};

static const struct evpart *seen_job(const struct seen_jobs *t, size_t v, uint32_t *job)
{
    int k = t->n - 1;
    while (k > 0 && t->base[k] > v)
        k--;
    *job = (uint32_t)(v - t->base[k]);
    return &t->parts[k];
}

static uint64_t seen_hash(const void *ctx, size_t v)
{
    uint32_t j = 0;
    const struct evpart *p = seen_job(ctx, v, &j);
    return p->jobs.hash[j];
}

/* Add the next part's jobs. */
static int seen_add_one(struct seen_jobs *t)
{
    const struct evpart *p = &t->parts[t->n];
    size_t first = t->base[t->n];
    if (hindex_reserve(&t->x, first, first + p->jobs.n, 1024, seen_hash, t))
        return -1; /* the part is not in: the next call tries it again */
    t->base[t->n + 1] = first + p->jobs.n;
    t->n++;
    for (uint32_t j = 0; j < p->jobs.n; j++) {
        uint64_t h = p->jobs.hash[j];
        size_t i = hindex_home(&t->x, h);
        while (hindex_probe(&t->x, h, &i) >= 0) /* the same id in another part: both kept */
            i = hindex_next(&t->x, i);
        hindex_put(&t->x, i, h, (uint32_t)(first + j));
    }
    return 0;
}

/* Add the next parts' jobs, until the parts before part `upto` are in. */
static int seen_add(struct seen_jobs *t, int upto)
{
    while (t->n < upto)
        if (seen_add_one(t))
            return -1;
    return 0;
}

static int seen_has(const struct seen_jobs *t, const struct evpart *p, uint32_t job)
{
    size_t len, l2;
    const char *id = evpart_job(p, job, &len);
    uint64_t h = p->jobs.hash[job];
    size_t i = hindex_home(&t->x, h);
    for (int64_t v; (v = hindex_probe(&t->x, h, &i)) >= 0; i = hindex_next(&t->x, i)) {
        uint32_t j = 0;
        const struct evpart *q = seen_job(t, (size_t)v, &j);
        const char *o = evpart_job(q, j, &l2);
        if (l2 == len && memcmp(o, id, len) == 0)
            return 1;
    }
    return 0;
}

/* Does part p keep too few side records?  A unit of its first segment
 * past its SIDE_WINDOW first ones has none; if its job was met in a part
 * before (seen), the unit may continue one there, and the model needs
 * where each of its events came from: -1 when unsure (out of memory). */
static int side_short(const struct evpart *p, const struct seen_jobs *seen)
{
    if (p->set.want_side != SIDE_FIRST || p->segs.n == 0)
        return 0;
    const struct seg *s = &p->segs.list[0];
    if (s->nunits <= s->side_cap)
        return 0;
    uint8_t *asked = calloc(p->jobs.n ? p->jobs.n : 1, 1);
    if (!asked)
        return -1;
    int found = 0;
    for (size_t i = s->side_cap; i < s->nunits && !found; i++) {
        uint32_t j = s->units[i].job;
        if (!asked[j]) {
            asked[j] = 1;
            found = seen_has(seen, p, j);
        }
    }
    free(asked);
    return found;
}

/* Read part i again with the settings set (its first reading gave way). */
static void reread(struct text_input *in, struct worker *w, int i, struct ev_settings set)
{
    evpart_free(&in->parts[i]);
    in->parts[i].set = set;
    w[i].prog = NULL;
    work(&w[i]);
    in->rereads++;
}

/* Join the parts in order.  A part whose start hid a restart of the
 * epoch (rare: a run ending just before it with times far below the
 * run's latest) is read again knowing the state it starts in; one whose
 * units past the first SIDE_WINDOW may continue a unit of a part before
 * is read again keeping where all their events came from. */
static void join_parts(struct text_input *in, struct worker *w, int n)
{
    int has_prev = 0, had[MAX_THREADS];
    int64_t m = 0, m_at[MAX_THREADS];
    struct seen_jobs seen = {.parts = in->parts};
    for (int i = 0; i < n; i++) {
        int64_t m_out;
        /* what follows the part: the next part's first event decides an
         * event the part still holds (a late line, or a restart) */
        int64_t t_after = INT64_MIN;
        for (int k = i + 1; k < n && t_after == INT64_MIN; k++)
            if (in->parts[k].run.nrec)
                t_after = in->parts[k].run.t_first;
        in->parts[i].run.t_after = t_after;
        evpart_settle(&in->parts[i], t_after);
        had[i] = has_prev;
        m_at[i] = m;
        /* settled first: a held event may add a unit past the window */
        if (i > 0 && !w[i].err) {
            int short_ = seen_add(&seen, i) ? -1 : side_short(&in->parts[i], &seen);
            if (short_) {
                struct ev_settings set = in->parts[i].set;
                set.want_side = SIDE_ALL;
                reread(in, w, i, set);
                in->parts[i].run.t_after = t_after;
                evpart_settle(&in->parts[i], t_after);
            }
        }
        if (evpart_link(&in->parts[i], has_prev, m, &m_out) && !w[i].err) {
            struct ev_settings set = in->parts[i].set;
            set.want_side = SIDE_ALL;
            set.want_recs = 0; /* the state is known: nothing to check */
            set.has_in = 1;
            set.m_in = m;
            reread(in, w, i, set);
            in->parts[i].run.t_after = t_after;
            evpart_settle(&in->parts[i], t_after);
            evpart_link(&in->parts[i], has_prev, m, &m_out);
        }
        if (in->parts[i].segs.n) {
            has_prev = 1;
            m = m_out;
        }
    }
    hindex_free(&seen.x);
    /* other events that wait past a part's end: decided by the next
     * part's first event of the six, now that every part is linked */
    for (int i = 0; i < n; i++) {
        int k = i + 1;
        while (k < n && !in->parts[k].segs.n)
            k++;
        evpart_trailing(&in->parts[i], k == n || in->parts[k].segs.first_cont, had[i], m_at[i]);
    }
}

/* Do the input's events mix the two clocks (events.h): some timed by
 * their lines, some by their own ts=? */
static int clocks_mixed(const struct text_input *in, int n)
{
    uint64_t wall = 0, all = 0;
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < in->parts[i].segs.n; k++) {
            wall += in->parts[i].segs.list[k].wall;
            all += in->parts[i].segs.list[k].events;
        }
    return wall && wall < all;
}

/* Read every part again with these clock settings (the parts' own as at
 * the start, read_text), on the threads as before. */
static int reread_all(struct text_input *in, struct worker *w, pthread_t *th, int n, uint64_t size, int clock,
                      const struct clock_map *map, const uint64_t *base)
{
    for (int i = 0; i < n; i++) {
        evpart_free(&in->parts[i]);
        struct ev_settings *s = &in->parts[i].set;
        s->clock = clock;
        if (clock == CLOCK_ALIGN) {
            s->want_side = i > 0 ? SIDE_FIRST : SIDE_NONE;
            s->want_recs = i > 0;
            s->align = map;
            s->line_base = base[i];
        }
        w[i].prog = NULL;
        w[i].err = 0;
    }
    in->rereads += n;
    return read_ranges(in, w, th, n, 0, size);
}

/* An input whose records mix the two clocks: read it again to find the
 * records that carry both, then once more with every record on the ts=
 * clock; or, with no record that carries both, refuse it (a figure from
 * the two clocks mixed would be false: a busy time of 1.7e9 s).  A pipe
 * cannot be read again: refused too.  0, or -1 with err set. */
/* A pipe that can be read again: its new fd for w (which reads it from
 * its start, with no prefix).  0, or -1 with err set. */
static int pipe_again(struct worker *w, const struct text_again *again, char *err, size_t errlen)
{
    int fd;
    if (again->reopen(again->ctx, &fd, err, errlen))
        return -1;
    w->fd = fd;
    w->prefix = NULL;
    w->prefix_len = 0;
    return 0;
}

static int align_clocks(struct text_input *in, struct worker *w, pthread_t *th, int *n, int is_pipe, uint64_t size,
                        const struct text_again *again, const char *name, struct clock_map *map, char *err,
                        size_t errlen)
{
    if (is_pipe && !again) {
        snprintf(err, errlen,
                 "%s: some records carry ts= and others take their line's timestamp: read from a pipe, it "
                 "cannot be read again to align the two clocks; save it to a file first",
                 name);
        return -1;
    }
    if (is_pipe && pipe_again(&w[0], again, err, errlen))
        return -1;
    *n = reread_all(in, w, th, *n, size, CLOCK_PAIRS, NULL, NULL);
    uint64_t base[MAX_THREADS] = {0}, first_wall = UINT64_MAX, first_rec = UINT64_MAX;
    size_t total = 0;
    for (int i = 0; i < *n; i++) {
        const struct evpart *p = &in->parts[i];
        if (i > 0)
            base[i] = base[i - 1] + in->parts[i - 1].diag.lines;
        total += p->clock.n;
        if (p->clock.nwall && first_wall == UINT64_MAX)
            first_wall = base[i] + p->clock.first_wall;
        if (p->clock.nrec && first_rec == UINT64_MAX)
            first_rec = base[i] + p->clock.first_rec;
        if (p->diag.oom) {
            snprintf(err, errlen, "%s: out of memory", name);
            return -1;
        }
    }
    if (total == 0) {
        snprintf(err, errlen,
                 "%s:%llu: this record has no ts= and takes its line's timestamp, while others carry ts= (the "
                 "first at line %llu), and no record carries both a ts= and a timestamp on its line: the two "
                 "clocks cannot be aligned, and a figure from them mixed would be false (give every record ts=, "
                 "or keep the timestamps on the lines of those with ts=)",
                 name, (unsigned long long)first_wall + 1, (unsigned long long)first_rec + 1);
        return -1;
    }
    map->pairs = malloc(total * sizeof *map->pairs);
    if (!map->pairs) {
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    int seen = 0; /* the parts before: a pair seen, its epoch */
    int64_t last_epoch = 0;
    for (int i = 0; i < *n; i++) {
        const struct ev_clock *pc = &in->parts[i].clock;
        for (size_t k = 0; k < pc->n; k++) {
            struct clock_pair c = pc->pairs[k];
            if (k == 0 && seen && clock_epoch(c.off) == last_epoch)
                continue; /* the part's first pair, of the epoch the part before ended in */
            c.line += base[i];
            map->pairs[map->n++] = c;
        }
        if (pc->seen)
            seen = 1, last_epoch = pc->last_epoch;
    }
    if (is_pipe && pipe_again(&w[0], again, err, errlen))
        return -1;
    *n = reread_all(in, w, th, *n, size, CLOCK_ALIGN, map, base);
    join_parts(in, w, *n);
    return 0;
}

int read_text(struct text_input *in, int fd, const char *name, const void *prefix, size_t prefix_len,
              const struct text_again *again, int show_progress, char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    struct stat st;
    if (fstat(fd, &st) < 0) {
        snprintf(err, errlen, "%s: cannot stat: %s", name, strerror(errno));
        return -1;
    }
    int is_pipe = !S_ISREG(st.st_mode);
    uint64_t size = is_pipe ? 0 : (uint64_t)st.st_size;
    int n = ranges_for(is_pipe, size);
    struct progress prog = {.total = size, .name = name, .shown = -1,
                            .show = show_progress && (is_pipe || size > (100u << 20))};
    in->parts = calloc((size_t)n, sizeof *in->parts);
    struct worker *w = calloc((size_t)n, sizeof *w);
    pthread_t *th = calloc((size_t)n, sizeof *th);
    if (!in->parts || !w || !th) {
        free(in->parts);
        free(w);
        free(th);
        in->parts = NULL;
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    in->nparts = n;
    /* The file is mapped (no copy); WATERFALL_MMAP=0, or a file that cannot
     * be mapped, is read.  So is a file whose last line is not ended: a log
     * still being written, whose last record pread() reads on to its end
     * past the size seen here, where a mapping would stop at that size. */
    const char *map = NULL;
    const char *mm = getenv("WATERFALL_MMAP");
    char lastc = 0;
    if (!is_pipe && size > 0 && !(mm && strcmp(mm, "0") == 0) && pread(fd, &lastc, 1, (off_t)(size - 1)) == 1 &&
        lastc == '\n') {
        void *mp = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (mp != MAP_FAILED) {
            map = mp;
            catch_sigbus();
        }
    }
    for (int i = 0; i < n; i++) {
        w[i] = (struct worker){.fd = fd, .start = size * (uint64_t)i / (uint64_t)n,
                               .end = size * (uint64_t)(i + 1) / (uint64_t)n,
                               .is_pipe = is_pipe, .part = &in->parts[i], .prog = &prog,
                               .map = map, .map_len = size, .size = size};
        in->parts[i].set.want_side = i > 0 ? SIDE_FIRST : SIDE_NONE; /* its first units may join the part before's */
        in->parts[i].set.want_recs = i > 0 && !in->parts[i].set.native;
        if (is_pipe) {
            w[i].end = UINT64_MAX;
            w[i].prefix = prefix;
            w[i].prefix_len = prefix_len;
        }
    }
    n = read_ranges(in, w, th, n, is_pipe, size);
    if (prog.show)
        fprintf(stderr, "\r%*s\r", 40 + (int)strlen(name), "");
    join_parts(in, w, n);
    int rc = 0;
    struct clock_map clocks = {0};
    if (clocks_mixed(in, n) && align_clocks(in, w, th, &n, is_pipe, size, again, name, &clocks, err, errlen))
        rc = -1;
    free(clocks.pairs);
    if (map) {
        /* A file cut within its last page raises no SIGBUS: the bytes past
         * its new end read as zeros.  Its size tells. */
        struct stat now;
        if (fstat(fd, &now) == 0 && (uint64_t)now.st_size < size && n > 0 && !w[0].err)
            w[0].err = ESTALE;
        munmap((void *)map, (size_t)size);
    }
    for (int i = 0; i < n && rc == 0; i++) {
        if (w[i].err == ESTALE) {
            snprintf(err, errlen, "%s: read failed: the file shrank while it was being read", name);
            rc = -1;
        } else if (w[i].err) {
            snprintf(err, errlen, "%s: read failed: %s", name, strerror(w[i].err));
            rc = -1;
        }
        in->bytes += in->parts[i].diag.bytes;
    }
    free(w);
    free(th);
    return rc;
}

void text_input_free(struct text_input *in)
{
    for (int i = 0; i < in->nparts; i++)
        evpart_free(&in->parts[i]);
    free(in->parts);
    memset(in, 0, sizeof *in);
}
