// SPDX-License-Identifier: GPL-2.0
/*
 * nova-bench-meta: metadata and mixed-workload driver for bench/run.sh.
 *
 * Runs in the guest on a mounted file system and prints one JSON object
 * per measured phase on stdout:
 *
 *   {"workload":"create","ops":2000,"seconds":0.412,"ops_per_sec":4854.4}
 *
 * Workloads (first argument):
 *   meta DIR        create, stat, rename, readdir, unlink of -n files of
 *                   -b bytes each in one directory DIR/meta
 *   tree DIR        create, then delete, a directory tree of depth -d and
 *                   fanout -f under DIR/tree
 *   fileserver DIR  filebench-fileserver-like mix for -t seconds
 *   varmail DIR     filebench-varmail-like mix (fsync heavy) for -t seconds
 *   populate DIR    create -n files of -b bytes under DIR/pop (1000 per
 *                   subdirectory) and syncfs: the state a recovery starts from
 *   memcpy DIR      the copy bandwidth of the NVDIMM itself: -p processes
 *                   each map a -S byte file of a DAX file system with
 *                   MAP_SYNC (so the mapping is the PMEM, no page cache) and
 *                   memcpy 2 MiB chunks into it, then out of it, -t
 *                   seconds each (after one untimed pass that takes the
 *                   page faults); no file system code runs while timed
 *   mmap DIR        4 KiB random stores and loads through a MAP_SHARED
 *                   mapping of a -S byte file (DIR/mmap.dat, written first
 *                   with 2 MiB write()s and fsync, so the file system lays
 *                   it out as it does a large file): every page is stored
 *                   to once (untimed; the page faults counted, and the
 *                   share of the file mapped by 2 MiB PMDs derived from
 *                   them), then -t seconds of 4 KiB memcpy()s into random
 *                   pages, then -t seconds out of random pages; -l LABEL
 *                   names the state ("fresh", "aged") in the workload
 *   mount DEV DIR   mount(2) DEV on DIR with type -T and data -o, then
 *                   umount(2), -R times; reports the median of each in ms
 *                   (with -k the last mount stays: a recovery mount)
 *
 * The mixed workloads run -p processes, each on its own set of -n files,
 * and count every file system call they make as one op.
 *
 * Timing is CLOCK_MONOTONIC around the syscalls only. With -D (meant for
 * the benchmark guest, never for a shared machine) the dentry and inode
 * caches are dropped before the stat and readdir phases, so those phases
 * reach the file system instead of the VFS caches ("cold": true in the
 * output).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NAME_MAX_LEN 64
#define IO_CHUNK (16u << 10)	/* append size of the mixed workloads */

struct opts {
	long nfiles;
	long bytes;
	int depth;
	int fanout;
	double seconds;
	int procs;
	int readdir_passes;
	uint64_t seed;
	bool drop;
	bool keep;
	int repeats;
	const char *fstype;
	const char *data;
	long map_bytes;
	const char *label;
};

static const char *prog = "nova-bench-meta";

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;
	int err = errno;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* xorshift64*: a small deterministic generator, one state per process. */
static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static long rnd_below(long n)
{
	return (long)(rnd() % (uint64_t)n);
}

static void shuffle(long *v, long n)
{
	for (long i = n - 1; i > 0; i--) {
		long j = rnd_below(i + 1), t = v[i];

		v[i] = v[j];
		v[j] = t;
	}
}

static bool drop_caches(const struct opts *o)
{
	int fd;
	bool ok;

	if (!o->drop)
		return false;
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0)
		return false;
	sync();
	ok = write(fd, "2\n", 2) == 2;	/* dentries and inodes */
	close(fd);
	return ok;
}

static void report(const char *workload, long ops, double secs, const char *extra)
{
	printf("{\"workload\":\"%s\",\"ops\":%ld,\"seconds\":%.6f,\"ops_per_sec\":%.1f%s%s}\n",
	       workload, ops, secs, secs > 0 ? (double)ops / secs : 0.0,
	       extra && *extra ? "," : "", extra ? extra : "");
	fflush(stdout);
}

