/*
 * cmd_run.c -- `waterfall run`: the reference pipeline (engine/), with
 * every option checked before anything runs.
 */
#include "args.h"
#include "cmds.h"
#include "engine.h"
#include "wf_exit.h"

#include <getopt.h>
#include <stddef.h>
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
    return arg_long("run", opt, v, lo, hi, out);
}

static int num_arg(const char *opt, const char *v, double *out)
{
    return arg_double("run", opt, v, 0, 1e12, out);
}

/* The whole-number options: where each goes in the config, and its range. */
struct int_opt {
    int id;
    const char *name;
    long lo, hi;
    size_t off;
    int size; /* sizeof the field: int, unsigned or long */
};
#define INT_OPT(id, name, lo, hi, field)                                                           \
    {id, name, lo, hi, offsetof(struct engine_config, field), (int)sizeof(((struct engine_config *)0)->field)}

enum { O_JOBS = 256, O_PARTS, O_SYNTH, O_WORKERS, O_DEVICES, O_CHANNEL, O_SIZE, O_ROUNDS, O_DEVICE,
       O_RATIO, O_SPEEDUP, O_DEVTIME, O_RATE, O_LOCK, O_NOLOCK, O_NOPIN, O_OUT, O_TRUTH, O_SEED, O_CORRUPT, O_QUIET };

static const struct int_opt int_opts[] = {
    INT_OPT(O_JOBS, "--jobs", 1, 10000000, jobs),
    INT_OPT(O_PARTS, "--partitions", 1, 10000, partitions),
    INT_OPT(O_SYNTH, "--synth-concurrency", 1, 1024, synth_concurrency),
    INT_OPT(O_WORKERS, "--gpu-workers", 1, 64, gpu_workers),
    INT_OPT(O_DEVICES, "--devices", 1, 64, devices),
    INT_OPT(O_CHANNEL, "--channel", 1, 1000000, channel),
    INT_OPT(O_ROUNDS, "--synth-rounds", 1, 10000, synth_rounds),
    INT_OPT(O_CORRUPT, "--corrupt-unit", 0, 100000000, corrupt_unit),
};

/* Option ch when it is a whole number (*taken: 1; 0: not one of them):
 * 0, or -1 bad (said on stderr). */
static int take_int(int ch, const char *arg, struct engine_config *c, int *taken)
{
    *taken = 0;
    for (size_t i = 0; i < sizeof int_opts / sizeof int_opts[0]; i++) {
        const struct int_opt *o = &int_opts[i];
        if (o->id != ch)
            continue;
        long v;
        if (int_arg(o->name, arg, o->lo, o->hi, &v))
            return -1;
        char *field = (char *)c + o->off;
        if (o->size == sizeof(long))
            *(long *)field = v;
        else if (o->size == sizeof(int))
            *(int *)field = (int)v; /* int or unsigned: v is in range for both */
        *taken = 1;
        return 0;
    }
    return 0;
}

/* --size: a power of two, as log_n. */
static int take_size(const char *arg, struct engine_config *c)
{
    long v;
    if (int_arg("--size", arg, 16, 1L << 26, &v))
        return -1;
    if (v & (v - 1)) {
        fprintf(stderr, "waterfall run: --size must be a power of two (16 to 67108864), not %ld\n", v);
        return -1;
    }
    c->log_n = 0;
    while ((1L << c->log_n) < v)
        c->log_n++;
    return 0;
}

/* The other options: 0, or -1 (bad, said on stderr). */
static int take_other(int ch, const char *arg, struct engine_config *c)
{
    switch (ch) {
    case O_SIZE: return take_size(arg, c);
    case O_RATIO: return num_arg("--synth-ratio", arg, &c->synth_ratio) ? -1 : 0;
    case O_DEVICE: c->device = arg; return 0;
    case O_SPEEDUP: return num_arg("--speedup", arg, &c->speedup) ? -1 : 0;
    case O_DEVTIME:
        if (num_arg("--device-time", arg, &c->device_time))
            return -1;
        c->device_time /= 1e3;
        return 0;
    case O_RATE: return num_arg("--rate", arg, &c->rate) ? -1 : 0;
    case O_LOCK: c->kernel_lock = 1; return 0;
    case O_NOLOCK: c->kernel_lock = 0; return 0;
    case O_NOPIN: c->pin = 0; return 0;
    case O_OUT: c->out = arg; return 0;
    case O_TRUTH: c->truth = arg; return 0;
    case O_QUIET: c->quiet = 1; return 0;
    case O_SEED: {
        char *end;
        c->seed = strtoull(arg, &end, 10);
        if (!*arg || *end) {
            fprintf(stderr, "waterfall run: --seed takes a whole number\n");
            return -1;
        }
        return 0;
    }
    }
    return -1;
}

/* Parse argv into *c: WF_GO_ON when the run should go ahead, else the
 * exit status (help printed, or a usage error reported). */
int run_parse(int argc, char **argv, struct engine_config *c_out)
{
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
    optind = 0; /* 0: a full reset of getopt (glibc), also when called again */
    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (ch == 'h') {
            run_usage(stdout);
            return WF_EXIT_OK;
        }
        if (ch == '?' || ch == ':') {
            arg_suggest("waterfall run", argv, longopts);
            run_usage(stderr);
            return WF_EXIT_USAGE;
        }
        int taken;
        if (take_int(ch, optarg, &c, &taken) != 0 || (!taken && take_other(ch, optarg, &c)))
            return WF_EXIT_USAGE;
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
    return WF_GO_ON;
}

int cmd_run(int argc, char **argv)
{
    struct engine_config c;
    int st = run_parse(argc, argv, &c);
    if (st != WF_GO_ON)
        return st;
    char err[512] = "";
    struct engine_result r;
    if (engine_run(&c, &r, err, sizeof err)) {
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
    if (r.errors) {
        fprintf(stderr, "waterfall run: %llu unit%s failed the proof check (first: unit %llu)\n",
                (unsigned long long)r.errors, r.errors == 1 ? "" : "s", (unsigned long long)r.first_error_unit);
        return WF_EXIT_FAIL;
    }
    return WF_EXIT_OK;
}
