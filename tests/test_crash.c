/*
 * test_crash.c -- SIGKILL a recording process at random moments; every
 * trace must be readable, and nothing the recorder had reported written
 * may be missing from it.
 *
 * The child marks unit i (i = 1, 2, ...) in order, one event each, and
 * every 100 marks publishes in shared memory how many events the recorder
 * says it has written to the file (wf_get_stats' recorded: counted after
 * write() returned, so in the page cache, which a SIGKILL does not lose).
 * One thread marks, so those are the first units.  That holds whatever the
 * scheduler does: on a loaded machine the writer may not run for a long
 * while, and the check moves with it.  How far behind the marks the file
 * was at the kill is printed (the durability of marks the writer has not
 * yet copied out is a property of the ring, not checked here).
 */
#include "check.h"
#include "trace_util.h"

#include "wf_clock.h"
#include <waterfall.h>

#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#define HIST 4096 /* checkpoints kept: one per 100 marks */

struct shared {
    atomic_ullong n;                /* checkpoints written */
    unsigned long long mark[HIST];  /* highest unit marked ... */
    unsigned long long when[HIST];  /* ... at this monotonic ns ... */
    unsigned long long written[HIST]; /* ... and the events the recorder had written */
};

static void child(const char *path, struct shared *sh)
{
    if (wf_open(path) != 0)
        _exit(2);
    wf_unit first = 0;
    for (unsigned long long i = 0;; i++) {
        wf_unit u = wf_unit_new("crash", -1);
        if (!first)
            first = u;
        wf_mark(WF_GPU_START, u);
        if (i % 100 == 0) {
            unsigned long long k = atomic_load(&sh->n);
            wf_stats st;
            wf_get_stats(&st);
            sh->mark[k % HIST] = u - first + 1;
            sh->when[k % HIST] = wfc_mono_ns();
            sh->written[k % HIST] = st.recorded;
            atomic_store(&sh->n, k + 1);
            struct timespec ts = {0, 100000}; /* ~1M marks/s would fill the disk; pace it */
            nanosleep(&ts, NULL);
        }
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    const char *path = tmp_path("crash.wft");
    struct shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE,
                             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(sh != MAP_FAILED);
    srand((unsigned)getpid());
    int worst_ok = 1, meaningful = 0, late = 0;
    unsigned long long behind_max = 0;
    /* A round whose writer had written nothing yet (a child slow to start
     * on a loaded machine) proves nothing: up to 3 x rounds are run to get
     * `rounds` that do. */
    for (int r = 0; r < 3 * rounds && meaningful < rounds; r++) {
        atomic_store(&sh->n, 0);
        pid_t pid = fork();
        if (pid == 0)
            child(path, sh);
        struct timespec ts = {0, (long)(150 + rand() % 300) * 1000000L};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        unsigned long long killed_at = wfc_mono_ns();
        int st;
        waitpid(pid, &st, 0);
        CHECK(WIFSIGNALED(st));

        /* What the recorder had reported written (the last checkpoint: it
         * only grows), and, for the record, the highest unit marked at
         * least 100 ms before the kill. */
        unsigned long long must = 0, old = 0, n = atomic_load(&sh->n);
        if (n > 0)
            must = sh->written[(n - 1) % HIST];
        for (unsigned long long k = n > HIST ? n - HIST : 0; k < n; k++)
            if (sh->when[k % HIST] + 100000000ull <= killed_at && sh->mark[k % HIST] > old)
                old = sh->mark[k % HIST];

        /* Killed before its first mark: the file may not have its header
         * yet, and nothing marked can be missing from it. */
        struct stat sb;
        if (n == 0 && (stat(path, &sb) != 0 || sb.st_size == 0)) {
            remove(path);
            continue;
        }
        struct wft_trace tr;
        struct input in;
        CHECK(load_trace(path, &tr, &in) == 0);
        CHECK(!tr.closed);
        CHECK(!tr.corrupt_at && !tr.bad_records);
        /* Units are marked in order, one event each: the first `must` units
         * must all be there. */
        uint64_t first = tr.nunits ? tr.units[0].unit : 0;
        unsigned long long have = 0, have_old = 0;
        for (size_t i = 0; i < tr.nev; i++) {
            have += tr.ev[i].unit - first + 1 <= must;
            have_old += tr.ev[i].unit - first + 1 <= old;
        }
        if (have != must) {
            worst_ok = 0;
            fprintf(stderr, "round %d: %llu of the %llu events the recorder had reported written "
                            "are in the trace (%zu events read)\n",
                    r, have, must, tr.nev);
        }
        if (have_old != old)
            late++;
        if (sh->mark[(n - 1) % HIST] > must && sh->mark[(n - 1) % HIST] - must > behind_max)
            behind_max = sh->mark[(n - 1) % HIST] - must;
        meaningful += must > 0;
        unload_trace(&tr, &in);
    }
    printf("crash: %d rounds with events written; in %d of them an event marked >= 100 ms before the kill "
           "was not yet written (the writer had not run); the file was at most %llu marks behind\n",
           meaningful, late, behind_max);
    CHECK(worst_ok);
    CHECK(meaningful >= rounds / 2); /* a loaded machine may starve a child's start */
    remove(path);
    munmap(sh, sizeof *sh);
    printf("crash: %d kills\n", rounds);
    return check_done("crash");
}
