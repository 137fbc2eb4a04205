#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Zero-copy receive on rce2: readers that take one RX queue each and read
# the frames in the NIC's own buffers (selftests/rc_zc, straight through
# the ABI, and tcpdump through libpcap-ring with RINGCAP_ZEROCOPY=1).
#
#   - the refusals (EBUSY, EINVAL, EOPNOTSUPP) and a read-only mapping
#     whose writer alone dies;
#   - 1009 UDP frames of mixed sizes from the host arrive byte-exact, each
#     on the queue RSS gave it, with no allocation on the RX threads
#     (bpftrace, from outside the driver) and no frame byte in the rings;
#     afterwards the NIC owns every descriptor again (its RDH/RDT);
#   - a stalled reader: the NIC holds nothing, the interrupt stays masked,
#     every offered frame is counted at one layer, and capture resumes;
#   - SIGKILL under traffic, link down/up, ip link set down, PCI unbind
#     and rmmod with the buffers mapped: ENODEV, pages still readable;
#   - privileges: uid nobody with CAP_NET_RAW alone cannot take a queue
#     (EPERM) and the pair's ping goes on; a user in its own user and
#     network namespace cannot reach the host's device at all.
#   - no page outlives the reader: buffers vmsplice()d into a pipe, then
#     unmapped and the socket closed; no frame sent after is in the pipe.
#
# One area of the ringcap_e1000e tests on QEMU's 82574L: it sets up its
# own NICs, driver and namespace and puts them back at the end (lib.sh
# here), so it runs alone or beside the other areas, in any order. In a
# guest as root (scripts/vm/run ... --nic e1000e-pair --nic e1000e-dgram),
# after run_guest.sh loaded ringcap:
#
#   RC_TESTS=e1000e/zerocopy.sh selftests/run_guest.sh
#
# Settings (RC_E1000E_*, RC_REQUIRE, RC_HOST...): see lib.sh.
#
# Output: TAP. Exit status: 0 all passed, 1 a test failed, 4 skipped.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e1000e_begin 23

ZC=$BIN/rc_zc
BTDIR=$top/../userland/bpftrace
SHARE=${RC_HOST_SHARE:-/run/ringcap-vm/share}
N=1009
RUN=7
declare -A ZCPID ZCOUT

# zc_start ID Q [SECONDS [STALL]]: rc_zc cap on $G@Q in the background,
# writing $tmp/ID.pcap, until stopped (zc_stop) or SECONDS (default 120).
zc_start() {
	local id=$1 q=$2
	ZCOUT[$id]=$tmp/zc.$id
	"$ZC" cap "$G" "$q" "$tmp/$id.pcap" 1000000000 "${3:-120}" ${4:+"$4"} \
		>"${ZCOUT[$id]}" 2>&1 &
	ZCPID[$id]=$!
	wait_for 20 grep -qx ready "${ZCOUT[$id]}" && return 0
	msg="rc_zc cap $G@$q did not start: $(tail -n 2 "${ZCOUT[$id]}" | tr '\n' ' ')"
	return 1
}
# zc_stop ID [SIGNAL]: stop it (SIGINT: it writes its summary) and wait.
zc_stop() {
	local pid=${ZCPID[$1]:-}
	[ -n "$pid" ] || return 0
	kill "-${2:-INT}" "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	ZCPID[$1]=
}
zc_sum() { grep '^rc_zc:' "${ZCOUT[$1]}" | tail -n 1; }
zc_val() { kv "$2" "$(zc_sum "$1")"; }
# Descriptors the NIC owns on queue Q (RDT - RDH, from its registers):
# the ring size less one when every buffer is back.
nic_owned() {
	local w rdh rdt count
	w=($(ethtool -d "$G" raw on | od -An -tu4 -v -w4))
	count=$(ring_sizes "$G" | awk '{print $3}')
	rdh=${w[$((14 + 3 * $1))]} rdt=${w[$((15 + 3 * $1))]}
	echo $(((rdt - rdh + count) % count))
}
ring_rx() { ring_sizes "$G" | awk '{print $3}'; }
have_zc() {
	[ -x "$ZC" ] || { msg="no $ZC (make -C selftests)"; return "$MISSING"; }
}

# ---- refusals -------------------------------------------------------------

