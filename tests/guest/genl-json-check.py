#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Validate novactl's JSON output against its documented schema, version 1
(docs/man/novactl.8, section JSON OUTPUT).

  genl-json-check.py KIND [FILE]
      KIND: fs-list, stats, event, error, gc, snapshot-list

Reads one document (event: one per line, each checked) from FILE or stdin.
The member set must match exactly: a member added to novactl without being
added here and to the man page fails, which keeps the schema documented.
Exit 0 if valid, 1 with the reasons on stderr.
"""
import json
import sys

INT, STR, BOOL, LIST, OBJ = "int", "str", "bool", "list", "obj"
INT_OR_NULL = "int or null"

ID = {"dev": INT, "device": STR, "bdev": STR, "uuid": STR, "label": STR}
FS = dict(ID, mountpoints=LIST, format_version=INT, format=STR,
          read_only=BOOL)
STATS = dict(ID, mountpoints=LIST, format_version=INT, format=STR, cpus=INT,
             block_size=INT, blocks_total=INT, blocks_free=INT,
             inodes_total=INT, inodes_free=INT, log_pages=INT,
             data_pages=INT, epoch=INT, snapshots=INT, mount_time_ns=INT,
             recovered=BOOL, space_check_pending=BOOL, read_only=BOOL, operations=LIST, gc=OBJ,
             scrub=OBJ, protection=OBJ, snapshot_reclaim=OBJ)
OP = {"name": STR, "count": INT, "time_ns": INT}
GC_STATS = {"fast_pages": INT, "thorough_runs": INT, "thorough_pages": INT,
            "entries_copied": INT, "time_ns": INT}
RECLAIM_STATS = {"pending_blocks": INT, "pending_inodes": INT,
                 "reclaimed_blocks": INT}
SCRUB_STATS = {"state": STR, "passes": INT, "bytes": INT, "errors": INT,
               "repaired": INT, "unrecoverable": INT}
PROT_STATS = {"csum": BOOL, "parity": BOOL, "verify": BOOL, "verified": INT,
              "repaired": INT, "unrecoverable": INT, "badblocks": INT,
              "badblocks_repaired": INT, "badblocks_lost": INT,
              "badblocks_withheld": INT}
GC = {"inode": INT_OR_NULL, "inodes": INT, "log_pages_before": INT,
      "log_pages_after": INT, "fast_pages": INT, "thorough_runs": INT,
      "entries_copied": INT, "time_ns": INT}
EVENT = dict(ID, version=INT, time=STR, event=STR)
ERROR = {"errno": INT, "name": STR, "message": STR}
SNAPSHOT = {"id": INT, "name": STR, "epoch": INT, "ctime": STR,
            "ctime_ns": INT}
SNAPSHOT_LISTED = dict(SNAPSHOT, exclusive_blocks=INT, exclusive_bytes=INT)

errors = []


def typeok(v, t):
    if t == INT_OR_NULL:
        return v is None or typeok(v, INT)
    if t == INT:
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0
    return isinstance(v, {STR: str, BOOL: bool, LIST: list, OBJ: dict}[t])


def check(obj, schema, where):
    if not isinstance(obj, dict):
        errors.append("%s: not an object" % where)
        return
    for k in sorted(set(schema) - set(obj)):
        errors.append("%s: missing member %s" % (where, k))
    for k in sorted(set(obj) - set(schema)):
        errors.append("%s: undocumented member %s" % (where, k))
    for k, t in schema.items():
        if k in obj and not typeok(obj[k], t):
            errors.append("%s.%s: %r is not %s" % (where, k, obj[k], t))
    if "device" in obj and "dev" in obj and typeok(obj["dev"], INT):
        d = obj["dev"]
        want = "%d:%d" % ((d >> 8) & 0xfff, (d & 0xff) | ((d >> 12) & 0xfff00))
        if obj["device"] != want:
            errors.append("%s.device %s does not match dev %d" %
                          (where, obj["device"], d))
    if "uuid" in obj and isinstance(obj["uuid"], str):
        u = obj["uuid"]
        if len(u) != 36 or [len(p) for p in u.split("-")] != [8, 4, 4, 4, 12]:
            errors.append("%s.uuid %r is not a UUID" % (where, u))
    for m in obj.get("mountpoints", []) if schema is not ERROR else []:
        if not isinstance(m, str) or not m.startswith("/"):
            errors.append("%s.mountpoints: %r" % (where, m))


def top(doc, member):
    if not isinstance(doc, dict):
        errors.append("document is not an object")
        return None
    if doc.get("version") != 1:
        errors.append("version is %r, want 1" % doc.get("version"))
    extra = set(doc) - {"version", member}
    if extra:
        errors.append("document: undocumented members %s" % sorted(extra))
    if member not in doc:
        errors.append("document: missing %s" % member)
        return None
    return doc[member]


def top_list(doc, member):
    """The list under MEMBER of a top-level document, or None (noted)."""
    items = top(doc, member)
    if items is not None and not isinstance(items, list):
        errors.append("%s is not a list" % member)
        return None
    return items


def main():
    kind = sys.argv[1]
    text = open(sys.argv[2]).read() if len(sys.argv) > 2 else sys.stdin.read()
    docs = text.splitlines() if kind == "event" else [text]
    if not [d for d in docs if d.strip()]:
        errors.append("no JSON document")
    for i, raw in enumerate(d for d in docs if d.strip()):
        try:
            doc = json.loads(raw)
        except ValueError as exc:
            errors.append("document %d is not JSON: %s" % (i, exc))
            continue
        if kind == "event":
            check(doc, EVENT, "event[%d]" % i)
            if doc.get("version") != 1:
                errors.append("event[%d]: version %r" % (i, doc.get("version")))
            if doc.get("event") not in ("fs-mounted", "fs-unmounted"):
                errors.append("event[%d]: unknown event %r" % (i, doc.get("event")))
        elif kind == "gc":
            if not isinstance(doc, dict):
                errors.append("document is not an object")
                continue
            if doc.get("version") != 1:
                errors.append("version is %r, want 1" % doc.get("version"))
            extra = set(doc) - {"version", "filesystem", "gc"}
            if extra:
                errors.append("document: undocumented members %s" % sorted(extra))
            check(doc.get("filesystem"), ID, "filesystem")
            check(doc.get("gc"), GC, "gc")
        elif kind == "snapshot-list":
            for j, sn in enumerate(top_list(doc, "snapshots") or []):
                check(sn, SNAPSHOT_LISTED, "snapshots[%d]" % j)
        elif kind == "error":
            e = top(doc, "error")
            if e is not None:
                check(e, ERROR, "error")
        else:
            for j, fs in enumerate(top_list(doc, "filesystems") or []):
                check(fs, FS if kind == "fs-list" else STATS,
                      "filesystems[%d]" % j)
                if kind == "stats" and isinstance(fs, dict):
                    for k, op in enumerate(fs.get("operations", [])):
                        check(op, OP, "filesystems[%d].operations[%d]" % (j, k))
                    if "gc" in fs:
                        check(fs["gc"], GC_STATS, "filesystems[%d].gc" % j)
                    if "scrub" in fs:
                        check(fs["scrub"], SCRUB_STATS,
                              "filesystems[%d].scrub" % j)
                    if "protection" in fs:
                        check(fs["protection"], PROT_STATS,
                              "filesystems[%d].protection" % j)
                    if "snapshot_reclaim" in fs:
                        check(fs["snapshot_reclaim"], RECLAIM_STATS,
                              "filesystems[%d].snapshot_reclaim" % j)
    for e in errors:
        print("schema: " + e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
