/*
 * vocab.c -- the words of vocab.h that are data: why a line was skipped.
 */
#include "vocab.h"

const char *const scan_err_text[] = {
    "ok",
    "not a record",
    "bad or missing time",
    "missing event name",
    "malformed event name",
    "missing job id",
    "bad partition, worker or device number",
    "record longer than 4096 bytes",
};

const char *const scan_err_key[] = {"ok",          "not_record", "bad_time", "missing_event",
                                    "bad_event", "missing_job", "bad_number", "too_long"};
