/*
 * report.h -- the analysis as a person reads it (terminal), as a program
 * reads it (JSON, documented in docs/json.md), and one row per unit (CSV).
 * Reports only print: every figure comes from a run_result.
 */
#ifndef REPORT_H
#define REPORT_H

#include "analyze.h"
#include "explain.h"
#include "fmt.h"
#include "model.h"
#include "sim.h"

#include <stdio.h>

struct report_opts {
    int color;     /* ANSI colour (a TTY) */
    int gaps;      /* list the idle gaps, longest first; 0: none */
    size_t max_gaps;
    int chart;     /* draw the waterfall in the terminal, this many unit rows (0: no chart) */
    int width;     /* the terminal's columns */
    /* draws the chart where the text report has it (the command gives the
     * view: reports sit below the views and do not call them) */
    void (*draw_chart)(FILE *f, const struct run_result *res, int width, int rows, int color);
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




/* Pieces of the reports that other outputs (simulate) print the same way:
 * a stage's statistics as JSON, idle by cause as a JSON object, and idle
 * by cause as text ("synthesis 1.2 s (80%) · queue ..."). */
void report_stage_json(FILE *f, const struct stage_stats *s);
void report_causes_json(FILE *f, const int64_t *by);
void report_causes_text(FILE *f, const int64_t *by, int64_t idle);

/* `waterfall simulate`'s output: the calibration (from a trace, or the
 * parameters), and one simulated point or a sweep's points. */
/* simulate --memory: what fits (cmd_simulate.c) */
struct sim_memory {
    double budget, base, per_synthesis; /* bytes */
    int max_concurrency;                /* base + C x per_synthesis <= budget */
    int asked;                          /* the concurrency before the cap */
    const unsigned char *nofit;         /* each point: its syntheses would not fit */
};
struct sim_report {
    const char *from;              /* the trace calibrated from, or NULL */
    const struct sim_params *calib; /* as calibrated */
    const struct sim_fit *fit;
    const struct sim_params *params; /* each point's */
    const struct sim_out *outs;      /* each point's result */
    const double *vals;              /* each point's knob value */
    size_t npts, best;
    int ranked;                      /* the sweep ranks its points (not a workload's sweep) */
    unsigned long long seed;
    const char *knob;                /* the swept knob, or NULL: one point */
    /* from a trace: the measured run, its setting, and the simulation at
     * that setting (NULL: none), held against each other */
    const struct run_result *measured;
    const struct sim_params *meas_params;
    const struct sim_out *check;
    const struct sim_memory *mem;    /* --memory, or NULL */
};
void report_sim_text(FILE *f, const struct sim_report *s, int color);
void report_sim_json(FILE *f, const struct sim_report *s);

#endif /* REPORT_H */
