/*
 * follow.c -- following a file while it is written (follow.h says what is
 * done about rotation, truncation, absence and stdin).
 *
 * A regular file is read with pread at our own offset, together with the
 * FOLLOW_TAIL bytes before it (preadv, one call): fewer of those than
 * asked, or other bytes than we handed out, mean the file was truncated
 * (or rewritten), and it is read again from its start.  At the end of the
 * open file, stat(path) says whether the path still names it; a rotation
 * is done once the new file has content, after reading the old file to
 * its end once more.
 *
 * The wait asks the same questions with fstat and stat (changed()): it
 * returns at once when follow_read has something to do, and otherwise on
 * an inotify event or at the next look.  Without inotify, a truncation
 * that leaves the file its size is seen there only by its modification
 * time, if it changed after the wait began; follow_read sees it anyway.
 */
#include "follow.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__) && !defined(FOLLOW_NO_INOTIFY) /* -DFOLLOW_NO_INOTIFY: try the fallback */
#include <sys/inotify.h>
#define FOLLOW_INOTIFY 1
#endif

#define FOLLOW_READ_MAX ((size_t)1 << 30) /* one read's most, far below SSIZE_MAX */
#define FOLLOW_IDLE_MS 1000               /* with inotify: stat anyway this often (NFS, lost events) */

struct follow {
    char *path;       /* NULL: stdin */
    const char *name; /* in messages: the path, or "<stdin>" */
    int fd;           /* -1: none open (the path has named no file yet) */
    int own_fd;       /* opened here (stdin is not) */
    int stream;       /* a pipe, FIFO or terminal: read as it comes, no offsets */
    int eof;          /* the stream ended */
    int opened;       /* a file was opened once */
    dev_t dev;        /* the open file */
    ino_t ino;
    off_t off;                       /* the next byte to read from it */
    unsigned char tail[FOLLOW_TAIL]; /* its bytes at [off - tail_len, off) */
    size_t tail_len;
    struct follow_stats st;
    char *dir;        /* the path's directory */
    const char *base; /* and its last component (in path) */
    int ifd;          /* inotify, and its watches: -1 where there is none */
    int dir_wd, file_wd;
};

static int is_gone(int e)
{
#ifdef ESTALE
    if (e == ESTALE)
        return 1;
#endif
    return e == ENOENT || e == ENOTDIR;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- inotify: the path's directory (creation, rename, deletion, and
 * writes to the file named there) and the open file itself (writes to it
 * after it was renamed away or deleted). */

static void watch_dir(struct follow *f)
{
#ifdef FOLLOW_INOTIFY
    if (f->ifd >= 0 && f->dir && f->dir_wd < 0)
        f->dir_wd = inotify_add_watch(f->ifd, f->dir,
                                      IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_MODIFY |
                                          IN_ATTRIB | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF |
                                          IN_ONLYDIR);
#endif
}

static void watch_file(struct follow *f)
{
#ifdef FOLLOW_INOTIFY
    if (f->ifd < 0)
        return;
    if (f->file_wd >= 0)
        inotify_rm_watch(f->ifd, f->file_wd);
    f->file_wd = -1;
    if (f->fd < 0 || f->stream)
        return;
    char p[64];
    snprintf(p, sizeof p, "/proc/self/fd/%d", f->fd); /* the open file, even renamed or deleted */
    f->file_wd = inotify_add_watch(f->ifd, p, IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF);
#endif
}

/* Read the queued events: 1 when one may concern what we follow. */
static int drain_events(struct follow *f)
{
    int relevant = 0;
#ifdef FOLLOW_INOTIFY
    _Alignas(struct inotify_event) char buf[4096];
    for (;;) {
        ssize_t n = read(f->ifd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* EAGAIN: none left */
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *e = (const struct inotify_event *)p;
            p += sizeof *e + e->len;
            if (e->mask & IN_Q_OVERFLOW) {
                relevant = 1;
            } else if (e->wd == f->file_wd) {
                relevant = 1;
                if (e->mask & IN_IGNORED)
                    f->file_wd = -1;
            } else if (e->wd == f->dir_wd) {
                if (e->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
                    /* the directory went: watch the path's directory anew */
                    relevant = 1;
                    if (!(e->mask & IN_IGNORED))
                        inotify_rm_watch(f->ifd, f->dir_wd);
                    f->dir_wd = -1;
                } else if (e->len && strcmp(e->name, f->base) == 0) {
                    relevant = 1;
                }
            }
        }
    }
#endif
    return relevant;
}

/* ---- the open file */

