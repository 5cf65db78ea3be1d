/*
 * scan.c -- the log scanner: the hot loop of `waterfall analyze` on text.
 *
 * Finding: most bytes of a daemon's log are not TIMELINE records, so the
 * search must run at memory speed.  For every 32 (AVX2) or 16 (SSE2) byte
 * block we compare the block against 'T' and the block 7 bytes on against
 * 'E' (the first and last letters of TIMELINE) and verify only where both
 * match (Wojciech Muła's "SIMD-friendly Rabin-Karp").  On ordinary log text
 * a candidate is rare, so the loop is two loads, two compares, an AND and a
 * test per block.
 *
 * Parsing: a record is short; it is parsed in one pass with hand-written
 * number parsing (strtod would accept "nan", hex floats and locales).
 */
#include "scan.h"

#include <stdatomic.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

const char *const ev_names[EV_N] = {"SYNTH_START", "SYNTH_END", "CHAN_SEND",
                                     "GPU_PICKUP",  "GPU_START", "GPU_END"};

const char *const scan_err_text[] = {
    "ok",
    "not a record",
    "bad or missing time",
    "missing event name",
    "malformed event name",
    "missing job id",
    "bad partition, worker or device number",
    "record longer than 4096 bytes",
};

const char *const scan_err_key[] = {"ok",          "not_record", "bad_time", "missing_event",
                                    "bad_event", "missing_job", "bad_number", "too_long"};

static const char NEEDLE[8] = {'T', 'I', 'M', 'E', 'L', 'I', 'N', 'E'};

static const char *find_scalar(const char *p, const char *end)
{
    while (end - p >= 8) {
        const char *t = memchr(p, 'T', (size_t)(end - p - 7));
        if (!t)
            return NULL;
        if (memcmp(t, NEEDLE, 8) == 0)
            return t;
        p = t + 1;
    }
    return NULL;
}

#if defined(__x86_64__)
static const char *find_sse2(const char *p, const char *end)
{
    const __m128i first = _mm_set1_epi8('T'), last = _mm_set1_epi8('E');
    while (end - p >= 16 + 7) {
        __m128i a = _mm_loadu_si128((const __m128i *)p);
        __m128i b = _mm_loadu_si128((const __m128i *)(p + 7));
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, last)));
        while (m) {
            int i = __builtin_ctz(m);
            if (memcmp(p + i + 1, NEEDLE + 1, 6) == 0)
                return p + i;
            m &= m - 1;
        }
        p += 16;
    }
    return find_scalar(p, end);
}

__attribute__((target("avx2"))) static const char *find_avx2(const char *p, const char *end)
{
    const __m256i first = _mm256_set1_epi8('T'), last = _mm256_set1_epi8('E');
    while (end - p >= 32 + 7) {
        __m256i a = _mm256_loadu_si256((const __m256i *)p);
        __m256i b = _mm256_loadu_si256((const __m256i *)(p + 7));
        unsigned m = (unsigned)_mm256_movemask_epi8(
            _mm256_and_si256(_mm256_cmpeq_epi8(a, first), _mm256_cmpeq_epi8(b, last)));
        while (m) {
            int i = __builtin_ctz(m);
            if (memcmp(p + i + 1, NEEDLE + 1, 6) == 0)
                return p + i;
            m &= m - 1;
        }
        p += 32;
    }
    return find_sse2(p, end);
}

__attribute__((target("avx2"))) static uint64_t count_avx2(const char *p, const char *end)
{
    uint64_t n = 0;
    const __m256i nl = _mm256_set1_epi8('\n');
    while (end - p >= 32) {
        __m256i a = _mm256_loadu_si256((const __m256i *)p);
        n += (uint64_t)__builtin_popcount((unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, nl)));
        p += 32;
    }
    if (end - p >= 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)p);
        n += (uint64_t)__builtin_popcount((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(a, _mm_set1_epi8('\n'))));
        p += 16;
    }
    while (p < end)
        n += *p++ == '\n';
    return n;
}

/* scan_find and scan_count_lines in one pass: the newlines before the hit
 * are added to *nl. */
