/*
 * read_kineto.h -- PyTorch profiler traces (Kineto's Chrome-trace JSON)
 * into the model.
 *
 * The file is streamed through yajl, one event at a time: what is kept is
 * what the analysis needs (each device operation's times, device and
 * stream, and each launch's start by its correlation), never the file's
 * DOM, so memory follows the operations, not the bytes.  Each device
 * operation (cat kernel, gpu_memcpy, gpu_memset) becomes one unit: its
 * GPU_START and GPU_END, on worker = its stream and its device, and the
 * start of the CPU call that launched it (joined by args.correlation) as
 * its CHAN_SEND.  docs/json.md ("PyTorch traces") states the mapping.
 */
#ifndef READ_KINETO_H
#define READ_KINETO_H

#include "model.h"

#include <stddef.h>
#include <stdint.h>

/* Could an input that begins with head[0..n) be a Kineto / Chrome trace?
 * A JSON object whose first key is one of Kineto's or that names
 * "traceEvents" early, or an array whose first element has "ph". */
int kineto_sniff(const unsigned char *head, size_t n);

/* Read the trace from fd (head: its first hn bytes, already read from a
 * pipe; 0 for a file read from its start) into m, as one run named name
 * (its struct streams_use says what else the trace held); *bytes: the
 * JSON's bytes read; *seen, *skipped: what the trace held, run or not
 * (an input that gave no run is explained by them).
 * 0, or -1 with err naming the input and, for bad JSON, the byte offset
 * and line where it stopped. */
int kineto_read(struct model *m, int fd, const char *name, const unsigned char *head, size_t hn, uint64_t *bytes,
                struct streams_use *seen, uint64_t *skipped, char *err, size_t errlen);

#endif /* READ_KINETO_H */
