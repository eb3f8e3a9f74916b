#!/usr/bin/env python3
"""Benchmark records and reports for bench/run.sh (standard library only).

Runs in the guest (turning fio and nova-bench-meta output into records) and
on the host (turning records into the Markdown/JSON report and plot data).

A record is one JSON object per line:
  {"fs": "ext4-dax", "workload": "randwrite-4k", "jobs": 1, "metric": "iops",
   "value": 51234.5, "unit": "IOPS", "better": "higher"}
or, when a figure does not exist, {"fs": ..., "workload": ..., "na": REASON}
(workload "*" means every workload of that file system).

Subcommands:
  value   --fs --workload --jobs --metric --value --unit --better
  na      --fs --workload --reason
  fio     --fs --workload --jobs [--ns-op] FIO_JSON   records of one fio run
          (--ns-op adds the mean latency per operation in ns, which is
          guest instructions under bench/run.sh --reference)
  driver  --fs [--workload W] DRIVER_JSONL     records of nova-bench-meta
  report  --records F --info F --md F --json F [--plot-data F]
  check   --records F | --json F               exit 1 unless well formed
"""
import argparse
import json
import math
import sys

# Columns of the table, in order; NOVA first.
FS_ORDER = ["nova", "nova-snap", "nova-browsed", "nova-noprot", "ext4-dax",
            "xfs-dax", "raw", "memcpy"]
FS_TITLE = {
    "nova": "NOVA",
    "nova-snap": "NOVA, snapshot kept",
    "nova-browsed": "NOVA, snapshot browsed",
    "nova-noprot": "NOVA prot. off",
    "ext4-dax": "ext4-dax",
    "xfs-dax": "xfs-dax",
    "raw": "raw O_DIRECT",
    "memcpy": "DAX memcpy",
}
DEVICE = ["raw", "memcpy"]	# reference columns, not file systems
CEILING = "memcpy"		# the device limit of the share table
NOVAS = ["nova", "nova-noprot"]
BASELINES = ["ext4-dax", "xfs-dax"]

# Rows, in order: workload, metric. Unknown ones go last, sorted.
ROW_ORDER = [
    ("randwrite-4k", "ns_op"), ("seqwrite-2m", "ns_op"), ("seqread-2m", "ns_op"),
    ("randread-4k", "ns_op"),
    ("randwrite-4k", "fences_op"), ("randwrite-4k", "flushes_op"),
    ("seqwrite-2m", "fences_op"), ("seqwrite-2m", "flushes_op"),
    ("seqwrite-2m", "bw"), ("seqread-2m", "bw"),
    ("randwrite-4k", "iops"), ("randread-4k", "iops"),
    ("append-fsync-4k", "iops"),
    ("append-fsync-4k", "write_p50"), ("append-fsync-4k", "write_p99"),
    ("append-fsync-4k", "fsync_p50"), ("append-fsync-4k", "fsync_p99"),
    ("create", "ops"), ("stat", "ops"), ("rename", "ops"),
    ("unlink", "ops"), ("readdir", "ops"),
    ("tree_create", "ops"), ("tree_delete", "ops"),
    ("fileserver", "ops"), ("varmail", "ops"),
    ("mount", "mount_ms"), ("mount", "umount_ms"),
    ("mmap-randwrite-4k-fresh", "ns_op"), ("mmap-randwrite-4k-aged", "ns_op"),
    ("mmap-randread-4k-fresh", "ns_op"), ("mmap-randread-4k-aged", "ns_op"),
    ("mmap-randwrite-4k-fresh", "ops"), ("mmap-randwrite-4k-aged", "ops"),
    ("mmap-randread-4k-fresh", "ops"), ("mmap-randread-4k-aged", "ops"),
    ("mmap-randwrite-4k-fresh", "pmd_share"), ("mmap-randwrite-4k-aged", "pmd_share"),
    ("mmap-randwrite-4k-fresh", "faults"), ("mmap-randwrite-4k-aged", "faults"),
]

REQUIRED = {"fs", "workload", "jobs", "metric", "value", "unit", "better"}


def rec(fs, workload, jobs, metric, value, unit, better):
    if value is None or not math.isfinite(float(value)):
        raise ValueError("%s %s %s: no value" % (fs, workload, metric))
    return {"fs": fs, "workload": workload, "jobs": int(jobs), "metric": metric,
            "value": float(value), "unit": unit, "better": better}


def emit(records):
    for r in records:
        print(json.dumps(r, sort_keys=True))


