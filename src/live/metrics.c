/*
 * metrics.c -- the Prometheus text exposition of watch, and its server
 * (metrics.h).  Names follow Prometheus's conventions: base units
 * (seconds), counters end in _total, one family per quantity with labels
 * for device, cause and stage.  Times are the daemon's log time, settled
 * (live.h): counters only grow, so rate() of busy over rate() of busy +
 * idle is the utilization over any range.
 */
#include "metrics.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static void family(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static double sec(int64_t ns)
{
    return (double)ns / 1e9;
}

static void devices(FILE *f, const struct live *l)
{
    family(f, "waterfall_gpu_busy_seconds_total", "counter",
           "Time a device ran units (the union of GPU_START..GPU_END), settled, in the log's time.");
    for (size_t i = 0; i < l->ndev; i++)
        fprintf(f, "waterfall_gpu_busy_seconds_total{device=\"%d\"} %.9f\n", l->dev[i].device, sec(l->dev[i].busy));
    family(f, "waterfall_gpu_idle_seconds_total", "counter",
           "Idle time inside a device's window by cause (first match: prep, queue, synthesis, no_work), settled.");
    for (size_t i = 0; i < l->ndev; i++)
        for (int c = 0; c < CAUSE_N; c++)
            fprintf(f, "waterfall_gpu_idle_seconds_total{device=\"%d\",cause=\"%s\"} %.9f\n", l->dev[i].device,
                    cause_names[c], sec(l->dev[i].by_cause[c]));
    int kern = 0;
    for (size_t i = 0; i < l->ndev; i++)
        kern |= live_kernel_known(&l->dev[i]);
    if (!kern)
        return; /* the log has no kernel phases: no figure, rather than 0 */
    family(f, "waterfall_gpu_kernel_seconds_total", "counter",
           "Time a device ran kernels (the union of KERNEL phases, or of duration lines' gpu_total, inside the GPU phase), settled.");
    for (size_t i = 0; i < l->ndev; i++)
        if (live_kernel_known(&l->dev[i]))
            fprintf(f, "waterfall_gpu_kernel_seconds_total{device=\"%d\"} %.9f\n", l->dev[i].device,
                    sec(l->dev[i].kernel));
}

static void stages(FILE *f, const struct live *l)
{
    family(f, "waterfall_stage_seconds", "histogram",
           "Each completed stage's duration: synthesis, handoff, queue, prep and gpu, as analyze's stages.");
    for (int s = 0; s < ST_N; s++) {
        const struct live_hist *h = &l->stage[s];
        uint64_t cum = 0;
        for (int b = 0; b < LIVE_HIST_N; b++) {
            cum += h->bucket[b];
            fprintf(f, "waterfall_stage_seconds_bucket{stage=\"%s\",le=\"%g\"} %llu\n", stage_names[s],
                    live_hist_le[b], (unsigned long long)cum);
        }
        cum += h->bucket[LIVE_HIST_N];
        fprintf(f, "waterfall_stage_seconds_bucket{stage=\"%s\",le=\"+Inf\"} %llu\n", stage_names[s],
                (unsigned long long)cum);
        fprintf(f, "waterfall_stage_seconds_sum{stage=\"%s\"} %.9f\n", stage_names[s], sec(h->sum_ns));
        fprintf(f, "waterfall_stage_seconds_count{stage=\"%s\"} %llu\n", stage_names[s],
                (unsigned long long)h->count);
    }
}

static void counter(FILE *f, const char *name, const char *help, uint64_t v)
{
    family(f, name, "counter", help);
    fprintf(f, "%s %llu\n", name, (unsigned long long)v);
}

