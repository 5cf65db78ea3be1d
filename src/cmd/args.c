/*
 * args.c -- the commands' option values (see args.h).
 */
#include "args.h"

#include "analyze.h"
#include "kineto_stage.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Edits (insert, delete, replace, swap two neighbours) from a to b, both
 * short (names of commands and options); past 32 bytes, "far". */
static size_t edits(const char *a, size_t la, const char *b, size_t lb)
{
    enum { MAXN = 32 };
    if (la > MAXN || lb > MAXN)
        return MAXN;
    size_t d[MAXN + 1][MAXN + 1];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < c)
                c = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < c)
                c = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < c)
                c = d[i - 2][j - 2] + 1;
            d[i][j] = c;
        }
    return d[la][lb];
}

const char *arg_closest(const char *s, size_t len, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t bd = 3;
    for (size_t i = 0; i < n; i++) {
        size_t e = edits(s, len, names[i], strlen(names[i]));
        if (e < bd && e * 2 < strlen(names[i])) {
            bd = e;
            best = names[i];
        }
    }
    return best;
}

void arg_suggest(const char *cmd, char **argv, const struct option *longopts)
{
    const char *given = optind > 0 ? argv[optind - 1] : NULL;
    if (!given || strncmp(given, "--", 2) != 0)
        return;
    given += 2;
    size_t len = strcspn(given, "=");
    const char *names[128];
    size_t n = 0;
    for (; longopts[n].name && n < sizeof names / sizeof *names; n++)
        names[n] = longopts[n].name;
    for (size_t i = 0; i < n; i++)
        if (strlen(names[i]) == len && strncmp(names[i], given, len) == 0)
            return; /* a known option: getopt's complaint was another (a missing value) */
    const char *best = arg_closest(given, len, names, n);
    if (best)
        fprintf(stderr, "%s: did you mean --%s?\n", cmd, best);
}

int advise_arg(const char *v, const char *cmd, int *mode)
{
    if (!strcmp(v, "sim") || !strcmp(v, "simulation"))
        *mode = 1;
    else if (!strcmp(v, "auto"))
        *mode = -1;
    else if (!strcmp(v, "formula"))
        *mode = 0;
    else {
        fprintf(stderr, "waterfall %s: --advise takes auto, formula or sim, not '%s'\n", cmd, v);
        return -1;
    }
    return 0;
}

int kernel_delay_arg(const char *v, const char *cmd, struct analyze_opts *o)
{
    if (arg_double(cmd, "--consecutive-kernel-delay", v, 0, 1e12, &o->kernel_delay_us))
        return -1;
    o->kernel_delay_set = 1;
    return 0;
}

int stage_arg(const char *v, const char *cmd, struct stage_args *s, struct analyze_opts *o)
{
    const char *eq = strchr(v, '=');
    int stage = eq ? stage_of_name(v, (size_t)(eq - v)) : -1;
    if (stage < 0 || !eq[1]) {
        fprintf(stderr,
                "waterfall %s: --stage takes STAGE=GLOB, STAGE synthesis or prep and GLOB a pattern of CPU range "
                "names (e.g. synthesis='enumerate(DataLoader)*'), not '%s'\n",
                cmd, v);
        return -1;
    }
    if (s->map.n >= STAGE_RULES_MAX) {
        fprintf(stderr, "waterfall %s: --stage: at most %d rules\n", cmd, STAGE_RULES_MAX);
        return -1;
    }
    s->rule[s->map.n++] = (struct stage_rule){stage, eq + 1};
    s->map.rule = s->rule;
    o->stages = &s->map;
    return 0;
}

int kernel_phase_arg(const char *v, const char *cmd, const char **name)
{
    if (!phase_name_ok(v)) {
        fprintf(stderr, "waterfall %s: --kernel-phase takes a phase name (NAME of NAME_START/NAME_END), not '%s'\n",
                cmd, v);
        return -1;
    }
    *name = v;
    return 0;
}
