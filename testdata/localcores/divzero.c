/* An integer division by zero (x86 #DE, SIGFPE with FPE_INTDIV) at the
 * division itself: a reason and an instruction that agree
 * (crash_info.crash_inconsistencies empty, issue 33). Built and crashed
 * by tests/localcores.py. */
__attribute__((noinline)) static int divide(volatile int a, volatile int b)
{
	return a / b;
}

int main(int argc, char **argv)
{
	(void)argv;
	return divide(argc, argc - 1);
}
