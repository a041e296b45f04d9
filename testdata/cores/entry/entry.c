/* entry.c: a program stopped at the first instruction of a function that a
 * call through a pointer entered, for stackwalk's fixtures of issue 30's
 * "MIPS leaf at a function's first instruction" (README.md, gen_entry.sh).
 * `entry CASE`:
 *
 *   badptr    main > report > flush_log, which calls the C library's
 *             __fpending through a function pointer with a NULL FILE *:
 *             SIGSEGV at __fpending's first instruction, a load through
 *             its argument (on Debian 12's mips, mipsel and mips64el libc)
 *   sigentry  main > report > poll_pending, which calls __fpending(stdout)
 *             through the pointer in a loop while a second thread sends it
 *             SIGUSR1; the handler returns until the signal arrives with
 *             the thread at __fpending's first instruction (the pc of the
 *             context it interrupted), then writes NULL: the walk crosses
 *             the handler and the signal frame to __fpending at its entry
 *
 * In both, the frame at __fpending's entry has run nothing: its return
 * address is still in ra, right after the `jalr t9` that entered it, and
 * t9 still holds its address. Before the crash the program writes its own
 * chain of calls to stderr ("trail: main report flush_log"), innermost
 * last: the truth the walk is checked against, besides gdb's. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))
/* Keeps a call from becoming a jump (no tail call). */
#define AFTER_CALL() __asm__ volatile("" ::: "memory")

static size_t (*volatile pending)(FILE *) = __fpending;
static volatile int sink;
static volatile int *volatile null_int;
static const char *chain[8];
static int depth;

static void enter(const char *name)
{
    chain[depth++] = name;
}

static void write_trail(void)
{
    char buf[256] = "trail:";
    for (int i = 0; i < depth; i++) {
        strcat(buf, " ");
        strcat(buf, chain[i]);
    }
    strcat(buf, "\n");
    if (write(2, buf, strlen(buf)) < 0)
        _exit(99);
}

/* badptr */
NOINLINE int flush_log(FILE *log)
{
    enter(__func__);
    write_trail();
    int r = (int)pending(log);
    AFTER_CALL();
    return r + sink;
}

/* sigentry */
static pthread_t main_thread;

static void *send_signals(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_kill(main_thread, SIGUSR1);
        usleep(200);
    }
    return NULL;
}

static void usr1_handler(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    (void)si;
    const ucontext_t *uc = ctx;
    if (uc->uc_mcontext.pc != (unsigned long)pending)
        return;
    *null_int = 1;
}

NOINLINE int poll_pending(FILE *f)
{
    enter(__func__);
    write_trail();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = usr1_handler;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGUSR1, &sa, NULL);
    pthread_t t;
    pthread_create(&t, NULL, send_signals, NULL);
    size_t sum = 0;
    for (;;) {
        sum += pending(f);
        AFTER_CALL();
        sink = (int)sum;
    }
    return (int)sum;
}

NOINLINE int report(const char *what)
{
    enter(__func__);
    int r = strcmp(what, "sigentry") == 0 ? poll_pending(stdout) : flush_log(NULL);
    AFTER_CALL();
    return r + sink;
}

int main(int argc, char **argv)
{
    enter(__func__);
    main_thread = pthread_self();
    if (argc != 2 || (strcmp(argv[1], "badptr") != 0 && strcmp(argv[1], "sigentry") != 0)) {
        fprintf(stderr, "usage: entry badptr|sigentry\n");
        return 2;
    }
    int r = report(argv[1]);
    AFTER_CALL();
    return r;
}
