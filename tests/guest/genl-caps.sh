#!/bin/bash
# Who may change a NOVA file system through the nova genl family. Every
# state-changing command needs CAP_NET_ADMIN (GENL_ADMIN_PERM) and, in the
# handler, CAP_SYS_ADMIN in the file system's user namespace; a refusal is
# EPERM with an extack message that names the capability. Read commands
# stay open to everyone. Checked on the wire (genl-client.py) and through
# novactl, as uid 65534 with CAP_NET_ADMIN only, as root without
# CAP_SYS_ADMIN, and as root.
# nova-timeout: 240
. "$NOVA_TOP/tests/guest/lib.sh"

G=$NOVA_TOP/tests/guest/genl-client.py
# uid 65534 holding CAP_NET_ADMIN and nothing else (ambient, so it survives
# the exec of python3 and novactl)
NETADMIN=(setpriv --reuid=65534 --regid=65534 --clear-groups
	--inh-caps=-all,+net_admin --ambient-caps=-all,+net_admin)
# root with every capability but CAP_SYS_ADMIN
NOSYSADMIN=(setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin)

jget() {
	python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2"
}

t_ok "format and mount" nova_mount_init
chmod 0700 "$NOVA_MNT"
echo data > "$NOVA_MNT/f"
DEV=$(stat -c %d "$NOVA_MNT")
SEL=(--attr "NOVA_A_FS_DEV:u64:$DEV")
novactl snapshot create -n keep "$NOVA_MNT" > /dev/null
t_ok "the helper really holds CAP_NET_ADMIN" \
	"${NETADMIN[@]}" grep -q '^CapEff:.*00001000$' /proc/self/status

MUTATING=(
	"NOVA_CMD_SNAPSHOT_CREATE"
	"NOVA_CMD_SNAPSHOT_DELETE --attr NOVA_A_SNAPSHOT:nest:NOVA_SNAPSHOT_A_NAME:strz:keep"
	"NOVA_CMD_GC"
	"NOVA_CMD_SCRUB_START"
	"NOVA_CMD_SCRUB_STOP"
)
for who in NETADMIN NOSYSADMIN; do
	declare -n run=$who
	for req in "${MUTATING[@]}"; do
		# shellcheck disable=SC2086	# req is a command and its attributes
		t_ok "$who: ${req%% *} is EPERM naming CAP_SYS_ADMIN" \
			"${run[@]}" python3 "$G" expect EPERM "needs CAP_SYS_ADMIN" \
			$req "${SEL[@]}"
	done
done
# the diff query reads every inode's log: CAP_SYS_ADMIN as well
for who in NETADMIN NOSYSADMIN; do
	declare -n run=$who
	t_ok "$who: SNAPSHOT_DIFF is EPERM naming CAP_SYS_ADMIN" \
		"${run[@]}" python3 "$G" expect EPERM "needs CAP_SYS_ADMIN" \
		NOVA_CMD_SNAPSHOT_DIFF --dump \
		--attr NOVA_A_SNAPSHOT_DIFF:nest:NOVA_SNAPDIFF_A_OLD:u64:1 "${SEL[@]}"
done
echo more >> "$NOVA_MNT/f"
out=$("${NOSYSADMIN[@]}" novactl snapshot diff -i "$NOVA_MNT" keep 2>&1)
t_is "novactl snapshot diff --inodes without CAP_SYS_ADMIN fails" "$?" 1
t_ok "... naming the capability" grep -q "CAP_SYS_ADMIN" <<< "$out"
out=$("${NOSYSADMIN[@]}" novactl snapshot diff "$NOVA_MNT" keep 2>&1)
t_is "novactl snapshot diff without CAP_SYS_ADMIN walks the trees instead" \
	"$?:$out" "0:M	$NOVA_MNT/f"
t_ok "the snapshot is still there" sh -c "novactl snapshot list \"$NOVA_MNT\" | grep -qw keep"

# reads stay open
for who in NETADMIN NOSYSADMIN; do
	declare -n run=$who
	res=$("${run[@]}" python3 "$G" request NOVA_CMD_STATS_GET "${SEL[@]}")
	t_is "$who: STATS_GET works" "$(jget "$res" 'd["name"]')" OK
	res=$("${run[@]}" python3 "$G" request NOVA_CMD_SCRUB_STATUS "${SEL[@]}")
	t_is "$who: SCRUB_STATUS works" "$(jget "$res" 'd["name"]')" OK
	res=$("${run[@]}" python3 "$G" request NOVA_CMD_SNAPSHOT_LIST --dump "${SEL[@]}")
	t_is "$who: SNAPSHOT_LIST works" "$(jget "$res" 'd["name"]')" OK
done

# novactl passes the message on (the mount point is 0700: use the device)
out=$("${NETADMIN[@]}" novactl snapshot create -n x "$(findmnt -no SOURCE "$NOVA_MNT")" 2>&1)
t_is "novactl snapshot create as CAP_NET_ADMIN-only fails" "$?" 1
t_diag "$out"
t_ok "novactl says which capability is missing" grep -q "CAP_SYS_ADMIN" <<< "$out"
out=$("${NOSYSADMIN[@]}" novactl gc "$NOVA_MNT" 2>&1)
t_is "novactl gc without CAP_SYS_ADMIN fails" "$?" 1
t_ok "novactl gc says which capability is missing" grep -q "CAP_SYS_ADMIN" <<< "$out"

# root still may
t_ok "root: snapshot delete" novactl snapshot delete "$NOVA_MNT" keep
t_ok "root: gc" novactl gc "$NOVA_MNT"
t_ok "unmount" nova_umount
t_done
