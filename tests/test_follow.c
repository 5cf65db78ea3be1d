/*
 * test_follow.c -- the follower (src/live/follow.c) against a writer in
 * this same process, step by step: every case writes numbered lines the
 * way a daemon does (a file opened with O_APPEND, kept open across a
 * rename), reads between the steps, and checks that what was read, put
 * together, is exactly what was written: in order, once each.  Nothing
 * waits on time; follow_wait is checked only where its answer does not
 * depend on it.
 */
#include "check.h"

#include "follow.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[512];

struct text {
    char *p;
    size_t n, cap;
};

static struct text want, got; /* written and read, in each case */
static int line_no;

static void text_add(struct text *t, const char *s, size_t n)
{
    if (t->n + n > t->cap) {
        t->cap = (t->n + n) * 2 + 64;
        t->p = realloc(t->p, t->cap);
        if (!t->p) {
            perror("realloc");
            exit(2);
        }
    }
    memcpy(t->p + t->n, s, n);
    t->n += n;
}

static const char *at(const char *name)
{
    static char buf[4][700];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

/* ---- the writer */

static int w_open(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) {
        perror(path);
        exit(2);
    }
    return fd;
}

static void w_raw(int fd, const char *s, size_t n)
{
    text_add(&want, s, n);
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            perror("write");
            exit(2);
        }
        s += w;
        n -= (size_t)w;
    }
}

static void w_str(int fd, const char *s) { w_raw(fd, s, strlen(s)); }

/* n numbered lines of varying length */
static void w_lines(int fd, int n)
{
    for (int i = 0; i < n; i++) {
        char line[256];
        int no = ++line_no;
        int len = snprintf(line, sizeof line, "line %06d ", no);
        for (int k = 0; k < no * 7 % 61; k++)
            line[len++] = (char)('a' + (no + k) % 26);
        line[len++] = '\n';
        w_raw(fd, line, (size_t)len);
    }
}

/* ---- the reader */

/* follow_read until it has nothing new, cap bytes at a time (0: varying
 * caps): the bytes read, or -1 on an error. */
static long drain(struct follow *f, size_t cap)
{
    static char buf[8192];
    static unsigned next;
    char err[512];
    long total = 0;
    for (int guard = 0; guard < 10000000; guard++) {
        size_t c = cap ? cap : 1 + (next++ * 37) % 700;
        ssize_t n = follow_read(f, buf, c, err, sizeof err);
        if (n < 0) {
            fprintf(stderr, "follow_read: %s\n", err);
            CHECK(n >= 0);
            return -1;
        }
        CHECK((size_t)n <= c);
        if (n == 0)
            return total;
        text_add(&got, buf, (size_t)n);
        total += n;
    }
    CHECK(!"follow_read never ran out");
    return total;
}

/* what was read is what was written, so far */
static int same(const char *what)
{
    if (got.n == want.n && (want.n == 0 || memcmp(got.p, want.p, want.n) == 0))
        return 1;
    size_t i = 0;
    while (i < got.n && i < want.n && got.p[i] == want.p[i])
        i++;
    fprintf(stderr, "%s: read %zu bytes, written %zu; they differ from byte %zu:\n"
                    "  read    \"%.40s\"\n  written \"%.40s\"\n",
            what, got.n, want.n, i, i < got.n ? got.p + i : "", i < want.n ? want.p + i : "");
    return 0;
}

static void start(void)
{
    want.n = got.n = 0;
}

static struct follow *open_f(const char *path, int from_start)
{
    char err[512];
    struct follow *f = follow_open(path, from_start, err, sizeof err);
    if (!f) {
        fprintf(stderr, "follow_open: %s\n", err);
        exit(2);
    }
    return f;
}

static struct follow_stats stats(const struct follow *f)
{
    struct follow_stats st;
    follow_stats(f, &st);
    return st;
}

/* follow_read all there is, cap bytes at a time; what was read is what was
 * written, so far (what: the step, for the message) */
static void read_same(struct follow *f, size_t cap, const char *what)
{
    drain(f, cap);
    CHECK(same(what));
}

