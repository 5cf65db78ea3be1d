/*
 * read_rings.c -- a trace's rings file (PATH.rings, format 1.3;
 * docs/format.md, "The rings file"): what a recording that did not finish
 * had marked but not yet written into PATH.
 *
 * The recorder's threads mark into rings mapped from PATH.rings; its
 * writer copies them into PATH and, after each thread's events, writes a
 * SEQ record: the ring's slots below `next` are in PATH.  So a reader
 * takes, of each ring, the slots from its thread's last SEQ to its head,
 * (and those after its last SEQ that a write cut short by the process's
 * death left without their SEQ), and, of the definitions journal, the
 * records from journal_done on.  A
 * slot is counted in head only once written whole, so no torn slot is
 * read; a record of the journal is taken only whole and intact (CRC).
 * The file is not trusted: every count and offset is checked against its
 * size.
 */
#include "read_wft.h"

#include "input.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int id_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The journal's definitions from journal_done on: those PATH lacks (a unit
 * PATH already defines is not taken twice). */
static int take_journal(struct wft_trace *t, const struct wft_rings_header *h, const unsigned char *d, size_t len)
{
    uint64_t cap = h->journal_cap, done = h->journal_done, end = h->journal_end;
    if (h->journal_off > len || cap > len - h->journal_off || cap < 64 || end < done || end - done > cap)
        return 0; /* no journal this reader can trust */
    const unsigned char *j = d + h->journal_off;
    uint64_t *known = malloc((t->nunits ? t->nunits : 1) * sizeof *known);
    if (!known)
        return -1;
    for (size_t i = 0; i < t->nunits; i++)
        known[i] = t->units[i].unit;
    qsort(known, t->nunits, sizeof *known, id_cmp);
    size_t nknown = t->nunits;
    for (uint64_t p = done; p < end;) {
        uint64_t off = p % cap, room = cap - off;
        struct wft_rec r;
        if (room < sizeof r || (memcpy(&r, j + off, sizeof r), r.size == 0)) {
            p += room; /* continued at the start */
            continue;
        }
        if (!wft_rec_whole(j, (size_t)(off + (room < end - p ? room : end - p)), (size_t)off))
            break; /* damage: what follows cannot be framed */
        struct wft_unit u;
        int again = r.type == WFT_UNIT && r.size >= sizeof u &&
                    (memcpy(&u, j + off, sizeof u), bsearch(&u.unit, known, nknown, sizeof *known, id_cmp));
        /* a detail taken twice (from the file and the journal) adds nothing: wft_sort */
        if ((r.type == WFT_UNIT || r.type == WFT_EVENT_DEF || r.type == WFT_UNIT_DETAIL) && !again) {
            if (wft_take_record(t, j + off, r.size, r.type))
                t->bad_records++;
            else
                t->rings_defs++;
        }
        p += r.size;
    }
    free(known);
    t->rings_dropped = h->journal_dropped;
    t->rings_private = h->private_rings;
    return 0;
}

/* One ring: its slots from its thread's last SEQ to its head, and what
 * the file lacks of its thread (name, lost count, last CPU reading). */
static int take_ring(struct wft_trace *t, const struct wft_rings_header *h, const unsigned char *ring)
{
    struct wft_ring_header rh;
    memcpy(&rh, ring, sizeof rh);
    if (rh.state != WFT_RING_USED)
        return 0;
    if (rh.thread >= WFT_MAX_THREADS) { /* damage, not a want of memory: counted, the rest read */
        t->bad_records++;
        return 0;
    }
    struct wft_thread_info *th = wft_thread_at(t, rh.thread);
    if (!th)
        return -1;
    /* the slots in the file: up to its last SEQ, and those written after it
     * whose SEQ the process's death cut off */
    uint64_t from = th->seq + th->after_seq, cap = h->ring_events;
    if (rh.head > from && rh.head - from > cap)
        from = rh.head - cap; /* cannot happen (a slot is written again only once in the file): damage */
    const unsigned char *slots = ring + WFT_RINGS_PAGE;
    for (uint64_t k = from; k < rh.head; k++) {
        const unsigned char *q = slots + (k & (cap - 1)) * sizeof(struct wft_event);
        struct wft_event e;
        memcpy(&e, q, sizeof e);
        if ((uint32_t)(e.word >> WFT_UNIT_BITS) == WFT_EV_ROLE) {
            int32_t w, dv;
            wft_role_of(e.word, &w, &dv);
            wft_thread_role(th, w, dv);
        } else if (wft_add_events(t, rh.thread, q, 1)) {
            return -1;
        } else {
            t->rings_events++;
        }
    }
    if (!th->seen) {
        th->seen = 1;
        th->tid = rh.tid;
        memcpy(th->name, rh.name, sizeof th->name);
        th->name[sizeof th->name - 1] = 0;
    }
    if (rh.lost > th->lost)
        th->lost = rh.lost;
    int64_t last = INT64_MIN; /* the thread's last CPU reading in the file */
    for (size_t i = 0; i < t->ncpu; i++)
        if (t->cpu[i].thread == rh.thread && t->cpu[i].ns > last)
            last = t->cpu[i].ns;
    if (rh.cpu_ticks && (int64_t)rh.cpu_ticks > last) {
        struct wft_cpu c = {.thread = rh.thread, .flags = rh.cpu_flags, .ticks = rh.cpu_ticks,
                            .cpu_ns = rh.cpu_ns, .wait_ns = rh.cpu_wait_ns};
        if (wft_add_cpu(t, th, &c))
            return -1;
    }
    return 0;
}