refuse_out=
refuse_run() {
	[ -n "$refuse_out" ] || refuse_out=$("$ZC" refuse "$G" 0 2>&1 || true)
}
# t_refuse NAME...: those lines of rc_zc refuse are all ok
t_refuse() {
	local name line bad=0
	have_zc || return $?
	refuse_run
	msg=
	for name in "$@"; do
		line=$(grep "^$name: " <<<"$refuse_out" || echo "$name: missing")
		msg+="${msg:+; }$line"
		[[ $line == "$name: ok "* ]] || bad=1
	done
	return "$bad"
}
tcase "zero-copy: bind, map and path; bad requests refused (all queues, value 2, after bind, cluster: EINVAL; lo: EOPNOTSUPP)" \
	t_refuse first getsockopt all_queues bad_value after_bind cluster no_support
tcase "zero-copy: one socket per queue (a second one and a copy-mode one on the queue: EBUSY; all queues and the other queue bind)" \
	t_refuse second copy_same_queue copy_all_queues other_queue after_close
tcase "zero-copy: the buffers map read-only (PROT_WRITE and mprotect EACCES); a writer dies of SIGSEGV, the socket lives" \
	t_refuse map_write mprotect_write write_segv after_segv
tcase "zero-copy: RING_INFO gives the buffer area as the header does, and the first, smaller structure its fields alone" \
	t_refuse ring_info ring_info_v1

# ---- 1009 frames byte-exact ------------------------------------------------

declare -A X0 X1
exact_ok=0
t_exact() {
	local out before
	have_host || return "$MISSING"
	have_zc || return $?
	out=$("$PY" -S "$FRAMES_PY" udp-write "$SHARE/zc.pcap" "$N" "$RUN" "${MAC[2]}" 2>&1) ||
		{ msg="udp-write: $out"; return 1; }
	zc_start q0 0 || return 1
	zc_start q1 1 || return 1
	alloc_watch_start "$G" || true
	snap X0 "$G" || { msg="ethtool -S $G failed"; return 1; }
	before=$(rxsum "$G")
	gen --replay zc.pcap --rate 2000 || return 1
	wait_for 30 eval '[ $(($(rxsum "$G") - before)) -ge $N ]' || true
	settle "$G" || true
	sleep 1
	snap X1 "$G"
	alloc_watch_stop || true
	zc_stop q0
	zc_stop q1
	exact_ok=1
	out=$("$PY" -S "$FRAMES_PY" udp-split "$SHARE/zc.pcap" "$tmp/q0.pcap" "$tmp/q1.pcap" 2>&1) || true
	msg="sent $GEN_SENT; q0 $(zc_val q0 captured) (bad $(zc_val q0 bad_zc)), q1 $(zc_val q1 captured) (bad $(zc_val q1 bad_zc)); $out"
	[[ $out == ok:* ]] && [ "$(zc_val q0 captured)" -gt 0 ] && [ "$(zc_val q1 captured)" -gt 0 ] &&
		[ "$(zc_val q0 bad_zc)" = 0 ] && [ "$(zc_val q1 bad_zc)" = 0 ]
}
tcase "zero-copy: $N UDP frames of mixed sizes from the host arrive byte-exact on $G@0 and $G@1, each once, in order" t_exact
zc_stop q0
zc_stop q1

t_exact_nocopy() {
	local q bad=
	[ "$exact_ok" = 1 ] || { msg="no data: the exact run failed"; return 1; }
	msg="to_ring +$(dq X0 X1 to_ring), to_stack +$(dq X0 X1 to_stack), buf_allocs +$(dq X0 X1 buf_allocs), records without frame bytes (rec_len 40, RINGCAP_REC_ZC) $(($(zc_val q0 captured) + $(zc_val q1 captured)))"
	[ "$(dq X0 X1 to_stack)" = 0 ] && [ "$(dq X0 X1 buf_allocs)" = 0 ] || bad=1
	if [ -z "$AW_TOTAL" ]; then
		msg+="; allocations not counted: $AW_WHY"
		[ -z "$bad" ] || return 1
		return "$AW_RC"
	fi
	msg+="; allocations on $G-rx0/rx1's stacks and in their IRQ handlers (bpftrace): $AW_TOTAL"
	if [ "$AW_TOTAL" != 0 ]; then
		grep -v -e '^attached' -e '^=== end' "$AW_OUT" | head -n 40 | show
		bad=1
	fi
	[ -z "$bad" ]
}
tcase "zero-copy: nothing allocated or copied per frame (kmem tracepoints on the RX threads, to_stack, buf_allocs, ring records)" t_exact_nocopy

