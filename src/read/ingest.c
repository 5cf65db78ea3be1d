/*
 * ingest.c -- choosing a reader by the input's first bytes.
 *
 * A native trace starts with its magic; anything else is read as text.
 * Either way the input's events go into the model (build.h): a native
 * trace's through the builder, a text log's parts stitched into runs.
 */
#include "ingest.h"

#include "build.h"
#include "decompress.h"
#include "read_kineto.h"
#include "scan.h"
#include "stitch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How many of an input's first bytes the readers are chosen by (a
 * compressed pipe's are handed back to its decompressor). */
#define SNIFF_BYTES 512
_Static_assert(SNIFF_BYTES <= DZ_PREFIX_MAX, "the decompressor takes back what was sniffed");

/* What a native trace is, as the reports name it. */
static const struct provenance prov_native = {"native", "event", NULL};
static const struct provenance prov_text = {"text", "line", "text log"};

/* A native trace's events, in time order, numbered from 1 (its
 * "lines"), through the model's builder: it is one run. */
static int from_native(struct source *src, struct model *m, const struct input *in, char *err, size_t errlen)
{
    struct wft_trace t;
    if (wft_parse_recover(&t, src->name, in->data, in->len, err, errlen)) {
        wft_free(&t);
        return -1;
    }
    wft_sort(&t);
    src->native = 1;
    src->bytes = in->len;
    src->lost_events = t.lost;
    src->damaged_bytes = t.corrupt_bytes + (t.bad_records ? 1 : 0);
    src->trace.torn = t.torn_at != 0;
    src->trace.unclosed = !t.closed;
    src->trace.rings = t.rings;
    src->trace.rings_events = t.rings_events;
    struct mbuild b;
    mb_init(&b, m, src->name, &prov_native);
    int rc = 0;
    for (size_t i = 0; i < t.nev && !rc; i++) {
        const struct wft_ev *e = &t.ev[i];
        const struct wft_unit_info *u = wft_unit_find(&t, e->unit);
        char buf[32];
        const char *job = buf;
        size_t len;
        int32_t part = -1;
        const char *details = NULL;
        size_t details_len = 0;
        if (u) {
            job = u->job;
            len = strlen(u->job);
            part = u->partition;
            details = u->details;
            details_len = u->details_len;
        } else {
            len = (size_t)snprintf(buf, sizeof buf, "unit-%llu", (unsigned long long)e->unit);
        }
        if (len == 0) {
            job = "(empty)";
            len = 7;
        }
        if (e->event < EV_N) {
            rc = mb_event(&b, e->ns, job, len, part, (int)e->event, e->worker, e->device, i + 1, 0);
        } else { /* a user event: a phase's start or end, or a mark */
            char lb[24];
            const char *name = wft_event_label(&t, e->event, lb);
            rc = mb_other(&b, e->ns, job, len, part, name, strlen(name), i + 1);
        }
        /* the unit's details, with each of its events, as a text line
         * carries kind= (what `waterfall dump` prints) */
        for (size_t at = 0; !rc && at < details_len;) {
            const char *kv = details + at, *end = memchr(kv, ',', details_len - at);
            size_t n = end ? (size_t)(end - kv) : details_len - at;
            const char *eq = memchr(kv, '=', n);
            if (eq)
                rc = mb_detail(&b, job, len, part, kv, (size_t)(eq - kv), eq + 1, n - (size_t)(eq - kv) - 1, i + 1);
            at += n + 1;
        }
    }
    m->bytes += in->len;
    if (!rc && mb_holds(&b)) { /* what the recording sampled beside its events */
        struct run *r = mb_run(&b);
        wft_cpu_use(&t, &src->trace.cpu);
        wft_mem_use(&t, &r->mem);
        r->cpu = src->trace.cpu; /* the source owns the spans; the run borrows them */
        r->cpus = t.hdr.version_minor >= 1 && t.hdr.cpus <= 1u << 20 ? t.hdr.cpus : 0;
        r->lost_events = src->lost_events;
        r->damaged_bytes = src->damaged_bytes;
        rc = wft_gpu_obs(&t, &r->gpu);
    }
    if (mb_finish(&b))
        rc = -1;
    wft_free(&t);
    if (rc) {
        src->oom = 1;
        snprintf(err, errlen, "%s: out of memory", src->name);
    }
    return rc;
}

