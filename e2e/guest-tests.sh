#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# End-to-end tests, run inside the VM (e2e/vm.sh): the module loaded with
# insmod on a kernel with soft-iWARP, real rdma_cm consumers unchanged.
# Argument "control" (make vm-test CONTROL=1): the same steps, the module
# never loaded; each claim must then fail (lib.sh, claim).
set -u
[ "${1:-}" = control ] && export CONTROL=absent
. "$(dirname "$0")/lib.sh"

# refused_on_v0 NAME ADDR: no listener on 5013 in the initial namespace, and
# a client over v0 to ADDR:5013 is refused.
refused_on_v0() {
	local got
	got=$(http_get peer "$2" 5013)
	[ -z "$(listeners_on 5013)" ] && [ "$got" = ECONNREFUSED ] &&
		ok "$1: none on v0, client refused" ||
		bad "$1: '$got', $(listeners_on 5013)"
}
# isolation MODE: uid 65534, in a user and network namespace of its own,
# listens with an RDMA_PS_TCP id; root's siw device on v0, in the initial
# namespace, never listens for it (patches 3 and 5): root's service on the
# port keeps its connections, the rdma_cm keeps siw_v0 (a listener refused
# there made cma_add_one() drop the device), and a port nobody serves
# there stays refused.  All hold with and without the module.
isolation() {
	local mode=$1 fam addr any svc user user2 out got
	for fam in 4 6; do
		if [ "$fam" = 4 ]; then addr=$V0_IP4 any=0.0.0.0; else addr=$V0_IP6 any=::; fi
		say "-- $mode, IPv$fam: root serves [$any]:5001; uid 65534 listens on 5001 in its namespace"
		http_service "$fam" 5001
		svc=$!
		wait_for listening_here 5001
		bg_netns_user "$HOLD" -l "$any" 5001 >$OUT/user.out 2>&1
		user=$!
		wait_for grep -q holding $OUT/user.out
		out=$(tr '\n' ' ' <$OUT/user.out)
		[ "$out" = "bind ok listen ok holding " ] &&
			ok "$mode, IPv$fam: uid 65534 listens on [$any]:5001 in its own namespace" ||
			bad "$mode, IPv$fam: uid 65534's listener on [$any]:5001: '$out'"
		rdma link add siw_v0 type siw netdev v0
		say "\$ ss -Hltn 'sport = :5001'   (initial namespace, after root adds siw_v0 on v0)"
		listeners_on 5001 | while read -r line; do say "$line"; done
		got=$(http_get peer "$addr" 5001)
		say "client over v0 to [$addr]:5001: $got"
		[ "$(listeners_on 5001 | wc -l)" = 1 ] && [ "$got" = "HTTP/1.0 200 OK" ] &&
			ok "$mode, IPv$fam: root's service answers over v0, and is the one listener on 5001" ||
			bad "$mode, IPv$fam: over v0 '$got', listeners on 5001: $(listeners_on 5001 | wc -l)"
		# A listener refused on siw_v0 made the rdma_cm drop the whole device.
		hold_says "$mode, IPv$fam: the rdma_cm serves siw_v0: root binds an id to v0's address" \
			"bind ok" "$HOLD" -x "$addr" 5020
		stop "$user"
		stop "$svc"

		say "-- $mode, IPv$fam: nobody serves 5013; uid 65534 listens on it, siw_v0 there"
		bg_netns_user "$HOLD" -l "$any" 5013 >$OUT/user2.out 2>&1
		user2=$!
		wait_for grep -q holding $OUT/user2.out
		refused_on_v0 "$mode, IPv$fam: a listener made after siw_v0" "$addr"
		rdma link delete siw_v0
		rdma link add siw_v0 type siw netdev v0
		refused_on_v0 "$mode, IPv$fam: siw_v0 added under the listener" "$addr"
		stop "$user2"
		rdma link delete siw_v0
		pgrep -x rdma_hold >/dev/null && bad "$mode, IPv$fam: an rdma_hold outlived its round"
		listening_here 5001 && bad "$mode, IPv$fam: root's service outlived its round"
	done
}