static void gauges(FILE *f, const struct live *l, int bottleneck, double last_record_unix)
{
    struct live_now now;
    live_now(l, &now);
    family(f, "waterfall_units_in_flight", "gauge", "Units between their first event and GPU_END, by the stage they are in.");
    for (int s = 0; s < ST_N; s++)
        fprintf(f, "waterfall_units_in_flight{stage=\"%s\"} %zu\n", stage_names[s], now.in_flight[s]);
    family(f, "waterfall_bottleneck", "gauge",
           "1 for what limits throughput now (analyze's rule over the units kept: in flight and the last completed).");
    for (int b = BN_GPU; b < BN_N; b++)
        fprintf(f, "waterfall_bottleneck{bottleneck=\"%s\"} %d\n", bottleneck_names[b], b == bottleneck);
    family(f, "waterfall_log_seconds", "gauge", "The latest time read from the log, in the current run's epoch.");
    fprintf(f, "waterfall_log_seconds %.9f\n", l->run ? sec(l->run_max) : 0.0);
    family(f, "waterfall_settled_seconds", "gauge", "The log time up to which every figure is final (the horizon).");
    /* a horizon before the log's first instant (the slack behind an early
     * record) is shown as 0: log time is never negative, nothing is settled */
    int64_t settled = l->run && l->horizon > 0 ? (l->horizon == OPEN ? l->run_max : l->horizon) : 0;
    fprintf(f, "waterfall_settled_seconds %.9f\n", sec(settled));
    family(f, "waterfall_last_record_timestamp_seconds", "gauge", "When the last record was read (Unix time).");
    fprintf(f, "waterfall_last_record_timestamp_seconds %.3f\n", last_record_unix);
    if (l->rss_known) { /* a native trace with memory samples only */
        family(f, "waterfall_resident_memory_bytes", "gauge",
               "The recording process's resident memory at its latest sample (a native trace's MEM records).");
        fprintf(f, "waterfall_resident_memory_bytes %llu\n", (unsigned long long)l->rss_bytes);
    }
}

int metrics_text(const struct live *l, int bottleneck, double last_record_unix, char **out, size_t *len)
{
    FILE *f = open_memstream(out, len);
    if (!f)
        return -1;
    devices(f, l);
    counter(f, "waterfall_units_completed_total", "Units that reached GPU_END.", l->units_completed);
    stages(f, l);
    gauges(f, l, bottleneck, last_record_unix);
    counter(f, "waterfall_records_total", "TIMELINE records read.", l->records);
    counter(f, "waterfall_records_skipped_total", "TIMELINE lines skipped: they did not parse, or (a log mixing two clocks) could not be put on the run's clock yet.", l->skipped);
    counter(f, "waterfall_records_late_total",
            "Records that came behind the settled horizon: their units learned them, the settled figures did not.",
            l->late);
    counter(f, "waterfall_duplicate_events_total", "Events seen again for the same unit (the first is kept).",
            l->duplicates);
    counter(f, "waterfall_runs_total", "Runs of the daemon seen (a restart of the epoch starts one).",
            (uint64_t)l->run);
    return fclose(f) ? -1 : 0;
}

/* ---- the server ---- */

#ifdef WF_HAVE_MHD
#include <microhttpd.h>
#include <sys/resource.h>

#if MHD_VERSION < 0x00097002
typedef int MHD_Result_t;
#else
typedef enum MHD_Result MHD_Result_t;
#endif

/* Limits against clients that misbehave (docs/live.md, "Serving metrics
 * safely", says why each value):
 *   - a connection silent for METRICS_IDLE_S seconds is closed: a scraper
 *     sends its request as it connects, an idle socket only holds a slot;
 *   - one address holds at most METRICS_PER_CLIENT connections (more are
 *     closed as they come): a port scanner or a stuck checker cannot take
 *     every slot; 64 leaves a load test of 50 clients from one host whole;
 *   - METRICS_MAX_CONNECTIONS in all: a fleet's few scrapers, people's
 *     curls, and several misbehaving hosts at their per-address limit;
 *   - a connection's buffers are small: a request to /metrics is a line
 *     and a few headers. */
#define METRICS_IDLE_S 3
#define METRICS_PER_CLIENT 64
#define METRICS_MAX_CONNECTIONS 1000
#define METRICS_CONN_MEMORY (16u << 10)

/* Room for that many descriptors: the soft limit raised towards the hard
 * one (a default soft limit of 1024 would cap the connections first). */
static void fd_room(rlim_t want)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur >= want)
        return;
    r.rlim_cur = r.rlim_max == RLIM_INFINITY || r.rlim_max >= want ? want : r.rlim_max;
    setrlimit(RLIMIT_NOFILE, &r);
}

struct metrics_server {
    struct MHD_Daemon *d;
    pthread_mutex_t lock;
    char *text;
    size_t len;
};

