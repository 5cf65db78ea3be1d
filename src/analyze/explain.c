/*
 * explain.c -- the findings in words: the bottleneck's sentence, the
 * advice, the CPU section's lines and what fills the GPU phase, as the
 * text report and the HTML summary both show them (explain.h).
 */
#include "explain.h"

#include "fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Why the cores limit throughput, in a clause. */
static void cpu_evidence(char *buf, size_t n, const struct run_result *res)
{
    const struct cpu_result *c = &res->cpu;
    size_t k = 0;
    buf[0] = 0;
    if (c->source == CPU_SRC_SAMPLES) {
        if (c->synth_contended)
            k += (size_t)snprintf(buf + k, n - k, "synthesis got %.0f%% of the core it wanted", 100 * c->synth.used / c->synth.wanted);
        if (c->gpu_contended && k < n)
            k += (size_t)snprintf(buf + k, n - k, "%sthe GPU workers got %.0f%% of the core they wanted in the GPU phase",
                                  k ? ", " : "", 100 * c->gpu.used / c->gpu.wanted);
        if (k < n)
            snprintf(buf + k, n - k, " (the recorder's CPU samples)");
        return;
    }
    if (c->synth_contended)
        k += (size_t)snprintf(buf + k, n - k, "synthesis takes %.2fx its time alone beside other syntheses", c->synth_slower);
    if (c->gpu_contended && k < n)
        k += (size_t)snprintf(buf + k, n - k, "%sthe GPU phase takes %.2fx its time alone beside syntheses", k ? ", " : "",
                              c->gpu_slower);
    if (k < n)
        snprintf(buf + k, n - k, " (timing)");
}

/* Is row i an enclosing row of row k (duration lines' nesting)? */
static int encloses(const struct phase_result *ph, int i, int k)
{
    for (int p = k >= 0 ? ph->rows[k].parent : -1, guard = 0; p >= 0 && guard < 16; p = ph->rows[p].parent, guard++)
        if (p == i)
            return 1;
    return 0;
}

/* What fills the GPU phase besides the kernels: its sub-phases' shares.
 * Nested duration phases (analyze.h) are named at the level where they
 * stop holding the kernels (mutex_wait and pre_lock_cpu, not their
 * total_start_fn), and barrier_wait, inside gpu_total, as the wait it is. */
const char *report_phase_fill(char *buf, size_t n, const struct run_result *res)
{
    const struct phase_result *ph = &res->phase;
    size_t k = 0;
    int ki = -1;
    buf[0] = 0;
    for (size_t i = 0; i < ph->nrows; i++)
        if (phase_row_is_kernel(res, &ph->rows[i]))
            ki = (int)i;
    for (size_t i = 0; i < ph->nrows && k < n; i++) {
        const struct phase_row *row = &ph->rows[i];
        size_t len;
        const char *name = phase_label(res->run, row, &len), *why = "";
        if (row->within != WITHIN_GPU || (int)i == ki || encloses(ph, (int)i, ki))
            continue;
        if (row->parent >= 0 && !encloses(ph, row->parent, ki)) {
            if (row->parent != ki || len != 12 || memcmp(name, "barrier_wait", 12))
                continue;
            why = " (inside gpu_total: the GPU waits for prep_msm)";
        }
        if (res->run->dur.placed && len == 10 && !memcmp(name, "mutex_wait", 10))
            why = " (waiting for another call's kernels)";
        k += (size_t)snprintf(buf + k, n - k, "%s%.*s %.1f%%%s", k ? ", " : "", (int)len, name, 100 * row->share,
                              why);
    }
    if (k < n)
        snprintf(buf + k, n - k, "%sof the GPU phase's time", k ? " " : "unknown (no sub-phases) ");
    return buf;
}

/* The kernels' share of the window as the bottleneck rule took it: the
 * figure, or, where some of it is a floor (calls not given), the floor
 * over all the devices ("at least"). */