/* logrotate's default rotation: the file at name renamed to name.1 */
static void rename_away(const char *name)
{
    char old[128];
    snprintf(old, sizeof old, "%s.1", name);
    CHECK(rename(at(name), at(old)) == 0);
}

/* The writer, its file renamed away or deleted, reopens its log the way a
 * daemon does when told to: a new file at name, n lines into it. */
static int w_anew(int fd, const char *name, int n)
{
    close(fd);
    fd = w_open(at(name));
    w_lines(fd, n);
    return fd;
}

static void end(struct follow *f, int fd)
{
    follow_close(f);
    close(fd);
}

/* A case on one file, which the writer (fd) made at name; it returns the
 * writer's fd at its end, another one where the writer moved to a new file. */
typedef int file_case(struct follow *f, int fd, const char *name);

/* Run a case on the file made at name with n lines and followed
 * (from_start as follow_open's), then close both ends. */
static void on_file(file_case *run, const char *name, int n, int from_start)
{
    start();
    int fd = w_open(at(name));
    w_lines(fd, n);
    struct follow *f = open_f(at(name), from_start);
    end(f, run(f, fd, name));
}

/* ---- the cases */

static int growth(struct follow *f, int fd, const char *name)
{
    (void)name;
    CHECK(drain(f, 4096) > 0);
    CHECK(same("growth: catching up"));
    CHECK_EQ_U(drain(f, 4096), 0);
    CHECK(follow_wait(f, 0) == 0); /* nothing new: the wait's answer does not depend on time here */
    w_lines(fd, 5);
    CHECK(follow_wait(f, 10000) == 1); /* something new: at once */
    read_same(f, 4096, "growth: 5 more");
    static const size_t caps[] = {1, 2, 7, 100, 4096, 0};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        w_lines(fd, 300);
        read_same(f, caps[i], "growth: 300 more");
    }
    int r = follow_wait(f, 20); /* returns: how soon is not checked */
    CHECK(r == 0 || r == 1);
    struct follow_stats st = stats(f);
    CHECK_EQ_U(st.bytes, want.n);
    CHECK_EQ_U(st.rotations + st.truncations + st.reopens + st.missing, 0);
    CHECK(!follow_eof(f));
    return fd;
}

/* followed from its end */
static int from_end(struct follow *f, int fd, const char *name)
{
    (void)name;
    start(); /* what was there before is not read */
    CHECK_EQ_U(drain(f, 4096), 0);
    w_lines(fd, 4);
    read_same(f, 4096, "from the end");
    return fd;
}

static int partial(struct follow *f, int fd, const char *name)
{
    (void)name;
    w_str(fd, "line 999999 half a li");
    read_same(f, 4096, "partial: the first half");
    w_str(fd, "ne, and the rest\n");
    w_lines(fd, 2);
    read_same(f, 5, "partial: completed");
    return fd;
}

/* logrotate's default: rename, the daemon writes on into the old file
 * until it reopens its log; the new file appears empty, then grows. */
static int rename_rotation(struct follow *f, int fd, const char *name)
{
    drain(f, 64);
    w_lines(fd, 3); /* unread when it is renamed */
    rename_away(name);
    w_lines(fd, 3); /* into the old file, after the rename */
    read_same(f, 64, "rename: the old file after the rename");
    CHECK(stats(f).missing == 1);
    w_lines(fd, 2);
    int nfd = w_open(at(name)); /* logrotate's `create`: an empty file */
    read_same(f, 64, "rename: the new file empty");
    CHECK_EQ_U(stats(f).rotations, 0);
    CHECK(stats(f).missing == 0);
    w_lines(fd, 2); /* the daemon has not reopened yet */
    read_same(f, 64, "rename: the old file while the new one is empty");
    w_lines(fd, 2);
    close(fd);
    w_lines(nfd, 4); /* reopened: on into the new file */
    CHECK(follow_wait(f, 10000) == 1);
    read_same(f, 64, "rename: into the new file");
    struct follow_stats st = stats(f);
    CHECK_EQ_U(st.rotations, 1);
    CHECK_EQ_U(st.reopens, 1);
    CHECK_EQ_U(st.truncations, 0);
    CHECK_EQ_U(st.bytes, want.n);
    w_lines(nfd, 4);
    read_same(f, 64, "rename: the new file grows");
    return nfd;
}