static void mkdir_p(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		die("mkdir %s", path);
}

static void write_all(int fd, const char *buf, size_t len, const char *what)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("write %s", what);
		}
		buf += n;
		len -= (size_t)n;
	}
}

/* Reads the file to its end; returns the number of bytes read. */
static long read_all(int fd, char *buf, size_t bufsz, const char *what)
{
	long total = 0;

	for (;;) {
		ssize_t n = read(fd, buf, bufsz);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("read %s", what);
		}
		if (n == 0)
			return total;
		total += n;
	}
}

/* ---- meta: create, stat, rename, readdir, unlink ----------------------- */

static void run_meta(const char *top, const struct opts *o)
{
	char dir[4096], a[4096 + NAME_MAX_LEN], b[4096 + NAME_MAX_LEN], extra[64];
	long n = o->nfiles, *perm, i;
	char *data;
	double t0, t;
	bool cold;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/meta", top);
	mkdir_p(dir);
	perm = malloc(sizeof(*perm) * (size_t)n);
	data = calloc(1, (size_t)o->bytes + 1);
	if (!perm || !data)
		die("malloc");
	for (i = 0; i < n; i++)
		perm[i] = i;
	memset(data, 'm', (size_t)o->bytes);

	t0 = now();
	for (i = 0; i < n; i++) {
		int fd;

		snprintf(a, sizeof(a), "%s/f%07ld", dir, i);
		fd = open(a, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			die("create %s", a);
		if (o->bytes)
			write_all(fd, data, (size_t)o->bytes, a);
		if (close(fd))
			die("close %s", a);
	}
	t = now() - t0;
	snprintf(extra, sizeof(extra), "\"bytes\":%ld", o->bytes);
	report("create", n, t, extra);

	cold = drop_caches(o);
	snprintf(extra, sizeof(extra), "\"cold\":%s", cold ? "true" : "false");
	shuffle(perm, n);
	t0 = now();
	for (i = 0; i < n; i++) {
		snprintf(a, sizeof(a), "%s/f%07ld", dir, perm[i]);
		if (stat(a, &st))
			die("stat %s", a);
		if (st.st_size != o->bytes) {
			errno = EIO;
			die("stat %s: size %lld, expected %ld", a, (long long)st.st_size, o->bytes);
		}
	}
	t = now() - t0;
	report("stat", n, t, extra);

	shuffle(perm, n);
	t0 = now();
	for (i = 0; i < n; i++) {
		snprintf(a, sizeof(a), "%s/f%07ld", dir, perm[i]);
		snprintf(b, sizeof(b), "%s/r%07ld", dir, perm[i]);
		if (rename(a, b))
			die("rename %s", a);
	}
	t = now() - t0;
	report("rename", n, t, NULL);

	cold = drop_caches(o);
	t0 = now();
	{
		long seen = 0;

		for (int pass = 0; pass < o->readdir_passes; pass++) {
			DIR *d = opendir(dir);
			struct dirent *de;

			if (!d)
				die("opendir %s", dir);
			errno = 0;
			while ((de = readdir(d)))
				if (de->d_name[0] != '.')
					seen++;
			if (errno)
				die("readdir %s", dir);
			closedir(d);
		}
		t = now() - t0;
		if (seen != n * o->readdir_passes) {
			errno = EIO;
			die("readdir %s: %ld entries, expected %ld", dir, seen,
			    n * o->readdir_passes);
		}
		snprintf(extra, sizeof(extra), "\"passes\":%d,\"cold\":%s",
			 o->readdir_passes, cold ? "true" : "false");
		report("readdir", seen, t, extra);
	}

	shuffle(perm, n);
	t0 = now();
	for (i = 0; i < n; i++) {
		snprintf(b, sizeof(b), "%s/r%07ld", dir, perm[i]);
		if (unlink(b))
			die("unlink %s", b);
	}
	t = now() - t0;
	report("unlink", n, t, NULL);
	if (rmdir(dir))
		die("rmdir %s", dir);
	free(perm);
	free(data);
}

/* ---- tree: deep directory tree create/delete ---------------------------- */

static long tree_walk(char *path, size_t len, size_t cap, int depth, int fanout, bool create)
{
	long count = 0;

	for (int i = 0; i < fanout; i++) {
		int n = snprintf(path + len, cap - len, "/d%d", i);

		if (n < 0 || (size_t)n >= cap - len) {
			errno = ENAMETOOLONG;
			die("tree path");
		}
		if (create && mkdir(path, 0755))
			die("mkdir %s", path);
		if (depth > 1)
			count += tree_walk(path, len + (size_t)n, cap, depth - 1, fanout, create);
		if (!create && rmdir(path))
			die("rmdir %s", path);
		path[len] = '\0';
		count++;
	}
	return count;
}

static void run_tree(const char *top, const struct opts *o)
{
	char path[8192], extra[64];
	size_t len;
	double t0;
	long n;

	len = (size_t)snprintf(path, sizeof(path), "%s/tree", top);
	mkdir_p(path);
	snprintf(extra, sizeof(extra), "\"depth\":%d,\"fanout\":%d", o->depth, o->fanout);

	t0 = now();
	n = tree_walk(path, len, sizeof(path), o->depth, o->fanout, true);
	report("tree_create", n, now() - t0, extra);

	t0 = now();
	n = tree_walk(path, len, sizeof(path), o->depth, o->fanout, false);
	report("tree_delete", n, now() - t0, extra);
	if (rmdir(path))
		die("rmdir %s", path);
}

/* ---- mixed workloads ----------------------------------------------------- */

struct mix {
	char dir[4096];
	long nfiles;
	char *buf;
	size_t bufsz;
	long ops;
	long long bytes;
	bool *exists;
};

static void mix_name(const struct mix *m, long i, char *out, size_t cap)
{
	/* 20 subdirectories, like filebench's dirwidth */
	snprintf(out, cap, "%s/s%02ld/f%06ld", m->dir, i % 20, i);
}

/* Creates file i with size bytes (write in IO_CHUNK pieces); optional fsync. */
static void mix_create(struct mix *m, long i, long size, bool do_fsync)
{
	char name[4096 + NAME_MAX_LEN];
	int fd;

	mix_name(m, i, name, sizeof(name));
	fd = open(name, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0)
		die("create %s", name);
	m->ops++;
	for (long done = 0; done < size; done += IO_CHUNK) {
		size_t n = (size_t)(size - done < IO_CHUNK ? size - done : IO_CHUNK);

		write_all(fd, m->buf, n, name);
		m->ops++;
		m->bytes += (long long)n;
	}
	if (do_fsync) {
		if (fsync(fd))
			die("fsync %s", name);
		m->ops++;
	}
	if (close(fd))
		die("close %s", name);
	m->exists[i] = true;
}

static void mix_append(struct mix *m, long i, bool do_fsync)
{
	char name[4096 + NAME_MAX_LEN];
	int fd;

	mix_name(m, i, name, sizeof(name));
	fd = open(name, O_WRONLY | O_APPEND);
	if (fd < 0)
		die("open %s", name);
	write_all(fd, m->buf, IO_CHUNK, name);
	m->ops += 2;
	m->bytes += IO_CHUNK;
	if (do_fsync) {
		if (fsync(fd))
			die("fsync %s", name);
		m->ops++;
	}
	if (close(fd))
		die("close %s", name);
}

static void mix_read(struct mix *m, long i)
{
	char name[4096 + NAME_MAX_LEN];
	int fd;

	mix_name(m, i, name, sizeof(name));
	fd = open(name, O_RDONLY);
	if (fd < 0)
		die("open %s", name);
	m->bytes += read_all(fd, m->buf, m->bufsz, name);
	m->ops += 2;
	if (close(fd))
		die("close %s", name);
}

static void mix_delete(struct mix *m, long i)
{
	char name[4096 + NAME_MAX_LEN];

	mix_name(m, i, name, sizeof(name));
	if (unlink(name))
		die("unlink %s", name);
	m->ops++;
	m->exists[i] = false;
}

static void mix_stat(struct mix *m, long i)
{
	char name[4096 + NAME_MAX_LEN];
	struct stat st;

	mix_name(m, i, name, sizeof(name));
	if (stat(name, &st))
		die("stat %s", name);
	m->ops++;
}

/* A random file index that exists (want=true) or not (want=false). */
static long mix_pick(const struct mix *m, bool want)
{
	long i = rnd_below(m->nfiles);

	for (long k = 0; k < m->nfiles; k++, i = (i + 1) % m->nfiles)
		if (m->exists[i] == want)
			return i;
	return -1;
}

/* filebench fileserver: mean file size 128 KiB, whole-file reads, appends. */
static long fileserver_size(void)
{
	return (long)(16 + rnd_below(225)) << 10;	/* 16..240 KiB, mean 128 */
}

static void fileserver_flow(struct mix *m)
{
	long i;

	i = mix_pick(m, false);
	if (i >= 0)
		mix_create(m, i, fileserver_size(), false);
	i = mix_pick(m, true);
	if (i >= 0)
		mix_append(m, i, false);
	i = mix_pick(m, true);
	if (i >= 0)
		mix_read(m, i);
	i = mix_pick(m, true);
	if (i >= 0)
		mix_delete(m, i);
	i = mix_pick(m, true);
	if (i >= 0)
		mix_stat(m, i);
}

/* filebench varmail: 16 KiB mails, fsync after every write. */
static void varmail_flow(struct mix *m)
{
	long i;

	i = mix_pick(m, true);
	if (i >= 0)
		mix_delete(m, i);
	i = mix_pick(m, false);
	if (i >= 0)
		mix_create(m, i, IO_CHUNK, true);
	i = mix_pick(m, true);
	if (i >= 0) {
		mix_read(m, i);
		mix_append(m, i, true);
	}
	i = mix_pick(m, true);
	if (i >= 0)
		mix_read(m, i);
}

static void mix_child(const char *top, const char *workload, int id,
		      const struct opts *o, int wfd)
{
	struct mix m = { .nfiles = o->nfiles };
	bool fileserver = !strcmp(workload, "fileserver");
	char sub[4096 + 16];
	double t0, deadline;
	char line[256];

	rng_state ^= o->seed + (uint64_t)id * 0x9e3779b97f4a7c15ull;
	snprintf(m.dir, sizeof(m.dir), "%s/%s.%d", top, workload, id);
	mkdir_p(m.dir);
	for (int s = 0; s < 20; s++) {
		snprintf(sub, sizeof(sub), "%s/s%02d", m.dir, s);
		mkdir_p(sub);
	}
	m.bufsz = 256u << 10;
	m.buf = malloc(m.bufsz);
	m.exists = calloc((size_t)m.nfiles, sizeof(*m.exists));
	if (!m.buf || !m.exists)
		die("malloc");
	memset(m.buf, 'x', m.bufsz);

	/* Prefill half the files (not timed), like filebench's prealloc. */
	for (long i = 0; i < m.nfiles; i += 2)
		mix_create(&m, i, fileserver ? fileserver_size() : IO_CHUNK, false);
	sync();
	m.ops = 0;
	m.bytes = 0;

	t0 = now();
	deadline = t0 + o->seconds;
	do {
		if (fileserver)
			fileserver_flow(&m);
		else
			varmail_flow(&m);
	} while (now() < deadline);
	snprintf(line, sizeof(line), "%ld %lld %.6f\n", m.ops, m.bytes, now() - t0);
	write_all(wfd, line, strlen(line), "pipe");

	for (long i = 0; i < m.nfiles; i++)
		if (m.exists[i])
			mix_delete(&m, i);
	for (int s = 0; s < 20; s++) {
		snprintf(sub, sizeof(sub), "%s/s%02d", m.dir, s);
		if (rmdir(sub))
			die("rmdir %s", sub);
	}
	if (rmdir(m.dir))
		die("rmdir %s", m.dir);
	free(m.buf);
	free(m.exists);
}

static void run_mixed(const char *top, const char *workload, const struct opts *o)
{
	long ops = 0;
	long long bytes = 0;
	double secs = 0;
	char extra[128];
	int fds[2];
	FILE *f;

	if (pipe(fds))
		die("pipe");
	fflush(stdout);
	for (int p = 0; p < o->procs; p++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0) {
			close(fds[0]);
			mix_child(top, workload, p, o, fds[1]);
			_exit(0);
		}
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (!f)
		die("fdopen");
	for (int p = 0; p < o->procs; p++) {
		long o_ops;
		long long o_bytes;
		double o_secs;

		if (fscanf(f, "%ld %lld %lf", &o_ops, &o_bytes, &o_secs) != 3) {
			errno = EIO;
			die("%s: a worker process failed", workload);
		}
		ops += o_ops;
		bytes += o_bytes;
		if (o_secs > secs)
			secs = o_secs;
	}
	fclose(f);
	for (int p = 0; p < o->procs; p++) {
		int st;

		if (wait(&st) < 0)
			die("wait");
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			errno = EIO;
			die("%s: a worker process failed", workload);
		}
	}
	snprintf(extra, sizeof(extra), "\"procs\":%d,\"files\":%ld,\"mib_per_sec\":%.2f",
		 o->procs, o->nfiles, secs > 0 ? (double)bytes / secs / 1048576.0 : 0.0);
	report(workload, ops, secs, extra);
}

