/*
 * analyze_stream.c -- HTA's idle-time breakdown, per stream of a device.
 *
 * For a run whose workers are streams (a PyTorch trace's), each stream's
 * operations in order of start; each gap is an operation's start minus
 * the previous operation's end on the stream (the previous in start
 * order, not the latest end: negative where they overlap, and summed as
 * it is), and goes, as in HTA's _analyze_idle_time_for_stream:
 *
 *   host_wait    the operation's launch (CHAN_SEND) began after the
 *                previous operation ended: the host was late;
 *   kernel_wait  else the gap is under consecutive_kernel_delay;
 *   other        else.
 *
 * HTA's code compares the gap with the threshold in the trace's own unit
 * (µs for Kineto), though its docs say ns: this does what the code does.
 * Where the trace's times have sub-µs digits, HTA first rounds each start
 * up and each end down to the µs (its round_down_time_stamps); so does
 * this, for the breakdown only: busy time stays the nanosecond union.
 * And where the trace has two ProfilerSteps or more, HTA (by default)
 * takes the last iteration as incomplete and leaves out every operation
 * not launched before the last step began (its launch not in the trace:
 * out too); so does the breakdown here (streams_use.step_cut).
 */
#include "analyze.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One operation of a stream, in HTA's times. */
struct sop {
    int32_t device, stream;
    int64_t start, end;   /* exact ns */
    int64_t hstart, hend; /* as HTA reads them */
    int64_t launch;       /* HTA's launch time; T_NONE: none */
    uint64_t line;
};

/* HTA's rounding, as Python does it: the input's µs read as a double
 * (the nearest to the decimal), math.ceil of a start, math.floor of
 * start + dur.
 * At 1.7e15 µs (a Unix-epoch trace) a double holds a quarter µs, so this
 * is not the ceiling of the exact time: it is what HTA computes.  t, d:
 * ns in the run's time base; origin: its 0 in the input's; the result in
 * the run's time base again. */
static double us_double(int64_t ns)
{
    /* The double nearest ns / 1000 (ties to even): what strtod and
     * Python's float() make of the decimal the input wrote, both rounding
     * correctly.  Below 2^53 both are exact doubles and IEEE division
     * rounds correctly; above (ns since 1970) no double holds ns, so the
     * quotient's 53 bits are found in integers. */
    uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
    double r;
    if (a < (UINT64_C(1) << 53)) {
        r = (double)a / 1000.0;
    } else {
        /* a / 1000 = m * 2^e with 2^52 <= m < 2^53: from a's bits, then
         * adjusted (1000 is about 2^10) */
        int e = 63 - __builtin_clzll(a) - 52 - 10;
        unsigned __int128 num, den, m;
        for (;;) {
            num = e < 0 ? (unsigned __int128)a << -e : a;
            den = e > 0 ? (unsigned __int128)1000 << e : 1000;
            m = num / den;
            if (m >= (UINT64_C(1) << 53))
                e++;
            else if (m < (UINT64_C(1) << 52))
                e--;
            else
                break;
        }
        unsigned __int128 rem = num - m * den;
        if (2 * rem > den || (2 * rem == den && (m & 1)))
            m++; /* 2^53 exactly is still a double */
        r = ldexp((double)(uint64_t)m, e);
    }
    return ns < 0 ? -r : r;
}

static int64_t hta_ceil(int64_t t, int64_t origin)
{
    return (int64_t)ceil(us_double(t + origin)) * 1000 - origin;
}

static int64_t hta_end(int64_t t, int64_t d, int64_t origin)
{
    /* d < 2^53: d / 1000.0 is the double nearest the decimal, as strtod's */
    return (int64_t)floor(us_double(t + origin) + (double)d / 1000.0) * 1000 - origin;
}

/* By device, stream, HTA's start; ties (HTA's sort leaves them in no
 * promised order) by the exact start, then the input's order. */
