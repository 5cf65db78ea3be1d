/*
 * wf_exit.h -- the exit statuses of every `waterfall` command
 * (documented in docs/cli.md; scripts rely on them).
 */
#ifndef WF_EXIT_H
#define WF_EXIT_H

enum {
    WF_EXIT_OK = 0,      /* success */
    WF_EXIT_FAIL = 1,    /* could not write the output, out of memory */
    WF_EXIT_USAGE = 2,   /* bad command line */
    WF_EXIT_INPUT = 3,   /* an input could not be read or is not a trace/log */
    WF_EXIT_PARTIAL = 4, /* done, but part of the input was damaged and skipped */
    WF_GO_ON = -1        /* not an exit: what a command's option parser returns to go ahead */
};

#endif /* WF_EXIT_H */
