/*
 * mem.c -- mmap with MADV_HUGEPAGE for large arrays; sizes are kept by
 * the callers (munmap needs them).
 */
#include "mem.h"

#include <sys/mman.h>

static void advise(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    if (n >= (2u << 20))
        madvise(p, n, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

void *big_alloc(size_t n)
{
    if (n == 0)
        n = 1;
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    advise(p, n);
    return p;
}

void *big_realloc(void *old, size_t old_n, size_t n)
{
    if (!old)
        return big_alloc(n);
    void *p = mremap(old, old_n ? old_n : 1, n, MREMAP_MAYMOVE);
    if (p == MAP_FAILED)
        return NULL;
    advise(p, n);
    return p;
}

void big_free(void *p, size_t n)
{
    if (p)
        munmap(p, n ? n : 1);
}

/* Scratch arrays: big ones on huge pages, small ones from malloc; the
 * size rides in a header so scratch_free needs only the pointer. */
#include <stdlib.h>

#define SCRATCH_BIG (1u << 20)
#define SCRATCH_HDR 16

void *scratch_alloc(size_t n)
{
    size_t total = n + SCRATCH_HDR;
    char *p = total >= SCRATCH_BIG ? big_alloc(total) : malloc(total);
    if (!p)
        return NULL;
    *(size_t *)p = total;
    return p + SCRATCH_HDR;
}

void scratch_free(void *q)
{
    if (!q)
        return;
    char *p = (char *)q - SCRATCH_HDR;
    size_t total = *(size_t *)p;
    if (total >= SCRATCH_BIG)
        big_free(p, total);
    else
        free(p);
}
