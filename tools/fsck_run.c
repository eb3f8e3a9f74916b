// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fsck.NOVA: the order of the checks, messages and the exit status.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fsck.h"
#include "le.h"

/* Set by a signal handler of the caller (fsck.c): stop soon, exit 32. */
volatile sig_atomic_t fsck_interrupted;

#define MAX_PROBLEM_LINES	2000

/* Pass weights in tenths of a percent: the logs are most of the work. */
static const int pass_start[] = { 0, 0, 100, 800, 850, 950, 1000 };

static void progress_clear(struct fsck *f)
{
	if (!f->progress_bar)
		return;
	printf("\r%*s\r", 79, "");
	fflush(stdout);
	f->progress_bar = false;
}

void fsck_progress(struct fsck *f, enum fsck_pass pass, uint64_t cur,
		   uint64_t max)
{
	int span = pass_start[pass + 1] - pass_start[pass];
	int now, fill;

	if (!f->o.progress)
		return;
	if (!max)
		cur = max = 1;
	if (cur > max)
		cur = max;
	now = pass_start[pass] + (int)((uint64_t)span * cur / max);
	if (now == f->progress_last)
		return;
	f->progress_last = now;
	if (f->o.progress_fd > 0) {
		dprintf(f->o.progress_fd, "%d %llu %llu %s\n", (int)pass,
			(unsigned long long)cur, (unsigned long long)max,
			f->dev->path);
		return;
	}
	fill = now * 40 / 1000;
	printf("\r%s: |%.*s%*s| %5.1f%%", f->dev->path, fill,
	       "========================================", 40 - fill, "",
	       now / 10.0);
	fflush(stdout);
	f->progress_bar = true;
}

static void vsay(struct fsck *f, const char *prefix, const char *fmt,
		 va_list ap)
{
	if (f->o.out == stdout)
		progress_clear(f);
	fputs(prefix, f->o.out);
	vfprintf(f->o.out, fmt, ap);
	fputc('\n', f->o.out);
}

void fsck_problem(struct fsck *f, const char *fmt, ...)
{
	va_list ap;

	f->problems++;
	if (f->problems > MAX_PROBLEM_LINES) {
		if (f->problems == MAX_PROBLEM_LINES + 1)
			fprintf(f->o.out, "(further problems are counted, not shown)\n");
		return;
	}
	va_start(ap, fmt);
	vsay(f, "", fmt, ap);
	va_end(ap);
}

void fsck_problem_fix(struct fsck *f, enum fsck_repair rep,
		      const char *fmt, ...)
{
	va_list ap;

	f->problems++;
	f->fixable[rep]++;
	if (f->problems > MAX_PROBLEM_LINES)
		return;
	va_start(ap, fmt);
	vsay(f, "", fmt, ap);
	va_end(ap);
}

void fsck_info(struct fsck *f, int level, const char *fmt, ...)
{
	va_list ap;

	if (level > f->o.verbose)
		return;
	va_start(ap, fmt);
	vsay(f, "", fmt, ap);
	va_end(ap);
}

void fsck_fixed(struct fsck *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(f, "REPAIRED: ", fmt, ap);
	va_end(ap);
}

