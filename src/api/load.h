/*
 * load.h -- inputs in, analysed runs out: ingest every input, build the
 * model, analyse each run.  Shared by `analyze` and `diff`.
 */
#ifndef LOAD_H
#define LOAD_H

#include "analyze.h"
#include "ingest.h"
#include "model.h"

#include <stdio.h>

struct loaded {
    struct source *src;
    size_t nsrc;
    struct model model;
    struct run_result *res;
    size_t nres;
    int partial; /* some input was damaged, lost events or had lines skipped */
    int failed_inputs; /* inputs that could not be read or held nothing usable */
    int oom;           /* an input could not be read for want of memory */
    FILE *msgs;        /* where the messages go (the command's stderr, or the library's buffer) */
};

/* Returns a WF_EXIT_* status; messages (naming the input) go to stderr,
 * prefixed with cmd.  An input that cannot be read is reported and left
 * out: the others are still analysed (l->nres > 0) and the status is
 * WF_EXIT_INPUT.  o: the analysis's options (NULL: the defaults), its
 * keep what the command shows of each device's gaps and idle stretches. */
int load_inputs(struct loaded *l, char **paths, int npaths, int progress, const char *cmd,
                const struct analyze_opts *o);
/* Analyse the runs of l->model (built by the caller: l->msgs set, the
 * rest zero or as load_inputs leaves it): a WF_EXIT_* status. */
int loaded_analyze(struct loaded *l, const char *cmd, const struct analyze_opts *o);
/* load_inputs, its messages to msgs. */
int load_inputs_to(struct loaded *l, char **paths, int npaths, int progress, const char *cmd,
                   const struct analyze_opts *o, FILE *msgs);
/* One open file or pipe (fd, not closed), named name in messages. */
int load_fd_to(struct loaded *l, int fd, const char *name, const char *cmd, const struct analyze_opts *o,
               FILE *msgs);
void loaded_free(struct loaded *l);
/* The one line on stderr that says why a command exits 4 (partial). */
void loaded_partial_note(const struct loaded *l, const char *cmd);

/* The status once the output is written: WF_EXIT_FAIL when the write
 * failed (said on stderr: "<cmd>: <what> failed"), else PARTIAL where rc
 * is OK and some input was damaged (said by loaded_partial_note), else rc. */
int loaded_status(const struct loaded *l, int rc, int write_failed, const char *cmd, const char *what);

/* The advice every view shows (analyze's report, render's HTML summary):
 * the simulator's where it can run, else the formula's; one computation
 * for all, so that no view advises otherwise than another.  mode: -1 auto
 * (the simulator where a contention model is measured from CPU samples or
 * the timing shows contention), 0 the formula, 1 the simulator;
 * trace_cores: the recording machine's cores (0: the trace's, else this
 * machine's).  A run the simulation cannot run for keeps the formula's,
 * said on stderr with cmd. */
void loaded_advise(struct loaded *l, int mode, double trace_cores, const char *cmd);
#endif /* LOAD_H */
