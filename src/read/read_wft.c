/*
 * read_wft.c -- the native trace reader.
 *
 * Two passes over the records would be simpler to explain but the trace can
 * be large; instead one pass keeps raw ticks and the conversion to
 * nanoseconds happens at the end, once the last CLOCK record (the best
 * calibration) is known.
 */
#include "read_wft.h"
#include "sort.h"
#include "scan.h"

#include "mem.h"

#include "wf_timeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int wft_sniff(const void *data, size_t len)
{
    return len >= 8 && memcmp(data, WFT_MAGIC, 8) == 0;
}

struct wft_thread_info *wft_thread_at(struct wft_trace *t, uint32_t idx)
{
    if (idx >= WFT_MAX_THREADS)
        return NULL;
    if (idx >= t->nthreads) {
        struct wft_thread_info *n = realloc(t->threads, (idx + 1) * sizeof *n);
        if (!n)
            return NULL;
        for (size_t i = t->nthreads; i <= idx; i++) {
            memset(&n[i], 0, sizeof n[i]);
            n[i].worker = n[i].device = -1;
        }
        t->threads = n;
        t->nthreads = idx + 1;
    }
    return &t->threads[idx];
}

/* Is there a plausible record header at off?  (The body is checked by
 * its CRC once the whole record is known to be in the file.) */
static int rec_ok(const unsigned char *d, size_t len, size_t off)
{
    if (off + sizeof(struct wft_rec) > len)
        return 0;
    struct wft_rec r;
    memcpy(&r, d + off, sizeof r);
    return r.size >= sizeof r && r.size % 8 == 0 && r.size <= WFT_REC_MAX &&
           r.type >= 1 && r.type <= 64 && r.check == wft_check(r.size, r.type);
}

/* A whole, intact record at off (header plausible, body in the file, CRC good). */
int wft_rec_whole(const unsigned char *d, size_t len, size_t off)
{
    if (!rec_ok(d, len, off))
        return 0;
    struct wft_rec r;
    memcpy(&r, d + off, sizeof r);
    return r.size <= len - off && wft_crc32c(0, d + off + sizeof r, r.size - sizeof r) == r.crc;
}

/* Handle one framed record; returns 0, or -1 if its contents are bad. */
/* The fixed part of a record into r: 0, or -1 when the record is shorter. */
static int get(void *r, size_t n, const unsigned char *p, uint32_t size)
{
    if (size < n)
        return -1;
    memcpy(r, p, n);
    return 0;
}

/* The same, and the thread it names (*thread, a member of r, once read). */
static int get_th(struct wft_trace *t, void *r, size_t n, const unsigned char *p, uint32_t size,
                  const uint32_t *thread, struct wft_thread_info **th)
{
    if (get(r, n, p, size))
        return -1;
    *th = wft_thread_at(t, *thread);
    return *th ? 0 : -1;
}

static int rec_thread(struct wft_trace *t, const unsigned char *p, uint32_t size)
{
    struct wft_thread r;
    struct wft_thread_info *th;
    if (get_th(t, &r, sizeof r, p, size, &r.thread, &th))
        return -1;
    th->tid = r.tid;
    th->seen = 1;
    memcpy(th->name, r.name, sizeof th->name);
    th->name[sizeof th->name - 1] = 0;
    return 0;
}

static int rec_unit(struct wft_trace *t, const unsigned char *p, uint32_t size)
{
    struct wft_unit r;
    if (get(&r, sizeof r, p, size))
        return -1;
    if (r.job_len > size - sizeof r || r.unit == 0)
        return -1;
    if (grow_array((void **)&t->units, &t->units_cap, t->nunits + 1, sizeof *t->units))
        return -1;
    char *job = malloc(r.job_len + 1);
    if (!job)
        return -1;
    memcpy(job, p + sizeof r, r.job_len);
    job[r.job_len] = 0;
    t->units[t->nunits++] = (struct wft_unit_info){.unit = r.unit, .partition = r.partition < 0 ? -1 : r.partition, .job = job};
    return 0;
}

static int rec_unit_detail(struct wft_trace *t, const unsigned char *p, uint32_t size)
{
    struct wft_unit_detail r;
    if (get(&r, sizeof r, p, size))
        return -1;
    if (r.unit == 0 || r.key_len == 0 || r.key_len > WFT_DETAIL_KEY_MAX || r.value_len > WFT_DETAIL_VALUE_MAX ||
        r.key_len + r.value_len > size - sizeof r)
        return -1;
    if (grow_array((void **)&t->details, &t->details_cap, t->ndetails + 1, sizeof *t->details))
        return -1;
    char *kv = malloc(r.key_len + r.value_len + 1);
    if (!kv)
        return -1;
    memcpy(kv, p + sizeof r, r.key_len + r.value_len);
    t->details[t->ndetails++] = (struct wft_detail){r.unit, kv, r.key_len, r.value_len};
    return 0;
}

