#!/bin/bash
# Harness self-check: the guest kernel panics in the middle of a test.
. "$NOVA_TOP/tests/guest/lib.sh"
t_ok "start" true
echo c > /proc/sysrq-trigger
t_done
