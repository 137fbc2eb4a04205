#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The transmit ring: frames written by an application into a ringcap
# socket's TX ring and sent by a kick (a zero-length send, or poll() for
# POLLOUT), straight into ringcap_e1000e's TX descriptors with no skb, and
# through an skb per frame on any other device (a veth pair here).
#
#   - refusals: bad sizes and options, frames too short or too long,
#     unusable producers and records: counted, EINVAL where the ABI says,
#     and nothing reaches the wire;
#   - 100000 frames of mixed sizes from rcgen --tx-ring (a replayed
#     file) arrive byte-exact and in order at the other end: the host's
#     receiver on rce2 (the driver's path, tx0_ring_frames), and the peer
#     of a veth (the generic path);
#   - both kicks, sendto() and poll(POLLOUT), with a ring smaller than
#     the burst; a carrier down refuses frames and counts them;
#   - the length bound is AF_PACKET's, against the MTU at the kick (the
#     MTU lowered after bind, on veth and on rce2); a record far beyond
#     RINGCAP_TX_MTU_MAX on a dummy device of huge MTU is refused, not
#     left in the ring;
#   - RINGCAP_TX_STATS counts each record once (sent + refused never above
#     the records put) under a device that fills: rce2 with 64 TX
#     descriptors (the driver's path), a ringcap_sim device whose queue
#     stops every few frames (the generic path); and on veth, which
#     drops rather than fills.
#
# One area of the ringcap_e1000e tests on QEMU's 82574L: it sets up its
# own NICs, driver and namespace and puts them back at the end (lib.sh
# here), so it runs alone or beside the other areas, in any order. In a
# guest as root (scripts/vm/run ... --nic e1000e-pair --nic e1000e-dgram),
# after run_guest.sh loaded ringcap:
#
#   RC_TESTS=e1000e/txring.sh selftests/run_guest.sh
#
# Settings (RC_E1000E_*, RC_REQUIRE, RC_HOST...): see lib.sh.
#
# Output: TAP. Exit status: 0 all passed, 1 a test failed, 4 skipped.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e1000e_begin 15
# Our own devices, beside what lib.sh's cleanup puts back.
txring_cleanup() {
	local d
	# Most are gone already: a failed del must not become the exit status.
	set +e
	for d in rctx0 rctxd0 rctxs0; do ip link del "$d" 2>/dev/null; done
	cleanup
}
trap txring_cleanup EXIT

TX=$BIN/rc_tx
RCGEN=$TOOLS/rcgen
SHARE=${RC_HOST_SHARE:-/run/ringcap-vm/share}
N=100000
VX=rctx0 VY=rctx1	# the veth pair of the generic path
have_tx() {
	[ -x "$TX" ] || { msg="no $TX (make -C selftests)"; return "$MISSING"; }
	[ -x "$RCGEN" ] || { msg="no $RCGEN (make -C userland)"; return "$MISSING"; }
}
# The frames every volume run replays, in the share for the host too.
frames_file() {
	[ -s "$SHARE/tx.pcap" ] && return 0
	"$PY" -S "$FRAMES_PY" udp-write "$SHARE/tx.pcap" 1009 5 "${MAC[2]}" >/dev/null
}
veth_up() {
	ip link del "$VX" 2>/dev/null || true
	ip link add "$VX" type veth peer name "$VY" &&
		ip link set "$VX" up && ip link set "$VY" up
}
# cap_start ID DEV: tcpdump (AF_PACKET, the system's libpcap) on DEV into
# $tmp/ID.pcap, only the test frames (UDP and EtherType 0x88b5). Its
# 128 MiB buffer holds a whole run of $N frames (about 80 MB) should
# tcpdump not get the CPU meanwhile: what it drops would be a loss the
# ring did not cause.
declare -A CAPPID
cap_start() {
	tcpdump -Z root -n -p -B 131072 -i "$2" -w "$tmp/$1.pcap" 'udp or ether proto 0x88b5' \
		>"$tmp/$1.out" 2>&1 &
	CAPPID[$1]=$!
	wait_for 20 grep -q 'listening on' "$tmp/$1.out"
}
cap_stop() {
	[ -n "${CAPPID[$1]:-}" ] || return 0
	sleep 1
	kill -INT "${CAPPID[$1]}" 2>/dev/null || true
	wait "${CAPPID[$1]}" 2>/dev/null || true
	CAPPID[$1]=
}
# rcgen_tx DEV ARGS...: rcgen sending through DEV's transmit ring; RG_OUT
# is its report.
rcgen_tx() {
	local dev=$1
	shift
	RG_OUT=$(${RG_CPU:+taskset -c "$RG_CPU"} "$RCGEN" --tx-ring "$dev" -q "$@" 2>&1) || { msg="rcgen --tx-ring $dev $*: $(tail -n 2 <<<"$RG_OUT" | tr '\n' ' ')"; return 1; }
}

