/*
 * simdjson_floor.cpp -- how long simdjson (SIMD, On-Demand) takes to read
 * the fields the PyTorch reader needs from every event of a Kineto trace:
 * the floor under any reader built on the fastest JSON parser Debian
 * packages, beside yajl_floor's (bench_kineto.sh prints both).
 *
 * Generous to simdjson on purpose, so that its time is a floor: the trace
 * must hold one event per line (gen_big.py's form), and the events are cut
 * at line ends 1 MiB at a time, each piece parsed as "[...]" by one parser
 * whose index memory is reused (a streaming reader would first have to find
 * the events' ends itself).  Read per event: ph, cat, name, ts, dur, pid,
 * tid, and args' device, stream and correlation.
 * Usage: simdjson_floor FILE.  0, or 1 with the reason on stderr.
 */
#include <simdjson.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <vector>

using namespace simdjson;

static const size_t CHUNK = 1 << 20;

/* Every field the reader keeps, read from one event; what it sums is
 * printed so that nothing is optimized away. */
static int read_event(ondemand::object o, double *sum, size_t *bytes)
{
    for (auto f : o) {
        std::string_view k;
        if (f.unescaped_key().get(k))
            return -1;
        if (k == "ts" || k == "dur") {
            double d;
            if (f.value().get_double().get(d))
                return -1;
            *sum += d;
        } else if (k == "ph" || k == "cat" || k == "name") {
            std::string_view s;
            if (f.value().get_string().get(s))
                return -1;
            *bytes += s.size();
        } else if (k == "pid" || k == "tid") {
            int64_t v;
            if (!f.value().get_int64().get(v)) /* a string pid is skipped */
                *sum += (double)v;
        } else if (k == "args") {
            ondemand::object a;
            if (f.value().get_object().get(a))
                return -1;
            for (auto x : a) {
                std::string_view ak;
                if (x.unescaped_key().get(ak))
                    return -1;
                int64_t v;
                if ((ak == "device" || ak == "stream" || ak == "correlation") && !x.value().get_int64().get(v))
                    *sum += (double)v;
            }
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: simdjson_floor FILE\n");
        return 1;
    }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "simdjson_floor: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    std::vector<char> in(CHUNK), doc(CHUNK + 2 + SIMDJSON_PADDING);
    ondemand::parser parser(doc.size());
    size_t have = 0, events = 0, bytes = 0;
    double sum = 0;
    int started = 0, ended = 0;
    for (;;) {
        ssize_t n = read(fd, in.data() + have, in.size() - have);
        if (n < 0) {
            fprintf(stderr, "simdjson_floor: %s: %s\n", argv[1], strerror(errno));
            return 1;
        }
        have += (size_t)n;
        if (have == 0)
            break;
        const char *b = in.data(), *e = b + have;
        if (!started) { /* the array's opening: its line ends the head */
            const char *t = (const char *)memmem(b, have, "\"traceEvents\"", 13);
            const char *nl = t ? (const char *)memchr(t, '\n', (size_t)(e - t)) : NULL;
            if (!nl) {
                fprintf(stderr, "simdjson_floor: %s: no \"traceEvents\" line in the first MiB\n", argv[1]);
                return 1;
            }
            b = nl + 1;
            started = 1;
        }
        const char *last = (const char *)memrchr(b, '\n', (size_t)(e - b));
        if (!last && n > 0) {
            fprintf(stderr, "simdjson_floor: %s: a line over 1 MiB (one event per line is needed)\n", argv[1]);
            return 1;
        }
        const char *upto = n == 0 || !last ? e : last + 1;
        /* "[" + the whole lines + "]", less the last event's comma, and
         * less the array's end and what follows it */
        size_t len = (size_t)(upto - b);
        /* the array's end: the first line that ends in "]" or "],"
         * (an event's line ends in "}" or "},") */
        const char *close = NULL;
        for (const char *c = b; !close && (c = (const char *)memchr(c, ']', (size_t)(upto - c))); c++) {
            const char *q = c + 1;
            q += q < upto && *q == ',';
            q += q < upto && *q == '\r';
            if (q < upto && *q == '\n')
                close = c;
        }
        if (close) /* back to its line's start */
            while (close > b && close[-1] != '\n')
                close--;
        if (close)
            len = (size_t)(close - b), ended = 1;
        while (len && (b[len - 1] == '\n' || b[len - 1] == '\r' || b[len - 1] == ' ' || b[len - 1] == ','))
            len--;
        doc[0] = '[';
        memcpy(doc.data() + 1, b, len);
        doc[len + 1] = ']';
        ondemand::document d;
        ondemand::array arr;
        if (parser.iterate(doc.data(), len + 2, doc.size()).get(d) || d.get_array().get(arr)) {
            fprintf(stderr, "simdjson_floor: %s: not JSON that simdjson reads\n", argv[1]);
            return 1;
        }
        for (auto ev : arr) {
            ondemand::object o;
            if (ev.get_object().get(o) || read_event(o, &sum, &bytes)) {
                fprintf(stderr, "simdjson_floor: %s: an event simdjson does not read\n", argv[1]);
                return 1;
            }
            events++;
        }
        if (ended || n == 0)
            break;
        have = (size_t)(e - upto);
        memmove(in.data(), upto, have);
    }
    close(fd);
    printf("%zu events (%zu string bytes, sum %g) by %s\n", events, bytes, sum,
           get_active_implementation()->name().data());
    return 0;
}
