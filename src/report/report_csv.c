/*
 * report_csv.c -- `analyze --csv`: one row per unit with its six
 * timestamps and its stage times, in seconds; empty where absent; then its
 * kind, its phases and marks, and how its log spelled CHAN_SEND.
 * Text fields are quoted per RFC 4180 when they need it.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

static void csv_str(FILE *f, const char *s, size_t n)
{
    int quote = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r')
            quote = 1;
    if (!quote) {
        fwrite(s, 1, n, f);
        return;
    }
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            fputc('"', f);
        fputc(s[i], f);
    }
    fputc('"', f);
}

/* Seconds with all nine decimals, exact: an epoch-based time
 * (1718000863.5 s) keeps its nanoseconds, which a double would not. */
static void secs9(FILE *f, int64_t ns)
{
    uint64_t m = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
    fprintf(f, "%s%llu.%09llu", ns < 0 ? "-" : "", (unsigned long long)(m / 1000000000u),
            (unsigned long long)(m % 1000000000u));
}

static void t_or_empty(FILE *f, int64_t t)
{
    if (t != T_NONE)
        secs9(f, t);
    fputc(',', f);
}

static void d_or_empty(FILE *f, int64_t a, int64_t b)
{
    if (a != T_NONE && b != T_NONE)
        secs9(f, b - a);
}

/* A unit's phases ("KERNEL:12.1:12.125;...": name, start and end in
 * seconds) and marks ("GPU_FINALIZE:12.13;..."), two cells. */
static void phases_cells(FILE *f, const struct run *r, uint32_t u, struct uphase **up, size_t *cap)
{
    size_t n = unit_phases(r, u, up, cap);
    if (n == (size_t)-1)
        n = 0;
    for (int marks = 0; marks < 2; marks++) {
        int any = 0;
        for (size_t i = 0; i < n; i++) {
            const struct uphase *p = &(*up)[i];
            if (!!p->mark != marks)
                continue;
            size_t len;
            const char *name = uphase_name(r, p, &len);
            fputs(any ? ";" : "", f);
            csv_str(f, name, len); /* names are words: never quoted */
            fputc(':', f);
            secs9(f, p->start);
            if (!marks) {
                fputc(':', f);
                secs9(f, p->end);
            }
            any = 1;
        }
        if (!marks)
            fputc(',', f);
    }
}

void report_csv(FILE *f, const struct run_result *res, size_t nres)
{
    fputs("source,run,job,partition,device,worker,status,synth_start,synth_end,chan_send,"
          "gpu_pickup,gpu_start,gpu_end,synthesis,handoff,queue,prep,gpu,kind,phases,marks,chan_send_as\n",
          f);
    struct uphase *up = NULL;
    size_t upcap = 0;
    for (size_t i = 0; i < nres; i++) {
        const struct run *r = res[i].run;
        for (size_t k = 0; k < r->nunits; k++) {
            const struct unit *u = &r->units[k];
            csv_str(f, r->source, strlen(r->source));
            fprintf(f, ",%d,", r->index);
            csv_str(f, r->jobs[u->job].id, r->jobs[u->job].len);
            fputc(',', f);
            if (u->partition >= 0)
                fprintf(f, "%d", u->partition);
            fprintf(f, ",%d,", u->device);
            if (u->worker >= 0)
                fprintf(f, "%d", u->worker);
            const char *status = u->flags & U_CONTRA ? "inconsistent"
                                 : u->t[EV_GPU_END] == T_NONE ? "in_flight"
                                                              : "complete";
            fprintf(f, ",%s,", status);
            for (int e = 0; e < EV_N; e++)
                t_or_empty(f, u->t[e]);
            int64_t ready = u->t[EV_CHAN_SEND] != T_NONE ? u->t[EV_CHAN_SEND] : u->t[EV_SYNTH_END];
            d_or_empty(f, u->t[EV_SYNTH_START], u->t[EV_SYNTH_END]);
            fputc(',', f);
            d_or_empty(f, u->t[EV_SYNTH_END], u->t[EV_CHAN_SEND]);
            fputc(',', f);
            d_or_empty(f, ready, u->t[EV_GPU_PICKUP]);
            fputc(',', f);
            d_or_empty(f, u->t[EV_GPU_PICKUP], u->t[EV_GPU_START]);
            fputc(',', f);
            d_or_empty(f, u->t[EV_GPU_START], u->t[EV_GPU_END]);
            fputc(',', f);
            size_t kl;
            const char *kind = unit_attr(r, (uint32_t)k, "kind", &kl);
            if (kind)
                csv_str(f, kind, kl);
            fputc(',', f);
            phases_cells(f, r, (uint32_t)k, &up, &upcap);
            fprintf(f, ",%s\n", u->t[EV_CHAN_SEND] == T_NONE ? "" : u->flags & U_QUEUE ? "GPU_QUEUE" : "CHAN_SEND");
        }
    }
    free(up);
}
