#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The seed's story on soft-iWARP, for a person to read (make demo).
#
# With the argument "control" (make demo CONTROL=1) the module is never
# loaded, so every step the demo gives as the module's doing must go
# upstream's way instead. Each such step says which way it went, and the
# demo exits non-zero if one went the other way for the run it is.
set -u
. "$(dirname "$0")/lib.sh"

control=0
[ "${1:-}" = control ] && control=1

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }
# outcome WHAT MODULE_WAY: record how a step that only the module changes
# went (MODULE_WAY 1: the module's way, 0: upstream's).
VERDICT=
WRONG=0
outcome() {
	local way=upstream
	[ "$2" = 1 ] && way=module
	VERDICT="$VERDICT; $1: $way"
	[ "$2" = $((1 - control)) ] || WRONG=$((WRONG + 1))
}

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

if [ $control = 1 ]; then
	step "Control run: rdma_tcp_port is NOT loaded; the steps below go upstream's way"
else
	step "insmod rdma_tcp_port.ko"
	run insmod "$KO"
	run grep rdma_tcp_port /proc/modules
fi

step "The same request, $([ $control = 1 ] && echo "still without" || echo with) rdma_tcp_port"
run in_srv "$HOLD" -x -l "$SRV_IP" 5001 | tee $OUT/demo-again.out
if grep -q "^bind EADDRINUSE" $OUT/demo-again.out; then
	say "-> refused at bind, with the errno TCP gives: the port is iperf's."
	outcome "refused at bind" 1
else
	say "-> bound again: the rdma_cm's own table does not know iperf's port."
	outcome "refused at bind" 0
fi
stop "$iperf_pid"

step "An RDMA service binds 5001 and has not listened yet; then iperf asks for 5001"
say "Why it matters: an application takes its port at rdma_bind_addr() and"
say "listens later (NVMe-oF, ucmatose); an active-side id takes its port at"
say "rdma_resolve_addr() and connects later. siw opens its own socket on the"
say "port only at listen or connect, with or without the module; before that,"
say "only the module's socket holds it (on a hardware RNIC, nothing ever does)."
bg_srv "$HOLD" "$SRV_IP" 5001 >$OUT/demo-hold.out 2>&1
hold_pid=$!
wait_for grep -q holding $OUT/demo-hold.out
cat $OUT/demo-hold.out
printf '$ iperf -s -p 5001\n'
in_srv timeout 5 iperf -s -p 5001 >$OUT/demo-iperf.out 2>&1
head -3 $OUT/demo-iperf.out
if grep -q "Address already in use" $OUT/demo-iperf.out; then
	say "-> iperf is refused: the host TCP stack owns 5001 from the RDMA bind on,"
	say "   as it would after a TCP bind()."
	outcome "iperf refused while the id is only bound" 1
else
	say "-> iperf listens on 5001 (stopped after 5 s) although the RDMA service"
	say "   holds it: the host TCP stack knows nothing of the bind. When the"
	say "   service listens, siw finds iperf there (EADDRINUSE); a hardware RNIC"
	say "   would listen beside iperf, and SYNs would reach either stack."
	outcome "iperf refused while the id is only bound" 0
fi
stop "$hold_pid"

step "RDMA on a free port works as before: rping over siw, data verified"
bg_srv timeout 120 rping -s -a "$SRV_IP" -p 7174 -C 3 >/dev/null 2>&1
sleep 2
run in_cli timeout 120 rping -c -a "$SRV_IP" -p 7174 -C 3 -v -V
rping_st=$?
say "(rping exit status $rping_st)"
[ $rping_st = 0 ] || WRONG=$((WRONG + 1))

step "Summary"
say "demo ($([ $control = 1 ] && echo "control, module not loaded" || echo "module loaded")): ${VERDICT#; }; rping exit $rping_st"
[ $WRONG = 0 ] && say "every step went the way this run should" ||
	say "$WRONG step(s) did NOT go the way this run should"
exit $((WRONG > 0))
