#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Ordinary networking over the pair (rce0, and rce1 in netns rce) in
# every transparent mode: ARP and ping, TCP and UDP with and without a
# ring, Debian's tcpdump through libpcap-ring and through AF_PACKET, VLAN
# tags stripped by the NIC or by ringcap, and mode switches under
# traffic.
#
# One area of the ringcap_e1000e tests on QEMU's 82574L: it sets up its
# own NICs, driver and namespace and puts them back at the end (lib.sh
# here), so it runs alone or beside the other areas, in any order. In a
# guest as root (scripts/vm/run ... --nic e1000e-pair --nic e1000e-dgram),
# after run_guest.sh loaded ringcap:
#
#   RC_TESTS=e1000e/traffic.sh selftests/run_guest.sh
#
# Settings (RC_E1000E_*, RC_REQUIRE, RC_HOST...): see lib.sh.
#
# Output: TAP. Exit status: 0 all passed, 1 a test failed, 4 skipped.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e1000e_begin 18

# ---- ordinary networking -----------------------------------------------

# ARP resolves and ping answers, both ways
t_arp_ping() { # FROM_DEV DST DST_MAC
	local got ll
	ip neigh flush dev "$A" nud all 2>/dev/null || true
	ip -n "$NS" neigh flush dev "$B" nud all 2>/dev/null || true
	got=$(pings "$1" "$2")
	ll=$(in_dev "$1" ip neigh show "$2" dev "$1" | sed -n 's/.*lladdr \([^ ]*\).*/\1/p')
	static_neigh
	msg="${got:-0}/3 replies, ARP: $2 is at ${ll:-nothing}"
	[ "${got:-0}" = 3 ] && [ "$ll" = "$3" ]
}
tcase "ARP and ping $A -> $B" t_arp_ping "$A" "$IP_B" "${MAC[1]}"
tcase "ARP and ping $B -> $A" t_arp_ping "$B" "$IP_A" "${MAC[0]}"

# TCP_MB of TCP, checksummed, in modes 0 and 1 (mode 1 with a ring on B)
t_tcp() {
	local mode=$1 rpid out sent got rx rc=0
	local -A s0 s1
	set_mode "$mode"
	if [ "$mode" = 1 ]; then rc_start tcp "$B" || return 1; fi
	snap s0 "$B" || { msg="ethtool -S $B failed"; return 1; }
	ip netns exec "$NS" "$PY" -S "$NETPY" --timeout 120 tcp-recv --port 7001 >"$tmp/tcp.out" 2>&1 &
	rpid=$!
	if ! wait_for 20 grep -qx ready "$tmp/tcp.out"; then
		msg="receiver not ready: $(cat "$tmp/tcp.out")"
		return 1
	fi
	out=$("$PY" -S "$NETPY" --timeout 120 tcp-send --dst "$IP_B" --port 7001 --bytes $((TCP_MB << 20)) 2>&1) || rc=1
	wait "$rpid" || rc=1
	sent=$(kv sha256 "$out")
	got=$(kv sha256 "$(cat "$tmp/tcp.out")")
	settle "$B" || true
	snap s1 "$B"
	rx=$(dq s0 s1 packets)
	msg="sent $(kv bytes "$out") bytes sha256 ${sent:0:16}, got $(kv bytes "$(cat "$tmp/tcp.out")") sha256 ${got:0:16}, $B took $rx frames (to_stack $(dq s0 s1 to_stack))"
	[ "$rc" = 0 ] && [ -n "$sent" ] && [ "$sent" = "$got" ] || { msg+="; $out"; return 1; }
	[ "$(dq s0 s1 to_stack)" = "$rx" ] || { msg+=": not every frame reached the stack"; return 1; }
	if [ "$mode" = 1 ]; then
		rc_stop tcp
		msg+=", ring $(rc_val tcp received) + dropped $(rc_val tcp dropped)"
		[ "$(rc_frames tcp)" = "$rx" ] || { msg+=" != $rx frames"; return 1; }
	fi
	return 0
}
tcase "mode 0: $TCP_MB MB TCP $A -> $B arrives intact" t_tcp 0
tcase "mode 1: $TCP_MB MB TCP $A -> $B arrives intact, the ring on $B sees every frame" t_tcp 1
rc_stop tcp

