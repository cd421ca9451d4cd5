#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make deb-vm-test: install the packages of make deb into a scratch Debian 12
# root, as apt would on a host (dpkg -i, maintainer scripts, depmod), boot
# the kernel they installed with that root (9p, systemd as init, no
# virtme-ng: its own init would skip systemd-modules-load), and let a
# oneshot unit run e2e/deb-guest.sh.  The scratch root's base is made once
# with mmdebstrap and kept as a tarball next to the packages.
# Usage: deb-boot.sh <project dir> <work dir> <directory of the .debs>
set -euo pipefail
project=$1 work=$2 debs=$3
# The packages the scratch root starts from: systemd and udev to boot,
# rdma-core and its tools, iperf for the seed's scenario; and, beside
# Debian 12's iproute2 6.1, the ss of bookworm-backports' iproute2, which
# asks for bound-inactive sockets (-B), unpacked in /opt/iproute2-bpo.
include=systemd,systemd-sysv,udev,kmod,iproute2,rdma-core,ibverbs-providers,rdmacm-utils
include=$include,ibverbs-utils,iperf,procps
bpo='cd /tmp && apt-get download -q -t bookworm-backports iproute2 &&
	dpkg-deb -x iproute2_*.deb /opt/iproute2-bpo && rm iproute2_*.deb'
mirror=http://deb.debian.org/debian
base=$work/root-base.tar
if [ ! -f "$base" ] || [ "$(cat "$base.include" 2>/dev/null)" != "$include $bpo" ]; then
	mmdebstrap --variant=minbase --format=tar --include="$include" \
		--customize-hook="chroot \"\$1\" sh -c '$bpo'" \
		bookworm "$base.tmp" "deb $mirror bookworm main" "deb $mirror bookworm-backports main"
	mv "$base.tmp" "$base"
	echo "$include $bpo" >"$base.include"
fi

root=$work/root
rm -rf "$root"
mkdir -p "$root"
tar -xf "$base" -C "$root"
mkdir -p "$root/tmp/debs"
cp "$debs"/linux-image-*.deb "$debs"/rdma-tcp-port-modules-*.deb "$root/tmp/debs/"
chroot "$root" sh -c 'dpkg -i /tmp/debs/linux-image-*.deb && dpkg -i /tmp/debs/rdma-tcp-port-modules-*.deb'
chroot "$root" dpkg -l 'linux-image-*' 'rdma-tcp-port-modules-*' | grep '^ii'
release=$(cd "$root/lib/modules" && ls -d -- */updates/rdma_tcp_port.ko | cut -d/ -f1)
echo "deb-boot: installed kernel $release"

# The test, which is not part of the packages.  An administrator's change
# to the conffile, to show that the boot's load reads /etc/modprobe.d.
dir=$root/opt/rdma-tcp-port-test
mkdir -p "$dir"
cp "$project/e2e/lib.sh" "$project/e2e/deb-guest.sh" "$project/out/rdma_hold" "$dir/"
echo "$release" >"$dir/release"
echo 7 >"$dir/user_share"
sed -i 's/^options rdma_tcp_port user_share=.*/options rdma_tcp_port user_share=7/' \
	"$root/etc/modprobe.d/rdma_tcp_port.conf"
grep -q 'user_share=7' "$root/etc/modprobe.d/rdma_tcp_port.conf"
cat >"$root/etc/systemd/system/rdma-tcp-port-check.service" <<'UNIT'
[Unit]
Description=rdma_tcp_port: check the installed packages (make deb-vm-test)
After=multi-user.target
SuccessAction=poweroff-force
FailureAction=poweroff-force

[Service]
Type=oneshot
ExecStart=/bin/bash /opt/rdma-tcp-port-test/deb-guest.sh
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
UNIT
chroot "$root" systemctl enable rdma-tcp-port-check.service
# No login prompt on the console the test writes to.
chroot "$root" systemctl mask serial-getty@ttyS0.service getty@tty1.service
echo "deb-vm-test" >"$root/etc/hostname"
# systemd-modules-load runs before journald: its log datagrams can be
# dropped from the socket's short queue. On stderr, a stream that journald
# reads once it starts, its "Inserted module" line is kept.
mkdir -p "$root/etc/systemd/system/systemd-modules-load.service.d"
printf '[Service]\nEnvironment=SYSTEMD_LOG_TARGET=console\nStandardError=journal+console\n' \
	>"$root/etc/systemd/system/systemd-modules-load.service.d/log.conf"
# journald cannot keep a persistent journal on the 9p root.
mkdir -p "$root/etc/systemd/journald.conf.d"
printf '[Journal]\nStorage=volatile\n' >"$root/etc/systemd/journald.conf.d/volatile.conf"

start=$(date +%s)
timeout "${VM_TIMEOUT:-1200}" qemu-system-x86_64 -accel tcg,thread=multi -smp 2 -m 2048 \
	-nographic -no-reboot \
	-kernel "$root/boot/vmlinuz-$release" \
	-append "root=rootfs rootfstype=9p rootflags=trans=virtio,version=9p2000.L,msize=262144 rw console=ttyS0 init=/lib/systemd/systemd no5lvl panic=-1" \
	-fsdev local,id=rootfs,path="$root",security_model=passthrough,multidevs=remap \
	-device virtio-9p-pci,fsdev=rootfs,mount_tag=rootfs -nic none </dev/null || true
echo "deb-boot: the guest ran for $(($(date +%s) - start)) s"
result=$(cat "$dir/result" 2>/dev/null || echo "no result")
echo "deb-boot: $result"
[[ $result =~ ^[1-9][0-9]*\ passed,\ 0\ failed$ ]]
