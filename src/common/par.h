/*
 * par.h -- one piece of work on a second thread while the caller does
 * another, for the serial steps between the readers and the report that
 * split in two halves (a run's units, a table's rows).
 *
 * The halves must give the result one thread would: each half writes
 * only its own, and the caller joins what they made.  Where no thread
 * can be had, the caller runs both.
 */
#ifndef PAR_H
#define PAR_H

#include <stddef.h>

/* Whether work over n items is worth a second thread: n >= min, unless
 * WATERFALL_ANALYSIS_THREADS says 1 (never) or 2 (always: the tests run
 * small inputs both ways and compare). */
int par_worth(size_t n, size_t min);

/* fn(b) on a second thread and fn(a) on this one (both here, one after
 * the other, when no thread can be made); returns when both are done. */
void par_two(void (*fn)(void *), void *a, void *b);

#endif /* PAR_H */
