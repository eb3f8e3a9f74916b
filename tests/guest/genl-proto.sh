#!/bin/bash
# The nova generic netlink family on the wire: its shape as the controller
# reports it, agreement with uapi/linux/nova_genl.h and docs/netlink/nova.yaml,
# strict rejection of malformed requests (each with an extack message and
# no kernel warning), unknown file systems, unprivileged access, and a
# bounded fuzz run. Needs no mounted file system.
# nova-timeout: 600
. "$NOVA_TOP/tests/guest/lib.sh"

G=$NOVA_TOP/tests/guest/genl-client.py
H=$NOVA_TOP/uapi/linux/nova_genl.h
Y=$NOVA_TOP/docs/netlink/nova.yaml
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# jq-like field access on a JSON document: jget JSON PYTHON-EXPRESSION
jget() {
	python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2"
}

# --- the family as the kernel registers it ---
fam=$(python3 "$G" family)
t_is "family nova is registered" "$?" 0
t_is "protocol version" "$(jget "$fam" 'd["version"]')" 1
t_is "multicast group events exists" \
	"$(jget "$fam" '"events" in d["mcast_groups"]')" True
# Ops and their flags: GENL_ADMIN_PERM 1, CMD_CAP_DO 2, DUMP 4, HASPOL 8.
# FS_LIST has no policy of its own; the core gives it a reject-all one.
t_is "FS_LIST is dump-only and open to all" "$(jget "$fam" 'd["ops"].get("1")')" 12
t_is "STATS_GET is do+dump with a policy, open to all" \
	"$(jget "$fam" 'd["ops"].get("2")')" 14
t_is "notifications are not requests" \
	"$(jget "$fam" '[k for k in ("3", "4", "8", "9") if k in d["ops"]]')" "[]"
t_is "SNAPSHOT_CREATE/DELETE are admin-only do with a policy" \
	"$(jget "$fam" '[d["ops"].get("5"), d["ops"].get("6")]')" "[11, 11]"
t_is "SNAPSHOT_LIST is dump-only with a policy, open to all" \
	"$(jget "$fam" 'd["ops"].get("7")')" 12
# Every op other than the read-only ones must need CAP_NET_ADMIN.
t_is "every state-changing op has GENL_ADMIN_PERM" \
	"$(jget "$fam" '[k for k, f in d["ops"].items() if k not in ("1", "2", "7", "14") and not f & 1]')" "[]"
t_is "SCRUB_START/STOP are admin-only do with a policy" \
	"$(jget "$fam" '[d["ops"].get("12"), d["ops"].get("13")]')" "[11, 11]"
t_is "SCRUB_STATUS is do with a policy, open to all" \
	"$(jget "$fam" 'd["ops"].get("14")')" 10
t_is "SNAPSHOT_DIFF is an admin-only dump with a policy" \
	"$(jget "$fam" 'd["ops"].get("19")')" 13
t_is "scrub and corruption notifications are not requests" \
	"$(jget "$fam" '[k for k in ("15", "16") if k in d["ops"]]')" "[]"

# --- the header, the client's numbers and the YAML spec agree ---
t_ok "genl-client.py numbers match the uapi header" python3 - "$H" "$G" <<'EOF'
import re, sys, importlib.util
hdr = open(sys.argv[1]).read()
spec = importlib.util.spec_from_file_location("gc", sys.argv[2])
gc = importlib.util.module_from_spec(spec); spec.loader.exec_module(gc)
vals = {}
for body in re.findall(r"enum nova_\w+ \{(.*?)\};", hdr, re.S):
    n = 0
    for name in re.findall(r"^\s*(\w+)\s*,", body, re.M):
        vals[name] = n
        n += 1
bad = {k: (v, vals.get(k)) for k, v in gc.NOVA.items() if vals.get(k) != v}
if bad:
    sys.exit("mismatch (client, header): %s" % bad)
EOF
t_ok "docs/netlink/nova.yaml lists the header's commands and attributes in order" \
	python3 - "$H" "$Y" <<'EOF'
import re, sys
hdr = open(sys.argv[1]).read()
yaml = open(sys.argv[2]).read()
def enum(name):
    body = re.search(r"enum %s \{(.*?)\};" % name, hdr, re.S).group(1)
    return [n for n in re.findall(r"^\s*(\w+)\s*,", body, re.M) if not n.startswith("__")]
def yname(prefix, cname):
    return cname[len(prefix):].lower().replace("_", "-")
# Attribute sets: "- name: SET" then "attributes:" then "- name: X".
sets = {}
for m in re.finditer(r"^  -\s*name:\s*([\w-]+)\n(?:    .*\n)*?    attributes:\n((?:      .*\n)+)", yaml, re.M):
    sets[m.group(1)] = re.findall(r"^      -\s*name:\s*([\w-]+)", m.group(2), re.M)