static int rec_event_def(struct wft_trace *t, const unsigned char *p, uint32_t size)
{
    struct wft_event_def r;
    if (get(&r, sizeof r, p, size))
        return -1;
    if (r.event >= 4096 || r.event < 16 || r.name_len > size - sizeof r || r.name_len > 256)
        return -1;
    char *name = malloc(r.name_len + 1);
    if (!name)
        return -1;
    memcpy(name, p + sizeof r, r.name_len);
    name[r.name_len] = 0;
    free(t->event_names[r.event]);
    t->event_names[r.event] = name;
    return 0;
}

int wft_add_events(struct wft_trace *t, uint32_t thread, const unsigned char *q, uint32_t count)
{
    struct wft_thread_info *th = wft_thread_at(t, thread);
    if (!th || grow_array((void **)&t->ev, &t->ev_cap, t->nev + count, sizeof *t->ev))
        return -1;
    for (uint32_t i = 0; i < count; i++, q += sizeof(struct wft_event)) {
        struct wft_event e;
        memcpy(&e, q, sizeof e);
        struct wft_ev *o = &t->ev[t->nev++];
        o->ns = (int64_t)e.ticks; /* raw until wft_parse converts */
        o->unit = e.word & WFT_UNIT_MASK;
        o->event = (uint32_t)(e.word >> WFT_UNIT_BITS);
        o->thread = thread;
        o->worker = th->worker;
        o->device = th->device;
    }
    th->events += count;
    return 0;
}

static int rec_events(struct wft_trace *t, const unsigned char *p, uint32_t size)
{
    struct wft_events r;
    if (get(&r, sizeof r, p, size))
        return -1;
    if ((uint64_t)r.count * sizeof(struct wft_event) != size - sizeof r)
        return -1;
    if (wft_add_events(t, r.thread, p + sizeof r, r.count))
        return -1;
    t->threads[r.thread].after_seq += r.count;
    return 0;
}

void wft_thread_role(struct wft_thread_info *th, int32_t worker, int32_t device)
{
    int32_t w = worker < 0 ? -1 : worker, d = device < 0 ? -1 : device;
    if (th->roles && (w != th->worker || d != th->device))
        th->role_changed = 1;
    th->roles = 1;
    th->worker = w;
    th->device = d;
}

static int rec_role(struct wft_trace *t, const unsigned char *p, uint32_t size)
{
    struct wft_role r;
    struct wft_thread_info *th;
    if (get_th(t, &r, sizeof r, p, size, &r.thread, &th))
        return -1;
    wft_thread_role(th, r.worker, r.device);
    th->after_seq++; /* a role change is a slot of its ring */
    return 0;
}

static int rec_lost(struct wft_trace *t, const unsigned char *p, uint32_t size)
{
    struct wft_lost r;
    struct wft_thread_info *th;
    if (get_th(t, &r, sizeof r, p, size, &r.thread, &th))
        return -1;
    th->lost = r.lost;
    return 0;
}

static int rec_clock(struct wft_trace *t, const unsigned char *p, uint32_t size)
{
    struct wft_clockpt r;
    if (get(&r, sizeof r, p, size))
        return -1;
    if (t->clock_points == 0) {
        t->clk_first[0] = r.ticks;
        t->clk_first[1] = r.mono_ns;
    }
    t->clk_last[0] = r.ticks;
    t->clk_last[1] = r.mono_ns;
    t->clock_points++;
    return 0;
}

int wft_add_cpu(struct wft_trace *t, struct wft_thread_info *th, const struct wft_cpu *r)
{
    if (grow_array((void **)&t->cpu, &t->cpu_cap, t->ncpu + 1, sizeof *t->cpu))
        return -1;
    t->cpu[t->ncpu++] = (struct wft_cpu_pt){.ns = (int64_t)r->ticks, .cpu_ns = r->cpu_ns,
                                            .wait_ns = r->flags & WFT_CPU_WAIT ? r->wait_ns : 0,
                                            .thread = r->thread, .flags = r->flags};
    if (r->cpu_ns > th->cpu_ns) /* the latest; an exit sample may come late in the file */
        th->cpu_ns = r->cpu_ns;
    return 0;
}

