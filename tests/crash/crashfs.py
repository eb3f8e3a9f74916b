#!/usr/bin/env python3
"""Crash-test workload, model and checker (guest side, run by step.sh).

The model is the file tree the workload believes is durable: paths mapped
to directories, symlinks, whiteouts (rename with RENAME_WHITEOUT) or
regular files, and regular files (inodes, so hard links share one, with their chattr flags) described by a recipe of writes, truncations
and fallocate range operations (punch hole, zero range, collapse range,
insert range; each atomic: before or after) whose data comes from seeded
pseudo-random bytes. It is stored as JSON in
/out, which survives the power cut.

  crashfs.py run MODEL ACKS --workload W --seed S [--fault N] [--seconds T]
      Start from MODEL (the verified state), do one mutating system call
      (or one msync'd set of stores through a mapping) after another and
      log each to ACKS (/out, a 9p share written
      synchronously): "B" with the operation before it, "A" after it and
      its fsync returned. With --fault, arm nova.crash_after_barriers=N
      first; the machine then stops at the crash point. Otherwise it runs
      until the host cuts the power (or T seconds pass).

  crashfs.py verify MODEL [ACKS] OUT
      Replay the acknowledged operations of ACKS on MODEL and compare the
      mounted file system with the result. At most one operation was in
      flight (begun, not acknowledged); the tree must match the state
      before it or after it, every file byte for byte (a write of more
      than 64 pages may be split by NOVA into several atomic batches: each
      of its pages old or new). Hard links, link counts and symlink
      targets are checked too. The state found is written to OUT as the
      next baseline.

The pmd workload stores through 2 MiB (PMD) mappings: files pmdN in the
top directory (no other operation touches them), 4 MiB, made by one
fallocate or a truncate (holes: the first store into each 2 MiB is a PMD
write fault that allocates an aligned chunk), then mapped MAP_SHARED
(half the time MAP_SHARED_VALIDATE | MAP_SYNC) and stored to: the whole
file, one whole 2 MiB, a range across the 2 MiB boundary or a few pages,
msync'd (durable once acknowledged; in flight, each byte old or new). The
workload fails (a "not ok" line, no crash) unless each 2 MiB it stored to
was mapped by a PMD: the fs_dax trace event dax_pmd_fault_done (result
NOPAGE, no FALLBACK) for every one of them (/proc/PID/smaps
FilePmdMapped does not count DAX PMDs).
"""
import argparse
import base64
import array
import ctypes
import fcntl
import hashlib
import json
import mmap
import os
import random
import stat
import subprocess
import sys
import time

PAGE = 4096
HUGE = 2 << 20             # a PMD mapping
PMD_FILE = 2 * HUGE        # the pmd workload's files: two PMDs each
PMD_FILES = 2
TRACE = "/sys/kernel/tracing"
ATOMIC_PAGES = 64          # NOVA_WRITE_EXTENTS: one write batch at most
MAX_FILES = 400
MAX_BYTES = 48 << 20
FAULT_PARAM = "/sys/module/nova/parameters/crash_after_barriers"


def gen(seed, n):
    return random.Random(seed).randbytes(n)


