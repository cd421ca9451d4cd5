#!/usr/bin/env bash
# The benchmark's own patch, which only make bench's KUnit kernel gets: it
# adds bench/ of the checkout as drivers/infiniband/rdma_tcp_port/bench/
# (CONFIG_RDMA_TCP_PORT_BENCH) on top of the series, whose last patch
# carries the module's Kconfig and Kbuild as they are in the checkout.
# Nothing of it goes upstream: the series carries no benchmark code.
# Dates are fixed, so the same inputs give the same bytes.
# Usage: bench-patch.sh <project dir> <output patch>
set -euo pipefail

project=$(cd "$1" && pwd) out=$2
when='2026-12-04T12:00:00+0000'
export GIT_AUTHOR_NAME='Seed 1dd1289b maintainers' GIT_COMMITTER_NAME='Seed 1dd1289b maintainers'
export GIT_AUTHOR_EMAIL='maintainers@users.noreply.a-seed-1dd1289b.example'
export GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE=$when GIT_COMMITTER_DATE=$when

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
d=drivers/infiniband/rdma_tcp_port
mkdir -p "$work/$d"
cd "$work"
git init -q
cp "$project/Kconfig" "$project/Kbuild" $d/
git add -A
git commit -q -m base
mkdir $d/bench
cp "$project/bench/Kconfig" "$project/bench/Kbuild" "$project"/bench/*.[ch] $d/bench/
printf '\nsource "%s/bench/Kconfig"\n' $d >> $d/Kconfig
echo 'obj-$(CONFIG_RDMA_TCP_PORT_BENCH) += bench/' >> $d/Kbuild
git add -A
git commit -q -F - <<'MSG'
rdma_tcp_port: Add the benchmark suite (make bench only)

Not for upstream: make bench applies this on top of the series in the
benchmark kernel's tree only.  It adds the KUnit-hosted benchmark
(CONFIG_RDMA_TCP_PORT_BENCH) with its two C providers, the RFC's approach
(seed_provider.c) and the module's work in C (twin_provider.c).

Signed-off-by: Seed 1dd1289b maintainers <maintainers@users.noreply.a-seed-1dd1289b.example>
MSG
mkdir -p "$(dirname "$out")"
git -c core.abbrev=7 format-patch -q -1 --stdout --signature=2.47.3 > "$out.tmp"
mv "$out.tmp" "$out"
