/*
 * ingest.h -- one input, whatever it is: a native trace or a text log,
 * a file or stdin ("-"), detected by its first bytes.  The result is the
 * input's runs in the model, and what the reader saw of it (struct
 * source: for the commands' messages).
 */
#ifndef INGEST_H
#define INGEST_H

#include "events.h"
#include "input.h"
#include "model.h"
#include "read_text.h"
#include "read_wft.h"

#include <stdio.h>

/* What a native trace says beside its events, for the messages (its runs
 * have what the analysis reads: lost events, damage, samples). */
struct trace_notes {
    int torn, unclosed;    /* cut off / never closed */
    int rings;             /* what came of its rings file (enum wft_rings_state) */
    uint64_t rings_events; /* ... events read from it */
    struct cpu_use cpu;    /* the threads' CPU use (its spans owned here; the run borrows them) */
};

struct source {
    const char *name;
    const char *path;   /* where it can be opened again (NULL: a pipe, stdin, or an fd given) */
    const char *reader; /* which read it (ingest.c's table; NULL: none did) */
    uint64_t bytes;
    int compressed; /* DZ_*: it was read through gzip or zstd */
    int oom;        /* ingest failed for want of memory (not the input's fault) */
    uint64_t lost_events, damaged_bytes; /* what a recording lost, and skipped as damaged */
    /* a text log's parts (read_text), which the model was built from */
    struct text_input text;
    struct evpart *parts;
    int nparts;
    /* a PyTorch trace's: what it held (kineto: it was one) */
    int kineto;
    struct streams_use kin;
    uint64_t kin_skipped; /* device operations without usable times */
    /* a native trace's */
    int native;
    struct trace_notes trace;
};

/* Read the input and put its events into m (runs after those m has).
 * 0, or -1 with a message naming the input in err. */
int ingest(struct source *src, const char *path, struct model *m, int show_progress, char *err, size_t errlen);
/* The same from an open file or pipe (named name in messages; not closed). */
int ingest_fd(struct source *src, int fd, const char *name, struct model *m, int show_progress, char *err,
              size_t errlen);

/* What the reader says of the input beside its events (damage, loss, a
 * recording cut off), one line each to out, prefixed with cmd. */
void source_warn(const struct source *s, FILE *out, const char *cmd);
/* Why an input gave no run: what it is, and its first skipped lines. */
void source_explain_empty(const struct source *s, FILE *out, const char *cmd);

/* Free the events (the model keeps pointers to job ids: keep the rest). */
void source_drop_events(struct source *src);
void source_free(struct source *src);

#endif /* INGEST_H */
