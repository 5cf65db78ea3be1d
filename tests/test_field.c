/*
 * test_field.c -- checks engine/field.c against slow, obviously right
 * references: 128-bit % p for the field, the O(n^2) DFT for the NTT,
 * schoolbook multiplication for convolution, and schoolbook division by
 * x^n - 1 for the prover's H.  The soundness property that matters most
 * -- a corrupted witness is caught -- is tested at several positions,
 * sizes and check seeds.
 *
 * Standalone on purpose (no project headers): build with
 *   cc -std=c11 -O2 -Iengine tests/test_field.c engine/field.c
 * `test_field --bench [log_n...]` times synthesis and proving instead.
 */
#include "field.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

__extension__ typedef unsigned __int128 u128;

static int n_checks, n_failed;

#define CHECK(cond)                                                                 \
    do {                                                                            \
        n_checks++;                                                                 \
        if (!(cond)) {                                                              \
            n_failed++;                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                           \
    } while (0)

/* Field checks run millions of times; count each loop as one check and
 * report only the first mismatch, so a broken reduction does not flood. */
#define CHECK_ALL(loop_ok, what, ...)                                    \
    do {                                                                 \
        n_checks++;                                                      \
        if (!(loop_ok)) {                                                \
            n_failed++;                                                  \
            fprintf(stderr, "%s:%d: %s failed: ", __FILE__, __LINE__, what); \
            fprintf(stderr, __VA_ARGS__);                                \
            fputc('\n', stderr);                                         \
        }                                                                \
    } while (0)

static uint64_t rng_state = 0x243F6A8885A308D3ull;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static gl rnd_gl(void)
{
    return (gl)(rnd() % GL_P);
}

static const gl edges[] = {
    0, 1, 2, 3, GL_P - 1, GL_P - 2, GL_P - 3,
    1ull << 32, (1ull << 32) - 1, (1ull << 32) + 1, 1ull << 63, (1ull << 63) - 1, (1ull << 63) + 1,
    0xFFFFFFFF00000000ull, /* p - 1 */
    0xFFFFFFFEFFFFFFFFull, /* p - 2^32 */
    0x00000000FFFFFFFEull, 0x8000000080000000ull, 0x7FFFFFFF80000000ull,
    1ull << 31, 1ull << 48, 0xFFFFFFFFull * 0xFFFFFFFFull,
};
#define N_EDGES (sizeof edges / sizeof edges[0])

/* Random values biased toward the places reductions go wrong: near 0,
 * near p, near multiples of 2^32, and uniform. */
static gl rnd_interesting(void)
{
    uint64_t r = rnd();
    switch (r & 7) {
    case 0: return edges[(r >> 3) % N_EDGES];
    case 1: return (r >> 3) & 0xFFFF;
    case 2: return GL_P - 1 - ((r >> 3) & 0xFFFF);
    case 3: return (((r >> 3) & 0xFFFFFFFFull) << 32) % GL_P;
    case 4: return (((r >> 3) & 0xFFFFFFFFull) << 32 | ((r >> 40) & 3)) % GL_P;
    default: return rnd_gl();
    }
}

static gl ref_add(gl a, gl b) { return (gl)(((u128)a + b) % GL_P); }
static gl ref_sub(gl a, gl b) { return (gl)(((u128)a + GL_P - b) % GL_P); }
static gl ref_mul(gl a, gl b) { return (gl)(((u128)a * b) % GL_P); }

static int field_op_ok(gl a, gl b)
{
    if (gl_add(a, b) != ref_add(a, b) || gl_sub(a, b) != ref_sub(a, b) ||
        gl_mul(a, b) != ref_mul(a, b)) {
        fprintf(stderr, "  a=%#llx b=%#llx: add %#llx/%#llx sub %#llx/%#llx mul %#llx/%#llx\n",
                (unsigned long long)a, (unsigned long long)b,
                (unsigned long long)gl_add(a, b), (unsigned long long)ref_add(a, b),
                (unsigned long long)gl_sub(a, b), (unsigned long long)ref_sub(a, b),
                (unsigned long long)gl_mul(a, b), (unsigned long long)ref_mul(a, b));
        return 0;
    }
    return 1;
}

static void test_field_ops(void)
{
    int ok = 1;
    for (size_t i = 0; i < N_EDGES && ok; i++)
        for (size_t j = 0; j < N_EDGES && ok; j++)
            ok = field_op_ok(edges[i], edges[j]);
    CHECK_ALL(ok, "edge pairs", "add/sub/mul vs 128-bit %% p");

    ok = 1;
    for (int i = 0; i < 2000000 && ok; i++)
        ok = field_op_ok(rnd_interesting(), rnd_interesting());
    CHECK_ALL(ok, "random pairs", "add/sub/mul vs 128-bit %% p");

    /* Axioms on random triples: the ops must be a field, not just match. */
    ok = 1;
    for (int i = 0; i < 200000 && ok; i++) {
        gl a = rnd_interesting(), b = rnd_interesting(), c = rnd_interesting();
        ok = gl_add(a, b) == gl_add(b, a) && gl_mul(a, b) == gl_mul(b, a) &&
             gl_add(gl_add(a, b), c) == gl_add(a, gl_add(b, c)) &&
             gl_mul(gl_mul(a, b), c) == gl_mul(a, gl_mul(b, c)) &&
             gl_mul(a, gl_add(b, c)) == gl_add(gl_mul(a, b), gl_mul(a, c)) &&
             gl_sub(gl_add(a, b), b) == a && gl_add(a, 0) == a && gl_mul(a, 1) == a &&
             gl_mul(a, 0) == 0 && gl_add(a, gl_sub(0, a)) == 0 && gl_add(a, b) < GL_P &&
             gl_sub(a, b) < GL_P && gl_mul(a, b) < GL_P;
    }
    CHECK_ALL(ok, "axioms", "commutativity/associativity/distributivity/identities");
}

static void test_pow_inv(void)
{
    CHECK(gl_pow(0, 0) == 1);
    CHECK(gl_pow(0, 5) == 0);
    CHECK(gl_pow(GL_P - 1, 2) == 1);
    CHECK(gl_pow(2, 64) == 0xFFFFFFFFull);   /* 2^64 = 2^32 - 1 */
    CHECK(gl_pow(2, 96) == GL_P - 1);        /* 2^96 = -1 */
    CHECK(gl_pow(2, 192) == 1);
    int ok = 1;
    for (int i = 0; i < 2000 && ok; i++) {
        gl a = rnd_interesting(), r = 1;
        for (uint64_t e = 0; e < 40 && ok; e++) {
            ok = gl_pow(a, e) == r;
            r = ref_mul(r, a);
        }
        uint64_t e1 = rnd(), e2 = rnd() >> 1;
        e1 >>= 1;
        ok = ok && gl_pow(a, e1 + e2) == gl_mul(gl_pow(a, e1), gl_pow(a, e2));
        ok = ok && (a == 0 || gl_pow(a, GL_P - 1) == 1); /* Fermat */
    }
    CHECK_ALL(ok, "pow", "vs repeated multiplication / exponent law / Fermat");

    CHECK(gl_inv(0) == 0);
    CHECK(gl_inv(1) == 1);
    CHECK(gl_inv(GL_P - 1) == GL_P - 1);
    ok = 1;
    for (size_t i = 0; i < N_EDGES && ok; i++)
        ok = edges[i] == 0 || gl_mul(edges[i], gl_inv(edges[i])) == 1;
    for (int i = 0; i < 20000 && ok; i++) {
        gl a = rnd_interesting();
        ok = a == 0 || (gl_mul(a, gl_inv(a)) == 1 && gl_inv(gl_inv(a)) == a);
    }
    CHECK_ALL(ok, "inverse", "a * inv(a) == 1");
}

static void test_roots(void)
{
    /* 7 generates the group: 7^((p-1)/q) != 1 for every prime q | p - 1. */
    static const uint64_t primes[] = {2, 3, 5, 17, 257, 65537};
    CHECK((GL_P - 1) == (1ull << 32) * 3 * 5 * 17 * 257 * 65537);
    for (size_t i = 0; i < sizeof primes / sizeof primes[0]; i++)
        CHECK(gl_pow(GL_GENERATOR, (GL_P - 1) / primes[i]) != 1);
    CHECK(gl_root_of_unity(32) == 1753635133440165772ull); /* the usual Goldilocks value */
    CHECK(gl_root_of_unity(0) == 1);
    CHECK(gl_root_of_unity(1) == GL_P - 1);
    CHECK(gl_root_of_unity(33) == 0);
    for (unsigned k = 1; k <= 32; k++) {
        gl w = gl_root_of_unity(k);
        CHECK(gl_pow(w, 1ull << k) == 1);
        CHECK(gl_pow(w, 1ull << (k - 1)) != 1);
        CHECK(gl_mul(w, w) == gl_root_of_unity(k - 1));
    }
}

/* out[k] = sum_j in[j] * (shift * w^k)^j, the definition. */
static void naive_dft(const gl *in, gl *out, size_t n, gl w, gl shift)
{
    for (size_t k = 0; k < n; k++) {
        gl x = gl_mul(shift, gl_pow(w, k)), acc = 0, xj = 1;
        for (size_t j = 0; j < n; j++) {
            acc = gl_add(acc, gl_mul(in[j], xj));
            xj = gl_mul(xj, x);
        }
        out[k] = acc;
    }
}

static gl *rnd_vec(size_t n)
{
    gl *v = malloc(n * sizeof *v);
    if (!v) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++)
        v[i] = rnd_interesting();
    return v;
}

