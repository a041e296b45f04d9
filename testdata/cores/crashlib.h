/* crashlib.h: the interface between crash.c and libcrashlib.c. */
#ifndef CRASHLIB_H
#define CRASHLIB_H

typedef int (*crashlib_callback)(int depth);

extern int *volatile crashlib_null;
extern volatile int crashlib_sink;

void lib_write_null(int value);
int lib_chain_1(int depth, crashlib_callback cb);
int lib_chain_2(int depth, crashlib_callback cb);
int lib_thread_work(int depth);

#endif
