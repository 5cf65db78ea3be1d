/*
 * test_roundtrip.c -- what was marked is what the trace holds and what
 * `waterfall dump` prints: names, partitions, workers, devices, user
 * events, thread names, in order per thread; a unit's details
 * (wf_unit_detail: kind=), the first value of a key kept.
 */
#include "check.h"
#include "trace_util.h"

#include <waterfall.h>

#include <errno.h>
#include <pthread.h>

#define JOBS 20
#define PARTS 3

static wf_unit units[JOBS][PARTS];
static int user_ev;

static void *gpu_thread(void *arg)
{
    int worker = (int)(long)arg;
    wf_thread_name(worker ? "gpu-b" : "gpu-a");
    wf_thread_worker(worker, 7);
    for (int j = 0; j < JOBS; j++)
        for (int p = 0; p < PARTS; p++)
            if ((j + p) % 2 == worker) {
                wf_mark(WF_GPU_PICKUP, units[j][p]);
                wf_mark(WF_GPU_START, units[j][p]);
                wf_mark((wf_event)user_ev, units[j][p]);
                wf_mark(WF_GPU_END, units[j][p]);
            }
    return NULL;
}

int main(void)
{
    const char *path = tmp_path("roundtrip.wft");
    user_ev = wf_event_define("MSM_DONE"); /* before open: must still be named */
    CHECK(user_ev >= WF_EVENT_USER_FIRST);
    CHECK(wf_event_define("MSM_DONE") == user_ev);
    CHECK(wf_event_define("GPU_END") == WF_GPU_END);
    CHECK(wf_event_define("") < 0);
    CHECK(wf_unit_detail(1, "", "x") == -EINVAL);
    CHECK(wf_unit_detail(1, NULL, "x") == -EINVAL);
    CHECK(wf_unit_detail(1, "a,b", "x") == -EINVAL);
    CHECK(wf_unit_detail(1, "a=b", "x") == -EINVAL);
    CHECK(wf_unit_detail(1, "Partition", "3") == -EINVAL); /* the unit's own */

    CHECK(wf_unit_detail(1, "kind", "x") == 0); /* not recording: ignored */
    CHECK(wf_open(path) == 0);
    CHECK(wf_open(path) == -EALREADY);
    wf_thread_name("synth");
    for (int j = 0; j < JOBS; j++) {
        char id[64];
        snprintf(id, sizeof id, "job,%d\n", j); /* comma and newline: must not break lines */
        for (int p = 0; p < PARTS; p++) {
            units[j][p] = wf_unit_new(id, j % 2 ? p : -1);
            CHECK(units[j][p] != 0);
            if (j % 3 == 2) { /* a third of the jobs have a kind; the first value is kept */
                CHECK(wf_unit_detail(units[j][p], "kind", j % 2 ? "snap" : "porep") == 0);
                CHECK(wf_unit_detail(units[j][p], "kind", "other") == 0);
            }
            wf_mark(WF_SYNTH_START, units[j][p]);
            wf_mark(WF_SYNTH_END, units[j][p]);
            wf_mark(WF_CHAN_SEND, units[j][p]);
        }
    }
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, gpu_thread, (void *)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    CHECK(wf_close() == 0);
    CHECK(wf_close() == -EBADF);

    wf_stats st;
    wf_get_stats(&st);
    CHECK_EQ_U(st.marked, JOBS * PARTS * 7);
    CHECK_EQ_U(st.recorded, JOBS * PARTS * 7);
    CHECK_EQ_U(st.lost, 0);
    CHECK_EQ_U(st.threads, 3);
    CHECK_EQ_U(st.units, JOBS * PARTS);

    struct wft_trace tr;
    struct input in;
    CHECK(load_trace(path, &tr, &in) == 0);
    CHECK(tr.closed);
    CHECK_EQ_U(tr.nev, JOBS * PARTS * 7);
    CHECK_EQ_U(tr.nunits, JOBS * PARTS);
    CHECK_EQ_U(tr.lost, 0);
    CHECK_EQ_U(tr.end.marked, JOBS * PARTS * 7);
    CHECK_EQ_U(tr.nthreads, 3);
    CHECK(tr.torn_at == 0 && tr.corrupt_at == 0 && tr.bad_records == 0);
    int seen_names = 0;
    for (size_t i = 0; i < tr.nthreads; i++)
        seen_names += !strcmp(tr.threads[i].name, "synth") + !strcmp(tr.threads[i].name, "gpu-a") +
                      !strcmp(tr.threads[i].name, "gpu-b");
    CHECK_EQ_U(seen_names, 3);

    /* Every unit has its seven events, in marking order, with its role. */
    int order[JOBS * PARTS + 1];
    memset(order, 0, sizeof order);
    int64_t last_ns = INT64_MIN;
    for (size_t i = 0; i < tr.nev; i++) {
        const struct wft_ev *e = &tr.ev[i];
        CHECK(e->ns >= last_ns);
        last_ns = e->ns;
        const struct wft_unit_info *u = wft_unit_find(&tr, e->unit);
        CHECK(u != NULL);
        if (!u)
            continue;
        int j = atoi(u->job + 4);
        size_t k = (size_t)(e->unit - units[0][0]);
        CHECK(k < JOBS * PARTS);
        if (k >= JOBS * PARTS)
            continue;
        int p = (int)(k % PARTS);
        CHECK_EQ_U(u->partition, (uint64_t)(int64_t)(j % 2 ? p : -1));
        static const int seq[7] = {WF_SYNTH_START, WF_SYNTH_END, WF_CHAN_SEND, WF_GPU_PICKUP,
                                   WF_GPU_START, -1, WF_GPU_END};
        int want = seq[order[k]];
        CHECK(want < 0 ? e->event == (uint32_t)user_ev : e->event == (uint32_t)want);
        if (order[k] >= 3) {
            CHECK_EQ_U(e->worker, (j + p) % 2);
            CHECK_EQ_U(e->device, 7);
        } else {
            CHECK(e->worker < 0 && e->device < 0);
        }
        order[k]++;
    }
    int with_kind = 0;
    for (size_t i = 0; i < tr.nunits; i++) {
        const struct wft_unit_info *u = &tr.units[i];
        int j = atoi(u->job + 4);
        if (j % 3 == 2) {
            with_kind++;
            CHECK(u->details && strcmp(u->details, j % 2 ? "kind=snap" : "kind=porep") == 0);
        } else {
            CHECK(u->details_len == 0);
        }
    }
    CHECK_EQ_U(with_kind, JOBS / 3 * PARTS); /* jobs 2, 5, ... 17 */
    char buf[24];
    CHECK(strcmp(wft_event_label(&tr, (uint32_t)user_ev, buf), "MSM_DONE") == 0);
    unload_trace(&tr, &in);

    /* The text: one line per event, the job id made safe, details right. */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s dump %s", WATERFALL_BIN, path);
    FILE *f = popen(cmd, "r");
    CHECK(f != NULL);
    char line[1024];
    int lines = 0, user_lines = 0, detail_ok = 0, kind_lines = 0;
    while (f && fgets(line, sizeof line, f)) {
        lines++;
        kind_lines += strstr(line, ",kind=snap\n") || strstr(line, ",kind=porep\n");
        CHECK(strncmp(line, "TIMELINE,", 9) == 0);
        if (strstr(line, ",MSM_DONE,job_"))
            user_lines++;
        if (strstr(line, ",GPU_START,job_3_,worker=") && strstr(line, ",partition=") &&
            strstr(line, ",device=7\n"))
            detail_ok++;
    }
    CHECK(f && pclose(f) == 0);
    CHECK_EQ_U(lines, JOBS * PARTS * 7);
    CHECK_EQ_U(user_lines, JOBS * PARTS);
    CHECK_EQ_U(detail_ok, PARTS);
    CHECK_EQ_U(kind_lines, JOBS / 3 * PARTS * 7);
    remove(path);
    return check_done("roundtrip");
}
