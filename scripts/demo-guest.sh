#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make demo` (scripts/demo.sh boots the guest with one
# emulated 82574L, nic0, whose wire is the host traffic generator): the NIC
# on ringcap_e1000e in transparent mode 2, Debian's tcpdump, unchanged,
# capturing through ringcap (libpcap-ring's ringcap-run) into a pcap file,
# FRAMES frames from the host in 64 flows, and where every frame went; then
# the same load to a ringcount on each RX queue.
#
#   scripts/demo-guest.sh [FRAMES]     default 200000
#
#   RINGCAP_DEMO_MODE=0|1|2   transparent_mode (default 2)
#   RINGCAP_DEMO_RATE=PPS     offered rate (default 0: as fast as the host
#                             can send, more than the guest can take)
#   RINGCAP_DEMO_SIZE=BYTES   frame size without FCS (default 64)
#   RINGCAP_DEMO_COMPARE=1    then offer the same load to tcpdump through
#                             ringcap in mode 0, to tcpdump through AF_PACKET
#                             on ringcap_e1000e (RINGCAP_DISABLE=1) and on the
#                             stock e1000e, and compare the capture shares
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
frames=${1:-200000}
mode=${RINGCAP_DEMO_MODE:-2}
rate=${RINGCAP_DEMO_RATE:-0}
size=${RINGCAP_DEMO_SIZE:-64}
ringcount=$top/userland/build/bin/ringcount
ringcap_run=$top/libpcap-ring/ringcap-run
ring=4M				# per queue; tcpdump gets the same in total
out=$(mktemp -d)
pids=()

[ -x "$ringcount" ] || { echo "demo: $ringcount missing (make -C userland)" >&2; exit 1; }
[ -f "$top/libpcap-ring/build/lib/libpcap.so.0.8" ] ||
	{ echo "demo: no drop-in libpcap (make -C libpcap-ring)" >&2; exit 1; }

cleanup() {
	local p
	for p in "${pids[@]+"${pids[@]}"}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$out"
}
trap cleanup EXIT

. "$top/scripts/guest-nic.sh"
pct() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f%%", b ? 100 * a / b : 0}'; }
offer() { nic_offer "$frames" "$size" "$rate" 64; }

# ringcount on each RX queue around one offer; sets CAPTURED, RINGFULL.
ringcount_run() {
	local q s
	for q in 0 1; do
		"$ringcount" -i "$dev@$q" -r "$ring" >"$out/rc$q" 2>&1 &
		pids[q]=$!
	done
	for q in 0 1; do
		wait_for 20 grep -q '^t=' "$out/rc$q" ||
			{ echo "demo: ringcount -i $dev@$q did not start" >&2; cat "$out/rc$q" >&2; exit 1; }
	done
	offer
	CAPTURED=0 RINGFULL=0
	for q in 0 1; do
		kill -INT "${pids[q]}"
		wait "${pids[q]}" || true
		s=$(grep '^ringcount:' "$out/rc$q" | tail -n 1)
		CAP[q]=$(kv captured "$s")
		FULL[q]=$(kv dropped "$s")
		CAPTURED=$((CAPTURED + CAP[q]))
		RINGFULL=$((RINGFULL + FULL[q]))
	done
	pids=()
}

