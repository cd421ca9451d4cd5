#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# End-to-end tests, run inside the VM (e2e/vm.sh): the module loaded with
# insmod on a kernel with soft-iWARP, real rdma_cm consumers unchanged.
set -u
. "$(dirname "$0")/lib.sh"

topology
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

say "== insmod"
expect "insmod rdma_tcp_port.ko" 0 load_module
modinfo -F parm "$KO" | grep -q '^idr:' && ok "modinfo shows the idr parameter" ||
	bad "modinfo shows the idr parameter"
grep -q '^rdma_tcp_port ' /proc/modules && ok "lsmod lists rdma_tcp_port" || bad "lsmod lists rdma_tcp_port"

say "== the seed's scenario: iperf first"
bg_srv iperf -s -p 5001 >/dev/null 2>&1
iperf_pid=$!
wait_for tcp_listening 5001
out=$(in_srv "$HOLD" -x -l "$SRV_IP" 5001)
say "$out"
tcp=$(in_srv python3 -c "import socket,errno
s=socket.socket()
try: s.bind(('$SRV_IP',5001)); print('ok')
except OSError as e: print(errno.errorcode[e.errno])")
[ "$out" = "bind $tcp" ] && [ "$tcp" = EADDRINUSE ] &&
	ok "RDMA listener refused where iperf listens, as TCP: $tcp" ||
	bad "RDMA listener next to iperf: '$out', TCP says $tcp"
stop "$iperf_pid"

say "== the seed's scenario: RDMA first"
bg_srv "$HOLD" -l "$SRV_IP" 5001 >/tmp/hold.out 2>&1
hold_pid=$!
wait_for grep -q holding /tmp/hold.out
cat /tmp/hold.out
in_srv timeout 20 iperf -s -p 5001 >/tmp/iperf.out 2>&1
if grep -q "listen ok" /tmp/hold.out && grep -qi "address already in use" /tmp/iperf.out; then
	ok "iperf refused on the RDMA listener's port: EADDRINUSE"
else
	bad "iperf on the RDMA listener's port: $(head -3 /tmp/iperf.out)"
fi

say "== rmmod while an id holds a port"
grep rdma_tcp_port /proc/modules
expect "rmmod refused while a port is held" 1 unload_module
grep -q '^rdma_tcp_port ' /proc/modules && ok "module still loaded" || bad "module still loaded"
stop "$hold_pid"
wait_for sh -c "! grep -q '^rdma_tcp_port [0-9]* [1-9]' /proc/modules"
expect "rmmod once the ids are gone" 0 unload_module
expect "insmod again" 0 load_module

say "== rping over siw, data verified"
bg_srv timeout 120 rping -s -a "$SRV_IP" -p 7174 -C 5 >/tmp/rping-s.out 2>&1
srv_pid=$!
wait_for tcp_listening 7174
expect "rping client, 5 pings verified" 0 in_cli timeout 120 rping -c -a "$SRV_IP" -p 7174 -C 5 -V
stop "$srv_pid"

say "== ucmatose"
bg_srv timeout 120 ucmatose -b "$SRV_IP" -c 2 >/tmp/ucm-s.out 2>&1
srv_pid=$!
wait_for tcp_listening 7471
expect "ucmatose, 2 connections" 0 in_cli timeout 120 ucmatose -s "$SRV_IP" -c 2
stop "$srv_pid"

say "== rdma_server / rdma_client"
wait_for sh -c "! ip netns exec srv ss -Hltn 'sport = :7471' | grep -q LISTEN"
bg_srv timeout 120 rdma_server -s "$SRV_IP" -p 7471 >/tmp/rs.out 2>&1
srv_pid=$!
wait_for tcp_listening 7471
expect "rdma_client" 0 in_cli timeout 120 rdma_client -s "$SRV_IP" -p 7471
stop "$srv_pid"

say "== perftest ib_send_bw -R"
bg_srv timeout 180 ib_send_bw -R -d siw_s -n 100 >/tmp/bw-s.out 2>&1
srv_pid=$!
wait_for tcp_listening 18515
expect "ib_send_bw -R" 0 in_cli timeout 180 ib_send_bw -R -d siw_c -n 100 "$SRV_IP"
stop "$srv_pid"

say "== nothing left behind"
before=$(tcp_alloc)
bg_cli "$HOLD" "$CLI_IP" 0 >/tmp/hold2.out 2>&1
hold_pid=$!
wait_for grep -q holding /tmp/hold2.out
during=$(tcp_alloc)
stop "$hold_pid"
wait_for tcp_alloc_at_most "$before"
after=$(tcp_alloc)
say "TCP sockets allocated: before $before, holding $during, after $after"
[ "$during" -gt "$before" ] && [ "$after" -eq "$before" ] &&
	ok "a reservation is a TCP socket and goes away with its id" ||
	bad "TCP socket count: before $before, holding $during, after $after"

if dmesg | grep -Eq 'BUG: |WARNING: (possible|inconsistent|suspicious)|cut here'; then
	dmesg | grep -E -A20 'BUG: |WARNING: |cut here' | head -60
	bad "kernel log free of lockdep, KASAN, WARN and BUG reports"
else
	ok "kernel log free of lockdep, KASAN, WARN and BUG reports"
fi
summary
