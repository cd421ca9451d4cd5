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
# The guest's /tmp is an overlay of the host's: keep our files apart.
OUT=$(mktemp -d /tmp/rdma-e2e.XXXXXX)

# VM_LIVE (e2e/vm.sh): a host file that follows the run, with the guest's
# times, and keeps what was said if the run is killed at its timeout.
LIVE=${VM_LIVE:-/dev/null}
say() {
	printf '%s\n' "$*"
	printf '%s %s\n' "$(date +%T)" "$*" >>"$LIVE"
}
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

# wait_for CMD...: retry for up to $WAIT (60) seconds (the guest is emulated).
wait_for() {
	local i
	for i in $(seq $((${WAIT:-60} * 2))); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	return 1
}
# TCP sockets allocated, as /proc/net/sockstat counts them (kernel ones too).
tcp_alloc() { awk '/^TCP:/ { for (i = 1; i < NF; i++) if ($i == "alloc") print $(i + 1) }' /proc/net/sockstat; }
tcp_alloc_at_most() { [ "$(tcp_alloc)" -le "$1" ]; }
tcp_listening() { in_srv ss -Hltn "sport = :$1" | grep -q LISTEN; }
# rdma_listening ADDR PORT: an rdma_cm id listens there (in any namespace).
rdma_listening() { rdma res show cm_id | grep -q "state LISTEN .*src-addr $1:$2 "; }

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

SHARE=/sys/module/rdma_tcp_port/parameters/user_share
RESERVE=/sys/module/rdma_tcp_port/parameters/reserve
# CONTROL (make vm-test CONTROL=1): the same steps without the module, so
# that every claim (below) can be seen to fail.  "absent" (guest-tests.sh):
# the module is never loaded; "none" (the abuse suites, which load and
# configure it throughout): it is loaded with reserve=none, and stays so,
# holding no port.
CONTROL=${CONTROL:-}
load_module() {
	case $CONTROL in
	absent) return 0 ;;
	none) insmod "$KO" reserve=none "$@" ;;
	*) insmod "$KO" "$@" ;;
	esac
}
unload_module() { [ "$CONTROL" = absent ] || rmmod rdma_tcp_port; }
# with_module: the step needs the module itself (its parameters, modinfo,
# rmmod); a control run without it skips the step.
with_module() { [ "$CONTROL" != absent ]; }
# set_reserve VALUE: the module's reserve parameter; a control run keeps
# reserve=none (or, without the module, has none to set).
set_reserve() {
	case $CONTROL in
	absent) ;;
	none) echo none >$RESERVE ;;
	*) echo "$1" >$RESERVE ;;
	esac
}

# claim NAME ANSWER TEST...: a check of what the module changes.  TEST (a
# command) passes on the module's answer; ANSWER is what this run saw.  A
# control run passes where TEST fails: a claim that holds without the module
# claims nothing.  same NAME ANSWER TEST...: a check that the module leaves
# as it is without it (siw's own sockets, upstream's rules); it passes in
# both runs.  Both record a "@claim" line: scripts/claims.sh tabulates the
# two runs side by side (README, "What each check claims").
claim() { claim_kind claim "$@"; }
same() { claim_kind same "$@"; }
claim_kind() {
	local kind=$1 name=$2 answer=$3 holds=yes
	shift 3
	"$@" || holds=no
	printf '@claim\t%s\t%s\t%s\t%s\n' "$kind" "$name" "$answer" "$holds"
	if [ "$kind" = same ] || [ -z "$CONTROL" ]; then
		[ $holds = yes ] && ok "$name: $answer" || bad "$name: '$answer'"
	else
		[ $holds = no ] && ok "control: $name: '$answer', not the module's answer" ||
			bad "control: $name: '$answer' without the module too: it claims nothing"
	fi
}
# hold_claim KIND NAME WANT CMD...: claim (or same) that the rdma_hold run by
# CMD prints WANT first.
hold_claim() {
	local kind=$1 name=$2 want=$3 out
	shift 3
	out=$("$@" | tr '\n' ' ')
	out=${out% }
	claim_kind "$kind" "$name" "$out" starts_with "$out" "$want"
}
starts_with() { case "$1 " in "$2 "*) return 0 ;; esac; return 1; }

# hold_says NAME WANT CMD...: the rdma_hold run by CMD prints WANT.
hold_says() {
	local name=$1 want=$2 out
	shift 2
	out=$("$@" | tr '\n' ' ')
	case "$out" in
	"$want "*) ok "$name: ${out% }" ;;
	*) bad "$name: '${out% }', want '$want'" ;;
	esac
}

# holder_named PID: the rdma tool names PID, an rdma_hold, as the holder of
# $SRV_IP:5001 (README, Troubleshooting).
holder_named() {
	local out
	say "\$ rdma resource show cm_id src-port 5001"
	out=$(rdma resource show cm_id src-port 5001)
	say "$out"
	case "$out" in
	*"pid $1 comm rdma_hold src-addr $SRV_IP:5001 "*)
		ok "rdma resource show names the holder of 5001: pid $1, rdma_hold" ;;
	*) bad "rdma resource show cm_id src-port 5001: '$out'" ;;
	esac
}

