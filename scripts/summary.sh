#!/usr/bin/env bash
# One closing line for CI: the KUnit totals of every architecture run.
# Usage: summary.sh <kunit test.log>...
set -euo pipefail
pass=0 fail=0
for log in "$@"; do
	line=$(grep -a -m1 '# Totals: pass:' "$log") || { echo "summary: no totals in $log" >&2; exit 1; }
	p=$(sed -E 's/.*pass:([0-9]+).*/\1/' <<<"$line")
	f=$(sed -E 's/.*fail:([0-9]+).*/\1/' <<<"$line")
	pass=$((pass + p)) fail=$((fail + f))
done
echo "check: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
