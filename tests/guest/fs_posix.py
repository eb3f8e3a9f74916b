#!/usr/bin/env python3
"""Syscall-level functional checks of a mounted NOVA file system.

usage: fs_posix.py PHASE MOUNTPOINT

PHASE "ops" runs every check and leaves a known tree behind, described in
MOUNTPOINT/../nova-manifest.json; PHASE "verify" (after umount/mount)
checks that tree again. Prints one line per check: "PASS desc" or
"FAIL desc: what was expected, what was seen"; fs-posix.sh turns them
into TAP.
"""
import ctypes
import errno
import hashlib
import json
import mmap
import os
import stat
import sys
import time
import traceback

libc = ctypes.CDLL(None, use_errno=True)
libc.renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
                           ctypes.c_char_p, ctypes.c_uint]
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long,
                           ctypes.c_long]
AT_FDCWD = -100
RENAME_NOREPLACE, RENAME_EXCHANGE = 1, 2
FALLOC_FL_KEEP_SIZE = 1
MANIFEST = None


def out(ok, desc, detail=""):
    if ok:
        print("PASS %s" % desc)
    else:
        print("FAIL %s: %s" % (desc, detail))
    sys.stdout.flush()


def check(desc, got, want):
    out(got == want, desc, "expected %r, got %r" % (want, got))


def check_errno(desc, want, fn, *args):
    try:
        fn(*args)
    except OSError as e:
        out(e.errno == want, desc, "expected %s, got %s" %
            (errno.errorcode[want], errno.errorcode.get(e.errno, e.errno)))
        return
    out(False, desc, "succeeded, expected %s" % errno.errorcode[want])


def raise_errno(ret):
    if ret < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return ret


def rename2(a, b, flags):
    raise_errno(libc.renameat2(AT_FDCWD, a.encode(), AT_FDCWD, b.encode(),
                               flags))


def linkat_follow(old, new):
    """linkat(AT_SYMLINK_FOLLOW): os.link() does not follow /proc links."""
    raise_errno(libc.linkat(AT_FDCWD, old.encode(), AT_FDCWD, new.encode(),
                            0x400))


def fallocate(path, mode, off, length):
    fd = os.open(path, os.O_RDWR)
    try:
        raise_errno(libc.fallocate(fd, mode, off, length))
    finally:
        os.close(fd)


def write_at(path, off, data, flags=0):
    fd = os.open(path, os.O_RDWR | os.O_CREAT | flags, 0o644)
    try:
        os.pwrite(fd, data, off)
    finally:
        os.close(fd)


def read_all(path):
    with open(path, "rb") as f:
        return f.read()


def pattern(n, seed):
    out_ = bytearray()
    h = hashlib.sha256(str(seed).encode()).digest()
    while len(out_) < n:
        h = hashlib.sha256(h).digest()
        out_ += h
    return bytes(out_[:n])