__attribute__((target("avx2"))) static const char *find_count_avx2(const char *p, const char *end,
                                                                   uint64_t *nl)
{
    const __m256i first = _mm256_set1_epi8('T'), last = _mm256_set1_epi8('E'),
                  lf = _mm256_set1_epi8('\n');
    uint64_t n = 0;
    while (end - p >= 32 + 7) {
        __m256i a = _mm256_loadu_si256((const __m256i *)p);
        __m256i b = _mm256_loadu_si256((const __m256i *)(p + 7));
        unsigned m = (unsigned)_mm256_movemask_epi8(
            _mm256_and_si256(_mm256_cmpeq_epi8(a, first), _mm256_cmpeq_epi8(b, last)));
        unsigned l = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, lf));
        while (m) {
            int i = __builtin_ctz(m);
            if (memcmp(p + i + 1, NEEDLE + 1, 6) == 0) {
                *nl += n + (uint64_t)__builtin_popcount(l & ((1u << i) - 1));
                return p + i;
            }
            m &= m - 1;
        }
        n += (uint64_t)__builtin_popcount(l);
        p += 32;
    }
    const char *hit = find_sse2(p, end);
    *nl += n + count_avx2(p, hit ? hit : end);
    return hit;
}

/* Found once; reader threads may ask at the same time (the answer is the
 * same for all, so a relaxed atomic is enough). */
static _Atomic int have_avx2 = -1;

static int avx2(void)
{
    int v = atomic_load_explicit(&have_avx2, memory_order_relaxed);
    if (v < 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx2") ? 1 : 0;
        atomic_store_explicit(&have_avx2, v, memory_order_relaxed);
    }
    return v;
}
#endif

const char *scan_find(const char *p, const char *end)
{
#if defined(__x86_64__)
    return avx2() ? find_avx2(p, end) : find_sse2(p, end);
#else
    return find_scalar(p, end);
#endif
}

const char *scan_find_count(const char *p, const char *end, uint64_t *nl)
{
#if defined(__x86_64__)
    if (avx2())
        return find_count_avx2(p, end, nl);
#endif
    const char *hit = scan_find(p, end);
    *nl += scan_count_lines(p, hit ? hit : end);
    return hit;
}

uint64_t scan_count_lines(const char *p, const char *end)
{
#if defined(__x86_64__)
    if (avx2())
        return count_avx2(p, end);
#endif
    uint64_t n = 0;
    while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        n++;
        p++;
    }
    return n;
}

/* ------------------------------------------------------------------ */

