/*
 * bench_mark.c -- what one wf_mark costs, side by side with
 *
 *   floor    reading the TSC (wfc_ticks, as wf_mark does) and storing it with
 *            the event word into a 64Ki x 16-byte ring, the recorder's size;
 *   LTTng    one LTTng-UST tracepoint (wf_bench:mark) with an active session
 *            that this program creates and destroys (lttng create/destroy);
 *   fprintf  the story's method: one TIMELINE line fprintf'd and fflush'd per
 *            event to a file in /tmp;
 *
 * then the sustained test: 1M marks/s for 10 s with default settings, 0 lost.
 *
 * Method.  Every method marks the same pattern: groups of the six points of
 * a unit, units cycling over 64 from wf_unit_new.  A round is 20 timed
 * batches of 49152 events (983040 events; fprintf, ~1000x slower, runs a
 * quarter of them).  A batch is 3/4 of the default ring; after each one the
 * program waits, untimed, for the writer to drain (wf_mark) or pauses 2 ms
 * (the others; LTTng's consumer catches up), so every timed mark takes the
 * recording path, never the ring-full drop.
 * The rounds of all methods are interleaved round-robin, with the starting
 * method rotating, so a noisy host's drift hits all of them alike; each row
 * reports the median and the minimum over the rounds.  Nothing is pinned.
 *
 * Environment:
 *   WF_BENCH_QUICK=1    smoke test: 5 rounds of 4 batches, 1 s sustained
 *   WF_BENCH_ROUNDS=N   rounds (default 15)
 *   WF_BENCH_EVENTS=N   events per round (default 1000000, in whole batches)
 *   WF_BENCH_SECONDS=N  length of the sustained test (default 10)
 *   WF_BENCH_VERBOSE=1  each round's figure on stderr
 *
 * Stdout is the table; a one-line notice goes to stderr.  The exit status is
 * 0 unless the benchmark could not run (a missed target is reported, not an
 * error; LTTng being unavailable makes its row "skipped: <reason>").
 */
#include <waterfall.h>

#include "wf_clock.h"

#ifdef WF_BENCH_LTTNG
#include "wf_bench_tp.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define WF_BENCH_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define WF_BENCH_SANITIZED 1
#endif
#endif

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#else
#define cpu_relax() ((void)0)
#endif

#define GROUP 6                          /* a unit's six marks */
#define BATCH_GROUPS 8192                /* 49152 events a batch */
#define BATCH_EVENTS (BATCH_GROUPS * GROUP)
#define NUNITS 64                        /* units cycled over */
#define FLOOR_SLOTS 65536                /* the recorder's default ring */
#define UNIT_MASK ((UINT64_C(1) << 48) - 1)
#define SETTLE_NS 2000000u               /* pause after a batch (not wf) */
#define MAX_ROUNDS 1000

/* Six calls, one per point, spelled out so no method depends on unrolling. */
#define SIX(X) X(0) X(1) X(2) X(3) X(4) X(5)

/* Ctrl-C, SIGTERM, SIGHUP, SIGPIPE: stop at the next batch and clean up
 * (the LTTng session, the files in /tmp) instead of leaving them behind. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    interrupted = sig;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static long env_long(const char *name, long dflt, long lo, long hi)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    long x = strtol(v, &end, 10);
    if (*end || x < lo || x > hi) {
        fprintf(stderr, "bench_mark: ignoring %s=%s (want %ld..%ld)\n", name, v, lo, hi);
        return dflt;
    }
    return x;
}

/* ------------------------------------------------------------------ */
/* The units and what the text method prints for them                 */

static wf_unit units[NUNITS];
static char jobs[NUNITS][24];
static char details[NUNITS][24];
static const char *const evnames[GROUP] = {"SYNTH_START", "SYNTH_END",  "CHAN_SEND",
                                           "GPU_PICKUP",  "GPU_START", "GPU_END"};

