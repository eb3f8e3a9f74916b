// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fsck.NOVA: inode logs. The walk follows module/log.c exactly: pages
 * from i_log_head along lt_next, entries from the start of each page up
 * to the committed tail, a pad byte or too little room ending a page;
 * pages linked past the tail page still belong to the log. Replaying the
 * entries gives each inode's final mode, size, link count, file pages and
 * (directories) names.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fsck.h"
#include "le.h"

struct page_map {		/* file page -> block, open addressing */
	uint64_t *key;		/* pgoff + 1; 0 empty, ~0 deleted */
	uint64_t *val;
	uint64_t cap, used, live;
};

struct name_slot {
	const char *name;	/* in the device mapping */
	uint64_t ino;		/* 0: removed */
	uint64_t entry_off;
	uint64_t pos;		/* readdir position */
	uint8_t len, type;
};

struct name_map {
	struct name_slot *s;
	uint64_t cap, used;
};

struct replay {
	struct fsck *f;
	struct fsck_inode *in;
	const struct nova_inode *pi;
	struct page_map pages;
	struct name_map names;
	uint64_t last_trans;
	uint64_t budget;	/* page-map operations left */
	bool bad;
	/* the xattr set whose pieces are being read, if any */
	bool xpend;
	uint64_t xtrans;
	uint8_t xindex, xname_len;
	char xname[NOVA_XATTR_NAME_MAX];
	uint32_t xsize, xfilled;
	uint64_t xattrs;	/* xattr entries read */
};

#define PM_EMPTY	0
#define PM_GONE		(~(uint64_t)0)

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ULL;
	x ^= x >> 29;
	return x;
}

static bool pm_grow(struct page_map *m)
{
	uint64_t cap = m->cap ? m->cap * 2 : 256, i;
	uint64_t *key = calloc(cap, sizeof(*key)), *val = calloc(cap, sizeof(*val));

	if (!key || !val) {
		free(key);
		free(val);
		return false;
	}
	for (i = 0; i < m->cap; i++) {
		uint64_t k = m->key[i], j;

		if (k == PM_EMPTY || k == PM_GONE)
			continue;
		for (j = mix(k) & (cap - 1); key[j]; j = (j + 1) & (cap - 1))
			;
		key[j] = k;
		val[j] = m->val[i];
	}
	free(m->key);
	free(m->val);
	m->key = key;
	m->val = val;
	m->cap = cap;
	m->used = m->live;
	return true;
}

static bool pm_set(struct page_map *m, uint64_t pgoff, uint64_t blk)
{
	uint64_t k = pgoff + 1, j, gone = PM_GONE;

	if ((m->used + 1) * 4 > m->cap * 3 && !pm_grow(m))
		return false;
	for (j = mix(k) & (m->cap - 1); m->key[j] != PM_EMPTY;
	     j = (j + 1) & (m->cap - 1)) {
		if (m->key[j] == k) {
			m->val[j] = blk;
			return true;
		}
		if (m->key[j] == PM_GONE && gone == PM_GONE)
			gone = j;
	}
	if (gone != PM_GONE) {
		j = gone;
	} else {
		m->used++;
	}
	m->key[j] = k;
	m->val[j] = blk;
	m->live++;
	return true;
}

/* Drop every page at or above @from; returns the work done. */
static uint64_t pm_truncate(struct page_map *m, uint64_t from)
{
	uint64_t i;

	for (i = 0; i < m->cap; i++) {
		uint64_t k = m->key[i];

		if (k != PM_EMPTY && k != PM_GONE && k - 1 >= from) {
			m->key[i] = PM_GONE;
			m->live--;
		}
	}
	return m->cap;
}

/* Drop page @pgoff if it is mapped. */
static void pm_del(struct page_map *m, uint64_t pgoff)
{
	uint64_t k = pgoff + 1, j;

	if (!m->cap)
		return;
	for (j = mix(k) & (m->cap - 1); m->key[j] != PM_EMPTY;
	     j = (j + 1) & (m->cap - 1)) {
		if (m->key[j] == k) {
			m->key[j] = PM_GONE;
			m->live--;
			return;
		}
	}
}

/*
 * Drop every page in [@from, @to); returns the work done: a range smaller
 * than the map is looked up page by page (a hole punched every other
 * page of a large file is one range entry a page, generic/610), a larger
 * one by a pass over the map.
 */
static uint64_t pm_drop(struct page_map *m, uint64_t from, uint64_t to)
{
	uint64_t i;

	if (to - from < m->cap) {
		for (i = from; i < to; i++)
			pm_del(m, i);
		return to - from;
	}
	for (i = 0; i < m->cap; i++) {
		uint64_t k = m->key[i];

		if (k != PM_EMPTY && k != PM_GONE && k - 1 >= from &&
		    k - 1 < to) {
			m->key[i] = PM_GONE;
			m->live--;
		}
	}
	return m->cap;
}

