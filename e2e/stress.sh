# SPDX-License-Identifier: GPL-2.0
# Everything at once (sourced after lib.sh; topology() done, module loaded):
# run_stress_tests keeps, for ${STRESS_SECONDS:-180} seconds,
#  - rdma_churn processes in srv, cli and the root namespace creating,
#    binding (port 0 and 6000-6009, with and without reuse, IPv4 and IPv6),
#    listening, resolving towards srv, connecting over siw to a server in
#    srv and destroying ids in random order; some runs end on SIGTERM or
#    SIGKILL or leave their ids to the kernel;
#  - the server (rdma_churn -S on $SRV_IP:7500), restarted now and then;
#  - reserve and idr flipped through sysfs;
#  - rmmod (kmod's, and delete_module(2) itself) and insmod of $KO, so the
#    module is absent at times;
#  - network namespaces with a veth pair, a siw link and live ids (bound,
#    listening, churning), torn down under those ids;
#  - siw links added and deleted in the root namespace;
# then stops everything and checks that sockets, module references, ids,
# devices and namespaces are back where they were, and the kernel log; and
# that the provider held ports meanwhile: the churns probe each port-0 bind
# with a TCP bind() of the same address and port.  STRESS_RESERVE=none (the
# control) keeps reserve at that value all along, so the provider holds
# nothing and that check fails; a control run (CONTROL=none) sets it.

[ "$CONTROL" = none ] && STRESS_RESERVE=none

CHURN=$TOOLS/rdma_churn
STRESS_PARAMS=/sys/module/rdma_tcp_port/parameters
STRESS_PORT=7500

# stress_left: seconds until the end of the run (at least 1).
stress_left() {
	local l=$((stress_end - EPOCHSECONDS))
	[ "$l" -ge 1 ] && echo "$l" || echo 1
}
stress_running() { [ "$EPOCHSECONDS" -lt "$stress_end" ]; }
# stress_cap N: N, but no later than the end of the run.
stress_cap() {
	local l
	l=$(stress_left)
	[ "$1" -lt "$l" ] && echo "$1" || echo "$l"
}
stress_loaded() { grep -q '^rdma_tcp_port ' /proc/modules; }
# stress_reap PID SECONDS: wait for PID, at most SECONDS; 1 if it lives on.
stress_reap() {
	local i
	for i in $(seq $(($2 * 4))); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.25
	done
	kill -0 "$1" 2>/dev/null && return 1
	wait "$1" 2>/dev/null
	return 0
}
stress_note() { echo "$*" >>"$sdir/problems"; }

# The server in srv, restarted every 10-30 s.
stress_server_loop() {
	local runs=0
	while stress_running; do
		in_srv "$CHURN" -S -t "$(stress_cap $((10 + RANDOM % 20)))" \
			"$SRV_IP" "$STRESS_PORT" >>"$sdir/server.out" 2>&1
		runs=$((runs + 1))
	done
	echo "$runs" >"$sdir/server.count"
}

# stress_churn_loop NAME NS ARGS...: rdma_churn runs of 3-17 s in NS (-:
# the root namespace), one after the other; one in four is cut short by
# SIGTERM (or, one in sixteen, SIGKILL), one in three leaves its ids to the
# kernel.
stress_churn_loop() {
	local name=$1 ns=$2 runs=0 killed=0 t pid leave sig
	shift 2
	while stress_running; do
		t=$(stress_cap $((3 + RANDOM % 15)))
		leave=
		[ $((RANDOM % 3)) -eq 0 ] && leave=-x
		if [ "$ns" = - ]; then
			"$CHURN" -t "$t" -s "$RANDOM$runs" $leave "$@" >>"$sdir/$name.out" 2>&1 &
		else
			ip netns exec "$ns" "$CHURN" -t "$t" -s "$RANDOM$runs" $leave "$@" \
				>>"$sdir/$name.out" 2>&1 &
		fi
		pid=$!
		if [ $((RANDOM % 4)) -eq 0 ]; then
			sleep $((RANDOM % t)).$((RANDOM % 10))
			sig=TERM
			[ $((RANDOM % 4)) -eq 0 ] && sig=KILL
			kill -"$sig" "$pid" 2>/dev/null && [ "$sig" = KILL ] && killed=$((killed + 1))
		fi
		if ! stress_reap "$pid" $((t + 120)); then
			stress_note "$name: rdma_churn $pid still running 120 s after its end"
			kill -KILL "$pid" 2>/dev/null
			stress_reap "$pid" 60 || break
		fi
		runs=$((runs + 1))
	done
	echo "$runs $killed" >"$sdir/$name.count"
}

