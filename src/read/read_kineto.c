/*
 * read_kineto.c -- a PyTorch profiler trace (Kineto's Chrome-trace JSON)
 * into the model, streamed.
 *
 * yajl hands over the JSON one token at a time; a small state machine
 * keeps the fields of the event being read (ph, cat, ts, dur, and args'
 * device, stream and correlation) and forgets the rest, so memory is what
 * the analysis keeps: one record per device operation and one per launch,
 * never the file.  Launches may come before or after their operations in
 * the file, so the units are built at the end, when every correlation is
 * known.  Times are kept to the nanosecond (ts and dur are µs with up to
 * three decimals, parsed as decimals, not as doubles); HTA's rounding of
 * such traces is the analysis's business (analyze_stream.c), told by
 * streams_use.us_rounded.
 */
#include "read_kineto.h"

#include "build.h"
#include "kineto_stage.h"
#include "mem.h"
#include "sort.h"
#include "vocab.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>

static const struct provenance prov_kineto = {"kineto", "event", "PyTorch trace"};

/* ---- sniffing ---- */

static size_t skip_ws(const unsigned char *h, size_t i, size_t n)
{
    while (i < n && (h[i] == ' ' || h[i] == '\t' || h[i] == '\n' || h[i] == '\r'))
        i++;
    return i;
}

static int has(const unsigned char *h, size_t n, const char *s)
{
    size_t k = strlen(s);
    for (size_t i = 0; i + k <= n; i++)
        if (h[i] == (unsigned char)s[0] && memcmp(h + i, s, k) == 0)
            return 1;
    return 0;
}

int kineto_sniff(const unsigned char *h, size_t n)
{
    size_t i = 0;
    if (n >= 3 && h[0] == 0xef && h[1] == 0xbb && h[2] == 0xbf)
        i = 3; /* a UTF-8 byte order mark */
    i = skip_ws(h, i, n);
    if (i >= n)
        return 0;
    if (h[i] == '[') { /* Chrome's array form: events with a phase */
        i = skip_ws(h, i + 1, n);
        return i < n && h[i] == '{' && has(h + i, n - i, "\"ph\"");
    }
    if (h[i] != '{')
        return 0;
    i = skip_ws(h, i + 1, n);
    /* Kineto's first keys; a JSON-lines log's first object has others */
    static const char *const first[] = {"\"schemaVersion\"", "\"deviceProperties\"", "\"distributedInfo\"",
                                        "\"traceEvents\"", "\"displayTimeUnit\"", "\"traceName\"",
                                        "\"baseTimeNanoseconds\""};
    for (size_t k = 0; k < sizeof first / sizeof *first; k++)
        if (n - i >= strlen(first[k]) && memcmp(h + i, first[k], strlen(first[k])) == 0)
            return 1;
    return has(h + i, n - i, "\"traceEvents\"");
}

/* ---- what is kept ---- */

/* A launch: its correlation, start and thread (launch_put below). */
struct lslot {
    int64_t corr;
    int64_t ts;
    uint32_t thread; /* its thread (kranges' threads): where its stages are */
    uint32_t seq;    /* its place among the launches in the file */
};

enum { K_NONE,
       K_PH,
       K_CAT,
       K_NAME,
       K_TS,
       K_DUR,
       K_ARGS,
       K_DEVICE,
       K_STREAM,
       K_CORR,
       K_EVENTS,
       K_DIST,
       K_RANK,
       K_PID,
       K_TID };

struct kstate {
    int depth;       /* containers open */
    int form;        /* 0: not known yet, 1: {"traceEvents": [...]}, 2: [...] */
    int arr_depth;   /* the events array's depth while open, else 0 */
    int seen_events; /* an events array was found */
    int two_events;  /* ... and another "traceEvents" after it: which is the trace would be a guess */
    int top_key, dist_key, ev_key, args_key;
    int in_event, in_args, in_dist;
    /* the event being read */
    char ph[4], name[48]; /* a name: ProfilerStep# and 20 digits fit */
    int name_cut; /* the name was longer than name holds */
    char pid[32], tid[32]; /* as written (a number or a string), cut to fit */
    uint32_t name_id;      /* the name in kr.names, where has_name_id */
    int has_name_id;
    int cat_class;         /* CAT_*: of the category, as read whole */
    int has_ts, has_dur, has_dev, has_stream, has_corr, bad_num;
    int64_t ts, dur, dev, stream, corr;
    /* the whole trace */
    int any_frac_ts, any_missing_ts;
    /* ProfilerStep#N on the CPU: the steps seen (by number) and the last start */
    int64_t step_lo, step_hi, step_last;
    int steps;
    struct kop *ops;
    size_t nops, ops_cap;
    struct kop *skips; /* device operations not used (index, why in device) */
    size_t nskips, skips_cap;
    struct lslot *ls;
    size_t ls_cap, nls, ls_hint;
    struct kranges kr; /* the CPU ranges: stages, or candidates for them */
    struct streams_use use;
    int oom;
    uint64_t tokens; /* callbacks so far: none in a chunk means it ended inside one token */
};

/* The launches: appended in file order while reading; then, sorted by
 * correlation and one kept per correlation (the last in the file, as
 * HTA's join keeps the last), found by a search from the last one found
 * (operations come in about their launches' order).  An array, not a hash
 * table: a third of the memory, and no table to grow twice over. */
static int launch_put(struct kstate *k, int64_t corr, int64_t ts, uint32_t thread)
{
    if (k->nls >= UINT32_MAX || grow_heap((void **)&k->ls, &k->ls_cap, k->nls, sizeof *k->ls, 4096))
        return -1;
    k->ls[k->nls] = (struct lslot){corr, ts, thread, (uint32_t)k->nls};
    k->nls++;
    return 0;
}

