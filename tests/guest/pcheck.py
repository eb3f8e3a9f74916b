#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The persistence checker (docs/testing.md): crash images from a trace.

  pcheck.py DEV MNT [--workload NAME]... [--states N] [--seed S]
                    [--drops R] [--keep-going] [--json FILE] [--drop-op N]
                    [--recovery-crashes N [--recovery-states M]]
                    [--save-failed PREFIX]

For each workload: format DEV, keep its image (the base), arm the
module's persistence trace (NOVA_CMD_PMTRACE, test module only) for DEV,
mount, run the workload (each operation is followed by fsync/sync and a
trace MARK, and the tree it leaves is remembered), unmount, read the
trace. Then crash states are built from base + trace: for every fence,
the image with every recorded write-back before it; within the interval
after it, the images that lose one of the interval's write-backs (each)
and R random subsets of them. N of those states (all if fewer; else a
seeded sample) are written to DEV in turn, mounted (recovery runs),
compared with the tree after the acknowledged operations (the in-flight
operation may or may not be there), unmounted and checked with
fsck.NOVA -n. Prints one TAP-friendly summary line per workload:

  workload NAME: states S tried, P passed, F failed (records R, fences K)

and the first failures in detail (the state: fence index, the records
dropped with their device offsets; the symptom). With --recovery-crashes
N, the first N passing states of a workload that have an open journal
transaction are mounted once more with the trace armed, and the crash
states of that recovering mount (M of them) must recover as well: a power
cut during recovery loses nothing either. Exit 1 if any state
failed or the trace was incomplete. --drop-op N is the checker's own
check: it removes the write-backs of operation N (1-based) from the trace,
as if NOVA had never flushed them, and the states after it must fail.
"""
import argparse
import ctypes
import errno
import fcntl
import gzip
import hashlib
import importlib.util
import json
import os
import random
import stat
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "genl_client", os.path.join(HERE, "genl-client.py"))
gc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gc)

# Journal pointers (uapi/nova_format.h): block 2, one of 64 bytes a CPU.
JOURNAL_PTRS, JOURNAL_PTR_SIZE = 2 * 4096, 64
NOVA_CMD_PMTRACE = 18
NOVA_A_PMTRACE = 14
(A_OP, A_BDEV, A_SIZE, A_VALUE, A_STATE, A_RECORDS, A_BYTES, A_LOST,
 A_TYPE, A_OFFSET, A_DATA) = range(2, 13)
OP_ARM, OP_STOP, OP_FREE, OP_MARK, OP_STATUS = 1, 2, 3, 4, 5
REC_FLUSH, REC_FENCE, REC_MARK = 1, 2, 3
BLKFLSBUF = 0x1261

libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_char_p]
libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]


class Trace:
    """NOVA_CMD_PMTRACE through a raw generic netlink socket."""

    def __init__(self):
        self.g = gc.Genl()
        fam, res = self.g.family("nova")
        if fam is None:
            raise RuntimeError("no nova genl family: %s" % res)
        self.fam = fam["id"]

    def op(self, op, **kw):
        inner = gc.nla(A_OP, struct.pack("=I", op))
        if "bdev" in kw:
            inner += gc.nla(A_BDEV, struct.pack("=Q", kw["bdev"]))
        if "size" in kw:
            inner += gc.nla(A_SIZE, struct.pack("=I", kw["size"]))
        if "value" in kw:
            inner += gc.nla(A_VALUE, struct.pack("=Q", kw["value"]))
        res = self.g.request(self.fam, NOVA_CMD_PMTRACE,
                             gc.NLM_F_REQUEST | gc.NLM_F_ACK,
                             gc.nla(NOVA_A_PMTRACE | gc.NLA_F_NESTED, inner))
        if res["errno"]:
            raise RuntimeError("NOVA_CMD_PMTRACE op %d: %s (%s)" %
                               (op, res["name"], res["extack"]))
        return res

    def status(self):
        res = self.op(OP_STATUS)
        out = {}
        for at, _, p in gc.parse_attrs(gc._raw_attrs(res)):
            if at == NOVA_A_PMTRACE:
                for t, _, v in gc.parse_attrs(p):
                    out[t] = int.from_bytes(v[:8], "little")
        return out

    def dump(self):
        """[(type, offset or mark value, data)] in trace order."""
        seq = self.g.send(self.fam, NOVA_CMD_PMTRACE,
                          gc.NLM_F_REQUEST | gc.NLM_F_DUMP, b"")
        recs = []
        sk = self.g.sk
        while True:
            data = sk.recv(1 << 20)
            off = 0
            while off + 16 <= len(data):
                mlen, mtype, _, mseq, _ = struct.unpack_from("=IHHII", data,
                                                             off)
                body = data[off + 16:off + mlen]
                off += gc.align4(mlen)
                if mseq != seq:
                    continue
                if mtype == gc.NLMSG_DONE:
                    return recs
                if mtype == gc.NLMSG_ERROR:
                    (err,) = struct.unpack_from("=i", body)
                    raise RuntimeError("trace dump: %s" % os.strerror(-err))
                for at, _, p in gc.parse_attrs(body[4:]):
                    if at != NOVA_A_PMTRACE:
                        continue
                    d = {t: v for t, _, v in gc.parse_attrs(p)}
                    t = struct.unpack("=I", d[A_TYPE][:4])[0]
                    if t == REC_FLUSH:
                        recs.append((t, struct.unpack("=Q", d[A_OFFSET])[0],
                                     bytes(d[A_DATA])))
                    elif t == REC_MARK:
                        recs.append((t, struct.unpack("=Q", d[A_VALUE])[0],
                                     None))
                    else:
                        recs.append((t, 0, None))


def mount(dev, mnt, opts=""):
    if libc.mount(dev.encode(), mnt.encode(), b"NOVA", 0,
                  opts.encode() if opts else None) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "mount %s: %s" % (dev, os.strerror(e)))


def umount(mnt):
    if libc.umount2(mnt.encode(), 0) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "umount %s: %s" % (mnt, os.strerror(e)))


def read_dev(dev):
    fd = os.open(dev, os.O_RDONLY)
    try:
        fcntl.ioctl(fd, BLKFLSBUF)
        size = os.lseek(fd, 0, os.SEEK_END)
        out = bytearray(size)
        mv = memoryview(out)
        got = 0
        while got < size:
            n = os.preadv(fd, [mv[got:got + (8 << 20)]], got)
            if n <= 0:
                raise OSError("short read of " + dev)
            got += n
        return out
    finally:
        os.close(fd)


FS_IOC_FSGETXATTR = 0x801C581F		# _IOR('X', 31, struct fsxattr)
FS_IOC_FSSETXATTR = 0x401C5820		# _IOW('X', 32, struct fsxattr)
FS_XFLAG_NOATIME = 0x40
FS_XFLAG_NODUMP = 0x80
FSXATTR = "=5I8x"			# xflags, extsize, nextents, projid, cowextsize
FALLOC = {"punch": 0x2 | 0x1, "zero": 0x10, "collapse": 0x8, "insert": 0x20}
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_longlong,
                           ctypes.c_longlong]


def get_fsxattr(fd):
    buf = bytearray(struct.calcsize(FSXATTR))
    fcntl.ioctl(fd, FS_IOC_FSGETXATTR, buf)
    return list(struct.unpack(FSXATTR, buf))


def meta(p, st):
    """Mode, owner, extended attributes (ACLs included), chattr flags and
    project id: what the attrs workload changes, compared everywhere."""
    xattrs = []
    for n in sorted(os.listxattr(p, follow_symlinks=False)):
        v = os.getxattr(p, n, follow_symlinks=False)
        xattrs.append((n, len(v), hashlib.sha1(v).hexdigest()[:12]))
    fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        fsx = get_fsxattr(fd)
        flags = (fsx[0], fsx[3])
    except OSError as ex:		# e.g. a snapshot view without the ioctl
        flags = ("errno", ex.errno)
    finally:
        os.close(fd)
    return (stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid, tuple(xattrs),
            flags)


def tree(root):
    """What the checker compares: names, kinds, contents, link counts, and
    each file's and directory's meta() (symlinks: their target)."""
    out = {}
    for d, dirs, files in os.walk(root):
        dirs.sort()
        rel = os.path.relpath(d, root)
        for name in sorted(dirs + files):
            p = os.path.join(d, name)
            r = os.path.normpath(os.path.join(rel, name))
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                out[r] = ("l", os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                out[r] = ("d", meta(p, st))
            else:
                with open(p, "rb") as f:
                    h = hashlib.sha1(f.read()).hexdigest()
                out[r] = ("f", st.st_size, st.st_nlink, h, meta(p, st))
    return out


def describe_diff(got, want):
    lines = []
    for k in sorted(set(got) | set(want)):
        if got.get(k) != want.get(k):
            lines.append("%s: got %s, want %s" % (k, got.get(k), want.get(k)))
        if len(lines) >= 4:
            break
    return "; ".join(lines)


# ---- workloads: each a list of single-syscall operations ----

def data(n, tag):
    """Exactly n bytes, "tag:" repeated."""
    unit = ("%s:" % tag).encode()
    return (unit * (n // len(unit) + 1))[:n]


def w_create_unlink(rng):
    ops = [("mkdir", "a"), ("mkdir", "b")]
    live = []
    for i in range(40):
        if live and rng.random() < 0.35:
            ops.append(("unlink", live.pop(rng.randrange(len(live)))))
        else:
            p = "%s/f%d" % (rng.choice("ab"), i)
            ops.append(("create", p))
            ops.append(("write", p, 0, data(rng.choice([10, 300, 5000]),
                                            "c%d" % i)))
            live.append(p)
    return ops


def w_rename(rng):
    ops = [("mkdir", "x"), ("mkdir", "y"), ("mkdir", "x/z")]
    names = []
    for i in range(8):
        p = "x/f%d" % i
        ops += [("create", p), ("write", p, 0, data(200, "r%d" % i))]
        names.append(p)
    for i in range(24):
        src = rng.randrange(len(names))
        dst = "%s/g%d" % (rng.choice(["x", "y", "x/z"]), i)
        if rng.random() < 0.3 and len(names) > 1:
            other = rng.randrange(len(names))
            if other != src:	# rename over an existing file
                dst = names[other]
                names.pop(other)
                if other < src:
                    src -= 1
        ops.append(("rename", names[src], dst))
        names[src] = dst
    ops.append(("rename", "x/z", "y/z"))
    return ops


def w_overwrite_append(rng):
    ops = [("create", "log"), ("create", "db")]
    ops.append(("write", "db", 0, data(3 * 4096, "base")))
    size = 0
    for i in range(30):
        if rng.random() < 0.5:
            n = rng.choice([17, 100, 4096, 6000])
            ops.append(("write", "log", size, data(n, "a%d" % i)))
            size += n
        else:
            off = rng.randrange(0, 3 * 4096 - 100)
            ops.append(("write", "db", off, data(rng.choice([8, 100, 4096]),
                                                 "o%d" % i)))
    return ops


def w_truncate(rng):
    ops = [("create", "t"), ("write", "t", 0, data(20000, "t0"))]
    for i in range(20):
        if rng.random() < 0.5:
            ops.append(("truncate", "t", rng.randrange(0, 24000)))
        else:
            ops.append(("write", "t", rng.randrange(0, 16000),
                        data(rng.choice([50, 4096, 9000]), "t%d" % i)))
    return ops


def w_links(rng):
    ops = [("mkdir", "d"), ("create", "d/f"), ("write", "d/f", 0,
                                                 data(500, "L"))]
    for i in range(12):
        ops.append(("link", "d/f", "d/h%d" % i))
        ops.append(("symlink", "f", "d/s%d" % i))
        if i % 3 == 2:
            ops.append(("unlink", "d/h%d" % (i - 1)))
            ops.append(("unlink", "d/s%d" % (i - 2)))
    ops.append(("unlink", "d/f"))
    return ops


def w_mkdir_rmdir(rng):
    ops = []
    dirs = []
    for i in range(40):
        if dirs and rng.random() < 0.4:
            d = dirs.pop(rng.randrange(len(dirs)))
            if not any(x.startswith(d + "/") for x in dirs):
                ops.append(("rmdir", d))
            else:
                dirs.append(d)
        else:
            parent = rng.choice(dirs) if dirs and rng.random() < 0.5 else ""
            d = os.path.join(parent, "m%d" % i) if parent else "m%d" % i
            ops.append(("mkdir", d))
            dirs.append(d)
    return ops


def w_snapshot(rng):
    """Snapshots taken, kept and deleted while files change under them.

    Mounted with snapdir=visible, so the tree the checker compares holds
    every live snapshot's view (.snapshots/NAME/...) too: a crash state
    must show each snapshot as it was taken. A file unlinked while a
    snapshot keeps it, and deleted snapshots whose space the background
    reclaim frees while later operations run, are part of it.
    """
    ops = [("create", "s"), ("write", "s", 0, data(3 * 4096, "s0")),
           ("mkdir", "d")]
    for i in range(1, 7):
        ops.append(("create", "d/u%d" % i))
        ops.append(("write", "d/u%d" % i, 0, data(700, "u%d" % i)))
        ops.append(("snapshot", "p%d" % i))
        for j in range(3):
            ops.append(("write", "s", rng.randrange(0, 3 * 4096 - 100),
                        data(rng.choice([8, 100, 4096]), "s%d.%d" % (i, j))))
        ops.append(("unlink", "d/u%d" % i))
        if i >= 3:
            ops.append(("snapdel", "p%d" % (i - 2)))
    return ops


def w_gc(rng):
    """Log garbage collection between small overwrites (most of each log
    page's entries superseded), with a snapshot that keeps some of them.
    """
    ops = [("create", "g"), ("write", "g", 0, data(2 * 4096, "g0")),
           ("create", "h"), ("write", "h", 0, data(100, "h0"))]
    for r in range(3):
        for i in range(50):
            f = "g" if i % 5 else "h"
            size = 2 * 4096 if f == "g" else 100
            ops.append(("write", f, rng.randrange(0, size - 8),
                        data(8, "%d.%d" % (r, i))))
        if r == 1:
            ops.append(("snapshot", "keep"))
        ops.append(("gc",))
    ops.append(("snapdel", "keep"))
    ops.append(("gc",))
    return ops


def w_attrs(rng):
    """Metadata operations: mode, owner, extended attributes (values small
    enough for the log entry and page-sized ones), a POSIX ACL (setfacl
    sets the ACL and the mode), chattr flags and project ids through
    FS_IOC_FSSETXATTR (the first project id upgrades the format), and the
    fallocate modes on a file of 3 to 10 blocks. Each must be atomic
    across a power cut.
    """
    B = 4096
    files = ["f0", "d/f1", "d/f2"]
    ops = [("mkdir", "d")]
    for i, f in enumerate(files):
        ops += [("create", f), ("write", f, 0, data(300, "m%d" % i))]
    ops += [("create", "b"), ("write", "b", 0, data(6 * B, "b0"))]
    size = 6 * B
    have = {}				# path -> xattr names set
    for i in range(40):
        p = rng.choice(files + ["d"])
        k = rng.randrange(10)
        if k == 0:
            ops.append(("chmod", p, rng.choice([0o600, 0o640, 0o755, 0o444])))
        elif k == 1:
            ops.append(("chown", p, rng.randrange(1000, 1004),
                        rng.randrange(1000, 1004)))
        elif k in (2, 3) or (k == 4 and not have.get(p)):
            n = "user.k%d" % rng.randrange(4)
            have.setdefault(p, set()).add(n)
            ops.append(("setxattr", p, n,
                        data(rng.choice([8, 200, 3000]), "x%d" % i)))
        elif k == 4:
            n = rng.choice(sorted(have[p]))
            have[p].discard(n)
            ops.append(("rmxattr", p, n))
        elif k == 5:
            ops.append(("acl", p, "u:%d:r" % (2000 + i)))
        elif k == 6:
            ops.append(("fsx", p, rng.choice([0, 7, 42]),
                        rng.choice([0, FS_XFLAG_NOATIME, FS_XFLAG_NODUMP])))
        else:
            mode = rng.choice(["punch", "zero", "collapse", "insert"])
            if mode == "collapse" and size <= 3 * B:
                mode = "insert"
            if mode == "insert" and size >= 10 * B:
                mode = "collapse"
            if mode in ("punch", "zero"):
                off = rng.randrange(0, size - 100)
                n = rng.choice([100, B, 2 * B + 10])
            else:
                off = B * rng.randrange(0, size // B - 1)
                n = B
                size += n if mode == "insert" else -n
            ops.append(("falloc", "b", mode, off, n))
    return ops


WORKLOADS = {
    "create-unlink": w_create_unlink,
    "rename": w_rename,
    "overwrite-append": w_overwrite_append,
    "truncate": w_truncate,
    "links": w_links,
    "mkdir-rmdir": w_mkdir_rmdir,
    "snapshot": w_snapshot,
    "gc": w_gc,
    "attrs": w_attrs,
}

# Mount options of a workload (its run and every crash state's mount).
MOUNT_OPTS = {
    "snapshot": "snapdir=visible",
    "gc": "snapdir=visible",
}


def novactl(*argv):
    """A control-plane operation through the CLI, as an operator runs it."""
    r = subprocess.run(["novactl"] + list(argv), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, check=False)
    if r.returncode != 0:
        raise OSError("novactl %s: exit %d: %s" % (
            " ".join(argv), r.returncode,
            r.stdout.decode(errors="replace").strip()))


def set_fsxattr(p, projid, xflags):
    """chattr -p PROJID and the noatime/nodump flags, in one ioctl."""
    fd = os.open(p, os.O_RDONLY)
    try:
        fsx = get_fsxattr(fd)
        fsx[0] = (fsx[0] & ~(FS_XFLAG_NOATIME | FS_XFLAG_NODUMP)) | xflags
        fsx[3] = projid
        fcntl.ioctl(fd, FS_IOC_FSSETXATTR, struct.pack(FSXATTR, *fsx))
    finally:
        os.close(fd)


def fallocate(p, mode, off, n):
    fd = os.open(p, os.O_WRONLY)
    try:
        if libc.fallocate(fd, FALLOC[mode], off, n) != 0:
            e = ctypes.get_errno()
            raise OSError(e, "fallocate %s %d %d: %s" % (
                mode, off, n, os.strerror(e)))
        os.fsync(fd)
    finally:
        os.close(fd)


def run_op(root, op):
    kind = op[0]
    p = os.path.join(root, op[1]) if len(op) > 1 else root
    if kind == "mkdir":
        os.mkdir(p)
    elif kind == "rmdir":
        os.rmdir(p)
    elif kind == "create":
        os.close(os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
    elif kind == "write":
        fd = os.open(p, os.O_WRONLY)
        try:
            if os.pwrite(fd, op[3], op[2]) != len(op[3]):
                raise OSError("short write")
            os.fsync(fd)
        finally:
            os.close(fd)
        return
    elif kind == "truncate":
        os.truncate(p, op[2])
    elif kind == "unlink":
        os.unlink(p)
    elif kind == "rename":
        os.rename(p, os.path.join(root, op[2]))
    elif kind == "link":
        os.link(p, os.path.join(root, op[2]))
    elif kind == "symlink":
        os.symlink(op[1], os.path.join(root, op[2]))
    elif kind == "snapshot":
        novactl("snapshot", "create", "--name", op[1], root)
    elif kind == "snapdel":
        novactl("snapshot", "delete", root, op[1])
    elif kind == "gc":
        novactl("gc", root)
    elif kind == "chmod":
        os.chmod(p, op[2])
    elif kind == "chown":
        os.chown(p, op[2], op[3])
    elif kind == "setxattr":
        os.setxattr(p, op[2], op[3])
    elif kind == "rmxattr":
        os.removexattr(p, op[2])
    elif kind == "acl":
        subprocess.run(["setfacl", "-m", op[2], p], check=True)
    elif kind == "fsx":
        set_fsxattr(p, op[2], op[3])
    elif kind == "falloc":
        fallocate(p, op[2], op[3], op[4])
    else:
        raise ValueError(kind)
    os.sync()


# ---- crash states ----

def crash_states(recs, drops, rng):
    """[(fence index, interval start, interval end, dropped tuple)].

    The interval after fence k holds the write-backs between fence k and
    fence k + 1 (records recs[s:e]); a state applies everything before s
    and the interval's records except the dropped ones (indexes into
    recs). "All dropped" is the crash right after fence k.
    """
    states = []
    fences = [i for i, r in enumerate(recs) if r[0] == REC_FENCE]
    bounds = [-1] + fences + [len(recs)]
    for k in range(len(bounds) - 1):
        s, e = bounds[k] + 1, bounds[k + 1]
        flushes = [i for i in range(s, e) if recs[i][0] == REC_FLUSH]
        seen = set()

        def add(dropped):
            key = tuple(sorted(dropped))
            if key in seen:
                return
            seen.add(key)
            states.append((k, s, e, key))
        add(flushes)			# nothing of the interval
        if not flushes:
            continue
        # a drop that later records of the interval fully cover changes
        # nothing: skip it
        lines_after = set()
        covered = {}
        for i in reversed(flushes):
            _, off, d = recs[i]
            mine = set(range(off // 64, (off + len(d)) // 64))
            covered[i] = mine <= lines_after
            lines_after |= mine
        for i in flushes:
            if not covered[i] and len(flushes) > 1:
                add([i])
        if len(flushes) > 2:
            for _ in range(drops):
                n = rng.randrange(1, len(flushes))
                add(rng.sample(flushes, n))
    return states


class Device:
    def __init__(self, dev):
        self.dev = dev
        self.fd = os.open(dev, os.O_RDWR)

    def write_image(self, img, extra):
        """The whole image, then @extra [(offset, bytes)], durable."""
        mv = memoryview(img)
        off = 0
        while off < len(img):
            off += os.pwrite(self.fd, mv[off:off + (8 << 20)], off)
        for o, d in extra:
            os.pwrite(self.fd, d, o)
        os.fsync(self.fd)


def apply_records(img, recs, applied, s):
    """Write the write-backs of recs[applied:s] into @img; returns s."""
    for r in recs[applied:s]:
        if r[0] == REC_FLUSH:
            img[r[1]:r[1] + len(r[2])] = r[2]
    return max(applied, s)


def sample_states(states, n, rng):
    """@n of @states (all if n is 0 or not fewer), in trace order."""
    if not n or len(states) <= n:
        return states
    return [states[i] for i in sorted(rng.sample(range(len(states)), n))]


def state_extra(recs, state):
    """The write-backs of @state's interval that reach the medium."""
    _, s, e, dropped = state
    drop = set(dropped)
    return [(recs[i][1], recs[i][2]) for i in range(s, e)
            if recs[i][0] == REC_FLUSH and i not in drop]


