/* stackwalk --batch (docs/batch.md): the inputs listed, walked on N
 * threads, the lines written in input order. */
#include "batch.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/offline.h"

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

void sw_batch_put_error(FILE *out, const char *path, const char *status, const char *msg)
{
	fputs("{\"file\":", out);
	put_json_string(out, path);
	fputs(",\"status\":", out);
	put_json_string(out, status);
	fputs(",\"error\":", out);
	put_json_string(out, msg);
	fputs("}\n", out);
}

/* ---- The inputs ---- */

/* One snapshot to walk: its path, or a folder that could not be listed
 * (list_errno: opendir's errno; its line says why, and nothing is
 * walked). */
struct input {
	char *path;                 /* malloc'd */
	int list_errno;             /* 0: a snapshot to walk */
};

struct input_list {
	struct input *v;
	size_t n, cap;
};

static bool add_input(struct input_list *l, const char *path, size_t len, int list_errno)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct input *v = realloc(l->v, cap * sizeof *v);
		if (!v)
			return false;
		l->v = v;
		l->cap = cap;
	}
	struct input *in = &l->v[l->n];
	in->path = strndup(path, len);
	in->list_errno = list_errno;
	if (!in->path)
		return false;
	l->n++;
	return true;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder's snapshots: its regular files (or links to them) and the
 * capture folders in it (offline snapshots), by name in byte order, not
 * recursing, names starting with '.' left out (a writer's temporary
 * files). A folder that is itself a capture is one snapshot. */
static bool add_folder(struct input_list *l, const char *dir)
{
	if (sw_offline_is_folder(dir))
		return add_input(l, dir, strlen(dir), 0);
	DIR *d = opendir(dir);
	if (!d)
		return add_input(l, dir, strlen(dir), errno ? errno : EIO);
	char **names = NULL;
	size_t n = 0, cap = 0;
	bool ok = true;
	struct dirent *e;
	while (ok && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			char **v = realloc(names, cap * sizeof *v);
			ok = v != NULL;
			names = ok ? v : names;
		}
		if (ok)
			ok = (names[n++] = strdup(e->d_name)) != NULL;
	}
	closedir(d);
	if (ok && n)
		qsort(names, n, sizeof *names, compare_names);
	size_t dlen = strlen(dir);
	bool slash = dlen && dir[dlen - 1] == '/';
	for (size_t i = 0; ok && i < n; i++) {
		char *path = malloc(dlen + strlen(names[i]) + 2);
		ok = path != NULL;
		if (!ok)
			break;
		sprintf(path, "%s%s%s", dir, slash ? "" : "/", names[i]);
		struct stat st;
		/* A name that vanished since it was listed is no snapshot of
		 * the folder's any more. */
		if (stat(path, &st) == 0 && (S_ISREG(st.st_mode) ||
		                             (S_ISDIR(st.st_mode) && sw_offline_is_folder(path))))
			ok = add_input(l, path, strlen(path), 0);
		free(path);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ok;
}

static bool add_path(struct input_list *l, const char *path, size_t len);

/* The paths of stdin, one per line (the newline removed; empty lines
 * skipped), each taken as a path given on the command line is ("-" there
 * is a file of that name). */
static bool add_stdin(struct input_list *l)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	bool ok = true;
	while (ok && (len = getline(&line, &cap, stdin)) >= 0) {
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len)
			ok = add_path(l, line, (size_t)len);
	}
	free(line);
	return ok;
}

/* A path: a folder's snapshots, else the path itself (a file, or what
 * the walk will refuse with its reason). */
static bool add_path(struct input_list *l, const char *path, size_t len)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return add_folder(l, path);
	return add_input(l, path, len, 0);
}

static bool list_inputs(const struct sw_batch *b, struct input_list *l)
{
	for (size_t i = 0; i < b->ninputs; i++) {
		const char *in = b->inputs[i];
		if (!(strcmp(in, "-") == 0 ? add_stdin(l) : add_path(l, in, strlen(in))))
			return false;
	}
	return true;
}