/* ---- populate: the file set of a recovery measurement ---------------- */

static void run_populate(const char *top, const struct opts *o)
{
	char path[4096 + 2 * NAME_MAX_LEN], extra[64];
	char *data = calloc(1, (size_t)o->bytes + 1);
	double t0;
	int fd;

	if (!data)
		die("malloc");
	memset(data, 'p', (size_t)o->bytes);
	snprintf(path, sizeof(path), "%s/pop", top);
	mkdir_p(path);
	t0 = now();
	for (long i = 0; i < o->nfiles; i++) {
		if (i % 1000 == 0) {
			snprintf(path, sizeof(path), "%s/pop/d%04ld", top, i / 1000);
			mkdir_p(path);
		}
		snprintf(path, sizeof(path), "%s/pop/d%04ld/f%07ld", top, i / 1000, i);
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			die("create %s", path);
		if (o->bytes)
			write_all(fd, data, (size_t)o->bytes, path);
		if (close(fd))
			die("close %s", path);
	}
	fd = open(top, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || syncfs(fd))
		die("syncfs %s", top);
	close(fd);
	snprintf(extra, sizeof(extra), "\"bytes\":%ld", o->bytes);
	report("populate", o->nfiles, now() - t0, extra);
	free(data);
}

/* ---- memcpy: the device's own copy bandwidth through a DAX mapping ---- */

