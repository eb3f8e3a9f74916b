#!/bin/sh
# Install novad from a finished build: only copies, never builds, so it
# also works from a read-only source tree (the guest tests use it).
#
#   BUILD=DIR    build directory holding bin/novad (default: ../build)
#   DESTDIR=DIR  staging root (default: empty, i.e. /)
#   PREFIX=DIR   installation prefix (default: /usr/local)
#   SYSCONFDIR, UNITDIR, MANDIR, COMPLETIONDIR, DOCDIR override the parts.
#
# Installs PREFIX/sbin/novad, the unit (ExecStart= pointing at it), the
# man pages, the bash completion, the commented example configuration as
# DOCDIR/novad.conf.example and, if none exists yet, as
# SYSCONFDIR/nova/novad.conf.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$src/build}
DESTDIR=${DESTDIR:-}
PREFIX=${PREFIX:-/usr/local}
SYSCONFDIR=${SYSCONFDIR:-/etc}
UNITDIR=${UNITDIR:-$PREFIX/lib/systemd/system}
MANDIR=${MANDIR:-$PREFIX/share/man}
COMPLETIONDIR=${COMPLETIONDIR:-$PREFIX/share/bash-completion/completions}
DOCDIR=${DOCDIR:-$PREFIX/share/doc/novad}
# Keep "//" out of the paths when DESTDIR is "/".
DESTDIR=${DESTDIR%/}
sbindir=$PREFIX/sbin

[ -x "$BUILD/bin/novad" ] || { echo "novad/install.sh: no $BUILD/bin/novad: build first" >&2; exit 1; }

install -d "$DESTDIR$sbindir" "$DESTDIR$UNITDIR" "$DESTDIR$MANDIR/man5" \
	"$DESTDIR$MANDIR/man8" "$DESTDIR$COMPLETIONDIR" "$DESTDIR$DOCDIR" \
	"$DESTDIR$SYSCONFDIR/nova"
install -m 0755 "$BUILD/bin/novad" "$DESTDIR$sbindir/novad"
sed "s|@sbindir@|$sbindir|g" "$src/systemd/novad.service.in" > "$DESTDIR$UNITDIR/novad.service.tmp"
chmod 0644 "$DESTDIR$UNITDIR/novad.service.tmp"
mv "$DESTDIR$UNITDIR/novad.service.tmp" "$DESTDIR$UNITDIR/novad.service"
install -m 0644 "$src/docs/man/novad.8" "$DESTDIR$MANDIR/man8/novad.8"
install -m 0644 "$src/docs/man/novad.conf.5" "$DESTDIR$MANDIR/man5/novad.conf.5"
install -m 0644 "$src/novad/novad.bash-completion" "$DESTDIR$COMPLETIONDIR/novad"
install -m 0644 "$src/novad/novad.conf.example" "$DESTDIR$DOCDIR/novad.conf.example"
if [ ! -e "$DESTDIR$SYSCONFDIR/nova/novad.conf" ]; then
	install -m 0644 "$src/novad/novad.conf.example" "$DESTDIR$SYSCONFDIR/nova/novad.conf"
fi