static const char *kernels_run(char *buf, size_t n, const struct run_result *res)
{
    if (!isnan(res->kernel_floor))
        snprintf(buf, n, "at least %.1f%%", 100 * res->kernel_floor);
    else
        snprintf(buf, n, "%.1f%%", 100 * res->phase.kernel_utilization);
    return buf;
}

const char *bottleneck_sentence(char *buf, size_t n, const struct run_result *res)
{
    char kr[48];
    char s[32], g[32], q[32], pr[32];
    const struct advice *a = &res->advice;
    switch (res->bottleneck) {
    case BN_GPU:
        /* the GPU phase's sentence where it decided (the floor and the
         * ceiling differed) or no kernel time is known */
        if (!res->bottleneck_on_phase && (res->phase.has_kernel || !isnan(res->kernel_floor)))
            snprintf(buf, n, "gpu: the kernels run %s of the window; only more GPU capacity or faster kernels help",
                     kernels_run(kr, sizeof kr, res));
        else
            snprintf(buf, n, "gpu: the GPU is busy %.1f%% of its window; only more GPU capacity or faster proving helps",
                     100 * res->utilization);
        break;
    case BN_GPU_PHASE: {
        char fill[512];
        report_phase_fill(fill, sizeof fill, res);
        const struct crit_path *c = &res->phase.crit;
        if (c->known && c->host_bound) {
            char k[32], w[32], h[32];
            snprintf(buf, n,
                     "gpu_phase: the GPU phase is busy %.1f%% of the window but its kernels run %s; its critical "
                     "path is on the CPU: kernels %s per unit (gpu_total less its barrier_wait, %s); the phase waits "
                     "for prep_msm + b_g2_msm, %s, on the CPU; the rest of the phase is %s",
                     100 * res->utilization, kernels_run(kr, sizeof kr, res),
                     fmt_dur(k, sizeof k, (c->kernels - c->barrier)), fmt_dur(w, sizeof w, c->barrier),
                     fmt_dur(h, sizeof h, (c->prep + c->bg2)), fill);
        } else {
            snprintf(buf, n,
                     "gpu_phase: the GPU phase is busy %.1f%% of the window but its kernels run %s; the rest of the "
                     "phase is %s",
                     100 * res->utilization, kernels_run(kr, sizeof kr, res), fill);
        }
        break;
    }
    case BN_SYNTHESIS:
        if (a->valid)
            snprintf(buf, n,
                     "synthesis: the GPU waits for synthesis, which takes %s per unit with at most %d at once, "
                     "against %s of effective GPU time per unit (busy / units; workers overlap)",
                     fmt_dur(s, sizeof s, a->synth_mean), res->synth_max,
                     fmt_dur(g, sizeof g, 1.0 / a->rate));
        else
            snprintf(buf, n, "synthesis: the GPU waits for units still in synthesis");
        break;
    case BN_DISPATCH:
        snprintf(buf, n,
                 "dispatch: units are ready but the GPU waits for them to be picked up (%s) or prepared (%s)",
                 fmt_dur(q, sizeof q, (double)res->by_cause[CAUSE_QUEUE]),
                 fmt_dur(pr, sizeof pr, (double)res->by_cause[CAUSE_PREP]));
        break;
    case BN_INPUT:
        snprintf(buf, n, "input: while the GPU idles nothing is in flight: the pipeline is not fed enough work");
        break;
    case BN_CPU: {
        char ev[320];
        cpu_evidence(ev, sizeof ev, res);
        snprintf(buf, n, "cpu: the cores limit throughput: %s; more syntheses at once cannot help%s", ev,
                 res->cpu.gpu_contended ? ", and the GPU phase's busy time holds waiting for a core" : "");
        break;
    }
    case BN_MEMORY:
    case BN_WAITING: {
        const struct cpu_result *c = &res->cpu;
        const struct cpu_extra *e = c->synth_contended ? &c->synth_extra : &c->gpu_extra;
        const char *who = c->synth_contended ? "synthesis" : "the GPU phase";
        char x[32], y[32];
        if (res->bottleneck == BN_MEMORY)
            snprintf(buf, n,
                     "memory: %s is %.2fx slower beside others than alone, and needs %.2fx the CPU time per unit "
                     "(+%s) without waiting for a core: memory bandwidth or caches; more syntheses at once "
                     "cannot help",
                     who, e->slower, e->cpu_grows, fmt_dur(x, sizeof x, e->cpu * 1e9));
        else
            snprintf(buf, n,
                     "waiting: %s is %.2fx slower beside others than alone, with its CPU time per unit flat "
                     "(%.2fx) and no wait for a core: it waits off the CPU (a lock, I/O, page faults), %s more "
                     "per unit (of %s beside others); more syntheses at once cannot help",
                     who, e->slower, e->cpu_grows, fmt_dur(x, sizeof x, e->off * 1e9),
                     fmt_dur(y, sizeof y, e->beside_s * 1e9));
        break;
    }
    default:
        snprintf(buf, n, "unknown: no unit completed on a GPU");
    }
    return buf;
}

