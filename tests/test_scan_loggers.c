/*
 * test_scan_loggers.c -- scan_line on the shapes Rust's loggers give a
 * TIMELINE target (tracing-subscriber's default, coloured, pretty and JSON
 * formats, env_logger), record by record: the event, the job, the time
 * (the record's ts=, else the line's own RFC 3339 timestamp), the details
 * kept; what is not a record; where the line starts when the buffer holds
 * lines before it; hostile input.
 */
#include "check.h"

#include "scan.h"

#include <string.h>

#define S 1000000000LL
/* 2026-02-18T19:21:07Z */
#define T0 (1771442467LL * S)

static char scratch[SCAN_LINE_MAX];
static struct scan_rec r;

/* The first TIMELINE in line that is a record (or the last verdict), as
 * read_text goes: past a SCAN_NOT_RECORD to the next hit.  ls is where
 * the buffer starts (lines may come before line). */
static enum scan_err scan_in(const char *ls, const char *line)
{
    const char *eol = line + strlen(line);
    enum scan_err e = SCAN_NOT_RECORD;
    for (const char *hit = scan_find(line, eol); hit; hit = scan_find(hit + 8, eol)) {
        memset(&r, 0xa5, sizeof r);
        e = scan_line(ls, hit, eol, scratch, &r);
        if (e != SCAN_NOT_RECORD)
            break;
    }
    return e;
}

static enum scan_err scan(const char *line)
{
    return scan_in(line, line);
}

static int job_is(const char *j)
{
    return r.job && r.job_len == strlen(j) && memcmp(r.job, j, r.job_len) == 0;
}

/* Detail k is kept with value v. */
static int kv_is(const char *k, const char *v)
{
    for (int i = 0; i < r.nkv; i++)
        if (r.kv[i].kn == strlen(k) && memcmp(r.kv[i].k, k, r.kv[i].kn) == 0)
            return r.kv[i].vn == strlen(v) && memcmp(r.kv[i].v, v, r.kv[i].vn) == 0;
    return 0;
}

