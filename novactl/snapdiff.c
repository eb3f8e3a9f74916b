// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novactl snapshot diff: what changed between two snapshots, or between a
 * snapshot and the live tree.
 *
 * Both trees are the file system as its logs say it was: a snapshot's
 * tree is its view ROOT/.snapshots/<name or id>/ (module/snapview.c),
 * where every inode is rebuilt by replaying its log up to the snapshot's
 * epoch; the live tree is the mount. Files are told apart by NOVA inode
 * number (the low 40 bits of a view inode's number; no number the older
 * snapshot shows can be reused while it lives) and a file counts as
 * modified when its ctime differs, which every log entry written for it
 * (data, setattr, link count, xattr) moves.
 *
 * Which inodes to look at comes from the kernel (NOVA_CMD_SNAPSHOT_DIFF,
 * module/snapdiff.c): the inodes whose logs have an entry of an epoch in
 * (OLD, NEW], and those only one side shows. Only the names are read of
 * the rest: the directories of both trees are listed (readdir, whose
 * entries carry inode number and type; a view directory is built to list
 * it, a file's view inode never), and only the inodes the kernel lists
 * and those whose names changed are stat'ed. An inode the kernel does not
 * list has no entry in the range, so its ctime is the same on both sides
 * and it is left out without a stat; one it lists whose ctime did not move
 * (a log GC rewrote after OLD) is dropped as before. Without the query
 * (no CAP_SYS_ADMIN, an older module) and with --walk every inode is
 * stat'ed, as the first version did.
 *
 *  - an inode only in OLD: "-" for each of its paths; only in NEW: "+";
 *    an inode number whose type changed: "-" and "+";
 *  - an inode with one link in each whose (parent inode, name) differ:
 *    "R old -> new", plus "M" if a file's mtime or a directory's entries
 *    (name, inode) differ too (a rename moves the ctime, and a directory
 *    moved to another parent also gets a new mtime from its ".." entry);
 *    other link changes: "-" / "+" for those links;
 *  - otherwise a changed ctime: "M" (for a directory: entries came, went
 *    or were renamed, or its attributes changed).
 * The contents of a renamed directory are not listed (their parent and
 * names are the same).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "novactl.h"

/* A view inode's number is 1 << 63 | id << 40 | ino (module/snapview.c). */
#define NOVA_INO_MASK	((1ULL << 40) - 1)
#define NOVA_SNAPDIR	".snapshots"

struct link {
	uint64_t ino;
	uint64_t parent;		/* 0: the root */
	char *name;
	char *path;			/* below the root, "/" first */
	mode_t mode;
	struct timespec ctim, mtim;	/* once stat'ed */
};

struct tree {
	const char *root;		/* the view or the mount point */
	bool full;			/* stat every entry (--walk) */
	struct link *v;
	size_t n, cap;
	struct link **by_parent;	/* v sorted by (parent, name) */
};

/* The kernel's answer, sorted by inode number. */
struct kset {
	struct nova_snapdiff_rec *v;
	size_t n;
};

struct change {
	char kind;			/* + - M R */
	char *path;
	char *old_path;			/* R only */
	mode_t mode;
};

struct changes {
	struct change *v;
	size_t n, cap;
};

static void diff_help(FILE *f)
{
	fprintf(f,
		"Usage: novactl snapshot diff [-j|--json] [-p|--pretty] PATH OLD [NEW]\n"
		"\n"
		"List the paths created (+), deleted (-), modified (M) and renamed\n"
		"(R old -> new) between snapshot OLD and snapshot NEW (ids or names)\n"
		"of the NOVA file system holding PATH, or the live tree without NEW.\n"
		"OLD must be older than NEW. The kernel names the inodes whose logs\n"
		"changed in between; the trees are read as the logs rebuild them under\n"
		".snapshots; file contents are not compared (an inode is modified when\n"
		"its change time moved).\n"
		"\n"
		"  -w, --walk     stat every inode of both trees instead of asking the\n"
		"                 kernel (the result is the same; also used without\n"
		"                 CAP_SYS_ADMIN)\n"
		"  -i, --inodes   print the kernel's answer: inode number, change\n"
		"                 (modified, created, removed) and type\n");
}

static int tree_add(struct tree *t, uint64_t ino, uint64_t parent,
		    const char *name, const char *path, mode_t mode,
		    const struct stat *st)
{
	struct link *l;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct link *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	l = &t->v[t->n];
	l->name = strdup(name);
	l->path = strdup(path);
	if (!l->name || !l->path) {
		free(l->name);
		free(l->path);
		return -ENOMEM;
	}
	l->ino = ino;
	l->parent = parent;
	l->mode = st ? st->st_mode : mode;
	memset(&l->ctim, 0, sizeof(l->ctim));
	memset(&l->mtim, 0, sizeof(l->mtim));
	if (st) {
		l->ctim = st->st_ctim;
		l->mtim = st->st_mtim;
	}
	t->n++;
	return 0;
}

static void tree_free(struct tree *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].path);
	}
	free(t->v);
	free(t->by_parent);
}

