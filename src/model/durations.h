/*
 * durations.h -- a GPU library's duration lines (CUZK_TIMING), placed in
 * time and given to units as phases of their GPU phase.
 *
 * The lines carry no time and no job (scan.h); the library's source says
 * what each duration measures, on which thread, and in what order the
 * lines are printed (docs/cli.md, "Duration lines"; docs/sources/
 * cuzk-timing.md has the source's lines).  So a line belongs to a call,
 * a call to the unit whose GPU phase made it, and each duration becomes a
 * phase NAME of that unit at the time the source implies, anchored at the
 * unit's GPU_START: one record (struct dphase, r->dur.ph, by unit), which
 * unit_phases (phase.h) gives with the log's own NAME_START/NAME_END
 * phases.  A real daemon's log holds millions of them, so they are not
 * made into other events to be looked up and sorted.  What cannot be
 * given to a unit without guessing is counted, never dropped.
 */
#ifndef DURATIONS_H
#define DURATIONS_H

#include "model.h"

/* Place the run's duration entries (sorted by line, then place on the
 * line; lines 1-based, times on the run's raw clock) as phases of their
 * units (r->dur.ph, each unit's in start order) and count them (r->dur).
 * strs: the model's strings, where the phases' names go (NAME_START, as a
 * phase is named).  The phases are written over the entries, which lie in
 * mem (the run takes a reference): dl holds no entry after it.  0, or -1
 * when out of memory. */
int dur_place(struct run *r, struct strtab *strs, struct dline *dl, size_t n, struct dur_mem *mem);

/* Each value is truncated to whole ms and a placement adds up to three of
 * them: times within DUR_TOL of each other agree. */
#define DUR_TOL 3000000LL

/* A call's critical section, as dur_choose reads it (ns). */
struct dur_sect {
    int64_t pre, wait, held; /* pre_lock_cpu, mutex_wait, and mutex_held (else gpu_total) */
    int waited;              /* mutex_wait was 2 ms or more: it locked at the unlock before */
    int64_t t_pos;           /* the last record's time before its opening line (T_NONE: none) */
};
/* A unit whose GPU phase was open at the section's opening line. */
struct dur_cand {
    int64_t start, end; /* its GPU_START and GPU_END (T_NONE: none yet) */
    int64_t unlock;     /* its device's last unlock, from the sections given before (T_NONE) */
    int64_t unlock_hi;  /* the latest that unlock can be (INT64_MAX: not known): see dur_unlock_hi */
    uint32_t id;        /* the caller's */
};
enum { DUR_NONE = -1, DUR_AMBIGUOUS = -2 };
/* Which of c[0..n) made the section (durations.c says how): its index,
 * with the delay from its GPU_START to the call's entry in *delay; or
 * DUR_NONE (none fits) or DUR_AMBIGUOUS (the choice would be a guess).
 * scratch: n values.  `analyze` (the model) and `watch` (live.c) both
 * decide with it, so that they agree. */
int dur_choose(const struct dur_sect *s, const struct dur_cand *c, size_t n, int64_t *delay, int64_t *scratch);

/* A call given to a unit unlocked its device at `unlock` (its entry, as
 * the least delay that fits puts it, + pre_lock_cpu + mutex_wait +
 * mutex_held), or later: the delay from GPU_START to the entry is only
 * bounded (the engine's spawn_blocking, with no spawn line in the log).
 * Its closing line is printed just before the unlock (groth16_cuda.cu),
 * so the unlock is no later than the first record after that line
 * (close_hi; INT64_MAX: none) + DUR_TOL.  The latest it can be, then
 * (INT64_MAX: not known).  A section that waited for the mutex locked at
 * that unlock: dur_choose takes it at the point first, and only where no
 * unit fits so, anywhere up to this bound (two workers, whose first call
 * entered a few ms late, lost the second call's section). */
static inline int64_t dur_unlock_hi(int64_t unlock, int64_t close_hi)
{
    if (close_hi == INT64_MAX || unlock == T_NONE)
        return INT64_MAX;
    int64_t hi = close_hi + DUR_TOL;
    return hi > unlock ? hi : unlock;
}

/* A closed section that no unit took (none fits, or the choice is a guess)
 * still took its device's mutex after the unlock before (*t, *hi) and held
 * it for `held`: that unlock moves on to no earlier than *t + held and than
 * the record before its closing line (close_lo; T_NONE: none), and no
 * later than the first record after it.  Else every section after it
 * would be judged against the unlock of the call before it, and one
 * section lost would lose all the rest (analyze and watch alike, where
 * every unit that could have made it is on the one device). */
static inline void dur_unlock_unplaced(int64_t *t, int64_t *hi, int64_t held, int64_t close_lo, int64_t close_hi)
{
    int64_t u = *t != T_NONE ? *t + held : T_NONE;
    if (close_lo != T_NONE && (u == T_NONE || close_lo > u))
        u = close_lo;
    if (u == T_NONE)
        return;
    *t = u;
    *hi = dur_unlock_hi(u, close_hi);
}

/* The engine's spawn line (scan.h) gives a unit's entry: does section s
 * fit candidate c entering spawn ns after its GPU_START (its lock after
 * the record before its first line, at or after its device's unlock, at
 * it when it waited, its end before the unit's GPU_END)?  prove,
 * total_fn: the line's prove_start and the section's total_start_fn (ns;
 * -1: not checked): the call returns after the unlock.  1 or 0.  The
 * spawn line printed first after a section's closing line is its call's
 * own (the same thread prints both, around the unlock): analyze and
 * watch give the section to its unit where it fits, and else choose
 * with dur_choose, then enter the chosen unit at its spawn where it
 * fits (cli.md, "Duration lines"). */
int dur_spawn_fits(const struct dur_sect *s, const struct dur_cand *c, int64_t spawn, int64_t prove, int64_t total_fn);

/* A phase [*a, *b) that lies out of its unit's GPU phase [lo, hi] by no
 * more than the values' truncation (DUR_TOL) is moved in: the source puts
 * every duration inside it.  hi, lo: T_NONE when unknown. */
void dur_clamp(int64_t *a, int64_t *b, int64_t lo, int64_t hi);

/* The names `watch` places (live.c): the kernel's and what anchors it. */
enum dur_name {
    DN_PRE_LOCK, DN_MUTEX_WAIT, DN_GPU_TOTAL, DN_HELD, DN_TOTAL_FN,
    DN_NTT, DN_BARRIER, DN_BATCH, DN_TAIL, /* a gpu_tid's steps, in order (dur_mux.h) */
    DN_AROUND, /* a known key printed outside the section (prep_msm, b_g2_msm, split_vectors,
                * setup_to_split, async_dealloc): never a section's line, whatever its gpu_tid */
    DN_OTHER
};
int dur_name_of(const char *name, size_t n);

/* The name of the phase that encloses duration phase `name` (n bytes) by
 * the source's nesting (gpu_total within mutex_held, ntt_msm_h within
 * gpu_total, ...), into out; its length, or 0 for a phase of no parent. */
size_t dur_parent(const char *name, size_t n, char *out, size_t cap);

/* A duration line as the mux reads it (dur_mux.h): its durations' names
 * (enum dur_name) and values (ns), n of them, its gpu_tid (-1: none), and
 * the records before and after it (lo, hi).  0, with *x; -1: not a line of
 * a critical section.  analyze (durations.c) and watch (live.c) both read
 * their lines with it, so that they feed the mux the same lines. */
struct dmux_line;
int dur_mux_line(const int *dn, const int64_t *ns, int n, int tid, int64_t lo, int64_t hi, struct dmux_line *x);

#endif /* DURATIONS_H */
