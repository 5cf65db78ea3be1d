/*
 * dur_mux.h -- the critical sections of several devices' calls, told
 * apart by their times.
 *
 * One device's sections never interleave (its mutex), but two devices'
 * do, line by line, and their lines name no device: the engine's calls
 * all print gpu_tid=0 (docs/sources/cuzk-timing.md, section 7, rule 5).
 * What tells them apart is when each line was printed.  A section locks
 * at L, where its opening line (pre_lock_cpu, mutex_wait) is printed;
 * each later line of it is printed at L plus what it measures (a gpu_tid's
 * lines follow each other from L; tail_msm's line ends at gpu_total;
 * mutex_held's line at the unlock); lines are printed in time order; and
 * a line comes after the records before it, its opening line before the
 * record after it.  So each open section has an interval for its L, and
 * each reading of which line is whose narrows them or is impossible.
 *
 * The mux keeps every reading that is still possible (a hypothesis: the
 * open sections, their stage per gpu_tid and their intervals), branching
 * where a line fits several sections and dropping a reading that a later
 * line contradicts, and gives a line to its section once one reading is
 * left.  Readings that end in the same state are merged (and, past 64 of
 * them, those that put the same sections at the same steps, their times
 * widened to hold both); a section they read differently is ambiguous
 * (its lines are counted, never guessed).
 * Where three or more sections are open, a line more than one could take
 * makes them all ambiguous: on three GPUs the times left a third of the
 * units given with another section's lines (docs/cli.md, "Several GPUs").
 * A line that fits one section only is that section's without a look at
 * the times, as before there was a mux: one device's log reads as it did.
 *
 * `analyze` (durations.c, sections) and `watch` (live.c, dur_in) feed it
 * the same lines in the same order, each with the records around it, and
 * so read the same sections.  Two cases where they do not, both rare:
 * 4096 lines with no record between them (watch feeds them without the
 * record after), and a restart of the daemon's clock among a section's
 * lines (watch gives the old run the lines it read before the record that
 * decided the restart).
 */
#ifndef DUR_MUX_H
#define DUR_MUX_H

#include <stddef.h>
#include <stdint.h>

enum { DMUX_OPEN, DMUX_GPU, DMUX_CLOSE };

/* One line of a critical section.  Times and values in ns; -1: none. */
struct dmux_line {
    int role;   /* DMUX_* */
    int tid;    /* DMUX_GPU: its gpu_tid (-1: none on the line) */
    int step;   /* DMUX_GPU: 1 ntt_msm_h, 2 barrier_wait, 3 batch_add, 4 tail_msm, 0 another key */
    int64_t lo; /* the last record's time before the line (INT64_MIN: none) */
    int64_t hi; /* the first record's time after it (INT64_MAX: none; watch feeds a line once it has it) */
    int64_t v;  /* OPEN: pre_lock_cpu + mutex_wait; GPU: its first value; CLOSE: mutex_held */
    int64_t v2; /* GPU: gpu_total on the line; CLOSE: total_start_fn */
};

/* What the mux decided, in this order within one dmux_take: sections found
 * ambiguous, then lines given (or left stray) in the order they were fed. */
enum { DMUX_AMBIG, DMUX_GIVE, DMUX_STRAY };
struct dmux_out {
    int kind;
    uint64_t seq; /* DMUX_GIVE, DMUX_STRAY: the line (its number among the lines fed, from 0) */
    uint64_t sid; /* DMUX_AMBIG, DMUX_GIVE: the section (its opening line's seq) */
    int multi;    /* the sections read so far interleave somewhere: several devices' mutexes (a
                   * device's unlock then says nothing of a unit whose device the log never names) */
};

struct dmux;

/* The lines a decision may wait for, in analyze and watch alike (they
 * must decide the same). */
#define DMUX_PENDING 4096

/* A mux that decides at the latest once `pending` lines wait (then it
 * keeps one reading and counts the sections the others read otherwise as
 * ambiguous).  NULL when out of memory. */
struct dmux *dmux_new(size_t pending);
void dmux_free(struct dmux *m);

/* Feed the next line; its seq is the count of lines fed before.  0, or
 * -1 when out of memory. */
int dmux_feed(struct dmux *m, const struct dmux_line *x);

/* Lines fed and not yet decided (several readings are still possible). */
uint64_t dmux_undecided(const struct dmux *m);

/* No more lines: decide everything. */
int dmux_end(struct dmux *m);

/* The decisions made so far and not yet taken, up to cap of them: their
 * count (call again until 0). */
size_t dmux_take(struct dmux *m, struct dmux_out *out, size_t cap);

#endif /* DUR_MUX_H */
