#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make soak` (scripts/soak.sh boots the guest with one
# 82574L, nic0, whose wire is the host traffic generator): traffic into
# ringcap_e1000e and into a veth pair for SECONDS, while the transparent
# mode switches, readers are killed and restarted with other ring sizes,
# and the driver (and ringcap itself) is reloaded; before and after, the
# kernel's memory counters, kmemleak and the driver's buffer counts.
#
#   selftests/soak/soak.sh [SECONDS]      default 600
#
# The run is a series of rounds until SECONDS have passed. A round is
#  1. a window of SOAK_WINDOW seconds of traffic: the host sends into the
#     NIC as fast as it can (its ceiling: what QEMU cannot take is dropped
#     at the host socket), and rcgen in the guest sends UDP through the
#     veth pair sva -> svb (svb in netns "soak"). Every SOAK_STEP seconds
#     a mode switch (transparent_mode to another of 0/1/2) and a churn
#     reader ended, in turn with SIGKILL and with SIGTERM, and restarted at
#     once with its next ring size of SOAK_RINGS.
#     Churn readers: NIC@0, NIC@1, NIC (all queues), svb.
#  2. the traffic stops, the counters settle and the window is accounted;
#  3. a reload phase under traffic, SOAK_RELOADS times: unbind/bind of
#     the NIC, then rmmod/modprobe of ringcap_e1000e (both with churn
#     readers bound to the NIC, which lose it, and to svb), then, once
#     every reader is stopped, rmmod/modprobe of ringcap and the driver
#     (ringcap unloads only when no socket is open).
# The first round warms caches up; the "before" records are taken after
# it, the "after" ones after the last round, both with the same set-up
# (modules loaded, NIC up, veth pair up, no reader, no traffic) and after
# dropping caches and shrinking the slab caches. SECONDS run from the
# "before" records: the soak goes on with new rounds until they have
# passed (at least one round), so the whole run is longer by the set-up,
# the warm-up round, the last round's overrun and the final scans.
#
# What "every frame accounted per layer" means here. Killed readers take
# their counters with them, and a reader stopped under traffic prints
# counters that the kernel may still raise before the socket closes, so
# the churn readers cannot carry an exact account. Exactness comes from a
# witness: one more reader per device (the NIC on all queues, svb) that is
# bound before the window's traffic starts and stopped only after it has
# settled, while the churn goes on beside it. Per window (no reload inside
# one, so the driver's counters run on), with D the change of a counter:
#   wire     offered (rcgen's sent on the host) = wire drops (the host
#            socket's drops) + NIC received (rx_hw_packets), give or take
#            2 frames still inside QEMU; and wire drops > 0 (the NIC ran
#            at its ceiling: it could not take all that was offered)
#   NIC      NIC received = sum over queues of rxQ_packets, rxQ_errors 0
#   driver   per queue: to_ring <= packets, to_stack + skb_failed <=
#            packets <= to_ring + to_stack + skb_failed (a frame goes to
#            the rings, the stack or both; both only in mode 1, so no
#            equality is claimed), and buf_allocs does not move (no RX
#            buffer allocated outside interface up)
#   witness  the NIC witness was offered (received + dropped + filtered)
#            every frame the queues took, in every mode and across the
#            switches, exactly once: packets - skb_failed <= offered <=
#            packets (a frame whose skb could not be allocated in mode 0
#            reaches no one); and it read every frame the kernel wrote
#            (captured = received, the ring is empty once traffic stopped)
#   veth     sent (rcgen in the guest) = svb rx_packets + sva tx_dropped
#            (veth_xmit counts one or the other); the svb witness was
#            offered exactly svb rx_packets, and read all it received
#   readers  every churn generation stopped by SIGTERM: captured <=
#            received (the rest was left in its ring), bad_consumer 0;
#            killed by SIGKILL: died of it; either: its socket leaves
#            /proc/net/ringcap.
# Reload phases are not accounted per frame (the driver's counters start
# again with each probe, and frames that reach an unbound NIC are not
# counted by anyone); they are checked for the NIC coming back each time.
#
# Memory bounds, after vs before: SUnreclaim may grow by SOAK_SLAB_KB
# (4096), VmallocUsed (rings are vmalloc'ed) by SOAK_VMALLOC_KB (4096),
# Percpu by SOAK_PERCPU_KB (1024), and MemAvailable may fall by
# SOAK_AVAIL_KB (16384). kmemleak: after two scans, no unreferenced object
# whose allocation backtrace has a ringcap or ringcap_e1000e frame. Other
# objects are listed, not failed here (kmemleak has false positives; the
# runner still fails the guest on any report). Kernel reports: none in
# the kernel log since the start (scripts/vm/scan-log's patterns).
#
#   SOAK_WINDOW=20 SOAK_STEP=2 SOAK_RELOADS=2 SOAK_RELOAD_TRAFFIC=10
#   SOAK_RATE=50000 (host, pps: several times what a TCG guest takes; 0 =
#   as fast as the host can) SOAK_VETH_RATE=0 (as fast as the guest can)
#   SOAK_RINGS="64k 256k 1M 4M 16M" SOAK_SEED (default: the time)
#   RC_RINGCAP_KO, RC_E1000E_KO  insmod these instead of modprobe
#
# Output: TAP, then "# soak:" summary lines (also in
# $RINGCAP_VM_ARTIFACTS/summary, with the records). Exit 0 only if clean.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/scripts/guest-nic.sh"	# lib.sh, nic_find, nic_bind, wiredrops
. "$here/readers.sh"
. "$here/mem.sh"