static int rec_cpu(struct wft_trace *t, const unsigned char *p, uint32_t size)
{
    struct wft_cpu r;
    struct wft_thread_info *th;
    if (get_th(t, &r, sizeof r, p, size, &r.thread, &th))
        return -1;
    return wft_add_cpu(t, th, &r);
}

/* A MEM record (format 1.4): shorter than the struct is damage; flags
 * say which value is known. */
static int rec_mem(struct wft_trace *t, const unsigned char *p, uint32_t size)
{
    struct wft_mem r;
    if (get(&r, sizeof r, p, size))
        return -1;
    if (!(r.flags & (WFT_MEM_RSS | WFT_MEM_AVAIL)))
        return 0;
    if (grow_array((void **)&t->mem, &t->mem_cap, t->nmem + 1, sizeof *t->mem))
        return -1;
    t->mem[t->nmem++] = (struct wft_mem_pt){(int64_t)r.ticks, r.flags & WFT_MEM_RSS ? r.rss_bytes : 0,
                                            r.flags & WFT_MEM_AVAIL ? r.avail_bytes : 0, r.flags};
    return 0;
}

/* GPU records (format 1.2): what came of GPU sampling, the devices, the
 * readings.  Strings are cut to their fields: the file is not trusted. */
static int rec_gpu(struct wft_trace *t, const unsigned char *p, uint32_t size)
{
    if (get(&t->gpu, sizeof t->gpu, p, size))
        return -1;
    t->gpu.driver[sizeof t->gpu.driver - 1] = 0;
    t->gpu.text[sizeof t->gpu.text - 1] = 0;
    t->gpu_seen = 1;
    return 0;
}

static int rec_gpu_dev(struct wft_trace *t, const unsigned char *p, uint32_t size)
{
    struct wft_gpu_dev r;
    if (get(&r, sizeof r, p, size))
        return -1;
    r.name[sizeof r.name - 1] = r.uuid[sizeof r.uuid - 1] = 0;
    for (size_t i = 0; i < t->ngpu_devs; i++)
        if (t->gpu_devs[i].device == r.device)
            return 0; /* said again: the first stands */
    if (t->ngpu_devs == WFT_GPU_DEVICES_MAX)
        return -1; /* more than a recorder writes: damage */
    t->gpu_devs[t->ngpu_devs++] = r;
    return 0;
}

static int rec_gpu_sample(struct wft_trace *t, const unsigned char *p, uint32_t size)
{
    struct wft_gpu_sample r;
    if (get(&r, sizeof r, p, size))
        return -1;
    if (grow_array((void **)&t->gpu_pts, &t->gpu_pts_cap, t->ngpu_pts + 1, sizeof *t->gpu_pts))
        return -1;
    t->gpu_pts[t->ngpu_pts++] = (struct wft_gpu_pt){.ns = (int64_t)r.ticks, .device = r.device,
                                                    .kind = r.kind, .flags = r.flags, .value = r.value};
    return 0;
}

static int rec_seq(struct wft_trace *t, const unsigned char *p, uint32_t size)
{
    struct wft_seq r;
    struct wft_thread_info *th;
    if (get_th(t, &r, sizeof r, p, size, &r.thread, &th))
        return -1;
    if (r.next >= th->seq) {
        th->seq = r.next;
        th->after_seq = 0;
    }
    return 0;
}

static int rec_end(struct wft_trace *t, const unsigned char *p, uint32_t size)
{
    if (get(&t->end, sizeof t->end, p, size))
        return -1;
    t->closed = 1;
    return 0;
}

/* The reader of each record type; a type past the table, or without a
 * reader, is a newer minor version's: skipped. */
typedef int (*rec_reader)(struct wft_trace *, const unsigned char *, uint32_t);
static const rec_reader rec_readers[] = {
    [WFT_THREAD] = rec_thread,
    [WFT_UNIT] = rec_unit,
    [WFT_EVENT_DEF] = rec_event_def,
    [WFT_EVENTS] = rec_events,
    [WFT_ROLE] = rec_role,
    [WFT_LOST] = rec_lost,
    [WFT_CLOCK] = rec_clock,
    [WFT_END] = rec_end,
    [WFT_CPU] = rec_cpu,
    [WFT_GPU] = rec_gpu,
    [WFT_GPU_DEV] = rec_gpu_dev,
    [WFT_GPU_SAMPLE] = rec_gpu_sample,
    [WFT_SEQ] = rec_seq,
    [WFT_UNIT_DETAIL] = rec_unit_detail,
    [WFT_MEM] = rec_mem,
};

