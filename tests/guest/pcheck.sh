#!/bin/bash
# The persistence checker, quick mode (docs/testing.md, "The persistence
# checker"): NOVA_CMD_PMTRACE's control plane answers bad requests with a
# clear error; then tests/guest/pcheck.py records each workload's
# write-backs and fences on the second NVDIMM and tries a sample of the
# crash states they allow (every fence point, single and random multiple
# drops of the write-backs not yet fenced): each must mount, hold the
# acknowledged operations (the one in flight old or new), and fsck.NOVA
# -n clean; for two states a workload with an open journal transaction,
# the recovering mount is traced too and its own crash states must
# recover the same way. A trace with one operation's write-backs removed (a NOVA that
# forgot to flush) must fail. make crashtest runs the full mode
# (tests/guest/pcheck-full.guest).
# nova-guest-args: --pmem-count 2 --pmem-size 64M
# nova-timeout: 900
# The self-check's states (an operation's write-backs removed) are broken
# images; the kernel says so when it refuses them, in words that depend on
# which write-backs the (slightly varying) trace had (a bad log entry or
# page, a tail outside its log, ...). pmem1 is the checker's alone, and a
# crash state the kernel refuses fails the checker itself, so any nova
# error line about pmem1 is expected here; oopses and warnings are not.
# nova-expect-klog: nova \(pmem1\): error: .*
. "$NOVA_TOP/tests/guest/lib.sh"
D=/dev/pmem1
M=/mnt/pcheck
T=$(mktemp -d)
G="python3 $NOVA_TOP/tests/guest/genl-client.py"
P="python3 $NOVA_TOP/tests/guest/pcheck.py"
STATES=${NOVA_PCHECK_STATES:-60}
# NOVA_PCHECK_WORKLOADS: some workloads only (a development run).
W=()
for w in ${NOVA_PCHECK_WORKLOADS:-}; do
	W+=(--workload "$w")
done

t_ok "a second NVDIMM" test -b "$D"
t_ok "dump without a trace: ENOENT" \
	$G expect ENOENT 'no persistence trace' NOVA_CMD_PMTRACE --dump
t_ok "MARK without a trace: ENOENT" \
	$G expect ENOENT 'no persistence trace is recording' NOVA_CMD_PMTRACE \
	--attr NOVA_A_PMTRACE:nest:2:u32:4,5:u64:1
t_ok "ARM without a device: EINVAL" \
	$G expect EINVAL 'ARM needs' NOVA_CMD_PMTRACE --attr NOVA_A_PMTRACE:nest:2:u32:1
t_ok "no operation: EINVAL" \
	$G expect EINVAL 'OP is required' NOVA_CMD_PMTRACE --attr NOVA_A_PMTRACE:nest:5:u64:1
t_ok "an unknown operation: ERANGE" \
	$G expect ERANGE '' NOVA_CMD_PMTRACE --attr NOVA_A_PMTRACE:nest:2:u32:9

$P "$D" "$M" --states "$STATES" "${W[@]}" --json "$T/run.json" \
	--recovery-crashes 2 --recovery-states 8 \
	--save-failed "${NOVA_RESULT:-$T/pcheck}-failed" > "$T/run.out" 2>&1
rc=$?
while IFS= read -r l; do t_diag "$l"; done < "$T/run.out"
t_is "checker: $STATES crash states per workload, exit status" "$rc" 0
cat > "$T/tap.py" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    ok = not r.get("error") and r["failed"] == 0 and r["tried"] > 0
    print("%s workload %s: %d states tried, %d passed (of %d; %d records, "
          "%d fences; %d crash states of %d recovering mounts)%s" % (
              "PASS" if ok else "FAIL", r["workload"], r["tried"],
              r["passed"], r.get("all_states", 0), r["records"],
              r["fences"], r.get("recovery_tried", 0),
              r.get("recovery_states", 0),
              "" if ok else ": " + (r.get("error") or
                                    json.dumps(r["failures"][:2]))))
PY
t_from_py < <(python3 "$T/tap.py" "$T/run.json" 2>&1)
# (every workload but overwrite-append and truncate commits journals)
[ -n "${NOVA_PCHECK_WORKLOADS:-}" ] ||
t_ok "crash states of recovering mounts were tried" python3 -c '
import json, sys
sys.exit(0 if sum(r.get("recovery_tried", 0)
                  for r in json.load(open(sys.argv[1]))) > 0 else 1)' "$T/run.json"

$P "$D" "$M" --workload overwrite-append --states 40 --drop-op 6 \
	--json "$T/self.json" > "$T/self.out" 2>&1
rc=$?
t_is "self-check: an operation without write-backs fails the checker" "$rc" 1
t_ok "self-check: ... with failed states, not a broken run" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))[0]
sys.exit(0 if r["failed"] > 0 and not r.get("error") else 1)' "$T/self.json"
t_ok "the trace is freed" \
	$G expect ENOENT 'no persistence trace' NOVA_CMD_PMTRACE --dump
t_done