static uint64_t name_hash(const char *s, unsigned int len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (len--)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

static struct name_slot *nm_find(struct name_map *m, const char *name,
				 unsigned int len)
{
	uint64_t j;

	for (j = name_hash(name, len) & (m->cap - 1); m->s[j].name;
	     j = (j + 1) & (m->cap - 1))
		if (m->s[j].len == len && !memcmp(m->s[j].name, name, len))
			return &m->s[j];
	return &m->s[j];
}

static bool nm_grow(struct name_map *m)
{
	uint64_t cap = m->cap ? m->cap * 2 : 64, i;
	struct name_slot *old = m->s;
	uint64_t ocap = m->cap;

	m->s = calloc(cap, sizeof(*m->s));
	if (!m->s) {
		m->s = old;
		return false;
	}
	m->cap = cap;
	for (i = 0; i < ocap; i++)
		if (old[i].name)
			*nm_find(m, old[i].name, old[i].len) = old[i];
	free(old);
	return true;
}

/* ---- the generic walk ---- */

/* A good tail of a page of @ino's log; of a mirror if @of is set. */
static bool tail_good(const struct nova_log_page_tail *lt, uint64_t ino,
		      uint64_t of)
{
	return lt && le32(lt->lt_magic) == NOVA_LOG_PAGE_MAGIC &&
	       le64(lt->lt_ino) == ino && le32(lt->lt_csum) == nova_lt_csum(lt) &&
	       (!of || le64(lt->lt_replica) == of);
}

static bool page_in_range(struct fsck *f, uint64_t page)
{
	return !(page % NOVA_BLOCK_SIZE) && fsck_blocks_ok(f, NOVA_BLOCK(page), 1);
}

/* Do @ino's log pages have mirrors (1.4)? Not the allocator state's. */
static bool log_mirrored(const struct fsck *f, uint64_t ino)
{
	return (le32(f->sb.s_feature_incompat) & NOVA_FEATURE_LOG_REPLICA) &&
	       ino != NOVA_ALLOC_INO;
}

/* Record @len bytes of @src to be written at @dst (REP_LOG). */
static void patch_add(struct fsck *f, uint64_t dst, const void *src,
		      uint32_t len)
{
	struct fsck_patch *p;

	if (f->nr_patches == f->cap_patches) {
		unsigned long cap = f->cap_patches ? f->cap_patches * 2 : 16;

		p = realloc(f->patches, cap * sizeof(*p));
		if (!p) {
			fsck_oper(f, "out of memory");
			return;
		}
		f->patches = p;
		f->cap_patches = cap;
	}
	p = &f->patches[f->nr_patches];
	p->data = malloc(len);
	if (!p->data) {
		fsck_oper(f, "out of memory");
		return;
	}
	memcpy(p->data, src, len);
	p->dst = dst;
	p->len = len;
	f->nr_patches++;
}

/*
 * Mirrored page @page's link is @next; its mirror @m's (tail @mt) should
 * be the same. After a clean unmount a different one is repairable; after
 * a crash it may lag (the primary's link is stored first).
 */
static void check_mirror_link(struct fsck *f, uint64_t ino, uint64_t page,
			      uint64_t m, const struct nova_log_page_tail *mt,
			      uint64_t next)
{
	__le64 v = cpu64(next);

	if (fsck_word(f, &mt->lt_next) == next)
		return;
	if (!f->clean) {
		fsck_info(f, 1, "inode %llu: log page %llu: the mirror's link lags the primary's (the kernel sets it right)",
			  (unsigned long long)ino, (unsigned long long)page);
		return;
	}
	fsck_problem_fix(f, REP_LOG, "inode %llu: log page %llu: the mirror's link differs from the primary's",
			 (unsigned long long)ino, (unsigned long long)page);
	patch_add(f, m + NOVA_LOG_DATA_SIZE, &v, sizeof(v));
}

/*
 * The tail of log page @page, as the kernel's walk reads it: from the
 * primary, or from the mirror (1.4) when the primary's is bad. A bad
 * copy next to a good one is repairable (reported and queued unless
 * @quiet). Sets *@next and *@mirror (0: none). False if no copy is good.
 */
static bool walk_tail(struct fsck *f, uint64_t ino, uint64_t page, bool quiet,
		      uint64_t *next, uint64_t *mirror)
{
	const struct nova_log_page_tail *lt, *mt = NULL;
	struct nova_log_page_tail fix;
	unsigned long long n = (unsigned long long)ino;
	uint64_t m = 0;
	bool pg, mg = false;

	*mirror = 0;
	lt = fsck_ptr(f, page + NOVA_LOG_DATA_SIZE, sizeof(*lt));
	pg = tail_good(lt, ino, 0);
	if (!log_mirrored(f, ino)) {
		*next = pg ? fsck_word(f, &lt->lt_next) : 0;
		return pg;
	}
	if (lt)
		m = le64(lt->lt_replica);
	if (pg && (!m || m == page || !page_in_range(f, m)))
		pg = false;		/* a mirrored log names its mirror */
	if (m && m != page && page_in_range(f, m)) {
		mt = fsck_ptr(f, m + NOVA_LOG_DATA_SIZE, sizeof(*mt));
		mg = tail_good(mt, ino, page);
	}
	if (!pg && !mg)
		return false;
	*mirror = m;
	if (pg && mg) {
		*next = fsck_word(f, &lt->lt_next);
		if (!quiet)
			check_mirror_link(f, ino, page, m, mt, *next);
		return true;
	}
	if (pg) {
		*next = fsck_word(f, &lt->lt_next);
		if (quiet)
			return true;
		fsck_problem_fix(f, REP_LOG, "inode %llu: damaged mirror log page tail at %llu, the primary is good: repairable", n,
				 (unsigned long long)(m + NOVA_LOG_DATA_SIZE));
		fix = *lt;
		fix.lt_valid = 0;
		fix.lt_entries = 0;
		fix.lt_replica = cpu64(page);
		fix.lt_csum = 0;
		fix.lt_csum = cpu32(nova_lt_csum(&fix));
		patch_add(f, m + NOVA_LOG_DATA_SIZE, &fix, sizeof(fix));
		return true;
	}
	fix = lt ? *lt : *mt;
	fix.lt_ino = mt->lt_ino;
	fix.lt_magic = mt->lt_magic;
	fix.lt_replica = cpu64(m);
	memset(fix.lt_reserved, 0, sizeof(fix.lt_reserved));
	*next = le64(fix.lt_next);
	if (*next && !page_in_range(f, *next))
		*next = fsck_word(f, &mt->lt_next);
	if (quiet)
		return true;
	fsck_problem_fix(f, REP_LOG, "inode %llu: damaged log page tail at %llu, its mirror is good: repairable", n,
			 (unsigned long long)(page + NOVA_LOG_DATA_SIZE));
	check_mirror_link(f, ino, page, m, mt, *next);
	fix.lt_next = cpu64(*next);
	fix.lt_csum = 0;
	fix.lt_csum = cpu32(nova_lt_csum(&fix));
	patch_add(f, page + NOVA_LOG_DATA_SIZE, &fix, sizeof(fix));
	return true;
}

/* 1: a good entry at @off of a page ending at @end, 0: a pad, -1: bad. */
static int entry_state(struct fsck *f, uint64_t off, uint64_t end,
		       const struct nova_log_entry_header **hp)
{
	const struct nova_log_entry_header *h = fsck_ptr(f, off, sizeof(*h));
	unsigned int size;

	*hp = h;
	if (!h)
		return -1;
	if (h->e_type == NOVA_LOG_PAD)
		return 0;
	size = le16(h->e_size);
	if (size < sizeof(*h) || size % 8 || size > end - off ||
	    le32(h->e_csum) != nova_entry_csum(h, size))
		return -1;
	return 1;
}

/*
 * The entry at @pos of @page (mirror @mirror, 0: none), as the kernel's
 * walk reads it: 1 with the good copy in *@hp, 0 for the pad ending the
 * page, -1 if no copy is good. A bad copy next to a good one (also a
 * primary pad where the mirror has an entry) is repairable (reported and
 * queued unless @quiet).
 */
static int walk_entry(struct fsck *f, uint64_t ino, uint64_t page,
		      uint64_t mirror, uint64_t pos, bool quiet,
		      const struct nova_log_entry_header **hp)
{
	uint64_t end = page + NOVA_LOG_DATA_SIZE, mpos = mirror + (pos - page);
	const struct nova_log_entry_header *mh;
	unsigned long long n = (unsigned long long)ino;
	int p = entry_state(f, pos, end, hp), m;

	if (!mirror)
		return p;
	m = entry_state(f, mpos, mirror + NOVA_LOG_DATA_SIZE, &mh);
	if (p == 1) {
		if (!quiet && (m != 1 || mh->e_size != (*hp)->e_size ||
			       mh->e_csum != (*hp)->e_csum)) {
			fsck_problem_fix(f, REP_LOG, "inode %llu: damaged mirror log entry at %llu, the primary is good: repairable", n,
					 (unsigned long long)mpos);
			patch_add(f, mpos, *hp, le16((*hp)->e_size));
		}
		return 1;
	}
	if (m != 1)
		return p;		/* a pad (in both), or no good copy */
	*hp = mh;
	if (quiet)
		return 1;
	fsck_problem_fix(f, REP_LOG, "inode %llu: damaged log entry at %llu, its mirror is good: repairable", n,
			 (unsigned long long)pos);
	patch_add(f, pos, mh, le16(mh->e_size));
	return 1;
}

/*
 * The walk of fsck_walk_log() and fsck_probe_log(). A @probe claims,
 * reports and queues nothing (a bad copy next to a good mirror still
 * counts as good), and finds a loop by Brent's cycle check instead of the
 * block map.
 */
static bool walk(struct fsck *f, uint64_t ino, uint64_t head, uint64_t tail,
		 bool probe, enum fsck_bkind kind, fsck_entry_fn fn, void *arg,
		 uint64_t *npages)
{
	bool done = !tail, entries_ok = true;
	uint64_t page = head, pages = 0, mark = 0, lap = 1, steps = 0;

	*npages = 0;
	while (page) {
		uint64_t pos = page, end = page + NOVA_LOG_DATA_SIZE, next, mirror;

		if (!page_in_range(f, page) ||
		    !walk_tail(f, ino, page, probe, &next, &mirror)) {
			if (probe)
				return false;
			fsck_problem(f, "inode %llu: bad log page at %llu (%s)",
				     (unsigned long long)ino,
				     (unsigned long long)page,
				     !page_in_range(f, page) ?
				     "pointer out of range" :
				     log_mirrored(f, ino) ?
				     "page tail: magic, owner, checksum or mirror, in both copies" :
				     "page tail: magic, owner or checksum");
			return false;
		}
		if (probe) {
			if (page == mark || pages > f->nblocks)
				return false;	/* a loop */
			if (++steps == lap) {
				mark = page;
				lap *= 2;
				steps = 0;
			}
		} else if (!fsck_claim(f, NOVA_BLOCK(page), 1, kind, ino,
				       "log page") ||
			   (mirror && !fsck_claim(f, NOVA_BLOCK(mirror), 1, kind,
						  ino, "log page mirror"))) {
			fsck_problem(f, "inode %llu: log chain reaches block %llu a second time (%s)",
				     (unsigned long long)ino,
				     (unsigned long long)NOVA_BLOCK(page),
				     f->bowner[NOVA_BLOCK(page)] == ino &&
				     f->bkind[NOVA_BLOCK(page)] == kind ?
				     "a loop" : "cross-linked");
			return false;
		}
		pages += mirror ? 2 : 1;
		while (!done && entries_ok) {
			const struct nova_log_entry_header *h;
			int st;

			if (pos == tail) {
				done = true;
				break;
			}
			if (end - pos < sizeof(*h))
				break;
			st = walk_entry(f, ino, page, mirror, pos, probe, &h);
			if (!st)
				break;
			if (st < 0) {
				unsigned int size = h ? le16(h->e_size) : 0;

				entries_ok = false;
				if (probe)
					break;
				fsck_problem(f, "inode %llu: bad log entry at %llu (%s%s)",
					     (unsigned long long)ino,
					     (unsigned long long)pos,
					     !h || size < sizeof(*h) || size % 8 ||
					     size > end - pos ? "bad size" :
					     "bad checksum",
					     mirror ? ", in both copies" : "");
				break;
			}
			/* The copy read, named by the primary's offset. */
			if (fn && !fn(f, pos, h, arg))
				entries_ok = false;
			pos += le16(h->e_size);
		}
		page = next;
	}
	*npages = pages;
	if (!entries_ok)
		return false;
	if (!done) {
		if (!probe)
			fsck_problem(f, "inode %llu: log tail %llu is not in its log",
				     (unsigned long long)ino,
				     (unsigned long long)tail);
		return false;
	}
	return true;
}

bool fsck_walk_log(struct fsck *f, uint64_t ino, uint64_t head, uint64_t tail,
		   enum fsck_bkind kind, fsck_entry_fn fn, void *arg,
		   uint64_t *npages)
{
	return walk(f, ino, head, tail, false, kind, fn, arg, npages);
}

static bool newest_trans(struct fsck *f, uint64_t off,
			 const struct nova_log_entry_header *h, void *arg)
{
	uint64_t *max = arg;

	(void)f;
	(void)off;
	if (le64(h->e_trans_id) > *max)
		*max = le64(h->e_trans_id);
	return true;
}

bool fsck_probe_log(struct fsck *f, uint64_t ino, uint64_t head,
		    uint64_t tail, uint64_t *max_trans)
{
	uint64_t pages;

	*max_trans = 0;
	if (!head)
		return !tail;
	return walk(f, ino, head, tail, true, BK_FREE, newest_trans, max_trans,
		    &pages);
}

/* ---- replaying one inode's entries ---- */

static bool bad_entry(struct replay *r, uint64_t off, const char *what)
{
	fsck_problem(r->f, "inode %llu: %s entry at %llu: %s",
		     (unsigned long long)r->in->ino,
		     nova_entry_type_name(((const uint8_t *)
			fsck_ptr(r->f, off, 1))[0]),
		     (unsigned long long)off, what);
	r->bad = true;
	return false;
}

static bool spend(struct replay *r, uint64_t work)
{
	if (work > r->budget) {
		fsck_problem(r->f, "inode %llu: log maps too many pages to check",
			     (unsigned long long)r->in->ino);
		r->bad = true;
		return false;
	}
	r->budget -= work;
	return true;
}

static bool replay_write(struct replay *r, uint64_t off,
			 const struct nova_file_write_entry *fw)
{
	uint64_t pgoff = le64(fw->fw_pgoff), blk = le64(fw->fw_block), i;
	uint32_t n = le32(fw->fw_num_pages);

	if (!S_ISREG(r->in->mode))
		return bad_entry(r, off, "file data in an inode that is not a regular file");
	if (!n || !fsck_blocks_ok(r->f, blk, n))
		return bad_entry(r, off, "data blocks out of range");
	if (!nova_pages_in_file(pgoff, n))
		return bad_entry(r, off, "file offset out of range");
	if (!spend(r, n))
		return false;
	for (i = 0; i < n; i++) {
		if (!pm_set(&r->pages, pgoff + i, blk + i)) {
			fsck_oper(r->f, "out of memory");
			return false;
		}
	}
	if (r->pages.live > r->f->nblocks)
		return bad_entry(r, off, "file has more pages than the device");
	r->in->size = le64(fw->fw_size);
	return true;
}

static bool replay_setattr(struct replay *r, uint64_t off,
			   const struct nova_setattr_entry *sa)
{
	uint32_t mask = le32(sa->sa_mask);
	uint16_t flags = le16(sa->sa_flags);

	uint32_t incompat = le32(r->f->sb.s_feature_incompat);

	/*
	 * File attribute flags (format 1.6): known bits (the project-inherit
	 * flag with the project id feature, 1.8), else none.
	 */
	if (mask & NOVA_ATTR_FLAGS) {
		if (!(incompat & NOVA_FEATURE_FILEATTR))
			return bad_entry(r, off, "file attribute flags without the fileattr feature (format 1.6)");
		if (flags & ~(incompat & NOVA_FEATURE_PROJID ? NOVA_FL_ALL_1_8 :
							     NOVA_FL_ALL))
			return bad_entry(r, off, "unknown file attribute flags");
	} else if (flags) {
		return bad_entry(r, off, "nonzero padding");
	}
	/* Project id (format 1.8) in sa_ctime.pad, else that word is 0. */
	if (mask & NOVA_ATTR_PROJID) {
		if (!(incompat & NOVA_FEATURE_PROJID))
			return bad_entry(r, off, "project id without the project id feature (format 1.8)");
	} else if (NOVA_SA_PROJID(sa)) {
		return bad_entry(r, off, "nonzero project id without NOVA_ATTR_PROJID");
	}
	if (mask & NOVA_ATTR_MODE) {
		uint16_t mode = le16(sa->sa_mode);

		if ((mode & S_IFMT) && (mode & S_IFMT) != (r->in->mode & S_IFMT))
			return bad_entry(r, off, "changes the file type");
		r->in->mode = (r->in->mode & S_IFMT) | (mode & ~S_IFMT);
	}
	if (mask & NOVA_ATTR_SIZE) {
		uint64_t size = le64(sa->sa_size);

		/*
		 * As module/iget.c: drop the pages past the new end, unless
		 * the size grew (NOVA_ATTR_GROW keeps preallocated pages).
		 */
		if (S_ISREG(r->in->mode) && (mask & NOVA_ATTR_GROW)) {
			r->in->size = size;
		} else if (S_ISREG(r->in->mode)) {
			uint64_t from = size / NOVA_BLOCK_SIZE +
					!!(size % NOVA_BLOCK_SIZE);

			if (!spend(r, r->pages.cap))
				return false;
			pm_truncate(&r->pages, from);
			r->in->size = size;
		}
	}
	return true;
}

/*
 * A range entry (format 1.5; fallocate punch, zero, collapse, insert): as
 * module/file.c nova_file_apply_range(), the pages nova_range_drop()
 * names are dropped, and the size is the entry's. The moved and zeroed
 * pages are in the write entries after it.
 */
static bool replay_range(struct replay *r, uint64_t off,
			 const struct nova_range_entry *rg)
{
	__u64 from, to;

	if (!S_ISREG(r->in->mode))
		return bad_entry(r, off, "range operation in an inode that is not a regular file");
	if (!(le32(r->f->sb.s_feature_incompat) & NOVA_FEATURE_RANGE_OPS))
		return bad_entry(r, off, "range entry without the range feature (format 1.5)");
	if (rg->rg_pad)
		return bad_entry(r, off, "nonzero padding");
	if (!nova_range_drop(le32(rg->rg_kind), le64(rg->rg_pgoff),
			     le64(rg->rg_pages), &from, &to))
		return bad_entry(r, off, "unknown kind or page range out of range");
	if (to > from &&
	    !spend(r, to - from < r->pages.cap ? to - from : r->pages.cap))
		return false;
	if (to > from)
		pm_drop(&r->pages, from, to);
	r->in->size = le64(rg->rg_size);
	return true;
}

static bool replay_dentry(struct replay *r, uint64_t off,
			  const struct nova_dentry_entry *de)
{
	unsigned int len = de->de_name_len, i;
	const char *name = de->de_name;
	uint64_t ino = le64(de->de_ino);
	struct name_slot *s;

	if (!S_ISDIR(r->in->mode))
		return bad_entry(r, off, "directory entry in an inode that is not a directory");
	if (!len)
		return bad_entry(r, off, "empty name");
	for (i = 0; i < len; i++)
		if (name[i] == '/' || name[i] == 0)
			return bad_entry(r, off, "name contains '/' or NUL");
	r->in->links = le32(de->de_links);
	if (len == 2 && name[0] == '.' && name[1] == '.') {
		if (ino)
			r->in->parent = ino;
		return true;
	}
	if (len == 1 && name[0] == '.')
		return bad_entry(r, off, "a '.' entry");
	if ((r->names.used + 1) * 2 > r->names.cap && !nm_grow(&r->names)) {
		fsck_oper(r->f, "out of memory");
		return false;
	}
	/* Removing a name that is not there is a no-op (module/dir.c). */
	s = nm_find(&r->names, name, len);
	if (!s->name) {
		if (!ino)
			return true;
		s->name = name;
		s->len = (uint8_t)len;
		r->names.used++;
	}
	s->ino = ino;
	s->entry_off = off;
	s->pos = le64(de->de_pos);
	s->type = de->de_file_type;
	return true;
}

/* Is @xe the next piece of the pending set? */
static bool xattr_continues(const struct replay *r,
			    const struct nova_xattr_entry *xe)
{
	return !(le16(xe->xe_flags) & NOVA_XATTR_REMOVE) &&
	       le64(xe->hdr.e_trans_id) == r->xtrans &&
	       xe->xe_index == r->xindex && xe->xe_name_len == r->xname_len &&
	       le32(xe->xe_value_size) == r->xsize &&
	       le32(xe->xe_offset) == r->xfilled &&
	       !memcmp(xe->xe_name, r->xname, r->xname_len);
}

/*
 * An extended attribute entry (format 1.5): the rules of
 * uapi/nova_format.h, as module/xattr.c applies them when it replays.
 */
static bool replay_xattr(struct replay *r, uint64_t off,
			 const struct nova_xattr_entry *xe)
{
	bool p = r->xpend;
	uint32_t vsize = le32(xe->xe_value_size), offset = le32(xe->xe_offset);
	uint32_t len = le32(xe->xe_len);
	uint16_t flags = le16(xe->xe_flags);
	unsigned int i, nl = xe->xe_name_len;

	if (!(le32(r->f->sb.s_feature_incompat) & NOVA_FEATURE_XATTR))
		return bad_entry(r, off, "extended attribute without the xattr feature");
	if (r->in->ino < NOVA_FIRST_INO && r->in->ino != NOVA_ROOT_INO)
		return bad_entry(r, off, "extended attribute of a reserved inode");
	switch (xe->xe_index) {
	case NOVA_XATTR_INDEX_USER:
	case NOVA_XATTR_INDEX_TRUSTED:
	case NOVA_XATTR_INDEX_SECURITY:
		if (!nl)
			return bad_entry(r, off, "empty attribute name");
		break;
	case NOVA_XATTR_INDEX_ACL_ACCESS:
	case NOVA_XATTR_INDEX_ACL_DEFAULT:
		if (nl)
			return bad_entry(r, off, "a name on a POSIX ACL");
		break;
	default:
		return bad_entry(r, off, "unknown attribute namespace");
	}
	for (i = 0; i < nl; i++)
		if (!xe->xe_name[i])
			return bad_entry(r, off, "attribute name contains NUL");
	if (flags & ~NOVA_XATTR_REMOVE)
		return bad_entry(r, off, "unknown attribute flags");
	/*
	 * A pending set that this entry does not continue was superseded and
	 * fast GC collected the page of its later pieces; a piece without its
	 * start is a superseded set whose first page was collected. Both are
	 * skipped, as module/xattr.c does; only a set cut short by the end of
	 * the log is damage.
	 */
	if (p && !xattr_continues(r, xe))
		r->xpend = p = false;
	if (flags & NOVA_XATTR_REMOVE) {
		if (vsize || offset || len)
			return bad_entry(r, off, "removal with a value");
		r->xattrs++;
		return true;
	}
	if (vsize > NOVA_XATTR_VALUE_MAX)
		return bad_entry(r, off, "value larger than 64 KiB");
	if (offset > vsize || offset % NOVA_XATTR_PIECE_MAX ||
	    len != (vsize - offset < NOVA_XATTR_PIECE_MAX ?
		    vsize - offset : NOVA_XATTR_PIECE_MAX) ||
	    (!len && vsize))
		return bad_entry(r, off, "bad value piece");
	if (!p && offset) {
		r->xattrs++;
		return true;
	}
	r->xpend = true;
	r->xtrans = le64(xe->hdr.e_trans_id);
	r->xindex = xe->xe_index;
	r->xname_len = (uint8_t)nl;
	memcpy(r->xname, xe->xe_name, nl);
	r->xsize = vsize;
	r->xfilled = offset + len;
	if (r->xfilled == vsize)
		r->xpend = false;
	r->xattrs++;
	return true;
}

static bool replay_entry(struct fsck *f, uint64_t off,
			 const struct nova_log_entry_header *h, void *arg)
{
	struct replay *r = arg;
	unsigned int size = le16(h->e_size), want = 0;
	uint64_t trans = le64(h->e_trans_id);

	if (size >= 32)
		want = nova_entry_expected_size(h);
	if (!want || size != want) {
		if (h->e_type < NOVA_LOG_FILE_WRITE ||
		    h->e_type > NOVA_LOG_RANGE)
			return bad_entry(r, off, "unknown entry type");
		return bad_entry(r, off, "wrong size for its type");
	}
	if (trans < r->last_trans)
		return bad_entry(r, off, "transaction id goes backwards");
	r->last_trans = trans;
	if (trans > f->max_trans)
		f->max_trans = trans;

	switch (h->e_type) {
	case NOVA_LOG_FILE_WRITE:
		return replay_write(r, off, (const void *)h);
	case NOVA_LOG_DENTRY:
		return replay_dentry(r, off, (const void *)h);
	case NOVA_LOG_SETATTR:
		return replay_setattr(r, off, (const void *)h);
	case NOVA_LOG_LINK_CHANGE:
		r->in->links = le32(((const struct nova_link_change_entry *)
				     h)->lc_links);
		return true;
	case NOVA_LOG_RANGE:
		return replay_range(r, off, (const void *)h);
	case NOVA_LOG_XATTR:
		return replay_xattr(r, off, (const void *)h);
	case NOVA_LOG_FREE_RANGES:
		return bad_entry(r, off, "allocator state in a normal inode");
	default:
		return bad_entry(r, off, "snapshot record in a normal inode");
	}
}

/* The live pages of a file and the names of a directory. */
static void replay_finish(struct replay *r)
{
	struct fsck *f = r->f;
	uint64_t i;

	for (i = 0; i < r->pages.cap; i++) {
		uint64_t k = r->pages.key[i];

		if (k == PM_EMPTY || k == PM_GONE)
			continue;
		if (fsck_claim(f, r->pages.val[i], 1, BK_DATA, r->in->ino,
			       "file data"))
			r->in->data_pages++;
	}
	for (i = 0; i < r->names.cap; i++) {
		struct name_slot *s = &r->names.s[i];
		struct fsck_dent d;

		if (!s->name || !s->ino)
			continue;
		d.dir = r->in->ino;
		d.ino = s->ino;
		d.entry_off = s->entry_off;
		d.pos = s->pos;
		d.type = s->type;
		d.name_len = s->len;
		if (!fsck_dent_add(f, &d))
			break;
	}
}

static void check_symlink(struct fsck *f, struct fsck_inode *in,
			  const struct nova_inode *pi)
{
	uint32_t flags = le32(pi->i_flags);

	if (flags & NOVA_INODE_INLINE_SYMLINK) {
		if (in->size >= NOVA_INLINE_SIZE ||
		    memchr(pi->i_inline, 0, NOVA_INLINE_SIZE) !=
		    (const void *)(pi->i_inline + in->size))
			fsck_problem(f, "symlink %llu: inline target is not %llu bytes and NUL-terminated",
				     (unsigned long long)in->ino,
				     (unsigned long long)in->size);
	} else if (flags & NOVA_INODE_BLOCK_SYMLINK) {
		__le64 b;
		uint64_t blk;

		memcpy(&b, pi->i_inline, sizeof(b));
		blk = le64(b);
		if (!in->size || in->size >= NOVA_BLOCK_SIZE)
			fsck_problem(f, "symlink %llu: bad target length %llu",
				     (unsigned long long)in->ino,
				     (unsigned long long)in->size);
		if (!fsck_blocks_ok(f, blk, 1)) {
			fsck_problem(f, "symlink %llu: target block %llu out of range",
				     (unsigned long long)in->ino,
				     (unsigned long long)blk);
			return;
		}
		if (fsck_claim(f, blk, 1, BK_DATA, in->ino, "symlink target")) {
			in->data_pages++;
			f->bsymlink[blk] = 1;
		}
		if (in->size && in->size < NOVA_BLOCK_SIZE) {
			const char *t = fsck_ptr(f, NOVA_OFF(blk), NOVA_BLOCK_SIZE);

			if (t[in->size] || memchr(t, 0, in->size))
				fsck_problem(f, "symlink %llu: target in block %llu is not %llu bytes and NUL-terminated",
					     (unsigned long long)in->ino,
					     (unsigned long long)blk,
					     (unsigned long long)in->size);
		}
	} else {
		fsck_problem(f, "symlink %llu: neither inline nor block target",
			     (unsigned long long)in->ino);
	}
}

static void check_inode_log(struct fsck *f, struct fsck_inode *in)
{
	const struct nova_inode *pi = fsck_ptr(f, in->pi_off, sizeof(*pi));
	uint64_t head = in->head, tail = in->tail;
	struct replay r = {
		.f = f, .in = in,
		/* static fields from the good copy, log words resolved */
		.pi = in->src_off ? fsck_ptr(f, in->src_off, sizeof(*pi)) : pi,
		.budget = f->nblocks * 64 + (1U << 24),
	};

	if (!head && tail) {
		fsck_problem(f, "inode %llu: log tail %llu without a log",
			     (unsigned long long)in->ino,
			     (unsigned long long)tail);
		in->bad = true;
	} else if (head) {
		/* A bad inode's pages still belong to it: claim them. */
		if (!fsck_walk_log(f, in->ino, head, tail, BK_LOG,
				   in->bad ? NULL : replay_entry, &r,
				   &in->log_pages) || r.bad)
			in->bad = true;
		if (!in->bad && r.xpend) {
			fsck_problem(f, "inode %llu: extended attribute value cut short at %u of %u bytes",
				     (unsigned long long)in->ino, r.xfilled,
				     r.xsize);
			in->bad = true;
		}
	}
	f->log_pages += in->log_pages;
	if (!in->bad) {
		replay_finish(&r);
		if (S_ISLNK(in->mode))
			check_symlink(f, in, r.pi);
		f->data_pages += in->data_pages;
	}
	free(r.pages.key);
	free(r.pages.val);
	free(r.names.s);
}

/*
 * A removed inode (i_valid 0) a live snapshot keeps: it owns its log
 * pages and the data its log maps, as a live inode would, but it has no
 * name, so it is not part of the namespace checks.
 */
void fsck_check_kept_inode(struct fsck *f, uint64_t ino, uint64_t off)
{
	const struct nova_inode *pi = fsck_ptr(f, off, sizeof(*pi));
	struct fsck_inode in = { .ino = ino, .pi_off = off };

	in.head = fsck_word(f, &pi->i_log_head);
	in.tail = fsck_word(f, &pi->i_log_tail);
	in.mode = le16(pi->i_mode);
	in.links = le32(pi->i_nlink);
	in.size = le64(pi->i_size);
	in.parent = le64(pi->i_parent);
	if (le32(pi->i_csum) != nova_inode_csum(pi) ||
	    le64(pi->i_ino) != ino) {
		fsck_problem(f, "removed inode %llu kept by a snapshot: bad checksum or inode number",
			     (unsigned long long)ino);
		return;
	}
	check_inode_log(f, &in);
}

bool fsck_check_logs(struct fsck *f)
{
	uint64_t i;

	for (i = 0; i < f->cap_inodes && !f->operational && !f->cancelled; i++) {
		fsck_progress(f, FSCK_PASS_LOGS, i, f->cap_inodes);
		if (f->inodes[i].ino == NOVA_SNAPSHOT_INO)
			fsck_check_snapshots(f, &f->inodes[i]);
		else if (f->inodes[i].ino)
			check_inode_log(f, &f->inodes[i]);
	}
	fsck_progress(f, FSCK_PASS_LOGS, 1, 1);
	fsck_info(f, 1, "logs: %llu log pages, %llu data blocks",
		  (unsigned long long)f->log_pages,
		  (unsigned long long)f->data_pages);
	return !f->operational;
}
