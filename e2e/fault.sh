# SPDX-License-Identifier: GPL-2.0
# Syzkaller-style fault injection (fail-nth) against the module's paths:
# every allocation of one rdma_cm operation fails in turn (rdma_fault), and
# each failure must leave no socket, module reference or port behind.
# Sourced after lib.sh, with topology() done and the module loaded.

FAULT_DBG=/sys/kernel/debug
FAULT_PORT=30100
# name:old value of every fault-injection knob we change
fault_saved=

# fault_set FILE VALUE: set a debugfs knob, remembering its old value.
fault_set() {
	fault_saved="$fault_saved $1:$(cat "$FAULT_DBG/$1")"
	echo "$2" >"$FAULT_DBG/$1"
}

fault_setup() {
	mountpoint -q $FAULT_DBG || mount -t debugfs none $FAULT_DBG
	[ -d $FAULT_DBG/failslab ] && [ -d $FAULT_DBG/fail_page_alloc ] &&
		[ -e /proc/self/fail-nth ] || return 1
	fault_saved=
	# Sleeping allocations too, every order, no log line per fault.
	fault_set failslab/ignore-gfp-wait N
	fault_set failslab/verbose 0
	fault_set fail_page_alloc/ignore-gfp-wait N
	fault_set fail_page_alloc/ignore-gfp-highmem N
	fault_set fail_page_alloc/min-order 0
	fault_set fail_page_alloc/verbose 0
}

fault_restore() {
	local kv
	for kv in $fault_saved; do
		echo "${kv#*:}" >"$FAULT_DBG/${kv%%:*}"
	done
	fault_saved=
}

# fault_path NS PATH [ARG]: run one path in namespace NS, as ok/bad lines.
fault_paths=0
fault_points=0
fault_leaks=0
fault_path() {
	local ns=$1 name=$2 start out rc line points leaks answer
	shift
	start=$(date +%s)
	out=$(ip netns exec "$ns" "$TOOLS/rdma_fault" "$@" 2>&1)
	rc=$?
	line=$(say "$out" | grep "^fault $name: ")
	say "$out" | grep -v "^fault $name: " | head -20
	points=$(say "$line" | sed -n 's/.*: \([0-9]*\) points,.*/\1/p')
	leaks=$(say "$line" | sed -n 's/.*, \([0-9]*\) leaks$/\1/p')
	fault_paths=$((fault_paths + 1))
	fault_points=$((fault_points + ${points:-0}))
	fault_leaks=$((fault_leaks + ${leaks:-0}))
	say "fault $name: exit $rc, $(($(date +%s) - start)) s"
	# Every path but release allocates: no fault point means no injection.
	# The checks after each fault count the module's held socket and
	# references: without the module, a path that binds fails them.
	fault_clean() { [ "$rc" -eq 0 ] && [ -n "$line" ] && [ "${points:-0}" -gt 0 ]; }
	if [ "$name" = release ]; then
		[ "$rc" -eq 0 ] && [ -n "$line" ] && ok "$line" || bad "${line:-fault $name: no result}"
	else
		answer=${line#fault $name: }
		claim "fault $name: a plain errno at each failure point, nothing leaked" \
			"${answer:-no result, exit $rc}" fault_clean
	fi
}

run_fault_tests() {
	local range p=$FAULT_PORT
	say "== fault injection (fail-nth) on the module's paths"
	if ! fault_setup; then
		bad "fault injection: no failslab/fail_page_alloc/fail-nth in this kernel"
		return
	fi
	fault_path srv bind4-port0
	fault_path srv bind4-explicit $((p + 1))
	fault_path srv bind6-port0
	fault_path srv bind6-explicit $((p + 2))
	fault_path srv bind4-reuse $((p + 3))
	fault_path srv bind4-noreuse-shared $((p + 4))
	fault_path srv listen $((p + 5))
	# Two ports, both taken by two active ids: the third one shares.
	range=$(in_cli sysctl -n net.ipv4.ip_local_port_range | tr -s '\t ' ' ')
	in_cli sysctl -qw net.ipv4.ip_local_port_range="40000 40001"
	fault_path cli active-share "$SRV_IP"
	in_cli sysctl -qw net.ipv4.ip_local_port_range="$range"
	fault_path srv release $((p + 6))
	fault_restore
	say "fault-injection: $fault_paths paths, $fault_points failure points, $fault_leaks leaks"
}
