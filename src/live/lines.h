/*
 * lines.h -- a log's bytes, as they are read, parsed into the records the
 * live state takes (`waterfall watch`), on a thread beside the one that
 * reads them and applies them.
 *
 * The bytes come in chunks, in order; a line may span chunks.  Each line
 * is read as the batch reader reads it: a line without TIMELINE is
 * counted, not parsed; one longer than LINES_KEEP that holds TIMELINE is
 * skipped whole (counted as too long); a TIMELINE line that does not
 * parse is counted by why.  A chunk's records point into the chunk (or
 * into its own copies of ids that were decoded or gathered across
 * chunks), so they stay valid until the chunk is read into again.
 *
 * The pipe: the caller reads chunks and submits them; they are parsed, in
 * order, on the pipe's thread while the caller reads the next and
 * applies the ones before: catching up on a big log then takes the time
 * of the slower half, not of both (docs/bench.md: reading and applying on
 * one side, parsing on the other, balance best).  Without a second
 * thread (it could not be started) a chunk is parsed when submitted.
 *
 * Errors: NULL or -1 when out of memory.
 */
#ifndef LINES_H
#define LINES_H

#include "live.h"
#include "scan.h"

#include <stddef.h>
#include <stdint.h>

#define LINES_KEEP (1u << 20) /* the longest line kept whole; the rest of a longer one is not parsed */
#define LINES_CHUNK (1u << 20) /* a chunk's bytes: its records stay in the cache while applied */

struct lines_chunk {
    char *buf; /* LINES_CHUNK bytes */
    size_t len;
    /* what parsing found: */
    struct live_rec *rec;
    uint32_t *at; /* at[i]: the lines of the chunk before rec[i]'s own */
    size_t nrec, rec_cap;
    uint64_t lines; /* lines that ended in the chunk */
    uint64_t skipped_by[8], skipped;
    char *copy; /* ids and names decoded, or of a line gathered across chunks */
    size_t ncopy;
    int end;    /* the log's end: the last line needs no '\n' */
    int failed; /* out of memory while parsed */
};

struct lines_pipe;

struct lines_pipe *lines_pipe_new(void);
void lines_pipe_free(struct lines_pipe *p);

/* A chunk to read into, or NULL when all are in flight (take one with
 * lines_pipe_next first). */
struct lines_chunk *lines_pipe_idle(struct lines_pipe *p);

/* c (from lines_pipe_idle), len bytes read into its buf, is to be
 * parsed; end: the log ends with it (its last line needs no '\n'). */
void lines_pipe_submit(struct lines_pipe *p, struct lines_chunk *c, size_t len, int end);

/* The oldest chunk submitted, once parsed (it waits); NULL when none is
 * in flight.  c->failed: it ran out of memory.  Give it back with
 * lines_pipe_done once its records are applied. */
struct lines_chunk *lines_pipe_next(struct lines_pipe *p);
void lines_pipe_done(struct lines_pipe *p, struct lines_chunk *c);

/* The log ended: its last line, when it has no '\n', or a cut record
 * held for a rest that never came, is submitted as a chunk of its own
 * (1; 0: there is none), to be taken with
 * lines_pipe_next like the others.  Every chunk before must be done. */
int lines_pipe_end(struct lines_pipe *p);

#endif /* LINES_H */