# reserve and idr flipped every 0.1-1 s (not reserve while the module loop
# drains); writes fail while the module is absent, which is fine.
stress_param_loop() {
	local flips=0 tries=0 v f
	local reserves=(all all iwarp none) idrs=(Y N 0 1)
	[ -n "${STRESS_RESERVE:-}" ] && reserves=("$STRESS_RESERVE")
	while stress_running; do
		sleep 0.$((RANDOM % 10))
		tries=$((tries + 1))
		case $((RANDOM % 10)) in
		[0-5])
			[ -e "$sdir/drain" ] && continue
			f=reserve
			v=${reserves[RANDOM % ${#reserves[@]}]}
			;;
		[6-8])
			f=idr
			v=${idrs[RANDOM % 4]}
			;;
		9)
			if echo bogus >"$STRESS_PARAMS/reserve" 2>/dev/null; then
				stress_note "reserve=bogus accepted"
			fi
			continue
			;;
		esac
		echo "$v" >"$STRESS_PARAMS/$f" 2>/dev/null && flips=$((flips + 1))
	done
	echo "$flips $tries" >"$sdir/param.count"
}

# stress_unload: one unload attempt, kmod's rmmod or delete_module(2).
stress_unload() {
	if [ $((RANDOM % 2)) -eq 0 ]; then
		rmmod rdma_tcp_port 2>/dev/null
	else
		[ "$("$CHURN" -U rdma_tcp_port)" = ok ]
	fi
}

# Every 1-3 s: unload the module if loaded, else load it (with random
# parameters at times). One time in four drain first: reserve=none, so that
# ids made from then on pin nothing, and retry the unload for up to 20 s
# (the server's listener and the namespaces' holders live that long).
stress_module_loop() {
	local rm=0 rmok=0 ins=0 insok=0 drain_end args
	while stress_running; do
		sleep $((1 + RANDOM % 3))
		if stress_loaded; then
			if [ $((RANDOM % 4)) -eq 0 ]; then
				touch "$sdir/drain"
				echo none >"$STRESS_PARAMS/reserve" 2>/dev/null
				# By the clock: on a slow guest each rmmod takes
				# seconds, and 40 tries could keep reserve=none
				# for over a minute.
				drain_end=$((EPOCHSECONDS + 20))
				while [ "$EPOCHSECONDS" -lt "$drain_end" ]; do
					rm=$((rm + 1))
					if stress_unload; then
						rmok=$((rmok + 1))
						break
					fi
					sleep 0.5
				done
				rm -f "$sdir/drain"
			else
				rm=$((rm + 1))
				stress_unload && rmok=$((rmok + 1))
			fi
			stress_loaded || sleep 0.$((RANDOM % 10))
		fi
		if ! stress_loaded; then
			args=${STRESS_RESERVE:+reserve=$STRESS_RESERVE}
			[ -z "$args" ] && [ $((RANDOM % 4)) -eq 0 ] &&
				args="reserve=$(shuf -n1 -e all iwarp none)"
			[ $((RANDOM % 4)) -eq 0 ] && args="$args idr=$(shuf -n1 -e Y N)"
			ins=$((ins + 1))
			insmod "$KO" $args 2>>"$sdir/insmod.log" && insok=$((insok + 1))
		fi
	done
	echo "$rm $rmok $ins $insok" >"$sdir/module.count"
}

