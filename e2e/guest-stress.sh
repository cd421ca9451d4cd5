#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The stress run alone, inside the VM (e2e/vm.sh ... e2e/guest-stress.sh):
# everything at once for ${STRESS_SECONDS:-180} seconds (e2e/stress.sh),
# then kmemleak and the kernel log, as at the end of guest-tests.sh.
# An argument, if any, is the run's length in seconds (VM_ARGS=60 vm.sh ...).
set -u
[ $# -gt 0 ] && export STRESS_SECONDS=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stress.sh"

start=$EPOCHSECONDS
kmemleak_start
topology
say "== topology: srv $SRV_IP (siw_s) <-veth-> cli $CLI_IP (siw_c)"
load_module
run_stress_tests

leaks=$(kmemleak_report)
[ -z "$leaks" ] && ok "kmemleak: no unreferenced object" ||
	{ say "$leaks" | head -80; bad "kmemleak found unreferenced objects"; }

if dmesg | grep -Eq 'BUG: |WARNING: (possible|inconsistent|suspicious)|cut here'; then
	dmesg | grep -E -A20 'BUG: |WARNING: |cut here' | head -60
	bad "kernel log free of lockdep, KASAN, WARN and BUG reports"
else
	ok "kernel log free of lockdep, KASAN, WARN and BUG reports"
fi
if dmesg | grep -q 'blocked for more than'; then
	dmesg | grep -A30 'blocked for more than' | head -60
	bad "no hung task in the kernel log"
else
	ok "no hung task in the kernel log"
fi
say "guest time: $((EPOCHSECONDS - start)) s"
summary
