#!/usr/bin/env bash
# make install DESTDIR=... puts every piece where it belongs (programs,
# man pages, bash completion, udev rule and nova_id, the novad unit,
# modules-load.d entry, novad.conf, the module) and make uninstall
# removes all of it again, leaving an empty staging root; a changed
# novad.conf is kept.
set -uo pipefail
. "$(dirname "$0")/../../qemu/lib.sh"
. "$nova_top/tests/guest/lib.sh"
cd "$nova_top" || exit 1
kver=$(nova_kver)
ko=nova.ko$(nova_ko_suffix "$(nova_kdir)")
work=$(mktemp -d "${TMPDIR:-/tmp}/nova-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
D=$work/root

t_ok "make install DESTDIR=..." sh -c "make -s install DESTDIR='$D' > '$work/log' 2>&1 || { tail -n 20 '$work/log' >&2; exit 1; }"
got=$(cd "$D" && find . -type f | sed 's|^\.||' | sort)
want=$(sort <<EOL
/etc/nova/novad.conf
/lib/modules/$kver/updates/$ko
/sbin/fsck.NOVA
/sbin/mkfs.NOVA
/sbin/tune.NOVA
/usr/local/bin/novactl
/usr/local/lib/modules-load.d/nova.conf
/usr/local/lib/systemd/system/novad.service
/usr/local/lib/udev/nova_id
/usr/local/lib/udev/rules.d/60-nova.rules
/usr/local/sbin/novad
/usr/local/share/bash-completion/completions/novactl
/usr/local/share/bash-completion/completions/novad
/usr/local/share/doc/nova/alerts/nova.rules.test.yml
/usr/local/share/doc/nova/alerts/nova.rules.yml
/usr/local/share/doc/nova/novad.conf.example
/usr/local/share/man/man5/novad.conf.5
/usr/local/share/man/man8/fsck.NOVA.8
/usr/local/share/man/man8/mkfs.NOVA.8
/usr/local/share/man/man8/nova_id.8
/usr/local/share/man/man8/novactl.8
/usr/local/share/man/man8/novad.8
/usr/local/share/man/man8/tune.NOVA.8
EOL
)
t_is "the installed files" "$got" "$want"
t_is "mk/install.sh list names the same userspace files" \
	"$(BUILD=$nova_top/build DESTDIR=$D mk/install.sh list | sed "s|^$D||" | sort)" \
	"$(grep -v -e '^/lib/modules/' -e '^/etc/nova/novad.conf$' <<< "$want")"
t_ok "programs are executable" test -x "$D/usr/local/bin/novactl" -a -x "$D/sbin/mkfs.NOVA" -a -x "$D/usr/local/lib/udev/nova_id"
t_ok "the unit runs the installed novad" grep -qx 'ExecStart=/usr/local/sbin/novad' "$D/usr/local/lib/systemd/system/novad.service"
t_ok "the udev rule runs the installed nova_id" grep -q 'IMPORT{program}="/usr/local/lib/udev/nova_id \$devnode"' "$D/usr/local/lib/udev/rules.d/60-nova.rules"
t_is "modules-load.d names the module" "$(grep -v '^#' "$D/usr/local/lib/modules-load.d/nova.conf")" nova
for p in novactl mkfs.NOVA fsck.NOVA nova_id novad novad.conf; do
	t_ok "man finds $p in the installed tree" sh -c "man -M '$D/usr/local/share/man' -P cat $p 2>/dev/null | grep -q '^NAME'"
done
t_ok "novactl's completion loads in bash" bash -c ". '$D/usr/local/share/bash-completion/completions/novactl' && complete -p novactl"
t_ok "novad's completion loads in bash" bash -c ". '$D/usr/local/share/bash-completion/completions/novad' && complete -p novad"

t_ok "make uninstall DESTDIR=..." sh -c "make -s uninstall DESTDIR='$D' > '$work/log' 2>&1 || { tail -n 20 '$work/log' >&2; exit 1; }"
t_is "nothing left" "$(cd "$D" 2>/dev/null && find . -mindepth 1 | head -n 5)" ""

# An edited configuration survives uninstall.
t_ok "install again" sh -c "make -s install DESTDIR='$D' > '$work/log' 2>&1"
echo "# mine" >> "$D/etc/nova/novad.conf"
t_ok "uninstall again" sh -c "make -s uninstall DESTDIR='$D' > '$work/log' 2>&1"
t_ok "the edited novad.conf is kept" grep -q '^# mine' "$D/etc/nova/novad.conf"
t_is "and is all that is left" "$(cd "$D" && find . -type f)" "./etc/nova/novad.conf"
t_done