/* The file type readdir gave, as st_mode bits; 0 if it gave none. */
static mode_t dt_mode(unsigned char type)
{
	switch (type) {
	case DT_REG:
		return S_IFREG;
	case DT_DIR:
		return S_IFDIR;
	case DT_LNK:
		return S_IFLNK;
	case DT_CHR:
		return S_IFCHR;
	case DT_BLK:
		return S_IFBLK;
	case DT_FIFO:
		return S_IFIFO;
	case DT_SOCK:
		return S_IFSOCK;
	default:
		return 0;
	}
}

/*
 * Add the entries of directory DIR (inode DINO, shown as REL) and below to
 * T: name, inode number and type from readdir (every entry stat'ed with
 * T->full). LIVE_ROOT: DIR is the live root, whose .snapshots is skipped.
 */
static int walk(struct tree *t, const char *dir, const char *rel,
		uint64_t dino, bool live_root, char *err, size_t errlen)
{
	char sub[PATH_MAX], srel[PATH_MAX];
	struct dirent *de;
	struct stat st;
	uint64_t ino;
	int ret = 0;
	mode_t mode;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	while (!ret && (errno = 0, de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (live_root && !strcmp(de->d_name, NOVA_SNAPDIR))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name) >=
		    (int)sizeof(sub) ||
		    snprintf(srel, sizeof(srel), "%s/%s", rel, de->d_name) >=
		    (int)sizeof(srel)) {
			snprintf(err, errlen, "%s/%s: path too long", dir,
				 de->d_name);
			ret = -ENAMETOOLONG;
			break;
		}
		mode = dt_mode(de->d_type);
		if (t->full || !mode) {
			if (lstat(sub, &st)) {
				snprintf(err, errlen, "%s: %s", sub,
					 strerror(errno));
				ret = -errno;
				break;
			}
			ino = (uint64_t)st.st_ino & NOVA_INO_MASK;
			mode = st.st_mode;
		} else {
			ino = (uint64_t)de->d_ino & NOVA_INO_MASK;
		}
		ret = tree_add(t, ino, dino, de->d_name, srel, mode,
			       t->full ? &st : NULL);
		if (!ret && S_ISDIR(mode))
			ret = walk(t, sub, srel, ino, false, err, errlen);
	}
	if (!ret && errno) {
		snprintf(err, errlen, "%s: readdir: %s", dir, strerror(errno));
		ret = -errno;
	}
	closedir(d);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return ret;
}