/* Every shape with ts=: the same record. */
static void shapes_with_ts(void)
{
    static const char *const lines[] = {
        "TIMELINE gpu_start job=abc ts=31.5 worker=1 gpu=0 kind=porep-c2",
        "2026-02-18T19:21:07.512034Z  INFO TIMELINE: gpu_start job=abc ts=31.500 worker=1 gpu=0 kind=porep-c2",
        "2026-02-18T19:21:07.512034Z  INFO TIMELINE: gpu_start job=\"abc\" ts=31.5 worker=1 gpu=0 kind=\"porep-c2\"",
        "2026-02-18T19:21:07.512034Z  INFO TIMELINE: kind=porep-c2 gpu=0 worker=1 ts=31.5 job=abc event=\"gpu_start\"",
        "2026-02-18T19:21:07.512034Z  INFO TIMELINE:gpu_start job=abc ts=31.5 worker=1 gpu=0 kind=porep-c2",
        "\x1b[2m2026-02-18T19:21:07.512034Z\x1b[0m \x1b[32m INFO\x1b[0m \x1b[2mTIMELINE\x1b[0m\x1b[2m:\x1b[0m gpu_start "
        "\x1b[3mjob\x1b[0m\x1b[2m=\x1b[0mabc \x1b[3mts\x1b[0m\x1b[2m=\x1b[0m31.5 \x1b[3mworker\x1b[0m\x1b[2m=\x1b[0m1 "
        "\x1b[3mgpu\x1b[0m\x1b[2m=\x1b[0m0 \x1b[3mkind\x1b[0m\x1b[2m=\x1b[0mporep-c2",
        "2026-02-18T19:21:07.512034Z  INFO ThreadId(02) prove{job=other}: TIMELINE: src/main.rs:42: gpu_start job=abc "
        "ts=31.5 worker=1 gpu=0 kind=porep-c2",
        "2026-02-18T19:21:07.512034Z  INFO TIMELINE: 42: gpu_start job=abc ts=31.5 worker=1 gpu=0 kind=porep-c2",
        "  2026-02-18T19:21:07.512034Z  INFO TIMELINE: gpu_start, job: \"abc\", ts: 31.5, worker: 1, gpu: 0, kind: \"porep-c2\"",
        "[2026-02-18T19:21:07Z INFO  TIMELINE] gpu_start job=abc ts=31.500 worker=1 gpu=0 kind=porep-c2",
        "\x1b[2m[\x1b[0m2026-02-18T19:21:07Z \x1b[32mINFO \x1b[0m TIMELINE\x1b[2m]\x1b[0m gpu_start job=abc ts=31.5 "
        "worker=1 gpu=0 kind=porep-c2",
        "{\"timestamp\":\"2026-02-18T19:21:07.512034Z\",\"level\":\"INFO\",\"fields\":{\"message\":\"gpu_start\",\"job\":"
        "\"abc\",\"ts\":31.5,\"worker\":1,\"gpu\":0,\"kind\":\"porep-c2\"},\"target\":\"TIMELINE\"}",
        "{\"timestamp\":\"2026-02-18T19:21:07.512034Z\",\"level\":\"INFO\",\"target\": \"TIMELINE\",\"fields\":{\"event\":"
        "\"gpu_start\",\"job\":\"\\\"abc\\\"\",\"ts\":\"31.5\",\"worker\":\"1\",\"gpu\":0,\"kind\":\"\\\"porep-c2\\\"\"},"
        "\"span\":{\"name\":\"prove\"},\"spans\":[{\"name\":\"prove\",\"target\":\"x\"}]}",
        "{\"timestamp\":\"2026-02-18T19:21:07.512034Z\",\"level\":\"INFO\",\"message\":\"gpu_start\",\"job\":\"abc\",\"ts\""
        ":3.15e1,\"worker\":1,\"gpu\":0,\"kind\":\"porep-c2\",\"target\":\"TIMELINE\",\"threadId\":\"ThreadId(2)\"}",
        "{\"log\":\"2026-02-18T19:21:07.512034Z  INFO \\u001b[2mTIMELINE\\u001b[0m\\u001b[2m:\\u001b[0m gpu_start "
        "job=\\\"abc\\\" ts=31.5 worker=1 gpu=0 kind=\\\"porep-c2\\\"\\n\",\"stream\":\"stderr\"}",
        "2026-02-18T19:21:07.512034Z  INFO TIMELINE: 31500,GPU_START,abc,worker=1,gpu=0,kind=porep-c2",
        "2026-02-18T19:21:07.512034Z  INFO TIMELINE: TIMELINE,31500,GPU_START,abc,worker=1,gpu=0,kind=porep-c2",
        "2026-02-18T19:21:07.512034Z  INFO TIMELINE: TIMELINE gpu_start job=abc ts=31.5 worker=1 gpu=0 kind=porep-c2",
        "{\"timestamp\":\"2026-02-18T19:21:07.512034Z\",\"level\":\"INFO\",\"fields\":{\"message\":\"TIMELINE,31500,"
        "GPU_START,abc,worker=1,gpu=0,kind=porep-c2\"},\"target\":\"TIMELINE\"}",
        "{\"timestamp\":\"2026-02-18T19:21:07.512034Z\",\"level\":\"INFO\",\"target\":\"TIMELINE\",\"fields\":{\"message\":"
        "\"TIMELINE,31500,GPU_START,abc,worker=1,gpu=0,kind=porep-c2\"}}",
        "2026-02-18T19:21:07.512034+00:00 INFO TIMELINE - gpu_start job=abc ts=31.5 worker=1 gpu=0 kind=porep-c2",
        "2026-02-18T19:21:07.512Z INFO  TIMELINE > gpu_start job=abc ts=31.5 worker=1 gpu=0 kind=porep-c2",
        "[2026-02-18 19:21:07.512034 +01:00] INFO [TIMELINE] src/main.rs:42: gpu_start job=abc ts=31.5 worker=1 gpu=0 "
        "kind=porep-c2",
        "{\"timestamp\":\"2026-02-18T19:21:07.512034Z\",\"level\":\"INFO\",\"target\":\"TIMELINE\",\"fields\":{\"message\":"
        "\"TIMELINE gpu_start\",\"job\":\"abc\",\"ts\":31.5,\"worker\":1,\"gpu\":0,\"kind\":\"porep-c2\"}}",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        enum scan_err e = scan(lines[i]);
        int good = e == SCAN_OK && r.ev == EV_GPU_START && job_is("abc") && r.t_ns == 31500 * 1000000LL &&
                   r.wall == 0 && r.worker == 1 && r.device == 0 && r.partition == -1 && r.nkv == 1 &&
                   kv_is("kind", "porep-c2");
        CHECK(good);
        if (!good)
            fprintf(stderr, "  shape %zu: %s: ev %d job %.*s t %lld wall %d worker %d device %d nkv %d\n", i,
                    scan_err_key[e], r.ev, r.job ? (int)r.job_len : 0, r.job ? r.job : "", (long long)r.t_ns,
                    r.wall, r.worker, r.device, r.nkv);
    }
}

