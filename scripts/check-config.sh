#!/usr/bin/env bash
# Fail if olddefconfig dropped a symbol the fragment asks for (a missing
# dependency would otherwise go unnoticed until something fails to load),
# or turned on one that it asks to leave off.
# Usage: check-config.sh <fragment> <.config>
set -euo pipefail
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		grep -qxF "$line" "$2" && continue
		echo "check-config: $line did not survive olddefconfig" >&2
		bad=1
		;;
	"# CONFIG_"*" is not set")
		sym=${line#"# "}
		sym=${sym%" is not set"}
		grep -q "^$sym=" "$2" || continue
		echo "check-config: $sym is on, the fragment asks for it off" >&2
		bad=1
		;;
	esac
done < "$1"
exit $bad
