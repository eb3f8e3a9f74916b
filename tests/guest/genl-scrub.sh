#!/bin/bash
# The scrub and inject commands of the nova generic netlink family on the
# wire (raw client, tests/guest/genl-client.py): strict validation of their
# attributes (each refusal with an extack message), the selector errors,
# privileges, state errors (stop with no scrub, start while running), the
# reply's attribute tree, and the injector refused without nova.inject=1.
# nova-timeout: 300
. "$NOVA_TOP/tests/guest/lib.sh"

G=$NOVA_TOP/tests/guest/genl-client.py
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

jget() {
	python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2"
}
# reject DESC ERRNO EXTACK-ERE ARGS...: as in genl-proto.sh
reject() {	# DESC ERRNO EXTACK-ERE ARGS... (genl-client.py expect)
	local desc=$1
	shift
	t_ok "$desc" python3 "$G" expect "$@"
}

t_ok "format and mount" nova_mount_init
echo data > "$NOVA_MNT/f"
DEV=$(stat -c %d "$NOVA_MNT")
SEL=(--attr "NOVA_A_FS_DEV:u64:$DEV")

# --- selector ---
reject "SCRUB_START without a selector" EINVAL "no file system given" \
	NOVA_CMD_SCRUB_START
reject "SCRUB_STATUS for an unknown device" ENODEV "no mounted NOVA file system" \
	NOVA_CMD_SCRUB_STATUS --attr NOVA_A_FS_DEV:u64:$(( (259 << 8) | 200 ))
reject "SCRUB_STOP with device and UUID" EINVAL "not both" \
	NOVA_CMD_SCRUB_STOP "${SEL[@]}" \
	--attr NOVA_A_FS_UUID:bin:00112233445566778899aabbccddeeff

# --- the NOVA_A_SCRUB nest ---
reject "bandwidth as u32 (wrong size)" EINVAL "invalid attribute length" \
	NOVA_CMD_SCRUB_START "${SEL[@]}" --attr NOVA_A_SCRUB:nest:NOVA_SCRUB_A_BANDWIDTH:u32:5
reject "a status member in a start request" EINVAL "Unsupported attribute" \
	NOVA_CMD_SCRUB_START "${SEL[@]}" --attr NOVA_A_SCRUB:nest:NOVA_SCRUB_A_STATE:u32:1
reject "restart flag with a payload" ERANGE "failed policy validation" \
	NOVA_CMD_SCRUB_START "${SEL[@]}" --attr NOVA_A_SCRUB:nest:NOVA_SCRUB_A_RESTART:u32:1
reject "unknown member of the nest" EINVAL "Unknown attribute" \
	NOVA_CMD_SCRUB_START "${SEL[@]}" --attr NOVA_A_SCRUB:nest:200:u32:1
reject "nest without NLA_F_NESTED" EINVAL "NLA_F_NESTED" \
	NOVA_CMD_SCRUB_START "${SEL[@]}" --attr NOVA_A_SCRUB:u64:0
reject "STOP takes no NOVA_A_SCRUB" EINVAL "Unknown attribute" \
	NOVA_CMD_SCRUB_STOP "${SEL[@]}" --attr NOVA_A_SCRUB:nest:NOVA_SCRUB_A_RESTART:flag:
reject "STATUS takes no NOVA_A_SCRUB" EINVAL "Unknown attribute" \
	NOVA_CMD_SCRUB_STATUS "${SEL[@]}" --attr NOVA_A_SCRUB:nest:
reject "STATUS is not a dump" EOPNOTSUPP "" NOVA_CMD_SCRUB_STATUS --dump
reject "SCRUB_FINISHED is a notification" EOPNOTSUPP "" NOVA_CMD_SCRUB_FINISHED
reject "CORRUPTION is a notification" EOPNOTSUPP "" NOVA_CMD_CORRUPTION

# --- state ---
reject "stop with no scrub since mount" EALREADY "none ran since mount" \
	NOVA_CMD_SCRUB_STOP "${SEL[@]}"