/* ------------------------------------------------------------------ */
/* The methods: each runs groups x 6 events and returns the ns it took */

/* The floor: TSC read + 16-byte store into a ring of the recorder's size.
 * The ring escapes into an asm with a memory clobber after the loop, so the
 * compiler must perform every store; __rdtsc is volatile, so none merge. */
struct floor_slot {
    uint64_t ticks;
    uint64_t word;
};
static _Alignas(64) struct floor_slot floor_ring[FLOOR_SLOTS];
static uint64_t floor_head;

static uint64_t floor_batch(size_t groups)
{
    uint64_t t0 = now_ns();
    uint64_t h = floor_head;
    for (size_t g = 0; g < groups; g++) {
        uint64_t w = units[g & (NUNITS - 1)] & UNIT_MASK;
#define FLOOR_ONE(e)                                                      \
    {                                                                     \
        struct floor_slot *s = &floor_ring[h++ & (FLOOR_SLOTS - 1)];      \
        s->ticks = wfc_ticks();                                           \
        s->word = w | (uint64_t)(e) << 48;                                \
    }
        SIX(FLOOR_ONE)
    }
    floor_head = h;
    __asm__ volatile("" : : "r"(floor_ring) : "memory");
    return now_ns() - t0;
}

static uint64_t wf_batch(size_t groups)
{
    uint64_t t0 = now_ns();
    for (size_t g = 0; g < groups; g++) {
        wf_unit u = units[g & (NUNITS - 1)];
#define WF_ONE(e) wf_mark((wf_event)(e), u);
        SIX(WF_ONE)
    }
    return now_ns() - t0;
}

#ifdef WF_BENCH_LTTNG
static uint64_t lttng_batch(size_t groups)
{
    uint64_t t0 = now_ns();
    for (size_t g = 0; g < groups; g++) {
        uint64_t u = units[g & (NUNITS - 1)];
#define LTTNG_ONE(e) lttng_ust_tracepoint(wf_bench, mark, u, e);
        SIX(LTTNG_ONE)
    }
    return now_ns() - t0;
}
#endif

/* The story's method: a clock read, a formatted line and a flush per event. */
static FILE *text_file;

static uint64_t fprintf_batch(size_t groups)
{
    uint64_t t0 = now_ns();
    for (size_t g = 0; g < groups; g++) {
        const char *job = jobs[g & (NUNITS - 1)], *detail = details[g & (NUNITS - 1)];
#define FPRINTF_ONE(e)                                                             \
    {                                                                              \
        struct timespec ts;                                                        \
        clock_gettime(CLOCK_REALTIME, &ts);                                        \
        unsigned long long ms = (unsigned long long)ts.tv_sec * 1000u +            \
                                (unsigned long long)(ts.tv_nsec / 1000000);        \
        fprintf(text_file, "TIMELINE,%llu,%s,%s,%s\n", ms, evnames[e], job, detail); \
        fflush(text_file);                                                         \
    }
        SIX(FPRINTF_ONE)
    }
    return now_ns() - t0;
}

/* ------------------------------------------------------------------ */
/* Two threads marking at once: the main thread and one helper         */

static struct {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned gen;  /* under mu: batch number, bumped by main */
    unsigned done; /* under mu: last batch the helper finished */
    int quit;      /* under mu */
    size_t groups;
    uint64_t ns;          /* the helper's time for its batch */
    _Atomic unsigned ready; /* the helper is awake for batch gen */
    _Atomic unsigned go;    /* both start batch gen */
} duo = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static void spin_until(_Atomic unsigned *v, unsigned want)
{
    for (unsigned n = 1; atomic_load_explicit(v, memory_order_acquire) != want; n++) {
        cpu_relax();
        if (n % 4096 == 0)
            sched_yield(); /* 2 cores: let the other one be scheduled */
    }
}