# privileged_port MODE: uid 65534 in a user and network namespace of its
# own has CAP_NET_BIND_SERVICE over that namespace only: TCP lets it bind
# :22 there, the rdma_cm does not (upstream's rule, in the initial user
# namespace), with and without the module; :5001 binds.
privileged_port() {
	local tcp
	tcp=$(as_netns_user python3 -c 'import socket
socket.socket().bind(("0.0.0.0", 22))
print("bind ok")' 2>&1 | tail -1)
	[ "$tcp" = "bind ok" ] &&
		ok "$1: uid 65534 under unshare -Urn binds TCP :22 in its namespace" ||
		bad "$1: uid 65534's TCP bind of :22 in its namespace: '$tcp'"
	hold_says "$1: uid 65534 under unshare -Urn, an RDMA id on :22" "bind EACCES" \
		as_netns_user "$HOLD" -x 0.0.0.0 22
	hold_says "$1: uid 65534 under unshare -Urn, an RDMA id on :5001" "bind ok" \
		as_netns_user "$HOLD" -x 0.0.0.0 5001
}

kmemleak_start
topology
v0_topology
say "== topology: srv $SRV_IP (siw_s) <-veth-> cli $CLI_IP (siw_c)"

say "== without the module: the collision, as upstream has it"
bg_srv iperf -s -p 5001 >/dev/null 2>&1
iperf_pid=$!
wait_for tcp_listening 5001
out=$(in_srv "$HOLD" -x "$SRV_IP" 5001)
say "$out"
case "$out" in
*"bind ok"*) ok "upstream: an RDMA id binds the port iperf listens on" ;;
*) bad "upstream: expected the RDMA bind to succeed next to iperf" ;;
esac
stop "$iperf_pid"

say "== insmod, with an id bound before it"
# Its port stays in the rdma_cm's table only: the registration names it.
if with_module; then
	bg_srv "$HOLD" "$SRV_IP" 5002 >$OUT/early.out 2>&1
	early_pid=$!
	wait_for grep -q holding $OUT/early.out
	expect "insmod rdma_tcp_port.ko" 0 load_module
	line=$(dmesg | grep 'RDMA_PS_TCP port 5002 ' | tail -1)
	say "${line#*] }"
	case "$line" in
	*"port 5002 (netns "*") was bound before the port provider, by pid $early_pid (rdma_hold): not held in the host TCP stack")
		ok "insmod names the port an id bound before it: 5002, pid $early_pid" ;;
	*) bad "insmod: no report of port 5002 bound before the module: '$line'" ;;
	esac
	stop "$early_pid"
	for p in idr reserve user_share; do
		modinfo -F parm "$KO" | grep -q "^$p:" && ok "modinfo shows the $p parameter" ||
			bad "modinfo shows the $p parameter"
	done
	version=$(modinfo -F version "$KO")
	license=$(modinfo -F license "$KO")
	[ -n "$version" ] && [ "$license" = GPL ] &&
		ok "modinfo shows version $version and license $license" ||
		bad "modinfo shows a version and the GPL license: '$version' '$license'"
	grep -q '^rdma_tcp_port ' /proc/modules && ok "lsmod lists rdma_tcp_port" ||
		bad "lsmod lists rdma_tcp_port"
else
	say "(control: the module is not loaded)"
fi

