/*
 * fuzz_kineto.c -- libFuzzer target: a PyTorch (Kineto) trace through the
 * analysis: read as a file (read_kineto.c's streaming yajl reader, chosen
 * by ingest's sniffing, so inputs that lose the JSON shape go to the other
 * readers as they would), model (every other input with its CPU ranges
 * mapped to stages), analyse, and all three reports, with
 * analyse_check.h's checks: each stream's HTA categories add up to its
 * idle, busy stays within the window, utilization in [0, 1], and the
 * causes add up to idle.
 */
#include "analyse_check.h"

#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    char path[64];
    int fd = analyse_memfd(data, size, path);
    if (fd < 0)
        return 0;
    /* every other input with its CPU ranges as stages (read/kineto_stage.h):
     * broad globs, so that every range is some stage's, and both stages
     * are met (the seed's aten:: ranges prep, the others synthesis) */
    static const struct stage_rule rules[] = {{EV_GPU_PICKUP, "a*"}, {EV_SYNTH_START, "*"}};
    static const struct stage_map map = {rules, 2};
    char *json;
    size_t len;
    analyse(path, "1", size && (data[size - 1] & 1) ? &map : NULL, &json, &len, 1);
    free(json);
    close(fd);
    return 0;
}
