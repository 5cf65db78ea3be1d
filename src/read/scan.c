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

/* Any needle: TIMELINE as above, or the duration lines' tag
 * CUZK_TIMING: ('C' here and 'Z' two on: a pair that log text rarely
 * has).  One more load and compare per block than the TIMELINE search
 * alone; the hit is verified whole. */
static const char DUR_TAG[12] = {'C', 'U', 'Z', 'K', '_', 'T', 'I', 'M', 'I', 'N', 'G', ':'};

/* And the engine's own timing of the call (engine.rs: an info! line,
 * "GPU_TIMING spawn_blocking prove_start", 'G' here and 'I' seven on). */
static const char SPAWN_TAG[] = "GPU_TIMING spawn_blocking prove_start";
#define SPAWN_TAG_LEN (sizeof SPAWN_TAG - 1)

/* And ntt_msm_h's own breakdown (groth16_ntt_h.cu), counted (DUR_NTT):
 * 'C' here and 'Z' two on as well. */
static const char NTT_TAG[11] = {'C', 'U', 'Z', 'K', '_', 'N', 'T', 'T', '_', 'H', ':'};

static int any_at(const char *p, const char *end)
{
    if (*p == 'T')
        return end - p >= 8 && memcmp(p, NEEDLE, 8) == 0;
    if (*p == 'G')
        return (size_t)(end - p) >= SPAWN_TAG_LEN && memcmp(p, SPAWN_TAG, SPAWN_TAG_LEN) == 0;
    return (end - p >= 12 && memcmp(p, DUR_TAG, 12) == 0) || (end - p >= 11 && memcmp(p, NTT_TAG, 11) == 0);
}

static const char *find_any_scalar(const char *p, const char *end)
{
    for (; end - p >= 8; p++)
        if ((*p == 'T' || *p == 'C' || *p == 'G') && any_at(p, end))
            return p;
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

/* The AVX2 loops leave with _mm256_zeroupper(), on every way out and
 * before every call, by hand: gcc 12 at -O2 returned from a hit without
 * it (the paths that call a function compiled without AVX), and the
 * parser's SSE code after it then ran with the upper halves dirty.  On
 * the 2-vCPU Intel Xeon VM that took a third of `analyze`'s time on the
 * 1 GB logs (docs/bench.md, 2026-12-06, twelfth session). */
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
            if (memcmp(p + i + 1, NEEDLE + 1, 6) == 0) {
                _mm256_zeroupper();
                return p + i;
            }
            m &= m - 1;
        }
        p += 32;
    }
    _mm256_zeroupper();
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
    _mm256_zeroupper();
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
                _mm256_zeroupper();
                return p + i;
            }
            m &= m - 1;
        }
        n += (uint64_t)__builtin_popcount(l);
        p += 32;
    }
    _mm256_zeroupper();
    const char *hit = find_sse2(p, end);
    *nl += n + count_avx2(p, hit ? hit : end);
    return hit;
}

__attribute__((target("avx2"))) static const char *find_any_count_avx2(const char *p, const char *end,
                                                                       uint64_t *nl)
{
    const __m256i t = _mm256_set1_epi8('T'), e = _mm256_set1_epi8('E'), c = _mm256_set1_epi8('C'),
                  z = _mm256_set1_epi8('Z'), g = _mm256_set1_epi8('G'), i7 = _mm256_set1_epi8('I'),
                  lf = _mm256_set1_epi8('\n');
    uint64_t n = 0;
    while (end - p >= 32 + 7) {
        __m256i a = _mm256_loadu_si256((const __m256i *)p);
        __m256i b = _mm256_loadu_si256((const __m256i *)(p + 7));
        __m256i a2 = _mm256_loadu_si256((const __m256i *)(p + 2));
        __m256i hit = _mm256_or_si256(
            _mm256_or_si256(_mm256_and_si256(_mm256_cmpeq_epi8(a, t), _mm256_cmpeq_epi8(b, e)),
                            _mm256_and_si256(_mm256_cmpeq_epi8(a, c), _mm256_cmpeq_epi8(a2, z))),
            _mm256_and_si256(_mm256_cmpeq_epi8(a, g), _mm256_cmpeq_epi8(b, i7)));
        unsigned m = (unsigned)_mm256_movemask_epi8(hit);
        unsigned l = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, lf));
        while (m) {
            int i = __builtin_ctz(m);
            _mm256_zeroupper(); /* any_at is compiled without AVX */
            if (any_at(p + i, end)) {
                *nl += n + (uint64_t)__builtin_popcount(l & ((1u << i) - 1));
                return p + i;
            }
            m &= m - 1;
        }
        n += (uint64_t)__builtin_popcount(l);
        p += 32;
    }
    _mm256_zeroupper();
    const char *hit = find_any_scalar(p, end);
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

const char *scan_find_any_count(const char *p, const char *end, uint64_t *nl)
{
#if defined(__x86_64__)
    if (avx2())
        return find_any_count_avx2(p, end, nl);
#endif
    const char *hit = find_any_scalar(p, end);
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
                  quote = _mm_set1_epi8('"'), colon = _mm_set1_epi8(':');
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
        xm[w] = (uint64_t)(unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v0, esc), _mm_cmpeq_epi8(v0, colon)), \
                                                                   _mm_cmpeq_epi8(v0, quote))) | \
                (uint64_t)(unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v1, esc), _mm_cmpeq_epi8(v1, colon)), \
                                                                   _mm_cmpeq_epi8(v1, quote))) << 16 | \
                (uint64_t)(unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v2, esc), _mm_cmpeq_epi8(v2, colon)), \
                                                                   _mm_cmpeq_epi8(v2, quote))) << 32 | \
                (uint64_t)(unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v3, esc), _mm_cmpeq_epi8(v3, colon)), \
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
    r->queue = r->wall = r->nkv = 0; /* (cut: scan_hit clears it first) */
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

/* ------------------------------------------------------------------ */
/* The seed form as Rust's loggers print it: after a target (`TIMELINE:`
 * from tracing-subscriber, `TIMELINE]` from env_logger), with quoted
 * values, fields in any order, the event as a field, and the line's own
 * timestamp where the record has no ts=; and tracing's JSON lines. */

static int is_blank(int c)
{
    return c == ' ' || c == '\t';
}

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static void rec_reset(struct scan_rec *r)
{
    r->job = NULL; /* (cut: scan_hit clears it first) */
    r->job_len = 0;
    r->partition = r->worker = r->device = -1;
    r->t_ns = 0;
    r->name = NULL;
    r->name_len = 0;
    r->queue = r->wall = r->nkv = 0;
}

/* Seconds as loggers write them: parse_fixed's decimal, or with an
 * exponent, as Rust's {:?} and JSON write small floats (1.5e-5). */
