/*
 * wf_defs.c -- records in memory (the session's output among them), and the definitions of units and user
 * events: wf_unit_new and wf_event_define append them, as file records, to
 * a buffer the writer takes each cycle (wf_writer.c), so that a unit's or
 * an event's name reaches the trace before the writer drains a mark of it.
 */
#include "wf_internal.h"

#include "wf_timeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

pthread_mutex_t wf_def_mu = PTHREAD_MUTEX_INITIALIZER;
char *wf_defs;
size_t wf_defs_len, wf_defs_cap;
char wf_event_names[WF_USER_EVENTS][48];
int wf_nevents;
_Atomic uint64_t wf_next_unit = 1;
_Atomic uint32_t wf_units_made;

/* ------------------------------------------------------------------ */
/* Records                                                             */

int wf_buf_reserve(char **buf, size_t *cap, size_t len, size_t more)
{
    if (len + more <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 4096;
    while (ncap < len + more)
        ncap *= 2;
    char *n = realloc(*buf, ncap);
    if (!n)
        return -ENOMEM;
    *buf = n;
    *cap = ncap;
    return 0;
}

void wf_rec_init(struct wft_rec *r, uint32_t size, uint16_t type)
{
    r->size = size;
    r->type = type;
    r->check = wft_check(size, type);
    r->crc = 0;
    r->reserved = 0;
}

void wf_rec_seal(char *rec)
{
    struct wft_rec r;
    memcpy(&r, rec, sizeof r);
    r.crc = wft_crc32c(0, rec + sizeof r, r.size - sizeof r);
    memcpy(rec, &r, sizeof r);
}

int wf_rec_append(char **buf, size_t *len, size_t *cap, uint16_t type, void *fixed,
                  size_t fixed_size, const void *tail, size_t tail_len)
{
    size_t size = wf_pad8(fixed_size + tail_len);
    if (wf_buf_reserve(buf, cap, *len, size))
        return -ENOMEM;
    wf_rec_init((struct wft_rec *)fixed, (uint32_t)size, type);
    memcpy(*buf + *len, fixed, fixed_size);
    if (tail_len)
        memcpy(*buf + *len + fixed_size, tail, tail_len);
    memset(*buf + *len + fixed_size + tail_len, 0, size - fixed_size - tail_len);
    wf_rec_seal(*buf + *len);
    *len += size;
    return 0;
}

/* Here, not in the writer: the CPU, memory and GPU samplers build their
 * records with it, and the writer calls them, so calls point one way. */
void wf_out_rec(struct wf_session *s, uint16_t type, void *fixed, size_t size)
{
    wf_rec_append(&s->out, &s->out_len, &s->out_cap, type, fixed, size, NULL, 0);
}

/* ------------------------------------------------------------------ */
/* Units and user events                                               */

/* A definition for the writer (under wf_def_mu), and into the rings
 * file's journal, from which a reader takes it if the process dies before
 * the writer wrote it. */
static int def_append(uint16_t type, void *fixed, size_t fixed_size, const void *tail, size_t tail_len)
{
    size_t at = wf_defs_len;
    int rc = wf_rec_append(&wf_defs, &wf_defs_len, &wf_defs_cap, type, fixed, fixed_size, tail, tail_len);
    if (!rc && wf_journal)
        wf_shm_journal(wf_journal, wf_defs + at, wf_defs_len - at);
    return rc;
}

wf_unit wf_unit_new(const char *job_id, int partition)
{
    if (atomic_load_explicit(&wf_live, memory_order_acquire) == 0)
        return 0;
    if (!job_id)
        job_id = "";
    size_t len = strnlen(job_id, 4096);
    uint64_t id = atomic_fetch_add_explicit(&wf_next_unit, 1, memory_order_relaxed);
    if (id > WFT_UNIT_MASK)
        return 0;
    struct wft_unit u = {.unit = id,
                         .partition = partition < 0 ? -1 : partition,
                         .job_len = (uint32_t)len};
    pthread_mutex_lock(&wf_def_mu);
    int rc = def_append(WFT_UNIT, &u, sizeof u, job_id, len);
    pthread_mutex_unlock(&wf_def_mu);
    if (rc)
        return 0;
    atomic_fetch_add_explicit(&wf_units_made, 1, memory_order_relaxed);
    return id;
}

/* The keys a unit has by its own means, which a detail must not shadow. */
static int detail_key_ok(const char *key, size_t len)
{
    static const char *const own[] = {"job", "partition", "worker", "device", "gpu"};
    if (len == 0 || len > WFT_DETAIL_KEY_MAX)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = key[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '-' || c == '.'))
            return 0;
    }
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        if (strlen(own[i]) == len && strncasecmp(own[i], key, len) == 0)
            return 0;
    return 1;
}

