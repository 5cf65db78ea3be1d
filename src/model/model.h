/*
 * model.h -- events grouped into runs and units.
 *
 * A *unit* is one job, or one partition of it (partition=N), with the time
 * of each of its six events.  A *run* is one life of the daemon: a log may
 * hold several, each restarting its epoch near zero; a native trace is one.
 * The model keeps what the analysis needs and what the reports show about
 * bad input: duplicates, contradictions, skipped lines, with where they
 * were first seen.
 */
#ifndef MODEL_H
#define MODEL_H

#include "hindex.h"
#include "strtab.h"
#include "vocab.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct job {
    const char *id; /* not NUL-terminated */
    uint32_t len;
    uint32_t units;
    uint64_t hash;
};

/* A data problem worth pointing at. */
struct issue {
    uint64_t line;
    int kind;  /* ISSUE_* */
    int detail; /* enum scan_err, or an EV_* */
};

enum { ISSUE_SKIPPED, ISSUE_DUPLICATE, ISSUE_CONTRADICTION };

/* What a unit has beside its six events, attached to it: an event that is
 * not one of the six (a phase's start or end, or a mark), or a detail the
 * analysis does not read itself (an attribute: kind=, synth_ms=, ...; the
 * first value of each key is kept).  A run keeps the two in two arrays,
 * sorted by unit, then time (events) or key (attributes). */
struct xitem {
    int64_t t;         /* an event's time */
    uint64_t line;
    uint32_t unit;
    uint32_t name;     /* the event's name (upper case), or the attribute's key: the model's strings */
    uint32_t val;      /* an attribute's value */
    uint32_t job;      /* while building */
    int32_t partition; /* while building */
};

/* What a run's duration lines (durations.h) gave: lines and durations
 * by what became of them. */
struct dur_mark { /* durations outside any unit's call, by name (run marks) */
    uint32_t name; /* the model's strings */
    uint64_t count;
    int64_t total_ms;
};
/* A duration placed as a phase of its unit (durations.c), kept as one
 * record instead of two other events: millions of them are read, and
 * none needs the sort and lookup that attach other events to units. */
struct dphase {
    int64_t a, b;  /* its start and end */
    uint64_t line; /* the line that gave it */
    uint32_t name; /* its START event's name (NAME_START: the model's strings) */
};
/* The duration entries' array of an input, on which its runs' phases
 * were written, each run's over its own entries (durations.c): a dozen
 * million entries and their phases are never held twice.  Freed with the
 * last run that holds it. */
struct dur_mem {
    void *p;
    size_t bytes;
    unsigned refs;
};
void dur_mem_release(struct dur_mem *dm);

struct dur_use {
    uint64_t lines, info, bad; /* duration lines; messages with no duration; unreadable */
    uint64_t ntt;              /* CUZK_NTT_H lines: ntt_msm_h's breakdown, counted, not placed */
    uint64_t bad_first;        /* the first unreadable line */
    uint64_t values;           /* durations read */
    uint64_t placed;           /* ... placed as phases of a unit */
    uint64_t guessed;          /* ... of those, printed outside a section that several calls fit, far apart:
                                * given to the earliest fit (durations.c, around) */
    uint64_t ambiguous;        /* ... of a call that more than one unit could have made */
    uint64_t interleaved;      /* ... of calls whose lines interleave (several GPUs, no device named) */
    uint64_t stray;            /* ... of a call whose opening line is missing */
    uint64_t outside;          /* ... with no unit's GPU phase open (run marks) */
    uint64_t calls, units;     /* calls read; units given one */
    uint64_t spawn_lines, spawn_placed; /* the engine's spawn lines (scan.h); those given to a unit */
    struct dur_mark *marks;    /* the outside ones by name (owned) */
    size_t nmarks;
    struct dphase *ph;         /* the placed ones, by unit: in mem, or owned (big_alloc'd, ph_cap of them) */
    size_t nph, ph_cap;
    struct dur_mem *mem;       /* where ph lies, shared (NULL: ph is owned) */
    size_t *ph_at;             /* unit u's are ph[ph_at[u], ph_at[u + 1]) (NULL: none placed) */
};

/* Where a run came from, as its reader says: the reports name it from
 * here, never from which reader it was. */
struct provenance {
    const char *kind;  /* the input's kind, as the JSON names it: "text", "native", ... */
    const char *at;    /* what a run's positions count: "line", "event", ... */
    const char *label; /* a word the views add to a run's name (NULL: none) */
};

/* Do a run's positions count an input's lines (a text log's)? */
#define run_counts_lines(r) (strcmp((r)->prov.at, "line") == 0)

/* A run whose workers are a device's streams (a PyTorch trace's: the
 * reader fills it in), and what its reader saw beside the units. */
/* How a PyTorch trace's CPU ranges become stages (`--stage STAGE=GLOB`):
 * the first rule whose glob (fnmatch) matches a range's name gives its
 * stage (read/kineto_stage.h).  The caller's: the model only points at it. */
