/*
 * load.h -- inputs in, analysed runs out: ingest every input, build the
 * model, analyse each run.  Shared by `analyze` and `diff`.
 */
#ifndef LOAD_H
#define LOAD_H

#include "analyze.h"
#include "ingest.h"
#include "model.h"

struct loaded {
    struct source *src;
    size_t nsrc;
    struct model model;
    struct run_result *res;
    size_t nres;
    int partial; /* some input was damaged or had lines skipped */
};

/* Returns a WF_EXIT_* status; messages (naming the input) go to stderr,
 * prefixed with cmd. */
int load_inputs(struct loaded *l, char **paths, int npaths, int progress, const char *cmd);
void loaded_free(struct loaded *l);

#endif /* LOAD_H */