class Model:
    def __init__(self, d=None):
        d = d or {}
        self.paths = d.get("paths", {})      # rel path -> {"t": d|f|l, ...}
        self.inodes = d.get("inodes", {})    # id -> recipe
        self.next_id = d.get("next_id", 1)
        self.xattrs = d.get("xattrs", {})    # id -> {name: [seed, n]}
        self.flags = d.get("flags", {})      # id -> FS_*_FL (chattr)
        self.cache = {}                      # id -> bytes

    def to_json(self):
        return {"paths": self.paths, "inodes": self.inodes,
                "next_id": self.next_id, "xattrs": self.xattrs,
                "flags": self.flags}

    def xattr_values(self, ino):
        """The extended attributes of file @ino: name -> bytes."""
        return {k: gen(v[0], v[1])
                for k, v in self.xattrs.get(ino, {}).items()}

    def copy(self):
        m = Model(json.loads(json.dumps(self.to_json())))
        m.cache = dict(self.cache)
        return m

    def content(self, ino, fuzzy=True):
        """The bytes of @ino; @fuzzy False: without the unsynced stores."""
        if fuzzy and ino in self.cache:
            return self.cache[ino]
        buf = bytearray()
        for r in self.inodes[ino]:
            if r[0] in "wmx":
                if r[0] == "m" and not fuzzy:
                    continue
                off = r[1]
                data = (base64.b64decode(r[3]) if r[0] == "x"
                        else gen(r[3], r[2]))
                if len(buf) < off:
                    buf.extend(bytes(off - len(buf)))
                buf[off:off + len(data)] = data
            elif r[0] == "f":
                falloc_model(buf, r[1], r[2], r[3])
            else:
                size = r[1]
                if size < len(buf):
                    del buf[size:]
                else:
                    buf.extend(bytes(size - len(buf)))
        b = bytes(buf)
        if fuzzy:
            self.cache[ino] = b
        return b

    def fuzzy(self, ino):
        """Has @ino stores that may or may not have reached the media?"""
        return any(r[0] == "m" for r in self.inodes[ino])

    def resolve(self, fs):
        """Pin each unsynced store to what the scan @fs found."""
        for ino, rec in self.inodes.items():
            if not self.fuzzy(ino):
                continue
            data = next(fs[p]["data"] for p in self.links(ino))
            self.inodes[ino] = [
                ["x", r[1], r[2], base64.b64encode(
                    data[r[1]:r[1] + r[2]]).decode()]
                if r[0] == "m" else r for r in rec]
            self.cache.pop(ino, None)

    def links(self, ino):
        return [p for p, e in self.paths.items()
                if e["t"] == "f" and e["i"] == ino]

    def dirs(self):
        return [""] + sorted(p for p, e in self.paths.items()
                             if e["t"] == "d")

    def files(self):
        return sorted(p for p, e in self.paths.items() if e["t"] == "f")

    def children(self, d):
        pre = d + "/" if d else ""
        return [p for p in self.paths
                if p.startswith(pre) and "/" not in p[len(pre):]]

    def total_bytes(self):
        return sum(len(self.content(i)) for i in self.inodes)

    # ---- applying operations ----
    def apply(self, op, inflight=False):
        """Apply @op; @inflight: as far as an interrupted @op is known."""
        k = op["op"]
        p = op.get("p")
        if k == "gc":
            return
        if k == "burst":
            op = dict(op, op="write", seed=op["seed"] + op["k"] - 1)
            k = "write"
        if k == "pmd" and not inflight and op["off"] == 0 and \
                op["n"] >= len(self.content(self.paths[p]["i"])):
            # The whole file stored and msync'd: the recipe starts again.
            ino = self.paths[p]["i"]
            self.inodes[ino] = [["w", 0, op["n"], op["seed"]]]
            self.cache.pop(ino, None)
            return
        if k in ("mmap", "pmd"):
            # Stores through the mapping: the msync'd range is durable
            # once the call returned; the rest, or all of it while the
            # operation is in flight, may be old or new, byte by byte.
            ino = self.paths[p]["i"]
            self.inodes[ino].append(["m" if inflight else "w", op["off"],
                                     op["n"], op["seed"]])
            if op.get("un"):
                self.inodes[ino].append(["m", op["uoff"], op["un"],
                                         op["useed"]])
            self.cache.pop(ino, None)
            return
        if k == "churn":
            # Acknowledged: every name it made is gone again. In flight:
            # the candidates are built from what was found (verify).
            for name in op.get("left", []):
                self.apply({"op": "create", "p": name})
            return
        if k == "setx":
            ino = self.paths[p]["i"]
            self.xattrs.setdefault(ino, {})[op["name"]] = [op["seed"],
                                                           op["n"]]
        elif k == "rmx":
            ino = self.paths[p]["i"]
            del self.xattrs[ino][op["name"]]
        elif k == "chattr":
            self.flags[self.paths[p]["i"]] = op["fl"]
        elif k == "mkdir":
            self.paths[p] = {"t": "d"}
        elif k == "rmdir":
            del self.paths[p]
        elif k == "create":
            ino = str(self.next_id)
            self.next_id += 1
            self.inodes[ino] = []
            self.paths[p] = {"t": "f", "i": ino}
        elif k == "symlink":
            self.paths[p] = {"t": "l", "s": op["s"]}
        elif k == "link":
            self.paths[p] = dict(self.paths[op["s"]])
        elif k == "falloc":
            ino = self.paths[p]["i"]
            self.inodes[ino].append(["f", op["mode"], op["off"], op["n"]])
            self.cache.pop(ino, None)
        elif k in ("write", "trunc"):
            ino = self.paths[p]["i"]
            old = self.content(ino)
            if k == "write":
                rec = ["w", op["off"], op["n"], op["seed"]]
                whole = op["off"] == 0 and op["n"] >= len(old)
            else:
                rec = ["t", op["size"]]
                whole = op["size"] == 0
            self.inodes[ino] = ([] if whole else self.inodes[ino]) + [rec]
            self.cache.pop(ino, None)
        elif k == "unlink":
            self._drop(p)
        elif k == "rename":
            s, d = op["s"], p
            if d in self.paths and self.paths[d]["t"] != "d":
                self._drop(d)
            elif d in self.paths:
                del self.paths[d]       # an empty directory
            moved = {}
            for q in list(self.paths):
                if q == s or q.startswith(s + "/"):
                    moved[d + q[len(s):]] = self.paths.pop(q)
            self.paths.update(moved)
            if op.get("w"):
                self.paths[s] = {"t": "w"}      # RENAME_WHITEOUT
        else:
            raise ValueError("unknown op %r" % k)

    def _drop(self, p):
        e = self.paths.pop(p)
        if e["t"] == "f" and not self.links(e["i"]):
            del self.inodes[e["i"]]
            self.xattrs.pop(e["i"], None)
            self.flags.pop(e["i"], None)
            self.cache.pop(e["i"], None)


# chattr: FS_IOC_GETFLAGS/SETFLAGS (linux/fs.h, 64-bit) and the flags
FS_IOC_GETFLAGS = 0x80086601
FS_IOC_SETFLAGS = 0x40086602
FS_SYNC, FS_NODUMP, FS_NOATIME = 0x8, 0x40, 0x80

