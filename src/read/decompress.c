/*
 * decompress.c -- gzip (zlib) and zstd streams into a pipe, on a thread.
 *
 * The thread reads the compressed input in 64 KiB steps, decompresses
 * each step and writes the text into a pipe; the text reader reads the
 * other end as a pipe (one thread).  Several gzip members or zstd frames
 * one after the other (`cat a.gz b.gz`) are read as one text, as gzip -d
 * does.  When the reader stops early it closes its end, and the thread's
 * next write fails (EPIPE, with SIGPIPE blocked on the thread): it stops.
 */
#include "decompress.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define DZ_STEP (64u << 10)

struct dz {
    pthread_t th;
    int kind;
    int in, out; /* the compressed input; the pipe's write end */
    int is_reg;
    const char *name;
    unsigned char prefix[DZ_PREFIX_MAX]; /* bytes already read from a pipe (sniffing) */
    size_t prefix_len;
    char err[256]; /* what went wrong, or "" */
};

int dz_sniff(const unsigned char *h, size_t n)
{
    if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
        return DZ_GZIP;
    if (n >= 4 && h[0] == 0x28 && h[1] == 0xb5 && h[2] == 0x2f && h[3] == 0xfd)
        return DZ_ZSTD;
    return DZ_NONE;
}

const char *dz_name(int kind)
{
    if (kind == DZ_GZIP)
        return "gzip";
    return kind == DZ_ZSTD ? "zstd" : "uncompressed";
}

/* The next compressed bytes into buf: the prefix first.  >= 0, or -1. */
static ssize_t dz_read(struct dz *z, unsigned char *buf, size_t cap)
{
    if (z->prefix_len) {
        size_t n = z->prefix_len < cap ? z->prefix_len : cap;
        memcpy(buf, z->prefix, n);
        memmove(z->prefix, z->prefix + n, z->prefix_len - n);
        z->prefix_len -= n;
        return (ssize_t)n;
    }
    for (;;) {
        ssize_t r = read(z->in, buf, cap);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            snprintf(z->err, sizeof z->err, "%s: read failed: %s", z->name, strerror(errno));
        return r;
    }
}

/* All of [p, p+n) into the pipe: 0, or -1 when the reader has gone (not
 * an error of the input: the reader says why it stopped). */
