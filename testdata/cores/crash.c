/* crash.c: small programs that crash in known ways, for stackwalk's real
 * core fixtures (testdata/cores/README.md). `crash CASE` picks one:
 *
 *   chain    main > chain_1 > chain_2 > lib_chain_1 > lib_chain_2 >
 *            chain_back (a callback in the executable) > lib_write_null:
 *            a NULL write at the end of a chain across the executable and
 *            libcrashlib.so, twice over the module boundary
 *   leaf     main > leaf_caller > frameless_leaf (no frame of its own at -O2)
 *   alloca   main > vla_frame (a variable-length array) > alloca_frame
 *            (alloca) > lib_write_null
 *   recurse  main > recurse x21 (depth 20 down to 0) > lib_write_null
 *   qsort    main > sort_ints > qsort (libc) > ... > compare_ints, which
 *            writes NULL: a callback called from code without our symbols
 *   nullcall main > call_null > a call through a NULL function pointer
 *   abort    main > do_abort > abort (libc): SIGABRT
 *   signal   main > raise_usr1 > raise (libc) ... the SIGUSR1 handler
 *            usr1_handler writes NULL: the crash is above a signal frame
 *   sigspin  main > spin_until_signalled, interrupted (not at a call) by
 *            SIGUSR1 sent by a second thread; usr1_handler writes NULL
 *   thread   a second thread: thread_main > thread_step > lib_thread_work >
 *            lib_write_null while main waits in pthread_join
 *
 * Every function is noinline and works after its call, so that gdb, the
 * walker and the source agree on the frames. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <alloca.h>

#include "crashlib.h"

#define NOINLINE __attribute__((noinline, noclone))
/* Keeps the compiler from turning a call into a jump (no tail call). */
#define AFTER_CALL() __asm__ volatile("" ::: "memory")

static volatile int sink;

/* chain */
NOINLINE int chain_back(int depth)
{
    lib_write_null(depth);
    AFTER_CALL();
    return sink + depth;
}

NOINLINE int chain_2(int depth)
{
    int r = lib_chain_1(depth + 1, chain_back);
    AFTER_CALL();
    sink = r;
    return r + 1;
}

NOINLINE int chain_1(int depth)
{
    int r = chain_2(depth + 1);
    AFTER_CALL();
    sink = r;
    return r + 1;
}

/* leaf: no stores to the stack, no calls: a frameless leaf when optimised */
NOINLINE void frameless_leaf(int *p, int v)
{
    *p = v;
}

NOINLINE int leaf_caller(int v)
{
    frameless_leaf(crashlib_null, v);
    AFTER_CALL();
    return sink + v;
}

/* alloca / VLA: frames whose size is known only at run time */
NOINLINE int alloca_frame(int n)
{
    char *buf = alloca((size_t)n * 16 + 8);
    memset(buf, 'a', (size_t)n * 16 + 8);
    sink = buf[n];
    lib_write_null(buf[3] + n);
    AFTER_CALL();
    return buf[n * 2];
}

NOINLINE int vla_frame(int n)
{
    volatile int vla[n * 4 + 3];
    for (int i = 0; i < n * 4 + 3; i++)
        vla[i] = i;
    int r = alloca_frame(n + vla[n]);
    AFTER_CALL();
    return r + vla[n + 1];
}

/* recursion */
NOINLINE int recurse(int n)
{
    if (n == 0) {
        lib_write_null(n);
        AFTER_CALL();
        return sink;
    }
    int r = recurse(n - 1);
    AFTER_CALL();
    return r + n + sink;
}

/* qsort callback */
NOINLINE int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    *crashlib_null = x; /* crash on the first comparison */
    AFTER_CALL();
    return (x > y) - (x < y);
}

NOINLINE int sort_ints(int n)
{
    int v[16];
    for (int i = 0; i < 16; i++)
        v[i] = (i * 7 + n) % 16;
    qsort(v, 16, sizeof v[0], compare_ints);
    AFTER_CALL();
    return v[0];
}

/* NULL function call */
static void (*volatile null_function)(int);

NOINLINE int call_null(int v)
{
    null_function(v);
    AFTER_CALL();
    return sink + v;
}

/* abort */
NOINLINE int do_abort(int v)
{
    if (v >= 0)
        abort();
    AFTER_CALL();
    return sink;
}

/* signal handler */
static volatile sig_atomic_t spinning = 1, spin_started;

NOINLINE void usr1_handler(int sig)
{
    *crashlib_null = sig; /* SIGSEGV inside the handler */
    AFTER_CALL();
    spinning = 0;
}

static void install_usr1(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = usr1_handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
}

NOINLINE int raise_usr1(int v)
{
    raise(SIGUSR1);
    AFTER_CALL();
    return sink + v;
}

NOINLINE int spin_until_signalled(int v)
{
    unsigned long n = 0;
    spin_started = 1;
    while (spinning)
        n += (unsigned long)v + (unsigned long)sink;
    return (int)n;
}

static pthread_t main_thread;

static void *send_usr1(void *arg)
{
    (void)arg;
    while (!spin_started) {
        struct timespec ts = {0, 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    for (;;) {
        pthread_kill(main_thread, SIGUSR1);
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* second thread */
NOINLINE int thread_step(int depth)
{
    int r = lib_thread_work(depth + 1);
    AFTER_CALL();
    return r + sink;
}

NOINLINE void *thread_main(void *arg)
{
    /* let main reach pthread_join first, so its frames are the same each run */
    struct timespec ts = {0, 200 * 1000 * 1000};
    nanosleep(&ts, NULL);
    int r = thread_step((int)(long)arg);
    AFTER_CALL();
    sink = r;
    return NULL;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    int v = argc; /* not known at compile time */
    pthread_t t;

    if (!strcmp(what, "chain"))
        sink = chain_1(v);
    else if (!strcmp(what, "leaf"))
        sink = leaf_caller(v);
    else if (!strcmp(what, "alloca"))
        sink = vla_frame(v + 3);
    else if (!strcmp(what, "recurse"))
        sink = recurse(20 + v - 2);
    else if (!strcmp(what, "qsort"))
        sink = sort_ints(v);
    else if (!strcmp(what, "nullcall"))
        sink = call_null(v);
    else if (!strcmp(what, "abort"))
        sink = do_abort(v);
    else if (!strcmp(what, "signal")) {
        install_usr1();
        sink = raise_usr1(v);
    } else if (!strcmp(what, "sigspin")) {
        install_usr1();
        main_thread = pthread_self();
        pthread_create(&t, NULL, send_usr1, NULL);
        sink = spin_until_signalled(v);
    } else if (!strcmp(what, "thread")) {
        pthread_create(&t, NULL, thread_main, (void *)(long)v);
        pthread_join(t, NULL);
    } else {
        fprintf(stderr, "usage: crash chain|leaf|alloca|recurse|qsort|nullcall|"
                        "abort|signal|sigspin|thread\n");
        return 2;
    }
    AFTER_CALL();
    return sink;
}
