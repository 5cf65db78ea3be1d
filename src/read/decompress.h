/*
 * decompress.h -- a gzip or zstd input read as the text it holds.
 *
 * Rotated logs are compressed.  An input is recognized by its magic bytes
 * (never by its name), and decompressed as a stream on a thread of its
 * own into a pipe, which the text reader reads as it reads any pipe: the
 * reader's hot loop is the same, and memory stays bounded (a pipe and two
 * 64 KiB buffers), whatever the size of the log.
 */
#ifndef DECOMPRESS_H
#define DECOMPRESS_H

#include <stddef.h>

enum { DZ_NONE, DZ_GZIP, DZ_ZSTD };

/* The most bytes of a pipe already read (sniffed) that dz_start takes
 * back, to decompress them first. */
#define DZ_PREFIX_MAX 1024

/* What the first bytes of an input say: DZ_GZIP, DZ_ZSTD or DZ_NONE. */
int dz_sniff(const unsigned char *head, size_t n);

/* "gzip", "zstd" (for messages). */
const char *dz_name(int kind);

struct dz;

/* Start decompressing fd (kind: DZ_GZIP or DZ_ZSTD) on a thread: from its
 * start when it is a regular file (is_reg), else after the prefix bytes
 * already read from it.  *out: the read end of a pipe of the text, for
 * the caller to read and close.  0, or -1 with a message naming the input
 * in err. */
int dz_start(struct dz **z, int kind, int fd, int is_reg, const void *prefix, size_t prefix_len,
             const char *name, int *out, char *err, size_t errlen);

/* After the reader closed *out: wait for the thread.  0, or -1 with a
 * message naming the input in err (damaged data, the stream cut short, a
 * failed read); frees z. */
int dz_finish(struct dz *z, char *err, size_t errlen);

#endif /* DECOMPRESS_H */