static int parse_secs(const char *s, size_t n, int64_t *out)
{
    size_t e = 0;
    while (e < n && s[e] != 'e' && s[e] != 'E')
        e++;
    if (e == n)
        return parse_fixed(s, n, 9, INT64_MAX / 2, out);
    size_t i = e + 1;
    int neg = 0;
    long x = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if (i == n)
        return -1;
    for (; i < n; i++) {
        if (!is_digit((unsigned char)s[i]) || x > 1000)
            return -1;
        x = x * 10 + (s[i] - '0');
    }
    if (neg)
        x = -x;
    /* the mantissa's digits, and how many come before its point */
    char d[48];
    size_t nd = 0, ni = 0;
    int point = 0;
    if (e == 0 || !is_digit((unsigned char)s[0]))
        return -1;
    for (size_t k = 0; k < e; k++) {
        if (s[k] == '.' && !point) {
            point = 1;
            continue;
        }
        if (!is_digit((unsigned char)s[k]))
            return -1;
        if (!point)
            ni++;
        if (nd < sizeof d)
            d[nd++] = s[k];
        else if (!point)
            return -1;
    }
    /* written again without the exponent, for parse_fixed */
    long pt = (long)ni + x;
    char b[96];
    size_t k = 0;
    if (pt > 19)
        return -1;
    if (pt <= 0) {
        b[k++] = '0';
        b[k++] = '.';
        for (long z = 0; z < -pt && k < 12; z++)
            b[k++] = '0';
        for (size_t q = 0; q < nd && k < 40; q++)
            b[k++] = d[q];
    } else {
        for (long q = 0; q < pt; q++)
            b[k++] = q < (long)nd ? d[q] : '0';
        if ((long)nd > pt) {
            b[k++] = '.';
            for (size_t q = (size_t)pt; q < nd && k < 80; q++)
                b[k++] = d[q];
        }
    }
    return parse_fixed(b, k, 9, INT64_MAX / 2, out);
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; H. Hinnant's
 * days_from_civil). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int num2(const char *s)
{
    return is_digit((unsigned char)s[0]) && is_digit((unsigned char)s[1]) ? (s[0] - '0') * 10 + (s[1] - '0')
                                                                           : -1;
}

/* An RFC 3339 date-time at s, before end: 2026-02-18T19:21:07.512034Z
 * (T, t or a blank between date and time; Z, z, +HH:MM, -HH:MM, +HHMM or
 * +HH after; no zone is read as UTC; up to 9 digits of fraction, more are
 * dropped).  Returns its length, with the time since
 * 1970-01-01T00:00:00Z in *ns; 0 if there is none at s. */
static size_t parse_datetime(const char *s, const char *end, int64_t *ns)
{
    if (end - s < 19)
        return 0;
    for (int i = 0; i < 4; i++)
        if (!is_digit((unsigned char)s[i]))
            return 0;
    if (s[4] != '-' || s[7] != '-' || !(s[10] == 'T' || s[10] == 't' || s[10] == ' ') || s[13] != ':' ||
        s[16] != ':')
        return 0;
    int y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
    int mo = num2(s + 5), d = num2(s + 8), h = num2(s + 11), mi = num2(s + 14), se = num2(s + 17);
    static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h < 0 || h > 23 || mi < 0 || mi > 59 ||
        se < 0 || se > 60)
        return 0;
    if (mo == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
        return 0;
    size_t i = 19, n = (size_t)(end - s);
    int64_t frac = 0;
    if (i < n && (s[i] == '.' || s[i] == ',')) {
        int64_t place = 100000000;
        size_t digits = 0;
        for (i++; i < n && is_digit((unsigned char)s[i]); i++, digits++) {
            frac += (s[i] - '0') * place;
            place /= 10;
        }
        if (digits == 0)
            return 0;
    }
    int64_t off = 0;
    if (n - i >= 4 && s[i] == ' ' && (s[i + 1] == '+' || s[i + 1] == '-') && num2(s + i + 2) >= 0)
        i++; /* flexi_logger: "2026-02-18 19:21:07.512034 +01:00" */
    if (i < n && (s[i] == 'Z' || s[i] == 'z')) {
        i++;
    } else if (i < n && (s[i] == '+' || s[i] == '-') && n - i >= 3 && num2(s + i + 1) >= 0) {
        /* +HH:MM, +HHMM or +HH; anything else after the sign is not a zone */
        int oh = num2(s + i + 1), om = 0;
        size_t j = i + 3;
        if (n - j >= 3 && s[j] == ':' && num2(s + j + 1) >= 0)
            om = num2(s + j + 1), j += 3;
        else if (n - j >= 2 && num2(s + j) >= 0)
            om = num2(s + j), j += 2;
        if (oh <= 23 && om <= 59) {
            off = (int64_t)(oh * 3600 + om * 60) * (s[i] == '-' ? -1 : 1);
            i = j;
        }
    }
    int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - off;
    /* the times of all records stay below INT64_MAX / 2 ns (about 2116) */
    if (secs < 0 || secs > (INT64_MAX / 2) / 1000000000 - 1)
        return 0;
    *ns = secs * 1000000000 + frac;
    return i;
}

/* The first date-time in [p, end) that starts a number. */
static int first_datetime(const char *p, const char *end, int64_t *ns)
{
    for (const char *q = p; end - q >= 19; q++)
        if (q[4] == '-' && is_digit((unsigned char)*q) && (q == p || !is_digit((unsigned char)q[-1])) &&
            parse_datetime(q, end, ns))
            return 1;
    return 0;
}

int scan_line_time(const char *lo, const char *tl, const char *eol, int64_t *ns)
{
    const char *from = tl - lo > SCAN_LINE_MAX ? tl - SCAN_LINE_MAX : lo;
    const char *nl = tl > from ? memrchr(from, '\n', (size_t)(tl - from)) : NULL;
    if (first_datetime(nl ? nl + 1 : from, tl, ns))
        return 1;
    /* tracing's JSON: its "timestamp" may come after the target */
    return eol - tl > 8 && tl[8] == '"' && first_datetime(tl, eol, ns);
}

/* Where tl's line starts: after the last '\n' in [lo, tl), looking back
 * SCAN_LINE_MAX bytes at most; *whole is 0 when the line starts further
 * back (then the window's start is returned). */
static const char *line_from(const char *lo, const char *tl, int *whole)
{
    const char *from = tl - lo > SCAN_LINE_MAX ? tl - SCAN_LINE_MAX : lo;
    const char *nl = tl > from ? memrchr(from, '\n', (size_t)(tl - from)) : NULL;
    *whole = nl || from == lo;
    return nl ? nl + 1 : from;
}

/* Where a record is: for the line's own clock when it has no ts=. */
struct where {
    const char *lo, *tl; /* the lowest byte that may be read; the TIMELINE */
    int has_clock;       /* the clock is known already (tracing JSON's "timestamp") */
    int64_t clock;
};

/* The line's own clock: the first RFC 3339 date-time before the record. */
static int line_clock(const struct where *w, int64_t *ns)
{
    if (w->has_clock) {
        *ns = w->clock;
        return 1;
    }
    int whole;
    const char *ls = line_from(w->lo, w->tl, &whole);
    return first_datetime(ls, w->tl, ns);
}

