/*
 * metrics.h -- what `watch` knows, in the Prometheus text exposition
 * format (version 0.0.4), and the HTTP server that serves it on /metrics.
 *
 * Takes: the live state (live.h) and the bottleneck now.  Gives: the text
 * (metrics_text), and a server (metrics_serve) that hands out the latest
 * text it was given: the watch loop renders the text after each step and
 * publishes it, so a scrape never waits for, or races with, the reader.
 *
 * The server is libmicrohttpd's (Debian's libmicrohttpd, the library that
 * prometheus-client-c uses): an HTTP server is protocol work a well-kept
 * library does better than a hand-written one (keep-alive, partial
 * writes, slow clients, HEAD, limits).  docs/live.md says more.
 *
 * Errors: metrics_text 0/-1 (memory); metrics_serve NULL with a message
 * in err that names the address.
 */
#ifndef METRICS_H
#define METRICS_H

#include "live.h"

#include <stddef.h>

/* The metrics, into a malloc'd buffer *out of *len bytes.  bottleneck:
 * BN_* of the units kept now (BN_NONE: no figure yet); wall: Unix time of
 * the last record read (0: none yet). */
int metrics_text(const struct live *l, int bottleneck, double last_record_unix, char **out, size_t *len);

struct metrics_server;
/* Listen on addr ("HOST:PORT", "[V6]:PORT", or a bare PORT on 127.0.0.1):
 * only there. */
struct metrics_server *metrics_serve(const char *addr, char *err, size_t errlen);
/* Hand the server the text to serve from now on (it takes the buffer). */
void metrics_publish(struct metrics_server *s, char *text, size_t len);
void metrics_stop(struct metrics_server *s);

#endif /* METRICS_H */