SECS=${1:-600}
WINDOW=${SOAK_WINDOW:-20}
STEP=${SOAK_STEP:-2}
RELOADS=${SOAK_RELOADS:-2}
RELOAD_TRAFFIC=${SOAK_RELOAD_TRAFFIC:-10}
RATE=${SOAK_RATE:-50000}
VETH_RATE=${SOAK_VETH_RATE:-0}
read -r -a RINGS <<<"${SOAK_RINGS:-64k 256k 1M 4M 16M}"
SEED=${SOAK_SEED:-$(date +%s)}
SLAB_KB=${SOAK_SLAB_KB:-4096}
VMALLOC_KB=${SOAK_VMALLOC_KB:-4096}
PERCPU_KB=${SOAK_PERCPU_KB:-1024}
AVAIL_KB=${SOAK_AVAIL_KB:-16384}
TOOLS=$top/userland/build/bin
RINGCOUNT=$TOOLS/ringcount
RCGEN=$TOOLS/rcgen
PARAMS=/sys/module/ringcap/parameters
DRV=ringcap_e1000e
NS=soak
VA=sva VB=svb IP_A=10.77.0.1 IP_B=10.77.0.2 VPORT=9000
ART=${RINGCAP_VM_ARTIFACTS:-$(mktemp -d)}
PLAN=15
RANDOM=$SEED

n=0 failed=0 skipped=0
tmp=$(mktemp -d)
t0=$SECONDS

# ---- results: one TAP line per invariant over the whole run -----------

declare -A BAD=() WHY=()
# fail KEY MSG: one more failure of invariant KEY (the first 3 described)
fail() {
	BAD[$1]=$((${BAD[$1]:-0} + 1))
	[ "${BAD[$1]}" -gt 3 ] || WHY[$1]+="${WHY[$1]:+; }$2"
	echo "# FAIL $1: $2"
}
verdict() { # KEY NAME [INFO]
	if [ "${BAD[$1]:-0}" = 0 ]; then
		result 0 "$2" "${3:-}"
	else
		result 1 "$2" "${BAD[$1]} failures: ${WHY[$1]}"
	fi
}

