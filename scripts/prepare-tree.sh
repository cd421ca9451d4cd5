#!/usr/bin/env bash
# Lay out the patched Linux 6.12 tree that every build uses:
#   1. extract Debian's linux-source-6.12 once per package version,
#   2. (re)apply patches/series when it changed: the patches after the
#      first one that changed are reverted and applied again, so that make
#      rebuilds only what the change touches,
#   3. the last patch carries this project's module into
#      drivers/infiniband/rdma_tcp_port (scripts/series.sh makes it), which
#      CONFIG_RDMA_TCP_PORT builds.
# <series>: another list of patches to apply (make qp-control leaves the
# first two out, make bench adds its own after the last): a name is one of
# patches/, an absolute path any other; the next run without it applies
# patches/series again.
# Usage: prepare-tree.sh <project dir> <tree dir> <tarball> [<series>]
set -euo pipefail

project=$1 tree=$2 tarball=$3
series=${4:-$project/patches/series}
applied="$tree/.rdma-tcp-port-applied"
# A series entry's file, and the copy of it that the tree records.
patch_of() { case $1 in /*) echo "$1" ;; *) echo "$project/patches/$1" ;; esac; }
copy_of() { echo "$applied/${1##*/}"; }

if [ ! -f "$tree/Makefile" ]; then
	echo "prepare-tree: extracting $tarball"
	tmp="$tree.tmp"
	rm -rf "$tmp" && mkdir -p "$tmp"
	tar -xf "$tarball" -C "$tmp" --strip-components=1
	mv "$tmp" "$tree"
fi

# Trees prepared before the module was in the series linked the checkout
# in and added a line to drivers/infiniband/Makefile: undo both.
legacy="$tree/drivers/infiniband/rdma_tcp_port"
if [ -L "$legacy" ]; then
	rm "$legacy"
	sed -i '/^obj-$(RDMA_TCP_PORT_IN_TREE) += rdma_tcp_port\/$/d' \
		"$tree/drivers/infiniband/Makefile"
fi

want=$(cd "$project/patches" && cat $(grep -v '^#' "$series") | sha256sum | cut -d' ' -f1)
have=$(cat "$applied/id" 2>/dev/null || true)
if [ "$want" != "$have" ]; then
	# Keep the longest prefix of the applied series that is unchanged, so
	# that files only the earlier patches touch keep their mtimes.
	mapfile -t new < <(grep -v '^#' "$series")
	old=()
	[ -f "$applied/series" ] && mapfile -t old < "$applied/series"
	keep=0
	# A patch inserted before them renumbers the later ones' subjects
	# ([PATCH 10/15]); that alone does not change a patch.
	same() { cmp -s <(sed '/^Subject: \[PATCH [0-9]*\/[0-9]*\]/d' "$1") \
		<(sed '/^Subject: \[PATCH [0-9]*\/[0-9]*\]/d' "$2"); }
	while [ $keep -lt ${#old[@]} ] && [ $keep -lt ${#new[@]} ] &&
	      same "$(copy_of "${old[$keep]}")" "$(patch_of "${new[$keep]}")"; do
		keep=$((keep + 1))
	done
	# Every file the reverted and reapplied patches touch is saved first,
	# with its mtime: one that comes out with the same bytes gets its
	# mtime back, so that a patch inserted early in the series rebuilds
	# what it changes, not what every later patch touches.
	saved="$tree/.rdma-tcp-port-saved"
	rm -rf "$saved" && mkdir -p "$saved"
	touched=$( (for ((i = keep; i < ${#old[@]}; i++)); do
			sed -n 's|^+++ b/||p' "$(copy_of "${old[$i]}")"; done
		for ((i = keep; i < ${#new[@]}; i++)); do
			sed -n 's|^+++ b/||p' "$(patch_of "${new[$i]}")"; done) |
		sort -u)
	for f in $touched; do
		[ -f "$tree/$f" ] && (cd "$tree" && cp -p --parents "$f" "$saved/")
	done
	for ((i = ${#old[@]} - 1; i >= keep; i--)); do
		echo "prepare-tree: reverting ${old[$i]##*/}"
		patch -d "$tree" -p1 -R -s -N < "$(copy_of "${old[$i]}")"
	done
	rm -rf "$applied.new" && mkdir -p "$applied.new"
	for ((i = 0; i < keep; i++)); do
		cp "$(copy_of "${old[$i]}")" "$applied.new/${new[$i]##*/}"
	done
	rm -rf "$applied"
	for ((i = keep; i < ${#new[@]}; i++)); do
		echo "prepare-tree: applying ${new[$i]##*/}"
		patch -d "$tree" -p1 -s -N < "$(patch_of "${new[$i]}")"
		cp "$(patch_of "${new[$i]}")" "$applied.new/"
	done
	kept=0
	for f in $touched; do
		if [ -f "$saved/$f" ] && cmp -s "$saved/$f" "$tree/$f"; then
			touch -r "$saved/$f" "$tree/$f"
			kept=$((kept + 1))
		fi
	done
	rm -rf "$saved"
	echo "prepare-tree: $kept of $(echo "$touched" | grep -c .) files touched came out unchanged; their mtimes kept"
	printf '%s\n' "${new[@]}" > "$applied.new/series"
	echo "$want" > "$applied.new/id"
	mv "$applied.new" "$applied"
fi

echo "prepare-tree: $tree ($(make -s -C "$tree" kernelversion))"
