/*
 * cut_shim.c -- LD_PRELOAD'ed into `waterfall analyze` by test_cut.sh: it
 * changes the file under the reader at a chosen moment, as a logger does
 * (rotation by truncation, a record still being written), so that what
 * a race would show now and then is shown every time.
 *   WF_CUT_AT=mmap   right after the file is mapped whole
 *   WF_CUT_AT=pread  right before the first pread() of more than 4 KiB (the
 *                    reader's, not the look at the file's first bytes)
 *   WF_CUT_TO=N      truncate it to N bytes (negative: that many fewer)
 *   WF_CUT_APPEND=S  or append the string S
 * Once per process.  Not a stand-in for anything: the file really changes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int done;

static void cut(int fd, const char *when)
{
    const char *at = getenv("WF_CUT_AT"), *to = getenv("WF_CUT_TO"), *app = getenv("WF_CUT_APPEND");
    struct stat st;
    if (done || !at || strcmp(at, when) != 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    done = 1;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    if (app) {
        int a = open(path, O_WRONLY | O_APPEND);
        if (a < 0 || write(a, app, strlen(app)) != (ssize_t)strlen(app))
            perror("cut_shim: append");
        if (a >= 0)
            close(a);
    } else if (to) {
        long long n = atoll(to);
        if (n < 0)
            n += st.st_size;
        if (truncate(path, n) != 0)
            perror("cut_shim: truncate");
    }
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    static void *(*real)(void *, size_t, int, int, int, off_t);
    if (!real)
        real = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
    void *p = real(addr, len, prot, flags, fd, off);
    struct stat st;
    if (p != MAP_FAILED && fd >= 0 && off == 0 && fstat(fd, &st) == 0 && (off_t)len == st.st_size)
        cut(fd, "mmap");
    return p;
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    static ssize_t (*real)(int, void *, size_t, off_t);
    if (!real)
        real = (ssize_t(*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
    if (n > 4096)
        cut(fd, "pread");
    return real(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
    return pread(fd, buf, n, off);
}
