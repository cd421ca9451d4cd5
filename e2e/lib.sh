# SPDX-License-Identifier: GPL-2.0
# Shared by the guest scripts: two hosts in network namespaces joined by a
# veth pair, each with a soft-iWARP device, and a tiny test harness.

SRV_IP=10.77.0.1
CLI_IP=10.77.0.2
KO=${RDMA_TCP_PORT_KO:?RDMA_TCP_PORT_KO: path of rdma_tcp_port.ko}
TOOLS=${RDMA_TOOLS:?RDMA_TOOLS: directory of rdma_hold and rdma_conns}
HOLD=$TOOLS/rdma_hold
CONNS=$TOOLS/rdma_conns
pass=0
fail=0

say() { printf '%s\n' "$*"; }
ok() { pass=$((pass + 1)); say "PASS: $*"; }
bad() { fail=$((fail + 1)); say "FAIL: $*"; }
# expect NAME WANT CMD...: CMD's exit status must be WANT.
expect() {
	local name=$1 want=$2 got
	shift 2
	"$@"
	got=$?
	if [ "$got" -eq "$want" ]; then ok "$name"; else bad "$name (exit $got, want $want)"; fi
}
summary() {
	say "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}

in_srv() { ip netns exec srv "$@"; }
in_cli() { ip netns exec cli "$@"; }
# In the background, so that $! is the command itself (ip execs it).
bg_srv() { ip netns exec srv "$@" & }
bg_cli() { ip netns exec cli "$@" & }
# stop PID: end a background command and reap it.
stop() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}

# wait_for CMD...: retry for up to 60 s (the guest is emulated).
wait_for() {
	local i
	for i in $(seq 120); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	return 1
}
# TCP sockets allocated, as /proc/net/sockstat counts them (kernel ones too).
tcp_alloc() { awk '/^TCP:/ { for (i = 1; i < NF; i++) if ($i == "alloc") print $(i + 1) }' /proc/net/sockstat; }
tcp_alloc_at_most() { [ "$(tcp_alloc)" -le "$1" ]; }
tcp_listening() { in_srv ss -Hltn "sport = :$1" | grep -q LISTEN; }

topology() {
	modprobe -a veth siw rdma_ucm
	ip netns add srv
	ip netns add cli
	ip link add veth-s type veth peer name veth-c
	ip link set veth-s netns srv
	ip link set veth-c netns cli
	in_srv ip addr add "$SRV_IP/24" dev veth-s
	in_cli ip addr add "$CLI_IP/24" dev veth-c
	for ns in srv cli; do
		ip -n "$ns" link set lo up
	done
	in_srv ip link set veth-s up
	in_cli ip link set veth-c up
	in_srv rdma link add siw_s type siw netdev veth-s
	in_cli rdma link add siw_c type siw netdev veth-c
}

load_module() { insmod "$KO" "$@"; }
unload_module() { rmmod rdma_tcp_port; }
