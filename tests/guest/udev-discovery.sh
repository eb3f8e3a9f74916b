#!/bin/bash
# Device discovery through udev (issue 23): the installed 60-nova.rules
# and nova_id give a NOVA device ID_FS_TYPE/UUID/LABEL/VERSION/USAGE, so
# lsblk -f shows it, /dev/disk/by-label and by-uuid links exist and
# follow a reformat or relabel, mount and fstab take UUID= and LABEL=,
# and systemd mounts an fstab LABEL= line through its device unit. A
# damaged primary superblock is identified from the replica (as the
# kernel mounts it); a wiped device loses its identity and links; ext4
# is still blkid's.
# nova-guest-args: --systemd
# nova-timeout: 300
. "$NOVA_TOP/tests/guest/lib.sh"
D=$NOVA_PMEM
M=$NOVA_MNT
dev=${D##*/}
FSTAB_SAVE=$(mktemp)
cp /etc/fstab "$FSTAB_SAVE" 2>/dev/null || : > "$FSTAB_SAVE"

cleanup() {
	umount -q "$M" 2>/dev/null
	cp "$FSTAB_SAVE" /etc/fstab
	systemctl daemon-reload
	env BUILD="$NOVA_TOP/build" DESTDIR=/ PREFIX=/usr/local \
		"$NOVA_TOP/mk/install.sh" uninstall tools udev
	udevadm control --reload
}
trap cleanup EXIT

prop() { udevadm info -q property "$D" | sed -n "s/^$1=//p"; }
link() { readlink -f "/dev/disk/$1"; }
settle() { udevadm settle -t 30; }

# ---- install ----
t_ok "mk/install.sh installs tools and the udev rule" \
	env BUILD="$NOVA_TOP/build" DESTDIR=/ PREFIX=/usr/local "$NOVA_TOP/mk/install.sh" install tools udev
t_ok "rule where udev reads it" test -f /usr/local/lib/udev/rules.d/60-nova.rules
t_ok "it runs the installed nova_id" grep -q 'IMPORT{program}="/usr/local/lib/udev/nova_id \$devnode"' \
	/usr/local/lib/udev/rules.d/60-nova.rules
t_ok "udevadm control --reload" udevadm control --reload

# ---- a fresh file system, picked up through the inotify watch ----
t_ok "/sbin/mkfs.NOVA -L nova-data" /sbin/mkfs.NOVA -q -f -L nova-data "$D"
settle
uuid=$(/usr/local/lib/udev/nova_id "$D" | sed -n 's/^ID_FS_UUID=//p')
t_diag "uuid $uuid"
t_ok "nova_id reads a UUID" test -n "$uuid"
t_is "after mkfs (watch): ID_FS_TYPE" "$(prop ID_FS_TYPE)" NOVA
t_ok "udevadm trigger --settle $D" udevadm trigger --settle "$D"
t_is "ID_FS_TYPE" "$(prop ID_FS_TYPE)" NOVA
t_is "ID_FS_USAGE" "$(prop ID_FS_USAGE)" filesystem
t_is "ID_FS_VERSION" "$(prop ID_FS_VERSION)" 1.6
t_is "ID_FS_UUID" "$(prop ID_FS_UUID)" "$uuid"
t_is "ID_FS_UUID_ENC" "$(prop ID_FS_UUID_ENC)" "$uuid"
t_is "ID_FS_LABEL" "$(prop ID_FS_LABEL)" nova-data
t_is "ID_FS_LABEL_ENC" "$(prop ID_FS_LABEL_ENC)" nova-data
t_is "lsblk -f: FSTYPE FSVER LABEL UUID" \
	"$(lsblk -n -o FSTYPE,FSVER,LABEL,UUID "$D" | tr -s ' ')" "NOVA 1.6 nova-data $uuid"
t_is "/dev/disk/by-label/nova-data" "$(link by-label/nova-data)" "$D"
t_is "/dev/disk/by-uuid/$uuid" "$(link by-uuid/"$uuid")" "$D"
t_fail "blkid(8) does not know NOVA (libblkid has no prober; see nova_id(8))" blkid -p "$D"

# ---- mount by tag, fstab ----
t_ok "mount -t NOVA LABEL=nova-data" mount -t NOVA LABEL=nova-data "$M"
t_is "findmnt: source and type" "$(findmnt -n -o SOURCE,FSTYPE "$M" | tr -s ' ')" "$D NOVA"
t_ok "umount" umount "$M"
t_ok "mount -t NOVA UUID=$uuid" mount -t NOVA UUID="$uuid" "$M"
t_ok "umount" umount "$M"
echo "UUID=$uuid $M NOVA defaults,nofail 0 0" >> /etc/fstab
t_ok "fstab UUID= line: mount $M" mount "$M"
t_is "findmnt --fstab resolves the UUID" "$(findmnt --fstab -n -e -o SOURCE "$M")" "$D"
t_is "mounted from $D as NOVA" "$(findmnt -n -o SOURCE,FSTYPE "$M" | tr -s ' ')" "$D NOVA"
t_ok "write through it" sh -c "echo hello > $M/hello"
t_ok "umount" umount "$M"
cp "$FSTAB_SAVE" /etc/fstab

# ---- systemd: an fstab LABEL= line, its device unit and mount unit ----
echo "LABEL=nova-data $M NOVA defaults,nofail 0 0" >> /etc/fstab
t_ok "systemctl daemon-reload (fstab generator)" systemctl daemon-reload
unit=$(systemd-escape -p --suffix=mount "$M")
devunit=$(systemd-escape -p --suffix=device /dev/disk/by-label/nova-data)
t_is "device unit $devunit is plugged" "$(systemctl show -p ActiveState --value "$devunit")" active
t_is "$unit comes from fstab" "$(systemctl show -p SourcePath --value "$unit")" /etc/fstab
t_ok "systemctl start $unit" timeout 60 systemctl start "$unit"
t_is "$unit is active" "$(systemctl is-active "$unit")" active
t_is "what systemd mounted" "$(findmnt -n -o SOURCE,FSTYPE "$M" | tr -s ' ')" "$D NOVA"
t_is "the data is there" "$(cat "$M/hello" 2>/dev/null)" hello
t_ok "systemctl stop $unit" systemctl stop "$unit"
t_fail "unmounted" mountpoint -q "$M"
cp "$FSTAB_SAVE" /etc/fstab
systemctl daemon-reload

# ---- relabel and reformat: the links follow ----
t_ok "mkfs.NOVA -L 'other data' (new UUID)" /sbin/mkfs.NOVA -q -f -L "other data" "$D"
settle
uuid2=$(/usr/local/lib/udev/nova_id "$D" | sed -n 's/^ID_FS_UUID=//p')
t_ok "a new UUID" test -n "$uuid2" -a "$uuid2" != "$uuid"
t_is "ID_FS_LABEL has '_' for the space" "$(prop ID_FS_LABEL)" other_data
t_is "ID_FS_LABEL_ENC has \\x20" "$(prop ID_FS_LABEL_ENC)" 'other\x20data'
t_is "by-label/other\\x20data" "$(link 'by-label/other\x20data')" "$D"
t_is "by-uuid/<new>" "$(link by-uuid/"$uuid2")" "$D"
t_fail "old by-label link gone" test -e /dev/disk/by-label/nova-data
t_fail "old by-uuid link gone" test -e "/dev/disk/by-uuid/$uuid"
t_is "lsblk -f follows" "$(lsblk -n -o LABEL,UUID "$D" | tr -s ' ')" "other data $uuid2"

# ---- damaged primary: the replica, as the kernel mounts it ----
t_ok "corrupt the primary superblock's checksum" \
	sh -c "printf 'XXXX' | dd of=$D bs=1 seek=4 conv=notrunc,fsync status=none"
settle
udevadm trigger --settle "$D"
t_is "still NOVA (from the replica)" "$(prop ID_FS_TYPE)" NOVA
t_is "with the replica's UUID" "$(prop ID_FS_UUID)" "$uuid2"
t_ok "the kernel mounts it too" mount -t NOVA "UUID=$uuid2" "$M"
t_ok "umount (rewrites both superblocks)" umount "$M"

# ---- wiped: identity and links go ----
t_ok "zero the first 128 KiB" dd if=/dev/zero of="$D" bs=64k count=2 conv=notrunc,fsync status=none
settle
udevadm trigger --settle "$D"
t_is "no ID_FS_TYPE" "$(prop ID_FS_TYPE)" ""
t_is "no ID_FS_UUID" "$(prop ID_FS_UUID)" ""
t_fail "by-uuid link gone" test -e "/dev/disk/by-uuid/$uuid2"
t_fail "by-label link gone" test -e '/dev/disk/by-label/other\x20data'
t_is "lsblk -f: no FSTYPE" "$(lsblk -n -o FSTYPE "$D" | tr -d ' ')" ""

# ---- another file system is libblkid's ----
t_ok "mkfs.ext4 -L e4" mkfs.ext4 -q -F -L e4 "$D"
settle
udevadm trigger --settle "$D"
t_is "ID_FS_TYPE is ext4" "$(prop ID_FS_TYPE)" ext4
t_is "by-label/e4" "$(link by-label/e4)" "$D"
t_ok "mkfs.NOVA -f over it" /sbin/mkfs.NOVA -q -f -L back "$D"
settle
udevadm trigger --settle "$D"
t_is "NOVA again" "$(prop ID_FS_TYPE)" NOVA
t_fail "no stale ext4 label link" test -e /dev/disk/by-label/e4
t_is "by-label/back" "$(link by-label/back)" "$D"

# ---- uninstall ----
cleanup
trap - EXIT
t_fail "uninstalled: no rule" test -e /usr/local/lib/udev/rules.d/60-nova.rules
t_fail "uninstalled: no nova_id" test -e /usr/local/lib/udev/nova_id
t_done