def save_state(prefix, name, img, recs, state):
    """Keep a failing state's image (gzip) for fsck.NOVA -v and a mount."""
    path = "%s-%s.img.gz" % (prefix, name)
    out = bytearray(img)
    for o, d in state_extra(recs, state):
        out[o:o + len(d)] = d
    with gzip.open(path, "wb", compresslevel=1) as f:
        f.write(out)
    return path


def fsck_symptom(fsck, dev, what, width):
    """'' if fsck.NOVA -n finds @dev clean, else the symptom."""
    r = subprocess.run([fsck, "-n", dev], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, check=False)
    if r.returncode == 0:
        return ""
    return "%s, exit %d: %s" % (
        what, r.returncode, r.stdout.decode(errors="replace").strip()
        .replace("\n", " | ")[:width])


def check_state(args, devw, img, extra, acked, trees, fsck, opts):
    """'' if the image @img with @extra written over it passes, else the
    symptom: it must mount, show the tree after @acked operations or the
    one after, and fsck.NOVA -n clean after the unmount."""
    devw.write_image(img, extra)
    if args.fsck_first:
        # The image as the cut left it, before recovery rewrites anything:
        # with the allocation bitmap, every block in use must have its bit.
        symptom = fsck_symptom(fsck, args.dev,
                               "fsck.NOVA -n before the mount", 600)
        if symptom:
            return symptom
    try:
        mount(args.dev, args.mnt, opts)
    except OSError as ex:
        return "mount failed: %s" % ex
    try:
        got = tree(args.mnt)
    except OSError as ex:
        got = None
        symptom = "reading the tree: %s" % ex
    try:
        umount(args.mnt)
    except OSError as ex:
        return "umount failed: %s" % ex
    a = acked
    if got is not None:
        ok = [a + j for j in (0, 1) if a + j < len(trees)]
        if not any(got == trees[j] for j in ok):
            symptom = ("tree is neither after op %d nor op %d: %s" %
                       (a, a + 1, describe_diff(got, trees[a])))
        else:
            symptom = ""
    if symptom:
        return symptom
    return fsck_symptom(fsck, args.dev, "fsck.NOVA -n", 300)