/* No ts=: the line's own timestamp, as nanoseconds since 1970 (UTC). */
static void line_timestamps(void)
{
    CHECK(scan("2026-02-18T19:21:07.512034Z  INFO TIMELINE: synth_start job=abc") == SCAN_OK);
    CHECK(r.wall == 1 && r.t_ns == T0 + 512034000 && r.ev == EV_SYNTH_START && job_is("abc"));
    CHECK(scan("2026-02-18T19:21:07Z  INFO TIMELINE: synth_start job=abc") == SCAN_OK && r.t_ns == T0);
    CHECK(scan("2026-02-18 21:21:07.5+02:00  INFO TIMELINE: synth_start job=abc") == SCAN_OK &&
          r.t_ns == T0 + S / 2);
    CHECK(scan("2026-02-18T13:51:07-05:30 TIMELINE: synth_start job=abc") == SCAN_OK && r.t_ns == T0);
    CHECK(scan("2026-02-18t21:21:07+0200 TIMELINE: synth_start job=abc") == SCAN_OK && r.t_ns == T0);
    CHECK(scan("2026-02-18T19:21:07.123456789999z TIMELINE: synth_start job=abc") == SCAN_OK &&
          r.t_ns == T0 + 123456789);
    CHECK(scan("2026-02-18T19:21:07 TIMELINE: synth_start job=abc") == SCAN_OK && r.t_ns == T0); /* no zone: UTC */
    CHECK(scan("2026-02-18T20:21:07+01 TIMELINE: synth_start job=abc") == SCAN_OK && r.t_ns == T0);
    CHECK(scan("[2026-02-18 20:21:07 +01:00] INFO [TIMELINE] synth_start job=abc") == SCAN_OK && r.t_ns == T0);
    CHECK(scan("2026-02-18T19:21:07.000+00:00 INFO TIMELINE - synth_start job=abc") == SCAN_OK && r.t_ns == T0 &&
          r.ev == EV_SYNTH_START);
    CHECK(scan("INFO  TIMELINE > logging enabled") == SCAN_NOT_RECORD);
    CHECK(scan("2026-02-18T19:21:07-worker1 TIMELINE: synth_start job=abc") == SCAN_OK && r.t_ns == T0);
    CHECK(scan("2026-02-19T00:00:00Z TIMELINE: synth_start job=abc") == SCAN_OK &&
          r.t_ns == (1771459200LL * S)); /* the next day */
    CHECK(scan("2028-02-29T00:00:00Z TIMELINE: synth_start job=abc") == SCAN_OK &&
          r.t_ns == 1835395200LL * S); /* a leap day */
    /* in colour, after '[', after a host name with digits, among others */
    CHECK(scan("\x1b[2m2026-02-18T19:21:07.512034Z\x1b[0m \x1b[32m INFO\x1b[0m \x1b[2mTIMELINE\x1b[0m\x1b[2m:\x1b[0m "
               "synth_start \x1b[3mjob\x1b[0m\x1b[2m=\x1b[0mabc") == SCAN_OK &&
          r.t_ns == T0 + 512034000 && r.wall);
    CHECK(scan("[2026-02-18T19:21:07.512Z INFO  TIMELINE] synth_start job=abc") == SCAN_OK &&
          r.t_ns == T0 + 512000000);
    CHECK(scan("node12026-01-01 2026-02-18T19:21:07Z INFO TIMELINE: synth_start job=abc") == SCAN_OK &&
          r.t_ns == T0);
    /* only before the record: a date after it is not the line's */
    CHECK(scan("INFO TIMELINE: synth_start job=abc at=2026-02-18T19:21:07Z") == SCAN_BAD_TIME);
    /* the plain seed form takes it too */
    CHECK(scan("2026-02-18T19:21:07Z TIMELINE synth_start job=abc") == SCAN_OK && r.wall && r.t_ns == T0);
    /* tracing JSON: its "timestamp" */
    CHECK(scan("{\"fields\":{\"message\":\"synth_end\",\"job\":\"abc\"},\"target\":\"TIMELINE\",\"timestamp\":"
               "\"2026-02-18T19:21:08Z\"}") == SCAN_OK &&
          r.wall && r.t_ns == T0 + S && r.ev == EV_SYNTH_END);
    /* a prefix with braces before the object; a location before an inner record */
    CHECK(scan("Feb 18 host d[1]: prove{a=1}: {\"timestamp\":\"2026-02-18T19:21:08Z\",\"fields\":{\"message\":"
               "\"synth_end\",\"job\":\"abc\"},\"target\":\"TIMELINE\"}") == SCAN_OK &&
          r.t_ns == T0 + S && r.ev == EV_SYNTH_END);
    CHECK(scan("2026-02-18T19:21:07Z INFO TIMELINE: src/main.rs:42: TIMELINE gpu_end job=x") == SCAN_OK &&
          r.ev == EV_GPU_END && r.wall && r.t_ns == T0);
    /* Bunyan's "time", "msg" */
    CHECK(scan("{\"v\":0,\"name\":\"d\",\"msg\":\"synth_end\",\"level\":30,\"time\":\"2026-02-18T19:21:08Z\","
               "\"target\":\"TIMELINE\",\"job\":\"abc\"}") == SCAN_OK &&
          r.wall && r.t_ns == T0 + S && r.ev == EV_SYNTH_END && job_is("abc") && r.nkv == 0);
    /* not a date: no time, the record is skipped */
    CHECK(scan("2026-02-29T19:21:07Z TIMELINE: synth_start job=abc") == SCAN_BAD_TIME);
    CHECK(scan("2026-13-18T19:21:07Z TIMELINE: synth_start job=abc") == SCAN_BAD_TIME);
    CHECK(scan("2026-02-18T24:21:07Z TIMELINE: synth_start job=abc") == SCAN_BAD_TIME);
    CHECK(scan("1969-12-31T23:59:59Z TIMELINE: synth_start job=abc") == SCAN_BAD_TIME);
    CHECK(scan("2200-01-01T00:00:00Z TIMELINE: synth_start job=abc") == SCAN_BAD_TIME); /* past 2^62 ns */
    CHECK(scan("INFO TIMELINE: synth_start job=abc") == SCAN_BAD_TIME);
    CHECK(scan("{\"fields\":{\"message\":\"synth_end\",\"job\":\"abc\"},\"target\":\"TIMELINE\"}") == SCAN_BAD_TIME);
    /* ts= wins over the line's clock */
    CHECK(scan("2026-02-18T19:21:07Z TIMELINE: synth_start job=abc ts=2.5") == SCAN_OK && !r.wall &&
          r.t_ns == 2500000000LL);
}

