/*
 * engine.h -- the reference pipeline behind `waterfall run`: a job source,
 * a synthesis pool bounded by a semaphore, a bounded channel, GPU workers
 * on devices, all instrumented with libwaterfall at the six points.
 *
 * Real work on both sides: synthesis builds an R1CS witness over the
 * Goldilocks field; proving computes the Groth16 H quotient with NTTs and
 * checks it at random points (engine/field.h).  A unit whose check fails
 * is counted as failed.
 *
 * Errors: as src/'s readers, 0, or -1 with a message in err.  Units whose
 * proof failed its check are a result, not an error: engine_run counts
 * them in r->errors.  Inside engine/, a function with no err buffer
 * returns 0 or -1 and its caller writes the message (device.h, field.h,
 * channel.h); no negative errno, which only the recorder's API returns.
 */
#ifndef ENGINE_H
#define ENGINE_H

#include <stddef.h>
#include <stdint.h>

struct engine_config {
    int jobs;            /* N jobs */
    int partitions;      /* P units per job */
    int synth_concurrency; /* C: syntheses at once (the semaphore's permits) */
    int gpu_workers;     /* W workers per device */
    int devices;         /* D devices */
    int channel;         /* K: channel capacity */
    unsigned log_n;      /* constraints per unit: 2^log_n */
    unsigned synth_rounds; /* synthesis work per constraint; 0: chosen so that
                              synthesis takes synth_ratio x the device time */
    double synth_ratio;  /* see synth_rounds (default 39/27, the cuzk figures) */
    double rate;         /* jobs per second arriving; 0: all at once */
    int kernel_lock;     /* one proof at a time per device */
    int pin;             /* synthesis thread i on core i mod cores */
    const char *device;  /* "cpu" or "emulated" */
    double speedup;      /* emulated: device time = measured cpu proof / speedup */
    double device_time;  /* emulated: seconds per proof, instead of the model (0: model) */
    const char *out;     /* native trace path, or NULL */
    const char *truth;   /* ground truth JSON path, or NULL */
    uint64_t seed;
    long corrupt_unit;   /* testing: corrupt this unit's witness (-1: none) */
    int quiet;
};

struct engine_result {
    uint64_t units;
    uint64_t errors;         /* units whose proof failed its check (a result, not engine_run's) */
    double wall_s;
    size_t channel_max;      /* most units the channel ever held */
    int synth_max;           /* most syntheses seen at once */
    double emulated_unit_s;  /* emulated: the device time of one proof */
    double cpu_prove_s;      /* the measured cpu proof time (calibration) */
    double synth_s;          /* the measured synthesis time per unit (calibration) */
    unsigned synth_rounds;   /* the rounds used */
    int ndev;
    double busy_s[64];       /* per device: union of its busy time */
    double kernel_busy_s[64]; /* per device: union of its kernel holds (within busy_s) */
    uint64_t first_error_unit;
};

void engine_defaults(struct engine_config *c);

/* Check a configuration before anything runs: 0, or -1 with err set. */
int engine_validate(const struct engine_config *c, char *err, size_t errlen);

/* Run it: 0 when it ran, every unit proved or not: those whose proof
 * failed its check are counted in r->errors (the first in
 * r->first_error_unit); -1 with err set when it could not run at all. */
int engine_run(const struct engine_config *c, struct engine_result *r, char *err, size_t errlen);

#endif /* ENGINE_H */