struct stage_rule {
    int stage;        /* EV_SYNTH_START (synthesis) or EV_GPU_PICKUP (prep) */
    const char *glob;
};
struct stage_map {
    const struct stage_rule *rule;
    size_t n;
};

/* A CPU range name open while a device idled: a candidate for a stage. */
#define KCAND_MAX 8
struct kcand {
    uint32_t name;   /* in the model's strings */
    uint64_t ranges; /* ranges of that name */
    int64_t idle;    /* device idle time (summed over devices) while one was open, ns */
    int64_t span;    /* the union of those ranges, ns */
};

struct streams_use {
    int streams;          /* the workers are streams: HTA's idle breakdown per stream applies */
    int us_rounded;       /* the input's times have sub-µs digits: HTA rounds each start up and
                           * each end down to the µs before its breakdown (analyze_stream.c) */
    int32_t rank;         /* the input's rank (distributedInfo.rank); -1: none */
    int64_t origin;       /* the input's time of the run's 0, ns: HTA's rounding works on the
                           * input's own µs as doubles, which this gives back exactly */
    uint64_t events;      /* the input's events */
    uint64_t ops;         /* device operations read: the units */
    uint64_t launches;    /* CPU events that name a correlation (the launching calls) */
    uint64_t unlaunched;  /* operations whose launch is not in the input */
    uint64_t late_launch; /* launches that begin after their operation: not taken as its CHAN_SEND */
    uint64_t ignored;     /* events of other kinds: CPU ranges, flows, metadata, counters */
    int64_t step_cut;     /* where the trace has two ProfilerSteps or more, the last one's start
                           * (the run's time base): HTA leaves out the operations launched from
                           * then on, an iteration it takes as incomplete; T_NONE: none */
    /* stages (read/kineto_stage.h) */
    int mapped;                /* a stage map was given */
    uint64_t stage_ranges[2];  /* [0] synthesis, [1] prep: ranges matched, after each thread's union */
    uint64_t stage_units[2];   /* ... units given the stage */
    uint64_t cpu_ranges;       /* CPU ranges read (cpu_op, user_annotation, python_function) */
    int64_t cand_idle;         /* device idle time, summed over devices (the candidates' whole) */
    struct kcand cand[KCAND_MAX]; /* the ranges most open while a device idled, most first */
    int ncand;
};

struct run {
    const char *source; /* the input's name */
    struct provenance prov;
    int index;          /* 1-based within its source */
    struct unit *units;
    size_t nunits, units_cap;
    struct job *jobs;
    size_t njobs, jobs_cap;
    uint64_t events;
    uint64_t first_line, last_line;
    uint64_t skipped_lines, duplicates, contradictions;
    uint64_t late_lines; /* events whose time looked like a restart, not followed by the lines after them */
    struct issue issues[3][MAX_ISSUES]; /* the first few of each kind */
    int nissues[3];
    /* what a recording says beside its events (a reader that has it fills it in) */
    uint64_t lost_events;   /* the recorder's count of events it dropped */
    uint64_t damaged_bytes; /* skipped as damaged */
    struct cpu_use cpu;     /* the threads' CPU use, when sampled */
    struct mem_use mem;     /* the process's memory, when sampled */
    unsigned cpus;          /* the recording machine's CPUs (0: unknown) */
    struct gpu_obs gpu;     /* the driver's view of the GPUs (pts owned) */
    struct streams_use streams; /* a trace of streams (PyTorch's); zero otherwise */
    struct xitem *xev;      /* events other than the six, by unit */
    size_t nxev, xev_cap;
    struct xitem *xattr;    /* attributes, by unit */
    size_t nxattr, xattr_cap;
    uint64_t xorphans;      /* other events and details of a job with no pipeline event in the run */
    struct dur_use dur;     /* duration lines (durations.h) */
    const struct strtab *strs; /* the model's: names, keys and values */
    uint64_t wall_events;   /* events timed by their line's own clock (no ts=) */
    int64_t wall_origin;    /* then: the run's first record, ns since 1970; times count from it */
    /* lookup tables while building: units by unit_hash, jobs by hash */
    struct hindex uindex, jindex;
};

struct model {
    struct run *runs;
    size_t nruns, runs_cap;
    /* skipped-line reasons across all inputs, by enum scan_err */
    uint64_t skipped_by[8];
    uint64_t timeline_lines, bytes;
    struct strtab strs; /* event names, attribute keys and values of every run */
    uint64_t xorphans;  /* other events and details before any run's first event */
    struct idblock *ids; /* job ids the model holds itself (build.h's builder) */
    const struct stage_map *stages; /* how readers of traces with CPU ranges form stages (NULL: none) */
};


void model_free(struct model *m);
/* Move a model to another place (its runs point at its strings); src is left empty. */
void model_move(struct model *dst, struct model *src);
/* Drop the runs from index `from` on (an input that failed midway). */
void model_drop_runs(struct model *m, size_t from);

/* The run's first and last event times of the six (both 0 when it has none). */
void run_bounds(const struct run *r, int64_t *lo, int64_t *hi);



#endif /* MODEL_H */
