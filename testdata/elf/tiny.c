#include <stdio.h>
static int helper(int x) { return x * 3 + 1; }
int exported(int x) { return helper(x) + 2; }
int main(int argc, char **argv) { (void)argv; printf("%d\n", exported(argc)); return 0; }
