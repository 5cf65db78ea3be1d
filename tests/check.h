/*
 * check.h -- the test suite's few assertions.  A failed CHECK prints
 * file:line and the expression and marks the test failed; the test goes
 * on, so one run shows every failure.  main() returns check_done().
 */
#ifndef CHECK_H
#define CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_failures, check_count;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        check_count++;                                                               \
        if (!(cond)) {                                                               \
            check_failures++;                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

#define CHECK_EQ_U(a, b)                                                                  \
    do {                                                                                  \
        unsigned long long check_a = (unsigned long long)(a), check_b = (unsigned long long)(b); \
        check_count++;                                                                    \
        if (check_a != check_b) {                                                         \
            check_failures++;                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%llu != %llu)\n", __FILE__,   \
                    __LINE__, #a, #b, check_a, check_b);                                  \
        }                                                                                 \
    } while (0)

static inline int check_done(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

#endif /* CHECK_H */
