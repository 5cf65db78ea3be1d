/*
 * field.h -- the arithmetic a reference proving pipeline really does:
 * the Goldilocks field, its NTT, an R1CS-style witness, and the Groth16
 * "H step" (the quotient (A*B - C) / Z over a power-of-two subgroup).
 *
 * The idea it rests on: p = 2^64 - 2^32 + 1 has 2^32 | p - 1, so the field
 * holds power-of-two roots of unity (NTTs of any size up to 2^32), and
 * 2^64 = 2^32 - 1 (mod p), so a 128-bit product reduces with a few 64-bit
 * adds and subtracts instead of a division.  A witness is valid exactly
 * when A*B - C vanishes on the subgroup H, i.e. when the vanishing
 * polynomial Z(x) = x^n - 1 divides it; the prover computes the quotient
 * on a coset (where Z is a nonzero constant) and then checks the identity
 * H*Z == A*B - C at pseudo-random points, which a corrupted witness fails
 * except with probability about 2n/p per point (Schwartz-Zippel).
 *
 * All gl values passed in must be canonical (0 <= x < p); all returned are.
 * Nothing here keeps global state; every function is thread-safe on
 * distinct objects.
 *
 * Errors: 0, or -1 with no message, for out of memory or a caller's
 * mistake (a size past GL_NTT_MAX_LOG, a NULL, sizes that differ); the
 * caller, which knows what it was doing, says which (engine.h).
 */
#ifndef ENGINE_FIELD_H
#define ENGINE_FIELD_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t gl; /* canonical: 0 <= x < p */
#define GL_P 0xFFFFFFFF00000001ull
/* The multiplicative generator of the field; also the coset shift of the
 * prover (7 is not in any power-of-two subgroup, so 7*H is disjoint from H). */
#define GL_GENERATOR 7u
/* Largest NTT the plans accept: twiddles for 2^28 already take 2 GiB. */
#define GL_NTT_MAX_LOG 28u

gl gl_add(gl a, gl b);
gl gl_sub(gl a, gl b);
gl gl_mul(gl a, gl b); /* 128-bit product, reduced via 2^64 = 2^32 - 1 (mod p) */
gl gl_pow(gl a, uint64_t e); /* gl_pow(x, 0) == 1, also for x == 0 */
gl gl_inv(gl a);             /* gl_inv(0) == 0 */
/* A primitive 2^log_n-th root of unity; 0 when log_n > 32.  The roots are
 * consistent: gl_root_of_unity(k)^2 == gl_root_of_unity(k - 1). */
gl gl_root_of_unity(unsigned log_n);

/* In-place radix-2 NTT of size n = 2^log_n.  Evaluations are in natural
 * order: after gl_ntt, a[k] = A(w^k) with w = gl_root_of_unity(log_n). */
typedef struct gl_ntt_plan gl_ntt_plan;
gl_ntt_plan *gl_ntt_plan_new(unsigned log_n); /* NULL on OOM or log_n > 28 */
void gl_ntt_plan_free(gl_ntt_plan *p);        /* NULL is fine */
void gl_ntt(const gl_ntt_plan *p, gl *a);     /* coefficients -> evaluations on H = <w> */
void gl_intt(const gl_ntt_plan *p, gl *a);    /* inverse, includes the 1/n scaling */
/* a[k] = A(shift * w^k): scale coefficient i by shift^i, then NTT. */
void gl_coset_ntt(const gl_ntt_plan *p, gl *a, gl shift);
/* Inverse of gl_coset_ntt (shift must be nonzero). */
void gl_coset_intt(const gl_ntt_plan *p, gl *a, gl shift);

/* An R1CS-style witness: a, b, c of size n = 2^log_n with a[i]*b[i] == c[i]. */
typedef struct {
    unsigned log_n;
    size_t n;
    gl *a, *b, *c;
} r1cs_witness;
/* 0, or -1: out of memory, or log_n > GL_NTT_MAX_LOG (no plan could prove it).
 * On failure *w is left zeroed, so r1cs_witness_free on it is harmless. */
