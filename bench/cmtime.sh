#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench, in the VM: connection setup over siw from user space with
# rdmacm-utils' cmtime, without and with rdma_tcp_port, alternating, each
# run printed as "CMTIME variant=... rep=... step=... us_per_conn=...".
set -u
. "$(dirname "$0")/../e2e/lib.sh"

REPS=${CMTIME_REPS:-5}
# cmtime opens a QP and two CQs per connection; siw maps at most 143
# queues into one process.
CONNS_PER_RUN=${CMTIME_CONNS:-20}
PORT=7600

topology >/dev/null

# run VARIANT REP: one cmtime client against a fresh server.
run() {
	local variant=$1 rep=$2 srv_pid
	bg_srv cmtime -b "$SRV_IP" -p "$PORT" -c "$CONNS_PER_RUN" >"$OUT/srv.out" 2>&1
	srv_pid=$!
	if ! WAIT=20 wait_for rdma_listening "$SRV_IP" "$PORT"; then
		say "CMTIME_ERROR variant=$variant rep=$rep server did not listen"
		stop "$srv_pid"
		return 1
	fi
	if ! in_cli timeout 300 cmtime -s "$SRV_IP" -p "$PORT" -c "$CONNS_PER_RUN" >"$OUT/cli.out" 2>&1; then
		say "CMTIME_ERROR variant=$variant rep=$rep client failed:"
		cat "$OUT/cli.out"
		stop "$srv_pid"
		return 1
	fi
	stop "$srv_pid"
	[ "$rep" = 1 ] && cat "$OUT/cli.out"
	# "step : total ms  max ms  min us  us / conn"
	awk -F: -v v="$variant" -v r="$rep" -v n="$CONNS_PER_RUN" '
		NF == 2 && $2 ~ /[0-9]/ {
			step = $1; gsub(/^ +| +$/, "", step); gsub(/ /, "_", step)
			split($2, f, " ")
			printf "CMTIME variant=%s rep=%d conns=%d step=%s total_ms=%s us_per_conn=%s\n", v, r, n, step, f[1], f[4]
		}' "$OUT/cli.out"
}

say "== cmtime over siw, $CONNS_PER_RUN connections per run, $REPS runs each"
# A first run resolves the neighbours (ARP): warm up, unreported.
run warmup 0 >/dev/null || true
rc=0
for rep in $(seq 1 "$REPS"); do
	run upstream "$rep" || rc=1
	load_module || rc=1
	run module "$rep" || rc=1
	unload_module || rc=1
done
exit "$rc"