/* Where the seed form's unquoted values go: the text is either scratch
 * (out == base: decoded in place) or the caller's buffer, whose value at
 * base + i is decoded at out + i (never longer, so values never meet). */
struct dec {
    const char *base;
    char *out;
};

/* A value at v: "quoted" (\" and \\ are decoded; a blank may be inside)
 * or up to a blank (up to a ',' instead, blanks and all, when stop is
 * ','; the caller trims).  Returns where the value ends. */
static const char *seed_value(const char *v, const char *end, char stop, const struct dec *d,
                              const char **out, size_t *on)
{
    if (v < end && *v == '"') {
        const char *q = v + 1;
        for (; q < end; q++) {
            if (*q == '\\') {
                if (q + 1 < end)
                    q++;
                continue;
            }
            if (*q == '"')
                break;
        }
        if (q < end) {
            char *dst = d->out + (v + 1 - d->base);
            size_t o = 0;
            for (const char *c = v + 1; c < q; c++) {
                if (*c == '\\' && c + 1 < q && (c[1] == '"' || c[1] == '\\'))
                    c++;
                dst[o++] = *c;
            }
            *out = dst;
            *on = o;
            return q + 1;
        }
    }
    const char *q = v;
    if (stop)
        q = scan_byte(v, end, stop);
    else
        while (q < end && !is_blank((unsigned char)*q))
            q++;
    *out = v;
    *on = (size_t)(q - v);
    return q;
}

/* What a seed-form record says, before it is judged. */
struct seed {
    const char *msg; /* the message's first word: the event's name */
    size_t msgn;
    const char *evv; /* event=, which comes before the message */
    size_t evn;
    int has_ev;
    int shape;   /* a job or ts field with a value: the shape of a record */
    int have_ts; /* r->t_ns is the record's own time */
    enum scan_err err; /* the first bad value */
};

static int key_is(const char *k, size_t kn, const char *name)
{
    size_t n = strlen(name);
    return kn == n && memcmp(k, name, n) == 0;
}

/* One field of a record. */
static void seed_key(struct seed *s, const char *k, size_t kn, const char *v, size_t vn, int given,
                     struct scan_rec *r)
{
    enum scan_err e = SCAN_OK;
    if (key_is(k, kn, "job")) {
        s->shape |= given;
        if (vn == 0 || vn > SCAN_JOB_MAX) {
            e = SCAN_NO_JOB;
        } else {
            r->job = v;
            r->job_len = vn;
        }
    } else if (key_is(k, kn, "ts")) {
        s->shape |= given;
        if (parse_secs(v, vn, &r->t_ns))
            e = SCAN_BAD_TIME;
        else
            s->have_ts = 1;
    } else if (key_is(k, kn, "event")) {
        s->evv = v;
        s->evn = vn;
        s->has_ev = 1;
    } else if (take_key(k, kn, v, vn, r) < 0) {
        e = SCAN_BAD_NUMBER;
    }
    if (e && !s->err)
        s->err = e;
}

/* A field name: a letter or _, then letters, digits, _ and '.'. */
static int is_field_name(const char *s, size_t n)
{
    if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!is_word((unsigned char)s[i]) && s[i] != '.')
            return 0;
    return 1;
}

/* tracing's source location before the message: `src/main.rs:42:`,
 * `src/main.rs:` or `42:`. */
static int is_location(const char *w, size_t n)
{
    if (n < 2 || w[n - 1] != ':')
        return 0;
    int digits = 1;
    for (size_t i = 0; i + 1 < n; i++) {
        if (w[i] == '/' || w[i] == '\\' || w[i] == '.')
            return 1;
        digits &= is_digit((unsigned char)w[i]);
    }
    return digits;
}

/* The words of a seed-form record, in any order: the message's first
 * bare word, key=value fields (values may be quoted), and tracing's
 * pretty form ("message, key: value, key: value"). */
static void seed_scan(const char *p, const char *end, const struct dec *d, struct seed *s,
                      struct scan_rec *r)
{
    int first = 1, pretty = 0;
    while (p < end) {
        while (p < end && is_blank((unsigned char)*p))
            p++;
        if (p == end)
            break;
        const char *w = p, *q = p;
        while (q < end && !is_blank((unsigned char)*q) && *q != '=' && *q != '"')
            q++;
        if (q < end && *q == '=' && q > w) { /* key=value */
            const char *v;
            size_t vn;
            p = seed_value(q + 1, end, 0, d, &v, &vn);
            seed_key(s, w, (size_t)(q - w), v, vn, p > q + 1, r);
            first = 0;
            continue;
        }
        while (p < end && !is_blank((unsigned char)*p))
            p++;
        size_t wn = (size_t)(p - w);
        /* key: value in the pretty form, after a ',' (or a record key
         * first, followed by a list) */
        if (wn >= 2 && w[wn - 1] == ':' && p < end && is_field_name(w, wn - 1) &&
            (pretty || (first && (key_is(w, wn - 1, "job") || key_is(w, wn - 1, "ts") ||
                                  key_is(w, wn - 1, "event")) &&
                        memchr(p, ',', (size_t)(end - p))))) {
            while (p < end && is_blank((unsigned char)*p))
                p++;
            const char *v;
            size_t vn;
            const char *ve = seed_value(p, end, ',', d, &v, &vn);
            if (v == p) /* unquoted: to the ',', blanks and all */
                while (vn && is_blank((unsigned char)v[vn - 1]))
                    vn--;
            seed_key(s, w, wn - 1, v, vn, ve > p, r);
            p = ve;
            while (p < end && is_blank((unsigned char)*p))
                p++;
            pretty = p < end && *p == ',';
            if (pretty)
                p++;
            first = 0;
            continue;
        }
        if (w[wn - 1] == ',') {
            pretty = 1;
            wn--;
        }
        if (first && wn) {
            s->msg = w;
            s->msgn = wn;
        }
        first = 0;
    }
}

/* Judge what seed_scan found: a record, or not one at all (no event of
 * the six and no job or ts field: prose that mentions TIMELINE). */
static enum scan_err seed_finish(const struct seed *s, const struct where *w, struct scan_rec *r)
{
    const char *en = s->has_ev ? s->evv : s->msg;
    size_t enn = s->has_ev ? s->evn : s->msgn;
    int named = en && enn; /* an event field, or a message to take the event from */
    int ev = named ? event_id(en, enn, r) : -1;
    if (!(ev >= 0 && ev < EV_N) && !s->shape)
        return SCAN_NOT_RECORD;
    if (named && ev < 0)
        return SCAN_UNKNOWN_EVENT;
    if (s->err)
        return s->err;
    if (!named)
        return SCAN_BAD_EVENT;
    r->ev = ev;
    if (!r->job)
        return SCAN_NO_JOB;
    if (!s->have_ts) {
        if (!w || !line_clock(w, &r->t_ns))
            return SCAN_BAD_TIME;
        r->wall = 1;
    }
    return SCAN_OK;
}

