/*
 * fake_nvml.c -- a STAND-IN for the NVIDIA driver's NVML library, for the
 * tests only: no GPU is involved.  The recorder loads it instead of
 * libnvidia-ml.so.1 through WATERFALL_NVML_LIB (a test-only variable,
 * docs/gpu.md), so that CI, which has no GPU, runs the recorder's NVML
 * path, the trace's GPU records and analyze's driver utilization.  The
 * real driver is checked by tests/gpu/run.sh on a GPU machine.
 *
 * It shows one device whose kernels keep it busy FAKE_NVML_DUTY percent of
 * the time (default 40), with a utilization sample every 20 ms since
 * nvmlInit_v2, timestamped in CLOCK_REALTIME microseconds as the driver
 * does.  FAKE_NVML_MODE: "nodev" (no device), "initfail" (nvmlInit_v2
 * fails), "noseries" (nvmlDeviceGetSamples is not supported: the recorder
 * falls back to the utilization rate).  FAKE_NVML_INIT_MS: nvmlInit_v2
 * takes that long, as a driver without persistence mode does.
 *
 * Signatures as nvml.h declares them; enums are passed as int.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define API __attribute__((visibility("default")))

enum { OK = 0, ERR_UNINIT = 1, ERR_INVALID = 2, ERR_NOT_SUPPORTED = 3, ERR_NOT_FOUND = 6, ERR_UNKNOWN = 999 };
enum { PERIOD_US = 20000, KEPT = 100 }; /* a sample each 20 ms, the last 100 kept, as a driver's ring */

typedef struct {
    unsigned int gpu, memory;
} util_t;
typedef struct {
    unsigned long long ts;
    union {
        double d;
        unsigned int ui;
        unsigned long long ull;
    } v;
} sample_t;

static unsigned long long t0_us; /* nvmlInit_v2's time */
static int device_token;         /* the handle points here */

static unsigned long long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (unsigned long long)ts.tv_sec * 1000000ull + (unsigned long long)ts.tv_nsec / 1000ull;
}

static const char *mode(void)
{
    const char *m = getenv("FAKE_NVML_MODE");
    return m ? m : "";
}

static unsigned duty(void)
{
    const char *d = getenv("FAKE_NVML_DUTY");
    int v = d ? atoi(d) : 40;
    return v < 0 ? 0 : v > 100 ? 100 : (unsigned)v;
}

API int nvmlInit_v2(void)
{
    const char *slow = getenv("FAKE_NVML_INIT_MS");
    if (slow) {
        long ms = atol(slow);
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (!strcmp(mode(), "initfail"))
        return ERR_UNKNOWN;
    t0_us = now_us();
    return OK;
}

API int nvmlShutdown(void)
{
    t0_us = 0;
    return OK;
}

API const char *nvmlErrorString(int rc)
{
    return rc == ERR_UNKNOWN ? "Unknown Error (the stand-in was told to fail)" : "stand-in error";
}

API int nvmlSystemGetDriverVersion(char *buf, unsigned int len)
{
    snprintf(buf, len, "stand-in 0.0");
    return OK;
}

API int nvmlDeviceGetCount_v2(unsigned int *n)
{
    *n = strcmp(mode(), "nodev") ? 1 : 0;
    return OK;
}

API int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **h)
{
    if (i != 0)
        return ERR_INVALID;
    *h = &device_token;
    return OK;
}

API int nvmlDeviceGetName(void *h, char *buf, unsigned int len)
{
    (void)h;
    snprintf(buf, len, "stand-in (tests/fake_nvml.c, not a GPU)");
    return OK;
}

API int nvmlDeviceGetUUID(void *h, char *buf, unsigned int len)
{
    (void)h;
    snprintf(buf, len, "GPU-00000000-0000-0000-0000-000000000000");
    return OK;
}

API int nvmlDeviceGetUtilizationRates(void *h, util_t *u)
{
    (void)h;
    u->gpu = duty();
    u->memory = duty() / 2;
    return OK;
}

API int nvmlDeviceGetClockInfo(void *h, int type, unsigned int *mhz)
{
    (void)h;
    *mhz = type == 1 ? 1980 : 0;
    return OK;
}

/* The samples after last_seen among those kept, oldest first; with a NULL
 * buffer, how many a caller should make room for. */
API int nvmlDeviceGetSamples(void *h, int type, unsigned long long last_seen, int *vtype, unsigned int *count,
                             sample_t *out)
{
    (void)h;
    if (!strcmp(mode(), "noseries"))
        return ERR_NOT_SUPPORTED;
    if (!t0_us)
        return ERR_UNINIT;
    if (type != 1)
        return ERR_NOT_SUPPORTED;
    *vtype = 1; /* unsigned int */
    if (!out) {
        *count = KEPT;
        return OK;
    }
    unsigned long long now = now_us(), last = (now - t0_us) / PERIOD_US; /* samples 1..last taken */
    unsigned long long first = last > KEPT ? last - KEPT + 1 : 1;
    unsigned n = 0;
    for (unsigned long long k = first; k <= last && n < *count; k++) {
        unsigned long long ts = t0_us + k * PERIOD_US;
        if (ts <= last_seen)
            continue;
        out[n].ts = ts;
        out[n].v.ull = 0;
        out[n].v.ui = duty();
        n++;
    }
    *count = n;
    return n ? OK : ERR_NOT_FOUND;
}
