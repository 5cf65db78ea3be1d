/*
 * mem.c -- mmap with MADV_HUGEPAGE for large arrays; sizes are kept by
 * the callers (munmap needs them).
 */
#include "mem.h"

#if defined(__SANITIZE_THREAD__)
#define WF_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WF_TSAN 1
#endif
#endif

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void advise(void *p, size_t n, int huge)
{
#ifdef MADV_HUGEPAGE
    if (huge && n >= (2u << 20))
        madvise(p, n, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

/* Below this, plain malloc: an mmap and munmap per small table made small
 * inputs slow (measured: the fuzzer ran 200 inputs a second). */
#define BIG_MIN (256u << 10)

#define HUGE_PAGE (2u << 20)

/* n bytes of fresh pages; from HUGE_PAGE up, starting on a huge page
 * (more addresses asked for and the rest given back: addresses cost
 * nothing), so that all of it can be huge pages and can move whole
 * (big_append). */
static void *map_fresh(size_t n)
{
    if (n < HUGE_PAGE) {
        void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    if (n > SIZE_MAX - 2 * (size_t)HUGE_PAGE)
        return NULL; /* the addresses asked for beyond would wrap */
    size_t len = (n + pg - 1) / pg * pg;
    char *p = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    char *q = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (q > p)
        munmap(p, (size_t)(q - p));
    if (p + len + HUGE_PAGE > q + len)
        munmap(q + len, (size_t)(p + len + HUGE_PAGE - (q + len)));
    return q;
}

static void *alloc_pages(size_t n, int huge)
{
    if (n == 0)
        n = 1;
    if (n < BIG_MIN)
        return calloc(1, n);
    void *p = map_fresh(n);
    if (p)
        advise(p, n, huge);
    return p;
}

void *big_alloc(size_t n)
{
    return alloc_pages(n, 1);
}

void *big_alloc_flat(size_t n)
{
    return alloc_pages(n, 0);
}

void *big_alloc_full(size_t n)
{
    if (n < BIG_MIN)
        return calloc(1, n ? n : 1);
    void *p = map_fresh(n);
    if (!p)
        return NULL;
    advise(p, n, 1);
#ifdef MADV_POPULATE_WRITE
    madvise(p, n, MADV_POPULATE_WRITE); /* Linux 5.14+; else the pages come as touched */
#endif
    return p;
}

static void *realloc_pages(void *old, size_t old_n, size_t n, int huge)
{
    if (!old)
        return alloc_pages(n, huge);
    if (old_n < BIG_MIN) {
        if (n < BIG_MIN) {
            char *p = realloc(old, n);
            if (p && n > old_n)
                memset(p + old_n, 0, n - old_n);
            return p;
        }
        char *p = alloc_pages(n, huge);
        if (p) {
            memcpy(p, old, old_n);
            free(old);
        }
        return p;
    }
#if defined(WF_TSAN)
    /* ThreadSanitizer does not follow pages that mremap moves (it reports
     * their next owner as racing with the last): copy instead. */
    void *p = MAP_FAILED;
#else
    void *p = mremap(old, old_n, n, MREMAP_MAYMOVE);
#endif
    if (p == MAP_FAILED) {
        /* no room to remap (or ThreadSanitizer): copy */
        p = alloc_pages(n, huge);
        if (!p)
            return NULL;
        memcpy(p, old, old_n < n ? old_n : n);
        munmap(old, old_n);
        return p;
    }
    advise(p, n, huge);
    return p;
}

void *big_realloc(void *old, size_t old_n, size_t n)
{
    return realloc_pages(old, old_n, n, 1);
}

static size_t page_up(size_t n, size_t page)
{
    return (n + page - 1) / page * page;
}

/* b's pages are moved behind a's data instead of b copied (which would
 * make every page anew: in a virtual machine, fresh memory's first touch
 * costs more than the copy).  Huge pages move whole, so a's data is cut
 * at 2 MiB: what follows the cut goes to the head of b, whose data moves
 * up by as much first.  Only where both arrays start on a huge page: a
 * move of 4 KiB pages splits huge ones, and in one VM the first scan of
 * pages moved that way cost 40-120 ms per 26 MB (docs/bench.md); then b
 * is copied. */
static void *append_pages(void *a, size_t an, size_t *acap, void *b, size_t bn, size_t bcap, int huge)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), g = HUGE_PAGE;
#if defined(WF_TSAN)
    int move = 0; /* ThreadSanitizer does not follow moved pages (big_realloc) */
#else
    int move = a && b && *acap >= BIG_MIN && bcap >= BIG_MIN && (uintptr_t)a % g == 0 && (uintptr_t)b % g == 0;
#endif
    size_t a0 = an / g * g, tail = an - a0, blen = page_up(bcap, pg), alen = page_up(*acap, pg);
    if (move && tail + bn > bcap) /* no room in b's pages to move its data up */
        move = 0;
    if (move && alen < a0 + blen) { /* room behind a's cut for b's pages: only addresses, no memory */
        void *na = mremap(a, alen, a0 + blen, MREMAP_MAYMOVE);
        if (na == MAP_FAILED)
            move = 0;
        else
            a = na, alen = a0 + blen, *acap = alen;
    }
    if (!move) {
        if (an + bn > *acap) {
            void *na = realloc_pages(a, *acap, an + bn, huge);
            if (!na)
                return NULL;
            a = na, *acap = an + bn;
        }
        memcpy((char *)a + an, b, bn);
        big_free(b, bcap);
        return a;
    }
    *acap = alen; /* (the moved pages end within a's) */
    memmove((char *)b + tail, b, bn);
    memcpy(b, (char *)a + a0, tail);
    if (mremap(b, blen, blen, MREMAP_MAYMOVE | MREMAP_FIXED, (char *)a + a0) == MAP_FAILED) {
        memcpy((char *)a + a0, b, tail + bn); /* a has the room: copy after all */
        munmap(b, blen);
    }
    advise(a, alen, huge);
    return a;
}

void *big_append(void *a, size_t an, size_t *acap, void *b, size_t bn, size_t bcap)
{
    return append_pages(a, an, acap, b, bn, bcap, 1);
}

void *big_append_flat(void *a, size_t an, size_t *acap, void *b, size_t bn, size_t bcap)
{
    return append_pages(a, an, acap, b, bn, bcap, 0);
}

void big_prefault(void *p, size_t from, size_t to)
{
#ifdef MADV_POPULATE_WRITE
    if (p && to > from)
        madvise((char *)p + from, to - from, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)from;
    (void)to;
#endif
}

void big_free(void *p, size_t n)
{
    if (!p)
        return;
    if ((n ? n : 1) < BIG_MIN)
        free(p);
    else
        munmap(p, n);
}

/* Scratch arrays: big ones on huge pages, small ones from malloc; the
 * size rides in a header so scratch_free needs only the pointer (and the
 * pool it may go back to). */

#define SCRATCH_BIG (1u << 20)
#define SCRATCH_HDR 16

/* The smallest kept array of total bytes or more, taken out; NULL: none. */
static char *keep_take(struct scratch_pool *sp, size_t total)
{
    if (!sp)
        return NULL;
    pthread_mutex_lock(&sp->lock);
    int best = -1;
    for (int i = 0; i < sp->n; i++) {
        size_t t = *(size_t *)sp->kept[i];
        if (t >= total && (best < 0 || t < *(size_t *)sp->kept[best]))
            best = i;
    }
    char *p = NULL;
    if (best >= 0) {
        p = sp->kept[best];
        sp->kept[best] = sp->kept[--sp->n];
        sp->bytes -= *(size_t *)p;
    }
    pthread_mutex_unlock(&sp->lock);
    return p;
}

/* Keep the big array p (its header says its size) if there is room; 1
 * when kept. */
static int keep_put(struct scratch_pool *sp, char *p)
{
    if (!sp)
        return 0;
    size_t total = *(size_t *)p;
    int kept = 0;
    pthread_mutex_lock(&sp->lock);
    if (sp->n < SCRATCH_KEEP && sp->bytes + total <= SCRATCH_KEEP_BYTES) {
        sp->kept[sp->n++] = p;
        sp->bytes += total;
        kept = 1;
    }
    pthread_mutex_unlock(&sp->lock);
    return kept;
}

void scratch_pool_init(struct scratch_pool *sp)
{
    memset(sp, 0, sizeof *sp);
    pthread_mutex_init(&sp->lock, NULL);
}

void scratch_pool_free(struct scratch_pool *sp)
{
    for (int i = 0; i < sp->n; i++)
        big_free(sp->kept[i], *(size_t *)sp->kept[i]);
    sp->n = 0;
    sp->bytes = 0;
    pthread_mutex_destroy(&sp->lock);
}

void *scratch_alloc(struct scratch_pool *sp, size_t n)
{
    size_t total = n + SCRATCH_HDR;
    if (total >= SCRATCH_BIG) {
        char *p = keep_take(sp, total);
        if (p)
            return p + SCRATCH_HDR; /* its header keeps its own size */
    }
    char *p = total >= SCRATCH_BIG ? big_alloc(total) : malloc(total);
    if (!p)
        return NULL;
    *(size_t *)p = total;
    return p + SCRATCH_HDR;
}

void *scratch_shrink(void *q, size_t n)
{
    if (!q)
        return NULL;
    char *p = (char *)q - SCRATCH_HDR;
    size_t total = *(size_t *)p, want = n + SCRATCH_HDR;
    if (total < SCRATCH_BIG) {
        char *np = want < total ? realloc(p, want) : NULL;
        if (!np)
            return q; /* keep it as it is */
        *(size_t *)np = want;
        return np + SCRATCH_HDR;
    }
    /* Big: give back the whole pages past the end, in place (the next
     * allocation, on either thread, takes them again without the cost of
     * fresh memory).  It stays a big one, whatever its size. */
    long pg = sysconf(_SC_PAGESIZE);
    size_t page = pg > 0 ? (size_t)pg : 4096;
    size_t keep = page_up(want < SCRATCH_BIG ? SCRATCH_BIG : want, page);
    if (keep < total && munmap(p + keep, page_up(total, page) - keep) == 0)
        *(size_t *)p = keep;
    return q;
}

void scratch_free(struct scratch_pool *sp, void *q)
{
    if (!q)
        return;
    char *p = (char *)q - SCRATCH_HDR;
    size_t total = *(size_t *)p;
    if (total >= SCRATCH_BIG) {
        if (!keep_put(sp, p))
            big_free(p, total);
    } else {
        free(p);
    }
}

int grow_heap(void **p, size_t *cap, size_t n, size_t elem, size_t first)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : first;
    void *q = realloc(*p, ncap * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = ncap;
    return 0;
}

static int grow_pages(void **p, size_t *cap, size_t need, size_t elem, int huge)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 1024;
    while (ncap < need)
        ncap *= 2;
    void *n = realloc_pages(*p, *cap * elem, ncap * elem, huge);
    if (!n)
        return -1;
    *p = n;
    *cap = ncap;
    return 0;
}

int grow_array(void **p, size_t *cap, size_t need, size_t elem)
{
    return grow_pages(p, cap, need, elem, 1);
}

int grow_array_flat(void **p, size_t *cap, size_t need, size_t elem)
{
    return grow_pages(p, cap, need, elem, 0);
}
