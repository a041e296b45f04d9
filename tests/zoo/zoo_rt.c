/* zoo_rt.c: the trail and its writer (zoo_rt.h). */
#include "zoo_rt.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile int zoo_trail[ZOO_TRAIL_MAX];
volatile int zoo_depth;
volatile int zoo_sink;
int (*volatile zoo_table[64])(int, int);

static void put(char *buf, size_t *n, const char *s)
{
	while (*s && *n < 8000)
		buf[(*n)++] = *s++;
}

static void put_int(char *buf, size_t *n, int v)
{
	char tmp[16];
	int i = 0;
	if (v < 0) {
		put(buf, n, "-");
		v = -v;
	}
	do
		tmp[i++] = (char)('0' + v % 10);
	while ((v /= 10) && i < 15);
	while (i > 0 && *n < 8000)
		buf[(*n)++] = tmp[--i];
}

/* Async-signal-safe: one write(2) of "zoo-trail: SIG DEPTH ID ID ...". */
static void write_trail(int sig)
{
	static char buf[8192];
	size_t n = 0;
	int depth = zoo_depth;
	put(buf, &n, "zoo-trail: ");
	put_int(buf, &n, sig);
	put(buf, &n, " ");
	put_int(buf, &n, depth);
	for (int i = 0; i < depth && i < ZOO_TRAIL_MAX; i++) {
		put(buf, &n, " ");
		put_int(buf, &n, zoo_trail[i]);
	}
	put(buf, &n, "\n");
	if (write(2, buf, n) < 0)
		_exit(99);
}

static void on_fatal(int sig)
{
	write_trail(sig);
	/* The default action from now on: returning re-runs the faulting
	 * instruction (abort raises again), and the core holds the crash as
	 * it happened. */
	signal(sig, SIG_DFL);
}

void zoo_thread_init(void)
{
	static char stacks[2][65536];
	static volatile int next;
	stack_t ss = { .ss_sp = stacks[next++ & 1], .ss_size = sizeof stacks[0] };
	sigaltstack(&ss, NULL);
}

void zoo_init(void)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP };
	zoo_thread_init();
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_fatal;
		sa.sa_flags = SA_ONSTACK | SA_NODEFER;
		sigaction(fatal[i], &sa, NULL);
	}
}