# tcpdump_run [ringcap-run [ENV=VAL...]] around one offer: Debian's tcpdump
# writing every frame to $out/td.pcap, through the system libpcap
# (AF_PACKET, TPACKET_V3) or through ringcap-run; sets CAPTURED, RINGFULL
# from its closing lines and SOCK from /proc/net/ringcap.
tcpdump_run() {
	local p pre=()
	[ $# = 0 ] || { pre=(env "${@:2}" "$ringcap_run"); }
	rm -f "$out/td.pcap"
	"${pre[@]}" tcpdump -i "$dev" -Q in -n -p -w "$out/td.pcap" -B $((2 * 4096)) -Z root >"$out/td" 2>&1 &
	p=$!
	pids=("$p")
	wait_for 20 grep -q 'listening on' "$out/td" ||
		{ echo "demo: tcpdump did not start" >&2; cat "$out/td" >&2; exit 1; }
	SOCK=$(awk -v p="$p" '$1 == p' /proc/net/ringcap)
	offer
	kill -INT "$p"
	wait "$p" || true
	pids=()
	CAPTURED=$(sed -n 's/^\([0-9]*\) packets\{0,1\} captured.*/\1/p' "$out/td")
	RINGFULL=$(sed -n 's/^\([0-9]*\) packets\{0,1\} dropped by kernel.*/\1/p' "$out/td")
}

nic_find || exit 1

modprobe ringcap transparent_mode="$mode"
nic_bind ringcap_e1000e || exit 1
echo "demo: $(uname -r), ringcap $(cat /sys/module/ringcap/version), $dev ($pci) on ringcap_e1000e," \
	"transparent_mode $mode, $(nproc) CPUs"
echo "demo: RX threads: $(ps -eo comm,psr | awk -v d="$dev" '$1 ~ "^" d "-rx" {printf "%s on CPU %s  ", $1, $2}')"
echo "demo: the host offers $frames frames of $size bytes in 64 flows at" \
	"$([ "$rate" = 0 ] && echo "full speed" || echo "$rate/s")"

q0=$(nic_stat rx0_packets) q1=$(nic_stat rx1_packets)
s0=$(nic_stat rx0_to_stack) s1=$(nic_stat rx1_to_stack)
echo "demo: ringcap-run tcpdump -i $dev -w $out/td.pcap  (Debian's /usr/bin/tcpdump, unchanged)"
tcpdump_run ringcap-run
[ -n "$SOCK" ] || { echo "demo: tcpdump did not capture through ringcap" >&2; cat "$out/td" >&2; exit 1; }
q0=$(($(nic_stat rx0_packets) - q0)) q1=$(($(nic_stat rx1_packets) - q1))
stack=$(($(nic_stat rx0_to_stack) + $(nic_stat rx1_to_stack) - s0 - s1))
infile=$(tcpdump -r "$out/td.pcap" -n -q 2>/dev/null | wc -l)
sed 's/^/demo: tcpdump: /' "$out/td" | grep -E 'captured|received|dropped'

echo
printf 'demo: where the %d offered frames went (mode %s)\n' "$OFFERED" "$mode"
printf '  %-48s %9s\n' "offered by the host generator" "$OFFERED"
printf '  %-48s %9s\n' "  dropped on the wire (host, QEMU busy)" "$WIRE"
printf '  %-48s %9s\n' "  missed by the NIC (MPC)" "$MISSED"
printf '  %-48s %9s\n' "  delivered by the NIC" "$NIC_RX"
printf '  %-48s %9s\n' "    RX queue 0 / 1" "$q0 / $q1"
printf '  %-48s %9s\n' "    passed to the stack" "$stack"
printf '  %-48s %9s\n' "    dropped, ring full (tcpdump: by kernel)" "$RINGFULL"
printf '  %-48s %9s\n' "    captured by tcpdump (frames in its file)" "$CAPTURED ($infile)"
printf '  %-48s %9s\n' "unaccounted" $((OFFERED - WIRE - MISSED - NIC_RX))
echo "demo: tcpdump captured $CAPTURED of $OFFERED offered ($(pct "$CAPTURED" "$OFFERED")), of $NIC_RX delivered by the NIC ($(pct "$CAPTURED" "$NIC_RX"))"
declare -a rows
row() { rows+=("$(printf '  %-44s %9s %9s %9s %9s %8s' "$1" "$OFFERED" "$OFFER_PPS" "$NIC_RX" "$CAPTURED" "$(pct "$CAPTURED" "$OFFERED")")"); }
row "ringcap_e1000e mode $mode, tcpdump via ringcap"

# The native reader on the same load, one per RX queue.
echo
echo "demo: the same load to ringcount -i $dev@0 and -i $dev@1"
ringcount_run
for q in 0 1; do
	echo "demo: ringcount -i $dev@$q: $(grep '^ringcount:' "$out/rc$q" | tail -n 1 | cut -d' ' -f2-)"
done
echo "demo: ringcount captured $CAPTURED of $OFFERED offered ($(pct "$CAPTURED" "$OFFERED")), of $NIC_RX delivered by the NIC ($(pct "$CAPTURED" "$NIC_RX")); ring full ${FULL[0]} / ${FULL[1]}"
row "ringcap_e1000e mode $mode, ringcount per queue"
[ "${RINGCAP_DEMO_COMPARE:-0}" = 1 ] || exit 0

# The same load through the other set-ups, one after the other.
for m in 0 2; do
	[ "$m" != "$mode" ] || continue
	echo "$m" >/sys/module/ringcap/parameters/transparent_mode
	tcpdump_run ringcap-run
	row "ringcap_e1000e mode $m, tcpdump via ringcap"
done
echo 0 >/sys/module/ringcap/parameters/transparent_mode
tcpdump_run ringcap-run RINGCAP_DISABLE=1
row "ringcap_e1000e mode 0, tcpdump via AF_PACKET"
nic_bind e1000e || exit 1
tcpdump_run
row "e1000e, tcpdump via AF_PACKET"
echo
echo "demo: the same offered load, one set-up after the other"
printf '  %-44s %9s %9s %9s %9s %8s\n' set-up offered "rate/s" "NIC rx" captured share
printf '%s\n' "${rows[@]}"