int wft_take_record(struct wft_trace *t, const unsigned char *p, uint32_t size, uint16_t type)
{
    rec_reader f = type < sizeof rec_readers / sizeof rec_readers[0] ? rec_readers[type] : NULL;
    return f ? f(t, p, size) : 0;
}

static int64_t ticks_to_ns(const struct wft_trace *t, uint64_t ticks)
{
    double ns = (double)(int64_t)(ticks - t->hdr.epoch_ticks) / t->ticks_per_ns;
    /* A damaged tick count can be anything: saturate rather than convert
     * an out-of-range double (undefined behaviour; found by fuzz_wft). */
    const double lim = 4.0e18;
    return ns >= lim ? (int64_t)lim : ns <= -lim ? -(int64_t)lim : (int64_t)ns;
}

static int fail(char *err, size_t errlen, const char *path, const char *msg)
{
    snprintf(err, errlen, "%s: %s", path, msg);
    return -1;
}

int wft_parse_records(struct wft_trace *t, const char *path, const void *data, size_t len,
                      char *err, size_t errlen)
{
    const unsigned char *d = data;
    memset(t, 0, sizeof *t);
    t->path = path;
    t->file_size = len;
    if (len == 0)
        return fail(err, errlen, path, "empty file, not a waterfall trace");
    if (!wft_sniff(d, len))
        return fail(err, errlen, path, "not a waterfall trace (no \\x89WFT magic at byte 0)");
    if (len < WFT_HEADER_SIZE)
        return fail(err, errlen, path, "trace header is cut short (file under 256 bytes)");
    memcpy(&t->hdr, d, sizeof t->hdr);
    if (t->hdr.endian != WFT_ENDIAN_MARK)
        return fail(err, errlen, path, "trace was written with the other byte order; not supported");
    if (t->hdr.version_major != WFT_VERSION_MAJOR) {
        char msg[128];
        snprintf(msg, sizeof msg, "trace format %u.%u; this reader knows %u.x",
                 t->hdr.version_major, t->hdr.version_minor, WFT_VERSION_MAJOR);
        return fail(err, errlen, path, msg);
    }
    if (t->hdr.header_size < WFT_HEADER_SIZE || t->hdr.header_size > len ||
        t->hdr.header_size % 8)
        return fail(err, errlen, path, "trace header has a bad size field");
    t->hdr.host[sizeof t->hdr.host - 1] = 0;
    double tpn = t->hdr.ticks_per_ns;
    if (!(tpn > 1e-6 && tpn < 1e6)) /* also false for NaN */
        return fail(err, errlen, path, "trace header has an impossible clock calibration");

    size_t off = t->hdr.header_size;
    while (off < len) {
        if (wft_rec_whole(d, len, off)) {
            struct wft_rec r;
            memcpy(&r, d + off, sizeof r);
            if (wft_take_record(t, d + off, r.size, r.type)) {
                t->bad_records++;
                if (!t->corrupt_at)
                    t->corrupt_at = off;
            }
            off += r.size;
            continue;
        }
        /* A bad record: the tail of a write cut off by a crash, or damage.
         * Scan on for the next intact record; if there is none, this was
         * the torn end, the normal state of a trace whose process died. */
        size_t scan = off + 8;
        while (scan < len && !wft_rec_whole(d, len, scan))
            scan += 8;
        if (scan >= len) {
            t->torn_at = off;
            break;
        }
        if (!t->corrupt_at)
            t->corrupt_at = off;
        t->corrupt_bytes += scan - off;
        off = scan;
    }
    return 0;
}

