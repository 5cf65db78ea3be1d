/*
 * fuzz_scan.c -- libFuzzer target: the TIMELINE finder and line parser
 * (both forms, after a logger's target, tracing's JSON, ANSI codes, CRLF,
 * line timestamps) on any bytes, line by line as read_text goes (the
 * buffer's start passed as the lowest byte to look back to, the next hit
 * tried after one that is not a record), checked against a plain memmem
 * for the finder; and the finder of any tag (TIMELINE, CUZK_TIMING:,
 * CUZK_NTT_H:, the engine's spawn line) with the duration lines' reader on
 * what it finds.
 */
#include "scan.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    const char *p = (const char *)data, *end = p + size;
    /* The SIMD finder agrees with memmem everywhere. */
    const char *a = scan_find(p, end), *b = memmem(p, size, "TIMELINE", 8);
    if (a != b)
        abort();
    uint64_t lines = 0;
    for (size_t i = 0; i < size; i++)
        lines += p[i] == '\n';
    if (scan_count_lines(p, end) != lines)
        abort();
    char scratch[SCAN_LINE_MAX];
    /* Any tag: the first of the four, with the newlines before it. */
    static const char *const tags[] = {"TIMELINE", "CUZK_TIMING:", "CUZK_NTT_H:",
                                       "GPU_TIMING spawn_blocking prove_start"};
    const char *first = NULL;
    for (int t = 0; t < 4; t++) {
        const char *h = memmem(p, size, tags[t], strlen(tags[t]));
        if (h && (!first || h < first))
            first = h;
    }
    uint64_t nl = 0, want = 0;
    const char *any = scan_find_any_count(p, end, &nl);
    for (const char *q = p; q < (first ? first : end); q++)
        want += *q == '\n';
    if (any != first || nl != want)
        abort();
    if (any && *any != 'T') {
        const char *eol = memchr(any, '\n', (size_t)(end - any));
        struct scan_dur d;
        enum scan_dur_kind k = scan_dur(any, eol ? eol : end, scratch, &d);
        if (k == DUR_LINE && (d.n < 1 || d.n > SCAN_DUR_MAX || (d.tid == SCAN_TID_SPAWN && (d.n != 2 || d.worker < 0))))
            abort();
        if ((k == DUR_NTT) != (any[5] == 'N')) /* CUZK_NTT_H: is counted, and only it */
            abort();
    }
    const char *ls = p;
    while (ls < end) {
        const char *eol = memchr(ls, '\n', (size_t)(end - ls));
        if (!eol)
            eol = end;
        for (const char *hit = scan_find(ls, eol); hit; hit = scan_find(hit + 8, eol)) {
            struct scan_rec r;
            enum scan_err e = scan_line(p, hit, eol, scratch, &r);
            if (e == SCAN_OK) {
                if (r.ev < 0 || r.ev > EV_OTHER || r.t_ns < 0 || r.t_ns > INT64_MAX / 2 || r.job_len == 0 ||
                    r.job_len > SCAN_JOB_MAX || r.nkv > SCAN_KV_MAX)
                    abort();
                volatile char c = r.job[r.job_len - 1]; /* in bounds */
                if (r.ev == EV_OTHER)
                    c = r.name[r.name_len - 1];
                for (int i = 0; i < r.nkv; i++) {
                    c = r.kv[i].k[r.kv[i].kn - 1];
                    if (r.kv[i].vn)
                        c = r.kv[i].v[r.kv[i].vn - 1];
                }
                (void)c;
            }
            if (e != SCAN_NOT_RECORD)
                break;
        }
        ls = eol + 1;
    }
    return 0;
}