/* Where the pipeline's CPU work fits the cores at the GPU's rate: what
 * keeps it from them.  Fewer syntheses only where the pipeline wants more
 * cores at once than there are, and never against the simulation (one
 * fewer simulated slower). */
static const char *cpu_fits_tail(const struct advice *a)
{
    if (a->demand <= a->cores + 0.05)
        return "and wants fewer cores than that at once: other work takes them; find it";
    if (a->sim_done && a->needed >= a->current)
        return "but not all at once, and fewer syntheses at once would be slower (simulated): "
               "other work may take the cores; find it";
    return "but not all at once: fewer syntheses at once";
}

/* The cpu bottleneck's advice: never more syntheses.  Less CPU time per
 * synthesis (what would let the cores keep the GPU at its rate), or cores
 * reserved for the GPU workers; and the simulation at the current
 * concurrency and one lower, where a contention model is known. */
static int cpu_advice_lines(const struct run_result *res, char *l1, size_t n1, char *l2, size_t n2)
{
    const struct advice *a = &res->advice;
    char x[32], y[32];
    size_t k = 0;
    int emph = 0;
    if (a->sim_done && a->needed < a->current) {
        /* the simulation's least concurrency within 2% of the best s per
         * job, never above the current one (the JSON's synthesis_concurrency) */
        emph = snprintf(l1, n1, "run %d synthes%s at once, not more", a->needed, a->needed > 1 ? "es" : "is");
        k = (size_t)emph;
        k += (size_t)snprintf(l1 + k, n1 - k, " (now %d): as fast with less CPU, simulated; ", a->current);
    } else {
        k += (size_t)snprintf(l1 + k, n1 - k, "no more syntheses at once (now %d); ", a->current);
    }
    if (k < n1 && a->cores > 0 && a->synth_cpu_target > 0 && a->synth_cpu_target < a->synth_cpu_unit)
        k += (size_t)snprintf(l1 + k, n1 - k,
                              "cut synthesis CPU time per unit from %s to %s (-%.0f%%), so that %g cores keep the GPU "
                              "busy",
                              fmt_dur(x, sizeof x, a->synth_cpu_unit), fmt_dur(y, sizeof y, a->synth_cpu_target),
                              100 * (1 - a->synth_cpu_target / a->synth_cpu_unit), a->cores);
    else if (k < n1 && a->cores > 0 && a->synth_cpu_target >= a->synth_cpu_unit && a->synth_cpu_unit > 0)
        k += (size_t)snprintf(l1 + k, n1 - k,
                              "the pipeline's CPU work per unit (%s of synthesis, %s of the GPU workers' host work) "
                              "fits on the %g cores at the GPU's rate, %s",
                              fmt_dur(x, sizeof x, a->synth_cpu_unit), fmt_dur(y, sizeof y, a->host_cpu_unit), a->cores,
                              cpu_fits_tail(a));
    else if (k < n1 && a->cores > 0 && a->synth_cpu_target <= 0)
        k += (size_t)snprintf(l1 + k, n1 - k,
                              "the GPU workers' host work alone (%s of CPU per unit) needs more than the %g cores at "
                              "the GPU's rate: cut it",
                              fmt_dur(x, sizeof x, a->host_cpu_unit), a->cores);
    else if (k < n1)
        k += (size_t)snprintf(l1 + k, n1 - k, "cut the CPU time per synthesis (now %s per unit)",
                              fmt_dur(x, sizeof x, a->synth_cpu_unit));
    if (k < n1 && a->reserve_cores > 0)
        snprintf(l1 + k, n1 - k, ", or reserve %d core%s for the GPU workers", a->reserve_cores,
                 a->reserve_cores > 1 ? "s" : "");
    if (a->sim_done) {
        k = (size_t)snprintf(l2, n2, "SIMULATED, CPU contention %s: at %d synthes%s %.1f%% and %s per job",
                             a->contention == 2 ? "measured from the threads' CPU time" : "fitted from the timing",
                             a->current, a->current > 1 ? "es" : "is", 100 * a->sim_util[0],
                             fmt_dur(x, sizeof x, a->sim_spj[0]));
        if (a->current > 1 && k < n2)
            snprintf(l2 + k, n2 - k, ", at %d %.1f%% and %s per job", a->current - 1, 100 * a->sim_util[1],
                     fmt_dur(y, sizeof y, a->sim_spj[1]));
    }
    else if (!strcmp(a->model, "simulation"))
        snprintf(l2, n2, "SIMULATED without a contention model (none could be measured or fitted from this run): "
                         "its figures would leave the contention out, so none are shown");
    else
        snprintf(l2, n2, "nothing simulated: no contention model could be measured or fitted from this run");
    return emph;
}

