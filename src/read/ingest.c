/*
 * ingest.c -- choosing a reader by the input's first bytes.
 *
 * A native trace starts with its magic; anything else is read as text.
 * A native trace's events are converted to the same evpart the text
 * reader fills, in time order, numbered from 1 (its "lines").
 */
#include "ingest.h"

#include "scan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int from_native(struct source *src, const struct input *in, char *err, size_t errlen)
{
    struct wft_trace t;
    if (wft_parse_recover(&t, src->name, in->data, in->len, err, errlen)) {
        wft_free(&t);
        return -1;
    }
    wft_sort(&t);
    struct evpart *p = &src->native_part;
    p->set.native = 1;
    for (size_t i = 0; i < t.nev; i++) {
        const struct wft_ev *e = &t.ev[i];
        const struct wft_unit_info *u = wft_unit_find(&t, e->unit);
        char buf[32];
        const char *job = buf;
        size_t len;
        int32_t part = -1;
        if (u) {
            job = u->job;
            len = strlen(u->job);
            part = u->partition;
        } else {
            len = (size_t)snprintf(buf, sizeof buf, "unit-%llu", (unsigned long long)e->unit);
        }
        if (len == 0) {
            job = "(empty)";
            len = 7;
        }
        int rc;
        if (e->event < EV_N) {
            rc = evpart_add(p, e->ns, job, len, part, (int)e->event, e->worker, e->device, i);
        } else { /* a user event: a phase's start or end, or a mark */
            char lb[24];
            const char *name = wft_event_label(&t, e->event, lb);
            rc = evpart_extra(p, XR_EVENT, e->ns, job, len, part, name, strlen(name), NULL, 0, i);
        }
        if (rc) {
            wft_free(&t);
            snprintf(err, errlen, "%s: out of memory", src->name);
            return -1;
        }
    }
    evpart_compact(p);
    int64_t m_out;
    evpart_link(p, 0, 0, &m_out);
    p->diag.bytes = in->len;
    wft_cpu_use(&t, &src->cpu);
    wft_mem_use(&t, &src->mem);
    if (wft_gpu_obs(&t, &src->gpu)) {
        wft_free(&t);
        snprintf(err, errlen, "%s: out of memory", src->name);
        return -1;
    }
    src->cpus = t.hdr.version_minor >= 1 && t.hdr.cpus <= 1u << 20 ? t.hdr.cpus : 0;
    src->lost_events = t.lost;
    src->damaged_bytes = t.corrupt_bytes + (t.bad_records ? 1 : 0);
    src->torn = t.torn_at != 0;
    src->unclosed = !t.closed;
    src->rings = t.rings;
    src->rings_events = t.rings_events;
    src->native = 1;
    src->parts = p;
    src->nparts = 1;
    src->bytes = in->len;
    wft_free(&t);
    return 0;
}

int ingest(struct source *src, const char *path, int show_progress, char *err, size_t errlen)
{
    memset(src, 0, sizeof *src);
    int is_stdin = strcmp(path, "-") == 0;
    src->name = is_stdin ? "<stdin>" : path;
    int fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: %s", src->name, S_ISDIR(st.st_mode) ? "is a directory" : strerror(errno));
        if (!is_stdin)
            close(fd);
        return -1;
    }
    /* Sniff: the first 8 bytes. */
    unsigned char head[8];
    size_t hn = 0;
    int rc = 0;
    if (S_ISREG(st.st_mode)) {
        ssize_t r = pread(fd, head, sizeof head, 0);
        hn = r > 0 ? (size_t)r : 0;
    } else {
        while (hn < sizeof head) {
            ssize_t r = read(fd, head + hn, sizeof head - hn);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            hn += (size_t)r;
        }
    }
    if (wft_sniff(head, hn)) {
        /* A native trace is read whole (mapped when it is a file). */
        struct input in;
        if (S_ISREG(st.st_mode)) {
            rc = input_open(&in, path, err, errlen);
        } else {
            /* stdin: the 8 bytes already read, then the rest */
            memset(&in, 0, sizeof in);
            in.name = src->name;
            rc = input_read_fd(&in, fd, head, hn, err, errlen);
        }
        if (rc == 0) {
            rc = from_native(src, &in, err, errlen);
            input_close(&in);
        }
    } else {
        if (st.st_size == 0 && S_ISREG(st.st_mode)) {
            snprintf(err, errlen, "%s: empty file", src->name);
            rc = -1;
        } else {
            rc = read_text(&src->text, fd, src->name, head, S_ISREG(st.st_mode) ? 0 : hn,
                           show_progress, err, errlen);
            src->parts = src->text.parts;
            src->nparts = src->text.nparts;
            src->bytes = src->text.bytes;
        }
    }
    if (!is_stdin)
        close(fd);
    return rc;
}

void source_drop_events(struct source *src)
{
    for (int i = 0; i < src->nparts; i++)
        evpart_drop_events(&src->parts[i]);
}

void source_free(struct source *src)
{
    free(src->gpu.pts);
    free(src->cpu.spans);
    if (src->native)
        evpart_free(&src->native_part);
    else
        text_input_free(&src->text);
    memset(src, 0, sizeof *src);
}
