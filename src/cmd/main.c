/*
 * main.c -- the `waterfall` command: picks a subcommand and runs it.
 * Each subcommand lives in its own cmd_*.c and owns its options.
 */
#include "args.h"
#include "cmds.h"
#include "wf_exit.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"analyze", cmd_analyze, "where the GPU's time went: utilization, idle causes, bottleneck, advice"},
    {"diff", cmd_diff, "two runs side by side: the before and after of a change"},
    {"render", cmd_render, "a view of the analysis: interactive HTML, SVG, or Chrome trace (.json, Perfetto)"},
    {"simulate", cmd_simulate, "predict another concurrency, GPU count or channel size (simulated)"},
    {"watch", cmd_watch, "follow a daemon's log as it is written: live view, JSON lines, Prometheus /metrics"},
    {"run", cmd_run, "the reference pipeline: real synthesis and proving, traced"},
    {"dump", cmd_dump, "print a native trace as TIMELINE lines (--stats: its statistics)"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: waterfall <command> [options] [files]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'waterfall <command> --help' (or 'waterfall help <command>') shows a command's options.\n"
               "Exit status: 0 ok, 1 failure, 2 usage, 3 unreadable input, 4 partial input.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return WF_EXIT_USAGE;
    }
    if (strcmp(argv[1], "help") == 0 && argc >= 3) { /* help CMD: that command's --help */
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (strcmp(argv[2], commands[i].name) == 0) {
                char name[64], help[] = "--help";
                snprintf(name, sizeof name, "waterfall %s", commands[i].name);
                char *av[3] = {name, help, NULL};
                return commands[i].run(2, av);
            }
        fprintf(stderr, "waterfall help: unknown command '%s'\n\n", argv[2]);
        usage(stderr);
        return WF_EXIT_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return WF_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("waterfall %s\n", WF_TOOL_VERSION);
        return WF_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0) {
            /* getopt names argv[0] in its messages: "waterfall analyze: ..." */
            char name[64];
            snprintf(name, sizeof name, "waterfall %s", commands[i].name);
            argv[1] = name;
            return commands[i].run(argc - 1, argv + 1);
        }
    const char *names[sizeof commands / sizeof commands[0]];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        names[i] = commands[i].name;
    /* a typo (analyse, anaylze): the command meant */
    const char *near = arg_closest(argv[1], strlen(argv[1]), names, sizeof names / sizeof *names);
    if (near)
        fprintf(stderr, "waterfall: unknown command '%s'; did you mean '%s'?\n\n", argv[1], near);
    else
        fprintf(stderr, "waterfall: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return WF_EXIT_USAGE;
}
