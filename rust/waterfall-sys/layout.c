/*
 * layout.c -- the header's struct layouts as the C compiler lays them out,
 * for tests/header.rs to compare with the Rust declarations in src/lib.rs.
 * Compiled by build.rs against the header in use (the repository's, or
 * the installed one in the `system` mode).
 */
#include <stddef.h>
#include <waterfall.h>

#define MEMBER(t, m) offsetof(t, m), sizeof(((t *)0)->m)

/* For each struct: its size, then (offset, size) of each member in order. */
const size_t waterfall_sys_layout_config[] = {
    sizeof(wf_config),
    MEMBER(wf_config, size),       MEMBER(wf_config, ring_events),
    MEMBER(wf_config, flush_ms),   MEMBER(wf_config, block_when_full),
    MEMBER(wf_config, timeline),   MEMBER(wf_config, timeline_decimals),
    MEMBER(wf_config, sample_cpu), MEMBER(wf_config, sample_gpu),
};
const size_t waterfall_sys_layout_stats_ex[] = {
    sizeof(wf_stats_ex),
    MEMBER(wf_stats_ex, size),     MEMBER(wf_stats_ex, marked),  MEMBER(wf_stats_ex, recorded),
    MEMBER(wf_stats_ex, lost),     MEMBER(wf_stats_ex, threads), MEMBER(wf_stats_ex, units),
};
const size_t waterfall_sys_layout_options[] = {
    sizeof(wf_options),
    MEMBER(wf_options, ring_events), MEMBER(wf_options, flush_ms),
    MEMBER(wf_options, block_when_full), MEMBER(wf_options, timeline),
    MEMBER(wf_options, timeline_decimals),
};
const size_t waterfall_sys_layout_stats[] = {
    sizeof(wf_stats),
    MEMBER(wf_stats, marked),  MEMBER(wf_stats, recorded), MEMBER(wf_stats, lost),
    MEMBER(wf_stats, threads), MEMBER(wf_stats, units),
};
/* The version of the header this crate was compiled against. */
const int waterfall_sys_header_version = WF_VERSION_NUMBER;