static int dz_write(struct dz *z, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t w = write(z->out, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void gzip_run(struct dz *z, unsigned char *in, unsigned char *out)
{
    z_stream s;
    memset(&s, 0, sizeof s);
    if (inflateInit2(&s, 15 + 16) != Z_OK) {
        snprintf(z->err, sizeof z->err, "%s: out of memory for gzip", z->name);
        return;
    }
    int in_member = 1; /* inside a member: the input must not end here */
    for (;;) {
        if (s.avail_in == 0) {
            ssize_t r = dz_read(z, in, DZ_STEP);
            if (r < 0)
                break;
            if (r == 0) {
                if (in_member)
                    snprintf(z->err, sizeof z->err, "%s: the gzip data ends early (truncated)", z->name);
                break;
            }
            s.next_in = in;
            s.avail_in = (uInt)r;
        }
        if (!in_member) {
            /* another member follows (rotated logs concatenated); anything
             * else after a whole member is ignored, as gzip -d does */
            if (s.next_in[0] != 0x1f) {
                break;
            }
            inflateReset(&s);
            in_member = 1;
        }
        s.next_out = out;
        s.avail_out = DZ_STEP;
        int rc = inflate(&s, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
            const char *why = s.msg ? s.msg : "bad data";
            if (rc == Z_MEM_ERROR)
                why = "out of memory";
            snprintf(z->err, sizeof z->err, "%s: damaged gzip data (%s) after %lu bytes of text", z->name, why,
                     (unsigned long)s.total_out);
            break;
        }
        if (dz_write(z, out, DZ_STEP - s.avail_out))
            break;
        if (rc == Z_STREAM_END)
            in_member = 0;
    }
    inflateEnd(&s);
}

static void zstd_run(struct dz *z, unsigned char *in, unsigned char *out)
{
    ZSTD_DStream *d = ZSTD_createDStream();
    if (!d) {
        snprintf(z->err, sizeof z->err, "%s: out of memory for zstd", z->name);
        return;
    }
    ZSTD_initDStream(d);
    ZSTD_inBuffer ib = {in, 0, 0};
    size_t left = 0; /* 0: between frames */
    unsigned long long total = 0;
    for (;;) {
        if (ib.pos == ib.size) {
            ssize_t r = dz_read(z, in, DZ_STEP);
            if (r < 0)
                break;
            if (r == 0) {
                if (left)
                    snprintf(z->err, sizeof z->err, "%s: the zstd data ends early (truncated)", z->name);
                break;
            }
            ib.size = (size_t)r;
            ib.pos = 0;
        }
        ZSTD_outBuffer ob = {out, DZ_STEP, 0};
        left = ZSTD_decompressStream(d, &ob, &ib);
        if (ZSTD_isError(left)) {
            snprintf(z->err, sizeof z->err, "%s: damaged zstd data (%s) after %llu bytes of text", z->name,
                     ZSTD_getErrorName(left), total);
            break;
        }
        total += ob.pos;
        if (dz_write(z, out, ob.pos))
            break;
    }
    ZSTD_freeDStream(d);
}

static void *dz_thread(void *arg)
{
    struct dz *z = arg;
    sigset_t pipe_sig;
    sigemptyset(&pipe_sig);
    sigaddset(&pipe_sig, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_sig, NULL); /* a reader that stopped early: EPIPE, not death */
    unsigned char *in = malloc(DZ_STEP), *out = malloc(DZ_STEP);
    if (!in || !out)
        snprintf(z->err, sizeof z->err, "%s: out of memory", z->name);
    else if (z->kind == DZ_GZIP)
        gzip_run(z, in, out);
    else
        zstd_run(z, in, out);
    free(in);
    free(out);
    close(z->out); /* the reader sees the text's end */
    return NULL;
}

int dz_start(struct dz **zp, int kind, int fd, int is_reg, const void *prefix, size_t prefix_len,
             const char *name, int *out, char *err, size_t errlen)
{
    *zp = NULL;
    struct dz *z = calloc(1, sizeof *z);
    int p[2];
    if (!z || prefix_len > sizeof z->prefix) {
        snprintf(err, errlen, z ? "%s: %zu bytes read ahead from a pipe, more than the decompressor takes back"
                                : "%s: out of memory", name, prefix_len);
        free(z);
        return -1;
    }
    if (pipe(p) < 0) {
        snprintf(err, errlen, "%s: cannot make a pipe to decompress it: %s", name, strerror(errno));
        free(z);
        return -1;
    }
    z->kind = kind;
    z->in = fd;
    z->out = p[1];
    z->is_reg = is_reg;
    z->name = name;
    if (is_reg) {
        lseek(fd, 0, SEEK_SET); /* sniffing used pread: this is the start anyway */
    } else {
        memcpy(z->prefix, prefix, prefix_len);
        z->prefix_len = prefix_len;
    }
    if (pthread_create(&z->th, NULL, dz_thread, z) != 0) {
        snprintf(err, errlen, "%s: cannot start a thread to decompress it", name);
        close(p[0]);
        close(p[1]);
        free(z);
        return -1;
    }
    *out = p[0];
    *zp = z;
    return 0;
}

int dz_finish(struct dz *z, char *err, size_t errlen)
{
    if (!z)
        return 0;
    pthread_join(z->th, NULL);
    int rc = 0;
    if (z->err[0]) {
        snprintf(err, errlen, "%s", z->err);
        rc = -1;
    }
    free(z);
    return rc;
}
