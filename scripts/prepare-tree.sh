#!/usr/bin/env bash
# Lay out the patched Linux 6.12 tree that every build uses:
#   1. extract Debian's linux-source-6.12 once per package version,
#   2. (re)apply patches/series when it changed, reverting the old series
#      first so that make rebuilds only what the change touches,
#   3. link this project into drivers/infiniband/rdma_tcp_port, built into
#      the kernel only when make is given RDMA_TCP_PORT_IN_TREE=y (KUnit).
# Usage: prepare-tree.sh <project dir> <tree dir> <tarball>
set -euo pipefail

project=$1 tree=$2 tarball=$3
series="$project/patches/series"
applied="$tree/.rdma-tcp-port-applied"

if [ ! -f "$tree/Makefile" ]; then
	echo "prepare-tree: extracting $tarball"
	tmp="$tree.tmp"
	rm -rf "$tmp" && mkdir -p "$tmp"
	tar -xf "$tarball" -C "$tmp" --strip-components=1
	mv "$tmp" "$tree"
fi

want=$(cd "$project/patches" && cat $(grep -v '^#' series) | sha256sum | cut -d' ' -f1)
have=$(cat "$applied/id" 2>/dev/null || true)
if [ "$want" != "$have" ]; then
	if [ -d "$applied" ]; then
		echo "prepare-tree: reverting the previously applied series"
		for p in $(tac "$applied/series"); do
			patch -d "$tree" -p1 -R -s -N < "$applied/$p"
		done
		rm -rf "$applied"
	fi
	mkdir -p "$applied.new"
	for p in $(grep -v '^#' "$series"); do
		echo "prepare-tree: applying $p"
		patch -d "$tree" -p1 -s -N < "$project/patches/$p"
		cp "$project/patches/$p" "$applied.new/"
	done
	grep -v '^#' "$series" > "$applied.new/series"
	echo "$want" > "$applied.new/id"
	mv "$applied.new" "$applied"
fi

link="$tree/drivers/infiniband/rdma_tcp_port"
[ "$(readlink "$link" 2>/dev/null)" = "$project" ] || ln -sfn "$project" "$link"
mk="$tree/drivers/infiniband/Makefile"
hook='obj-$(RDMA_TCP_PORT_IN_TREE) += rdma_tcp_port/'
grep -qxF "$hook" "$mk" || printf '%s\n' "$hook" >> "$mk"
echo "prepare-tree: $tree ($(make -s -C "$tree" kernelversion))"
