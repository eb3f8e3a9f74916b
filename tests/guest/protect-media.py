#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Find and damage NOVA data-protection objects on an unmounted device.

Independent of the kernel module: it reads the superblock layout fields
(uapi/nova_format.h, format 1.2) and writes the device with pwrite+fsync,
so the next mount sees exactly what is on the medium.

  protect-media.py layout DEV
      print the superblock's version, features and area blocks (JSON)
  protect-media.py find DEV FILE PAGE
      print the block number holding page PAGE (4 KiB) of FILE's content
  protect-media.py flip DEV data|csum|parity BLOCK BYTE [COPY]
      invert one byte: data byte BYTE of BLOCK; the checksum of strip
      BYTE//512 of BLOCK in copy COPY (0 primary, 1 replica); byte
      BYTE%512 of BLOCK's parity strip
  protect-media.py read DEV data|csum|parity BLOCK [COPY]
      print the object's bytes as hex (block, 32-byte slot, 512-byte strip)
  protect-media.py meta DEV inode|entry|tail INO
      print the device offset of a checksummed byte of inode INO's slot
      (i_generation), of its first log entry (e_csum) or of its first log
      page's tail (lt_csum)
  protect-media.py check DEV BLOCK
      exit 0 if both checksum copies of BLOCK's strips are crc32c of the
      strips and its parity strip is their XOR, else say what differs
  protect-media.py flipat DEV OFFSET
      invert the byte at OFFSET
  protect-media.py slot DEV INO [COPY]
      print the device offset of inode INO's slot (COPY 1: its replica,
      format 1.3 inode replicas)
  protect-media.py get64 DEV OFFSET
  protect-media.py set64 DEV OFFSET VALUE
      read or write the little-endian 64-bit word at OFFSET (a commit word:
      i_log_head is at slot + 8, i_log_tail at slot + 16)
  protect-media.py lose-hints DEV INO
      reset every garbage-collection hint of inode INO's log (lt_valid,
      lt_entries, the invalid flag, fw_dead_pages) to its initial value:
      what a crash leaves if no hint store reached the media
  protect-media.py sb DEV minor=N|incompat=N|state=N|clear-layout ...
      rewrite both superblock copies with the changes, resealed
"""
import json
import os
import struct
import sys

BS = 4096
STRIP = 512
SB_SIZE = 512


def crc32c(data, crc=0xFFFFFFFF):
    tab = crc32c.tab
    if tab is None:
        tab = []
        for i in range(256):
            c = i
            for _ in range(8):
                c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
            tab.append(c)
        crc32c.tab = tab
    for b in data:
        crc = tab[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


crc32c.tab = None


def pread(fd, off, n):
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    return os.pread(fd, n, off)


def pwrite(fd, off, data):
    os.pwrite(fd, data, off)
    os.fsync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)


def layout(fd):
    sb = pread(fd, 0, SB_SIZE)
    magic, = struct.unpack_from("<I", sb, 0)
    major, minor = struct.unpack_from("<HH", sb, 8)
    size, = struct.unpack_from("<Q", sb, 16)
    incompat, = struct.unpack_from("<I", sb, 36)
    f = struct.unpack_from("<QQQQQQII", sb, 168)
    return {"magic": magic, "major": major, "minor": minor, "size": size,
            "incompat": incompat, "alloc_start": f[0], "alloc_end": f[1],
            "csum": f[2], "csum_replica": f[3], "parity": f[4],
            "mmap": f[5], "csum_blocks": f[6], "parity_blocks": f[7]}


def obj_off(lay, kind, blk, byte, copy):
    if kind == "data":
        return blk * BS + byte, 1
    if kind == "csum":
        area = lay["csum_replica"] if copy else lay["csum"]
        if not area:
            sys.exit("no checksum area")
        return area * BS + blk * 32 + (byte // STRIP) * 4, 4
    if kind == "parity":
        if not lay["parity"]:
            sys.exit("no parity area")
        return lay["parity"] * BS + blk * STRIP + byte % STRIP, 1
    sys.exit("unknown kind " + kind)


def slot_off(fd, ino, copy):
    """Device offset of inode INO's slot, or of its replica (COPY 1)."""
    sb = pread(fd, 0, SB_SIZE)
    cpus, = struct.unpack_from("<I", sb, 24)
    if ino < 16:
        blk = 1
        if copy:
            blk, = struct.unpack_from("<Q", sb, 224)	# s_meta_replica
        return blk * BS + ino * 256
    cpu, idx = (ino - 16) % cpus, (ino - 16) // cpus
    head, = struct.unpack_from("<Q", pread(fd, 3 * BS + cpu * 64, 8))
    if idx >= 8191:
        sys.exit("only the first table block is supported")
    if copy:
        # itt_replica of the table block's tail (its last 256-byte slot)
        head, = struct.unpack_from("<Q", pread(fd, head * BS + 8191 * 256 + 24, 8))
    if not head:
        sys.exit("no replica")
    return head * BS + idx * 256


def lose_hints(fd, ino):
    """Put every garbage-collection hint of inode INO's log (lt_valid,
    lt_entries, e_flags, fw_dead_pages) back to the value it has when its
    page or entry is written: the state a crash leaves when none of the
    hint stores (plain stores, never written back, log.c) reached the
    media. Prints the log pages and entries walked."""
    page, = struct.unpack_from("<Q", pread(fd, slot_off(fd, ino, 0) + 8, 8))
    tail, = struct.unpack_from("<Q", pread(fd, slot_off(fd, ino, 0) + 16, 8))
    pages = entries = 0
    data = BS - 64
    while page and pages < 1 << 20:
        pages += 1
        pos = page
        while page + data - pos >= 24 and pos != tail:
            h = pread(fd, pos, 4)
            size, = struct.unpack_from("<H", h, 2)
            if h[0] == 0 or size < 24 or size % 8:
                break
            if h[1] & 1:
                pwrite(fd, pos + 1, bytes([h[1] & ~1]))
            if h[0] == 1:		# NOVA_LOG_FILE_WRITE: fw_dead_pages
                pwrite(fd, pos + 36, bytes(4))
            entries += 1
            pos += size
        pwrite(fd, page + data + 8, bytes(8))	# lt_valid, lt_entries
        if pos == tail:
            break
        page, = struct.unpack_from("<Q", pread(fd, page + data, 8))
    print(pages, entries)


