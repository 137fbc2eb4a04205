#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Devices stacked on the aware NIC: a bridge, a bond, a VLAN device and a
# macvlan over rce0, each with a ringcap socket of its own beside one on
# rce0. $STK_N frames from rce1 (netns rce) to the upper device's MAC.
#
# What is promised (docs/CONTRACTS.md, "Aware drivers"):
#   modes 0 and 1: the socket on the upper device gets every frame, and
#     the one on rce0 every frame once, whichever was bound first. In
#     mode 1 the driver offers the frame to rce0's sockets and marks its
#     skb; the mark holds on rce0 alone, so the upper device's mode 0
#     hook still delivers to its own sockets.
#   mode 2: a frame the socket on rce0 takes never becomes an skb, so it
#     reaches no upper device and no socket there (0 of $STK_N); with no
#     socket on rce0 the frames go up the stack and the upper device's
#     socket gets them all.
#
# One area of the ringcap_e1000e tests on QEMU's 82574L (lib.sh here): in
# a guest as root (scripts/vm/run ... --nic e1000e-pair --nic e1000e-dgram),
# after run_guest.sh loaded ringcap:
#
#   RC_TESTS=e1000e/stacked.sh selftests/run_guest.sh
#
# Needs the bridge, bonding, 8021q and macvlan modules (a device kind
# whose module is missing is skipped, or failed under RC_REQUIRE=1).
# Output: TAP. Exit status: 0 all passed, 1 a test failed, 4 skipped.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e1000e_begin 28

STK_N=200
STK_VID=5
STK_MV_MAC=52:54:00:12:34:20
declare -A UPPER=([bridge]=rcbr0 [bond]=rcbond0 [vlan]=$A.$STK_VID [macvlan]=rcmv0)
upper_ok=

# stk_down: no upper device left on rce0 (also from the EXIT trap).
stk_down() {
	local k
	for k in "${!UPPER[@]}"; do
		ip link del "${UPPER[$k]}" 2>/dev/null || true
	done
	ip link set "$A" nomaster 2>/dev/null || true
}
trap 'stk_down; cleanup' EXIT

# t_up KIND: create the upper device of KIND over rce0, up and forwarding.
t_up() {
	local kind=$1 up=${UPPER[$1]} mod
	upper_ok=
	stk_down
	case $kind in
	bridge) mod=bridge ;;
	bond) mod=bonding ;;
	vlan) mod=8021q ;;
	macvlan) mod=macvlan ;;
	esac
	if [ ! -d "/sys/module/$mod" ]; then
		# max_bonds=0: no stray bond0 besides ours.
		if [ "$mod" = bonding ]; then
			modprobe bonding max_bonds=0 2>/dev/null
		else
			modprobe "$mod" 2>/dev/null
		fi || { msg="no $mod module in $(uname -r)"; return "$MISSING"; }
	fi
	case $kind in
	bridge)
		ip link add "$up" type bridge stp_state 0 forward_delay 0
		ip link set "$A" master "$up"
		;;
	bond)
		ip link add "$up" type bond mode active-backup miimon 100
		ip link set "$A" down
		ip link set "$A" master "$up"
		;;
	vlan)
		ip link add link "$A" name "$up" type vlan id "$STK_VID" ;;
	macvlan)
		ip link add link "$A" name "$up" address "$STK_MV_MAC" type macvlan mode bridge ;;
	esac
	sysctl -qw "net.ipv6.conf.$up.disable_ipv6=1" 2>/dev/null || true
	ip link set "$A" up
	ip link set "$up" up
	wait_for 20 carrier "$A" 1 || { msg="$A: no carrier"; return 1; }
	wait_for 20 carrier "$up" 1 || { msg="$up: no carrier"; return 1; }
	if [ "$kind" = bridge ]; then
		# 3: BR_STATE_FORWARDING
		wait_for 20 grep -qx 3 "/sys/class/net/$A/brport/state" ||
			{ msg="$A never forwarding in $up"; return 1; }
	fi
	msg="$up over $A, address $(cat "/sys/class/net/$up/address")"
	upper_ok=$kind
}

