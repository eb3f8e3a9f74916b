#!/usr/bin/env python3
"""Check what filefrag -v and xfs_io -c 'fiemap -v' report for a file.

    fiemap_check.py DEV FILE RANGES [shared|unshared]

RANGES is the set of 4 KiB file pages that must have blocks, as
"a-b,c,d-e" (inclusive page numbers; "" for none). Prints PASS/FAIL lines
(t_from_py). Checked: both tools parse and agree extent by extent; the
extents are sorted, do not overlap, and cover exactly RANGES; only the
last one carries the "last" flag; none is unwritten, delalloc or inline;
with "shared"/"unshared" every extent is (not) shared; and the bytes at
each extent's physical address on DEV (read with O_DIRECT, past the page
cache) are the file's bytes at its logical offset.
"""
import mmap
import os
import re
import subprocess
import sys

BS = 4096


QUIET = {"n": 0}


def say(ok, msg):
    """One line per failure; passing per-extent checks are only counted."""
    if ok and msg.startswith("extent ") or ok and msg.startswith("device"):
        QUIET["n"] += 1
        return ok
    print(("PASS " if ok else "FAIL ") + msg)
    return ok


def pages_of(spec):
    pages = set()
    for part in filter(None, spec.split(",")):
        a, _, b = part.partition("-")
        pages.update(range(int(a), int(b or a) + 1))
    return pages


def filefrag(path):
    out = subprocess.run(["filefrag", "-v", "-b4096", path], check=True,
                         capture_output=True, text=True).stdout
    ext = []
    # " ext: logical_offset: physical_offset: length: expected: flags:",
    # the expected column only after a discontiguity, flags maybe empty
    pat = re.compile(r"^\s*\d+:\s+(\d+)\.\.\s*(\d+):\s+(\d+)\.\.\s*(\d+):"
                     r"\s+(\d+):\s*(?:\d+:)?\s*(\S*)\s*$")
    for line in out.splitlines():
        m = pat.match(line)
        if m:
            lo, hi, plo, phi, n = (int(m.group(i)) for i in range(1, 6))
            flags = set(filter(None, m.group(6).split(",")))
            ext.append((lo, hi - lo + 1, plo, flags))
    if "unsupported" in out:
        raise RuntimeError("filefrag: FIEMAP unsupported")
    rows = len(re.findall(r"^\s*\d+:\s+\d+\.\.", out, re.M))
    if rows != len(ext):
        raise RuntimeError(f"filefrag: parsed {len(ext)} of {rows} rows")
    return ext, out


def xfs_io(path):
    out = subprocess.run(["xfs_io", "-r", "-c", "fiemap -v", path],
                         check=True, capture_output=True, text=True).stdout
    ext = []
    pat = re.compile(r"^\s*\d+:\s+\[(\d+)\.\.(\d+)\]:\s+(\d+)\.\.(\d+)\s+"
                     r"(\d+)\s+(0x[0-9a-f]+)\s*$")
    for line in out.splitlines():
        m = pat.match(line)
        if m:
            lo, hi, plo = int(m.group(1)), int(m.group(2)), int(m.group(3))
            # 512-byte units
            ext.append((lo // 8, (hi - lo + 1) // 8, plo // 8,
                        int(m.group(6), 16)))
    return ext, out


def main():
    dev, path, spec = sys.argv[1], sys.argv[2], sys.argv[3]
    mode = sys.argv[4] if len(sys.argv) > 4 else None
    want = pages_of(spec)
    ff, ffout = filefrag(path)
    xf, xfout = xfs_io(path)
    ok = True
    ok &= say(len(ff) == len(xf),
              f"filefrag and xfs_io report the same number of extents "
              f"({len(ff)} vs {len(xf)})")
    for a, b in zip(ff, xf):
        ok &= say(a[:3] == b[:3], f"extent {a[:3]} = xfs_io {b[:3]}")
    got = set()
    prev_end = -1
    for i, (lo, n, plo, flags) in enumerate(ff):
        ok &= say(lo >= prev_end,
                  f"extent at page {lo} is after the previous one")
        prev_end = lo + n
        got.update(range(lo, lo + n))
        is_last = i == len(ff) - 1
        ok &= say(("last" in flags) == is_last,
                  f"extent {i}: last flag {'set' if is_last else 'clear'} "
                  f"({','.join(sorted(flags)) or 'none'})")
        bad = flags & {"unwritten", "delalloc", "inline", "unknown_loc"}
        ok &= say(not bad, f"extent {i}: no unwritten/delalloc flags "
                  f"({','.join(sorted(bad)) or 'none'})")
        if mode:
            ok &= say(("shared" in flags) == (mode == "shared"),
                      f"extent {i}: {mode} ({','.join(sorted(flags))})")
        xflags = xf[i][3] if i < len(xf) else 0
        ok &= say(bool(xflags & 1) == is_last,
                  f"extent {i}: xfs_io flags {xflags:#x}, LAST bit right")
    missing, extra = sorted(want - got), sorted(got - want)
    ok &= say(not missing and not extra,
              f"extents cover exactly the expected {len(want)} pages "
              f"(missing {missing[:8]}, extra {extra[:8]})")
    # The data at each physical address is the file's data.
    buf = mmap.mmap(-1, 256 * BS)
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    with open(path, "rb") as f:
        for lo, n, plo, _ in ff:
            for off in range(0, n, 256):
                k = min(256, n - off)
                view = memoryview(buf)[:k * BS]
                r = os.preadv(fd, [view], (plo + off) * BS)
                f.seek((lo + off) * BS)
                data = f.read(k * BS)
                # Past EOF (preallocated) the blocks hold zeroes.
                data += bytes(k * BS - len(data))
                ok &= say(r == k * BS and bytes(view) == data,
                          f"device bytes at block {plo + off} = file page "
                          f"{lo + off} (+{k})")
                view.release()
    os.close(fd)
    say(ok, f"{QUIET['n']} per-extent checks passed")
    if not ok:
        print("raw output:\n" + ffout + xfout)


if __name__ == "__main__":
    main()
