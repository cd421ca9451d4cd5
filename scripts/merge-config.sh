#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Print BASE with each OVERLAY laid on top, for olddefconfig.  An overlay's
# "CONFIG_X=..." line replaces every earlier line for CONFIG_X; its
# "# CONFIG_X is not set" line replaces every earlier line whose symbol
# starts with CONFIG_X (CONFIG_KASAN: CONFIG_KASAN_GENERIC too), so that
# turning an option off also drops what only it enabled.
# Usage: merge-config.sh BASE [OVERLAY...]
set -euo pipefail
merged=$(cat "$1")
shift
for overlay in "$@"; do
	merged=$(awk '
		NR == FNR {
			if (match($0, /^CONFIG_[A-Za-z0-9_]+=/))
				exact[substr($0, 1, RLENGTH - 1)] = 1
			else if (match($0, /^# CONFIG_[A-Za-z0-9_]+ is not set$/))
				prefix[substr($0, 3, RLENGTH - 14)] = 1
			next
		}
		{
			sym = ""
			if (match($0, /^CONFIG_[A-Za-z0-9_]+=/))
				sym = substr($0, 1, RLENGTH - 1)
			else if (match($0, /^# CONFIG_[A-Za-z0-9_]+ is not set$/))
				sym = substr($0, 3, RLENGTH - 14)
			if (sym != "") {
				if (sym in exact)
					next
				for (p in prefix)
					if (index(sym, p) == 1)
						next
			}
			print
		}' "$overlay" <(printf '%s\n' "$merged"))
	merged=$(printf '%s\n%s' "$merged" "$(cat "$overlay")")
done
printf '%s\n' "$merged"