void fsck_oper(struct fsck *f, const char *fmt, ...)
{
	va_list ap;

	f->operational = true;
	va_start(ap, fmt);
	fputs("fsck.NOVA: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

const void *fsck_ptr(struct fsck *f, uint64_t off, uint64_t len)
{
	return ndev_ptr(f->dev, off, len);
}

bool fsck_journaled(struct fsck *f, const __le64 *word, uint64_t *old)
{
	uint64_t off = (uint64_t)((const uint8_t *)word - f->dev->map);
	unsigned int i;

	for (i = 0; i < f->nr_undo; i++) {
		if (f->undo[i].addr == off) {
			*old = f->undo[i].old;
			return true;
		}
	}
	return false;
}

uint64_t fsck_word(struct fsck *f, const __le64 *word)
{
	uint64_t old;

	return fsck_journaled(f, word, &old) ? old : le64(*word);
}

static bool setup_maps(struct fsck *f)
{
	uint64_t b;

	f->bkind = calloc(f->nblocks, sizeof(*f->bkind));
	f->bowner = calloc(f->nblocks, sizeof(*f->bowner));
	f->bsymlink = calloc(f->nblocks, sizeof(*f->bsymlink));
	if (!f->bkind || !f->bowner || !f->bsymlink) {
		fsck_oper(f, "out of memory for a map of %llu blocks",
			  (unsigned long long)f->nblocks);
		return false;
	}
	/* Fixed blocks, protection areas, replica superblock. */
	for (b = 0; b < f->layout.alloc_start; b++)
		f->bkind[b] = BK_FIXED;
	for (b = f->layout.alloc_end; b < f->nblocks; b++)
		f->bkind[b] = BK_FIXED;
	return true;
}

static bool cancelled(struct fsck *f)
{
	if (fsck_interrupted)
		f->cancelled = true;
	return f->cancelled || f->operational;
}

static void free_all(struct fsck *f)
{
	free(f->bkind);
	free(f->bowner);
	free(f->bsymlink);
	free(f->inodes);
	free(f->dents);
	free(f->undo);
	free(f->copies);
	while (f->nr_patches)
		free(f->patches[--f->nr_patches].data);
	free(f->patches);
}

static int exit_status(struct fsck *f)
{
	int st = 0;

	if (f->cancelled)
		return FSCK_CANCELLED;
	if (f->operational)
		st |= FSCK_OPERATIONAL;
	if (f->fixed)
		st |= FSCK_CORRECTED;
	if (f->problems > f->fixed)
		st |= FSCK_UNCORRECTED;
	return st;
}

static void summary(struct fsck *f)
{
	const char *dev = f->dev->path;

	if (f->cancelled) {
		fprintf(f->o.out, "%s: check cancelled\n", dev);
		return;
	}
	if (f->operational)
		return;
	if (!f->problems && f->state_valid) {
		fprintf(f->o.out, "%s: clean, %llu inodes, %llu/%llu blocks used\n",
			dev, (unsigned long long)f->nr_inodes,
			(unsigned long long)(f->nblocks - f->free_blocks),
			(unsigned long long)f->nblocks);
		return;
	}
	if (!f->problems) {
		fprintf(f->o.out, "%s: no problems, %llu inodes, %llu blocks referenced of %llu%s\n",
			dev, (unsigned long long)f->nr_inodes,
			(unsigned long long)(f->meta_blocks + f->log_pages +
					     f->data_pages + f->nblocks -
					     (f->layout.alloc_end -
					      f->layout.alloc_start)),
			(unsigned long long)f->nblocks,
			f->clean ? "" : " (dirty: free space not checked)");
		return;
	}
	fprintf(f->o.out, "%s: %lu problem%s found, %lu repaired\n", dev,
		f->problems, f->problems == 1 ? "" : "s", f->fixed);
	if (f->problems > f->fixed) {
		unsigned long fixable = 0;
		int i;

		for (i = 0; i < REP_NR; i++)
			fixable += f->fixable[i];
		if (!fsck_can_repair(f) && fixable >= f->problems)
			fprintf(f->o.out, "%s: run fsck.NOVA -y to repair them\n", dev);
		else
			fprintf(f->o.out, "%s: UNEXPECTED INCONSISTENCY; the file system needs manual attention\n", dev);
	}
}

int fsck_run(struct nova_dev *dev, const struct fsck_opts *o)
{
	struct fsck f;
	struct nerr e;
	int st;

	memset(&f, 0, sizeof(f));
	f.dev = dev;
	f.o = *o;
	f.progress_last = -1;
	if (!f.o.out)
		f.o.out = stdout;

	if (ndev_map(dev, &e)) {
		fsck_oper(&f, "%s", e.msg);
		return FSCK_OPERATIONAL;
	}
	if (!fsck_check_super(&f))
		goto out;
	if (f.o.mode == FSCK_PREEN && f.clean && !f.o.force &&
	    f.primary_ok && f.replica_ok && !f.problems) {
		fprintf(f.o.out, "%s: clean (use -f to check anyway)\n",
			dev->path);
		goto out_quiet;
	}
	fsck_progress(&f, FSCK_PASS_META, 0, 1);
	if (!setup_maps(&f) || cancelled(&f))
		goto out;
	if (!fsck_check_journals(&f) || cancelled(&f))
		goto out;
	if (!fsck_check_tables(&f) || cancelled(&f))
		goto out;
	fsck_progress(&f, FSCK_PASS_META, 1, 1);
	if (!fsck_check_logs(&f) || cancelled(&f))
		goto out;
	fsck_progress(&f, FSCK_PASS_TREE, 0, 1);
	fsck_check_tree(&f);
	if (cancelled(&f))
		goto out;
	fsck_progress(&f, FSCK_PASS_TREE, 1, 1);
	fsck_check_space(&f);
	fsck_check_bitmap(&f);
	if (cancelled(&f))
		goto out;
	fsck_progress(&f, FSCK_PASS_SPACE, 1, 1);
	fsck_check_protection(&f);
	if (cancelled(&f))
		goto out;
	fsck_progress(&f, FSCK_PASS_PROT, 1, 1);
	if (f.problems && fsck_can_repair(&f))
		fsck_repair(&f);
out:
	progress_clear(&f);
	summary(&f);
out_quiet:
	st = exit_status(&f);
	free_all(&f);
	return st;
}