/* tail := the last FOLLOW_TAIL bytes of tail followed by p[0..n). */
static void tail_add(struct follow *f, const char *p, size_t n)
{
    if (n >= FOLLOW_TAIL) {
        memcpy(f->tail, p + n - FOLLOW_TAIL, FOLLOW_TAIL);
        f->tail_len = FOLLOW_TAIL;
        return;
    }
    size_t keep = f->tail_len + n > FOLLOW_TAIL ? FOLLOW_TAIL - n : f->tail_len;
    memmove(f->tail, f->tail + f->tail_len - keep, keep);
    memcpy(f->tail + keep, p, n);
    f->tail_len = keep + n;
}

/* tail := the bytes before off.  A file shorter than off by now was
 * truncated: it is read from its start.  Either way tail_len is
 * min(off, FOLLOW_TAIL), as read_at keeps it: a file that shrinks below
 * off is always seen. */
static void load_tail(struct follow *f)
{
    size_t k = f->off < FOLLOW_TAIL ? (size_t)f->off : FOLLOW_TAIL;
    ssize_t n;
    do
        n = pread(f->fd, f->tail, k, f->off - (off_t)k);
    while (n < 0 && errno == EINTR);
    if (n < 0 || (size_t)n < k) {
        f->off = 0;
        n = 0;
    }
    f->tail_len = (size_t)n;
}

/* Take fd (described by st) as the file followed, at its end or start. */
static void adopt(struct follow *f, int fd, const struct stat *st, int at_end)
{
    f->fd = fd;
    f->own_fd = 1;
    f->dev = st->st_dev;
    f->ino = st->st_ino;
    f->stream = !S_ISREG(st->st_mode);
    f->eof = 0;
    f->off = 0;
    f->tail_len = 0;
    if (!f->stream && at_end && st->st_size > 0) {
        f->off = st->st_size;
        load_tail(f);
    }
    if (f->opened)
        f->st.reopens++;
    f->opened = 1;
    f->st.missing = 0;
    watch_file(f);
}

/* A call on the path failed (errno): 0 when the path names no file (it
 * may yet: the wait goes on), else -1 with err set. */
static int path_error(struct follow *f, const char *what, char *err, size_t errlen)
{
    if (is_gone(errno)) {
        f->st.missing = 1;
        return 0;
    }
    snprintf(err, errlen, "%s: cannot %s: %s", f->name, what, strerror(errno));
    return -1;
}

/* Open the path into *fd (-1: the path names no file): 0, or -1 with err
 * set. */
static int open_fd(struct follow *f, int *fd, char *err, size_t errlen)
{
    do
        *fd = open(f->path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC); /* a FIFO: no wait for a writer */
    while (*fd < 0 && errno == EINTR);
    return *fd >= 0 ? 0 : path_error(f, "open", err, errlen);
}

/* fstat fd, a file to be followed: 0, or -1 with err set for a directory
 * or a failed fstat (what: the verb its message says; stdin's is "read"). */
static int stat_followable(const struct follow *f, int fd, struct stat *st, const char *what, char *err,
                           size_t errlen)
{
    if (fstat(fd, st) != 0) {
        snprintf(err, errlen, "%s: cannot %s: %s", f->name, what, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st->st_mode)) {
        snprintf(err, errlen, "%s: is a directory", f->name);
        return -1;
    }
    return 0;
}

/* Open the path as the file followed (f->fd stays -1 when it names no
 * file): 0, or -1 with err set. */
static int open_path(struct follow *f, int at_end, char *err, size_t errlen)
{
    int fd;
    if (open_fd(f, &fd, err, errlen) != 0)
        return -1;
    if (fd < 0)
        return 0;
    struct stat st;
    if (stat_followable(f, fd, &st, "stat", err, errlen) != 0) {
        close(fd);
        return -1;
    }
    adopt(f, fd, &st, at_end);
    return 0;
}

/* Read at off, checking the tail_len bytes before it: the count of new
 * bytes (0: none), or -1 (errno).  *rewritten: 1 when the file was
 * truncated or rewritten before off (then nothing is read: 0). */
static ssize_t read_at(struct follow *f, char *buf, size_t cap, int *rewritten)
{
    *rewritten = 0;
    unsigned char chk[FOLLOW_TAIL];
    size_t k = f->tail_len;
    struct iovec iov[2] = {{chk, k}, {buf, cap}};
    ssize_t n;
    do
        n = preadv(f->fd, iov, 2, f->off - (off_t)k);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -1;
    if ((size_t)n < k || memcmp(chk, f->tail, k) != 0) {
        *rewritten = 1;
        return 0;
    }
    n -= (ssize_t)k;
    if (n > 0) {
        tail_add(f, buf, (size_t)n);
        f->off += n;
        f->st.bytes += (unsigned long long)n;
    }
    return n;
}