/* The simulation's model of work that grows with the syntheses at once,
 * and what it gave: "SIMULATED with synthesis CPU time per unit by
 * concurrency as its contention model (1.00x at 1 · 2.05x at 2, +1.05x per
 * synthesis beyond): at 1 ... per job, at 2 (now) ...". */
static void growth_text(const struct advice *a, char *buf, size_t n)
{
    char x[32], y[32];
    size_t k = (size_t)snprintf(buf, n, "SIMULATED with %s %s by concurrency as its contention model (",
                                a->growth_role ? "the GPU phase's" : "synthesis",
                                a->growth_kind == KIND_MEMORY ? "CPU time per unit"
                                                              : "time per unit off the run queue (its CPU time "
                                                                "per unit flat)");
    /* a line's worth: the first points and the last (the JSON has all) */
    for (int i = 0; i < a->growth_n && k < n; i++) {
        if (a->growth_n > 8 && i >= 6 && i < a->growth_n - 1) {
            if (i == 6)
                k += (size_t)snprintf(buf + k, n - k, " · …");
            continue;
        }
        k += (size_t)snprintf(buf + k, n - k, "%s%.2fx at %d", i ? " · " : "", a->growth_w[i], a->growth_k[i]);
    }
    if (k < n)
        k += (size_t)snprintf(buf + k, n - k, ", +%.2fx per synthesis beyond): at %d %.1f%% and %s per job", a->growth_slope,
                              a->needed, 100 * a->growth_util[0], fmt_dur(x, sizeof x, a->growth_spj[0]));
    if (k < n && a->needed != a->current)
        snprintf(buf + k, n - k, ", at %d (now) %.1f%% and %s", a->current, 100 * a->growth_util[1],
                 fmt_dur(y, sizeof y, a->growth_spj[1]));
}

/* The memory and waiting bottlenecks' advice: never more syntheses; the
 * simulation's best under the growth of the work it measured (CPU time per
 * unit by concurrency), or without that the concurrency measured fastest
 * (and the simulation's, never above it); and what would have to change,
 * with the figures that show it. */