static int lslot_cmp(const void *a, const void *b)
{
    const struct lslot *x = a, *y = b;
    if (x->corr != y->corr)
        return x->corr < y->corr ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void launches_sort(struct kstate *k)
{
    if (!k->nls)
        return;
    size_t run = 1; /* a trace's correlations mostly come in order: then there is nothing to sort */
    while (run < k->nls && k->ls[run - 1].corr < k->ls[run].corr)
        run++;
    if (run < k->nls)
        qsort(k->ls, k->nls, sizeof *k->ls, lslot_cmp);
    size_t m = 0;
    for (size_t i = 0; i < k->nls; i++) {
        if (m && k->ls[m - 1].corr == k->ls[i].corr)
            m--; /* a later one of the same correlation replaces it */
        k->ls[m++] = k->ls[i];
    }
    k->nls = m;
}

static const struct lslot *launch_find(struct kstate *k, int64_t corr)
{
    if (!k->nls)
        return NULL;
    size_t le = count_le_near(&k->ls[0].corr, sizeof *k->ls, k->nls, corr, &k->ls_hint);
    if (le == 0 || k->ls[le - 1].corr != corr)
        return NULL;
    return &k->ls[le - 1];
}

/* ---- numbers ---- */

/* A time in µs as JSON writes it, to ns, exactly for decimals (Kineto
 * writes up to three decimals: ns).  *frac: written with a point or an
 * exponent (Python reads it as a float: HTA then rounds the trace). */
static int us_to_ns(const char *s, size_t n, int64_t *ns, int *frac)
{
    *frac = 0;
    int exp = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '.' || s[i] == 'e' || s[i] == 'E') {
            *frac = 1;
            exp |= s[i] != '.';
        }
    if (exp) { /* rare: through a double */
        char buf[64];
        if (n >= sizeof buf)
            return -1;
        memcpy(buf, s, n);
        buf[n] = 0;
        double v = strtod(buf, NULL) * 1000.0;
        if (!isfinite(v) || fabs(v) > 9e18)
            return -1;
        *ns = llround(v);
        return 0;
    }
    size_t i = 0;
    int neg = 0;
    if (i < n && s[i] == '-') {
        neg = 1;
        i++;
    }
    int64_t whole = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        if (whole > 9000000000000000LL / 10) /* over ~9e15 µs: not a time in ns */
            return -1;
        whole = whole * 10 + (s[i] - '0');
    }
    if (whole > 9000000000000000LL)
        return -1;
    int64_t frac_ns = 0;
    if (i < n && s[i] == '.') {
        i++;
        int d = 0;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, d++) {
            if (d < 3)
                frac_ns = frac_ns * 10 + (s[i] - '0');
            else if (d == 3 && s[i] >= '5') /* the fourth decimal rounds, half up */
                frac_ns++;
        }
        for (; d < 3; d++)
            frac_ns *= 10;
    }
    int64_t v = whole * 1000 + frac_ns;
    *ns = neg ? -v : v;
    return 0;
}

/* An integer (a device, a stream, a correlation, a rank); HTA takes 7.0
 * as 7, so an integral decimal is one too. */
