#!/bin/sh
# Install novad alone from a finished build (copies only): the novad part
# of mk/install.sh, which "make install" runs for everything. Same
# variables (BUILD, DESTDIR, PREFIX, SYSCONFDIR, UNITDIR, MANDIR,
# COMPLETIONDIR, DOCDIR).
exec "$(dirname "$0")/../mk/install.sh" install novad
