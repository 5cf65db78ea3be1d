/*
 * wf_timeline.h -- formatting cuzk-compatible TIMELINE lines.
 *
 * Shared by the recorder's text sink (formatted on the writer thread, never
 * by the caller) and by `waterfall dump`, so both print the same bytes:
 *
 *     TIMELINE,<ms>,<EVENT>,<job_id>,<detail>
 *
 * detail is worker=W,partition=P,device=D with absent keys left out, then
 * the unit's own details (kind=...); an empty detail leaves the trailing
 * comma, as cuzk does.  Bytes of the job
 * id that would break the line (',', control characters) become '_'.
 */
#ifndef WF_TIMELINE_H
#define WF_TIMELINE_H

#include "waterfall.h"

#include <stddef.h>
#include <stdint.h>

/* The vocabulary, defined once: the six events of waterfall.h, their
 * names, in the order of their ids.  The command's readers (src/read/
 * scan.h) use the same ids and this table. */
#define WFT_PIPELINE_EVENTS 6
_Static_assert(WF_SYNTH_START == 0 && WF_SYNTH_END == 1 && WF_CHAN_SEND == 2 && WF_GPU_PICKUP == 3 &&
                   WF_GPU_START == 4 && WF_GPU_END == WFT_PIPELINE_EVENTS - 1,
               "the six events are ids 0 to 5, in the pipeline's order");
extern const char *const wft_event_names[WFT_PIPELINE_EVENTS];

#define WFT_LINE_MAX 1024  /* a formatted line never exceeds this */
#define WFT_JOB_MAX 256    /* job ids longer than this are cut in text lines */
#define WFT_DETAILS_MAX 400 /* a unit's details (kind=...) in a line, at most */

/* Format one line (with '\n') into buf[WFT_LINE_MAX]; returns its length.
 * ns is the time since the epoch; decimals (0-6) after the ms point. */
size_t wft_format_line(char *buf, int64_t ns, int decimals, const char *event,
                       const char *job, size_t job_len, int partition,
                       int worker, int device);

/* The same, with the unit's details (wf_unit_detail) after the others:
 * details[0..details_len) as wft_detail_add builds it, "k=v,k=v". */
size_t wft_format_line_details(char *buf, int64_t ns, int decimals, const char *event,
                               const char *job, size_t job_len, int partition,
                               int worker, int device, const char *details, size_t details_len);

/* Add key=value to a unit's details buf[0..*len) (capacity WFT_DETAILS_MAX),
 * unless key is there already (the first value of a key is the unit's) or
 * it would not fit.  Bytes of the value that would break the line become
 * '_'.  Returns 1 if added. */
int wft_detail_add(char *buf, size_t *len, const char *key, size_t key_len, const char *value,
                   size_t value_len);

/* The canonical name of event id ev for the six built-in events, or NULL. */
const char *wft_builtin_name(unsigned ev);

#endif /* WF_TIMELINE_H */
