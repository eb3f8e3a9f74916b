#!/bin/bash
# Space a snapshot holds exclusively (NOVA_SNAPSHOT_A_EXCL_BLOCKS, shown by
# novactl snapshot list): blocks overwritten after one snapshot are its
# alone; blocks two snapshots show count for neither's exclusive space
# until one of them goes, then for the other; a removed file only the
# newest snapshot shows counts its data and log blocks, exactly what
# deleting that snapshot frees. JSON follows the schema; the human list
# has the column.
# nova-timeout: 300
. "$NOVA_TOP/tests/guest/lib.sh"

C=${NOVACTL:-novactl}
M=$NOVA_MNT
J=$NOVA_TOP/tests/guest/genl-json-check.py

# excl: "ID:BLOCKS ..." for every listed snapshot, oldest first.
excl() {
	"$C" snapshot list "$M" -j | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join("%d:%d" % (s["id"], s["exclusive_blocks"]) for s in d["snapshots"]))'
}
fill() { dd if=/dev/urandom of="$1" bs=4096 count="$2" conv=notrunc status=none && sync; }

t_ok "format and mount" nova_mount_init
fill "$M/f" 256
fill "$M/g" 128
t_ok "snapshot 1" "$C" snapshot create "$M"
t_is "a new snapshot holds nothing alone" "$(excl)" "1:0"
fill "$M/f" 256
t_is "f overwritten: snapshot 1 holds its 256 old blocks alone" "$(excl)" "1:256"

t_ok "snapshot 2" "$C" snapshot create "$M"
fill "$M/f" 256
fill "$M/g" 128
t_is "f again, g: 256 for 2 (f of epoch 1), g shared with 1 counts for neither" \
	"$(excl)" "1:256 2:256"
out=$("$C" snapshot list "$M" -j)
t_ok "list --json follows the schema" sh -c "printf '%s' '$out' | python3 '$J' snapshot-list"
t_is "exclusive_bytes is 4 KiB per block" \
	"$(python3 -c 'import json, sys; print([s["exclusive_bytes"] for s in json.loads(sys.argv[1])["snapshots"]])' "$out")" \
	"[1048576, 1048576]"
out=$("$C" snapshot list "$M")
t_is "human list: EXCLUSIVE column" "$(awk 'NR == 1 { print $4 } NR == 2 { print $4, $5 }' <<< "$out")" \
	"$(printf 'EXCLUSIVE\n1.0 MiB')"

t_ok "delete snapshot 2" "$C" snapshot delete "$M" 2
t_is "g's blocks are now snapshot 1's alone (256 + 128)" "$(excl)" "1:384"

# A removed file only the newest snapshot shows.
fill "$M/h" 32
t_ok "snapshot 3" "$C" snapshot create "$M"
t_ok "remove h" rm "$M/h"
sync
n=$(excl)
t_is "snapshot 1 unchanged" "${n%% *}" "1:384"
k=${n##*:}
t_ok "snapshot 3 holds h's 32 data blocks and its log ($k)" test "$k" -ge 33 -a "$k" -le 40
before=$(nova_bfree)
t_ok "delete snapshot 3" "$C" snapshot delete "$M" 3
t_is "deleting it frees exactly its exclusive blocks" $(($(nova_bfree) - before)) "$k"
t_is "snapshot 1 still 384" "$(excl)" "1:384"

t_ok "umount, mount" nova_remount
t_is "the same after a remount (rebuilt from the snapshot log)" "$(excl)" "1:384"
t_ok "delete snapshot 1" "$C" snapshot delete "$M" 1
t_ok "umount" nova_umount
t_done
