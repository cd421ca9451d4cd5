#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The differential fuzzer alone, in the VM (e2e/vm.sh).  Arguments of the
# form FUZZ_NAME=VALUE (VM_ARGS) are exported first, e.g.
# VM_ARGS="FUZZ_SEQUENCES=500 FUZZ_ARGS=-k", or FUZZ_RESERVE=none (the
# module's reserve parameter).
set -u
for arg; do
	case $arg in
	FUZZ_*=*) export "${arg?}" ;;
	*) echo "guest-fuzz.sh: ignoring '$arg'" ;;
	esac
done
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fuzz.sh"
topology
load_module
# FUZZ_RESERVE=none: the rdma_cm's own table, to see the fuzzer find that.
if [ -n "${FUZZ_RESERVE:-}" ]; then
	echo "$FUZZ_RESERVE" >/sys/module/rdma_tcp_port/parameters/reserve
fi
run_fuzz_tests
if dmesg | grep -Eq 'BUG: |WARNING: (possible|inconsistent|suspicious)|cut here'; then
	dmesg | grep -E -A20 'BUG: |WARNING: |cut here' | head -60
	bad "kernel log free of lockdep, KASAN, WARN and BUG reports"
else
	ok "kernel log free of lockdep, KASAN, WARN and BUG reports"
fi
summary