/* Seconds as Rust and JSON write floats. */
static void seconds(void)
{
    CHECK(scan("TIMELINE: synth_start job=a ts=1.5e-5") == SCAN_OK && r.t_ns == 15000);
    CHECK(scan("TIMELINE: synth_start job=a ts=2E3") == SCAN_OK && r.t_ns == 2000 * S);
    CHECK(scan("TIMELINE: synth_start job=a ts=1e+2") == SCAN_OK && r.t_ns == 100 * S);
    CHECK(scan("TIMELINE: synth_start job=a ts=1e-10") == SCAN_OK && r.t_ns == 0);
    CHECK(scan("TIMELINE: synth_start job=a ts=123.456789012e-2") == SCAN_OK && r.t_ns == 1234567890);
    CHECK(scan("TIMELINE: synth_start job=a ts=\"0.25\"") == SCAN_OK && r.t_ns == S / 4);
    CHECK(scan("TIMELINE: synth_start job=a ts=1e30") == SCAN_BAD_TIME);
    CHECK(scan("TIMELINE: synth_start job=a ts=-1") == SCAN_BAD_TIME);
    CHECK(scan("TIMELINE: synth_start job=a ts=1e") == SCAN_BAD_TIME);
    CHECK(scan("TIMELINE: synth_start job=a ts=e5") == SCAN_BAD_TIME);
    CHECK(scan("TIMELINE: synth_start job=a ts=NaN") == SCAN_BAD_TIME);
    CHECK(scan("{\"fields\":{\"message\":\"synth_start\",\"job\":\"a\",\"ts\":-0.5},\"target\":\"TIMELINE\"}") ==
          SCAN_BAD_TIME);
}

