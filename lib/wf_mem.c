/*
 * wf_mem.c -- memory samples: the process's resident memory now and the
 * system's available memory, read by the writer once a flush period with
 * the CPU samples, written as MEM records (format minor 5).  The marking
 * threads do nothing more.  Resident memory is statm's second field (pages
 * resident now, not the peak getrusage keeps); available memory is
 * /proc/meminfo's MemAvailable (the kernel's estimate of what could be
 * given without swapping).  Both files stay open: a read from offset 0 each
 * period costs a fraction of an open.
 */
#include "wf_internal.h"

#include "wf_clock.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The file's text from offset 0 into buf (NUL-terminated); 0 when none. */
static size_t read_at0(int fd, char *buf, size_t n)
{
    if (fd < 0)
        return 0;
    ssize_t got = pread(fd, buf, n - 1, 0);
    if (got <= 0)
        return 0;
    buf[got] = 0;
    return (size_t)got;
}

void wf_mem_record(struct wf_session *s)
{
    if (!s->mem_opened) {
        s->statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
        s->meminfo_fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
        s->mem_opened = 1;
    }
    struct wft_mem m = {.ticks = wfc_ticks()};
    char buf[4096];
    if (read_at0(s->statm_fd, buf, 128)) {
        char *e1, *e2;
        strtoull(buf, &e1, 10);
        unsigned long long pages = strtoull(e1, &e2, 10);
        long page = sysconf(_SC_PAGESIZE);
        if (e2 != e1 && page > 0) {
            m.rss_bytes = pages * (unsigned long long)page;
            m.flags |= WFT_MEM_RSS;
        }
    }
    if (read_at0(s->meminfo_fd, buf, sizeof buf)) {
        const char *p = strstr(buf, "MemAvailable:");
        char *e;
        unsigned long long kb = p ? strtoull(p + 13, &e, 10) : 0;
        if (p && e != p + 13) {
            m.avail_bytes = kb * 1024u;
            m.flags |= WFT_MEM_AVAIL;
        }
    }
    if (m.flags)
        wf_out_rec(s, WFT_MEM, &m, sizeof m);
}

void wf_mem_close(struct wf_session *s)
{
    if (!s->mem_opened)
        return;
    if (s->statm_fd >= 0)
        close(s->statm_fd);
    if (s->meminfo_fd >= 0)
        close(s->meminfo_fd);
    s->statm_fd = s->meminfo_fd = -1;
    s->mem_opened = 0;
}
