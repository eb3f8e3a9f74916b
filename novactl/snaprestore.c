// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novactl snapshot restore: copy files or trees back out of the read-only
 * view of a snapshot, ROOT/.snapshots/<name or id>/ (module/snapview.c).
 *
 * FILE is a path in the file system: absolute (under a mount point of it)
 * or relative to its root. Without --to, each FILE goes back to its own
 * place: a file, symlink or a directory that is not there any more is
 * copied to a temporary name in the same directory, then renamed over
 * the place, so a reader sees the old or the restored object, never a
 * part; a directory that is there is merged into (each entry restored so,
 * entries created since the snapshot are kept, the directory's own
 * attributes set last). With --to DEST the copies go to DEST (into it,
 * under the FILE's name, if it is a directory), which may be on another
 * file system.
 *
 * Kept: contents (holes stay holes), mode, owner (when root), atime and
 * mtime, every xattr listxattr shows (user.*, trusted.* as root,
 * security.*, system.posix_acl_*), symlinks as symlinks, FIFOs and device
 * nodes. Hard links come back as separate files. An xattr the destination
 * does not take is a warning, not a failure.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "novactl.h"

#define COPY_BUF	(1U << 20)
#define HOLE_BLOCK	4096U
#define XATTR_LIST_MAX_	65536
#define XATTR_SIZE_MAX_	65536

struct restore {
	struct nctl *c;
	char *buf;			/* COPY_BUF bytes */
	char *xl, *xv;			/* xattr list and value buffers */
	unsigned long tmp_seq;
	uint64_t files, dirs, symlinks, other, bytes;
	struct json_object *warnings;	/* strings */
	char err[PATH_MAX + 256];	/* the failure, once there is one */
};

static void restore_help(FILE *f)
{
	fprintf(f,
		"Usage: novactl snapshot restore [-j|--json] [-p|--pretty] [-t|--to DEST]\n"
		"                                PATH ID|NAME FILE...\n"
		"\n"
		"Copy FILEs (files, symlinks or whole directory trees) back out of a\n"
		"snapshot of the NOVA file system holding PATH (its mount point or any\n"
		"path in it), by snapshot id or name. FILE is a path in the file\n"
		"system, absolute (under its mount point) or relative to its root.\n"
		"\n"
		"Without --to, each FILE goes back to its place in the live tree: a\n"
		"file or symlink is copied to a temporary name beside it and renamed\n"
		"over it; an existing directory is merged into (entries created since\n"
		"the snapshot stay). With --to, the copies go to DEST, or into DEST\n"
		"under their own names if it is a directory (needed for several FILEs).\n"
		"Mode, owner (as root), times, xattrs and ACLs are kept.\n");
}

static int fail(struct restore *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct restore *r, int err, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	n = strlen(r->err);
	if (err && n < sizeof(r->err))
		snprintf(r->err + n, sizeof(r->err) - n, ": %s", strerror(err));
	return -(err ? err : EIO);
}

static void warn(struct restore *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct restore *r, const char *fmt, ...)
{
	char msg[PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!r->c->json)
		fprintf(stderr, "Warning: %s\n", msg);
	json_object_array_add(r->warnings, json_object_new_string(msg));
}

static int join(char *out, const char *dir, const char *name)
{
	int n;

	if (!*name)
		n = snprintf(out, PATH_MAX, "%s", dir);
	else
		n = snprintf(out, PATH_MAX, "%s/%s", dir, name);
	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

/* Names in the xattr list of PATH, NUL separated; length or -errno. */
static ssize_t list_xattrs(const char *path, char *buf)
{
	ssize_t n = llistxattr(path, buf, XATTR_LIST_MAX_);

	if (n < 0 && (errno == ENOTSUP || errno == EOPNOTSUPP))
		return 0;
	return n < 0 ? -errno : n;
}

static bool in_list(const char *list, ssize_t len, const char *name)
{
	const char *p;

	for (p = list; p < list + len; p += strlen(p) + 1)
		if (!strcmp(p, name))
			return true;
	return false;
}

/*
 * Give DST exactly the xattrs of SRC: set each of SRC's; with PRUNE (a
 * directory that was there), remove those SRC does not have.
 */
static int copy_xattrs(struct restore *r, const char *src, const char *dst,
		       bool prune)
{
	ssize_t len, dlen, vlen;
	char *dl = NULL;
	const char *p;

	len = list_xattrs(src, r->xl);
	if (len < 0)
		return fail(r, (int)-len, "%s: listing xattrs", src);
	for (p = r->xl; p < r->xl + len; p += strlen(p) + 1) {
		vlen = lgetxattr(src, p, r->xv, XATTR_SIZE_MAX_);
		/* Listed but not readable: an ACL on a kernel whose views lack ->get_acl. */
		if (vlen < 0 && (errno == ENODATA || errno == EOPNOTSUPP)) {
			warn(r, "%s: xattr %s not readable: %s", src, p,
			     strerror(errno));
			continue;
		}
		if (vlen < 0)
			return fail(r, errno, "%s: reading xattr %s", src, p);
		if (lsetxattr(dst, p, r->xv, (size_t)vlen, 0))
			warn(r, "%s: xattr %s not kept: %s", dst, p,
			     strerror(errno));
	}
	if (!prune)
		return 0;
	dl = malloc(XATTR_LIST_MAX_);
	if (!dl)
		return fail(r, ENOMEM, "%s", dst);
	dlen = list_xattrs(dst, dl);
	for (p = dl; dlen > 0 && p < dl + dlen; p += strlen(p) + 1)
		if (!in_list(r->xl, len, p) && lremovexattr(dst, p))
			warn(r, "%s: xattr %s not removed: %s", dst, p,
			     strerror(errno));
	free(dl);
	return 0;
}

/* Owner, xattrs, mode and times of SRC (stat ST) onto DST, in that order. */
static int copy_meta(struct restore *r, const char *src, const struct stat *st,
		     const char *dst, bool prune)
{
	struct timespec ts[2] = { st->st_atim, st->st_mtim };
	int ret;

	/* Only root can give files away; others keep their own (cp -p). */
	if (lchown(dst, st->st_uid, st->st_gid) &&
	    (errno != EPERM || geteuid() == 0))
		return fail(r, errno, "%s: chown", dst);
	ret = copy_xattrs(r, src, dst, prune);
	if (ret)
		return ret;
	if (!S_ISLNK(st->st_mode) && chmod(dst, st->st_mode & 07777))
		return fail(r, errno, "%s: chmod", dst);
	if (utimensat(AT_FDCWD, dst, ts, AT_SYMLINK_NOFOLLOW))
		return fail(r, errno, "%s: setting times", dst);
	return 0;
}

static bool all_zero(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* Contents of SRC into the new file DST; blocks of zeros become holes. */
static int copy_data(struct restore *r, const char *src, const char *dst)
{
	int in, out, ret = 0;
	off_t off = 0;
	ssize_t n, done, b;

	in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0)
		return fail(r, errno, "%s", src);
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		   0600);
	if (out < 0) {
		ret = fail(r, errno, "%s", dst);
		close(in);
		return ret;
	}
	for (;;) {
		n = read(in, r->buf, COPY_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = fail(r, errno, "%s: read", src);
			goto out;
		}
		if (!n)
			break;
		for (done = 0; done < n; done += b) {
			b = n - done < HOLE_BLOCK ? n - done : HOLE_BLOCK;
			if (all_zero(r->buf + done, (size_t)b))
				continue;
			if (pwrite(out, r->buf + done, (size_t)b,
				   off + done) != b) {
				ret = fail(r, errno ? errno : EIO, "%s: write",
					   dst);
				goto out;
			}
		}
		off += n;
	}
	if (ftruncate(out, off)) {
		ret = fail(r, errno, "%s: truncate", dst);
		goto out;
	}
	if (fsync(out))
		ret = fail(r, errno, "%s: fsync", dst);
	r->bytes += (uint64_t)off;
out:
	close(out);
	close(in);
	return ret;
}

/* Remove what a failed copy left at PATH (a file or a tree). */
static void remove_tree(const char *path)
{
	char sub[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (lstat(path, &st))
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	d = opendir(path);
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!join(sub, path, de->d_name))
			remove_tree(sub);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

/* Call @fn(r, SRC/name, DST/name) for each entry of directory SRC. */
static int each_child(struct restore *r, const char *src, const char *dst,
		      int (*fn)(struct restore *, const char *, const char *))
{
	char s2[PATH_MAX], d2[PATH_MAX];
	struct dirent *de;
	int ret = 0;
	DIR *d;

	d = opendir(src);
	if (!d)
		return fail(r, errno, "%s", src);
	while (!ret && (errno = 0, de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (join(s2, src, de->d_name) || join(d2, dst, de->d_name))
			ret = fail(r, ENAMETOOLONG, "%s", src);
		else
			ret = fn(r, s2, d2);
	}
	if (!ret && errno)
		ret = fail(r, errno, "%s: readdir", src);
	closedir(d);
	return ret;
}

/* Copy SRC (a view path) to DST, which does not exist. */
static int copy_new(struct restore *r, const char *src, const char *dst)
{
	struct stat st;
	ssize_t n;
	int ret = 0;

	if (lstat(src, &st))
		return fail(r, errno, "%s", src);
	switch (st.st_mode & S_IFMT) {
	case S_IFREG:
		ret = copy_data(r, src, dst);
		r->files++;
		break;
	case S_IFLNK:
		n = readlink(src, r->buf, PATH_MAX);
		if (n < 0)
			return fail(r, errno, "%s: readlink", src);
		r->buf[n] = '\0';
		if (symlink(r->buf, dst))
			return fail(r, errno, "%s: symlink", dst);
		r->symlinks++;
		break;
	case S_IFDIR:
		if (mkdir(dst, 0700))
			return fail(r, errno, "%s: mkdir", dst);
		r->dirs++;
		ret = each_child(r, src, dst, copy_new);
		break;
	case S_IFIFO:
	case S_IFCHR:
	case S_IFBLK:
		if (mknod(dst, st.st_mode, st.st_rdev))
			return fail(r, errno, "%s: mknod", dst);
		r->other++;
		break;
	default:
		warn(r, "%s: socket not restored", src);
		return 0;
	}
	if (ret)
		return ret;
	return copy_meta(r, src, &st, dst, false);
}

static const char *type_name(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISLNK(m))
		return "a symlink";
	if (S_ISREG(m))
		return "a file";
	return "a special file";
}

/*
 * Restore SRC to DST: copy to a temporary name beside DST and rename it
 * over DST, or merge into DST if both are directories.
 */
static int restore_one(struct restore *r, const char *src, const char *dst)
{
	char tmp[PATH_MAX];
	struct stat st, dt;
	const char *slash;
	int ret = 0, n;

	if (lstat(src, &st))
		return fail(r, errno, "%s", src);
	if (lstat(dst, &dt)) {
		if (errno != ENOENT)
			return fail(r, errno, "%s", dst);
		dt.st_mode = 0;
	}
	if (S_ISDIR(st.st_mode) && S_ISDIR(dt.st_mode)) {
		r->dirs++;
		ret = each_child(r, src, dst, restore_one);
		return ret ? ret : copy_meta(r, src, &st, dst, true);
	}
	if (dt.st_mode && (S_ISDIR(st.st_mode) || S_ISDIR(dt.st_mode))) {
		fail(r, 0, "%s is %s, the snapshot has %s there; move it away first",
		     dst, type_name(dt.st_mode), type_name(st.st_mode));
		return -EEXIST;
	}
	slash = strrchr(dst, '/');
	n = snprintf(tmp, sizeof(tmp), "%.*s.nova-restore.%ld.%lu",
		     slash ? (int)(slash - dst + 1) : 0, dst, (long)getpid(),
		     r->tmp_seq++);
	if (n < 0 || n >= (int)sizeof(tmp))
		return fail(r, ENAMETOOLONG, "%s", dst);
	ret = copy_new(r, src, tmp);
	if (!ret && rename(tmp, dst))
		ret = fail(r, errno, "%s: rename from %s", dst, tmp);
	if (ret)
		remove_tree(tmp);
	return ret;
}

/*
 * FILE -> its path below the root ("" for the root), without "." parts
 * and repeated slashes. An absolute FILE must be under one of the MNTS.
 * "..": refused (it could leave the snapshot).
 */
static int rel_path(const char *file, char **mnts, size_t n_mnts,
		    char *out, size_t len)
{
	const char *p = file, *q;
	size_t i, o = 0, l;

	if (*file == '/') {
		for (i = 0; i < n_mnts; i++) {
			l = strlen(mnts[i]);
			while (l && mnts[i][l - 1] == '/')
				l--;
			if (!strncmp(file, mnts[i], l) &&
			    (file[l] == '/' || !file[l]))
				break;
		}
		if (i == n_mnts)
			return -EXDEV;
		p = file + l;
	}
	out[0] = '\0';
	while (*p) {
		while (*p == '/')
			p++;
		q = p + strcspn(p, "/");
		if (q - p == 2 && !strncmp(p, "..", 2))
			return -EINVAL;
		if (q > p && !(q - p == 1 && *p == '.')) {
			if (o + (size_t)(q - p) + 2 > len)
				return -ENAMETOOLONG;
			if (o)
				out[o++] = '/';
			memcpy(out + o, p, (size_t)(q - p));
			o += (size_t)(q - p);
			out[o] = '\0';
		}
		p = q;
	}
	return 0;
}

int nctl_snapshot_find(struct nctl *c, struct nova_ipc *ipc,
		       const struct nova_sel *sel, const char *which,
		       struct nova_snapshot_rec *sn)
{
	struct nova_snapshot_rec *list = NULL;
	uint64_t id = 0;
	struct nova_err e;
	size_t n = 0, i;
	bool by_id;

	by_id = which[strspn(which, "0123456789")] == '\0';
	if (by_id && (nctl_parse_uint(which, UINT64_MAX, &id) || !id))
		return nctl_usage_error(c, "bad snapshot id '%s'", which);
	if (nova_req_snapshot_list(ipc, sel, &list, &n, &e)) {
		if (e.from_kernel)
			return nctl_error(c, NCTL_EXIT_FAIL, e.err, "%s",
					  e.msg);
		return nctl_error_nova(c, &e);
	}
	for (i = 0; i < n; i++)
		if (by_id ? list[i].snap_id == id : !strcmp(list[i].name, which))
			break;
	if (i == n) {
		free(list);
		return nctl_error(c, NCTL_EXIT_FAIL, -ENOENT,
				  "%s: no live snapshot matches", which);
	}
	*sn = list[i];
	free(list);
	return 0;
}

/* The mount point among MNTS whose .snapshots shows DIR, or NULL. */
static const char *view_root(char **mnts, size_t n, const char *dir,
			     char *view)
{
	struct stat st;
	size_t i;
	int len;

	for (i = 0; i < n; i++) {
		len = snprintf(view, PATH_MAX, "%s/.snapshots/%s", mnts[i],
			       dir);
		if (len > 0 && len < PATH_MAX && !stat(view, &st) &&
		    S_ISDIR(st.st_mode))
			return mnts[i];
	}
	return NULL;
}

static const char *base_name(const char *rel, const char *dflt)
{
	const char *s = strrchr(rel, '/');

	if (!*rel)
		return dflt;
	return s ? s + 1 : rel;
}

/* Is the directory PATH goes into there? ("/" for the root: yes.) */
static bool parent_is_dir(const char *path)
{
	char dir[PATH_MAX];
	const char *s = strrchr(path, '/');
	struct stat st;

	if (!s)
		return true;
	if (s == path)
		return true;
	snprintf(dir, sizeof(dir), "%.*s", (int)(s - path), path);
	return !stat(dir, &st) && S_ISDIR(st.st_mode);
}

struct restore_job {
	char rel[PATH_MAX];
	char src[PATH_MAX];
	char dst[PATH_MAX];
};

static int restore_run(struct nctl *c, const struct nova_snapshot_rec *sn,
		       char **mnts, size_t n_mnts, char **files, int n_files,
		       const char *to)
{
	struct restore r = { .c = c };
	struct json_object *doc = NULL, *items, *it;
	char view[PATH_MAX], dir[32], sz[32];
	struct restore_job *jobs;
	const char *root, *label;
	bool to_dir = false;
	struct stat st;
	int i, ret, status = NCTL_EXIT_FAIL;

	if (sn->name[0])
		label = sn->name;
	else {
		snprintf(dir, sizeof(dir), "%llu",
			 (unsigned long long)sn->snap_id);
		label = dir;
	}
	root = view_root(mnts, n_mnts, label, view);
	if (!root)
		return nctl_error(c, NCTL_EXIT_FAIL, -ENOENT,
				  "snapshot %s: no read-write mount of the file system shows .snapshots/%s",
				  label, label);
	if (to && !stat(to, &st) && S_ISDIR(st.st_mode))
		to_dir = true;
	if (to && !to_dir && n_files > 1)
		return nctl_usage_error(c, "snapshot restore: --to %s: not a directory (several FILEs)",
					to);
	jobs = calloc((size_t)n_files, sizeof(*jobs));
	if (!jobs)
		return nctl_error(c, NCTL_EXIT_FAIL, -ENOMEM, "out of memory");
	/* Check every FILE before copying anything. */
	for (i = 0; i < n_files; i++) {
		struct restore_job *j = &jobs[i];

		ret = rel_path(files[i], mnts, n_mnts, j->rel, sizeof(j->rel));
		if (ret == -EXDEV) {
			nctl_usage_error(c, "%s: not under a mount point of the file system (%s)",
					 files[i], root);
			status = NCTL_EXIT_USAGE;
			goto out;
		}
		if (ret == -EINVAL) {
			nctl_usage_error(c, "%s: '..' is not allowed in FILE",
					 files[i]);
			status = NCTL_EXIT_USAGE;
			goto out;
		}
		if (ret || join(j->src, view, j->rel)) {
			nctl_error(c, NCTL_EXIT_FAIL, -ENAMETOOLONG,
				   "%s: path too long", files[i]);
			goto out;
		}
		if (lstat(j->src, &st)) {
			nctl_error(c, NCTL_EXIT_FAIL, -errno,
				   errno == ENOENT || errno == ENOTDIR ?
				   "%s: not in snapshot %s (no %s)" :
				   "%s: in snapshot %s: %s", files[i], label,
				   errno == ENOENT || errno == ENOTDIR ?
				   j->src : strerror(errno));
			goto out;
		}
		if (!to)
			ret = join(j->dst, root, j->rel);
		else if (to_dir)
			ret = join(j->dst, to, base_name(j->rel, label));
		else
			ret = snprintf(j->dst, PATH_MAX, "%s", to) >= PATH_MAX;
		if (ret) {
			nctl_error(c, NCTL_EXIT_FAIL, -ENAMETOOLONG,
				   "%s: destination path too long", files[i]);
			goto out;
		}
		if (!parent_is_dir(j->dst)) {
			nctl_error(c, NCTL_EXIT_FAIL, -ENOENT,
				   "%s: the directory %s goes into is not there (restore that first, or use --to)",
				   files[i], j->dst);
			goto out;
		}
	}
	r.buf = malloc(COPY_BUF);
	r.xl = malloc(XATTR_LIST_MAX_);
	r.xv = malloc(XATTR_SIZE_MAX_);
	r.warnings = json_object_new_array();
	items = json_object_new_array();
	if (!r.buf || !r.xl || !r.xv) {
		nctl_error(c, NCTL_EXIT_FAIL, -ENOMEM, "out of memory");
		goto out_free;
	}
	for (i = 0; i < n_files; i++) {
		ret = restore_one(&r, jobs[i].src, jobs[i].dst);
		if (ret) {
			nctl_error(c, NCTL_EXIT_FAIL, ret, "restore of %s failed: %s",
				   files[i], r.err);
			goto out_free;
		}
		it = json_object_new_object();
		json_object_object_add(it, "file",
				       json_object_new_string(jobs[i].rel));
		json_object_object_add(it, "from",
				       json_object_new_string(jobs[i].src));
		json_object_object_add(it, "to",
				       json_object_new_string(jobs[i].dst));
		json_object_array_add(items, it);
		if (!c->json)
			printf("Restored /%s from snapshot %llu (%s) to %s\n",
			       jobs[i].rel, (unsigned long long)sn->snap_id,
			       label, jobs[i].dst);
	}
	status = NCTL_EXIT_OK;
	if (!c->json) {
		nctl_fmt_bytes(r.bytes, sz, sizeof(sz));
		nctl_kv(2, "Copied", "%llu files (%s), %llu directories, %llu symlinks, %llu other",
			(unsigned long long)r.files, sz,
			(unsigned long long)r.dirs,
			(unsigned long long)r.symlinks,
			(unsigned long long)r.other);
		goto out_free;
	}
	doc = nctl_json_doc();
	json_object_object_add(doc, "filesystem", nctl_json_fs_id(&sn->id));
	json_object_object_add(doc, "snapshot", nctl_json_snapshot(sn));
	json_object_object_add(doc, "restored", json_object_get(items));
	json_object_object_add(doc, "files", json_object_new_uint64(r.files));
	json_object_object_add(doc, "directories",
			       json_object_new_uint64(r.dirs));
	json_object_object_add(doc, "symlinks",
			       json_object_new_uint64(r.symlinks));
	json_object_object_add(doc, "other", json_object_new_uint64(r.other));
	json_object_object_add(doc, "bytes", json_object_new_uint64(r.bytes));
	json_object_object_add(doc, "warnings", json_object_get(r.warnings));
	nctl_json_print(c, doc);
	json_object_put(doc);
out_free:
	json_object_put(items);
	json_object_put(r.warnings);
	free(r.buf);
	free(r.xl);
	free(r.xv);
out:
	free(jobs);
	return status;
}

int nctl_snapshot_restore(struct nctl *c, int argc, char **argv)
{
	static const struct option opts[] = {
		NCTL_COMMON_OPTS,
		{ "to",	required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	char *mnts[NCTL_MAX_MNTS];
	struct nova_snapshot_rec sn;
	const char *to = NULL;
	struct nova_ipc *ipc;
	struct nova_sel sel;
	struct nova_err e;
	size_t n_mnts;
	int opt, r;

	nctl_getopt_reset();
	while ((opt = getopt_long(argc, argv, NCTL_COMMON_SHORT "t:", opts,
				  NULL)) != -1) {
		if (nctl_common_opt(c, opt))
			continue;
		if (opt == 'h') {
			restore_help(stdout);
			return NCTL_EXIT_OK;
		}
		if (opt == 't') {
			to = optarg;
			continue;
		}
		if (opt == ':')
			return nctl_usage_error(c, "snapshot restore: option '%s' needs an argument",
						argv[optind - 1]);
		return nctl_usage_error(c, "snapshot restore: unknown option '%s'",
					argv[optind - 1]);
	}
	if (argc - optind < 3)
		return nctl_usage_error(c, "snapshot restore: need PATH, ID or NAME and at least one FILE");
	if (to && !*to)
		return nctl_usage_error(c, "snapshot restore: empty --to");
	if (nova_sel_parse(argv[optind], &sel, &e))
		return nctl_error_nova(c, &e);
	r = nctl_ipc_open(c, &ipc);
	if (r)
		return r;
	r = nctl_snapshot_find(c, ipc, &sel, argv[optind + 1], &sn);
	nova_ipc_close(ipc);
	if (r)
		return r;
	n_mnts = nctl_mnts(sn.id.dev, mnts);
	r = restore_run(c, &sn, mnts, n_mnts, argv + optind + 2,
			argc - optind - 2, to);
	nctl_mnts_free(mnts, n_mnts);
	return r;
}
