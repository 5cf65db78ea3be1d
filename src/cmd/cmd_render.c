/*
 * cmd_render.c -- `waterfall render FILE... -o OUT`: a view of the
 * analysis, its format chosen by OUT's extension (.json: Chrome trace for
 * Perfetto; .svg: a static waterfall; .html: the interactive view) or by
 * --format.
 */
#include "args.h"
#include "cmds.h"
#include "load.h"
#include "render.h"
#include "wf_exit.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void render_usage(FILE *f)
{
    fprintf(f, "usage: waterfall render [options] FILE... -o OUT\n"
               "  -o, --output OUT       where to write the view (- for stdout)\n"
               "  -f, --format FORMAT    chrome (Chrome trace JSON, opens in Perfetto UI and\n"
               "                         chrome://tracing), svg (a static waterfall) or html (one\n"
               "                         self-contained page: zoom, pan, a tooltip per unit);\n"
               "                         default: from OUT's extension (.json, .svg, .html)\n"
               "  --kernel-phase NAME    the GPU sub-phase in which the device computes (default\n"
               "                         KERNEL): the kernel lane and kernel utilization\n"
               "  --consecutive-kernel-delay US  PyTorch traces: HTA's kernel_wait threshold, in\n"
               "                         the trace's µs as HTA's code compares it (default 30)\n"
               "  --stage STAGE=GLOB     PyTorch traces: CPU ranges named GLOB are STAGE's\n"
               "                         (synthesis or prep; repeatable): idle causes by stage\n"
               "  --advise MODEL         the advice in the HTML summary, as analyze gives it: auto\n"
               "                         (default), formula or sim (waterfall analyze --help)\n"
               "  --trace-cores N        the cores of the machine that recorded the input, for the\n"
               "                         advice's simulation (default: what a native trace says,\n"
               "                         else this machine's)\n");
}

enum { FMT_NONE, FMT_CHROME, FMT_SVG, FMT_HTML };

static int format_of(const char *name)
{
    if (!strcmp(name, "chrome") || !strcmp(name, "json"))
        return FMT_CHROME;
    if (!strcmp(name, "svg"))
        return FMT_SVG;
    if (!strcmp(name, "html") || !strcmp(name, "htm"))
        return FMT_HTML;
    return FMT_NONE;
}

int cmd_render(int argc, char **argv)
{
    static const struct option longopts[] = {{"output", required_argument, 0, 'o'},
                                             {"format", required_argument, 0, 'f'},
                                             {"kernel-phase", required_argument, 0, 'k'},
                                             {"consecutive-kernel-delay", required_argument, 0, 'D'},
                                             {"stage", required_argument, 0, 'S'},
                                             {"advise", required_argument, 0, 'a'},
                                             {"trace-cores", required_argument, 0, 'c'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *out = NULL, *fmt = NULL;
    int c, advise = -1;
    double trace_cores = 0;
    struct analyze_opts ao = {.keep = KEEP_ALL};
    struct stage_args stages = {0};
    optind = 0; /* 0: a full reset of getopt (glibc), also when called again */
    while ((c = getopt_long(argc, argv, "o:f:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 'f':
            fmt = optarg;
            break;
        case 'k': /* long option only */
            if (kernel_phase_arg(optarg, "render", &ao.kernel_phase))
                return WF_EXIT_USAGE;
            break;
        case 'D': /* long option only */
            if (kernel_delay_arg(optarg, "render", &ao))
                return WF_EXIT_USAGE;
            break;
        case 'S':
            if (stage_arg(optarg, "render", &stages, &ao))
                return WF_EXIT_USAGE;
            break;
        case 'a': /* long option only */
            if (advise_arg(optarg, "render", &advise))
                return WF_EXIT_USAGE;
            break;
        case 'c': /* long option only */
            if (arg_double("render", "--trace-cores", optarg, 0.01, 1e6, &trace_cores))
                return WF_EXIT_USAGE;
            break;
        case 'h':
            render_usage(stdout);
            return WF_EXIT_OK;
        default:
            arg_suggest("waterfall render", argv, longopts);
            render_usage(stderr);
            return WF_EXIT_USAGE;
        }
    }
    if (!out || optind >= argc) {
        fprintf(stderr, "waterfall render: need input files and -o OUT\n");
        render_usage(stderr);
        return WF_EXIT_USAGE;
    }
    int kind = 0;
    if (fmt) {
        kind = format_of(fmt);
    } else {
        const char *dot = strrchr(out, '.');
        kind = dot ? format_of(dot + 1) : FMT_NONE;
    }
    if (!kind) {
        if (fmt)
            fprintf(stderr, "waterfall render: no format '%s': chrome, svg or html (the terminal view is "
                            "'waterfall analyze --chart')\n", fmt);
        else
            fprintf(stderr, "waterfall render: cannot tell the format of '%s': give --format chrome|svg|html\n",
                    out);
        return WF_EXIT_USAGE;
    }
    struct loaded l;
    int rc = load_inputs(&l, argv + optind, argc - optind, isatty(2), "waterfall render", &ao);
    if (l.nres > 0 && (rc == WF_EXIT_OK || rc == WF_EXIT_INPUT)) {
        /* the HTML summary's advice is analyze's: the same computation */
        if (kind == FMT_HTML)
            loaded_advise(&l, advise, trace_cores, "waterfall render");
        FILE *f = strcmp(out, "-") ? fopen(out, "w") : stdout;
        if (!f) {
            fprintf(stderr, "waterfall render: %s: cannot write: %s\n", out, strerror(errno));
            rc = WF_EXIT_FAIL;
        } else {
            int bad = kind == FMT_CHROME ? render_chrome(f, l.res, l.nres)
                      : kind == FMT_SVG  ? render_svg(f, l.res, l.nres)
                                         : render_html(f, l.res, l.nres);
            char what[1100];
            snprintf(what, sizeof what, "%.1024s: write", out);
            rc = loaded_status(&l, rc, (f != stdout ? fclose(f) : fflush(f)) != 0 || bad, "waterfall render", what);
        }
    }
    loaded_free(&l);
    return rc;
}
