#!/usr/bin/env python3
"""Turn the output of one fstests "check" run into per-test status lines.

usage: results.py status RESULTS TEST...
       results.py klog RESULTS

status: prints "TEST STATUS SECONDS REASON" (STATUS pass, fail, notrun or
missing) for each TEST, from RESULTS/result.xml (check -R xunit), or, when
check did not get to write it (the guest was stopped), from check's own
output RESULTS/check.out as far as it got.

klog: splits RESULTS/kernel.log (the guest's kernel log during the run) at
fstests' markers ("run fstests TEST at ...") into RESULTS/log/TEST.klog
('/' in TEST becomes '-').
"""
import os
import re
import sys
import xml.etree.ElementTree as ET


def one_line(s, n=120):
    s = " ".join((s or "").split())
    return s[:n]


def from_xml(path):
    res = {}
    root = ET.parse(path).getroot()
    for tc in root.iter("testcase"):
        name = tc.get("name")
        secs = tc.get("time") or "0"
        fail = tc.find("failure")
        skip = tc.find("skipped")
        if fail is not None:
            res[name] = ("fail", secs, one_line(fail.get("message")))
        elif skip is not None:
            res[name] = ("notrun", secs, one_line(skip.get("message")))
        else:
            res[name] = ("pass", secs, "")
    return res


TEST_RE = re.compile(r"^([a-z0-9]+/[0-9]+)\s+(.*)$")


def from_check_out(path):
    """check's console output: one block per test, first line its name."""
    res = {}
    cur = None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = TEST_RE.match(line)
            if m:
                cur = m.group(1)
                rest = m.group(2)
                if "[not run]" in rest:
                    res[cur] = ("notrun", "0", one_line(rest.split("[not run]", 1)[1]))
                elif "output mismatch" in rest or "[failed" in rest:
                    res[cur] = ("fail", "0", one_line(rest))
                else:
                    t = re.search(r"(\d+)s\s*$", rest)
                    res[cur] = ("pass", t.group(1) if t else "0", "") if t else None
                continue
            if cur and res.get(cur) and res[cur][0] == "pass" and \
                    re.search(r"inconsistent|_check_dmesg|output mismatch|\[failed", line):
                res[cur] = ("fail", res[cur][1], one_line(line))
            elif cur and res.get(cur) is None and \
                    re.search(r"inconsistent|_check_dmesg|output mismatch|\[failed", line):
                res[cur] = ("fail", "0", one_line(line))
    return {k: v for k, v in res.items() if v}


def status(results, tests):
    xml = os.path.join(results, "result.xml")
    out = os.path.join(results, "check.out")
    res = {}
    if os.path.exists(xml):
        try:
            res = from_xml(xml)
        except ET.ParseError:
            res = {}
    if not res and os.path.exists(out):
        res = from_check_out(out)
    for t in tests:
        st, secs, reason = res.get(t, ("missing", "0", "did not run to completion"))
        print(f"{t} {st} {secs} {reason}".rstrip())


def klog(results):
    path = os.path.join(results, "kernel.log")
    logdir = os.path.join(results, "log")
    os.makedirs(logdir, exist_ok=True)
    if not os.path.exists(path):
        return
    cur = None
    chunks = {}
    mark = re.compile(r"run fstests (\S+) at ")
    with open(path, errors="replace") as f:
        for line in f:
            m = mark.search(line)
            if m:
                cur = m.group(1)
            if cur:
                chunks.setdefault(cur, []).append(line)
    for t, lines in chunks.items():
        with open(os.path.join(logdir, t.replace("/", "-") + ".klog"), "w") as f:
            f.writelines(lines)


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "status":
        status(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 3 and sys.argv[1] == "klog":
        klog(sys.argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
