# SPDX-License-Identifier: GPL-2.0
# Ids that kernel consumers make (README, "Ids the kernel makes"): whose
# credential binds them, whether the cap exempts it, and that ids a kernel
# thread binds to a RoCE device take no host port (sourced by
# guest-suite.sh after lib.sh; the module is loaded).  run_kernel_tests
# prints one summary line of its own numbers.

MAX_PORTS=/proc/sys/user/max_rdma_tcp_ports
RDS_PEERS=200

# rdma_ids COMM: how many rdma_cm ids COMM ("[nvme_rdma]": a kernel
# consumer) owns.
rdma_ids() { rdma res show cm_id | grep -cF "comm $1 "; }
# The sysfs directory of the NVMe controller of $NQN.
nvme_ctrl() { dirname "$(grep -l "^$NQN\$" /sys/class/nvme/nvme*/subsysnqn | head -1)"; }
nvme_live() { grep -qx live "$(nvme_ctrl)/state"; }
# tcp_more BASE: TCP sockets allocated now beyond BASE, once siw has let go
# of the sockets of connections that ended.
tcp_more() {
	sleep 2
	echo $(($(tcp_alloc) - $1))
}

# kernel_nvme RESERVE: root enables the nvmet-rdma port, connects with one
# I/O queue (in the nvme process) and resets the controller (the reconnect
# runs in nvme's reset workqueue); prints the TCP sockets allocated beyond
# the start after each step and the [nvme_rdma] ids after the connect and
# the reset: "<port> <connect> <reset> <ids> <ids>", or what failed.
kernel_nvme() {
	local base port conn reset ids rids
	set_reserve "$1"
	base=$(tcp_alloc)
	nvmet_enable 1 || { echo "port-refused"; return; }
	port=$(tcp_more "$base")
	if ! nvme connect -t rdma -a "$NVME_IP" -s 4420 -n "$NQN" --hostnqn="$HOSTNQN" \
		-i 1 >/dev/null || ! WAIT=30 wait_for nvme_live; then
		nvmet_disable 1
		echo "connect-failed"
		return
	fi
	conn=$(tcp_more "$base")
	ids=$(rdma_ids "[nvme_rdma]")
	# Synchronous: returns once the reset work has reconnected the queues.
	echo 1 >"$(nvme_ctrl)/reset_controller"
	if nvme_live; then
		reset=$(tcp_more "$base")
		rids=$(rdma_ids "[nvme_rdma]")
	else
		reset="reset-failed:$(cat "$(nvme_ctrl)/state")" rids=0
	fi
	nvme disconnect -n "$NQN" >/dev/null
	nvmet_disable 1
	echo "$port $conn $reset $ids $rids"
}

# rds_as UID PORT [PEERS]: an RDS socket of UID bound to $ROCE_IP:PORT
# sends one message to each of PEERS addresses of rx0's subnet where
# nobody answers, each a new RDS connection; prints "bind <errno>" or
# "sent N".
rds_as() {
	as "$1" python3 -c 'import errno, socket, sys
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
try:
    s.bind((sys.argv[1], int(sys.argv[2])))
except OSError as e:
    sys.exit(print("bind", errno.errorcode[e.errno]))
s.setblocking(False)
sent = 0
for i in range(int(sys.argv[3])):
    s.sendto(b"x", ("10.78.0.%d" % (2 + i), 4000))
    sent += 1
print("bind ok" if sent == 0 else "sent %d" % sent)' "$ROCE_IP" "$2" "${3:-0}"
}

