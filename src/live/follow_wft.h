/*
 * follow_wft.h -- a native trace (*.wft) that a recorder is still writing,
 * followed: each time the file has grown, it is read again (the reader
 * takes an unfinished trace, a torn last record included) and the events
 * not fed before go into the live state, in time order.
 *
 * The recorder appends each thread's events in the order it marked them,
 * and the reader keeps that order (wft_sort), so a thread's first k events
 * are the same k in every read: what is new is what comes after them.  A
 * trace's clock is refined as CLOCK records accumulate; events fed earlier
 * keep the conversion of their read, so figures of a native trace agree
 * with `analyze` of the finished file to within that refinement while it
 * is written (parts per million; tens of them when the 2 ms calibration at
 * open was disturbed, as under ThreadSanitizer).  When the recorder closes
 * a trace whose conversion was refined after events were fed (`refined`),
 * watch feeds the finished trace again, all of it with the final
 * conversion, so that its final totals equal analyze's to the nanosecond.
 * Each read is of the whole file: fine for a run's trace, costly for a
 * trace of days.
 *
 * Errors: -1 with a message naming the file in err.
 */
#ifndef FOLLOW_WFT_H
#define FOLLOW_WFT_H

#include "live.h"

#include <stddef.h>
#include <stdint.h>

struct wft_follow {
    const char *path;
    uint64_t size;  /* when last read */
    uint64_t *fed;  /* events fed, by thread */
    size_t nfed;
    uint64_t lost, damaged;
    int closed;     /* the recorder finished the trace (END record) */
    double rate;    /* the ticks per ns the events fed last were converted with (0: none fed) */
    int refined;    /* a read converted with another rate than an earlier one: events fed
                     * differ from the finished trace's conversion (watch feeds it again) */
};

/* Is the file at path a native trace (its first bytes)?  0 when it is not,
 * or cannot be read yet. */
int wft_follow_sniff(const char *path);
/* Is path one for this follower: a trace by its first bytes, or by its
 * name (*.wft) while its recorder has not written them yet; never stdin. */
int follow_wft_claims(const char *path);

/* Read the trace again if it grew (*fed: 1 when new events were fed, 0
 * when nothing was new): 0, or -1 with a message naming the file in err. */
int wft_follow_step(struct wft_follow *w, struct live *l, int *fed, char *err, size_t errlen);

void wft_follow_free(struct wft_follow *w);

#endif /* FOLLOW_WFT_H */