say "== the seed's scenario: iperf first"
bg_srv iperf -s -p 5001 >/dev/null 2>&1
iperf_pid=$!
wait_for tcp_listening 5001
out=$(in_srv "$HOLD" -x -l "$SRV_IP" 5001 | tr '\n' ' ')
out=${out% }
tcp=$(in_srv python3 -c "import socket,errno
s=socket.socket()
try: s.bind(('$SRV_IP',5001)); print('ok')
except OSError as e: print(errno.errorcode[e.errno])")
say "TCP's own bind there: $tcp"
[ "$tcp" = EADDRINUSE ] || bad "TCP's bind next to iperf: $tcp, want EADDRINUSE"
claim "an RDMA listener where iperf listens is refused at bind, as TCP's bind" "$out" \
	[ "$out" = "bind $tcp" ]
stop "$iperf_pid"

say "== the seed's scenario: RDMA first"
# iperf_on_5001: what iperf in srv does on 5001 now: EADDRINUSE, or it
# serves (still running after 10 s).
iperf_on_5001() {
	local rc
	in_srv timeout 10 iperf -s -p 5001 >$OUT/iperf.out 2>&1
	rc=$?
	if grep -qi "address already in use" $OUT/iperf.out; then
		echo EADDRINUSE
	elif [ $rc = 124 ]; then
		echo "iperf serves 5001"
	else
		echo "iperf exit $rc: $(head -1 $OUT/iperf.out)"
	fi
}
# An id that is bound and not listening has no socket of siw's: only the
# module keeps the port from iperf.  A listener on siw has one, which
# refuses iperf with or without the module.
bg_srv "$HOLD" "$SRV_IP" 5001 >$OUT/bound.out 2>&1
bound_pid=$!
wait_for grep -q holding $OUT/bound.out
got=$(iperf_on_5001)
stop "$bound_pid"
claim "iperf on the port of an RDMA id bound to siw (not listening)" "$got" [ "$got" = EADDRINUSE ]
bg_srv "$HOLD" -l "$SRV_IP" 5001 >$OUT/hold.out 2>&1
hold_pid=$!
wait_for grep -q holding $OUT/hold.out
got=$(iperf_on_5001)
same "iperf on the port of an RDMA listener on siw (siw's own socket refuses it)" "$got" \
	[ "$got" = EADDRINUSE ]

say "== who holds port 5001? (README, Troubleshooting)"
# The held port is a kernel socket, bound but not listening: ss shows siw's
# listener, with no process.  The rdma_cm id that holds it, its process and
# its address are in the rdma tool's cm_id list.
say "\$ ss -Htanp 'sport = :5001'   (in srv)"
in_srv ss -Htanp 'sport = :5001'
holder_named "$hold_pid"

say "== rmmod while an id holds a port"
if with_module; then
	grep rdma_tcp_port /proc/modules
	err=$(delete_module_errno)
	[ "$err" = EWOULDBLOCK ] || [ "$err" = EAGAIN ] &&
		ok "delete_module refused while a port is held: $err (rmmod: in use)" ||
		bad "delete_module while a port is held: $err"
	expect "rmmod refused while a port is held" 1 unload_module
	grep -q '^rdma_tcp_port ' /proc/modules && ok "module still loaded" || bad "module still loaded"
fi
stop "$hold_pid"
if with_module; then
	wait_for sh -c "! grep -q '^rdma_tcp_port [0-9]* [1-9]' /proc/modules"
	expect "rmmod once the ids are gone" 0 unload_module
fi

say "== an unprivileged user's namespace stays its own (root's siw device on v0)"
isolation "without the module"
privileged_port "without the module"
if with_module; then
	expect "insmod again" 0 load_module
	again="with the module"
else
	again="without the module, again (control)"
fi
isolation "$again"
privileged_port "$again"

say "== rping over siw, data verified"
bg_srv timeout 120 rping -s -a "$SRV_IP" -p 7174 -C 5 >$OUT/rping-s.out 2>&1
srv_pid=$!
wait_for tcp_listening 7174
expect "rping client, 5 pings verified" 0 in_cli timeout 120 rping -c -a "$SRV_IP" -p 7174 -C 5 -V
stop "$srv_pid"

say "== a client that connects to siw's listener and closes at once (patch 6)"
# Until siw accepts a connection, its close reaches siw with the listener's
# endpoint: siw used to close the listener on it, and destroying the id then
# used the endpoint after free.  Left running if so, not to crash the suite.
bg_srv "$HOLD" -l "$SRV_IP" 7176 >$OUT/early.out 2>&1
early_pid=$!
wait_for tcp_listening 7176
# Before the fix, 5 runs of 20 all lost the listener, at the 3rd to 7th.
got=$(connect_close cli "$SRV_IP" 7176 20)
sleep 1
if [ "$got" = "$(echo $(yes ok | head -20))" ] && tcp_listening 7176; then
	ok "siw's listener outlives 20 connections closed before accept"
	stop "$early_pid"
else
	bad "siw's listener after 20 connections closed before accept: '$got', $(in_srv ss -Hltn 'sport = :7176' | wc -l) listening"
fi

say "== 1,000 connections closed or reset at once against siw's listener, one by one and 100 at a time"
# A close that comes before siw accepts the connection reaches the
# listener's endpoint, which ignores it (patch 6): the accept then queues it
# for the connection's own endpoint, which goes at once, not at siw's MPA
# timeout.  And one accept takes every connection that waits (patch 7): a
# burst beyond the listener's work elements (its backlog, 3 for rping) left
# connections queued, the queue filled, and the listener took no more.
for burst in "1 fin" "1 rst" "100 fin" "100 rst"; do
	read -r batch how <<<"$burst"
	bg_srv timeout 300 rping -s -a "$SRV_IP" -p 7178 -C 1 >$OUT/burst.out 2>&1
	burst_pid=$!
	wait_for tcp_listening 7178
	base=$(sockets_used srv)
	got=$(connect_burst cli "$SRV_IP" 7178 1000 "$batch" "$how")
	sleep 1
	left=$(($(sockets_used srv) - base))
	queued=$(in_srv ss -Hltn 'sport = :7178' | awk '{ print $2 }')
	# 100 at a time overflow rping's accept queue: TCP drops SYNs, and a
	# client may give up on some (20 s); one at a time, all connect.
	if { [ "$batch" = 100 ] || [ "$got" = 1000 ]; } && [ "$left" -le 0 ] && [ "$queued" = 0 ]; then
		ok "$how, $batch at a time: no socket left after 1 s, none queued ($got of 1000 connected)"
	else
		bad "$how, $batch at a time: $got of 1000 connected, $left sockets left after 1 s, $queued queued"
	fi
	expect "rping after $how, $batch at a time" 0 in_cli timeout 60 rping -c -a "$SRV_IP" -p 7178 -C 1
	stop "$burst_pid"
done

say "== ucmatose"
bg_srv timeout 120 ucmatose -b "$SRV_IP" -c 2 >$OUT/ucm-s.out 2>&1
srv_pid=$!
wait_for tcp_listening 7471
expect "ucmatose, 2 connections" 0 in_cli timeout 120 ucmatose -s "$SRV_IP" -c 2
stop "$srv_pid"

say "== rdma_server / rdma_client, on the port ucmatose just used"
wait_for sh -c "! ip netns exec srv ss -Hltn 'sport = :7471' | grep -q LISTEN"
say "siw's TIME_WAIT sockets on 7471: $(in_srv ss -Htan state time-wait 'sport = :7471' | wc -l)"
bg_srv timeout 120 rdma_server -s "$SRV_IP" -p 7471 >$OUT/rs.out 2>&1
srv_pid=$!
wait_for tcp_listening 7471
expect "rdma_client" 0 in_cli timeout 120 rdma_client -s "$SRV_IP" -p 7471
stop "$srv_pid"

say "== perftest ib_send_bw -R"
bg_srv timeout 180 ib_send_bw -R -d siw_s -n 100 >$OUT/bw-s.out 2>&1
srv_pid=$!
wait_for tcp_listening 18515
expect "ib_send_bw -R" 0 in_cli timeout 180 ib_send_bw -R -d siw_c -n 100 "$SRV_IP"
stop "$srv_pid"

say "== reserve=iwarp: RoCE (rxe) shares a well-known port with TCP, iWARP (siw) does not"
roce_topology
if with_module; then
	[ "$(cat $RESERVE)" = all ] && ok "reserve defaults to all" || bad "reserve default: $(cat $RESERVE)"
	echo bogus >$RESERVE 2>/dev/null && bad "reserve=bogus accepted" || ok "reserve=bogus refused"
fi
set_reserve iwarp
with_module && { [ "$(cat $RESERVE)" = iwarp ] && ok "reserve=iwarp set through sysfs" ||
	bad "reserve: $(cat $RESERVE)"; }
iperf -s -p 5001 >/dev/null 2>&1 &
iperf_root=$!
bg_srv iperf -s -p 5001 >/dev/null 2>&1
iperf_srv=$!
wait_for sh -c "ss -Hltn 'sport = :5001' | grep -q LISTEN"
wait_for tcp_listening 5001
timeout 120 rping -s -a "$ROCE_IP" -p 5001 -C 3 >$OUT/rping-r.out 2>&1 &
rping_pid=$!
wait_for rdma_listening "$ROCE_IP" 5001
expect "iwarp: rping over rxe on 5001 next to iperf" 0 timeout 120 rping -c -a "$ROCE_IP" -p 5001 -C 3 -V
expect "iwarp: iperf still serves TCP on 5001" 0 timeout 60 iperf -c "$ROCE_IP" -p 5001 -t 1
stop "$rping_pid"
hold_claim claim "iwarp: an id bound to siw is refused at bind next to iperf" "bind EADDRINUSE" \
	in_srv "$HOLD" -x -l "$SRV_IP" 5001
hold_claim claim "iwarp: a wildcard id where siw is, refused at bind next to iperf" "bind EADDRINUSE" \
	in_srv "$HOLD" -x -l 0.0.0.0 5001
hold_claim same "iwarp: a wildcard id where no iWARP device is, left to the rdma_cm" "bind ok" \
	"$HOLD" -x -l 0.0.0.0 5001
set_reserve all
hold_claim claim "all: an id bound to rxe is refused next to iperf" "bind EADDRINUSE" \
	"$HOLD" -x -l "$ROCE_IP" 5001
set_reserve none
hold_claim same "none: an id bound to siw takes iperf's port, as upstream" "bind ok" \
	in_srv "$HOLD" -x "$SRV_IP" 5001
set_reserve all
stop "$iperf_root"
stop "$iperf_srv"
rdma link delete rxe0

say "== NVMe-oF: nvmet-rdma and nvmet-tcp on 4420 of one siw address, then on two ports"
nvme_topology
nvmet_port 1 rdma 4420
expect "nvmet-rdma port on 4420" 0 nvmet_enable 1
nvmet_port 2 tcp 4420
# siw's own listener makes both refusals hold without the module too: the
# module keeps them, and both transports serve as before.
out=$(nvmet_enable 2 2>&1)
say "nvmet-tcp on 4420 after nvmet-rdma: $out"
same "nvmet-tcp on nvmet-rdma's port (siw's listener refuses it)" "${out##*: }" \
	[ "${out##*: }" = "Address already in use" ]
nvmet_disable 1
expect "nvmet-tcp port on 4420 once nvmet-rdma left" 0 nvmet_enable 2
out=$(nvmet_enable 1 2>&1)
say "nvmet-rdma on 4420 after nvmet-tcp: $out"
same "nvmet-rdma on nvmet-tcp's port (siw's listen refused)" "${out##*: }" \
	[ "${out##*: }" = "Address already in use" ]
nvmet_disable 2
nvmet_port 2 tcp 4421
expect "nvmet-rdma on 4420" 0 nvmet_enable 1
expect "nvmet-tcp on 4421" 0 nvmet_enable 2
head -c 1048576 /dev/urandom >$OUT/pattern
expect "nvme over rdma: write a pattern, read it back" 0 nvme_io rdma 4420 write
expect "nvme over tcp: read the same pattern back" 0 nvme_io tcp 4421 read
nvmet_disable 1
nvmet_disable 2
nvme_teardown

say "== active side: 150 connections from a 100-port range, three destinations"
# siw maps at most 143 queues into a process (SIW_UOBJ_MAX_KEY), 71 QPs:
# three client processes of 50 connections, round robin over three servers
# (17 + 17 + 17 to the first), each of which accepts up to 60.
in_cli sysctl -qw net.ipv4.ip_local_port_range="40000 40099"
before=$(tcp_alloc)
pids=
for p in 7001 7002 7003; do
	bg_srv "$CONNS" -s "$SRV_IP" "$p" 60 >"$OUT/s$p.out" 2>&1
	pids="$pids $!"
	wait_for tcp_listening "$p"
done
# One client at a time (each holds its connections): siw's connect timeout
# is 10 s, which three at once under TCG and KASAN can exceed.
for i in 1 2 3; do
	bg_cli "$CONNS" -c 50 "$SRV_IP" 7001 "$SRV_IP" 7002 "$SRV_IP" 7003 >"$OUT/c$i.out" 2>&1
	pids="$pids $!"
	WAIT=600 wait_for grep -q . "$OUT/c$i.out"
done
say "clients: $(cat $OUT/c?.out | tr '\n' ' ')"
estab=$(in_cli ss -Htn state established | wc -l)
ports=$(in_cli ss -Htn state established | awk '{ n = split($3, a, ":"); print a[n] }' | sort -u | wc -l)
say "cli: $estab established TCP connections (siw's) over $ports local ports"
full=$(grep -c '^connected 50 ' $OUT/c?.out | awk -F: '{ s += $2 } END { print s }')
all_connected() { [ "$full" -eq 3 ] && [ "$estab" -ge 150 ] && [ "$ports" -le 100 ]; }
# The rdma_cm shares an active-side port between ids to different
# destinations (cma_port_is_unique()), and so does the module, with the
# port held in host TCP: this holds without the module too.
same "150 concurrent connections from a 100-port range (ports shared under the 4-tuple rule)" \
	"$full of 3 clients connected 50; $estab connections over $ports ports" all_connected
for p in $pids; do stop "$p"; done
wait_for tcp_alloc_at_most "$before" &&
	ok "every active-side socket released (TCP alloc back to $before)" ||
	bad "active side left sockets: before $before, now $(tcp_alloc)"
in_cli sysctl -qw net.ipv4.ip_local_port_range="32768 60999"

say "== a namespace torn down under live ids"
before=$(tcp_alloc)
ip netns add gone
ip -n gone link add g0 type veth peer name g1
ip -n gone addr add 10.80.0.1/24 dev g0
ip -n gone link set g0 up
ip -n gone link set g1 up
ip netns exec gone rdma link add siw_g type siw netdev g0
ip netns exec gone "$HOLD" -l 10.80.0.1 7000 >$OUT/g1.out 2>&1 &
g1=$!
ip netns exec gone "$HOLD" -l 0.0.0.0 7001 >$OUT/g2.out 2>&1 &
g2=$!
wait_for grep -q holding $OUT/g1.out
wait_for grep -q holding $OUT/g2.out
during=$(tcp_alloc)
# The device goes first, under the live ids. Its unregistration waits, as
# upstream's does, for the processes that opened it (siw cannot
# disassociate a user context), so they are killed while it waits.
ip -n gone link del g0 &
del=$!
sleep 2
ip netns del gone
kill "$g1" "$g2"
wait "$g1" "$g2" 2>/dev/null
wait "$del" && ok "siw_g's netdev deleted once its users were gone" || bad "ip link del g0 failed"
wait_for tcp_alloc_at_most "$before"
after=$(tcp_alloc)
say "TCP sockets allocated: before $before, two ids held $during, after $after"
[ "$during" -ge $((before + 2)) ] && [ "$after" -le "$before" ] &&
	ok "namespace gone with its ids: no socket left" ||
	bad "namespace teardown: before $before, held $during, after $after"
rdma link show | grep -q siw_g && bad "siw_g outlived its netdev" || ok "siw_g went with its netdev"

say "== nothing left behind"
before=$(tcp_alloc)
bg_cli "$HOLD" "$CLI_IP" 0 >$OUT/hold2.out 2>&1
hold_pid=$!
wait_for grep -q holding $OUT/hold2.out
during=$(tcp_alloc)
stop "$hold_pid"
wait_for tcp_alloc_at_most "$before"
after=$(tcp_alloc)
say "TCP sockets allocated: before $before, holding $during, after $after"
held_ok() { [ "$during" -gt "$before" ] && [ "$after" -eq "$before" ]; }
claim "a port-0 id holds a host TCP socket, which goes away with it" \
	"$((during - before)) more while held, $((after - before)) after" held_ok

final_checks
summary
