#!/bin/bash
# read(2) across the page index: with protection off, the pages one write
# entry maps are copied with one call (nova_file_block_run() in
# module/file.c); with protection, a page at a time through the verified
# path. Both must return exactly what was written, wherever entries,
# index leaves, holes and the end of file fall (tests/guest/read_runs.py),
# before and after a remount rebuilds the index from the log.
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
R=$NOVA_TOP/tests/guest/read_runs.py

for opts in protection=off ""; do
	what=${opts:-default protection}
	t_ok "$what: format and mount" nova_mount_init "$opts"
	t_ok "$what: lay out entries, a hole, a short tail" python3 "$R" build "$M/f"
	t_ok "$what: reads match the model" python3 "$R" check "$M/f"
	t_ok "$what: umount" nova_umount
	t_ok "$what: mount" nova_mount "$opts"
	t_ok "$what: reads match after the index is rebuilt" python3 "$R" check "$M/f"
	t_ok "$what: umount" nova_umount
done
t_done
