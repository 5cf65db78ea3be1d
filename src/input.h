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
void input_close(struct input *in);

#endif /* INPUT_H */