#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
#ifndef MAP_SYNC
#define MAP_SYNC 0x80000
#endif

#define COPY_CHUNK (2ul << 20)

/* One pass direction: 0 writes into the mapping, 1 reads out of it. */
static double copy_loop(char *map, size_t size, char *buf, int dir, double secs, long long *bytes)
{
	double t0 = now(), t;

	*bytes = 0;
	do {
		for (size_t off = 0; off + COPY_CHUNK <= size; off += COPY_CHUNK) {
			if (dir == 0)
				memcpy(map + off, buf, COPY_CHUNK);
			else
				memcpy(buf, map + off, COPY_CHUNK);
			*bytes += (long long)COPY_CHUNK;
		}
		/* keep the compiler from dropping the reads */
		__asm__ __volatile__("" : : "r"(buf) : "memory");
		t = now() - t0;
	} while (t < secs);
	return t;
}

static void memcpy_child(const char *top, int id, const struct opts *o, int wfd)
{
	char path[4096 + 32], line[128];
	size_t size = (size_t)o->map_bytes & ~(COPY_CHUNK - 1);
	long long wb, rb;
	double wt, rt;
	char *map, *buf;
	int fd, err;

	snprintf(path, sizeof(path), "%s/memcpy.%d", top, id);
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0)
		die("create %s", path);
	err = posix_fallocate(fd, 0, (off_t)size);
	if (err) {
		errno = err;
		die("fallocate %s", path);
	}
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_SYNC, fd, 0);
	if (map == MAP_FAILED)
		die("mmap MAP_SYNC %s (not a DAX file?)", path);
	buf = malloc(COPY_CHUNK);
	if (!buf)
		die("malloc");
	memset(buf, 'c', COPY_CHUNK);
	copy_loop(map, size, buf, 0, 0, &wb);	/* take the write faults */
	wt = copy_loop(map, size, buf, 0, o->seconds, &wb);
	rt = copy_loop(map, size, buf, 1, o->seconds, &rb);
	snprintf(line, sizeof(line), "%lld %.6f %lld %.6f\n", wb, wt, rb, rt);
	write_all(wfd, line, strlen(line), "pipe");
	munmap(map, size);
	close(fd);
	if (unlink(path))
		die("unlink %s", path);
	free(buf);
}

