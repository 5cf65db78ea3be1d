/*
 * input.h -- an input file's bytes, whole: mapped when it is a regular file,
 * read into memory when it is a pipe or "-" (stdin).
 */
#ifndef INPUT_H
#define INPUT_H

#include <stddef.h>

struct input {
    const char *name; /* as given; "-" is shown as "<stdin>" */
    const unsigned char *data;
    size_t len;
    int mapped;
};

/* 0, or -1 with a message naming the file in err. */
int input_open(struct input *in, const char *path, char *err, size_t errlen);
/* A regular file's bytes (fd at its start; not closed), named name. */
int input_map_fd(struct input *in, int fd, const char *name, char *err, size_t errlen);
void input_close(struct input *in);

/* Read fd to its end into in (whose name must be set), after prefix_len
 * bytes already read from it (format sniffing).  0, or -1 with err set. */
int input_read_fd(struct input *in, int fd, const void *prefix, size_t prefix_len, char *err,
                  size_t errlen);

#endif /* INPUT_H */
