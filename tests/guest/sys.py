#!/usr/bin/env python3
"""Run one system call and report its errno by name, for guest tests.

usage: sys.py OP ARG...

On success prints nothing (or the result) and exits 0; on failure prints
"ERRNO_NAME: message" on stderr and exits 1, which is what t_errno in
tests/guest/lib.sh matches. Ops:

  open PATH FLAGS        FLAGS: '|'-joined O_* names, e.g. O_CREAT|O_EXCL
  mkdir PATH | rmdir PATH | unlink PATH | link OLD NEW | symlink TGT PATH
  rename OLD NEW [noreplace|exchange|whiteout]
  truncate PATH LEN | mknod PATH fifo|sock|chr|blk [MAJ MIN]
  tmpfile DIR            O_TMPFILE in DIR, write, linkat to DIR/tmpfile-linked
  fallocate PATH MODE OFF LEN   MODE: 0 or keep_size or punch_hole
  seek PATH data|hole OFF       prints the resulting offset
  statfs PATH                   prints f_blocks f_bfree f_files f_ffree
"""
import ctypes
import errno
import os
import sys

libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD = -100
RENAME_FLAGS = {"noreplace": 1, "exchange": 2, "whiteout": 4}
FALLOC = {"0": 0, "keep_size": 1, "punch_hole": 3}


def check(ret):
    if ret < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return ret


def op_rename(old, new, flag=None):
    if flag is None:
        os.rename(old, new)
        return
    check(libc.renameat2(AT_FDCWD, old.encode(), AT_FDCWD, new.encode(),
                         RENAME_FLAGS[flag]))


def op_open(path, flags):
    f = 0
    for name in flags.split("|"):
        f |= getattr(os, name)
    os.close(os.open(path, f, 0o644))


def op_mknod(path, kind, major="0", minor="0"):
    import stat
    mode = {"fifo": stat.S_IFIFO, "sock": stat.S_IFSOCK,
            "chr": stat.S_IFCHR, "blk": stat.S_IFBLK}[kind] | 0o644
    os.mknod(path, mode, os.makedev(int(major), int(minor)))


def op_tmpfile(d):
    fd = os.open(d, os.O_TMPFILE | os.O_RDWR, 0o600)
    os.write(fd, b"tmpfile data\n")
    os.link("/proc/self/fd/%d" % fd, os.path.join(d, "tmpfile-linked"),
            follow_symlinks=True)
    os.close(fd)


def op_fallocate(path, mode, off, length):
    fd = os.open(path, os.O_RDWR)
    try:
        check(libc.fallocate(fd, FALLOC[mode], ctypes.c_long(int(off)),
                             ctypes.c_long(int(length))))
    finally:
        os.close(fd)


def op_seek(path, whence, off):
    fd = os.open(path, os.O_RDONLY)
    try:
        w = os.SEEK_DATA if whence == "data" else os.SEEK_HOLE
        print(os.lseek(fd, int(off), w))
    finally:
        os.close(fd)


def op_statfs(path):
    s = os.statvfs(path)
    print(s.f_blocks, s.f_bfree, s.f_files, s.f_ffree)


OPS = {
    "open": op_open,
    "mkdir": lambda p: os.mkdir(p),
    "rmdir": lambda p: os.rmdir(p),
    "unlink": lambda p: os.unlink(p),
    "link": lambda a, b: os.link(a, b),
    "symlink": lambda t, p: os.symlink(t, p),
    "rename": op_rename,
    "truncate": lambda p, n: os.truncate(p, int(n)),
    "mknod": op_mknod,
    "tmpfile": op_tmpfile,
    "fallocate": op_fallocate,
    "seek": op_seek,
    "statfs": op_statfs,
}


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in OPS:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        OPS[sys.argv[1]](*sys.argv[2:])
    except OSError as e:
        name = errno.errorcode.get(e.errno, str(e.errno))
        print("%s: %s" % (name, e.strerror), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
