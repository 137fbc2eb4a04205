#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One sensor of `make demo-sensors` (scripts/demo-sensors.sh boots one
# guest per sensor): the emulated 82574L, nic0, on ringcap_e1000e in
# transparent mode 2, its wire the packet broker (the host replaying this
# sensor's share of the traffic); a ringcap cluster of MEMBERS unchanged
# softflowd, each through ringcap-run, exporting NetFlow v9 over nic1
# (QEMU's user network) to its own nfcapd on the host at 10.0.2.2:PORT.
# At the end, every counter on the way, as `sensor:` and `member:` lines
# for scripts/demo_sensors.py.
#
#   scripts/demo-sensors-guest.sh SENSOR PCAP MEMBERS PORTS RATE
#
# SENSOR is a number (the cluster id is 100 + SENSOR, only for /proc to
# tell them apart), PCAP a path on the host, PORTS the collector's UDP
# ports, one per member, comma-separated, RATE frames per second.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# = 5 ] || { sed -n '/^#   scripts/p' "$0" >&2; exit 2; }
sensor=$1 pcap=$2 members=$3 rate=$5
IFS=, read -r -a port <<<"$4"
[ "${#port[@]}" = "$members" ] || { echo "sensor$sensor: $members members, ports $4" >&2; exit 2; }
ringcap_run=$top/libpcap-ring/ringcap-run
EXPORT_MAC=52:54:00:12:34:11
pids=()

cleanup() {
	local p
	for p in "${pids[@]+"${pids[@]}"}"; do kill -9 "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
. "$top/scripts/guest-nic.sh"
say() { echo "sensor$sensor: $*"; }
die() { say "$*" >&2; exit 1; }

# The export side: the virtio NIC on QEMU's user network.
xdev=
export_up() {
	local f
	modprobe virtio_net
	# sh -c: the glob is expanded at each try, not once before them.
	wait_for 20 sh -c 'grep -qx "$0" /sys/class/net/*/address' "$EXPORT_MAC" || return 1
	for f in /sys/class/net/*/address; do
		[ "$(cat "$f")" != "$EXPORT_MAC" ] || xdev=$(basename "$(dirname "$f")")
	done
	ip addr add 10.0.2.15/24 dev "$xdev"
	ip link set "$xdev" up
	wait_for 20 grep -qx 1 "/sys/class/net/$xdev/carrier" || return 1
	say "exports over $xdev, 10.0.2.15 -> 10.0.2.2 (the host)"
}

# A member's ringcap socket in /proc/net/ringcap: "received dropped".
sock_counts() { awk -v p="$1" '$1 == p {print $6, $7}' /proc/net/ringcap; }
# softflowctl statistics of member K.
sf_stat() { softflowctl -c "/run/sf$1.ctl" statistics; }
# counters KEY=VALUE...: one line of them, or the sensor fails naming the
# one that is not a number (a counter read wrong must not read as 0).
counters() {
	local w
	for w in "${@:2}"; do
		[[ ${w#*=} =~ ^[0-9]+$ ]] || die "no counter $w"
	done
	echo "$*"
}

nic_find || exit 1
modprobe ringcap transparent_mode=2
nic_bind ringcap_e1000e || exit 1
export_up || die "no export NIC"
say "$(uname -r), ringcap $(cat /sys/module/ringcap/version), $dev on" \
	"ringcap_e1000e, transparent mode 2, $(nproc) CPUs"

for ((k = 0; k < members; k++)); do
	RINGCAP_CLUSTER=$((100 + sensor)):flow "$ringcap_run" softflowd -d \
		-i "$dev" -v 9 -n "10.0.2.2:${port[k]}" \
		-c "/run/sf$k.ctl" -p "/run/sf$k.pid" >"/tmp/sf$k.log" 2>&1 &
	pids[k]=$!
done
for ((k = 0; k < members; k++)); do
	wait_for 30 test -S "/run/sf$k.ctl" && [ -n "$(sock_counts "${pids[k]}")" ] ||
		{ cat "/tmp/sf$k.log" >&2; die "softflowd $k did not start on ringcap"; }
done
say "ringcap-run softflowd -d -i $dev -v 9 -n 10.0.2.2:PORT, $members times," \
	"RINGCAP_CLUSTER=$((100 + sensor)):flow (Debian's softflowd, unchanged)"
awk -v c=$((100 + sensor)) 'NR == 2 || $0 ~ " " c " "' /proc/net/ringcap | sed "s/^/sensor$sensor: /"

w0=$(wiredrops) m0=$(nic_sys rx_missed_errors) n0=$(nic_sys rx_packets)
say "the broker replays $(basename "$pcap") at $rate frames/s"
g=$("$RC_HOST" gen nic0 --replay "$pcap" --rate "$rate")
steady 0.5 nic_sys rx_packets >/dev/null || true
say "${g##*$'\n'}"

# Every frame the NIC took is in a ring or counted dropped; wait until the
# exporters have read what is in the rings, then end every flow.
for ((k = 0; k < members; k++)); do
	steady 0.5 sf_stat "$k" >/dev/null || say "softflowd $k was still reading after 30 s"
	softflowctl -c "/run/sf$k.ctl" expire-all >/dev/null
done
sleep 1
counters sensor: "sensor=$sensor" "offered=$(kv sent "$g")" "send_errors=$(kv send_errors "$g")" \
	"wire=$(($(wiredrops) - w0))" "missed=$(($(nic_sys rx_missed_errors) - m0))" \
	"nic_rx=$(($(nic_sys rx_packets) - n0))"
for ((k = 0; k < members; k++)); do
	st=$(sf_stat "$k")
	read -r rx drop <<<"$(sock_counts "${pids[k]}")"
	# softflowctl: "Packets processed: N" (IP frames), "Ignored packets:
	# N (X non-IP, Y too short)", "Flows exported: F (R records) in D
	# packets (E failures)" and one line of octets and packets per
	# protocol, of the expired flows.
	processed=$(sed -n 's/^Packets processed: \([0-9]*\).*/\1/p' <<<"$st")
	read -r nonip short <<<"$(sed -n 's/^Ignored packets: [0-9]* (\([0-9]*\) non-IP, \([0-9]*\) too short).*/\1 \2/p' <<<"$st")"
	read -r flows dgrams fails <<<"$(sed -n 's/^Flows exported: \([0-9]*\) .* in \([0-9]*\) packets (\([0-9]*\) failures).*/\1 \2 \3/p' <<<"$st")"
	pk=$(awk '/^Per-protocol/ {p = 1; next} p && NF >= 4 {n += $(NF - 2)} END {print n + 0}' <<<"$st")
	counters member: "sensor=$sensor" "member=$k" "received=$rx" "ring_dropped=$drop" \
		"processed=$processed" "non_ip=$nonip" "too_short=$short" "exported=$pk" \
		"flows=$flows" "datagrams=$dgrams" "send_failures=$fails"
	softflowctl -c "/run/sf$k.ctl" shutdown >/dev/null
done
for ((k = 0; k < members; k++)); do
	wait "${pids[k]}" || true
done
pids=()
# What left the sensor towards the collector, and what its stack refused.
read -r udp_out udp_sndbuf <<<"$(awk '$1 == "Udp:" && $2 ~ /^[0-9]/ {print $5, $7}' /proc/net/snmp)"
counters export: "sensor=$sensor" "tx=$(cat "/sys/class/net/$xdev/statistics/tx_packets")" \
	"tx_dropped=$(cat "/sys/class/net/$xdev/statistics/tx_dropped")" \
	"udp_out=$udp_out" "udp_sndbuf_errors=$udp_sndbuf"