/* the new file has lines already when the follower looks, and the old one
 * has lines it has not read */
static int rename_full(struct follow *f, int fd, const char *name)
{
    drain(f, 4096);
    w_lines(fd, 7);
    rename_away(name);
    w_lines(fd, 7);
    fd = w_anew(fd, name, 9);
    /* in small pieces: the old file's end, then the new file */
    read_same(f, 3, "rename: the new file with lines");
    CHECK_EQ_U(stats(f).rotations, 1);
    /* twice more, each time read in one go */
    for (int i = 0; i < 2; i++) {
        w_lines(fd, 5);
        rename_away(name);
        fd = w_anew(fd, name, 5);
        drain(f, 4096);
    }
    CHECK(same("rename: twice more"));
    CHECK_EQ_U(stats(f).rotations, 3);
    CHECK_EQ_U(stats(f).bytes, want.n);
    return fd;
}

/* logrotate's copytruncate: the file is truncated in place (after the
 * follower read it all: what it had not read would be lost by anyone) */
static int copytruncate(struct follow *f, int fd, const char *name)
{
    (void)name;
    drain(f, 4096);
    CHECK(ftruncate(fd, 0) == 0);
    w_lines(fd, 3); /* fewer than before */
    read_same(f, 4096, "copytruncate: fewer");
    CHECK_EQ_U(stats(f).truncations, 1);
    CHECK(ftruncate(fd, 0) == 0);
    CHECK_EQ_U(drain(f, 4096), 0); /* seen empty */
    CHECK_EQ_U(stats(f).truncations, 2);
    w_lines(fd, 2);
    read_same(f, 4096, "copytruncate: empty, then more");
    CHECK(ftruncate(fd, 0) == 0);
    w_lines(fd, 40); /* more than before: the size alone does not show it */
    read_same(f, 100, "copytruncate: more than before");
    CHECK_EQ_U(stats(f).truncations, 3);
    /* the same size exactly */
    off_t size = lseek(fd, 0, SEEK_END);
    CHECK(ftruncate(fd, 0) == 0);
    struct text keep = want;
    want.p = NULL;
    want.n = want.cap = 0;
    while (want.n < (size_t)size)
        w_lines(fd, 1);
    if (want.n > (size_t)size) { /* cut the last line to the size */
        CHECK(ftruncate(fd, size) == 0);
        want.n = (size_t)size;
    }
    text_add(&keep, want.p, want.n);
    free(want.p);
    want = keep;
    read_same(f, 4096, "copytruncate: the same size");
    CHECK_EQ_U(stats(f).truncations, 4);
    CHECK_EQ_U(stats(f).rotations, 0);
    CHECK_EQ_U(stats(f).bytes, want.n);
    return fd;
}

/* a writer without O_APPEND writes on at its old offset after the
 * truncation: a hole, then its lines.  Read: NULs (none where the file
 * system says where the data is), then the lines. */
static void copytruncate_hole(void)
{
    start();
    int fd = open(at("hole.log"), O_WRONLY | O_CREAT, 0644);
    CHECK(fd >= 0);
    w_lines(fd, 200);
    struct follow *f = open_f(at("hole.log"), 1);
    read_same(f, 4096, "hole: before");
    CHECK(ftruncate(fd, 0) == 0);
    size_t before = want.n;
    w_lines(fd, 5);
    size_t tail = want.n - before;
    drain(f, 4096);
    CHECK_EQ_U(stats(f).truncations, 1);
    CHECK(got.n >= want.n);
    CHECK(got.n - tail - before <= before); /* the NULs: the hole at most */
    int nuls = 1;
    for (size_t i = before; i < got.n - tail; i++)
        nuls &= got.p[i] == 0;
    CHECK(nuls);
    CHECK(memcmp(got.p, want.p, before) == 0);
    CHECK(memcmp(got.p + got.n - tail, want.p + before, tail) == 0);
    end(f, fd);
}

