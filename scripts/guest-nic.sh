# SPDX-License-Identifier: GPL-2.0
#
# The emulated 82574L whose wire is the host traffic generator, as the demo
# and the benchmark use it inside a guest (scripts/vm/run --nic
# e1000e-dgram gives it the MAC below); sourced, never run. The caller
# sets $top (the source tree) first.
#
#   nic_find             sets $pci, or fails
#   nic_bind DRIVER      gives the NIC to DRIVER, up, with link; sets $dev
#   nic_offer FRAMES SIZE RATE FLOWS
#                        the host sends; waits until the NIC's counters
#                        stop; sets OFFERED OFFER_PPS WIRE MISSED NIC_RX
#   gen_offer NICn ARGS  the host generator's run (GEN_WAIT: see there)
#   nic_stat NAME        one `ethtool -S` counter of $dev

. "$top/selftests/lib.sh"	# wait_for, steady, kv

NIC_MAC=52:54:00:12:34:10
RC_HOST=$top/selftests/rc_host
dev= pci=

nic_stat() { ethtool -S "$dev" | awk -v k="$1:" '$1 == k {print $2}'; }
nic_sys() { cat "/sys/class/net/$dev/statistics/$1"; }
wiredrops() { "$RC_HOST" wiredrops nic0 | sed -n 's/^drops=\([0-9]*\)$/\1/p' | grep .; }

nic_find() {
	local f
	pci=
	for f in /sys/class/net/*/address; do
		[ "$(cat "$f")" = "$NIC_MAC" ] || continue
		pci=$(basename "$(readlink -f "$(dirname "$f")/device")")
	done
	[ -n "$pci" ] || pci=$(grep -l 0x10d3 /sys/bus/pci/devices/*/device | head -n 1 |
		xargs -r dirname | xargs -r basename)
	[ -n "$pci" ] || { echo "no 82574L in this guest" >&2; return 1; }
}

netdev_of() { ls "/sys/bus/pci/devices/$pci/net" 2>/dev/null | head -n 1; }
nic_bind() {
	local cur= d=/sys/bus/pci/devices/$pci/driver
	[ ! -e "$d" ] || cur=$(basename "$(readlink -f "$d")")
	if [ "$cur" != "$1" ]; then
		[ -z "$cur" ] || echo "$pci" >"$d/unbind"
		echo "$1" >"/sys/bus/pci/devices/$pci/driver_override"
		modprobe "$1"
		echo "$pci" >/sys/bus/pci/drivers_probe 2>/dev/null || true
	fi
	wait_for 20 netdev_of >/dev/null || { echo "$pci has no interface under $1" >&2; return 1; }
	dev=$(netdev_of)
	ip link set "$dev" up
	wait_for 20 grep -qx 1 "/sys/class/net/$dev/carrier" ||
		{ echo "$dev: no link" >&2; return 1; }
}

# gen_offer NICn RCGEN-ARGS...: the host generator's run into NICn, its
# summary on stdout. With GEN_WAIT=SECONDS the guest does not poll the
# host while it sends (each poll is a round trip through the 9p share):
# the request starts in the background, and is collected after a sleep
# that long, by GEN_SLEEP (default sleep). The bench's cost part counts
# the guest's instructions, and sleeps with cost_wait (scripts/cost.sh).
gen_offer() {
	if [ -z "${GEN_WAIT:-}" ]; then
		"$RC_HOST" gen "$@"
		return
	fi
	"$RC_HOST" --bg offer gen "$@" && ${GEN_SLEEP:-sleep} "$GEN_WAIT" &&
		"$RC_HOST" --wait offer
}

nic_offer() {
	local g w0 m0 n0
	w0=$(wiredrops)
	m0=$(nic_sys rx_missed_errors)
	n0=$(nic_sys rx_packets)
	[ -z "${PROFILE:-}" ] || "$PROFILE" enable
	g=$(gen_offer nic0 --dst-mac "$NIC_MAC" --flows "$4" --size "$2" \
		--rate "$3" --count "$1")
	steady 0.5 nic_sys rx_packets || true
	[ -z "${PROFILE:-}" ] || "$PROFILE" disable
	OFFERED=$(kv sent "$g")
	OFFER_PPS=$(kv rate_pps "$g")
	WIRE=$(($(wiredrops) - w0))
	MISSED=$(($(nic_sys rx_missed_errors) - m0))
	NIC_RX=$(($(nic_sys rx_packets) - n0))
}
