/*
 * read_text.h -- TIMELINE records from a text log (a file or a pipe).
 */
#ifndef READ_TEXT_H
#define READ_TEXT_H

#include "events.h"

struct text_input {
    struct evpart *parts; /* in input order */
    int nparts;
    uint64_t bytes;
    int rereads; /* parts read a second time (see evpart_link) */
};

/* A stream that can be read again from its start (a compressed file,
 * decompressed anew): a log that mixes two clocks is read three times
 * (events.h).  reopen gives a new fd of the text from its start, and owns
 * the ones it gave (0, or -1 with err set). */
struct text_again {
    int (*reopen)(void *ctx, int *fd, char *err, size_t errlen);
    void *ctx;
};

/* Read fd (named name in messages) to its end.  A pipe's first bytes,
 * already read to sniff the format, come in prefix; again (or NULL) reads
 * a pipe again.  0, or -1 with err set (what was read before a read error
 * is kept). */
int read_text(struct text_input *in, int fd, const char *name, const void *prefix, size_t prefix_len,
              const struct text_again *again, int show_progress, char *err, size_t errlen);
void text_input_free(struct text_input *in);

#endif /* READ_TEXT_H */