# delete_module(2) without kmod's own in-use check: the kernel's errno.
delete_module_errno() {
	python3 -c 'import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(176, b"rdma_tcp_port", os.O_NONBLOCK)  # x86_64 delete_module
print("ok" if r == 0 else errno.errorcode[ctypes.get_errno()])'
}

# RoCE: soft-RoCE on a veth of the root namespace, where no iWARP device is.
ROCE_IP=10.78.0.1
roce_topology() {
	modprobe rdma_rxe
	ip link add rx0 type veth peer name rx1
	ip addr add "$ROCE_IP/24" dev rx0
	ip link set rx0 up
	ip link set rx1 up
	rdma link add rxe0 type rxe netdev rx0
}

# Namespaces: v0 in the initial namespace (10.76.0.1, fd76::1), its peer v1
# in the namespace "peer" (10.76.0.2, fd76::2); root adds siw_v0 on v0.
V0_IP4=10.76.0.1
V0_IP6=fd76::1
v0_topology() {
	ip netns add peer
	ip link add v0 type veth peer name v1
	ip link set v1 netns peer
	ip addr add "$V0_IP4/24" dev v0
	ip addr add "$V0_IP6/64" dev v0 nodad
	ip -n peer addr add 10.76.0.2/24 dev v1
	ip -n peer addr add fd76::2/64 dev v1 nodad
	ip link set v0 up
	ip -n peer link set v1 up
	ip -n peer link set lo up
}
# http_service 4|6 PORT: root's TCP service on 0.0.0.0:PORT or [::]:PORT
# (v6 only) of the initial namespace, in the background ($! is its pid); it
# answers any GET with 200.
http_service() {
	python3 -c 'import http.server, socket, socketserver, sys
six = sys.argv[1] == "6"
class Server(socketserver.TCPServer):
    address_family = socket.AF_INET6 if six else socket.AF_INET
    allow_reuse_address = True
    def server_bind(self):
        if six:
            self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        super().server_bind()
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"root\n")
    def log_message(self, *args):
        pass
Server(("::" if six else "0.0.0.0", int(sys.argv[2])), Handler).serve_forever()' "$@" \
		>/dev/null 2>&1 &
}
# connect_close NETNS ADDR PORT N: N TCP connections, 0.5 s apart, each
# closed as soon as it is up; one word per connection (ok, or the errno).
connect_close() {
	ip netns exec "$1" python3 -c 'import errno, socket, sys, time
out = []
for i in range(int(sys.argv[3])):
    time.sleep(0.5 if i else 0)
    try:
        socket.create_connection((sys.argv[1], int(sys.argv[2])), 20).close()
        out.append("ok")
    except OSError as e:
        out.append(errno.errorcode.get(e.errno, str(e)))
print(" ".join(out))' "$2" "$3" "$4"
}
# connect_burst NETNS ADDR PORT N BATCH fin|rst: N TCP connections, BATCH at
# a time opened at once; each batch, once up, closed (fin) or reset (rst:
# SO_LINGER 0) at once.  Prints how many connected.
connect_burst() {
	ip netns exec "$1" python3 -c 'import select, socket, struct, sys, time
port, n, batch, rst = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "rst"
ok = 0
for b in range(n // batch):
    socks = [socket.socket() for i in range(batch)]
    for s in socks:
        s.setblocking(False)
        s.connect_ex((sys.argv[1], port))
    pending, deadline = list(socks), time.time() + 20
    while pending and time.time() < deadline:
        for s in select.select([], pending, [], 1)[1]:
            pending.remove(s)
            ok += s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
    for s in socks:
        if rst:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()
print(ok)' "$2" "$3" "$4" "$5" "$6"
}
# sockets_used NETNS: the sockets NETNS holds, kernel sockets that pin it
# included (/proc/net/sockstat's "sockets: used"), whatever their TCP state.
sockets_used() { ip netns exec "$1" awk '/^sockets:/ { print $3 }' /proc/net/sockstat; }
# http_get NETNS ADDR PORT: a TCP client in NETNS sends a GET; prints the
# status line, or "closed without data", or the errno (ECONNREFUSED...).
http_get() {
	ip netns exec "$1" python3 -c 'import errno, socket, sys
s = socket.socket(socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET)
s.settimeout(20)
try:
    s.connect((sys.argv[1], int(sys.argv[2])))
    s.sendall(b"GET / HTTP/1.0\r\n\r\n")
    data = s.recv(100)
    print(data.split(b"\r\n")[0].decode() if data else "closed without data")
except socket.timeout:
    print("timeout")
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e)))' "$2" "$3"
}
# Two unprivileged users.
USER_A=65534	# nobody
USER_B=65533
# as UID CMD...: run CMD as UID, without capabilities.
as() { as_in "" "$@"; }
# as_in NS UID CMD...: the same in the network namespace NS ("": this one).
as_in() {
	local ns=$1 uid=$2
	shift 2
	${ns:+ip netns exec "$ns"} setpriv --reuid="$uid" --regid="$uid" --clear-groups \
		--inh-caps=-all "$@"
}
# as_netns_user CMD...: CMD as uid 65534 in a user and network namespace of
# its own.
as_netns_user() {
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all unshare -Urn "$@"
}
# bg_netns_user CMD...: CMD as uid 65534 in a user and network namespace of
# its own, as any local user can, in the background ($! is CMD: setpriv and
# unshare exec it).
bg_netns_user() {
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all unshare -Urn "$@" &
}
# listeners_on PORT: the TCP listeners of the initial namespace on PORT.
listeners_on() { ss -Hltn "sport = :$1"; }
listening_here() { listeners_on "$1" | grep -q LISTEN; }

