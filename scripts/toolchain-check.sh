#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Fail early, before any kernel is built, unless the tools the Makefile pins
# agree: kbuild's own check (make rustavailable, scripts/rust_is_available.sh)
# run with exactly those tools, its warnings taken as errors (a libclang that
# is not the compiler's clang, a bindgen/libclang pair with known bugs), and
# bindgen at the pinned version. A second clang or bindgen on the machine
# then cannot change what the build uses unnoticed.
# Usage: toolchain-check.sh <tree> <scratch build dir> <bindgen version> <kbuild tools...>
# The kbuild tools are the Makefile's KTOOLS (LLVM=-14 BINDGEN=...);
# LIBCLANG_PATH comes from the environment.
set -euo pipefail

tree=$1 out=$2 want=$3
shift 3
bindgen=bindgen llvm=
for a in "$@"; do
	case $a in
	BINDGEN=*) bindgen=${a#BINDGEN=} ;;
	LLVM=-*) llvm=${a#LLVM=} ;;
	esac
done
cc=clang$llvm

failed=0
mkdir -p "$out"
if ! log=$(make -s -C "$tree" O="$out" "$@" rustavailable 2>&1); then
	failed=1
elif grep -q '^\*\*\*' <<<"$log"; then
	failed=1
fi
[ "$failed" = 0 ] || echo "$log" >&2

have=$("$bindgen" --version 2>/dev/null || true)
if [ "$have" != "bindgen $want" ]; then
	echo "toolchain-check: '$bindgen' is '${have:-not found}', not bindgen $want" >&2
	failed=1
fi

# What bindgen's libclang says of itself, as rust_is_available.sh asks it.
libclang=$("$bindgen" "$tree/scripts/rust_is_available_bindgen_libclang.h" 2>&1 >/dev/null |
	sed -nE 's:.*clang version ([0-9]+\.[0-9]+\.[0-9]+).*:\1:p' || true)
clang=$("$cc" --version 2>/dev/null | sed -nE '1s:.*version ([0-9]+\.[0-9]+\.[0-9]+).*:\1:p' || true)
tools="clang ${clang:-?} ($cc), libclang ${libclang:-?} (LIBCLANG_PATH=${LIBCLANG_PATH:-unset}), ${have:-no bindgen} ($bindgen)"
if [ "$failed" != 0 ]; then
	echo "toolchain-check: FAILED: $tools" >&2
	echo "toolchain-check: make setup installs the pinned tools; the Makefile passes them (README, \"Toolchain\")" >&2
	exit 1
fi
echo "toolchain-check: $tools, $(rustc --version | cut -d' ' -f1-2)"