/* Is the recording process still running (here)?  Then its writer has
 * yet to write what the rings hold, and a read now could meet a write
 * half done: the rings are left to it. */
static int running(const struct wft_trace *t)
{
    char host[sizeof t->hdr.host] = "";
    gethostname(host, sizeof host - 1);
    if (strncmp(host, t->hdr.host, sizeof host) != 0 || t->hdr.pid == 0)
        return 0;
    return kill((pid_t)t->hdr.pid, 0) == 0 || errno == EPERM;
}

/* What the rings file holds that the trace lacks: 0, or -1 out of memory. */
static int recover_rings(struct wft_trace *t, const char *path)
{
    char name[4200];
    snprintf(name, sizeof name, "%s.rings", path);
    struct input in;
    char err[64];
    if (access(name, F_OK) != 0) {
        t->rings = WFT_RINGS_MISSING;
        return 0;
    }
    if (input_open(&in, name, err, sizeof err)) {
        t->rings = WFT_RINGS_DAMAGED; /* there, but not readable */
        return 0;
    }
    if (in.len < WFT_RINGS_PAGE) {
        input_close(&in);
        t->rings = WFT_RINGS_DAMAGED;
        return 0;
    }
    const unsigned char *d = in.data;
    size_t len = in.len;
    struct wft_rings_header h;
    memcpy(&h, d, sizeof h);
    int rc = 0;
    if (memcmp(h.magic, WFT_RINGS_MAGIC, 8) != 0 || h.version != 1 || h.page != WFT_RINGS_PAGE ||
        h.ring_events == 0 || (h.ring_events & (h.ring_events - 1)) || h.ring_events > (1u << 30) ||
        /* a ring's stride: its header page and slots, rounded up to a page
         * (recorders before 2026-12-05 did not round: both are read) */
        h.ring_bytes < WFT_RINGS_PAGE + (uint64_t)h.ring_events * sizeof(struct wft_event) ||
        h.ring_bytes > 2 * WFT_RINGS_PAGE + (uint64_t)h.ring_events * sizeof(struct wft_event) ||
        h.rings_off > len) {
        t->rings = WFT_RINGS_DAMAGED;
    } else if (h.epoch_ticks != t->hdr.epoch_ticks) {
        t->rings = WFT_RINGS_OTHER;
    } else if (running(t)) {
        t->rings = WFT_RINGS_RUNNING;
    } else {
        t->rings = WFT_RINGS_READ;
        rc = take_journal(t, &h, d, len);
        uint64_t fits = (len - h.rings_off) / h.ring_bytes, n = h.nrings < fits ? h.nrings : fits;
        for (uint64_t k = 0; k < n && !rc; k++)
            rc = take_ring(t, &h, d + h.rings_off + k * h.ring_bytes);
    }
    input_close(&in);
    return rc;
}

/* Here, not in read_wft.c: this file builds on the trace reader's steps
 * (records, then the finish), and the trace reader never calls back. */
int wft_parse_recover(struct wft_trace *t, const char *path, const void *data, size_t len,
                      char *err, size_t errlen)
{
    if (wft_parse_records(t, path, data, len, err, errlen))
        return -1;
    if (!t->closed && (t->hdr.flags & WFT_F_RINGS) && recover_rings(t, path)) {
        snprintf(err, errlen, "%s: %s", path, "out of memory");
        return -1;
    }
    wft_parse_finish(t);
    return 0;
}
