#!/usr/bin/env bash
# A KUnit run passes only if the kernel said nothing alarming meanwhile:
# lockdep, KASAN, a WARN or BUG, or a Rust panic fail it even when every
# test case passed. Usage: check-kunit-log.sh <kernel log>
#
# One message is the test's own: join_other_namespace (suite
# rdma_tcp_port_ports, kunit/ports_test.c) announces it ("a refusal from
# iw_cm_may_join_port() follows"), and iw_cm_may_join_port() must then log
# its refusal, as many times as it was announced; no WARN goes with it.
set -euo pipefail
log=$1
[ -s "$log" ] || { echo "check-kunit-log: no log at $log" >&2; exit 1; }
announced=$(grep -ac 'a refusal from iw_cm_may_join_port() follows' "$log" || true)
refused=$(grep -ac 'iw_cm: a socket of another namespace may not join port' "$log" || true)
if [ "$announced" != "$refused" ]; then
	echo "check-kunit-log: $announced announced refusal(s) from iw_cm_may_join_port(), $refused logged" >&2
	exit 1
fi
pattern='WARNING: (possible|inconsistent|suspicious)|BUG: |kmemleak: [0-9]+ new suspected|------------\[ cut here \]|Kernel panic|rust_panic|UBSAN'
if grep -Ea "$pattern" "$log"; then
	echo "check-kunit-log: the kernel reported the problems above" >&2
	exit 1
fi
echo "check-kunit-log: no lockdep, KASAN, WARN or BUG report in $log ($refused announced refusal(s) logged)"
