#!/usr/bin/env python3
"""The expected contents of a file after fallocate range operations.

    falloc_model.py MODEL punch|zero|zero-keep|collapse|insert OFF LEN
    falloc_model.py MODEL check FILE

MODEL is a plain file (on tmpfs) holding the bytes the file on NOVA should
hold; each operation is applied to it as Linux documents the mode
(fallocate(2)): punch (always KEEP_SIZE) and zero-keep zero the bytes of
the range inside the file; zero also grows the file to OFF + LEN;
collapse removes the range, insert inserts LEN zero bytes at OFF.
"check" compares FILE with MODEL: size, then the first differing byte.
"""
import sys


def main():
    model, op = sys.argv[1], sys.argv[2]
    data = bytearray(open(model, "rb").read())
    if op == "check":
        got = open(sys.argv[3], "rb").read()
        if got == bytes(data):
            return 0
        diff = next((i for i in range(min(len(got), len(data)))
                     if got[i] != data[i]), min(len(got), len(data)))
        print("size %d, expected %d; first difference at byte %d (0x%x)" %
              (len(got), len(data), diff, diff))
        return 1
    off, length = int(sys.argv[3], 0), int(sys.argv[4], 0)
    end = off + length
    if op in ("punch", "zero-keep"):
        stop = min(end, len(data))
        if off < stop:
            data[off:stop] = bytes(stop - off)
    elif op == "zero":
        if end > len(data):
            data.extend(bytes(end - len(data)))
        data[off:end] = bytes(length)
    elif op == "collapse":
        del data[off:end]
    elif op == "insert":
        data[off:off] = bytes(length)
    else:
        sys.exit(__doc__)
    open(model, "wb").write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
