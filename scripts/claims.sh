#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The claims of the VM tests (e2e/lib.sh: claim, same) in the last run with
# the module and in the control run without it (make vm-test CONTROL=1),
# side by side, as a Markdown table.  A claim must hold with the module
# and fail without it; a "same" check must hold in both.  Fails if one
# does not, if a check is missing from a run, or if a control run failed.
# Usage: claims.sh <cache dir> (its vm-test.log, vm-suites.log and their
# -control.log).
set -euo pipefail
dir=$1
logs=("$dir/vm-test.log" "$dir/vm-suites.log")
ctl=("$dir/vm-test-control.log" "$dir/vm-suites-control.log")
status=0
for log in "${logs[@]}" "${ctl[@]}"; do
	[ -f "$log" ] || { echo "claims: no $log" >&2; exit 1; }
done
for log in "${ctl[@]}"; do
	grep -aqE '^[0-9]+ passed, 0 failed' "$log" ||
		{ echo "claims: the control run $log failed" >&2; status=1; }
done
# claim_lines LOG...: its lines "@claim<TAB>kind<TAB>name<TAB>answer<TAB>yes|no".
claim_lines() { grep -ah $'^@claim\t' "$@" | tr -d '\r'; }
echo "| check | kind | with the module | without (control) | verdict |"
echo "| --- | --- | --- | --- | --- |"
# The control's lines first, then the run with the module's, in its order.
awk -F'\t' '
	FNR == NR { wo[$3] = $4; woh[$3] = $5; next }
	{
		name = $3; seen[name] = 1
		if (!(name in wo)) { v = "missing in the control run"; bad = 1 }
		else if ($2 == "claim" && $5 == "yes" && woh[name] == "no") v = "claim: fails without"
		else if ($2 == "same" && $5 == "yes" && woh[name] == "yes") v = "same in both"
		else { v = "WRONG (holds: " $5 " with, " woh[name] " without)"; bad = 1 }
		printf "| %s | %s | %s | %s | %s |\n", name, $2, $4, (name in wo) ? wo[name] : "-", v
	}
	END {
		for (n in wo) if (!(n in seen)) { printf "| %s | - | - | %s | missing in the run with the module |\n", n, wo[n]; bad = 1 }
		exit bad
	}' <(claim_lines "${ctl[@]}") <(claim_lines "${logs[@]}") || status=1
exit $status