void wft_parse_finish(struct wft_trace *t)
{
    /* Calibration: the span of the CLOCK records beats the 2 ms at open. */
    t->ticks_per_ns = t->hdr.ticks_per_ns;
    if (t->hdr.clock == WFT_CLOCK_MONOTONIC)
        t->ticks_per_ns = 1.0; /* ticks are nanoseconds: nothing to refine */
    else if (t->clock_points >= 2 && t->clk_last[1] > t->clk_first[1] && t->clk_last[0] > t->clk_first[0]) {
        double span = (double)(t->clk_last[1] - t->clk_first[1]);
        t->clock_span_s = span / 1e9;
        double refined = (double)(t->clk_last[0] - t->clk_first[0]) / span;
        if (span >= 50e6 && refined > 1e-6 && refined < 1e6) /* else keep the header's */
            t->ticks_per_ns = refined;
    }
    for (size_t i = 0; i < t->nev; i++)
        t->ev[i].ns = ticks_to_ns(t, (uint64_t)t->ev[i].ns);
    for (size_t i = 0; i < t->ncpu; i++)
        t->cpu[i].ns = ticks_to_ns(t, (uint64_t)t->cpu[i].ns);
    for (size_t i = 0; i < t->ngpu_pts; i++)
        t->gpu_pts[i].ns = ticks_to_ns(t, (uint64_t)t->gpu_pts[i].ns);
    for (size_t i = 0; i < t->nmem; i++)
        t->mem[i].ns = ticks_to_ns(t, (uint64_t)t->mem[i].ns);
    for (size_t i = 0; i < t->nthreads; i++)
        t->lost += t->threads[i].lost;
}

int wft_parse(struct wft_trace *t, const char *path, const void *data, size_t len, char *err,
              size_t errlen)
{
    if (wft_parse_records(t, path, data, len, err, errlen))
        return -1;
    wft_parse_finish(t);
    return 0;
}

static int unit_cmp(const void *a, const void *b)
{
    const struct wft_unit_info *x = a, *y = b;
    return x->unit < y->unit ? -1 : x->unit > y->unit;
}

/* Stable merge sort by time: equal times keep file order, so each
 * thread's marks stay in the order it made them. */
static void msort(struct wft_ev *a, struct wft_ev *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    msort(a, tmp, h);
    msort(a + h, tmp, n - h);
    if (a[h - 1].ns <= a[h].ns)
        return;
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = a[j].ns < a[i].ns ? a[j++] : a[i++];
    while (i < h)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

static int cpu_cmp(const void *a, const void *b)
{
    const struct wft_cpu_pt *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return x->ns < y->ns ? -1 : x->ns > y->ns;
}

static int gpu_pt_cmp(const void *a, const void *b)
{
    const struct wft_gpu_pt *x = a, *y = b;
    uint64_t kx = (uint64_t)x->device << 16 | x->kind, ky = (uint64_t)y->device << 16 | y->kind;
    if (kx != ky) /* by device, then kind */
        return kx < ky ? -1 : 1;
    return x->ns < y->ns ? -1 : x->ns > y->ns;
}

static int mem_cmp(const void *a, const void *b)
{
    const struct wft_mem_pt *x = a, *y = b;
    return x->ns < y->ns ? -1 : x->ns > y->ns;
}

void wft_sort(struct wft_trace *t)
{
    if (t->ngpu_pts > 1)
        qsort(t->gpu_pts, t->ngpu_pts, sizeof *t->gpu_pts, gpu_pt_cmp);
    if (t->ncpu > 1)
        qsort(t->cpu, t->ncpu, sizeof *t->cpu, cpu_cmp);
    if (t->nmem > 1)
        qsort(t->mem, t->nmem, sizeof *t->mem, mem_cmp);
    if (t->nev > 1) {
        struct wft_ev *tmp = malloc(t->nev * sizeof *tmp);
        if (tmp) {
            msort(t->ev, tmp, t->nev);
            free(tmp);
        }
    }
    if (t->nunits > 1)
        qsort(t->units, t->nunits, sizeof *t->units, unit_cmp);
    /* Each unit's details, in file order: the first value of a key is the
     * unit's (a record read twice, from the file and the rings file's
     * journal, adds nothing).  A unit the trace does not define has none. */
    for (size_t i = 0; i < t->ndetails; i++) {
        const struct wft_detail *d = &t->details[i];
        struct wft_unit_info *u = (struct wft_unit_info *)wft_unit_find(t, d->unit);
        if (!u)
            continue;
        if (!u->details && !(u->details = malloc(WFT_DETAILS_MAX + 1)))
            continue; /* out of memory: the unit goes without */
        wft_detail_add(u->details, &u->details_len, d->kv, d->key_len, d->kv + d->key_len, d->value_len);
        u->details[u->details_len] = 0;
    }
}

/* The usable readings of one kind for the device at gpu_pts[*i] (which
 * moves past them); a reading spans from the one before. */
static size_t gpu_take(const struct wft_trace *t, size_t *i, uint16_t kind, struct gpu_pt *out)
{
    uint32_t dev = t->gpu_pts[*i].device;
    size_t n = 0;
    int64_t prev = T_NONE;
    for (; *i < t->ngpu_pts && t->gpu_pts[*i].device == dev; ++*i) {
        const struct wft_gpu_pt *q = &t->gpu_pts[*i];
        if (q->kind != kind || (q->flags & WFT_GS_APPROX))
            continue; /* an approximate time places nothing */
        if (prev != T_NONE && q->ns > prev)
            out[n++] = (struct gpu_pt){.from = prev, .ns = q->ns, .device = dev, .pct = q->value > 100 ? 100 : q->value};
        prev = q->ns;
    }
    return n;
}

int wft_gpu_obs(const struct wft_trace *t, struct gpu_obs *g)
{
    memset(g, 0, sizeof *g);
    if (!t->ngpu_pts)
        return 0;
    g->pts = malloc(t->ngpu_pts * sizeof *g->pts);
    if (!g->pts)
        return -1;
    /* Each device's driver series where it has one, else its rates. */
    for (size_t i = 0; i < t->ngpu_pts;) {
        size_t at = i, n = gpu_take(t, &i, WFT_GS_UTIL, g->pts + g->npts);
        int source = GPU_OBS_SERIES;
        if (n < 2) {
            i = at;
            n = gpu_take(t, &i, WFT_GS_RATE, g->pts + g->npts);
            source = GPU_OBS_RATES;
        }
        if (n && source > g->source)
            g->source = source;
        g->npts += n;
    }
    return 0;
}

const struct wft_unit_info *wft_unit_find(const struct wft_trace *t, uint64_t unit)
{
    size_t lo = 0, hi = t->nunits;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->units[mid].unit < unit)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->nunits && t->units[lo].unit == unit ? &t->units[lo] : NULL;
}

