#!/bin/bash
# Harness self-check: a test with one deliberately failing check.
. "$NOVA_TOP/tests/guest/lib.sh"
t_ok "true succeeds" true
t_is "selfcheck-deliberate-failure" "apples" "oranges"
t_done