int r1cs_witness_alloc(r1cs_witness *w, unsigned log_n);
void r1cs_witness_free(r1cs_witness *w); /* zeroes *w; twice is harmless */
/* "Synthesis": fills a, b from a chain of multiply-adds seeded by seed and
 * by the previous constraint's values (rounds >= 1 chains per constraint,
 * 0 is taken as 1), and sets c[i] = a[i]*b[i].  Deterministic in
 * (seed, rounds, log_n); the work is proportional to n * rounds. */
void r1cs_synthesize(r1cs_witness *w, uint64_t seed, unsigned rounds);
int r1cs_check(const r1cs_witness *w); /* 1 if a[i]*b[i] == c[i] for every i */

/* Reusable scratch for proving witnesses of one size.  After a successful
 * r1cs_prove, tmp_a holds the n coefficients of H (lowest degree first);
 * tmp_b and tmp_c hold intermediate values of no meaning. */
typedef struct {
    unsigned log_n;
    size_t n;
    gl *tmp_a, *tmp_b, *tmp_c;
    gl_ntt_plan *plan;
} r1cs_prover;
/* 0, or -1: out of memory, or log_n > GL_NTT_MAX_LOG.  Zeroed on failure. */
int r1cs_prover_init(r1cs_prover *p, unsigned log_n);
void r1cs_prover_free(r1cs_prover *p); /* zeroes *p; twice is harmless */

/* The number of pseudo-random points r1cs_prove checks H*Z == A*B - C at. */
#define R1CS_CHECK_POINTS 4
typedef struct {
    /* A 64-bit digest of H's coefficients.  NOT a cryptographic commitment:
     * it is a fast non-cryptographic hash (a splitmix64-style mixer chained
     * over the canonical values), fit for telling results apart and for
     * determinism checks, not for binding a prover to anything. */
    uint64_t commitment;
    int ok; /* 1: H*Z == A*B - C held at every check point */
} r1cs_proof;
/* Computes H = (A*B - C) / Z from the witness (left intact), checks it at
 * R1CS_CHECK_POINTS points outside H drawn from check_seed, and commits to
 * it.  Returns 0 (with out->ok saying whether the check passed; a witness
 * with some a[i]*b[i] != c[i] gives ok == 0), or -1 when a pointer is
 * NULL or the witness and prover differ in size.  The commitment depends
 * only on the witness, not on check_seed. */
int r1cs_prove(r1cs_prover *p, const r1cs_witness *w, uint64_t check_seed, r1cs_proof *out);

/* r1cs_prove in its two parts, for a pipeline that marks them apart (the
 * engine's KERNEL and CHECK sub-phases, docs/engine.md):
 *
 * r1cs_prove_h is the prover's computation, what a device runs: the NTTs
 * that leave H's coefficients in p->tmp_a, and, on the way (their
 * coefficients exist only then), A, B and C at the check points drawn from
 * check_seed, with Z there.  0, or -1 as r1cs_prove.
 *
 * r1cs_prove_check is the host's work on what the device returned: H at
 * the points, the identity H*Z == A*B - C there, and the digest of H.  It
 * reads p->tmp_a, so it must follow r1cs_prove_h on the same prover.
 * 0, or -1 when a pointer is NULL. */
typedef struct {
    gl x[R1CS_CHECK_POINTS];  /* the check points (none in H) */
    gl zx[R1CS_CHECK_POINTS]; /* Z(x) = x^n - 1 there */
    gl a[R1CS_CHECK_POINTS], b[R1CS_CHECK_POINTS], c[R1CS_CHECK_POINTS]; /* A, B, C there */
} r1cs_points;
int r1cs_prove_h(r1cs_prover *p, const r1cs_witness *w, uint64_t check_seed, r1cs_points *pts);
int r1cs_prove_check(const r1cs_prover *p, const r1cs_points *pts, r1cs_proof *out);

/* Bytes a witness plus a prover of size 2^log_n allocate (the three witness
 * vectors, the three scratch vectors, the plan and its twiddles); SIZE_MAX
 * when log_n > GL_NTT_MAX_LOG or the sum does not fit in size_t. */
size_t r1cs_bytes(unsigned log_n);

#endif /* ENGINE_FIELD_H */
