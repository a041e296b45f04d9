/* libcrashlib.c: the shared library half of crash.c's call chains.
 *
 * Part of stackwalk's test data (testdata/cores/README.md). Built by
 * gen_cores.sh as libcrashlib.so; every function is noinline and does some
 * work after its call, so that no call becomes a tail call and the frames gdb
 * shows are the frames on the stack. */
#include "crashlib.h"

#define NOINLINE __attribute__((noinline, noclone))
/* Keeps the compiler from turning a call into a jump (no tail call). */
#define AFTER_CALL() __asm__ volatile("" ::: "memory")

int *volatile crashlib_null; /* stays NULL: the pointer every crash writes through */
volatile int crashlib_sink;

NOINLINE void lib_write_null(int value)
{
    *crashlib_null = value; /* SIGSEGV, SEGV_MAPERR at address 0 */
    AFTER_CALL();
}

NOINLINE int lib_chain_2(int depth, crashlib_callback cb)
{
    int r = cb(depth + 1);
    AFTER_CALL();
    crashlib_sink = r;
    return r + 1;
}

NOINLINE int lib_chain_1(int depth, crashlib_callback cb)
{
    int r = lib_chain_2(depth + 1, cb);
    AFTER_CALL();
    crashlib_sink = r;
    return r + 1;
}

NOINLINE int lib_thread_work(int depth)
{
    lib_write_null(depth);
    AFTER_CALL();
    return crashlib_sink + depth;
}