def load_json_lenient(path):
    """fio may print warnings before its JSON: parse from the first '{'."""
    with open(path) as f:
        text = f.read()
    start = text.find("{")
    if start < 0:
        raise ValueError("%s: no JSON object" % path)
    return json.loads(text[start:])


def percentile(lat, pct):
    """A percentile (µs) from a fio clat_ns/lat_ns object, or None."""
    if not lat:
        return None
    p = lat.get("percentile") or {}
    for key, v in p.items():
        if abs(float(key) - pct) < 1e-6:
            return v / 1000.0
    return None


def parse_fio(path, fs, workload, jobs, ns_op=False):
    data = load_json_lenient(path)
    job = data["jobs"][0]
    if job.get("error"):
        raise ValueError("fio job error %s" % job["error"])
    direction = "read" if "read" in workload else "write"
    side = job[direction]
    if not side.get("io_bytes"):
        raise ValueError("fio did no %s I/O" % direction)
    out = []
    if workload.startswith("seq"):
        out.append(rec(fs, workload, jobs, "bw", side["bw_bytes"] / 1048576.0,
                       "MiB/s", "higher"))
    else:
        out.append(rec(fs, workload, jobs, "iops", side["iops"], "IOPS", "higher"))
    if ns_op:
        # fio's lat_ns: from issuing the pread/pwrite to its return.
        mean = (side.get("lat_ns") or {}).get("mean")
        if not mean:
            raise ValueError("fio gave no mean latency")
        out.append(rec(fs, workload, jobs, "ns_op", mean, "ns", "lower"))
    if workload.startswith("append-fsync"):
        for pct, name in ((50.0, "p50"), (99.0, "p99")):
            w = percentile(side.get("clat_ns"), pct)
            s = percentile((job.get("sync") or {}).get("lat_ns"), pct)
            if w is not None:
                out.append(rec(fs, workload, jobs, "write_" + name, w, "µs", "lower"))
            if s is not None:
                out.append(rec(fs, workload, jobs, "fsync_" + name, s, "µs", "lower"))
    return out


def parse_fio_counters(path, fs, workload, jobs, before, after):
    """NOVA's fences and write-back calls per operation of a write run:
    the difference of the module's counters (nova_counters in guest.sh)
    over the run, divided by fio's I/O count. Read runs give none."""
    if "write" not in workload:
        return []
    side = load_json_lenient(path)["jobs"][0]["write"]
    ios = side.get("total_ios")
    if not ios:
        raise ValueError("fio gave no I/O count")
    b = [int(x) for x in before.split()]
    e = [int(x) for x in after.split()]
    return [rec(fs, workload, jobs, "fences_op", (e[0] - b[0]) / ios, "fences", "lower"),
            rec(fs, workload, jobs, "flushes_op", (e[1] - b[1]) / ios, "calls", "lower")]


DRIVER_UNITS = {"readdir": "entries/s", "tree_create": "dirs/s", "tree_delete": "dirs/s"}


def parse_driver(path, fs, workload_override=None):
    out = []
    with open(path) as f:
        lines = [l for l in f if l.strip()]
    if not lines:
        raise ValueError("%s: no output" % path)
    for line in lines:
        d = json.loads(line)
        wl = d["workload"]
        if wl == "populate":
            continue
        if wl == "mount":
            name = workload_override or "mount"
            out.append(rec(fs, name, 1, "mount_ms", d["mount_ms"], "ms", "lower"))
            if not d.get("kept"):
                out.append(rec(fs, name, 1, "umount_ms", d["umount_ms"], "ms", "lower"))
            continue
        jobs = d.get("procs", 1)
        if wl.startswith("mmap-"):
            # issue 21: ns (instructions under --reference) per 4 KiB
            # store or load through the mapping, and for the store row
            # the faults of touching every page and the PMD-mapped share
            out.append(rec(fs, wl, jobs, "ns_op", d["ns_op"], "ns", "lower"))
            out.append(rec(fs, wl, jobs, "ops", d["ops_per_sec"], "ops/s", "higher"))
            if "faults" in d:
                out.append(rec(fs, wl, jobs, "faults", d["faults"], "faults", "lower"))
                out.append(rec(fs, wl, jobs, "pmd_share", d["pmd_share"], "%", "higher"))
            continue
        if wl in ("memcpy_write", "memcpy_read"):
            name = "seqwrite-2m" if wl == "memcpy_write" else "seqread-2m"
            out.append(rec(fs, name, jobs, "bw", d["mib_per_sec"], "MiB/s", "higher"))
            continue
        out.append(rec(fs, workload_override or wl, jobs, "ops", d["ops_per_sec"],
                       DRIVER_UNITS.get(wl, "ops/s"), "higher"))
    return out


