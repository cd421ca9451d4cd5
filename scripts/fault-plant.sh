#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The fault suite's control: a scratch build of the module with a leak
# planted on an error path (e2e/fault-plant.patch: a socket whose bind
# fails is forgotten, not released) must fail it.  Builds the scratch
# module in the shared kernel tree, runs the fault suite on it in the VM,
# then builds the checkout's module again.  Exits 0 if the suite caught the
# leak: a path's "nothing leaked" claim fails with leaks counted.
# Usage: fault-plant.sh <project> <cache>
set -euo pipefail
project=$1 cache=$2
scratch=$(mktemp -d /tmp/rdma-tcp-port-plant.XXXXXX)
restore() {
	rm -rf "$scratch"
	make -C "$project" module >/dev/null
}
trap restore EXIT
(cd "$project" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 cp --parents -t "$scratch")
patch -d "$scratch" -p1 <"$project/e2e/fault-plant.patch"
make -C "$scratch" module
log=$cache/vm-fault-plant.log
VM_LIVE=$cache/live/vm-fault-plant.log VM_TIMEOUT=1800 VM_ARGS=fault \
	"$project/e2e/vm.sh" "$cache/build-x86_64" "$scratch/out/rdma_tcp_port.ko" \
	"$project/out" "$project/e2e/guest-suite.sh" 2>&1 | tee "$log" || :
caught=$(grep -E "^FAIL: fault [a-z0-9-]*: a plain errno at each failure point, nothing leaked: '.*[^0-9][1-9][0-9]* leaks" "$log" || :)
if [ -n "$caught" ]; then
	echo "fault-plant: the planted leak was caught:"
	echo "$caught"
else
	echo "fault-plant: the planted leak was NOT caught ($log)"
	exit 1
fi
