/*
 * lines.c -- a log's bytes parsed into records on a thread of their own
 * (lines.h says what is read, and how the pipe turns).
 *
 * The pipe is a ring of NCHUNK chunks and three counts: submitted (by the
 * caller), parsed (by the parser), applied (by the caller); chunk k of
 * the sequence is ch[k % NCHUNK].  The caller writes a chunk's bytes
 * before submitting it and reads its records after the parser counted
 * it parsed; both counts change under the mutex, which orders the
 * accesses of the two threads.
 */
#include "lines.h"

#include "durations.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#define NCHUNK 4
#define COPY_CAP (LINES_CHUNK + LINES_KEEP) /* bounds what a chunk's records copy (rec_copy) */

/* The parser's own state: the line that spans chunks. */
struct lines_text {
    char *line; /* LINES_KEEP bytes */
    size_t nline;
    int line_long; /* it went past LINES_KEEP: only its start is kept */
    int unended;   /* the line is the input's last and has no newline: its end may be cut */
    char scratch[SCAN_LINE_MAX];
    /* a record that another thread's line cut (scan.h, scan_cut), held for
     * its rest, the next line, when that is not read yet */
    char held[SCAN_LINE_MAX];
    size_t nheld, held_cut;
    int held_has_line; /* and its line's own time, from before the record */
    int64_t held_line_ns;
    char held_pre[SCAN_CUT_PREFIX_MAX]; /* and its line's prefix (scan_joined; SIZE_MAX: too long) */
    size_t held_pn;
    char held_key[SCAN_JSON_KEY_MAX]; /* and its JSON string's key (scan_json_key) */
    size_t held_kn;
};

struct lines_pipe {
    struct lines_text text;
    struct lines_chunk ch[NCHUNK];
    pthread_mutex_t mu;
    pthread_cond_t cv; /* parsed grew, or submitted did, or quit */
    uint64_t submitted, parsed, applied;
    int quit, threaded;
    pthread_t th;
};

/* ---- parsing ---- */

static int in_buf(const struct lines_chunk *c, const char *q)
{
    return q >= c->buf && q < c->buf + c->len;
}

/* *q (n bytes) into the chunk's copies, unless it lies in the chunk.
 * Each record copies at most its line's length (its id and name are
 * parts of the line, decoding only shrinks them), so COPY_CAP holds a
 * chunk's and the line gathered into it. */
static int rec_copy(struct lines_chunk *c, const char **q, size_t n)
{
    if (!*q || !n || in_buf(c, *q))
        return 0;
    if (!c->copy && !(c->copy = malloc(COPY_CAP))) /* its pages are touched as used */
        return -1;
    if (c->ncopy + n > COPY_CAP)
        return -1;
    memcpy(c->copy + c->ncopy, *q, n);
    *q = c->copy + c->ncopy;
    c->ncopy += n;
    return 0;
}

static int rec_add(struct lines_chunk *c, const struct scan_rec *sr, uint32_t at)
{
    if (c->nrec == c->rec_cap) {
        size_t cap = c->rec_cap ? c->rec_cap * 2 : 1024;
        struct live_rec *r = realloc(c->rec, cap * sizeof *r);
        if (r)
            c->rec = r;
        uint32_t *a = r ? realloc(c->at, cap * sizeof *a) : NULL;
        if (!a)
            return -1;
        c->at = a;
        c->rec_cap = cap;
    }
    struct live_rec *o = &c->rec[c->nrec];
    live_rec_of(o, sr);
    if (rec_copy(c, &o->job, o->job_len) || rec_copy(c, &o->name, o->name_len))
        return -1;
    c->at[c->nrec++] = at;
    return 0;
}

/* A record read from its line: added, with the line's own time where it
 * has one before the record and the record no ts= (has_line: the offset
 * between the clocks of a log that mixes them), or counted as skipped.
 * 0, or -1. */
