#!/bin/bash
# The installed system under systemd (issue 23): mk/install.sh (what make
# install runs) puts the unit, completion, man pages, modules-load.d
# entry in place; novad started before nova.ko is loaded does not
# crash-loop: it is active, says once that it waits (journal and
# STATUS=), is not restarted, and starts following file systems when
# systemd-modules-load loads the module through the installed
# modules-load.d/nova.conf; uninstall removes it all.
# nova-guest-args: --systemd
# nova-timeout: 300
. "$NOVA_TOP/tests/guest/lib.sh"
. "$NOVA_TOP/tests/guest/lib-novad.sh"

M=$NOVA_MNT
KDIR=/lib/modules/$(uname -r)/updates
INST=(env BUILD="$NOVA_TOP/build" DESTDIR=/ PREFIX=/usr/local "$NOVA_TOP/mk/install.sh")
prop() { systemctl show -p "$1" --value novad; }

cleanup() {
	systemctl stop novad 2>/dev/null
	umount -q "$M" 2>/dev/null
	"${INST[@]}" uninstall > /dev/null 2>&1
	rm -f "$KDIR/nova.ko"
	depmod -a
	systemctl daemon-reload
}
trap cleanup EXIT

# Earlier tests of this boot leave their novad.conf: start from none, so
# that the installed example is what novad reads (and uninstall removes).
rm -f /etc/nova/novad.conf
t_ok "mk/install.sh install" "${INST[@]}" install
t_ok "the example configuration installed" cmp -s "$NOVA_TOP/novad/novad.conf.example" /etc/nova/novad.conf
for f in /usr/local/bin/novactl /usr/local/sbin/novad /sbin/mkfs.NOVA /sbin/fsck.NOVA \
	 /usr/local/lib/udev/nova_id /usr/local/lib/udev/rules.d/60-nova.rules \
	 /usr/local/lib/systemd/system/novad.service /usr/local/lib/modules-load.d/nova.conf \
	 /usr/local/share/man/man8/novactl.8 /usr/local/share/man/man8/mkfs.NOVA.8 \
	 /usr/local/share/man/man8/fsck.NOVA.8 /usr/local/share/man/man8/novad.8 \
	 /usr/local/share/man/man5/novad.conf.5 \
	 /usr/local/share/bash-completion/completions/novactl \
	 /usr/local/share/bash-completion/completions/novad; do
	t_ok "installed: $f" test -s "$f"
done
t_is "novactl completion: 'novactl sn' completes to snapshot" \
	"$(bash -c '. /usr/local/share/bash-completion/completions/novactl
		COMP_WORDS=(novactl sn); COMP_CWORD=1; COMP_LINE="novactl sn"; COMP_POINT=10
		_novactl novactl sn novactl; echo "${COMPREPLY[*]}"' 2>/dev/null)" snapshot
systemctl daemon-reload

# ---- novad before the module ----
systemctl stop novad 2>/dev/null
umount -q "$M" 2>/dev/null
t_ok "rmmod nova" rmmod nova
t_fail "nova.ko is not loaded" grep -q '^nova ' /proc/modules
mark_journal
t_ok "systemctl start novad without nova.ko" timeout 30 systemctl start novad
t_is "novad is active" "$(systemctl is-active novad)" active
t_ok "STATUS= says it waits for nova.ko" grep -q 'waiting for nova.ko' <<< "$(prop StatusText)"
t_diag "STATUS=$(prop StatusText)"
t_journal "one clear line in the journal" 10 PRIORITY=4 "MESSAGE=~not found (is nova.ko loaded?): waiting for it"
sleep 20
t_is "said once in 20 s (no loop)" "$(jcount "MESSAGE=~waiting for it")" 1
t_is "not restarted by systemd" "$(prop NRestarts)" 0
t_is "still active" "$(systemctl is-active novad)" active
t_is "the same process" "$(prop MainPID)" "$(pgrep -x novad | head -n1)"

# ---- the module arrives through modules-load.d ----
mkdir -p "$KDIR"
cp "$NOVA_MODULE" "$KDIR/nova.ko"
depmod -a
t_ok "systemctl restart systemd-modules-load (reads /usr/local/lib/modules-load.d/nova.conf)" \
	systemctl restart systemd-modules-load
t_ok "nova.ko is loaded" grep -q '^nova ' /proc/modules
t_journal "novad: the family appeared" 20 "MESSAGE=~nova genl family appeared"
t_journal "novad: started, with MESSAGE_ID" 10 MESSAGE_ID=$MID_STARTED
t_ok "STATUS= now says what it follows" wait_for 10 sh -c "systemctl show -p StatusText --value novad | grep -q 'following [0-9]* NOVA file system'"
t_ok "format and mount" nova_mount_init
# The notification comes before the mount is attached to its mount point,
# so the "mounted:" entry may name only the device; novad logs the mount
# point when mountinfo changes (novad/fsset.c).
t_journal "it follows the new mount" 20 MESSAGE_ID=$MID_MOUNTED NOVA_DEVICE="$NOVA_PMEM"
t_journal "it knows the new mount's mount point" 20 NOVA_DEVICE="$NOVA_PMEM" NOVA_MOUNTPOINT="$M"
t_is "never restarted" "$(prop NRestarts)" 0
t_ok "umount" nova_umount
t_ok "systemctl stop novad" systemctl stop novad

# ---- uninstall ----
t_ok "mk/install.sh uninstall" "${INST[@]}" uninstall
for f in /usr/local/bin/novactl /usr/local/sbin/novad /sbin/mkfs.NOVA \
	 /usr/local/lib/udev/nova_id /usr/local/lib/systemd/system/novad.service \
	 /usr/local/lib/modules-load.d/nova.conf /usr/local/share/man/man8/novactl.8 \
	 /usr/local/share/bash-completion/completions/novactl /etc/nova/novad.conf; do
	t_fail "removed: $f" test -e "$f"
done
t_done
