/*
 * source_notes.c -- what a reader says of an input beside its events:
 * damage, loss and a recording cut off, and, for an input that gave no
 * run at all, what it is and why (ingest.h).
 */
#include "ingest.h"

#include "decompress.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void source_warn(const struct source *s, FILE *out, const char *cmd)
{
    if (s->native) {
        if (s->damaged_bytes)
            fprintf(out, "%s: %s: warning: damaged records were skipped\n", cmd, s->name);
        if (s->trace.torn || s->trace.unclosed)
            fprintf(out, "%s: %s: note: the recording did not finish (cut off); read to its last whole record\n",
                    cmd, s->name);
        if (s->lost_events)
            fprintf(out, "%s: %s: warning: %llu events were lost while recording; figures may be off\n", cmd,
                    s->name, (unsigned long long)s->lost_events);
        if (s->trace.rings == WFT_RINGS_READ && s->trace.rings_events)
            fprintf(out, "%s: %s: note: %llu events its writer had not yet written were read from %s.rings\n",
                    cmd, s->name, (unsigned long long)s->trace.rings_events, s->name);
        else if (s->trace.rings >= WFT_RINGS_MISSING && s->trace.rings != WFT_RINGS_RUNNING)
            fprintf(out, "%s: %s: warning: %s.rings %s: the marks not yet written when the recording stopped are lost\n",
                    cmd, s->name, s->name,
                    s->trace.rings == WFT_RINGS_MISSING ? "is missing"
                    : s->trace.rings == WFT_RINGS_OTHER ? "is another recording's" : "is damaged");
    }
}

/* What a file's first bytes say it is, when it is not a text log: a
 * compressed format this command does not read, or binary data (a NUL,
 * or mostly bytes that no text holds).  NULL: it looks like text (or
 * cannot be read again: stdin). */
static const char *not_text(const char *path)
{
    if (strcmp(path, "<stdin>") == 0)
        return NULL;
    unsigned char b[4096];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    ssize_t n = read(fd, b, sizeof b);
    close(fd);
    if (n <= 0)
        return NULL;
    static const struct {
        const char *magic, *what;
        size_t len;
    } known[] = {{"\3757zXZ", "xz-compressed data (decompress it first: gzip and zstd logs are read as they are)", 5},
                 {"BZh", "bzip2-compressed data (decompress it first: gzip and zstd logs are read as they are)", 3},
                 {"PK\x03\x04", "a zip archive (extract the log first)", 4},
                 {"\177ELF", "an executable (ELF), not a log", 4}};
    for (size_t k = 0; k < sizeof known / sizeof *known; k++)
        if ((size_t)n >= known[k].len && memcmp(b, known[k].magic, known[k].len) == 0)
            return known[k].what;
    size_t odd = 0;
    for (ssize_t i = 0; i < n; i++) {
        if (b[i] == 0)
            return "binary data (it holds NUL bytes), not a text log";
        odd += b[i] < 0x20 && b[i] != '\n' && b[i] != '\r' && b[i] != '\t' && b[i] != 0x1b && b[i] != '\f';
    }
    return odd * 10 > (size_t)n ? "binary data (control bytes in its first 4 KiB), not a text log" : NULL;
}

/* A source with no TIMELINE line at all: what it is, and where TIMELINE
 * lines usually are (a daemon prints them on stderr). */
static void explain_no_timeline(FILE *out, const char *cmd, const struct source *s)
{
    if (s->native) {
        fprintf(out, "%s: %s: no TIMELINE records found (the trace holds no pipeline events)\n", cmd, s->name);
        return;
    }
    const char *what = s->compressed || !s->path ? NULL : not_text(s->path);
    if (what) {
        fprintf(out, "%s: %s: %s: no TIMELINE records found\n", cmd, s->name, what);
        return;
    }
    uint64_t lines = 0, dur = 0;
    for (int i = 0; i < s->nparts; i++)
        lines += s->parts[i].diag.lines, dur += s->parts[i].durs.lines;
    fprintf(out,
            "%s: %s: no TIMELINE records in its %llu line%s of %stext; a daemon prints them on stderr: "
            "capture it too (`daemon ... >log 2>&1`)\n",
            cmd, s->name, (unsigned long long)lines, lines == 1 ? "" : "s",
            s->compressed ? (s->compressed == DZ_GZIP ? "gzip-compressed " : "zstd-compressed ") : "");
    if (dur) /* cuzk with its pipeline off prints CUZK_TIMING lines but no TIMELINE */
        fprintf(out,
                "%s: %s: its %llu duration line%s (CUZK_TIMING) are placed inside the GPU phases that TIMELINE "
                "records give, and cannot be placed without them: cuzk prints TIMELINE lines when its pipeline "
                "is enabled\n",
                cmd, s->name, (unsigned long long)dur, dur == 1 ? "" : "s");
}

/* The first skipped lines of a source that produced no run at all. */
void source_explain_empty(const struct source *s, FILE *out, const char *cmd)
{
    uint64_t tl = 0, sk = 0, base = 0;
    if (s->kineto) { /* a PyTorch trace without one usable device operation */
        fprintf(out,
                "%s: %s: a PyTorch trace with no device operation to analyse: %llu events, %llu device operations "
                "that could not be used (not ph \"X\", no usable ts or dur, or a device or stream out of range), "
                "%llu launches, %llu other events\n",
                cmd, s->name, (unsigned long long)s->kin.events, (unsigned long long)s->kin_skipped,
                (unsigned long long)s->kin.launches, (unsigned long long)s->kin.ignored);
        return;
    }
    for (int i = 0; i < s->nparts; i++) {
        tl += s->parts[i].diag.timeline_lines;
        sk += s->parts[i].diag.skipped;
    }
    if (tl == 0) {
        explain_no_timeline(out, cmd, s);
        return;
    }
    const char *what = s->native || s->compressed || !s->path ? NULL : not_text(s->path);
    fprintf(out, "%s: %s: %s%snone of its %llu TIMELINE lines could be read (%llu skipped)\n", cmd, s->name,
            what ? what : "", what ? ": " : "", (unsigned long long)tl, (unsigned long long)sk);
    int shown = 0;
    for (int i = 0; i < s->nparts && shown < 5; i++) {
        const struct ev_diag *d = &s->parts[i].diag;
        for (int k = 0; k < d->nskip_first && shown < 5; k++, shown++)
            fprintf(out, "  %s:%llu: %s\n", s->name, (unsigned long long)(base + d->skip_first[k].line + 1),
                    scan_err_text[d->skip_first[k].detail]);
        base += d->lines;
    }
}

