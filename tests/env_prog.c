/*
 * env_prog.c -- a program instrumented with wf_mark but never calling
 * wf_open: WATERFALL_TRACE alone turns its recording on.  It also forks a
 * child that marks, to show the child writes nothing.
 */
#include <waterfall.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int jobs = argc > 1 ? atoi(argv[1]) : 4;
    int ev = wf_event_define("WITNESS_READY");
    wf_thread_worker(1, 0);
    for (int j = 0; j < jobs; j++) {
        char id[32];
        snprintf(id, sizeof id, "env-%d", j);
        wf_unit u = wf_unit_new(id, j);
        wf_mark(WF_SYNTH_START, u);
        wf_mark((wf_event)ev, u);
        wf_mark(WF_GPU_END, u);
        usleep(1000);
    }
    pid_t pid = fork();
    if (pid == 0) {
        wf_mark(WF_GPU_END, 1);
        return 0;
    }
    waitpid(pid, NULL, 0);
    return 0; /* no wf_close: the library closes at exit */
}