/* A text log's parts into the model's runs. */
static int text_to_model(struct source *src, struct model *m, char *err, size_t errlen)
{
    src->parts = src->text.parts;
    src->nparts = src->text.nparts;
    src->bytes = src->text.bytes;
    if (stitch_add(m, src->name, &prov_text, src->parts, src->nparts, 0)) {
        src->oom = 1;
        snprintf(err, errlen, "%s: out of memory building the model", src->name);
        return -1;
    }
    source_drop_events(src);
    return 0;
}

/* The first bytes of a stream (up to n; fewer at its end). */
static size_t read_head(int fd, unsigned char *head, size_t n)
{
    size_t hn = 0;
    while (hn < n) {
        ssize_t r = read(fd, head + hn, n - hn);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        hn += (size_t)r;
    }
    return hn;
}

/* A stream to read: a regular file (read from its start: its first
 * bytes were sniffed with pread) or a pipe whose first hn bytes (head)
 * were read already; again: how to read it again (a compressed file), or
 * NULL. */
struct stream {
    int fd, is_reg;
    off_t size; /* a regular file's */
    const unsigned char *head;
    size_t hn;
    const struct text_again *again;
    int progress;
};

/* A native trace is read whole: mapped when it is a file. */
static int read_native(struct source *src, struct model *m, const struct stream *s, char *err, size_t errlen)
{
    struct input in;
    int rc = s->is_reg ? input_map_fd(&in, s->fd, src->name, err, errlen)
                       : (memset(&in, 0, sizeof in), in.name = src->name,
                          input_read_fd(&in, s->fd, s->head, s->hn, err, errlen));
    if (rc == 0) {
        rc = from_native(src, m, &in, err, errlen);
        input_close(&in);
    }
    return rc;
}

/* A text log is read in parallel ranges where it is a file. */
static int read_log(struct source *src, struct model *m, const struct stream *s, char *err, size_t errlen)
{
    if (s->is_reg && s->size == 0) {
        snprintf(err, errlen, "%s: empty file", src->name);
        return -1;
    }
    int rc = read_text(&src->text, s->fd, src->name, s->head, s->is_reg ? 0 : s->hn, s->again, s->progress, err,
                       errlen);
    return rc ? rc : text_to_model(src, m, err, errlen);
}

/* A PyTorch (Kineto) trace is streamed: a file from its start, a pipe
 * after the head it was sniffed by. */
static int read_kineto_stream(struct source *src, struct model *m, const struct stream *s, char *err, size_t errlen)
{
    uint64_t bytes = 0;
    src->kineto = 1;
    int rc = kineto_read(m, s->fd, src->name, s->head, s->is_reg ? 0 : s->hn, &bytes, &src->kin, &src->kin_skipped,
                         err, errlen);
    src->bytes = bytes;
    m->bytes += bytes;
    return rc;
}

static int sniff_native(const unsigned char *head, size_t n)
{
    return wft_sniff(head, n);
}

static int sniff_any(const unsigned char *head, size_t n)
{
    return 1;
}

/* The readers, by what an input's first bytes say: a new format is a
 * reader's file and a row here.  Text is last: whatever no other reader
 * claims is read as a log. */
static const struct reader {
    const char *name;
    int (*sniff)(const unsigned char *head, size_t n);
    int (*read)(struct source *src, struct model *m, const struct stream *s, char *err, size_t errlen);
} readers[] = {
    {"native trace", sniff_native, read_native},
    {"PyTorch trace", kineto_sniff, read_kineto_stream},
    {"text log", sniff_any, read_log},
};

static int read_stream(struct source *src, struct model *m, const struct stream *s, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof readers / sizeof *readers; i++) {
        if (readers[i].sniff(s->head, s->hn)) {
            src->reader = readers[i].name;
            return readers[i].read(src, m, s, err, errlen);
        }
    }
    return -1; /* not reached: text claims everything */
}

