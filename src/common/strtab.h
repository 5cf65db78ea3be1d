/*
 * strtab.h -- interned strings: event names, attribute keys and values.
 *
 * Few and short next to the job ids (which have their own arena, tuned for
 * millions): a name or key is stored once and known by a small number.
 */
#ifndef STRTAB_H
#define STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct strtab {
    char *bytes;
    size_t len, cap;
    uint64_t *off; /* offset << 16 | length */
    uint32_t n, off_cap;
    uint32_t *idx; /* id + 1 by hash (0: empty) */
    uint32_t mask;
};

/* The id of [s, s+n) (n < 65536), added if new; 0, or -1 out of memory. */
int strtab_intern(struct strtab *t, const char *s, size_t n, uint32_t *id);

/* The same for an upper-cased copy of [s, s+n) (event names are
 * case-insensitive); n <= 255. */
int strtab_intern_upper(struct strtab *t, const char *s, size_t n, uint32_t *id);

static inline const char *strtab_get(const struct strtab *t, uint32_t id, size_t *n)
{
    *n = (size_t)(t->off[id] & 0xffff);
    return t->bytes + (t->off[id] >> 16);
}

/* Does string id equal the NUL-terminated s? */
int strtab_is(const struct strtab *t, uint32_t id, const char *s);

void strtab_free(struct strtab *t);

#endif /* STRTAB_H */
