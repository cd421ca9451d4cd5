#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench, in the VM: connection setup over siw from user space with
# rdmacm-utils' cmtime, without and with rdma_tcp_port, alternating as
# ABBA (upstream, module, module, upstream, upstream, ...) so that a drift
# over the run weighs on both alike, each run printed as
# "CMTIME variant=... rep=... step=... us_per_conn=...", after a
# "CMTIME kernel release=... kasan=0|1 lockdep=0|1 kmemleak=0|1" line that
# says which kernel the figures come from.
set -u
. "$(dirname "$0")/../e2e/lib.sh"

# Runs of each variant: even, so that each goes first as often.
REPS=${CMTIME_REPS:-30}
# cmtime opens a QP and two CQs per connection; siw maps at most 143
# queues into one process.
CONNS_PER_RUN=${CMTIME_CONNS:-20}
PORT=7600

# kernel_line: the guest kernel's release, and whether it has the debug
# options that slow down socket creation and release: from /proc/config.gz
# if the kernel has one, else from what each option leaves in the running
# kernel (a kasan_report symbol, /proc/lockdep, a kmemleak_alloc symbol);
# "unknown" when neither can tell.
kernel_line() {
	local kasan=unknown lockdep=unknown kmemleak=unknown cfg
	if [ -r /proc/config.gz ] && cfg=$(zcat /proc/config.gz 2>/dev/null); then
		kasan=0 lockdep=0 kmemleak=0
		grep -q '^CONFIG_KASAN=y' <<<"$cfg" && kasan=1
		grep -q '^CONFIG_LOCKDEP=y' <<<"$cfg" && lockdep=1
		grep -q '^CONFIG_DEBUG_KMEMLEAK=y' <<<"$cfg" && kmemleak=1
	elif [ -r /proc/kallsyms ] && grep -q . /proc/kallsyms; then
		kasan=0 lockdep=0 kmemleak=0
		grep -qw kasan_report /proc/kallsyms && kasan=1
		[ -e /proc/lockdep ] && lockdep=1
		grep -qw kmemleak_alloc /proc/kallsyms && kmemleak=1
	fi
	say "CMTIME kernel release=$(uname -r) kasan=$kasan lockdep=$lockdep kmemleak=$kmemleak"
}

kernel_line
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

# use VARIANT: the module loaded for "module", not for "upstream".
loaded=0
use() {
	if [ "$1" = module ] && [ "$loaded" = 0 ]; then
		load_module || return 1
		loaded=1
	elif [ "$1" = upstream ] && [ "$loaded" = 1 ]; then
		unload_module || return 1
		loaded=0
	fi
}

say "== cmtime over siw, $CONNS_PER_RUN connections per run, $REPS runs each, ABBA"
# A first run resolves the neighbours (ARP): warm up, unreported.
run warmup 0 >/dev/null || true
rc=0
for rep in $(seq 1 "$REPS"); do
	if [ $((rep % 2)) = 1 ]; then
		order="upstream module"
	else
		order="module upstream"
	fi
	for variant in $order; do
		if ! use "$variant"; then
			say "CMTIME_ERROR variant=$variant rep=$rep could not switch to it"
			rc=1
			continue
		fi
		run "$variant" "$rep" || rc=1
	done
done
use upstream || rc=1
exit "$rc"
