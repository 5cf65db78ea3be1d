/*
 * cmds.h -- the subcommands of `waterfall`; each takes argv from its own
 * name on and returns an exit status from wf_exit.h.
 */
#ifndef CMDS_H
#define CMDS_H

#include "waterfall_version.h"

#define WF_TOOL_VERSION WF_VERSION_STRING /* one version: CMake's project(VERSION) */

int cmd_dump(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_watch(int argc, char **argv);

struct engine_config;
/* cmd_run's option parsing alone: WF_GO_ON to go ahead, else an exit status. */
int run_parse(int argc, char **argv, struct engine_config *c);

#endif /* CMDS_H */
