# SPDX-License-Identifier: GPL-2.0
# No user attaches another user's iWARP QP to its own connection (the
# series' first two patches; an upstream fix, not the module's: these are
# plain checks, the same with the module or without it).  e2e/rdma_qp.c
# plays it on siw_s with two unprivileged users, A ($USER_A) and B
# ($USER_B), against a peer in cli: B connects, and accepts, naming A's QP;
# B names A's QP while A's connection is up, and so does A's own second id;
# B with its own QP and B naming a QP that does not exist are the
# controls.  Sourced by guest-suite.sh after lib.sh, with topology() done.
#
# QP_EXPECT=upstream (not in make check): judge the answers as a kernel
# without the fix gives them, every attack succeeding; in a throwaway VM
# only, since A's destroy then sleeps in D state for good (make qp-control).

# The answer rdma_qp gave for "<case> <what>".
qp_answer() { sed -n "s/^$1 \(.*\)\$/\1/p" "$OUT/qp.log" | head -1; }
# qp_is NAME CASE WANT: the answer to CASE matches WANT (a glob; most are
# a plain word: EACCES, INIT, delivered...).
qp_is() {
	local got
	got=$(qp_answer "$2")
	# shellcheck disable=SC2053
	[[ $got == $3 ]] && ok "$1: $got" || bad "$1: '$got', want '$3'"
}

run_qp_tests() {
	say "== qp: $USER_A owns a QP on siw_s, $USER_B names it"
	in_srv timeout 600 "$TOOLS/rdma_qp" "$SRV_IP" "$CLI_IP" cli "$USER_A" "$USER_B" 2>&1 |
		tee "$OUT/qp.log" | while IFS= read -r line; do say "$line"; done
	qp_is "no such QP: B's connect is refused" "nosuch connect" EINVAL
	qp_is "A's QP is made in INIT" "connect qp" "[0-9]* INIT"
	qp_is "own QP: B connects with its own QP" "own connect" ESTABLISHED
	qp_is "own QP: B's data reaches the peer" "own data" delivered
	if [ "${QP_EXPECT:-fixed}" = upstream ]; then
		qp_is "upstream: B's connect naming A's QP is established" "connect attach" ESTABLISHED
		qp_is "upstream: A's QP goes RTS under B's connection" "connect state" RTS
		qp_is "upstream: A's data goes to B's peer" "connect data" delivered
		qp_is "upstream: B's accept naming A's QP is established" "accept attach" ESTABLISHED
		qp_is "upstream: A's data goes to the peer B accepted" "accept data" delivered
		qp_is "upstream: B naming A's connected QP gets a connect error" "victim attach" \
			CONNECT_ERROR
		qp_is "upstream: A's connected QP goes to ERR" "victim state" ERR
		qp_is "upstream: A's destroy of its QP hangs" "victim destroy" hung
		return
	fi
	qp_is "connect: B's connect naming A's QP is refused" "connect attach" EACCES
	qp_is "connect: A's QP stays INIT" "connect state" INIT
	qp_is "connect: A's data goes nowhere" "connect data" none
	qp_is "accept: B listens" "accept listen" ok
	qp_is "accept: B's accept naming A's QP is refused" "accept attach" EACCES
	qp_is "accept: A's QP stays INIT" "accept state" INIT
	qp_is "accept: A's data goes nowhere" "accept data" none
	qp_is "connected: A connects its own QP" "victim connect" ESTABLISHED
	qp_is "connected: A's data reaches its peer" "victim data-before" delivered
	qp_is "connected: B naming A's connected QP is refused" "victim attach" EACCES
	qp_is "connected: A's own second id naming it is refused" "victim again" EBUSY
	qp_is "connected: A's QP stays RTS" "victim state" RTS
	qp_is "connected: A's connection still carries A's data" "victim data-after" delivered
	qp_is "connected: A disconnects" "victim disconnect" DISCONNECTED
	qp_is "connected: A destroys its QP" "victim destroy" "ok *"
	if grep -q '^exit-hung' "$OUT/qp.log"; then
		bad "every user's process ends: $(grep '^exit-hung' "$OUT/qp.log" | tr '\n' ' ')"
	else
		ok "every user's process ends"
	fi
}