run_kernel_tests() {
	local max0 share0 a b out lis lis_n base ids more n_max m_max i rds_line
	max0=$(cat $MAX_PORTS)
	say "== kernel consumers' ids, with user.max_rdma_tcp_ports at 0 (every capped caller refused)"
	echo 0 >$MAX_PORTS
	hold_claim claim "user A's own RDMA bind at user.max_rdma_tcp_ports=0" "bind EMFILE" \
		as $USER_A "$HOLD" -x 0.0.0.0 0

	nvme_topology
	nvmet_port 1 rdma 4420
	a=$(kernel_nvme none)
	b=$(kernel_nvme all)
	set_reserve all
	say "nvme-rdma over siw_nv, TCP sockets beyond the start after the port, the connection, the reset; [nvme_rdma] ids: reserve=none: $a; reserve=all: $b"
	# shellcheck disable=SC2086
	nvme_held() {
		# shellcheck disable=SC2086
		set -- $a $b
		[ $# -eq 10 ] && [ $(($6 - $1)) -eq 1 ] && [ $(($7 - $2)) -eq 3 ] &&
			[ $(($8 - $3)) -eq 3 ] && [ "$4$5$9${10}" = 2222 ]
	}
	claim "root's nvmet port and nvme connection hold 1 and 1+2 host ports at a limit of 0 (beyond reserve=none's), 2 again after a reset (nvme's workqueue)" \
		"reserve=none $a; reserve=all $b" nvme_held
	nvme_teardown
	modprobe -r nvme_rdma nvmet_rdma

	roce_topology
	base=$(tcp_alloc)
	modprobe rds_rdma
	WAIT=30 wait_for sh -c "rdma res show cm_id | grep -qF 'comm [rds_rdma] src-addr 0.0.0.0:18634 '"
	lis=$(python3 -c 'import errno, socket
for port in 18634, 16385:
    s = socket.socket()
    try:
        s.bind(("0.0.0.0", port)); print("ok", end=" ")
    except OSError as e:
        print(errno.errorcode[e.errno], end=" ")')
	say "rds_rdma loaded (modprobe, root): $(rdma_ids "[rds_rdma]") listeners; root's TCP bind of 18634, 16385: $lis"
	# The listeners' host sockets (none in a control run).
	lis_n=$(grep -o EADDRINUSE <<<"$lis" | wc -l)
	claim "RDS's listeners, made by root's modprobe at user.max_rdma_tcp_ports=0, hold their host ports" \
		"root's TCP binds: ${lis% }" [ "$lis" = "EADDRINUSE EADDRINUSE " ]

	hold_claim claim "user A's AF_RDS bind() is charged to A (RDS's check binds an id in A's process): refused at 0" \
		"bind EADDRNOTAVAIL" rds_as $USER_A 4000
	share0=$(cat $SHARE)
	echo 0 >$SHARE
	hold_says "control: the same bind with the cap off (user_share=0)" "bind ok" rds_as $USER_A 4000
	echo "$share0" >$SHARE
	echo 1 >$MAX_PORTS

	out=$(rds_as $USER_A 4001 $RDS_PEERS)
	say "user A at user.max_rdma_tcp_ports=1: $out to $RDS_PEERS peers on rx0's subnet (new RDS connections, made by RDS's workqueue)"
	n_max=0 m_max=0
	for i in 1 2 3 4 5 6; do
		ids=$(($(rdma_ids "[rds_rdma]") - 2)) more=$(($(tcp_alloc) - base))
		[ $ids -gt $n_max ] && n_max=$ids
		[ $more -gt $m_max ] && m_max=$more
		sleep 0.5
	done
	rds_line=$(rdma res show cm_id | grep -F 'comm [rds_rdma] src-addr 10.78.0.1:' | head -1)
	say "RDS connection ids seen at once: up to $n_max (e.g. '$rds_line'); host TCP sockets beyond the listeners' $lis_n: up to $((m_max - lis_n))"
	rds_unheld() { [ "$out" = "sent $RDS_PEERS" ] && [ $n_max -ge $((RDS_PEERS / 2)) ] && [ $m_max -eq "$lis_n" ]; }
	# The old rule gave each a host port: the control is a module before
	# issue 35 (README, "Ids the kernel makes").
	same "RDS's connection ids, bound to rxe0 by a kernel thread for user A's sends, take no host port (over A's limit of 1)" \
		"$out, up to $n_max ids at once, +$((m_max - lis_n)) host sockets" rds_unheld
	modprobe -r rds_rdma rds
	WAIT=10 wait_for tcp_alloc_at_most "$base"
	say "rds unloaded: TCP sockets $(tcp_alloc), $base before it"
	[ "$(tcp_alloc)" -le "$base" ] && ok "rds_rdma unloaded: its ports given back" ||
		bad "rds_rdma unloaded: $(tcp_alloc) TCP sockets, $base before"
	rdma link delete rxe0
	ip link del rx0
	echo "$max0" >$MAX_PORTS
	say "kernel ids: nvme (none/all) $a / $b; RDS listeners' ports to root: $lis; RDS connections for A: up to $n_max ids, +$((m_max - lis_n)) host sockets"
}