t_back() {
	local o0 o1 c
	[ "$exact_ok" = 1 ] || { msg="no data: the exact run failed"; return 1; }
	c=$(ring_rx)
	wait_for 10 eval '[ "$(nic_owned 0)" = $((c - 1)) ] && [ "$(nic_owned 1)" = $((c - 1)) ]' || true
	o0=$(nic_owned 0) o1=$(nic_owned 1)
	msg="after close the NIC owns $o0 and $o1 descriptors of $c (RDT - RDH); zc_rearmed +$(dq X0 X1 zc_rearmed)"
	[ "$o0" = $((c - 1)) ] && [ "$o1" = $((c - 1)) ]
}
tcase "zero-copy: after close every buffer is back with the NIC (RDT - RDH = ring - 1 on both queues)" t_back

# ---- a stalled reader --------------------------------------------------------

# kthreads.bt over the stall: the sleeps that left the interrupt masked.
KT_OUT= KT_PID= KT_WHY=
# The script needs BTF for the driver's tracepoint types, which the debug
# kernel is built without (as bpftrace.sh says there): a skip, not a wait.
kt_start() {
	KT_OUT=$tmp/kthreads.out KT_PID= KT_WHY=
	command -v bpftrace >/dev/null || { KT_WHY="no bpftrace (apt-get install bpftrace)"; return; }
	[ -r /sys/kernel/btf/vmlinux ] || { KT_WHY="$(uname -r) has no BTF (CONFIG_DEBUG_INFO_BTF): kthreads.bt needs it"; return; }
	bt_spawn "$KT_OUT" "$BTDIR/kthreads.bt"
	KT_PID=$bt_pid
	wait_for 240 eval 'grep -q "^Tracing" "$KT_OUT" || ! kill -0 "$KT_PID" 2>/dev/null' &&
		grep -q '^Tracing' "$KT_OUT" && return 0
	KT_WHY="kthreads.bt did not attach: $(tail -n 3 "$KT_OUT" | tr '\n' ' ')"
	bt_kill "$KT_PID"
	KT_PID=
}
kt_stop() {
	[ -n "$KT_PID" ] || return 0
	bt_halt "$KT_PID" "$KT_OUT" || KT_WHY="kthreads.bt ended without its totals: $(tail -n 3 "$KT_OUT" | tr '\n' ' ')"
	KT_PID=
}
# Two readers stop consuming, and polling, after 50 frames each while the
# host sends four times a queue's descriptors (twice what both queues
# hold); then they resume and the host sends 500 more. While
# they stall, the queue threads leave the interrupts masked (zc_masked)
# and the NIC fills every descriptor it has; QEMU's model then stops
# reading its socket at the first frame it has no room for, so the queue
# that frame was for has none left (the other may keep a few), and the
# host drops the rest on the wire.
declare -A S0 S1 S2
t_stall() {
	local w0 w2 own n
	have_host || return "$MISSING"
	have_zc || return $?
	n=$((4 * $(ring_rx)))
	zc_start s0 0 120 50 || return 1
	zc_start s1 1 120 50 || return 1
	kt_start
	snap S0 "$G"
	w0=$(wiredrops) || { msg="rc_host wiredrops failed"; return 1; }
	gen --flows 64 --size 60 --rate 4000 --count "$n" || return 1
	sleep 2
	snap S1 "$G"
	kt_stop
	STALL_OWNED="$(nic_owned 0)/$(nic_owned 1)"
	# Both readers wait for SIGUSR1 now; then they drain and go on.
	kill -USR1 "${ZCPID[s0]}" "${ZCPID[s1]}"
	sleep 2
	gen --flows 64 --size 60 --rate 1000 --count 500 || return 1
	settle "$G" || true
	sleep 1
	w2=$(wiredrops) || { msg="rc_host wiredrops failed"; return 1; }
	snap S2 "$G"
	zc_stop s0
	zc_stop s1
	STALL_SENT=$((n + 500)) STALL_WIRE=$((w2 - w0))
	own=$(( ${STALL_OWNED%/*} < ${STALL_OWNED#*/} ? ${STALL_OWNED%/*} : ${STALL_OWNED#*/} ))
	msg="stalled after 50 frames each: the NIC owns $STALL_OWNED descriptors of $(ring_rx) per queue; rx_overruns +$(d S0 S2 rx_overruns), frames the host dropped at QEMU's socket $STALL_WIRE; zc_masked +$(dq S0 S1 zc_masked), unmasks +$(dq S0 S1 unmasks)"
	# The NIC's drop: RXO, or under QEMU the wire drops it causes (its
	# RXO interrupt is raised once per overrun, and the debug kernel has
	# been seen to count none while the host dropped 1135 frames).
	grep -q '^stalled' "${ZCOUT[s0]}" && grep -q '^stalled' "${ZCOUT[s1]}" &&
		[ "$own" = 0 ] &&
		{ [ "$(d S0 S2 rx_overruns)" -gt 0 ] || [ "$STALL_WIRE" -gt 0 ]; } &&
		[ "$(dq S0 S1 zc_masked)" -gt 0 ]
}
tcase "zero-copy: a reader that stops consuming holds every buffer: a queue is left without descriptors and the NIC drops (RXO, wire drops), the interrupts stay masked" t_stall
zc_stop s0
zc_stop s1