static void run_memcpy(const char *top, const struct opts *o)
{
	double wbw = 0, rbw = 0;
	char extra[128];
	int fds[2];
	FILE *f;

	if (o->map_bytes < (long)COPY_CHUNK) {
		errno = EINVAL;
		die("memcpy needs -S of at least 2 MiB");
	}
	if (pipe(fds))
		die("pipe");
	fflush(stdout);
	for (int p = 0; p < o->procs; p++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0) {
			close(fds[0]);
			memcpy_child(top, p, o, fds[1]);
			_exit(0);
		}
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (!f)
		die("fdopen");
	for (int p = 0; p < o->procs; p++) {
		long long wb, rb;
		double wt, rt;

		if (fscanf(f, "%lld %lf %lld %lf", &wb, &wt, &rb, &rt) != 4) {
			errno = EIO;
			die("memcpy: a worker process failed");
		}
		/* concurrent processes: their bandwidths add up */
		wbw += (double)wb / wt / 1048576.0;
		rbw += (double)rb / rt / 1048576.0;
	}
	fclose(f);
	for (int p = 0; p < o->procs; p++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
			errno = EIO;
			die("memcpy: a worker process failed");
		}
	}
	snprintf(extra, sizeof(extra), "\"procs\":%d,\"mib_per_sec\":%.2f", o->procs, wbw);
	report("memcpy_write", 0, o->seconds, extra);
	snprintf(extra, sizeof(extra), "\"procs\":%d,\"mib_per_sec\":%.2f", o->procs, rbw);
	report("memcpy_read", 0, o->seconds, extra);
}