/* The file was truncated: from its start again, past a hole that a writer
 * without O_APPEND left there (where the file system says where data is). */
static void restart(struct follow *f)
{
    f->st.truncations++;
    f->tail_len = 0;
    f->off = 0;
    off_t data = lseek(f->fd, 0, SEEK_DATA);
    if (data > 0) {
        f->off = data;
        load_tail(f);
    }
}

/* At the end of the open file: *moved is 1 when the path names another
 * regular file with content (time to move to it).  0, or -1 with err set. */
static int path_moved(struct follow *f, int *moved, char *err, size_t errlen)
{
    *moved = 0;
    struct stat st;
    if (stat(f->path, &st) != 0)
        return path_error(f, "stat", err, errlen);
    f->st.missing = 0;
    if (st.st_dev != f->dev || st.st_ino != f->ino)
        *moved = S_ISREG(st.st_mode) && st.st_size > 0;
    return 0;
}

/* Leave the old file for the one the path names now, read from its start
 * (*rotated: 1; 0 when there is none to move to after all).  0, or -1 with
 * err set. */
static int rotate(struct follow *f, int *rotated, char *err, size_t errlen)
{
    *rotated = 0;
    int fd;
    if (open_fd(f, &fd, err, errlen) != 0)
        return -1;
    if (fd < 0)
        return 0;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_dev == f->dev && st.st_ino == f->ino)) {
        close(fd); /* renamed back, or not a file to read: stay */
        return 0;
    }
    if (f->own_fd)
        close(f->fd);
    f->st.rotations++;
    adopt(f, fd, &st, 0);
    *rotated = 1;
    return 0;
}

static ssize_t read_stream(struct follow *f, char *buf, size_t cap, char *err, size_t errlen)
{
    if (f->eof)
        return 0;
    for (;;) {
        /* stdin may be in blocking mode (and is shared: its flags are left
         * alone): read only what poll says is there */
        struct pollfd p = {.fd = f->fd, .events = POLLIN};
        int r = poll(&p, 1, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(err, errlen, "%s: read failed: %s", f->name, strerror(errno));
            return -1;
        }
        if (r == 0)
            return 0;
        if (p.revents & POLLNVAL) {
            snprintf(err, errlen, "%s: read failed: not open", f->name);
            return -1;
        }
        ssize_t n = read(f->fd, buf, cap);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n < 0) {
            snprintf(err, errlen, "%s: read failed: %s", f->name, strerror(errno));
            return -1;
        }
        if (n == 0)
            f->eof = 1;
        f->st.bytes += (unsigned long long)n;
        return n;
    }
}

ssize_t follow_read(struct follow *f, char *buf, size_t cap, char *err, size_t errlen)
{
    if (cap == 0)
        return 0;
    if (cap > FOLLOW_READ_MAX)
        cap = FOLLOW_READ_MAX;
    if (f->ifd >= 0)
        drain_events(f); /* what they announce is read now; the wait waits for later ones */
    ssize_t n;
    int moved = 0; /* path_moved said so: the old file is read once more, then rotate */
    for (;;) {
        if (f->fd < 0) {
            if (open_path(f, 0, err, errlen) != 0) /* appeared after follow_open: from its start */
                return -1;
            if (f->fd < 0)
                return 0; /* not there yet */
        }
        if (f->stream)
            return read_stream(f, buf, cap, err, errlen);
        int rewritten;
        n = read_at(f, buf, cap, &rewritten);
        if (rewritten) {
            restart(f);
            moved = 0; /* asked again at the new end */
            continue;
        }
        if (n != 0)
            break;
        if (!f->path)
            return 0; /* a file on stdin has no name to be rotated under */
        /* path_moved: the path names a new file; rotate: moved to it */
        int next;
        if ((moved ? rotate(f, &next, err, errlen) : path_moved(f, &next, err, errlen)) != 0)
            return -1;
        if (!next)
            return 0;
        /* after path_moved (the path names a new file with content): what
         * the writer wrote to the old one before, it wrote before that
         * content, so the next turn reads the old file once more, and only
         * then rotates.  After rotate: the new file, from its start. */
        moved = !moved;
    }
    if (n < 0)
        snprintf(err, errlen, "%s: read failed: %s", f->name, strerror(errno));
    return n;
}

/* Whether follow_read has something to do: new bytes, a truncation, a file
 * to open or to move to, or a change since st0 (the open file as it was). */