# fallocate(2) modes (linux/falloc.h)
FALLOC = {"punch": 0x02 | 0x01, "zero": 0x10, "zero-keep": 0x10 | 0x01,
          "collapse": 0x08, "insert": 0x20}
# the workloads' random fallocate modes; "alloc" (mode 0) makes pmd files
FALLOC_MODES = list(FALLOC)
FALLOC["alloc"] = 0


def falloc_model(buf, mode, off, n):
    """Apply fallocate @mode of [@off, @off + @n) to bytearray @buf."""
    end = off + n
    if mode == "alloc":
        if end > len(buf):
            buf.extend(bytes(end - len(buf)))
    elif mode in ("punch", "zero-keep"):
        stop = min(end, len(buf))
        if off < stop:
            buf[off:stop] = bytes(stop - off)
    elif mode == "zero":
        if end > len(buf):
            buf.extend(bytes(end - len(buf)))
        buf[off:end] = bytes(n)
    elif mode == "collapse":
        del buf[off:end]
    elif mode == "insert":
        buf[off:off] = bytes(n)
    else:
        raise ValueError("unknown fallocate mode %r" % mode)


# ---- the workload ----

WEIGHTS = {
    # op: (mix, storm, rename, write, big, tree, gc, mmap, pmd)
    "mkdir":   (4, 1, 3, 0, 0, 12, 2, 0, 2),
    "rmdir":   (2, 0, 1, 0, 0, 6, 0, 0, 1),
    "create":  (12, 40, 8, 4, 2, 12, 10, 6, 6),
    "write":   (16, 4, 4, 40, 0, 8, 6, 6, 6),
    "append":  (8, 0, 2, 20, 0, 2, 4, 6, 4),
    "trunc":   (6, 0, 1, 14, 3, 2, 3, 10, 4),
    "bigwrite": (2, 0, 0, 2, 30, 0, 0, 0, 0),
    "unlink":  (10, 40, 6, 4, 4, 10, 4, 2, 4),
    "rename":  (10, 4, 50, 2, 1, 6, 2, 1, 2),
    "link":    (4, 2, 4, 0, 0, 2, 1, 1, 1),
    "symlink": (3, 2, 2, 0, 0, 3, 1, 0, 0),
    # many overwrites of one range, each fsync'd: dead write entries
    "burst":   (0, 0, 0, 0, 0, 0, 30, 0, 0),
    # names made and removed again in one directory: dead dentries
    "churn":   (0, 0, 0, 0, 0, 0, 15, 0, 0),
    # novactl gc of the whole file system
    "gc":      (0, 0, 0, 0, 0, 0, 6, 0, 0),
    # stores through a shared mapping, msync'd and not
    "mmap":    (2, 0, 0, 0, 0, 0, 0, 40, 6),
    # fallocate punch / zero / collapse / insert (format 1.5 range entries)
    "falloc":  (6, 0, 0, 14, 3, 0, 3, 4, 2),
    # extended attributes set (inline, split over entries, 64 KiB), removed
    "setx":    (6, 0, 2, 2, 0, 2, 6, 0, 0),
    "rmx":     (3, 0, 1, 1, 0, 1, 3, 0, 0),
    # chattr: nodump, noatime, sync (format 1.6 flags; the restrictive
    # immutable and append-only take the same entry, but would stop the
    # other operations)
    "chattr":  (3, 0, 1, 1, 0, 1, 3, 0, 0),
    # msync'd stores through 2 MiB (PMD) mappings of the pmdN files
    "pmd":     (0, 0, 0, 0, 0, 0, 0, 0, 40),
}
WORKLOADS = ["mix", "storm", "rename", "write", "big", "tree", "gc", "mmap",
             "pmd"]
# The gc workload arms its fault injection at this operation, a whole-fs
# novactl gc, so that its crash points fall inside (or just after) a
# collection of the state the first operations built.
GC_ARM_OP = 60


def is_pmd(p):
    """A file of the pmd workload (pmdN in the top directory)."""
    return "/" not in p and p.startswith("pmd")