static int rec_in(struct lines_chunk *c, const struct scan_rec *r, enum scan_err e, int has_line, int64_t line_ns,
                  uint32_t at)
{
    if (e == SCAN_NOT_RECORD)
        return 0;
    if (e != SCAN_OK) {
        c->skipped++;
        c->skipped_by[e]++;
        return 0;
    }
    if (rec_add(c, r, at))
        return -1;
    if (has_line && !r->wall) {
        c->rec[c->nrec - 1].has_line = 1;
        c->rec[c->nrec - 1].line_ns = line_ns;
    }
    return 0;
}

/* The own time of the line [line, end) before its record at hit: 1, or 0. */
static int line_time(const char *line, const char *hit, const char *end, int64_t *ns)
{
    return hit > line && scan_line_time(line, hit, end, ns);
}

/* A duration line, as a record of what watch places of it (live.h):
 * the names durations.h knows, with gpu_tid. */
static int dur_add(struct lines_chunk *c, const char *tag, const char *eol, char *scratch, uint32_t at)
{
    struct scan_dur d;
    if (scan_dur(tag, eol, scratch, &d) != DUR_LINE)
        return 0; /* a message, or unreadable: analyze counts it, watch has no figure of it */
    struct scan_rec none = {.ev = 0, .job = "", .partition = -1, .worker = -1, .device = -1};
    if (rec_add(c, &none, at))
        return -1;
    struct live_rec *o = &c->rec[c->nrec - 1];
    o->ev = LIVE_EV_DUR;
    o->dtid = (int8_t)(d.tid > 127 ? 127 : d.tid);
    o->worker = d.worker, o->partition = d.partition; /* a spawn line's (scan.h) */
    o->dn = d.n;
    for (int i = 0; i < d.n; i++) {
        o->dname[i] = (uint8_t)dur_name_of(d.d[i].k, d.d[i].kn);
        o->dms[i] = d.d[i].ms;
    }
    return 0;
}

/* A cut record's head [hit, eol) and its rest [n0, n1) as one record,
 * then the cutting line as the line it is, as read_text does: 1, 0 when
 * they are not one record, -1 out of memory. */
static int cut_add(struct lines_text *s, struct lines_chunk *c, const char *hit, const char *cut, const char *eol,
                   const char *pre, size_t pn, const char *key, size_t kn, const char *n0, const char *n1,
                   uint32_t at, int has_line, int64_t line_ns)
{
    char joined[SCAN_LINE_MAX];
    struct scan_rec r;
    if (scan_joined(hit, cut, n0, n1, pre, pn, key, kn, joined, s->scratch, &r) != SCAN_OK)
        return 0;
    if (rec_in(c, &r, SCAN_OK, has_line, line_ns, at)) /* its id copied: scratch is used again below */
        return -1;
    uint64_t nl = 0;
    const char *tag = scan_find_any_count(cut, eol, &nl);
    if (tag && *tag != 'T' && dur_add(c, tag, eol, s->scratch, at))
        return -1;
    if (tag && *tag == 'T') { /* a tracing line with a record of its own */
        struct scan_rec r2;
        enum scan_err e2 = scan_line_in(cut, tag, eol, eol, s->scratch, &r2);
        int64_t lt = 0;
        int own_time = e2 == SCAN_OK && line_time(cut, tag, eol, &lt); /* before lt is passed */
        if (rec_in(c, &r2, e2, own_time, lt, at))
            return -1;
    }
    return 1;
}

/* The held record (if any) and line [n0, n1), its rest: 1 when they were
 * one record, 0 when not (the held line counted as skipped), -1. */
static int held_in(struct lines_text *s, struct lines_chunk *c, const char *n0, const char *n1, uint32_t at)
{
    if (!s->nheld)
        return 0;
    size_t hn = s->nheld;
    s->nheld = 0;
    int j = n0 ? cut_add(s, c, s->held, s->held + s->held_cut, s->held + hn, s->held_pre, s->held_pn, s->held_key,
                         s->held_kn, n0, n1, at, s->held_has_line, s->held_line_ns)
               : 0;
    if (j)
        return j;
    /* not one record: the held line as it reads alone, as read_text does */
    struct scan_rec r;
    enum scan_err e = scan_line_in(s->held, s->held, s->held + hn, s->held + hn, s->scratch, &r);
    return rec_in(c, &r, e, s->held_has_line, s->held_line_ns, at);
}

