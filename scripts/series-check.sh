#!/usr/bin/env bash
# Whether the checkout, as `git add -A` would commit it, carries in patches/
# the series that its own src/, kunit/ and C patches make: the
# snapshot goes through a temporary index (the real one is left alone) to a
# copy, where series.sh makes the series again; any difference fails.
# Usage: series-check.sh <project dir> <linux-source tarball>
set -euo pipefail

project=$(cd "$1" && pwd) tarball=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cd "$project"
index=$(git rev-parse --git-path index)
if [[ -f $index ]]; then
	cp "$index" "$work/index"
fi
GIT_INDEX_FILE=$work/index git add -A
tree=$(GIT_INDEX_FILE=$work/index git write-tree)
mkdir "$work/copy"
git archive "$tree" | tar -x -C "$work/copy"
cp -r "$work/copy/patches" "$work/carried"
bash "$work/copy/scripts/series.sh" "$work/copy" "$tarball"
if ! diff -ru "$work/carried" "$work/copy/patches" > "$work/diff"; then
	echo "series-check: patches/ is not the series this checkout makes" \
		"(make series makes it):" >&2
	diff -rq "$work/carried" "$work/copy/patches" | sed "s|$work/||g" >&2 || true
	grep '^[-+][^-+]' "$work/diff" | head -20 >&2
	exit 1
fi
echo "series-check: patches/ is the series this checkout makes ($(grep -vc '^#' patches/series) patches)"