static gl *dup_vec(const gl *v, size_t n)
{
    gl *d = malloc(n * sizeof *d);
    if (!d) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    memcpy(d, v, n * sizeof *d);
    return d;
}

static void test_ntt(void)
{
    CHECK(gl_ntt_plan_new(GL_NTT_MAX_LOG + 1) == NULL);
    gl_ntt_plan_free(NULL);

    /* Against the definition, plain and on a coset. */
    static const unsigned dft_logs[] = {0, 1, 2, 3, 4, 6};
    for (size_t t = 0; t < sizeof dft_logs / sizeof dft_logs[0]; t++) {
        unsigned lg = dft_logs[t];
        size_t n = (size_t)1 << lg;
        gl_ntt_plan *p = gl_ntt_plan_new(lg);
        CHECK(p != NULL);
        if (!p)
            continue;
        gl *x = rnd_vec(n), *y = dup_vec(x, n), *ref = malloc(n * sizeof *ref);
        CHECK(ref != NULL);
        if (!ref)
            exit(1);
        naive_dft(x, ref, n, gl_root_of_unity(lg), 1);
        gl_ntt(p, y);
        CHECK(memcmp(y, ref, n * sizeof *y) == 0);

        gl shift = rnd_gl() | 1;
        memcpy(y, x, n * sizeof *y);
        naive_dft(x, ref, n, gl_root_of_unity(lg), shift);
        gl_coset_ntt(p, y, shift);
        CHECK(memcmp(y, ref, n * sizeof *y) == 0);
        gl_coset_intt(p, y, shift);
        CHECK(memcmp(y, x, n * sizeof *y) == 0);
        free(x);
        free(y);
        free(ref);
        gl_ntt_plan_free(p);
    }

    /* Round trips, both directions, several sizes. */
    for (unsigned lg = 0; lg <= 16; lg++) {
        size_t n = (size_t)1 << lg;
        gl_ntt_plan *p = gl_ntt_plan_new(lg);
        CHECK(p != NULL);
        if (!p)
            continue;
        gl *x = rnd_vec(n), *y = dup_vec(x, n);
        gl_ntt(p, y);
        gl_intt(p, y);
        int ok = memcmp(x, y, n * sizeof *x) == 0;
        gl_intt(p, y);
        gl_ntt(p, y);
        ok = ok && memcmp(x, y, n * sizeof *x) == 0;
        gl_coset_ntt(p, y, GL_GENERATOR);
        gl_coset_intt(p, y, GL_GENERATOR);
        ok = ok && memcmp(x, y, n * sizeof *x) == 0;
        CHECK_ALL(ok, "ntt round trip", "log_n=%u", lg);
        free(x);
        free(y);
        gl_ntt_plan_free(p);
    }

    /* Convolution: two polynomials of degree < n/2, multiplied through a
     * size-n NTT, equal the schoolbook product (no wrap-around). */
    for (unsigned lg = 1; lg <= 8; lg++) {
        size_t n = (size_t)1 << lg, h = n / 2;
        gl_ntt_plan *p = gl_ntt_plan_new(lg);
        CHECK(p != NULL);
        if (!p)
            continue;
        gl *f = calloc(n, sizeof *f), *g = calloc(n, sizeof *g), *ref = calloc(n, sizeof *ref);
        if (!f || !g || !ref)
            exit(1);
        for (size_t i = 0; i < h; i++) {
            f[i] = rnd_interesting();
            g[i] = rnd_interesting();
        }
        for (size_t i = 0; i < h; i++)
            for (size_t j = 0; j < h; j++)
                ref[i + j] = gl_add(ref[i + j], gl_mul(f[i], g[j]));
        gl_ntt(p, f);
        gl_ntt(p, g);
        for (size_t i = 0; i < n; i++)
            f[i] = gl_mul(f[i], g[i]);
        gl_intt(p, f);
        CHECK_ALL(memcmp(f, ref, n * sizeof *f) == 0, "convolution", "log_n=%u", lg);
        free(f);
        free(g);
        free(ref);
        gl_ntt_plan_free(p);
    }
}

