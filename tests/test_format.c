/*
 * test_format.c -- the TIMELINE line formatter: rounding, negative times,
 * precision, unsafe job ids, detail keys.
 */
#include "check.h"

#include "wf_timeline.h"

#include <string.h>

static int line_is(int64_t ns, int dec, const char *ev, const char *job, int part, int worker,
                   int dev, const char *want)
{
    char buf[WFT_LINE_MAX];
    size_t n = wft_format_line(buf, ns, dec, ev, job, strlen(job), part, worker, dev);
    buf[n] = 0;
    if (strcmp(buf, want) != 0) {
        fprintf(stderr, "got  %swant %s", buf, want);
        return 0;
    }
    return 1;
}

int main(void)
{
    CHECK(line_is(0, 0, "SYNTH_START", "a", -1, -1, -1, "TIMELINE,0,SYNTH_START,a,\n"));
    CHECK(line_is(36512400000, 0, "SYNTH_END", "9f1c", 3, -1, -1,
                  "TIMELINE,36512,SYNTH_END,9f1c,partition=3\n"));
    CHECK(line_is(36512500000, 0, "X", "j", -1, -1, -1, "TIMELINE,36513,X,j,\n"));
    CHECK(line_is(1234567, 3, "GPU_START", "j", 3, 1, 0,
                  "TIMELINE,1.235,GPU_START,j,worker=1,partition=3,device=0\n"));
    CHECK(line_is(1234567, 6, "E", "j", -1, 2, -1, "TIMELINE,1.234567,E,j,worker=2\n"));
    CHECK(line_is(5, 6, "E", "j", -1, -1, 4, "TIMELINE,0.000005,E,j,device=4\n"));
    CHECK(line_is(-2500000, 1, "E", "j", -1, -1, -1, "TIMELINE,-2.5,E,j,\n"));
    CHECK(line_is(0, 9, "E", "j", -1, -1, -1, "TIMELINE,0.000000,E,j,\n"));
    CHECK(line_is(0, 0, "E", "a,b\nc\x1b[0m", -1, -1, -1, "TIMELINE,0,E,a_b_c_[0m,\n"));
    CHECK(line_is(0, 0, "EV,IL\n", "j", -1, -1, -1, "TIMELINE,0,EV_IL_,j,\n"));
    CHECK(line_is(INT64_MAX, 6, "E", "j", -1, -1, -1, "TIMELINE,9223372036854.775807,E,j,\n"));
    CHECK(line_is(INT64_MIN, 0, "E", "j", -1, -1, -1, "TIMELINE,-9223372036855,E,j,\n"));

    /* A job id longer than the cap is cut, and the line still fits. */
    char big[4000], buf[WFT_LINE_MAX];
    memset(big, 'x', sizeof big);
    size_t n = wft_format_line(buf, INT64_MIN, 6, "A_VERY_LONG_EVENT_NAME_THAT_GOES_ON_AND_ON_AND_ON_AND_ON_AND_ON",
                               big, sizeof big, 2147483647, 2147483647, 2147483647);
    CHECK(n < WFT_LINE_MAX);
    CHECK(buf[n - 1] == '\n');
    return check_done("format");
}
