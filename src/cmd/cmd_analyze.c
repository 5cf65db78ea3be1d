/*
 * cmd_analyze.c -- `waterfall analyze`: where the GPU's time went.
 */
#include "args.h"
#include "cmds.h"
#include "load.h"
#include "render.h"
#include "report.h"
#include "wf_exit.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* The terminal's width: stdout's window, else $COLUMNS, else 100. */
static int terminal_width(void)
{
    struct winsize ws;
    if (isatty(1) && ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
        return ws.ws_col;
    const char *c = getenv("COLUMNS");
    int w = c ? atoi(c) : 0;
    return w > 20 && w < 1000 ? w : 100;
}

static void analyze_usage(FILE *f)
{
    fprintf(f,
            "usage: waterfall analyze [options] FILE...\n"
            "  FILE is a native trace (.wft) or a text log with TIMELINE lines; - is stdin.\n"
            "  Each file is analysed on its own; a log with several runs of the daemon\n"
            "  (the epoch restarting near zero) gives one report per run.\n"
            "  --json           the stable JSON schema (docs/json.md) on stdout\n"
            "  --csv            one row per unit: timestamps and stage times\n"
            "  --gaps[=N]       list idle gaps, longest first (all, or the first N)\n"
            "  --advise=MODEL   auto (default): sim where a CPU contention model is measured (a\n"
            "                   native trace's CPU samples) or fitted (the timing shows contention),\n"
            "                   or where the GPU waits for input (the log's arrivals kept), else\n"
            "                   formula; formula: min(1, c*g/s), no CPU contention; sim: a\n"
            "                   simulation calibrated from the run, CPU contention measured or fitted\n"
            "  --trace-cores=N  the cores of the machine that recorded the input, for the\n"
            "                   contention model and the cpu advice (default: what a native\n"
            "                   trace says, else this machine's)\n"
            "  --kernel-phase=NAME  the sub-phase of the GPU phase in which the device computes\n"
            "                   (NAME_START/NAME_END; default KERNEL): kernel utilization\n"
            "  --consecutive-kernel-delay=US  PyTorch traces: HTA's kernel_wait threshold, in\n"
            "                   the trace's µs as HTA's code compares it (default 30)\n"
            "  --stage=STAGE=GLOB  PyTorch traces: the CPU ranges (cpu_op, user_annotation,\n"
            "                   python_function) whose names match GLOB are STAGE's, synthesis\n"
            "                   or prep (repeatable; the first match wins): each idle instant\n"
            "                   gets its cause, and the bottleneck follows\n"
            "  --chart[=N]      draw the waterfall in the terminal: the devices, then the\n"
            "                   first N units (default 20), as wide as the terminal\n"
            "  --color=WHEN     auto (default: on a terminal), always, never\n"
            "  --no-progress    no progress indicator on stderr\n"
            "  -h, --help       this help\n"
            "exit status: 0 ok, 2 usage, 3 an input unreadable or unusable (the others are still\n"
            "reported), 4 partial (lines skipped, events lost, or a damaged trace)\n");
}

/* The command line. */
struct analyze_cli {
    int json, csv, progress;
    int advise_sim;     /* -1 auto, 0 formula, 1 sim */
    double trace_cores; /* 0: the trace's, else this machine's (sim_calibrate) */
    struct report_opts ro;
    struct analyze_opts ao;
    struct stage_args stages; /* ao.stages points here */
};

/* WF_GO_ON to go ahead (argv[optind..] are the inputs), else the exit status. */
static int analyze_parse(int argc, char **argv, struct analyze_cli *o)
{
    enum { O_JSON = 256, O_CSV, O_GAPS, O_COLOR, O_NOPROG, O_CHART, O_ADVISE, O_TCORES, O_KPHASE };
    static const struct option longopts[] = {{"json", no_argument, 0, O_JSON},
                                             {"csv", no_argument, 0, O_CSV},
                                             {"gaps", optional_argument, 0, O_GAPS},
                                             {"chart", optional_argument, 0, O_CHART},
                                             {"advise", required_argument, 0, O_ADVISE},
                                             {"trace-cores", required_argument, 0, O_TCORES},
                                             {"kernel-phase", required_argument, 0, O_KPHASE},
                                             {"consecutive-kernel-delay", required_argument, 0, 'D'},
                                             {"stage", required_argument, 0, 'S'},
                                             {"color", required_argument, 0, O_COLOR},
                                             {"colour", required_argument, 0, O_COLOR},
                                             {"no-progress", no_argument, 0, O_NOPROG},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    *o = (struct analyze_cli){.progress = isatty(2), .advise_sim = -1,
                              .ro = {.color = isatty(1) && getenv("NO_COLOR") == NULL, .draw_chart = render_term}};
    int c;
    optind = 0; /* 0: a full reset of getopt (glibc), also when called again */
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case O_JSON:
            o->json = 1;
            break;
        case O_CSV:
            o->csv = 1;
            break;
        case O_GAPS:
            o->ro.gaps = 1;
            if (optarg) {
                long v;
                if (arg_long("analyze", "--gaps", optarg, 1, 100000000, &v))
                    return WF_EXIT_USAGE;
                o->ro.max_gaps = (size_t)v;
            }
            break;
        case O_COLOR:
            if (report_color_arg(optarg, &o->ro.color)) {
                fprintf(stderr, "waterfall analyze: --color takes auto, always or never\n");
                return WF_EXIT_USAGE;
            }
            break;
        case O_CHART: {
            o->ro.chart = 20;
            long v;
            if (optarg && arg_long("analyze", "--chart", optarg, 1, 100000, &v))
                return WF_EXIT_USAGE;
            if (optarg)
                o->ro.chart = (int)v;
            break;
        }
        case O_NOPROG:
            o->progress = 0;
            break;
        case O_KPHASE:
            if (kernel_phase_arg(optarg, "analyze", &o->ao.kernel_phase))
                return WF_EXIT_USAGE;
            break;
        case 'D': /* (long only) HTA's threshold, in the trace's µs as its code compares it */
            if (kernel_delay_arg(optarg, "analyze", &o->ao))
                return WF_EXIT_USAGE;
            break;
        case 'S':
            if (stage_arg(optarg, "analyze", &o->stages, &o->ao))
                return WF_EXIT_USAGE;
            break;
        case O_TCORES:
            if (arg_double("analyze", "--trace-cores", optarg, 0.01, 1e6, &o->trace_cores))
                return WF_EXIT_USAGE;
            break;
        case O_ADVISE:
            if (advise_arg(optarg, "analyze", &o->advise_sim))
                return WF_EXIT_USAGE;
            break;
        case 'h':
            analyze_usage(stdout);
            return WF_EXIT_OK;
        default:
            arg_suggest("waterfall analyze", argv, longopts);
            analyze_usage(stderr);
            return WF_EXIT_USAGE;
        }
    }
    o->ro.width = terminal_width();
    if (o->json && o->csv) {
        fprintf(stderr, "waterfall analyze: --json and --csv exclude each other\n");
        return WF_EXIT_USAGE;
    }
    if (optind >= argc) {
        fprintf(stderr, "waterfall analyze: no input (give a file, or - for stdin)\n");
        analyze_usage(stderr);
        return WF_EXIT_USAGE;
    }
    return WF_GO_ON;
}

int cmd_analyze(int argc, char **argv)
{
    struct analyze_cli o;
    int rc = analyze_parse(argc, argv, &o);
    if (rc != WF_GO_ON)
        return rc;
    struct loaded l;
    /* the gap list for --gaps, the idle stretches for the text report's
     * chart: a JSON or CSV report without --gaps needs neither */
    o.ao.keep = (o.ro.gaps && !o.csv ? KEEP_GAPS : 0) | (!o.json && !o.csv ? KEEP_SEGS : 0);
    rc = load_inputs(&l, argv + optind, argc - optind, o.progress, "waterfall analyze", &o.ao);
    if (l.nres > 0 && (rc == WF_EXIT_OK || rc == WF_EXIT_INPUT)) {
        loaded_advise(&l, o.advise_sim, o.trace_cores, "waterfall analyze");
        if (o.json)
            report_json(stdout, &l.model, l.res, l.nres, &o.ro);
        else if (o.csv)
            report_csv(stdout, l.res, l.nres);
        else
            report_text(stdout, &l.model, l.res, l.nres, &o.ro);
        rc = loaded_status(&l, rc, fflush(stdout) != 0 || ferror(stdout), "waterfall analyze",
                           "writing the report");
    }
    loaded_free(&l);
    return rc;
}
