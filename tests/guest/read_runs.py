#!/usr/bin/env python3
"""Reads that cross write entries, index leaves, holes and the end of file.

usage: read_runs.py build FILE | check FILE

build lays FILE out as one 2 MiB write, single pages overwritten inside it
(3, 63, 64 and 130: each its own entry, 63 and 64 on both sides of an
index leaf boundary), a short write inside page 200, a hole from 2 MiB to
3 MiB, a short write after the hole and an extension by truncate; the
expected contents go to /tmp/BASENAME.model (not on the file system under
test). check reads FILE
with pread and preadv at the boundaries and at seeded random places and
compares every byte with the model. A read that ran on past the entry a
page belongs to would return the old contents of an overwritten page.
"""
import os
import random
import sys

PAGE = 4096
MIB = 1 << 20


def model_path(path):
    return "/tmp/" + os.path.basename(path) + ".model"


def build(path):
    rnd = random.Random(20261206)
    model = bytearray(rnd.randbytes(2 * MIB))
    fd = os.open(path, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o644)
    os.pwrite(fd, model, 0)
    for page in (3, 63, 64, 130):
        data = rnd.randbytes(PAGE)
        os.pwrite(fd, data, page * PAGE)
        model[page * PAGE:(page + 1) * PAGE] = data
    data = rnd.randbytes(100)
    os.pwrite(fd, data, 200 * PAGE + 10)
    model[200 * PAGE + 10:200 * PAGE + 110] = data
    data = rnd.randbytes(5000)
    os.pwrite(fd, data, 3 * MIB)
    model += bytes(MIB) + data
    os.ftruncate(fd, 3 * MIB + 7000)
    model += bytes(3 * MIB + 7000 - len(model))
    os.close(fd)
    with open(model_path(path), "wb") as f:
        f.write(model)


def check(path):
    with open(model_path(path), "rb") as f:
        model = f.read()
    size = len(model)
    fd = os.open(path, os.O_RDONLY)
    if os.fstat(fd).st_size != size:
        sys.exit("size %d, expected %d" % (os.fstat(fd).st_size, size))
    places = [(0, size + PAGE)]
    for edge in (3, 4, 63, 64, 65, 130, 131, 200, 201, 512, 768):
        for delta in (-PAGE - 1, -1, 0, 1, PAGE - 1):
            off = max(0, edge * PAGE + delta)
            places += [(off, 1), (off, 2 * PAGE + 3), (off, 300 * PAGE)]
    places += [(size - 10, 100), (size, 10), (size + 1, 10)]
    rnd = random.Random(7)
    for _ in range(400):
        off = rnd.randrange(size + PAGE)
        places.append((off, rnd.choice([1, 511, PAGE, 3 * PAGE + 5,
                                        rnd.randrange(1, 2 * MIB)])))
    for off, length in places:
        got = os.pread(fd, length, off)
        if got != model[off:off + length]:
            sys.exit("pread(%d, %d): %d bytes read, not what the model has"
                     % (off, length, len(got)))
    # Several buffers of odd sizes in one call: runs end inside buffers.
    for off in (0, PAGE - 7, 62 * PAGE + 100, 2 * MIB - 3 * PAGE):
        bufs = [bytearray(n) for n in (1, 4095, 3 * PAGE + 11, 70 * PAGE)]
        n = os.preadv(fd, bufs, off)
        if b"".join(bufs)[:n] != model[off:off + n] or \
                n != min(sum(map(len, bufs)), size - off):
            sys.exit("preadv at %d: %d bytes, contents or count wrong" %
                     (off, n))
    os.close(fd)
    print("%d reads match" % len(places))


if __name__ == "__main__":
    {"build": build, "check": check}[sys.argv[1]](sys.argv[2])