/* Values, names and details. */
static void values(void)
{
    /* a quoted value may hold blanks and escaped quotes */
    CHECK(scan("INFO TIMELINE: synth_start job=\"a \\\"b\\\" \\\\c\" ts=1 note=\"two words\" monolithic") == SCAN_OK);
    CHECK(job_is("a \"b\" \\c") && kv_is("note", "two words") && r.nkv == 1);
    /* an unterminated quote: the word as it is */
    CHECK(scan("INFO TIMELINE: synth_start job=\"abc ts=1") == SCAN_OK && job_is("\"abc"));
    /* event= before the message; any name is data; GPU_QUEUE */
    CHECK(scan("INFO TIMELINE: GPU phase done event=gpu_end job=a ts=1") == SCAN_OK && r.ev == EV_GPU_END);
    CHECK(scan("INFO TIMELINE: proof_verified job=a ts=1") == SCAN_OK && r.ev == EV_OTHER &&
          r.name_len == 14 && memcmp(r.name, "proof_verified", 14) == 0);
    CHECK(scan("INFO TIMELINE: event=\"kernel_start\" job=a ts=1") == SCAN_OK && r.ev == EV_OTHER &&
          r.name_len == 12);
    CHECK(scan("INFO TIMELINE: gpu_queue job=a ts=1 partition=2") == SCAN_OK && r.ev == EV_CHAN_SEND && r.queue &&
          r.partition == 2);
    CHECK(scan("[2026-02-18T19:21:07Z INFO  TIMELINE] GPU_QUEUE job=a") == SCAN_OK && r.queue && r.wall);
    /* JSON: numbers, strings, {:?} strings, null and objects among the fields */
    CHECK(scan("{\"timestamp\":\"2026-02-18T19:21:07Z\",\"fields\":{\"message\":\"synth_end\",\"job\":17,\"partition\":"
               "\"\\\"3\\\"\",\"synth_ms\":36512,\"ok\":true,\"none\":null,\"obj\":{\"a\":[1,{\"b\":\"}\"}]},\"esc\":"
               "\"tab\\there \\u00e9\\ud83d\\ude00\"},\"target\":\"TIMELINE\"}") == SCAN_OK);
    CHECK(job_is("17") && r.partition == 3 && kv_is("synth_ms", "36512") && kv_is("ok", "true") &&
          kv_is("esc", "tab here \xc3\xa9\xf0\x9f\x98\x80") && r.nkv == 3 && r.wall);
    /* bad numbers are counted, as in the other forms */
    CHECK(scan("INFO TIMELINE: gpu_start job=a ts=1 worker=x") == SCAN_BAD_NUMBER);
    CHECK(scan("{\"fields\":{\"message\":\"gpu_start\",\"job\":\"a\",\"ts\":1,\"worker\":-1},\"target\":\"TIMELINE\"}") ==
          SCAN_BAD_NUMBER);
    CHECK(scan("INFO TIMELINE: gpu_start job= ts=1") == SCAN_NO_JOB);
    CHECK(scan("INFO TIMELINE: job=a ts=1") == SCAN_BAD_EVENT);
    CHECK(scan("INFO TIMELINE: g$pu job=a ts=1") == SCAN_UNKNOWN_EVENT);
    CHECK(scan("INFO TIMELINE: gpu_start ts=1") == SCAN_NO_JOB);
    CHECK(scan("INFO TIMELINE: gpu_start") == SCAN_NO_JOB); /* one of the six: a record without its job */
}