static int tree_load(struct tree *t, const char *root, bool live, char *err,
		     size_t errlen)
{
	struct stat st;
	int ret;

	t->root = root;
	if (lstat(root, &st)) {
		snprintf(err, errlen, "%s: %s", root, strerror(errno));
		return -errno;
	}
	ret = tree_add(t, (uint64_t)st.st_ino & NOVA_INO_MASK, 0, "", "/",
		       st.st_mode, &st);
	if (ret) {
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	return walk(t, root, "", (uint64_t)st.st_ino & NOVA_INO_MASK, live,
		    err, errlen);
}

static int by_ino(const void *a, const void *b)
{
	const struct link *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return strcmp(x->name, y->name);
}

static bool ts_eq(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

static int by_parent(const void *a, const void *b)
{
	const struct link *x = *(const struct link * const *)a;
	const struct link *y = *(const struct link * const *)b;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int index_parents(struct tree *t)
{
	size_t i;

	t->by_parent = malloc((t->n ? t->n : 1) * sizeof(*t->by_parent));
	if (!t->by_parent)
		return -ENOMEM;
	for (i = 0; i < t->n; i++)
		t->by_parent[i] = &t->v[i];
	qsort(t->by_parent, t->n, sizeof(*t->by_parent), by_parent);
	return 0;
}

/* The entries of directory DIR in T: *N of them from the returned one. */
static struct link **children(const struct tree *t, uint64_t dir, size_t *n)
{
	size_t lo = 0, hi = t->n, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->by_parent[mid]->parent < dir)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < t->n && t->by_parent[end]->parent == dir; end++)
		;
	*n = end - lo;
	return t->by_parent + lo;
}

/* Do directory DIR's entries (name, inode) differ between O and N? */
static bool entries_differ(const struct tree *o, const struct tree *n,
			   uint64_t dir)
{
	struct link **a, **b;
	size_t na, nb, i;

	a = children(o, dir, &na);
	b = children(n, dir, &nb);
	if (na != nb)
		return true;
	for (i = 0; i < na; i++)
		if (a[i]->ino != b[i]->ino || strcmp(a[i]->name, b[i]->name))
			return true;
	return false;
}

static bool same_link(const struct link *a, const struct link *b)
{
	return a->parent == b->parent && !strcmp(a->name, b->name);
}

static int add_change(struct changes *cs, char kind, const char *path,
		      const char *old_path, mode_t mode)
{
	struct change *c;

	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? cs->cap * 2 : 64;
		struct change *v = realloc(cs->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		cs->v = v;
		cs->cap = cap;
	}
	c = &cs->v[cs->n++];
	c->kind = kind;
	c->path = (char *)path;
	c->old_path = (char *)old_path;
	c->mode = mode;
	return 0;
}

static bool has_link(const struct link *v, size_t n, const struct link *l)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (same_link(&v[i], l))
			return true;
	return false;
}

/*
 * One inode: OLD's links A[0..na), NEW's B[0..nb) (either may be empty);
 * TO and TN: the trees, for a renamed directory's entries.
 */
static int diff_ino(struct changes *cs, const struct tree *to,
		    const struct tree *tn, const struct link *a, size_t na,
		    const struct link *b, size_t nb)
{
	bool changed;

	size_t i, gone = 0, came = 0;
	const struct link *g = NULL, *c = NULL;
	int ret = 0;

	if (na && nb && (a->mode & S_IFMT) != (b->mode & S_IFMT)) {
		for (i = 0; !ret && i < na; i++)
			ret = add_change(cs, '-', a[i].path, NULL, a[i].mode);
		for (i = 0; !ret && i < nb; i++)
			ret = add_change(cs, '+', b[i].path, NULL, b[i].mode);
		return ret;
	}
	for (i = 0; i < na; i++)
		if (!has_link(b, nb, &a[i])) {
			gone++;
			g = &a[i];
		}
	for (i = 0; i < nb; i++)
		if (!has_link(a, na, &b[i])) {
			came++;
			c = &b[i];
		}
	if (na && nb && gone == 1 && came == 1) {
		ret = add_change(cs, 'R', c->path, g->path, c->mode);
		changed = S_ISDIR(c->mode) ? entries_differ(to, tn, c->ino) :
			  !ts_eq(a->mtim, b->mtim);
		if (!ret && changed)
			ret = add_change(cs, 'M', c->path, NULL, c->mode);
		return ret;
	}
	for (i = 0; !ret && i < na; i++)
		if (!has_link(b, nb, &a[i]))
			ret = add_change(cs, '-', a[i].path, NULL, a[i].mode);
	for (i = 0; !ret && i < nb; i++)
		if (!has_link(a, na, &b[i]))
			ret = add_change(cs, '+', b[i].path, NULL, b[i].mode);
	if (ret || !na || !nb || ts_eq(a->ctim, b->ctim))
		return ret;
	/* Modified: under a link both trees have, else any NEW link. */
	for (i = 0; i < nb; i++)
		if (has_link(a, na, &b[i]))
			return add_change(cs, 'M', b[i].path, NULL, b[i].mode);
	return add_change(cs, 'M', b->path, NULL, b->mode);
}

static int by_path(const void *x, const void *y)
{
	const struct change *a = x, *b = y;
	int r = strcmp(a->path, b->path);

	if (r)
		return r;
	return a->kind - b->kind;
}