static int int_of(const char *s, size_t n, int64_t *out)
{
    if (n && n <= 18) { /* plain digits, the usual: no copy, no strtoll */
        size_t i = s[0] == '-';
        int64_t v = 0;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            v = v * 10 + (s[i] - '0');
        if (i == n && n > (size_t)(s[0] == '-')) {
            *out = s[0] == '-' ? -v : v;
            return 0;
        }
    }
    char buf[40];
    if (n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    char *end;
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    if (*end == 0 && errno == 0) {
        *out = v;
        return 0;
    }
    double d = strtod(buf, &end);
    if (*end || d != floor(d) || fabs(d) > 9e15)
        return -1;
    *out = (int64_t)d;
    return 0;
}

/* ---- the event ---- */

/* The categories HTA's idle-time breakdown takes as a stream's kernels
 * (hta/analyzers/breakdown_analysis.py, get_idle_time_breakdown): memory
 * copies and sets count, as on the device they do. */
enum { CAT_NONE, CAT_DEVICE, CAT_RANGE, CAT_OTHER, CAT_TRACE };

/* A key or a value looked for, with its length (keys are compared
 * millions of times). */
struct word {
    const char *s;
    size_t n;
    int id;
};
#define WORD(s, id) {s, sizeof s - 1, id}

static int word_id(const unsigned char *s, size_t n, const struct word *w, size_t count, int none)
{
    for (size_t i = 0; i < count; i++) /* the first byte first: most keys are none of these */
        if (w[i].n == n && n && s[0] == (unsigned char)w[i].s[0] && memcmp(s, w[i].s, n) == 0)
            return w[i].id;
    return none;
}

/* An event's category: CAT_DEVICE, a device operation (HTA's idle-time
 * breakdown takes these as a stream's kernels:
 * hta/analyzers/breakdown_analysis.py, get_idle_time_breakdown; memory
 * copies and sets count, as on the device they do); CAT_RANGE, a CPU
 * range kineto_stage.c maps to stages (HTA's CPU categories); CAT_TRACE,
 * "Trace", a row HTA's parser drops; else CAT_OTHER. */
static int cat_class(const unsigned char *s, size_t n)
{
    static const struct word cats[] = {
        WORD("kernel", CAT_DEVICE),  WORD("Kernel", CAT_DEVICE),          WORD("gpu_memcpy", CAT_DEVICE),
        WORD("Memcpy", CAT_DEVICE),  WORD("gpu_memset", CAT_DEVICE),      WORD("Memset", CAT_DEVICE),
        WORD("mtia_ccp_events", CAT_DEVICE), WORD("cpu_op", CAT_RANGE),   WORD("user_annotation", CAT_RANGE),
        WORD("python_function", CAT_RANGE), WORD("Trace", CAT_TRACE),
    };
    return word_id(s, n, cats, sizeof cats / sizeof *cats, CAT_OTHER);
}

/* Is name HTA's ProfilerStep#N (its pattern ^ProfilerStep#(\d+))? The
 * name is kept to 47 bytes: a name cut short is not a step. */
static int step_number(const char *name, int64_t *n)
{
    static const char pre[] = "ProfilerStep#";
    if (strncmp(name, pre, sizeof pre - 1) != 0)
        return 0;
    const char *d = name + sizeof pre - 1;
    if (*d < '0' || *d > '9')
        return 0;
    *n = 0;
    for (; *d >= '0' && *d <= '9' && *n < INT64_MAX / 10 - 9; d++)
        *n = *n * 10 + (*d - '0');
    return 1;
}

static void event_begin(struct kstate *k)
{
    k->in_event = 1;
    k->ev_key = K_NONE;
    k->ph[0] = k->name[0] = k->pid[0] = k->tid[0] = 0;
    k->has_name_id = 0;
    k->cat_class = CAT_NONE;
    k->has_ts = k->has_dur = k->has_dev = k->has_stream = k->has_corr = k->bad_num = k->name_cut = 0;
}

/* The event's thread, "pid\x1ftid": its id in kr.threads. */
static int thread_of(struct kstate *k, uint32_t *id)
{
    char key[sizeof k->pid + sizeof k->tid];
    size_t a = strlen(k->pid), b = strlen(k->tid);
    memcpy(key, k->pid, a);
    key[a] = '\x1f';
    memcpy(key + a + 1, k->tid, b);
    return strtab_intern(&k->kr.threads, key, a + 1 + b, id);
}

/* One event read whole: an operation, a launch, or something else. */
static int event_end(struct kstate *k)
{
    k->in_event = 0;
    uint64_t index = ++k->use.events;
    if (!k->has_ts)
        k->any_missing_ts = 1; /* HTA's ts column is then a float one: it rounds */
    int64_t stream = k->has_stream ? k->stream : -1;
    if (k->cat_class == CAT_DEVICE) {
        /* why a device operation cannot be a unit: mb_skip's reasons */
        int why = strcmp(k->ph, "X") != 0                                                    ? SCAN_BAD_EVENT
                  : !k->has_ts || !k->has_dur || k->dur < 0 || k->bad_num                    ? SCAN_BAD_TIME
                  : (k->has_dev && (k->dev < 0 || k->dev > INT32_MAX)) || stream > INT32_MAX ? SCAN_BAD_NUMBER
                                                                                             : SCAN_OK;
        struct kop op = {k->ts, k->dur, k->has_corr ? k->corr : -1, index,
                         k->has_dev ? (int32_t)k->dev : -1, (int32_t)(stream < -1 ? -1 : stream)};
        if (why != SCAN_OK) {
            if (grow_heap((void **)&k->skips, &k->skips_cap, k->nskips, sizeof *k->skips, 1024))
                return -1;
            op.device = why;
            k->skips[k->nskips++] = op;
            return 0;
        }
        if (grow_heap((void **)&k->ops, &k->ops_cap, k->nops, sizeof *k->ops, 1024))
            return -1;
        k->ops[k->nops++] = op;
        return 0;
    }
    /* HTA's CPU side: what is not a kernel on a stream (a correlation and
     * a stream), nor the device's Event or Context Sync, of the rows its
     * parser keeps: those with a dur and a cat, not of the cat "Trace"
     * (hta/common/trace_parser.py drops the rest before it joins launches
     * or finds the steps) */
    int cpu = k->has_dur && k->cat_class != CAT_NONE && k->cat_class != CAT_TRACE &&
              !(stream >= 0 && k->has_corr && k->corr >= 0) && strcmp(k->name, "Event Sync") != 0 &&
              strcmp(k->name, "Context Sync") != 0;
    if (cpu && k->has_name_id && k->cat_class == CAT_RANGE && strcmp(k->ph, "X") == 0 && k->has_ts && k->has_dur &&
        k->dur >= 0 && !k->bad_num) {
        uint32_t th;
        int64_t end;
        if (!__builtin_add_overflow(k->ts, k->dur, &end)) {
            if (thread_of(k, &th) || kranges_add(&k->kr, k->ts, end, k->name_id, th))
                return -1;
            k->use.cpu_ranges++;
        }
    }
    int64_t step;
    if (cpu && k->has_ts && !k->name_cut && step_number(k->name, &step)) {
        if (!k->steps || step < k->step_lo)
            k->step_lo = step;
        if (!k->steps || step > k->step_hi)
            k->step_hi = step;
        if (!k->steps || k->ts > k->step_last)
            k->step_last = k->ts;
        k->steps++;
    }
    if (cpu && k->has_corr && k->corr != -1) {
        k->use.launches++;
        uint32_t th;
        if (k->has_ts && !k->bad_num)
            return thread_of(k, &th) || launch_put(k, k->corr, k->ts, th) ? -1 : 0;
        return 0;
    }
    k->use.ignored++;
    return 0;
}

/* ---- yajl's callbacks ---- */

static int cb_map_key(void *ctx, const unsigned char *s, size_t n)
{
    struct kstate *k = ctx;
    k->tokens++;
    if (k->form == 1 && k->depth == 1) {
        static const struct word w[] = {WORD("traceEvents", K_EVENTS), WORD("distributedInfo", K_DIST)};
        k->top_key = word_id(s, n, w, 2, K_NONE);
    } else if (k->in_dist && k->depth == 2) {
        static const struct word w[] = {WORD("rank", K_RANK)};
        k->dist_key = word_id(s, n, w, 1, K_NONE);
    } else if (k->in_event && k->depth == k->arr_depth + 1) {
        static const struct word w[] = {WORD("ph", K_PH),   WORD("cat", K_CAT),   WORD("name", K_NAME),
                                        WORD("ts", K_TS),   WORD("dur", K_DUR),   WORD("args", K_ARGS),
                                        WORD("pid", K_PID), WORD("tid", K_TID)};
        k->ev_key = word_id(s, n, w, 8, K_NONE);
    } else if (k->in_args && k->depth == k->arr_depth + 2) {
        static const struct word w[] = {WORD("device", K_DEVICE), WORD("stream", K_STREAM),
                                        WORD("correlation", K_CORR)};
        k->args_key = word_id(s, n, w, 3, K_NONE);
    }
    return 1;
}

static int cb_start_map(void *ctx)
{
    struct kstate *k = ctx;
    k->tokens++;
    k->depth++;
    if (k->depth == 1)
        k->form = 1;
    else if (k->arr_depth && k->depth == k->arr_depth + 1)
        event_begin(k);
    else if (k->in_event && k->depth == k->arr_depth + 2 && k->ev_key == K_ARGS) {
        k->in_args = 1;
        k->args_key = K_NONE;
    } else if (k->form == 1 && k->depth == 2 && k->top_key == K_DIST) {
        k->in_dist = 1;
        k->dist_key = K_NONE;
    }
    return 1;
}

static int cb_end_map(void *ctx)
{
    struct kstate *k = ctx;
    k->tokens++;
    if (k->in_event && k->depth == k->arr_depth + 1) {
        if (event_end(k)) {
            k->oom = 1;
            return 0;
        }
    } else if (k->in_args && k->depth == k->arr_depth + 2)
        k->in_args = 0;
    else if (k->in_dist && k->depth == 2)
        k->in_dist = 0;
    k->depth--;
    return 1;
}

static int cb_start_array(void *ctx)
{
    struct kstate *k = ctx;
    k->tokens++;
    k->depth++;
    if (k->depth == 1) {
        k->form = 2;
        k->arr_depth = 1;
        k->seen_events = 1;
    } else if (k->form == 1 && k->depth == 2 && k->top_key == K_EVENTS && k->seen_events) {
        k->two_events = 1;
    } else if (k->form == 1 && k->depth == 2 && k->top_key == K_EVENTS && !k->seen_events) {
        k->arr_depth = 2;
        k->seen_events = 1;
    }
    return 1;
}

static int cb_end_array(void *ctx)
{
    struct kstate *k = ctx;
    k->tokens++;
    if (k->depth == k->arr_depth)
        k->arr_depth = 0;
    k->depth--;
    return 1;
}

/* A scalar: in an events array, an element that is not an event. */
static void scalar_element(struct kstate *k)
{
    k->tokens++;
    if (k->arr_depth && k->depth == k->arr_depth) {
        k->use.events++;
        k->use.ignored++;
    }
}

/* A pid or tid, as written (a thread is known by both). */
static void keep_id(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = 0;
}

/* args' device, stream or correlation, a number as the input wrote it */
static void args_number(struct kstate *k, const char *s, size_t n)
{
    int64_t v;
    if (int_of(s, n, &v))
        return; /* HTA's to_numeric makes it -1 / absent: so do we */
    if (k->args_key == K_DEVICE) {
        k->dev = v;
        k->has_dev = 1;
    } else if (k->args_key == K_STREAM) {
        k->stream = v;
        k->has_stream = 1;
    } else {
        k->corr = v;
        k->has_corr = 1;
    }
}

/* A string that pandas' to_numeric reads as a number, as HTA reads args
 * (hta/common/trace_parser.py, through pd.to_numeric(errors="coerce")):
 * a decimal, signed, with a fraction or an exponent; "0x0" (ROCm) or any
 * other text is not one, and stays absent as with HTA. */
static int decimal_string(const unsigned char *s, size_t n)
{
    size_t i = n && (s[0] == '-' || s[0] == '+');
    size_t d = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
        d++;
    if (i < n && s[i] == '.')
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            d++;
    if (d && i < n && (s[i] == 'e' || s[i] == 'E')) {
        i += 1 + (i + 1 < n && (s[i + 1] == '-' || s[i + 1] == '+'));
        size_t e = i;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            ;
        if (i == e)
            return 0;
    }
    return d && i == n;
}

static int cb_number(void *ctx, const char *s, size_t n)
{
    struct kstate *k = ctx;
    scalar_element(k);
    if (k->in_event && k->depth == k->arr_depth + 1 && (k->ev_key == K_PID || k->ev_key == K_TID)) {
        keep_id(k->ev_key == K_PID ? k->pid : k->tid, sizeof k->pid, s, n);
        return 1;
    }
    if (k->in_event && k->depth == k->arr_depth + 1 && (k->ev_key == K_TS || k->ev_key == K_DUR)) {
        int64_t v;
        int frac;
        if (us_to_ns(s, n, &v, &frac)) {
            k->bad_num = 1;
            return 1;
        }
        if (k->ev_key == K_TS) {
            k->ts = v;
            k->has_ts = 1;
            k->any_frac_ts |= frac;
        } else {
            k->dur = v;
            k->has_dur = 1;
        }
    } else if (k->in_args && k->depth == k->arr_depth + 2 && k->args_key != K_NONE) {
        args_number(k, s, n);
    } else if (k->in_dist && k->depth == 2 && k->dist_key == K_RANK) {
        int64_t v;
        if (!int_of(s, n, &v) && v >= 0 && v <= INT32_MAX)
            k->use.rank = (int32_t)v;
    }
    return 1;
}

static int cb_string(void *ctx, const unsigned char *s, size_t n)
{
    struct kstate *k = ctx;
    scalar_element(k);
    if (k->in_event && k->depth == k->arr_depth + 1 && (k->ev_key == K_PID || k->ev_key == K_TID)) {
        keep_id(k->ev_key == K_PID ? k->pid : k->tid, sizeof k->pid, (const char *)s, n);
        return 1;
    }
    /* a CPU range's name, whole (a stage's glob matches it): kept where
     * the category is one or not known yet; a name of 64 KiB or more is
     * no range's */
    if (k->in_event && k->depth == k->arr_depth + 1 && k->ev_key == K_NAME && n < 65536 &&
        (k->cat_class == CAT_NONE || k->cat_class == CAT_RANGE)) {
        if (strtab_intern(&k->kr.names, (const char *)s, n, &k->name_id)) {
            k->oom = 1;
            return 0;
        }
        k->has_name_id = 1;
    }
    if (k->in_event && k->depth == k->arr_depth + 1 && k->ev_key == K_CAT)
        k->cat_class = cat_class(s, n);
    /* a device, stream or correlation written as a string: a number to
     * HTA where pandas reads one */
    if (k->in_args && k->depth == k->arr_depth + 2 && k->args_key != K_NONE && decimal_string(s, n))
        args_number(k, (const char *)s, n);
    if (k->in_event && k->depth == k->arr_depth + 1) {
        char *dst = k->ev_key == K_PH ? k->ph : k->ev_key == K_NAME ? k->name : NULL;
        size_t cap = k->ev_key == K_PH ? sizeof k->ph : sizeof k->name;
        if (dst) {
            if (k->ev_key == K_NAME)
                k->name_cut = n >= cap; /* a step number cut short is not the step's */
            if (n >= cap)
                n = cap - 1; /* longer than any we look for: it matches none */
            memcpy(dst, s, n);
            dst[n] = 0;
            if (n == cap - 1 && k->ev_key != K_NAME)
                dst[0] = '\x01'; /* a name keeps its start: ProfilerStep#N is told by it */
        }
    }
    return 1;
}

static int cb_null(void *ctx)
{
    scalar_element(ctx);
    return 1;
}

static int cb_bool(void *ctx, int b)
{
    (void)b;
    scalar_element(ctx);
    return 1;
}

static const yajl_callbacks callbacks = {
    cb_null,
    cb_bool,
    NULL,
    NULL,
    cb_number,
    cb_string,
    cb_start_map,
    cb_map_key,
    cb_end_map,
    cb_start_array,
    cb_end_array,
};

/* ---- the whole ---- */

static uint64_t count_lines(const unsigned char *p, size_t n)
{
    uint64_t c = 0;
    for (const unsigned char *e = p + n; (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++)
        c++;
    return c;
}

/* yajl's message, on one line, after where it stopped. */
static void json_error(yajl_handle h, const char *name, uint64_t off, uint64_t line, char *err, size_t errlen)
{
    unsigned char *msg = yajl_get_error(h, 0, NULL, 0);
    char *m = (char *)msg;
    size_t ml = m ? strcspn(m, "\n") : 0;
    snprintf(err, errlen, "%s: not valid JSON at byte %llu (line %llu): %.*s", name, (unsigned long long)off,
             (unsigned long long)line, (int)ml, m ? m : "parse error");
    if (msg)
        yajl_free_error(h, msg);
}

/* Feed one chunk; 0, or -1 with err set. */
static int feed(yajl_handle h, struct kstate *k, const unsigned char *p, size_t n, uint64_t *off, uint64_t *lines,
                const char *name, char *err, size_t errlen)
{
    yajl_status st = yajl_parse(h, p, n);
    if (st == yajl_status_ok) {
        *off += n;
        *lines += count_lines(p, n);
        return 0;
    }
    if (k->oom) {
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    size_t c = yajl_get_bytes_consumed(h);
    if (c > n)
        c = n;
    json_error(h, name, *off + c, *lines + count_lines(p, c) + 1, err, errlen);
    return -1;
}

#define TIME_SPAN_MAX (INT64_C(1) << 62)

static void least_of(int64_t least[2], int64_t t)
{
    int64_t *l = &least[t < 0];
    if (t < *l)
        *l = t;
}

/* The operation's launch, where it is taken (not later than the
 * operation, not below a trace's 0): NULL where not. */
static const struct lslot *launch_of(struct kstate *k, const struct kop *o, int64_t t_floor)
{
    const struct lslot *l = o->corr != -1 ? launch_find(k, o->corr) : NULL;
    return l && l->ts >= t_floor && l->ts <= o->ts ? l : NULL;
}

/* With a stage map: each operation's stages (kineto_stage.h), from its
 * launch; NULL out of memory. */
static struct kstage *stages_of(struct model *m, struct kstate *k, int64_t t_floor, int64_t t_last)
{
    int64_t *lt = malloc((k->nops ? k->nops : 1) * sizeof *lt);
    uint32_t *th = malloc((k->nops ? k->nops : 1) * sizeof *th);
    struct kstage *st = malloc((k->nops ? k->nops : 1) * sizeof *st);
    if (lt && th && st) {
        for (size_t i = 0; i < k->nops; i++) {
            const struct lslot *l = launch_of(k, &k->ops[i], t_floor);
            lt[i] = l ? l->ts : T_NONE;
            th[i] = l ? l->thread : 0;
        }
        k->use.mapped = 1;
        if (kstage_assign(&k->kr, m->stages, k->nops, lt, th, st, &k->use)) {
            free(st);
            st = NULL;
        }
        /* a range below a trace's 0 is no stage, nor one so long before
         * the last operation's end that the operations would fall out of
         * the time span the analysis takes (a stage never makes a
         * readable trace unreadable) */
        for (size_t i = 0; st && i < k->nops; i++) {
            int64_t room;
            if (st[i].synth0 != T_NONE &&
                (st[i].synth0 < t_floor || __builtin_sub_overflow(t_last, st[i].synth0, &room) || room > TIME_SPAN_MAX))
                st[i].synth0 = st[i].synth1 = T_NONE;
            if (st[i].pickup != T_NONE &&
                (st[i].pickup < t_floor || __builtin_sub_overflow(t_last, st[i].pickup, &room) || room > TIME_SPAN_MAX)) {
                st[i].pickup = T_NONE;
                st[i].ready = lt[i];
                if (st[i].synth1 != T_NONE && st[i].synth1 > st[i].ready)
                    st[i].synth1 = st[i].ready;
            }
        }
    } else {
        free(st);
        st = NULL;
    }
    free(lt);
    free(th);
    return st;
}

/* One operation's stages into its unit's times: CHAN_SEND where it is
 * ready, GPU_PICKUP, SYNTH_START and SYNTH_END where it has them; where a
 * prep range makes it ready before its launch, the launch is kept as the
 * detail launch_ns (HTA's rule takes it: analyze_stream.c; build adds it). */
static void stage_times(int64_t t[EV_N], const struct kstage *st, int64_t origin, struct streams_use *use)
{
    t[EV_CHAN_SEND] = st->ready - origin;
    if (st->pickup != T_NONE) {
        t[EV_GPU_PICKUP] = st->pickup - origin;
        use->stage_units[1]++;
    }
    if (st->synth0 != T_NONE) {
        t[EV_SYNTH_START] = st->synth0 - origin;
        t[EV_SYNTH_END] = st->synth1 - origin;
        use->stage_units[0]++;
    }
}

/* An operation's times from the origin, where they stay within 2^62 ns
 * (146 years), so that the analysis's differences and sums of them cannot
 * overflow: 0, or -1 for an operation skipped as a bad time. */
static int op_times(const struct kop *o, int64_t origin, int64_t *t0, int64_t *t1)
{
    return __builtin_sub_overflow(o->ts, origin, t0) || *t0 < 0 || __builtin_add_overflow(*t0, o->dur, t1) ||
                   *t1 > TIME_SPAN_MAX
               ? -1
               : 0;
}

/* The launch of an operation (by its correlation), or NULL: none, or one
 * at a time below 0 in a trace of times >= 0 (t_floor). */
static const struct lslot *op_launch(struct kstate *k, const struct kop *o, int64_t t_floor)
{
    const struct lslot *l = o->corr != -1 ? launch_find(k, o->corr) : NULL;
    return l && l->ts < t_floor ? NULL : l;
}

/* An event number in decimal (the job id of its unit): its length. */
static size_t u64_dec(char *out, uint64_t v)
{
    char tmp[24];
    size_t n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    for (size_t i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    out[n] = 0;
    return n;
}

/* The kept operations and launches, as units, through the builder. */
static int build(struct model *m, const char *name, struct kstate *k)
{
    struct mbuild b;
    mb_init(&b, m, name, &prov_kineto);
    /* times count from the earliest kept, on a whole µs, so that HTA's
     * rounding to the µs (analyze_stream.c) sees the same boundaries */
    int64_t least[2] = {INT64_MAX, INT64_MAX}; /* the least time >= 0, and the least below 0 */
    for (size_t i = 0; i < k->nops; i++)
        least_of(least, k->ops[i].ts);
    launches_sort(k);
    for (size_t i = 0; i < k->nls; i++)
        least_of(least, k->ls[i].ts);
    /* A time below 0 in a trace of times >= 0 is hostile or broken: it
     * does not become the origin (it is skipped, below, as out of range). */
    int64_t t_floor = least[0] != INT64_MAX ? 0 : INT64_MIN; /* below it, a launch is none */
    struct kstage *st = NULL;
    if (m->stages && m->stages->n) {
        int64_t t_last = INT64_MIN; /* the last operation's end */
        for (size_t i = 0; i < k->nops; i++) {
            int64_t end;
            if (__builtin_add_overflow(k->ops[i].ts, k->ops[i].dur, &end))
                end = INT64_MAX;
            if (end > t_last)
                t_last = end;
        }
        if (!(st = stages_of(m, k, t_floor, t_last)))
            return -1;
        for (size_t i = 0; i < k->nops; i++) /* a stage may begin before any operation or launch */
            if (st[i].ready != T_NONE)
                least_of(least, st[i].synth0 != T_NONE ? st[i].synth0 : st[i].ready);
    }
    /* the ranges' last use, before the units take their memory */
    if (k->nops && kstage_candidates(&k->kr, k->ops, k->nops, m, &k->use)) {
        free(st);
        return -1;
    }
    kranges_free(&k->kr);
    int64_t lo = least[0] != INT64_MAX ? least[0] : least[1];
    int64_t origin = lo == INT64_MAX ? 0 : lo - ((lo % 1000) + 1000) % 1000;
    /* Each operation is a unit of its own (its event number names it),
     * added whole (mb_unit, no lookup); the details of some of them after
     * all units, when the run's index is made once. */
    int rc = 0;
    size_t details = 0;
    for (size_t i = 0; i < k->nops && !rc; i++) {
        const struct kop *o = &k->ops[i];
        char job[24];
        size_t jl = u64_dec(job, o->index);
        int64_t t0, t1;
        if (op_times(o, origin, &t0, &t1)) {
            rc = mb_skip(&b, o->index, SCAN_BAD_TIME);
            continue;
        }
        int64_t t[EV_N];
        for (int e = 0; e < EV_N; e++)
            t[e] = T_NONE;
        t[EV_GPU_START] = t0, t[EV_GPU_END] = t1;
        const struct lslot *l = op_launch(k, o, t_floor);
        if (!l)
            k->use.unlaunched++;
        else if (l->ts > o->ts) {
            /* the clocks disagree: a CHAN_SEND after GPU_START would
             * contradict; HTA's breakdown still takes the launch's time,
             * so it is kept as the unit's detail launch_ns (analyze_stream.c) */
            k->use.late_launch++;
            details++;
        } else if (st) {
            stage_times(t, &st[i], origin, &k->use);
            details += st[i].ready != l->ts;
        } else
            t[EV_CHAN_SEND] = l->ts - origin;
        rc = mb_unit(&b, job, jl, -1, t, o->stream, o->device, o->index, 0);
    }
    for (size_t i = 0; i < k->nops && details && !rc; i++) {
        const struct kop *o = &k->ops[i];
        int64_t t0, t1;
        const struct lslot *l = op_launch(k, o, t_floor);
        if (!l || op_times(o, origin, &t0, &t1) || (l->ts <= o->ts && (!st || st[i].ready == l->ts)))
            continue; /* skipped, or no detail */
        char job[24], v[24];
        size_t jl = u64_dec(job, o->index);
        size_t vl = (size_t)snprintf(v, sizeof v, "%lld", (long long)(l->ts - origin));
        rc = mb_detail(&b, job, jl, -1, "launch_ns", 9, v, vl, o->index);
        details--;
    }
    free(st);
    /* the operations and launches are units now: their memory is the
     * model's to finish with */
    free(k->ops);
    free(k->ls);
    k->ops = NULL;
    k->ls = NULL;
    k->ops_cap = k->ls_cap = k->nls = 0;
    for (size_t i = 0; i < k->nskips && !rc; i++)
        rc = mb_skip(&b, k->skips[i].index, k->skips[i].device);
    if (!rc && mb_holds(&b)) {
        struct run *r = mb_run(&b);
        k->use.streams = 1;
        k->use.ops = k->nops;
        k->use.us_rounded = k->any_frac_ts || k->any_missing_ts;
        k->use.origin = origin;
        /* two steps or more (by number: HTA counts the distinct names) */
        k->use.step_cut = k->steps && k->step_lo != k->step_hi ? k->step_last - origin : T_NONE;
        r->streams = k->use;
    }
    if (mb_finish(&b))
        rc = -1;
    return rc;
}

/* A reader of a byte range: yajl's handle over its state, where the
 * range ends (UINT64_MAX: at the end of the input, read as it comes),
 * where it stopped, and its newlines so far. */
struct krange_read {
    struct kstate k;
    yajl_handle h;
    int fd;
    uint64_t from, to; /* [from, to): pread; to == UINT64_MAX and !use_pread: read() to the end */
    int use_pread, last; /* last: the input's end is in the range (then yajl is told it ended) */
    uint64_t off, lines;
    const char *name;
    int rc;
    char err[512];
    _Atomic int stop; /* set by the other thread: what this range reads is no longer wanted */
};

/* Feed the range; rc and err as kineto_read says them. */
static void range_feed(struct krange_read *R)
{
    size_t cap = 1 << 18;
    unsigned char *buf = malloc(cap);
    if (!buf) {
        snprintf(R->err, sizeof R->err, "%s: out of memory", R->name);
        R->rc = -1;
        return;
    }
    /* yajl lexes a token that chunks cut from its start again with each
     * chunk: a string or number of L bytes fed in chunks of c costs L^2/c
     * (a 100 MB name took 10 s from a file, 40 s from a pipe).  While
     * chunks end inside one token (no callback came), the next is twice
     * as long and filled whole (a pipe gives 64 KiB a read), which keeps
     * the cost near 2L; after it, chunks are one read again. */
    size_t want = cap;
    uint64_t at = R->from;
    while (!R->rc && !atomic_load_explicit(&R->stop, memory_order_relaxed)) {
        size_t got = 0;
        int eof = 0;
        while (!R->rc && got < want) {
            size_t ask = want - got;
            if (R->use_pread && R->to != UINT64_MAX && ask > R->to - at - got)
                ask = (size_t)(R->to - at - got);
            if (ask == 0) {
                eof = 1;
                break;
            }
            ssize_t r = R->use_pread ? pread(R->fd, buf + got, ask, (off_t)(at + got)) : read(R->fd, buf + got, ask);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0) {
                snprintf(R->err, sizeof R->err, "%s: %s", R->name, strerror(errno));
                R->rc = -1;
            } else if (r == 0) {
                eof = 1;
                break;
            } else {
                got += (size_t)r;
            }
            if (want == 1 << 18)
                break; /* one read: the usual chunk */
        }
        if (R->rc || got == 0)
            break;
        at += got;
        uint64_t before = R->k.tokens;
        R->rc = feed(R->h, &R->k, buf, got, &R->off, &R->lines, R->name, R->err, sizeof R->err);
        if (R->rc || eof)
            break; /* (no read after the end: a terminal would wait for a second ^D) */
        if (R->k.tokens != before)
            want = 1 << 18;
        else if (want < (size_t)1 << 28) {
            unsigned char *nb = want * 2 > cap ? realloc(buf, want * 2) : buf;
            if (!nb) {
                snprintf(R->err, sizeof R->err, "%s: out of memory", R->name);
                R->rc = -1;
            } else {
                buf = nb;
                want *= 2;
                if (want > cap)
                    cap = want;
            }
        }
    }
    free(buf);
    if (!R->rc && R->last && !atomic_load_explicit(&R->stop, memory_order_relaxed) &&
        yajl_complete_parse(R->h) != yajl_status_ok) {
        json_error(R->h, R->name, R->off, R->lines + 1, R->err, sizeof R->err); /* cut short: where it ends */
        R->rc = -1;
    }
}

static void *range_thread(void *arg)
{
    range_feed(arg);
    return NULL;
}

/* ---- two ranges at once ---- */

/* A trace of 64 MiB or more in a file is read in two byte ranges at once,
 * the second from a line that begins an event in its middle: JSON puts no
 * newline inside a string, so a line's start is between tokens, and the
 * second range is read as if the events array had just opened there (its
 * yajl is first fed "{"traceEvents":[" or "[").  That guess is checked
 * when the first range ends: its reading must then be inside the events
 * array, between two events, just after a comma.  If it is, the second
 * range's events follow the first's, renumbered; if not (or the second
 * range met an error: its place is said by a reading in order), the
 * first range's reading goes on through the second, as one thread. */
#define SPLIT_MIN (64u << 20)

/* Where the second range begins: past the middle, the first line whose
 * first byte (past blanks) opens an object; 0: none near (no split). */
static uint64_t split_point(int fd, uint64_t size)
{
    unsigned char b[1 << 16];
    uint64_t at = size / 2;
    for (int tries = 0; tries < 64 && at < size; tries++) {
        ssize_t n = pread(fd, b, sizeof b, (off_t)at);
        if (n <= 0)
            return 0;
        for (ssize_t i = 0; i < n; i++)
            if (b[i] == '\n') {
                ssize_t j = i + 1;
                while (j < n && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r'))
                    j++;
                if (j < n && b[j] == '{')
                    return at + (uint64_t)(i + 1);
            }
        at += (uint64_t)n;
    }
    return 0;
}

/* The input's form by its first byte: 1 an object, 2 an array, 0 neither. */
static int form_of(int fd)
{
    unsigned char b[4096];
    ssize_t n = pread(fd, b, sizeof b, 0);
    ssize_t i = n >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf ? 3 : 0;
    while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
        i++;
    return i < n ? (b[i] == '{' ? 1 : b[i] == '[' ? 2 : 0) : 0;
}

/* Did the first range end where the second was read from: in the events
 * array, between events, after a comma? */
static int split_holds(const struct krange_read *A, int form, uint64_t split)
{
    const struct kstate *k = &A->k;
    if (A->rc || k->form != form || !k->seen_events || k->two_events || k->in_event ||
        k->arr_depth != (form == 1 ? 2 : 1) || k->depth != k->arr_depth || (form == 1 && k->top_key != K_EVENTS))
        return 0;
    unsigned char b[4096];
    uint64_t from = split > sizeof b ? split - sizeof b : 0;
    ssize_t n = pread(A->fd, b, (size_t)(split - from), (off_t)from);
    while (n > 0 && (b[n - 1] == ' ' || b[n - 1] == '\t' || b[n - 1] == '\n' || b[n - 1] == '\r'))
        n--;
    return n > 0 && b[n - 1] == ',';
}

/* b's ids of t's strings in a's table (map[id] for b's ids); NULL: out of memory. */
static uint32_t *strtab_map(struct strtab *a, const struct strtab *b)
{
    uint32_t *map = malloc((b->n ? b->n : 1) * sizeof *map);
    for (uint32_t i = 0; map && i < b->n; i++) {
        size_t len;
        const char *str = strtab_get(b, i, &len);
        if (strtab_intern(a, str, len, &map[i])) {
            free(map);
            return NULL;
        }
    }
    return map;
}

/* b's n operations after a's, their event numbers moved on by ev.  0, or
 * -1 out of memory (a kept). */
static int kops_join(struct kop **a, size_t *na, size_t *cap, const struct kop *b, size_t n, uint64_t ev)
{
    if (!n)
        return 0;
    struct kop *o = realloc(*a, (*na + n) * sizeof *o);
    if (!o)
        return -1;
    *a = o, *cap = *na + n;
    for (size_t i = 0; i < n; i++, (*na)++)
        o[*na] = b[i], o[*na].index += ev;
    return 0;
}

/* The second range's reading after the first's, as one reading in order
 * would have made it: events renumbered, names and threads as the first
 * knows them.  0, or -1 out of memory. */
static int ranges_join(struct kstate *a, struct kstate *b)
{
    uint64_t ev = a->use.events;
    uint32_t *names = strtab_map(&a->kr.names, &b->kr.names), *threads = strtab_map(&a->kr.threads, &b->kr.threads);
    int rc = names && threads ? 0 : -1;
    if (rc == 0 && (kops_join(&a->ops, &a->nops, &a->ops_cap, b->ops, b->nops, ev) ||
                    kops_join(&a->skips, &a->nskips, &a->skips_cap, b->skips, b->nskips, ev)))
        rc = -1;
    if (rc == 0 && b->nls) {
        struct lslot *l = realloc(a->ls, (a->nls + b->nls) * sizeof *l);
        if (!l)
            rc = -1;
        else {
            a->ls = l, a->ls_cap = a->nls + b->nls;
            for (size_t i = 0; i < b->nls; i++, a->nls++) {
                l[a->nls] = b->ls[i];
                l[a->nls].thread = threads[b->ls[i].thread];
                l[a->nls].seq = (uint32_t)a->nls;
            }
        }
    }
    for (size_t i = 0; rc == 0 && i < b->kr.n; i++) {
        const struct krange *x = &b->kr.r[i];
        rc = kranges_add(&a->kr, x->t0, x->t1, names[x->name], threads[x->thread]);
    }
    free(names);
    free(threads);
    if (rc)
        return -1;
    a->use.events += b->use.events;
    a->use.ignored += b->use.ignored;
    a->use.launches += b->use.launches;
    a->use.cpu_ranges += b->use.cpu_ranges;
    if (b->use.rank >= 0)
        a->use.rank = b->use.rank; /* the last one read, as in order */
    if (b->steps) {
        if (!a->steps || b->step_lo < a->step_lo)
            a->step_lo = b->step_lo;
        if (!a->steps || b->step_hi > a->step_hi)
            a->step_hi = b->step_hi;
        if (!a->steps || b->step_last > a->step_last)
            a->step_last = b->step_last;
        a->steps += b->steps;
    }
    a->any_frac_ts |= b->any_frac_ts;
    a->any_missing_ts |= b->any_missing_ts;
    a->two_events |= b->two_events;
    a->tokens += b->tokens;
    return 0;
}

static void range_free(struct krange_read *R)
{
    if (!R)
        return;
    if (R->h)
        yajl_free(R->h);
    free(R->k.ops);
    free(R->k.skips);
    free(R->k.ls);
    kranges_free(&R->k.kr);
    free(R);
}

static struct krange_read *range_new(int fd, const char *name)
{
    struct krange_read *R = calloc(1, sizeof *R);
    if (!R)
        return NULL;
    R->k.use.rank = -1;
    R->fd = fd, R->name = name;
    R->from = 0, R->to = UINT64_MAX, R->last = 1;
    if (!(R->h = yajl_alloc(&callbacks, NULL, &R->k))) {
        free(R);
        return NULL;
    }
    return R;
}

/* Two ranges of a file of size bytes, where it is one worth it: the
 * second read on its own thread (started), the first left to the caller;
 * *split: where the second begins (0: no split). */
static struct krange_read *second_range(struct krange_read *A, uint64_t size, pthread_t *th, uint64_t *split)
{
    *split = 0;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int two = cpus >= 2 && size >= SPLIT_MIN;
    const char *force = getenv("WATERFALL_READ_THREADS"); /* as for logs: the tests check the split changes nothing */
    if (force)
        two = atoi(force) >= 2 && size > 0;
    int form = two ? form_of(A->fd) : 0;
    uint64_t at = form ? split_point(A->fd, size) : 0;
    if (!at)
        return NULL;
    struct krange_read *B = range_new(A->fd, A->name);
    if (!B)
        return NULL;
    static const char obj[] = "{\"traceEvents\":[", arr[] = "[";
    const char *pre = form == 1 ? obj : arr;
    B->from = B->off = at, B->to = size, B->use_pread = 1;
    if (yajl_parse(B->h, (const unsigned char *)pre, strlen(pre)) != yajl_status_ok ||
        pthread_create(th, NULL, range_thread, B) != 0) {
        range_free(B);
        return NULL;
    }
    A->to = at, A->use_pread = 1, A->last = 0;
    *split = at;
    return B;
}

int kineto_read(struct model *m, int fd, const char *name, const unsigned char *head, size_t hn, uint64_t *bytes,
                struct streams_use *seen, uint64_t *skipped, char *err, size_t errlen)
{
    struct krange_read *A = range_new(fd, name), *B = NULL;
    if (!A) {
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    /* A UTF-8 byte order mark, which a reader of JSON may ignore (RFC 8259,
     * 8.1): kineto_sniff takes it, yajl does not.  Byte offsets count it. */
    static const unsigned char bom[3] = {0xef, 0xbb, 0xbf};
    unsigned char b3[3];
    if (hn >= 3 && memcmp(head, bom, 3) == 0)
        head += 3, hn -= 3, A->off = 3;
    else if (!hn && pread(fd, b3, 3, 0) == 3 && memcmp(b3, bom, 3) == 0 && lseek(fd, 3, SEEK_SET) == 3)
        A->from = 3, A->off = 3;
    if (hn)
        A->rc = feed(A->h, &A->k, head, hn, &A->off, &A->lines, name, A->err, sizeof A->err);
    struct stat st;
    pthread_t th;
    uint64_t split = 0;
    if (!hn && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        B = second_range(A, (uint64_t)st.st_size, &th, &split);
    if (!A->rc)
        range_feed(A);
    if (B) {
        int form = B->k.form; /* the form guessed (its prefix made it) */
        int guess = !A->rc && split_holds(A, form, split); /* the second range's reading is wanted */
        if (!guess)
            atomic_store_explicit(&B->stop, 1, memory_order_relaxed);
        pthread_join(th, NULL);
        int holds = guess && !B->rc;
        if (getenv("WATERFALL_TIMING")) /* how the read went (the tests check that both ways run) */
            fprintf(stderr, "waterfall: %s read in two ranges, the second from byte %llu: %s\n", name,
                    (unsigned long long)split,
                    holds    ? "joined"
                    : A->rc  ? "the first stopped at an error"
                    : !guess ? "the first did not end between two events: read again in order"
                             : "the second stopped at an error: read again in order");
        if (holds) {
            if (ranges_join(&A->k, &B->k)) {
                snprintf(A->err, sizeof A->err, "%s: out of memory", name);
                A->rc = -1;
            }
            A->off = B->off, A->lines += B->lines;
            range_free(B);
        } else {
            range_free(B); /* before the first reading goes on: not held beside it */
            if (!A->rc) { /* the guess did not hold, or the second range has an error: on, in order */
                A->from = split, A->to = (uint64_t)st.st_size, A->last = 1;
                range_feed(A);
            }
        }
    }
    int rc = A->rc;
    if (rc)
        snprintf(err, errlen, "%s", A->err);
    struct kstate *k = &A->k;
    if (!rc && k->two_events) { /* Python's json (HTA's) keeps the last, others the first */
        snprintf(err, errlen, "%s: two \"traceEvents\" arrays: which one is the trace would be a guess", name);
        rc = -1;
    }
    if (!rc && !k->seen_events) {
        snprintf(err, errlen, "%s: a JSON object with no \"traceEvents\" array: not a trace", name);
        rc = -1;
    }
    if (!rc && build(m, name, k)) {
        snprintf(err, errlen, "%s: out of memory", name);
        rc = -1;
    }
    *bytes = A->off;
    k->use.ops = k->nops;
    *seen = k->use;
    *skipped = k->nskips;
    range_free(A);
    return rc;
}