static int is_word(int c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

static int upper(int c)
{
    return c >= 'a' && c <= 'z' ? c - 32 : c;
}

#define EV_QUEUE_NAME 64 /* event_exact: CHAN_SEND, written GPU_QUEUE */

/* The event whose upper-case name is exactly [s, s+n), or -1; GPU_QUEUE
 * is the cuzk name of CHAN_SEND. */
static int event_exact(const char *s, size_t n)
{
    switch (n) {
    case 7:
        return memcmp(s, "GPU_END", 7) == 0 ? EV_GPU_END : -1;
    case 9:
        if (memcmp(s, "SYNTH_END", 9) == 0)
            return EV_SYNTH_END;
        if (memcmp(s, "GPU_START", 9) == 0)
            return EV_GPU_START;
        if (memcmp(s, "CHAN_SEND", 9) == 0)
            return EV_CHAN_SEND;
        if (memcmp(s, "GPU_QUEUE", 9) == 0)
            return EV_QUEUE_NAME;
        return -1;
    case 10:
        return memcmp(s, "GPU_PICKUP", 10) == 0 ? EV_GPU_PICKUP : -1;
    case 11:
        return memcmp(s, "SYNTH_START", 11) == 0 ? EV_SYNTH_START : -1;
    default:
        return -1;
    }
}

/* Is [s, s+n) an event name: a word of letters, digits and _ . - : ? */
static int is_name(const char *s, size_t n)
{
    if (n == 0 || n > SCAN_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!is_word((unsigned char)s[i]) && s[i] != '.' && s[i] != '-' && s[i] != ':')
            return 0;
    return 1;
}

static int event_upper(const char *s, size_t n)
{
    int e = event_exact(s, n);
    if (e >= 0 || n < 7 || n > 11)
        return e;
    char u[11];
    for (size_t i = 0; i < n; i++)
        u[i] = (char)upper((unsigned char)s[i]);
    return event_exact(u, n);
}

/* The event named by [s, s+n), any case (as cuzk writes it first, no
 * copy): one of the six, or EV_OTHER for any other name (data: the name is
 * kept), or -1 when it is not a name at all. */
static int event_id(const char *s, size_t n, struct scan_rec *r)
{
    int e = event_upper(s, n);
    if (e == EV_QUEUE_NAME) {
        r->queue = 1;
        return EV_CHAN_SEND;
    }
    if (e >= 0)
        return e;
    if (!is_name(s, n))
        return -1;
    r->name = s;
    r->name_len = n;
    return EV_OTHER;
}

/* A non-negative decimal number of unit units with up to frac_digits
 * digits after the point, as an integer count of 10^-frac_digits units:
 * "36512.5" with frac 6 -> 36512500000.  Extra digits are dropped.
 * Returns 0, or -1 if malformed or it would exceed max. */
static int parse_fixed(const char *s, size_t n, int frac_digits, int64_t max, int64_t *out)
{
    static const uint64_t pow10[10] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                       100000000, 1000000000};
    size_t i = 0;
    uint64_t v = 0;
    if (n == 0 || !(s[0] >= '0' && s[0] <= '9') || frac_digits < 0 || frac_digits > 9)
        return -1;
    /* No division: 19 digits cannot overflow 64 bits; past that the
     * builtins catch it.  v only grows, so one check against max at the
     * end is enough. */
    size_t fast = n < 19 ? n : 19;
    while (i < fast && (unsigned)(s[i] - '0') < 10) {
        v = v * 10 + (uint64_t)(s[i] - '0');
        i++;
    }
    while (i < n && s[i] >= '0' && s[i] <= '9') {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (uint64_t)(s[i] - '0'), &v))
            return -1;
        i++;
    }
    uint64_t scale = pow10[frac_digits];
    if (__builtin_mul_overflow(v, scale, &v) || v > (uint64_t)max)
        return -1;
    if (i < n && s[i] == '.') {
        i++;
        uint64_t place = scale / 10;
        size_t digits = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            v += (uint64_t)(s[i] - '0') * place;
            place /= 10;
            i++;
            digits++;
        }
        if (digits == 0)
            return -1;
    }
    if (i != n)
        return -1;
    *out = (int64_t)v;
    return 0;
}

static int parse_small(const char *s, size_t n, int32_t *out)
{
    int64_t v;
    if (parse_fixed(s, n, 0, INT32_MAX, &v))
        return -1;
    *out = (int32_t)v;
    return 0;
}

/* A detail the analysis does not read itself: kept, as written, while
 * there is room (SCAN_KV_MAX per record). */
static void keep_kv(struct scan_rec *r, const char *k, size_t kn, const char *v, size_t vn)
{
    if (kn == 0 || kn > 255 || vn > 1024 || r->nkv >= SCAN_KV_MAX)
        return;
    r->kv[r->nkv++] = (struct scan_kv){k, v, (uint16_t)kn, (uint16_t)vn};
}

/* A bare word in a detail (`monolithic`): kept as a key with no value. */
static void keep_word(struct scan_rec *r, const char *w, size_t n)
{
    while (n && (*w == ' ' || *w == '\t'))
        w++, n--;
    while (n && (w[n - 1] == ' ' || w[n - 1] == '\t'))
        n--;
    keep_kv(r, w, n, w + n, 0);
}

/* Detail keys shared by both forms; 1 if taken, 0 if not ours (kept as
 * an attribute), -1 if bad. */
