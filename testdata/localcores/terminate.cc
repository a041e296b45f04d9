// An exception nothing catches: __cxa_throw finds no handler and calls
// std::terminate, whose handler aborts. gdb walks from raise through
// libstdc++'s terminate frames back to main. Built and crashed by
// tests/localcores.py.
#include <stdexcept>

__attribute__((noinline)) static void fail(int depth)
{
	if (depth == 0)
		throw std::runtime_error("nobody catches this");
	fail(depth - 1);
}

int main()
{
	fail(2);
	return 0;
}