# ---- refusals ----------------------------------------------------------------

t_refuse() {
	local out
	have_tx || return $?
	veth_up || { msg="no veth pair"; return 1; }
	cap_start ref "$VY" || { msg="tcpdump on $VY did not start"; return 1; }
	out=$("$TX" refuse "$VX" 2>&1) || true
	cap_stop ref
	echo "$out" | show
	msg="$(grep -c ': ok ' <<<"$out") ok, $(grep -c ': FAIL ' <<<"$out") failed; frames on $VY: $("$PY" -S "$FRAMES_PY" count "$tmp/ref.pcap")"
	! grep -q ': FAIL ' <<<"$out" && grep -q '^nothing_sent: ok' <<<"$out" &&
		[ "$("$PY" -S "$FRAMES_PY" count "$tmp/ref.pcap")" = 0 ]
}
tcase "tx ring: bad sizes, options, lengths, producers and records are refused and counted, and nothing reaches the wire (veth)" t_refuse

# ---- the generic path: veth --------------------------------------------------

t_veth() {
	local out
	have_tx || return $?
	frames_file || { msg="udp-write failed"; return 1; }
	veth_up || { msg="no veth pair"; return 1; }
	cap_start veth "$VY" || { msg="tcpdump on $VY did not start"; return 1; }
	local vd0 sd0
	vd0=$(cat "/sys/class/net/$VX/statistics/tx_dropped") sd0=$(softnet_dropped)
	# On one CPU: veth hands each frame to the input backlog of the CPU
	# that sent it, so a sender moving between CPUs has later frames
	# delivered first (seen: frame 821 of a round arrived 82 frames
	# late, all 100000 there), an order the ring did not make.
	RG_CPU=0 rcgen_tx "$VX" --replay "$SHARE/tx.pcap" --count "$N" --rate 20000 || { cap_stop veth; return 1; }
	cap_stop veth
	out=$("$PY" -S "$FRAMES_PY" replayed "$SHARE/tx.pcap" "$tmp/veth.pcap" "$N" 2>&1) || true
	# Where a frame lost after the ring went: veth's own drop (the
	# peer's input backlog full), the backlog, tcpdump's buffer.
	msg="$(tail -n 1 <<<"$RG_OUT"); $VY: $out; after the ring: $VX tx_dropped +$(($(cat "/sys/class/net/$VX/statistics/tx_dropped") - vd0)), softnet dropped +$(($(softnet_dropped) - sd0)), tcpdump: $(grep -h 'dropped by kernel' "$tmp/veth.out" || echo '?')"
	[[ $out == ok:* ]]
}
tcase "tx ring, generic path: $N frames of mixed sizes through $VX's ring arrive at $VY byte-exact and in order" t_veth
ip link del "$VX" 2>/dev/null || true

# ---- the driver's path: rce2 to the host ---------------------------------------

declare -A D0 D1
t_e1000e() {
	local out
	have_host || return "$MISSING"
	have_tx || return $?
	frames_file || { msg="udp-write failed"; return 1; }
	rm -f "$SHARE/txrecv.pcap"
	"$RC_HOST" --bg txrecv recv nic2 --write txrecv.pcap --count "$N" --duration 120 \
		>"$tmp/txrecv.out" 2>&1 || true
	sleep 1
	snap D0 "$G"
	rcgen_tx "$G" --replay "$SHARE/tx.pcap" --count "$N" --rate 20000 || return 1
	"$RC_HOST" --timeout 150 --wait txrecv >>"$tmp/txrecv.out" 2>&1 || true
	snap D1 "$G"
	out=$("$PY" -S "$FRAMES_PY" replayed "$SHARE/tx.pcap" "$SHARE/txrecv.pcap" "$N" 2>&1) || true
	msg="$(tail -n 1 <<<"$RG_OUT"); host: $(tail -n 1 "$tmp/txrecv.out"); $out; tx0_ring_frames +$(d D0 D1 tx0_ring_frames), tx0_packets +$(d D0 D1 tx0_packets)"
	[[ $out == ok:* ]] && [ "$(d D0 D1 tx0_ring_frames)" = "$N" ]
}
tcase "tx ring, driver path: $N frames of mixed sizes through $G's ring arrive at the host byte-exact and in order, all as ring frames (no skb)" t_e1000e