static int take_key(const char *k, size_t kn, const char *v, size_t vn, struct scan_rec *r)
{
    /* daemons format details by hand: "worker=0, gpu=1" is worker 0 and
     * gpu 1, so blanks around keys and values are trimmed */
    while (kn && (*k == ' ' || *k == '\t'))
        k++, kn--;
    while (kn && (k[kn - 1] == ' ' || k[kn - 1] == '\t'))
        kn--;
    while (vn && (*v == ' ' || *v == '\t'))
        v++, vn--;
    while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
        vn--;
    int32_t *dst = NULL;
    if (kn == 9 && memcmp(k, "partition", 9) == 0)
        dst = &r->partition;
    else if (kn == 6 && memcmp(k, "worker", 6) == 0)
        dst = &r->worker;
    else if ((kn == 3 && memcmp(k, "gpu", 3) == 0) || (kn == 6 && memcmp(k, "device", 6) == 0))
        dst = &r->device;
    if (!dst) {
        keep_kv(r, k, kn, v, vn);
        return 0;
    }
    return parse_small(v, vn, dst) ? -1 : 1;
}

/* Copy [p, end) without ANSI escape sequences (ESC [ ... final byte,
 * or ESC and one byte) into out; returns the new length. */
static size_t strip_ansi(const char *p, const char *end, char *out)
{
    size_t n = 0;
    while (p < end) {
        if (*p != 0x1b) {
            out[n++] = *p++;
            continue;
        }
        p++;
        if (p < end && *p == '[') {
            p++;
            while (p < end && !(*p >= 0x40 && *p <= 0x7e))
                p++;
            if (p < end)
                p++;
        } else if (p < end) {
            p++;
        }
    }
    return n;
}

static enum scan_err parse_cuzk(const char *p, const char *end, struct scan_rec *r)
{
    /* <offset_ms>,<EVENT>,<job_id>,<detail> */
    const char *f = p;
    const char *c = scan_byte(f, end, ',');
    if (c == end)
        return SCAN_BAD_TIME;
    const char *ts = f;
    size_t tn = (size_t)(c - f);
    while (tn && (*ts == ' ' || *ts == '\t'))
        ts++, tn--;
    while (tn && (ts[tn - 1] == ' ' || ts[tn - 1] == '\t'))
        tn--;
    if (parse_fixed(ts, tn, 6, INT64_MAX / 2, &r->t_ns))
        return SCAN_BAD_TIME;
    f = c + 1;
    c = scan_byte(f, end, ',');
    if (c == f)
        return SCAN_BAD_EVENT;
    r->ev = event_id(f, (size_t)(c - f), r);
    if (r->ev < 0)
        return SCAN_UNKNOWN_EVENT;
    if (c == end)
        return SCAN_NO_JOB;
    f = c + 1;
    c = scan_byte(f, end, ',');
    if (c == f)
        return SCAN_NO_JOB;
    r->job = f;
    r->job_len = (size_t)(c - f);
    if (r->job_len > SCAN_JOB_MAX)
        return SCAN_NO_JOB;
    /* detail: k=v,k=v, possibly empty or a bare word */
    for (f = c < end ? c + 1 : end; f < end;) {
        c = scan_byte(f, end, ',');
        const char *eq = scan_byte(f, c, '=');
        if (eq == c)
            keep_word(r, f, (size_t)(c - f));
        else if (take_key(f, (size_t)(eq - f), eq + 1, (size_t)(c - eq - 1), r) < 0)
            return SCAN_BAD_NUMBER;
        f = c < end ? c + 1 : end;
    }
    return SCAN_OK;
}

#if defined(__SSE2__)
/* The cuzk form again, for a record of at most FAST_MAX bytes without ANSI
 * codes (the common case): copied into buf and padded, its commas and '='
 * found in one pass of 16-byte compares, so each field costs a bit scan
 * instead of a search loop with a mispredicted exit.  Same results as
 * parse_cuzk; -1 if the record has an ESC or a double quote (the caller
 * takes the slow way). */
#define FAST_MAX 128

static size_t next_set(const uint64_t m[2], size_t from, size_t n)
{
    while (from < FAST_MAX) {
        size_t w = from >> 6;
        uint64_t x = m[w] & (~0ull << (from & 63));
        if (x) {
            size_t pos = (w << 6) + (size_t)__builtin_ctzll(x);
            return pos < n ? pos : n;
        }
        from = (w + 1) << 6;
    }
    return n;
}

