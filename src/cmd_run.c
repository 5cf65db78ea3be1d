/*
 * cmd_run.c -- `waterfall run`: the reference pipeline (engine/), with
 * every option checked before anything runs.
 */
#include "cmds.h"
#include "engine.h"
#include "wf_exit.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void run_usage(FILE *f)
{
    struct engine_config d;
    engine_defaults(&d);
    fprintf(f,
            "usage: waterfall run [options]\n"
            "  A pipeline doing real work: synthesis builds an R1CS witness over the Goldilocks\n"
            "  field, the device computes the Groth16 H quotient with NTTs and checks it.\n"
            "  --jobs N               jobs (default %d)\n"
            "  --partitions P         units per job (default %d)\n"
            "  --synth-concurrency C  syntheses at once, a semaphore's permits (default %d)\n"
            "  --gpu-workers W        workers per device (default %d)\n"
            "  --devices D            devices (default %d)\n"
            "  --channel K            channel capacity in units (default %d)\n"
            "  --size N               constraints per unit, a power of two (default %u)\n"
            "  --synth-rounds R       synthesis work per constraint (default: chosen at start so\n"
            "                         that synthesis takes --synth-ratio x the device time)\n"
            "  --synth-ratio X        synthesis time alone over device time per unit\n"
            "                         (default %.3g = 39/27, the cuzk figures)\n"
            "  --device cpu|emulated  cpu: proofs on host threads, competing with synthesis;\n"
            "                         emulated: a stand-in device that holds the GPU for the\n"
            "                         measured cpu proof time / --speedup, without using the CPU\n"
            "                         (default %s)\n"
            "  --speedup X            emulated device speed over this CPU (default %g)\n"
            "  --device-time MS       emulated device time per proof, instead of the model\n"
            "                         (to give two runs the same device)\n"
            "  --rate R               jobs arriving per second (default: all at once)\n"
            "  --kernel-lock          one proof at a time per device (default %s)\n"
            "  --no-kernel-lock       workers of a device prove at the same time\n"
            "  --no-pin               let the scheduler place synthesis threads (default: thread i\n"
            "                         on core i mod cores)\n"
            "  --out FILE             record the native trace (.wft) here\n"
            "  --truth FILE           write the engine's own accounting (JSON) here\n"
            "  --seed S               seed of the witnesses (default %llu)\n"
            "  --quiet                no summary\n",
            d.jobs, d.partitions, d.synth_concurrency, d.gpu_workers, d.devices, d.channel, 1u << d.log_n,
            d.synth_ratio, d.device, d.speedup, d.kernel_lock ? "on" : "off", (unsigned long long)d.seed);
}

static int int_arg(const char *opt, const char *v, long lo, long hi, long *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (!*v || *end || x < lo || x > hi) {
        fprintf(stderr, "waterfall run: %s takes a whole number from %ld to %ld, not '%s'\n", opt, lo, hi, v);
        return -1;
    }
    *out = x;
    return 0;
}

static int num_arg(const char *opt, const char *v, double *out)
{
    char *end;
    double x = strtod(v, &end);
    if (!*v || *end || !(x >= 0) || x > 1e12) {
        fprintf(stderr, "waterfall run: %s takes a non-negative number, not '%s'\n", opt, v);
        return -1;
    }
    *out = x;
    return 0;
}

/* Parse argv into *c: -1 when the run should go ahead, else the exit
 * status (help printed, or a usage error reported). */