static void free_inputs(struct input_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
}

/* ---- Walking in parallel, writing in order ---- */

/* One input's outcome, kept until its turn to be written. */
struct result {
	char *lines, *msgs;         /* malloc'd by open_memstream */
	size_t nlines, nmsgs;
	int status;
	bool done;
};

struct batch_run {
	const struct sw_batch *b;
	struct input_list inputs;
	struct result *results;
	unsigned jobs;
	/* Inputs taken by the workers and written by the writer. A worker
	 * takes input i only when i < written + window: the results waiting
	 * for a slow input ahead of them stay few (their lines are held in
	 * memory until then). */
	size_t taken, written, window;
	bool stop;                  /* the writer ended the batch early */
	pthread_mutex_t lock;
	pthread_cond_t result_ready; /* a worker finished an input */
	pthread_cond_t slot_free;    /* the writer wrote one */
};

/* Walks input i into its result (no lock held). */
static void walk_input(struct batch_run *br, size_t i)
{
	const struct sw_batch *b = br->b;
	const struct input *in = &br->inputs.v[i];
	struct result *r = &br->results[i];
	FILE *out = open_memstream(&r->lines, &r->nlines);
	FILE *msgs = open_memstream(&r->msgs, &r->nmsgs);
	if (!out || !msgs) {
		r->status = SW_EXIT_INTERNAL;
	} else if (in->list_errno) {
		char *msg = NULL;
		if (asprintf(&msg, "%s: cannot list the folder: %s", in->path,
		             strerror(in->list_errno)) < 0)
			msg = NULL;
		fprintf(msgs, "stackwalk: %s\n", msg ? msg : "out of memory");
		sw_batch_put_error(out, in->path, "ERROR_UNREADABLE", msg ? msg : "out of memory");
		free(msg);
		r->status = SW_EXIT_UNREADABLE;
	} else {
		r->status = b->walk(b->ctx, in->path, out, msgs);
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

static void *worker(void *arg)
{
	struct batch_run *br = arg;
	pthread_mutex_lock(&br->lock);
	for (;;) {
		while (!br->stop && br->taken < br->inputs.n && br->taken >= br->written + br->window)
			pthread_cond_wait(&br->slot_free, &br->lock);
		if (br->stop || br->taken == br->inputs.n)
			break;
		size_t i = br->taken++;
		pthread_mutex_unlock(&br->lock);
		walk_input(br, i);
		pthread_mutex_lock(&br->lock);
		br->results[i].done = true;
		pthread_cond_broadcast(&br->result_ready);
	}
	/* Idle until the last line is out, then all end together: a thread
	 * that ended mid-batch has its stack reused by later allocations, which
	 * ThreadSanitizer takes for races with the dead thread's writes. */
	while (!br->stop && br->written < br->inputs.n)
		pthread_cond_wait(&br->slot_free, &br->lock);
	pthread_mutex_unlock(&br->lock);
	return NULL;
}

/* "N/M done, K failed" on stderr, over itself: only a terminal gets it. */
struct progress {
	bool on;
	size_t failed;
};

static void progress_clear(const struct progress *p)
{
	if (p->on)
		fputs("\r\033[K", stderr);
}

static void progress_show(const struct progress *p, size_t done, size_t total)
{
	if (p->on)
		fprintf(stderr, "\r\033[Kstackwalk: %zu/%zu done, %zu failed", done, total, p->failed);
}

/* Writes input i's messages and lines. False when the batch must end
 * (out_ok said so). */
static bool write_result(struct batch_run *br, size_t i, struct progress *p, int *status)
{
	const struct sw_batch *b = br->b;
	struct result *r = &br->results[i];
	int write_errno = 0;
	if (r->nmsgs) {
		progress_clear(p);
		fwrite(r->msgs, 1, r->nmsgs, stderr);
	}
	if (r->status == SW_EXIT_INTERNAL && !r->nlines) {
		/* Out of memory before the walk could say anything: the input
		 * still has its line. */
		fprintf(stderr, "stackwalk: %s: out of memory\n", br->inputs.v[i].path);
		sw_batch_put_error(b->out, br->inputs.v[i].path, "ERROR_INTERNAL", "out of memory");
	} else if (r->nlines) {
		/* The errno of a failed write, before later calls change it. */
		errno = 0;
		if (fwrite(r->lines, 1, r->nlines, b->out) < r->nlines)
			write_errno = errno ? errno : EIO;
	}
	/* An unreadable input is one line among the others: the batch says
	 * "not everything walked" (1), not "no report" (3). */
	int s = r->status == SW_EXIT_UNREADABLE ? SW_EXIT_DAMAGED : r->status;
	*status = sw_worse_status(*status, s);
	if (s != SW_EXIT_WALKED && s != SW_EXIT_NO_SYMBOLS)
		p->failed++;
	free(r->lines);
	free(r->msgs);
	r->lines = r->msgs = NULL;
	progress_show(p, i + 1, br->inputs.n);
	return b->out_ok(b->ctx, write_errno, status);
}

static unsigned online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 1024 ? 1024 : (unsigned)n;
}

int sw_batch_run(const struct sw_batch *b)
{
	struct batch_run br = { .b = b };
	int status = SW_EXIT_WALKED;
	if (!list_inputs(b, &br.inputs) ||
	    (br.inputs.n && !(br.results = calloc(br.inputs.n, sizeof *br.results)))) {
		fputs("stackwalk: out of memory\n", stderr);
		free_inputs(&br.inputs);
		return SW_EXIT_INTERNAL;
	}
	size_t n = br.inputs.n;
	br.jobs = b->jobs ? b->jobs : online_cpus();
	if (br.jobs > n)
		br.jobs = n ? (unsigned)n : 1;
	br.window = 4 * (size_t)br.jobs;
	struct progress p = { .on = isatty(STDERR_FILENO) == 1 };
	progress_show(&p, 0, n);

	pthread_t *threads = NULL;
	unsigned started = 0;
	if (br.jobs > 1) {
		pthread_mutex_init(&br.lock, NULL);
		pthread_cond_init(&br.result_ready, NULL);
		pthread_cond_init(&br.slot_free, NULL);
		threads = calloc(br.jobs, sizeof *threads);
		while (threads && started < br.jobs &&
		       pthread_create(&threads[started], NULL, worker, &br) == 0)
			started++;
	}
	for (size_t i = 0; i < n; i++) {
		if (started == 0) {
			/* --jobs 1 (or no thread could be started): walk here. */
			walk_input(&br, i);
		} else {
			pthread_mutex_lock(&br.lock);
			while (!br.results[i].done)
				pthread_cond_wait(&br.result_ready, &br.lock);
			pthread_mutex_unlock(&br.lock);
		}
		bool go_on = write_result(&br, i, &p, &status);
		if (started) {
			pthread_mutex_lock(&br.lock);
			br.written = i + 1;
			br.stop = !go_on;
			pthread_cond_broadcast(&br.slot_free);
			pthread_mutex_unlock(&br.lock);
		}
		if (!go_on)
			break;
	}
	for (unsigned t = 0; t < started; t++)
		pthread_join(threads[t], NULL);
	if (br.jobs > 1) {
		pthread_mutex_destroy(&br.lock);
		pthread_cond_destroy(&br.result_ready);
		pthread_cond_destroy(&br.slot_free);
	}
	if (p.on && n)
		fputc('\n', stderr);
	/* Results walked but not written (the batch ended early). */
	for (size_t i = 0; i < n; i++) {
		free(br.results[i].lines);
		free(br.results[i].msgs);
	}
	free(threads);
	free(br.results);
	free_inputs(&br.inputs);
	return status;
}
