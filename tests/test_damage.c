/*
 * test_damage.c -- torn and corrupt traces.  A good trace is cut at every
 * length and damaged at many places; the reader must never crash, must
 * read everything before the damage, and must say what happened.
 */
#include "check.h"
#include "trace_util.h"

#include <waterfall.h>

int main(void)
{
    const char *path = tmp_path("damage.wft");
    CHECK(wf_open(path) == 0);
    for (int j = 0; j < 50; j++) {
        char id[16];
        snprintf(id, sizeof id, "j%d", j);
        wf_unit u = wf_unit_new(id, j % 4);
        for (int e = 0; e < 6; e++)
            wf_mark((wf_event)e, u);
    }
    CHECK(wf_close() == 0);

    struct input in;
    char err[512];
    CHECK(input_open(&in, path, err, sizeof err) == 0);
    struct wft_trace full, t0;
    CHECK(wft_parse(&full, path, in.data, in.len, err, sizeof err) == 0);
    CHECK_EQ_U(full.nev, 300);
    unsigned char *copy = malloc(in.len);
    memcpy(copy, in.data, in.len);

    /* Every truncation: never an error past the header, events never
     * more than the full trace, monotone in the length, no false damage. */
    size_t prev = 0;
    int monotone = 1, no_false_damage = 1, errs_short = 0;
    for (size_t len = 0; len <= in.len; len++) {
        struct wft_trace t;
        int rc = wft_parse(&t, path, copy, len, err, sizeof err);
        if (len < WFT_HEADER_SIZE) {
            errs_short += rc != 0;
        } else {
            CHECK(rc == 0);
            if (t.nev < prev)
                monotone = 0;
            prev = t.nev;
            if (t.corrupt_at || t.bad_records)
                no_false_damage = 0;
            if (len < in.len)
                CHECK(!t.closed || len >= in.len - sizeof(struct wft_end));
        }
        wft_free(&t);
    }
    CHECK_EQ_U(errs_short, WFT_HEADER_SIZE);
    CHECK(monotone);
    CHECK(no_false_damage);
    CHECK_EQ_U(prev, 300);

    /* Damage in the middle: overwrite 64 bytes with garbage at many
     * offsets.  Never a crash; what follows the damage is still read. */
    srand(7);
    int resynced = 0, flagged = 0, trials = 0;
    for (size_t at = WFT_HEADER_SIZE; at + 64 < in.len; at += 40) {
        memcpy(copy, in.data, in.len);
        for (int i = 0; i < 64; i++)
            copy[at + i] = (unsigned char)rand();
        struct wft_trace t;
        CHECK(wft_parse(&t, path, copy, in.len, err, sizeof err) == 0);
        CHECK(t.nev <= 300); /* every record carries a CRC: damage is never read as data */
        flagged += t.corrupt_at != 0 || t.bad_records != 0 || t.torn_at != 0;
        trials++;
        resynced += t.closed; /* the END record after the damage was found */
        wft_free(&t);
    }
    CHECK_EQ_U(flagged, trials);
    CHECK(resynced > 0);

    /* Random bytes flipped anywhere, 2000 times: no crash. */
    for (int k = 0; k < 2000; k++) {
        memcpy(copy, in.data, in.len);
        for (int i = 0; i < 1 + k % 8; i++)
            copy[(size_t)rand() % in.len] ^= (unsigned char)(1 + rand() % 255);
        struct wft_trace t;
        if (wft_parse(&t, path, copy, in.len, err, sizeof err) == 0)
            wft_sort(&t);
        wft_free(&t);
    }

    /* One bit flipped in an event's timestamp: caught by the CRC. */
    memcpy(copy, in.data, in.len);
    size_t ev_at = 0;
    for (size_t off = WFT_HEADER_SIZE; off + sizeof(struct wft_rec) <= in.len;) {
        struct wft_rec r;
        memcpy(&r, copy + off, sizeof r);
        if (r.type == WFT_EVENTS)
            ev_at = off;
        off += r.size;
    }
    CHECK(ev_at != 0);
    copy[ev_at + sizeof(struct wft_events) + 2] ^= 4;
    CHECK(wft_parse(&t0, path, copy, in.len, err, sizeof err) == 0);
    CHECK(t0.corrupt_at == ev_at);
    CHECK(t0.nev < 300);
    wft_free(&t0);

    /* Not a trace at all. */
    struct wft_trace t;
    CHECK(wft_parse(&t, "x", "", 0, err, sizeof err) != 0);
    CHECK(strstr(err, "empty") != NULL);
    wft_free(&t);
    CHECK(wft_parse(&t, "x", "\x89PNG\r\n\x1a\n", 8, err, sizeof err) != 0);
    CHECK(strstr(err, "not a waterfall trace") != NULL);
    wft_free(&t);
    memcpy(copy, in.data, in.len);
    copy[8] = 9; /* major version 9 */
    CHECK(wft_parse(&t, "x", copy, in.len, err, sizeof err) != 0);
    CHECK(strstr(err, "format 9.") != NULL);
    wft_free(&t);

    wft_free(&full);
    input_close(&in);
    free(copy);
    remove(path);
    return check_done("damage");
}
