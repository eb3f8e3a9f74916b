// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * nova-mmap-touch: touch every page of a file through one MAP_SHARED
 * mapping and report how much of it was mapped with 2 MiB PMDs.
 *
 *   nova-mmap-touch read FILE
 *	read one byte of every 4 KiB page through the mapping
 *   nova-mmap-touch write FILE SEED
 *	store a 16-byte pattern of (SEED, page number) at the start of every
 *	page through the mapping, then msync(MS_SYNC)
 *   nova-mmap-touch syncwrite FILE SEED
 *	the same through a MAP_SHARED_VALIDATE | MAP_SYNC mapping
 *   nova-mmap-touch check FILE SEED
 *	read() the file and check the pattern of "write FILE SEED" in every
 *	page (no mapping)
 *
 * read, write and syncwrite print "pages=T faults=F pmd_share=S smaps_pmd_kb=K":
 * T pages touched, F page faults taken while touching them (minor plus
 * major, getrusage), S the percentage of the file mapped by PMDs derived
 * from those two, K the mapping's FilePmdMapped from /proc/self/smaps
 * (the kernel may not count DAX PMDs there, so only informative). Every
 * page is touched once and a fault maps either one page or one 2 MiB
 * PMD, so F = P + (T - 512 P) for P PMDs: P = (T - F) / 511. Faults
 * outside the loop are not counted; a stray one only lowers S.
 *
 * Exit status 0 on success, 1 on a failed system call or a wrong pattern
 * (with a message on stderr), 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE	4096UL
#define PMD_PAGES	512UL

static long faults_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

static void pattern(uint64_t seed, uint64_t page, unsigned char out[16])
{
	uint64_t w[2] = { seed ^ 0x6e6f76615f706d64ULL, page * 0x9e3779b97f4a7c15ULL + seed };

	memcpy(out, w, sizeof(w));
}

/* FilePmdMapped of the mapping at @addr, in kB; -1 if not found. */
static long smaps_pmd_kb(void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[256];
	int in = 0;
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		/* A mapping's header: "START-END PERMS OFFSET DEV INODE PATH". */
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = lo == (unsigned long)addr;
			continue;
		}
		if (in && sscanf(line, "FilePmdMapped: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

static int touch(const char *path, int write, int sync, uint64_t seed)
{
	int fd = open(path, write ? O_RDWR : O_RDONLY);
	unsigned long pages, p, pmds;
	volatile unsigned char sink = 0;
	unsigned char pat[16];
	struct stat st;
	long f0, faults, kb;
	unsigned char *m;

	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "nova-mmap-touch: %s: %s\n", path, strerror(errno));
		return 1;
	}
	pages = st.st_size / PAGE;
	if (!pages) {
		fprintf(stderr, "nova-mmap-touch: %s: shorter than a page\n", path);
		return 1;
	}
	m = mmap(NULL, pages * PAGE, write ? PROT_READ | PROT_WRITE : PROT_READ,
		 sync ? MAP_SHARED_VALIDATE | MAP_SYNC : MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		fprintf(stderr, "nova-mmap-touch: mmap %s: %s\n", path, strerror(errno));
		return 1;
	}
	f0 = faults_now();
	for (p = 0; p < pages; p++) {
		if (write) {
			pattern(seed, p, pat);
			memcpy(m + p * PAGE, pat, sizeof(pat));
		} else {
			sink += m[p * PAGE];
		}
	}
	faults = faults_now() - f0;
	(void)sink;
	kb = smaps_pmd_kb(m);
	if (write && msync(m, pages * PAGE, MS_SYNC)) {
		fprintf(stderr, "nova-mmap-touch: msync %s: %s\n", path, strerror(errno));
		return 1;
	}
	munmap(m, pages * PAGE);
	close(fd);
	pmds = (unsigned long)faults < pages ? (pages - faults) / (PMD_PAGES - 1) : 0;
	printf("pages=%lu faults=%ld pmd_share=%.1f smaps_pmd_kb=%ld\n", pages, faults,
	       100.0 * (double)(pmds * PMD_PAGES) / (double)pages, kb);
	return 0;
}

static int check(const char *path, uint64_t seed)
{
	int fd = open(path, O_RDONLY);
	unsigned char pat[16], got[16];
	unsigned long p = 0;
	ssize_t n;

	if (fd < 0) {
		fprintf(stderr, "nova-mmap-touch: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((n = pread(fd, got, sizeof(got), p * PAGE)) == sizeof(got)) {
		pattern(seed, p, pat);
		if (memcmp(pat, got, sizeof(pat))) {
			fprintf(stderr, "nova-mmap-touch: %s: page %lu lacks pattern %" PRIu64 "\n",
				path, p, seed);
			return 1;
		}
		p++;
	}
	if (n < 0 || !p) {
		fprintf(stderr, "nova-mmap-touch: %s: read failed or empty\n", path);
		return 1;
	}
	printf("pages=%lu checked\n", p);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "read"))
		return touch(argv[2], 0, 0, 0);
	if (argc == 4 && !strcmp(argv[1], "write"))
		return touch(argv[2], 1, 0, strtoull(argv[3], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "syncwrite"))
		return touch(argv[2], 1, 1, strtoull(argv[3], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "check"))
		return check(argv[2], strtoull(argv[3], NULL, 0));
	fprintf(stderr, "usage: nova-mmap-touch read FILE | write FILE SEED | syncwrite FILE SEED |\n"
		"       nova-mmap-touch check FILE SEED\n");
	return 2;
}