static bool same_links(const struct link *a, size_t na, const struct link *b,
		       size_t nb)
{
	size_t i;

	if (na != nb)
		return false;
	for (i = 0; i < na; i++)
		if (!has_link(b, nb, &a[i]))
			return false;
	return true;
}

static int by_rec_ino(const void *a, const void *b)
{
	const struct nova_snapdiff_rec *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return 0;
}

static bool kset_has(const struct kset *k, uint64_t ino)
{
	struct nova_snapdiff_rec key = { .ino = ino };

	return bsearch(&key, k->v, k->n, sizeof(*k->v), by_rec_ino);
}

/* Stat the links L[0..n) of one inode in T (not done by the walk). */
static int stat_links(const struct tree *t, struct link *l, size_t n,
		      char *err, size_t errlen)
{
	char p[PATH_MAX];
	struct stat st;
	size_t i;

	if (t->full || !n)
		return 0;
	if (snprintf(p, sizeof(p), "%s%s", t->root,
		     strcmp(l->path, "/") ? l->path : "") >= (int)sizeof(p)) {
		snprintf(err, errlen, "%s%s: path too long", t->root, l->path);
		return -ENAMETOOLONG;
	}
	if (lstat(p, &st)) {
		snprintf(err, errlen, "%s: %s", p, strerror(errno));
		return -errno;
	}
	for (i = 0; i < n; i++) {
		l[i].mode = st.st_mode;
		l[i].ctim = st.st_ctim;
		l[i].mtim = st.st_mtim;
	}
	return 0;
}

/*
 * K: the kernel's answer, or NULL when every inode was stat'ed. With it an
 * inode it does not list whose names are the same on both sides is
 * unchanged (no log entry in the range, so the same ctime); the others are
 * stat'ed and compared as without it.
 */
static int diff_trees(struct tree *o, struct tree *n, const struct kset *k,
		      struct changes *cs, char *err, size_t errlen)
{
	size_t i = 0, j = 0, i2, j2;
	int ret = 0;

	qsort(o->v, o->n, sizeof(*o->v), by_ino);
	qsort(n->v, n->n, sizeof(*n->v), by_ino);
	if (index_parents(o) || index_parents(n))
		return -ENOMEM;
	while (!ret && (i < o->n || j < n->n)) {
		uint64_t ino;

		if (j >= n->n || (i < o->n && o->v[i].ino < n->v[j].ino))
			ino = o->v[i].ino;
		else
			ino = n->v[j].ino;
		for (i2 = i; i2 < o->n && o->v[i2].ino == ino; i2++)
			;
		for (j2 = j; j2 < n->n && n->v[j2].ino == ino; j2++)
			;
		if (k && !kset_has(k, ino) &&
		    same_links(o->v + i, i2 - i, n->v + j, j2 - j)) {
			i = i2;
			j = j2;
			continue;
		}
		ret = stat_links(o, o->v + i, i2 - i, err, errlen);
		if (!ret)
			ret = stat_links(n, n->v + j, j2 - j, err, errlen);
		if (!ret)
			ret = diff_ino(cs, o, n, o->v + i, i2 - i, n->v + j,
				       j2 - j);
		else if (ret == -ENOENT)
			/* Gone from the live tree since the walk: skip it. */
			ret = 0;
		i = i2;
		j = j2;
	}
	if (!ret)
		qsort(cs->v, cs->n, sizeof(*cs->v), by_path);
	return ret;
}

static const char *type_of(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG:
		return "file";
	case S_IFDIR:
		return "directory";
	case S_IFLNK:
		return "symlink";
	default:
		return "other";
	}
}

static const char *kind_of(char k)
{
	switch (k) {
	case '+':
		return "created";
	case '-':
		return "deleted";
	case 'R':
		return "renamed";
	default:
		return "modified";
	}
}

