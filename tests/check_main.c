/* The main() every Check suite shares: each test_*.c defines
 * `Suite *test_suite(void)`. */
#include <check.h>
#include <stdlib.h>

Suite *test_suite(void);

int main(void)
{
	SRunner *sr = srunner_create(test_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