static int parse_cuzk_fast(const char *p, size_t n, char *buf, int direct, struct scan_rec *r)
{
    if (direct)
        buf = (char *)p; /* FAST_MAX bytes from p may be read: no copy */
    else
        memcpy(buf, p, n); /* the bytes past n are masked off below */
    const __m128i comma = _mm_set1_epi8(','), eq = _mm_set1_epi8('='), esc = _mm_set1_epi8(0x1b),
                  quote = _mm_set1_epi8('"');
    uint64_t cm[2], em[2], xm[2];
#define MASKS(w, o)                                                                             \
    do {                                                                                        \
        __m128i v0 = _mm_loadu_si128((const __m128i *)(buf + (o))),                             \
                v1 = _mm_loadu_si128((const __m128i *)(buf + (o) + 16)),                        \
                v2 = _mm_loadu_si128((const __m128i *)(buf + (o) + 32)),                        \
                v3 = _mm_loadu_si128((const __m128i *)(buf + (o) + 48));                        \
        cm[w] = (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v0, comma)) |             \
                (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v1, comma)) << 16 |       \
                (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v2, comma)) << 32 |       \
                (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v3, comma)) << 48;        \
        em[w] = (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v0, eq)) |                \
                (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v1, eq)) << 16 |          \
                (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v2, eq)) << 32 |          \
                (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v3, eq)) << 48;           \
        xm[w] = (uint64_t)(unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v0, esc),      \
                                                                   _mm_cmpeq_epi8(v0, quote))) | \
                (uint64_t)(unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v1, esc),      \
                                                                   _mm_cmpeq_epi8(v1, quote))) << 16 | \
                (uint64_t)(unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v2, esc),      \
                                                                   _mm_cmpeq_epi8(v2, quote))) << 32 | \
                (uint64_t)(unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v3, esc),      \
                                                                   _mm_cmpeq_epi8(v3, quote))) << 48; \
    } while (0)
    MASKS(0, 0);
    uint64_t keep = n >= 64 ? ~0ull : (1ull << n) - 1;
    cm[0] &= keep;
    em[0] &= keep;
    xm[0] &= keep;
    if (n > 64) {
        MASKS(1, 64);
        keep = n >= 128 ? ~0ull : (1ull << (n - 64)) - 1;
        cm[1] &= keep;
        em[1] &= keep;
        xm[1] &= keep;
    } else {
        cm[1] = em[1] = xm[1] = 0;
    }
#undef MASKS
    if (xm[0] | xm[1])
        return -1;
    r->job = NULL;
    r->job_len = 0;
    r->partition = r->worker = r->device = -1;
    r->t_ns = 0;
    r->name = NULL;
    r->name_len = 0;
    r->queue = r->wall = r->nkv = 0;
    size_t c0 = next_set(cm, 0, n);
    if (c0 == n)
        return SCAN_BAD_TIME;
    const char *ts = buf;
    size_t tn = c0;
    while (tn && (*ts == ' ' || *ts == '\t'))
        ts++, tn--;
    while (tn && (ts[tn - 1] == ' ' || ts[tn - 1] == '\t'))
        tn--;
    if (parse_fixed(ts, tn, 6, INT64_MAX / 2, &r->t_ns))
        return SCAN_BAD_TIME;
    size_t c1 = next_set(cm, c0 + 1, n);
    if (c1 == c0 + 1)
        return SCAN_BAD_EVENT;
    r->ev = event_id(buf + c0 + 1, c1 - c0 - 1, r);
    if (r->ev < 0)
        return SCAN_UNKNOWN_EVENT;
    if (c1 == n)
        return SCAN_NO_JOB;
    size_t c2 = next_set(cm, c1 + 1, n);
    if (c2 == c1 + 1)
        return SCAN_NO_JOB;
    r->job = buf + c1 + 1;
    r->job_len = c2 - c1 - 1;
    for (size_t f = c2 < n ? c2 + 1 : n; f < n;) {
        size_t c = next_set(cm, f, n);
        size_t e = next_set(em, f, c);
        if (e == c)
            keep_word(r, buf + f, c - f);
        else if (take_key(buf + f, e - f, buf + e + 1, c - e - 1, r) < 0)
            return SCAN_BAD_NUMBER;
        f = c < n ? c + 1 : n;
    }
    return SCAN_OK;
}
#endif

