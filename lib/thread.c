/* See thread.h. */
#include "thread.h"

#include <sched.h>
#include <stdlib.h>

struct start {
	void *(*fn)(void *);
	void *arg;
	cpu_set_t allowed;          /* the creator's, restored once started */
	bool restore;
};

static void *trampoline(void *p)
{
	struct start s = *(struct start *)p;
	free(p);
	if (s.restore)
		pthread_setaffinity_np(pthread_self(), sizeof s.allowed, &s.allowed);
	return s.fn(s.arg);
}

bool sw_thread_create(pthread_t *t, void *(*fn)(void *), void *arg)
{
	struct start *s = malloc(sizeof *s);
	if (!s)
		return pthread_create(t, NULL, fn, arg) == 0;
	*s = (struct start){.fn = fn, .arg = arg};
	pthread_attr_t attr;
	bool have_attr = pthread_attr_init(&attr) == 0;
	int cpu = sched_getcpu();
	if (have_attr && cpu >= 0 && cpu < CPU_SETSIZE &&
	    pthread_getaffinity_np(pthread_self(), sizeof s->allowed, &s->allowed) == 0 &&
	    CPU_ISSET(cpu, &s->allowed) && CPU_COUNT(&s->allowed) > 1) {
		cpu_set_t elsewhere = s->allowed;
		CPU_CLR(cpu, &elsewhere);
		s->restore = pthread_attr_setaffinity_np(&attr, sizeof elsewhere, &elsewhere) == 0;
	}
	bool ok = pthread_create(t, have_attr ? &attr : NULL, trampoline, s) == 0;
	if (have_attr)
		pthread_attr_destroy(&attr);
	if (!ok)
		free(s);
	return ok;
}
