#!/bin/bash
# Harness self-check: a test that never finishes is stopped by its timeout.
# nova-timeout: 5
. "$NOVA_TOP/tests/guest/lib.sh"
t_ok "start" true
sleep 1000
t_done
