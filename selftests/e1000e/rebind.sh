#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The driver let go and taken back: rmmod/modprobe and unbind/bind
# cycles under traffic, then rce0 moved to the stock e1000e through
# driver_override (where mode 2 falls back to the mode 0 hook, the stock
# driver having no XDP, and says so) and back.
#
# One area of the ringcap_e1000e tests on QEMU's 82574L: it sets up its
# own NICs, driver and namespace and puts them back at the end (lib.sh
# here), so it runs alone or beside the other areas, in any order. In a
# guest as root (scripts/vm/run ... --nic e1000e-pair --nic e1000e-dgram),
# after run_guest.sh loaded ringcap:
#
#   RC_TESTS=e1000e/rebind.sh selftests/run_guest.sh
#
# Settings (RC_E1000E_*, RC_REQUIRE, RC_HOST...): see lib.sh.
#
# Output: TAP. Exit status: 0 all passed, 1 a test failed, 4 skipped.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e1000e_begin 8

tcase "reload: rmmod/modprobe $DRV $CYCLES times, then the NICs work" t_cycles module
tcase "reload: unbind/bind $A and $G $CYCLES times, then they work" t_cycles bind

# ---- moving a NIC to the stock e1000e and back --------------------------------

t_move() { # e1000e|ringcap_e1000e
	local to=$1 from pci=${PCI[0]} dev got out
	from=$(pci_driver "$pci")
	echo "$pci" >"$PCI_DRV/$from/unbind"
	echo "$to" >"/sys/bus/pci/devices/$pci/driver_override"
	if [ "$to" = e1000e ] && [ ! -d "$PCI_DRV/e1000e" ]; then
		out=$(modprobe e1000e 2>&1) || { msg="modprobe e1000e: $out"; return 1; }
	fi
	echo "$pci" >/sys/bus/pci/drivers_probe || true
	wait_for 10 eval '[ "$(pci_driver "$pci")" = "$to" ]' ||
		{ msg="$pci bound to $(pci_driver "$pci"), not $to"; return 1; }
	echo >"/sys/bus/pci/devices/$pci/driver_override"
	wait_for 10 pci_netdev "$pci" >/dev/null || { msg="$to made no netdev for $pci"; return 1; }
	dev=$(pci_netdev "$pci")
	if [ "$to" = e1000e ]; then
		[ "$dev" = "$A" ] || { ip link set "$dev" down; ip link set "$dev" name "$A"; }
		ip addr replace "$IP_A/24" dev "$A"
		ip link set "$A" up
		static_neigh
	else
		nics_setup || return 1
	fi
	wait_for 30 carrier "$A" 1 || { msg="$A ($to): no carrier after 30 s"; return 1; }
	got=$(pings "$A" "$IP_B")
	msg="$pci on $(ethtool -i "$A" | awk '/^driver:/ {print $2}'), carrier 1, ping $A->$B ${got:-0}/3"
	[ "${got:-0}" = 3 ]
}
tcase "move: $A (${PCI[0]}) to the stock e1000e through driver_override, link up, ping" t_move e1000e

# The stock e1000e has no native XDP: mode 2 stays on the mode 0 hook,
# attaches no program, and says why in /proc, ringcount and the log.
t_stock_mode2() {
	local got path prog
	set_mode 2
	rc_start stock "$A" || { set_mode 0; return 1; }
	path=$(proc_path "${RCPID[stock]}")
	got=$(pings "$B" "$IP_A")
	sleep 0.5
	rc_stop stock
	set_mode 0
	prog=$(ip -d link show "$A" | grep -o 'prog/xdp id [0-9]*' || echo none)
	msg="/proc path $path, ringcount captured $(rc_val stock captured) path=$(rc_val stock path), ping $B->$A ${got:-0}/3, XDP program: $prog"
	[ "$path" = hook:no-native-xdp ] && [ "$(rc_val stock path)" = hook:no-native-xdp ] &&
		[ "${got:-0}" = 3 ] && [ "$(rc_val stock captured)" -ge 3 ] && [ "$prog" = none ] ||
		return 1
	# <(...): a pipeline's dmesg could die of SIGPIPE (pipefail)
	grep -q "$A: mode 2 stays on the mode 0 hook: the driver has no native XDP" <(dmesg) ||
		{ msg+="; no log line"; return 1; }
}
tcase "mode 2 on the stock e1000e: no native XDP, the hook captures, path hook:no-native-xdp, logged" t_stock_mode2
tcase "move: $A back to $DRV, link up, ping" t_move "$DRV"

e1000e_end
