/*
 * sigbus.c -- a program with a SIGBUS handler of its own: reading a file
 * through the library maps it and installs the library's guard, which
 * must pass every SIGBUS that is not its own read's to the program's
 * handler.  Prints "runs N own-handler K" for the file given (K: how many
 * times the program's handler ran after one raise(SIGBUS)), and a second
 * read after it still works: "again N".
 */
#include <waterfall_analysis.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t own;

static void on_bus(int sig)
{
    (void)sig;
    own++;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_bus;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGBUS, &sa, NULL))
        return 2;
    wfa_result *res;
    wfa_analyze_file(argv[1], NULL, &res);
    size_t runs = res ? wfa_result_runs(res) : 0;
    wfa_result_free(res);
    raise(SIGBUS);
    printf("runs %zu own-handler %d\n", runs, (int)own);
    wfa_analyze_file(argv[1], NULL, &res);
    printf("again %zu\n", res ? wfa_result_runs(res) : 0);
    wfa_result_free(res);
    return 0;
}