/* Does [p, end) start with another TIMELINE (a target whose message is
 * itself a record: `TIMELINE: TIMELINE,36512,...`)?  That one is the
 * record, found next. */
static int inner_timeline(const char *p, const char *end)
{
    return end - p >= 8 && memcmp(p, NEEDLE, 8) == 0 && (end - p == 8 || !is_word((unsigned char)p[8]));
}

/* A cuzk record's body: a number, then a ',' before any blank. */
static int cuzk_body(const char *p, const char *end)
{
    if (p >= end || !is_digit((unsigned char)*p))
        return 0;
    while (p < end && *p != ',' && !is_blank((unsigned char)*p))
        p++;
    return p < end && *p == ',';
}

static enum scan_err parse_seed(const char *p, const char *end, const struct dec *d, const struct where *w,
                                struct scan_rec *r)
{
    /* <event> job=<job_id> ts=<seconds> [k=v ...], blank separated */
    while (p < end && is_blank((unsigned char)*p))
        p++;
    if (inner_timeline(p, end))
        return SCAN_NOT_RECORD;
    struct seed s = {0};
    seed_scan(p, end, d, &s, r);
    return seed_finish(&s, w, r);
}

/* After a target's ':' (tracing-subscriber) or ']' (env_logger): a
 * record in the seed form or a cuzk body. */
static enum scan_err parse_after_target(const char *p, const char *end, const struct dec *d,
                                        const struct where *w, struct scan_rec *r)
{
    while (p < end && is_blank((unsigned char)*p))
        p++;
    const char *q = p;
    while (q < end && !is_blank((unsigned char)*q))
        q++;
    if (is_location(p, (size_t)(q - p))) /* with_file, with_line_number */
        for (p = q; p < end && is_blank((unsigned char)*p);)
            p++;
    if (inner_timeline(p, end))
        return SCAN_NOT_RECORD;
    if (cuzk_body(p, end))
        return parse_cuzk(p, end, r);
    return parse_seed(p, end, d, w, r);
}

/* ---- tracing-subscriber's JSON: {"timestamp":...,"fields":{...},"target":"TIMELINE"} */

struct jv {
    char t; /* '"' a string (s, n: between its quotes, undecoded); '0' a number, true or
               false; 'z' null; '{' or '[' an object or array (s, n: all of it) */
    const char *s;
    size_t n;
};

static const char *j_ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
    return p;
}

/* p at a '"': its closing quote, or NULL. */
static const char *j_strend(const char *p, const char *e)
{
    for (p++; p < e; p++) {
        if (*p == '\\') {
            if (++p == e)
                return NULL;
            continue;
        }
        if (*p == '"')
            return p;
    }
    return NULL;
}

/* The value at p; returns where it ends, or NULL. */
static const char *j_value(const char *p, const char *e, struct jv *v)
{
    if (p >= e)
        return NULL;
    if (*p == '"') {
        const char *q = j_strend(p, e);
        if (!q)
            return NULL;
        *v = (struct jv){'"', p + 1, (size_t)(q - p - 1)};
        return q + 1;
    }
    if (*p == '{' || *p == '[') {
        long depth = 0;
        const char *q = p;
        for (; q < e; q++) {
            if (*q == '"') {
                q = j_strend(q, e);
                if (!q)
                    return NULL;
            } else if (*q == '{' || *q == '[') {
                depth++;
            } else if ((*q == '}' || *q == ']') && --depth == 0) {
                break;
            }
        }
        if (q >= e)
            return NULL;
        *v = (struct jv){*p, p, (size_t)(q + 1 - p)};
        return q + 1;
    }
    const char *q = p;
    while (q < e && *q != ',' && *q != '}' && *q != ']' && *q != ' ' && *q != '\t' && *q != '\r' && *q != '\n')
        q++;
    if (q == p)
        return NULL;
    *v = (struct jv){q - p == 4 && memcmp(p, "null", 4) == 0 ? 'z' : '0', p, (size_t)(q - p)};
    return q;
}

/* The next member of an object; *pp is just after its '{' or the member
 * before.  1: a member in k and v; 0: the object's end; -1: malformed. */