def journal_open(img, extra):
    """Whether an image (@img with @extra over it) has an open journal
    transaction: a journal pointer (block 2, 64 bytes a CPU) whose head
    and tail differ."""
    ptrs = bytearray(img[JOURNAL_PTRS:JOURNAL_PTRS + 4096])
    for o, d in extra:
        lo = max(o, JOURNAL_PTRS)
        hi = min(o + len(d), JOURNAL_PTRS + 4096)
        if lo < hi:
            ptrs[lo - JOURNAL_PTRS:hi - JOURNAL_PTRS] = d[lo - o:hi - o]
    return any(struct.unpack_from("<QQ", ptrs, i)[0] !=
               struct.unpack_from("<QQ", ptrs, i)[1]
               for i in range(0, 4096, JOURNAL_PTR_SIZE))


def recovery_crashes(args, tr, devw, simg, acked, trees, fsck, opts, rng):
    """Crash the recovering mount of crash state @simg: trace the mount
    (the recovery's write-backs and fences), then every crash state of
    that trace (a sample of --recovery-states) must recover again to the
    same trees and fsck clean. Returns (tried, [symptoms])."""
    devw.write_image(simg, [])
    try:
        tr.op(OP_FREE)
    except RuntimeError:
        pass
    tr.op(OP_ARM, bdev=os.stat(args.dev).st_rdev, size=args.trace_mib)
    try:
        try:
            mount(args.dev, args.mnt, opts)
        except OSError as ex:
            return 1, ["the recovering mount failed: %s" % ex]
        tr.op(OP_STOP)
        rrecs = tr.dump()
        umount(args.mnt)
    finally:
        tr.op(OP_FREE)
    states = sample_states(crash_states(rrecs, args.drops, rng),
                           args.recovery_states, rng)
    img = bytearray(simg)
    applied, bad = 0, []
    for st in states:
        k, s, _, dropped = st
        applied = apply_records(img, rrecs, applied, s)
        symptom = check_state(args, devw, img, state_extra(rrecs, st),
                              acked, trees, fsck, opts)
        if symptom:
            bad.append("recovery fence %d, %d write-backs dropped: %s" %
                       (k, len(dropped), symptom))
    return len(states), bad