int wf_unit_detail(wf_unit unit, const char *key, const char *value)
{
    size_t klen = key ? strnlen(key, WFT_DETAIL_KEY_MAX + 1) : 0;
    if (!detail_key_ok(key, klen))
        return -EINVAL;
    if (!value)
        value = "";
    size_t vlen = strnlen(value, WFT_DETAIL_VALUE_MAX);
    if (unit == 0 || atomic_load_explicit(&wf_live, memory_order_acquire) == 0)
        return 0;
    char tail[WFT_DETAIL_KEY_MAX + WFT_DETAIL_VALUE_MAX];
    memcpy(tail, key, klen);
    memcpy(tail + klen, value, vlen);
    struct wft_unit_detail d = {.unit = unit, .key_len = (uint32_t)klen, .value_len = (uint32_t)vlen};
    pthread_mutex_lock(&wf_def_mu);
    int rc = def_append(WFT_UNIT_DETAIL, &d, sizeof d, tail, klen + vlen);
    pthread_mutex_unlock(&wf_def_mu);
    return rc;
}

int wf_event_def_rec(int id)
{
    const char *name = wf_event_names[id - WF_EVENT_USER_FIRST];
    struct wft_event_def d = {.event = (uint32_t)id, .name_len = (uint32_t)strlen(name)};
    return def_append(WFT_EVENT_DEF, &d, sizeof d, name, d.name_len);
}

wf_event wf_event_define(const char *name)
{
    if (!name || !*name)
        return -EINVAL;
    for (unsigned i = 0; i < 6; i++)
        if (strcmp(name, wft_builtin_name(i)) == 0)
            return (wf_event)i;
    pthread_mutex_lock(&wf_def_mu);
    for (int i = 0; i < wf_nevents; i++) {
        if (strncmp(wf_event_names[i], name, sizeof wf_event_names[i] - 1) == 0) {
            pthread_mutex_unlock(&wf_def_mu);
            return WF_EVENT_USER_FIRST + i;
        }
    }
    if (wf_nevents == WF_USER_EVENTS) {
        pthread_mutex_unlock(&wf_def_mu);
        return -ENOSPC;
    }
    int id = WF_EVENT_USER_FIRST + wf_nevents;
    snprintf(wf_event_names[wf_nevents], sizeof wf_event_names[0], "%s", name);
    wf_nevents++;
    if (atomic_load_explicit(&wf_live, memory_order_acquire))
        wf_event_def_rec(id);
    pthread_mutex_unlock(&wf_def_mu);
    return id;
}

const char *wf_event_name(wf_event ev)
{
    if (ev >= 0 && ev < 6)
        return wft_builtin_name((unsigned)ev);
    const char *n = NULL;
    pthread_mutex_lock(&wf_def_mu);
    if (ev >= WF_EVENT_USER_FIRST && ev < WF_EVENT_USER_FIRST + wf_nevents)
        n = wf_event_names[ev - WF_EVENT_USER_FIRST];
    pthread_mutex_unlock(&wf_def_mu);
    return n;
}
