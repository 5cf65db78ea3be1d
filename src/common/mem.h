/*
 * mem.h -- large arrays on transparent huge pages.
 *
 * The analysis of a multi-gigabyte log touches hundreds of megabytes of
 * tables at random (hash indexes, units).  With 4 KiB pages nearly every
 * such access misses the TLB, and in a virtual machine a TLB miss walks two
 * page tables; on huge pages it mostly does not.  Measured on a 1 GiB log:
 * huge pages took the read from 1.4 s to 0.55 s.  Memory comes zeroed.
 * Arrays written and read in order need them less, and in this VM a huge
 * page's first touch is not always the same price: those take small pages
 * (big_alloc_flat).
 */
#ifndef MEM_H
#define MEM_H

#include <pthread.h>
#include <stddef.h>

void *big_alloc(size_t n);
/* The same without asking for huge pages (where transparent huge pages
 * are "madvise", as on the machine measured, it gets small ones;
 * "always" gives huge ones all the same): for arrays written once in order and read
 * mostly in order (a daemon's millions of duration entries, the arrays of
 * their placement), where huge pages save few TLB misses, and where in
 * this VM a huge page's first touch cost three times as much in some runs
 * as in others (the host making it anew), small pages' the same in all
 * (docs/bench.md, thirteenth session). */
void *big_alloc_flat(size_t n);
/* The same, its pages made at once (for a table that will be touched all
 * over, such as a hash index: one fault instead of one per page, and no
 * zero page to copy on the first write after a read). */
void *big_alloc_full(size_t n);
void *big_realloc(void *old, size_t old_n, size_t n);
void big_free(void *p, size_t n);
/* The an bytes of a (big_alloc'd, *acap bytes) followed by the bn bytes of
 * b (big_alloc'd, bcap bytes; taken: freed or made part of a): b's pages
 * move instead of b being copied where the arrays are mapped.  Returns a's
 * new place (*acap updated), or NULL when out of memory (both kept).  Once
 * pages moved into a, a is two mappings, which the kernel cannot grow in
 * place: a caller that appends several arrays gives a the room for all
 * of them first (a big_alloc of their sum: addresses, not memory). */
void *big_append(void *a, size_t an, size_t *acap, void *b, size_t bn, size_t bcap);
void *big_append_flat(void *a, size_t an, size_t *acap, void *b, size_t bn, size_t bcap); /* for flat arrays */

/* Make room for one more element of elem bytes in a malloc'd array of
 * *cap (doubling, from first): for the small tables that grow one entry
 * at a time.  0, or -1 when out of memory (the array is kept). */
int grow_heap(void **p, size_t *cap, size_t n, size_t elem, size_t first);

/* Make room for need elements of elem bytes in a big_alloc'd array of
 * *cap (doubling, from 1024).  0, or -1 when out of memory. */
int grow_array(void **p, size_t *cap, size_t need, size_t elem);
int grow_array_flat(void **p, size_t *cap, size_t need, size_t elem); /* on small pages (big_alloc_flat) */

/* Make the pages of bytes [from, to) of a big array (of BIG_MIN bytes or
 * more; from a multiple of the page size) now, in one call instead of a
 * fault each: for an array filled in order, a few MiB ahead of where it is
 * written.  Nothing is written.  A kernel without MADV_POPULATE_WRITE
 * (Linux 5.14) makes them as they are touched, as before.  The range is
 * the caller's to keep within the array: it is not checked. */
void big_prefault(void *p, size_t from, size_t to);

/* Freed big scratch arrays kept for the next one that fits (a few, up to
 * SCRATCH_KEEP_BYTES in all) instead of given back: an analysis makes a
 * dozen arrays of a few bytes a unit one after another, and in this VM
 * fresh memory's first touch costs more than the work on it.  One pool per
 * analysis, shared by its threads (it locks), so nothing is kept past it;
 * NULL where nothing is to be kept. */
#define SCRATCH_KEEP 4
#define SCRATCH_KEEP_BYTES (48u << 20)
struct scratch_pool {
    pthread_mutex_t lock;
    char *kept[SCRATCH_KEEP];
    int n;
    size_t bytes;
};
void scratch_pool_init(struct scratch_pool *sp);
/* Gives back what it kept. */
void scratch_pool_free(struct scratch_pool *sp);

/* Temporary arrays of any size (big ones on huge pages), not zeroed; a big
 * one comes from the pool sp where it holds one that fits, and goes back to
 * it when freed. */
void *scratch_alloc(struct scratch_pool *sp, size_t n);
/* Keep the first n bytes of a scratch array and give back the rest of its
 * memory (an array that a merge made smaller); returns it (a small one may
 * move). */
void *scratch_shrink(void *p, size_t n);
void scratch_free(struct scratch_pool *sp, void *p);

#endif /* MEM_H */