def pick_pmd(m, rng, full):
    """The pmd workload's next step: make a file (create, then grow it to
    PMD_FILE with fallocate or truncate), or store through a mapping."""
    pmds = [p for p in m.files() if is_pmd(p)]
    for p in pmds:
        if not m.content(m.paths[p]["i"]):
            if rng.randrange(2):
                return {"op": "falloc", "p": p, "mode": "alloc", "off": 0,
                        "n": PMD_FILE}
            return {"op": "trunc", "p": p, "size": PMD_FILE}
    if len(pmds) < PMD_FILES and not full:
        return {"op": "create", "p": "pmd%d" % rng.randrange(100000)}
    if not pmds:
        return None
    r = rng.randrange(4)
    if r == 0:                  # the whole file
        off, n = 0, PMD_FILE
    elif r == 1:                # one whole 2 MiB
        off, n = rng.randrange(PMD_FILE // HUGE) * HUGE, HUGE
    elif r == 2:                # across the 2 MiB boundary
        off = rng.randrange(HUGE)
        n = rng.randrange(HUGE - off + 1, PMD_FILE - off + 1)
    else:                       # a few pages
        off = rng.randrange(PMD_FILE)
        n = rng.randrange(1, min(PMD_FILE - off, 16 * PAGE) + 1)
    return {"op": "pmd", "p": rng.choice(pmds), "off": off, "n": n,
            "seed": rng.randrange(1 << 30), "sync": rng.randrange(2)}


def pick_op(m, rng, wl):
    col = WORKLOADS.index(wl)
    dirs = m.dirs()
    # the pmd workload's files keep their 2 MiB chunks: only it uses them
    files = [p for p in m.files() if not is_pmd(p)]
    nfiles = len(m.files())
    full = nfiles >= MAX_FILES or m.total_bytes() > MAX_BYTES
    tops = [d for d in dirs if d and "/" not in d]
    if len(tops) < 3:
        return {"op": "mkdir", "p": "d%d" % rng.randrange(1000)}
    ops = [o for o, w in WEIGHTS.items() for _ in range(w[col])]
    for _ in range(50):
        k = rng.choice(ops)
        d = rng.choice(dirs)
        name = (d + "/" if d else "") + "%s%d" % (k[0], rng.randrange(100000))
        if name in m.paths:
            continue
        if k == "pmd":
            op = pick_pmd(m, rng, full)
            if op is None:
                continue
            return op
        if k == "mkdir" and d.count("/") < 5 and not full:
            return {"op": k, "p": name}
        if k == "rmdir":
            empty = [x for x in dirs if x and x not in tops
                     and not m.children(x)]
            if empty:
                return {"op": k, "p": rng.choice(empty)}
        if k == "create" and not full:
            return {"op": k, "p": name}
        if k == "gc":
            return {"op": k}
        if k == "churn":
            return {"op": k, "p": d, "pre": "z%d_" % rng.randrange(100000),
                    "k": rng.randrange(20, 300)}
        if k == "symlink" and not full:
            tgt = "t" * rng.choice([1, 20, 94, 95, 96, 200, 1000, 4000])
            return {"op": k, "p": name, "s": tgt}
        if not files:
            continue
        f = rng.choice(files)
        size = len(m.content(m.paths[f]["i"]))
        if k == "write":
            off = rng.randrange(size + 2 * PAGE)
            n = rng.choice([1, 7, 100, 4095, 4096, 4097, 10000, 65536,
                            rng.randrange(1, 200000)])
            if full and off + n > size:
                continue
            return {"op": k, "p": f, "off": off, "n": n,
                    "seed": rng.randrange(1 << 30)}
        if k == "append" and not full:
            return {"op": "write", "p": f, "off": size,
                    "n": rng.randrange(1, 3 * PAGE),
                    "seed": rng.randrange(1 << 30)}
        if k == "bigwrite":
            if full:
                return {"op": "trunc", "p": f, "size": 0}
            n = rng.choice([1, 2, 4]) << 20
            return {"op": "write", "p": f, "off": size, "n": n,
                    "seed": rng.randrange(1 << 30)}
        if k == "trunc":
            return {"op": k, "p": f,
                    "size": rng.choice([0, rng.randrange(size + 1),
                                        size + rng.randrange(3 * PAGE)])}
        if k == "unlink":
            return {"op": k, "p": f}
        if k == "burst":
            off = rng.randrange(size + 1)
            n = rng.choice([1, 100, 4096, rng.randrange(1, 2 * PAGE)])
            if full and off + n > size:
                continue
            return {"op": k, "p": f, "off": off, "n": n,
                    "k": rng.randrange(40, 400),
                    "seed": rng.randrange(1 << 30)}
        if k == "mmap":
            if not size:
                continue
            off = rng.randrange(size)
            n = rng.randrange(1, min(size - off, 16 * PAGE) + 1)
            uoff = rng.randrange(size)
            un = rng.randrange(0, min(size - uoff, 2 * PAGE) + 1)
            if uoff < off + n and off < uoff + un:
                un = 0          # the unsynced range must not overlap
            return {"op": k, "p": f, "off": off, "n": n,
                    "seed": rng.randrange(1 << 30), "uoff": uoff if un else 0,
                    "un": un, "useed": rng.randrange(1 << 30)}
        if k == "falloc":
            # A shift would move unsynced mmap stores, which verify
            # resolves by offset: not on such files.
            if m.fuzzy(m.paths[f]["i"]):
                continue
            mode = rng.choice(FALLOC_MODES)
            pages = (size + PAGE - 1) // PAGE
            if mode in ("collapse", "insert"):
                if pages < 2 or mode == "insert" and full:
                    continue
                off = rng.randrange(pages - 1) * PAGE
                if mode == "collapse":
                    # must end before the end of file
                    n = rng.randrange(1, (size - 1 - off) // PAGE + 1) * PAGE
                    if off + n >= size:
                        continue
                else:
                    n = rng.randrange(1, 9) * PAGE
            else:
                off = rng.randrange(size + 2 * PAGE)
                n = rng.choice([1, 100, 4096, 8192, 5000, 65536,
                                rng.randrange(1, 300000)])
                if full and mode == "zero" and off + n > size:
                    continue
            return {"op": k, "p": f, "mode": mode, "off": off, "n": n}
        if k == "link" and not full:
            return {"op": k, "p": name, "s": f}
        if k == "setx":
            return {"op": k, "p": f, "name": "user.x%d" % rng.randrange(6),
                    "n": rng.choice([0, 10, 100, 3584, 3585, 8000, 65536]),
                    "seed": rng.randrange(1 << 30)}
        if k == "chattr":
            return {"op": k, "p": f,
                    "fl": rng.choice([0, FS_NODUMP, FS_NOATIME, FS_SYNC,
                                      FS_NODUMP | FS_NOATIME | FS_SYNC])}
        if k == "rmx":
            have = sorted(m.xattrs.get(m.paths[f]["i"], {}))
            if have:
                return {"op": k, "p": f, "name": rng.choice(have)}
        if k == "rename":
            src = rng.choice(files + [x for x in dirs if x and x not in tops])
            dd = rng.choice([x for x in dirs
                             if x != src and not x.startswith(src + "/")])
            dst = (dd + "/" if dd else "") + "r%d" % rng.randrange(100000)
            if m.paths[src]["t"] == "f" and rng.random() < 0.4:
                dst = rng.choice(files)     # overwrite another file
            if dst == src or dst in m.paths and (
                    m.paths[dst]["t"] == "d" or
                    m.paths[dst].get("i") == m.paths[src].get("i")):
                continue        # rename(2) onto a hard link does nothing
            if rng.random() < 0.25:     # leave a whiteout at the old name
                return {"op": k, "p": dst, "s": src, "w": 1}
            return {"op": k, "p": dst, "s": src}
    return {"op": "mkdir", "p": "d%d" % rng.randrange(1000)}


def rename_whiteout(src, dst):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.renameat2(-100, src.encode(), -100, dst.encode(), 4) < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e), src)


