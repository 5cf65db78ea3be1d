/*
 * cmd_diff.c -- `waterfall diff A B`: two runs side by side, with the
 * change: the before and after of a fix.
 */
#include "args.h"
#include "cmds.h"
#include "load.h"
#include "report.h"
#include "wf_exit.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void diff_usage(FILE *f)
{
    fprintf(f,
            "usage: waterfall diff [options] A B\n"
            "       waterfall diff [options] LOG      (a log holding two runs or more: the first against the last)\n"
            "  Compares utilization, s per job, idle by cause and stage p50s.  A file\n"
            "  with several runs contributes its last one (--run-a/--run-b pick another).\n"
            "  --run-a N, --run-b N   which run of A (B) to use, from 1\n"
            "  --json                 both runs and the changes as JSON\n"
            "  --kernel-phase NAME    the GPU sub-phase in which the device computes (default KERNEL)\n"
            "  --consecutive-kernel-delay US  PyTorch traces: HTA's kernel_wait threshold, in the\n"
            "                         trace's µs as HTA's code compares it (default 30)\n"
            "  --stage STAGE=GLOB     PyTorch traces: CPU ranges named GLOB are STAGE's\n"
            "                         (synthesis or prep; repeatable): idle causes by stage\n"
            "  --color=WHEN           auto, always, never\n");
}

static const struct run_result *pick(const struct loaded *l, const char *source, int want)
{
    const struct run_result *last = NULL;
    for (size_t i = 0; i < l->nres; i++)
        if (strcmp(l->res[i].run->source, source) == 0) {
            if (want > 0 && l->res[i].run->index == want)
                return &l->res[i];
            last = &l->res[i];
        }
    return want > 0 ? NULL : last;
}

int cmd_diff(int argc, char **argv)
{
    enum { O_JSON = 256, O_COLOR, O_RA, O_RB, O_KPHASE, O_KDELAY, O_STAGE };
    static const struct option longopts[] = {{"json", no_argument, 0, O_JSON},
                                             {"color", required_argument, 0, O_COLOR},
                                             {"run-a", required_argument, 0, O_RA},
                                             {"run-b", required_argument, 0, O_RB},
                                             {"kernel-phase", required_argument, 0, O_KPHASE},
                                             {"consecutive-kernel-delay", required_argument, 0, O_KDELAY},
                                             {"stage", required_argument, 0, O_STAGE},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    int json = 0, ra = 0, rb = 0, c;
    struct report_opts ro = {.color = isatty(1) && getenv("NO_COLOR") == NULL};
    struct analyze_opts ao = {.keep = KEEP_ALL};
    struct stage_args stages = {0};
    optind = 0; /* 0: a full reset of getopt (glibc), also when called again */
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case O_JSON:
            json = 1;
            break;
        case O_COLOR:
            if (report_color_arg(optarg, &ro.color)) {
                fprintf(stderr, "waterfall diff: --color takes auto, always or never\n");
                return WF_EXIT_USAGE;
            }
            break;
        case O_KPHASE:
            if (kernel_phase_arg(optarg, "diff", &ao.kernel_phase))
                return WF_EXIT_USAGE;
            break;
        case O_KDELAY:
            if (kernel_delay_arg(optarg, "diff", &ao))
                return WF_EXIT_USAGE;
            break;
        case O_STAGE:
            if (stage_arg(optarg, "diff", &stages, &ao))
                return WF_EXIT_USAGE;
            break;
        case O_RA:
        case O_RB: {
            long v;
            if (arg_long("diff", c == O_RA ? "--run-a" : "--run-b", optarg, 1, 1000000, &v))
                return WF_EXIT_USAGE;
            *(c == O_RA ? &ra : &rb) = (int)v;
            break;
        }
        case 'h':
            diff_usage(stdout);
            return WF_EXIT_OK;
        default:
            arg_suggest("waterfall diff", argv, longopts);
            diff_usage(stderr);
            return WF_EXIT_USAGE;
        }
    }
    int n = argc - optind;
    if (n < 1 || n > 2) {
        fprintf(stderr, "waterfall diff: expected A B, or one log with two runs\n");
        diff_usage(stderr);
        return WF_EXIT_USAGE;
    }
    struct loaded l;
    int rc = load_inputs(&l, argv + optind, n, isatty(2), "waterfall diff", &ao);
    if (rc != WF_EXIT_OK || l.nsrc != (size_t)n) {
        loaded_free(&l);
        return rc == WF_EXIT_OK ? WF_EXIT_INPUT : rc;
    }
    const struct run_result *a, *b;
    if (n == 2) {
        a = pick(&l, l.src[0].name, ra);
        b = pick(&l, l.src[1].name, rb);
    } else {
        a = pick(&l, l.src[0].name, ra ? ra : 1);
        b = pick(&l, l.src[0].name, rb);
        if (a == b) {
            fprintf(stderr, "waterfall diff: %s holds one run; give two inputs\n", l.src[0].name);
            loaded_free(&l);
            return WF_EXIT_USAGE;
        }
    }
    if (!a || !b) {
        fprintf(stderr, "waterfall diff: no run %d in %s\n", !a ? ra : rb, !a ? l.src[0].name : l.src[n - 1].name);
        loaded_free(&l);
        return WF_EXIT_USAGE;
    }
    if (json) {
        /* each run's advice in the JSON is analyze's (its default, auto) */
        loaded_advise(&l, -1, 0, "waterfall diff");
        report_diff_json(stdout, a, b);
    }
    else
        report_diff_text(stdout, a, b, &ro);
    rc = loaded_status(&l, rc, fflush(stdout) != 0, "waterfall diff", "writing the report");
    loaded_free(&l);
    return rc;
}
