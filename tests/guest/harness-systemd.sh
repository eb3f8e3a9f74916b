#!/bin/bash
# Tests that declare guest options run in a boot of their own: this one
# runs under systemd as init, for tests of services.
# nova-guest-args: --systemd
. "$NOVA_TOP/tests/guest/lib.sh"
t_is "PID 1 is systemd" "$(cat /proc/1/comm)" systemd
t_ok "systemctl answers" systemctl show -p Version --value
t_ok "nova.ko is loaded" grep -q '^nova ' /proc/modules
t_done