want = {"nova": ("NOVA_A_", enum("nova_attr")),
        "stats": ("NOVA_STATS_A_", enum("nova_stats_attr")),
        "op": ("NOVA_OP_A_", enum("nova_op_attr")),
        "prot": ("NOVA_PROT_A_", enum("nova_prot_attr")),
        "snapshot": ("NOVA_SNAPSHOT_A_", enum("nova_snapshot_attr")),
        "scrub": ("NOVA_SCRUB_A_", enum("nova_scrub_attr")),
        "corruption": ("NOVA_CORRUPTION_A_", enum("nova_corruption_attr")),
        "inject": ("NOVA_INJECT_A_", enum("nova_inject_attr")),
        "pmtrace": ("NOVA_PMTRACE_A_", enum("nova_pmtrace_attr")),
        "snapdiff": ("NOVA_SNAPDIFF_A_", enum("nova_snapdiff_attr"))}
for s, (prefix, names) in want.items():
    exp = [yname(prefix, n) for n in names if n != prefix + "UNSPEC"]
    if sets.get(s) != exp:
        sys.exit("attribute-set %s: yaml %s, header %s" % (s, sets.get(s), exp))
ops = re.search(r"^operations:\n((?:  .*\n|\n)+)", yaml, re.M).group(1)
yops = re.findall(r"^    -\s*name:\s*([\w-]+)", ops, re.M)
exp = [yname("NOVA_CMD_", n) for n in enum("nova_cmd") if n != "NOVA_CMD_UNSPEC"]
if yops != exp:
    sys.exit("operations: yaml %s, header %s" % (yops, exp))
EOF

# --- malformed requests: rejected, with an extack message ---
# reject DESC ERRNO EXTACK-ERE ARGS...: the request fails with ERRNO and an
# extended ACK matching EXTACK-ERE. An empty ERE means the genl core itself
# rejects the request before any nova code runs (no such operation), where
# 6.1 sends no message.
reject() {	# DESC ERRNO EXTACK-ERE ARGS... (genl-client.py expect)
	local desc=$1
	shift
	t_ok "$desc" python3 "$G" expect "$@"
}

reject "STATS_GET without a selector" EINVAL "no file system given" \
	NOVA_CMD_STATS_GET
res=$(python3 "$G" request NOVA_CMD_STATS_GET)
t_is "missing selector: the extack names NOVA_A_FS_DEV as missing" \
	"$(jget "$res" 'd["missing_attr"]')" 2
reject "STATS_GET with device and UUID" EINVAL "not both" \
	NOVA_CMD_STATS_GET --attr NOVA_A_FS_DEV:u64:66304 \
	--attr NOVA_A_FS_UUID:bin:00112233445566778899aabbccddeeff
reject "device number as u32 (wrong type)" EINVAL "invalid attribute length" \
	NOVA_CMD_STATS_GET --attr NOVA_A_FS_DEV:u32:66304
reject "device number 0 (out of range)" ERANGE "out of range" \
	NOVA_CMD_STATS_GET --attr NOVA_A_FS_DEV:u64:0
reject "device number 2^32 (out of range)" ERANGE "out of range" \
	NOVA_CMD_STATS_GET --attr NOVA_A_FS_DEV:u64:4294967296
reject "UUID of 15 bytes" ERANGE "size out of range" \
	NOVA_CMD_STATS_GET --attr NOVA_A_FS_UUID:bin:00112233445566778899aabbccddee
reject "UUID of 17 bytes" ERANGE "size out of range" \
	NOVA_CMD_STATS_GET --attr NOVA_A_FS_UUID:bin:00112233445566778899aabbccddeeff00
reject "attribute the command does not take (label)" EINVAL "Unknown attribute" \
	NOVA_CMD_STATS_GET --attr NOVA_A_FS_LABEL:strz:x
reject "unknown attribute type" EINVAL "Unknown attribute" \
	NOVA_CMD_STATS_GET --attr 200:u32:1
reject "trailing garbage after the attributes" EINVAL "leftover" \
	NOVA_CMD_STATS_GET --attr NOVA_A_FS_DEV:u64:66304 --raw 0102
reject "device attribute with NLA_F_NESTED set" EINVAL "NLA_F_NESTED" \
	NOVA_CMD_STATS_GET --attr NOVA_A_FS_DEV:u64n:66304
reject "padding attribute in a request" EINVAL "Unsupported attribute" \
	NOVA_CMD_STATS_GET --attr NOVA_A_PAD:u32:0