def load_records(path):
    records = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            r = json.loads(line)
            if "na" in r:
                if not {"fs", "workload"} <= r.keys():
                    raise ValueError("%s:%d: n/a record without fs/workload" % (path, n))
            elif not REQUIRED <= r.keys():
                raise ValueError("%s:%d: missing %s" % (path, n, sorted(REQUIRED - r.keys())))
            records.append(r)
    return records


def row_key_order(key):
    wl, jobs, metric = key
    base = wl
    if wl.startswith("recovery-"):
        return (len(ROW_ORDER) + 1, int(wl.split("-", 1)[1]), metric, jobs)
    try:
        return (ROW_ORDER.index((base, metric)), jobs, "", 0)
    except ValueError:
        return (len(ROW_ORDER), 0, wl + metric, jobs)


METRIC_TITLE = {"ns_op": "ns/op (= instructions)",
                "fences_op": "fences/op", "flushes_op": "write-back calls/op", "bw": "MiB/s", "iops": "IOPS", "ops": None,
                "write_p50": "write p50 µs", "write_p99": "write p99 µs",
                "fsync_p50": "fsync p50 µs", "fsync_p99": "fsync p99 µs",
                "mount_ms": "mount ms", "umount_ms": "umount ms",
                "pmd_share": "% PMD-mapped", "faults": "faults touching every page"}


# A driver run that failed names the run; these are the rows it would give.
NA_GROUPS = {"meta": ("create", "stat", "rename", "unlink", "readdir"),
             "mmap": ("mmap-randwrite-4k-fresh", "mmap-randread-4k-fresh",
                      "mmap-randwrite-4k-aged", "mmap-randread-4k-aged"),
             "mmap-fresh": ("mmap-randwrite-4k-fresh", "mmap-randread-4k-fresh"),
             "mmap-aged": ("mmap-randwrite-4k-aged", "mmap-randread-4k-aged"),
             "tree": ("tree_create", "tree_delete")}


def na_covers(na_workload, workload, jobs):
    if workload in NA_GROUPS.get(na_workload, ()):
        return True
    return na_workload in ("%s-p%d" % (workload, jobs), "%s-j%d" % (workload, jobs))


def build_rows(records):
    values, meta, na = {}, {}, {}
    for r in records:
        if "na" in r:
            na.setdefault(r["fs"], {})[r["workload"]] = r["na"]
            continue
        key = (r["workload"], r["jobs"], r["metric"])
        values.setdefault(key, {})[r["fs"]] = r["value"]
        meta[key] = (r["unit"], r["better"])
    rows = []
    for key in sorted(values, key=row_key_order):
        wl, jobs, metric = key
        unit, better = meta[key]
        vals = {fs: values[key].get(fs) for fs in FS_ORDER}
        why = {}
        for fs in FS_ORDER:
            if vals[fs] is None and fs in na:
                reason = na[fs].get(wl) or na[fs].get("*")
                for k, v in na[fs].items():
                    if reason is None and na_covers(k, wl, jobs):
                        reason = v
                if reason:
                    why[fs] = reason
        ratios = {}
        for n in NOVAS:
            for b in BASELINES:
                if vals[n] is not None and vals[b]:
                    ratios["%s/%s" % (n, b)] = vals[n] / vals[b]
        device = {}
        if vals[CEILING]:
            for fs in FS_ORDER:
                if fs not in DEVICE and vals[fs] is not None:
                    device[fs] = vals[fs] / vals[CEILING]
        rows.append({"workload": wl, "jobs": jobs, "metric": metric, "unit": unit,
                     "better": better, "values": vals, "na": why,
                     "ratios": ratios, "of_device": device})
    return rows, na


def fmt(v):
    if v is None:
        return "—"
    a = abs(v)
    if a >= 100:
        return "{:,.0f}".format(v).replace(",", " ")
    if a >= 10:
        return "%.1f" % v
    return "%.2f" % v


def row_label(row):
    wl = row["workload"]
    title = METRIC_TITLE.get(row["metric"]) or row["unit"]
    jobs = ""
    if wl in ("seqwrite-2m", "seqread-2m", "randwrite-4k", "randread-4k",
              "append-fsync-4k", "fileserver", "varmail"):
        jobs = ", %d job%s" % (row["jobs"], "s" if row["jobs"] > 1 else "")
    if wl.startswith("recovery-"):
        wl = "recovery, %s files" % wl.split("-", 1)[1]
    arrow = "↑" if row["better"] == "higher" else "↓"
    return "%s%s" % (wl, jobs), "%s %s" % (title, arrow)


