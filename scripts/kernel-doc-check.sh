#!/usr/bin/env bash
# For every C file and header the series touches: scripts/kernel-doc -Wall
# on the patched tree must print nothing.  The unpatched file's count (from
# the tarball) is printed beside it, for the record.
# Usage: kernel-doc-check.sh <project dir> <tree dir> <tarball>
set -euo pipefail

project=$1 tree=$2 tarball=$3
base=$(mktemp -d)
trap 'rm -rf "$base"' EXIT
mapfile -t files < <(cd "$project/patches" && sed -n 's|^+++ b/||p' \
	$(grep -v '^#' series) | grep '\.[ch]$' | sort -u)
# One pass over the tarball; files the series adds are simply not there.
tar -xf "$tarball" -C "$base" --strip-components=1 --ignore-failed-read \
	"${files[@]/#/linux-source-6.12/}" 2>/dev/null || true
fail=0
for f in "${files[@]}"; do
	after=$("$tree/scripts/kernel-doc" -Wall -none "$tree/$f" 2>&1 | wc -l)
	before=0	# a file the series adds
	if [ -f "$base/$f" ]; then
		before=$("$tree/scripts/kernel-doc" -Wall -none "$base/$f" 2>&1 | wc -l)
	fi
	echo "kernel-doc: $f: $before before, $after after"
	if [ "$after" -ne 0 ]; then
		"$tree/scripts/kernel-doc" -Wall -none "$tree/$f"
		fail=1
	fi
done
exit $fail
