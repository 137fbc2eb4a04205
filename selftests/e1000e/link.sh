#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Link state: set_link off/on in the QEMU monitor moves rce0's carrier
# through the link interrupt, and rce0 and rce2 survive being taken down
# and up again and again under traffic.
#
# One area of the ringcap_e1000e tests on QEMU's 82574L: it sets up its
# own NICs, driver and namespace and puts them back at the end (lib.sh
# here), so it runs alone or beside the other areas, in any order. In a
# guest as root (scripts/vm/run ... --nic e1000e-pair --nic e1000e-dgram),
# after run_guest.sh loaded ringcap:
#
#   RC_TESTS=e1000e/link.sh selftests/run_guest.sh
#
# Settings (RC_E1000E_*, RC_REQUIRE, RC_HOST...): see lib.sh.
#
# Output: TAP. Exit status: 0 all passed, 1 a test failed, 4 skipped.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e1000e_begin 6

t_link() { # off|on
	local out t0=$SECONDS want=0
	local -A s0 s1
	have_host || return "$MISSING"
	[ "$1" = on ] && want=1
	snap s0 "$A"
	out=$("$RC_HOST" monitor set_link nic0 "$1" 2>&1) || { msg="rc_host monitor set_link nic0 $1: $out"; return 1; }
	if ! wait_for 20 carrier "$A" "$want"; then
		msg="carrier of $A still $(cat "/sys/class/net/$A/carrier" 2>/dev/null) after 20 s"
		return 1
	fi
	snap s1 "$A"
	msg="carrier $want after $((SECONDS - t0)) s, link_changes +$(d s0 s1 link_changes), irq_other +$(d s0 s1 irq_other)"
	# The link-change interrupt drove it (the watchdog's poll is a fallback).
	[ "$(d s0 s1 irq_other)" -gt 0 ] || { msg+=": no link interrupt"; return 1; }
	[ "$want" = 0 ] && return 0
	local m=$msg
	works || { msg="$m; $msg"; return 1; }
	msg="$m; $msg"
}
tcase "link: set_link nic0 off in the QEMU monitor drops $A's carrier" t_link off
tcase "link: set_link nic0 on brings the carrier back and the pair works" t_link on

tcase "reload: ip link set down/up of $A and $G $CYCLES times, then they work" t_cycles link

e1000e_end
