#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RSS, no allocations, interrupts: the host generator feeds rce2 with 64
# UDP flows in mode 2; both RX queues take frames, rings bound to one
# queue or to all get exactly theirs, bpftrace counts no allocation on
# the RX threads' stacks, and the queues' interrupt counters add up.
#
# One area of the ringcap_e1000e tests on QEMU's 82574L: it sets up its
# own NICs, driver and namespace and puts them back at the end (lib.sh
# here), so it runs alone or beside the other areas, in any order. In a
# guest as root (scripts/vm/run ... --nic e1000e-pair --nic e1000e-dgram),
# after run_guest.sh loaded ringcap:
#
#   RC_TESTS=e1000e/rss.sh selftests/run_guest.sh
#
# Settings (RC_E1000E_*, RC_REQUIRE, RC_HOST...): see lib.sh.
#
# Output: TAP. Exit status: 0 all passed, 1 a test failed, 4 skipped.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e1000e_begin 10

rss_ok=0 rss_total=0	# once R0 and R1 hold the RSS run's counters
declare -A R0 R1
t_rss() {
	local round rate=20000 got sent=0 want=$FRAMES before
	have_host || return "$MISSING"
	set_mode 2
	rc_start q0 "$G@0" || return 1
	rc_start q1 "$G@1" || return 1
	rc_start all "$G" || return 1
	# Attached before the first frame, so that t_noalloc counts them all.
	alloc_watch_start "$G" || true
	snap R0 "$G" || { msg="ethtool -S $G failed"; return 1; }
	before=$(rxsum "$G")
	# Offer until the NIC took $FRAMES frames; the host drops what QEMU
	# does not read in time, so slow down when much was lost.
	for ((round = 0; round < 6; round++)); do
		got=$(($(rxsum "$G") - before))
		[ "$got" -lt "$want" ] || break
		gen --flows 64 --size 60 --rate "$rate" --count $((want - got)) || return 1
		sent=$((sent + GEN_SENT))
		settle "$G" || true
		[ $(($(rxsum "$G") - before - got)) -ge $((GEN_SENT * 9 / 10)) ] || rate=$((rate / 2))
	done
	snap R1 "$G"
	alloc_watch_stop || true
	rc_stop q0
	rc_stop q1
	rc_stop all
	set_mode 0
	rss_ok=1
	rss_total=$(dq R0 R1 packets)
	msg="generated $sent in 64 flows, last rate $rate/s; rx0 +$(d R0 R1 rx0_packets), rx1 +$(d R0 R1 rx1_packets)"
	[ "$(d R0 R1 rx0_packets)" -gt 0 ] && [ "$(d R0 R1 rx1_packets)" -gt 0 ]
}
tcase "RSS: 64 UDP flows from the host use both RX queues of $G" t_rss
rc_stop q0
rc_stop q1
rc_stop all
set_mode 0

