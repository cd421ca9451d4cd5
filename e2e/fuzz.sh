# SPDX-License-Identifier: GPL-2.0
# The differential fuzzer (e2e/rdma_fuzz.c): random sequences of reuse,
# v6only, bind, listen and close on RDMA ids and TCP sockets, each compared
# to its end with the same sequence on TCP sockets that follow the module's
# documented rule where the sequence has RDMA ids.  Sourced after lib.sh,
# with topology() done and the module loaded.  One run per mode:
#   root   as root, in srv
#   user   as user A, without capabilities: the cap's refusals predicted
#   netns  as root, each endpoint in srv or cli, interleaved
#   resolve  as root, rdma_resolve_addr() to cli's address among the steps
#
#   FUZZ_SEED       seed (default below; any sequence replays alone with the
#                   command its DIVERGENCE line gives, in srv)
#   FUZZ_SEQUENCES  sequences of the root mode (2000)
#   FUZZ_MODE_SEQUENCES  sequences of each other mode (1000)
#   FUZZ_MODES      the modes to run (root user netns resolve)
#   FUZZ_ARGS       more rdma_fuzz options (-k: skip the known triggers)
# make check runs the defaults (3 to 5 minutes of the guest's time); the
# long run, 10000 and 5000, takes 12 and would push make check past CI's
# limit.

FUZZ_DEFAULT_SEED=20261203
# Lines of each run's output shown; all of it is in $OUT/fuzz-MODE.log.
FUZZ_SHOW=${FUZZ_SHOW:-400}

# The fuzzer's output as it comes, but after $FUZZ_SHOW lines only its own
# "fuzz:" lines; the summary line is said at the end.
fuzz_filter() {
	awk -v max="$FUZZ_SHOW" -v file="$1" '
		/^fuzz: [a-z]+: [0-9]+ sequences,/ { next }
		NR <= max || /^fuzz: / { print; fflush(); next }
		!cut { print "... (all of it in " file ")"; fflush(); cut = 1 }'
}

# fuzz_mode MODE NAME N OPTS CMD...: runs rdma_fuzz by CMD for mode MODE,
# N sequences, with the options OPTS; claims NAME with its summary.
fuzz_mode() {
	local mode=$1 name=$2 n=$3 opts=$4 log=$OUT/fuzz-$1.log rc start line
	local seed=${FUZZ_SEED:-$FUZZ_DEFAULT_SEED}
	shift 4

	say "== differential fuzzer, $mode: seed $seed, $n sequences ${FUZZ_ARGS:-}"
	start=$SECONDS
	# Streamed: if the guest dies on the way, the log shows how far it got.
	# shellcheck disable=SC2086 # opts, FUZZ_ARGS: several options
	"$@" "$TOOLS/rdma_fuzz" -m "$mode" -s "$seed" -n "$n" -a "$SRV_IP" \
		$opts ${FUZZ_ARGS:-} 2>&1 | tee "$log" | fuzz_filter "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep "^fuzz: $mode: [0-9]* sequences" "$log")
	say "${line:-fuzz: $mode: no summary} ($((SECONDS - start)) s)"
	# 3: the cap is not where the fuzzer computed it (-m user).
	case $rc in
	0 | 1) claim "$name" "${line#fuzz: $mode: }" [ "$rc" = 0 ] ;;
	3) claim "$name" "$(tail -n 1 "$log")" false ;;
	*) bad "fuzz: rdma_fuzz -m $mode failed, exit $rc (seed $seed)" ;;
	esac
}

run_fuzz_tests() {
	local n=${FUZZ_SEQUENCES:-2000} m=${FUZZ_MODE_SEQUENCES:-1000} mode

	for mode in ${FUZZ_MODES:-root user netns resolve}; do
		case $mode in
		root) fuzz_mode root "fuzz: RDMA ids and TCP sockets agree" "$n" "" \
			in_srv ;;
		user) fuzz_mode user "fuzz, user A with the cap on: RDMA ids and TCP sockets agree" \
			"$m" "" as_in srv "$USER_A" ;;
		netns) fuzz_mode netns "fuzz, srv and cli interleaved: RDMA ids and TCP sockets agree" \
			"$m" "-b /run/netns/cli=$CLI_IP" in_srv ;;
		resolve) fuzz_mode resolve "fuzz, with rdma_resolve_addr(): RDMA ids and TCP sockets agree" \
			"$m" "-r $CLI_IP" in_srv ;;
		*) bad "fuzz: no mode $mode" ;;
		esac
	done
}
