#!/bin/bash
# Harness self-check: all checks pass, but a module WARNs in the kernel.
. "$NOVA_TOP/tests/guest/lib.sh"
t_ok "load a module that WARNs" insmod "$NOVA_TOP/build/selfcheck-kmod/warn_on_load.ko"
t_ok "unload it" rmmod warn_on_load
t_done