static MHD_Result_t answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                           const char *version, const char *upload, size_t *upload_len, void **state)
{
    (void)version, (void)upload, (void)upload_len, (void)state;
    struct metrics_server *s = cls;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        struct MHD_Response *r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
        MHD_add_response_header(r, "Allow", "GET, HEAD");
        MHD_Result_t rc = MHD_queue_response(c, MHD_HTTP_METHOD_NOT_ALLOWED, r);
        MHD_destroy_response(r);
        return rc;
    }
    int found = strcmp(url, "/metrics") == 0;
    struct MHD_Response *r;
    if (found) {
        pthread_mutex_lock(&s->lock);
        r = MHD_create_response_from_buffer(s->len, s->text ? s->text : (void *)"", MHD_RESPMEM_MUST_COPY);
        pthread_mutex_unlock(&s->lock);
        MHD_add_response_header(r, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    } else {
        static const char msg[] = "waterfall watch: the metrics are at /metrics\n";
        r = MHD_create_response_from_buffer(sizeof msg - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
        MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
    }
    if (!r)
        return MHD_NO;
    MHD_Result_t rc = MHD_queue_response(c, found ? MHD_HTTP_OK : MHD_HTTP_NOT_FOUND, r);
    MHD_destroy_response(r);
    return rc;
}

/* "HOST:PORT", "[V6]:PORT" or "PORT" into a socket address. */
static int parse_addr(const char *addr, struct sockaddr_storage *ss, char *err, size_t errlen)
{
    char host[128] = "127.0.0.1";
    const char *port = addr, *colon = strrchr(addr, ':');
    if (colon) {
        const char *h = addr;
        size_t hl = (size_t)(colon - addr);
        if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']')
            h++, hl -= 2;
        if (hl == 0 || hl >= sizeof host) {
            snprintf(err, errlen, "--listen %s: expected HOST:PORT", addr);
            return -1;
        }
        memcpy(host, h, hl);
        host[hl] = 0;
        port = colon + 1;
    }
    char *end;
    long p = strtol(port, &end, 10);
    if (!*port || *end || p < 0 || p > 65535) {
        snprintf(err, errlen, "--listen %s: the port must be a number from 0 to 65535", addr);
        return -1;
    }
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)p);
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)p);
    } else {
        snprintf(err, errlen, "--listen %s: '%s' is not an IP address (names are not resolved: give the address)",
                 addr, host);
        return -1;
    }
    return 0;
}

struct metrics_server *metrics_serve(const char *addr, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    if (parse_addr(addr, &ss, err, errlen))
        return NULL;
    struct metrics_server *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&s->lock, NULL);
    fd_room(METRICS_MAX_CONNECTIONS + 64);
    /* One polling thread (epoll where there is one): an idle or slow client
     * costs a socket, never a thread, and never holds up the others. */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
    if (ss.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    s->d = MHD_start_daemon(flags, 0, NULL, NULL, answer, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)METRICS_MAX_CONNECTIONS,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)METRICS_PER_CLIENT,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)METRICS_IDLE_S,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)METRICS_CONN_MEMORY, MHD_OPTION_END);
    if (!s->d) {
        snprintf(err, errlen, "--listen %s: cannot listen there (in use, or not an address of this host)", addr);
        pthread_mutex_destroy(&s->lock);
        free(s);
        return NULL;
    }
    return s;
}

void metrics_publish(struct metrics_server *s, char *text, size_t len)
{
    pthread_mutex_lock(&s->lock);
    char *old = s->text;
    s->text = text;
    s->len = len;
    pthread_mutex_unlock(&s->lock);
    free(old);
}

void metrics_stop(struct metrics_server *s)
{
    if (!s)
        return;
    MHD_stop_daemon(s->d);
    pthread_mutex_destroy(&s->lock);
    free(s->text);
    free(s);
}

#else /* built without libmicrohttpd */

struct metrics_server {
    int unused;
};

struct metrics_server *metrics_serve(const char *addr, char *err, size_t errlen)
{
    snprintf(err, errlen, "--listen %s: this waterfall was built without libmicrohttpd (install libmicrohttpd-dev and rebuild)",
             addr);
    return NULL;
}

void metrics_publish(struct metrics_server *s, char *text, size_t len)
{
    (void)s, (void)len;
    free(text);
}

void metrics_stop(struct metrics_server *s)
{
    (void)s;
}
#endif