t_stall_bt() {
	local idx sum
	[ -n "${STALL_SENT:-}" ] || { msg="no data: the stall run failed"; return 1; }
	if [ -n "$KT_WHY" ]; then
		msg=$KT_WHY
		[[ $KT_WHY != *"has no BTF"* ]] || return 4
		[[ $KT_WHY != "no bpftrace"* ]] || return "$MISSING"
		return 1
	fi
	idx=$(cat "/sys/class/net/$G/ifindex")
	sum=$(awk -v i="$idx" -F'[][, :]+' '$1 == "@sleeps_masked" && $2 == i {s += $4} END {print s + 0}' "$KT_OUT")
	msg="kthreads.bt @sleeps_masked of $G (ifindex $idx): $sum; ethtool rx0+rx1_zc_masked +$(dq S0 S1 zc_masked)"
	[ "$sum" -gt 0 ] && [ "$sum" -ge "$(dq S0 S1 zc_masked)" ] && return 0
	grep -v '^\[' "$KT_OUT" | head -n 40 | show
	return 1
}
tcase "zero-copy: kthreads.bt shows the stalled readers' queues sleeping with the interrupt masked (@sleeps_masked)" t_stall_bt

t_stall_account() {
	local nic_rx wire missed ring slack
	[ -n "${STALL_SENT:-}" ] || { msg="no data: the stall run failed"; return 1; }
	nic_rx=$(d S0 S2 rx_hw_packets)
	missed=$(d S0 S2 rx_missed)
	wire=$STALL_WIRE
	ring=$(dq S0 S2 to_ring)
	slack=$((STALL_SENT - wire - missed - nic_rx))
	msg="offered $STALL_SENT = wire drops $wire + NIC missed $missed + NIC received $nic_rx (unaccounted $slack); NIC received -> readers' rings $ring + errors $(dq S0 S2 errors)"
	[ "$slack" -ge 0 ] && [ "$slack" -le 2 ] && [ "$ring" = $((nic_rx - $(dq S0 S2 errors))) ] &&
		[ "$wire" -gt 0 ]
}
tcase "zero-copy: stalled, every offered frame is counted at one layer (wire, NIC missed, NIC received = readers' rings)" t_stall_account

t_resume() {
	local c0 c1 r
	[ -n "${STALL_SENT:-}" ] || { msg="no data: the stall run failed"; return 1; }
	c0=$(zc_val s0 captured) c1=$(zc_val s1 captured)
	r=$(($(zc_val s0 received) + $(zc_val s1 received)))
	msg="after SIGUSR1: captured $c0 + $c1 of received $r (ring drops $(zc_val s0 dropped)+$(zc_val s1 dropped)); the 500 frames after: NIC +$(d S1 S2 rx_hw_packets), to_ring +$(dq S1 S2 to_ring); unmasks +$(dq S1 S2 unmasks)"
	[ $((c0 + c1)) = "$r" ] && [ "$(dq S1 S2 to_ring)" -ge 500 ] &&
		[ "$(dq S1 S2 unmasks)" -gt 0 ]
}
tcase "zero-copy: resumed, the readers get every frame they were given, and the next 500 too" t_resume

