/*
 * fuzz_text.c -- libFuzzer target: a whole text log through the analysis:
 * read (as a file), model, analyse, and all three reports.  The causes
 * must add up to idle, busy must stay within the window, utilization in
 * [0, 1]; and the log read in one range and in 2 to 8 ranges (the parallel
 * reader's split, WATERFALL_READ_THREADS) must give the same JSON, byte for
 * byte.
 */
#include "analyse_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    char path[64];
    int fd = analyse_memfd(data, size, path);
    if (fd < 0)
        return 0;
    char *one, *many;
    size_t one_len, many_len;
    char threads[4];
    snprintf(threads, sizeof threads, "%u", 2 + (unsigned)(size % 7));
    analyse(path, "1", NULL, &one, &one_len, 1);
    analyse(path, threads, NULL, &many, &many_len, 0);
    if ((one == NULL) != (many == NULL) || one_len != many_len || (one && memcmp(one, many, one_len))) {
        fprintf(stderr, "fuzz_text: one range and %s ranges give different JSON\n", threads);
        abort(); /* the split changes nothing */
    }
    free(one);
    free(many);
    close(fd);
    return 0;
}
