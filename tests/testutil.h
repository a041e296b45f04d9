/* Small helpers shared by the Check suites. */
#ifndef SW_TESTUTIL_H
#define SW_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>

/* Path of a file in the real corpus (../shared/corpus), from SW_CORPUS. */
static inline const char *corpus_path(char *buf, size_t n, const char *rel)
{
	const char *root = getenv("SW_CORPUS");
	snprintf(buf, n, "%s/%s", root ? root : "../shared/corpus", rel);
	return buf;
}

#endif
