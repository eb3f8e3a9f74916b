#!/bin/bash
# The demo, run inside the guest by 'make demo'. Every step is a real
# command; the first one that fails ends the demo with its status.
set -euo pipefail
step() { printf '\n### %s\n' "$*"; }

step "kernel and NVDIMM"
uname -r
ndctl list -N | grep -E '"(dev|mode|size|blockdev)"'
step "nova.ko is loaded and registers file system type NOVA"
lsmod | grep '^nova '
grep -w NOVA /proc/filesystems
dmesg | grep 'nova:' | tail -n 3
