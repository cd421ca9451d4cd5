#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot the patched x86_64 kernel under QEMU (TCG: no KVM here) with
# virtme-ng, the host's Debian userland as the guest's root, and run one
# guest script, killed after $VM_TIMEOUT (2400) seconds.  VM_LIVE=<file>:
# the guest appends its progress there as it runs.
# log_buf_len: the fault suite logs a stack per failure point (about 1 MiB),
# and the checks that end every guest script read the whole kernel log.
# Usage: vm.sh <kernel build dir> <module .ko> <tools dir> <script>
set -euo pipefail
kbuild=$1 ko=$2 tools=$3 script=$4
live=()
if [ -n "${VM_LIVE:-}" ]; then
	mkdir -p "$(dirname "$VM_LIVE")"
	: >"$VM_LIVE"
	live=(--rwdir "$(dirname "$VM_LIVE")")
fi
exec timeout "${VM_TIMEOUT:-2400}" vng --run "$kbuild" --disable-kvm --force-9p --user root --cpus 2 --memory 2G \
	--append no5lvl --append log_buf_len=8M "${live[@]}" \
	--exec "VM_LIVE=${VM_LIVE:-} RDMA_TCP_PORT_KO=$ko RDMA_TOOLS=$tools bash $script ${VM_ARGS:-}"
