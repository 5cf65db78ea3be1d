/*
 * args.c -- the commands' option values (see args.h).
 */
#include "args.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int arg_long(const char *cmd, const char *opt, const char *v, long lo, long hi, long *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (end == v || *end || x < lo || x > hi) {
        fprintf(stderr, "waterfall %s: %s takes a whole number from %ld to %ld, not '%s'\n", cmd, opt, lo, hi, v);
        return -1;
    }
    *out = x;
    return 0;
}

int arg_double(const char *cmd, const char *opt, const char *v, double lo, double hi, double *out)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || !isfinite(x) || x < lo || x > hi) {
        fprintf(stderr, "waterfall %s: %s takes a number from %g to %g, not '%s'\n", cmd, opt, lo, hi, v);
        return -1;
    }
    *out = x;
    return 0;
}
