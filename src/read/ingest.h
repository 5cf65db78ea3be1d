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

struct source {
    const char *name;
    const char *path; /* where it can be opened again (NULL: a pipe, stdin, or an fd given) */
    int native;
    struct evpart *parts;
    int nparts;
    uint64_t lost_events;   /* native: dropped while recording */
    uint64_t damaged_bytes; /* native: skipped as damaged */
    int torn, unclosed;     /* native: cut off / never closed */
    int rings;              /* native: what came of its rings file (enum wft_rings_state) */
    uint64_t rings_events;  /* ... events read from it */
    struct cpu_use cpu; /* native: the threads' CPU use, when sampled */
    struct mem_use mem; /* native: the process's memory, when sampled (format 1.4) */
    unsigned cpus;          /* native: the recording machine's CPUs (0: unknown) */
    struct gpu_obs gpu;     /* native: the driver's view of the GPUs (the model takes pts) */
    uint64_t bytes;
    int compressed;         /* DZ_*: it was read through gzip or zstd */
    /* storage */
    struct text_input text;
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
