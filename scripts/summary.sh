#!/usr/bin/env bash
# One closing line for CI: the KUnit totals of every architecture run (the
# sum of every suite's) and the VM suites' counts.
# Usage: summary.sh <kunit test.log>... <vm-test.log>
set -euo pipefail
pass=0 fail=0
for log in "$@"; do
	# KUnit prints totals per suite: their sum is the run's.
	if grep -a -q '# Totals: pass:' "$log"; then
		read -r p f < <(sed -nE 's/.*# Totals: pass:([0-9]+) fail:([0-9]+).*/\1 \2/p' "$log" |
			awk '{ p += $1; f += $2 } END { print p, f }')
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
