/* Two threads: the second writes through NULL while the first waits for
 * it in pthread_join. gdb's gcore writes an NT_SIGINFO for each thread
 * (the first's says SIGSTOP, gdb's own tkill); the crash is the second's
 * SIGSEGV. Built and crashed by tests/localcores.py. */
#include <pthread.h>
#include <stddef.h>

__attribute__((noinline)) static void store_null(volatile int *p)
{
	*p = 42;
}

__attribute__((noinline)) static void crash(void)
{
	store_null(NULL);
}

static void *worker(void *arg)
{
	(void)arg;
	crash();
	return NULL;
}

int main(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	return 0;
}
