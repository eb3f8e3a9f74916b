#!/usr/bin/env python3
"""Random file operations checked against an in-memory reference model.

usage: fs_model.py run DIR SEED OPS | verify DIR SEED

"run" does OPS random writes (unaligned, overlapping, past EOF),
truncates, fallocates and reads on a few files in DIR, comparing every
read and the final contents with the model, and saves the model's digests
in DIR.model; "verify" (after a remount) compares the files with them.
Prints "PASS desc" / "FAIL desc: detail".
"""
import ctypes
import hashlib
import json
import os
import random
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long,
                           ctypes.c_long]


def run(d, seed, nops):
    rnd = random.Random(seed)
    os.makedirs(d, exist_ok=True)
    names = ["f%d" % i for i in range(4)]
    model = {n: bytearray() for n in names}
    fds = {n: os.open(os.path.join(d, n), os.O_RDWR | os.O_CREAT, 0o644)
           for n in names}
    bad = []
    for i in range(nops):
        n = rnd.choice(names)
        fd, ref = fds[n], model[n]
        op = rnd.random()
        if op < 0.6:
            off = rnd.randrange(0, 600000)
            ln = rnd.choice([1, 7, 100, 4095, 4096, 4097, 12000,
                             rnd.randrange(1, 70000)])
            data = rnd.randbytes(ln)
            os.pwrite(fd, data, off)
            if len(ref) < off:
                ref.extend(bytes(off - len(ref)))
            ref[off:off + ln] = data
        elif op < 0.7:
            ln = rnd.randrange(0, 700000)
            os.ftruncate(fd, ln)
            if ln < len(ref):
                del ref[ln:]
            else:
                ref.extend(bytes(ln - len(ref)))
        elif op < 0.75:
            off, ln = rnd.randrange(0, 600000), rnd.randrange(1, 100000)
            keep = rnd.random() < 0.5
            if libc.fallocate(fd, 1 if keep else 0, off, ln) == 0 and \
                    not keep and off + ln > len(ref):
                ref.extend(bytes(off + ln - len(ref)))
        else:
            off, ln = rnd.randrange(0, 700000), rnd.randrange(1, 50000)
            got = os.pread(fd, ln, off)
            if got != bytes(ref[off:off + ln]):
                bad.append((i, n, off, ln))
    for n in names:
        os.close(fds[n])
    print("%s random reads match the model (seed %d)" %
          ("PASS" if not bad else "FAIL", seed) +
          ("" if not bad else ": first mismatches %r" % bad[:3]))
    digests = {n: hashlib.sha256(model[n]).hexdigest() for n in names}
    now = {n: hashlib.sha256(open(os.path.join(d, n), "rb").read()).hexdigest()
           for n in names}
    print("%s final contents match the model (seed %d)" %
          ("PASS" if now == digests else "FAIL", seed))
    with open(d + ".model", "w") as f:
        json.dump(digests, f)


def names(d, seed, nops):
    """Create/rename/link/unlink/mkdir/rmdir in directories shared with
    another worker; own names carry the worker's prefix. At the end every
    own name must exist with the right content and nothing else of ours."""
    rnd = random.Random(seed)
    dirs = [os.path.join(d, "d%d" % i) for i in range(3)]
    for x in dirs:
        os.makedirs(x, exist_ok=True)
    pre = "w%d-" % seed
    model = {}          # relative path -> content (b"" for directories: None)
    for i in range(nops):
        op = rnd.random()
        dd = rnd.choice(dirs)
        name = os.path.join(dd, pre + str(rnd.randrange(60)))
        rel = os.path.relpath(name, d)
        try:
            if op < 0.35:
                if rel not in model:
                    data = rnd.randbytes(rnd.randrange(0, 3000))
                    with open(name, "xb") as f:
                        f.write(data)
                    model[rel] = data
            elif op < 0.55 and model:
                src = rnd.choice(sorted(model))
                if model[src] is None or rel in model:
                    continue    # (over a hard link of itself: a no-op)
                os.rename(os.path.join(d, src), name)
                model[rel] = model.pop(src)
            elif op < 0.65 and model:
                src = rnd.choice(sorted(model))
                if model[src] is None or rel in model:
                    continue
                os.link(os.path.join(d, src), name)
                model[rel] = model[src]
            elif op < 0.85 and model:
                src = rnd.choice(sorted(model))
                if model[src] is None:
                    os.rmdir(os.path.join(d, src))
                else:
                    os.unlink(os.path.join(d, src))
                del model[src]
            elif rel not in model:
                os.mkdir(name)
                model[rel] = None
        except OSError as e:
            print("FAIL namespace op %d (%s): %r" % (i, rel, e))
            return
    seen = {}
    for x in dirs:
        for n in os.listdir(x):
            if n.startswith(pre):
                p = os.path.join(x, n)
                rel = os.path.relpath(p, d)
                seen[rel] = None if os.path.isdir(p) else open(p, "rb").read()
    print("%s namespace matches the model under concurrency (seed %d)" %
          ("PASS" if seen == model else "FAIL", seed) +
          ("" if seen == model else ": %d names differ" %
           len(set(seen.items()) ^ set(model.items()))))


def verify(d, seed):
    with open(d + ".model") as f:
        digests = json.load(f)
    now = {n: hashlib.sha256(open(os.path.join(d, n), "rb").read()).hexdigest()
           for n in digests}
    print("%s contents match the model after remount (seed %d)" %
          ("PASS" if now == digests else "FAIL", seed))


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif sys.argv[1] == "names":
        names(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        verify(sys.argv[2], int(sys.argv[3]))