/* The view of snapshot SN under one of MNTS, or NULL; ROOT gets the mount. */
static bool find_view(char **mnts, size_t n, const struct nova_snapshot_rec *sn,
		      char *view, const char **root)
{
	char id[32];
	struct stat st;
	size_t i;
	int len;

	snprintf(id, sizeof(id), "%llu", (unsigned long long)sn->snap_id);
	for (i = 0; i < n; i++) {
		len = snprintf(view, PATH_MAX, "%s/" NOVA_SNAPDIR "/%s",
			       mnts[i], sn->name[0] ? sn->name : id);
		if (len > 0 && len < PATH_MAX && !stat(view, &st) &&
		    S_ISDIR(st.st_mode)) {
			*root = mnts[i];
			return true;
		}
	}
	return false;
}

static void print_changes(struct nctl *c, const struct changes *cs,
			  const char *mnt, const struct nova_snapshot_rec *old,
			  const struct nova_snapshot_rec *new)
{
	struct json_object *doc, *a, *o;
	size_t i;

	if (!c->json) {
		for (i = 0; i < cs->n; i++) {
			const struct change *x = &cs->v[i];
			const char *sep = strcmp(mnt, "/") ? mnt : "";

			if (x->kind == 'R')
				printf("R\t%s%s -> %s%s\n", sep, x->old_path,
				       sep, x->path);
			else
				printf("%c\t%s%s\n", x->kind, sep, x->path);
		}
		return;
	}
	doc = nctl_json_doc();
	json_object_object_add(doc, "filesystem", nctl_json_fs_id(&old->id));
	json_object_object_add(doc, "mountpoint", json_object_new_string(mnt));
	json_object_object_add(doc, "old", nctl_json_snapshot(old));
	json_object_object_add(doc, "new", new ? nctl_json_snapshot(new) :
			       json_object_new_string("live"));
	a = json_object_new_array();
	for (i = 0; i < cs->n; i++) {
		const struct change *x = &cs->v[i];

		o = json_object_new_object();
		json_object_object_add(o, "change",
				       json_object_new_string(kind_of(x->kind)));
		json_object_object_add(o, "type",
				       json_object_new_string(type_of(x->mode)));
		json_object_object_add(o, "path",
				       json_object_new_string(x->path));
		if (x->old_path)
			json_object_object_add(o, "old_path",
					       json_object_new_string(x->old_path));
		json_object_array_add(a, o);
	}
	json_object_object_add(doc, "changes", a);
	nctl_json_print(c, doc);
	json_object_put(doc);
}

static const char *change_of(uint32_t ch)
{
	switch (ch) {
	case NOVA_SNAPDIFF_CREATED:
		return "created";
	case NOVA_SNAPDIFF_REMOVED:
		return "removed";
	default:
		return "modified";
	}
}

/* --inodes: the kernel's answer as it is. */
static void print_kset(struct nctl *c, const struct kset *k,
		       const struct nova_snapshot_rec *old,
		       const struct nova_snapshot_rec *new)
{
	struct json_object *doc, *a, *o;
	size_t i;

	if (!c->json) {
		for (i = 0; i < k->n; i++)
			printf("%llu\t%s\t%s\n",
			       (unsigned long long)k->v[i].ino,
			       change_of(k->v[i].change),
			       type_of(k->v[i].mode));
		return;
	}
	doc = nctl_json_doc();
	json_object_object_add(doc, "filesystem", nctl_json_fs_id(&old->id));
	json_object_object_add(doc, "old", nctl_json_snapshot(old));
	json_object_object_add(doc, "new", new ? nctl_json_snapshot(new) :
			       json_object_new_string("live"));
	a = json_object_new_array();
	for (i = 0; i < k->n; i++) {
		o = json_object_new_object();
		json_object_object_add(o, "ino",
				       json_object_new_uint64(k->v[i].ino));
		json_object_object_add(o, "change",
				       json_object_new_string(change_of(k->v[i].change)));
		json_object_object_add(o, "type",
				       json_object_new_string(type_of(k->v[i].mode)));
		json_object_array_add(a, o);
	}
	json_object_object_add(doc, "inodes", a);
	nctl_json_print(c, doc);
	json_object_put(doc);
}