# UDP datagrams to a socket on B
UDP_N=1000
# t_udp MODE RING(0/1) EXPECT(all/none) [nobody]
# nobody: the ring is bound by uid nobody with CAP_NET_RAW alone, which
# takes no frame from the stack (DESIGN.md, "Security posture"): its path
# says aware:pass and $A's ping to $B goes on meanwhile.
t_udp() {
	local mode=$1 ring=$2 expect=$3 who=${4:-root} rpid out got rx stack want
	local path= ping=
	local -A s0 s1
	set_mode "$mode"
	if [ "$who" = nobody ]; then
		as_nobody_check || return $?
		RC_AS=("${NOBODY[@]}")
	fi
	if [ "$ring" = 1 ]; then rc_start udp "$B" || { RC_AS=(); return 1; }; fi
	RC_AS=()
	snap s0 "$B" || { msg="ethtool -S $B failed"; return 1; }
	if [ "$who" = nobody ]; then
		path=$(awk -v p="${RCPID[udp]}" '$1 == p {print $14}' "/proc/${RCPID[udp]}/net/ringcap")
		ping=$(pings "$A" "$IP_B")
	fi
	ip netns exec "$NS" "$PY" -S "$NETPY" --timeout 120 udp-recv --port 7002 --count "$UDP_N" --idle 60 >"$tmp/udp.out" 2>&1 &
	rpid=$!
	wait_for 20 grep -qx ready "$tmp/udp.out" || { msg="receiver not ready: $(cat "$tmp/udp.out")"; return 1; }
	out=$("$PY" -S "$NETPY" udp-send --dst "$IP_B" --port 7002 --count "$UDP_N" --pps 2000 2>&1) ||
		{ msg="sender: $out"; return 1; }
	settle "$B" || true
	# The receiver ends by itself once it has them all; else stop it.
	wait_for 2 eval "! kill -0 $rpid" || kill -TERM "$rpid" 2>/dev/null || true
	wait "$rpid" 2>/dev/null || true
	got=$(kv received "$(cat "$tmp/udp.out")")
	snap s1 "$B"
	rx=$(dq s0 s1 packets)
	stack=$(dq s0 s1 to_stack)
	msg="sent $(kv sent "$out"), UDP socket got ${got:-?}, $B took $rx frames, to_stack $stack"
	if [ "$ring" = 1 ]; then
		rc_stop udp
		msg+=", ring $(rc_val udp received) + dropped $(rc_val udp dropped)"
	fi
	if [ "$who" = nobody ]; then
		msg+=", ring bound by nobody: path ${path:-?}, ping $A->$B ${ping:-0}/3"
		[ "$path" = aware:pass ] || { msg+="; expected path aware:pass"; return 1; }
		[ "${ping:-0}" = 3 ] || { msg+="; the ping failed"; return 1; }
	fi
	want=$UDP_N
	[ "$expect" = all ] || want=0
	[ "${got:-x}" = "$want" ] || { msg+="; expected the socket to get $want"; return 1; }
	[ "$rx" -ge "$UDP_N" ] || { msg+="; expected $B to take at least $UDP_N"; return 1; }
	if [ "$ring" = 1 ]; then
		[ "$(rc_frames udp)" = "$rx" ] || { msg+="; ring != frames taken"; return 1; }
		[ "$(rc_val udp dropped)" = 0 ] || { msg+="; ring dropped frames"; return 1; }
	fi
	if [ "$expect" = none ]; then
		[ "$stack" = 0 ] || { msg+="; frames reached the stack"; return 1; }
	else
		[ "$stack" = "$rx" ] || { msg+="; not every frame reached the stack"; return 1; }
	fi
}
# The receiver reports on SIGTERM too (see net.py).
tcase "mode 0: every UDP datagram reaches a socket on $B" t_udp 0 0 all
tcase "mode 1: every UDP datagram reaches the socket and the ring on $B" t_udp 1 1 all
tcase "mode 2: a ring bound on $B gets every datagram, the UDP socket none" t_udp 2 1 none
rc_stop udp
tcase "mode 2: with the ring closed the UDP socket gets them all again" t_udp 2 0 all
tcase "mode 2: a ring bound on $B by uid nobody with CAP_NET_RAW alone gets every datagram, and so does the UDP socket" t_udp 2 1 all nobody
rc_stop udp
set_mode 0

