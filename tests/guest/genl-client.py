#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Raw generic-netlink client for the guest tests of the "nova" family.

Independent of libnova on purpose: it builds messages byte by byte, so
tests can send what novactl never would (wrong types, bad lengths, unknown
commands, garbage) and see exactly what the kernel answers.

  genl-client.py family
      the family as the kernel's controller reports it (JSON)
  genl-client.py request CMD [--dump] [--flags N] [--reserved N]
                 [--version N] [--attr TYPE:KIND:VALUE]... [--raw HEX]
      send one request, print {"errno", "name", "extack", "bad_attr_offset",
      "messages": [...], "dump_intr"} as JSON; KIND is u8/u16/u32/u64/str/
      strz/bin (VALUE in hex)/flag/nest (VALUE: TYPE:KIND:VALUE,... )/
      u64n (a u64 with NLA_F_NESTED set)
  genl-client.py expect ERRNO EXTACK-ERE CMD [request options]
      send one request as "request" does; exit 0 if it fails with ERRNO
      (a name, e.g. EINVAL, or OK) and an extended ACK matching the
      Python regular expression EXTACK-ERE (empty: any, or none), else
      print what came and exit 1 (the guest tests' "reject" helper)
  genl-client.py fuzz [--count N] [--seconds S] [--seed N]
      send random messages to the family; fail (exit 1) on a reply that is
      not well-formed, or when the family stops answering a valid request
  genl-client.py inject-pages DEV INO TARGET PAGES
      NOVA_CMD_INJECT of TARGET (5 data, 6 csum, 7 parity) at byte 0 of
      each of the first PAGES pages of inode INO of the file system with
      st_dev DEV, one request each from one socket (fast bulk damage);
      exit 1 if any fails
Exit status 0 unless something unexpected happened (a kernel error reply
to "request" is reported in the JSON, not as a failure).
"""
import argparse
import errno
import json
import os
import random
import re
import socket
import struct
import sys
import time

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_CAP_ACK = 10
NETLINK_EXT_ACK = 11

NLMSG_NOOP, NLMSG_ERROR, NLMSG_DONE, NLMSG_OVERRUN = 1, 2, 3, 4
NLM_F_REQUEST, NLM_F_MULTI, NLM_F_ACK = 0x1, 0x2, 0x4
NLM_F_DUMP_INTR = 0x10
NLM_F_DUMP = 0x300
NLM_F_CAPPED, NLM_F_ACK_TLVS = 0x100, 0x200
NLMSGERR_ATTR_MSG, NLMSGERR_ATTR_OFFS = 1, 2
NLMSGERR_ATTR_MISS_TYPE = 5

GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME, CTRL_ATTR_VERSION = 1, 2, 3
CTRL_ATTR_MAXATTR, CTRL_ATTR_OPS, CTRL_ATTR_MCAST_GROUPS = 5, 6, 7
CTRL_ATTR_OP_ID, CTRL_ATTR_OP_FLAGS = 1, 2
CTRL_ATTR_MCAST_GRP_NAME, CTRL_ATTR_MCAST_GRP_ID = 1, 2

NLA_F_NESTED = 0x8000
NLA_TYPE_MASK = 0x3fff

# uapi/linux/nova_genl.h (kept in sync by tests/guest/genl-proto.sh, which
# compares these numbers with the header).
NOVA = {
    "NOVA_CMD_FS_LIST": 1, "NOVA_CMD_STATS_GET": 2,
    "NOVA_CMD_FS_MOUNTED": 3, "NOVA_CMD_FS_UNMOUNTED": 4,
    "NOVA_A_PAD": 1, "NOVA_A_FS_DEV": 2, "NOVA_A_FS_UUID": 3,
    "NOVA_A_FS_LABEL": 4, "NOVA_A_FS_BDEV": 5, "NOVA_A_FS_FORMAT_VERSION": 6,
    "NOVA_A_FS_READ_ONLY": 7, "NOVA_A_STATS": 8,
    "NOVA_CMD_SNAPSHOT_CREATE": 5, "NOVA_CMD_SNAPSHOT_DELETE": 6,
    "NOVA_CMD_SNAPSHOT_LIST": 7, "NOVA_CMD_SNAPSHOT_CREATED": 8,
    "NOVA_CMD_SNAPSHOT_DELETED": 9, "NOVA_A_SNAPSHOT": 9,
    "NOVA_SNAPSHOT_A_ID": 2, "NOVA_SNAPSHOT_A_NAME": 3,
    "NOVA_SNAPSHOT_A_WAIT": 7,
    "NOVA_CMD_GC": 10, "NOVA_CMD_GC_FINISHED": 11, "NOVA_A_GC": 10,
    "NOVA_GC_A_INODE": 2, "NOVA_GC_A_INODES": 3,
    "NOVA_CMD_SCRUB_START": 12, "NOVA_CMD_SCRUB_STOP": 13,
    "NOVA_CMD_SCRUB_STATUS": 14, "NOVA_CMD_SCRUB_FINISHED": 15,
    "NOVA_CMD_CORRUPTION": 16, "NOVA_CMD_INJECT": 17,
    "NOVA_CMD_PMTRACE": 18, "NOVA_A_PMTRACE": 14,
    "NOVA_A_SCRUB": 11, "NOVA_A_CORRUPTION": 12, "NOVA_A_INJECT": 13,
    "NOVA_SCRUB_A_STATE": 2, "NOVA_SCRUB_A_BANDWIDTH": 3,
    "NOVA_SCRUB_A_RESTART": 4, "NOVA_SCRUB_A_BYTES_SCANNED": 5,
    "NOVA_SCRUB_A_BAD": 17,
    "NOVA_INJECT_A_TARGET": 2, "NOVA_INJECT_A_INODE": 3,
    "NOVA_INJECT_A_OFFSET": 4, "NOVA_INJECT_A_COPY": 5,
    "NOVA_CMD_SNAPSHOT_DIFF": 19, "NOVA_A_SNAPSHOT_DIFF": 15,
    "NOVA_SNAPDIFF_A_OLD": 2, "NOVA_SNAPDIFF_A_NEW": 3,
}


def align4(n):
    return (n + 3) & ~3


def nla(atype, payload):
    hdr = struct.pack("=HH", 4 + len(payload), atype)
    return hdr + payload + b"\0" * (align4(len(payload)) - len(payload))


def parse_attrs(buf):
    """[(type, nested_flag, payload)] of a TLV stream; raises on garbage."""
    out = []
    off = 0
    while off + 4 <= len(buf):
        alen, atype = struct.unpack_from("=HH", buf, off)
        if alen < 4 or off + alen > len(buf):
            raise ValueError("attribute length %d at %d overruns %d" %
                             (alen, off, len(buf)))
        out.append((atype & NLA_TYPE_MASK, bool(atype & NLA_F_NESTED),
                    buf[off + 4:off + alen]))
        off += align4(alen)
    if off < len(buf) and len(buf) - off >= 4:
        raise ValueError("trailing bytes in attribute stream")
    return out


def encode_attr(spec):
    """TYPE:KIND:VALUE -> bytes."""
    atype, kind, value = spec.split(":", 2)
    atype = NOVA[atype] if atype in NOVA else int(atype, 0)
    if kind == "u64n":		# a u64 wrongly flagged NLA_F_NESTED
        return nla(atype | NLA_F_NESTED, struct.pack("=Q", int(value, 0)))
    if kind in ("u8", "u16", "u32", "u64"):
        fmt = {"u8": "=B", "u16": "=H", "u32": "=I", "u64": "=Q"}[kind]
        return nla(atype, struct.pack(fmt, int(value, 0)))
    if kind == "str":
        return nla(atype, value.encode())
    if kind == "strz":
        return nla(atype, value.encode() + b"\0")
    if kind == "bin":
        return nla(atype, bytes.fromhex(value))
    if kind == "flag":
        return nla(atype, b"")
    if kind == "nest":
        inner = b"".join(encode_attr(s) for s in value.split(",") if s)
        return nla(atype | NLA_F_NESTED, inner)
    raise ValueError("unknown attribute kind " + kind)


def errno_name(e):
    # Python lists ENOTSUP for 95; the kernel's name is EOPNOTSUPP.
    if e == errno.EOPNOTSUPP:
        return "EOPNOTSUPP"
    return errno.errorcode.get(e, str(e))


class Genl:
    def __init__(self):
        self.sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                NETLINK_GENERIC)
        self.sk.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sk.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.sk.bind((0, 0))
        self.sk.settimeout(30)
        self.seq = int(time.time()) & 0xffff

    def send(self, family, cmd, flags, payload, version=1, reserved=0):
        self.seq += 1
        body = struct.pack("=BBH", cmd, version, reserved) + payload
        msg = struct.pack("=IHHII", 16 + len(body), family, flags,
                          self.seq, 0) + body
        self.sk.send(msg)
        return self.seq

    def send_raw(self, raw):
        self.sk.send(raw)

    def collect(self, seq):
        """Replies to SEQ up to the final ACK/DONE."""
        res = {"errno": None, "name": None, "extack": None,
               "bad_attr_offset": None, "missing_attr": None,
               "messages": [], "dump_intr": False}
        while True:
            data = self.sk.recv(1 << 20)
            off = 0
            while off + 16 <= len(data):
                mlen, mtype, mflags, mseq, _ = struct.unpack_from("=IHHII",
                                                                  data, off)
                if mlen < 16 or off + mlen > len(data):
                    raise ValueError("bad nlmsg length %d" % mlen)
                body = data[off + 16:off + mlen]
                off += align4(mlen)
                if mseq != seq:
                    continue
                if mflags & NLM_F_DUMP_INTR:
                    res["dump_intr"] = True
                if mtype in (NLMSG_ERROR, NLMSG_DONE):
                    self._ack(mtype, mflags, body, res)
                    return res
                if mtype in (NLMSG_NOOP, NLMSG_OVERRUN):
                    continue
                if len(body) < 4:
                    raise ValueError("data message without genl header")
                cmd, ver, _ = struct.unpack_from("=BBH", body)
                res["messages"].append({
                    "type": mtype, "flags": mflags, "cmd": cmd,
                    "version": ver,
                    "attrs": attrs_to_json(parse_attrs(body[4:]))})

    @staticmethod
    def _ack(mtype, mflags, body, res):
        if mtype == NLMSG_ERROR:
            if len(body) < 20:
                raise ValueError("truncated NLMSG_ERROR")
            (err,) = struct.unpack_from("=i", body)
            olen = struct.unpack_from("=I", body, 4)[0]
            tlv = 20 if mflags & NLM_F_CAPPED else 4 + olen
        else:
            err = struct.unpack_from("=i", body)[0] if len(body) >= 4 else 0
            tlv = 4
        if err > 0:
            raise ValueError("positive error %d in ack" % err)
        res["errno"] = -err
        res["name"] = errno_name(-err) if err else "OK"
        if mflags & NLM_F_ACK_TLVS:
            for atype, _, payload in parse_attrs(body[tlv:]):
                if atype == NLMSGERR_ATTR_MSG:
                    res["extack"] = payload.rstrip(b"\0").decode()
                elif atype == NLMSGERR_ATTR_OFFS and len(payload) >= 4:
                    res["bad_attr_offset"] = struct.unpack("=I", payload[:4])[0]
                elif atype == NLMSGERR_ATTR_MISS_TYPE and len(payload) >= 4:
                    res["missing_attr"] = struct.unpack("=I", payload[:4])[0]

    def request(self, family, cmd, flags, payload, **kw):
        return self.collect(self.send(family, cmd, flags, payload, **kw))

    def family(self, name="nova"):
        res = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                           NLM_F_REQUEST | NLM_F_ACK,
                           nla(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))
        if res["errno"]:
            return None, res
        fam = {"ops": {}, "mcast_groups": {}}
        for atype, _, p in parse_attrs(_raw_attrs(res)):
            if atype == CTRL_ATTR_FAMILY_ID:
                fam["id"] = struct.unpack("=H", p[:2])[0]
            elif atype == CTRL_ATTR_VERSION:
                fam["version"] = struct.unpack("=I", p[:4])[0]
            elif atype == CTRL_ATTR_MAXATTR:
                fam["maxattr"] = struct.unpack("=I", p[:4])[0]
            elif atype == CTRL_ATTR_OPS:
                for _, _, op in parse_attrs(p):
                    d = {t: struct.unpack("=I", v[:4])[0]
                         for t, _, v in parse_attrs(op)}
                    fam["ops"][d[CTRL_ATTR_OP_ID]] = d.get(CTRL_ATTR_OP_FLAGS, 0)
            elif atype == CTRL_ATTR_MCAST_GROUPS:
                for _, _, g in parse_attrs(p):
                    d = {t: v for t, _, v in parse_attrs(g)}
                    fam["mcast_groups"][
                        d[CTRL_ATTR_MCAST_GRP_NAME].rstrip(b"\0").decode()] = \
                        struct.unpack("=I", d[CTRL_ATTR_MCAST_GRP_ID][:4])[0]
        return fam, res


NETLINK_ADD_MEMBERSHIP = 1


def events_socket(group="events"):
    """(family, socket): a netlink socket that has joined the family's
    multicast GROUP (for tests importing this file as a module)."""
    fam, res = Genl().family()
    if fam is None:
        raise OSError(res["errno"], "no nova genl family")
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    s.bind((0, 0))
    s.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, fam["mcast_groups"][group])
    return fam, s


def _raw_attrs(res):
    return res["messages"][0]["attrs"]["_raw"] if res["messages"] else b""


def attrs_to_json(attrs):
    """Attributes as {type: hex payload}; the raw stream kept for reparsing."""
    out = {"_raw": b"".join(nla(t | (NLA_F_NESTED if n else 0), p)
                           for t, n, p in attrs)}
    for t, _, p in attrs:
        out.setdefault(str(t), []).append(p.hex())
    return out


def jsonable(res):
    for m in res["messages"]:
        m["attrs"].pop("_raw", None)
    return res


def _nova_family():
    """(Genl, family), or (Genl, None) after printing the controller's
    error reply as JSON."""
    g = Genl()
    fam, res = g.family()
    if fam is None:
        print(json.dumps(jsonable(res)))
    return g, fam


def cmd_family(args):
    _, fam = _nova_family()
    if fam is None:
        return 1
    fam["ops"] = {str(k): v for k, v in fam["ops"].items()}
    print(json.dumps(fam))
    return 0


def cmd_request(args):
    g, fam = _nova_family()
    if fam is None:
        return 1
    res = do_request(g, fam, args)
    print(json.dumps(jsonable(res)))
    return 0


def cmd_expect(args):
    """The request fails with args.errno and an extack matching args.ere."""
    g, fam = _nova_family()
    if fam is None:
        return 1
    res = do_request(g, fam, args)
    ext = res.get("extack") or ""
    if res["name"] == args.errno and (not args.ere or re.search(args.ere, ext)):
        return 0
    print("expected %s with extack /%s/\ngot: %s" %
          (args.errno, args.ere, json.dumps(jsonable(res))))
    return 1


def do_request(g, fam, args):
    payload = b"".join(encode_attr(a) for a in args.attr)
    if args.raw:
        payload += bytes.fromhex(args.raw)
    flags = NLM_F_REQUEST | NLM_F_ACK
    if args.dump:
        flags |= NLM_F_DUMP
    if args.flags is not None:
        flags = int(args.flags, 0)
    cmd = NOVA[args.cmd] if args.cmd in NOVA else int(args.cmd, 0)
    return g.request(fam["id"], cmd, flags, payload, version=args.version,
                     reserved=args.reserved)


def cmd_inject_pages(args):
    g, fam = _nova_family()
    if fam is None:
        return 1
    for page in range(args.pages):
        inj = (nla(NOVA["NOVA_INJECT_A_TARGET"], struct.pack("=I", args.target)) +
               nla(NOVA["NOVA_INJECT_A_INODE"], struct.pack("=Q", args.ino)) +
               nla(NOVA["NOVA_INJECT_A_OFFSET"], struct.pack("=Q", page * 4096)))
        payload = (nla(NOVA["NOVA_A_FS_DEV"], struct.pack("=Q", args.dev)) +
                   nla(NOVA["NOVA_A_INJECT"] | NLA_F_NESTED, inj))
        res = g.request(fam["id"], NOVA["NOVA_CMD_INJECT"],
                        NLM_F_REQUEST | NLM_F_ACK, payload)
        if res["errno"]:
            print("page %d: %s %s" % (page, res["name"], res.get("extack", "")),
                  file=sys.stderr)
            return 1
    return 0


def random_attr(rng, depth=0):
    atype = rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, rng.randrange(0, 0x4000)])
    kind = rng.randrange(8)
    if kind == 0:
        payload = b""
    elif kind == 1:
        payload = struct.pack("=Q", rng.choice([0, 1, 0x10300, 2**32 - 1,
                                                2**32, 2**64 - 1,
                                                rng.getrandbits(64)]))
    elif kind == 2:
        payload = struct.pack("=I", rng.getrandbits(32))
    elif kind == 3:
        payload = os.urandom(rng.choice([1, 2, 15, 16, 17, 31, 64]))
    elif kind == 4 and depth < 3:
        payload = b"".join(random_attr(rng, depth + 1)
                           for _ in range(rng.randrange(4)))
        atype |= NLA_F_NESTED
    elif kind == 5:
        payload = b"nova\0"
    else:
        payload = os.urandom(rng.randrange(0, 40))
    return nla(atype & 0xffff, payload)


def cmd_fuzz(args):
    rng = random.Random(args.seed)
    g = Genl()
    fam, res = g.family()
    if fam is None:
        print("fuzz: family not found: %s" % res["extack"], file=sys.stderr)
        return 1
    flag_choices = [NLM_F_REQUEST, NLM_F_REQUEST | NLM_F_ACK,
                    NLM_F_REQUEST | NLM_F_DUMP, NLM_F_REQUEST | NLM_F_ACK |
                    NLM_F_DUMP, NLM_F_REQUEST | 0x800, NLM_F_REQUEST | 0x100]
    counts = {}
    deadline = time.monotonic() + args.seconds
    sent = 0
    while sent < args.count and time.monotonic() < deadline:
        cmd = rng.choice([0, 1, 2, 3, 4, 5, rng.randrange(256)])
        flags = rng.choice(flag_choices) | NLM_F_ACK
        payload = b"".join(random_attr(rng) for _ in range(rng.randrange(5)))
        if rng.random() < 0.1:
            payload += os.urandom(rng.randrange(1, 8))	# trailing garbage
        version = rng.choice([1, 1, 1, 0, rng.randrange(256)])
        reserved = rng.choice([0, 0, 0, 0, rng.randrange(65536)])
        try:
            res = g.request(fam["id"], cmd, flags, payload, version=version,
                            reserved=reserved)
        except (ValueError, struct.error) as exc:
            print("fuzz: malformed reply to message %d: %s" % (sent, exc),
                  file=sys.stderr)
            return 1
        except socket.timeout:
            print("fuzz: no reply to message %d" % sent, file=sys.stderr)
            return 1
        counts[res["name"]] = counts.get(res["name"], 0) + 1
        sent += 1
    # The family must still work after the storm.
    res = g.request(fam["id"], NOVA["NOVA_CMD_FS_LIST"],
                    NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP, b"")
    if res["errno"] != 0:
        print("fuzz: FS_LIST fails after fuzzing: %s" % res, file=sys.stderr)
        return 1
    print(json.dumps({"sent": sent, "replies": counts}))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    sub.add_parser("family")
    r = sub.add_parser("request")
    x = sub.add_parser("expect")
    x.add_argument("errno")
    x.add_argument("ere")
    for p in (r, x):
        p.add_argument("cmd")
        p.add_argument("--dump", action="store_true")
        p.add_argument("--flags")
        p.add_argument("--reserved", type=int, default=0)
        p.add_argument("--version", type=int, default=1)
        p.add_argument("--attr", action="append", default=[])
        p.add_argument("--raw")
    f = sub.add_parser("fuzz")
    f.add_argument("--count", type=int, default=2000)
    f.add_argument("--seconds", type=float, default=60)
    f.add_argument("--seed", type=int, default=1)
    i = sub.add_parser("inject-pages")
    i.add_argument("dev", type=int)
    i.add_argument("ino", type=int)
    i.add_argument("target", type=int)
    i.add_argument("pages", type=int)
    args = ap.parse_args()
    return {"family": cmd_family, "request": cmd_request,
            "expect": cmd_expect, "fuzz": cmd_fuzz,
            "inject-pages": cmd_inject_pages}[args.what](args)


if __name__ == "__main__":
    sys.exit(main())
