#!/bin/bash
# The two builds of nova.ko (docs/testing.md, "Test hooks"): the test build
# the suite loads (make module-test) has the crash point, the corruption
# injector and the snapshot reclaim hold; the production build (make, make
# install, DKMS) has none of them, does not register NOVA_CMD_INJECT or
# NOVA_CMD_PMTRACE (the persistence checker's trace), and
# mounts and works as usual. The test build is loaded again at the end.
. "$NOVA_TOP/tests/guest/lib.sh"

PROD=$NOVA_TOP/module/nova.ko
HOOKS="crash_after_barriers inject snap_reclaim_hold gc_windowed_requests gc_whole_work"
INJECT_CMD=0x11		# NOVA_CMD_INJECT (uapi/linux/nova_genl.h)
PMTRACE_CMD=0x12	# NOVA_CMD_PMTRACE

params() { modinfo -F parm "$1" | cut -d: -f1 | sort | tr '\n' ' '; }
# The command ids the loaded family registers ("ID-0x11 ...").
genl_cmds() { genl ctrl get name nova | grep -o 'ID-0x[0-9a-f]*' | sort | tr '\n' ' '; }

t_is "the suite loads the test build" "$NOVA_MODULE" "$NOVA_TOP/build/module-test/nova.ko"
t_ok "the production build exists beside it" test -s "$PROD"
t_is "both builds are for the running kernel" \
	"$(modinfo -F vermagic "$PROD" | cut -d' ' -f1)" "$(uname -r)"
for p in $HOOKS; do
	t_ok "test build: parameter $p" grep -qw "$p" <<< "$(params "$NOVA_MODULE")"
	t_fail "production build: no parameter $p" grep -qw "$p" <<< "$(params "$PROD")"
done
t_ok "test build: the family registers NOVA_CMD_INJECT" grep -qw "ID-$INJECT_CMD" <<< "$(genl_cmds)"
t_ok "test build: the family registers NOVA_CMD_PMTRACE" grep -qw "ID-$PMTRACE_CMD" <<< "$(genl_cmds)"

t_ok "rmmod the test build" rmmod nova
t_ok "insmod the production build" insmod "$PROD"
for p in $HOOKS; do
	t_fail "production build loaded: no /sys/module/nova/parameters/$p" \
		test -e "/sys/module/nova/parameters/$p"
done
cmds=$(genl_cmds)
t_ok "production build: the family registers its other commands" grep -qw "ID-0x1" <<< "$cmds"
t_fail "production build: no NOVA_CMD_INJECT" grep -qw "ID-$INJECT_CMD" <<< "$cmds"
t_fail "production build: no NOVA_CMD_PMTRACE" grep -qw "ID-$PMTRACE_CMD" <<< "$cmds"
t_fail "production build: no persistence trace code" grep -q "persistence trace: armed" "$PROD"
t_ok "test build: has the persistence trace code" grep -q "persistence trace: armed" "$NOVA_MODULE"

D=$NOVA_PMEM
M=$NOVA_MNT
mkdir -p "$M"
t_ok "production build: mount -o init=force" mount -t NOVA -o init=force "$D" "$M"
t_ok "production build: mounted" mountpoint -q "$M"
t_ok "production build: write a file" sh -c "echo hello > $M/f && sync"
out=$(novactl debug inject data --ino "$(stat -c %i "$M/f")" --offset 0 "$M" 2>&1)
rc=$?
t_is "production build: novactl debug inject fails (exit 1)" "$rc" 1
t_ok "production build: and says why" grep -q "production build" <<< "$out"
t_is "production build: the file is intact" "$(cat "$M/f")" hello
t_ok "production build: umount" umount "$M"
t_ok "production build: fsck.NOVA clean" fsck.NOVA -n "$D"

t_ok "rmmod the production build" rmmod nova
t_ok "insmod the test build again" insmod "$NOVA_MODULE"
t_ok "test build: crash_after_barriers is back (disarmed)" \
	test "$(cat /sys/module/nova/parameters/crash_after_barriers)" = 0
t_done