# A namespace with a veth pair, a siw link and live ids, torn down under
# them. Deleting a siw device's netdev (or the siw link) waits for the
# processes that opened the device (siw cannot disassociate a user
# context), so the holders are killed while the deletion waits.
stress_netns_loop() {
	local n=0 ns siw ip mode pids p del i a k
	while stress_running; do
		n=$((n + 1))
		ns=st$n
		siw=siw_st$n
		ip=10.81.$((n % 250)).1
		ip netns add "$ns" || { stress_note "netns add $ns failed"; sleep 1; continue; }
		ip -n "$ns" link add g0 type veth peer name g1
		ip -n "$ns" addr add "$ip/24" dev g0
		ip -n "$ns" link set lo up
		ip -n "$ns" link set g0 up
		ip -n "$ns" link set g1 up
		ip netns exec "$ns" rdma link add "$siw" type siw netdev g0 ||
			stress_note "rdma link add $siw failed"
		pids=
		k=0
		for a in "-l $ip 7000" "-l 0.0.0.0 7001" "-r -l 0.0.0.0 6000" "-r $ip 0" "-l :: 7002"; do
			k=$((k + 1))
			ip netns exec "$ns" "$HOLD" $a >"$sdir/$ns.hold.$k" 2>&1 &
			pids="$pids $!"
		done
		ip netns exec "$ns" "$CHURN" -t 60 -s "$n" -n 4 -x "$ip" 0.0.0.0 :: \
			>>"$sdir/netns-churn.out" 2>&1 &
		pids="$pids $!"
		for i in $(seq 40); do
			[ "$(cat "$sdir/$ns".hold.* 2>/dev/null | grep -c holding)" -ge 5 ] && break
			sleep 0.5
		done
		sleep 0.$((RANDOM % 10))
		mode=$((RANDOM % 4))
		del=
		case $mode in
		0) # the netdev first, the namespace's name, then the holders
			ip -n "$ns" link del g0 &
			del=$!
			sleep 1
			ip netns del "$ns"
			kill $pids 2>/dev/null
			;;
		1) # the siw link first, then the holders, then the namespace
			ip netns exec "$ns" rdma link delete "$siw" &
			del=$!
			sleep 1
			kill $pids 2>/dev/null
			;;
		2) # the namespace's name first: it dies with the last id
			ip netns del "$ns"
			sleep 0.5
			kill -KILL $pids 2>/dev/null
			;;
		3) # the holders first, then the link, then the namespace
			kill -KILL $pids 2>/dev/null
			;;
		esac
		for p in $pids; do
			stress_reap "$p" 60 || stress_note "$ns: holder $p outlived SIGKILL by 60 s"
		done
		if [ -n "$del" ] && ! stress_reap "$del" 120; then
			stress_note "$ns (mode $mode): deletion still waiting 120 s after its users died"
		fi
		case $mode in
		1 | 3)
			[ "$mode" = 3 ] && ip netns exec "$ns" rdma link delete "$siw"
			ip netns del "$ns"
			;;
		esac
		rm -f "$sdir/$ns".hold.*
	done
	echo "$n" >"$sdir/netns.count"
}

# siw links on a veth pair in the root namespace, added and deleted (the
# link itself, or its netdev) every 0-2 s. Wildcard listeners elsewhere get
# per-device listeners on each new device.
stress_siw_loop() {
	local n=0 l
	while stress_running; do
		n=$((n + 1))
		l=sl$n
		ip link add "$l" type veth peer name "${l}p"
		ip addr add 10.82.0.1/24 dev "$l"
		ip link set "$l" up
		ip link set "${l}p" up
		rdma link add "siw_l$n" type siw netdev "$l" || stress_note "rdma link add siw_l$n failed"
		sleep $((RANDOM % 2)).$((RANDOM % 10))
		if [ $((RANDOM % 2)) -eq 0 ]; then
			timeout 120 rdma link delete "siw_l$n" || stress_note "rdma link delete siw_l$n failed"
		fi
		timeout 120 ip link del "$l" || stress_note "ip link del $l failed"
	done
	echo "$n" >"$sdir/siw.count"
}

# stress_sum FILES...: the churns' final lines summed: one line "runs N
# creates N binds N ... fail_bind N ...", then one "op:ERRNO=N" per line.
stress_sum() {
	cat "$@" 2>/dev/null | awk '/^churn creates / {
		runs++
		for (i = 2; i <= 16; i += 2) s[$i] += $(i + 1)
		for (i = 19; i <= 25; i += 2) s["fail_" $i] += $(i + 1)
		for (i = 28; i <= NF; i++) { split($i, a, "="); e[a[1]] += a[2] }
	}
	END {
		printf "runs %d", runs
		n = split("creates binds listens resolves connects destroys held unheld fail_bind fail_listen fail_resolve fail_connect", k, " ")
		for (i = 1; i <= n; i++) printf " %s %d", k[i], s[k[i]]
		printf "\n"
		for (x in e) printf "  %s=%d\n", x, e[x]
	}'
}
# stress_field LINE KEY: the number after KEY in LINE (0 if none).
stress_field() {
	say "$1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) v = $(i + 1) } END { print v + 0 }'
}

