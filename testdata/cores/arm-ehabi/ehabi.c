/* ehabi.c: armhf programs whose code has no unwind rules of its own, for
 * the ARM EHABI fixtures (README.md here, gen_arm_ehabi.sh). Built without
 * -g and without -funwind-tables, GCC gives the program no .ARM.exidx
 * entry of its own: crt1.o's EXIDX_CANTUNWIND for _start covers it all
 * (GNU ld merges it with the other CANTUNWIND entries to the end of
 * .text). Debian armhf libc's abort has no entry either (its .ARM.exidx
 * starts after it). `ehabi CASE` picks one:
 *
 *   deep    main > outer > middle > inner, which writes NULL
 *   abort   main > outer > middle > fail, which calls abort()
 *   leaf    main > outer > leaf_store, a frameless leaf, writes NULL
 *   thread  a second thread: thread_main > middle > inner, which writes
 *           NULL, while main waits in pthread_join
 *
 * Each function says it was entered ("enter NAME" on stderr, one write
 * each) and calls down in no tail position: the entered functions are the
 * crash's true call chain, innermost last (run.txt). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))
#define AFTER_CALL() __asm__ volatile("" ::: "memory")

static volatile int sink;
static int *volatile null_ptr;
static int mode;

static void enter(const char *name)
{
	char buf[64] = "enter ";
	size_t n = strlen(buf), k = strlen(name);
	if (k > sizeof buf - n - 2)
		k = sizeof buf - n - 2;
	memcpy(buf + n, name, k);
	buf[n + k] = '\n';
	if (write(2, buf, n + k + 1) < 0)
		_exit(99);
}

NOINLINE void leaf_store(int *p, int v)
{
	*p = v;
}

NOINLINE int inner(int depth)
{
	enter("inner");
	volatile int local[4] = { depth, depth + 1, depth + 2, depth + 3 };
	*null_ptr = local[depth & 3];
	AFTER_CALL();
	return sink + local[0];
}

NOINLINE int fail(int depth)
{
	enter("fail");
	volatile char buf[24];
	buf[depth & 15] = (char)depth;
	if (buf[depth & 15] == (char)depth)
		abort();
	return sink;
}

NOINLINE int middle(int depth)
{
	enter("middle");
	int r = mode == 'a' ? fail(depth + 1) : inner(depth + 1);
	AFTER_CALL();
	sink = r;
	return r + 1;
}

NOINLINE int outer(int depth)
{
	enter("outer");
	int r;
	if (mode == 'l') {
		leaf_store(null_ptr, depth);
		r = depth;
	} else {
		r = middle(depth + 1);
	}
	AFTER_CALL();
	sink = r;
	return r + 2;
}

NOINLINE void *thread_main(void *arg)
{
	enter("thread_main");
	int r = middle((int)(long)arg);
	AFTER_CALL();
	sink = r;
	return NULL;
}

int main(int argc, char **argv)
{
	enter("main");
	mode = argc > 1 ? argv[1][0] : 'd';
	if (mode == 't') {
		pthread_t th;
		if (pthread_create(&th, NULL, thread_main, (void *)(long)argc) == 0)
			pthread_join(th, NULL);
		return 1;
	}
	int r = outer(argc);
	AFTER_CALL();
	return r;
}
