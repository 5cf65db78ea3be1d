/*
 * field.c -- Goldilocks arithmetic, NTT, witness synthesis and the
 * Groth16 H step: the CPU work a reference proving pipeline really does.
 *
 * Reduction rests on 2^64 = 2^32 - 1 and 2^96 = -1 (mod p): a 128-bit
 * product hi*2^64 + lo, with hi = hi_hi*2^32 + hi_lo, is congruent to
 * lo - hi_hi + hi_lo*(2^32 - 1), which 64-bit arithmetic computes with one
 * borrow and one carry fix-up.  The NTT is the iterative Cooley-Tukey form
 * (bit-reversal, then log n butterfly passes) with one contiguous twiddle
 * table per pass, so the inner loop reads twiddles sequentially; the
 * inverse reuses the forward transform (the DFT with w^-1 is the DFT with
 * w read backwards), so a plan stores only one table.
 */
#include "field.h"

#include <stdlib.h>
#include <string.h>

/* ISO C has no 128-bit integers; gcc and clang do, and __extension__ keeps
 * -pedantic quiet about it. */
__extension__ typedef unsigned __int128 gl_u128;

#define GL_EPS 0xFFFFFFFFull /* 2^64 mod p = 2^32 - 1 */

/* ---- field ---------------------------------------------------------- */

/* Every fix-up below is a mask, not a branch: on field data the
 * conditions are coin flips, and a mispredicted branch per operation
 * costs more than the arithmetic.  Written as ifs, gcc 12 kept the
 * branches; written as plain masks, clang 14's x86 cmov converter turned
 * them back into branches in the NTT's inner loop -- either way a proof
 * ran about 3x slower.  So under GNU C an empty asm hides where the mask
 * came from and it stays data; the asm emits no instruction. */
static inline uint64_t mask_if(int cond)
{
    uint64_t m = (uint64_t)0 - (uint64_t)cond; /* all ones when cond */
#if defined(__GNUC__)
    __asm__("" : "+r"(m));
#endif
    return m;
}

/* The inline forms are what the hot loops use; the exported functions
 * below are thin wrappers so callers get a plain ABI. */
static inline gl add_i(gl a, gl b)
{
    gl s = a + b;
    /* A carry lost 2^64 = EPS (mod p).  a + b - 2^64 <= 2^64 - 2^33, so
     * adding EPS cannot carry again and already lands below p, where the
     * final subtraction leaves it alone. */
    s += mask_if(s < a) & GL_EPS;
    return s - (mask_if(s >= GL_P) & GL_P);
}

static inline gl sub_i(gl a, gl b)
{
    /* A borrow added 2^64 = p + EPS; take the EPS back off.  The wrapped
     * value is >= 2^64 - (p - 1) = 2^32 > EPS, so this cannot borrow. */
    return (a - b) - (mask_if(a < b) & GL_EPS);
}

static inline gl reduce128(gl_u128 x)
{
    uint64_t lo = (uint64_t)x, hi = (uint64_t)(x >> 64);
    uint64_t hi_hi = hi >> 32, hi_lo = hi & GL_EPS;
    /* lo - hi_hi: a borrow added 2^64, which is EPS too many (mod p).
     * With a borrow, lo < hi_hi < 2^32, so t0 >= 2^64 - 2^32 > EPS. */
    uint64_t t0 = (lo - hi_hi) - (mask_if(lo < hi_hi) & GL_EPS);
    /* hi_lo * (2^32 - 1) < 2^64, so it fits; a carry in the sum lost 2^64,
     * i.e. EPS, and the wrapped sum is <= 2^64 - 2^33, so adding EPS back
     * cannot carry. */
    uint64_t t1 = hi_lo * GL_EPS;
    uint64_t r = t0 + t1;
    r += mask_if(r < t1) & GL_EPS;
    return r - (mask_if(r >= GL_P) & GL_P);
}

static inline gl mul_i(gl a, gl b)
{
    return reduce128((gl_u128)a * b);
}

static gl pow_i(gl a, uint64_t e)
{
    gl r = 1;
    while (e) {
        if (e & 1)
            r = mul_i(r, a);
        a = mul_i(a, a);
        e >>= 1;
    }
    return r;
}

gl gl_add(gl a, gl b) { return add_i(a, b); }
gl gl_sub(gl a, gl b) { return sub_i(a, b); }
gl gl_mul(gl a, gl b) { return mul_i(a, b); }
gl gl_pow(gl a, uint64_t e) { return pow_i(a, e); }