res=$(python3 "$G" request NOVA_CMD_SCRUB_STATUS "${SEL[@]}")
t_is "status of an idle fs succeeds" "$(jget "$res" 'd["name"]')" OK
t_ok "the reply carries the identity and the scrub nest" python3 -c '
import json, sys
a = json.loads(sys.argv[1])["messages"][0]["attrs"]
for t in ("2", "3", "4", "5", "11"):	# FS_DEV, UUID, LABEL, BDEV, SCRUB
    assert t in a, (t, a)
' "$res"
# a slow pass, so that it is still running for the next requests
python3 "$G" request NOVA_CMD_SCRUB_START "${SEL[@]}" \
	--attr NOVA_A_SCRUB:nest:NOVA_SCRUB_A_BANDWIDTH:u64:1024 > /dev/null
reject "start while running" EALREADY "already running" \
	NOVA_CMD_SCRUB_START "${SEL[@]}"
res=$(python3 "$G" request NOVA_CMD_SCRUB_STOP "${SEL[@]}")
t_is "stop a running pass" "$(jget "$res" 'd["name"]')" OK
reject "stop a paused pass" EALREADY "paused" NOVA_CMD_SCRUB_STOP "${SEL[@]}"

# --- privileges ---
res=$("${NOBODY[@]}" python3 "$G" request NOVA_CMD_SCRUB_START "${SEL[@]}")
t_is "nobody cannot start a scrub" "$(jget "$res" 'd["name"]')" EPERM
res=$("${NOBODY[@]}" python3 "$G" request NOVA_CMD_SCRUB_STOP "${SEL[@]}")
t_is "nobody cannot stop a scrub" "$(jget "$res" 'd["name"]')" EPERM
res=$("${NOBODY[@]}" python3 "$G" request NOVA_CMD_SCRUB_STATUS "${SEL[@]}")
t_is "nobody can read the status" "$(jget "$res" 'd["name"]')" OK

# --- the injector ---
P=/sys/module/nova/parameters/inject
echo 0 > "$P"
reject "INJECT without nova.inject=1" EPERM "inject=1" \
	NOVA_CMD_INJECT "${SEL[@]}" --attr NOVA_A_INJECT:nest:NOVA_INJECT_A_TARGET:u32:5
res=$("${NOBODY[@]}" python3 "$G" request NOVA_CMD_INJECT "${SEL[@]}" \
	--attr NOVA_A_INJECT:nest:NOVA_INJECT_A_TARGET:u32:5)
t_is "nobody cannot inject" "$(jget "$res" 'd["name"]')" EPERM
echo 1 > "$P"
reject "INJECT without its nest" EINVAL "NOVA_A_INJECT is required" \
	NOVA_CMD_INJECT "${SEL[@]}"
reject "INJECT without a target" EINVAL "TARGET is required" \
	NOVA_CMD_INJECT "${SEL[@]}" --attr NOVA_A_INJECT:nest:NOVA_INJECT_A_OFFSET:u64:0
reject "INJECT target 9 (no such target)" ERANGE "out of range" \
	NOVA_CMD_INJECT "${SEL[@]}" --attr NOVA_A_INJECT:nest:NOVA_INJECT_A_TARGET:u32:9
reject "INJECT copy 2" ERANGE "out of range" \
	NOVA_CMD_INJECT "${SEL[@]}" --attr NOVA_A_INJECT:nest:NOVA_INJECT_A_TARGET:u32:1,NOVA_INJECT_A_COPY:u32:2
reject "INJECT into an inode that does not exist" ENOENT "no such inode" \
	NOVA_CMD_INJECT "${SEL[@]}" --attr NOVA_A_INJECT:nest:NOVA_INJECT_A_TARGET:u32:5,NOVA_INJECT_A_INODE:u64:999999,NOVA_INJECT_A_OFFSET:u64:0
echo 0 > "$P"

t_ok "unmount" nova_umount
t_done