/* ---- mmap: 4 KiB random stores and loads through a mapping ------------ */

static double min_d(double a, double b)
{
	return a < b ? a : b;
}

static long faults_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

/* 4 KiB copies between random pages of @map and @buf for @secs. */
static double page_loop(char *map, long pages, char *buf, int dir, double secs, long *ops)
{
	double t0 = now(), t;

	*ops = 0;
	do {
		for (int i = 0; i < 256; i++) {
			char *pg = map + (size_t)rnd_below(pages) * 4096;

			if (dir == 0)
				memcpy(pg, buf, 4096);
			else
				memcpy(buf, pg, 4096);
		}
		__asm__ __volatile__("" : : "r"(buf) : "memory");
		*ops += 256;
		t = now() - t0;
	} while (t < secs);
	return t;
}

static void run_mmap(const char *top, const struct opts *o)
{
	size_t size = (size_t)o->map_bytes & ~(COPY_CHUNK - 1);
	long pages = (long)(size / 4096), faults, pmd, ops;
	const char *label = o->label ? o->label : "fresh";
	char path[4096 + 32], extra[256], name[64];
	double share, secs;
	char *map, *buf;
	int fd;

	if (size < COPY_CHUNK) {
		errno = EINVAL;
		die("mmap needs -S of at least 2 MiB");
	}
	buf = malloc(COPY_CHUNK);
	if (!buf)
		die("malloc");
	memset(buf, 'm', COPY_CHUNK);
	snprintf(path, sizeof(path), "%s/mmap.dat", top);
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0)
		die("create %s", path);
	for (size_t off = 0; off < size; off += COPY_CHUNK)
		write_all(fd, buf, COPY_CHUNK, path);
	if (fsync(fd))
		die("fsync %s", path);
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap %s", path);
	/*
	 * One store per page: a fault maps one page or one 2 MiB PMD, so
	 * F faults for P pages mean (P - F) / 511 PMDs.
	 */
	faults = faults_now();
	for (long i = 0; i < pages; i++)
		map[(size_t)i * 4096] = 't';
	faults = faults_now() - faults;
	pmd = faults < pages ? (pages - faults) / 511 : 0;
	share = min_d(100.0, 100.0 * (double)pmd * 512 / (double)pages);
	snprintf(name, sizeof(name), "mmap-randwrite-4k-%s", label);
	secs = page_loop(map, pages, buf, 0, o->seconds, &ops);
	snprintf(extra, sizeof(extra),
		 "\"ns_op\":%.1f,\"faults\":%ld,\"pages\":%ld,\"pmd_share\":%.1f,\"procs\":1",
		 ops ? secs * 1e9 / (double)ops : 0.0, faults, pages, share);
	report(name, ops, secs, extra);
	snprintf(name, sizeof(name), "mmap-randread-4k-%s", label);
	secs = page_loop(map, pages, buf, 1, o->seconds, &ops);
	snprintf(extra, sizeof(extra), "\"ns_op\":%.1f,\"procs\":1",
		 ops ? secs * 1e9 / (double)ops : 0.0);
	report(name, ops, secs, extra);
	if (msync(map, size, MS_SYNC))
		die("msync %s", path);
	munmap(map, size);
	close(fd);
	if (unlink(path))
		die("unlink %s", path);
	free(buf);
}

