/*
 * follow_wft.c -- a native trace followed as it grows (follow_wft.h).
 */
#include "follow_wft.h"

#include "input.h"
#include "read_wft.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int follow_wft_claims(const char *path)
{
    size_t n = strlen(path);
    return strcmp(path, "-") != 0 && (wft_follow_sniff(path) || (n > 4 && strcmp(path + n - 4, ".wft") == 0));
}

int wft_follow_sniff(const char *path)
{
    unsigned char head[64];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, head, sizeof head);
    close(fd);
    return n > 0 && wft_sniff(head, (size_t)n);
}

/* One event of the trace as the record a log line would give. */
static void as_record(const struct wft_trace *t, const struct wft_ev *e, struct scan_rec *r, char *lb)
{
    memset(r, 0, sizeof *r);
    const struct wft_unit_info *u = wft_unit_find(t, e->unit);
    if (u && u->job[0]) {
        r->job = u->job;
        r->job_len = strlen(u->job);
        r->partition = u->partition;
    } else {
        /* as the batch reader names a unit it has no record of */
        snprintf(lb + 24, 40, u ? "(empty)" : "unit-%llu", (unsigned long long)e->unit);
        r->job = lb + 24;
        r->job_len = strlen(r->job);
        r->partition = u ? u->partition : -1;
    }
    r->t_ns = e->ns;
    r->worker = e->worker;
    r->device = e->device;
    /* the unit's details, as a text line's detail carries kind= */
    for (size_t at = 0; u && at < u->details_len && r->nkv < SCAN_KV_MAX;) {
        const char *kv = u->details + at, *end = memchr(kv, ',', u->details_len - at);
        size_t n = end ? (size_t)(end - kv) : u->details_len - at;
        const char *eq = memchr(kv, '=', n);
        if (eq && n < 65536)
            r->kv[r->nkv++] = (struct scan_kv){kv, eq + 1, (uint16_t)(eq - kv), (uint16_t)(n - (size_t)(eq - kv) - 1)};
        at += n + 1;
    }
    if (e->event < EV_N) {
        r->ev = (int)e->event;
    } else {
        r->ev = EV_OTHER;
        r->name = wft_event_label(t, e->event, lb);
        r->name_len = strlen(r->name);
    }
}

int wft_follow_step(struct wft_follow *w, struct live *l, int *fed, char *err, size_t errlen)
{
    *fed = 0;
    struct stat st;
    if (stat(w->path, &st) != 0 || (uint64_t)st.st_size == w->size)
        return 0; /* not there (yet), or nothing new */
    struct input in;
    if (input_open(&in, w->path, err, errlen))
        return -1;
    if (in.len < sizeof(struct wft_header)) {
        input_close(&in); /* the recorder is writing its header: come back */
        return 0;
    }
    w->size = in.len;
    struct wft_trace t;
    if (wft_parse(&t, w->path, in.data, in.len, err, errlen)) {
        wft_free(&t);
        input_close(&in);
        return -1;
    }
    wft_sort(&t);
    int rc = 0;
    if (t.nthreads > w->nfed) {
        uint64_t *n = realloc(w->fed, t.nthreads * sizeof *n);
        if (!n) {
            rc = -1;
            snprintf(err, errlen, "%s: out of memory", w->path);
            goto out;
        }
        memset(n + w->nfed, 0, (t.nthreads - w->nfed) * sizeof *n);
        w->fed = n;
        w->nfed = t.nthreads;
    }
    if (w->rate != 0 && t.ticks_per_ns != w->rate)
        w->refined = 1;
    /* a thread's first fed[th] events were fed before: skip them */
    uint64_t *seen = calloc(t.nthreads ? t.nthreads : 1, sizeof *seen);
    if (!seen) {
        rc = -1;
        snprintf(err, errlen, "%s: out of memory", w->path);
        goto out;
    }
    for (size_t i = 0; i < t.nev; i++) {
        const struct wft_ev *e = &t.ev[i];
        if (seen[e->thread]++ < w->fed[e->thread])
            continue;
        struct scan_rec r;
        char lb[64];
        as_record(&t, e, &r, lb);
        if (live_record(l, &r)) {
            rc = -1;
            snprintf(err, errlen, "%s: out of memory", w->path);
            break;
        }
        w->fed[e->thread]++;
        w->rate = t.ticks_per_ns;
        *fed = 1;
    }
    free(seen);
    /* the latest resident memory, for /metrics (sorted by time) */
    for (size_t i = t.nmem; i-- > 0;)
        if (t.mem[i].flags & WFT_MEM_RSS) {
            l->rss_known = 1;
            l->rss_bytes = t.mem[i].rss_bytes;
            break;
        }
    w->lost = t.lost;
    w->damaged = t.corrupt_bytes;
    w->closed = t.closed;
out:
    wft_free(&t);
    input_close(&in);
    return rc;
}

void wft_follow_free(struct wft_follow *w)
{
    free(w->fed);
    memset(w, 0, sizeof *w);
}
