#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The functions the C series (patches 1-25, not the module's) adds, one
# name per line: the lines a patch adds that open a function definition
# ("+static int name(...", no ";" at the end).  The fault suite counts a
# failure point whose stack runs through one of them as the series' own.
# Usage: series-functions.sh <patches dir>
set -euo pipefail
dir=$1
mapfile -t c_patches < <(grep -l '^+++ b/.*\.[ch]$' "$dir"/0*.patch |
	xargs grep -L '^+++ b/drivers/infiniband/rdma_tcp_port/')
awk '
/^\+\+\+ / { next }
/^\+[A-Za-z_]/ && /\(/ && !/;[[:space:]]*$/ && !/^\+#/ {
	line = substr($0, 2)
	sub(/\(.*/, "", line)
	n = split(line, w, /[ \t*]+/)
	if (w[n] ~ /^[a-z_][a-z0-9_]*$/ && w[n] !~ /^(if|for|while|switch|return|sizeof)$/)
		print w[n]
}' "${c_patches[@]}" | sort -u
