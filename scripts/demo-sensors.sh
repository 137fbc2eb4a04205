#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo-sensors`: several capture sensors behind a packet broker,
# each exporting flows to a collector, and a check that the collector got
# every flow sent with exact counts, or that each frame missing there was
# counted lost by some layer of some sensor (docs/SCALING.md).
#
#  - The broker is the host: it splits the traffic by a symmetric flow hash
#    into one pcap per sensor (scripts/demo_sensors.py) and replays each
#    into its sensor's NIC (rcgen --replay, at a fixed rate).
#  - Each sensor is a QEMU guest on the 6.1 kernel with ringcap and
#    ringcap_e1000e installed by DKMS: an emulated 82574L in transparent
#    mode 2 and a ringcap cluster of unchanged softflowd, one per member,
#    through ringcap-run (scripts/demo-sensors-guest.sh).
#  - The collector is nfdump's nfcapd on the host, one per exporter, which
#    the guests reach over QEMU's user network.
#
#   scripts/demo-sensors.sh
#   RINGCAP_DEMO_SENSORS=N     sensors, one guest each (default 2)
#   RINGCAP_DEMO_MEMBERS=M     softflowd per sensor (default 2)
#   RINGCAP_DEMO_RATE=PPS      frames per second into each sensor
#                              (default 2000; 0 is as fast as the host can
#                              send, more than a sensor can take, to see
#                              the loss accounted)
#   RINGCAP_DEMO_KERNEL=KVER   another kernel than the 6.1 one
#
# Everything is kept in build/demo-sensors/: the pcaps and flows.tsv (what
# was sent), each sensor's log, the collector's files and nfdump.tsv, and
# flows.txt (the comparison, one line per flow and direction).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
sensors=${RINGCAP_DEMO_SENSORS:-2}
members=${RINGCAP_DEMO_MEMBERS:-2}
rate=${RINGCAP_DEMO_RATE:-2000}
out=$top/build/demo-sensors
for v in "$sensors" "$members" "$rate"; do
	[[ $v =~ ^[0-9]+$ ]] || { echo "demo: RINGCAP_DEMO_* take numbers, not '$v'" >&2; exit 2; }
done
[ "$sensors" -ge 1 ] && [ "$sensors" -le 4 ] && [ "$members" -ge 1 ] && [ "$members" -le 8 ] ||
	{ echo "demo: 1..4 sensors of 1..8 members" >&2; exit 2; }

scripts/deps.sh --sensors
k=${RINGCAP_DEMO_KERNEL:-$(scripts/kernels.sh | tr ' ' '\n' | grep '^6\.1\.' | head -n 1 || true)}
[ -n "$k" ] || { echo "demo: no 6.1 kernel (scripts/deps.sh)" >&2; exit 1; }
make -s -C userland
make -s -C libpcap-ring
scripts/install-debs.sh "$k"

pids=() cpids=() drops=()
cleanup() {
	local p
	for p in "${pids[@]+"${pids[@]}"}" "${cpids[@]+"${cpids[@]}"}"; do
		kill "$p" 2>/dev/null || true
	done
}
trap cleanup EXIT
rm -rf "$out"
mkdir -p "$out"
echo "demo: the broker's traffic, split by a symmetric flow hash:"
/usr/bin/python3 scripts/demo_sensors.py traffic "$out" "$sensors" | sed 's/^/  /'

# The collector: an nfcapd per exporter, each on a free UDP port, so that
# one exporter's export sequence is not mixed with another's.
ports=($(/usr/bin/python3 -c '
import socket, sys
s = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(int(sys.argv[1]))]
for x in s:
    x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))' $((sensors * members))))
for ((s = 0; s < sensors; s++)); do
	for ((m = 0; m < members; m++)); do
		i=$((s * members + m)) d=$out/collector/s$s-m$m
		mkdir -p "$d"
		nfcapd -w "$d" -b 127.0.0.1 -p "${ports[i]}" -t 3600 -I "s$s-m$m" \
			>"$d.log" 2>&1 &
		cpids[i]=$!
	done
done
for ((i = 0; i < sensors * members; i++)); do
	for ((t = 0; t < 50; t++)); do
		ss -Hlun "sport = :${ports[i]}" | grep -q . && break
		sleep 0.1
	done
	ss -Hlun "sport = :${ports[i]}" | grep -q . ||
		{ echo "demo: nfcapd did not listen on ${ports[i]}" >&2; exit 1; }
done
echo "demo: the collector: nfcapd on 127.0.0.1, one per exporter, ports ${ports[*]}"

# The sensors, side by side.
for ((s = 0; s < sensors; s++)); do
	p=$(IFS=,; echo "${ports[*]:s*members:members}")
	scripts/vm/run -k "$k" --timeout 900 --nic e1000e-dgram --nic virtio-user -- \
		scripts/demo-sensors-guest.sh "$s" "$out/sensor$s.pcap" "$members" "$p" "$rate" \
		>"$out/sensor$s.log" 2>&1 &
	pids[s]=$!
done
echo "demo: $sensors sensors booting ($k), each with $members softflowd; logs in $out"
rc=0
for ((s = 0; s < sensors; s++)); do
	wait "${pids[s]}" || { rc=$?; echo "demo: sensor$s failed ($rc):" >&2; tail -n 20 "$out/sensor$s.log" >&2; }
	grep -E "^sensor$s: " "$out/sensor$s.log" || true
done
pids=()
[ "$rc" = 0 ] || exit 1

# Each collector socket: the bytes it holds unread ("queue", which nfcapd
# must read before it stops) or the datagrams it dropped ("drops": its
# buffer was full); /proc/net/udp, by local address.
sock() {
	local a f n=0
	a=$(printf '0100007F:%04X' "$2")
	while read -r -a f; do
		[ "${f[1]}" = "$a" ] || continue
		if [ "$1" = queue ]; then
			n=$((n + 16#${f[4]#*:}))
		else
			n=$((n + f[${#f[@]} - 1]))
		fi
	done </proc/net/udp
	echo "$n"
}
for ((i = 0; i < sensors * members; i++)); do
	for ((t = 0; t < 50; t++)); do
		[ "$(sock queue "${ports[i]}")" = 0 ] && break
		sleep 0.1
	done
	drops[i]=$(sock drops "${ports[i]}")
done
# Then stop the collector (nfcapd closes its file on SIGTERM) and read it.
for p in "${cpids[@]}"; do kill -TERM "$p"; done
for p in "${cpids[@]}"; do wait "$p" || true; done
cpids=()
: >"$out/nfdump.tsv"
: >"$out/collector.txt"
for ((s = 0; s < sensors; s++)); do
	for ((m = 0; m < members; m++)); do
		d=$out/collector/s$s-m$m
		nfdump -R "$d" -q -6 -N -o 'fmt:%pr %sa %sp %da %dp %pkt %byt' |
			sed "s/^/$s $m /" >>"$out/nfdump.tsv"
		nfdump -R "$d" -I | awk -v s="$s" -v m="$m" -F': ' '
			$1 == "Flows" {f = $2} $1 == "Packets" {p = $2} $1 == "Bytes" {b = $2}
			$1 == "Sequence failures" {q = $2}
			END {printf "collector: sensor=%d member=%d flows=%d packets=%d bytes=%d seq_failures=%d", s, m, f, p, b, q}' \
			>>"$out/collector.txt"
		echo " sock_drops=${drops[s * members + m]}" >>"$out/collector.txt"
	done
done
echo
/usr/bin/python3 scripts/demo_sensors.py report "$out"