/* Whether [p, end) holds a job= or ts= word: the shape of a seed-form
 * record.  A daemon's own line that mentions TIMELINE ("INFO cuzk:
 * TIMELINE logging enabled") has neither, and is not a record at all: not
 * counted, not skipped. */
static int has_record_key(const char *p, const char *end)
{
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if ((end - p > 4 && memcmp(p, "job=", 4) == 0) || (end - p > 3 && memcmp(p, "ts=", 3) == 0))
            return 1;
        while (p < end && *p != ' ' && *p != '\t')
            p++;
    }
    return 0;
}

static enum scan_err parse_seed(const char *p, const char *end, struct scan_rec *r)
{
    /* <event> job=<job_id> ts=<seconds> [k=v ...], blank separated */
    int have_ts = 0;
    r->ev = -2;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p == end)
            break;
        const char *w = p;
        while (p < end && *p != ' ' && *p != '\t')
            p++;
        size_t wn = (size_t)(p - w);
        if (r->ev == -2) {
            r->ev = event_id(w, wn, r);
            /* a record (any name), or prose that mentions TIMELINE */
            if ((r->ev < 0 || r->ev == EV_OTHER) && !has_record_key(p, end))
                return SCAN_NOT_RECORD;
            if (r->ev < 0)
                return SCAN_UNKNOWN_EVENT;
            continue;
        }
        const char *eq = memchr(w, '=', wn);
        if (!eq)
            continue;
        size_t kn = (size_t)(eq - w), vn = wn - kn - 1;
        if (kn == 3 && memcmp(w, "job", 3) == 0) {
            if (vn == 0 || vn > SCAN_JOB_MAX)
                return SCAN_NO_JOB;
            r->job = eq + 1;
            r->job_len = vn;
        } else if (kn == 2 && memcmp(w, "ts", 2) == 0) {
            if (parse_fixed(eq + 1, vn, 9, INT64_MAX / 2, &r->t_ns))
                return SCAN_BAD_TIME;
            have_ts = 1;
        } else if (take_key(w, kn, eq + 1, vn, r) < 0) {
            return SCAN_BAD_NUMBER;
        }
    }
    if (r->ev == -2)
        return SCAN_BAD_EVENT;
    if (!r->job)
        return SCAN_NO_JOB;
    if (!have_ts)
        return SCAN_BAD_TIME;
    return SCAN_OK;
}

/* A record inside a JSON string: a log collected as JSON lines (Docker's
 * json-file driver: {"log":"... TIMELINE,...\n","stream":"stderr",...};
 * a structured logger's {"msg":"TIMELINE,..."}).  When the record's first
 * unescaped double quote closes a JSON string (what follows it is a ',',
 * a '}' or a ']', or nothing), the record ends there, and its JSON
 * escapes are decoded into out: \u001b is the ESC of a colour code,
 * \n, \r and \t are white space (trimmed at the end like a CR).
 * Returns the new length, or -1 when [p, end) is not such a string. */
static long json_unwrap(const char *p, const char *end, char *out)
{
    const char *q = p;
    for (; q < end; q++) {
        if (*q == '\\' && q + 1 < end) {
            q++; /* an escaped byte, '"' included */
            continue;
        }
        if (*q == '"')
            break;
    }
    if (q == end)
        return -1;
    const char *a = q + 1;
    while (a < end && (*a == ' ' || *a == '\t' || *a == '\r'))
        a++;
    if (a < end && *a != ',' && *a != '}' && *a != ']')
        return -1;
    size_t n = 0;
    for (const char *c = p; c < q; c++) {
        if (*c != '\\' || c + 1 >= q) {
            out[n++] = *c;
            continue;
        }
        c++;
        switch (*c) {
        case 'n':
        case 'r':
        case 't':
            out[n++] = ' ';
            break;
        case 'u':
            if (q - c >= 5 && c[1] == '0' && c[2] == '0' && c[3] == '1' && (c[4] == 'b' || c[4] == 'B')) {
                out[n++] = 0x1b;
                c += 4;
            } else {
                out[n++] = '\\';
                out[n++] = 'u';
            }
            break;
        default: /* \" \\ \/ and the rest: the byte itself */
            out[n++] = *c;
            break;
        }
    }
    return (long)n;
}