static int sop_cmp(const void *a, const void *b)
{
    const struct sop *x = a, *y = b;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    if (x->stream != y->stream)
        return x->stream < y->stream ? -1 : 1;
    if (x->hstart != y->hstart)
        return x->hstart < y->hstart ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* One stream's figures from its operations s[0..n), in order. */
static void one_stream(const struct sop *s, size_t n, double delay_ns, struct stream_result *out)
{
    memset(out, 0, sizeof *out);
    out->stream = s[0].stream;
    out->ops = n;
    int64_t cur_a = s[0].start, cur_b = s[0].end; /* busy: the union, merged as it goes */
    for (size_t i = 0; i < n; i++) {
        if (i) {
            if (s[i].start > cur_b) {
                out->busy += cur_b - cur_a;
                cur_a = s[i].start;
                cur_b = s[i].end;
            } else if (s[i].end > cur_b)
                cur_b = s[i].end;
            int64_t prev_end = s[i - 1].hend;
            int64_t gap = s[i].hstart - prev_end;
            if (s[i].launch != T_NONE && s[i].launch > prev_end)
                out->host_wait += gap;
            else if ((double)gap < delay_ns)
                out->kernel_wait += gap;
            else
                out->other += gap;
        }
    }
    out->busy += cur_b - cur_a;
    out->idle = out->host_wait + out->kernel_wait + out->other;
}

/* A launch that is not the unit's CHAN_SEND: one that began after its
 * operation (the clocks disagree), or one inside a prep range (the unit
 * is ready where the range begins: read/kineto_stage.h).  The reader
 * keeps its time as the unit's detail launch_ns, and HTA's rule takes it
 * as it is.  T_NONE: none. */
static int64_t launch_detail(const struct run *r, uint32_t u)
{
    size_t n;
    const char *v = unit_attr(r, u, "launch_ns", &n);
    if (!v || n == 0 || n > 20)
        return T_NONE;
    char buf[24];
    memcpy(buf, v, n);
    buf[n] = 0;
    char *end;
    long long t = strtoll(buf, &end, 10);
    return *end ? T_NONE : (int64_t)t;
}

/* The streams of a run, (device, stream) each, numbered as met: an open
 * addressing table (a trace has a handful; a hostile one, any number). */
struct skeys {
    uint64_t *key; /* (device, stream) + 1 (0: empty) */
    uint32_t *id;
    size_t mask, n;
    uint64_t seed; /* mixed into the hash: a trace cannot be made to pile its streams into one slot */
};

/* The slot of key k: the key mixed with the table's seed (MurmurHash3's
 * finalizer), its high bits; the output never depends on it, only the time. */
static size_t skeys_slot(const struct skeys *t, uint64_t k, size_t mask)
{
    uint64_t h = k ^ t->seed;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return (size_t)h & mask;
}

static uint64_t skey(int32_t device, int32_t stream)
{
    return ((uint64_t)(uint32_t)device << 32 | (uint32_t)stream) + 1;
}

/* The stream's number, added if new; -1 out of memory. */
static int64_t skeys_id(struct skeys *t, uint64_t k)
{
    size_t j = t->key ? skeys_slot(t, k, t->mask) : 0;
    for (; t->key && t->key[j]; j = (j + 1) & t->mask)
        if (t->key[j] == k)
            return t->id[j];
    if (!t->key || 2 * (t->n + 1) > t->mask + 1) { /* at most half full */
        size_t slots = t->key ? 2 * (t->mask + 1) : 64;
        uint64_t *nk = calloc(slots, sizeof *nk);
        uint32_t *ni = malloc(slots * sizeof *ni);
        if (!nk || !ni) {
            free(nk);
            free(ni);
            return -1;
        }
        for (size_t i = 0; t->key && i <= t->mask; i++)
            if (t->key[i]) {
                size_t h = skeys_slot(t, t->key[i], slots - 1);
                while (nk[h])
                    h = (h + 1) & (slots - 1);
                nk[h] = t->key[i], ni[h] = t->id[i];
            }
        free(t->key);
        free(t->id);
        t->key = nk, t->id = ni, t->mask = slots - 1;
    }
    j = skeys_slot(t, k, t->mask);
    while (t->key[j])
        j = (j + 1) & t->mask;
    t->key[j] = k, t->id[j] = (uint32_t)t->n;
    return (int64_t)t->n++;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Does unit u's operation count on its stream (HTA takes every operation
 * on a stream as it reads it, a contradicting one too)? */
static int stream_op(const struct unit *u)
{
    return u->worker >= 0 && u->t[EV_GPU_START] != T_NONE && u->t[EV_GPU_END] != T_NONE;
}

int analyze_streams(const struct run *r, const struct analyze_opts *o, struct run_result *res)
{
    if (!r->streams.streams)
        return 0;
    double delay_us = o && o->kernel_delay_set ? o->kernel_delay_us : HTA_KERNEL_DELAY_US;
    int round = r->streams.us_rounded;
    int64_t origin = r->streams.origin;
    /* The operations by (device, stream), each stream's in the input's
     * order, counted first and then put in place: a trace's streams are
     * few and each is mostly in time order already, so only a stream that
     * is not is sorted (sop_cmp), and a million operations are not sorted
     * as one array. */
    struct skeys sk = {0};
    sk.seed = (uint64_t)(uintptr_t)&sk ^ (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull; /* varies by run (ASLR, time) */
    size_t *at = NULL, ns;
    uint64_t *keys = NULL;
    uint32_t *rank = NULL; /* a stream's number -> its place in (device, stream) order */
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < r->nunits; i++)
        if (stream_op(&r->units[i]) && skeys_id(&sk, skey(r->units[i].device, r->units[i].worker)) < 0)
            rc = -1;
    ns = sk.n;
    if (rc == 0) {
        keys = malloc((ns ? ns : 1) * sizeof *keys);
        rank = malloc((ns ? ns : 1) * sizeof *rank);
        at = calloc(ns + 1, sizeof *at);
        if (!keys || !rank || !at)
            rc = -1;
    }
    for (size_t j = 0, q = 0; rc == 0 && sk.key && j <= sk.mask; j++)
        if (sk.key[j])
            keys[q++] = sk.key[j];
    if (rc == 0 && ns)
        qsort(keys, ns, sizeof *keys, cmp_u64);
    for (size_t q = 0; rc == 0 && q < ns; q++)
        rank[skeys_id(&sk, keys[q])] = (uint32_t)q; /* there: found, not added */
    for (size_t i = 0; rc == 0 && i < r->nunits; i++)
        if (stream_op(&r->units[i]))
            at[rank[skeys_id(&sk, skey(r->units[i].device, r->units[i].worker))] + 1]++;
    for (size_t q = 0; rc == 0 && q < ns; q++)
        at[q + 1] += at[q];
    struct sop *v = rc == 0 ? malloc((r->nunits ? r->nunits : 1) * sizeof *v) : NULL;
    if (rc == 0 && !v)
        rc = -1;
    size_t n = rc == 0 ? at[ns] : 0;
    for (size_t i = 0; rc == 0 && i < r->nunits; i++) {
        const struct unit *u = &r->units[i];
        if (!stream_op(u))
            continue;
        struct sop *s = &v[at[rank[skeys_id(&sk, skey(u->device, u->worker))]]++];
        s->device = u->device;
        s->stream = u->worker;
        s->start = u->t[EV_GPU_START];
        s->end = u->t[EV_GPU_END];
        s->hstart = round ? hta_ceil(s->start, origin) : s->start;
        s->hend = round ? hta_end(s->start, s->end - s->start, origin) : s->end;
        int64_t l = r->streams.late_launch || r->streams.stage_units[1] ? launch_detail(r, (uint32_t)i) : T_NONE;
        if (l == T_NONE)
            l = u->t[EV_CHAN_SEND];
        s->launch = l;
        if (l != T_NONE && round)
            s->launch = hta_ceil(l, origin);
        s->line = u->line;
    }
    free(keys);
    free(rank);
    free(at);
    free(sk.key);
    free(sk.id);
    if (rc) {
        free(v);
        return -1;
    }
    if (r->streams.step_cut != T_NONE) { /* HTA's incomplete last iteration, left out */
        int64_t cut = round ? hta_ceil(r->streams.step_cut, origin) : r->streams.step_cut;
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (v[i].launch != T_NONE && v[i].launch < cut)
                v[k++] = v[i];
        n = k;
    }
    for (size_t i = 0; i < n;) { /* each stream in HTA's order */
        size_t j = i + 1;
        int sorted = 1;
        for (; j < n && v[j].device == v[i].device && v[j].stream == v[i].stream; j++)
            if (sorted && sop_cmp(&v[j - 1], &v[j]) > 0)
                sorted = 0;
        if (!sorted)
            qsort(v + i, j - i, sizeof *v, sop_cmp);
        i = j;
    }
    for (size_t d = 0; d < res->ndev; d++) {
        struct device_result *dr = &res->dev[d];
        size_t a = 0, hi = n; /* v is by (device as unsigned, stream): its first */
        while (a < hi) {
            size_t mid = a + (hi - a) / 2;
            if ((uint32_t)v[mid].device < (uint32_t)dr->device)
                a = mid + 1;
            else
                hi = mid;
        }
        size_t b = a, count = 0;
        for (size_t i = a; i < n && v[i].device == dr->device; i++, b++)
            if (i == a || v[i].stream != v[i - 1].stream)
                count++;
        if (!count)
            continue;
        dr->streams = calloc(count, sizeof *dr->streams);
        if (!dr->streams) {
            free(v);
            return -1;
        }
        for (size_t i = a; i < b;) {
            size_t j = i;
            while (j < b && v[j].stream == v[i].stream)
                j++;
            one_stream(v + i, j - i, delay_us * 1000.0, &dr->streams[dr->nstreams++]);
            i = j;
        }
    }
    free(v);
    return 0;
}