# Debian's tcpdump, unchanged, through libpcap-ring (ringcap-run) on
# $B in mode 2, then through AF_PACKET (RINGCAP_DISABLE=1) in mode 0: the
# 1009 test frames $A sends arrive byte for byte in both files.
TD_N=1009
# td_capture NAME MODE [ENV=VAL...]: $TD_N frames $A -> $B into $tmp/NAME.pcap
td_capture() {
	local name=$1 mode=$2 pid rc=0 out
	shift 2
	set_mode "$mode"
	ip netns exec "$NS" env "$@" "$RINGCAP_RUN" tcpdump -Z root -i "$B" \
		-c "$TD_N" -w "$tmp/$name.pcap" ether proto 0x88b5 \
		>"$tmp/$name.out" 2>"$tmp/$name.err" &
	pid=$!
	wait_for 20 grep -q "listening on" "$tmp/$name.err" ||
		{ msg="tcpdump did not start: $(tail -n 2 "$tmp/$name.err" | tr '\n' ' ')"; kill "$pid"; return 1; }
	TD_SOCK=$(awk -v p="$pid" '$1 == p' "/proc/$pid/net/ringcap")
	out=$("$PY" -S "$NETPY" frames-send --dev "$A" --count "$TD_N" --run 13 --pps 2000 2>&1) ||
		{ msg="sender: $out"; kill "$pid"; return 1; }
	wait_for 30 eval "! kill -0 $pid" || kill -INT "$pid" 2>/dev/null
	wait "$pid" || rc=$?
	set_mode 0
	msg="$(grep -E 'captured|dropped by kernel' "$tmp/$name.err" | tr '\n' ' ')"
	[ "$rc" = 0 ] || { msg+="; tcpdump exit $rc"; return 1; }
	out=$("$PY" -S "$FRAMES_PY" seq "$tmp/$name.pcap" 0 "$TD_N" 0 13) ||
		{ msg+="; $out"; return 1; }
}
t_tcpdump_ring() {
	[ -x "$RINGCAP_RUN" ] && [ -f "$LPR/build/lib/libpcap.so.0.8" ] ||
		{ msg="no drop-in libpcap: make -C libpcap-ring"; return "$MISSING"; }
	command -v tcpdump >/dev/null || { msg="no tcpdump"; return "$MISSING"; }
	td_capture td_ring 2 || return 1
	[ -n "$TD_SOCK" ] || { msg+="; tcpdump had no ringcap socket"; return 1; }
}
t_tcpdump_same() {
	[ -f "$tmp/td_ring.pcap" ] || { msg="the ringcap capture did not run"; return 1; }
	td_capture td_af 0 RINGCAP_DISABLE=1 || return 1
	[ -z "$TD_SOCK" ] || { msg+="; RINGCAP_DISABLE=1 still opened a ringcap socket"; return 1; }
	out=$("$PY" -S "$FRAMES_PY" same "$tmp/td_ring.pcap" "$tmp/td_af.pcap") ||
		{ msg+="; $out"; return 1; }
}
tcase "mode 2: Debian's tcpdump through ringcap-run on $B writes the $TD_N frames from $A byte-exact, in order" t_tcpdump_ring
tcase "mode 0: the same capture through AF_PACKET (RINGCAP_DISABLE=1) holds the same frames" t_tcpdump_same

