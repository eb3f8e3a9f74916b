#!/usr/bin/env python3
"""Describe the metadata of a NOVA device, for tests/guest/tools-mkfs.sh.

usage: tools-layout.py DEVICE

Prints one line per fact about the on-media structures a fresh file system
has (superblock, reserved inodes, journal pointers and rings, inode table
heads and tails, the saved allocator state), leaving out what differs
between any two formats by nature: the UUID, timestamps, mount count and
the checksums that cover them. Two formats of the same device with the
same options give the same description whether the kernel ("mount -o
init" + umount) or mkfs.NOVA wrote them.
"""
import hashlib
import struct
import sys

BS = 4096


def main(path):
    with open(path, "rb") as f:
        def blk(n, length=BS, off=0):
            f.seek(n * BS + off)
            return f.read(length)

        sb = blk(0, 512)
        (magic, csum, vmaj, vmin, bsize, size, cpus, state, fc, fi, fro,
         r0) = struct.unpack_from("<IIHHIQIIIIII", sb, 0)
        label = sb[64:96].rstrip(b"\0").decode("ascii", "replace")
        (mkfs_t, mount_t, write_t, mcount, trans, epoch, logp, datap,
         free) = struct.unpack_from("<QQQQQQQQQ", sb, 96)
        nblocks = size // BS
        print("super magic=%x version=%d.%d bsize=%d size=%d cpus=%d state=%d "
              "features=%d/%d/%d label=%r trans=%d epoch=%d log=%d data=%d "
              "free=%d" % (magic, vmaj, vmin, bsize, size, cpus, state, fc, fi,
                           fro, label, trans, epoch, logp, datap, free))
        print("super reserved-zero=%s" % (sb[168:] == bytes(344)))
        replica = blk(nblocks - 1, 512)
        print("replica-equals-primary=%s" % (replica == sb))

        ino_blk = blk(1)
        for ino in range(16):
            pi = ino_blk[ino * 256:(ino + 1) * 256]
            valid, head, tail = struct.unpack_from("<QQQ", pi, 0)
            # static part without i_csum (24..27) and the four timestamps
            static = pi[28:72] + pi[136:]
            print("inode %d valid=%d head=%d tail=%d static=%s" %
                  (ino, valid, head, tail, hashlib.sha1(static).hexdigest()[:16]))

        jb = blk(2)
        tb = blk(3)
        print("journal-ptrs=%s" % hashlib.sha1(jb).hexdigest()[:16])
        print("table-heads=%s" % hashlib.sha1(tb).hexdigest()[:16])
        for c in range(cpus):
            jhead, jtail, jblock = struct.unpack_from("<QQQ", jb, 64 * c)
            ring = blk(jblock)
            print("journal %d block=%d head=%d tail=%d ring-zero=%s" %
                  (c, jblock, jhead, jtail, ring == bytes(BS)))
            thead = struct.unpack_from("<Q", tb, 64 * c)[0]
            slots = blk(thead, 8191 * 256)
            ttail = blk(thead, 256, 8191 * 256)
            print("table %d block=%d slots-zero=%s tail=%s" %
                  (c, thead, slots == bytes(len(slots)),
                   hashlib.sha1(ttail).hexdigest()[:16]))

        # the allocator state: the log of inode 2
        head = struct.unpack_from("<Q", ino_blk, 2 * 256 + 8)[0]
        page, n = head, 0
        while page and n < 64:
            data = blk(page // BS, BS)
            etype, eflags, esize = struct.unpack_from("<BBH", data, 0)
            print("state page %d at %d entry=%s tail=%s" %
                  (n, page // BS, hashlib.sha1(data[:esize]).hexdigest()[:16],
                   hashlib.sha1(data[4032:]).hexdigest()[:16]))
            count = struct.unpack_from("<I", data, 24)[0]
            for i in range(min(count, 250)):
                start, length = struct.unpack_from("<QQ", data, 32 + 16 * i)
                print("  free %d+%d" % (start, length))
            page = struct.unpack_from("<Q", data, 4032)[0]
            n += 1


if __name__ == "__main__":
    main(sys.argv[1])
