#!/usr/bin/env python3
"""Age a file system the way tests/guest/mmap-pmd.sh and the bench's mmap
rows do (issue 21): ROUNDS times (default 3), fill it to FILL (default
0.75 of its blocks) with files in DIR, 80 % small (4-64 KiB, one write)
and 20 % large (256 KiB-8 MiB, written in pieces of 4 KiB-1 MiB), then
delete a random half of all the files kept so far. Deterministic (seed
21) for a given file system; prints one line per round.

usage: age.py DIR [ROUNDS [FILL]]
"""
import os
import random
import sys


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip().split("usage: ")[1])
        sys.exit(0 if len(sys.argv) > 1 else 2)
    d = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    fill = float(sys.argv[3]) if len(sys.argv) > 3 else 0.75
    os.makedirs(d, exist_ok=True)
    rnd = random.Random(21)
    buf = os.urandom(1 << 20)
    files, n = [], 0

    def used():
        st = os.statvfs(d)
        return 1 - st.f_bfree / st.f_blocks

    for rnd_no in range(rounds):
        while used() < fill:
            p = os.path.join(d, "f%d" % n)
            n += 1
            with open(p, "wb") as f:
                if rnd.random() < 0.8:
                    f.write(buf[:rnd.randint(1, 16) * 4096])
                else:
                    left = rnd.randint(64, 2048) * 4096
                    while left:
                        k = min(left, rnd.randint(1, 256) * 4096)
                        f.write(buf[:k])
                        left -= k
            files.append(p)
        rnd.shuffle(files)
        half = len(files) // 2
        for p in files[:half]:
            os.unlink(p)
        files = files[half:]
        print("round %d: %d files kept, %.0f %% used" % (rnd_no, len(files), 100 * used()))


main()
