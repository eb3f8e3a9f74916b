#!/bin/bash
# nova.ko loads, registers file system type NOVA, unloads, and loads again.
. "$NOVA_TOP/tests/guest/lib.sh"

t_ok "harness loaded nova.ko" grep -q '^nova ' /proc/modules
t_ok "NOVA is listed in /proc/filesystems" grep -qw NOVA /proc/filesystems
t_is "module licence" "$(modinfo -F license "$NOVA_MODULE")" GPL
t_is "module is built for the running kernel" \
	"$(modinfo -F vermagic "$NOVA_MODULE" | cut -d' ' -f1)" "$(uname -r)"
t_ok "rmmod nova" rmmod nova
t_fail "NOVA is gone from /proc/filesystems after rmmod" grep -qw NOVA /proc/filesystems
t_ok "insmod nova.ko again" insmod "$NOVA_MODULE"
t_ok "NOVA is registered again" grep -qw NOVA /proc/filesystems
t_ok "registration is logged" sh -c "dmesg | grep -q 'nova: file system type NOVA registered'"
t_done