def short_reason(reason, limit=160):
    reason = " ".join(reason.split())
    return reason if len(reason) <= limit else reason[:limit - 1] + "…"


def markdown(info, rows, na):
    present = [fs for fs in FS_ORDER if any(r["values"][fs] is not None for r in rows)]
    novas_run = [n for n in NOVAS if n in present]
    cols = [fs for fs in FS_ORDER if fs in present or fs in na]
    ratio_cols = ["%s/%s" % (n, b) for n in novas_run for b in BASELINES if b in present]
    out = []
    out.append("# NOVA benchmark, %s mode%s, %s" % (
        info.get("mode", "?"), " (icount)" if info.get("icount") else "", info.get("date", "?")))
    out.append("")
    facts = [
        ("guest kernel", info.get("kernel")), ("QEMU", info.get("qemu")),
        ("accelerator", info.get("accel")), ("guest", info.get("guest")),
        ("crc32c (crypto API choice in the guest; SSE4.2 for NOVA's crc32q loop)",
         info.get("crc32c")),
        ("NVDIMM", info.get("pmem")), ("NVDIMM backing (host)", info.get("backing")),
        ("fio", info.get("fio")),
        ("host", info.get("host")),
        ("host load average before / after", info.get("load")),
        ("sizes", info.get("sizes")), ("commit", info.get("commit")),
        ("nova.ko", info.get("nova_ko")),
        ("more NOVA options when making its file systems (--nova-opts)", info.get("nova_opts")),
        ("guest run", info.get("guest_run")),
    ]
    for k, v in facts:
        if v:
            out.append("- %s: %s" % (k, v))
    out.append("")
    if info.get("mode") == "reference":
        out.append("Reference mode: QEMU -icount shift=0,sleep=off on one vCPU, so one "
                   "guest nanosecond is one executed guest instruction and the ns/op rows "
                   "(fio's mean latency of one pread/pwrite) count instructions per "
                   "operation, independent of the host and of how slowly QEMU emulates "
                   "an instruction. They are deterministic up to timer interrupts. Read "
                   "rows: under icount each iteration of `rep movsb` counts as one "
                   "instruction, so DAX reads on every file system are charged about one "
                   "instruction per byte copied.")
        out.append("")
    out.append("Absolute figures from one guest boot on one emulated NVDIMM (QEMU TCG: "
               "software emulation, so only ratios between columns mean anything). "
               "↑ higher is better, ↓ lower is better. Ratios are NOVA divided by the "
               "other file system's figure, so for ↓ rows a ratio below 1 favours NOVA.")
    out.append("")
    ratio_titles = [c.replace("nova-noprot/", "NOVA off/").replace("nova/", "NOVA/")
                    for c in ratio_cols]
    head = ["workload", "metric"] + [FS_TITLE[fs] for fs in cols] + ratio_titles
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join(["---", "---"] + ["---:"] * (len(head) - 2)) + "|")
    for r in rows:
        wl, metric = row_label(r)
        cells = [wl, metric]
        for fs in cols:
            v = r["values"][fs]
            cells.append("n/a" if v is None and fs in r["na"] else fmt(v))
        for c in ratio_cols:
            v = r["ratios"].get(c)
            cells.append("—" if v is None else "%.2f×" % v)
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    dev_rows = [r for r in rows if r["of_device"]]
    if dev_rows:
        out.append("## Share of the device ceiling")
        out.append("")
        out.append("The device limit is plain memcpy into and out of the NVDIMM through a "
                   "DAX mapping (MAP_SYNC, faults taken before timing; no file system code "
                   "runs): a file system's figure divided by it shows its overhead. The raw "
                   "O_DIRECT column of the table above goes through the pmem block driver "
                   "and is no upper bound for DAX file I/O.")
        out.append("")
        dcols = [fs for fs in FS_ORDER if fs in present and fs not in DEVICE]
        out.append("| workload | " + " | ".join(FS_TITLE[fs] for fs in dcols) + " |")
        out.append("|---|" + "|".join(["---:"] * len(dcols)) + "|")
        for r in dev_rows:
            wl, metric = row_label(r)
            cells = ["%s (%s)" % (wl, metric)]
            for fs in dcols:
                v = r["of_device"].get(fs)
                cells.append("—" if v is None else "%.0f%%" % (100 * v))
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    if na:
        out.append("## Not available")
        out.append("")
        for fs in FS_ORDER:
            for wl, reason in sorted(na.get(fs, {}).items()):
                what = "all workloads" if wl == "*" else wl
                out.append("- %s, %s: %s" % (FS_TITLE.get(fs, fs), what, short_reason(reason, 400)))
        out.append("")
    if not novas_run:
        out.append("No NOVA figures, hence no ratios and no ratio plot bars.")
        out.append("")
    return "\n".join(out)