static void test_witness(void)
{
    r1cs_witness w;
    CHECK(r1cs_witness_alloc(&w, GL_NTT_MAX_LOG + 1) == -1);
    CHECK(w.a == NULL && w.n == 0);
    r1cs_witness_free(&w); /* harmless on a failed alloc */

    CHECK(r1cs_witness_alloc(&w, 10) == 0);
    CHECK(w.n == 1024 && w.log_n == 10);
    CHECK(r1cs_check(&w)); /* zero-filled is valid */
    r1cs_synthesize(&w, 42, 3);
    CHECK(r1cs_check(&w));
    size_t distinct_zero = 0;
    for (size_t i = 0; i < w.n; i++)
        distinct_zero += w.a[i] == 0 || w.b[i] == 0 || w.a[i] >= GL_P || w.b[i] >= GL_P;
    CHECK(distinct_zero == 0);

    r1cs_witness v;
    CHECK(r1cs_witness_alloc(&v, 10) == 0);
    r1cs_synthesize(&v, 42, 3);
    CHECK(memcmp(v.a, w.a, w.n * sizeof(gl)) == 0 && memcmp(v.c, w.c, w.n * sizeof(gl)) == 0);
    r1cs_synthesize(&v, 43, 3);
    CHECK(memcmp(v.a, w.a, w.n * sizeof(gl)) != 0);
    r1cs_synthesize(&v, 42, 4);
    CHECK(memcmp(v.a, w.a, w.n * sizeof(gl)) != 0);
    r1cs_synthesize(&v, 42, 0);
    r1cs_synthesize(&w, 42, 1);
    CHECK(memcmp(v.a, w.a, w.n * sizeof(gl)) == 0); /* rounds 0 is 1 */

    w.c[517] = gl_add(w.c[517], 1);
    CHECK(!r1cs_check(&w));
    r1cs_witness_free(&w);
    r1cs_witness_free(&w); /* twice is harmless */
    r1cs_witness_free(&v);
}

