# shellcheck shell=bash
# Helpers for the data-protection tests (sourced after lib.sh, bash; they
# use $M, the mount point, when called).
#
#   media ARGS...          tests/guest/protect-media.py (reads/damages the
#                          device directly)
#   inject ARGS...         novactl debug inject ARGS... $M (nova.inject=1)
#   ino NAME               inode number of $M/NAME
#   sj DOC FIELD           FIELD of the "scrub" object of JSON document DOC
#   has_bad DOC INO KIND REPAIRED(True|False)
#                          the scrub status DOC lists that finding

media() { python3 "$NOVA_TOP/tests/guest/protect-media.py" "$@"; }
inject() { novactl debug inject "$@" "$M" > /dev/null; }
ino() { stat -c %i "$M/$1"; }
sj() {
	python3 -c "import json, sys; print(json.loads(sys.argv[1])['scrub']['$2'])" "$1"
}
has_bad() {
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])["scrub"]["bad"]
want = (int(sys.argv[2]), sys.argv[3], sys.argv[4] == "True")
sys.exit(0 if any((b["inode"], b["kind"], b["repaired"]) == want for b in d) else 1)
' "$@"
}
