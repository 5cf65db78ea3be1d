/*
 * report.h -- the analysis as a person reads it (terminal), as a program
 * reads it (JSON, documented in docs/json.md), and one row per unit (CSV).
 * Reports only print: every figure comes from a run_result.
 */
#ifndef REPORT_H
#define REPORT_H

#include "analyze.h"
#include "fmt.h"
#include "model.h"

#include <stdio.h>

struct report_opts {
    int color;     /* ANSI colour (a TTY) */
    int gaps;      /* list the idle gaps, longest first; 0: none */
    size_t max_gaps;
    int chart;     /* draw the waterfall in the terminal, this many unit rows (0: no chart) */
    int width;     /* the terminal's columns */
};

void report_text(FILE *f, const struct model *m, const struct run_result *res, size_t nres,
                 const struct report_opts *o);
void report_json(FILE *f, const struct model *m, const struct run_result *res, size_t nres,
                 const struct report_opts *o);
void report_csv(FILE *f, const struct run_result *res, size_t nres);

/* The before/after of two runs. */
void report_diff_text(FILE *f, const struct run_result *a, const struct run_result *b,
                      const struct report_opts *o);
void report_diff_json(FILE *f, const struct run_result *a, const struct run_result *b);

/* A device's gaps, longest first (ties: earlier first); the first *n of
 * them, *n = max (0: all).  The caller frees the array; NULL if no memory. */
const struct gap **gaps_longest_first(const struct device_result *d, size_t max, size_t *n);

/* --color=auto|always|never into *color (auto leaves it); -1 if bad. */
int report_color_arg(const char *v, int *color);

/* A phase row's name ("unaccounted" for the GPU phase's uncovered part). */
const char *phase_label(const struct run *r, const struct phase_row *row, size_t *len);
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

/* Pieces of the reports that other outputs (simulate) print the same way:
 * a stage's statistics as JSON, idle by cause as a JSON object, and idle
 * by cause as text ("synthesis 1.2 s (80%) · queue ..."). */
void report_stage_json(FILE *f, const struct stage_stats *s);
void report_causes_json(FILE *f, const int64_t *by);
void report_causes_text(FILE *f, const int64_t *by, int64_t idle);
/* The advice in two lines of text (the second may be empty), as the text
 * report prints them; returns how many leading bytes of the first to
 * emphasise ("run 2 syntheses at once"), 0 for none. */
int report_advice_lines(const struct run_result *res, char *l1, size_t n1, char *l2, size_t n2);

#endif /* REPORT_H */
