/*
 * sort.c -- radix sorts and selection.
 *
 * Keys are signed 64-bit nanoseconds; flipping the sign bit makes their
 * unsigned order the signed order.  Radix passes are skipped where every
 * key has the same digit.
 */
#include "sort.h"

#include "mem.h"

#include <stdlib.h>
#include <string.h>

static inline uint64_t key_of(int64_t v)
{
    return (uint64_t)v ^ 0x8000000000000000ull;
}

/* Logs list units roughly in time order, so the spans the analysis sorts
 * are nearly sorted: insertion sort finishes them in O(n + inversions).
 * It gives up as soon as it has moved more than 8 elements per element
 * seen (so unsorted data, such as durations, costs it next to nothing),
 * and a radix sort (11-bit digits: 2048 buckets stay in cache) does the
 * rest, with the counts of all its digits taken in one read of the keys. */
#define RADIX_DIGITS 6 /* 11 bits each: 66 >= 64 */
#define RADIX_SORT(NAME, T, KEY)                                                      \
    int NAME(struct scratch_pool *sp, T *a, size_t n)                                 \
    {                                                                                 \
        size_t i, moves = 0;                                                          \
        for (i = 1; i < n; i++) {                                                     \
            if (KEY(a[i]) >= KEY(a[i - 1]))                                           \
                continue;                                                             \
            T x = a[i];                                                               \
            size_t j = i, limit = 8 * i + 256;                                        \
            while (j > 0 && KEY(a[j - 1]) > KEY(x) && moves < limit) {                \
                a[j] = a[j - 1];                                                      \
                j--;                                                                  \
                moves++;                                                              \
            }                                                                         \
            a[j] = x;                                                                 \
            if (moves >= limit)                                                       \
                break;                                                                \
        }                                                                             \
        if (i >= n)                                                                   \
            return 0;                                                                 \
        T *tmp = scratch_alloc(sp, n * sizeof *tmp);                                  \
        size_t(*count)[2048] = malloc(RADIX_DIGITS * sizeof *count);                  \
        if (!tmp || !count) {                                                         \
            scratch_free(sp, tmp);                                                    \
            free(count);                                                              \
            return -1;                                                                \
        }                                                                             \
        /* every digit's counts in one pass: a digit's counts do not depend on  \
         * the order the passes leave the keys in */                            \
        memset(count, 0, RADIX_DIGITS * sizeof *count);                               \
        uint64_t diff = 0, first = KEY(a[0]);                                         \
        for (i = 0; i < n; i++) {                                                     \
            uint64_t k = KEY(a[i]);                                                   \
            diff |= k ^ first;                                                        \
            for (int d = 0; d < RADIX_DIGITS; d++)                                    \
                count[d][(k >> (11 * d)) & 0x7ff]++;                                  \
        }                                                                             \
        T *src = a, *dst = tmp;                                                       \
        for (int d = 0; d < RADIX_DIGITS; d++) {                                      \
            int shift = 11 * d;                                                       \
            if (!((diff >> shift) & 0x7ff))                                           \
                continue;                                                             \
            size_t sum = 0, *c = count[d];                                            \
            for (size_t b = 0; b < 2048; b++) {                                       \
                size_t x = c[b];                                                      \
                c[b] = sum;                                                           \
                sum += x;                                                             \
            }                                                                         \
            for (i = 0; i < n; i++)                                                   \
                dst[c[(KEY(src[i]) >> shift) & 0x7ff]++] = src[i];                    \
            T *t = src;                                                               \
            src = dst;                                                                \
            dst = t;                                                                  \
        }                                                                             \
        if (src != a)                                                                 \
            memcpy(a, src, n * sizeof *a);                                            \
        scratch_free(sp, tmp);                                                        \
        free(count);                                                                  \
        return 0;                                                                     \
    }

#define SPAN_KEY(s) key_of((s).start)
#define TIME_KEY(t) key_of(t)
RADIX_SORT(sort_spans, struct span, SPAN_KEY)
RADIX_SORT(sort_times, int64_t, TIME_KEY)

size_t merge_spans(struct span *a, size_t n)
{
    if (n == 0)
        return 0;
    size_t o = 0;
    for (size_t i = 1; i < n; i++) {
        if (a[i].start <= a[o].end) {
            if (a[i].end > a[o].end)
                a[o].end = a[i].end;
        } else {
            a[++o] = a[i];
        }
    }
    return o + 1;
}

/* Hoare-style quickselect: a[k] ends up the k-th smallest, with smaller
 * ones before it and larger ones after. */
static void select_kth(int64_t *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    uint64_t seed = 0x9E3779B97F4A7C15ull ^ n;
    while (lo < hi) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        int64_t pivot = a[lo + seed % (hi - lo + 1)];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                int64_t t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

double quantile(int64_t *a, size_t n, double q)
{
    if (n == 0)
        return 0;
    double pos = q * (double)(n - 1);
    size_t k = (size_t)pos;
    if (k >= n - 1) {
        select_kth(a, n, n - 1);
        return (double)a[n - 1];
    }
    select_kth(a, n, k);
    int64_t lo = a[k], hi = a[k + 1];
    for (size_t i = k + 2; i < n; i++)
        if (a[i] < hi)
            hi = a[i];
    return (double)lo + (pos - (double)k) * (double)(hi - lo);
}

double sorted_quantile(const int64_t *a, size_t n, double q)
{
    if (n == 0)
        return 0;
    double pos = q * (double)(n - 1);
    size_t k = (size_t)pos;
    if (k >= n - 1)
        return (double)a[n - 1];
    return (double)a[k] + (pos - (double)k) * (double)(a[k + 1] - a[k]);
}

size_t first_not_before(size_t lo, size_t hi, int (*before)(const void *ctx, size_t i), const void *ctx)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (before(ctx, mid))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int span_list_add(struct span_list *v, struct span s)
{
    if (grow_heap((void **)&v->s, &v->cap, v->n, sizeof *v->s, 64))
        return -1;
    v->s[v->n++] = s;
    return 0;
}

int span_list_append(struct span_list *v, const struct span_list *b)
{
    if (!b->n)
        return 0;
    if (v->n + b->n > v->cap) {
        struct span *s = realloc(v->s, (v->n + b->n) * sizeof *s);
        if (!s)
            return -1;
        v->s = s, v->cap = v->n + b->n;
    }
    memcpy(v->s + v->n, b->s, b->n * sizeof *b->s);
    v->n += b->n;
    return 0;
}

void span_list_free(struct span_list *v)
{
    free(v->s);
    *v = (struct span_list){0};
}