cleanup() {
	local p
	set +e
	for p in $(jobs -p); do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	ip netns del "$NS" 2>/dev/null
	ip link del "$VA" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# ---- set-up pieces ----------------------------------------------------------

load_drv() {
	if [ -n "${RC_E1000E_KO:-}" ]; then insmod "$RC_E1000E_KO"; else modprobe "$DRV"; fi
}

# The NIC on ringcap_e1000e, up, with link, IPv6 off: sets $dev, $pci.
nic_up() {
	loaded ringcap || load_ringcap || return 1
	loaded "$DRV" || load_drv || return 1
	nic_bind "$DRV" || return 1
	sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1" 2>/dev/null || true
}

veth_up() {
	ip netns add "$NS"
	ip link add "$VA" type veth peer name "$VB" netns "$NS"
	ip addr add "$IP_A/24" dev "$VA"
	ip -n "$NS" addr add "$IP_B/24" dev "$VB"
	ip link set "$VA" up
	ip -n "$NS" link set lo up
	ip -n "$NS" link set "$VB" up
	# Only the generator's frames cross: no ARP, no IPv6.
	ip neigh replace "$IP_B" lladdr "$(ip -n "$NS" -br link show "$VB" | awk '{print $3}')" \
		dev "$VA" nud permanent
	# The sink keeps svb from answering with port unreachables.
	ip netns exec "$NS" "$RCGEN" --recv --bind "$VPORT" --host "$IP_B" \
		>"$tmp/sink" 2>&1 &
	SINK=$!
	wait_for 10 grep -q receiving "$tmp/sink"
}

set_mode() {
	echo "$1" >"$PARAMS/transparent_mode" &&
		[ "$(cat "$PARAMS/transparent_mode")" = "$1" ]
}

# ---- counters ---------------------------------------------------------------

# ethtool -S of the NIC into the associative array NAME
nic_snap() { counters_into "$1" ethtool -S "$dev"; }
veth_stat() { # DEV COUNTER
	if [ "$1" = "$VB" ]; then
		ip netns exec "$NS" cat "/sys/class/net/$1/statistics/$2"
	else
		cat "/sys/class/net/$1/statistics/$2"
	fi
}
# The witnesses' kernel counters (received dropped filtered) by inode.
proc_counts() { # NETNS|"" INODE
	local pre=()
	[ -z "$1" ] || pre=(ip netns exec "$1")
	"${pre[@]}" awk -v i="$2" '$2 == i {print $6, $7, $8}' /proc/net/ringcap
}
nic_moving() {
	ethtool -S "$dev" | awk '$1 ~ /^rx[01]_packets:$/ {s += $2} END {print s + 0}'
	proc_counts "" "${RD_INO[wn]}"
}
veth_moving() {
	veth_stat "$VB" rx_packets
	proc_counts "$NS" "${RD_INO[wv]}"
}

# ---- the generators ------------------------------------------------------

GEN_N=0
# gen_start SECONDS: the host into the NIC, rcgen through the veth pair
gen_start() {
	GEN_N=$((GEN_N + 1))
	"$RC_HOST" --timeout $(($1 + 300)) gen nic0 --dst-mac "$NIC_MAC" --flows 64 \
		--size 60 --rate "$RATE" --duration "$1" --quiet >"$tmp/hgen" 2>&1 &
	HGEN=$!
	"$RCGEN" --to "$VPORT" --host "$IP_B" --flows 16 --size 60 --rate "$VETH_RATE" \
		--duration "$1" --quiet >"$tmp/vgen" 2>&1 &
	VGEN=$!
}
gen_running() { kill -0 "$HGEN" 2>/dev/null || kill -0 "$VGEN" 2>/dev/null; }
# gen_wait: sets HSENT, VSENT (empty if a generator failed)
gen_wait() {
	wait "$HGEN" || true
	wait "$VGEN" || true
	HSENT=$(kv sent "$(cat "$tmp/hgen")")
	VSENT=$(kv sent "$(cat "$tmp/vgen")")
	[ -n "$HSENT" ] || fail gen "host generator: $(tail -n 2 "$tmp/hgen" | tr '\n' ' ')"
	[ -n "$VSENT" ] || fail gen "veth generator: $(tail -n 2 "$tmp/vgen" | tr '\n' ' ')"
}

# ---- chaos ------------------------------------------------------------------

declare -A MODE_TO=([0]=0 [1]=0 [2]=0)
MODE_SWITCHES=0
declare -A SIZE_USED=() SIZE_OF=()
CHURN=(c0 c1 ca cv)
churn_spec() {
	case $1 in
	c0) echo "$dev@0" ;;
	c1) echo "$dev@1" ;;
	ca) echo "$dev" ;;
	cv) echo "$VB" ;;
	esac
}
# churn_start SLOT: the next ring size of SOAK_RINGS for this slot
churn_start() {
	local i=${SIZE_OF[$1]:--1} ns=
	i=$(((i + 1) % ${#RINGS[@]}))
	SIZE_OF[$1]=$i
	SIZE_USED[${RINGS[i]}]=1
	[ "$1" != cv ] || ns=$NS
	rd_start "$1" "$(churn_spec "$1")" "${RINGS[i]}" $ns || true
}
mode_switch() {
	local cur m
	cur=$(cat "$PARAMS/transparent_mode")
	m=$(((cur + 1 + RANDOM % 2) % 3))
	if set_mode "$m"; then
		MODE_SWITCHES=$((MODE_SWITCHES + 1))
		MODE_TO[$m]=$((MODE_TO[$m] + 1))
	else
		fail modes "transparent_mode $cur -> $m: reads back $(cat "$PARAMS/transparent_mode")"
	fi
}
# A mode switch, and a churn reader ended, in turn by SIGKILL and SIGTERM,
# and restarted. Starting a reader takes seconds on the debug kernel, so
# both happen at every step.
ACT=0
act() {
	local slot=${CHURN[RANDOM % ${#CHURN[@]}]} sig=KILL
	mode_switch
	[ $((ACT++ % 2)) = 0 ] || sig=TERM
	rd_stop "$slot" "$sig"
	churn_start "$slot"
}

# ---- one accounted window ---------------------------------------------------

TOT_OFFERED=0 TOT_WIRE=0 TOT_NICRX=0 TOT_WCAP=0 TOT_VSENT=0 TOT_VRX=0 TOT_VCAP=0 WINDOWS=0
window() {
	local w0 w1 q k slack pk tr ts sf off cap rec a0 a1 b0 b1 vrx vdrop voff
	local -A N0 N1
	WINDOWS=$((WINDOWS + 1))
	rd_start wn "$dev" 4M || { fail witness "window $WINDOWS: no NIC witness"; return; }
	rd_start wv "$VB" 4M "$NS" || { fail veth "window $WINDOWS: no veth witness"; return; }
	for k in "${CHURN[@]}"; do churn_start "$k"; done
	w0=$(wiredrops) || { fail wire "window $WINDOWS: rc_host wiredrops failed"; return; }
	nic_snap N0 || { fail nic "window $WINDOWS: ethtool -S $dev failed"; return; }
	a0=$(veth_stat "$VA" tx_dropped) b0=$(veth_stat "$VB" rx_packets)

	gen_start "$WINDOW"
	while gen_running; do
		sleep "$STEP"
		gen_running || break
		act
	done
	gen_wait
	steady 0.5 nic_moving || fail nic "window $WINDOWS: NIC counters never settled"
	steady 0.5 veth_moving || fail veth "window $WINDOWS: veth counters never settled"
	w1=$(wiredrops) || { fail wire "window $WINDOWS: rc_host wiredrops failed"; return; }
	nic_snap N1
	a1=$(veth_stat "$VA" tx_dropped) b1=$(veth_stat "$VB" rx_packets)
	rd_stop wn INT
	rd_stop wv INT
	for k in "${CHURN[@]}"; do rd_stop "$k" TERM; done
	[ -n "$HSENT" ] && [ -n "$VSENT" ] || return 0

	# wire
	slack=$((HSENT - (w1 - w0) - $(d N0 N1 rx_hw_packets)))
	[ "$slack" -ge 0 ] && [ "$slack" -le 2 ] ||
		fail wire "window $WINDOWS: offered $HSENT != wire drops $((w1 - w0)) + NIC received $(d N0 N1 rx_hw_packets) (off by $slack)"
	[ $((w1 - w0)) -gt 0 ] ||
		fail wire "window $WINDOWS: no wire drops: the NIC took all $HSENT frames, below its ceiling (SOAK_RATE $RATE)"
	# NIC and driver
	pk=0 sf=0
	for q in 0 1; do
		pk=$((pk + $(d N0 N1 rx${q}_packets)))
		sf=$((sf + $(d N0 N1 rx${q}_skb_failed)))
		[ "$(d N0 N1 rx${q}_errors)" = 0 ] || fail nic "window $WINDOWS: rx${q}_errors +$(d N0 N1 rx${q}_errors)"
		tr=$(d N0 N1 rx${q}_to_ring) ts=$(($(d N0 N1 rx${q}_to_stack) + $(d N0 N1 rx${q}_skb_failed)))
		[ "$tr" -le "$(d N0 N1 rx${q}_packets)" ] && [ "$ts" -le "$(d N0 N1 rx${q}_packets)" ] &&
			[ $((tr + ts)) -ge "$(d N0 N1 rx${q}_packets)" ] ||
			fail driver "window $WINDOWS: queue $q: packets +$(d N0 N1 rx${q}_packets), to_ring +$tr, to_stack + skb_failed +$ts"
		[ "$(d N0 N1 rx${q}_buf_allocs)" = 0 ] ||
			fail driver "window $WINDOWS: rx${q}_buf_allocs +$(d N0 N1 rx${q}_buf_allocs) with the interface up"
	done
	[ "$pk" = "$(d N0 N1 rx_hw_packets)" ] ||
		fail nic "window $WINDOWS: rx_hw_packets +$(d N0 N1 rx_hw_packets) != rx0+rx1 packets +$pk"
	# NIC witness
	if [ -n "${RD_SUM[wn]}" ]; then
		rec=$(rd_val wn received) cap=$(rd_val wn captured)
		off=$((rec + $(rd_val wn dropped) + $(rd_val wn filtered)))
		[ "$off" -le "$pk" ] && [ "$off" -ge $((pk - sf)) ] ||
			fail witness "window $WINDOWS: NIC queues took $pk (skb_failed $sf), witness offered $off (${RD_SUM[wn]})"
		[ "$cap" = "$rec" ] || fail witness "window $WINDOWS: NIC witness read $cap of $rec"
		TOT_WCAP=$((TOT_WCAP + cap))
	else
		fail witness "window $WINDOWS: NIC witness has no summary"
	fi
	# veth
	vrx=$((b1 - b0)) vdrop=$((a1 - a0))
	[ "$VSENT" = $((vrx + vdrop)) ] ||
		fail veth "window $WINDOWS: sent $VSENT != $VB rx_packets +$vrx + $VA tx_dropped +$vdrop"
	if [ -n "${RD_SUM[wv]}" ]; then
		voff=$(($(rd_val wv received) + $(rd_val wv dropped) + $(rd_val wv filtered)))
		[ "$voff" = "$vrx" ] || fail veth "window $WINDOWS: $VB took $vrx, witness offered $voff (${RD_SUM[wv]})"
		[ "$(rd_val wv captured)" = "$(rd_val wv received)" ] ||
			fail veth "window $WINDOWS: veth witness read $(rd_val wv captured) of $(rd_val wv received)"
		TOT_VCAP=$((TOT_VCAP + $(rd_val wv captured)))
	else
		fail veth "window $WINDOWS: veth witness has no summary"
	fi
	TOT_OFFERED=$((TOT_OFFERED + HSENT)) TOT_WIRE=$((TOT_WIRE + w1 - w0))
	TOT_NICRX=$((TOT_NICRX + pk)) TOT_VSENT=$((TOT_VSENT + VSENT)) TOT_VRX=$((TOT_VRX + vrx))
	echo "# window $WINDOWS ($((SECONDS - t0)) s): NIC offered $HSENT = wire drops $((w1 - w0)) + NIC $(d N0 N1 rx_hw_packets) (q0 $(d N0 N1 rx0_packets), q1 $(d N0 N1 rx1_packets); to_ring $(($(d N0 N1 rx0_to_ring) + $(d N0 N1 rx1_to_ring))), to_stack $(($(d N0 N1 rx0_to_stack) + $(d N0 N1 rx1_to_stack)))); witness ${RD_SUM[wn]:-?}"
	echo "# window $WINDOWS: veth sent $VSENT = $VB rx $vrx + $VA tx_dropped $vdrop; witness ${RD_SUM[wv]:-?}"
}

# ---- one reload phase ---------------------------------------------------

declare -A RELOADS_DONE=([bind]=0 [module]=0 [ringcap]=0)
reload_one() { # KIND: one cycle; 0 if the NIC came back
	case $1 in
	bind)
		echo "$pci" >"/sys/bus/pci/drivers/$DRV/unbind" || return 1
		;;
	module)
		rmmod_wait "$DRV" || { fail reload "rmmod $DRV failed"; return 1; }
		;;
	ringcap)
		if ! no_sockets_left; then
			fail reload "sockets still open before rmmod ringcap: $(awk 'NR > 2' /proc/net/ringcap | tr '\n' ';')"
			return 1
		fi
		rmmod_wait "$DRV" || { fail reload "rmmod $DRV failed"; return 1; }
		rmmod_wait ringcap || { fail reload "rmmod ringcap failed with no socket open"; return 1; }
		;;
	esac
	nic_up || { fail reload "$1: the NIC did not come back: $(dmesg | tail -n 3 | tr '\n' ' ')"; return 1; }
	RELOADS_DONE[$1]=$((RELOADS_DONE[$1] + 1))
}
reload_phase() {
	local i k kind
	gen_start "$RELOAD_TRAFFIC"
	for ((i = 0; i < RELOADS; i++)); do
		for kind in bind module ringcap; do
			# Readers bound while the device goes: all but ringcap.
			if [ "$kind" = ringcap ]; then
				rd_stop_all TERM lost
			else
				for k in "${CHURN[@]}"; do
					[ -n "${RD_PID[$k]:-}" ] || churn_start "$k"
				done
			fi
			mode_switch
			reload_one "$kind" || break 2
			# The NIC's readers lost their device and exit by themselves.
			for k in c0 c1 ca; do rd_stop "$k" TERM lost; done
		done
	done
	gen_wait
	rd_stop_all TERM lost
}

# ---- the run ------------------------------------------------------------------

echo "TAP version 13"
echo "1..$PLAN"
echo "# $(uname -r), $(nproc) CPUs, $((SECS)) s, window $WINDOW s, step $STEP s, seed $SEED"
echo "# modules: ${SOAK_SOURCE:-as installed}; host rate ${RATE} pps, veth rate $VETH_RATE pps"
why=
[ "$(id -u)" = 0 ] || why="needs root"
for f in "$RINGCOUNT" "$RCGEN" "$RC_HOST" "$(command -v ethtool || echo ethtool)"; do
	[ -n "$why" ] || [ -x "$f" ] || why="$f missing"
done
[ -n "$why" ] || grep -q "^nic0 e1000e-dgram" <("$RC_HOST" nics 2>/dev/null) ||
	why="no nic0 e1000e-dgram (scripts/vm/run --nic e1000e-dgram)"
[ -z "$why" ] || skip_all soak "$why"

echo "<5>soak: start" >/dev/kmsg
klog0=$(klog_lines) || klog0=0
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
sysctl -qw net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.all.disable_ipv6=1 2>/dev/null || true

t_setup() {
	nic_find || { msg="no 82574L"; return 1; }
	nic_up || { msg="the NIC on $DRV failed"; return 1; }
	veth_up || { msg="veth pair failed: $(cat "$tmp/sink")"; return 1; }
	msg="$pci is $dev on $DRV, veth $VA -> $VB (netns $NS)"
}
msg=
if t_setup; then result 0 "setup: NIC on $DRV, veth pair, sink" "$msg"; else result 1 "setup" "$msg"; fi
[ "$failed" = 0 ] || { echo "# setup failed, nothing to soak"; exit 1; }

declare -A B0=() B1=()
round=0
kml=0
while :; do
	round=$((round + 1))
	window
	reload_phase
	echo "# round $round: $((SECONDS - t0)) s; mode switches $MODE_SWITCHES, readers started $GEN_STARTED, killed $GEN_KILLED, stopped $GEN_STOPPED, lost $GEN_LOST"
	if [ "$round" = 1 ]; then
		mem_settle
		mem_record before
		# The records every later verdict compares with: each one
		# taken, or this fails (and says which is missing).
		rc=0 m=
		nic_snap B0 || { rc=1; m+="ethtool -S $dev has no rx0_packets; "; }
		ethtool -S "$dev" >"$ART/before.ethtool" 2>/dev/null || true
		[ -n "$(mem_kb before SUnreclaim)" ] && [ -n "$(mem_kb before MemAvailable)" ] ||
			{ rc=1; m+="no SUnreclaim/MemAvailable in $ART/before.meminfo; "; }
		if kml_have; then kml_forget || { rc=1; m+="kmemleak clear failed; "; }; kml=1; fi
		t_base=$SECONDS
		result $rc "warm-up round done, before records taken" \
			"${m}SUnreclaim $(mem_kb before SUnreclaim) kB, MemAvailable $(mem_kb before MemAvailable) kB"
	fi
	[ $((SECONDS - t_base)) -lt "$SECS" ] || break
done
mem_settle
mem_record after
nic_snap B1 || true
ethtool -S "$dev" >"$ART/after.ethtool" 2>/dev/null || true

verdict wire "wire: offered = wire drops + NIC received, in all $WINDOWS windows" "$TOT_OFFERED offered, $TOT_WIRE wire drops, $TOT_NICRX NIC received"
verdict nic "NIC: rx_hw_packets = rx0 + rx1 packets, no RX errors, in every window"
verdict driver "driver: to_ring/to_stack cover every frame per queue, buf_allocs still, in every window"
verdict witness "NIC witness: offered every frame once across $MODE_SWITCHES mode switches, read all" "$TOT_WCAP captured"
verdict veth "veth: sent = $VB rx + $VA tx_dropped, witness offered all and read all" "$TOT_VSENT sent, $TOT_VRX received, $TOT_VCAP captured"
if [ "$GEN_BAD" = 0 ] && [ "$GEN_KILLED" -gt 0 ] && [ "$GEN_STOPPED" -gt 0 ]; then
	result 0 "readers: every generation ended cleanly, its socket freed" "$GEN_STARTED started, $GEN_KILLED SIGKILLed, $GEN_STOPPED stopped, $GEN_LOST lost their device, ring sizes ${!SIZE_USED[*]}"
else
	result 1 "readers: every generation ended cleanly, its socket freed" "$GEN_BAD bad of $GEN_STARTED, $GEN_KILLED killed, $GEN_STOPPED stopped: $GEN_WHY"
fi
if [ "$MODE_SWITCHES" -gt 0 ] && [ "${BAD[modes]:-0}" = 0 ] && [ "${BAD[gen]:-0}" = 0 ]; then
	result 0 "mode switches took effect, generators ran" "$MODE_SWITCHES: to 0 ${MODE_TO[0]}, to 1 ${MODE_TO[1]}, to 2 ${MODE_TO[2]}"
else
	result 1 "mode switches took effect, generators ran" "$MODE_SWITCHES switches; ${WHY[modes]:-} ${WHY[gen]:-}"
fi
rl="bind ${RELOADS_DONE[bind]}, module ${RELOADS_DONE[module]}, ringcap ${RELOADS_DONE[ringcap]}"
if [ "${BAD[reload]:-0}" = 0 ] && [ "${RELOADS_DONE[ringcap]}" -gt 0 ]; then
	result 0 "reloads: the NIC came back after every cycle" "$rl"
else
	result 1 "reloads: the NIC came back after every cycle" "$rl: ${WHY[reload]:-no ringcap reload ran}"
fi

grow() { echo $(($(mem_kb after "$1") - $(mem_kb before "$1"))); }
m="SUnreclaim $(mem_kb before SUnreclaim) -> $(mem_kb after SUnreclaim) kB ($(grow SUnreclaim)), bound +$SLAB_KB"
rc=0; [ "$(grow SUnreclaim)" -le "$SLAB_KB" ] || rc=1
result $rc "memory: unreclaimable slab growth within bound" "$m"
m="VmallocUsed $(grow VmallocUsed) kB (bound $VMALLOC_KB), Percpu $(grow Percpu) kB (bound $PERCPU_KB), MemAvailable $(mem_kb before MemAvailable) -> $(mem_kb after MemAvailable) kB (bound -$AVAIL_KB)"
rc=0
[ "$(grow VmallocUsed)" -le "$VMALLOC_KB" ] && [ "$(grow Percpu)" -le "$PERCPU_KB" ] &&
	[ $((0 - $(grow MemAvailable))) -le "$AVAIL_KB" ] || rc=1
result $rc "memory: vmalloc, percpu and available memory within bounds" "$m"

# One RX buffer per descriptor since the last interface up, nothing more.
rxring=$(ethtool -g "$dev" 2>/dev/null | awk '/^Current/ {c = 1} c && /^RX:/ {print $2; exit}')
m="RX ring $rxring; rx0_buf_allocs ${B1[rx0_buf_allocs]:-?}, rx1_buf_allocs ${B1[rx1_buf_allocs]:-?} (before: ${B0[rx0_buf_allocs]:-?}, ${B0[rx1_buf_allocs]:-?})"
rc=0
[ -n "$rxring" ] && [ "${B1[rx0_buf_allocs]:-}" = "$rxring" ] && [ "${B1[rx1_buf_allocs]:-}" = "$rxring" ] || rc=1
result $rc "driver buffers: one per RX descriptor after the last probe" "$m"

if [ "$kml" = 1 ]; then
	kml_report "$ART/kmemleak.after"
	m="$KML_ALL new unreferenced objects, $KML_OURS with a ringcap/ringcap_e1000e frame ($ART/kmemleak.after)"
	rc=0; [ "$KML_OURS" = 0 ] || rc=1
	result $rc "kmemleak: no leak attributed to ringcap or ringcap_e1000e" "$m"
	[ "$KML_ALL" = 0 ] || grep -A 12 '^unreferenced object' "$ART/kmemleak.after" | head -n 60 | show /dev/stdin
else
	KML_ALL=- KML_OURS=-
	result 4 "kmemleak: no leak attributed to ringcap or ringcap_e1000e" "this kernel has no kmemleak ($KMEMLEAK)"
fi

# An unreadable log is no clean log: scan-log would pass an empty file.
if ! log=$(dmesg) || [ -z "$log" ]; then
	result 1 "no kernel report in the log since the start" "cannot read the kernel log"
elif tail -n +$((klog0 + 1)) <<<"$log" >"$ART/dmesg.soak" &&
	rep=$("$top/scripts/vm/scan-log" "$ART/dmesg.soak"); then
	result 0 "no kernel report in the log since the start"
else
	result 1 "no kernel report in the log since the start" "$(echo "$rep" | tr '\n' ' ')"
fi

{
	echo "soak: modules ${SOAK_SOURCE:-as installed}"
	echo "soak: kernel $(uname -r) seed $SEED duration $((SECONDS - t0)) s (measured $((SECONDS - t_base)) s after the warm-up round) rounds $round windows $WINDOWS"
	echo "soak: mode_switches $MODE_SWITCHES (to0 ${MODE_TO[0]} to1 ${MODE_TO[1]} to2 ${MODE_TO[2]}) readers_started $GEN_STARTED sigkill $GEN_KILLED sigterm $GEN_STOPPED lost_device $GEN_LOST ring_sizes ${!SIZE_USED[*]}"
	echo "soak: reloads $rl (cycles per phase $RELOADS)"
	echo "soak: nic offered $TOT_OFFERED wire_drops $TOT_WIRE nic_received $TOT_NICRX witness_captured $TOT_WCAP (accounted windows only)"
	echo "soak: veth sent $TOT_VSENT received $TOT_VRX witness_captured $TOT_VCAP"
	for k in MemAvailable SUnreclaim VmallocUsed Percpu KernelStack PageTables; do
		echo "soak: $k before $(mem_kb before $k) kB after $(mem_kb after $k) kB"
	done
	for k in nr_slab_unreclaimable_B nr_slab_unreclaimable nr_free_pages nr_kernel_stack nr_page_table_pages; do
		[ -n "$(vm_pages before $k)" ] || continue
		echo "soak: vmstat $k before $(vm_pages before $k) after $(vm_pages after $k)"
	done
	echo "soak: kmemleak new $KML_ALL ours $KML_OURS"
	echo "soak: result $((n - failed - skipped)) passed, $failed failed, $skipped skipped"
} | tee "$ART/summary" | sed 's/^/# /'

[ "$n" -eq "$PLAN" ] || { echo "# plan said $PLAN tests, ran $n"; exit 1; }
[ "$failed" -eq 0 ]
