#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Fault injection alone, in the VM (e2e/vm.sh): fault.sh's paths on a fresh
# topology, then the same kmemleak and kernel log checks as guest-tests.sh.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault.sh"

start=$(date +%s)
kmemleak_start
topology
say "== topology: srv $SRV_IP (siw_s) <-veth-> cli $CLI_IP (siw_c)"
expect "insmod rdma_tcp_port.ko" 0 load_module
run_fault_tests
say "fault run: $(($(date +%s) - start)) s"

leaks=$(kmemleak_report)
[ -z "$leaks" ] && ok "kmemleak: no unreferenced object" ||
	{ say "$leaks" | head -40; bad "kmemleak found unreferenced objects"; }

if dmesg | grep -Eq 'BUG: |WARNING: (possible|inconsistent|suspicious)|cut here'; then
	dmesg | grep -E -A20 'BUG: |WARNING: |cut here' | head -60
	bad "kernel log free of lockdep, KASAN, WARN and BUG reports"
else
	ok "kernel log free of lockdep, KASAN, WARN and BUG reports"
fi
summary
