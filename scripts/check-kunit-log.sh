#!/usr/bin/env bash
# A KUnit run passes only if the kernel said nothing alarming meanwhile:
# lockdep, KASAN, a WARN or BUG, or a Rust panic fail it even when every
# test case passed. Usage: check-kunit-log.sh <kernel log>
set -euo pipefail
log=$1
[ -s "$log" ] || { echo "check-kunit-log: no log at $log" >&2; exit 1; }
pattern='WARNING: (possible|inconsistent|suspicious)|BUG: |kmemleak: [0-9]+ new suspected|------------\[ cut here \]|Kernel panic|rust_panic|UBSAN'
if grep -Ea "$pattern" "$log"; then
	echo "check-kunit-log: the kernel reported the problems above" >&2
	exit 1
fi
echo "check-kunit-log: no lockdep, KASAN, WARN or BUG report in $log"