# ---- lifecycle ---------------------------------------------------------------

# After a reader went away the queues serve the stack again, all buffers back.
serves_stack() {
	local -A a b
	local c
	c=$(ring_rx)
	wait_for 10 eval '[ "$(nic_owned 0)" = $((c - 1)) ] && [ "$(nic_owned 1)" = $((c - 1)) ]' || true
	snap a "$G"
	gen --flows 64 --size 60 --rate 2000 --count 400 || return 1
	settle "$G" || true
	snap b "$G"
	msg+="; then: NIC owns $(nic_owned 0)/$(nic_owned 1) of $c, 400 frames -> to_stack +$(dq a b to_stack) (rx0 +$(d a b rx0_to_stack), rx1 +$(d a b rx1_to_stack))"
	[ "$(d a b rx0_to_stack)" -gt 0 ] && [ "$(d a b rx1_to_stack)" -gt 0 ] &&
		[ "$(dq a b to_stack)" -ge 390 ] && [ "$(proc_line "${ZCPID[$1]:-x}")" = "" ] &&
		return 0
	queue_state
	return 1
}
# What a stuck queue looks like: its counters and the NIC's ring registers.
queue_state() {
	echo "# $G queue counters:"
	ethtool -S "$G" | grep -E 'rx[01]_|rx_overruns|rx_hw' | show
	echo "# $G registers (IMS; RDLEN RDH RDT of queue 0, then 1): $(ethtool -d "$G" raw on | od -An -tu4 -v -w4 | sed -n '4p;14,19p' | tr -s ' \n' ' ')"
	show /proc/net/ringcap
}

t_kill() {
	have_host || return "$MISSING"
	have_zc || return $?
	zc_start k0 0 || return 1
	zc_start k1 1 || return 1
	"$RC_HOST" --bg kill gen nic2 --dst-mac "${MAC[2]}" --flows 64 --rate 3000 --duration 4 \
		>"$tmp/kill.gen" 2>&1 || true
	sleep 2
	local p0=${ZCPID[k0]} p1=${ZCPID[k1]}
	zc_stop k0 KILL
	zc_stop k1 KILL
	"$RC_HOST" --wait kill >>"$tmp/kill.gen" 2>&1 || true
	msg="SIGKILL under traffic after $(grep -c . "$tmp/k0.pcap" 2>/dev/null || echo 0) lines of pcap"
	[ -z "$(proc_line "$p0")$(proc_line "$p1")" ] || { msg+="; a socket is left"; return 1; }
	serves_stack k0
}
tcase "zero-copy: SIGKILL of both readers under traffic: sockets gone, buffers back, both queues serve the stack" t_kill

# The reader vmsplice()s its buffer mapping into a pipe, unmaps and
# closes (rc_zc splice), and 200 frames come after: were the pipe to keep
# pages the queue then hands to the stack, it would hold those frames, a
# capture with no socket. The helper compares the pipe with a copy of the
# buffers it took before the close.
t_splice() {
	local out=$tmp/splice pid
	have_host || return "$MISSING"
	have_zc || return $?
	local -A a b
	"$ZC" splice "$G" 0 >"$out" 2>&1 &
	pid=$!
	ZCPID[sp]=$pid ZCOUT[sp]=$out
	wait_for 20 grep -qx closed "$out" ||
		{ msg="rc_zc splice did not get to the close: $(tail -n 2 "$out" | tr '\n' ' ')"; zc_stop sp KILL; return 1; }
	wait_for 10 eval '[ -z "$(proc_line "$pid")" ]' || true
	snap a "$G"
	gen --flows 64 --size 200 --rate 2000 --count 200 || { zc_stop sp KILL; return 1; }
	settle "$G" || true
	snap b "$G"
	kill -USR1 "$pid" || true
	ZCPID[sp]=
	local rc=0
	wait "$pid" || rc=$?
	msg="after the close: 200 frames, rx0_to_stack +$(d a b rx0_to_stack); $({ grep '^#' "$out" || true; } | sed 's/^# //' | tr '\n' ';') $(zc_sum sp)"
	[ -z "$(proc_line "$pid")" ] || { msg+="; the socket outlived the close"; return 1; }
	[ "$(d a b rx0_to_stack)" -gt 0 ] || { msg+="; no frame came to queue 0"; return 1; }
	[ "$rc" = 0 ] && [ "$(zc_val sp changed)" = 0 ]
}
tcase "zero-copy: buffers vmsplice()d into a pipe, then unmapped and closed: no frame sent after the close is readable from the pipe" t_splice
zc_stop sp KILL