static void *duo_helper(void *arg)
{
    (void)arg;
    wf_thread_name("bench-helper");
    pthread_mutex_lock(&duo.mu);
    unsigned seen = 0;
    for (;;) {
        while (duo.gen == seen && !duo.quit)
            pthread_cond_wait(&duo.cv, &duo.mu);
        if (duo.quit)
            break;
        seen = duo.gen;
        size_t groups = duo.groups;
        pthread_mutex_unlock(&duo.mu);
        atomic_store_explicit(&duo.ready, seen, memory_order_release);
        spin_until(&duo.go, seen);
        uint64_t ns = wf_batch(groups);
        pthread_mutex_lock(&duo.mu);
        duo.ns = ns;
        duo.done = seen;
        pthread_cond_broadcast(&duo.cv);
    }
    pthread_mutex_unlock(&duo.mu);
    return NULL;
}

/* Both threads run a batch starting together; the per-thread cost is the
 * sum of their times over twice the events, so the caller gets the sum. */
static uint64_t wf2_batch(size_t groups)
{
    pthread_mutex_lock(&duo.mu);
    unsigned gen = ++duo.gen;
    duo.groups = groups;
    pthread_cond_broadcast(&duo.cv);
    pthread_mutex_unlock(&duo.mu);
    spin_until(&duo.ready, gen);
    atomic_store_explicit(&duo.go, gen, memory_order_release);
    uint64_t mine = wf_batch(groups);
    pthread_mutex_lock(&duo.mu);
    while (duo.done != gen)
        pthread_cond_wait(&duo.cv, &duo.mu);
    uint64_t theirs = duo.ns;
    pthread_mutex_unlock(&duo.mu);
    return mine + theirs;
}

/* Untimed, after a wf batch: wait until the writer has taken every mark. */
static void wf_drain(void)
{
    uint64_t t0 = now_ns();
    for (;;) {
        wf_stats st;
        wf_get_stats(&st);
        if (st.recorded + st.lost >= st.marked || now_ns() - t0 > 5000000000u)
            return;
        sleep_ns(500000);
    }
}

static void settle(void)
{
    sleep_ns(SETTLE_NS);
}

#ifdef WF_BENCH_LTTNG
/* ------------------------------------------------------------------ */
/* Running commands (lttng) and cleaning up                            */

/* Run argv with stdout+stderr captured into out; the exit status, or -1
 * with out explaining (not found, timed out). */
