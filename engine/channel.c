/*
 * channel.c -- a mutex and two condition variables around a ring: the
 * simplest correct bounded MPMC queue, and the handoff is not where this
 * pipeline spends its time (units take milliseconds each).
 */
#include "channel.h"

#include <stdlib.h>

int channel_init(struct channel *c, size_t capacity)
{
    c->slots = calloc(capacity ? capacity : 1, sizeof *c->slots);
    if (!c->slots)
        return -1;
    c->capacity = capacity;
    c->head = c->count = c->max_count = 0;
    c->closed = 0;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->not_full, NULL);
    pthread_cond_init(&c->not_empty, NULL);
    return 0;
}

void channel_destroy(struct channel *c)
{
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->not_full);
    pthread_cond_destroy(&c->not_empty);
    free(c->slots);
}

int channel_send(struct channel *c, void *item)
{
    pthread_mutex_lock(&c->mu);
    while (c->count == c->capacity && !c->closed)
        pthread_cond_wait(&c->not_full, &c->mu);
    if (c->closed) {
        pthread_mutex_unlock(&c->mu);
        return -1;
    }
    c->slots[(c->head + c->count) % c->capacity] = item;
    c->count++;
    if (c->count > c->max_count)
        c->max_count = c->count;
    pthread_cond_signal(&c->not_empty);
    pthread_mutex_unlock(&c->mu);
    return 0;
}

void *channel_recv(struct channel *c)
{
    pthread_mutex_lock(&c->mu);
    while (c->count == 0 && !c->closed)
        pthread_cond_wait(&c->not_empty, &c->mu);
    void *item = NULL;
    if (c->count) {
        item = c->slots[c->head];
        c->head = (c->head + 1) % c->capacity;
        c->count--;
        pthread_cond_signal(&c->not_full);
    }
    pthread_mutex_unlock(&c->mu);
    return item;
}

void channel_close(struct channel *c)
{
    pthread_mutex_lock(&c->mu);
    c->closed = 1;
    pthread_cond_broadcast(&c->not_full);
    pthread_cond_broadcast(&c->not_empty);
    pthread_mutex_unlock(&c->mu);
}
