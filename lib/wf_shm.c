/*
 * wf_shm.c -- the rings file: while a trace PATH is recorded, the threads'
 * rings and a journal of the unit and event definitions live in
 * PATH.rings, mapped shared (wf_format.h and docs/format.md give its
 * layout).  A mark that returned is then in the page cache, and survives
 * the death of the process whether or not the writer ran; a reader of a
 * trace that was not closed takes what PATH lacks from it.  wf_close,
 * after the last write, removes it.
 *
 * A ring is a header page and its slots, in a stretch of the file mapped
 * by the thread that uses it, pre-faulted for writing when mapped so that
 * its first marks take no page fault.  Its stretch is used again by a
 * later thread only once the writer has written all its slots into PATH.
 * Without the rings file (it cannot be made, or mapped) the recorder
 * works as before, its rings in private memory.
 */
#include "wf_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define JOURNAL_CAP (4u << 20) /* the definitions not yet in PATH: ~100k units of short job ids */

struct wf_shm {
    int fd;
    dev_t dev; /* the file's: removed at close only while the path still names it */
    ino_t ino;
    char path[4096 + 8];
    struct wft_rings_header *hdr; /* mapped: the header page and the journal after it */
    size_t hdr_map;
    char *journal;
    uint64_t ring_bytes;
    uint8_t *busy; /* ring k is a thread's, or its slots are not all in PATH (under wf_reg_mu) */
    size_t nrings, busy_cap;
};

struct wf_shm *wf_journal;

/* Write every page of [p, p+n) once, so that each is mapped writable now. */
static void prefault(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
    if (madvise(p, n, MADV_POPULATE_WRITE) == 0)
        return;
#endif
    long pg = sysconf(_SC_PAGESIZE);
    for (size_t o = 0; o < n; o += (size_t)(pg > 0 ? pg : 4096))
        ((volatile char *)p)[o] = ((volatile char *)p)[o];
}