# Both kicks, with a 64 KiB ring far smaller than the burst.
t_kicks() {
	local out before
	have_host || return "$MISSING"
	have_tx || return $?
	"$RC_HOST" --bg kicks recv nic2 --count 5000 --duration 60 >"$tmp/kicks.out" 2>&1 || true
	sleep 1
	out=$("$TX" send "$G" 5000 2>&1) || true
	"$RC_HOST" --timeout 90 --wait kicks >>"$tmp/kicks.out" 2>&1 || true
	msg="$(tail -n 1 <<<"$out"); host: $(tail -n 1 "$tmp/kicks.out")"
	[ "$(kv sent "$out")" = 5000 ] && [ "$(kv received "$(tail -n 1 "$tmp/kicks.out")")" = 5000 ] &&
		[ "$(kv kicks "$out")" -gt 1 ]
}
tcase "tx ring: sendto() and poll(POLLOUT) kick in turn through a 64 KiB ring: 5000 frames sent, 5000 received by the host" t_kicks

# poll(POLLOUT) alone, blocking on a full ring: the device's queue fills
# and drains again and again, and each time poll() must come back. The
# device's queue is made its shortest (64), so that the kicks fill it
# even where sending is slow (the debug kernel).
t_pollout() {
	local out tx_was ok=0
	have_host || return "$MISSING"
	have_tx || return $?
	read -r _ _ _ tx_was <<<"$(ring_sizes "$G")"
	if ! ethtool -G "$G" tx 64 || ! wait_for 20 carrier "$G" 1; then
		msg="ethtool -G $G tx 64: no link after it"
		return 1
	fi
	"$RC_HOST" --bg pollout recv nic2 --count 20000 --duration 60 >"$tmp/pollout.out" 2>&1 || true
	sleep 1
	out=$("$TX" pollout "$G" 20000 2>&1) || true
	"$RC_HOST" --timeout 90 --wait pollout >>"$tmp/pollout.out" 2>&1 || true
	msg="$(tail -n 1 <<<"$out"); host: $(tail -n 1 "$tmp/pollout.out")"
	[ "$(kv sent "$out")" = 20000 ] && [ "$(kv timeouts "$out")" = 0 ] &&
		[ "$(kv full "$out")" -gt 0 ] &&
		[ "$(kv received "$(tail -n 1 "$tmp/pollout.out")")" = 20000 ] && ok=1
	ethtool -G "$G" tx "$tx_was" && wait_for 20 carrier "$G" 1 ||
		{ msg+="; no link after ethtool -G $G tx $tx_was"; return 1; }
	[ "$ok" = 1 ]
}
tcase "tx ring: poll(POLLOUT) alone on a full ring comes back each time the device's queue drains: 20000 frames sent and received, no poll timed out" t_pollout

t_down() {
	local out
	have_host || return "$MISSING"
	have_tx || return $?
	out=$("$RC_HOST" monitor set_link nic2 off 2>&1) || { msg="set_link off: $out"; return 1; }
	wait_for 20 carrier "$G" 0 || true
	out=$("$TX" send "$G" 10 2>&1) || true
	"$RC_HOST" monitor set_link nic2 on >/dev/null 2>&1 || true
	wait_for 20 carrier "$G" 1 || true
	msg="carrier off: $(tail -n 1 <<<"$out")"
	[ "$(kv refused "$out")" = 10 ] && [ "$(kv sent "$out")" = 0 ]
}
tcase "tx ring: with the carrier down every frame is refused and counted, none sent" t_down

# The length bound at the kick: bound at one MTU, the MTU lowered, then
# each frame through the ring and through AF_PACKET (rc_tx mtu).
mtu_case() {
	local dev=$1 to=$2 out
	out=$("$TX" mtu "$dev" "$to" 2>&1) || true
	echo "$out" | show
	msg+="$dev at MTU $to: $(grep -c ': ok ' <<<"$out") ok, $(grep -c ': FAIL ' <<<"$out") failed$(grep -m 3 ': FAIL ' <<<"$out" | sed 's/^/; /' | tr '\n' ' '); "
	! grep -q ': FAIL ' <<<"$out" && grep -q '^frame_max: ok' <<<"$out"
}
t_mtu() {
	local ok=1 mtu_was
	have_tx || return $?
	veth_up && ip link set "$VX" mtu 9000 && ip link set "$VY" mtu 9000 ||
		{ msg="no veth pair with MTU 9000"; return 1; }
	mtu_case "$VX" 1500 || ok=0
	ip link del "$VX" 2>/dev/null || true
	mtu_was=$(cat "/sys/class/net/$G/mtu")
	mtu_case "$G" 1000 || ok=0
	ip link set "$G" mtu "$mtu_was" || { msg+="MTU of $G not put back"; return 1; }
	[ "$ok" = 1 ]
}
tcase "tx ring: the length bound is AF_PACKET's (MTU + 14, + 4 tagged 0x8100) at the MTU of the kick, not of bind: veth 9000 -> 1500, $G 1500 -> 1000" t_mtu

