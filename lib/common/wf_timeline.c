/*
 * wf_timeline.c -- TIMELINE line formatting without stdio on the way:
 * the writer thread formats millions of lines a second with it.
 */
#include "wf_timeline.h"

#include <string.h>

const char *const wft_event_names[WFT_PIPELINE_EVENTS] = {"SYNTH_START", "SYNTH_END", "CHAN_SEND",
                                                         "GPU_PICKUP",  "GPU_START", "GPU_END"};

const char *wft_builtin_name(unsigned ev)
{
    return ev < WFT_PIPELINE_EVENTS ? wft_event_names[ev] : NULL;
}

static char *put_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

/* Copy text that came from a user or a file, keeping the line parseable. */
static char *put_safe(char *p, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        *p++ = (c < 0x20 || c == 0x7f || c == ',') ? '_' : (char)c;
    }
    return p;
}

static char *put_u64(char *p, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static char *put_int(char *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        return put_u64(p, (uint64_t)0 - (uint64_t)v);
    }
    return put_u64(p, (uint64_t)v);
}

int wft_detail_add(char *buf, size_t *len, const char *key, size_t key_len, const char *value,
                   size_t value_len)
{
    for (size_t at = 0; at < *len;) { /* is the key there? */
        const char *end = memchr(buf + at, ',', *len - at);
        size_t n = end ? (size_t)(end - (buf + at)) : *len - at;
        if (n > key_len && buf[at + key_len] == '=' && memcmp(buf + at, key, key_len) == 0)
            return 0;
        at += n + 1;
    }
    size_t need = (*len ? 1 : 0) + key_len + 1 + value_len;
    if (*len + need > WFT_DETAILS_MAX)
        return 0;
    char *p = buf + *len;
    if (*len)
        *p++ = ',';
    for (size_t i = 0; i < key_len; i++) /* a key read from a file may hold anything */
        *p++ = key[i] == '=' ? '_' : key[i];
    p = put_safe(p - key_len, p - key_len, key_len);
    *p++ = '=';
    p = put_safe(p, value, value_len);
    *len = (size_t)(p - buf);
    return 1;
}

size_t wft_format_line(char *buf, int64_t ns, int decimals, const char *event,
                       const char *job, size_t job_len, int partition,
                       int worker, int device)
{
    return wft_format_line_details(buf, ns, decimals, event, job, job_len, partition, worker, device, NULL, 0);
}

size_t wft_format_line_details(char *buf, int64_t ns, int decimals, const char *event,
                               const char *job, size_t job_len, int partition,
                               int worker, int device, const char *details, size_t details_len)
{
    static const int64_t pow10[7] = {1, 10, 100, 1000, 10000, 100000, 1000000};
    char *p = buf;
    if (decimals < 0)
        decimals = 0;
    if (decimals > 6)
        decimals = 6;
    p = put_str(p, "TIMELINE,");
    /* Round to the requested digit on the magnitude (INT64_MIN has no
     * positive twin), then print integer and fraction. */
    uint64_t unit = (uint64_t)(1000000 / pow10[decimals]); /* ns per last digit */
    uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    uint64_t q = mag / unit + (mag % unit >= (unit + 1) / 2 ? 1 : 0);
    if (ns < 0 && q)
        *p++ = '-';
    p = put_u64(p, q / (uint64_t)pow10[decimals]);
    if (decimals) {
        *p++ = '.';
        uint64_t frac = q % (uint64_t)pow10[decimals];
        for (int d = decimals - 1; d >= 0; d--) {
            p[d] = (char)('0' + frac % 10);
            frac /= 10;
        }
        p += decimals;
    }
    *p++ = ',';
    p = put_safe(p, event, strnlen(event, 64));
    *p++ = ',';
    p = put_safe(p, job, job_len > WFT_JOB_MAX ? WFT_JOB_MAX : job_len);
    *p++ = ',';
    int any = 0;
    if (worker >= 0) {
        p = put_str(p, "worker=");
        p = put_int(p, worker);
        any = 1;
    }
    if (partition >= 0) {
        if (any)
            *p++ = ',';
        p = put_str(p, "partition=");
        p = put_int(p, partition);
        any = 1;
    }
    if (device >= 0) {
        if (any)
            *p++ = ',';
        p = put_str(p, "device=");
        p = put_int(p, device);
        any = 1;
    }
    if (details_len) { /* built by wft_detail_add: already safe */
        if (any)
            *p++ = ',';
        if (details_len > WFT_DETAILS_MAX)
            details_len = WFT_DETAILS_MAX;
        memcpy(p, details, details_len);
        p += details_len;
    }
    *p++ = '\n';
    return (size_t)(p - buf);
}
