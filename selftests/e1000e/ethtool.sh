#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ethtool against ringcap_e1000e on rce0: -i, -g, -G (applied, and
# refused outside the limits), -l and -S (every documented counter).
#
# One area of the ringcap_e1000e tests on QEMU's 82574L: it sets up its
# own NICs, driver and namespace and puts them back at the end (lib.sh
# here), so it runs alone or beside the other areas, in any order. In a
# guest as root (scripts/vm/run ... --nic e1000e-pair --nic e1000e-dgram),
# after run_guest.sh loaded ringcap:
#
#   RC_TESTS=e1000e/ethtool.sh selftests/run_guest.sh
#
# Settings (RC_E1000E_*, RC_REQUIRE, RC_HOST...): see lib.sh.
#
# Output: TAP. Exit status: 0 all passed, 1 a test failed, 4 skipped.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e1000e_begin 9

t_eth_i() {
	local out drv bus ver
	out=$(ethtool -i "$A" 2>&1) || { msg=$out; return 1; }
	drv=$(awk '/^driver:/ {print $2}' <<<"$out")
	bus=$(awk '/^bus-info:/ {print $2}' <<<"$out")
	ver=$(awk '/^version:/ {print $2}' <<<"$out")
	msg="driver $drv, bus-info $bus, version ${ver:-none}"
	[ "$drv" = "$DRV" ] && [ "$bus" = "${PCI[0]}" ] && [ -n "$ver" ]
}
tcase "ethtool -i: driver, bus-info and version" t_eth_i
t_eth_g() {
	local mr mt r t
	read -r mr mt r t <<<"$(ring_sizes "$A")"
	msg="max rx $mr tx $mt, current rx $r tx $t"
	[[ $mr =~ ^[0-9]+$ && $mt =~ ^[0-9]+$ && $r =~ ^[0-9]+$ && $t =~ ^[0-9]+$ ]] &&
		[ "$r" -gt 0 ] && [ "$t" -gt 0 ] && [ "$r" -le "$mr" ] && [ "$t" -le "$mt" ]
}
tcase "ethtool -g: ring sizes within their maximums" t_eth_g

t_eth_G() {
	local mr mt r t r2 t2 out m
	local -A s0 s1
	read -r mr mt r t <<<"$(ring_sizes "$A")"
	snap s0 "$A"
	out=$(ethtool -G "$A" rx 512 tx 512 2>&1) || { msg="ethtool -G rx 512 tx 512: $out"; return 1; }
	read -r _ _ r2 t2 <<<"$(ring_sizes "$A")"
	snap s1 "$A"
	wait_for 20 carrier "$A" 1 || true
	m="rx $r->$r2, tx $t->$t2, rx0_buf_allocs +$(d s0 s1 rx0_buf_allocs), rx1_buf_allocs +$(d s0 s1 rx1_buf_allocs)"
	if ! works; then
		msg="$m; $msg"
		ethtool -G "$A" rx "$r" tx "$t" >/dev/null 2>&1 || true
		return 1
	fi
	m+="; $msg"
	out=$(ethtool -G "$A" rx "$r" tx "$t" 2>&1) || { msg="$m; restoring: $out"; return 1; }
	wait_for 20 carrier "$A" 1 || true
	msg=$m
	[ "$r2" = 512 ] && [ "$t2" = 512 ] &&
		[ "$(d s0 s1 rx0_buf_allocs)" = 512 ] && [ "$(d s0 s1 rx1_buf_allocs)" = 512 ]
}
tcase "ethtool -G rx 512 tx 512: applied, buffers reallocated, traffic flows" t_eth_G

t_eth_G_bad() {
	local mr mt r t a b s= bad=
	read -r mr mt r t <<<"$(ring_sizes "$A")"
	for a in "rx $((mr + 8))" "tx $((mt + 8))" "rx 16" "tx 16" "rx 0"; do
		# shellcheck disable=SC2086
		if ethtool -G "$A" $a >/dev/null 2>&1; then
			s+=" '$a' accepted;"
			bad=1
		else
			s+=" '$a' refused;"
		fi
		read -r _ _ a b <<<"$(ring_sizes "$A")"
		[ "$a $b" = "$r $t" ] || { s+=" now rx $a tx $b;"; bad=1; }
	done
	wait_for 20 carrier "$A" 1 || true
	msg="max rx $mr tx $mt:${s%;}"
	[ -z "$bad" ]
}
tcase "ethtool -G: sizes above the maximum or below the minimum are refused" t_eth_G_bad

t_eth_l() {
	local out
	out=$(ethtool -l "$A" 2>&1) || { msg=$out; return 1; }
	read -r mrx mtx mco crx ctx cco <<<"$(awk '
		/^Pre-set/ {s = "m"} /^Current/ {s = "c"}
		/^(RX|TX|Combined):/ {v[s $1] = ($2 == "n/a" ? 0 : $2)}
		END {print v["mRX:"] + 0, v["mTX:"] + 0, v["mCombined:"] + 0,
			v["cRX:"] + 0, v["cTX:"] + 0, v["cCombined:"] + 0}' <<<"$out")"
	msg="max rx $mrx tx $mtx combined $mco, current rx $crx tx $ctx combined $cco"
	[ $((crx + cco)) = 2 ] && [ $((ctx + cco)) -ge 1 ] &&
		[ "$crx" -le "$mrx" ] && [ "$ctx" -le "$mtx" ] && [ "$cco" -le "$mco" ]
}
tcase "ethtool -l: two RX queues, at least one TX queue" t_eth_l

t_eth_S() {
	local k missing= q
	local -A s
	snap s "$A" || { msg="ethtool -S $A failed"; return 1; }
	for k in rx0_packets rx0_bytes rx0_errors rx0_to_ring rx0_to_stack rx0_irqs \
		rx0_masks rx0_unmasks rx0_wakeups rx0_batches rx0_buf_allocs rx0_vlan_stripped \
		rx0_skb_failed tx0_packets tx0_bytes tx0_busy tx0_cleaned rx_missed rx_no_buffer \
		rx_overruns rx_crc_errors rx_length_errors rx_hw_packets tx_hw_packets irq_other link_changes; do
		[ -n "${s[$k]:-}" ] || missing+=" $k"
		[[ $k != rx0_* ]] || [ -n "${s[rx1_${k#rx0_}]:-}" ] || missing+=" rx1_${k#rx0_}"
	done
	msg="$((${#s[@]} - 2)) counters"
	[ -z "$missing" ] || { msg+=", missing:$missing"; return 1; }
	# rx_hw_packets against the queues: rss.sh (t_hw_count).
	msg+="; $A: tx0_packets ${s[tx0_packets]} tx_hw_packets ${s[tx_hw_packets]}, rx_packets (stats64) $(sysstat "$A" rx_packets), rx0+rx1 $((s[rx0_packets] + s[rx1_packets]))"
}
tcase "ethtool -S: every documented counter, per RX queue and the NIC's own" t_eth_S

e1000e_end