const char *wft_event_label(const struct wft_trace *t, uint32_t ev, char *buf)
{
    const char *n = wft_builtin_name(ev);
    if (n)
        return n;
    if (ev < 4096 && t->event_names[ev])
        return t->event_names[ev];
    snprintf(buf, 24, "EVENT_%u", ev);
    return buf;
}

void wft_free(struct wft_trace *t)
{
    for (size_t i = 0; i < t->nunits; i++) {
        free(t->units[i].job);
        free(t->units[i].details);
    }
    for (size_t i = 0; i < t->ndetails; i++)
        free(t->details[i].kv);
    big_free(t->details, t->details_cap * sizeof *t->details);
    for (size_t i = 0; i < 4096; i++)
        free(t->event_names[i]);
    big_free(t->units, t->units_cap * sizeof *t->units);
    big_free(t->ev, t->ev_cap * sizeof *t->ev);
    free(t->cpu);
    free(t->mem);
    free(t->gpu_pts);
    free(t->threads);
    memset(t, 0, sizeof *t);
}

struct cpu_key {
    const struct wft_cpu_pt *cpu;
    int64_t ns;
};

static int cpu_before(const void *ctx, size_t i)
{
    const struct cpu_key *k = ctx;
    return k->cpu[i].ns < k->ns;
}

/* The first of cpu[a..b) at or after ns (b: none). */
static size_t cpu_after(const struct wft_cpu_pt *cpu, size_t a, size_t b, int64_t ns)
{
    struct cpu_key k = {cpu, ns};
    return first_not_before(a, b, cpu_before, &k);
}

/* A thread's CPU time, and what it wanted (CPU time plus run-queue wait),
 * at ns, interpolated between its samples cpu[a..b); -1 outside them.
 * *wait_known is cleared when a sample used has no wait. */
static int cpu_at(const struct wft_cpu_pt *cpu, size_t a, size_t b, int64_t ns, double *used, double *want,
                  int *wait_known)
{
    if (a >= b || ns < cpu[a].ns || ns > cpu[b - 1].ns)
        return -1;
    size_t hi = cpu_after(cpu, a, b, ns), lo = cpu[hi].ns == ns ? hi : hi - 1;
    if (!(cpu[lo].flags & cpu[hi].flags & WFT_CPU_WAIT))
        *wait_known = 0;
    double u0 = (double)cpu[lo].cpu_ns, u1 = (double)cpu[hi].cpu_ns;
    double w0 = u0 + (double)cpu[lo].wait_ns, w1 = u1 + (double)cpu[hi].wait_ns;
    double f = cpu[hi].ns > cpu[lo].ns ? (double)(ns - cpu[lo].ns) / (double)(cpu[hi].ns - cpu[lo].ns) : 0;
    *used = u1 < u0 ? u0 : u0 + (u1 - u0) * f;
    *want = w1 < w0 ? w0 : w0 + (w1 - w0) * f;
    return 0;
}

