#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The module as a Debian package for the kernel that `make deb` packaged:
# built from the checkout against that kernel's build (same vermagic, same
# Module.symvers), installed under /lib/modules/<release>/updates/ (which
# depmod prefers to the kernel's own tree), with its parameters' defaults in
# /etc/modprobe.d/ and its load at boot in /etc/modules-load.d/
# (docs/boot-order.md says why both).
# Usage: deb-module.sh <project dir> <tree> <kernel build dir> <output dir> [kbuild tools]
# The kbuild tools are the Makefile's KTOOLS (LLVM=-14 BINDGEN=...): the
# kernel's own.
set -euo pipefail

project=$1 tree=$2 kbuild=$3 outdir=$4
shift 4
release=$(cat "$kbuild/include/config/kernel.release")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# An external build of the same sources the in-tree patch carries.
mkdir -p "$work/src"
cp "$project/Kbuild" "$work/"
cp -r "$project/src" "$work/"
make -C "$tree" O="$kbuild" M="$work" "$@" CLIPPY=1 CONFIG_RDMA_TCP_PORT=m modules
ko=$work/src/rdma_tcp_port.ko
version=$(modinfo -F version "$ko")
[ -n "$version" ] || { echo "deb-module: $ko has no version" >&2; exit 1; }

pkg=rdma-tcp-port-modules-$release
root=$work/pkg
install -D -m 0644 "$ko" "$root/lib/modules/$release/updates/rdma_tcp_port.ko"
install -d "$root/etc/modprobe.d" "$root/etc/modules-load.d" "$root/DEBIAN" \
	"$root/usr/share/doc/$pkg"

# The defaults, written out so that an administrator changes them here.
{
	echo "# rdma_tcp_port: RDMA_PS_TCP ports held in the host TCP port space."
	echo "# The module's defaults; see modinfo rdma_tcp_port for each parameter."
	modinfo -F parm "$ko" | sed -n 's/^\([A-Za-z_]*\):.*(default: \([^)]*\)).*/\1 \2/p' |
		while read -r name value; do
			echo "options rdma_tcp_port ${name,,}=$value"
		done
	echo "# Whoever loads rdma_cm first (udev, a service, modprobe) loads the"
	echo "# module right after it, before any id can bind."
	echo "softdep rdma_cm post: rdma_tcp_port"
} >"$root/etc/modprobe.d/rdma_tcp_port.conf"
grep -q '^options rdma_tcp_port reserve=' "$root/etc/modprobe.d/rdma_tcp_port.conf" || {
	echo "deb-module: no defaults found in modinfo" >&2
	exit 1
}
{
	echo "# rdma_tcp_port: loaded by systemd-modules-load.service, before"
	echo "# sysinit.target, so before every service that can bind an RDMA port."
	echo "rdma_tcp_port"
} >"$root/etc/modules-load.d/rdma_tcp_port.conf"
printf '%s\n' /etc/modprobe.d/rdma_tcp_port.conf /etc/modules-load.d/rdma_tcp_port.conf \
	>"$root/DEBIAN/conffiles"
cp "$project/README.md" "$root/usr/share/doc/$pkg/"
gzip -9n "$root/usr/share/doc/$pkg/README.md"
{
	echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
	echo "Files: *"
	echo "License: GPL-2.0"
	echo " On Debian systems, see /usr/share/common-licenses/GPL-2."
} >"$root/usr/share/doc/$pkg/copyright"

# The initramfs holds a copy of modprobe.d (docs/boot-order.md): refresh it.
echo "activate-noawait update-initramfs" >"$root/DEBIAN/triggers"
for script in postinst postrm; do
	cat >"$root/DEBIAN/$script" <<SH
#!/bin/sh
set -e
if [ -d /lib/modules/$release ]; then
	depmod -a $release
fi
SH
	chmod 0755 "$root/DEBIAN/$script"
done

cat >"$root/DEBIAN/control" <<CTL
Package: $pkg
Source: rdma-tcp-port
Version: $version-1
Architecture: $(dpkg --print-architecture)
Maintainer: Seed 1dd1289b maintainers <maintainers@users.noreply.a-seed-1dd1289b.example>
Depends: linux-image-$release
Section: kernel
Priority: optional
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Description: RDMA_PS_TCP ports held in the host TCP port space ($release)
 rdma_tcp_port gives every RDMA_PS_TCP rdma_cm id a real host TCP bind, so
 that RDMA services and TCP services (iperf, nvmet-tcp, ...) cannot take
 the same port on an iWARP host. Loaded at boot from modules-load.d.
CTL

mkdir -p "$outdir"
dpkg-deb --root-owner-group -Zxz --build "$root" "$outdir/${pkg}_$version-1_$(dpkg --print-architecture).deb"