static int run_cmd(char *out, size_t outsz, char *const argv[])
{
    int p[2];
    out[0] = 0;
    if (pipe(p) < 0) {
        snprintf(out, outsz, "pipe: %s", strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addclose(&fa, p[0]);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_adddup2(&fa, p[1], 2);
    posix_spawn_file_actions_addclose(&fa, p[1]);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(p[1]);
    if (rc) {
        close(p[0]);
        snprintf(out, outsz, "%s: %s", argv[0],
                 rc == ENOENT ? "command not found" : strerror(rc));
        return -1;
    }
    size_t len = 0;
    uint64_t deadline = now_ns() + 60000000000u;
    int timed_out = 0;
    for (;;) {
        uint64_t t = now_ns();
        if (t >= deadline) {
            timed_out = 1;
            kill(pid, SIGKILL);
            break;
        }
        struct pollfd pf = {.fd = p[0], .events = POLLIN};
        int n = poll(&pf, 1, (int)((deadline - t) / 1000000u) + 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            continue;
        char buf[4096];
        ssize_t r = read(p[0], buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        size_t take = (size_t)r;
        if (len + take >= outsz)
            take = outsz - 1 - len;
        memcpy(out + len, buf, take);
        len += take;
        out[len] = 0;
    }
    close(p[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (timed_out) {
        snprintf(out, outsz, "%s: timed out after 60 s", argv[0]);
        return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The first non-empty line of s, trimmed, for a one-line reason. */
static const char *first_line(char *s)
{
    while (*s == '\n' || *s == ' ' || *s == '\r')
        s++;
    char *nl = strchr(s, '\n');
    if (nl)
        *nl = 0;
    return *s ? s : "(no output)";
}

static uint64_t tree_bytes;

static int tree_size_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)path;
    (void)ftw;
    if (flag == FTW_F)
        tree_bytes += (uint64_t)sb->st_size;
    return 0;
}

static int tree_rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static uint64_t tree_size(const char *dir)
{
    tree_bytes = 0;
    nftw(dir, tree_size_one, 16, FTW_PHYS);
    return tree_bytes;
}

static void tree_rm(const char *dir)
{
    nftw(dir, tree_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif /* WF_BENCH_LTTNG */

/* ------------------------------------------------------------------ */
/* The LTTng session                                                   */

static struct {
    int active;         /* session created */
    char name[64];
    char dir[64];
    char skipped[512];  /* nonempty: the row's "skipped: ..." reason */
    uint64_t events;    /* tracepoints fired with the session active */
    uint64_t discarded; /* from lttng list, after stop */
    int discarded_known;
    uint64_t bytes;     /* trace written by the consumer */
    unsigned long subbuf; /* sub-buffer size; 4 of them a CPU */
} lt;

#ifdef WF_BENCH_LTTNG
static int lttng(const char *what, char *const argv[])
{
    char out[4096];
    int rc = run_cmd(out, sizeof out, argv);
    if (rc < 0 && !lt.skipped[0]) /* could not run it */
        snprintf(lt.skipped, sizeof lt.skipped, "%.400s", out);
    else if (rc != 0 && !lt.skipped[0])
        snprintf(lt.skipped, sizeof lt.skipped, "%s failed: %.400s", what, first_line(out));
    return rc;
}

static void lttng_end(void);

/* Create, configure and start the session; on failure lt.skipped says why. */
static void lttng_begin(void)
{
    snprintf(lt.name, sizeof lt.name, "wfbench-%ld", (long)getpid());
    snprintf(lt.dir, sizeof lt.dir, "/tmp/wfbench-lttng-XXXXXX");
    if (!mkdtemp(lt.dir)) {
        snprintf(lt.skipped, sizeof lt.skipped, "mkdtemp: %s", strerror(errno));
        lt.dir[0] = 0;
        return;
    }
    char output[128];
    snprintf(output, sizeof output, "--output=%s", lt.dir);
    /* `lttng create` spawns lttng-sessiond when none is running. */
    if (lttng("lttng create", (char *[]){"lttng", "create", lt.name, output, NULL})) {
        lttng_end();
        return;
    }
    lt.active = 1;
    /* A batch is ~0.9 MB of trace; the default channel (4 x 512 KiB a CPU)
     * holds it, but drops events when a busy host starves the consumer.
     * Per-user buffers exist for every CPU, so give them 64 MiB in all,
     * 2 to 16 MiB a CPU: the row then times recording, not discarding (the
     * discarded count under the table checks it). */
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    unsigned long per_cpu = 16ul << 20;
    while (per_cpu > (2ul << 20) && ncpu > 0 && per_cpu * (unsigned long)ncpu > (64ul << 20))
        per_cpu >>= 1;
    lt.subbuf = per_cpu / 4;
    char subbuf[64];
    snprintf(subbuf, sizeof subbuf, "--subbuf-size=%lu", lt.subbuf);
    if (lttng("lttng enable-channel",
              (char *[]){"lttng", "enable-channel", "--userspace", "--session", lt.name,
                         subbuf, "--num-subbuf=4", "wfbench", NULL}) ||
        lttng("lttng enable-event",
              (char *[]){"lttng", "enable-event", "--userspace", "--session", lt.name,
                         "--channel=wfbench", "wf_bench:*", NULL}) ||
        lttng("lttng start", (char *[]){"lttng", "start", lt.name, NULL})) {
        lttng_end();
        return;
    }
    /* This process registers with the session daemon asynchronously when
     * the daemon was started after it: wait for the tracepoint to be armed. */
    uint64_t t0 = now_ns();
    while (!lttng_ust_tracepoint_enabled(wf_bench, mark)) {
        if (now_ns() - t0 > 10000000000u || interrupted) {
            snprintf(lt.skipped, sizeof lt.skipped,
                     "wf_bench:mark not enabled in this process 10 s after lttng start "
                     "(not registered with lttng-sessiond?)");
            lttng_end();
            return;
        }
        sleep_ns(10000000);
    }
    sleep_ns(100000000); /* let the registration finish on the daemon's side */
}

/* Stop (flushing the buffers), read the discarded count, destroy, measure. */
static void lttng_end(void)
{
    if (lt.active) {
        char out[16384];
        lttng("lttng stop", (char *[]){"lttng", "stop", lt.name, NULL});
        if (run_cmd(out, sizeof out, (char *[]){"lttng", "list", lt.name, NULL}) == 0) {
            for (char *p = out; (p = strstr(p, "Discarded events:")) != NULL; p++) {
                lt.discarded += strtoull(p + strlen("Discarded events:"), NULL, 10);
                lt.discarded_known = 1;
            }
        }
        lttng("lttng destroy", (char *[]){"lttng", "destroy", lt.name, NULL});
        lt.active = 0;
    }
    if (lt.dir[0]) {
        lt.bytes = tree_size(lt.dir);
        tree_rm(lt.dir);
        lt.dir[0] = 0;
    }
}
#endif

/* ------------------------------------------------------------------ */
/* Rounds and the table                                                */

enum { M_FLOOR, M_WF1, M_WF2, M_LTTNG, M_FPRINTF, NMETHODS };

struct method {
    const char *label;
    uint64_t (*batch)(size_t groups);
    void (*after)(void); /* untimed, after each batch */
    int threads;         /* the batch's time covers this many x the events */
    int share;           /* runs 1/share of the batches of a round */
    int on;
    const char *skipped;
    double ns[MAX_ROUNDS]; /* per event, each round */
};

static struct method methods[NMETHODS] = {
    [M_FLOOR] = {.label = "floor: TSC read + 16 B store, 64Ki ring",
                 .batch = floor_batch, .after = settle, .threads = 1, .share = 1, .on = 1},
    [M_WF1] = {.label = "wf_mark, 1 thread",
               .batch = wf_batch, .after = wf_drain, .threads = 1, .share = 1, .on = 1},
    [M_WF2] = {.label = "wf_mark, 2 threads at once (per thread)",
               .batch = wf2_batch, .after = wf_drain, .threads = 2, .share = 1, .on = 1},
#ifdef WF_BENCH_LTTNG
    [M_LTTNG] = {.label = "LTTng-UST tracepoint, session active",
                 .batch = lttng_batch, .after = settle, .threads = 1, .share = 1, .on = 1},
#else
    [M_LTTNG] = {.label = "LTTng-UST tracepoint, session active", .threads = 1, .share = 1},
#endif
    /* 2-4 us an event (a write(2) each): a quarter of the events is plenty
     * for its median and keeps the whole run near 30 s instead of a minute. */
    [M_FPRINTF] = {.label = "fprintf + fflush TIMELINE line",
                   .batch = fprintf_batch, .after = settle, .threads = 1, .share = 4, .on = 1},
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(const double *v, int n)
{
    double s[MAX_ROUNDS];
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double min_of(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        if (v[i] < m)
            m = v[i];
    return m;
}

static int batches_of(const struct method *m, int batches)
{
    return batches / m->share > 0 ? batches / m->share : 1;
}

static double round_of(struct method *m, int batches)
{
    uint64_t ns = 0;
    if (m->batch == fprintf_batch) { /* keep the file one round long */
        fflush(text_file);
        if (ftruncate(fileno(text_file), 0) == 0)
            rewind(text_file);
    }
    for (int b = 0; b < batches && !interrupted; b++) {
        ns += m->batch(BATCH_GROUPS);
        m->after();
    }
    return (double)ns / ((double)batches * BATCH_EVENTS * m->threads);
}

static void print_ratio(const char *what, double x, const char *op, double target, int pass)
{
    char t[32];
    snprintf(t, sizeof t, "(target %s %g)", op, target);
    printf("  %-18s = %8.2f   %-17s %s\n", what, x, t, pass ? "PASS" : "MISS");
}

/* ------------------------------------------------------------------ */
/* Sustained load                                                      */

struct sustained {
    uint64_t want, marked_by_us, skipped_ms, max_gap_ns;
    double wall_s;
    wf_stats st;
    int close_rc;
};

/* 1000 marks per millisecond, paced by the clock: a burst of 1000, then spin
 * to the next millisecond boundary.  When the thread was descheduled past a
 * boundary it does not catch up (a stalled producer makes no marks either):
 * the skipped milliseconds are counted and the run lasts until the total
 * is marked, so the rate never exceeds 1M/s and the total is exact. */
static int sustained_run(const char *path, unsigned seconds, struct sustained *r)
{
    memset(r, 0, sizeof *r);
    int rc = wf_open(path);
    if (rc < 0)
        return rc;
    wf_thread_name("bench-sustained");
    r->want = (uint64_t)seconds * 1000000u;
    uint64_t t0 = now_ns(), done = 0, slot = 0, prev = t0;
    while (done < r->want && !interrupted) {
        uint64_t start = now_ns();
        if (start - prev > r->max_gap_ns)
            r->max_gap_ns = start - prev;
        prev = start;
        wf_unit u = wf_unit_new("sustained", (int)(slot % 1000));
        uint64_t burst = r->want - done < 1000 ? r->want - done : 1000;
        for (uint64_t i = 0; i < burst; i++)
            wf_mark((wf_event)(i % GROUP), u);
        done += burst;
        uint64_t t = now_ns();
        uint64_t next_slot = (t - t0) / 1000000u + 1;
        r->skipped_ms += next_slot - (slot + 1);
        slot = next_slot;
        uint64_t next = t0 + slot * 1000000u;
        while (now_ns() < next)
            cpu_relax();
    }
    r->wall_s = (double)(now_ns() - t0) / 1e9;
    r->marked_by_us = done;
    r->close_rc = wf_close();
    wf_get_stats(&r->st);
    return 0;
}

/* ------------------------------------------------------------------ */

int main(void)
{
    int quick = env_long("WF_BENCH_QUICK", 0, 0, 1) != 0;
    int verbose = env_long("WF_BENCH_VERBOSE", 0, 0, 1) != 0;
    int rounds = (int)env_long("WF_BENCH_ROUNDS", quick ? 5 : 15, 1, MAX_ROUNDS);
    long events = env_long("WF_BENCH_EVENTS", quick ? 4 * BATCH_EVENTS : 1000000, 1,
                           1000000000L);
    unsigned seconds = (unsigned)env_long("WF_BENCH_SECONDS", quick ? 1 : 10, 1, 3600);
    int batches = (int)((events + BATCH_EVENTS / 2) / BATCH_EVENTS);
    if (batches < 1)
        batches = 1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGPIPE, &sa, NULL); /* e.g. `| head`: still clean up */

    char wft[64], txt[64], wft2[64];
    snprintf(wft, sizeof wft, "/tmp/wfbench-%ld.wft", (long)getpid());
    snprintf(wft2, sizeof wft2, "/tmp/wfbench-%ld-sustained.wft", (long)getpid());
    snprintf(txt, sizeof txt, "/tmp/wfbench-%ld.timeline", (long)getpid());

    fprintf(stderr, "bench_mark: %d rounds x %d methods, then %u s sustained%s...\n", rounds,
            NMETHODS, seconds, quick ? " (WF_BENCH_QUICK)" : "");

    /* Recording for the cost rows: one session over all rounds. */
    int rc = wf_open(wft);
    if (rc < 0) {
        fprintf(stderr, "bench_mark: wf_open(%s): %s\n", wft, strerror(-rc));
        return 1;
    }
    wf_thread_name("bench-main");
    wfc_init(); /* already done by wf_open; the floor reads the same clock */
    for (int i = 0; i < NUNITS; i++) {
        snprintf(jobs[i], sizeof jobs[i], "job-%d", 1000 + i);
        snprintf(details[i], sizeof details[i], "partition=%d", i % 10);
        units[i] = wf_unit_new(jobs[i], i % 10);
        if (!units[i]) {
            fprintf(stderr, "bench_mark: wf_unit_new failed\n");
            return 1;
        }
    }
    text_file = fopen(txt, "w");
    if (!text_file) {
        fprintf(stderr, "bench_mark: %s: %s\n", txt, strerror(errno));
        return 1;
    }
    if ((rc = pthread_create(&duo.thread, NULL, duo_helper, NULL)) != 0) {
        fprintf(stderr, "bench_mark: pthread_create: %s\n", strerror(rc));
        return 1;
    }

#ifdef WF_BENCH_LTTNG
    lttng_begin();
#else
    snprintf(lt.skipped, sizeof lt.skipped, "%s", WF_BENCH_NO_LTTNG);
#endif
    if (lt.skipped[0]) {
        methods[M_LTTNG].on = 0;
        methods[M_LTTNG].skipped = lt.skipped;
    }

    /* Warm-up: attach the rings, fault the pages, fill the caches. */
    for (int m = 0; m < NMETHODS; m++)
        if (methods[m].on)
            round_of(&methods[m], 1);

    for (int r = 0; r < rounds && !interrupted; r++)
        for (int k = 0; k < NMETHODS && !interrupted; k++) {
            struct method *m = &methods[(r + k) % NMETHODS];
            if (m->on) {
                m->ns[r] = round_of(m, batches_of(m, batches));
                if (verbose)
                    fprintf(stderr, "round %2d  %-40s %10.2f ns/ev\n", r + 1, m->label,
                            m->ns[r]);
            }
        }

    if (methods[M_LTTNG].on)
        lt.events = (uint64_t)(rounds * batches_of(&methods[M_LTTNG], batches) + 1) *
                    BATCH_EVENTS;
#ifdef WF_BENCH_LTTNG
    lttng_end();
#endif

    pthread_mutex_lock(&duo.mu);
    duo.quit = 1;
    pthread_cond_broadcast(&duo.cv);
    pthread_mutex_unlock(&duo.mu);
    pthread_join(duo.thread, NULL);
    fclose(text_file);
    unlink(txt);
    int close_rc = wf_close();
    wf_stats cost;
    wf_get_stats(&cost);
    unlink(wft);

    struct sustained su;
    rc = interrupted ? 0 : sustained_run(wft2, seconds, &su);
    unlink(wft2);
    if (interrupted) {
        fprintf(stderr, "bench_mark: interrupted (signal %d); cleaned up\n", (int)interrupted);
        return 128 + (int)interrupted;
    }
    if (rc < 0) {
        fprintf(stderr, "bench_mark: wf_open(%s): %s\n", wft2, strerror(-rc));
        return 1;
    }

    /* ---- The table ---- */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    printf("waterfall bench_mark: %d rounds, methods interleaved round-robin; batches of %d "
           "events\n",
           rounds, BATCH_EVENTS);
    char cc[64];
#if defined(__clang__)
    snprintf(cc, sizeof cc, "clang %d.%d.%d", __clang_major__, __clang_minor__,
             __clang_patchlevel__);
#elif defined(__GNUC__)
    snprintf(cc, sizeof cc, "gcc %d.%d.%d", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
    snprintf(cc, sizeof cc, "cc");
#endif
    printf("  %ld CPUs online, nothing pinned; clock %s; %s%s\n\n", ncpu,
           wfc_source == 1 ? "TSC" : wfc_source == 3 ? "CNTVCT" : "CLOCK_MONOTONIC", cc,
#if defined(WF_BENCH_SANITIZED)
           " (sanitizer build: figures not meaningful)"
#elif !defined(__OPTIMIZE__)
           " (unoptimized build: figures not meaningful)"
#else
           ""
#endif
    );
    printf("  %-40s %9s %12s %10s %8s\n", "method", "ev/round", "median ns/ev", "min ns/ev",
           "x floor");
    printf("  %-40s %9s %12s %10s %8s\n", "----------------------------------------",
           "---------", "------------", "----------", "--------");
    double med[NMETHODS] = {0};
    double floor_med = median_of(methods[M_FLOOR].ns, rounds);
    for (int i = 0; i < NMETHODS; i++) {
        struct method *m = &methods[i];
        if (!m->on) {
            printf("  %-40s skipped: %s\n", m->label, m->skipped);
            continue;
        }
        med[i] = median_of(m->ns, rounds);
        printf("  %-40s %9ld %12.2f %10.2f %8.2f\n", m->label,
               (long)batches_of(m, batches) * BATCH_EVENTS * m->threads, med[i],
               min_of(m->ns, rounds), med[i] / floor_med);
    }
    printf("\n");
    print_ratio("wf_mark / floor", med[M_WF1] / floor_med, "<=", 1.5,
                med[M_WF1] / floor_med <= 1.5);
    if (methods[M_LTTNG].on)
        print_ratio("LTTng / wf_mark", med[M_LTTNG] / med[M_WF1], ">=", 7,
                    med[M_LTTNG] / med[M_WF1] >= 7);
    else
        printf("  %-18s = %8s   %-17s skipped: %s\n", "LTTng / wf_mark", "n/a",
               "(target >= 7)", lt.skipped);
    print_ratio("fprintf / wf_mark", med[M_FPRINTF] / med[M_WF1], ">=", 100,
                med[M_FPRINTF] / med[M_WF1] >= 100);

    printf("\n  recording during the rounds: marked %llu, recorded %llu, lost %llu%s\n",
           (unsigned long long)cost.marked, (unsigned long long)cost.recorded,
           (unsigned long long)cost.lost,
           close_rc    ? " (wf_close failed)"
           : cost.lost ? " (drops: rows timed the drop path)"
                       : "");
    if (methods[M_LTTNG].on) {
        printf("  LTTng session (4 x %lu KiB a CPU): %llu events fired, %.1f MiB of trace "
               "written, ",
               lt.subbuf >> 10, (unsigned long long)lt.events, (double)lt.bytes / 1048576.0);
        if (lt.discarded_known)
            printf("%llu discarded\n", (unsigned long long)lt.discarded);
        else
            printf("discarded count unknown\n");
    }

    int sus_pass = su.close_rc == 0 && su.st.lost == 0 && su.st.marked == su.want &&
                   su.st.recorded == su.want;
    printf("\n  sustained: 1000 marks each ms (1M/s) for %u s, default settings\n", seconds);
    printf("    %.2f s wall; %llu ms skipped (marker descheduled), longest gap between "
           "bursts %.1f ms\n",
           su.wall_s, (unsigned long long)su.skipped_ms, (double)su.max_gap_ns / 1e6);
    printf("    marked %llu, recorded %llu, lost %llu   %s\n",
           (unsigned long long)su.st.marked, (unsigned long long)su.st.recorded,
           (unsigned long long)su.st.lost, sus_pass ? "PASS" : "MISS");
    return 0;
}
