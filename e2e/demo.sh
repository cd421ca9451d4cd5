#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The seed's story on soft-iWARP, for a person to read (make demo).
set -u
. "$(dirname "$0")/lib.sh"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

topology >/dev/null
step "Two hosts: srv $SRV_IP and cli $CLI_IP, joined by veth, each with a soft-iWARP device"
rdma link show

step "iperf listens on TCP port 5001 on srv"
bg_srv iperf -s -p 5001 >/dev/null 2>&1
iperf_pid=$!
wait_for tcp_listening 5001
in_srv ss -Hltn 'sport = :5001'

step "Without rdma_tcp_port: an RDMA service asks for the same port"
run in_srv "$HOLD" -x -l "$SRV_IP" 5001
say "-> the rdma_cm hands out port 5001 although iperf holds it (bind ok);"
say "   siw trips over iperf's socket only at listen. On a hardware RNIC,"
say "   with no host socket involved, TCP SYNs for iperf would reach the RNIC."

step "insmod rdma_tcp_port.ko"
run insmod "$KO"
run grep rdma_tcp_port /proc/modules

step "With rdma_tcp_port: the same request"
run in_srv "$HOLD" -x -l "$SRV_IP" 5001
say "-> refused at bind, with the errno TCP gives: the port is iperf's."
stop "$iperf_pid"

step "And the other way round: an RDMA listener first, then iperf"
bg_srv "$HOLD" -l "$SRV_IP" 5001 >$OUT/demo-hold.out 2>&1
hold_pid=$!
wait_for grep -q holding $OUT/demo-hold.out
cat $OUT/demo-hold.out
printf '$ iperf -s -p 5001\n'
in_srv timeout 20 iperf -s -p 5001 2>&1 | head -3
stop "$hold_pid"

step "RDMA on a free port works as before: rping over siw, data verified"
bg_srv timeout 120 rping -s -a "$SRV_IP" -p 7174 -C 3 >/dev/null 2>&1
sleep 2
run in_cli timeout 120 rping -c -a "$SRV_IP" -p 7174 -C 3 -v -V
say "(rping exit status $?)"