static int contention_advice_lines(const struct run_result *res, char *l1, size_t n1, char *l2, size_t n2)
{
    const struct advice *a = &res->advice;
    const struct cpu_result *c = &res->cpu;
    const struct cpu_extra *e = c->synth_contended ? &c->synth_extra : &c->gpu_extra;
    const struct cpu_row *rows = c->synth_contended ? c->synth_cpu_by : c->gpu_cpu_by;
    size_t nr = c->synth_contended ? c->nsynth_cpu_by : c->ngpu_cpu_by;
    char x[32], y[32];
    int emph = 0;
    size_t k;
    int best = a->needed < a->current ? a->needed : a->current;
    if (best < a->current) {
        emph = snprintf(l1, n1, "run %d synthes%s at once, not more", best, best > 1 ? "es" : "is");
        k = (size_t)emph;
        k += (size_t)snprintf(l1 + k, n1 - k, " (now %d; %s); ", a->current,
                              a->growth_n                       ? "the simulation's best"
                              : !strcmp(a->model, "simulation") ? "simulated, never above the fastest measured"
                                                                : "the fastest measured per unit of time");
    } else {
        k = (size_t)snprintf(l1, n1, "no more syntheses at once (now %d); ", a->current);
    }
    double alone = nr && rows[0].k == 1 ? rows[0].cpu_s : NAN;
    if (k < n1 && res->bottleneck == BN_MEMORY)
        snprintf(l1 + k, n1 - k,
                 "cut the memory traffic per unit: beside others each unit takes %s of CPU time against %s alone "
                 "(%.2fx), the same work in more cycles",
                 fmt_dur(x, sizeof x, (alone + e->cpu) * 1e9), fmt_dur(y, sizeof y, alone * 1e9), e->cpu_grows);
    else if (k < n1)
        snprintf(l1 + k, n1 - k,
                 "find the lock or resource the units wait on: beside others each unit spends %s more off the CPU "
                 "than alone, %.0f%% of its time",
                 fmt_dur(x, sizeof x, e->off * 1e9), e->beside_s > 0 ? 100 * e->off / e->beside_s : 0.0);
    if (a->growth_n) {
        growth_text(a, l2, n2);
        return emph;
    }
    snprintf(l2, n2, "CPU time per unit by concurrency from the recorder's samples; %s",
             !strcmp(a->model, "simulation") ? "SIMULATED best concurrency, capped at the fastest measured"
                                             : "the fastest measured: the concurrency whose units complete most per "
                                               "unit of time (k over the stage's time at k)");
    return emph;
}