static int changed(struct follow *f, const struct stat *st0)
{
    struct stat st;
    if (f->fd >= 0) {
        if (fstat(f->fd, &st) != 0 || st.st_size != f->off)
            return 1;
        if (st0 && (st.st_mtim.tv_sec != st0->st_mtim.tv_sec || st.st_mtim.tv_nsec != st0->st_mtim.tv_nsec))
            return 1; /* written, though the size is the same: a truncation and more */
    }
    if (!f->path)
        return 0;
    if (stat(f->path, &st) != 0)
        return !is_gone(errno); /* an error: follow_read says which */
    if (f->fd < 0)
        return 1;
    if (st.st_dev == f->dev && st.st_ino == f->ino)
        return 0;
    return S_ISREG(st.st_mode) && st.st_size > 0;
}

int follow_wait(struct follow *f, int timeout_ms)
{
    if (f->stream) {
        if (f->eof)
            return 1;
        struct pollfd p = {.fd = f->fd, .events = POLLIN};
        return poll(&p, 1, timeout_ms < 0 ? -1 : timeout_ms) > 0; /* EINTR: 0 */
    }
    long long deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
    struct stat st0;
    int have0 = f->fd >= 0 && fstat(f->fd, &st0) == 0;
    for (;;) {
        if (changed(f, have0 ? &st0 : NULL))
            return 1;
        watch_dir(f); /* again, where the directory was missing or went */
        int watched = f->ifd >= 0 && (f->dir_wd >= 0 || !f->path) && (f->fd < 0 || f->file_wd >= 0);
        long long slice = watched ? FOLLOW_IDLE_MS : FOLLOW_POLL_MS;
        if (deadline >= 0) {
            long long left = deadline - now_ms();
            if (left <= 0)
                return 0;
            if (left < slice)
                slice = left;
        }
        struct pollfd p = {.fd = f->ifd, .events = POLLIN};
        int r = poll(&p, f->ifd >= 0 ? 1 : 0, (int)slice);
        if (r < 0 && errno == EINTR)
            return 0;
        if (r > 0 && drain_events(f))
            return 1;
        if (r < 0) { /* no inotify after all: stat, and sleep between */
            close(f->ifd);
            f->ifd = f->dir_wd = f->file_wd = -1;
        }
    }
}

struct follow *follow_open(const char *path, int from_start, char *err, size_t errlen)
{
    struct follow *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err, errlen, "%s: out of memory", strcmp(path, "-") == 0 ? "<stdin>" : path);
        return NULL;
    }
    f->fd = f->ifd = f->dir_wd = f->file_wd = -1;
#ifdef FOLLOW_INOTIFY
    f->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC); /* -1 (out of instances): stat instead */
#endif
    if (strcmp(path, "-") == 0) {
        f->name = "<stdin>";
        struct stat st;
        if (stat_followable(f, 0, &st, "read", err, errlen) != 0)
            goto fail;
        f->fd = 0;
        f->opened = 1;
        f->dev = st.st_dev;
        f->ino = st.st_ino;
        f->stream = !S_ISREG(st.st_mode);
        if (!f->stream) {
            off_t at = lseek(0, 0, SEEK_CUR); /* what the shell left us */
            if (at < 0)
                at = 0;
            f->off = from_start && at < st.st_size ? at : st.st_size;
            if (f->off > 0)
                load_tail(f);
            watch_file(f);
        } else if (f->ifd >= 0) {
            close(f->ifd); /* a stream is polled itself */
            f->ifd = -1;
        }
        return f;
    }
    f->path = strdup(path);
    const char *slash = strrchr(path, '/');
    f->dir = !slash ? strdup(".") : slash == path ? strdup("/")
                                                  : strndup(path, (size_t)(slash - path));
    if (!f->path || !f->dir) {
        snprintf(err, errlen, "%s: out of memory", path);
        goto fail;
    }
    f->name = f->path;
    f->base = f->path + (slash ? slash - path + 1 : 0);
    watch_dir(f);
    if (open_path(f, !from_start, err, errlen) != 0)
        goto fail;
    f->opened = 1; /* a file that appears later is a reopen */
    if (f->stream && f->ifd >= 0) {
        close(f->ifd);
        f->ifd = f->dir_wd = f->file_wd = -1;
    }
    return f;
fail:
    follow_close(f);
    return NULL;
}

int follow_eof(const struct follow *f) { return f->eof; }

void follow_stats(const struct follow *f, struct follow_stats *st) { *st = f->st; }

void follow_close(struct follow *f)
{
    if (!f)
        return;
    if (f->fd >= 0 && f->own_fd)
        close(f->fd);
    if (f->ifd >= 0)
        close(f->ifd);
    free(f->path);
    free(f->dir);
    free(f);
}