def run_workload(args, name, tr, fsck, out):
    rng = random.Random("%s:%d" % (name, args.seed))
    ops = WORKLOADS[name](rng)
    opts = MOUNT_OPTS.get(name, "")
    dev, mnt = args.dev, args.mnt
    mount(dev, mnt, ",".join(["init=force"] + args.init_opts))
    umount(mnt)
    base = read_dev(dev)
    rdev = os.stat(dev).st_rdev
    t0 = time.time()
    try:
        tr.op(OP_FREE)
    except RuntimeError:
        pass
    tr.op(OP_ARM, bdev=rdev, size=args.trace_mib)
    try:
        mount(dev, mnt, opts)
        try:
            trees = [tree(mnt)]
            for i, op in enumerate(ops):
                run_op(mnt, op)
                tr.op(OP_MARK, value=i + 1)
                trees.append(tree(mnt))
        finally:
            # also after a failed operation: the next workload needs it
            umount(mnt)
        tr.op(OP_STOP)
        st = tr.status()
        recs = tr.dump()
    finally:
        tr.op(OP_FREE)
    if args.drop_bitmap:
        # self-check: a NOVA that never wrote its allocation bitmap back
        # (every crash state with a new block in use must then fail)
        start = int.from_bytes(base[232:240], "little") * 4096
        end = start + int.from_bytes(base[240:248], "little") * 4096
        recs = [r for r in recs if not (r[0] == REC_FLUSH and
                                        r[1] < end and r[1] + len(r[2]) > start)]
    if args.drop_op:
        # self-check: the trace of a NOVA that never wrote back anything
        # for operation N (the checker must find the lost operation)
        n, keep = 0, []
        for r in recs:
            if r[0] == REC_MARK:
                n += 1
            if not (r[0] == REC_FLUSH and n == args.drop_op - 1):
                keep.append(r)
        recs = keep
    lost = st.get(A_LOST, 0)
    nflush = sum(1 for r in recs if r[0] == REC_FLUSH)
    nfence = sum(1 for r in recs if r[0] == REC_FENCE)
    marks = [r[1] for r in recs if r[0] == REC_MARK]
    res = {"workload": name, "ops": len(ops), "records": nflush,
           "fences": nfence, "tried": 0, "passed": 0, "failed": 0,
           "failures": [], "recovery_states": 0, "recovery_tried": 0}
    out.append(res)
    if lost or marks != list(range(1, len(ops) + 1)):
        res["error"] = "incomplete trace (lost %s, marks %d of %d)" % (
            lost, len(marks), len(ops))
        print("workload %s: %s" % (name, res["error"]))
        return
    # marks_before[e]: operations acknowledged before record e
    marks_before = [0] * (len(recs) + 1)
    n = 0
    for i, r in enumerate(recs):
        marks_before[i] = n
        if r[0] == REC_MARK:
            n += 1
    marks_before[len(recs)] = n
    states = crash_states(recs, args.drops, rng)
    total = len(states)
    states = sample_states(states, args.states, rng)
    devw = Device(dev)
    img = bytearray(base)
    applied = 0		# records of recs[:applied] are in img
    t1 = time.time()
    for state in states:
        k, s, e, dropped = state
        applied = apply_records(img, recs, applied, s)
        extra = state_extra(recs, state)
        symptom = check_state(args, devw, img, extra, marks_before[e],
                              trees, fsck, opts)
        res["tried"] += 1
        if symptom:
            res["failed"] += 1
            desc = {"fence": k, "records": [s, e],
                    "dropped": [(i, recs[i][1], len(recs[i][2]))
                                for i in dropped][:8],
                    "acknowledged_ops": marks_before[e],
                    "symptom": symptom}
            res["failures"].append(desc)
            if args.save_failed and len(res["failures"]) == 1:
                desc["image"] = save_state(args.save_failed, name, img,
                                           recs, state)
            if len(res["failures"]) <= 3:
                print("FAIL %s state %s" % (name, json.dumps(desc)))
            if not args.keep_going and res["failed"] >= 20:
                break
        else:
            res["passed"] += 1
            if (res["recovery_states"] < args.recovery_crashes and
                    journal_open(img, extra)):
                simg = bytearray(img)
                for o, d in extra:
                    simg[o:o + len(d)] = d
                n, bad = recovery_crashes(args, tr, devw, simg,
                                          marks_before[e], trees, fsck,
                                          opts, rng)
                res["recovery_states"] += 1
                res["recovery_tried"] += n
                res["failed"] += len(bad)
                for b in bad[:3]:
                    desc = {"fence": k, "acknowledged_ops": marks_before[e],
                            "symptom": b}
                    res["failures"].append(desc)
                    print("FAIL %s state %s" % (name, json.dumps(desc)))
    os.close(devw.fd)
    res["all_states"] = total
    res["trace_seconds"] = round(t1 - t0, 1)
    res["check_seconds"] = round(time.time() - t1, 1)
    print("workload %s: states %d tried, %d passed, %d failed "
          "(of %d; %d ops, %d records, %d fences; %.1f s, %.0f ms/state)%s" %
          (name, res["tried"], res["passed"], res["failed"], total,
           len(ops), nflush, nfence, res["check_seconds"],
           1000 * res["check_seconds"] / max(res["tried"], 1),
           "; %d crash states of %d recovering mounts (open journal)" %
           (res["recovery_tried"], res["recovery_states"])
           if args.recovery_crashes else ""))
    sys.stdout.flush()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dev")
    p.add_argument("mnt")
    p.add_argument("--workload", action="append")
    p.add_argument("--states", type=int, default=0,
                   help="states per workload (0: all)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--drops", type=int, default=4,
                   help="random multi-record drops per fence interval")
    p.add_argument("--trace-mib", type=int, default=256)
    p.add_argument("--keep-going", action="store_true")
    p.add_argument("--json")
    p.add_argument("--drop-op", type=int, default=0,
                   help="self-check: remove operation N's write-backs")
    p.add_argument("--fsck", default="fsck.NOVA")
    p.add_argument("--init-opt", dest="init_opts", action="append",
                   default=[], help="another option for the format's "
                   "mount (init=force,OPT), e.g. alloc_bitmap")
    p.add_argument("--drop-bitmap", action="store_true",
                   help="self-check: remove the allocation bitmap's "
                   "write-backs (the format's must have --init-opt "
                   "alloc_bitmap)")
    p.add_argument("--fsck-first", action="store_true",
                   help="also run fsck.NOVA -n on each crash state before "
                   "mounting it (the allocation bitmap's rule)")
    p.add_argument("--recovery-crashes", type=int, default=0, metavar="N",
                   help="for the first N passing states of a workload with "
                   "an open journal transaction, also crash the recovering "
                   "mount (its own trace's crash states must recover)")
    p.add_argument("--recovery-states", type=int, default=16, metavar="M",
                   help="crash states of each traced recovering mount "
                   "(a sample of M)")
    p.add_argument("--save-failed", metavar="PREFIX",
                   help="write each workload's first failing state's image "
                   "to PREFIX-WORKLOAD.img.gz")
    args = p.parse_args()
    names = args.workload or list(WORKLOADS)
    for n in names:
        if n not in WORKLOADS:
            p.error("unknown workload %s (known: %s)" %
                    (n, ", ".join(WORKLOADS)))
    os.makedirs(args.mnt, exist_ok=True)
    tr = Trace()
    out = []
    for n in names:
        run_workload(args, n, tr, args.fsck, out)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    bad = [r for r in out if r.get("error") or r["failed"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
