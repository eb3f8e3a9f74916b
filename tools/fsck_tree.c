// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fsck.NOVA: the namespace. Every name must point at a live inode of the
 * type it says; every live inode must be reachable from the root; a
 * directory has exactly one name and its ".." is the directory holding
 * it; link counts are what the names imply (files: their names;
 * directories: 2 + subdirectories); readdir positions are unique in a
 * directory.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fsck.h"
#include "le.h"

#define DT_UNKNOWN_	0
#define DT_FIFO_	1
#define DT_CHR_		2
#define DT_DIR_		4
#define DT_BLK_		6
#define DT_REG_		8
#define DT_LNK_		10
#define DT_SOCK_	12

static unsigned int mode_dtype(uint16_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFIFO:	return DT_FIFO_;
	case S_IFCHR:	return DT_CHR_;
	case S_IFDIR:	return DT_DIR_;
	case S_IFBLK:	return DT_BLK_;
	case S_IFREG:	return DT_REG_;
	case S_IFLNK:	return DT_LNK_;
	case S_IFSOCK:	return DT_SOCK_;
	default:	return DT_UNKNOWN_;
	}
}

bool fsck_dent_add(struct fsck *f, const struct fsck_dent *d)
{
	if (f->nr_dents == f->cap_dents) {
		uint64_t cap = f->cap_dents ? f->cap_dents * 2 : 1024;
		struct fsck_dent *n = realloc(f->dents, cap * sizeof(*n));

		if (!n) {
			fsck_oper(f, "out of memory for %llu names",
				  (unsigned long long)f->nr_dents);
			return false;
		}
		f->dents = n;
		f->cap_dents = cap;
	}
	f->dents[f->nr_dents++] = *d;
	return true;
}

/* The name of @d, printable, for messages. */
static const char *dent_name(struct fsck *f, const struct fsck_dent *d)
{
	static char buf[4 * NOVA_NAME_LEN + 1];
	const unsigned char *s = fsck_ptr(f, d->entry_off +
		offsetof(struct nova_dentry_entry, de_name), d->name_len);
	char *o = buf;
	unsigned int i;

	if (!s)
		return "?";
	for (i = 0; i < d->name_len; i++) {
		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\')
			*o++ = (char)s[i];
		else
			o += sprintf(o, "\\x%02x", s[i]);
	}
	*o = 0;
	return buf;
}

static int cmp_dir_pos(const void *a, const void *b)
{
	const struct fsck_dent *x = a, *y = b;

	if (x->dir != y->dir)
		return x->dir < y->dir ? -1 : 1;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return 0;
}