/* Fermat: a^(p-2) = a^-1 for a != 0, and 0^(p-2) = 0 gives the promised
 * inv(0) == 0 without a branch.  Inversions are rare here (a handful per
 * proof), so the ~96 multiplications are not worth a cleverer chain. */
gl gl_inv(gl a) { return pow_i(a, GL_P - 2); }

/* 7 generates the whole group of order p - 1 = 2^32 * 3*5*17*257*65537,
 * so 7^((p-1)/2^k) has order exactly 2^k.  Taking every root as a power of
 * the same generator makes them consistent (w_k^2 == w_{k-1}), which the
 * NTT's per-pass twiddles rely on. */
gl gl_root_of_unity(unsigned log_n)
{
    if (log_n > 32)
        return 0;
    return pow_i(GL_GENERATOR, (GL_P - 1) >> log_n);
}

/* ---- NTT ------------------------------------------------------------ */

struct gl_ntt_plan {
    unsigned log_n;
    size_t n;
    gl n_inv;
    /* Pass with half-size m (m = 1, 2, ..., n/2) uses w_{2m}^j, j < m, at
     * tw[m - 1 + j]: n - 1 entries in all, each pass's run contiguous. */
    gl *tw;
};

static size_t twiddle_count(size_t n)
{
    return n > 1 ? n - 1 : 1; /* never malloc(0) */
}

gl_ntt_plan *gl_ntt_plan_new(unsigned log_n)
{
    if (log_n > GL_NTT_MAX_LOG)
        return NULL;
    gl_ntt_plan *p = malloc(sizeof *p);
    if (!p)
        return NULL;
    p->log_n = log_n;
    p->n = (size_t)1 << log_n;
    p->n_inv = gl_inv((gl)p->n);
    p->tw = malloc(twiddle_count(p->n) * sizeof *p->tw);
    if (!p->tw) {
        free(p);
        return NULL;
    }
    p->tw[0] = 1;
    for (unsigned s = 1; s <= log_n; s++) {
        size_t m = (size_t)1 << (s - 1);
        gl w = gl_root_of_unity(s), x = 1;
        gl *t = p->tw + (m - 1);
        for (size_t j = 0; j < m; j++) {
            t[j] = x;
            x = mul_i(x, w);
        }
    }
    return p;
}

void gl_ntt_plan_free(gl_ntt_plan *p)
{
    if (!p)
        return;
    free(p->tw);
    free(p);
}