# t_gone HOW: the device goes while a reader maps its buffers
t_gone() {
	local how=$1 pci=${PCI[2]} out dev
	have_zc || return $?
	zc_start g 0 60 || return 1
	case $how in
	down) ip link set "$G" down ;;
	unbind) echo "$pci" >"$PCI_DRV/$DRV/unbind" ;;
	rmmod) unload_drv || { msg="rmmod $DRV failed with a reader mapped"; broken=$msg; return 1; } ;;
	esac
	wait_for 20 eval '! kill -0 "${ZCPID[g]}" 2>/dev/null' || true
	zc_stop g
	msg="$how: $(zc_sum g)"
	case $how in
	down) ip link set "$G" up ;;
	unbind) echo "$pci" >"$PCI_DRV/$DRV/bind" || { msg+="; bind failed"; broken=$msg; return 1; } ;;
	rmmod) load_drv || { msg+="; modprobe failed"; broken=$msg; return 1; } ;;
	esac
	if [ "$how" != down ]; then
		nics_setup || { msg+="; setup after: $msg"; broken="NIC setup failed"; return 1; }
	fi
	wait_for 20 carrier "$G" 1 || true
	[ "$(zc_val g error)" = ENODEV ] &&
		[ "$(zc_val g touched)" -gt 0 ] || return 1
	local m=$msg
	works || { msg="$m; $msg"; return 1; }
	msg="$m; $msg"
}
tcase "zero-copy: ip link set $G down with the buffers mapped: ENODEV, the pages still readable; up again it works" t_gone down
tcase "zero-copy: PCI unbind with the buffers mapped: ENODEV, the pages still readable; bound again it works" t_gone unbind
tcase "zero-copy: rmmod $DRV with the buffers mapped: ENODEV, the pages still readable; loaded again it works" t_gone rmmod

t_link() {
	local out c
	have_host || return "$MISSING"
	have_zc || return $?
	zc_start l 0 60 || return 1
	out=$("$RC_HOST" monitor set_link nic2 off 2>&1) || { msg="set_link off: $out"; return 1; }
	wait_for 20 carrier "$G" 0 || true
	out=$("$RC_HOST" monitor set_link nic2 on 2>&1) || { msg="set_link on: $out"; return 1; }
	wait_for 20 carrier "$G" 1 || true
	# 64 flows: RSS (its key is random per boot) sends some to queue 0.
	gen --flows 64 --size 60 --rate 1000 --count 200 || return 1
	settle "$G" || true
	sleep 1
	zc_stop l
	c=$(zc_val l captured)
	msg="link off and on under a reader: $(zc_sum l)"
	[ "$(zc_val l error)" = none ] && [ "$c" -gt 0 ]
}
tcase "zero-copy: link down and up (QEMU set_link) under a reader: no error, capture goes on" t_link

# ---- privileges: taking a queue is an administrator's act -------------------

# t_zc_nobody: uid nobody with CAP_NET_RAW alone asks for both RX queues
# of $A in zero-copy and holds what it gets while $B pings $A.
t_zc_nobody() {
	local pid ping got
	have_zc || return $?
	as_nobody_check || return $?
	"${NOBODY[@]}" "$ZC" try "$(cat "/sys/class/net/$A/ifindex")" 1 60 0 1 \
		>"$tmp/nobody.out" 2>&1 &
	pid=$!
	wait_for 20 grep -qx ready "$tmp/nobody.out" ||
		{ msg="rc_zc try did not start: $(tail -n 2 "$tmp/nobody.out" | tr '\n' ' ')"; kill "$pid"; return 1; }
	ping=$(pings "$B" "$IP_A")
	kill -TERM "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	got=$(grep '^q=' "$tmp/nobody.out" | tr '\n' ' ')
	msg="uid nobody, CAP_NET_RAW alone, zero-copy on $A@0 and $A@1: ${got}(want bind=EPERM); ping $B->$A meanwhile ${ping:-0}/3"
	grep -qx "q=0 socket=ok bind=EPERM" "$tmp/nobody.out" &&
		grep -qx "q=1 socket=ok bind=EPERM" "$tmp/nobody.out" &&
		[ "${ping:-0}" = 3 ]
}
tcase "zero-copy: uid nobody with CAP_NET_RAW alone cannot take $A's queues (EPERM); $B's ping to $A goes on" t_zc_nobody