# NVMe-oF in the root namespace (nvmet and nvme-rdma use init_net): target
# and host on one siw address, over loopback, a 64 MiB RAM-backed namespace.
NVME_IP=10.79.0.1
NQN=nqn.2026-12.io.rdma-tcp-port:test
HOSTNQN=nqn.2026-12.io.rdma-tcp-port:host
NVMET=/sys/kernel/config/nvmet
nvme_topology() {
	modprobe -a nvmet nvmet-rdma nvmet-tcp nvme-rdma nvme-tcp
	modprobe null_blk nr_devices=1 memory_backed=1 gb=1
	ip link add nv0 type veth peer name nv1
	ip addr add "$NVME_IP/24" dev nv0
	ip link set nv0 up
	ip link set nv1 up
	rdma link add siw_nv type siw netdev nv0
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	mkdir "$NVMET/subsystems/$NQN"
	echo 1 >"$NVMET/subsystems/$NQN/attr_allow_any_host"
	mkdir "$NVMET/subsystems/$NQN/namespaces/1"
	echo /dev/nullb0 >"$NVMET/subsystems/$NQN/namespaces/1/device_path"
	echo 1 >"$NVMET/subsystems/$NQN/namespaces/1/enable"
}
# nvmet_port ID TRTYPE SVCID: (re)configure a disabled port.
nvmet_port() {
	local p=$NVMET/ports/$1
	[ -d "$p" ] || mkdir "$p"
	echo ipv4 >"$p/addr_adrfam"
	echo "$2" >"$p/addr_trtype"
	echo "$NVME_IP" >"$p/addr_traddr"
	echo "$3" >"$p/addr_trsvcid"
}
# Linking a subsystem enables the port, which binds and listens.
nvmet_enable() { ln -s "$NVMET/subsystems/$NQN" "$NVMET/ports/$1/subsystems/$NQN"; }
nvmet_disable() { rm -f "$NVMET/ports/$1/subsystems/$NQN"; }
# nvme_io TRTYPE SVCID write|read: connect, write $OUT/pattern or compare
# the device with it, disconnect.
nvme_io() {
	local dev ret=0
	nvme connect -t "$1" -a "$NVME_IP" -s "$2" -n "$NQN" --hostnqn="$HOSTNQN" || return 1
	WAIT=30 wait_for sh -c "grep -l '^$NQN\$' /sys/class/nvme/nvme*/subsysnqn"
	dev=$(grep -l "^$NQN\$" /sys/class/nvme/nvme*/subsysnqn | head -1)
	dev=/dev/$(basename "$(dirname "$dev")")n1
	wait_for test -b "$dev"
	if [ "$3" = write ]; then
		dd if=$OUT/pattern of="$dev" bs=64k oflag=direct status=none || ret=1
	fi
	cmp -n 1048576 $OUT/pattern "$dev" || ret=1
	nvme disconnect -n "$NQN" >/dev/null || ret=1
	return $ret
}
# nvme_teardown: every port (disabled), the subsystem, siw_nv and nv0.
nvme_teardown() {
	rmdir "$NVMET"/ports/*
	echo 0 >"$NVMET/subsystems/$NQN/namespaces/1/enable"
	rmdir "$NVMET/subsystems/$NQN/namespaces/1" "$NVMET/subsystems/$NQN"
	rdma link delete siw_nv
	ip link del nv0
}

# kmemleak: forget what boot left, then report what the tests leaked.
KMEMLEAK=/sys/kernel/debug/kmemleak
kmemleak_start() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	echo scan >$KMEMLEAK
	echo clear >$KMEMLEAK
}
kmemleak_report() {
	# An object must be unreferenced for two scans, 5 s apart at least.
	echo scan >$KMEMLEAK
	sleep 6
	echo scan >$KMEMLEAK
	cat $KMEMLEAK
}

# The end of every guest script: nothing leaked, nothing in the kernel log.
final_checks() {
	local leaks
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
}
