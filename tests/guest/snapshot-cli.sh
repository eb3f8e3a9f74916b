#!/bin/bash
# novactl snapshot create/list/delete: human and JSON output (well-formed,
# schema version, members), exit status, errors as "Error: ..." or JSON,
# unprivileged EPERM, names versus ids, and the snapshot count in stats.
# nova-timeout: 300
. "$NOVA_TOP/tests/guest/lib.sh"

C=${NOVACTL:-novactl}
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
M=$NOVA_MNT

jget() {
	python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2"
}

t_ok "format and mount" nova_mount_init
echo data > "$M/f"

out=$("$C" snapshot create --name nightly "$M")
t_is "create exits 0" "$?" 0
t_ok "human output names the snapshot" grep -q "^Created snapshot 1 of " <<< "$out"
out=$("$C" snapshot create "$M" -j)
t_is "create -j exits 0" "$?" 0
t_is "create -j: version, id, empty name" \
	"$(jget "$out" 'd["version"], d["snapshot"]["id"], d["snapshot"]["name"]')" "(1, 2, '')"
t_is "create -j: epoch of the second snapshot" "$(jget "$out" 'd["snapshot"]["epoch"]')" 1

out=$("$C" snapshot list "$M" --json)
t_is "list --json exits 0" "$?" 0
t_is "list --json: two snapshots, oldest first" \
	"$(jget "$out" '[(s["id"], s["name"]) for s in d["snapshots"]]')" "[(1, 'nightly'), (2, '')]"
t_ok "list --json: ctime is ISO 8601 UTC" python3 -c '
import json, sys, re
d = json.loads(sys.argv[1])
assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", s["ctime"]) for s in d["snapshots"])
assert all(s["ctime_ns"] > 0 for s in d["snapshots"])' "$out"
out=$("$C" snapshot list "$M")
t_is "human list: header and two rows" "$(wc -l <<< "$out")" 3
out=$("$C" stats "$M" -j)
t_is "stats counts the snapshots" "$(jget "$out" 'd["filesystems"][0]["snapshots"]')" 2

out=$("$C" snapshot create --name nightly "$M" 2>&1)
t_is "duplicate name exits 1" "$?" 1
t_ok "... with Error: and the kernel's message" grep -q "^Error: .*a live snapshot has this name" <<< "$out"
out=$("$C" snapshot delete "$M" 99 -j)
t_is "delete of an unknown id exits 1" "$?" 1
t_is "... JSON error ENOENT with the extack" \
	"$(jget "$out" 'd["error"]["name"], d["error"]["message"]')" "('ENOENT', '99: no live snapshot matches')"
out=$("${NOBODY[@]}" "$C" snapshot create "$M" -j)
t_is "unprivileged create exits 1" "$?" 1
t_is "... EPERM" "$(jget "$out" 'd["error"]["name"]')" EPERM
t_ok "... saying root is needed" grep -q "permission denied: this command needs root (CAP_SYS_ADMIN/CAP_NET_ADMIN)" \
	<<< "$(jget "$out" 'd["error"]["message"]')"
out=$("${NOBODY[@]}" "$C" snapshot create "$M" 2>&1)
t_ok "... in text too, not a bare 'Operation not permitted'" \
	grep -qx "Error: .*permission denied: this command needs root (CAP_SYS_ADMIN/CAP_NET_ADMIN)" <<< "$out"
out=$("${NOBODY[@]}" "$C" snapshot list "$M" -j)
t_is "unprivileged list works" "$(jget "$out" 'len(d["snapshots"])')" 2
"$C" snapshot delete "$M" >/dev/null 2>&1
t_is "delete without ID|NAME is a usage error (2)" "$?" 2
"$C" snapshot create "$M" extra >/dev/null 2>&1
t_is "create with two arguments is a usage error (2)" "$?" 2

t_ok "delete by name" "$C" snapshot delete "$M" nightly
out=$("$C" snapshot delete "$M" 2 -j)
t_is "delete by id -j" "$(jget "$out" 'd["snapshot"]["id"]')" 2
out=$("$C" snapshot list "$M" -j)
t_is "no snapshot left" "$(jget "$out" 'd["snapshots"]')" "[]"
t_is "human list of none prints nothing" "$("$C" snapshot list "$M")" ""
out=$("$C" snapshot create "$M" -j)
t_is "ids are not reused" "$(jget "$out" 'd["snapshot"]["id"]')" 3
t_ok "umount" nova_umount
t_ok "mount" nova_mount
out=$("$C" snapshot list "$M" -j)
t_is "the table survives umount/mount" "$(jget "$out" '[s["id"] for s in d["snapshots"]]')" "[3]"
t_ok "delete 3" "$C" snapshot delete "$M" 3
t_ok "umount" nova_umount
t_done