int report_advice_lines(const struct run_result *res, char *l1, size_t n1, char *l2, size_t n2)
{
    const struct advice *a = &res->advice;
    const char *how = "formula min(1, c*g/s), no CPU contention";
    char s[32], g[32];
    int emph = 0;
    l1[0] = l2[0] = 0;
    if (!a->valid) {
        snprintf(l1, n1, "none: needs units with both synthesis times and GPU times");
    } else if (res->bottleneck == BN_CPU) {
        return cpu_advice_lines(res, l1, n1, l2, n2);
    } else if (res->bottleneck == BN_MEMORY || res->bottleneck == BN_WAITING) {
        return contention_advice_lines(res, l1, n1, l2, n2);
    } else if (!strcmp(a->model, "simulation")) {
        if (a->needed > a->current) {
            emph = snprintf(l1, n1, "run %d syntheses at once", a->needed);
            snprintf(l1 + emph, n1 - (size_t)emph, " (now %d): GPU utilization %.1f%% measured -> %.0f%% simulated",
                     a->current, 100 * res->utilization, 100 * a->predicted_needed);
        } else
            snprintf(l1, n1, "synthesis concurrency %d is enough: the simulation finds no faster setting "
                             "(%d would give %.0f%%)",
                     a->current, a->needed, 100 * a->predicted_needed);
        snprintf(l2, n2, "SIMULATED: a discrete-event simulation calibrated from this run, CPU contention %s; "
                         "the least concurrency within 2%% of the best s per job (waterfall simulate --sweep shows it)",
                 a->contention == 2 ? "measured from the threads' CPU time"
                 : a->contention    ? "fitted"
                                    : "not identifiable here, left out");
    } else if (res->bottleneck == BN_GPU_PHASE) {
        const struct phase_row *big = NULL;
        size_t len = 0;
        const char *name = NULL;
        for (size_t i = 0; i < res->phase.nrows; i++) {
            const struct phase_row *row = &res->phase.rows[i];
            size_t ln;
            const char *nm = phase_label(res->run, row, &ln);
            if (row->within == WITHIN_GPU && !phase_row_is_kernel(res, row) && row->parent < 0 &&
                (!big || row->total > big->total))
                big = row, name = nm, len = ln;
        }
        const struct crit_path *c = &res->phase.crit;
        if (c->known && c->host_bound) {
            char h[32], k[32];
            snprintf(l1, n1, "none for synthesis: overlap prep_msm + b_g2_msm (%s per unit on the CPU) with the next "
                             "unit's kernels (%s), or cut them: less CPU time per unit in prep_msm (%.0f%%) and "
                             "b_g2_msm (%.0f%%)",
                     fmt_dur(h, sizeof h, (c->prep + c->bg2)),
                     fmt_dur(k, sizeof k, (c->kernels - c->barrier)), 100 * c->prep / (c->prep + c->bg2),
                     100 * c->bg2 / (c->prep + c->bg2));
        } else if (big)
            snprintf(l1, n1, "none for synthesis: shorten the GPU phase's work outside the kernels, or overlap it with "
                             "the next unit's kernels; the largest is %.*s (%s per unit, %.1f%% of the phase)",
                     (int)len, name, fmt_dur(g, sizeof g, big->st.mean), 100 * big->share);
        else
            snprintf(l1, n1, "none for synthesis: shorten the GPU phase's work outside the kernels");
        if (a->workers_done) {
            char x[32], y[32];
            char kr[48];
            snprintf(l2, n2, "SIMULATED, the device held for the kernels only: %d GPU worker%s per device would give "
                             "%s per job, against %s with %d (kernel utilization %s now, %.1f%% for the GPU phase)",
                     a->workers_now + 1, a->workers_now + 1 == 1 ? "" : "s", fmt_dur(x, sizeof x, a->workers_spj[1]),
                     fmt_dur(y, sizeof y, a->workers_spj[0]), a->workers_now, kernels_run(kr, sizeof kr, res),
                     100 * res->utilization);
        } else {
            char kr[48];
            snprintf(l2, n2, "kernel utilization %s against %.1f%% for the GPU phase: more syntheses cannot fill "
                             "the kernels' idle time inside the phase",
                     kernels_run(kr, sizeof kr, res), 100 * res->utilization);
        }
    } else if (res->bottleneck == BN_GPU) {
        snprintf(l1, n1, "none for synthesis: the GPU is the bottleneck (the formula, with g = %s of effective GPU "
                         "time per unit, busy / units, and s = %s of synthesis per unit, would ask for %d at once; "
                         "%d ran)",
                 fmt_dur(g, sizeof g, 1.0 / a->rate), fmt_dur(s, sizeof s, a->synth_mean), a->needed, a->current);
    } else if (a->needed > a->current) {
        emph = snprintf(l1, n1, "run %d syntheses at once", a->needed);
        snprintf(l1 + emph, n1 - (size_t)emph, " (now %d): GPU utilization %.1f%% measured -> %.0f%% predicted",
                 a->current, 100 * res->utilization, 100 * a->predicted_needed);
        size_t k = (size_t)snprintf(l2, n2, "%s; g = %s of effective GPU time per unit (busy / units), s = %s of synthesis per unit", how,
                                    fmt_dur(g, sizeof g, 1.0 / a->rate), fmt_dur(s, sizeof s, a->synth_mean));
        if (a->worker_cap < 1 - 1e-9 && k < n2)
            snprintf(l2 + k, n2 - k, "; the GPU workers' prep and proving allow at most %.0f%%",
                     100 * a->worker_cap);
    } else {
        snprintf(l1, n1, "synthesis concurrency %d is enough by the formula (it needs %d); "
                         "if utilization is still low, look at CPU contention and dispatch",
                 a->current, a->needed);
        snprintf(l2, n2, "%s; g = %s, s = %s", how, fmt_dur(g, sizeof g, 1.0 / a->rate),
                 fmt_dur(s, sizeof s, a->synth_mean));
    }
    return emph;
}