/* the path does not exist at follow_open (nor does its directory) */
static void missing(void)
{
    start();
    const char *sub = at("later");
    char path[800];
    snprintf(path, sizeof path, "%s/late.log", sub);
    struct follow *f = open_f(path, 0); /* from the end: of a file there; one that comes is read whole */
    CHECK_EQ_U(drain(f, 4096), 0);
    CHECK(stats(f).missing == 1);
    CHECK(follow_wait(f, 0) == 0);
    CHECK(mkdir(sub, 0755) == 0);
    CHECK_EQ_U(drain(f, 4096), 0);
    int fd = w_open(path);
    CHECK(follow_wait(f, 10000) == 1);
    w_lines(fd, 6);
    read_same(f, 4096, "missing: created later");
    struct follow_stats st = stats(f);
    CHECK(st.missing == 0);
    CHECK_EQ_U(st.reopens, 1);
    CHECK_EQ_U(st.rotations, 0);
    w_lines(fd, 2);
    read_same(f, 4096, "missing: then grows");
    end(f, fd);
    unlink(path);
    rmdir(sub);
}

/* deleted (the daemon still writes to it for a while), then made anew */
static int deleted(struct follow *f, int fd, const char *name)
{
    drain(f, 4096);
    CHECK(unlink(at(name)) == 0);
    CHECK_EQ_U(drain(f, 4096), 0);
    CHECK(stats(f).missing == 1);
    w_lines(fd, 3);
    read_same(f, 4096, "deleted: written after");
    fd = w_anew(fd, name, 0);
    CHECK_EQ_U(drain(f, 4096), 0);
    w_lines(fd, 4);
    read_same(f, 4096, "deleted: made anew");
    CHECK_EQ_U(stats(f).rotations, 1);
    /* deleted and made anew between two reads, with lines */
    CHECK(unlink(at(name)) == 0);
    fd = w_anew(fd, name, 4);
    read_same(f, 4096, "deleted: and again");
    CHECK_EQ_U(stats(f).rotations, 2);
    CHECK_EQ_U(stats(f).bytes, want.n);
    return fd;
}

/* "-": a pipe on stdin, read without blocking to its end */
static void stdin_pipe(void)
{
    start();
    int p[2], saved = dup(0);
    CHECK(pipe(p) == 0 && saved >= 0);
    CHECK(dup2(p[0], 0) == 0);
    close(p[0]);
    struct follow *f = open_f("-", 1);
    CHECK_EQ_U(drain(f, 4096), 0); /* nothing yet, and no blocking */
    CHECK(!follow_eof(f));
    CHECK(follow_wait(f, 0) == 0);
    w_lines(p[1], 5);
    CHECK(follow_wait(f, 10000) == 1);
    read_same(f, 10, "stdin: a pipe");
    w_str(p[1], "no newline at the end");
    close(p[1]);
    read_same(f, 4096, "stdin: to its end");
    CHECK(follow_eof(f));
    CHECK(follow_wait(f, 10000) == 1);
    CHECK_EQ_U(stats(f).bytes, want.n);
    follow_close(f);
    CHECK(dup2(saved, 0) == 0);
    close(saved);
}

/* "-": a regular file on stdin is followed as it grows */
static void stdin_file(void)
{
    start();
    int fd = w_open(at("stdin.log")), saved = dup(0);
    w_lines(fd, 5);
    int rfd = open(at("stdin.log"), O_RDONLY);
    CHECK(rfd >= 0 && saved >= 0);
    CHECK(dup2(rfd, 0) == 0);
    close(rfd);
    struct follow *f = open_f("-", 1);
    read_same(f, 4096, "stdin: a file");
    w_lines(fd, 5);
    read_same(f, 4096, "stdin: the file grows");
    CHECK(ftruncate(fd, 0) == 0);
    w_lines(fd, 2);
    read_same(f, 4096, "stdin: the file truncated");
    CHECK(!follow_eof(f));
    end(f, fd);
    CHECK(dup2(saved, 0) == 0);
    close(saved);
}

