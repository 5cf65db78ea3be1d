/*
 * yajl_floor.c -- how long yajl takes to lex a JSON file with no callback
 * at all: the floor under any reader built on it (bench_kineto.sh prints
 * it beside waterfall's time on the PyTorch trace, in the same rounds).
 * Read in 256 KiB steps, as src/read/read_kineto.c reads a range.
 * Usage: yajl_floor FILE.  0, or 1 with the reason on stderr.
 */
#include <yajl/yajl_parse.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: yajl_floor FILE\n");
        return 1;
    }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "yajl_floor: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    static const yajl_callbacks none; /* every callback NULL: yajl only lexes and checks */
    yajl_handle h = yajl_alloc(&none, NULL, NULL);
    static unsigned char buf[1 << 18];
    ssize_t n;
    int rc = h ? 0 : 1;
    while (rc == 0 && (n = read(fd, buf, sizeof buf)) > 0)
        rc = yajl_parse(h, buf, (size_t)n) != yajl_status_ok;
    if (rc == 0 && yajl_complete_parse(h) != yajl_status_ok)
        rc = 1;
    if (rc)
        fprintf(stderr, "yajl_floor: %s: not JSON that yajl reads\n", argv[1]);
    if (h)
        yajl_free(h);
    close(fd);
    return rc;
}
