/* SW_NO_COVERAGE marks a function that a fuzzing build does not trace for
 * coverage (clang's -fsanitize-coverage, which -fsanitize=fuzzer-no-link
 * turns on; docs/fuzzing.md, "Cost"): loops over bytes whose comparisons
 * steer no fuzzer -- hashing a message, copying output into a buffer --
 * where tracing every comparison costs many times the work itself. The
 * sanitizers still check these functions; only the coverage callbacks
 * are left out. Decisions about the input are never marked. */
#ifndef SW_NO_COVERAGE_H
#define SW_NO_COVERAGE_H

#if defined(__clang__)
#define SW_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define SW_NO_COVERAGE
#endif

#endif
