#!/usr/bin/env bash
# Fail if olddefconfig dropped a symbol the fragment asks for (a missing
# dependency would otherwise go unnoticed until something fails to load).
# Usage: check-config.sh <fragment> <.config>
set -euo pipefail
bad=0
while IFS= read -r line; do
	case "$line" in CONFIG_*=*) ;; *) continue ;; esac
	grep -qxF "$line" "$2" || { echo "check-config: $line did not survive olddefconfig" >&2; bad=1; }
done < "$1"
exit $bad
