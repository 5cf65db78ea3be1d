/*
 * fuzz_opts.c -- libFuzzer target: the option parsing of every command.
 * The input is a command selector byte, then arguments separated by NUL
 * or newline.  stdin and stdout are /dev/null, and an input whose
 * arguments name an existing file is skipped, so `analyze`, `diff` and
 * `dump` only ever meet missing or empty inputs; `run` is parsed and
 * validated, not run.
 */
#include "cmds.h"
#include "engine.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static void setup(void)
{
    int nul = open("/dev/null", O_RDWR);
    dup2(nul, 0);
    dup2(nul, 1);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static int ready;
    if (!ready) {
        setup();
        ready = 1;
    }
    if (size < 1 || size > 4096)
        return 0;
    static const char *names[4] = {"waterfall analyze", "waterfall diff", "waterfall dump", "waterfall run"};
    int cmd = data[0] % 4;
    char buf[4097];
    memcpy(buf, data + 1, size - 1);
    buf[size - 1] = 0;
    char *argv[34];
    int argc = 0;
    argv[argc++] = (char *)names[cmd];
    for (char *p = buf, *end = buf + size - 1; p < end && argc < 33;) {
        char *q = p;
        while (q < end && *q && *q != '\n')
            q++;
        *q = 0;
        if (p[0] != '-' && access(p, F_OK) == 0)
            return 0; /* a real file: not this target's business */
        argv[argc++] = p;
        p = q + 1;
    }
    argv[argc] = NULL;
    if (cmd == 0)
        cmd_analyze(argc, argv);
    else if (cmd == 1)
        cmd_diff(argc, argv);
    else if (cmd == 2)
        cmd_dump(argc, argv);
    else {
        struct engine_config c;
        run_parse(argc, argv, &c);
    }
    return 0;
}
