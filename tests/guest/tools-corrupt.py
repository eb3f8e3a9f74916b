#!/usr/bin/env python3
"""Damage a NOVA device on purpose, for tests/guest/tools-fsck.sh.

usage: tools-corrupt.py DEVICE OP [ARGS]

  save FILE OFF LEN        copy LEN bytes at OFF to FILE (to undo later)
  restore FILE OFF         write FILE back at OFF
  sb-byte                  flip a byte of the primary superblock's label
  entry INO                flip a name byte in the first log entry of INO
  tail INO                 break the magic of INO's first log page tail
  double INO1 INO2         point INO2's first file write at INO1's block
                           (checksum resealed: a clean double allocation)
  mirror INO               print the offset of the mirror of INO's first
                           log page (format 1.4), nothing without one
  (entry, tail and double change both copies of a mirrored log page: the
  damage is beyond what the mirror repairs)
  leak N                   shorten the last saved free range by N blocks
                           (checksum resealed: N leaked blocks)
  where INO                print the offset of INO's first log page
  xattr INO                give INO's first xattr entry an unknown
                           namespace (checksum resealed, both copies)
  downgrade                make a 1.6 file system without xattr, range or
                           file attribute entries a 1.4 (1.3 without log
                           mirrors) one: clear the 1.5 and 1.6 features in
                           both superblocks
  rollback INO N           lower INO's log tail by N entries in the
                           primary inode slot only (its replica, format
                           1.3, keeps the right tail)

Offsets of what it changed are printed, one per line.
"""
import struct
import sys

BS = 4096
POLY = 0x82F63B78
TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ (POLY if c & 1 else 0)
    TABLE.append(c)


def crc32c(data, crc=0xFFFFFFFF):
    for b in data:
        crc = (crc >> 8) ^ TABLE[(crc ^ b) & 0xFF]
    return crc


def entry_csum(e):
    """crc32c of an entry with e_flags, e_csum (and fw_dead_pages) as 0."""
    e = bytearray(e)
    e[1] = 0
    e[4:8] = bytes(4)
    if e[0] == 1 and len(e) >= 72:
        e[36:40] = bytes(4)
    return crc32c(bytes(e))


class Dev:
    def __init__(self, path):
        self.f = open(path, "r+b")
        sb = self.read(0, 512)
        self.size = struct.unpack_from("<Q", sb, 16)[0]
        self.cpus = struct.unpack_from("<I", sb, 24)[0]

    def read(self, off, n):
        self.f.seek(off)
        return self.f.read(n)

    def write(self, off, data):
        self.f.seek(off)
        self.f.write(data)
        self.f.flush()
        print(off)

    def u64(self, off):
        return struct.unpack("<Q", self.read(off, 8))[0]

    def inode(self, ino):
        if ino < 16:
            return BS + ino * 256
        cpu, index = (ino - 16) % self.cpus, (ino - 16) // self.cpus
        if index >= 8191:
            sys.exit("inode %d is not in the first table block" % ino)
        head = self.u64(3 * BS + 64 * cpu)
        return head * BS + index * 256

    def log_head(self, ino):
        head = self.u64(self.inode(ino) + 8)
        if not head:
            sys.exit("inode %d has no log" % ino)
        return head

    def mirror(self, page):
        """The mirror of log page PAGE (format 1.4), or None."""
        m = self.u64(page + 4032 + 32)
        if not m or m % BS or m + BS > self.size or m == page:
            return None
        return m if self.u64(m + 4032 + 32) == page else None

    def write_both(self, off, data):
        """Write DATA at OFF of a log page and of its mirror."""
        page = off - off % BS
        m = self.mirror(page)
        self.write(off, data)
        if m is not None:
            self.write(m + off - page, data)

    def entry_ends(self, ino):
        """Where each committed entry of INO's log ends, in log order."""
        pi = self.inode(ino)
        page, tail = self.u64(pi + 8), self.u64(pi + 16)
        ends, pages = [], 0
        while page and pages < self.size // BS:
            pos = page
            while pos + 24 <= page + 4032 and pos != tail:
                e = self.read(pos, 24)
                size = struct.unpack_from("<H", e, 2)[0]
                if e[0] == 0 or size < 24 or size % 8:
                    break
                pos += size
                ends.append(pos)
            if pos == tail:
                return ends
            page, pages = self.u64(page + 4032), pages + 1
        sys.exit("inode %d: log tail %d not found" % (ino, tail))

    def first_of_type(self, ino, etype):
        """Offset of the first committed entry of ETYPE in INO's log."""
        pi = self.inode(ino)
        page, tail = self.u64(pi + 8), self.u64(pi + 16)
        pages = 0
        while page and pages < self.size // BS:
            pos = page
            while pos + 24 <= page + 4032 and pos != tail:
                e = self.read(pos, 24)
                size = struct.unpack_from("<H", e, 2)[0]
                if e[0] == 0 or size < 24 or size % 8:
                    break
                if e[0] == etype:
                    return pos, size
                pos += size
            if pos == tail:
                break
            page, pages = self.u64(page + 4032), pages + 1
        sys.exit("inode %d: no entry of type %d" % (ino, etype))

    def first_write(self, ino):
        """Offset of the first file write entry in INO's first log page."""
        page = self.log_head(ino)
        pos = page
        while pos < page + 4032 - 24:
            e = self.read(pos, 24)
            if e[0] == 0:
                break
            size = struct.unpack_from("<H", e, 2)[0]
            if e[0] == 1:
                return pos
            pos += size
        sys.exit("inode %d: no file write entry in its first log page" % ino)