static void bit_reverse(gl *a, size_t n)
{
    /* j runs through the bit-reversed counter alongside i: adding one to a
     * reversed number clears its leading ones and sets the next bit. */
    for (size_t i = 1, j = 0; i < n; i++) {
        size_t bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            gl t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
}

void gl_ntt(const gl_ntt_plan *p, gl *a)
{
    size_t n = p->n;
    bit_reverse(a, n);
    for (size_t m = 1; m < n; m <<= 1) {
        const gl *t = p->tw + (m - 1);
        for (size_t k = 0; k < n; k += 2 * m) {
            gl *lo = a + k, *hi = a + k + m;
            for (size_t j = 0; j < m; j++) {
                gl u = lo[j], v = mul_i(hi[j], t[j]);
                lo[j] = add_i(u, v);
                hi[j] = sub_i(u, v);
            }
        }
    }
}

/* After a forward NTT, a[k] = A(w^k); the inverse DFT wants the sums with
 * w^-k = w^(n-k), i.e. index (n - k) mod n: reverse a[1..n-1]. */
static void reverse_tail(gl *a, size_t n)
{
    for (size_t i = 1, j = n - 1; i < j; i++, j--) {
        gl t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

void gl_intt(const gl_ntt_plan *p, gl *a)
{
    gl_ntt(p, a);
    reverse_tail(a, p->n);
    for (size_t i = 0; i < p->n; i++)
        a[i] = mul_i(a[i], p->n_inv);
}

void gl_coset_ntt(const gl_ntt_plan *p, gl *a, gl shift)
{
    /* A(shift * x) has coefficients a_i * shift^i. */
    gl s = 1;
    for (size_t i = 0; i < p->n; i++) {
        a[i] = mul_i(a[i], s);
        s = mul_i(s, shift);
    }
    gl_ntt(p, a);
}

void gl_coset_intt(const gl_ntt_plan *p, gl *a, gl shift)
{
    gl_ntt(p, a);
    reverse_tail(a, p->n);
    /* The 1/n scaling and the shift^-i unscaling in one pass. */
    gl inv_shift = gl_inv(shift), s = p->n_inv;
    for (size_t i = 0; i < p->n; i++) {
        a[i] = mul_i(a[i], s);
        s = mul_i(s, inv_shift);
    }
}

/* ---- witness -------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A 64-bit word as a field element; the slight bias (values >= p are
 * 2^-32 of all) does not matter for test data. */
static gl canon(uint64_t x)
{
    return x >= GL_P ? x - GL_P : x;
}

int r1cs_witness_alloc(r1cs_witness *w, unsigned log_n)
{
    memset(w, 0, sizeof *w);
    if (log_n > GL_NTT_MAX_LOG)
        return -1;
    size_t n = (size_t)1 << log_n;
    gl *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!a || !b || !c) {
        free(a);
        free(b);
        free(c);
        return -1;
    }
    /* Zero-filled is a valid witness (0*0 == 0); nothing reads garbage. */
    memset(a, 0, n * sizeof *a);
    memset(b, 0, n * sizeof *b);
    memset(c, 0, n * sizeof *c);
    w->log_n = log_n;
    w->n = n;
    w->a = a;
    w->b = b;
    w->c = c;
    return 0;
}

void r1cs_witness_free(r1cs_witness *w)
{
    free(w->a);
    free(w->b);
    free(w->c);
    memset(w, 0, sizeof *w);
}

void r1cs_synthesize(r1cs_witness *w, uint64_t seed, unsigned rounds)
{
    if (rounds == 0)
        rounds = 1;
    uint64_t st = seed;
    /* Each constraint's wires depend on the previous constraint's, as in a
     * real circuit's chain of gates, so the work is sequential and cannot
     * be skipped: rounds multiply-add pairs per constraint.  The fresh
     * splitmix words keep a, b well spread even when rounds is 1. */
    gl pa = canon(splitmix64(&st)), pb = canon(splitmix64(&st));
    for (size_t i = 0; i < w->n; i++) {
        gl x = canon(splitmix64(&st)), y = canon(splitmix64(&st));
        for (unsigned r = 0; r < rounds; r++) {
            x = add_i(mul_i(x, y), pa);
            y = add_i(mul_i(y, x), pb);
        }
        w->a[i] = x;
        w->b[i] = y;
        w->c[i] = mul_i(x, y);
        pa = x;
        pb = y;
    }
}

int r1cs_check(const r1cs_witness *w)
{
    for (size_t i = 0; i < w->n; i++)
        if (mul_i(w->a[i], w->b[i]) != w->c[i])
            return 0;
    return 1;
}

/* ---- prover --------------------------------------------------------- */

int r1cs_prover_init(r1cs_prover *p, unsigned log_n)
{
    memset(p, 0, sizeof *p);
    if (log_n > GL_NTT_MAX_LOG)
        return -1;
    size_t n = (size_t)1 << log_n;
    p->plan = gl_ntt_plan_new(log_n);
    p->tmp_a = malloc(n * sizeof *p->tmp_a);
    p->tmp_b = malloc(n * sizeof *p->tmp_b);
    p->tmp_c = malloc(n * sizeof *p->tmp_c);
    if (!p->plan || !p->tmp_a || !p->tmp_b || !p->tmp_c) {
        r1cs_prover_free(p);
        return -1;
    }
    p->log_n = log_n;
    p->n = n;
    return 0;
}

void r1cs_prover_free(r1cs_prover *p)
{
    gl_ntt_plan_free(p->plan);
    free(p->tmp_a);
    free(p->tmp_b);
    free(p->tmp_c);
    memset(p, 0, sizeof *p);
}

/* Evaluates the polynomial with coefficients c[0..n-1] at all the check
 * points in one pass: the R independent Horner chains overlap in the
 * pipeline, where one chain alone would wait on each multiply. */
static void horner_multi(const gl *c, size_t n, const gl *x, gl *out)
{
    gl acc[R1CS_CHECK_POINTS] = {0};
    for (size_t i = n; i-- > 0;)
        for (int j = 0; j < R1CS_CHECK_POINTS; j++)
            acc[j] = add_i(mul_i(acc[j], x[j]), c[i]);
    memcpy(out, acc, sizeof acc);
}

/* Not cryptographic: a bijective 64-bit mixer chained over the values,
 * with the length folded in first so that trailing zeros count. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t digest(const gl *c, size_t n)
{
    /* The added constant keeps 0 from being a fixed point of the chain. */
    uint64_t h = mix64((uint64_t)n ^ 0x6A09E667F3BCC909ull);
    for (size_t i = 0; i < n; i++)
        h = mix64(h ^ c[i]) + 0x9E3779B97F4A7C15ull;
    return mix64(h);
}

int r1cs_prove_h(r1cs_prover *p, const r1cs_witness *w, uint64_t check_seed, r1cs_points *pts)
{
    if (!p || !w || !pts || !p->plan || !w->a || !w->b || !w->c || p->log_n != w->log_n ||
        p->n != w->n)
        return -1;
    size_t n = p->n;
    gl *ta = p->tmp_a, *tb = p->tmp_b, *tc = p->tmp_c;

    /* 1. Evaluations over H -> coefficients, on copies. */
    memcpy(ta, w->a, n * sizeof *ta);
    memcpy(tb, w->b, n * sizeof *tb);
    memcpy(tc, w->c, n * sizeof *tc);
    gl_intt(p->plan, ta);
    gl_intt(p->plan, tb);
    gl_intt(p->plan, tc);

    /* The check needs A, B, C at the points, and their coefficients are
     * about to be overwritten: evaluate now, so three buffers suffice.
     * Points in H (x^n == 1) are redrawn: there Z(x) == 0 and the identity
     * would only restate one constraint instead of testing H. */
    uint64_t st = check_seed;
    for (int j = 0; j < R1CS_CHECK_POINTS; j++) {
        gl x, xn;
        do {
            x = canon(splitmix64(&st));
            xn = pow_i(x, n);
        } while (xn == 1);
        pts->x[j] = x;
        pts->zx[j] = sub_i(xn, 1);
    }
    horner_multi(ta, n, pts->x, pts->a);
    horner_multi(tb, n, pts->x, pts->b);
    horner_multi(tc, n, pts->x, pts->c);

    /* 2. Evaluate on the coset gH, where Z does not vanish. */
    const gl g = GL_GENERATOR;
    gl_coset_ntt(p->plan, ta, g);
    gl_coset_ntt(p->plan, tb, g);
    gl_coset_ntt(p->plan, tc, g);

    /* 3. Z(g w^i) = g^n w^(in) - 1 = g^n - 1 for every i: one inversion.
     * g^n != 1 because g generates the whole group and p - 1 does not
     * divide n. */
    gl z_inv = gl_inv(sub_i(pow_i(g, n), 1));
    for (size_t i = 0; i < n; i++)
        ta[i] = mul_i(sub_i(mul_i(ta[i], tb[i]), tc[i]), z_inv);

    /* 4. Back to coefficients: H has degree < n (<= n - 2 when valid).  If
     * Z does not divide A*B - C, this is just some polynomial agreeing with
     * (A*B - C)/Z on the coset, and H*Z - (A*B - C) is a nonzero polynomial
     * of degree < 2n, zero at a random point with probability < 2n/p. */
    gl_coset_intt(p->plan, ta, g);
    return 0;
}

int r1cs_prove_check(const r1cs_prover *p, const r1cs_points *pts, r1cs_proof *out)
{
    if (!p || !pts || !out || !p->tmp_a)
        return -1;
    gl vh[R1CS_CHECK_POINTS];
    horner_multi(p->tmp_a, p->n, pts->x, vh);
    int ok = 1;
    for (int j = 0; j < R1CS_CHECK_POINTS; j++)
        if (mul_i(vh[j], pts->zx[j]) != sub_i(mul_i(pts->a[j], pts->b[j]), pts->c[j]))
            ok = 0;

    out->ok = ok;
    out->commitment = digest(p->tmp_a, p->n);
    return 0;
}

int r1cs_prove(r1cs_prover *p, const r1cs_witness *w, uint64_t check_seed, r1cs_proof *out)
{
    r1cs_points pts;
    if (!out)
        return -1;
    int rc = r1cs_prove_h(p, w, check_seed, &pts);
    return rc ? rc : r1cs_prove_check(p, &pts, out);
}

size_t r1cs_bytes(unsigned log_n)
{
    if (log_n > GL_NTT_MAX_LOG)
        return SIZE_MAX;
    size_t n = (size_t)1 << log_n;
    /* Six n-vectors (witness a, b, c and the scratch copies) plus the
     * plan; computed in 64 bits so a 32-bit size_t reports overflow. */
    uint64_t bytes = 6 * (uint64_t)n * sizeof(gl) + sizeof(struct gl_ntt_plan) +
                     (uint64_t)twiddle_count(n) * sizeof(gl);
    return bytes > SIZE_MAX ? SIZE_MAX : (size_t)bytes;
}
