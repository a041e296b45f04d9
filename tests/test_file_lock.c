/* Lock files processes take turns on (lib/file_lock.h): the first process
 * takes the lock; another waits for it and is told the holder let go; a
 * holder that keeps it past the bound leaves the waiter without a lock
 * (it then builds on its own); a holder that dies lets go; a lock file
 * that cannot be made is no lock. The other processes are forked
 * children holding the lock (flock(2) locks belong to the open file, so
 * a second open in this process would do too, but a child is what a
 * pipeline's other shard is). */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/file_lock.h"

static char dir[64], path[96];

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/sw_file_lock_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/x.swidx.lock", dir);
}

static void teardown(void)
{
	unlink(path);
	rmdir(dir);
}

/* A child that takes the lock, tells the parent through a pipe, and holds
 * it for hold_ms (then exits, letting go); its pid. */
static pid_t holder(unsigned hold_ms)
{
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open(path, O_RDONLY | O_CREAT, 0644);
		if (fd < 0 || flock(fd, LOCK_EX) != 0)
			_exit(1);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		nanosleep(&(struct timespec){ hold_ms / 1000, (long)(hold_ms % 1000) * 1000000 }, NULL);
		_exit(0);
	}
	char c;
	close(p[1]);
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

START_TEST(test_file_lock_free_is_taken)
{
	int fd;
	ck_assert_int_eq(sw_file_lock_take(path, 1000, &fd), SW_LOCK_TAKEN);
	ck_assert_int_ge(fd, 0);
	/* Held: another open file of it cannot take it now. */
	int other = open(path, O_RDONLY);
	ck_assert_int_ne(flock(other, LOCK_EX | LOCK_NB), 0);
	close(other);
	close(fd);
}
END_TEST

START_TEST(test_file_lock_waits_for_the_holder)
{
	pid_t pid = holder(300);
	int fd;
	ck_assert_int_eq(sw_file_lock_take(path, 30000, &fd), SW_LOCK_WAITED);
	ck_assert_int_eq(fd, -1);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
END_TEST

START_TEST(test_file_lock_wait_is_bounded)
{
	pid_t pid = holder(30000);
	int fd;
	double t0 = now_ms();
	ck_assert_int_eq(sw_file_lock_take(path, 200, &fd), SW_LOCK_NONE);
	ck_assert_int_eq(fd, -1);
	/* It gave up after its bound, not at once. */
	ck_assert(now_ms() - t0 >= 200);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}
END_TEST

START_TEST(test_file_lock_of_a_killed_holder_is_let_go)
{
	pid_t pid = holder(30000);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	int fd;
	ck_assert_int_eq(sw_file_lock_take(path, 1000, &fd), SW_LOCK_TAKEN);
	close(fd);
}
END_TEST

START_TEST(test_file_lock_that_cannot_be_made_is_none)
{
	int fd;
	ck_assert_int_eq(sw_file_lock_take("/nonexistent-dir/x.lock", 1000, &fd), SW_LOCK_NONE);
	ck_assert_int_eq(fd, -1);
}
END_TEST

Suite *test_suite(void);

Suite *test_suite(void)
{
	Suite *s = suite_create("file_lock");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_file_lock_free_is_taken);
	tcase_add_test(tc, test_file_lock_waits_for_the_holder);
	tcase_add_test(tc, test_file_lock_wait_is_bounded);
	tcase_add_test(tc, test_file_lock_of_a_killed_holder_is_let_go);
	tcase_add_test(tc, test_file_lock_that_cannot_be_made_is_none);
	suite_add_tcase(s, tc);
	return s;
}