/* ---- mount: mount(2)/umount(2) latency ----------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void run_mount(const char *dev, const char *dir, const struct opts *o)
{
	double *m = calloc((size_t)o->repeats, sizeof(*m));
	double *u = calloc((size_t)o->repeats, sizeof(*u));
	double t0, total = 0;
	int nu = 0;
	char extra[160];

	if (!m || !u)
		die("malloc");
	if (!o->fstype) {
		errno = EINVAL;
		die("mount needs -T TYPE");
	}
	for (int r = 0; r < o->repeats; r++) {
		t0 = now();
		if (mount(dev, dir, o->fstype, 0, o->data))
			die("mount -t %s -o '%s' %s %s", o->fstype, o->data ? o->data : "", dev, dir);
		m[r] = (now() - t0) * 1e3;
		total += m[r] / 1e3;
		if (o->keep && r == o->repeats - 1)
			break;
		t0 = now();
		if (umount(dir))
			die("umount %s", dir);
		u[nu++] = (now() - t0) * 1e3;
	}
	snprintf(extra, sizeof(extra), "\"mount_ms\":%.3f,\"umount_ms\":%.3f,\"kept\":%s",
		 median(m, o->repeats), nu ? median(u, nu) : 0.0, o->keep ? "true" : "false");
	report("mount", o->repeats, total, extra);
	free(m);
	free(u);
}

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: %s meta|tree|fileserver|varmail|populate|memcpy|mmap [options] DIR\n"
		"       %s mount -T TYPE [-o DATA] [-R N] [-k] DEV DIR\n"
		"  -n N      files (meta: files in one directory; mixed: files per process)\n"
		"  -b BYTES  size of each file in meta (default 1024)\n"
		"  -r N      readdir passes (default 10)\n"
		"  -d DEPTH  tree depth (default 6)\n"
		"  -f N      tree fanout (default 3)\n"
		"  -t SECS   duration of a mixed workload (default 5)\n"
		"  -p N      processes of a mixed workload (default 1)\n"
		"  -s SEED   random seed (default 1)\n"
		"  -D        drop dentry/inode caches before stat and readdir (root)\n"
		"  -S BYTES  size of each mapped file (memcpy, mmap; default 64 MiB)\n"
		"  -l LABEL  state of the file system, in the workload name (mmap)\n"
		"  -T TYPE   file system type (mount)\n"
		"  -o DATA   mount data string (mount)\n"
		"  -R N      mount/umount repetitions (default 3)\n"
		"  -k        leave the last mount in place\n"
		"Prints one JSON object per phase on stdout.\n", prog, prog);
	exit(status);
}

static long parse_long(const char *s, long min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min) {
		fprintf(stderr, "%s: bad number '%s' (minimum %ld)\n", prog, s, min);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct opts o = {
		.nfiles = 1000, .bytes = 1024, .depth = 6, .fanout = 3,
		.seconds = 5, .procs = 1, .readdir_passes = 10, .seed = 1,
		.repeats = 3, .map_bytes = 64l << 20,
	};
	const char *workload, *dir;
	int c;

	if (argc < 2)
		usage(2);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		usage(0);
	workload = argv[1];
	optind = 2;
	while ((c = getopt(argc, argv, "n:b:r:d:f:t:p:s:DS:T:o:R:kl:h")) != -1) {
		switch (c) {
		case 'n': o.nfiles = parse_long(optarg, 1); break;
		case 'b': o.bytes = parse_long(optarg, 0); break;
		case 'r': o.readdir_passes = (int)parse_long(optarg, 1); break;
		case 'd': o.depth = (int)parse_long(optarg, 1); break;
		case 'f': o.fanout = (int)parse_long(optarg, 1); break;
		case 't': o.seconds = (double)parse_long(optarg, 0); break;
		case 'p': o.procs = (int)parse_long(optarg, 1); break;
		case 's': o.seed = (uint64_t)parse_long(optarg, 0); break;
		case 'D': o.drop = true; break;
		case 'S': o.map_bytes = parse_long(optarg, 1); break;
		case 'T': o.fstype = optarg; break;
		case 'o': o.data = optarg; break;
		case 'R': o.repeats = (int)parse_long(optarg, 1); break;
		case 'k': o.keep = true; break;
		case 'l': o.label = optarg; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	rng_state ^= o.seed;
	if (!strcmp(workload, "mount")) {
		if (optind != argc - 2)
			usage(2);
		run_mount(argv[optind], argv[optind + 1], &o);
		return 0;
	}
	if (optind != argc - 1)
		usage(2);
	dir = argv[optind];

	if (!strcmp(workload, "meta"))
		run_meta(dir, &o);
	else if (!strcmp(workload, "tree"))
		run_tree(dir, &o);
	else if (!strcmp(workload, "fileserver") || !strcmp(workload, "varmail"))
		run_mixed(dir, workload, &o);
	else if (!strcmp(workload, "populate"))
		run_populate(dir, &o);
	else if (!strcmp(workload, "memcpy"))
		run_memcpy(dir, &o);
	else if (!strcmp(workload, "mmap"))
		run_mmap(dir, &o);
	else
		usage(2);
	return 0;
}
