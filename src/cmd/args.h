/*
 * args.h -- the commands' option values, parsed one way: a number out of
 * its range, or not a number at all, is a usage error whose message names
 * the command, the option, the range and what was given.
 */
#ifndef ARGS_H
#define ARGS_H

/* A whole number in [lo, hi] into *out: 0, or -1 with on stderr
 * "waterfall CMD: OPT takes a whole number from LO to HI, not 'V'". */
int arg_long(const char *cmd, const char *opt, const char *v, long lo, long hi, long *out);

/* A finite number in [lo, hi] into *out: 0, or -1 with on stderr
 * "waterfall CMD: OPT takes a number from LO to HI, not 'V'". */
int arg_double(const char *cmd, const char *opt, const char *v, double lo, double hi, double *out);

#endif /* ARGS_H */