struct acc {
    double cpu, want, wall;
    uint64_t units;
};

static void acc_add(struct acc *x, double cpu, double want, double wall)
{
    if (want < cpu) /* a damaged wait that went back: it wanted at least what it used */
        want = cpu;
    x->cpu += cpu;
    x->want += want;
    x->wall += wall;
    x->units++;
}

void wft_cpu_use(const struct wft_trace *t, struct cpu_use *u)
{
    struct acc whole[2] = {{0}}, inner[2] = {{0}};
    size_t spans_cap = 0;
    memset(u, 0, sizeof *u);
    if (t->ncpu == 0 || t->nthreads == 0 || t->nunits == 0)
        return;
    u->sampled = 1;
    u->wait_known = 1;
    /* each thread's samples: cpu[first[k] .. first[k + 1]) (sorted by thread) */
    size_t *first = calloc(t->nthreads + 1, sizeof *first);
    struct open { int64_t ns; uint32_t thread; } *syn = malloc(t->nunits * sizeof *syn),
                                                  *gpu = malloc(t->nunits * sizeof *gpu);
    if (!first || !syn || !gpu) {
        u->sampled = 0;
        goto out;
    }
    for (size_t i = 0; i < t->ncpu; i++)
        if (t->cpu[i].thread < t->nthreads)
            first[t->cpu[i].thread + 1]++;
    for (size_t k = 0; k < t->nthreads; k++)
        first[k + 1] += first[k];
    for (size_t i = 0; i < t->nunits; i++)
        syn[i].thread = gpu[i].thread = UINT32_MAX;
    for (size_t i = 0; i < t->nev; i++) {
        const struct wft_ev *e = &t->ev[i];
        if (e->event != EV_SYNTH_START && e->event != EV_SYNTH_END && e->event != EV_GPU_START &&
            e->event != EV_GPU_END)
            continue;
        const struct wft_unit_info *ui = wft_unit_find(t, e->unit);
        if (!ui || e->thread >= t->nthreads)
            continue;
        size_t k = (size_t)(ui - t->units);
        struct open *o = e->event <= EV_SYNTH_END ? &syn[k] : &gpu[k];
        if (e->event == EV_SYNTH_START || e->event == EV_GPU_START) {
            o->ns = e->ns;
            o->thread = e->thread;
            continue;
        }
        if (o->thread == UINT32_MAX || e->ns <= o->ns)
            continue;
        size_t a = first[o->thread], b = first[o->thread + 1];
        int st = e->event == EV_SYNTH_END ? 0 : 1;
        /* Interpolated over the whole interval: a sample period that
         * straddles its start or end smears what the thread did outside it
         * (waiting for the device, say) into it. */
        int wk = 1;
        double c0, c1, w0, w1;
        if (cpu_at(t->cpu, a, b, o->ns, &c0, &w0, &wk) == 0 && cpu_at(t->cpu, a, b, e->ns, &c1, &w1, &wk) == 0 &&
            c1 >= c0 && w1 >= w0) {
            acc_add(&whole[st], (c1 - c0) * 1e-9, (w1 - w0) * 1e-9, (double)(e->ns - o->ns) * 1e-9);
            u->wait_known &= wk;
            /* each unit's own, for CPU time per unit by concurrency; a
             * failed allocation leaves the list short, not wrong */
            if (u->nspans < t->nunits * 2 &&
                !grow_array((void **)&u->spans, &spans_cap, u->nspans + 1, sizeof *u->spans))
                u->spans[u->nspans++] = (struct cpu_span){o->ns, e->ns, (c1 - c0) * 1e-9,
                                                          (w1 - w0 < c1 - c0 ? c1 - c0 : w1 - w0) * 1e-9, st, wk};
        }
        /* Exact, from the first sample at or after its start to the first
         * at or after its end, when that spans a sample period or more.
         * The span reaches past the end because schedstat adds a wait to
         * the thread's total only when the wait ends, as the thread gets a
         * CPU: a thread marks its end on a CPU, so a wait still open at the
         * last sample inside the interval ended inside it, and only the
         * next sample holds it.  Stopping at that last sample lost such
         * waits, most often under load (a spinning thread then read 0.7 of
         * a core wanted where it wanted 1.0); the span's end, past the
         * interval by less than a sample period, costs little. */
        size_t si = cpu_after(t->cpu, a, b, o->ns), sj = cpu_after(t->cpu, a, b, e->ns);
        if (sj < b && si < sj && t->cpu[si].ns <= e->ns && t->cpu[sj].ns > t->cpu[si].ns &&
            t->cpu[sj].cpu_ns >= t->cpu[si].cpu_ns) {
            const struct wft_cpu_pt *p0 = &t->cpu[si], *p1 = &t->cpu[sj];
            double w = (double)(p1->cpu_ns + p1->wait_ns) - (double)(p0->cpu_ns + p0->wait_ns);
            acc_add(&inner[st], (double)(p1->cpu_ns - p0->cpu_ns) * 1e-9, w * 1e-9, (double)(p1->ns - p0->ns) * 1e-9);
            if (!(p0->flags & p1->flags & WFT_CPU_WAIT))
                u->wait_known = 0;
        }
        o->thread = UINT32_MAX;
    }
    /* The exact spans where they cover a quarter of the intervals' time or
     * more; else (intervals shorter than the sampling period) the
     * interpolation. */
    for (int st = 0; st < 2; st++) {
        const struct acc *x = inner[st].wall >= 0.25 * whole[st].wall && inner[st].wall > 0 ? &inner[st] : &whole[st];
        if (st == 0) {
            u->synth_cpu_s = x->cpu, u->synth_want_s = x->want, u->synth_wall_s = x->wall;
            u->synth_units = whole[0].units;
        } else {
            u->gpu_cpu_s = x->cpu, u->gpu_want_s = x->want, u->gpu_wall_s = x->wall;
            u->gpu_units = whole[1].units;
        }
    }
out:
    free(first);
    free(syn);
    free(gpu);
}

