/* stackwalk --batch (docs/batch.md): the inputs listed, walked on N
 * threads, the lines written in input order. */
#include "batch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/strlist.h"
#include "pipeline/pipeline.h"

int sw_worse_status(int a, int b)
{
	static const int rank[] = { [SW_EXIT_WALKED] = 0, [SW_EXIT_NO_SYMBOLS] = 1,
	                            [SW_EXIT_DAMAGED] = 2, [SW_EXIT_USAGE] = 3,
	                            [SW_EXIT_UNREADABLE] = 4, [SW_EXIT_INTERNAL] = 5 };
	return rank[b] > rank[a] ? b : a;
}

/* ---- The lines ---- */

/* s as a JSON string, the way the reports write theirs (lib/output_json.c):
 * quotes, backslashes and control characters escaped, bytes that are not
 * UTF-8 replaced by U+FFFD. A path is bytes; the line must stay JSON. */
static void put_json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	fputc('"', f);
	while (*p) {
		unsigned c = *p;
		if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
			p++;
			continue;
		}
		if (c < 0x20) {
			fprintf(f, "\\u%04x", c);
			p++;
			continue;
		}
		if (c < 0x80) {
			fputc((int)c, f);
			p++;
			continue;
		}
		/* RFC 3629 §4: the sequence's length by its first byte, its
		 * value at least the smallest that needs that length, no
		 * surrogates, at most U+10FFFF. */
		unsigned len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 :
		               c >= 0xf0 && c <= 0xf4 ? 4 : 0;
		uint32_t cp = c & (len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07);
		unsigned k = 1;
		while (k < len && (p[k] & 0xc0) == 0x80)
			cp = cp << 6 | (p[k++] & 0x3f);
		bool ok = len && k == len && !(len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) &&
		          !(len == 4 && (cp < 0x10000 || cp > 0x10ffff));
		if (ok)
			fwrite(p, 1, len, f);
		else
			fputs("\xef\xbf\xbd", f);
		p += ok ? len : k;
	}
	fputc('"', f);
}

void sw_batch_put_report(FILE *out, const char *path, const char *doc, size_t len)
{
	/* The document's own keys follow "file" unchanged: rust-minidump's
	 * schema plus one key in front, which a reader that looks keys up by
	 * name does not notice. */
	if (len < 2 || doc[0] != '{')
		return;
	fputs("{\"file\":", out);
	put_json_string(out, path);
	if (doc[1] != '}')
		fputc(',', out);
	fwrite(doc + 1, 1, len - 1, out);
	if (doc[len - 1] != '\n')
		fputc('\n', out);
}

void sw_batch_put_skipped(FILE *out, const char *path, const char *reason)
{
	fputs("{\"file\":", out);
	put_json_string(out, path);
	fputs(",\"status\":\"SKIPPED\",\"reason\":", out);
	put_json_string(out, reason);
	fputs("}\n", out);
}

void sw_batch_put_error(FILE *out, const char *path, const char *keys, const char *status,
                        const char *msg)
{
	fputs("{\"file\":", out);
	put_json_string(out, path);
	if (keys && *keys)
		fprintf(out, ",%s", keys);
	fputs(",\"status\":", out);
	put_json_string(out, status);
	fputs(",\"error\":", out);
	put_json_string(out, msg);
	fputs("}\n", out);
}

/* ---- The run ---- */

/* Why an input is not walked: its line says so instead. */
enum unwalked {
	WALK,                       /* a snapshot to walk */
	FOLDER_UNLISTED,            /* a folder that could not be listed (error: opendir's errno) */
	PATH_TOO_LONG,              /* a path on stdin too long to be one (path: its start) */
	STDIN_UNREAD,               /* stdin could not be read on (error: read's errno) */
};

/* One snapshot to walk: its path, or what its line says instead. */
struct input {
	char *path;                 /* malloc'd */
	enum unwalked why;
	int error;
	bool in_folder;             /* listed from a folder INPUT (sw_batch_walk_fn) */
};

/* One input's outcome, kept until its turn to be written. */
struct result {
	char *lines, *msgs;         /* malloc'd by open_memstream */
	size_t nlines, nmsgs;
	int status;
	bool done;
};

enum {
	/* How far a reader of stdin may list ahead of the writer: a stream
	 * of paths (an endless queue) is held in memory this far only. */
	STREAM_AHEAD = 1024,
	/* The longest path read from stdin (PATH_MAX is 4096): a stream
	 * without a delimiter must not grow a line without bound. */
	STDIN_PATH_MAX = 16384,
	TOO_LONG_SHOWN = 256,       /* bytes of a too long path its line shows */
	STDIN_BUF = 64 * 1024,
};