# ---- VLAN tags: stripped by the NIC or by ringcap, reported either way -----

# With rx-vlan-offload on (the default) the driver sets CTRL.VME: the NIC
# takes an 802.1Q tag (VET 0x8100) out of the frame and writes its TCI into
# the descriptor (status VP); the driver counts it (rx<q>_vlan_stripped)
# and passes it to ringcap as has_vlan. With it off the tag reaches ringcap
# in the frame, and ringcap takes it out itself, as the standard path does
# before its taps. Either way the record is the same: the outer tag in
# RINGCAP_REC_VLAN (vlan_tci, vlan_proto), anything inside it left in the
# data. Sent from $A: 802.1Q frames (TCI $VLAN_TCI), which the NIC strips
# when told to, and QinQ frames (802.1ad $VLAN_STAG outside, the same
# 802.1Q inside), whose outer tag it never strips (not VET). Mode 2 on $B,
# so that each record is what the driver handed ringcap.
VLAN_N=10 VLAN_TCI=0x2123 VLAN_STAG=0x0456	# C-tag PCP 1 VID 0x123, S-tag VID 0x456
t_vlan() { # on|off
	local rpid want=$1 feat single qinq other stripped out rc=0
	local -A v0 v1
	set_mode 2
	in_dev "$B" ethtool -K "$B" rxvlan "$want" 2>"$tmp/vlan.err" ||
		{ msg="ethtool -K $B rxvlan $want: $(cat "$tmp/vlan.err")"; set_mode 0; return 1; }
	feat=$(in_dev "$B" ethtool -k "$B" | sed -n 's/^rx-vlan-offload: //p')
	snap v0 "$B" || { msg="ethtool -S $B failed"; set_mode 0; return 1; }
	ip netns exec "$NS" "$PY" -S "$NETPY" --timeout 60 ring-recv --dev "$B" \
		--count $((2 * VLAN_N)) --idle 10 >"$tmp/vlan.out" 2>&1 &
	rpid=$!
	if wait_for 20 grep -qx ready "$tmp/vlan.out"; then
		out=$("$PY" -S "$NETPY" vlan-send --dev "$A" --dst-mac "${MAC[1]}" \
			--tci "$VLAN_TCI" --count "$VLAN_N" --pps 200 2>&1) &&
			out=$("$PY" -S "$NETPY" vlan-send --dev "$A" --dst-mac "${MAC[1]}" \
				--tci "$VLAN_TCI" --stag "$VLAN_STAG" --count "$VLAN_N" --pps 200 2>&1) ||
			{ msg="vlan-send: $out"; rc=1; }
	else
		msg="ring-recv not ready: $(tail -n 2 "$tmp/vlan.out" | tr '\n' ' ')"
		rc=1
	fi
	wait "$rpid" || true
	settle "$B" || true
	snap v1 "$B"
	set_mode 0
	in_dev "$B" ethtool -K "$B" rxvlan on 2>/dev/null || true
	[ "$rc" = 0 ] || return 1
	# The records of our frames; anything else on the wire (untagged)
	# is counted in "other".
	single=$(grep -c "^rec: flags=0x[0-9a-f]*[2367abef] caplen=60 wire_len=60 vlan_tci=$VLAN_TCI vlan_proto=0x8100 type=0x800 " "$tmp/vlan.out" || true)
	qinq=$(grep -c "^rec: flags=0x[0-9a-f]*[2367abef] caplen=64 wire_len=64 vlan_tci=$(printf 0x%x "$VLAN_STAG") vlan_proto=0x88a8 type=0x8100 tag=$VLAN_TCI\$" "$tmp/vlan.out" || true)
	other=$(($(grep -c '^rec: ' "$tmp/vlan.out" || true) - single - qinq))
	stripped=$(dq v0 v1 vlan_stripped)
	msg="rx-vlan-offload: ${feat:-?}, NIC stripped $stripped; $VLAN_N 802.1Q frames recorded untagged with RINGCAP_REC_VLAN ($VLAN_TCI, 0x8100): $single; $VLAN_N QinQ recorded with the outer tag in RINGCAP_REC_VLAN ($VLAN_STAG, 0x88a8) and the inner in the data: $qinq; other records: $other"
	if [ "$feat" = "$want" ] && [ "$single" = "$VLAN_N" ] && [ "$qinq" = "$VLAN_N" ] &&
		[ "$stripped" = "$([ "$want" = on ] && echo "$VLAN_N" || echo 0)" ]; then
		return 0
	fi
	echo "# the records ring-recv saw:"
	grep -v '^rec: ' "$tmp/vlan.out" | show
	grep '^rec: ' "$tmp/vlan.out" | sort | uniq -c | head -n 8 | show
	return 1
}
tcase "VLAN, mode 2, rx-vlan-offload on: the NIC strips 802.1Q tags (vlan_stripped), the records report the outer tag, a QinQ inner tag stays in the data" t_vlan on
tcase "VLAN, mode 2, rx-vlan-offload off: nothing stripped by the NIC, ringcap reports the same records" t_vlan off
set_mode 0
# ---- transparent mode switches under traffic (pair) -----------------------

