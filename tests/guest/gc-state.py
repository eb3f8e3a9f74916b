#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Print everything a file system tree shows, for the GC tests to compare
before and after a collection and a remount (tests/guest/gc-replay.sh).

  gc-state.py ROOT

One line per name, in readdir order (so readdir positions count too):
path, inode, type and mode, owner, size, link count, atime, mtime and
ctime in nanoseconds, then the content's sha256 (files), the target
(symlinks) or the device number, and for files the data/hole map that
SEEK_DATA/SEEK_HOLE report. Files are read with O_NOATIME, so reading
does not change what is printed.
"""
import hashlib
import os
import stat
import sys


def extents(fd, size):
    out, pos = [], 0
    while pos < size:
        try:
            d = os.lseek(fd, pos, os.SEEK_DATA)
        except OSError:
            break
        h = os.lseek(fd, d, os.SEEK_HOLE)
        out.append("%d-%d" % (d, h))
        pos = h
    return ",".join(out)


def describe(path, rel):
    st = os.lstat(path)
    line = [rel, str(st.st_ino), "%o" % st.st_mode, "%d:%d" % (st.st_uid, st.st_gid),
            str(st.st_size) if not stat.S_ISDIR(st.st_mode) else "-",
            str(st.st_nlink), str(st.st_atime_ns), str(st.st_mtime_ns),
            str(st.st_ctime_ns)]
    if stat.S_ISREG(st.st_mode):
        fd = os.open(path, os.O_RDONLY | os.O_NOATIME)
        try:
            h = hashlib.sha256()
            while True:
                b = os.read(fd, 1 << 20)
                if not b:
                    break
                h.update(b)
            line += [h.hexdigest(), extents(fd, st.st_size)]
        finally:
            os.close(fd)
    elif stat.S_ISLNK(st.st_mode):
        line.append(os.readlink(path))
    elif stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        line.append("%d:%d" % (os.major(st.st_rdev), os.minor(st.st_rdev)))
    return " ".join(line)


def walk(root, rel=""):
    path = os.path.join(root, rel) if rel else root
    print(describe(path, rel or "."))
    if not stat.S_ISDIR(os.lstat(path).st_mode):
        return
    for name in os.listdir(path):
        walk(root, os.path.join(rel, name) if rel else name)


if __name__ == "__main__":
    walk(sys.argv[1])
