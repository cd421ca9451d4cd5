#!/usr/bin/env bash
# A KUnit run passes only if the kernel said nothing alarming meanwhile:
# lockdep, KASAN, a WARN or BUG, or a Rust panic fail it even when every
# test case passed. Usage: check-kunit-log.sh <kernel log>
#
# One warning is the test's own: join_other_namespace (suite
# rdma_tcp_port_ports, kunit/ports_test.c) announces it ("a WARNING from
# iw_cm_may_join_port() follows") and the suite must then produce it, once,
# from iw_cm_may_join_port(); that report is set aside, and its absence
# fails the run as any other report would.
set -euo pipefail
log=$1
[ -s "$log" ] || { echo "check-kunit-log: no log at $log" >&2; exit 1; }
announce='a WARNING from iw_cm_may_join_port() follows'
rest=$(mktemp)
trap 'rm -f "$rest"' EXIT
# Everything but the announced report, from its "cut here" to its end.
awk -v announce="$announce" -v rest="$rest" '
	index($0, announce) { expect++ }
	/------------\[ cut here \]------------/ && expect > seen && !inblock {
		inblock = 1; block = $0 "\n"; next
	}
	inblock {
		block = block $0 "\n"
		if ($0 ~ /---\[ end trace/) {
			inblock = 0
			if (block ~ /WARNING: .* iw_cm_may_join_port\+/) seen++
			else printf "%s", block > rest
		}
		next
	}
	{ print > rest }
	END {
		if (inblock) printf "%s", block > rest
		if (expect != seen) {
			printf "check-kunit-log: %d announced warning(s) from iw_cm_may_join_port(), %d seen\n", expect, seen > "/dev/stderr"
			exit 1
		}
	}' "$log"
pattern='WARNING: (possible|inconsistent|suspicious)|BUG: |kmemleak: [0-9]+ new suspected|------------\[ cut here \]|Kernel panic|rust_panic|UBSAN'
if grep -Ea "$pattern" "$rest"; then
	echo "check-kunit-log: the kernel reported the problems above" >&2
	exit 1
fi
echo "check-kunit-log: no lockdep, KASAN, WARN or BUG report in $log"
