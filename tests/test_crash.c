/*
 * test_crash.c -- SIGKILL a recording process at random moments, while
 * two CPU-bound processes run beside it; every trace must be readable, and
 * every event whose mark had returned before the process's last progress
 * report must be in it, once.
 *
 * The child marks unit i (i = 1, 2, ...) in order, one event each, and
 * after each mark reports in shared memory how many marks have returned.
 * Its writer may not have run for a long while (the CPU hogs see to that
 * now and then): the marks it had not copied out are read back from the
 * rings file (PATH.rings, lib/wf_shm.c) by the reader, as `waterfall`
 * reads them.  One round also stops the writer for good before marking on
 * (WATERFALL_TEST_STALL, test-only), so that everything after the stop is
 * in the rings file alone; a last one stops it before it ever runs, so
 * that the thread's name, role and lost count come from there too.
 *
 * Usage: test_crash [ROUNDS]   (default 20; CI runs 100)
 */
#include "check.h"
#include "trace_util.h"

#include <waterfall.h>

#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#define STALL_AFTER 20000 /* the stall round: marks before the writer stops ... */
#define STALL_MARKS 40000 /* ... and after (fewer than a ring holds: none is dropped) */

struct shared {
    atomic_ullong first;  /* the first unit's id (0: not yet) */
    atomic_ullong marked; /* marks returned so far: the progress report */
    atomic_int stalled;   /* the stall round: the child has marked all it will */
};

static void child(const char *path, const char *stall, struct shared *sh)
{
    if (stall)
        setenv("WATERFALL_TEST_STALL", stall, 1);
    if (wf_open(path) != 0)
        _exit(2);
    for (unsigned long long i = 0;; i++) {
        if (stall && i == STALL_AFTER) {
            close(open(stall, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)); /* the writer stops at its next pass */
            struct timespec ts = {0, 30000000}; /* three of its periods: it has stopped */
            nanosleep(&ts, NULL);
        }
        if (stall && i == STALL_AFTER + STALL_MARKS) {
            atomic_store(&sh->stalled, 1);
            pause();
        }
        wf_unit u = wf_unit_new("crash", -1);
        if (i == 0)
            atomic_store(&sh->first, u);
        wf_mark(WF_GPU_START, u);
        atomic_store_explicit(&sh->marked, i + 1, memory_order_release);
        if (i % 100 == 99) {
            struct timespec ts = {0, 100000}; /* ~1M marks/s would fill the disk; pace it */
            nanosleep(&ts, NULL);
        }
    }
}

/* The writer never runs: the thread's name, role and lost count are in
 * the rings file alone.  It marks more than its ring holds (the ring
 * drops the rest, and counts them). */
#define NAMES_MARKS 70000
static void names_child(const char *path, const char *stall, struct shared *sh)
{
    setenv("WATERFALL_TEST_STALL", stall, 1);
    close(open(stall, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)); /* before its first pass */
    if (wf_open(path) != 0)
        _exit(2);
    wf_thread_name("marker");
    wf_thread_worker(2, 1);
    for (int i = 0; i < NAMES_MARKS; i++)
        wf_mark(WF_GPU_END, wf_unit_new("names", i));
    atomic_store(&sh->stalled, 1);
    pause();
    _exit(0);
}

static void names_round(const char *path, const char *stall, struct shared *sh)
{
    atomic_store(&sh->stalled, 0);
    remove(stall);
    pid_t pid = fork();
    if (pid == 0)
        names_child(path, stall, sh);
    for (int w = 0; w < 3000 && !atomic_load(&sh->stalled); w++) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    CHECK(atomic_load(&sh->stalled));
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    struct wft_trace tr;
    struct input in;
    CHECK(load_trace(path, &tr, &in) == 0);
    CHECK(tr.rings == WFT_RINGS_READ);
    CHECK(tr.nthreads == 1);
    if (tr.nthreads == 1) {
        const struct wft_thread_info *th = &tr.threads[0];
        CHECK(strcmp(th->name, "marker") == 0);
        CHECK(th->worker == 2 && th->device == 1);
        CHECK(th->lost > 0 && th->events + th->lost == NAMES_MARKS);
        CHECK(tr.nunits == NAMES_MARKS); /* every unit's definition, from the journal */
        printf("crash: a writer that never ran: %llu events, %llu lost (the ring was full), thread \"%s\" "
               "worker %d device %d, %zu units: all from the rings file\n",
               (unsigned long long)th->events, (unsigned long long)th->lost, th->name, th->worker, th->device,
               tr.nunits);
    }
    unload_trace(&tr, &in);
}

/* A write cut short by the process's death may leave a thread's events
 * in the file without the SEQ record that follows them.  The trace is
 * cut just before its last SEQ (the rings file beside the cut copy): the
 * events after the SEQ before it must not be taken twice, nor any missed. */