/* One whole line (without its '\n'); the bytes up to readable may be
 * read.  is_long: only its first LINES_KEEP bytes are here.  0, 2 when
 * the next line (in the bytes up to readable) was taken too, -1. */
static int line_in(struct lines_text *s, struct lines_chunk *c, const char *line, size_t n, const char *readable,
                   int is_long)
{
    uint32_t at = (uint32_t)c->lines++;
    int held = held_in(s, c, is_long ? NULL : line, line + n, at);
    if (held)
        return held < 0 ? -1 : 0; /* the line was the held record's rest */
    if (is_long) {
        if (memmem(line, n, "TIMELINE", 8)) {
            c->skipped++;
            c->skipped_by[SCAN_TOO_LONG]++;
        }
        return 0;
    }
    const char *end = line + n, *pos = line;
    for (;;) {
        uint64_t nl = 0;
        const char *hit = scan_find_any_count(pos, end, &nl);
        if (!hit)
            return 0;
        if (*hit != 'T') /* a duration line, or the engine's spawn line (scan.h) */
            return s->unended ? 0 : dur_add(c, hit, end, s->scratch, at); /* a value cut reads short (read_text.c) */
        struct scan_rec r;
        enum scan_err e = scan_line_in(line, hit, end, readable, s->scratch, &r);
        if (e == SCAN_NOT_RECORD) {
            pos = hit + 8; /* a real one may follow on the same line */
            continue;
        }
        const char *cut = e != SCAN_NOT_RECORD ? r.cut : NULL;
        if (cut) { /* cut by another line: its rest is the next line, here or held for it */
            const char *n0 = end + 1, *n1 = n0 < readable ? memchr(n0, '\n', (size_t)(readable - n0)) : NULL;
            int64_t lt = 0;
            int has_line = line_time(line, hit, end, &lt);
            const char *key = NULL;
            size_t kn = scan_json_key(line, (size_t)(hit - line), &key);
            if (n1) {
                int j = cut_add(s, c, hit, cut, end, line, (size_t)(hit - line), key, kn, n0, n1, at, has_line, lt);
                if (j)
                    return j < 0 ? -1 : 2;
            } else if ((size_t)(end - hit) < SCAN_LINE_MAX) {
                memcpy(s->held, hit, (size_t)(end - hit));
                s->nheld = (size_t)(end - hit);
                s->held_cut = (size_t)(cut - hit);
                s->held_has_line = has_line, s->held_line_ns = lt;
                s->held_pn = (size_t)(hit - line) <= sizeof s->held_pre ? (size_t)(hit - line) : SIZE_MAX;
                memcpy(s->held_pre, line, s->held_pn == SIZE_MAX ? 0 : s->held_pn);
                s->held_kn = kn;
                if (kn)
                    memcpy(s->held_key, key, kn);
                return 0;
            }
        }
        int64_t lt = 0;
        int has_line = e == SCAN_OK && line_time(line, hit, end, &lt); /* before lt is passed */
        return rec_in(c, &r, e, has_line, lt, at);
    }
}

/* From p, at a line's start: the lines before the next one that holds
 * "TIMELINE" (or before the last, unfinished line) are counted, not
 * parsed, as the batch reader skips them; the start of that line. */
static const char *skip_lines(struct lines_chunk *c, const char *p, const char *end)
{
    uint64_t nl = 0;
    const char *hit = scan_find_any_count(p, end, &nl);
    if (!nl)
        return p;
    c->lines += nl;
    return (const char *)memrchr(p, '\n', (size_t)((hit ? hit : end) - p)) + 1;
}

/* The chunk's bytes into lines: a line whole in the chunk is read where
 * it is; one that spans chunks, or is too long, is gathered. */