# stk_send KIND: $STK_N frames from $B to the upper device's MAC (tagged
# $STK_VID for the VLAN device).
stk_send() {
	local up=${UPPER[$1]} dst out
	dst=$(cat "/sys/class/net/$up/address")
	if [ "$1" = vlan ]; then
		out=$(ip netns exec "$NS" "$PY" -S "$NETPY" vlan-send --dev "$B" --dst-mac "$dst" \
			--tci "$STK_VID" --count "$STK_N" --pps 1000 2>&1)
	else
		out=$(ip netns exec "$NS" "$PY" -S "$NETPY" raw-send --dev "$B" --dst-mac "$dst" \
			--count "$STK_N" --pps 1000 --flows 8 2>&1)
	fi || { msg="sender: $out"; return 1; }
	[ "$(kv sent "$out")" = "$STK_N" ] || { msg="sender: $out"; return 1; }
}

# rc_received ID: frames the kernel has put into ID's ring so far
rc_received() { proc_field "${RCPID[$1]}" 6; }

# t_stk KIND MODE ORDER: sockets on the upper device and on rce0, bound in
# ORDER (upper-first, nic-first, or upper-only), $STK_N frames; the counts
# each must see, exactly (mode 2: the upper device none once rce0 has a
# socket).
t_stk() {
	local kind=$1 mode=$2 order=$3 up=${UPPER[$1]} before got want_up want_nic=$STK_N
	local nic=1
	[ "$upper_ok" = "$kind" ] || { msg="no $up: its set-up failed"; return 1; }
	[ "$order" != upper-only ] || { nic=0 want_nic=-; }
	want_up=$STK_N
	[ "$mode" != 2 ] || [ "$nic" = 0 ] || want_up=0
	set_mode "$mode"
	case $order in
	upper-first | upper-only)
		rc_start up "$up" || return 1
		[ "$nic" = 0 ] || rc_start nic "$A" || return 1
		;;
	nic-first)
		rc_start nic "$A" || return 1
		rc_start up "$up" || return 1
		;;
	esac
	before=$(rxsum "$A")
	stk_send "$kind" || return 1
	settle "$A" || true
	got=$(($(rxsum "$A") - before))
	# The rings' wake-up timer flushes within 0.1 s; wait for the counts.
	wait_for 5 eval '[ "$(rc_received up)" -ge "$want_up" ]' || true
	[ "$nic" = 0 ] || wait_for 5 eval '[ "$(rc_received nic)" -ge "$want_nic" ]' || true
	rc_stop up
	[ "$nic" = 0 ] || rc_stop nic
	set_mode 0
	msg="mode $mode, $order: $A took $got of $STK_N; $up ring $(rc_val up received) + dropped $(rc_val up dropped) (want $want_up)"
	[ "$nic" = 0 ] || msg+=", $A ring $(rc_val nic received) + dropped $(rc_val nic dropped) (want $want_nic)"
	[ "$got" = "$STK_N" ] || { msg+="; $A did not take exactly the frames sent"; return 1; }
	[ "$(rc_val up received)" = "$want_up" ] && [ "$(rc_val up dropped)" = 0 ] ||
		{ msg+="; wrong count on $up"; return 1; }
	[ "$nic" = 0 ] || { [ "$(rc_val nic received)" = "$want_nic" ] && [ "$(rc_val nic dropped)" = 0 ]; } ||
		{ msg+="; wrong count on $A"; return 1; }
}

for kind in bridge bond vlan macvlan; do
	up=${UPPER[$kind]}
	tcase "$kind: $up over $A, up" t_up "$kind"
	tcase "$kind, mode 1: a socket on $up bound before the one on $A gets $STK_N of $STK_N, the one on $A each frame once" \
		t_stk "$kind" 1 upper-first
	tcase "$kind, mode 1: bound after the one on $A, the same" t_stk "$kind" 1 nic-first
	tcase "$kind, mode 0: both sockets get every frame" t_stk "$kind" 0 upper-first
	tcase "$kind, mode 2: the socket on $A takes every frame, none reaches $up or its socket" \
		t_stk "$kind" 2 upper-first
	tcase "$kind, mode 2: with no socket on $A the frames go up, and $up's socket gets them all" \
		t_stk "$kind" 2 upper-only
	rc_stop up
	rc_stop nic
	set_mode 0
	stk_down
done

t_after() {
	stk_down
	nics_setup || return 1
	works
}
tcase "with the upper devices gone the pair still works" t_after

e1000e_end