static size_t role_line(char *b, size_t n, const char *who, const struct cpu_role *ro)
{
    size_t k = (size_t)snprintf(b, n, "%s used %.0f%% of a core", who, 100 * ro->used);
    if (k < n)
        k += (size_t)(isnan(ro->wanted) ? snprintf(b + k, n - k, ", wanted unknown (no run-queue wait)")
                                         : snprintf(b + k, n - k, ", wanted %.0f%%", 100 * ro->wanted));
    if (k < n && !isnan(ro->starvation))
        k += (size_t)snprintf(b + k, n - k, " (starved %.0f%%)", 100 * ro->starvation);
    return k < n ? k : n - 1;
}

static void conc_line(char *b, size_t n, const char *what, const struct conc_row *rows, size_t nr, double slower)
{
    char d[32];
    int gpu = what[0] == 'G'; /* a GPU phase's k: the syntheses beside it, plus one */
    int kinds = nr && rows[0].kind; /* a run of several kinds: each compared with itself */
    size_t k = (size_t)snprintf(b, n, gpu ? "%s by %s1 + the syntheses beside it:" : "%s by %ssyntheses at once:",
                                what, kinds ? "kind, then " : "");
    size_t most = kinds ? 12 : 8;
    for (size_t i = 0; i < nr && i < most && k < n; i++) {
        int first = !i || (kinds && (rows[i].klen != rows[i - 1].klen ||
                                     memcmp(rows[i].kind, rows[i - 1].kind, rows[i].klen) != 0));
        if (kinds && first) {
            const char *kn = rows[i].klen ? rows[i].kind : "(no kind)";
            int kl = rows[i].klen > 32 ? 32 : (int)rows[i].klen;
            if (!rows[i].klen)
                kl = 9;
            k += (size_t)snprintf(b + k, n - k, "%s %.*s:", i ? ";" : "", kl, kn);
            if (k >= n)
                break;
        }
        k += (size_t)snprintf(b + k, n - k, "%s %d: %s (%llu)", first ? "" : " ·", rows[i].k,
                              fmt_dur(d, sizeof d, rows[i].mean), (unsigned long long)rows[i].units);
    }
    if (nr > most && k < n)
        k += (size_t)snprintf(b + k, n - k, " · ... (%zu more)", nr - most);
    if (!isnan(slower) && k < n)
        snprintf(b + k, n - k, "; beside others %.2fx alone", slower);
}

/* Appends the CPU time per unit by k (samples) to a stage-time line. */
static void cpu_conc_line(char *b, size_t n, const struct cpu_row *rows, size_t nr)
{
    char d[32];
    size_t k = strlen(b);
    if (k < n)
        k += (size_t)snprintf(b + k, n - k, "; CPU time per unit:");
    for (size_t i = 0; i < nr && i < 8 && k < n; i++)
        k += (size_t)snprintf(b + k, n - k, "%s %d: %s", i ? " ·" : "", rows[i].k, fmt_dur(d, sizeof d, rows[i].cpu_s * 1e9));
    if (nr > 8 && k < n)
        snprintf(b + k, n - k, " · ...");
}