struct wf_shm *wf_shm_open(const char *trace, uint64_t epoch_ticks, uint32_t ring_events, uint32_t pid)
{
    struct wf_shm *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    snprintf(m->path, sizeof m->path, "%s.rings", trace);
    /* a file of its own: one that another recording of the same path still
     * maps is unlinked, not truncated under it (its pages would vanish) */
    unlink(m->path);
    m->fd = open(m->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    struct stat st;
    if (m->fd < 0 || fstat(m->fd, &st) != 0) {
        if (m->fd >= 0)
            close(m->fd);
        free(m);
        return NULL;
    }
    m->dev = st.st_dev;
    m->ino = st.st_ino;
    /* each ring is mapped at its own offset, which mmap wants page-aligned:
     * a ring's slots are rounded up to whole pages (rings of fewer than 256
     * events once left every thread after the first without a shared ring) */
    uint64_t slots = (uint64_t)ring_events * sizeof(struct wft_event);
    m->ring_bytes = WFT_RINGS_PAGE + (slots + WFT_RINGS_PAGE - 1) / WFT_RINGS_PAGE * WFT_RINGS_PAGE;
    m->hdr_map = WFT_RINGS_PAGE + JOURNAL_CAP;
    /* its blocks allocated now: a store to a mapped page the disk cannot
     * hold would be a SIGBUS in the program's own call */
    if (posix_fallocate(m->fd, 0, (off_t)m->hdr_map) != 0 ||
        (m->hdr = mmap(NULL, m->hdr_map, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0)) == MAP_FAILED) {
        close(m->fd);
        unlink(m->path);
        free(m);
        return NULL;
    }
    prefault(m->hdr, WFT_RINGS_PAGE);
    m->journal = (char *)m->hdr + WFT_RINGS_PAGE;
    struct wft_rings_header *h = m->hdr;
    h->version = 1;
    h->page = WFT_RINGS_PAGE;
    h->pid = pid;
    h->ring_events = ring_events;
    h->epoch_ticks = epoch_ticks;
    h->journal_off = WFT_RINGS_PAGE;
    h->journal_cap = JOURNAL_CAP;
    h->rings_off = m->hdr_map;
    h->ring_bytes = m->ring_bytes;
    /* the magic last: a reader takes the file only once it is whole */
    __atomic_store_n((uint64_t *)(void *)h->magic, *(const uint64_t *)(const void *)WFT_RINGS_MAGIC,
                     __ATOMIC_RELEASE);
    return m;
}

void wf_shm_close(struct wf_shm *m, int remove)
{
    if (!m)
        return;
    munmap(m->hdr, m->hdr_map);
    struct stat st;
    if (remove && stat(m->path, &st) == 0 && st.st_dev == m->dev && st.st_ino == m->ino)
        unlink(m->path);
    close(m->fd);
    free(m->busy);
    free(m);
}

/* ---- rings ---- */

/* A stretch for one more ring, its blocks allocated: its index, or -1. */
static long ring_grow(struct wf_shm *m)
{
    size_t k = m->nrings;
    if (k == m->busy_cap) {
        size_t cap = m->busy_cap ? m->busy_cap * 2 : 16;
        uint8_t *b = realloc(m->busy, cap);
        if (!b)
            return -1;
        m->busy = b;
        m->busy_cap = cap;
    }
    if (posix_fallocate(m->fd, (off_t)(m->hdr->rings_off + k * m->ring_bytes), (off_t)m->ring_bytes) != 0)
        return -1;
    m->busy[k] = 0;
    m->nrings = k + 1;
    __atomic_store_n(&m->hdr->nrings, (uint64_t)m->nrings, __ATOMIC_RELEASE);
    return (long)k;
}

int wf_shm_ring(struct wf_shm *m, struct wf_ring *r)
{
    size_t k = 0;
    while (k < m->nrings && m->busy[k])
        k++;
    void *p = MAP_FAILED;
    if (k < m->nrings || ring_grow(m) >= 0)
        p = mmap(NULL, m->ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd,
                 (off_t)(m->hdr->rings_off + k * m->ring_bytes));
    if (p == MAP_FAILED) { /* the ring stays private: said in the file */
        __atomic_store_n(&m->hdr->private_rings, m->hdr->private_rings + 1, __ATOMIC_RELEASE);
        return -1;
    }
    prefault(p, m->ring_bytes);
    m->busy[k] = 1;
    r->map = p;
    r->map_len = m->ring_bytes;
    r->region = k;
    r->sh = p;
    r->slots = (struct wf_slot *)((char *)p + WFT_RINGS_PAGE);
    return 0;
}

void wf_shm_ring_done(struct wf_shm *m, struct wf_ring *r)
{
    if (m && r->map && r->region < m->nrings) {
        __atomic_store_n(&r->sh->state, WFT_RING_FREE, __ATOMIC_RELEASE);
        m->busy[r->region] = 0;
    }
}

void wf_shm_ring_unmap(struct wf_ring *r)
{
    if (r->map)
        munmap(r->map, r->map_len);
    r->map = NULL;
    r->sh = &r->own;
    r->slots = NULL;
}

/* ---- the definitions journal (under wf_def_mu) ---- */

void wf_shm_journal(struct wf_shm *m, const char *rec, size_t size)
{
    struct wft_rings_header *h = m->hdr;
    uint64_t end = h->journal_end, done = __atomic_load_n(&h->journal_done, __ATOMIC_ACQUIRE);
    uint64_t pos = end % JOURNAL_CAP, skip = pos + size > JOURNAL_CAP ? JOURNAL_CAP - pos : 0;
    if (end + skip + size - done > JOURNAL_CAP) {
        h->journal_dropped++; /* the writer is far behind: this one is not kept for recovery */
        return;
    }
    if (skip) { /* a size-0 record header: continued at the start */
        if (skip >= sizeof(struct wft_rec))
            memset(m->journal + pos, 0, sizeof(struct wft_rec));
        end += skip;
        pos = 0;
    }
    memcpy(m->journal + pos, rec, size);
    __atomic_store_n(&h->journal_end, end + size, __ATOMIC_RELEASE);
}

uint64_t wf_shm_journal_end(const struct wf_shm *m)
{
    return m ? m->hdr->journal_end : 0;
}

void wf_shm_journal_done(struct wf_shm *m, uint64_t upto)
{
    if (m && upto > __atomic_load_n(&m->hdr->journal_done, __ATOMIC_RELAXED))
        __atomic_store_n(&m->hdr->journal_done, upto, __ATOMIC_RELEASE);
}