static void cut_at_last_seq(const char *path, const char *rings, unsigned long long first, unsigned long long n)
{
    const char *cut = tmp_path("crash-cut.wft");
    char cut_rings[600], cmd[2048];
    snprintf(cut_rings, sizeof cut_rings, "%s.rings", cut);
    struct input in;
    char err[512];
    CHECK(input_open(&in, path, err, sizeof err) == 0);
    size_t last = 0;
    for (size_t off = WFT_HEADER_SIZE; off + sizeof(struct wft_rec) <= in.len;) {
        struct wft_rec r;
        memcpy(&r, in.data + off, sizeof r);
        if (r.size < sizeof r || off + r.size > in.len)
            break;
        if (r.type == WFT_SEQ)
            last = off;
        off += r.size;
    }
    CHECK(last > 0);
    FILE *f = fopen(cut, "wb");
    CHECK(f && fwrite(in.data, 1, last, f) == last);
    if (f)
        fclose(f);
    input_close(&in);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", rings, cut_rings);
    CHECK(run_status(cmd) == 0);
    struct wft_trace tr;
    CHECK(load_trace(cut, &tr, &in) == 0);
    unsigned long long have = 0, twice = 0;
    uint64_t prev = 0;
    for (size_t i = 0; i < tr.nev; i++) { /* sorted by time: a unit's one event */
        have += tr.ev[i].unit >= first && tr.ev[i].unit - first < n;
        twice += i > 0 && tr.ev[i].unit == prev;
        prev = tr.ev[i].unit;
    }
    CHECK(have == n && twice == 0);
    printf("crash: the trace cut before its last SEQ: %llu of %llu events, %llu twice\n", have, n, twice);
    unload_trace(&tr, &in);
    remove(cut);
    remove(cut_rings);
}

/* A process that spins until killed (or until the test dies). */
static pid_t hog(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        for (volatile unsigned long long x = 0;; x++)
            ;
    }
    return pid;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    const char *path = tmp_path("crash.wft"), *stall = tmp_path("crash.stall");
    char rings[600];
    snprintf(rings, sizeof rings, "%s.rings", path);
    struct shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(sh != MAP_FAILED);
    srand((unsigned)getpid());
    pid_t hogs[2] = {hog(), hog()};
    int all_ok = 1, meaningful = 0, from_rings = 0;
    unsigned long long rings_max = 0;
    for (int r = 0; r < rounds; r++) {
        int stalling = r == rounds / 2; /* one round, half way */
        atomic_store(&sh->first, 0);
        atomic_store(&sh->marked, 0);
        atomic_store(&sh->stalled, 0);
        remove(stall);
        pid_t pid = fork();
        if (pid == 0)
            child(path, stalling ? stall : NULL, sh);
        if (stalling) { /* killed once all its marks after the stop are made */
            for (int w = 0; w < 3000 && !atomic_load(&sh->stalled); w++) {
                struct timespec ts = {0, 10000000};
                nanosleep(&ts, NULL);
            }
            CHECK(atomic_load(&sh->stalled));
        } else {
            struct timespec ts = {0, (long)(20 + rand() % 430) * 1000000L};
            nanosleep(&ts, NULL);
        }
        kill(pid, SIGKILL);
        int st;
        waitpid(pid, &st, 0);
        CHECK(WIFSIGNALED(st));

        unsigned long long first = atomic_load(&sh->first), n = atomic_load_explicit(&sh->marked, memory_order_acquire);
        /* Killed before its first mark: the file may not have its header
         * yet, and nothing marked can be missing from it. */
        struct stat sb;
        if (n == 0 && (stat(path, &sb) != 0 || sb.st_size == 0))
            continue;
        struct wft_trace tr;
        struct input in;
        CHECK(load_trace(path, &tr, &in) == 0);
        CHECK(!tr.closed);
        CHECK(!tr.corrupt_at && !tr.bad_records);
        CHECK(tr.rings == WFT_RINGS_READ);
        /* Units are marked in order, one event each: units first .. first+n-1
         * must each be there once (a unit marked after the report may be
         * there too). */
        unsigned long long have = 0;
        for (size_t i = 0; i < tr.nev; i++)
            have += tr.ev[i].unit >= first && tr.ev[i].unit - first < n;
        if (have != n || tr.lost) {
            all_ok = 0;
            fprintf(stderr,
                    "round %d: %llu events of the %llu whose marks had returned are in the trace "
                    "(%zu events read, %llu from the rings file; %llu lost)\n",
                    r, have, n, tr.nev, (unsigned long long)tr.rings_events, (unsigned long long)tr.lost);
        }
        if (stalling) { /* everything after the stop came from the rings file alone */
            CHECK(tr.rings_events >= STALL_MARKS);
            CHECK(tr.rings_dropped == 0);
            printf("crash: the writer stopped for good after %d marks; %llu events were read from the rings file\n",
                   STALL_AFTER, (unsigned long long)tr.rings_events);
            cut_at_last_seq(path, rings, first, n);
        }
        from_rings += tr.rings_events > 0;
        if (tr.rings_events > rings_max)
            rings_max = tr.rings_events;
        meaningful += n > 0;
        unload_trace(&tr, &in);
    }
    names_round(path, stall, sh);
    kill(hogs[0], SIGKILL);
    kill(hogs[1], SIGKILL);
    waitpid(hogs[0], NULL, 0);
    waitpid(hogs[1], NULL, 0);
    printf("crash: %d kills beside two CPU-bound processes, %d with marks; in %d the writer had not written "
           "every mark (up to %llu events read from the rings file); nothing missing: %s\n",
           rounds, meaningful, from_rings, rings_max, all_ok ? "yes" : "NO");
    CHECK(all_ok);
    CHECK(meaningful >= rounds / 2); /* a loaded machine may starve a child's start */
    remove(path);
    remove(rings);
    remove(stall);
    munmap(sh, sizeof *sh);
    return check_done("crash");
}
