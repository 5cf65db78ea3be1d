/*
 * explain.h -- the findings of an analysed run in words, shared by the
 * text report and the HTML summary, so that both say the same.
 */
#ifndef EXPLAIN_H
#define EXPLAIN_H

#include "analyze.h"

#include <stddef.h>

/* What fills the GPU phase besides its kernels, by sub-phase, with each
 * one's share of the phase ("HOST_MSM 30.1%, unaccounted 4.0% of ..."). */
const char *report_phase_fill(char *buf, size_t n, const struct run_result *res);
/* The bottleneck in one sentence ("synthesis: the GPU waits for ..."). */
const char *bottleneck_sentence(char *buf, size_t n, const struct run_result *res);
/* The CPU section as the text report prints it: the samples' shares (or
 * that there are none) and the verdict; stage time by concurrency for
 * synthesis and the GPU phase ("" when none).  Returns where the verdict
 * starts in l1 when it is contention, else -1. */
int report_cpu_lines(const struct cpu_result *c, char *l1, size_t n1, char *l2, size_t n2, char *l3, size_t n3);
/* The advice in two lines of text (the second may be empty), as the text
 * report prints them; returns how many leading bytes of the first to
 * emphasise ("run 2 syntheses at once"), 0 for none. */
int report_advice_lines(const struct run_result *res, char *l1, size_t n1, char *l2, size_t n2);

/* The idle time, its gaps and the longest ("859.0 ms in 1 gap (longest 859.0 ms)"). */
const char *idle_sentence(char *buf, size_t n, const struct run_result *res);

/* The memory line (a native trace's memory samples), or NULL when none. */
const char *memory_sentence(char *buf, size_t n, const struct mem_use *m);

#endif /* EXPLAIN_H */