/* A compressed file's decompression, current and again (text_again:
 * a log that mixes two clocks is read three times). */
struct dz_run {
    struct dz *z;
    int pfd; /* its text; -1: none */
    int kind, fd;
    const char *name;
};

/* The decompression so far ends (its errors say so: damaged data is
 * damaged on every reading), and one from the file's start begins. */
static int dz_again(void *ctx, int *out, char *err, size_t errlen)
{
    struct dz_run *d = ctx;
    close(d->pfd);
    d->pfd = -1;
    int rc = dz_finish(d->z, err, errlen);
    d->z = NULL;
    if (rc || dz_start(&d->z, d->kind, d->fd, 1, NULL, 0, d->name, &d->pfd, err, errlen))
        return -1;
    *out = d->pfd;
    return 0;
}

/* A compressed input: its text (or trace) through a pipe from the
 * decompressing thread.  A damaged or cut stream is an error naming the
 * input, even when the text before the damage was read. */
static int ingest_compressed(struct source *src, struct model *m, int kind, int fd, int is_reg, const unsigned char *head,
                             size_t hn, int show_progress, char *err, size_t errlen)
{
    struct dz_run d = {NULL, -1, kind, fd, src->name};
    src->compressed = kind;
    if (dz_start(&d.z, kind, fd, is_reg, head, is_reg ? 0 : hn, src->name, &d.pfd, err, errlen))
        return -1;
    unsigned char h2[SNIFF_BYTES];
    size_t n2 = read_head(d.pfd, h2, sizeof h2);
    struct text_again again = {dz_again, &d};
    struct stream st = {d.pfd, 0, 0, h2, n2, is_reg ? &again : NULL, show_progress};
    int rc = read_stream(src, m, &st, err, errlen);
    if (d.pfd >= 0)
        close(d.pfd);
    char zerr[256];
    if (d.z && dz_finish(d.z, zerr, sizeof zerr)) {
        snprintf(err, errlen, "%s", zerr);
        rc = -1;
    }
    return rc;
}

int ingest(struct source *src, const char *path, struct model *m, int show_progress, char *err, size_t errlen)
{
    int is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        memset(src, 0, sizeof *src);
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    int rc = ingest_fd(src, fd, is_stdin ? "<stdin>" : path, m, show_progress, err, errlen);
    src->path = is_stdin ? NULL : path;
    if (!is_stdin)
        close(fd);
    return rc;
}

int ingest_fd(struct source *src, int fd, const char *name, struct model *m, int show_progress, char *err,
              size_t errlen)
{
    memset(src, 0, sizeof *src);
    src->name = name;
    struct stat st;
    if (fstat(fd, &st) < 0) {
        snprintf(err, errlen, "%s: %s", src->name, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory", src->name);
        return -1;
    }
    /* Sniff: the first bytes (a JSON trace's first key may follow a few
     * blanks; a pipe's are handed on to the reader). */
    unsigned char head[SNIFF_BYTES];
    size_t hn = 0;
    if (S_ISREG(st.st_mode)) {
        ssize_t r = pread(fd, head, sizeof head, 0);
        hn = r > 0 ? (size_t)r : 0;
    } else {
        hn = read_head(fd, head, sizeof head);
    }
    /* A compressed file is decompressed on a thread, and its text (or
     * trace) read from the pipe. */
    int kind = dz_sniff(head, hn);
    if (kind != DZ_NONE)
        return ingest_compressed(src, m, kind, fd, S_ISREG(st.st_mode), head, hn, show_progress, err, errlen);
    struct stream in = {fd, S_ISREG(st.st_mode), st.st_size, head, hn, NULL, show_progress};
    return read_stream(src, m, &in, err, errlen);
}

void source_drop_events(struct source *src)
{
    for (int i = 0; i < src->nparts; i++)
        evpart_drop_events(&src->parts[i]);
}

void source_free(struct source *src)
{
    free(src->trace.cpu.spans);
    text_input_free(&src->text);
    memset(src, 0, sizeof *src);
}