int nctl_snapshot_diff(struct nctl *c, int argc, char **argv)
{
	static const struct option opts[] = {
		NCTL_COMMON_OPTS,
		{ "walk", no_argument, NULL, 'w' },
		{ "inodes", no_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	char vold[PATH_MAX], vnew[PATH_MAX], err[PATH_MAX + 64];
	struct nova_snapshot_rec old, new;
	struct tree to = { 0 }, tn = { 0 };
	struct changes cs = { 0 };
	char *mnts[NCTL_MAX_MNTS];
	const char *root, *root2;
	bool live, walk_all = false, inodes = false;
	struct kset k = { 0 };
	struct nova_ipc *ipc;
	struct nova_sel sel;
	struct nova_err e;
	size_t n_mnts = 0;
	int opt, r;

	nctl_getopt_reset();
	while ((opt = getopt_long(argc, argv, NCTL_COMMON_SHORT "wi", opts,
				  NULL)) != -1) {
		if (nctl_common_opt(c, opt))
			continue;
		if (opt == 'h') {
			diff_help(stdout);
			return NCTL_EXIT_OK;
		}
		if (opt == 'w') {
			walk_all = true;
			continue;
		}
		if (opt == 'i') {
			inodes = true;
			continue;
		}
		if (opt == ':')
			return nctl_usage_error(c, "snapshot diff: option '%s' needs an argument",
						argv[optind - 1]);
		return nctl_usage_error(c, "snapshot diff: unknown option '%s'",
					argv[optind - 1]);
	}
	if (argc - optind != 2 && argc - optind != 3)
		return nctl_usage_error(c, "snapshot diff: need PATH, OLD and optionally NEW");
	if (walk_all && inodes)
		return nctl_usage_error(c, "snapshot diff: --walk and --inodes exclude each other");
	live = argc - optind == 2;
	if (nova_sel_parse(argv[optind], &sel, &e))
		return nctl_error_nova(c, &e);
	r = nctl_ipc_open(c, &ipc);
	if (r)
		return r;
	r = nctl_snapshot_find(c, ipc, &sel, argv[optind + 1], &old);
	if (!r && !live)
		r = nctl_snapshot_find(c, ipc, &sel, argv[optind + 2], &new);
	if (!r && !live && new.epoch <= old.epoch) {
		nova_ipc_close(ipc);
		return nctl_usage_error(c, "snapshot diff: OLD (%s, epoch %llu) must be older than NEW (%s, epoch %llu)",
					argv[optind + 1],
					(unsigned long long)old.epoch,
					argv[optind + 2],
					(unsigned long long)new.epoch);
	}
	if (!r && !walk_all) {
		r = nova_req_snapshot_diff(ipc, &sel, old.snap_id,
					   live ? 0 : new.snap_id, &k.v, &k.n,
					   &e);
		/*
		 * The query needs CAP_SYS_ADMIN and a module that has it;
		 * without, the trees are walked whole (same result).
		 */
		if (!inodes && (r == -EPERM || r == -EOPNOTSUPP)) {
			walk_all = true;
			r = 0;
		} else if (r) {
			r = nctl_error_nova(c, &e);
		} else {
			qsort(k.v, k.n, sizeof(*k.v), by_rec_ino);
		}
	}
	nova_ipc_close(ipc);
	if (r)
		return r;
	if (inodes) {
		print_kset(c, &k, &old, live ? NULL : &new);
		free(k.v);
		return NCTL_EXIT_OK;
	}
	n_mnts = nctl_mnts(old.id.dev, mnts);
	if (!find_view(mnts, n_mnts, &old, vold, &root) ||
	    (!live && !find_view(mnts, n_mnts, &new, vnew, &root2))) {
		r = nctl_error(c, NCTL_EXIT_FAIL, -ENOENT,
			       "no read-write mount of the file system shows its .snapshots");
		goto out;
	}
	to.full = walk_all;
	tn.full = walk_all;
	r = tree_load(&to, vold, false, err, sizeof(err));
	if (!r)
		r = tree_load(&tn, live ? root : vnew, live, err, sizeof(err));
	if (!r)
		r = diff_trees(&to, &tn, walk_all ? NULL : &k, &cs, err,
			       sizeof(err));
	if (r) {
		r = nctl_error(c, NCTL_EXIT_FAIL, r, "%s",
			       r == -ENOMEM ? "out of memory" : err);
		goto out;
	}
	print_changes(c, &cs, root, &old, live ? NULL : &new);
	r = NCTL_EXIT_OK;
out:
	free(k.v);
	free(cs.v);
	tree_free(&to);
	tree_free(&tn);
	nctl_mnts_free(mnts, n_mnts);
	return r;
}
