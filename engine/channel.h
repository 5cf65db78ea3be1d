/*
 * channel.h -- the bounded channel between synthesis and the GPU workers.
 *
 * send() blocks while the channel holds `capacity` units: that is the
 * backpressure that keeps synthesized witnesses from piling up in memory.
 * The channel remembers the most units it ever held, so a test can check
 * the bound was kept.
 */
#ifndef CHANNEL_H
#define CHANNEL_H

#include <pthread.h>
#include <stddef.h>

struct channel {
    pthread_mutex_t mu;
    pthread_cond_t not_full, not_empty;
    void **slots;
    size_t capacity, head, count, max_count;
    int closed;
};

/* 0, or -1: out of memory, its only failure (so no message; the caller
 * says it). */
int channel_init(struct channel *c, size_t capacity);
void channel_destroy(struct channel *c);
/* Blocks while full; 0, or -1 if the channel was closed. */
int channel_send(struct channel *c, void *item);
/* Blocks while empty; the item, or NULL once closed and drained. */
void *channel_recv(struct channel *c);
/* No more sends: receivers drain what is left, then get NULL. */
void channel_close(struct channel *c);

#endif /* CHANNEL_H */