def main():
    cmd, dev = sys.argv[1], sys.argv[2]
    fd = os.open(dev, os.O_RDWR if cmd in ("flip", "flipat", "sb", "set64",
                                             "lose-hints")
                 else os.O_RDONLY)
    lay = layout(fd)
    if cmd == "layout":
        print(json.dumps(lay))
    elif cmd == "find":
        with open(sys.argv[3], "rb") as f:
            f.seek(int(sys.argv[4]) * BS)
            want = f.read(BS)
        start, end = lay["alloc_start"] or 4, lay["alloc_end"] or lay["size"] // BS - 1
        chunk = 256
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        for b in range(start, end, chunk):
            n = min(chunk, end - b)
            buf = os.pread(fd, n * BS, b * BS)
            i = buf.find(want)
            while i >= 0:
                if i % BS == 0:
                    print(b + i // BS)
                    return 0
                i = buf.find(want, i + 1)
        sys.exit("page not found")
    elif cmd == "flip":
        kind, blk, byte = sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
        copy = int(sys.argv[6]) if len(sys.argv) > 6 else 0
        off, _ = obj_off(lay, kind, blk, byte, copy)
        b = pread(fd, off, 1)
        pwrite(fd, off, bytes([b[0] ^ 0xFF]))
    elif cmd == "check":
        blk = int(sys.argv[3])
        data = pread(fd, blk * BS, BS)
        want = b"".join(struct.pack("<I", crc32c(data[i:i + STRIP]))
                        for i in range(0, BS, STRIP))
        bad = []
        for copy in (0, 1):
            off, _ = obj_off(lay, "csum", blk, 0, copy)
            if pread(fd, off, 32) != want:
                bad.append("checksum copy %d" % copy)
        if lay["parity"]:
            par = bytearray(STRIP)
            for i in range(0, BS, STRIP):
                for j, b in enumerate(data[i:i + STRIP]):
                    par[j] ^= b
            off, _ = obj_off(lay, "parity", blk, 0, 0)
            if pread(fd, off, STRIP) != bytes(par):
                bad.append("parity")
        if bad:
            sys.exit("block %d: wrong %s" % (blk, ", ".join(bad)))
    elif cmd == "read":
        kind, blk = sys.argv[3], int(sys.argv[4])
        copy = int(sys.argv[5]) if len(sys.argv) > 5 else 0
        if kind == "data":
            off, n = blk * BS, BS
        elif kind == "csum":
            off, _ = obj_off(lay, kind, blk, 0, copy)
            n = 32
        else:
            off, _ = obj_off(lay, kind, blk, 0, 0)
            n = STRIP
        print(pread(fd, off, n).hex())
    elif cmd == "meta":
        what, ino = sys.argv[3], int(sys.argv[4])
        sb = pread(fd, 0, SB_SIZE)
        cpus, = struct.unpack_from("<I", sb, 24)
        if ino < 16:
            slot = 1 * BS + ino * 256
        else:
            cpu, idx = (ino - 16) % cpus, (ino - 16) // cpus
            head, = struct.unpack_from("<Q", pread(fd, 3 * BS + cpu * 64, 8))
            if idx >= 8191:
                sys.exit("only the first table block is supported")
            slot = head * BS + idx * 256
        if what == "inode":
            print(slot + 40)
            return 0
        loghead, = struct.unpack_from("<Q", pread(fd, slot + 8, 8))
        if not loghead:
            sys.exit("inode has no log")
        print(loghead + 4 if what == "entry" else loghead + 4032 + 28)
    elif cmd == "slot":
        print(slot_off(fd, int(sys.argv[3]),
                       int(sys.argv[4]) if len(sys.argv) > 4 else 0))
    elif cmd == "lose-hints":
        lose_hints(fd, int(sys.argv[3]))
    elif cmd == "get64":
        print(struct.unpack("<Q", pread(fd, int(sys.argv[3]), 8))[0])
    elif cmd == "set64":
        pwrite(fd, int(sys.argv[3]), struct.pack("<Q", int(sys.argv[4], 0)))
    elif cmd == "flipat":
        off = int(sys.argv[3])
        b = pread(fd, off, 1)
        pwrite(fd, off, bytes([b[0] ^ 0xFF]))
    elif cmd == "sb":
        sb = bytearray(pread(fd, 0, SB_SIZE))
        for change in sys.argv[3:]:
            if change.startswith("minor="):
                struct.pack_into("<H", sb, 10, int(change[6:]))
            elif change.startswith("incompat="):
                struct.pack_into("<I", sb, 36, int(change[9:], 0))
            elif change.startswith("state="):
                struct.pack_into("<I", sb, 28, int(change[6:], 0))
            elif change == "clear-layout":
                sb[168:224] = bytes(56)
            else:
                sys.exit("unknown change " + change)
        struct.pack_into("<I", sb, 4, 0)
        struct.pack_into("<I", sb, 4, crc32c(bytes(sb)))
        size = lay["size"]
        pwrite(fd, 0, bytes(sb))
        pwrite(fd, size - BS, bytes(sb))
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
