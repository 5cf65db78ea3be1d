/*
 * wf_cpu.c -- CPU sampling: a recording thread's CPU time and run-queue
 * wait, read by the writer once a flush period (and by the thread itself as
 * it exits), the last reading kept in the thread's ring header (the rings
 * file), and the CPU records the writer makes of them.  The marking
 * threads do nothing more.  On by default; the sample_cpu option of
 * wf_open_config, or WATERFALL_CPU=0, turns it off (wf_session.c).
 */
#include "wf_internal.h"

#include "wf_clock.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* A thread's CPU time and run-queue wait (tid 0: the calling thread's),
 * from schedstat: three numbers, CPU ns, wait ns, time slices.  Failing
 * that (no /proc, no CONFIG_SCHED_INFO), its CPU clock and no wait.  c->ticks
 * is 0 when neither could be read. */
void wf_cpu_sample(int *fdp, uint32_t tid, clockid_t clk, int has_clk, struct wft_cpu *c)
{
    char path[64], buf[96];
    if (tid)
        snprintf(path, sizeof path, "/proc/self/task/%u/schedstat", tid);
    else
        snprintf(path, sizeof path, "/proc/thread-self/schedstat");
    c->ticks = wfc_ticks();
    /* The writer keeps each thread's file open (*fdp; a read from offset 0
     * each cycle costs a third of an open, read and close). */
    int fd = fdp && *fdp >= 0 ? *fdp : open(path, O_RDONLY | O_CLOEXEC);
    if (fdp && *fdp < 0 && fd >= 0)
        *fdp = fd;
    if (fd >= 0) {
        ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
        if (!fdp)
            close(fd);
        if (n > 0) {
            buf[n] = 0;
            char *e1, *e2;
            unsigned long long run = strtoull(buf, &e1, 10), wait = strtoull(e1, &e2, 10);
            if (e1 != buf && e2 != e1 && (run || wait)) { /* "0 0 0": schedstats off */
                c->cpu_ns = run;
                c->wait_ns = wait;
                c->flags = WFT_CPU_WAIT;
                return;
            }
        }
    }
    struct timespec ts;
    if (has_clk && clock_gettime(tid ? clk : CLOCK_THREAD_CPUTIME_ID, &ts) == 0) {
        c->cpu_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        c->wait_ns = 0;
        c->flags = 0;
        return;
    }
    c->ticks = 0;
}

/* In wf_cpu.c, not wf_ring.c: the ring calls the sampler as its thread
 * exits, so the sampler must not call back into the ring. */
void wf_cpu_keep(struct wf_ring *r, const struct wft_cpu *c)
{
    struct wft_ring_header *h = r->sh;
    if (!c->ticks)
        return;
    __atomic_store_n(&h->cpu_ticks, 0, __ATOMIC_RELEASE); /* no reading while it changes */
    h->cpu_flags = c->flags;
    h->cpu_ns = c->cpu_ns;
    h->cpu_wait_ns = c->wait_ns;
    __atomic_store_n(&h->cpu_ticks, c->ticks, __ATOMIC_RELEASE);
}

/* A CPU record of a thread: read here while it lives (it cannot finish
 * exiting while wf_reg_mu, held here, is: wf_thread_gone takes it), or as
 * it read it itself on the way out.  Written when it moved, and once more
 * when it stops moving; when it moves again after idling, the last
 * unchanged reading goes first, so that a reader interpolating between
 * records puts the rise after the idle stretch, not across it. */
void wf_cpu_record(struct wf_session *s, struct wf_ring *r, int exited)
{
    struct wft_cpu c = {0};
    if (exited) {
        c = r->cpu_last;
    } else {
        /* a descriptor kept open for the first WF_SCHED_FDS threads; the
         * others open and close theirs each time */
        int had = r->sched_fd >= 0, *fdp = had || s->sched_fds < WF_SCHED_FDS ? &r->sched_fd : NULL;
        wf_cpu_sample(fdp, r->tid, r->cpu_clock, r->has_cpu_clock, &c);
        s->sched_fds += !had && r->sched_fd >= 0;
    }
    if (!c.ticks)
        return;
    c.thread = r->index;
    wf_cpu_keep(r, &c);
    int moved = !r->cpu_prev.ticks || c.cpu_ns != r->cpu_prev.cpu_ns || c.wait_ns != r->cpu_prev.wait_ns;
    if (moved) {
        if (r->cpu_same >= 2) /* the idle stretch's last reading was held back */
            wf_out_rec(s, WFT_CPU, &r->cpu_prev, sizeof r->cpu_prev);
        wf_out_rec(s, WFT_CPU, &c, sizeof c);
        r->cpu_same = 0;
    } else if (++r->cpu_same == 1) {
        wf_out_rec(s, WFT_CPU, &c, sizeof c); /* it stopped moving */
    }
    r->cpu_prev = c;
}
