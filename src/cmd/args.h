/*
 * args.h -- the commands' option values, parsed one way: a number out of
 * its range, or not a number at all, is a usage error whose message names
 * the command, the option, the range and what was given.
 */
#ifndef ARGS_H
#define ARGS_H

#include <stddef.h>

/* A whole number in [lo, hi] into *out: 0, or -1 with on stderr
 * "waterfall CMD: OPT takes a whole number from LO to HI, not 'V'". */
int arg_long(const char *cmd, const char *opt, const char *v, long lo, long hi, long *out);

/* A finite number in [lo, hi] into *out: 0, or -1 with on stderr
 * "waterfall CMD: OPT takes a number from LO to HI, not 'V'". */
int arg_double(const char *cmd, const char *opt, const char *v, double lo, double hi, double *out);

/* The name in names[0..n) closest to s (at most 2 edits away, and fewer
 * than half its length: a typo, not another word), or NULL. */
const char *arg_closest(const char *s, size_t len, const char *const *names, size_t n);

/* After getopt_long answered '?': when what was given (argv[optind - 1])
 * is an unknown long option close to one of longopts, "waterfall CMD: did
 * you mean --NAME?" on stderr. */
struct option;
void arg_suggest(const char *cmd, char **argv, const struct option *longopts);

/* --advise MODEL: auto, formula or sim; 0, or -1 with the reason on
 * stderr. */
int advise_arg(const char *v, const char *cmd, int *mode);

/* --kernel-phase NAME: *name = v (an argument: it outlives the results),
 * 0; or -1 with the reason on stderr when NAME is not an event name's stem
 * (phase_name_ok). */
int kernel_phase_arg(const char *v, const char *cmd, const char **name);
/* --consecutive-kernel-delay US (PyTorch traces: HTA's kernel_wait
 * threshold, in the trace's µs as HTA's code compares it) into o.
 * 0, or -1 with a message on stderr. */
struct analyze_opts;
int kernel_delay_arg(const char *v, const char *cmd, struct analyze_opts *o);

/* --stage STAGE=GLOB (PyTorch traces: the CPU ranges whose names match
 * GLOB are that stage's, synthesis or prep; read/kineto_stage.h): a rule
 * added to s, and o->stages pointed at its map.  0, or -1 with a message
 * on stderr. */
#include "model.h"
#define STAGE_RULES_MAX 16
struct stage_args {
    struct stage_rule rule[STAGE_RULES_MAX];
    struct stage_map map;
};
int stage_arg(const char *v, const char *cmd, struct stage_args *s, struct analyze_opts *o);

#endif /* ARGS_H */