static int i64_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

void wft_mem_use(const struct wft_trace *t, struct mem_use *u)
{
    memset(u, 0, sizeof *u);
    u->per_synthesis = NAN;
    for (size_t i = 0; i < t->nmem; i++) {
        const struct wft_mem_pt *m = &t->mem[i];
        if (m->flags & WFT_MEM_AVAIL && (!u->avail_known || m->avail_bytes < u->avail_min_bytes)) {
            u->avail_min_bytes = m->avail_bytes;
            u->avail_known = 1;
        }
        if (!(m->flags & WFT_MEM_RSS))
            continue;
        if (!u->sampled || m->rss_bytes > u->peak_bytes)
            u->peak_bytes = m->rss_bytes;
        if (!u->sampled || m->rss_bytes < u->base_bytes)
            u->base_bytes = m->rss_bytes;
        u->sampled = 1;
        u->samples++;
    }
    if (!u->sampled)
        return;
    /* syntheses in flight at each sample: starts at or before it less ends
     * at or before it (a synthesis that never ended counts from its start) */
    int64_t *st = malloc((t->nev ? t->nev : 1) * sizeof *st), *en = malloc((t->nev ? t->nev : 1) * sizeof *en);
    size_t ns = 0, ne = 0;
    if (!st || !en)
        goto out; /* no slope: the base stays the least sample */
    for (size_t i = 0; i < t->nev; i++) {
        if (t->ev[i].event == EV_SYNTH_START)
            st[ns++] = t->ev[i].ns;
        else if (t->ev[i].event == EV_SYNTH_END)
            en[ne++] = t->ev[i].ns;
    }
    qsort(st, ns, sizeof *st, i64_cmp);
    qsort(en, ne, sizeof *en, i64_cmp);
    double sx = 0, sy = 0, sxx = 0, sxy = 0, n = 0;
    size_t a = 0, b = 0;
    for (size_t i = 0; i < t->nmem; i++) {
        const struct wft_mem_pt *m = &t->mem[i];
        if (!(m->flags & WFT_MEM_RSS))
            continue;
        while (a < ns && st[a] <= m->ns)
            a++;
        while (b < ne && en[b] <= m->ns)
            b++;
        double x = a > b ? (double)(a - b) : 0, y = (double)m->rss_bytes;
        sx += x, sy += y, sxx += x * x, sxy += x * y, n++;
    }
    double var = sxx - sx * sx / n;
    if (n >= 3 && var > 1e-9 * n) { /* two counts in flight or more */
        u->per_synthesis = (sxy - sx * sy / n) / var;
        double base = (sy - u->per_synthesis * sx) / n;
        u->base_bytes = base < 0 ? 0 : base > (double)u->peak_bytes ? u->peak_bytes : (uint64_t)base;
    }
out:
    free(st);
    free(en);
}
