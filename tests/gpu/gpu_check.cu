/*
 * gpu_check.cu -- the device check's workload (tests/gpu/run.sh): a GPU
 * worker that, for each unit, does host work inside its GPU phase and runs
 * one kernel of known duration (a spin on clock64), instrumented both ways:
 *
 *   host stamps   GPU_START, KERNEL_START before the launch, KERNEL_END after
 *                 the stream's synchronize, GPU_END after more host work
 *                 (libwaterfall, as a daemon instruments today);
 *   device times  a CUDA event before and after the kernel on the stream
 *                 (cudaEventElapsedTime): what the kernel really took.
 *
 * The recorder samples the GPU through NVML meanwhile (the real driver).
 * It writes the trace and, on stdout, one line per unit:
 *   unit <i> kernel_ms <by CUDA events> host_kernel_ms <by host stamps>
 * and a last line with the kernel's intended duration and the clock rate.
 *
 *   gpu_check TRACE.wft UNITS KERNEL_MS HOST_MS
 */
#include <waterfall.h>

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "gpu_check: %s: %s\n", #x, cudaGetErrorString(e_));                    \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

__global__ void spin(long long cycles, long long *sink)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles)
        ;
    if (threadIdx.x == 0 && blockIdx.x == 0)
        *sink = clock64() - t0;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void host_work(double ms) /* busy, as host work in a GPU phase is */
{
    double end = now_ms() + ms;
    while (now_ms() < end)
        ;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: gpu_check TRACE.wft UNITS KERNEL_MS HOST_MS\n");
        return 2;
    }
    int units = atoi(argv[2]);
    double kernel_ms = atof(argv[3]), host_ms = atof(argv[4]);
    int khz = 0;
    CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0)); /* the peak SM clock, kHz */
    long long cycles = (long long)(kernel_ms * khz);
    long long *sink;
    CHECK(cudaMalloc(&sink, sizeof *sink));
    cudaStream_t st;
    CHECK(cudaStreamCreate(&st));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    spin<<<1, 1, 0, st>>>(1000, sink); /* the context and the module, before the trace */
    CHECK(cudaStreamSynchronize(st));

    if (wf_open(argv[1]) != 0) {
        fprintf(stderr, "gpu_check: cannot record to %s\n", argv[1]);
        return 1;
    }
    wf_event ks = wf_event_define("KERNEL_START"), ke = wf_event_define("KERNEL_END");
    wf_thread_name("gpu-worker-0");
    wf_thread_worker(0, 0);
    for (int i = 0; i < units; i++) {
        char id[32];
        snprintf(id, sizeof id, "unit-%d", i);
        wf_unit u = wf_unit_new(id, -1);
        wf_mark(WF_SYNTH_START, u); /* no synthesis here: the GPU phase is the subject */
        wf_mark(WF_SYNTH_END, u);
        wf_mark(WF_CHAN_SEND, u);
        wf_mark(WF_GPU_PICKUP, u);
        wf_mark(WF_GPU_START, u);
        host_work(host_ms / 2);
        double h0 = now_ms();
        wf_mark(ks, u);
        CHECK(cudaEventRecord(e0, st));
        spin<<<1, 1, 0, st>>>(cycles, sink);
        CHECK(cudaEventRecord(e1, st));
        CHECK(cudaStreamSynchronize(st));
        wf_mark(ke, u);
        double h1 = now_ms();
        host_work(host_ms / 2);
        wf_mark(WF_GPU_END, u);
        float dev_ms = 0;
        CHECK(cudaEventElapsedTime(&dev_ms, e0, e1));
        printf("unit %d kernel_ms %.4f host_kernel_ms %.4f\n", i, dev_ms, h1 - h0);
    }
    wf_close();
    printf("intended_kernel_ms %.4f host_ms %.4f sm_clock_khz %d\n", kernel_ms, host_ms, khz);
    return 0;
}