static void parse(struct lines_text *s, struct lines_chunk *c)
{
    c->nrec = c->ncopy = 0;
    c->lines = c->skipped = 0;
    memset(c->skipped_by, 0, sizeof c->skipped_by);
    c->failed = 0;
    const char *p = c->buf, *end = p + c->len;
    while (p < end) {
        if (!s->nline && !s->line_long && !s->nheld && (p = skip_lines(c, p, end)) == end)
            break;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t take = (size_t)((nl ? nl : end) - p);
        if (nl && !s->nline && !s->line_long && take <= LINES_KEEP) {
            int rc = line_in(s, c, p, take, end, 0);
            if (rc < 0)
                goto oom;
            p = nl + 1;
            if (rc == 2) { /* the next line, a cut record's rest, was read with it */
                c->lines++;
                p = (const char *)memchr(p, '\n', (size_t)(end - p)) + 1;
            }
            continue;
        }
        if (s->nline + take > LINES_KEEP) {
            take = LINES_KEEP - s->nline;
            s->line_long = 1;
        }
        memcpy(s->line + s->nline, p, take);
        s->nline += take;
        if (!nl)
            break;
        if (line_in(s, c, s->line, s->nline, s->line + s->nline, s->line_long) < 0)
            goto oom;
        s->nline = 0;
        s->line_long = 0;
        p = nl + 1;
    }
    /* the end: a last line without its newline is a line */
    if (c->end && s->nline) {
        s->unended = 1;
        int rc = line_in(s, c, s->line, s->nline, s->line + s->nline, s->line_long);
        s->unended = 0;
        if (rc < 0)
            goto oom;
        s->nline = 0;
        s->line_long = 0;
    }
    if (c->end && held_in(s, c, NULL, NULL, 0) < 0) /* no rest came: a skipped line */
        goto oom;
    return;
oom:
    c->failed = 1;
}

/* ---- the pipe ---- */

static void *parser(void *arg)
{
    struct lines_pipe *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->quit && p->parsed == p->submitted)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->quit)
            break;
        struct lines_chunk *c = &p->ch[p->parsed % NCHUNK];
        pthread_mutex_unlock(&p->mu);
        parse(&p->text, c);
        pthread_mutex_lock(&p->mu);
        p->parsed++;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

struct lines_pipe *lines_pipe_new(void)
{
    struct lines_pipe *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->text.line = malloc(LINES_KEEP);
    int ok = p->text.line != NULL;
    for (int i = 0; i < NCHUNK && ok; i++)
        ok = (p->ch[i].buf = malloc(LINES_CHUNK)) != NULL;
    if (!ok) {
        lines_pipe_free(p);
        return NULL;
    }
    /* the parser takes no signal: SIGINT and SIGTERM reach the caller's
     * thread, whose waits they end */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    p->threaded = pthread_create(&p->th, NULL, parser, p) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return p;
}

void lines_pipe_free(struct lines_pipe *p)
{
    if (!p)
        return;
    if (p->threaded) {
        pthread_mutex_lock(&p->mu);
        p->quit = 1;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        pthread_join(p->th, NULL);
    }
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    for (int i = 0; i < NCHUNK; i++) {
        free(p->ch[i].buf);
        free(p->ch[i].rec);
        free(p->ch[i].at);
        free(p->ch[i].copy);
    }
    free(p->text.line);
    free(p);
}

struct lines_chunk *lines_pipe_idle(struct lines_pipe *p)
{
    if (p->submitted - p->applied == NCHUNK)
        return NULL;
    return &p->ch[p->submitted % NCHUNK];
}

void lines_pipe_submit(struct lines_pipe *p, struct lines_chunk *c, size_t len, int end)
{
    c->len = len;
    c->end = end;
    if (!p->threaded) {
        parse(&p->text, c);
        p->parsed++;
    }
    pthread_mutex_lock(&p->mu);
    p->submitted++;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

struct lines_chunk *lines_pipe_next(struct lines_pipe *p)
{
    if (p->applied == p->submitted)
        return NULL;
    pthread_mutex_lock(&p->mu);
    while (p->parsed == p->applied)
        pthread_cond_wait(&p->cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
    return &p->ch[p->applied % NCHUNK];
}

void lines_pipe_done(struct lines_pipe *p, struct lines_chunk *c)
{
    (void)c;
    p->applied++;
}

int lines_pipe_end(struct lines_pipe *p)
{
    if (!p->text.nline && !p->text.nheld)
        return 0; /* read without the lock: the parser is idle (every chunk is done) */
    lines_pipe_submit(p, lines_pipe_idle(p), 0, 1);
    return 1;
}