run_stress_tests() {
	local secs=${STRESS_SECONDS:-180} t0 sdir stress_end
	local alloc0 ref0 ids0 dmesg0 loops p alloc1 ref1 ids1 log
	local binds listens resolves connects tries destroys held unheld sums flips rms rmok ins nns
	sdir=$OUT/stress
	mkdir -p "$sdir"
	say "== stress: everything at once for $secs s"
	alloc0=$(tcp_alloc)
	ref0=$(cat /sys/module/rdma_tcp_port/refcnt)
	ids0=$(rdma res show cm_id | wc -l)
	dmesg0=$(dmesg | wc -l)
	t0=$EPOCHSECONDS
	stress_end=$((t0 + secs))
	[ -n "${STRESS_RESERVE:-}" ] && echo "$STRESS_RESERVE" >"$STRESS_PARAMS/reserve"
	say "start: TCP alloc $alloc0, module refcnt $ref0, cm_ids $ids0, reserve $(cat "$STRESS_PARAMS/reserve")"

	loops=
	stress_server_loop 2>>"$sdir/server.err" &
	loops="$loops $!"
	stress_churn_loop churn-srv1 srv -d "$SRV_IP" -c "$STRESS_PORT" 0.0.0.0 "$SRV_IP" :: 2>>"$sdir/churn-srv1.err" &
	loops="$loops $!"
	stress_churn_loop churn-srv2 srv -n 12 -d "$SRV_IP" 0.0.0.0 "$SRV_IP" 2>>"$sdir/churn-srv2.err" &
	loops="$loops $!"
	stress_churn_loop churn-cli1 cli -d "$SRV_IP" -c "$STRESS_PORT" 0.0.0.0 "$CLI_IP" :: 2>>"$sdir/churn-cli1.err" &
	loops="$loops $!"
	stress_churn_loop churn-cli2 cli -d "$SRV_IP" -c "$STRESS_PORT" "$CLI_IP" 0.0.0.0 2>>"$sdir/churn-cli2.err" &
	loops="$loops $!"
	# The root namespace: wildcards only, next to the siw links added there.
	stress_churn_loop churn-root - 0.0.0.0 :: 2>>"$sdir/churn-root.err" &
	loops="$loops $!"
	stress_param_loop 2>>"$sdir/param.err" &
	loops="$loops $!"
	stress_module_loop 2>>"$sdir/module.err" &
	loops="$loops $!"
	stress_netns_loop 2>>"$sdir/netns.err" &
	loops="$loops $!"
	stress_siw_loop 2>>"$sdir/siw.err" &
	loops="$loops $!"

	for p in $loops; do
		stress_reap "$p" $((secs + 400)) || {
			bad "stress: a loop (pid $p) did not finish within 400 s of the end"
			ps -ef --forest | tail -40
		}
	done
	say "stress: loops done after $((EPOCHSECONDS - t0)) s"

	# The module back, with its defaults.
	stress_loaded || load_module
	set_reserve all
	echo Y >"$STRESS_PARAMS/idr"
	stress_loaded && ok "stress: module loaded at the end" || bad "stress: module not loaded at the end"

	WAIT=240 wait_for tcp_alloc_at_most "$alloc0"
	alloc1=$(tcp_alloc)
	[ "$alloc1" -le "$alloc0" ] && ok "stress: TCP sockets back to $alloc0 (now $alloc1)" ||
		{ bad "stress: TCP sockets not back: start $alloc0, now $alloc1"; cat /proc/net/sockstat; }
	WAIT=120 wait_for sh -c "[ \$(cat /sys/module/rdma_tcp_port/refcnt) -le $ref0 ]"
	ref1=$(cat /sys/module/rdma_tcp_port/refcnt)
	[ "$ref1" -le "$ref0" ] && ok "stress: module refcnt back to $ref0 (now $ref1)" ||
		bad "stress: module refcnt not back: start $ref0, now $ref1"
	ids1=$(rdma res show cm_id | wc -l)
	[ "$ids1" -le "$ids0" ] && ok "stress: no rdma_cm id left (cm_id lines $ids1)" ||
		{ bad "stress: rdma_cm ids left: $ids1 lines, start $ids0"; rdma res show cm_id | head -20; }
	WAIT=120 wait_for sh -c "! rdma link show | grep -Eq 'siw_(st|l)[0-9]'"
	rdma link show | grep -Eq 'siw_(st|l)[0-9]' &&
		{ bad "stress: siw links left over"; rdma link show; } ||
		ok "stress: every stress siw link gone"
	ip netns list | grep -Eq '^st[0-9]' &&
		{ bad "stress: namespaces left over"; ip netns list; } ||
		ok "stress: every stress namespace gone"
	# The module can go and come back once nothing is held.
	if rmmod rdma_tcp_port && load_module; then
		ok "stress: rmmod and insmod after the run"
	else
		bad "stress: rmmod/insmod after the run (refcnt $(cat /sys/module/rdma_tcp_port/refcnt 2>/dev/null))"
		stress_loaded || load_module
	fi
	if [ -s "$sdir/problems" ]; then
		sed 's/^/  /' "$sdir/problems"
		bad "stress: $(wc -l <"$sdir/problems") problems noted by the loops"
	else
		ok "stress: no loop noted a problem"
	fi

	log=$(dmesg | tail -n +$((dmesg0 + 1)))
	if say "$log" | grep -Eq 'BUG: |WARNING: |cut here|general protection|Oops'; then
		say "$log" | grep -E -B2 -A30 'BUG: |WARNING: |cut here|general protection|Oops' | head -120
		bad "stress: kernel log free of lockdep, KASAN, WARN and BUG reports"
	else
		ok "stress: kernel log free of lockdep, KASAN, WARN and BUG reports"
	fi
	if say "$log" | grep -Eq 'blocked for more than|waiting for .* to become free'; then
		say "$log" | grep -E -A30 'blocked for more than|waiting for .* to become free' | head -120
		bad "stress: no hung task and no netdev left waiting"
	else
		ok "stress: no hung task and no netdev left waiting"
	fi

	# Counts: the churns' own, and the loops'.
	sums=$(stress_sum "$sdir"/churn-*.out "$sdir"/netns-churn.out | head -1)
	say "churns: $sums"
	say "churn errors (op:errno=count):"
	stress_sum "$sdir"/churn-*.out "$sdir"/netns-churn.out | tail -n +2 | sort
	say "churn loops (runs, SIGKILLed): $(for f in "$sdir"/churn-*.count; do printf '%s %s; ' "$(basename "$f" .count)" "$(cat "$f")"; done)"
	say "server runs: $(cat "$sdir/server.count" 2>/dev/null); last: $(grep -c listening "$sdir/server.out") listening, $(grep 'requests' "$sdir/server.out" | awk '{ r += $3; a += $5; j += $7 } END { print r " requests, " a " accepted, " j " rejected" }')"
	grep -v -e '^server: listening' -e '^server: requests' "$sdir/server.out" | sort | uniq -c | head
	[ -s "$sdir/insmod.log" ] && { say "insmod errors:"; sort "$sdir/insmod.log" | uniq -c; }
	say "loops' stderr (killed jobs left out):"
	cat "$sdir"/*.err | grep -v -e 'Killed' -e 'Terminated' | sort | uniq -c | sort -rn | head -20
	grep -h -v '^churn ' "$sdir"/churn-*.out "$sdir"/netns-churn.out 2>/dev/null | sort | uniq -c | head

	sums=$(stress_sum "$sdir"/churn-*.out "$sdir"/netns-churn.out | head -1)
	binds=$(stress_field "$sums" binds)
	listens=$(stress_field "$sums" listens)
	resolves=$(stress_field "$sums" resolves)
	connects=$(stress_field "$sums" connects)
	# A connect tried is one that ran: resolve_route, a QP and
	# rdma_connect(), which the server's restarts may refuse.
	tries=$((connects + $(stress_field "$sums" fail_connect)))
	destroys=$(stress_field "$sums" destroys)
	held=$(stress_field "$sums" held)
	unheld=$(stress_field "$sums" unheld)
	read -r flips _ <"$sdir/param.count"
	read -r rms rmok ins _ <"$sdir/module.count"
	nns=$(cat "$sdir/netns.count")
	say "stress: $secs s, binds $binds, listens $listens, resolves $resolves, connects $connects ($tries tried), destroys $destroys, param flips $flips, rmmod $rms (ok $rmok), insmod $ins, netns $nns, siw links $(cat "$sdir/siw.count")"
	[ "$binds" -gt 0 ] && [ "$listens" -gt 0 ] && [ "$resolves" -gt 0 ] &&
		[ "$tries" -gt 0 ] && [ "$flips" -gt 0 ] && [ "$ins" -gt 0 ] && [ "$nns" -gt 0 ] &&
		ok "stress: every kind of operation ran" ||
		bad "stress: some kind of operation never ran"
	# reserve is all half of the time, the module loaded most of it (a
	# third to 40 % of the ports held in a run); an inert provider holds none.
	say "stress: port-0 binds probed with a TCP bind() of their port: $held held by the host, $unheld free"
	stress_held() { [ $((held * 10)) -ge $((held + unheld)) ] && [ "$held" -gt 0 ]; }
	claim "stress: the provider held the port of 1 port-0 bind in 10 at least" \
		"$held of $((held + unheld))" stress_held
}
