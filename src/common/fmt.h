/*
 * fmt.h -- how every output writes a value: JSON strings and numbers, text
 * for markup (SVG, HTML), durations and exact seconds for people.  One
 * place, so that every output escapes and rounds alike.
 */
#ifndef FMT_H
#define FMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A JSON string (quotes included) of n bytes of untrusted text: valid
 * UTF-8 is kept, each invalid byte becomes U+FFFD, and < > & U+2028
 * U+2029 are escaped so that it is safe inside an HTML <script> too. */
void json_str(FILE *f, const char *s, size_t n);

/* A JSON number with 9 significant digits, or null (NaN, infinities). */
void json_num(FILE *f, double v);

/* Text for an XML/HTML attribute or element: < > & " escaped, control
 * bytes shown as '?'. */
void markup_text(FILE *f, const char *s, size_t n);

/* "38.0 s", "512 ms", "12.3 us": a duration for people ("-" when NaN). */
const char *fmt_dur(char *buf, size_t n, double ns);

/* ns as an exact decimal number of seconds ("1718000863.5", "-0.000001"):
 * every digit an int64 of nanoseconds holds, none it does not. */
const char *fmt_secs_exact(char *buf, size_t n, int64_t ns);

#endif /* FMT_H */
