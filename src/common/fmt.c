/*
 * fmt.c -- how every output writes a value (see fmt.h).
 */
#include "fmt.h"

#include <math.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t len;
    uint32_t cp;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        len = 2, cp = s[0] & 0x1f;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        len = 3, cp = s[0] & 0x0f;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        len = 4, cp = s[0] & 0x07;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0; /* overlong, a surrogate, or past U+10FFFF */
    return len;
}

void json_str(FILE *f, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    fputc('"', f);
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc(c, f);
            i++;
        } else if (c < 0x20 || c == 0x7f || c == '<' || c == '>' || c == '&') {
            fprintf(f, "\\u%04x", c);
            i++;
        } else if (c < 0x80) {
            fputc(c, f);
            i++;
        } else {
            size_t len = utf8_len(s + i, n - i);
            if (!len) {
                fputs("\\ufffd", f);
                i++;
            } else if (len == 3 && c == 0xe2 && s[i + 1] == 0x80 && (s[i + 2] == 0xa8 || s[i + 2] == 0xa9)) {
                fprintf(f, "\\u%04x", 0x2000 | (s[i + 2] & 0x3f)); /* U+2028, U+2029 */
                i += 3;
            } else {
                fwrite(s + i, 1, len, f);
                i += len;
            }
        }
    }
    fputc('"', f);
}

void json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.9g", v);
    else
        fputs("null", f);
}

void markup_text(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '<')
            fputs("&lt;", f);
        else if (c == '>')
            fputs("&gt;", f);
        else if (c == '&')
            fputs("&amp;", f);
        else if (c == '"')
            fputs("&quot;", f);
        else if (c < 0x20 || c == 0x7f)
            fputc('?', f);
        else
            fputc(c, f);
    }
}

const char *fmt_secs_exact(char *buf, size_t n, int64_t ns)
{
    uint64_t m = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
    int len = snprintf(buf, n, "%s%llu.%09llu", ns < 0 ? "-" : "", (unsigned long long)(m / 1000000000u),
                       (unsigned long long)(m % 1000000000u));
    while (len > 0 && (size_t)len < n && buf[len - 1] == '0')
        buf[--len] = 0;
    if (len > 0 && (size_t)len < n && buf[len - 1] == '.')
        buf[--len] = 0;
    return buf;
}

const char *fmt_dur(char *buf, size_t n, double ns)
{
    double a = fabs(ns);
    if (!isfinite(ns))
        snprintf(buf, n, "-");
    /* each unit from where the smaller one's rounding would print 1000,
     * or 100.00 s (999.96 ms is "1.00 s", not "1000.0 ms"); view.js's
     * fmtDur is the same */
    else if (a >= 99.995e9)
        snprintf(buf, n, "%.0f s", ns / 1e9);
    else if (a >= 999.95e6)
        snprintf(buf, n, "%.2f s", ns / 1e9);
    else if (a >= 999.95e3)
        snprintf(buf, n, "%.1f ms", ns / 1e6);
    else if (a >= 999.5)
        snprintf(buf, n, "%.1f us", ns / 1e3);
    else
        snprintf(buf, n, "%.0f ns", ns);
    return buf;
}
