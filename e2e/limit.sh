# SPDX-License-Identifier: GPL-2.0
# The per-user cap and the memory cgroup, as an unprivileged user meets
# them (sourced by guest-tests.sh after lib.sh; the module is loaded).
# run_limit_tests prints one summary line of its own numbers.

FILL=$TOOLS/rdma_fill
# A control run (reserve=none) has no cap to stop a fill: each fill stops
# at 100 ids there, unless it asks for a number of its own.
if [ "$CONTROL" = none ]; then
	FILL=$(mktemp /tmp/rdma-fill.XXXXXX)
	printf '#!/bin/sh\nexec %s -n 100 "$@"\n' "$TOOLS/rdma_fill" >"$FILL"
	chmod 755 "$FILL"
fi
# TCP slab objects in use (the reservations' struct tcp_sock).  Shrinking
# first moves the CPUs' slabs and KASAN's quarantine back to the cache, so
# that the count is exact, not rounded up to whole slabs.
tcp_slab() {
	echo 1 >/sys/kernel/slab/TCP/shrink 2>/dev/null
	awk '$1 == "TCP" { print $2 }' /proc/slabinfo
}
# Shrink every slab cache: what was freed leaves KASAN's quarantine and the
# CPUs' slabs, and stops being charged to a memory cgroup.
slab_settle() {
	local f
	for f in /sys/kernel/slab/*/shrink; do
		echo 1 >"$f"
	done 2>/dev/null
}
# fill_bg OUT CMD...: start a filler (CMD ends with rdma_fill), wait until
# it holds.  $! is the background job, not always rdma_fill itself (as() is
# a function): fill_stop ends them.
fill_bg() {
	local out=$1
	shift
	"$@" >"$out" 2>&1 &
	WAIT=300 wait_for grep -q holding "$out"
}
# A memory cgroup for user A: cgroup v2 if the memory controller is there,
# else the v1 hierarchy that virtme-ng's init mounts.
cg_setup() {
	if [ -d /sys/fs/cgroup/memory ]; then
		CG=/sys/fs/cgroup/memory/rdma-user-a CG_MAX=memory.limit_in_bytes
		CG_CUR=memory.usage_in_bytes
	else
		mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
		echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
		CG=/sys/fs/cgroup/rdma-user-a CG_MAX=memory.max CG_CUR=memory.current
	fi
	mkdir -p $CG
}
# How often the cgroup hit its limit.
cg_hits() {
	if [ -f $CG/memory.events ]; then
		awk '$1 == "max" { print $2 }' $CG/memory.events
	else
		cat $CG/memory.failcnt
	fi
}
# cg_cost RESERVE NS FILL_ARGS...: what a memory cgroup of its own is charged
# while user A holds the ids of `rdma_fill FILL_ARGS`, run in network
# namespace NS ("": this one) under reserve=RESERVE: "<memory> <slab>" in
# bytes, empty unless rdma_fill made every id it was asked for. A new cgroup
# each time, read after slab_settle: nothing freed is counted.
cg_cost() {
	local reserve=$1 ns=$2 cg=$CG-cost now
	shift 2
	mkdir $cg
	set_reserve "$reserve"
	fill_bg $OUT/cgc sh -c "echo \$\$ >$cg/cgroup.procs; exec ${ns:+ip netns exec $ns }setpriv --reuid=$USER_A --regid=$USER_A --clear-groups --inh-caps=-all $FILL $*"
	slab_settle
	# memory.stat flushes the CPUs' pending statistics only once 64 pages'
	# worth per CPU are pending (mem_cgroup_flush_stats()): up to 512 KiB
	# here, half a kB per id. Reading cpu.stat flushes them all
	# (cgroup_rstat_flush()).
	cat $cg/cpu.stat >/dev/null 2>&1
	now="$(cat $cg/$CG_CUR) $(awk '$1 == "slab_unreclaimable" { print $2 }' $cg/memory.stat)"
	fill_stop
	set_reserve all
	wait_for rmdir $cg
	[ "$(why $OUT/cgc)" = ok ] && echo "$now"
}
# per_id N WITH WITHOUT FIELD: (WITH - WITHOUT) / N, of cg_cost's FIELD.
per_id() {
	local w=($2) wo=($3)
	echo $(( (${w[$4]:-0} - ${wo[$4]:-0}) / $1 ))
}
# fill_stop: end every rdma_fill of user A.
fill_stop() {
	pkill -KILL -u $USER_A -x rdma_fill
	wait_for sh -c "! pgrep -u $USER_A -x rdma_fill"
}
bound() { awk '/^bound/ { print $2 }' "$1"; }
why() { awk '/^bound/ { print $3 }' "$1"; }

# User A's subordinate uids, as on a rootless container host: /etc/subuid
# and /etc/subgid of the guest's own in an /etc of links to the real one
# (copying it over 9p took 92 s), and newuidmap and newgidmap (setuid root,
# from the host's uidmap) on a tmpfs of their own, bound in a mount
# namespace that only in_subuid_host commands see: the host's files are not
# touched, and the guest's root (9p) is left alone.
SUB_START=100000
subuid_setup() {
	# Not in $OUT (0700): A's uids write their results here.
	SUB=$(mktemp -d /tmp/rdma-sub.XXXXXX)
	chmod 755 "$SUB"
	mkdir -p "$SUB/etc" "$SUB/etc.real" "$SUB/bin" "$SUB/out"
	chmod 1777 "$SUB/out"
	# /etc's own symlinks as they are (some are relative), the rest as
	# links into etc.real, where in_subuid_host binds the real /etc.
	local f
	for f in /etc/* /etc/.[!.]*; do
		[ -e "$f" ] || [ -L "$f" ] || continue
		if [ -L "$f" ]; then
			cp -P "$f" "$SUB/etc/"
		else
			ln -s "$SUB/etc.real/${f#/etc/}" "$SUB/etc/"
		fi
	done
	rm -f "$SUB/etc/subuid" "$SUB/etc/subgid"
	echo "$USER_A:$SUB_START:65536" >"$SUB/etc/subuid"
	echo "$USER_A:$SUB_START:65536" >"$SUB/etc/subgid"
}
# in_subuid_host CMD...: run CMD where /etc/subuid gives user A its range.
in_subuid_host() {
	unshare -m sh -c '
		mount --bind /etc "$0/etc.real" &&
		mount --bind "$0/etc" /etc &&
		mount -t tmpfs -o mode=755 none "$0/bin" &&
		install -m 4755 /usr/bin/newuidmap /usr/bin/newgidmap "$0/bin/" &&
		PATH=$0/bin:$PATH exec "$@"' "$SUB" "$@"
}
# as_mapped CMD...: run CMD as user A, without capabilities, in a user
# namespace of its own (and the initial network namespace), as its root:
# A is uid 0 there, and newuidmap maps A's 65536 subordinate uids to uids
# 1-65536 (uid i is kuid SUB_START + i - 1). Root there has every
# capability over that namespace only.
as_mapped() {
	in_subuid_host setpriv --reuid=$USER_A --regid=$USER_A --clear-groups --inh-caps=-all \
		unshare --user --map-root-user --map-users=$SUB_START,1,65536 \
		--map-groups=$SUB_START,1,65536 "$@"
}
# Run by as_mapped: sh -c "$SUB_FILL" sh MAX N OUT CMD...: sets the
# namespace's user.max_rdma_tcp_ports to MAX (- leaves it), then uids 1 to
# N of the namespace run CMD (an rdma_fill that holds) one after the other,
# each once the one before holds (or is gone), the output of uid i in
# OUT/i; says "ready" then.
SUB_FILL='max=$1 n=$2 out=$3
shift 3
[ "$max" = - ] || echo "$max" >/proc/sys/user/max_rdma_tcp_ports || exit 1
for i in $(seq 1 "$n"); do
	setpriv --reuid="$i" --regid="$i" --clear-groups --inh-caps=-all "$@" >"$out/$i" 2>&1 &
	while ! grep -qs holding "$out/$i" && kill -0 $! 2>/dev/null; do sleep 0.1; done
done
echo ready
wait'
# sub_fill MAX N ARGS...: as_mapped, at a namespace limit of MAX, uids 1
# to N hold what rdma_fill ARGS binds.
sub_fill() {
	local max=$1 n=$2
	shift 2
	rm -f "$SUB"/out/*
	as_mapped sh -c "$SUB_FILL" sh "$max" "$n" "$SUB/out" "$FILL" "$@" >"$SUB/run" 2>&1 &
	SUB_PID=$!
	WAIT=600 wait_for grep -q ready "$SUB/run"
}
sub_total() { cat "$SUB"/out/* | awk '/^bound/ { n += $2 } END { print n + 0 }'; }
# How the uids' fills ended: "<count> <errno>" for each errno, e.g. "8 EMFILE".
sub_ends() { cat "$SUB"/out/* | awk '/^bound/ { print $3 }' | sort | uniq -c | xargs; }
sub_stop() {
	pkill -KILL -x rdma_fill
	wait_for sh -c "! pgrep -x rdma_fill"
	wait "$SUB_PID"
}
# Root's TCP bind(0), and a connect() that needs an ephemeral port too.
root_tcp() {
	python3 -c '
import socket
b = socket.socket(); b.bind(("0.0.0.0", 0))
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen()
socket.create_connection(l.getsockname())
print("ok")' 2>&1 | tail -1
}

# ps_fill SPACE N ADDR: user A, in srv (whose one RDMA device is siw_s),
# binds N ids of SPACE to ADDR and listens on each; prints what rdma_fill
# said and how many more host TCP sockets there were while it held them.
ps_fill() {
	local before held out
	before=$(tcp_alloc)
	fill_bg $OUT/ps-$1 as_in srv $USER_A "$FILL" -n "$2" -l -s "$1" "$3"
	held=$(($(tcp_alloc) - before))
	out=$(grep -E '^(bound|listened)' $OUT/ps-$1 | tr '\n' ' ')
	fill_stop
	echo "${out}+$held sockets"
}
# ps_expect SPACE ADDR WANT WHAT: ps_fill SPACE 1600 ADDR prints WANT.
ps_expect() {
	local out
	out=$(ps_fill "$1" 1600 "$2")
	say "RDMA_PS_${1^^} on $2: $out"
	[ "$out" = "$3" ] && ok "RDMA_PS_${1^^}: $4" || bad "RDMA_PS_${1^^} on $2: $out"
	PS_SUMMARY="$PS_SUMMARY $1 on $2: $out;"
}
# ps_listeners SPACE: the "<device>/<port>" of each id of SPACE that listens
# on a device, as the rdma tool lists them.
ps_listeners() {
	rdma res show cm_id | awk -v ps="$1" '
		/state LISTEN/ && $0 ~ "ps " ps " " {
			d = "-"
			for (i = 1; i < NF; i++) if ($i == "link") d = $(i + 1)
			print d
		}' | sort | xargs
}

# iWARP carries RDMA_PS_TCP only (series patch 4): the other port spaces'
# listeners and connections are refused on iWARP devices, and their
# wildcard listeners skip them, with the module or without.
run_port_space_tests() {
	local sp out listeners udaddy_rc pid

	say "== other port spaces on iWARP: user A listens 1600 times per space on $SRV_IP (siw_s)"
	for sp in ib udp; do
		ps_expect $sp "$SRV_IP" "bound 1600 ok listened 0 refused 1600 EPROTONOSUPPORT +0 sockets" \
			"1600 ids bind to siw's address, every listen EPROTONOSUPPORT, no host TCP socket"
	done
	# An IPoIB id binds only to an IPoIB address (the rdma_cm's own rule).
	ps_expect ipoib "$SRV_IP" "bound 0 EINVAL listened 0 refused 0 - +0 sockets" \
		"siw's address refused at bind (EINVAL, upstream's rule)"
	say "== the same as wildcard listeners (0.0.0.0): siw_s gets none of them"
	for sp in ib udp ipoib; do
		ps_expect $sp 0.0.0.0 "bound 1600 ok listened 1600 refused 0 - +0 sockets" \
			"1600 wildcard listeners, none on siw, no host TCP socket"
	done
	out=$(ps_fill tcp 10 "$SRV_IP")
	say "RDMA_PS_TCP: $out"
	case "$out" in
	"bound 10 ok listened 10 refused 0 - +"*)
		ok "RDMA_PS_TCP: 10 ids listen on siw, as before" ;;
	*) bad "RDMA_PS_TCP on siw: $out" ;;
	esac

	say "== user A connects through siw_c: RDMA_PS_UDP refused, RDMA_PS_TCP as before"
	hold_says "RDMA_PS_UDP: rdma_connect() through siw" \
		"resolve_addr ok resolve_route ok qp ok connect EPROTONOSUPPORT" \
		as_in cli $USER_A "$HOLD" -x -s udp -c "$SRV_IP" 7174
	hold_says "RDMA_PS_TCP: rdma_connect() through siw goes out over host TCP, to a port where nobody listens" \
		"resolve_addr ok resolve_route ok qp ok connect ECONNREFUSED" \
		as_in cli $USER_A "$HOLD" -x -s tcp -c "$SRV_IP" 7174

	say "== a RDMA_PS_UDP wildcard listener with siw and rxe in one namespace"
	roce_topology
	ip link add pw0 type veth peer name pw1
	ip addr add 10.79.0.1/24 dev pw0
	ip link set pw0 up
	ip link set pw1 up
	rdma link add siw_pw0 type siw netdev pw0
	as $USER_A timeout 60 udaddy >$OUT/udaddy-s.out 2>&1 &
	pid=$!
	wait_for sh -c "rdma res show cm_id | grep -q 'link rxe0/.*state LISTEN'"
	listeners=$(ps_listeners UDP)
	say "\$ rdma res show cm_id (listening, ps UDP): $listeners"
	as $USER_A timeout 60 udaddy -s "$ROCE_IP" >$OUT/udaddy-c.out 2>&1
	udaddy_rc=$?
	wait $pid
	say "udaddy -s $ROCE_IP (over rxe0): exit $udaddy_rc; $(tail -1 $OUT/udaddy-c.out)"
	case " $listeners " in
	*siw*) bad "a RDMA_PS_UDP wildcard listener listens on siw_pw0: $listeners" ;;
	*rxe0*) ok "a RDMA_PS_UDP wildcard listener listens on rxe0, not on siw_pw0: $listeners" ;;
	*) bad "a RDMA_PS_UDP wildcard listener: $listeners" ;;
	esac
	[ $udaddy_rc = 0 ] && ok "udaddy (RDMA_PS_UDP, user A) works over rxe0 next to siw_pw0" ||
		{ cat $OUT/udaddy-s.out $OUT/udaddy-c.out; bad "udaddy over rxe0: exit $udaddy_rc"; }
	PS_SUMMARY="$PS_SUMMARY udp wildcard listens on [$listeners], udaddy exit $udaddy_rc"
	rdma link delete siw_pw0
	rdma link delete rxe0
	ip link del pw0
	ip link del rx0
}

run_limit_tests() {
	local mode base_tcp base_slab held total nofile_a share_ns lo hi cap first want got
	local b_connect b_bind b_iperf root_bind after_tcp after_slab cg
	local cg_n cg_why cg_bytes cg_slab cg_aslab own_n before
	local sub_n sub_ends sub_held sub_root sub_low sub_high ctl_n ctl_held ctl_root

	mode=$(stat -c %a /dev/infiniband/rdma_cm)
	say "/dev/infiniband/rdma_cm mode $mode; user_share $(cat $SHARE)"
	[ "$mode" = 666 ] && ok "rdma_cm is open to every user (0666, as ucma makes it)" ||
		bad "rdma_cm mode $mode"
	[ "$(cat $SHARE)" = 5 ] && ok "user_share defaults to 5 (%)" || bad "user_share: $(cat $SHARE)"
	echo 101 >$SHARE 2>/dev/null && bad "user_share=101 accepted" || ok "user_share=101 refused"

	say "== user A ($USER_A) binds ids until refused, from three processes"
	base_tcp=$(tcp_alloc)
	base_slab=$(tcp_slab)
	nofile_a=$(as $USER_A sh -c 'ulimit -n')
	fill_bg $OUT/a1 as $USER_A "$FILL" 0.0.0.0
	fill_bg $OUT/a2 as $USER_A "$FILL" 0.0.0.0
	fill_bg $OUT/a3 as $USER_A sh -c "ulimit -n \$(ulimit -Hn); exec $FILL 0.0.0.0"
	total=$(( $(bound $OUT/a1) + $(bound $OUT/a2) + $(bound $OUT/a3) ))
	held=$(( $(tcp_alloc) - base_tcp ))
	say "A (RLIMIT_NOFILE $nofile_a): $(bound $OUT/a1) $(why $OUT/a1), $(bound $OUT/a2) $(why $OUT/a2), then with ulimit -n at its hard limit $(bound $OUT/a3) $(why $OUT/a3): $total ids, $held host TCP sockets"
	# The share: 5 % of the range, rounded down (1411 of 32768-60999).
	# RLIMIT_NOFILE is the stricter bound for the first two processes (the
	# first takes it all, the second none), the share for the third.
	read -r lo hi </proc/sys/net/ipv4/ip_local_port_range
	cap=$(((hi - lo + 1) * 5 / 100))
	first=$((nofile_a < cap ? nofile_a : cap))
	want="$first EMFILE, 0 EMFILE, $((cap - first)) EMFILE"
	got="$(bound $OUT/a1) $(why $OUT/a1), $(bound $OUT/a2) $(why $OUT/a2), $(bound $OUT/a3) $(why $OUT/a3)"
	say "user A's share: $cap ports (5 % of $((hi - lo + 1))); want $want, each a host TCP socket"
	a_capped() { [ "$got" = "$want" ] && [ "$held" -eq "$total" ]; }
	claim "user A's ids from three processes: its share of the range, then EMFILE, each a host TCP socket" \
		"$got; $held host sockets" a_capped

	say "== meanwhile user B and root"
	in_srv iperf -s -p 5001 >/dev/null 2>&1 &
	local iperf_pid=$!
	wait_for tcp_listening 5001
	python3 -m http.server -b 127.0.0.1 8099 >/dev/null 2>&1 &
	local http_pid=$!
	wait_for sh -c "ss -Hltn 'sport = :8099' | grep -q LISTEN"
	b_connect=$(as $USER_B python3 -c "import socket; socket.create_connection(('127.0.0.1', 8099)); print('ok')" 2>&1 | tail -1)
	b_bind=$(as $USER_B python3 -c "import socket; s = socket.socket(); s.bind(('0.0.0.0', 0)); print('ok')" 2>&1 | tail -1)
	b_iperf=$(as_in cli $USER_B timeout 60 iperf -c "$SRV_IP" -p 5001 -t 1 2>&1 | grep -c 'bits/sec')
	root_bind=$("$HOLD" -x 0.0.0.0 0 | head -1)
	stop $http_pid
	stop $iperf_pid
	say "B: connect() $b_connect, bind(0) $b_bind, iperf lines $b_iperf; root's RDMA id: $root_bind"
	[ "$b_connect" = ok ] && [ "$b_bind" = ok ] && [ "$b_iperf" -ge 1 ] &&
		ok "user B's TCP connect(), bind(0) and iperf work while A is at its cap" ||
		bad "user B: connect $b_connect, bind $b_bind, iperf $b_iperf"
	[ "$root_bind" = "bind ok" ] && ok "root's RDMA id still binds" || bad "root's RDMA id: $root_bind"

	say "== A exits: everything back"
	# Sockets of B's tests may still be closing: the count must fall by
	# what A held, and the slab back to its baseline.
	before=$(tcp_alloc)
	fill_stop
	wait_for tcp_alloc_at_most $((before - held))
	after_tcp=$(tcp_alloc)
	after_slab=$(tcp_slab)
	say "TCP sockets: $base_tcp before A, $before with A's $held, $after_tcp after; TCP slab objects: $base_slab before, $after_slab after"
	# The slab may keep B's sockets that are still closing, and a few
	# objects that RCU has not handed back yet.
	[ "$after_tcp" -le $((before - held)) ] &&
		[ "$after_slab" -le $((base_slab + after_tcp - base_tcp + 8)) ] &&
		ok "after A: TCP sockets and TCP slab back to their baseline" ||
		bad "after A: TCP $after_tcp (was $before with A), slab $after_slab (was $base_slab)"

	say "== a namespace with a 100-port range: 5 % is 5 ports"
	in_cli sysctl -qw net.ipv4.ip_local_port_range="40000 40099"
	as_in cli $USER_A "$FILL" -x 0.0.0.0 >$OUT/ans
	share_ns=$(bound $OUT/ans)
	in_cli sysctl -qw net.ipv4.ip_local_port_range="32768 60999"
	say "user A in cli (range 40000-40099): $(cat $OUT/ans)"
	claim "user A's share of a 100-port namespace: 5 ports, then EMFILE" \
		"$share_ns $(why $OUT/ans)" [ "$share_ns $(why $OUT/ans)" = "5 EMFILE" ]

	say "== memory cgroup: A's reservations are charged to A's cgroup"
	cg_setup
	cg=$CG
	say "memory cgroup: $cg"
	echo 0 >$SHARE
	# What 1000 held ids cost A, with a host port and without one
	# (reserve=none): the difference is the reservation, its socket, and for
	# an active-side id (rdma_resolve_addr() from cli over siw_c) also its
	# two entries in the module's table of shared ports. Their slab bytes
	# are exact; memory.current moves with the CPUs' charge batches.
	local with without a_with a_without
	with=$(cg_cost all "" -n 1000 0.0.0.0)
	without=$(cg_cost none "" -n 1000 0.0.0.0)
	a_with=$(cg_cost all cli -n 1000 -r $SRV_IP 0.0.0.0)
	a_without=$(cg_cost none cli -n 1000 -r $SRV_IP 0.0.0.0)
	cg_bytes=$(per_id 1000 "$with" "$without" 0)
	cg_slab=$(per_id 1000 "$with" "$without" 1)
	cg_aslab=$(per_id 1000 "$a_with" "$a_without" 1)
	# Then a 16 MiB cgroup, no port cap: A binds until its cgroup stops it.
	echo 16M >$cg/$CG_MAX
	before=$(tcp_alloc)
	timeout 600 sh -c "echo \$\$ >$cg/cgroup.procs; exec setpriv --reuid=$USER_A --regid=$USER_A --clear-groups --inh-caps=-all $FILL -p -x 0.0.0.0" >$OUT/cg2 2>&1
	local st=$?
	cg_n=$(bound $OUT/cg2)
	cg_why=$(why $OUT/cg2)
	[ -n "$cg_n" ] || { cg_n=$(awk '/^progress/ { n = $2 } END { print n + 0 }' $OUT/cg2); cg_why="killed (exit $st)"; }
	local max=$(cg_hits)
	echo 5 >$SHARE
	wait_for tcp_alloc_at_most "$before"
	rmdir $cg 2>/dev/null
	say "1000 held ids cost A's cgroup ($with) with host ports, ($without) without: $cg_bytes B per reservation, $cg_slab B of it slab; 1000 active-side ids: $cg_aslab B slab each ($a_with, $a_without)"
	say "memory limit 16M, no port cap: A bound about $cg_n ids, then $cg_why (limit hit $max times); TCP sockets back to $(tcp_alloc)"
	cg_charged() { [ -n "$with" ] && [ -n "$without" ] && [ "$cg_bytes" -ge 2048 ] && [ "$cg_slab" -ge 2048 ]; }
	claim "a reservation is charged to its user's memory cgroup (2048 B at least)" \
		"$cg_bytes B, $cg_slab B slab" cg_charged
	# An active-side id's two table entries (rb_nodes, keys, its 4-tuple)
	# are about 270 B of slab with KASAN's metadata. Were they not charged,
	# it would cost what a bound id does, plus what resolving costs the
	# rdma_cm (under 20 B).
	cg_active() { [ -n "$a_with" ] && [ -n "$a_without" ] && [ $((cg_aslab - cg_slab)) -ge 128 ]; }
	claim "an active-side id's entries in the module's table are charged to its user too (128 B more slab)" \
		"+$((cg_aslab - cg_slab)) B slab" cg_active
	cg_stopped() {
		[ "$cg_n" -ge 100 ] && [ "$cg_n" -lt 8000 ] && [ "${max:-0}" -gt 0 ] &&
			[ "$(tcp_alloc)" -le "$before" ]
	}
	claim "A's 16 MiB cgroup stops A's binds, not the host" \
		"$cg_n ids, $cg_why, limit hit ${max:-0} times" cg_stopped

	say "== A in a user and network namespace of its own: administers it, not capped there"
	own_n=$(as $USER_A unshare -Urn sh -c "ulimit -n 4096 2>/dev/null; $FILL -x -n 2000 0.0.0.0" | awk '/^bound/ { print $2 }')
	same "A binds 2000 ids in its own namespace (CAP_NET_ADMIN there: not capped)" \
		"$own_n" [ "$own_n" = 2000 ]

	say "== user A maps 8 of its subordinate uids into a user namespace of its own"
	subuid_setup
	before=$(tcp_alloc)
	sub_fill - 8 0.0.0.0
	sub_n=$(sub_total)
	sub_ends=$(sub_ends)
	sub_held=$(($(tcp_alloc) - before))
	sub_root=$(root_tcp)
	sub_stop
	say "A's uids 1-8 there (kuids $SUB_START-$((SUB_START + 7))), in the initial network namespace: $sub_n ids in all, each uid's last bind: $sub_ends; $sub_held host TCP sockets; root's bind(0) and connect(): $sub_root"
	sub_capped() { [ "$sub_n" = 1411 ] && [ "$sub_ends" = "8 EMFILE" ] && [ "$sub_held" -eq 1411 ]; }
	claim "A's 8 subordinate uids hold 1411 ports in all (user.max_rdma_tcp_ports), then EMFILE" \
		"$sub_n ids ($sub_ends), $sub_held host sockets" sub_capped
	[ "$sub_root" = ok ] && ok "root's bind(0) and connect() work while A's uids hold them" ||
		bad "root's bind(0) and connect(): $sub_root"

	say "== A sets its own namespace's user.max_rdma_tcp_ports: lower, then higher"
	sub_fill 100 2 0.0.0.0
	sub_low="$(sub_total) ($(sub_ends))"
	sub_stop
	sub_fill 1000000 2 0.0.0.0
	sub_high="$(sub_total) ($(sub_ends))"
	sub_stop
	say "at 100 there, uids 1 and 2: $sub_low ids; at 1000000 there: $sub_high"
	claim "A's namespace limit of 100 stops each of its uids at 100" \
		"$sub_low" [ "$sub_low" = "200 (2 EMFILE)" ]
	claim "a namespace limit above the initial one's lifts nothing: 1411 in all" \
		"$sub_high" [ "$sub_high" = "1411 (2 EMFILE)" ]

	say "== control: reserve=none, the same 8 uids, 400 ids each"
	set_reserve none
	before=$(tcp_alloc)
	sub_fill - 8 -n 400 0.0.0.0
	ctl_n="$(sub_total) ($(sub_ends))"
	ctl_held=$(($(tcp_alloc) - before))
	ctl_root=$(root_tcp)
	sub_stop
	set_reserve all
	say "reserve=none: $ctl_n ids, $ctl_held more host TCP sockets; root's bind(0) and connect(): $ctl_root"
	[ "$ctl_n" = "3200 (8 ok)" ] && [ "$ctl_held" -eq 0 ] && [ "$ctl_root" = ok ] &&
		ok "control, reserve=none: A's uids bind 3200 ids, no host port held, no cap (the module's), root unaffected" ||
		bad "control, reserve=none: $ctl_n ids, $ctl_held sockets, root $ctl_root"

	PS_SUMMARY=
	run_port_space_tests

	say "limits: user A held $total ports (cap 1411, RLIMIT_NOFILE $nofile_a) then $(why $OUT/a3); $share_ns of a 100-port namespace; user B connect $b_connect bind(0) $b_bind iperf $b_iperf; root $root_bind; memcg $cg_bytes B/id ($cg_slab slab, active-side $cg_aslab), a 16M cgroup stopped A at $cg_n ids ($cg_why); $own_n in its own netns; 8 subordinate uids $sub_n ($sub_ends), at a namespace limit of 100 $sub_low, of 1000000 $sub_high; reserve=none $ctl_n, +$ctl_held sockets; other port spaces on siw:$PS_SUMMARY"
}