int report_cpu_lines(const struct cpu_result *c, char *l1, size_t n1, char *l2, size_t n2, char *l3, size_t n3)
{
    size_t k;
    if (c->source == CPU_SRC_SAMPLES && (c->synth.known || c->gpu.known)) {
        k = (size_t)snprintf(l1, n1, "from the recorder's samples: ");
        if (c->synth.known && k < n1)
            k += role_line(l1 + k, n1 - k, "synthesis", &c->synth);
        if (c->gpu.known && k < n1)
            k += role_line(l1 + k, n1 - k, c->synth.known ? "; GPU workers" : "GPU workers", &c->gpu);
    } else {
        k = (size_t)snprintf(l1, n1, "no CPU samples: from the timing alone");
    }
    int emph = 0;
    if (k < n1) {
        k += (size_t)snprintf(l1 + k, n1 - k, "; ");
        emph = (int)k;
        const char *what = !c->contention                ? "no contention found"
                           : c->source != CPU_SRC_SAMPLES ? "contention: slower beside others; its kind (cores, memory, "
                                                            "waiting) cannot be told without samples (record with "
                                                            "libwaterfall, CPU sampling on)"
                           : c->kind == KIND_MEMORY  ? "contention: memory bandwidth or caches (more CPU time per unit "
                                                       "beside others, no wait for a core)"
                           : c->kind == KIND_WAITING ? "contention: waiting off the CPU (a lock, I/O, page faults: "
                                                       "CPU time per unit flat, no wait for a core)"
                                                     : "contention: the cores limit throughput";
        snprintf(l1 + k, n1 - k, "%s", what);
    }
    l2[0] = l3[0] = 0;
    if (c->nsynth_by)
        conc_line(l2, n2, "synthesis", c->synth_by, c->nsynth_by, c->synth_slower);
    if (c->nsynth_cpu_by)
        cpu_conc_line(l2, n2, c->synth_cpu_by, c->nsynth_cpu_by);
    if (c->ngpu_by) /* k counts the GPU phase itself, as a synthesis counts itself */
        conc_line(l3, n3, "GPU phase", c->gpu_by, c->ngpu_by, c->gpu_slower);
    if (c->ngpu_cpu_by)
        cpu_conc_line(l3, n3, c->gpu_cpu_by, c->ngpu_cpu_by);
    return c->contention ? emph : -1;
}

const char *idle_sentence(char *buf, size_t n, const struct run_result *res)
{
    char b1[32], b2[32];
    size_t ngaps = 0;
    int64_t longest = 0;
    for (size_t i = 0; i < res->ndev; i++) {
        ngaps += res->dev[i].ngaps;
        if (res->dev[i].longest_gap > longest)
            longest = res->dev[i].longest_gap;
    }
    snprintf(buf, n, "%s in %zu gap%s (longest %s)", fmt_dur(b1, sizeof b1, (double)res->idle), ngaps, ngaps == 1 ? "" : "s",
             fmt_dur(b2, sizeof b2, (double)longest));
    return buf;
}

/* Bytes in the unit that keeps three figures or fewer before the point. */
static const char *fmt_size(char *b, size_t n, double v)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double a = fabs(v);
    while (a >= 1024 && u < 4)
        a /= 1024, v /= 1024, u++;
    snprintf(b, n, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
    return b;
}

const char *memory_sentence(char *buf, size_t n, const struct mem_use *m)
{
    char a[32], b[32], c[32], d[32];
    if (!m || !m->sampled)
        return NULL;
    size_t k = (size_t)snprintf(buf, n, "from the recorder's samples: resident %s at peak, %s base",
                                fmt_size(a, sizeof a, (double)m->peak_bytes), fmt_size(b, sizeof b, (double)m->base_bytes));
    if (k < n)
        k += (size_t)(isnan(m->per_synthesis)
                          ? snprintf(buf + k, n - k, "; per synthesis in flight unknown (one count in flight only)")
                      : m->per_synthesis < 0 /* resident memory fell as more ran: no cost per synthesis seen */
                          ? snprintf(buf + k, n - k, "; no growth per synthesis in flight (slope %s over %llu samples)",
                                     fmt_size(c, sizeof c, m->per_synthesis), (unsigned long long)m->samples)
                          : snprintf(buf + k, n - k, "; %s per synthesis in flight (slope over %llu samples)",
                                     fmt_size(c, sizeof c, m->per_synthesis), (unsigned long long)m->samples));
    if (k < n && m->avail_known)
        snprintf(buf + k, n - k, "; the system's available memory at least %s",
                 fmt_size(d, sizeof d, (double)m->avail_min_bytes));
    return buf;
}