struct batch_run {
	const struct sw_batch *b;
	/* Where listing goes on: the command line's next INPUT, or stdin's
	 * next path while "-" is read (line: STDIN_PATH_MAX + 1 bytes). stdin
	 * is read through a buffer of its own (in_buf: STDIN_BUF bytes), so
	 * that the reader of a stream can wait for either more of it or the
	 * batch's end: poll(2) on stdin and on wake[0], which the writer
	 * writes to when the batch ends early (a thread blocked in read()
	 * could only be cancelled, which the sanitizers' stack bookkeeping
	 * does not survive). */
	size_t next_arg;
	bool in_stdin;
	char *line;
	uint8_t *in_buf;
	size_t in_pos, in_len;
	bool in_eof;
	int in_errno;               /* a read that failed: its line says so */
	int wake[2];
	/* The inputs listed and not yet written: input i (counting from the
	 * first listed) is inputs[i % inputs_cap] while written <= i < listed.
	 * Grown under the lock: workers copy their input out of it. */
	struct input *inputs;
	size_t inputs_cap, listed;
	bool all_listed;            /* listing ended (listing_failed: out of memory) */
	bool listing_failed;
	/* Input i's result is results[i % window]. A worker takes input i
	 * only when i < written + window: the results waiting for a slow
	 * input ahead of them stay few (their lines are held in memory until
	 * then). */
	struct result *results;
	size_t taken, written, window;
	unsigned jobs;
	bool threaded;              /* workers, and the lock, in use */
	bool streaming;             /* "-" read by a thread as the walks go */
	bool flush_each;            /* "-" given: each input's lines written at once */
	bool stop;                  /* the writer ended the batch early */
	pthread_mutex_t lock;
	pthread_cond_t work_ready;   /* an input listed or written, listing ended, stop */
	pthread_cond_t result_ready; /* a worker finished an input, listing ended */
};

static void lock(struct batch_run *br)
{
	if (br->threaded)
		pthread_mutex_lock(&br->lock);
}

static void unlock(struct batch_run *br)
{
	if (br->threaded)
		pthread_mutex_unlock(&br->lock);
}

/* ---- Listing the inputs ---- */

/* Room for one more listed input (lock held): the array doubled, the
 * inputs not yet written moved to their places in it. */
static bool grow_inputs(struct batch_run *br)
{
	size_t cap = br->inputs_cap ? 2 * br->inputs_cap : 64;
	struct input *v = malloc(cap * sizeof *v);
	if (!v)
		return false;
	for (size_t i = br->written; i < br->listed; i++)
		v[i % cap] = br->inputs[i % br->inputs_cap];
	free(br->inputs);
	br->inputs = v;
	br->inputs_cap = cap;
	return true;
}

