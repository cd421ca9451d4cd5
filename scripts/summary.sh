#!/usr/bin/env bash
# One closing line for CI: the KUnit totals of every architecture run and
# the VM suite's count. Usage: summary.sh <kunit test.log>... <vm-test.log>
set -euo pipefail
pass=0 fail=0
for log in "$@"; do
	if line=$(grep -a -m1 '# Totals: pass:' "$log"); then
		p=$(sed -E 's/.*pass:([0-9]+).*/\1/' <<<"$line")
		f=$(sed -E 's/.*fail:([0-9]+).*/\1/' <<<"$line")
	elif line=$(grep -a -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1); then
		p=$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")
		f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
	else
		echo "summary: no totals in $log" >&2
		exit 1
	fi
	echo "summary: $log: $p passed, $f failed"
	pass=$((pass + p)) fail=$((fail + f))
done
echo "check: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