/* A line that mentions TIMELINE is not a record: not counted, not skipped. */
static void not_records(void)
{
    static const char *const lines[] = {
        "2026-02-18T19:21:07Z INFO cuzk: TIMELINE logging enabled",
        "2026-02-18T19:21:07Z INFO TIMELINE: logging enabled",
        "2026-02-18T19:21:07Z INFO TIMELINE: logging enabled for 2 workers, 1 gpu",
        "[2026-02-18T19:21:07Z INFO  TIMELINE] started",
        "\x1b[2mTIMELINE\x1b[0m\x1b[2m:\x1b[0m logging enabled",
        "INFO TIMELINE::writer: synth_start job=a ts=1",
        "INFO TIMELINE:",
        "INFO TIMELINE: ",
        "TIMELINE ",
        "TIMELINES: synth_start job=a ts=1",
        "{\"fields\":{\"message\":\"logging enabled\"},\"target\":\"TIMELINE\"}",
        "{\"fields\":{\"message\":\"TIMELINE logging enabled\"},\"target\":\"cuzk\"}",
        "{\"fields\":{\"message\":\"synth_start\",\"job\":\"a\",\"ts\":1},\"target\":\"TIMELINE_X\"}",
        ("{\"fields\":{\"message\":\"synth_start\",\"job\":\"a\",\"ts\":1},\"target\":\"cuzk\",\"spans\":[{\"target\":"
         "\"TIMELINE\"}]}"),
        "{\"msg\":\"TIMELINE\"}",
        "{\"fields\":{\"message\":\"synth_start\",\"job\":\"a\",\"ts\":1},\"target\":\"TIMELINE\"", /* cut off */
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        enum scan_err e = scan(lines[i]);
        CHECK(e == SCAN_NOT_RECORD);
        if (e != SCAN_NOT_RECORD)
            fprintf(stderr, "  line %zu: %s: %s\n", i, scan_err_key[e], lines[i]);
    }
    /* TIMELINE in colour is still TIMELINE, and what follows its colour code decides */
    CHECK(scan("\x1b[1mTIMELINE\x1b[0m,5,GPU_END,a,") == SCAN_OK && r.ev == EV_GPU_END && job_is("a"));
    CHECK(scan("TIMELINE\x1b[0mX,5,GPU_END,a,") == SCAN_NOT_RECORD);
    CHECK(scan("TIMELINE:\x1bTIMELINE: x") == SCAN_NOT_RECORD);
    /* the outer TIMELINE of TIMELINE: TIMELINE,... is not the record; the inner one is */
    const char *l = "INFO TIMELINE: TIMELINE,5,GPU_END,a,";
    CHECK(scan_line(l, strstr(l, "TIMELINE"), l + strlen(l), scratch, &r) == SCAN_NOT_RECORD);
    CHECK(scan(l) == SCAN_OK && r.ev == EV_GPU_END && r.t_ns == 5000000);
}

/* The buffer holds lines before the record's: its clock is its own line's,
 * found by looking back for the line's start. */
