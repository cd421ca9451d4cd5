#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make deb-vm-test, inside the booted scratch root: the kernel and the
# module that the packages installed, the module loaded by the boot
# (systemd-modules-load, options from /etc/modprobe.d), the hardware iWARP
# drivers loaded next to it, and the seed's scenario both ways.  Run by a
# oneshot unit after multi-user.target; the result is left in $DIR/result
# for the host, and the guest powers off.
set -u
DIR=/opt/rdma-tcp-port-test
export VM_LIVE=$DIR/live.log RDMA_TOOLS=$DIR
export RDMA_TCP_PORT_KO=/lib/modules/$(uname -r)/updates/rdma_tcp_port.ko
. "$DIR/lib.sh"
release=$(cat "$DIR/release")
share=$(cat "$DIR/user_share")

say "== the installed kernel"
[ "$(uname -r)" = "$release" ] && ok "booted the packaged kernel $release" ||
	bad "booted $(uname -r), want $release"

say "== the module, loaded by the boot"
# show "CMD": print a shell command and its output, as the README quotes them.
show() {
	say "\$ $*"
	say "$(bash -c "$*" 2>&1)"
}
show "journalctl -b -o cat -u systemd-modules-load.service | grep rdma_tcp_port"
show "dmesg | grep rdma_tcp_port"
show "modinfo rdma_tcp_port | grep -v '^\(srcversion\|retpoline\)'"
show "systemctl show -P ActiveState systemd-modules-load.service"
journalctl -b -o cat -u systemd-modules-load.service |
	grep -q "Inserted module 'rdma_tcp_port'" &&
	ok "systemd-modules-load inserted rdma_tcp_port at boot" ||
	bad "systemd-modules-load did not insert rdma_tcp_port"
[ "$(modinfo -n rdma_tcp_port)" = "/lib/modules/$release/updates/rdma_tcp_port.ko" ] &&
	ok "modprobe resolves rdma_tcp_port to updates/" ||
	bad "modprobe resolves rdma_tcp_port to $(modinfo -n rdma_tcp_port)"
grep '^rdma_tcp_port ' /proc/modules
# The harness changed user_share in the package's conffile before the boot.
got=$(cat /sys/module/rdma_tcp_port/parameters/user_share)
[ "$got" = "$share" ] && ok "options from /etc/modprobe.d applied at boot: user_share=$got" ||
	bad "user_share is $got, /etc/modprobe.d says $share"
[ "$(cat /sys/module/rdma_tcp_port/parameters/reserve)" = all ] &&
	[ "$(cat /sys/module/rdma_tcp_port/parameters/idr)" = Y ] &&
	ok "reserve=all and idr=Y, the package's defaults" ||
	bad "reserve/idr are not the package's defaults"
version=$(modinfo -F version rdma_tcp_port) license=$(modinfo -F license rdma_tcp_port)
parms=$(modinfo -F parm rdma_tcp_port | wc -l)
say "modinfo: version $version, license $license, $parms parameters"
[ -n "$version" ] && [ "$license" = GPL ] && [ "$parms" -eq 3 ] &&
	ok "modinfo shows version, license and the 3 parameters" ||
	bad "modinfo: version '$version' license '$license' parameters $parms"
# Ordering: systemd-modules-load is done before sysinit.target, and every
# service with default dependencies (all rdma_cm consumers but the
# initramfs' iSER, docs/boot-order.md) starts after it.
[ "$(systemctl show -P ActiveState systemd-modules-load.service)" = active ] &&
	systemctl list-dependencies --after --plain sysinit.target |
	grep -q systemd-modules-load.service &&
	ok "sysinit.target is ordered after systemd-modules-load.service" ||
	bad "systemd-modules-load.service is not before sysinit.target"

say "== the hardware iWARP drivers (no hardware: they load, register, unload)"
for m in iw_cxgb4 irdma qedr; do
	if modprobe "$m"; then
		ok "modprobe $m"
	else
		bad "modprobe $m"
	fi
done
lsmod | grep -E '^(iw_cxgb4|irdma|qedr|rdma_tcp_port|rdma_cm) '
modprobe -r iw_cxgb4 irdma qedr && ok "modprobe -r iw_cxgb4 irdma qedr" ||
	bad "modprobe -r iw_cxgb4 irdma qedr"

say "== the seed's scenario: iperf first"
topology >/dev/null
bg_srv iperf -s -p 5001 >/dev/null 2>&1
iperf_pid=$!
wait_for tcp_listening 5001
out=$(in_srv "$HOLD" -x -l "$SRV_IP" 5001)
say "$out"
[ "$out" = "bind EADDRINUSE" ] &&
	ok "RDMA listener refused where iperf listens: EADDRINUSE" ||
	bad "RDMA listener next to iperf: '$out'"
stop "$iperf_pid"

say "== the seed's scenario: RDMA first (the RDMA service runs as nobody)"
bg_srv setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	"$HOLD" -l "$SRV_IP" 5001 >$OUT/hold.out 2>&1
hold_pid=$!
wait_for grep -q holding $OUT/hold.out
cat $OUT/hold.out
in_srv timeout 20 iperf -s -p 5001 >$OUT/iperf.out 2>&1
grep -q "listen ok" $OUT/hold.out && grep -qi "address already in use" $OUT/iperf.out &&
	ok "iperf refused on the RDMA listener's port: EADDRINUSE" ||
	bad "iperf on the RDMA listener's port: $(head -3 $OUT/iperf.out)"

say "== who holds port 5001? (README, Troubleshooting)"
say "\$ ss -Htanp 'sport = :5001'   (Debian 12's iproute2 $(ss -V | sed 's/.*iproute2-//'))"
in_srv ss -Htanp 'sport = :5001'
bpo_ss=/opt/iproute2-bpo/bin/ss
say "\$ ss -HtBnep 'sport = :5001'   (bookworm-backports' iproute2 $($bpo_ss -V | sed 's/.*iproute2-//'))"
out=$(in_srv "$bpo_ss" -HtBnep 'sport = :5001')
say "$out"
case "$out" in
*"$SRV_IP:5001 "*"uid:65534 "*) ok "ss -B lists the module's socket on 5001, with its owner's uid" ;;
*) bad "ss -B does not list a bound socket on $SRV_IP:5001" ;;
esac
holder_named "$hold_pid"
stop "$hold_pid"

say "== rping over siw, data verified"
bg_srv timeout 120 rping -s -a "$SRV_IP" -p 7174 -C 3 >/dev/null 2>&1
rping_pid=$!
wait_for rdma_listening "$SRV_IP" 7174
expect "rping -C 3 -V over siw" 0 in_cli timeout 120 rping -c -a "$SRV_IP" -p 7174 -C 3 -V
wait "$rping_pid"

if dmesg | grep -Eq 'BUG: |WARNING: |cut here|Oops'; then
	dmesg | grep -E -A20 'BUG: |WARNING: |cut here|Oops' | head -60
	bad "kernel log free of WARN, BUG and Oops"
else
	ok "kernel log free of WARN, BUG and Oops"
fi
summary
echo "$pass passed, $fail failed" >"$DIR/result"
