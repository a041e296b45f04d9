/* Starting a helper thread on another CPU than the caller's. */
#ifndef SW_THREAD_H
#define SW_THREAD_H

#include <pthread.h>
#include <stdbool.h>

/* pthread_create(t, NULL, fn, arg), except that the new thread starts on
 * another CPU than the calling thread's when the process may run on more
 * than one, then may run anywhere the process may. Linux often queues a
 * new thread on its creator's CPU while another is idle: it waits for the
 * creator's time slice (~3 ms) and then shares its CPU until the load
 * balancer moves one of them (a 2-CPU VM, measured: 5 times in 6), which
 * is most of a walk's time. False: no thread. */
bool sw_thread_create(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