reject "attribute on FS_LIST" EINVAL "attribute" \
	NOVA_CMD_FS_LIST --dump --attr NOVA_A_FS_DEV:u64:66304
reject "selector on a STATS_GET dump" EINVAL "takes no selector" \
	NOVA_CMD_STATS_GET --dump --attr NOVA_A_FS_DEV:u64:66304
reject "non-zero genlmsghdr.reserved" EINVAL "reserved" \
	NOVA_CMD_FS_LIST --dump --reserved 7
reject "reserved nlmsg_flags bits" EINVAL "flags" \
	NOVA_CMD_FS_LIST --flags $((0x1 | 0x4 | 0x300 | 0x800))
reject "FS_LIST as a plain request (dump only)" EOPNOTSUPP "" NOVA_CMD_FS_LIST
reject "unknown command" EOPNOTSUPP "" 99
reject "notification command sent as a request" EOPNOTSUPP "" NOVA_CMD_FS_MOUNTED

# --- unknown file systems ---
reject "a device number no NOVA fs has" ENODEV "no mounted NOVA file system" \
	NOVA_CMD_STATS_GET --attr NOVA_A_FS_DEV:u64:$(( (259 << 8) | 200 ))
rootdev=$(stat -c %d /)
reject "the root file system (not NOVA)" ENODEV "no mounted NOVA file system" \
	NOVA_CMD_STATS_GET --attr NOVA_A_FS_DEV:u64:"$rootdev"
reject "a UUID no NOVA fs has" ENODEV "no mounted NOVA file system" \
	NOVA_CMD_STATS_GET --attr NOVA_A_FS_UUID:bin:00112233445566778899aabbccddeeff
res=$(python3 "$G" request NOVA_CMD_STATS_GET --attr NOVA_A_FS_DEV:u64:"$rootdev")
t_is "extack points at the device attribute (offset 20)" \
	"$(jget "$res" 'd["bad_attr_offset"]')" 20

# --- unprivileged users can read ---
res=$("${NOBODY[@]}" python3 "$G" request NOVA_CMD_FS_LIST --dump)
t_is "nobody can dump FS_LIST" "$(jget "$res" 'd["name"]')" OK
res=$("${NOBODY[@]}" python3 "$G" request NOVA_CMD_STATS_GET --dump)
t_is "nobody can dump STATS_GET" "$(jget "$res" 'd["name"]')" OK
res=$("${NOBODY[@]}" python3 "$G" request NOVA_CMD_STATS_GET --attr NOVA_A_FS_DEV:u64:"$rootdev")
t_is "nobody gets ENODEV, not EPERM, for a read" "$(jget "$res" 'd["name"]')" ENODEV
t_ok "nobody can join the events group" "${NOBODY[@]}" python3 -c '
import sys, importlib.util
spec = importlib.util.spec_from_file_location("gc", sys.argv[1])
gc = importlib.util.module_from_spec(spec); spec.loader.exec_module(gc)
gc.events_socket()
' "$G"

# --- bounded fuzzing, privileged and not ---
out=$(python3 "$G" fuzz --count 3000 --seconds 120 --seed 6)
t_is "fuzz as root: every reply well-formed, family alive" "$?" 0
t_diag "fuzz as root: $out"
out=$("${NOBODY[@]}" python3 "$G" fuzz --count 1500 --seconds 60 --seed 7)
t_is "fuzz as nobody: every reply well-formed, family alive" "$?" 0
t_diag "fuzz as nobody: $out"
t_ok "nova.ko still loaded after fuzzing" grep -q '^nova ' /proc/modules

# --- a listener notices the family going away ---
tmp=$(mktemp -d)
novactl monitor > "$tmp/mon.out" 2> "$tmp/mon.err" &
mon=$!
for ((i = 0; i < 200; i++)); do
	grep -q Monitoring "$tmp/mon.err" && break
	sleep 0.1
done
t_ok "monitor subscribed" grep -q Monitoring "$tmp/mon.err"
t_ok "rmmod nova with a listener" rmmod nova
for ((i = 0; i < 200; i++)); do
	kill -0 "$mon" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$mon" 2>/dev/null; then
	kill "$mon"
	t_fail "monitor exits when nova.ko is unloaded" true
else
	wait "$mon"
	t_is "monitor exits with status 3 when nova.ko is unloaded" "$?" 3
fi
t_ok "monitor says why" grep -q 'Error: .*"nova" was unregistered' "$tmp/mon.err"
t_ok "insmod nova.ko again" insmod "$NOVA_MODULE"
t_ok "family registered again" python3 "$G" family
rm -rf "$tmp"
t_done