def fsync_path(path, flags=os.O_RDONLY):
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def do_op(root, m, op):
    k = op["op"]
    p = os.path.join(root, op.get("p", ""))
    parent = os.path.dirname(p)
    if k == "mkdir":
        os.mkdir(p)
    elif k == "rmdir":
        os.rmdir(p)
    elif k == "create":
        os.close(os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
    elif k == "symlink":
        os.symlink(op["s"], p)
    elif k == "link":
        os.link(os.path.join(root, op["s"]), p)
    elif k == "unlink":
        os.unlink(p)
    elif k == "rename":
        src = os.path.join(root, op["s"])
        if op.get("w"):
            rename_whiteout(src, p)
        else:
            os.rename(src, p)
        fsync_path(os.path.dirname(src))
    elif k == "write":
        data = gen(op["seed"], op["n"])
        fd = os.open(p, os.O_WRONLY)
        try:
            if os.pwrite(fd, data, op["off"]) != len(data):
                raise OSError("short write")
            os.fsync(fd)
        finally:
            os.close(fd)
        return
    elif k == "trunc":
        fd = os.open(p, os.O_WRONLY)
        try:
            os.ftruncate(fd, op["size"])
            os.fsync(fd)
        finally:
            os.close(fd)
        return
    elif k == "falloc":
        libc = ctypes.CDLL(None, use_errno=True)
        libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int,
                                   ctypes.c_int64, ctypes.c_int64]
        fd = os.open(p, os.O_WRONLY)
        try:
            if libc.fallocate(fd, FALLOC[op["mode"]], op["off"],
                              op["n"]) < 0:
                e = ctypes.get_errno()
                raise OSError(e, "fallocate %s: %s" % (op["mode"],
                                                       os.strerror(e)), p)
            os.fsync(fd)
        finally:
            os.close(fd)
        return
    elif k == "burst":
        fd = os.open(p, os.O_WRONLY)
        try:
            for i in range(op["k"]):
                data = gen(op["seed"] + i, op["n"])
                if os.pwrite(fd, data, op["off"]) != len(data):
                    raise OSError("short write")
                os.fsync(fd)
        finally:
            os.close(fd)
        return
    elif k == "churn":
        names = [os.path.join(p, "%s%04d" % (op["pre"], i))
                 for i in range(op["k"])]
        for q in names:
            os.close(os.open(q, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        for q in names:
            os.unlink(q)
        fsync_path(p)
        return
    elif k == "gc":
        r = subprocess.run(["novactl", "gc", root], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        if r.returncode:
            raise OSError("novactl gc: status %d: %s" %
                          (r.returncode, r.stderr.strip()))
        return
    elif k == "mmap":
        do_mmap(p, op)
        return
    elif k == "pmd":
        do_pmd(p, op)
        return
    elif k == "setx":
        os.setxattr(p, op["name"], gen(op["seed"], op["n"]))
        fsync_path(p)
        return
    elif k == "rmx":
        os.removexattr(p, op["name"])
        fsync_path(p)
        return
    elif k == "chattr":
        fd = os.open(p, os.O_RDONLY)
        try:
            fcntl.ioctl(fd, FS_IOC_SETFLAGS, array.array("i", [op["fl"]]))
            os.fsync(fd)
        finally:
            os.close(fd)
        return
    fsync_path(parent)


def do_mmap(path, op):
    """Store through a shared mapping: msync the first range only."""
    off, n, uoff, un = op["off"], op["n"], op["uoff"], op["un"]
    lo = min(off, uoff if un else off) & ~(PAGE - 1)
    hi = max(off + n, uoff + un)
    fd = os.open(path, os.O_RDWR)
    try:
        mm = mmap.mmap(fd, hi - lo, mmap.MAP_SHARED,
                       mmap.PROT_READ | mmap.PROT_WRITE, offset=lo)
        try:
            mm[off - lo:off - lo + n] = gen(op["seed"], n)
            start = (off - lo) & ~(PAGE - 1)
            mm.flush(start, off - lo + n - start)      # msync(MS_SYNC)
            if un:
                mm[uoff - lo:uoff - lo + un] = gen(op["useed"], un)
        finally:
            mm.close()
    finally:
        os.close(fd)


class PmdTrace:
    """The fs_dax PMD faults of one file, in a trace instance of our own."""

    def __init__(self):
        if not os.path.exists(TRACE + "/instances"):
            subprocess.run(["mount", "-t", "tracefs", "nodev", TRACE],
                           stderr=subprocess.DEVNULL)
        self.dir = TRACE + "/instances/crashfs-pmd"
        if not os.path.isdir(self.dir):
            os.mkdir(self.dir)
        ev = self.dir + "/events/fs_dax/dax_pmd_fault_done/enable"
        if not os.path.exists(ev):
            raise SystemExit(pmd_fail("no fs_dax trace events (%s): cannot "
                                      "tell PMD mappings from pages" % ev))
        with open(ev, "w") as f:
            f.write("1")

    def clear(self):
        open(self.dir + "/trace", "w").close()

    def faults(self, ino):
        """(2 MiB index, result) of each PMD fault on inode @ino."""
        out = []
        with open(self.dir + "/trace") as f:
            for line in f:
                w = line.split()
                if "dax_pmd_fault_done:" not in w or "ino" not in w:
                    continue
                if int(w[w.index("ino") + 1], 16) != ino:
                    continue
                pg = int(w[w.index("pgoff") + 1], 16)
                out.append((pg * PAGE // HUGE, w[-1]))
        return out


PMD_TRACE = []


def pmd_fail(msg):
    """Make the boot fail without a crash: a "not ok" line, the console."""
    print("not ok - pmd workload: %s" % msg, flush=True)
    console("nova-crash: pmd workload FAILED: %s" % msg)
    return 1


MAP_SHARED_VALIDATE, MAP_SYNC = 0x03, 0x80000


def do_pmd(path, op):
    """Store through a mapping of the whole file, msync, and check that
    each 2 MiB stored to was mapped by a PMD."""
    if not PMD_TRACE:
        PMD_TRACE.append(PmdTrace())
    tr = PMD_TRACE[0]
    off, n = op["off"], op["n"]
    data = gen(op["seed"], n)
    fd = os.open(path, os.O_RDWR)
    try:
        st = os.fstat(fd)
        flags = MAP_SHARED_VALIDATE | MAP_SYNC if op["sync"] else \
            mmap.MAP_SHARED
        tr.clear()
        mm = mmap.mmap(fd, st.st_size, flags,
                       mmap.PROT_READ | mmap.PROT_WRITE)
        try:
            mm[off:off + n] = data
            mm.flush()                                  # msync(MS_SYNC)
        finally:
            mm.close()
    finally:
        os.close(fd)
    got = tr.faults(st.st_ino)
    want = set(range(off // HUGE, (off + n - 1) // HUGE + 1))
    mapped = set(c for c, r in got if r == "NOPAGE")
    bad = [(c, r) for c, r in got if r != "NOPAGE"]
    if bad or not want <= mapped:
        raise SystemExit(pmd_fail(
            "%s: stores to 2 MiB %s%s, PMD faults %s: not PMD-mapped" % (
                path, sorted(want), " (MAP_SYNC)" if op["sync"] else "",
                got)))


def console(msg):
    with open(os.environ.get("NOVA_CONSOLE", "/dev/console"), "w") as c:
        c.write(msg + "\n")


def cmd_run(a):
    m = Model(json.load(open(a.model)))
    rng = random.Random(a.seed)
    acks = os.open(a.acks, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def log(rec):
        os.write(acks, (json.dumps(rec) + "\n").encode())

    def arm(n):
        with open(FAULT_PARAM, "w") as f:
            f.write(str(n))

    arm_at = GC_ARM_OP if a.workload == "gc" and a.fault else 0
    if a.fault and not arm_at:
        arm(a.fault)
    console("nova-crash: workload %s seed %d running%s" %
            (a.workload, a.seed,
             " (crash after %d barriers%s)" %
             (a.fault, " from operation %d, a novactl gc" % arm_at
              if arm_at else "") if a.fault else ""))
    end = time.time() + a.seconds
    n = 0
    while time.time() < end and n < a.max_ops:
        op = pick_op(m, rng, a.workload)
        n += 1
        if n == arm_at:
            op = {"op": "gc"}
        log({"B": n, "op": op})
        if n == arm_at:
            arm(a.fault)
        do_op(a.root, m, op)
        if n == arm_at:
            with open(FAULT_PARAM) as f:
                left = int(f.read())
            console("nova-crash: the armed novactl gc took %d barriers" %
                    (a.fault - left))
        log({"A": n})
        m.apply(op)
    if a.fault:
        with open(FAULT_PARAM, "w") as f:
            f.write("0")
    log({"end": n})
    json.dump(m.to_json(), open(a.model + ".end", "w"))
    console("nova-crash: workload finished after %d operations without a crash" % n)
    print("# workload finished after %d operations, no crash" % n)


# ---- checking ----

def get_flags(path):
    """The file's chattr flags (FS_IOC_GETFLAGS)."""
    buf = array.array("i", [0])
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.ioctl(fd, FS_IOC_GETFLAGS, buf)
    finally:
        os.close(fd)
    return buf[0]


def scan(root):
    """What is on the file system: rel path -> description."""
    out = {}
    for d, dnames, fnames in os.walk(root):
        for name in dnames + fnames:
            full = os.path.join(d, name)
            rel = os.path.relpath(full, root)
            st = os.lstat(full)
            if stat.S_ISDIR(st.st_mode):
                out[rel] = {"t": "d", "nlink": st.st_nlink}
            elif stat.S_ISLNK(st.st_mode):
                out[rel] = {"t": "l", "s": os.readlink(full)}
            elif stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
                out[rel] = {"t": "w"}           # a whiteout
            elif stat.S_ISREG(st.st_mode):
                with open(full, "rb") as f:
                    data = f.read()
                xa = {n: os.getxattr(full, n) for n in os.listxattr(full)}
                out[rel] = {"t": "f", "ino": st.st_ino, "nlink": st.st_nlink,
                            "data": data, "size": st.st_size, "xattrs": xa,
                            "fl": get_flags(full)}
            else:
                out[rel] = {"t": "?"}
    st = os.lstat(root)
    out[""] = {"t": "d", "nlink": st.st_nlink}
    return out


def short(b):
    return "%d bytes sha256 %s" % (len(b), hashlib.sha256(b).hexdigest()[:12])


def pages_mixed(got, old, new):
    """Each page of a split write is the old or the new one."""
    if not min(len(old), len(new)) <= len(got) <= max(len(old), len(new)):
        return False
    oldp = old[:len(got)] + bytes(max(0, len(got) - len(old)))
    for i in range(0, len(got), PAGE):
        g = got[i:i + PAGE]
        if g != oldp[i:i + PAGE] and g != new[i:i + PAGE]:
            return False
    return True


def bytes_either(got, a, b):
    """Each byte of @got is that of @a or that of @b (equal lengths)."""
    if not len(got) == len(a) == len(b):
        return False
    for i in range(0, len(got), PAGE):
        g, x, y = got[i:i + PAGE], a[i:i + PAGE], b[i:i + PAGE]
        if g != x and g != y and any(
                c != u and c != v for c, u, v in zip(g, x, y)):
            return False
    return True


def compare(m, fs, split=None):
    """Mismatches between model @m and scan @fs; @split: (path, old)."""
    bad = []
    for p in sorted(set(m.paths) | set(fs) - {""}):
        e, g = m.paths.get(p), fs.get(p)
        if e is None:
            bad.append("%s: exists (%s), expected absent" % (p, g["t"]))
            continue
        if g is None:
            bad.append("%s: missing, expected %s" % (p, e["t"]))
            continue
        if e["t"] != g["t"]:
            bad.append("%s: is %s, expected %s" % (p, g["t"], e["t"]))
        elif e["t"] == "l" and e["s"] != g["s"]:
            bad.append("%s: symlink to %d bytes, expected %d" %
                       (p, len(g["s"]), len(e["s"])))
        elif e["t"] == "f":
            want = m.content(e["i"])
            nl = len(m.links(e["i"]))
            if g["data"] != want and not (
                    split and split[0] == e["i"] and
                    pages_mixed(g["data"], split[1], want)) and not (
                    m.fuzzy(e["i"]) and
                    bytes_either(g["data"], want,
                                 m.content(e["i"], fuzzy=False))):
                bad.append("%s: content %s, expected %s" %
                           (p, short(g["data"]), short(want)))
            if g["nlink"] != nl:
                bad.append("%s: %d links, expected %d" % (p, g["nlink"], nl))
            if g["fl"] != m.flags.get(e["i"], 0):
                bad.append("%s: chattr flags 0x%x, expected 0x%x" % (
                    p, g["fl"], m.flags.get(e["i"], 0)))
            want_x = m.xattr_values(e["i"])
            if g["xattrs"] != want_x:
                bad.append("%s: xattrs %s, expected %s" % (
                    p, {k: short(v) for k, v in sorted(g["xattrs"].items())},
                    {k: short(v) for k, v in sorted(want_x.items())}))
    for d in m.dirs():
        if d in fs and fs[d]["t"] == "d":
            sub = sum(1 for c in m.children(d) if m.paths[c]["t"] == "d")
            if fs[d]["nlink"] != 2 + sub:
                bad.append("%s/: %d links, expected %d" %
                           (d, fs[d]["nlink"], 2 + sub))
    # hard links: one inode number per model inode, distinct ones differ
    seen = {}
    for p, e in m.paths.items():
        if e["t"] == "f" and p in fs and fs[p]["t"] == "f":
            seen.setdefault(e["i"], set()).add(fs[p]["ino"])
    inos = [i for s in seen.values() for i in s]
    if any(len(s) != 1 for s in seen.values()) or len(inos) != len(set(inos)):
        bad.append("hard links: paths and inode numbers do not match")
    return bad


def candidates(m, fs, op):
    """The states an interrupted @op may have left, after the old one:
    (model, split, name) triples."""
    k = op["op"]
    if k == "burst":
        # Each write of the burst is atomic: the state after any of them.
        for i in range(op["k"], 0, -1):
            new = m.copy()
            new.apply(dict(op, op="write", seed=op["seed"] + i - 1))
            yield new, None, "state after %d of its %d writes" % (i, op["k"])
        return
    if k == "churn":
        # The names made so far, or those not yet removed again: a
        # prefix or a suffix of the sequence (operations are ordered).
        pre = (op["p"] + "/" if op["p"] else "") + op["pre"]
        found = sorted(p for p in fs if p.startswith(pre) and
                       "/" not in p[len(pre):])
        idx = [int(p[len(pre):]) for p in found
               if p[len(pre):].isdigit()]
        if len(idx) != len(found) or any(
                fs[p]["t"] != "f" or fs[p]["size"] for p in found):
            return
        lo, hi = (min(idx), max(idx) + 1) if idx else (0, 0)
        if idx and (hi - lo != len(idx) or (lo != 0 and hi != op["k"])):
            return
        new = m.copy()
        new.apply(dict(op, left=found))
        yield new, None, "state with %d of its names present" % len(found)
        return
    split = None
    if k == "write" and (
            (op["off"] % PAGE + op["n"] + PAGE - 1) // PAGE > ATOMIC_PAGES):
        ino = m.paths[op["p"]]["i"]
        split = (ino, m.content(ino))
    new = m.copy()
    new.apply(op, inflight=True)
    yield new, split, "new state"


def pin_split(m, before, fs, op):
    """A split write in flight left some batches: make the model say
    what was found (the written range as found, then the size found),
    so that later checks are exact (the tree found is the baseline)."""
    ino = m.paths[op["p"]]["i"]
    got = fs[op["p"]]["data"]
    if got == m.content(ino):
        return
    rec = list(before.inodes[ino])      # the recipe before the write
    off = op["off"]
    part = got[off:off + op["n"]]
    if part:
        rec.append(["x", off, len(part), base64.b64encode(part).decode()])
    rec.append(["t", len(got)])
    m.inodes[ino] = rec
    m.cache.pop(ino, None)
    assert m.content(ino) == got, "pinning a split write"


def cmd_verify(a):
    m = Model(json.load(open(a.model)))
    ops = {}
    acked = []
    finished = False
    if a.acks and os.path.exists(a.acks):
        for line in open(a.acks):
            try:
                rec = json.loads(line)
            except ValueError:
                continue        # a torn last line: the op was not begun
            if "B" in rec:
                ops[rec["B"]] = rec["op"]
            elif "A" in rec:
                acked.append(rec["A"])
            elif "end" in rec:
                finished = True
    inflight = None
    n = 0
    for n in sorted(ops):
        if n in acked:
            m.apply(ops[n])
        elif inflight is None and n == max(ops):
            inflight = ops[n]
        else:
            print("# operation %d begun but neither acknowledged nor last" % n)
            return 1
    fs = scan(a.root)
    print("# %d operations acknowledged%s; %d paths in the model" %
          (len(acked), ", one in flight: " + json.dumps(inflight)[:200]
           if inflight else "", len(m.paths)))
    bad = compare(m, fs)
    state = "old state"
    if bad and inflight:
        for new, split, what in candidates(m, fs, inflight):
            if not compare(new, fs, split):
                if split:
                    pin_split(new, m, fs, inflight)
                m, bad, state = new, [], what
                break
    if bad:
        print("# the file system matches neither the state before nor after the operation in flight; against the state before:")
        for b in bad[:30]:
            print("#   " + b)
        return 1
    if inflight:
        print("# the operation in flight left the %s" % state)
    if finished and inflight:
        print("# the workload finished but an operation is unacknowledged")
        return 1
    m.resolve(fs)
    json.dump(m.to_json(), open(a.out, "w"))
    return 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("model")
    r.add_argument("acks")
    r.add_argument("--root", default="/mnt/nova")
    r.add_argument("--workload", choices=WORKLOADS, default="mix")
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--fault", type=int, default=0)
    r.add_argument("--seconds", type=float, default=90)
    r.add_argument("--max-ops", type=int, default=20000)
    v = sub.add_parser("verify")
    v.add_argument("model")
    v.add_argument("acks", nargs="?")
    v.add_argument("out")
    v.add_argument("--root", default="/mnt/nova")
    i = sub.add_parser("init")
    i.add_argument("out")
    a = ap.parse_args()
    if a.cmd == "run":
        cmd_run(a)
        return 0
    if a.cmd == "init":
        json.dump(Model().to_json(), open(a.out, "w"))
        return 0
    return cmd_verify(a)


if __name__ == "__main__":
    sys.exit(main())