/* H from first principles: coefficients of A, B, C by the inverse DFT
 * definition, A*B - C schoolbook, divided by x^n - 1 schoolbook.
 * Returns whether the remainder is zero; q gets the quotient. */
static int naive_quotient(const r1cs_witness *w, gl *q)
{
    size_t n = w->n;
    gl w_inv = gl_inv(gl_root_of_unity(w->log_n)), n_inv = gl_inv(n);
    gl *ca = malloc(n * sizeof *ca), *cb = malloc(n * sizeof *cb), *cc = malloc(n * sizeof *cc);
    gl *d = calloc(2 * n, sizeof *d);
    if (!ca || !cb || !cc || !d)
        exit(1);
    naive_dft(w->a, ca, n, w_inv, 1);
    naive_dft(w->b, cb, n, w_inv, 1);
    naive_dft(w->c, cc, n, w_inv, 1);
    for (size_t i = 0; i < n; i++) {
        ca[i] = gl_mul(ca[i], n_inv);
        cb[i] = gl_mul(cb[i], n_inv);
        cc[i] = gl_mul(cc[i], n_inv);
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            d[i + j] = gl_add(d[i + j], gl_mul(ca[i], cb[j]));
    for (size_t i = 0; i < n; i++)
        d[i] = gl_sub(d[i], cc[i]);
    /* D = Q (x^n - 1) + R with deg D < 2n: q_i = d_{i+n}, r_i = d_i + d_{i+n}. */
    int exact = 1;
    for (size_t i = 0; i < n; i++) {
        q[i] = d[i + n];
        exact = exact && gl_add(d[i], d[i + n]) == 0;
    }
    free(ca);
    free(cb);
    free(cc);
    free(d);
    return exact;
}

static uint64_t prove_once(unsigned lg, uint64_t seed, uint64_t check_seed, int *ok)
{
    r1cs_witness w;
    r1cs_prover p;
    r1cs_proof pr = {0, -1};
    if (r1cs_witness_alloc(&w, lg) || r1cs_prover_init(&p, lg))
        exit(1);
    r1cs_synthesize(&w, seed, 2);
    CHECK(r1cs_prove(&p, &w, check_seed, &pr) == 0);
    *ok = pr.ok;
    r1cs_prover_free(&p);
    r1cs_witness_free(&w);
    return pr.commitment;
}

static void test_prove(void)
{
    r1cs_prover p;
    CHECK(r1cs_prover_init(&p, GL_NTT_MAX_LOG + 1) == -1);
    CHECK(p.plan == NULL && p.tmp_a == NULL);
    r1cs_prover_free(&p);

    /* Valid witnesses prove, H has degree <= n - 2, the witness is left
     * intact, and for small n H equals the schoolbook quotient. */
    for (unsigned lg = 0; lg <= 12; lg++) {
        r1cs_witness w;
        r1cs_proof pr = {0, -1};
        size_t n = (size_t)1 << lg;
        CHECK(r1cs_witness_alloc(&w, lg) == 0 && r1cs_prover_init(&p, lg) == 0);
        if (!w.a || !p.plan)
            exit(1);
        r1cs_synthesize(&w, 1000 + lg, 1 + lg % 3);
        gl *sa = dup_vec(w.a, n), *sb = dup_vec(w.b, n), *sc = dup_vec(w.c, n);
        CHECK(r1cs_prove(&p, &w, 77, &pr) == 0);
        CHECK_ALL(pr.ok == 1, "prove valid", "log_n=%u ok=%d", lg, pr.ok);
        CHECK(p.tmp_a[n - 1] == 0);
        int nonzero = 0;
        for (size_t i = 0; i < n; i++)
            nonzero |= p.tmp_a[i] != 0;
        CHECK(lg < 2 || nonzero); /* H == 0 only if A*B == C as polynomials */
        CHECK(memcmp(sa, w.a, n * sizeof(gl)) == 0 && memcmp(sb, w.b, n * sizeof(gl)) == 0 &&
              memcmp(sc, w.c, n * sizeof(gl)) == 0);
        if (lg <= 6) {
            gl *q = malloc(n * sizeof *q);
            if (!q)
                exit(1);
            CHECK(naive_quotient(&w, q));
            CHECK_ALL(memcmp(q, p.tmp_a, n * sizeof *q) == 0, "H vs schoolbook", "log_n=%u", lg);
            free(q);
        }
        /* The prover is reusable: a second proof gives the same answer. */
        r1cs_proof pr2 = {0, -1};
        CHECK(r1cs_prove(&p, &w, 78, &pr2) == 0);
        CHECK(pr2.ok == 1 && pr2.commitment == pr.commitment);
        free(sa);
        free(sb);
        free(sc);
        r1cs_prover_free(&p);
        r1cs_witness_free(&w);
    }

    /* Corruption is caught: one bad constraint anywhere, in c or in a,
     * under several check seeds; repairing it makes the proof pass again. */
    static const unsigned bad_logs[] = {1, 2, 4, 8, 12};
    for (size_t t = 0; t < sizeof bad_logs / sizeof bad_logs[0]; t++) {
        unsigned lg = bad_logs[t];
        size_t n = (size_t)1 << lg;
        r1cs_witness w;
        CHECK(r1cs_witness_alloc(&w, lg) == 0 && r1cs_prover_init(&p, lg) == 0);
        if (!w.a || !p.plan)
            exit(1);
        r1cs_synthesize(&w, 5 + lg, 1);
        size_t pos[] = {0, 1 % n, n / 2, n - 1, (size_t)(rnd() % n), (size_t)(rnd() % n)};
        for (size_t k = 0; k < sizeof pos / sizeof pos[0]; k++) {
            size_t i = pos[k];
            for (int which = 0; which < 2; which++) {
                gl *v = which ? w.a : w.c;
                gl saved = v[i];
                v[i] = which ? gl_add(v[i], 1) : gl_sub(v[i], rnd_gl() | 1);
                CHECK(!r1cs_check(&w));
                for (uint64_t cs = 0; cs < 3; cs++) {
                    r1cs_proof pr = {0, -1};
                    CHECK(r1cs_prove(&p, &w, cs * 1234567 + 1, &pr) == 0);
                    CHECK_ALL(pr.ok == 0, "corruption detected",
                              "log_n=%u pos=%zu in %s check_seed=%llu", lg, i, which ? "a" : "c",
                              (unsigned long long)cs);
                }
                v[i] = saved;
                r1cs_proof pr = {0, -1};
                CHECK(r1cs_prove(&p, &w, 9, &pr) == 0 && pr.ok == 1);
            }
        }
        /* Many bad constraints at once are caught too. */
        for (size_t i = 0; i < n; i += 3)
            w.c[i] = gl_add(w.c[i], (gl)i + 1);
        r1cs_proof pr = {0, -1};
        CHECK(r1cs_prove(&p, &w, 10, &pr) == 0 && pr.ok == 0);
        r1cs_prover_free(&p);
        r1cs_witness_free(&w);
    }

    /* Determinism, and distinct witnesses give distinct commitments. */
    int ok1, ok2;
    uint64_t c1 = prove_once(10, 7, 1, &ok1), c2 = prove_once(10, 7, 2, &ok2);
    CHECK(ok1 == 1 && ok2 == 1);
    CHECK(c1 == c2); /* same seed; the check seed does not enter the commitment */
    uint64_t cs[16];
    for (int i = 0; i < 16; i++) {
        int ok;
        cs[i] = prove_once(10, 100 + (uint64_t)i, 3, &ok);
        CHECK(ok == 1);
        for (int j = 0; j < i; j++)
            CHECK(cs[i] != cs[j]);
    }
    CHECK(prove_once(9, 7, 1, &ok1) != c1); /* other size */

    /* Size mismatch and NULLs. */
    r1cs_witness w;
    r1cs_proof pr = {0, -1};
    CHECK(r1cs_witness_alloc(&w, 6) == 0 && r1cs_prover_init(&p, 5) == 0);
    CHECK(r1cs_prove(&p, &w, 1, &pr) == -1);
    CHECK(r1cs_prove(NULL, &w, 1, &pr) == -1);
    CHECK(r1cs_prove(&p, NULL, 1, &pr) == -1);
    CHECK(r1cs_prove(&p, &w, 1, NULL) == -1);
    r1cs_prover_free(&p);
    CHECK(r1cs_prove(&p, &w, 1, &pr) == -1); /* freed prover */
    r1cs_witness_free(&w);

    CHECK(r1cs_bytes(GL_NTT_MAX_LOG + 1) == SIZE_MAX);
    CHECK(r1cs_bytes(0) > 0);
    for (unsigned lg = 1; lg <= GL_NTT_MAX_LOG; lg++) {
        size_t n = (size_t)1 << lg;
        CHECK(r1cs_bytes(lg) >= 7 * n * sizeof(gl) - sizeof(gl) && r1cs_bytes(lg) > r1cs_bytes(lg - 1));
    }
}

/* ---- timing (--bench) ----------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench(int argc, char **argv)
{
    unsigned logs[16] = {12, 16, 18};
    int nlogs = 3;
    if (argc > 2) {
        nlogs = 0;
        for (int i = 2; i < argc && nlogs < 16; i++)
            logs[nlogs++] = (unsigned)strtoul(argv[i], NULL, 10);
    }
    static const unsigned rounds[] = {1, 4, 16, 64};
    for (int t = 0; t < nlogs; t++) {
        unsigned lg = logs[t];
        r1cs_witness w;
        r1cs_prover p;
        if (r1cs_witness_alloc(&w, lg) || r1cs_prover_init(&p, lg)) {
            fprintf(stderr, "log_n=%u: cannot allocate\n", lg);
            return 1;
        }
        printf("log_n=%u (n=%zu, %.1f MiB):", lg, w.n, (double)r1cs_bytes(lg) / (1 << 20));
        for (size_t r = 0; r < sizeof rounds / sizeof rounds[0]; r++) {
            double best = 1e9;
            for (int rep = 0; rep < 5; rep++) {
                double t0 = now_s();
                r1cs_synthesize(&w, 1, rounds[r]);
                double dt = now_s() - t0;
                best = dt < best ? dt : best;
            }
            printf("  synth r=%u %.2f ms", rounds[r], best * 1e3);
        }
        double best = 1e9;
        r1cs_proof pr = {0, 0};
        for (int rep = 0; rep < 5; rep++) {
            double t0 = now_s();
            r1cs_prove(&p, &w, 2, &pr);
            double dt = now_s() - t0;
            best = dt < best ? dt : best;
        }
        printf("  prove %.2f ms (ok=%d)\n", best * 1e3, pr.ok);
        r1cs_prover_free(&p);
        r1cs_witness_free(&w);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--bench") == 0)
        return bench(argc, argv);
    test_field_ops();
    test_pow_inv();
    test_roots();
    test_ntt();
    test_witness();
    test_prove();
    printf("field: %d checks, %d failed\n", n_checks, n_failed);
    return n_failed ? 1 : 0;
}
