#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench-profile, in the benchmark VM: perf (software clock, whole
# system, call graphs) over rdma_bindloop through ucma, upstream, then with
# the module, then with idr=0; per variant the time per id and perf's
# self and children tables, and (bench/callees.py, provider.md) how the
# provider's operations split between the host's socket calls and the
# module's own code, written next to $VM_LIVE.  A profile, not a
# benchmark: the VM is emulated and ucma's syscalls dominate; read the
# shares of the rdma_cm's and the module's functions side by side.
set -u
. "$(dirname "$0")/../e2e/lib.sh"
out=$(dirname "${VM_LIVE:?VM_LIVE: where the reports go}")
N=${PROFILE_IDS:-20000}
topology >/dev/null
sysctl -qw kernel.kptr_restrict=0 kernel.perf_event_paranoid=-1
loop=$TOOLS/rdma_bindloop
SPLIT="module_explicit module_port0 noidr_explicit noidr_port0"
profile() { # name port0|explicit
	in_srv "$loop" "$SRV_IP" 2000 "$2" >/dev/null
	perf record -q -a -g -o "$out/$1.data" -- \
		ip netns exec srv "$loop" "$SRV_IP" "$N" "$2" >"$out/$1.time" 2>&1
	perf report -i "$out/$1.data" --no-children --sort sym --stdio -g none 2>/dev/null |
		grep '%' | head -60 >"$out/$1.self"
	perf report -i "$out/$1.data" --children --sort sym --stdio -g none 2>/dev/null |
		grep '%' | head -200 >"$out/$1.children"
	# The call chains of the runs with the provider, for bench/callees.py.
	case " $SPLIT " in *" $1 "*)
		perf script -i "$out/$1.data" -F ip,sym >"$out/$1.chains" 2>/dev/null ;;
	esac
	rm -f "$out/$1.data"
	say "$1: $(cat "$out/$1.time")"
}
profile upstream_explicit explicit
profile upstream_port0 port0
load_module
profile module_explicit explicit
profile module_port0 port0
echo N >/sys/module/rdma_tcp_port/parameters/idr
profile noidr_explicit explicit
profile noidr_port0 port0
python3 "$(dirname "$0")/callees.py" \
	$(for v in $SPLIT; do echo "$v=$out/$v.chains"; done) >"$out/provider.md"
rm -f "$out"/*.chains
cat "$out/provider.md"
say "profiles in $out"