def main():
    d = Dev(sys.argv[1])
    op, args = sys.argv[2], sys.argv[3:]
    if op == "save":
        with open(args[0], "wb") as f:
            f.write(d.read(int(args[1]), int(args[2])))
    elif op == "restore":
        with open(args[0], "rb") as f:
            d.write(int(args[1]), f.read())
    elif op == "sb-byte":
        b = d.read(64, 1)
        d.write(64, bytes([b[0] ^ 0x20]))
    elif op == "entry":
        page = d.log_head(int(args[0]))
        b = d.read(page + 64, 1)
        d.write_both(page + 64, bytes([b[0] ^ 1]))
    elif op == "tail":
        page = d.log_head(int(args[0]))
        d.write_both(page + 4032 + 24, b"XXXX")
    elif op == "where":
        print(d.log_head(int(args[0])))
    elif op == "mirror":
        m = d.mirror(d.log_head(int(args[0])))
        if m is not None:
            print(m)
    elif op == "double":
        src = d.first_write(int(args[0]))
        dst = d.first_write(int(args[1]))
        blk = d.read(src + 24 + 16, 8)
        e = bytearray(d.read(dst, 72))
        e[40:48] = blk
        struct.pack_into("<I", e, 4, entry_csum(e))
        d.write_both(dst, bytes(e))
    elif op == "xattr":
        pos, size = d.first_of_type(int(args[0]), 10)
        e = bytearray(d.read(pos, size))
        e[24] = 9
        struct.pack_into("<I", e, 4, entry_csum(e))
        d.write_both(pos, bytes(e))
    elif op == "downgrade":
        sb = bytearray(d.read(0, 512))
        incompat = struct.unpack_from("<I", sb, 36)[0] & ~0x70
        struct.pack_into("<I", sb, 36, incompat)
        struct.pack_into("<H", sb, 10, 4 if incompat & 8 else 3)
        struct.pack_into("<I", sb, 4, 0)
        struct.pack_into("<I", sb, 4, crc32c(bytes(sb)))
        d.write(0, bytes(sb))
        d.write(d.size - BS, bytes(sb))
    elif op == "rollback":
        ino, n = int(args[0]), int(args[1])
        ends = d.entry_ends(ino)
        if len(ends) <= n:
            sys.exit("inode %d has only %d log entries" % (ino, len(ends)))
        d.write(d.inode(ino) + 16, struct.pack("<Q", ends[-1 - n]))
    elif op == "leak":
        n = int(args[0])
        ai = d.inode(2)
        head, tail = d.u64(ai + 8), d.u64(ai + 16)
        page = tail & ~(BS - 1)
        e = bytearray(d.read(page, tail - page))
        count = struct.unpack_from("<I", e, 24)[0]
        off = 32 + 16 * (count - 1) + 8
        length = struct.unpack_from("<Q", e, off)[0]
        if length <= n:
            sys.exit("last free range too short")
        struct.pack_into("<Q", e, off, length - n)
        struct.pack_into("<I", e, 4, entry_csum(e))
        d.write(page, bytes(e))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