/* First name of directory @dir in the (dir, pos)-sorted array. */
static uint64_t first_of(const struct fsck *f, uint64_t dir)
{
	uint64_t lo = 0, hi = f->nr_dents;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (f->dents[mid].dir < dir)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void check_names(struct fsck *f)
{
	uint64_t i;

	for (i = 0; i < f->nr_dents; i++) {
		const struct fsck_dent *d = &f->dents[i];
		struct fsck_inode *dir = fsck_inode_find(f, d->dir);
		struct fsck_inode *in = fsck_inode_find(f, d->ino);

		if (i && d->dir == d[-1].dir && d->pos == d[-1].pos)
			fsck_problem(f, "directory %llu: readdir position %llu used by two names ('%s')",
				     (unsigned long long)d->dir,
				     (unsigned long long)d->pos,
				     dent_name(f, d));
		if (d->ino < NOVA_FIRST_INO) {
			fsck_problem(f, "directory %llu: name '%s' points to reserved inode %llu",
				     (unsigned long long)d->dir, dent_name(f, d),
				     (unsigned long long)d->ino);
			continue;
		}
		if (!in) {
			fsck_problem(f, "directory %llu: name '%s' points to inode %llu, which is not in use (dangling)",
				     (unsigned long long)d->dir, dent_name(f, d),
				     (unsigned long long)d->ino);
			continue;
		}
		in->refs++;
		if (!in->bad && d->type != mode_dtype(in->mode))
			fsck_problem(f, "directory %llu: name '%s' says type %u, inode %llu has mode 0%o",
				     (unsigned long long)d->dir, dent_name(f, d),
				     d->type, (unsigned long long)d->ino,
				     in->mode);
		/* An unreadable directory still counts as a subdirectory. */
		if (in->bad ? d->type != DT_DIR_ : !S_ISDIR(in->mode))
			continue;
		dir->subdirs++;
		if (in->refs > 1)
			fsck_problem(f, "directory %llu has a second name '%s' in directory %llu",
				     (unsigned long long)d->ino, dent_name(f, d),
				     (unsigned long long)d->dir);
		else if (!in->bad && in->parent != d->dir)
			fsck_problem(f, "directory %llu: '..' is %llu, but it is in directory %llu as '%s'",
				     (unsigned long long)d->ino,
				     (unsigned long long)in->parent,
				     (unsigned long long)d->dir, dent_name(f, d));
	}
}

/* Mark everything reachable from the root (iterative, bounded). */
static void walk_from_root(struct fsck *f)
{
	uint64_t *stack, sp = 0, i;
	struct fsck_inode *root = fsck_inode_find(f, NOVA_ROOT_INO);

	if (!root)
		return;
	stack = malloc((f->nr_inodes + 1) * sizeof(*stack));
	if (!stack) {
		fsck_oper(f, "out of memory");
		return;
	}
	root->reached = true;
	stack[sp++] = NOVA_ROOT_INO;
	while (sp) {
		uint64_t dir = stack[--sp];

		for (i = first_of(f, dir); i < f->nr_dents &&
		     f->dents[i].dir == dir; i++) {
			struct fsck_inode *in = fsck_inode_find(f,
							f->dents[i].ino);

			if (!in || in->reached)
				continue;
			in->reached = true;
			if (S_ISDIR(in->mode) && !in->bad)
				stack[sp++] = in->ino;
		}
	}
	free(stack);
}

static void check_inodes(struct fsck *f)
{
	uint64_t i, bad_dirs = 0;

	/*
	 * A directory whose log cannot be read hides its names: its
	 * children would look orphaned and their link counts wrong.
	 */
	for (i = 0; i < f->cap_inodes; i++)
		if (f->inodes[i].ino && f->inodes[i].bad &&
		    S_ISDIR(f->inodes[i].mode))
			bad_dirs++;
	if (bad_dirs) {
		fsck_info(f, 0, "%llu director%s could not be read: link counts and reachability are not checked",
			  (unsigned long long)bad_dirs, bad_dirs == 1 ? "y" : "ies");
		return;
	}

	for (i = 0; i < f->cap_inodes; i++) {
		struct fsck_inode *in = &f->inodes[i];
		uint64_t want;

		if (!in->ino || (in->ino < NOVA_FIRST_INO && in->ino != NOVA_ROOT_INO))
			continue;
		if (!in->reached) {
			fsck_problem(f, "inode %llu (mode 0%o, %u links) is in use but in no directory reachable from the root",
				     (unsigned long long)in->ino, in->mode,
				     in->links);
			continue;
		}
		if (in->bad)
			continue;
		if (S_ISDIR(in->mode)) {
			want = 2 + (uint64_t)in->subdirs;
			if (in->ino == NOVA_ROOT_INO && in->parent != NOVA_ROOT_INO)
				fsck_problem(f, "root directory: '..' is %llu",
					     (unsigned long long)in->parent);
		} else {
			want = in->refs;
		}
		if (in->links != want)
			fsck_problem(f, "inode %llu: link count is %u, should be %llu",
				     (unsigned long long)in->ino, in->links,
				     (unsigned long long)want);
	}
}

void fsck_check_tree(struct fsck *f)
{
	struct fsck_inode *root = fsck_inode_find(f, NOVA_ROOT_INO);

	if (f->nr_dents)
		qsort(f->dents, f->nr_dents, sizeof(*f->dents), cmp_dir_pos);
	check_names(f);
	if (root && root->refs)
		fsck_problem(f, "the root directory has %u names in other directories",
			     root->refs);
	walk_from_root(f);
	check_inodes(f);
	fsck_info(f, 1, "namespace: %llu names", (unsigned long long)f->nr_dents);
}