/* a FIFO by its path is read as a stream */
static void fifo(void)
{
    start();
    CHECK(mkfifo(at("fifo"), 0644) == 0);
    int wfd = open(at("fifo"), O_RDWR); /* keeps it open for the follower (Linux) */
    CHECK(wfd >= 0);
    struct follow *f = open_f(at("fifo"), 1);
    w_lines(wfd, 3);
    read_same(f, 4096, "fifo");
    close(wfd);
    drain(f, 4096);
    CHECK(follow_eof(f));
    follow_close(f);
}

static void errors(void)
{
    char err[512] = "";
    CHECK(follow_open(dir, 1, err, sizeof err) == NULL); /* a directory */
    CHECK(strstr(err, dir) != NULL);
    if (geteuid() != 0) { /* root reads anything */
        int fd = w_open(at("secret.log"));
        close(fd);
        CHECK(chmod(at("secret.log"), 0) == 0);
        err[0] = 0;
        CHECK(follow_open(at("secret.log"), 1, err, sizeof err) == NULL);
        CHECK(strstr(err, "secret.log") != NULL);
    }
}

/* many steps, chosen by a fixed seed: growth, partial lines, reads of any
 * size, rotations by rename and by deletion, truncations */
static int mixed(struct follow *f, int fd, const char *name)
{
    unsigned seed = 12345;
#define RND(n) ((seed = seed * 1103515245u + 12345u) >> 8) % (n)
    unsigned rot = 0, trunc = 0;
    for (int step = 0; step < 3000; step++) {
        switch (RND(10)) {
        case 0:
        case 1:
        case 2: w_lines(fd, 1 + (int)RND(20)); break;
        case 3: w_str(fd, "a partial "); break;
        case 4:
        case 5:
        case 6: drain(f, 1 + RND(3000)); break;
        case 7: /* rename, or delete: the follower is on the writer's file */
            w_lines(fd, 1);
            drain(f, 0);
            if (RND(2))
                rename_away(name);
            else
                CHECK(unlink(at(name)) == 0);
            if (RND(2))
                w_lines(fd, 1 + (int)RND(5));
            if (RND(2))
                drain(f, 0);
            fd = w_anew(fd, name, 0);
            if (RND(2))
                drain(f, 0);
            w_lines(fd, 1);
            rot++;
            break;
        case 8: /* copytruncate, after reading all */
            w_lines(fd, 1);
            drain(f, 0);
            CHECK(ftruncate(fd, 0) == 0);
            trunc++;
            break;
        default:
            w_lines(fd, 1 + (int)RND(3));
            drain(f, 0);
            break;
        }
    }
#undef RND
    read_same(f, 0, "mixed");
    struct follow_stats st = stats(f);
    CHECK_EQ_U(st.rotations, rot);
    CHECK_EQ_U(st.truncations, trunc);
    CHECK_EQ_U(st.bytes, want.n);
    return fd;
}

static void clean(void)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                unlink(at(e->d_name));
        closedir(d);
    }
    if (rmdir(dir) != 0)
        fprintf(stderr, "cannot remove %s: %s\n", dir, strerror(errno));
}

int main(void)
{
    const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/test_follow-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        perror(dir);
        return 2;
    }
    on_file(growth, "grow.log", 3, 1);
    on_file(from_end, "end.log", 10, 0);
    on_file(partial, "partial.log", 2, 1);
    on_file(rename_rotation, "rot.log", 20, 1);
    on_file(rename_full, "full.log", 10, 1);
    on_file(copytruncate, "ct.log", 30, 1);
    copytruncate_hole();
    missing();
    on_file(deleted, "del.log", 8, 1);
    stdin_pipe();
    stdin_file();
    fifo();
    errors();
    on_file(mixed, "mix.log", 0, 1);
    clean();
    free(want.p);
    free(got.p);
    return check_done("test_follow");
}