/* Does TIMELINE at tl start a word?  The byte before may end an ANSI
 * colour code ("\x1b[2mTIMELINE", or "\\u001b[2mTIMELINE" in a JSON
 * string), which counts as a boundary. */
static int at_word_start(const char *ls, const char *tl)
{
    if (tl == ls || !is_word((unsigned char)tl[-1]))
        return 1;
    const char *q = tl - 1; /* a CSI final byte? walk back over parameters */
    if (!((*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z')))
        return 0;
    while (q > ls && ((q[-1] >= '0' && q[-1] <= '9') || q[-1] == ';'))
        q--;
    if (q - ls >= 2 && q[-1] == '[' && q[-2] == 0x1b)
        return 1;
    /* the same colour code escaped in a JSON string: \u001b[2m */
    return q - ls >= 7 && q[-1] == '[' && memcmp(q - 7, "\\u001", 5) == 0 && (q[-2] == 'b' || q[-2] == 'B');
}

static enum scan_err scan_line_impl(const char *ls, const char *tl, const char *eol, const char *readable,
                                    char *scratch, struct scan_rec *r, int fast)
{
    if (!at_word_start(ls, tl))
        return SCAN_NOT_RECORD;
    const char *p = tl + 8;
    if (p >= eol || !(*p == ',' || *p == ' ' || *p == '\t'))
        return SCAN_NOT_RECORD;
    if (eol - tl > SCAN_LINE_MAX)
        return SCAN_TOO_LONG;
#if defined(__SSE2__)
    if (fast && *p == ',') {
        const char *e = eol;
        while (e > p && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t' || e[-1] == 0))
            e--;
        if (e > p && (size_t)(e - p - 1) <= FAST_MAX) {
            int rc = parse_cuzk_fast(p + 1, (size_t)(e - p - 1), scratch,
                                     readable - (p + 1) >= FAST_MAX, r);
            if (rc >= 0)
                return (enum scan_err)rc;
        }
    }
#endif
    if (scan_byte(p, eol, '"') < eol) {
        long n = json_unwrap(p, eol, scratch);
        if (n >= 0) {
            p = scratch;
            eol = scratch + n;
        }
    }
    if (scan_byte(p, eol, 0x1b) < eol) {
        size_t n = strip_ansi(p, eol, scratch); /* in place when p is scratch: it only shrinks */
        p = scratch;
        eol = scratch + n;
    }
    while (eol > p && (eol[-1] == '\r' || eol[-1] == ' ' || eol[-1] == '\t' || eol[-1] == 0))
        eol--;
    r->job = NULL;
    r->job_len = 0;
    r->partition = r->worker = r->device = -1;
    r->t_ns = 0;
    r->name = NULL;
    r->name_len = 0;
    r->queue = r->wall = r->nkv = 0;
    if (*p == ',')
        return parse_cuzk(p + 1, eol, r);
    return parse_seed(p, eol, r);
}

enum scan_err scan_line(const char *ls, const char *tl, const char *eol, char *scratch,
                        struct scan_rec *r)
{
    return scan_line_impl(ls, tl, eol, eol, scratch, r, 1);
}

enum scan_err scan_line_in(const char *ls, const char *tl, const char *eol, const char *readable,
                           char *scratch, struct scan_rec *r)
{
    return scan_line_impl(ls, tl, eol, readable, scratch, r, 1);
}

enum scan_err scan_line_ref(const char *ls, const char *tl, const char *eol, char *scratch,
                            struct scan_rec *r)
{
    return scan_line_impl(ls, tl, eol, eol, scratch, r, 0);
}
