# SPDX-License-Identifier: GPL-2.0
# Syzkaller-style fault injection (fail-nth) against the module's paths:
# every allocation of one rdma_cm operation fails in turn (rdma_fault), and
# each failure must leave no socket, module reference or port behind.  Each
# failure point's stack (fault injection's verbose output) tells whose code
# it is in: the module's, the C series', or code both kernels share.
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
	local range
	mountpoint -q $FAULT_DBG || mount -t debugfs none $FAULT_DBG
	[ -d $FAULT_DBG/failslab ] && [ -d $FAULT_DBG/fail_page_alloc ] &&
		[ -e /proc/self/fail-nth ] || return 1
	fault_saved=
	# Sleeping allocations too, every order; each fault logs its stack
	# (verbose 2), which rdma_fault reads from /dev/kmsg: in the ring
	# (vm.sh: log_buf_len), not on the console (console_loglevel 1).
	fault_set failslab/ignore-gfp-wait N
	fault_set failslab/verbose 2
	fault_set fail_page_alloc/ignore-gfp-wait N
	fault_set fail_page_alloc/ignore-gfp-highmem N
	fault_set fail_page_alloc/min-order 0
	fault_set fail_page_alloc/verbose 2
	# kmemleak tracks each slab object with one of its own, allocated
	# with __GFP_NOWARN (no stack logged) and with a fallback (the
	# allocation under test still succeeds): a fault point after every
	# allocation, which only tests kmemleak.  The stack filter leaves out
	# the allocations of __alloc_object(), where kmemleak makes them:
	# from its address to the next symbol's (/proc/kallsyms is in address
	# order; sort(1) would read all of it, minutes under TCG).
	range=$(awk '$3 == "__alloc_object" { a = $1; next }
		a && $1 != a { print "0x" a, "0x" $1; exit }' /proc/kallsyms)
	[ -e $FAULT_DBG/failslab/reject-start ] && [ -n "$range" ] || return 1
	fault_set failslab/reject-start "${range% *}"
	fault_set failslab/reject-end "${range#* }"
	# The module's text, for fault_module_pass: from its first function to
	# the end of the page of its last (the text is whole pages of its own).
	# No module loaded: a range that holds nothing.
	range=$(awk '$4 == "[rdma_tcp_port]" && ($2 == "t" || $2 == "T") { print $1 }' \
		/proc/kallsyms | sort | sed -n '1p;$p' | tr '\n' ' ')
	fault_text_start=1 fault_text_end=1
	if [ -n "$range" ]; then
		fault_text_start=0x${range%% *} range=${range% }
		fault_text_end=$(printf '0x%x' $(((0x${range##* } & ~0xfff) + 0x1000)))
	fi
	say "fault: the module's text $fault_text_start-$fault_text_end"
	fault_console=$(cut -f1 /proc/sys/kernel/printk)
	dmesg -n 1
}

fault_restore() {
	local kv
	for kv in $fault_saved; do
		echo "${kv#*:}" >"$FAULT_DBG/${kv%%:*}"
	done
	fault_saved=
	dmesg -n "$fault_console"
}

# fault_class LINE CLASS: the points of CLASS ("module 3") in a summary line;
# fault_points_in and fault_leaks_in LINE: its points and its leaks.
fault_class() { say "$1" | sed -n "s/.*[(, ]$2 \([0-9]*\)[,)].*/\1/p"; }
fault_points_in() { say "$1" | sed -n 's/^fault [^:]*: \([0-9]*\) points.*/\1/p'; }
fault_leaks_in() { say "$1" | sed -n 's/.*, \([0-9]*\) leaks$/\1/p'; }

# fault_run NS PATH [ARG]: one rdma_fault run; sets out, rc and line (its
# summary), and shows its points, then what else it said (leaks, errors).
fault_run() {
	out=$(ip netns exec "$1" "$TOOLS/rdma_fault" -s "$TOOLS/series-functions" "${@:2}" 2>&1)
	rc=$?
	line=$(say "$out" | grep "^fault $2: ")
	say "$out" | grep "^point $2 "
	say "$out" | grep -v "^fault $2: \|^point $2 " | head -20
}

# fault_module_pass NS PATH [ARG]: the path again, with only the
# allocations whose stack runs through the module's text as fault points
# (the stack filter's require range), the unlogged ones too; sets the
# same as fault_run, and all (the points).
fault_module_pass() {
	local a
	for a in failslab fail_page_alloc; do
		echo "$fault_text_start" >"$FAULT_DBG/$a/require-start"
		echo "$fault_text_end" >"$FAULT_DBG/$a/require-end"
	done
	fault_run "$@"
	for a in failslab fail_page_alloc; do
		echo 0 >"$FAULT_DBG/$a/require-start"
		echo 0xffffffffffffffff >"$FAULT_DBG/$a/require-end"
	done
	all=$(fault_points_in "$line")
}

# fault_path NS PATH [ARG]: run one path in namespace NS, as ok/bad lines:
# every point, then every point in the module (fault_module_pass).
fault_paths=0
fault_points=0
fault_leaks=0
fault_module=0
fault_module_seen=0
fault_series=0
fault_elsewhere=0
fault_unseen=0
declare -A fault_mod	# path: its points in the module
fault_path() {
	local ns=$1 name=$2 start out rc line points leaks answer module series \
		elsewhere unseen all rc1 line1 leaks2
	shift
	start=$(date +%s)
	fault_run "$ns" "$@"
	points=$(fault_points_in "$line")
	leaks=$(fault_leaks_in "$line")
	module=$(fault_class "$line" module)
	series=$(fault_class "$line" series)
	elsewhere=$(fault_class "$line" elsewhere)
	unseen=$(fault_class "$line" unseen)
	rc1=$rc line1=$line
	fault_module_pass "$ns" "$@"
	leaks2=$(fault_leaks_in "$line")
	rc=$((rc1 | rc)) line=$line1
	fault_paths=$((fault_paths + 1))
	fault_points=$((fault_points + ${points:-0}))
	fault_leaks=$((fault_leaks + ${leaks:-0} + ${leaks2:-0}))
	fault_module=$((fault_module + ${all:-0}))
	fault_module_seen=$((fault_module_seen + ${module:-0}))
	fault_series=$((fault_series + ${series:-0}))
	fault_elsewhere=$((fault_elsewhere + ${elsewhere:-0}))
	fault_unseen=$((fault_unseen + ${unseen:-0}))
	fault_mod[$name]=${all:-0}
	say "fault $name: exit $rc, $(($(date +%s) - start)) s"
	# Every path but release allocates: no fault point means no injection.
	# The checks after each fault count the module's held socket and
	# references: without the module, a path that binds fails them.
	fault_clean() {
		[ "$rc" -eq 0 ] && [ -n "$line" ] && [ "${points:-0}" -gt 0 ] &&
			[ "${leaks2:-1}" -eq 0 ]
	}
	answer=${line#fault $name: }
	answer="${answer:-no result}; the module's alone: ${all:-no result} points, ${leaks2:-?} leaks"
	if [ "$name" = release ]; then
		[ "$rc" -eq 0 ] && [ -n "$line" ] && [ "${leaks2:-1}" -eq 0 ] &&
			ok "fault $name: $answer" || bad "fault $name: $answer"
	else
		claim "fault $name: a plain errno at each failure point, nothing leaked" \
			"$answer" fault_clean
		# The module's own error paths are among those failed.  It
		# allocates nothing to listen (siw does, in the series' code).
		[ "$name" = listen ] ||
			claim "fault $name: failure points in the module's code" \
				"${module:-0} of ${points:-0} points logged in the module; ${all:-0} in a run that fails the module's alone" \
				[ "${all:-0}" -gt 0 ]
	fi
}

# fault_books: a fresh namespace and uid fail more of the module's
# allocations (its books) than the same path in a namespace it knows.
fault_books() {
	[ "${fault_mod[fresh-bind4-port0]:-0}" -gt "${fault_mod[bind4-port0]:-0}" ] &&
		[ "${fault_mod[fresh-bind6-explicit]:-0}" -gt "${fault_mod[bind6-explicit]:-0}" ]
}

run_fault_tests() {
	local range p=$FAULT_PORT
	say "== fault injection (fail-nth) on the module's paths"
	if ! fault_setup; then
		bad "fault injection: no failslab/fail_page_alloc/fail-nth or stack filter in this kernel"
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
	# The module's books (per-namespace port maps, per-uid tally) are
	# allocated at a namespace's and a uid's first port, and kept: each
	# run of these in a new namespace, as a new fsuid, fails them too.
	fault_path srv fresh-bind4-port0
	fault_path srv fresh-bind6-explicit $((p + 7))
	claim "fault: a new namespace and uid add failure points in the module (its books)" \
		"module ${fault_mod[fresh-bind4-port0]} against ${fault_mod[bind4-port0]} (bind4-port0), ${fault_mod[fresh-bind6-explicit]} against ${fault_mod[bind6-explicit]} (bind6-explicit)" \
		fault_books
	fault_restore
	say "fault-injection: $fault_paths paths, $fault_points failure points" \
		"(logged: module $fault_module_seen, series $fault_series, elsewhere" \
		"$fault_elsewhere; unseen $fault_unseen), $fault_module in the module" \
		"(its text alone), $fault_leaks leaks"
}
