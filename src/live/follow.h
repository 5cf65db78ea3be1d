/*
 * follow.h -- a file that is still being written, followed the way
 * `tail -F` follows it: every byte written to the file (and to the files
 * it is rotated into) is handed out once, in order.
 *
 * The follower hands out raw bytes; the caller assembles lines.  A read
 * ends wherever the writer's last write ended, so a line (the last one,
 * still being written) may be split across reads.
 *
 * What happens to the path, and what the follower does:
 *
 * - It grows: the new bytes are read.
 * - It does not exist yet, or disappears for a while: the follower waits,
 *   and reads the file that appears there from its start (even when
 *   follow_open was told to start at the end: that applies only to a file
 *   that is there at follow_open).
 * - Rotation by rename (logrotate's default; `mv log log.1`, then a new
 *   log), or the file deleted and made anew: the path names another file
 *   (st_dev/st_ino).  The old file stays open and is read to its end
 *   first: a writer that still holds it (until it is told to reopen its
 *   log) loses nothing.  The follower moves to the new file once the new
 *   file has content, and reads it from its start; until then it keeps
 *   reading the old one.  For a writer that moves from the old file to the
 *   new one, that order is exact; bytes written to the old file after the
 *   new one got content (two writers, one on each) are not read.
 * - Copy-truncate (logrotate's copytruncate): the file is copied, then
 *   truncated in place, and the writer goes on writing into it.  The
 *   follower sees the file shorter than what it had read, or the bytes just
 *   before its position (the last FOLLOW_TAIL it read) changed, and reads
 *   the file again from its start.  Inherent to copytruncate and lost by
 *   any follower: the bytes written between the copy and the truncation
 *   (they are in the copy, which nobody follows) and, if the follower had
 *   not read them before the truncation, the bytes it had not read yet.  A
 *   file truncated and written again with the same bytes before the
 *   follower's position cannot be told from one that was not.  A writer
 *   that does not open its log with O_APPEND goes on writing at its old
 *   offset, leaving a hole of NUL bytes at the start of the file: the
 *   follower skips the hole where the file system reports it (SEEK_DATA),
 *   and hands out the NULs of the hole's last, partial block as they are.
 * - "-" is stdin.  A pipe (and a FIFO or a terminal, by path or on stdin)
 *   is read as it comes, without blocking; its end is reported by
 *   follow_eof.  A regular file on stdin is followed as it grows or is
 *   truncated, and has no name to be rotated under.
 *
 * Nothing blocks: follow_read returns 0 when there is nothing new, and
 * follow_wait sleeps until something may be new (inotify on the file and
 * on its directory where Linux has it, and stat every second besides, for
 * what inotify does not see, such as NFS; without inotify, stat every
 * FOLLOW_POLL_MS).
 * System calls interrupted by a signal are retried, except the wait, which
 * returns so that the caller sees what its handler set.  The loop:
 *
 *     for (;;) {
 *         ssize_t n = follow_read(f, buf, sizeof buf, err, sizeof err);
 *         if (n < 0)
 *             fail(err);
 *         else if (n > 0)
 *             take(buf, n); (lines: keep the last, unfinished one for later)
 *         else if (follow_eof(f) || stop)
 *             break;
 *         else
 *             follow_wait(f, 1000);
 *     }
 */
#ifndef FOLLOW_H
#define FOLLOW_H

#include <stddef.h>
#include <sys/types.h>

#define FOLLOW_TAIL 128    /* bytes before the position checked for a rewrite */
#define FOLLOW_POLL_MS 250 /* how often follow_wait looks without inotify */

struct follow;

struct follow_stats {
    unsigned long long bytes;       /* handed out by follow_read */
    unsigned long long rotations;   /* moves to another file at the path (renamed, or deleted and made anew) */
    unsigned long long truncations; /* reads started again from 0: the file was truncated (or rewritten) */
    unsigned long long reopens;     /* files opened after the first: a path that was missing at
                                     * follow_open appearing, and each rotation */
    int missing;                    /* the path names no file now (a deleted or renamed file may
                                     * still be open and read) */
};

/* Follow path ("-": stdin).  from_start: 1 reads what the file holds
 * already first (catching up), 0 starts at its end (a stream is read as it
 * comes, either way).  The path need not exist yet.  NULL with a message
 * naming the file in err: out of memory, a directory, or a file that is
 * there and cannot be opened. */
struct follow *follow_open(const char *path, int from_start, char *err, size_t errlen);

/* Up to cap new bytes into buf: how many (> 0), 0 when there is nothing
 * new now (it never blocks), or -1 with a message naming the file in err
 * (a read that failed, a file that cannot be opened or looked at: stop
 * there, the next call would say the same). */
ssize_t follow_read(struct follow *f, char *buf, size_t cap, char *err, size_t errlen);

/* Sleep until something may be new, at most timeout_ms (< 0: no limit).
 * 1: something may be new (call follow_read until it returns 0, then wait
 * again), and at once when there is; 0: the time ran out, or a signal
 * interrupted the wait.  Returns 1 at once after a stream's end. */
int follow_wait(struct follow *f, int timeout_ms);

/* 1 when a stream (pipe, FIFO, terminal) has ended: follow_read read all
 * there will be.  A file never ends. */
int follow_eof(const struct follow *f);

void follow_stats(const struct follow *f, struct follow_stats *st);

/* Closes what follow_open opened (not stdin).  NULL is allowed. */
void follow_close(struct follow *f);

#endif /* FOLLOW_H */