static void line_start(void)
{
    static char buf[3 * SCAN_LINE_MAX];
    strcpy(buf, "2026-02-18T19:21:00Z INFO x: first\n2026-02-18T19:21:07Z INFO TIMELINE: synth_start job=abc");
    CHECK(scan_in(buf, strchr(buf, '\n') + 1) == SCAN_OK && r.t_ns == T0);
    strcpy(buf, "2026-02-18T19:21:00Z INFO x: first\nINFO TIMELINE: synth_start job=abc");
    CHECK(scan_in(buf, strchr(buf, '\n') + 1) == SCAN_BAD_TIME); /* not the line before's */
    strcpy(buf, "{\"level\":\"x\"}\n{\"fields\":{\"message\":\"synth_start\",\"job\":\"a\",\"ts\":1},\"target\":"
                "\"TIMELINE\"}");
    CHECK(scan_in(buf, strchr(buf, '\n') + 1) == SCAN_OK && job_is("a"));
    /* a JSON line whose start is more than SCAN_LINE_MAX bytes before its
     * target: too long; a text record that far along its line reads the
     * clock in the SCAN_LINE_MAX bytes before it */
    memset(buf, ' ', sizeof buf);
    const char *head = "{\"fields\":{\"message\":\"synth_start\",\"job\":\"a\",\"pad\":\"";
    memcpy(buf, head, strlen(head));
    strcpy(buf + SCAN_LINE_MAX + 100, "\",\"ts\":1},\"target\":\"TIMELINE\"}");
    CHECK(scan(buf) == SCAN_TOO_LONG);
    memset(buf, ' ', sizeof buf);
    memcpy(buf, "2026-02-18T19:21:00Z", 20);
    memcpy(buf + SCAN_LINE_MAX + 50, "2026-02-18T19:21:07Z", 20);
    strcpy(buf + SCAN_LINE_MAX + 100, "TIMELINE: synth_start job=abc");
    CHECK(scan(buf) == SCAN_OK && r.t_ns == T0);
}

/* Bytes a logger would never write: no crash, no read past the line. */
static void hostile(void)
{
    static const char *const lines[] = {
        "{\"target\":\"TIMELINE\"}",
        "\"target\":\"TIMELINE\"",
        "{\"fields\":{\"message\":\"\\",
        "{\"fields\":{\"message\":\"\\u12\"},\"target\":\"TIMELINE\"}",
        "{\"fields\":{\"message\":\"\\ud800\",\"job\":\"a\",\"ts\":1},\"target\":\"TIMELINE\"}",
        "{\"fields\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[,\"target\":\"TIMELINE\"}",
        "{\"fields\":{\"message\":\"x\",\"job\":\"a\",\"ts\":1},\"target\":\"TIMELINE\"}}}}}",
        "{\"fields\":{\"message\" \"x\"},\"target\":\"TIMELINE\"}",
        "{,,,,\"target\":\"TIMELINE\"}",
        "TIMELINE: \"",
        "TIMELINE: job=\"",
        "TIMELINE: job=\"\\",
        "TIMELINE: a, b: ",
        "TIMELINE: a, job:",
        "TIMELINE: x ts=1e-99999999999",
        "TIMELINE: x job=a ts=00000000000000000000000000000000000000000000000000000000000001e2",
        "TIMELINE: x job=a ts=1.00000000000000000000000000000000000000000000000000000000000000e-2",
        "9999-99-99T99:99:99.9999999999999999+99:99 TIMELINE: x job=a",
        "2026-02-18T19:21:07+0 TIMELINE: x job=a",
        "2026-02-18T19:21:07. TIMELINE: x job=a",
        "TIMELINE\x1b",
        "TIMELINE\x1b[",
        "TIMELINE\\u001b",
        "TIMELINE]",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        /* an exact-size copy: ASan sees a read past the line */
        size_t n = strlen(lines[i]);
        char *c = malloc(n + 1);
        memcpy(c, lines[i], n + 1);
        enum scan_err e = scan(c);
        CHECK(e <= SCAN_TOO_LONG);
        if (e == SCAN_OK)
            CHECK(r.t_ns >= 0 && r.job_len > 0 && r.ev >= 0 && r.ev <= EV_OTHER);
        free(c);
    }
    CHECK(scan("TIMELINE: x job=a ts=1.00000000000000000000000000000000000000000000000000000000000000e-2") == SCAN_OK &&
          r.t_ns == S / 100);
}

int main(void)
{
    shapes_with_ts();
    line_timestamps();
    seconds();
    values();
    not_records();
    line_start();
    hostile();
    return check_done("scan_loggers");
}
