#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# One or more of the e2e suites alone, in the VM (e2e/vm.sh), on a fresh
# topology with the module loaded, then the checks that end every guest
# script.  Arguments (VM_ARGS): suite names (limit, fault, fuzz, stress, kernel,
# qp) and NAME=VALUE settings for them, e.g.
#   VM_ARGS="fuzz FUZZ_SEQUENCES=500" e2e/vm.sh ... e2e/guest-suite.sh
set -u
suites=
for arg; do
	case $arg in
	[A-Z]*=*) export "${arg?}" ;;
	limit | fault | fuzz | stress | kernel | qp) suites="$suites $arg" ;;
	*) echo "guest-suite.sh: no suite '$arg'" >&2; exit 2 ;;
	esac
done
. "$(dirname "$0")/lib.sh"
for s in $suites; do
	. "$(dirname "$0")/$s.sh"
done

start=$EPOCHSECONDS
kmemleak_start
topology
say "== topology: srv $SRV_IP (siw_s) <-veth-> cli $CLI_IP (siw_c)"
expect "insmod rdma_tcp_port.ko" 0 load_module
for s in $suites; do
	suite_t0=$EPOCHSECONDS
	"run_${s}_tests"
	say "$s suite: $((EPOCHSECONDS - suite_t0)) s"
done
final_checks
say "guest time: $((EPOCHSECONDS - start)) s"
summary