t_switch() {
	local spid out n=12000 step i seen path rx nic_rx offered ring drops
	local -A a0 a1 b0 b1
	set_mode 0
	rc_start sw "$B" || return 1
	snap a0 "$A" && snap b0 "$B" || { msg="ethtool -S failed"; return 1; }
	# Up to 4n frames, stopped once n have arrived: a switch can take
	# seconds on a loaded host, and a sender of n alone was done before
	# the third one in one run.
	"$PY" -S "$NETPY" --timeout 300 raw-send --dev "$A" --dst-mac "${MAC[1]}" \
		--count $((4 * n)) --pps 3000 --flows 16 >"$tmp/raw.out" 2>&1 &
	spid=$!
	# Switch at a quarter, half and three quarters of n, stop at n.
	seen=
	path=0
	for step in 1 2 0 end; do
		while kill -0 "$spid" 2>/dev/null; do
			rx=$(($(rxsum "$B") - ${b0[rx0_packets]} - ${b0[rx1_packets]}))
			[ "$rx" -lt $((n * (${#seen} + 1) / 4)) ] || break
			sleep 0.1
		done
		kill -0 "$spid" 2>/dev/null || break
		[ "$step" != end ] || break
		set_mode "$step"
		seen+=$step
		path+="->$step"
	done
	if kill "$spid" 2>/dev/null; then
		wait "$spid" 2>/dev/null || true
	else
		wait "$spid" || { msg="sender: $(cat "$tmp/raw.out")"; return 1; }
	fi
	settle "$B" || true
	snap a1 "$A"
	snap b1 "$B"
	rc_stop sw
	set_mode 0
	offered=$(d a0 a1 tx0_packets)
	nic_rx=$(dq b0 b1 packets)
	ring=$(rc_frames sw)
	drops=$(($(d b0 b1 sys_rx_dropped) + $(dq b0 b1 errors)))
	msg="switched $path, $A tx0 +$offered, $B took $nic_rx (rx_missed +$(d b0 b1 rx_missed)), ring $(rc_val sw received) + dropped $(rc_val sw dropped), driver drops +$drops"
	[ "$seen" = 120 ] || { msg+="; traffic ended before all switches"; return 1; }
	[ $((nic_rx + $(d b0 b1 rx_missed))) = "$offered" ] || { msg+="; $((offered - nic_rx)) frames lost uncounted between the NICs"; return 1; }
	[ $((ring + drops)) = "$nic_rx" ] || { msg+="; ring + drops != frames taken"; return 1; }
}
tcase "mode switch 0->1->2->0 under traffic: frames offered = captured + counted drops" t_switch
rc_stop sw
set_mode 0
tcase "after the mode switches the pair still works" works

e1000e_end
