/*
 * input.c -- getting an input's bytes.  mmap keeps a multi-gigabyte log out
 * of the heap; a pipe has to be read.
 */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int input_read_fd(struct input *in, int fd, const void *prefix, size_t prefix_len, char *err,
                  size_t errlen)
{
    size_t cap = 1 << 16, len = prefix_len;
    while (cap < prefix_len)
        cap *= 2;
    unsigned char *buf = malloc(cap);
    if (!buf)
        goto nomem;
    if (prefix_len)
        memcpy(buf, prefix, prefix_len);
    for (;;) {
        if (len == cap) {
            unsigned char *n = realloc(buf, cap * 2);
            if (!n)
                goto nomem;
            buf = n;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(err, errlen, "%s: read failed: %s", in->name, strerror(errno));
            free(buf);
            return -1;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    in->data = buf;
    in->len = len;
    return 0;
nomem:
    free(buf);
    snprintf(err, errlen, "%s: out of memory reading it", in->name);
    return -1;
}

int input_open(struct input *in, const char *path, char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    int is_stdin = strcmp(path, "-") == 0;
    in->name = is_stdin ? "<stdin>" : path;
    int fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) < 0) {
        snprintf(err, errlen, "%s: cannot stat: %s", in->name, strerror(errno));
        if (!is_stdin)
            close(fd);
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory", in->name);
        close(fd);
        return -1;
    }
    int rc = S_ISREG(st.st_mode) ? input_map_fd(in, fd, in->name, err, errlen)
                                 : input_read_fd(in, fd, NULL, 0, err, errlen);
    if (!is_stdin)
        close(fd);
    return rc;
}

int input_map_fd(struct input *in, int fd, const char *name, char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    in->name = name;
    struct stat st;
    if (fstat(fd, &st) < 0) {
        snprintf(err, errlen, "%s: cannot stat: %s", in->name, strerror(errno));
        return -1;
    }
    if (st.st_size > 0) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
            in->data = p;
            in->len = (size_t)st.st_size;
            in->mapped = 1;
            return 0;
        }
    }
    return input_read_fd(in, fd, NULL, 0, err, errlen);
}

void input_close(struct input *in)
{
    if (in->mapped)
        munmap((void *)in->data, in->len);
    else
        free((void *)in->data);
    memset(in, 0, sizeof *in);
}
