#!/usr/bin/env bash
# Install everything the build, the tests and the VM need on a Debian 12 host.
# Idempotent: a second run only checks, and says what it installs and why.
#
# The 6.12 build's tools are pinned, and the Makefile names them: clang, lld
# and llvm of one version, whose libclang bindgen loads, and one bindgen in a
# place of the project's own. A bindgen or a newer clang elsewhere on the
# machine is never used.
# Usage: setup-host.sh <llvm version> <bindgen version> <bindgen root>
set -euo pipefail

LLVM_VERSION=$1 BINDGEN_VERSION=$2 BINDGEN_ROOT=$3
VNG_VERSION=1.42

APT_PACKAGES=(
	linux-source-6.12
	build-essential bc bison flex cpio kmod rsync xz-utils
	dpkg-dev debhelper mmdebstrap
	libelf-dev libssl-dev
	"clang-$LLVM_VERSION" "lld-$LLVM_VERSION" "llvm-$LLVM_VERSION" "libclang-$LLVM_VERSION-dev"
	python3 python3-pip
	# make doc-check parses the module's Documentation/ page
	python3-docutils
	qemu-system-x86
	iproute2 rdma-core rdmacm-utils ibverbs-utils perftest iperf nvme-cli linux-perf
	# newuidmap and newgidmap: the limit suite maps subordinate uids
	uidmap
	librdmacm-dev
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
	echo "setup-host: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

rustup component list --installed | grep -q '^rust-src' || {
	echo "setup-host: installing rustup's rust-src"
	rustup component add rust-src
}

# bindgen-cli loads libclang at run time (LIBCLANG_PATH, set by the
# Makefile), so building it needs no libclang; --locked pins its crates.
bindgen=$BINDGEN_ROOT/bin/bindgen
have=$("$bindgen" --version 2>/dev/null || true)
if [ "$have" != "bindgen $BINDGEN_VERSION" ]; then
	echo "setup-host: installing bindgen $BINDGEN_VERSION in $BINDGEN_ROOT (found: ${have:-none})"
	cargo install --quiet --locked --force --root "$BINDGEN_ROOT" bindgen-cli --version "$BINDGEN_VERSION"
fi

have=$(vng --version 2>/dev/null || true)
if [ "${have##* }" != "$VNG_VERSION" ]; then
	echo "setup-host: installing virtme-ng $VNG_VERSION (found: ${have:-none})"
	pip install --quiet "virtme-ng==$VNG_VERSION"
fi

echo "setup-host: clang/lld/llvm $LLVM_VERSION, bindgen $BINDGEN_VERSION ($bindgen), virtme-ng $VNG_VERSION"