int run_parse(int argc, char **argv, struct engine_config *c_out)
{
    enum { O_JOBS = 256, O_PARTS, O_SYNTH, O_WORKERS, O_DEVICES, O_CHANNEL, O_SIZE, O_ROUNDS, O_DEVICE,
           O_RATIO, O_SPEEDUP, O_DEVTIME, O_RATE, O_LOCK, O_NOLOCK, O_NOPIN, O_OUT, O_TRUTH, O_SEED, O_CORRUPT, O_QUIET };
    static const struct option longopts[] = {
        {"jobs", required_argument, 0, O_JOBS},
        {"partitions", required_argument, 0, O_PARTS},
        {"synth-concurrency", required_argument, 0, O_SYNTH},
        {"gpu-workers", required_argument, 0, O_WORKERS},
        {"devices", required_argument, 0, O_DEVICES},
        {"channel", required_argument, 0, O_CHANNEL},
        {"size", required_argument, 0, O_SIZE},
        {"synth-rounds", required_argument, 0, O_ROUNDS},
        {"synth-ratio", required_argument, 0, O_RATIO},
        {"device", required_argument, 0, O_DEVICE},
        {"speedup", required_argument, 0, O_SPEEDUP},
        {"device-time", required_argument, 0, O_DEVTIME},
        {"rate", required_argument, 0, O_RATE},
        {"kernel-lock", no_argument, 0, O_LOCK},
        {"no-kernel-lock", no_argument, 0, O_NOLOCK},
        {"no-pin", no_argument, 0, O_NOPIN},
        {"out", required_argument, 0, O_OUT},
        {"truth", required_argument, 0, O_TRUTH},
        {"seed", required_argument, 0, O_SEED},
        {"corrupt-unit", required_argument, 0, O_CORRUPT}, /* testing: corrupt one witness */
        {"quiet", no_argument, 0, O_QUIET},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    struct engine_config c;
    engine_defaults(&c);
    int ch;
    long v;
    optind = 0; /* 0: a full reset of getopt (glibc), also when called again */
    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (ch) {
        case O_JOBS:
            if (int_arg("--jobs", optarg, 1, 10000000, &v))
                return WF_EXIT_USAGE;
            c.jobs = (int)v;
            break;
        case O_PARTS:
            if (int_arg("--partitions", optarg, 1, 10000, &v))
                return WF_EXIT_USAGE;
            c.partitions = (int)v;
            break;
        case O_SYNTH:
            if (int_arg("--synth-concurrency", optarg, 1, 1024, &v))
                return WF_EXIT_USAGE;
            c.synth_concurrency = (int)v;
            break;
        case O_WORKERS:
            if (int_arg("--gpu-workers", optarg, 1, 64, &v))
                return WF_EXIT_USAGE;
            c.gpu_workers = (int)v;
            break;
        case O_DEVICES:
            if (int_arg("--devices", optarg, 1, 64, &v))
                return WF_EXIT_USAGE;
            c.devices = (int)v;
            break;
        case O_CHANNEL:
            if (int_arg("--channel", optarg, 1, 1000000, &v))
                return WF_EXIT_USAGE;
            c.channel = (int)v;
            break;
        case O_SIZE: {
            if (int_arg("--size", optarg, 16, 1L << 26, &v))
                return WF_EXIT_USAGE;
            if (v & (v - 1)) {
                fprintf(stderr, "waterfall run: --size must be a power of two (16 to 67108864), not %ld\n", v);
                return WF_EXIT_USAGE;
            }
            c.log_n = 0;
            while ((1L << c.log_n) < v)
                c.log_n++;
            break;
        }
        case O_ROUNDS:
            if (int_arg("--synth-rounds", optarg, 1, 10000, &v))
                return WF_EXIT_USAGE;
            c.synth_rounds = (unsigned)v;
            break;
        case O_RATIO:
            if (num_arg("--synth-ratio", optarg, &c.synth_ratio))
                return WF_EXIT_USAGE;
            break;
        case O_DEVICE:
            c.device = optarg;
            break;
        case O_SPEEDUP:
            if (num_arg("--speedup", optarg, &c.speedup))
                return WF_EXIT_USAGE;
            break;
        case O_DEVTIME:
            if (num_arg("--device-time", optarg, &c.device_time))
                return WF_EXIT_USAGE;
            c.device_time /= 1e3;
            break;
        case O_RATE:
            if (num_arg("--rate", optarg, &c.rate))
                return WF_EXIT_USAGE;
            break;
        case O_LOCK:
            c.kernel_lock = 1;
            break;
        case O_NOLOCK:
            c.kernel_lock = 0;
            break;
        case O_NOPIN:
            c.pin = 0;
            break;
        case O_OUT:
            c.out = optarg;
            break;
        case O_TRUTH:
            c.truth = optarg;
            break;
        case O_SEED: {
            char *end;
            c.seed = strtoull(optarg, &end, 10);
            if (!*optarg || *end) {
                fprintf(stderr, "waterfall run: --seed takes a whole number\n");
                return WF_EXIT_USAGE;
            }
            break;
        }
        case O_CORRUPT:
            if (int_arg("--corrupt-unit", optarg, 0, 100000000, &v))
                return WF_EXIT_USAGE;
            c.corrupt_unit = v;
            break;
        case O_QUIET:
            c.quiet = 1;
            break;
        case 'h':
            run_usage(stdout);
            return WF_EXIT_OK;
        default:
            run_usage(stderr);
            return WF_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "waterfall run: unexpected argument '%s'\n", argv[optind]);
        return WF_EXIT_USAGE;
    }
    char err[512] = "";
    if (engine_validate(&c, err, sizeof err)) {
        fprintf(stderr, "waterfall run: %s\n", err);
        return WF_EXIT_USAGE;
    }
    *c_out = c;
    return -1;
}

int cmd_run(int argc, char **argv)
{
    struct engine_config c;
    int st = run_parse(argc, argv, &c);
    if (st >= 0)
        return st;
    char err[512] = "";
    struct engine_result r;
    int rc = engine_run(&c, &r, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "waterfall run: %s\n", err);
        return WF_EXIT_FAIL;
    }
    if (!c.quiet) {
        printf("waterfall run: %d jobs x %d partition%s, synthesis concurrency %d, %d device%s x %d worker%s, "
               "channel %d, 2^%u constraints, device %s",
               c.jobs, c.partitions, c.partitions == 1 ? "" : "s", c.synth_concurrency, c.devices,
               c.devices == 1 ? "" : "s", c.gpu_workers, c.gpu_workers == 1 ? "" : "s", c.channel, c.log_n,
               c.device);
        if (r.emulated_unit_s > 0 && c.device_time > 0)
            printf("\n  EMULATED device: each proof holds it %.1f ms (--device-time)", r.emulated_unit_s * 1e3);
        else if (r.emulated_unit_s > 0)
            printf("\n  EMULATED device: each proof holds it %.1f ms = the cpu proof measured here (%.1f ms) / %g",
                   r.emulated_unit_s * 1e3, r.cpu_prove_s * 1e3, c.speedup);
        printf("\n  synthesis: %u rounds, measured %.1f ms per unit before the run%s", r.synth_rounds,
               r.synth_s * 1e3, c.synth_rounds ? "" : " (rounds chosen for --synth-ratio)");
        printf("\n  %llu units proved in %.2f s, %llu failed their check", (unsigned long long)r.units, r.wall_s,
               (unsigned long long)r.errors);
        if (c.out)
            printf("; trace %s", c.out);
        printf("\n");
    }
    if (rc > 0) {
        fprintf(stderr, "waterfall run: %llu unit%s failed the proof check (first: unit %llu)\n",
                (unsigned long long)r.errors, r.errors == 1 ? "" : "s", (unsigned long long)r.first_error_unit);
        return WF_EXIT_FAIL;
    }
    return WF_EXIT_OK;
}
