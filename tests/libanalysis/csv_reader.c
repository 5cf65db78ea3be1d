/*
 * csv_reader.c -- a reader that is not in src/: a tiny CSV of events,
 *
 *     t_ms,job,partition,event,worker,device
 *     0,j1,0,SYNTH_START,,
 *
 * fed to libwaterfall-analysis's builder (wfa_builder), which gives it
 * the whole analysis.  Empty partition, worker or device: none.  A line
 * that is not an event ("restart") ends the run.  The JSON goes to
 * stdout.  This proves the way into the model is neutral: the test
 * compares its JSON with `waterfall analyze --json` of the same events
 * written as TIMELINE lines.
 */
#include <waterfall_analysis.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The next comma-separated field of *p (cut in place). */
static char *field(char **p)
{
    char *f = *p, *c = f ? strchr(f, ',') : NULL;
    if (c)
        *c = 0;
    *p = c ? c + 1 : NULL;
    return f ? f : "";
}

static long num_or(const char *s, long none)
{
    return *s ? strtol(s, NULL, 10) : none;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: csv_reader FILE.csv\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        fprintf(stderr, "csv_reader: %s: cannot open\n", argv[1]);
        return 1;
    }
    wfa_builder *b = wfa_builder_new(argv[1], "csv");
    char line[1024];
    unsigned long long n = 0;
    int rc = 0;
    while (b && !rc && fgets(line, sizeof line, f)) {
        n++;
        line[strcspn(line, "\r\n")] = 0;
        if (!strcmp(line, "restart")) {
            wfa_builder_run_break(b);
            continue;
        }
        if (n == 1 || !*line || line[0] == '#')
            continue; /* the header, or a comment */
        char *p = line;
        char *t = field(&p), *job = field(&p), *part = field(&p), *ev = field(&p), *w = field(&p), *d = field(&p);
        char *end;
        double ms = strtod(t, &end);
        if (end == t || !*job || !*ev) {
            fprintf(stderr, "csv_reader: %s:%llu: not t_ms,job,partition,event,worker,device\n", argv[1], n);
            rc = 1;
            break;
        }
        rc = wfa_builder_event(b, (int64_t)(ms * 1e6), job, (int32_t)num_or(part, -1), ev, (int32_t)num_or(w, -1),
                               (int32_t)num_or(d, -1), n);
    }
    fclose(f);
    wfa_result *res = NULL;
    if (!rc && b)
        rc = wfa_builder_analyze(b, NULL, &res);
    if (res) {
        size_t len;
        const char *j = wfa_result_json(res, &len);
        fwrite(j, 1, len, stdout);
        fputs(wfa_result_messages(res), stderr);
    }
    wfa_result_free(res);
    wfa_builder_free(b);
    return rc;
}
