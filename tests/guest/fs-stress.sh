#!/bin/bash
# Data integrity under load on both vCPUs: fio with crc32c verification
# (psync and mmap engines, aligned and unaligned blocks) and two parallel
# random-operation runs checked against a reference model, then everything
# checked again after umount/mount.
# nova-timeout: 900
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
py=$NOVA_TOP/tests/guest/fs_model.py

fio_run() {	# NAME ARGS...: fio with verification, 2 jobs
	local name=$1 start end
	shift
	start=$(date +%s.%N)
	if fio --name="$name" --directory="$M" --numjobs=2 --size=24M \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --group_reporting \
		--output="/tmp/fio-$name.log" "$@"; then
		end=$(date +%s.%N)
		t_ok "fio $name: written and verified" true
		t_diag "fio $name: $(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f s", e - s }')," \
			"$(grep -m1 -o 'IOPS=[^,]*' "/tmp/fio-$name.log")"
	else
		t_fail "fio $name: written and verified" true
		sed 's/^/# /' "/tmp/fio-$name.log" | tail -n 20
	fi
}

t_ok "format and mount" nova_mount_init
fio_run randwrite-4k --rw=randwrite --bs=4k --ioengine=psync
fio_run randrw-unaligned --rw=randrw --bs=3000 --ioengine=psync
fio_run mmap-randwrite --rw=randwrite --bs=4k --ioengine=mmap
fio_run seq-append-64k --rw=write --bs=64k --ioengine=psync --fsync=16

python3 "$py" run "$M/model1" 1 3000 > /tmp/model1.out 2>&1 &
p1=$!
python3 "$py" run "$M/model2" 2 3000 > /tmp/model2.out 2>&1 &
p2=$!
wait $p1 $p2
t_from_py < /tmp/model1.out
t_from_py < /tmp/model2.out

python3 "$py" names "$M/ns" 11 4000 > /tmp/ns1.out 2>&1 &
p1=$!
python3 "$py" names "$M/ns" 12 4000 > /tmp/ns2.out 2>&1 &
p2=$!
wait $p1 $p2
t_from_py < /tmp/ns1.out
t_from_py < /tmp/ns2.out
t_ok "directory link counts are consistent" python3 -c "
import os
for r, ds, fs in os.walk('$M/ns'):
    assert os.stat(r).st_nlink == 2 + len(ds), (r, os.stat(r).st_nlink, len(ds))
"

t_ok "umount" nova_umount
t_ok "mount again" nova_mount
t_ok "directory link counts survive remount" python3 -c "
import os
for r, ds, fs in os.walk('$M/ns'):
    assert os.stat(r).st_nlink == 2 + len(ds), (r, os.stat(r).st_nlink, len(ds))
"
t_from_py < <(python3 "$py" verify "$M/model1" 1 2>&1)
t_from_py < <(python3 "$py" verify "$M/model2" 2 2>&1)
t_ok "fio files verify after remount" fio --name=randwrite-4k --directory="$M" \
	--numjobs=2 --size=24M --rw=randwrite --bs=4k --verify=crc32c \
	--verify_only --verify_fatal=1 --output=/tmp/fio-reverify.log
t_ok "umount" nova_umount
t_done