static int j_member(const char **pp, const char *e, struct jv *k, struct jv *v)
{
    const char *p = j_ws(*pp, e);
    if (p < e && *p == ',')
        p = j_ws(p + 1, e);
    if (p >= e)
        return -1;
    if (*p == '}') {
        *pp = p + 1;
        return 0;
    }
    if (*p != '"' || !(p = j_value(p, e, k)))
        return -1;
    p = j_ws(p, e);
    if (p >= e || *p != ':')
        return -1;
    p = j_value(j_ws(p + 1, e), e, v);
    if (!p)
        return -1;
    *pp = p;
    return 1;
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static int hex4(const char *s, const char *e)
{
    if (e - s < 4)
        return -1;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval((unsigned char)s[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* A JSON string's content [s, s+n) decoded into out, which is never
 * longer: \n, \r and \t are blanks (as json_unwrap has them), \uXXXX is
 * UTF-8. */
static size_t j_decode(const char *s, size_t n, char *out)
{
    const char *e = s + n;
    size_t o = 0;
    for (const char *c = s; c < e; c++) {
        if (*c != '\\' || c + 1 >= e) {
            out[o++] = *c;
            continue;
        }
        c++;
        switch (*c) {
        case 'n':
        case 'r':
        case 't':
            out[o++] = ' ';
            break;
        case 'b':
            out[o++] = '\b';
            break;
        case 'f':
            out[o++] = '\f';
            break;
        case 'u': {
            long u = hex4(c + 1, e);
            if (u < 0) {
                out[o++] = '\\';
                out[o++] = 'u';
                break;
            }
            c += 4;
            if (u >= 0xd800 && u < 0xdc00 && e - c >= 7 && c[1] == '\\' && c[2] == 'u') {
                long lo = hex4(c + 3, e);
                if (lo >= 0xdc00 && lo < 0xe000) {
                    u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
                    c += 6;
                }
            }
            if (u >= 0xd800 && u < 0xe000)
                u = 0xfffd;
            if (u < 0x80) {
                out[o++] = (char)u;
            } else if (u < 0x800) {
                out[o++] = (char)(0xc0 | (u >> 6));
                out[o++] = (char)(0x80 | (u & 0x3f));
            } else if (u < 0x10000) {
                out[o++] = (char)(0xe0 | (u >> 12));
                out[o++] = (char)(0x80 | ((u >> 6) & 0x3f));
                out[o++] = (char)(0x80 | (u & 0x3f));
            } else {
                out[o++] = (char)(0xf0 | (u >> 18));
                out[o++] = (char)(0x80 | ((u >> 12) & 0x3f));
                out[o++] = (char)(0x80 | ((u >> 6) & 0x3f));
                out[o++] = (char)(0x80 | (u & 0x3f));
            }
            break;
        }
        default: /* \" \\ \/ */
            out[o++] = *c;
            break;
        }
    }
    return o;
}

/* Is the TIMELINE at tl the value of a "target" key ("target":"TIMELINE")? */
static int json_target(const char *ls, const char *tl, const char *eol)
{
    if (eol - tl < 9 || tl[8] != '"' || tl - ls < 10 || tl[-1] != '"')
        return 0;
    const char *q = tl - 2;
    while (q > ls && is_blank((unsigned char)*q))
        q--;
    if (*q != ':' || q == ls)
        return 0;
    q--;
    while (q > ls && is_blank((unsigned char)*q))
        q--;
    return q - ls >= 7 && memcmp(q - 7, "\"target\"", 8) == 0;
}

/* Keys of a flattened event (flatten_event(true), or Bunyan's format)
 * that are the logger's, not the record's. */
static int json_meta_key(const char *k, size_t n)
{
    static const char *const meta[] = {"timestamp", "time",     "level", "target",   "span",   "spans",
                                       "threadName", "threadId", "filename", "line_number", "file", "line",
                                       "module_path", "v",       "name",  "hostname", "pid",    NULL};
    for (int i = 0; meta[i]; i++)
        if (key_is(k, n, meta[i]))
            return 1;
    return 0;
}

/* A JSON string value decoded into scratch (at its mirror place), with
 * one more level of quotes taken off where the value was recorded with
 * `?` (tracing writes {:?} of a string as "\"abc\""). */
static void json_string(const struct jv *v, const struct dec *d, int debug_quotes, const char **out, size_t *on)
{
    char *dst = d->out + (v->s - d->base);
    size_t n = j_decode(v->s, v->n, dst);
    if (debug_quotes && n >= 2 && dst[0] == '"' && dst[n - 1] == '"') {
        size_t o = 0;
        for (size_t i = 1; i + 1 < n; i++) {
            if (dst[i] == '\\' && i + 2 < n && (dst[i + 1] == '"' || dst[i + 1] == '\\'))
                i++;
            dst[1 + o++] = dst[i];
        }
        *out = dst + 1;
        *on = o;
        return;
    }
    *out = dst;
    *on = n;
}

static enum scan_err parse_json_target(const char *lo, const char *tl, const char *eol, char *scratch,
                                       struct scan_rec *r)
{
    int whole;
    const char *ls = line_from(lo, tl, &whole);
    if (!whole || eol - ls > SCAN_LINE_MAX)
        return SCAN_TOO_LONG;
    /* the object whose "target" this is: at the first '{' of the line, or
     * a later one (a prefix with braces before it: a span, a journal's) */
    const char *o = ls, *p;
    struct jv k, v, fields, stamp;
    int m;
    for (int tries = 0;; tries++, o++) {
        o = tries < 2 ? memchr(o, '{', (size_t)(tl - o)) : NULL;
        if (!o)
            return SCAN_NOT_RECORD;
        /* the top level: the target, the timestamp, the fields.  Its first
         * "target" decides: a hit that is not that one is not a record
         * (and costs no more than the members before it) */
        int target = 0;
        fields = stamp = (struct jv){0, NULL, 0};
        for (p = o + 1; (m = j_member(&p, eol, &k, &v)) == 1;) {
            if (key_is(k.s, k.n, "target")) {
                if (!target)
                    target = v.t == '"' && v.s == tl && v.n == 8 ? 1 : -1;
            } else if (key_is(k.s, k.n, "fields") && v.t == '{') {
                fields = v;
            } else if ((key_is(k.s, k.n, "timestamp") || key_is(k.s, k.n, "time")) && v.t == '"' && !stamp.s) {
                stamp = v;
            }
            if (target < 0)
                return SCAN_NOT_RECORD;
            if (!target && p > tl) /* the hit is inside another member */
                break;
        }
        if (m == 0 && target > 0)
            break;
    }
    struct where w = {lo, tl, 0, 0};
    if (stamp.s && parse_datetime(stamp.s, stamp.s + stamp.n, &w.clock))
        w.has_clock = 1;
    else
        w.has_clock = first_datetime(ls, o, &w.clock);
    struct dec d = {ls, scratch};
    int flat = !fields.s; /* flatten_event: the fields are at the top */
    const char *fs = flat ? o + 1 : fields.s + 1, *fe = flat ? eol : fields.s + fields.n;
    struct seed s = {0};
    int cuzk = 0;
    enum scan_err ce = SCAN_OK;
    /* the message first: a word (the event's name), or a whole record */
    for (p = fs; (m = j_member(&p, fe, &k, &v)) == 1;) {
        if (!(key_is(k.s, k.n, "message") || (flat && key_is(k.s, k.n, "msg"))) || v.t != '"')
            continue;
        const char *mv;
        size_t mn;
        json_string(&v, &d, 0, &mv, &mn);
        char *mt = (char *)mv; /* in scratch */
        if (memchr(mt, 0x1b, mn))
            mn = strip_ansi(mt, mt + mn, mt);
        const char *mp = mt, *me = mt + mn;
        while (mp < me && is_blank((unsigned char)*mp))
            mp++;
        while (me > mp && is_blank((unsigned char)me[-1]))
            me--;
        if (inner_timeline(mp, me)) { /* "TIMELINE,36512,..." or "TIMELINE synth_start ..." */
            mp += 8;
            if (mp < me && *mp == ',')
                cuzk = 1, mp++;
            else if (mp < me && (*mp == ':' || *mp == ']'))
                mp++;
            while (!cuzk && mp < me && is_blank((unsigned char)*mp))
                mp++;
        }
        if (cuzk || cuzk_body(mp, me)) {
            cuzk = 1;
            ce = parse_cuzk(mp, me, r);
        } else {
            struct dec md = {mt, mt};
            seed_scan(mp, me, &md, &s, r);
        }
        break;
    }
    /* then the fields: job, ts, event, and the rest kept as they are */
    for (p = fs; (m = j_member(&p, fe, &k, &v)) == 1;) {
        if (key_is(k.s, k.n, "message") || (flat && (key_is(k.s, k.n, "msg") || json_meta_key(k.s, k.n))))
            continue;
        const char *val;
        size_t vn;
        if (v.t == '"')
            json_string(&v, &d, 1, &val, &vn);
        else if (v.t == '0')
            val = v.s, vn = v.n;
        else
            continue;
        if (cuzk) {
            if (!key_is(k.s, k.n, "job") && !key_is(k.s, k.n, "ts") && !key_is(k.s, k.n, "event") &&
                take_key(k.s, k.n, val, vn, r) < 0 && ce == SCAN_OK)
                ce = SCAN_BAD_NUMBER;
            continue;
        }
        seed_key(&s, k.s, k.n, val, vn, v.t != '"' || v.n > 0, r);
    }
    if (cuzk)
        return ce;
    return seed_finish(&s, &w, r);
}

/* A record inside a JSON string: a log collected as JSON lines (Docker's
 * json-file driver: {"log":"... TIMELINE,...\n","stream":"stderr",...};
 * a structured logger's {"msg":"TIMELINE,..."}).  When the record's first
 * unescaped double quote closes a JSON string (what follows it is a ',',
 * a '}' or a ']', or nothing), the record ends there, and its JSON
 * escapes are decoded into out: \u001b is the ESC of a colour code,
 * \n, \r and \t are white space (trimmed at the end like a CR).
 * Returns the new length, or -1 when [p, end) is not such a string. */
/* Where the JSON string whose bytes begin at p ends (its closing quote),
 * or NULL. */
static const char *json_string_end(const char *p, const char *end)
{
    for (const char *q = p; q < end; q++) {
        if (*q == '\\' && q + 1 < end) {
            q++;
            continue;
        }
        if (*q == '"')
            return q;
    }
    return NULL;
}

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

/* p past colour codes (as strip_ansi has them: ESC [ ... final byte, or
 * ESC and one byte) and, with blanks set, blanks. */
static const char *skip_codes(const char *p, const char *e, int blanks)
{
    while (p < e) {
        if (*p == 0x1b) {
            p++;
            if (p < e && *p == '[')
                for (p++; p < e && !(*p >= 0x40 && *p <= 0x7e);)
                    p++;
            if (p < e)
                p++;
        } else if (blanks && is_blank((unsigned char)*p)) {
            p++;
        } else {
            break;
        }
    }
    return p;
}

/* A colour code escaped in a JSON string right after TIMELINE (\u001b[0m:
 * Docker's json-file log of a coloured tracing line). */
static int json_escaped_esc(const char *p, const char *eol)
{
    return eol - p >= 6 && p[0] == '\\' && memcmp(p + 1, "u001", 4) == 0 && (p[5] == 'b' || p[5] == 'B');
}

/* Is there a "target":"TIMELINE" after tl on its line? */
static int json_target_after(const char *ls, const char *tl, const char *eol)
{
    for (const char *q = scan_find(tl + 8, eol); q; q = scan_find(q + 8, eol))
        if (json_target(ls, q, eol))
            return 1;
    return 0;
}

static enum scan_err scan_hit(const char *ls, const char *tl, const char *eol, const char *readable,
                              char *scratch, struct scan_rec *r, int fast);

/* A TIMELINE that does not parse, ahead of a JSON line's target TIMELINE
 * (a job id "TIMELINE" in the message's cuzk body), is part of that
 * record, not a damaged one: the target's record is read instead.  Only
 * failed records pay for the look. */
static enum scan_err scan_line_impl(const char *ls, const char *tl, const char *eol, const char *readable,
                                    char *scratch, struct scan_rec *r, int fast)
{
    enum scan_err e = scan_hit(ls, tl, eol, readable, scratch, r, fast);
    if (e != SCAN_OK && e != SCAN_NOT_RECORD && e != SCAN_TOO_LONG && tl[8] != '"' &&
        json_target_after(ls, tl, eol))
        return SCAN_NOT_RECORD;
    return e;
}

static enum scan_err scan_hit(const char *ls, const char *tl, const char *eol, const char *readable,
                              char *scratch, struct scan_rec *r, int fast)
{
    r->cut = NULL; /* before any verdict: the callers look at it for every record */
    if (!at_word_start(ls, tl))
        return SCAN_NOT_RECORD;
    const char *p = tl + 8;
    if (p >= eol)
        return SCAN_NOT_RECORD;
    if (*p == '"') { /* "target":"TIMELINE" in tracing's JSON */
        if (!json_target(ls, tl, eol))
            return SCAN_NOT_RECORD;
        if (eol - tl > SCAN_LINE_MAX)
            return SCAN_TOO_LONG;
        rec_reset(r);
        return parse_json_target(ls, tl, eol, scratch, r);
    }
    if (!(*p == ',' || *p == ' ' || *p == '\t' || *p == ':' || *p == ']' || *p == 0x1b ||
          json_escaped_esc(p, eol)))
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
    /* The verdicts that need only the next few bytes, before the work
     * over the rest of the line: what follows TIMELINE and its colour
     * codes; a message that is another TIMELINE (the record, found next). */
    const char *q = *p == 0x1b ? skip_codes(p, eol, 0) : p;
    if (q >= eol || !(*q == ',' || *q == ' ' || *q == '\t' || *q == ':' || *q == ']' || *q == '\\'))
        return SCAN_NOT_RECORD;
    if (*q == ':' && q + 1 < eol && q[1] == ':') /* a module path, TIMELINE::x */
        return SCAN_NOT_RECORD;
    if (*q != ',' && *q != '\\' && inner_timeline(skip_codes(q + (*q == ':' || *q == ']'), eol, 1), eol))
        return SCAN_NOT_RECORD;
    /* where a line that cut the record may be looked for (scan_cut): the
     * raw line, or its JSON string's bytes (decoding only shrinks them) */
    const char *cut_lim = eol;
    if (scan_byte(p, eol, '"') < eol) {
        long n = json_unwrap(p, eol, scratch);
        if (n >= 0) {
            cut_lim = p == tl + 8 ? json_string_end(p, eol) : NULL;
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
    rec_reset(r);
    if (p >= eol)
        return SCAN_NOT_RECORD;
    /* quoted values are decoded in scratch: in place, or at the same
     * offset as in the caller's buffer */
    const struct dec d = {p, scratch};
    const struct where w = {ls, tl, 0, 0};
    switch (*p) {
    case ',':
        /* ':' sends such a record here, not down the fast path: a CUZK_ line
         * in it (scan.h) makes it the head of a record the reader joins */
        if (cut_lim && tl[8] == ',') { /* the record's own bytes: no escape or colour before the cut */
            const char *c = scan_cut(tl, cut_lim);
            r->cut = c && !memchr(tl, '\\', (size_t)(c - tl)) && !memchr(tl, 0x1b, (size_t)(c - tl)) ? c : NULL;
        }
        return parse_cuzk(p + 1, eol, r);
    case ':': /* tracing-subscriber: TIMELINE: <message> <fields> */
        if (p + 1 < eol && p[1] == ':') /* a module path, TIMELINE::x */
            return SCAN_NOT_RECORD;
        return parse_after_target(p + 1, eol, &d, &w, r);
    case ']': /* env_logger: [<time> INFO  TIMELINE] <message> */
        return parse_after_target(p + 1, eol, &d, &w, r);
    case ' ':
    case '\t': {
        /* log4rs (TIMELINE - ...) and pretty_env_logger (TIMELINE > ...)
         * print their target before a separator */
        const char *sep = p;
        while (sep < eol && is_blank((unsigned char)*sep))
            sep++;
        if (sep < eol && (*sep == '-' || *sep == '>' || *sep == '|') &&
            (sep + 1 == eol || is_blank((unsigned char)sep[1])))
            return parse_after_target(sep + 1, eol, &d, &w, r);
        return parse_seed(p, eol, &d, &w, r);
    }
    default:
        return SCAN_NOT_RECORD;
    }
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

/* Past colour codes at p, raw (ESC [ ... m) or escaped in a JSON string
 * (\u001b[ ... m), up to 4 of them. */
static const char *past_colour(const char *p, const char *eol)
{
    for (int k = 0; k < 4; k++) {
        const char *q = p;
        if (q < eol && *q == 0x1b)
            q++;
        else if (json_escaped_esc(q, eol))
            q += 6;
        else
            break;
        if (q >= eol || *q != '[')
            break;
        for (q++; q < eol && !(*q >= 0x40 && *q <= 0x7e);)
            q++;
        p = q < eol ? q + 1 : eol;
    }
    return p;
}

/* Does a log line's date-time begin at p: RFC 3339, then (past colour
 * codes and blanks) a level, as tracing's and env_logger's default
 * formats print it? */
static int log_line_at(const char *p, const char *eol)
{
    static const char shape[] = "dddd-dd-ddTdd:dd:dd";
    if (eol - p < (long)sizeof shape + 5)
        return 0;
    for (size_t i = 0; i < sizeof shape - 1; i++)
        if (shape[i] == 'd' ? !is_digit((unsigned char)p[i]) : p[i] != shape[i])
            return 0;
    const char *q = p + sizeof shape - 1;
    while (q < eol && *q != ' ' && *q != 0x1b && *q != '\\' && q - p < 40) /* .466123Z, +00:00 */
        q++;
    for (int k = 0; k < 3 && q < eol; k++) {
        const char *q0 = q;
        q = past_colour(q, eol);
        while (q < eol && is_blank((unsigned char)*q))
            q++;
        if (q == q0)
            break;
    }
    static const char *const levels[] = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR"};
    for (size_t k = 0; k < sizeof levels / sizeof *levels; k++) {
        size_t n = strlen(levels[k]);
        if ((size_t)(eol - q) >= n && memcmp(q, levels[k], n) == 0)
            return 1;
    }
    return 0;
}

/* A log line at c: tracing's (a date-time first) or env_logger's ("[" and
 * then one), either coloured. */
static int log_start(const char *c, const char *eol)
{
    const char *q = past_colour(c, eol);
    if (q < eol && *q == '[')
        q = past_colour(q + 1, eol);
    return log_line_at(q, eol);
}

const char *scan_cut(const char *tl, const char *eol)
{
    if (eol - tl < 9 || tl[8] != ',')
        return NULL;
    for (const char *c = tl + 9; c < eol; c++) {
        /* the lines the GPU library prints (groth16_cuda.cu, groth16_ntt_h.cu) */
        if (*c == 'C' && eol - c >= 11 && memcmp(c, "CUZK_", 5) == 0 &&
            ((eol - c >= 12 && memcmp(c + 5, "TIMING:", 7) == 0) || memcmp(c + 5, "NTT_H:", 6) == 0))
            return c;
        /* a tracing line (the daemon's stdout, in the same file or journal
         * as its stderr), coloured or not; not a value's timestamp (k=...) */
        if ((*c == 0x1b || *c == '\\' || *c == '[' || is_digit((unsigned char)*c)) && c[-1] != '=' &&
            log_start(c, eol))
            return c;
    }
    return NULL;
}

/* Does a date-time begin at p ("dddd-dd-ddT")? */
static int date_shape(const char *p, size_t n)
{
    static const char shape[] = "dddd-dd-ddT";
    if (n < sizeof shape - 1)
        return 0;
    for (size_t i = 0; i < sizeof shape - 1; i++)
        if (shape[i] == 'd' ? !is_digit((unsigned char)p[i]) : p[i] != shape[i])
            return 0;
    return 1;
}

/* The length of the prefix of [n0, n1) that matches pre (pn bytes): the
 * same bytes, digits aside, and a date-time for a date-time, whatever its
 * width (docker logs -t and kubectl --timestamps drop a fraction's
 * trailing zeros); -1 when it does not match. */
static long rest_prefix(const char *pre, size_t pn, const char *n0, const char *n1)
{
    size_t i = 0, j = 0, rn = (size_t)(n1 - n0);
    if (!pn)
        return -1;
    while (i < pn) {
        if (date_shape(pre + i, pn - i) && date_shape(n0 + j, rn - j)) {
            while (i < pn && !is_blank((unsigned char)pre[i]))
                i++;
            while (j < rn && !is_blank((unsigned char)n0[j]))
                j++;
            continue;
        }
        if (j >= rn || (pre[i] != n0[j] && !(is_digit((unsigned char)pre[i]) && is_digit((unsigned char)n0[j]))))
            return -1;
        i++, j++;
    }
    return (long)j;
}

size_t scan_json_key(const char *pre, size_t pn, const char **key)
{
    /* pre ends in ..."KEY":" (blanks allowed around the colon) */
    if (!pn || pre[pn - 1] != '"')
        return 0;
    size_t i = pn - 1;
    while (i > 0 && is_blank((unsigned char)pre[i - 1]))
        i--;
    if (i == 0 || pre[i - 1] != ':')
        return 0;
    i--;
    while (i > 0 && is_blank((unsigned char)pre[i - 1]))
        i--;
    if (i == 0 || pre[i - 1] != '"')
        return 0;
    size_t end = --i; /* the key's closing quote */
    while (i > 0 && pre[i - 1] != '"' && end - i < SCAN_JSON_KEY_MAX)
        i--;
    if (i == 0 || pre[i - 1] != '"' || i == end)
        return 0;
    *key = pre + i;
    return end - i;
}

/* The bytes of the JSON string that key kn names in [n0, n1), or NULL. */
static const char *json_value_of(const char *key, size_t kn, const char *n0, const char *n1)
{
    for (const char *q = n0; (q = memmem(q, (size_t)(n1 - q), key, kn)) != NULL; q += kn) {
        if (q == n0 || q[-1] != '"' || q + kn >= n1 || q[kn] != '"')
            continue;
        const char *v = q + kn + 1;
        while (v < n1 && is_blank((unsigned char)*v))
            v++;
        if (v >= n1 || *v != ':')
            continue;
        for (v++; v < n1 && is_blank((unsigned char)*v);)
            v++;
        return v < n1 && *v == '"' ? v + 1 : NULL;
    }
    return NULL;
}

enum scan_err scan_joined(const char *tl, const char *cut, const char *n0, const char *n1, const char *pre,
                          size_t pn, const char *key, size_t kn, char *joined, char *scratch, struct scan_rec *r)
{
    if (cut < tl || n1 < n0)
        return SCAN_NOT_RECORD;
    uint64_t nl = 0;
    if (scan_find_any_count(n0, n1, &nl))
        return SCAN_NOT_RECORD; /* the next line is a line of its own */
    /* the rest: the same JSON string of its entry (Docker's "log",
     * journald's "MESSAGE"), or the line past the head's prefix */
    int json = kn > 0;
    if (json && !(n0 = json_value_of(key, kn, n0, n1)))
        return SCAN_NOT_RECORD;
    long rp = !json && pn <= SCAN_CUT_PREFIX_MAX ? rest_prefix(pre, pn, n0, n1) : -1;
    if (rp >= 0)
        n0 += rp;
    size_t a = (size_t)(cut - tl), b = (size_t)(n1 - n0);
    if (a >= SCAN_LINE_MAX || b >= SCAN_LINE_MAX - a)
        return SCAN_NOT_RECORD; /* too long */
    memcpy(joined, tl, a);
    if (json) {
        long n = json_unwrap(n0, n1, joined + a); /* decoding only shrinks: b bytes hold it */
        if (n < 0)
            return SCAN_NOT_RECORD;
        b = (size_t)n;
    } else {
        memcpy(joined + a, n0, b);
    }
    /* A record's pieces are "TIMELINE," ts "," event "," job "," detail
     * "\n": a cut after the fourth comma but right after it is inside the
     * detail, one write, so only its end, with the newline for a rest. */
    size_t commas = 0;
    for (const char *q = tl + 8; q < cut; q++)
        commas += *q == ',';
    if (commas >= 4 && !(commas == 4 && cut[-1] == ','))
        for (size_t i = a; i < a + b; i++)
            if (joined[i] != ' ' && joined[i] != '\t' && joined[i] != '\r')
                return SCAN_NOT_RECORD;
    return scan_line_in(joined, joined, joined + a + b, joined + a + b, scratch, r);
}

enum scan_err scan_line_ref(const char *ls, const char *tl, const char *eol, char *scratch,
                            struct scan_rec *r)
{
    return scan_line_impl(ls, tl, eol, eol, scratch, r, 0);
}

/* ------------------------------------------------------------------ */
/* Duration lines (docs/cli.md, "Duration lines"). */

static int dur_digits(const char *s, size_t n, int64_t *out)
{
    int64_t v = 0;
    size_t i = 0;
    int neg = n > 0 && s[0] == '-';
    if (neg)
        i = 1;
    if (i == n || n - i > 11) /* 11 digits of ms: 3 years; in ns, a sum of a call's few stays in an int64_t */
        return -1;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = neg ? -v : v;
    return 0;
}

/* A spawn line's partition: Some(N) (tracing's Debug of an Option), N,
 * or None (-1).  0, or -1 when it is none of these. */
static int spawn_partition(const char *v, size_t n, int32_t *out)
{
    int64_t x;
    if (n == 4 && memcmp(v, "None", 4) == 0) {
        *out = -1;
        return 0;
    }
    if (n > 6 && memcmp(v, "Some(", 5) == 0 && v[n - 1] == ')')
        v += 5, n -= 6;
    if (dur_digits(v, n, &x) || x < 0 || x > INT32_MAX)
        return -1;
    *out = (int32_t)x;
    return 0;
}

enum scan_dur_kind scan_dur(const char *tag, const char *eol, char *scratch, struct scan_dur *d)
{
    if (*tag == 'C' && tag[5] == 'N') { /* CUZK_NTT_H: (any_at) */
        memset(d, 0, sizeof *d);
        d->tid = -1;
        d->worker = d->partition = -1;
        return DUR_NTT;
    }
    int spawn = *tag == 'G';
    const char *p = tag + (spawn ? SPAWN_TAG_LEN : 12), *end = eol;
    memset(d, 0, sizeof *d);
    d->tid = spawn ? SCAN_TID_SPAWN : -1;
    d->worker = d->partition = -1;
    int seen_worker = 0, seen_part = 0;
    if ((size_t)(end - p) > SCAN_LINE_MAX)
        return DUR_TOO_LONG;
    /* The line inside a JSON string (Docker's json-file, journalctl -o
     * json: {"log":"CUZK_TIMING: a_ms=1\n","stream":...}): its text,
     * decoded, as for TIMELINE records. */
    if (memchr(p, '"', (size_t)(end - p))) {
        long n = json_unwrap(p, end, scratch);
        if (n >= 0)
            p = scratch, end = scratch + n;
    }
    if (memchr(p, 0x1b, (size_t)(end - p))) {
        size_t n = strip_ansi(p, end, scratch); /* in place when p is scratch: it only shrinks */
        p = scratch, end = scratch + n;
    }
    while (end > p && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
        end--;
    int words = 0, bad = 0;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        const char *w = p;
        while (p < end && *p != ' ' && *p != '\t')
            p++;
        if (p == w)
            break;
        words++;
        const char *eq = memchr(w, '=', (size_t)(p - w));
        if (!eq || eq == w)
            continue; /* a word of a message ("... on gpu 0") */
        size_t kn = (size_t)(eq - w), vn = (size_t)(p - eq - 1);
        int64_t v;
        if (spawn && kn == 9 && memcmp(w, "worker_id", 9) == 0) {
            if (seen_worker++ || dur_digits(eq + 1, vn, &v) || v < 0 || v > INT32_MAX)
                bad = 1; /* twice, or not a count */
            else
                d->worker = (int32_t)v;
        } else if (spawn && kn == 9 && memcmp(w, "partition", 9) == 0) {
            if (seen_part++ || spawn_partition(eq + 1, vn, &d->partition))
                bad = 1;
        } else if (!spawn && kn == 7 && memcmp(w, "gpu_tid", 7) == 0) {
            if (dur_digits(eq + 1, vn, &v) || v < 0 || v > 4095)
                bad = 1;
            else
                d->tid = (int32_t)v;
        } else if (kn > 3 && memcmp(eq - 3, "_ms", 3) == 0) {
            if (dur_digits(eq + 1, vn, &v) || v < 0) {
                bad = 1; /* a duration that is not a count of ms (a wall-clock step: negative) */
            } else if (d->n < SCAN_DUR_MAX && kn - 3 <= SCAN_DUR_KEY_MAX) {
                d->d[d->n].k = w;
                d->d[d->n].kn = (uint8_t)(kn - 3);
                d->d[d->n++].ms = v;
            } else {
                bad = 1;
            }
        } else if (d->nattr < SCAN_KV_MAX) {
            d->attr[d->nattr++] = (struct scan_kv){w, eq + 1, (uint16_t)kn, (uint16_t)(vn > 0xffff ? 0xffff : vn)};
        }
    }
    if (spawn && (!seen_worker || !seen_part || d->n != 2 || d->d[0].kn != 14 || memcmp(d->d[0].k, "spawn_to_enter", 14) ||
                  d->d[1].kn != 11 || memcmp(d->d[1].k, "prove_start", 11)))
        bad = 1; /* the engine prints these four, in this order */
    if (bad)
        return DUR_BAD;
    return d->n ? DUR_LINE : DUR_INFO;
}
