# SPDX-License-Identifier: GPL-2.0
# The differential fuzzer (e2e/rdma_fuzz.c): random sequences of reuse,
# v6only, bind, listen and close on RDMA ids and TCP sockets, each compared
# with the same sequence on TCP sockets only.  Sourced after lib.sh, with
# topology() done and the module loaded.
#
#   FUZZ_SEED       seed (default below; any sequence replays alone with
#                   rdma_fuzz -s SEED -i I -n 1 -a 10.77.0.1, in srv)
#   FUZZ_SEQUENCES  number of sequences (10000)
#   FUZZ_ARGS       more rdma_fuzz options (-k: skip the known triggers)

FUZZ_DEFAULT_SEED=20261203
# Lines of the fuzzer's output shown; all of it is in $OUT/fuzz.log.
FUZZ_SHOW=${FUZZ_SHOW:-400}

# The fuzzer's output as it comes, but after $FUZZ_SHOW lines only its own
# "fuzz:" lines; the summary line is said at the end.
fuzz_filter() {
	awk -v max="$FUZZ_SHOW" -v file="$OUT/fuzz.log" '
		/^fuzz: [0-9]+ sequences,/ { next }
		NR <= max || /^fuzz: / { print; fflush(); next }
		!cut { print "... (all of it in " file ")"; fflush(); cut = 1 }'
}

run_fuzz_tests() {
	local seed=${FUZZ_SEED:-$FUZZ_DEFAULT_SEED} n=${FUZZ_SEQUENCES:-10000}
	local rc start line

	say "== differential fuzzer: seed $seed, $n sequences ${FUZZ_ARGS:-}"
	start=$SECONDS
	# Streamed: if the guest dies on the way, the log shows how far it got.
	# shellcheck disable=SC2086 # FUZZ_ARGS: several options
	in_srv "$TOOLS/rdma_fuzz" -s "$seed" -n "$n" -a "$SRV_IP" ${FUZZ_ARGS:-} 2>&1 |
		tee $OUT/fuzz.log | fuzz_filter
	rc=${PIPESTATUS[0]}
	line=$(grep '^fuzz: [0-9]* sequences' $OUT/fuzz.log)
	say "${line:-fuzz: no summary} ($((SECONDS - start)) s)"
	case $rc in
	0 | 1) claim "fuzz: RDMA ids and TCP sockets agree" "${line#fuzz: }" [ "$rc" = 0 ] ;;
	*) bad "fuzz: rdma_fuzz failed, exit $rc (seed $seed)" ;;
	esac
}
