/*
 * sort.h -- the orderings the analysis needs, in linear time where it
 * matters: LSD radix sorts of time spans and of times, and selection of
 * order statistics (percentiles) without a full sort.
 */
#ifndef SORT_H
#define SORT_H

#include <stddef.h>
#include <stdint.h>

struct span {
    int64_t start, end; /* [start, end) in ns; end may be INT64_MAX (open) */
};

/* A growing list of spans (each device's kernels, a settle's busy time):
 * span_list_add appends one, span_list_append all of b's; -1 when out of
 * memory (the list as it was). */
struct span_list {
    struct span *s;
    size_t n, cap;
};
int span_list_add(struct span_list *v, struct span s);
int span_list_append(struct span_list *v, const struct span_list *b);
void span_list_free(struct span_list *v);

/* Sort by start, the temporary array from the pool sp (mem.h; NULL: none).
 * Returns 0, or -1 when out of memory (then unsorted). */
struct scratch_pool;
int sort_spans(struct scratch_pool *sp, struct span *a, size_t n);
int sort_times(struct scratch_pool *sp, int64_t *a, size_t n);

/* Merge overlapping or touching spans of a start-sorted array in place;
 * returns the new count. */
size_t merge_spans(struct span *a, size_t n);

/* The q-quantile (0..1) of a[0..n), linear between closest ranks (the
 * "type 7" definition, as numpy and R use by default).  Reorders a. */
double quantile(int64_t *a, size_t n, double q);

/* The same on an array already sorted. */
double sorted_quantile(const int64_t *a, size_t n, double q);

/* How many of n ascending keys are <= x, searched from *hint, the answer
 * to a nearby earlier question (updated): a galloping search, costing the
 * log of the distance rather than of n, for questions that come roughly in
 * order.  Key i is the int64_t at base + i * stride bytes: times (stride
 * 8), or the ends of sorted, disjoint spans (base: &s[0].end as bytes,
 * stride: sizeof (struct span)). */
static inline size_t count_le_near(const void *base, size_t stride, size_t n, int64_t x, size_t *hint)
{
#define KEY(i) (*(const int64_t *)((const char *)base + (i) * stride))
    size_t lo, hi, h = *hint < n ? *hint : n;
    if (h > 0 && KEY(h - 1) > x) { /* the answer is below h */
        size_t step = 1;
        hi = h - 1;
        while (step < hi && KEY(hi - step) > x)
            step *= 2;
        lo = step < hi ? hi - step : 0;
    } else { /* at h or above */
        size_t step = 1;
        lo = h;
        while (lo + step < n && KEY(lo + step - 1) <= x)
            step *= 2;
        hi = lo + step < n ? lo + step : n;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (KEY(mid) <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
#undef KEY
    *hint = lo;
    return lo;
}

/* In [lo, hi), where before(ctx, i) holds for a first stretch of indices
 * and never after it: the first index where it does not (hi: none).  A
 * binary search, for arrays of any type. */
size_t first_not_before(size_t lo, size_t hi, int (*before)(const void *ctx, size_t i), const void *ctx);

#endif /* SORT_H */
