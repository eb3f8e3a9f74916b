// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * nova-gc-load: workloads for the log garbage collection tests.
 *
 *   nova-gc-load overwrite FILE COUNT [FIRST]
 *	pwrite() 4 KiB at offset 0 of FILE (created if needed) COUNT times;
 *	write i (FIRST, FIRST+1, ...) fills the block with a pattern of i.
 *   nova-gc-load check FILE I
 *	the first 4 KiB of FILE hold the pattern of write I, and the file
 *	is 4 KiB long
 *   nova-gc-load churn DIR COUNT BATCH [PREFIX]
 *	create COUNT files in DIR and unlink them again, at most BATCH of
 *	them existing at a time (created BATCH at a time, then unlinked);
 *	the names are PREFIX (default "f") and a number
 *
 * Each workload prints "ops=N seconds=S rate=R" (R operations a second)
 * on stdout. Exit status 0 on success, 1 on a failed system call or a
 * wrong pattern (with a message on stderr), 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BLOCK	4096

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void report(unsigned long ops, double secs)
{
	printf("ops=%lu seconds=%.3f rate=%.0f\n", ops, secs,
	       secs > 0 ? ops / secs : 0.0);
}

/* The block written by write @i: 64-bit words i * 2^32 + word index. */
static void pattern(uint64_t *buf, uint64_t i)
{
	unsigned int k;

	for (k = 0; k < BLOCK / sizeof(*buf); k++)
		buf[k] = (i << 32) | k;
}

static unsigned long number(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || !*s || *end) {
		fprintf(stderr, "nova-gc-load: not a number: %s\n", s);
		exit(2);
	}
	return v;
}

static int overwrite(const char *path, unsigned long count, unsigned long first)
{
	static uint64_t buf[BLOCK / sizeof(uint64_t)];
	unsigned long i;
	double t;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	t = now();
	for (i = 0; i < count; i++) {
		pattern(buf, first + i);
		if (pwrite(fd, buf, BLOCK, 0) != BLOCK) {
			fprintf(stderr, "%s: write %lu: %s\n", path, first + i,
				strerror(errno));
			close(fd);
			return 1;
		}
	}
	t = now() - t;
	if (close(fd)) {
		perror(path);
		return 1;
	}
	report(count, t);
	return 0;
}

static int check(const char *path, unsigned long i)
{
	static uint64_t want[BLOCK / sizeof(uint64_t)], got[BLOCK / sizeof(uint64_t)];
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || pread(fd, got, BLOCK, 0) != BLOCK) {
		perror(path);
		return 1;
	}
	close(fd);
	if (st.st_size != BLOCK) {
		fprintf(stderr, "%s: size %lld, expected %d\n", path,
			(long long)st.st_size, BLOCK);
		return 1;
	}
	pattern(want, i);
	if (memcmp(want, got, BLOCK)) {
		fprintf(stderr, "%s: content is not the pattern of write %lu (first word %#llx)\n",
			path, i, (unsigned long long)got[0]);
		return 1;
	}
	return 0;
}

static int churn(const char *dir, unsigned long count, unsigned long batch,
		 const char *prefix)
{
	char name[4096];
	unsigned long done = 0, i, n;
	double t;
	int fd;

	if (!batch) {
		fprintf(stderr, "nova-gc-load: BATCH must be at least 1\n");
		return 2;
	}
	t = now();
	while (done < count) {
		n = count - done < batch ? count - done : batch;
		for (i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "%s/%s%lu", dir, prefix,
				 done + i);
			fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0644);
			if (fd < 0 || close(fd)) {
				perror(name);
				return 1;
			}
		}
		for (i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "%s/%s%lu", dir, prefix,
				 done + i);
			if (unlink(name)) {
				perror(name);
				return 1;
			}
		}
		done += n;
	}
	report(count * 2, now() - t);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && argc <= 5 && !strcmp(argv[1], "overwrite"))
		return overwrite(argv[2], number(argv[3]),
				 argc == 5 ? number(argv[4]) : 0);
	if (argc == 4 && !strcmp(argv[1], "check"))
		return check(argv[2], number(argv[3]));
	if (argc >= 5 && argc <= 6 && !strcmp(argv[1], "churn"))
		return churn(argv[2], number(argv[3]), number(argv[4]),
			     argc == 6 ? argv[5] : "f");
	fprintf(stderr,
		"usage: nova-gc-load overwrite FILE COUNT [FIRST]\n"
		"       nova-gc-load check FILE I\n"
		"       nova-gc-load churn DIR COUNT BATCH [PREFIX]\n");
	return 2;
}