# t_userns: an unprivileged user (nobody, no capability) in a user
# namespace of its own. Without a network namespace of its own it gets no
# ringcap socket; with one it has every capability there, but $A is not
# there: binding $A's index, copy or zero-copy, finds no device.
t_userns() {
	local idx own net ping
	have_zc || return $?
	as_nobody_check || return $?
	idx=$(cat "/sys/class/net/$A/ifindex")
	if ! own=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		unshare -Ur "$ZC" try "$idx" 0 0 0 2>&1); then
		msg="nobody cannot make a user namespace here: $own"
		return "$MISSING"
	fi
	net=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		unshare -Ur -n sh -c '"$1" try "$2" 1 0 0 1 && "$1" try "$2" 0 0 65535' sh "$ZC" "$idx" 2>&1) || true
	ping=$(pings "$B" "$IP_A")
	msg="own user ns: $(grep '^q=' <<<"$own" | tr '\n' ' ')(want socket=EPERM); own user and net ns, $A's ifindex $idx: $(grep '^q=' <<<"$net" | tr '\n' ' ')(want bind=ENODEV); ping $B->$A ${ping:-0}/3"
	grep -qx "q=0 socket=EPERM bind=-" <<<"$own" &&
		[ "$(grep -c -x 'q=[0-9]* socket=ok bind=ENODEV' <<<"$net")" = 3 ] &&
		[ "${ping:-0}" = 3 ]
}
tcase "zero-copy: nobody in its own user namespace gets no socket (EPERM); in its own user and network namespace the host's $A is not there (ENODEV)" t_userns

# ---- libpcap-ring ---------------------------------------------------------------

t_pcap() {
	local out rc=0
	have_host || return "$MISSING"
	[ -x "$RINGCAP_RUN" ] || { msg="no $RINGCAP_RUN"; return "$MISSING"; }
	RINGCAP_ZEROCOPY=1 "$RINGCAP_RUN" tcpdump -Z root -n -i "$G@0" -w "$tmp/tcpdump.pcap" \
		-c 100 udp >"$tmp/tcpdump.out" 2>&1 &
	local pid=$!
	wait_for 20 eval "awk -v p=$pid '\$1 == p' /proc/net/ringcap | grep -q zerocopy" ||
		{ msg="no zero-copy socket: $(tail -n 2 "$tmp/tcpdump.out" | tr '\n' ' ')"; kill "$pid"; return 1; }
	gen --flows 1 --size 200 --rate 1000 --count 100 || true
	gen --flows 64 --size 200 --rate 1000 --count 400 || true
	wait "$pid" || rc=$?
	out=$(RINGCAP_ZEROCOPY=1 "$RINGCAP_RUN" tcpdump -Z root -n -i "$G" -c 1 2>&1) && {
		msg="RINGCAP_ZEROCOPY=1 on all queues was not refused: $out"; return 1; }
	msg="tcpdump exit $rc, $("$PY" -S "$FRAMES_PY" count "$tmp/tcpdump.pcap" 2>&1) frames; all queues refused: $(grep -i zero <<<"$out" | tail -n 1)"
	[ "$rc" = 0 ] && [ "$("$PY" -S "$FRAMES_PY" count "$tmp/tcpdump.pcap")" = 100 ] &&
		grep -q "RINGCAP_ZEROCOPY" <<<"$out"
}
tcase "zero-copy: tcpdump through libpcap-ring with RINGCAP_ZEROCOPY=1 on $G@0 captures 100 frames; on all queues it is refused clearly" t_pcap

e1000e_end