def files(m):
    d = os.path.join(m, "files")
    os.mkdir(d)
    p = os.path.join(d, "a")
    ref = bytearray()

    def both(off, data):
        nonlocal ref
        write_at(p, off, data)
        if len(ref) < off:
            ref += bytes(off - len(ref))
        ref[off:off + len(data)] = data

    both(0, pattern(10000, 1))
    check("write 10000 bytes, read back", read_all(p), bytes(ref))
    both(4000, pattern(300, 2))
    check("overwrite inside a page keeps head and tail", read_all(p),
          bytes(ref))
    both(4090, pattern(20, 3))
    check("overwrite across a page boundary", read_all(p), bytes(ref))
    both(len(ref), pattern(5000, 4))
    check("append", read_all(p), bytes(ref))
    both(100000, b"end")
    check("write past EOF leaves a hole of zeros", read_all(p), bytes(ref))
    check("size after sparse write", os.stat(p).st_size, 100003)

    fd = os.open(p, os.O_RDONLY)
    check("SEEK_DATA at 0", os.lseek(fd, 0, os.SEEK_DATA), 0)
    check("SEEK_HOLE at 0 is end of data pages", os.lseek(fd, 0, os.SEEK_HOLE),
          16384)
    check("SEEK_DATA in the hole finds the last page",
          os.lseek(fd, 20000, os.SEEK_DATA), 98304)
    check("SEEK_HOLE inside the last page is EOF",
          os.lseek(fd, 99000, os.SEEK_HOLE), 100003)
    check("SEEK_DATA inside data is identity", os.lseek(fd, 5, os.SEEK_DATA),
          5)
    check_errno("SEEK_DATA at EOF", errno.ENXIO, os.lseek, fd, 100003,
                os.SEEK_DATA)
    os.close(fd)

    os.truncate(p, 6000)
    del ref[6000:]
    check("truncate down", read_all(p), bytes(ref))
    os.truncate(p, 9000)
    ref += bytes(3000)
    check("truncate up reads zeros beyond the old end", read_all(p),
          bytes(ref))
    st = os.stat(p)
    check("st_blocks counts data and log pages", st.st_blocks >= 16, True)

    # O_APPEND, O_DIRECT, fsync
    q = os.path.join(d, "app")
    for i in range(3):
        fd = os.open(q, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.write(fd, b"line%d\n" % i)
        os.fsync(fd)
        os.close(fd)
    check("O_APPEND appends", read_all(q), b"line0\nline1\nline2\n")
    r = os.path.join(d, "direct")
    fd = os.open(r, os.O_RDWR | os.O_CREAT | os.O_DIRECT, 0o644)
    buf = mmap.mmap(-1, 8192)
    buf.write(pattern(8192, 5))
    check("O_DIRECT write", os.pwrite(fd, buf, 0), 8192)
    os.close(fd)
    check("O_DIRECT data reads back", read_all(r), pattern(8192, 5))

    # fallocate
    f = os.path.join(d, "falloc")
    write_at(f, 0, b"abc")
    fallocate(f, 0, 0, 3 * 4096 + 10)
    check("fallocate extends the size", os.stat(f).st_size, 3 * 4096 + 10)
    check("fallocate keeps data, zeros the rest", read_all(f),
          b"abc" + bytes(3 * 4096 + 7))
    fallocate(f, FALLOC_FL_KEEP_SIZE, 0, 10 * 4096)
    check("fallocate KEEP_SIZE keeps the size", os.stat(f).st_size,
          3 * 4096 + 10)
    check("fallocate KEEP_SIZE allocates blocks",
          os.stat(f).st_blocks >= 10 * 8, True)
    os.truncate(f, 5 * 4096 + 1)
    check("truncate over preallocated blocks reads zeros", read_all(f),
          b"abc" + bytes(5 * 4096 - 2))
    fallocate(f, 3, 0, 4096)  # punch hole (format 1.5)
    check("punch hole reads zeros, keeps the size", read_all(f),
          bytes(5 * 4096 + 1))
    fd = os.open(f, os.O_RDWR)
    try:
        libc.fallocate(fd, 0x40, 0, 4096)  # FALLOC_FL_UNSHARE_RANGE
        e = ctypes.get_errno()
        check("unshare range is refused with EOPNOTSUPP", e, errno.EOPNOTSUPP)
    finally:
        os.close(fd)

    # superseded entries are collected: the log stays small
    g = os.path.join(d, "gc")
    fd = os.open(g, os.O_RDWR | os.O_CREAT, 0o644)
    for i in range(3000):
        os.pwrite(fd, pattern(4096, i % 7), 0)
        os.fchmod(fd, 0o600 | (i & 0o7))
    os.close(fd)
    check("3000 overwrites + chmods: content", read_all(g), pattern(4096, 2999 % 7))
    check("3000 overwrites + chmods: mode", stat.S_IMODE(os.stat(g).st_mode),
          0o600 | (2999 & 0o7))
    blocks = os.stat(g).st_blocks
    out(blocks <= 8 * 16, "3000 overwrites + chmods: log pages are collected",
        "st_blocks %d (%d pages)" % (blocks, blocks // 8))
    MANIFEST.setdefault("gc", hashlib.sha256(read_all(g)).hexdigest())

    # big write, unaligned
    big = os.path.join(d, "big")
    data = pattern(3 * 1024 * 1024 + 123, 6)
    write_at(big, 77, data)
    check("3 MiB unaligned write", read_all(big), bytes(77) + data)
    check_errno("read on a directory", errno.EISDIR, read_all, d)
    MANIFEST["files"] = {"files/a": hashlib.sha256(ref).hexdigest(),
                         "files/big": hashlib.sha256(bytes(77) + data).hexdigest(),
                         "files/app": hashlib.sha256(b"line0\nline1\nline2\n").hexdigest()}


def names(m):
    d = os.path.join(m, "names")
    os.mkdir(d)
    check_errno("mkdir existing", errno.EEXIST, os.mkdir, d)
    check_errno("open missing", errno.ENOENT, os.open, d + "/nope", os.O_RDONLY)
    check_errno("O_CREAT|O_EXCL on existing", errno.EEXIST, os.open, d,
                os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    open(d + "/f", "w").close()
    check_errno("file as a directory", errno.ENOTDIR, os.mkdir, d + "/f/x")
    check_errno("name of 256 bytes", errno.ENAMETOOLONG, os.mkdir,
                d + "/" + "n" * 256)
    os.mkdir(d + "/" + "n" * 255)
    check("name of 255 bytes works", os.path.isdir(d + "/" + "n" * 255), True)
    os.mkdir(d + "/sub")
    open(d + "/sub/x", "w").close()
    check_errno("rmdir non-empty", errno.ENOTEMPTY, os.rmdir, d + "/sub")
    check_errno("unlink a directory", errno.EISDIR, os.unlink, d + "/sub")
    check_errno("rmdir a file", errno.ENOTDIR, os.rmdir, d + "/f")
    check("directory link count", os.stat(d).st_nlink, 4)
    os.unlink(d + "/sub/x")
    os.rmdir(d + "/sub")
    check("rmdir drops the parent's link count", os.stat(d).st_nlink, 3)
    check_errno("rmdir twice", errno.ENOENT, os.rmdir, d + "/sub")

    # hard links
    os.link(d + "/f", d + "/f2")
    check("link count 2", os.stat(d + "/f").st_nlink, 2)
    os.unlink(d + "/f")
    check("unlink one link keeps the other", os.stat(d + "/f2").st_nlink, 1)
    check_errno("link to existing name", errno.EEXIST, os.link, d + "/f2",
                d + "/f2")
    check_errno("link a directory", errno.EPERM, os.link, d, d + "/dl")

    # symlinks
    os.symlink("short-target", d + "/s1")
    long_t = "/".join(["component%03d" % i for i in range(400)])[:4000]
    os.symlink(long_t, d + "/s2")
    check("fast symlink", os.readlink(d + "/s1"), "short-target")
    check("slow symlink (4000 bytes)", os.readlink(d + "/s2"), long_t)
    check("symlink size", os.lstat(d + "/s2").st_size, 4000)
    check_errno("symlink target of 4096 bytes", errno.ENAMETOOLONG,
                os.symlink, "x" * 4096, d + "/s3")

    # special files
    os.mkfifo(d + "/fifo")
    os.mknod(d + "/sock", stat.S_IFSOCK | 0o600)
    os.mknod(d + "/chr", stat.S_IFCHR | 0o600, os.makedev(1, 3))
    os.mknod(d + "/blk", stat.S_IFBLK | 0o600, os.makedev(259, 65536))
    check("fifo type", stat.S_ISFIFO(os.lstat(d + "/fifo").st_mode), True)
    check("socket type", stat.S_ISSOCK(os.lstat(d + "/sock").st_mode), True)
    check("char device number", os.lstat(d + "/chr").st_rdev,
          os.makedev(1, 3))
    check("block device, large minor", os.lstat(d + "/blk").st_rdev,
          os.makedev(259, 65536))
    with open(d + "/chr", "rb") as f:
        check("char device 1:3 reads as /dev/null", f.read(), b"")

    # O_TMPFILE
    fd = os.open(d, os.O_TMPFILE | os.O_RDWR, 0o600)
    os.write(fd, b"tmpfile data")
    check("O_TMPFILE has no links", os.fstat(fd).st_nlink, 0)
    linkat_follow("/proc/self/fd/%d" % fd, d + "/tmp-linked")
    os.close(fd)
    check("O_TMPFILE linked in", read_all(d + "/tmp-linked"), b"tmpfile data")
    check("linked O_TMPFILE nlink", os.stat(d + "/tmp-linked").st_nlink, 1)
    fd = os.open(d, os.O_TMPFILE | os.O_RDWR, 0o600)
    os.write(fd, pattern(50000, 7))
    os.close(fd)            # never linked: must vanish

    # unlinked but open
    p = d + "/open-unlinked"
    fd = os.open(p, os.O_RDWR | os.O_CREAT, 0o600)
    os.write(fd, b"still here")
    os.unlink(p)
    os.write(fd, b" and more")
    check("unlinked open file stays readable", os.pread(fd, 100, 0),
          b"still here and more")
    os.close(fd)
    check("unlinked file is gone", os.path.exists(p), False)


def renames(m):
    d = os.path.join(m, "ren")
    os.makedirs(d + "/a")
    os.makedirs(d + "/b")
    write_at(d + "/a/f", 0, b"F")
    before = os.stat(d + "/a/f").st_ctime_ns
    time.sleep(0.01)
    os.rename(d + "/a/f", d + "/a/g")
    check("rename in one directory", read_all(d + "/a/g"), b"F")
    check("rename updates the moved file's ctime",
          os.stat(d + "/a/g").st_ctime_ns > before, True)
    check("old name gone", os.path.exists(d + "/a/f"), False)
    os.rename(d + "/a/g", d + "/b/g")
    check("rename across directories", read_all(d + "/b/g"), b"F")
    write_at(d + "/b/h", 0, b"H")
    os.rename(d + "/b/g", d + "/b/h")
    check("rename over a file replaces it", read_all(d + "/b/h"), b"F")
    check("replaced name count", sorted(os.listdir(d + "/b")), ["h"])
    write_at(d + "/a/x", 0, b"X")
    check_errno("RENAME_NOREPLACE on existing", errno.EEXIST, rename2,
                d + "/a/x", d + "/b/h", RENAME_NOREPLACE)
    rename2(d + "/a/x", d + "/b/x", RENAME_NOREPLACE)
    check("RENAME_NOREPLACE to a free name", read_all(d + "/b/x"), b"X")
    os.mkdir(d + "/a/dir")
    open(d + "/a/dir/inner", "w").close()
    rename2(d + "/b/x", d + "/a/dir", RENAME_EXCHANGE)
    check("RENAME_EXCHANGE file <-> dir: file side",
          read_all(d + "/a/dir"), b"X")
    check("RENAME_EXCHANGE file <-> dir: dir side",
          os.listdir(d + "/b/x"), ["inner"])
    check("link count of a after exchange", os.stat(d + "/a").st_nlink, 2)
    check("link count of b after exchange", os.stat(d + "/b").st_nlink, 3)
    check("'..' of the moved directory",
          os.stat(d + "/b/x/..").st_ino, os.stat(d + "/b").st_ino)
    os.mkdir(d + "/a/empty")
    os.rename(d + "/b/x", d + "/a/empty")
    check("rename a dir over an empty dir", os.listdir(d + "/a/empty"),
          ["inner"])
    check("link counts after dir-over-dir", (os.stat(d + "/a").st_nlink,
                                             os.stat(d + "/b").st_nlink), (3, 2))
    os.mkdir(d + "/b/full")
    open(d + "/b/full/z", "w").close()
    check_errno("rename over a non-empty dir", errno.ENOTEMPTY, os.rename,
                d + "/a/empty", d + "/b/full")
    check_errno("rename a dir into itself", errno.EINVAL, os.rename,
                d + "/a/empty", d + "/a/empty/inner2")
    check_errno("rename a file over a dir", errno.EISDIR, os.rename,
                d + "/b/h", d + "/b/full")
    check_errno("rename a dir over a file", errno.ENOTDIR, os.rename,
                d + "/b/full", d + "/b/h")
    write_at(d + "/b/wo", 0, b"wo")
    rename2(d + "/b/wo", d + "/b/wo2", 4)
    st = os.lstat(d + "/b/wo")
    check("RENAME_WHITEOUT leaves a whiteout (char device 0/0, mode 0)",
          (stat.S_ISCHR(st.st_mode), st.st_rdev, stat.S_IMODE(st.st_mode),
           st.st_nlink), (True, 0, 0, 1))
    check("... and moves the file", read_all(d + "/b/wo2"), b"wo")
    check_errno("RENAME_WHITEOUT with RENAME_EXCHANGE", errno.EINVAL,
                rename2, d + "/b/wo2", d + "/b/h", 6)
    os.unlink(d + "/b/wo")
    os.unlink(d + "/b/wo2")
    long1, long2 = "L" * 250, "M" * 255
    write_at(d + "/" + long1, 0, b"long")
    os.rename(d + "/" + long1, d + "/b/" + long2)
    check("rename with long names", read_all(d + "/b/" + long2), b"long")


def readdir(m):
    d = os.path.join(m, "rd")
    os.mkdir(d)
    names_ = ["e%04d" % i for i in range(600)]
    for n in names_:
        open(os.path.join(d, n), "w").close()
    check("readdir lists every name", sorted(os.listdir(d)), names_)
    for n in names_[::3]:
        os.unlink(os.path.join(d, n))
    left = sorted(set(names_) - set(names_[::3]))
    check("readdir after unlinks", sorted(os.listdir(d)), left)
    # telldir/seekdir through libc
    libc.opendir.restype = ctypes.c_void_p
    libc.readdir.restype = ctypes.c_void_p
    libc.readdir.argtypes = [ctypes.c_void_p]
    libc.telldir.argtypes = [ctypes.c_void_p]
    libc.telldir.restype = ctypes.c_long
    libc.seekdir.argtypes = [ctypes.c_void_p, ctypes.c_long]
    libc.closedir.argtypes = [ctypes.c_void_p]
    dp = libc.opendir(d.encode())
    seen, marks = [], []
    while True:
        marks.append(libc.telldir(dp))
        ent = libc.readdir(dp)
        if not ent:
            break
        name = ctypes.string_at(ent + 19)  # struct dirent64.d_name
        seen.append(name.decode())
    ok = True
    for i in range(0, len(seen), 37):
        libc.seekdir(dp, marks[i])
        ent = libc.readdir(dp)
        if ctypes.string_at(ent + 19).decode() != seen[i]:
            ok = False
    libc.closedir(dp)
    check("seekdir(telldir()) returns to the same entry", ok, True)
    check("readdir has . and ..", {".", ".."} <= set(seen), True)
    readdir_renaming(m)


def dir_names(dp):
    """The names libc's readdir() returns from DIR *dp until the end."""
    got = []
    while True:
        ent = libc.readdir(dp)
        if not ent:
            return got
        got.append(ctypes.string_at(ent + 19).decode())


def readdir_renaming(m):
    """A reader that renames each name it reads must still reach the end
    of the stream (a renamed name is not met again), and rewinddir() must
    start a stream that sees the new names."""
    d = os.path.join(m, "rdren")
    os.mkdir(d)
    # Long names: many getdents() calls, so renames land between them.
    old = ["o%04d" % i + "x" * 100 for i in range(1500)]
    for n in old:
        open(os.path.join(d, n), "w").close()
    libc.rewinddir.argtypes = [ctypes.c_void_p]
    dp = libc.opendir(d.encode())
    seen, calls = [], 0
    while calls < 3 * len(old):
        calls += 1
        ent = libc.readdir(dp)
        if not ent:
            break
        name = ctypes.string_at(ent + 19).decode()
        seen.append(name)
        if name.startswith("o"):
            os.rename(os.path.join(d, name), os.path.join(d, "n" + name[1:]))
    check("readdir while renaming every name reaches the end",
          calls < 3 * len(old), True)
    seen_old = [n for n in seen if n.startswith("o")]
    check("readdir while renaming sees each old name once",
          (len(seen_old), len(set(seen_old))), (len(old), len(old)))
    check("readdir while renaming does not meet a renamed name again",
          len([n for n in seen if n.startswith("n")]), 0)
    libc.rewinddir(dp)
    new = sorted(n for n in dir_names(dp) if n not in (".", ".."))
    libc.closedir(dp)
    check("rewinddir sees the renamed names",
          new == ["n" + n[1:] for n in old], True)


def attrs(m):
    p = os.path.join(m, "attrs")
    write_at(p, 0, b"attrs")
    os.chmod(p, 0o4751)
    check("chmod", stat.S_IMODE(os.stat(p).st_mode), 0o4751)
    os.chown(p, 1234, 5678)
    st = os.stat(p)
    check("chown", (st.st_uid, st.st_gid), (1234, 5678))
    check("chown clears setuid", stat.S_IMODE(st.st_mode) & 0o4000, 0)
    t = os.path.join(m, "t-times")
    write_at(t, 0, b"times")
    os.utime(t, ns=(-315619200123456789, -1))
    check("mtime just before the epoch", os.stat(t).st_mtime_ns, -1)
    os.utime(p, ns=(-315619200123456789, 1700000000987654321))
    st = os.stat(p)
    check("negative atime with nanoseconds", st.st_atime_ns,
          -315619200123456789)
    check("mtime with nanoseconds", st.st_mtime_ns, 1700000000987654321)
    before = os.stat(p).st_ctime_ns
    os.truncate(p, 2)
    st = os.stat(p)
    check("truncate updates mtime and ctime",
          st.st_mtime_ns > 1700000000987654321 and st.st_ctime_ns >= before,
          True)
    # statfs
    s1 = os.statvfs(m)
    big = os.path.join(m, "statfs-probe")
    write_at(big, 0, pattern(4 * 1024 * 1024, 8))
    s2 = os.statvfs(m)
    check("statfs: 4 MiB write uses >= 1024 blocks",
          s1.f_bfree - s2.f_bfree >= 1024, True)
    os.unlink(big)
    s3 = os.statvfs(m)
    check("statfs: unlink returns the data blocks",
          abs(s3.f_bfree - s1.f_bfree) < 8, True)
    check("statfs: f_files > f_ffree > 0",
          s3.f_files > s3.f_ffree > 0, True)
    check("statfs: name length", s3.f_namemax, 255)


def mmaps(m):
    p = os.path.join(m, "mm")
    write_at(p, 0, bytes(3 * 4096))
    fd = os.open(p, os.O_RDWR)
    mm = mmap.mmap(fd, 3 * 4096)
    t0 = os.stat(p).st_mtime_ns
    time.sleep(0.05)        # timestamps have jiffy resolution
    mm[100:105] = b"hello"
    mm.flush()
    check("mmap store visible to read()", os.pread(fd, 5, 100), b"hello")
    check("mmap store updates mtime", os.stat(p).st_mtime_ns > t0, True)
    os.pwrite(fd, b"WORLD", 4096 + 7)
    check("write() visible through an existing mapping",
          mm[4096 + 7:4096 + 12], b"WORLD")
    mm[4096 + 5:4096 + 7] = b"xy"
    os.pwrite(fd, b"!", 4096 + 12)
    check("partial-page write keeps an earlier mmap store",
          os.pread(fd, 8, 4096 + 5), b"xyWORLD!")
    mm.close()
    os.close(fd)
    # a hole faulted in by a store
    q = os.path.join(m, "mm-hole")
    fd = os.open(q, os.O_RDWR | os.O_CREAT, 0o644)
    os.ftruncate(fd, 8 * 4096)
    mm = mmap.mmap(fd, 8 * 4096)
    check("mmap of a hole reads zeros", mm[5 * 4096:5 * 4096 + 4], bytes(4))
    mm[5 * 4096:5 * 4096 + 4] = b"fill"
    mm.close()
    check("store into a hole allocates a block",
          os.lseek(fd, 0, os.SEEK_DATA), 5 * 4096)
    os.close(fd)
    check("hole store reads back", read_all(q)[5 * 4096:5 * 4096 + 4],
          b"fill")
    # MAP_SYNC
    fd = os.open(p, os.O_RDWR)
    MAP_SHARED_VALIDATE, MAP_SYNC = 0x3, 0x80000
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                          ctypes.c_int, ctypes.c_int, ctypes.c_long]
    addr = libc.mmap(None, 4096, 3, MAP_SHARED_VALIDATE | MAP_SYNC, fd, 0)
    check("MAP_SYNC mapping is accepted", addr not in (None, 2**64 - 1), True)
    if addr not in (None, 2**64 - 1):
        ctypes.memmove(addr + 200, b"sync", 4)
        libc.munmap(ctypes.c_void_p(addr), ctypes.c_size_t(4096))
        check("MAP_SYNC store reads back", os.pread(fd, 4, 200), b"sync")
    os.close(fd)
    MANIFEST["mm"] = hashlib.sha256(read_all(p)).hexdigest()


def handles(m):
    """open_by_handle_at() opens live files and never unlinked ones."""
    class FH(ctypes.Structure):
        _fields_ = [("bytes", ctypes.c_uint), ("type", ctypes.c_int),
                    ("f", ctypes.c_ubyte * 128)]
    p = os.path.join(m, "handle-live")
    q = os.path.join(m, "handle-dead")
    write_at(p, 0, b"by handle")
    write_at(q, 0, b"gone")
    mfd = os.open(m, os.O_RDONLY | os.O_DIRECTORY)

    def handle(path):
        fh, mnt_id = FH(), ctypes.c_int()
        fh.bytes = 128
        raise_errno(libc.name_to_handle_at(AT_FDCWD, path.encode(),
                                           ctypes.byref(fh),
                                           ctypes.byref(mnt_id), 0))
        return fh

    def open_h(fh):
        return raise_errno(libc.open_by_handle_at(mfd, ctypes.byref(fh),
                                                  os.O_RDONLY))
    hp, hq = handle(p), handle(q)
    fd = open_h(hp)
    check("open_by_handle_at on a live file", os.pread(fd, 9, 0), b"by handle")
    os.close(fd)
    # Unlinked but still open: the inode lives on, and so does its handle.
    r = os.path.join(m, "handle-open")
    write_at(r, 0, b"still open")
    hr = handle(r)
    keep = os.open(r, os.O_RDONLY)
    os.unlink(r)
    fd = open_h(hr)
    check("open_by_handle_at on an unlinked open file", os.pread(fd, 10, 0),
          b"still open")
    os.close(fd)
    os.close(keep)
    check_errno("open_by_handle_at once it is closed", errno.ESTALE,
                open_h, hr)
    os.unlink(q)
    check_errno("open_by_handle_at on an unlinked file", errno.ESTALE,
                open_h, hq)
    os.close(mfd)


def tree(m):
    """Describe everything under m for the verify phase."""
    desc = {}
    for root, dirs, fls in os.walk(m):
        for n in dirs + fls:
            p = os.path.join(root, n)
            st = os.lstat(p)
            e = [stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), st.st_uid,
                 st.st_gid, st.st_nlink, st.st_size, st.st_mtime_ns,
                 st.st_ctime_ns,
                 st.st_rdev if (stat.S_ISCHR(st.st_mode) or
                                stat.S_ISBLK(st.st_mode)) else 0]
            if stat.S_ISREG(st.st_mode) and n.startswith("t-"):
                e.append(st.st_atime_ns)    # never read: atime is stable
            elif stat.S_ISREG(st.st_mode):
                e.append(hashlib.sha256(read_all(p)).hexdigest())
            elif stat.S_ISLNK(st.st_mode):
                e.append(os.readlink(p))
            desc[os.path.relpath(p, m)] = e
    return desc


def main():
    global MANIFEST
    phase, m = sys.argv[1], sys.argv[2]
    man = os.path.join(os.path.dirname(m.rstrip("/")) or "/",
                       "nova-manifest.json")
    if phase == "ops":
        MANIFEST = {}
        for fn in (files, names, renames, readdir, attrs, mmaps, handles):
            try:
                fn(m)
            except Exception as e:  # report, keep going
                out(False, "%s: unexpected exception" % fn.__name__, repr(e))
                for line in traceback.format_exc().splitlines():
                    print("# " + line)
        MANIFEST["tree"] = tree(m)
        MANIFEST["statfs"] = list(os.statvfs(m))[:6]
        with open(man, "w") as f:
            json.dump(MANIFEST, f)
    else:
        with open(man) as f:
            MANIFEST = json.load(f)
        now = tree(m)
        want = MANIFEST["tree"]
        bad = [k for k in sorted(set(want) | set(now))
               if want.get(k) != now.get(k)]
        out(not bad, "every name, type, mode, owner, link count, size, "
            "mtime, ctime, rdev, content and symlink target survives remount",
            "differs: %s" % [(k, want.get(k), now.get(k)) for k in bad[:5]])
        check("statfs block and inode counts survive remount",
              list(os.statvfs(m))[:6], MANIFEST["statfs"])


if __name__ == "__main__":
    main()