need_rss() {
	[ "$rss_ok" = 1 ] && return 0
	msg="no data: the RSS run failed"
	return 1
}
t_rss_q1() {
	need_rss || return 1
	msg="$G@1: ring $(rc_val q1 received) + dropped $(rc_val q1 dropped), rx1_packets +$(d R0 R1 rx1_packets)"
	[ "$(rc_frames q1)" = "$(d R0 R1 rx1_packets)" ] &&
		[ "$(rc_frames q0)" = "$(d R0 R1 rx0_packets)" ]
}
tcase "RSS: a socket on $G@1 gets exactly queue 1's frames (and @0 queue 0's)" t_rss_q1
t_rss_sum() {
	local total=$rss_total
	need_rss || return 1
	msg="@0 $(rc_frames q0) + @1 $(rc_frames q1) = $(($(rc_frames q0) + $(rc_frames q1))), all queues $(rc_frames all), NIC $total"
	[ $(($(rc_frames q0) + $(rc_frames q1))) = "$total" ] && [ "$(rc_frames all)" = "$total" ]
}
tcase "RSS: the captures of $G@0 and $G@1 add up to the total" t_rss_sum
# Counted from outside: bpftrace on the kmem tracepoints, on the stacks of
# $G's RX threads, for the whole RSS run. The driver's own rx<q>_buf_allocs
# shows only that the buffers were not reallocated (it moves at interface
# up and ring resize).
t_noalloc() {
	local q bad= frames
	need_rss || return 1
	frames=$(dq R0 R1 packets)
	msg="$frames frames in mode 2:"
	[ "$frames" -ge "$FRAMES" ] || { msg+=" fewer than $FRAMES;"; bad=1; }
	for q in 0 1; do
		msg+=" rx${q}_buf_allocs ${R0[rx${q}_buf_allocs]:-?}->${R1[rx${q}_buf_allocs]:-?}"
		[ -n "${R0[rx${q}_buf_allocs]:-}" ] && [ "$(d R0 R1 "rx${q}_buf_allocs")" = 0 ] || bad=1
	done
	if [ -z "$AW_TOTAL" ]; then
		msg+="; allocations not counted: $AW_WHY"
		[ -z "$bad" ] || return 1
		return "$AW_RC"
	fi
	msg+="; allocations on $G-rx0/rx1's stacks and in their IRQ handlers (IRQs $AW_IRQS): $AW_TOTAL (${AW_PROBES//tracepoint:kmem:/})"
	if [ "$AW_TOTAL" != 0 ]; then
		echo "# bpftrace counted, by tracepoint and thread, then by stack:"
		grep -v -e '^attached' -e '^=== end' "$AW_OUT" | head -n 80 | show
		bad=1
	fi
	[ -z "$bad" ]
}
tcase "no allocations: $FRAMES frames received in mode 2, counted by bpftrace on the kmem tracepoints of the RX threads: 0" t_noalloc
t_ring_got() {
	local total=$rss_total
	need_rss || return 1
	msg="NIC $total, ring $(rc_val all received) + dropped $(rc_val all dropped), captured $(rc_val all captured); to_ring +$(dq R0 R1 to_ring), to_stack +$(dq R0 R1 to_stack)"
	[ "$(rc_frames all)" = "$total" ] &&
		[ "$(dq R0 R1 to_ring)" = "$total" ] &&
		[ "$(dq R0 R1 to_stack)" = 0 ]
}
tcase "mode 2: the ring got every frame, less what it counted dropped" t_ring_got

t_irqs() {
	local q s= bad= irqs masks unmasks wakeups
	need_rss || return 1
	for q in 0 1; do
		irqs=$(d R0 R1 "rx${q}_irqs")
		masks=$(d R0 R1 "rx${q}_masks")
		unmasks=$(d R0 R1 "rx${q}_unmasks")
		wakeups=$(d R0 R1 "rx${q}_wakeups")
		s+=" rx$q: irqs +$irqs masks +$masks unmasks +$unmasks wakeups +$wakeups batches +$(d R0 R1 "rx${q}_batches"), totals ${R1[rx${q}_irqs]:-?}/${R1[rx${q}_masks]:-?}/${R1[rx${q}_unmasks]:-?};"
		# Under traffic each queue took interrupts, masked and
		# unmasked them; at rest every mask has had its unmask.
		[ "$irqs" -gt 0 ] && [ "$masks" -gt 0 ] && [ "$unmasks" -gt 0 ] &&
			[ "$wakeups" -gt 0 ] || bad=1
		[ "${R1[rx${q}_masks]:-0}" -le "${R1[rx${q}_irqs]:-0}" ] || bad=1
		[ "${R1[rx${q}_unmasks]:-0}" = "${R1[rx${q}_masks]:--1}" ] || bad=1
	done
	msg=${s# }
	[ -z "$bad" ]
}
tcase "RX interrupts of $G: taken, masked while draining, unmasked after (both queues)" t_irqs

# The hardware's good-frame counter saw what the queues took.
t_hw_count() {
	need_rss || return 1
	msg="RSS run on $G: rx_hw_packets +$(d R0 R1 rx_hw_packets), rx0+rx1 +$(dq R0 R1 packets), rx_bytes +$(dq R0 R1 bytes)"
	[ "$(d R0 R1 rx_hw_packets)" = "$(dq R0 R1 packets)" ]
}
tcase "ethtool -S: the NIC's good-frame counter (rx_hw_packets) moved as much as the RX queues' during the RSS run" t_hw_count

e1000e_end