t_huge() {
	local out
	have_tx || return $?
	ip link del rctxd0 2>/dev/null || true
	if ! ip link add rctxd0 type dummy 2>/dev/null; then
		msg="no dummy device (CONFIG_DUMMY)"
		return "$MISSING"
	fi
	ip link set rctxd0 mtu 16777216 && ip link set rctxd0 up ||
		{ msg="dummy MTU 16 MiB"; ip link del rctxd0; return 1; }
	out=$("$TX" huge rctxd0 2>&1) || true
	ip link del rctxd0 2>/dev/null || true
	echo "$out" | show
	msg=$(grep -E '^(huge_record|setup):' <<<"$out" | tr '\n' ' ')
	! grep -q ': FAIL ' <<<"$out" && grep -q '^huge_record: ok' <<<"$out"
}
tcase "tx ring: a 6 MiB record on a device of 16 MiB MTU is refused and counted, the ring goes on (MTU counted as at most 64 KiB)" t_huge

# account DEV COUNT [ROOMFILE ROOM]: rc_tx account; its line in $out.
account() {
	local sent refused
	out=$("$TX" account "$@" 2>&1) || true
	msg="$(tail -n 1 <<<"$out")"
	sent=$(kv sent "$out") refused=$(kv refused "$out")
	[ "$(kv over "$out")" = 0 ] && [ "$(kv error "$out")" = none ] &&
		[ "$((${sent:-0} + ${refused:-0}))" = "$(kv put "$out")" ]
}
t_account_drv() {
	local tx_was ok=0
	have_tx || return $?
	read -r _ _ _ tx_was <<<"$(ring_sizes "$G")"
	if ! ethtool -G "$G" tx 64 || ! wait_for 20 carrier "$G" 1; then
		msg="ethtool -G $G tx 64: no link after it"
		return 1
	fi
	# The ring fills only while completions wait: with the TX vector's
	# interrupt at once, how often it did followed the host's speed
	# (full 0-46 times in 5000). Throttled to one each 10 ms, it fills.
	if ! ethtool -C "$G" tx-usecs 10000; then
		msg="ethtool -C $G tx-usecs 10000 refused (MSI-X?)"
		return 1
	fi
	account "$G" 5000 && [ "$(kv full "$out")" -gt 0 ] && ok=1
	ethtool -C "$G" tx-usecs 0 || { msg+="; ethtool -C $G tx-usecs 0 refused"; return 1; }
	ethtool -G "$G" tx "$tx_was" && wait_for 20 carrier "$G" 1 ||
		{ msg+="; no link after ethtool -G $G tx $tx_was"; return 1; }
	[ "$ok" = 1 ]
}
tcase "tx ring, driver path: 5000 records, 2 in 7 refused, through $G with 64 TX descriptors: each counted once (sent + refused = put, never more), the device full at times" t_account_drv

t_account_generic() {
	local room=/sys/kernel/debug/ringcap_sim/rctxs0/tx_room ok=0
	have_tx || return $?
	ip link del rctxs0 2>/dev/null || true
	if ! ip link add rctxs0 type ringcap_sim 2>/dev/null; then
		msg="no ringcap_sim device (run_guest.sh loads it)"
		return "$MISSING"
	fi
	ip link set rctxs0 up
	[ -w "$room" ] || { msg="no $room"; ip link del rctxs0; return 1; }
	account rctxs0 5000 "$room" 5 && [ "$(kv full "$out")" -gt 0 ] && ok=1
	ip link del rctxs0 2>/dev/null || true
	[ "$ok" = 1 ]
}
tcase "tx ring, generic path: 5000 records, 2 in 7 refused, through a ringcap_sim device whose queue stops every 5 frames: each counted once, the device full at times" t_account_generic

t_account_veth() {
	local ok=0
	have_tx || return $?
	veth_up || { msg="no veth pair"; return 1; }
	account "$VX" 5000 && ok=1
	ip link del "$VX" 2>/dev/null || true
	msg+=" (veth drops rather than fills: full stays 0)"
	[ "$ok" = 1 ]
}
tcase "tx ring, generic path: 5000 records, 2 in 7 refused, through veth: each counted once" t_account_veth

t_works() {
	works
}
tcase "tx ring: afterwards $A, $B and $G work as before" t_works

e1000e_end
