#!/bin/sh
# Install or uninstall NOVA's userspace from a finished build. Only copies
# (never builds), so it also works from the read-only tree in the guest;
# "make install" and "make uninstall" call it after building.
#
#   mk/install.sh install|uninstall|list [PART...]
#
# PARTs: tools (mkfs.NOVA, fsck.NOVA, tune.NOVA), udev (nova_id and its rule),
# novactl, novad, module-load (the modules-load.d entry); default all.
# "list" prints the paths install writes (under DESTDIR), one a line.
#
#   BUILD=DIR    build directory holding bin/ (default: ../build)
#   DESTDIR=DIR  staging root (default: empty, i.e. /)
#   PREFIX=DIR   installation prefix (default: /usr/local)
#   SYSCONFDIR, UNITDIR, MANDIR, COMPLETIONDIR, DOCDIR, UDEVDIR,
#   MODULESLOADDIR, FSSBINDIR override the parts.
#
# mkfs(8) and fsck(8) look for their helpers in /sbin, whatever PREFIX is:
# FSSBINDIR is /sbin. udev reads rules from /usr/local/lib/udev/rules.d
# as well as /usr/lib/udev/rules.d, and systemd-modules-load from
# /usr/local/lib/modules-load.d, so the default PREFIX works for both.
#
# novad's configuration (SYSCONFDIR/nova/novad.conf) is installed from
# the example only if there is none, and uninstall removes it only while
# it is still the unchanged example.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$src/build}
DESTDIR=${DESTDIR:-}
PREFIX=${PREFIX:-/usr/local}
SYSCONFDIR=${SYSCONFDIR:-/etc}
UNITDIR=${UNITDIR:-$PREFIX/lib/systemd/system}
MANDIR=${MANDIR:-$PREFIX/share/man}
COMPLETIONDIR=${COMPLETIONDIR:-$PREFIX/share/bash-completion/completions}
DOCDIR=${DOCDIR:-$PREFIX/share/doc/nova}
UDEVDIR=${UDEVDIR:-$PREFIX/lib/udev}
MODULESLOADDIR=${MODULESLOADDIR:-$PREFIX/lib/modules-load.d}
FSSBINDIR=${FSSBINDIR:-/sbin}
# Keep "//" out of the paths when DESTDIR is "/".
DESTDIR=${DESTDIR%/}
sbindir=$PREFIX/sbin
bindir=$PREFIX/bin

usage() {
	echo "usage: mk/install.sh install|uninstall|list [tools|udev|novactl|novad|module-load]..." >&2
	exit 2
}

# The manifest: "MODE SOURCE DEST" lines for PART. SOURCE "@gen:NAME"
# is generated (gen NAME writes it to stdout).
files() {
	case $1 in
	tools)
		echo "0755 $BUILD/bin/mkfs.NOVA $FSSBINDIR/mkfs.NOVA"
		echo "0755 $BUILD/bin/fsck.NOVA $FSSBINDIR/fsck.NOVA"
		echo "0755 $BUILD/bin/tune.NOVA $FSSBINDIR/tune.NOVA"
		echo "0644 $src/docs/man/mkfs.NOVA.8 $MANDIR/man8/mkfs.NOVA.8"
		echo "0644 $src/docs/man/fsck.NOVA.8 $MANDIR/man8/fsck.NOVA.8"
		echo "0644 $src/docs/man/tune.NOVA.8 $MANDIR/man8/tune.NOVA.8"
		;;
	udev)
		echo "0755 $BUILD/bin/nova_id $UDEVDIR/nova_id"
		echo "0644 @gen:rules $UDEVDIR/rules.d/60-nova.rules"
		echo "0644 $src/docs/man/nova_id.8 $MANDIR/man8/nova_id.8"
		;;
	novactl)
		echo "0755 $BUILD/bin/novactl $bindir/novactl"
		echo "0644 $src/docs/man/novactl.8 $MANDIR/man8/novactl.8"
		echo "0644 $src/novactl/novactl.bash-completion $COMPLETIONDIR/novactl"
		;;
	novad)
		echo "0755 $BUILD/bin/novad $sbindir/novad"
		echo "0644 @gen:unit $UNITDIR/novad.service"
		echo "0644 $src/docs/man/novad.8 $MANDIR/man8/novad.8"
		echo "0644 $src/docs/man/novad.conf.5 $MANDIR/man5/novad.conf.5"
		echo "0644 $src/novad/novad.bash-completion $COMPLETIONDIR/novad"
		echo "0644 $src/novad/novad.conf.example $DOCDIR/novad.conf.example"
		echo "0644 $src/docs/alerts/nova.rules.yml $DOCDIR/alerts/nova.rules.yml"
		echo "0644 $src/docs/alerts/nova.rules.test.yml $DOCDIR/alerts/nova.rules.test.yml"
		;;
	module-load)
		echo "0644 @gen:modules-load $MODULESLOADDIR/nova.conf"
		;;
	*)
		usage
		;;
	esac
}

gen() {
	case $1 in
	rules) sed "s|@udevdir@|$UDEVDIR|g" "$src/udev/60-nova.rules.in" ;;
	unit) sed "s|@sbindir@|$sbindir|g" "$src/systemd/novad.service.in" ;;
	modules-load) printf '# Load the NOVA file system module at boot (novad, fstab mounts).\nnova\n' ;;
	esac
}

put() {	# put MODE SOURCE DEST
	dest=$DESTDIR$3
	install -d "${dest%/*}"
	case $2 in
	@gen:*)
		gen "${2#@gen:}" > "$dest.tmp"
		chmod "$1" "$dest.tmp"
		mv "$dest.tmp" "$dest"
		;;
	*)
		[ -e "$2" ] || { echo "mk/install.sh: no $2: build first (make)" >&2; exit 1; }
		install -m "$1" "$2" "$dest"
		;;
	esac
}

# After uninstall: in a staging root (DESTDIR), remove DIR and its
# parents while empty; on the real root only NOVA's own directories.
prune() {
	d=$1
	if [ -z "$DESTDIR" ]; then
		case $d in
		"$DOCDIR" | "$SYSCONFDIR/nova") rmdir "$d" 2> /dev/null || : ;;
		esac
		return 0
	fi
	while [ "$d" != "$DESTDIR" ] && [ -n "$d" ] && rmdir "$d" 2> /dev/null; do
		d=${d%/*}
	done
}

action=${1:-}
[ $# -gt 0 ] && shift
parts=${*:-tools udev novactl novad module-load}
conf=$SYSCONFDIR/nova/novad.conf

case $action in
install)
	for p in $parts; do
		files "$p" | while read -r mode from to; do
			put "$mode" "$from" "$to"
		done
		if [ "$p" = novad ] && [ ! -e "$DESTDIR$conf" ]; then
			put 0644 "$src/novad/novad.conf.example" "$conf"
		fi
	done
	;;
uninstall)
	for p in $parts; do
		files "$p" | while read -r mode from to; do
			rm -f "$DESTDIR$to"
			prune "${DESTDIR}${to%/*}"
		done
		if [ "$p" = novad ] && [ -e "$DESTDIR$conf" ]; then
			if cmp -s "$src/novad/novad.conf.example" "$DESTDIR$conf"; then
				rm -f "$DESTDIR$conf"
				prune "$DESTDIR${conf%/*}"
			else
				echo "mk/install.sh: keeping $DESTDIR$conf (changed since install)" >&2
			fi
		fi
	done
	;;
list)
	for p in $parts; do
		files "$p" | while read -r mode from to; do
			echo "$DESTDIR$to"
		done
	done
	;;
*)
	usage
	;;
esac