static bool add_input(struct batch_run *br, const char *path, size_t len, enum unwalked why,
                      int error, bool in_folder)
{
	char *copy = strndup(path, len);
	if (!copy)
		return false;
	lock(br);
	while (br->streaming && !br->stop && br->listed - br->written >= STREAM_AHEAD)
		pthread_cond_wait(&br->work_ready, &br->lock);
	bool ok = br->listed - br->written < br->inputs_cap || grow_inputs(br);
	if (ok) {
		br->inputs[br->listed % br->inputs_cap] = (struct input){ copy, why, error, in_folder };
		br->listed++;
		if (br->threaded)
			pthread_cond_broadcast(&br->work_ready);
	}
	unlock(br);
	if (!ok)
		free(copy);
	return ok;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder's snapshots: its regular files (or links to them) and the
 * capture folders in it (offline snapshots), by name in byte order, not
 * recursing, names starting with '.' left out (a writer's temporary
 * files). A folder that is itself a capture is one snapshot. */
static bool add_folder(struct batch_run *br, const char *dir)
{
	if (sw_pipeline_is_snapshot_folder(dir))
		return add_input(br, dir, strlen(dir), WALK, 0, false);
	DIR *d = opendir(dir);
	if (!d)
		return add_input(br, dir, strlen(dir), FOLDER_UNLISTED, errno ? errno : EIO, false);
	struct sw_strlist names = { 0 };
	bool ok = true;
	struct dirent *e;
	while (ok && (e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			ok = sw_strlist_add(&names, e->d_name);
	closedir(d);
	if (ok && names.n)
		qsort(names.v, names.n, sizeof *names.v, compare_names);
	size_t dlen = strlen(dir);
	bool slash = dlen && dir[dlen - 1] == '/';
	for (size_t i = 0; ok && i < names.n; i++) {
		char *path = malloc(dlen + strlen(names.v[i]) + 2);
		ok = path != NULL;
		if (!ok)
			break;
		sprintf(path, "%s%s%s", dir, slash ? "" : "/", names.v[i]);
		struct stat st;
		/* A name that vanished since it was listed is no snapshot of
		 * the folder's any more. */
		if (stat(path, &st) == 0 && (S_ISREG(st.st_mode) ||
		                             (S_ISDIR(st.st_mode) && sw_pipeline_is_snapshot_folder(path))))
			ok = add_input(br, path, strlen(path), WALK, 0, true);
		free(path);
	}
	sw_strlist_free(&names);
	return ok;
}

/* A path: a folder's snapshots, else the path itself (a file, or what
 * the walk will refuse with its reason). */
static bool add_path(struct batch_run *br, const char *path, size_t len)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return add_folder(br, path);
	return add_input(br, path, len, WALK, 0, false);
}

/* What reading stdin gives besides bytes and lengths. */
enum { STDIN_END = -1, STDIN_STOPPED = -2, STDIN_NOMEM = -3 };

/* The next byte of stdin; STDIN_END at its end or a read error (errno in
 * br->in_errno), STDIN_STOPPED when the batch ended meanwhile (a stream's
 * reader only). */
static int stdin_byte(struct batch_run *br)
{
	if (br->in_pos < br->in_len)
		return br->in_buf[br->in_pos++];
	while (!br->in_eof) {
		if (br->streaming) {
			struct pollfd fds[2] = { { STDIN_FILENO, POLLIN, 0 }, { br->wake[0], POLLIN, 0 } };
			if (poll(fds, 2, -1) < 0) {
				if (errno == EINTR)
					continue;
				br->in_errno = errno;
				break;
			}
			if (fds[1].revents)
				return STDIN_STOPPED;
		}
		ssize_t n = read(STDIN_FILENO, br->in_buf, STDIN_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			br->in_errno = errno;
		if (n <= 0)
			break;
		br->in_pos = 1;
		br->in_len = (size_t)n;
		return br->in_buf[0];
	}
	br->in_eof = true;
	return STDIN_END;
}

/* stdin's next path (one per line, or ended by a NUL byte with --null; an
 * empty one skipped) into br->line, NUL-terminated: its length, or
 * STDIN_END, STDIN_STOPPED, STDIN_NOMEM. A path longer than
 * STDIN_PATH_MAX is read to its end and kept cut, *too_long set. */
static ssize_t read_stdin_path(struct batch_run *br, bool *too_long)
{
	int delim = br->b->null_separated ? '\0' : '\n';
	if (!br->line && !(br->line = malloc(STDIN_PATH_MAX + 1)))
		return STDIN_NOMEM;
	if (!br->in_buf && !(br->in_buf = malloc(STDIN_BUF)))
		return STDIN_NOMEM;
	for (;;) {
		size_t len = 0;
		int c;
		*too_long = false;
		while ((c = stdin_byte(br)) >= 0 && c != delim) {
			if (len < STDIN_PATH_MAX)
				br->line[len++] = (char)c;
			else
				*too_long = true;
		}
		if (c == STDIN_STOPPED)
			return STDIN_STOPPED;
		br->line[len] = '\0';
		if (len)
			return (ssize_t)len;
		if (c == STDIN_END)
			return STDIN_END;
	}
}

/* Lists the next piece of the inputs: the command line's next INPUT (a
 * folder: its snapshots), or while "-" is read, stdin's next path, taken
 * as a path given on the command line is ("-" there is a file of that
 * name). False when there is no more (all_listed set; listing_failed too
 * when memory ran out). */
static bool list_more(struct batch_run *br)
{
	const struct sw_batch *b = br->b;
	bool ok = true, more = true;
	for (;;) {
		if (br->in_stdin) {
			bool too_long;
			ssize_t len = read_stdin_path(br, &too_long);
			if (len == STDIN_END) {
				br->in_stdin = false;
				if (!br->in_errno)
					continue;
				/* "-" is an input that could not be read on. */
				ok = add_input(br, "-", 1, STDIN_UNREAD, br->in_errno, false);
				br->in_errno = 0;
				break;
			}
			if (len == STDIN_STOPPED) {
				more = false;
				break;
			}
			ok = len >= 0 && (too_long ? add_input(br, br->line, TOO_LONG_SHOWN, PATH_TOO_LONG, 0, false)
			                           : add_path(br, br->line, (size_t)len));
			break;
		}
		if (br->next_arg == b->ninputs) {
			more = false;
			break;
		}
		const char *in = b->inputs[br->next_arg++];
		if (strcmp(in, "-") == 0) {
			br->in_stdin = true;
			continue;
		}
		ok = add_path(br, in, strlen(in));
		break;
	}
	if (ok && more)
		return true;
	lock(br);
	br->all_listed = true;
	br->listing_failed = !ok;
	if (br->threaded) {
		pthread_cond_broadcast(&br->work_ready);
		pthread_cond_broadcast(&br->result_ready);
	}
	unlock(br);
	return false;
}

/* The reader of a stream: lists until the end of the inputs, or until
 * the batch ends early. */
static void *list_stream(void *arg)
{
	struct batch_run *br = arg;
	for (;;) {
		pthread_mutex_lock(&br->lock);
		bool stop = br->stop;
		pthread_mutex_unlock(&br->lock);
		if (stop || !list_more(br))
			break;
	}
	return NULL;
}

/* ---- Walking in parallel, writing in order ---- */

/* Walks input i into its result (no lock held). */
static void walk_input(struct batch_run *br, size_t i, const struct input *in)
{
	const struct sw_batch *b = br->b;
	struct result *r = &br->results[i % br->window];
	FILE *out = open_memstream(&r->lines, &r->nlines);
	FILE *msgs = open_memstream(&r->msgs, &r->nmsgs);
	if (!out || !msgs) {
		r->status = SW_EXIT_INTERNAL;
	} else if (in->why != WALK) {
		char *msg = NULL;
		int n = in->why == PATH_TOO_LONG
		                ? asprintf(&msg, "%s...: a path on stdin longer than %d bytes: skipped",
		                           in->path, (int)STDIN_PATH_MAX)
		        : in->why == STDIN_UNREAD
		                ? asprintf(&msg, "-: cannot read the paths on stdin: %s",
		                           strerror(in->error))
		                : asprintf(&msg, "%s: cannot list the folder: %s", in->path,
		                           strerror(in->error));
		if (n < 0)
			msg = NULL;
		fprintf(msgs, "stackwalk: %s\n", msg ? msg : "out of memory");
		sw_batch_put_error(out, in->path, NULL, "ERROR_UNREADABLE", msg ? msg : "out of memory");
		free(msg);
		r->status = SW_EXIT_UNREADABLE;
	} else {
		r->status = b->walk(b->ctx, in->path, in->in_folder, out, msgs);
	}
	/* A stream that ran out of memory lost lines: the input's result is
	 * then an internal failure, said as one (write_result). */
	bool ok = out && msgs;
	if (out && ferror(out))
		ok = false;
	if (out && fclose(out) != 0)
		ok = false;
	if (msgs && ferror(msgs))
		ok = false;
	if (msgs && fclose(msgs) != 0)
		ok = false;
	if (!ok) {
		free(r->lines);
		free(r->msgs);
		r->lines = r->msgs = NULL;
		r->nlines = r->nmsgs = 0;
		r->status = SW_EXIT_INTERNAL;
	}
}

/* Whether every input is listed and written (lock held). */
static bool all_written(const struct batch_run *br)
{
	return br->all_listed && br->written == br->listed;
}

static void *worker(void *arg)
{
	struct batch_run *br = arg;
	pthread_mutex_lock(&br->lock);
	for (;;) {
		while (!br->stop && !(br->all_listed && br->taken == br->listed) &&
		       !(br->taken < br->listed && br->taken < br->written + br->window))
			pthread_cond_wait(&br->work_ready, &br->lock);
		if (br->stop || br->taken == br->listed)
			break;
		size_t i = br->taken++;
		struct input in = br->inputs[i % br->inputs_cap];
		pthread_mutex_unlock(&br->lock);
		walk_input(br, i, &in);
		pthread_mutex_lock(&br->lock);
		br->results[i % br->window].done = true;
		pthread_cond_broadcast(&br->result_ready);
	}
	/* Idle until the last line is out, then all end together: a thread
	 * that ended mid-batch has its stack reused by later allocations, which
	 * ThreadSanitizer takes for races with the dead thread's writes. */
	while (!br->stop && !all_written(br))
		pthread_cond_wait(&br->work_ready, &br->lock);
	pthread_mutex_unlock(&br->lock);
	return NULL;
}

/* "N/M done, K failed" on stderr, over itself ("N done" while a stream
 * is still being listed): only a terminal gets it. */
struct progress {
	bool on;
	size_t failed;
};

static void progress_clear(const struct progress *p)
{
	if (p->on)
		fputs("\r\033[K", stderr);
}

static void progress_show(const struct progress *p, size_t done, size_t total, bool known)
{
	if (!p->on)
		return;
	if (known)
		fprintf(stderr, "\r\033[Kstackwalk: %zu/%zu done, %zu failed", done, total, p->failed);
	else
		fprintf(stderr, "\r\033[Kstackwalk: %zu done, %zu failed", done, p->failed);
}

/* Writes input i's messages and lines (in: the input, total: how many
 * are listed, all when known). False when the batch must end (out_ok said
 * so). */
static bool write_result(struct batch_run *br, size_t i, const struct input *in, size_t total,
                         bool known, struct progress *p, int *status)
{
	const struct sw_batch *b = br->b;
	struct result *r = &br->results[i % br->window];
	int write_errno = 0;
	if (r->nmsgs) {
		progress_clear(p);
		fwrite(r->msgs, 1, r->nmsgs, stderr);
	}
	/* The errno of a failed write, before later calls change it. */
	errno = 0;
	if (r->status == SW_EXIT_INTERNAL && !r->nlines) {
		/* Out of memory before the walk could say anything: the input
		 * still has its line. */
		fprintf(stderr, "stackwalk: %s: out of memory\n", in->path);
		sw_batch_put_error(b->out, in->path, NULL, "ERROR_INTERNAL", "out of memory");
	} else if (r->nlines && fwrite(r->lines, 1, r->nlines, b->out) < r->nlines) {
		write_errno = errno ? errno : EIO;
	}
	/* A stream's reader is waiting for each line: it goes out now, not
	 * when the buffer is full. */
	if (!write_errno && br->flush_each && fflush(b->out) != 0)
		write_errno = errno ? errno : EIO;
	/* An unreadable input is one line among the others: the batch says
	 * "not everything walked" (1), not "no report" (3). */
	int s = r->status == SW_EXIT_UNREADABLE ? SW_EXIT_DAMAGED : r->status;
	*status = sw_worse_status(*status, s);
	if (s != SW_EXIT_WALKED && s != SW_EXIT_NO_SYMBOLS)
		p->failed++;
	free(r->lines);
	free(r->msgs);
	*r = (struct result){ 0 };
	progress_show(p, i + 1, total, known);
	return b->out_ok(b->ctx, write_errno, status);
}

static unsigned online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 1024 ? 1024 : (unsigned)n;
}

static bool reads_stdin(const struct sw_batch *b)
{
	for (size_t i = 0; i < b->ninputs; i++)
		if (strcmp(b->inputs[i], "-") == 0)
			return true;
	return false;
}

/* Input i, once walked (lock held in a threaded run); false when the
 * inputs ended before it. Walked here when there are no workers. */
static bool next_walked(struct batch_run *br, size_t i, struct input *in)
{
	if (!br->threaded) {
		while (br->listed == i && list_more(br))
			;
		if (br->listed == i)
			return false;
		*in = br->inputs[i % br->inputs_cap];
		walk_input(br, i, in);
		return true;
	}
	while (!(i < br->listed && br->results[i % br->window].done) &&
	       !(br->all_listed && i == br->listed))
		pthread_cond_wait(&br->result_ready, &br->lock);
	if (i == br->listed)
		return false;
	*in = br->inputs[i % br->inputs_cap];
	return true;
}

/* Tells every thread the batch ends (lock held). */
static void stop_all(struct batch_run *br)
{
	br->stop = true;
	pthread_cond_broadcast(&br->work_ready);
}

/* The workers, and the reader of a stream; false (no thread left
 * running) when they could not all be started: the batch is then walked
 * by the calling thread alone. */
struct threads {
	pthread_t *workers, reader;
	unsigned nworkers;
	bool reading;
};

static bool start_threads(struct batch_run *br, struct threads *t)
{
	pthread_mutex_init(&br->lock, NULL);
	pthread_cond_init(&br->work_ready, NULL);
	pthread_cond_init(&br->result_ready, NULL);
	br->threaded = true;
	t->workers = calloc(br->jobs, sizeof *t->workers);
	while (t->workers && t->nworkers < br->jobs &&
	       pthread_create(&t->workers[t->nworkers], NULL, worker, br) == 0)
		t->nworkers++;
	if (t->nworkers && br->streaming && pipe2(br->wake, O_CLOEXEC) == 0) {
		t->reading = pthread_create(&t->reader, NULL, list_stream, br) == 0;
		if (!t->reading) {
			close(br->wake[0]);
			close(br->wake[1]);
		}
	}
	if (t->nworkers && (t->reading || !br->streaming))
		return true;
	/* Nothing was listed yet for a stream, nothing taken otherwise. */
	pthread_mutex_lock(&br->lock);
	stop_all(br);
	pthread_mutex_unlock(&br->lock);
	for (unsigned i = 0; i < t->nworkers; i++)
		pthread_join(t->workers[i], NULL);
	t->nworkers = 0;
	pthread_mutex_destroy(&br->lock);
	pthread_cond_destroy(&br->work_ready);
	pthread_cond_destroy(&br->result_ready);
	br->stop = br->threaded = br->streaming = false;
	return false;
}

static void end_threads(struct batch_run *br, struct threads *t)
{
	if (t->reading) {
		/* Ended early, the reader may wait for a line that never comes:
		 * woken (poll sees wake[0] readable), it ends. */
		ssize_t woke = write(br->wake[1], "", 1); /* one byte: the pipe does not fill */
		(void)woke;
		pthread_join(t->reader, NULL);
		close(br->wake[0]);
		close(br->wake[1]);
	}
	for (unsigned i = 0; i < t->nworkers; i++)
		pthread_join(t->workers[i], NULL);
	free(t->workers);
	pthread_mutex_destroy(&br->lock);
	pthread_cond_destroy(&br->work_ready);
	pthread_cond_destroy(&br->result_ready);
}

/* Writes every input's lines in order as they are walked; the batch's
 * status. */
static int write_in_order(struct batch_run *br)
{
	int status = SW_EXIT_WALKED;
	struct progress p = { .on = isatty(STDERR_FILENO) == 1 };
	lock(br);
	progress_show(&p, 0, br->listed, br->all_listed);
	struct input in;
	for (size_t i = 0; next_walked(br, i, &in); i++) {
		size_t total = br->listed;
		bool known = br->all_listed;
		unlock(br);
		bool go_on = write_result(br, i, &in, total, known, &p, &status);
		lock(br);
		free(in.path);
		br->written = i + 1;
		if (br->threaded)
			pthread_cond_broadcast(&br->work_ready);
		if (!go_on) {
			if (br->threaded)
				stop_all(br);
			break;
		}
	}
	bool failed = br->listing_failed;
	unlock(br);
	if (p.on && br->written)
		fputc('\n', stderr);
	if (failed) {
		fputs("stackwalk: out of memory\n", stderr);
		status = SW_EXIT_INTERNAL;
	}
	return status;
}

int sw_batch_run(const struct sw_batch *b)
{
	struct batch_run br = { .b = b, .jobs = b->jobs ? b->jobs : online_cpus() };
	/* Inputs on the command line are listed before the walks start, so
	 * that no more threads start than there are inputs; stdin is read as
	 * the walks go (a queue of paths need not end). */
	br.flush_each = reads_stdin(b);
	br.streaming = br.jobs > 1 && br.flush_each;
	if (br.jobs > 1 && !br.streaming) {
		while (list_more(&br))
			;
		if (br.jobs > br.listed)
			br.jobs = br.listed ? (unsigned)br.listed : 1;
	}
	br.window = 4 * (size_t)br.jobs;
	br.results = calloc(br.window, sizeof *br.results);
	int status = SW_EXIT_INTERNAL;
	if (!br.results || br.listing_failed) {
		fputs("stackwalk: out of memory\n", stderr);
	} else {
		struct threads t = { 0 };
		bool threaded = br.jobs > 1 && start_threads(&br, &t);
		status = write_in_order(&br);
		if (threaded)
			end_threads(&br, &t);
		else
			free(t.workers);
	}
	/* Results walked but not written (the batch ended early). */
	for (size_t i = 0; br.results && i < br.window; i++) {
		free(br.results[i].lines);
		free(br.results[i].msgs);
	}
	for (size_t i = br.written; i < br.listed; i++)
		free(br.inputs[i % br.inputs_cap].path);
	free(br.inputs);
	free(br.line);
	free(br.in_buf);
	free(br.results);
	return status;
}
