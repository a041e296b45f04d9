/* zoo_rt.h: what every generated zoo program shares (tests/zoo/README.md).
 *
 * Each function of a program's crash path records its own identity on the
 * way down (ZOO_ENTER) and takes it off when it returns (ZOO_LEAVE), so at
 * the crash the trail holds the true chain of calls, outermost first,
 * written by the program itself: no debugger decides what is true. A
 * handler on an alternate stack writes the trail to stderr when the fatal
 * signal arrives, restores the default action and returns, so the fault
 * happens again and the kernel (or qemu-user) writes the core with the
 * original context. */
#ifndef ZOO_RT_H
#define ZOO_RT_H

#define NOINLINE __attribute__((noinline, noclone))
/* A compiler barrier: keeps a call from becoming a jump, and a recursion
 * from becoming a loop. */
#define KEEP() __asm__ volatile("" ::: "memory")

enum { ZOO_TRAIL_MAX = 512 };

extern volatile int zoo_trail[ZOO_TRAIL_MAX];
extern volatile int zoo_depth;
extern volatile int zoo_sink;
/* Program functions that shared-library code calls: by pointer (a shared
 * library does not link against its program). */
extern int (*volatile zoo_table[64])(int, int);

#define ZOO_ENTER(id)                                      \
	do {                                               \
		int n_ = zoo_depth;                        \
		if (n_ < ZOO_TRAIL_MAX)                    \
			zoo_trail[n_] = (id);              \
		zoo_depth = n_ + 1;                        \
	} while (0)
#define ZOO_LEAVE() (zoo_depth = zoo_depth - 1)

/* Installs the trail-writing handler for the fatal signals, with an
 * alternate stack for this thread (a stack overflow leaves no stack). */
void zoo_init(void);
/* The alternate stack for a thread the program starts. */
void zoo_thread_init(void);

#endif