def plot_data(rows):
    """Lines 'label speedup_vs_ext4 speedup_vs_xfs' (>1: NOVA faster)."""
    lines = []
    for r in rows:
        rs = [r["ratios"].get("nova/%s" % b) for b in BASELINES]
        if all(v is None for v in rs):
            continue
        wl, metric = row_label(r)
        metric = metric[:-2]	# no arrow: every bar points the same way
        label = metric if metric.startswith(wl) else "%s %s" % (wl, metric)
        label = label.replace('"', "")
        sp = []
        for v in rs:
            if v is None or v <= 0:
                sp.append("NaN")
            else:
                sp.append("%.4f" % (v if r["better"] == "higher" else 1.0 / v))
        lines.append('"%s" %s %s' % (label, sp[0], sp[1]))
    return lines


def cmd_report(a):
    records = load_records(a.records)
    with open(a.info) as f:
        info = json.load(f)
    rows, na = build_rows(records)
    with open(a.md, "w", encoding="utf-8") as f:
        f.write(markdown(info, rows, na))
    with open(a.json, "w", encoding="utf-8") as f:
        json.dump({"info": info, "rows": rows,
                   "not_available": na, "records": records}, f, indent=1, sort_keys=True)
        f.write("\n")
    if a.plot_data:
        with open(a.plot_data, "w") as f:
            for line in plot_data(rows):
                f.write(line + "\n")


def cmd_check(a):
    if a.records:
        recs = load_records(a.records)
        if not recs:
            raise ValueError("no records")
    if a.json:
        with open(a.json) as f:
            d = json.load(f)
        for k in ("info", "rows", "records"):
            if k not in d:
                raise ValueError("report JSON has no '%s'" % k)
        for r in d["rows"]:
            for k in ("workload", "jobs", "metric", "values", "ratios"):
                if k not in r:
                    raise ValueError("row without '%s': %r" % (k, r))


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("value")
    for k in ("fs", "workload", "metric", "unit", "better"):
        v.add_argument("--" + k, required=True)
    v.add_argument("--jobs", type=int, default=1)
    v.add_argument("--value", type=float, required=True)
    n = sub.add_parser("na")
    n.add_argument("--fs", required=True)
    n.add_argument("--workload", required=True)
    n.add_argument("--reason", required=True)
    fi = sub.add_parser("fio")
    fi.add_argument("--fs", required=True)
    fi.add_argument("--workload", required=True)
    fi.add_argument("--jobs", type=int, required=True)
    fi.add_argument("--ns-op", action="store_true")
    fi.add_argument("file")
    fc = sub.add_parser("fio-counters")
    fc.add_argument("--fs", required=True)
    fc.add_argument("--workload", required=True)
    fc.add_argument("--jobs", type=int, required=True)
    fc.add_argument("--before", required=True)
    fc.add_argument("--after", required=True)
    fc.add_argument("file")
    d = sub.add_parser("driver")
    d.add_argument("--fs", required=True)
    d.add_argument("--workload")
    d.add_argument("file")
    r = sub.add_parser("report")
    r.add_argument("--records", required=True)
    r.add_argument("--info", required=True)
    r.add_argument("--md", required=True)
    r.add_argument("--json", required=True)
    r.add_argument("--plot-data")
    c = sub.add_parser("check")
    c.add_argument("--records")
    c.add_argument("--json")
    a = p.parse_args(argv)
    try:
        if a.cmd == "value":
            emit([rec(a.fs, a.workload, a.jobs, a.metric, a.value, a.unit, a.better)])
        elif a.cmd == "na":
            emit([{"fs": a.fs, "workload": a.workload, "na": " ".join(a.reason.split())}])
        elif a.cmd == "fio":
            emit(parse_fio(a.file, a.fs, a.workload, a.jobs, a.ns_op))
        elif a.cmd == "fio-counters":
            emit(parse_fio_counters(a.file, a.fs, a.workload, a.jobs, a.before, a.after))
        elif a.cmd == "driver":
            emit(parse_driver(a.file, a.fs, a.workload))
        elif a.cmd == "report":
            cmd_report(a)
        elif a.cmd == "check":
            cmd_check(a)
    except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
        print("results.py %s: %s: %s" % (a.cmd, type(e).__name__, e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
