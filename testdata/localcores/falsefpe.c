/* A SIGFPE that says "integer divide by zero" (FPE_INTDIV) but was sent,
 * not raised: the program queues it to itself (rt_tgsigqueueinfo lets a
 * process set any si_code on a signal to itself), so the crashing
 * instruction is the system call's, which divides nothing
 * (crash_info.crash_inconsistencies: int_div_by_zero_not_possible, issue
 * 33). Built and crashed by tests/localcores.py. */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((noinline)) static int crash(void)
{
	siginfo_t info;
	memset(&info, 0, sizeof info);
	info.si_signo = SIGFPE;
	info.si_code = FPE_INTDIV;
	return (int)syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), SIGFPE, &info);
}

int main(void)
{
	return crash();
}
