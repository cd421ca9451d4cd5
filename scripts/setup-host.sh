#!/usr/bin/env bash
# Install everything the build, the tests and the VM need on a Debian 12 host.
# Idempotent: a second run only checks.
set -euo pipefail

APT_PACKAGES=(
	linux-source-6.12
	build-essential bc bison flex cpio kmod rsync xz-utils
	dpkg-dev debhelper mmdebstrap
	libelf-dev libssl-dev libclang-dev
	clang lld llvm
	python3 python3-pip
	qemu-system-x86
	iproute2 rdma-core rdmacm-utils ibverbs-utils perftest iperf nvme-cli linux-perf
	librdmacm-dev
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

rustup component list --installed | grep -q '^rust-src' || rustup component add rust-src

if ! command -v bindgen >/dev/null 2>&1; then
	cargo install bindgen-cli --version 0.69.5 --locked
fi

if ! command -v vng >/dev/null 2>&1; then
	pip install --quiet virtme-ng==1.42
fi

echo "setup-host: done"
