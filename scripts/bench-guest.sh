#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make bench` (scripts/bench.sh boots a 2-vCPU guest
# with one emulated 82574L, nic0, whose wire is the host traffic
# generator). For every configuration of the matrix it starts the capture
# processes, has the host offer FRAMES frames at the generator's full
# rate, waits until the NIC is quiet, and writes one CSV row: what was
# offered, what the NIC delivered and missed, what each process captured,
# the drops per layer, wake-ups and poll-family syscalls per 1000 captured
# frames, and each CPU's user/sys/softirq split. Then the same on a
# virtio-net NIC (--nic virtio-dgram, the stock virtio_net: ringcap's
# standard hook in mode 0 and XDP in mode 2, against native XDP_DROP as
# the ceiling), three readers each copying everything against a ringcap
# cluster and netsniff-ng's AF_PACKET fanout, zero-copy receive against
# copy mode and AF_PACKET on the 82574L's two RX queues, the transmit
# rate the other way, out of the 82574L to the host (ringcap's TX ring,
# trafgen, sendmmsg() and pktgen; rows in OUT-tx.csv), and the sim-device
# micro-benchmark with 1 and 3 readers: the capture path without NIC
# emulation. Last, where the time goes: a profiled run of the main
# virtio-net set-ups and of the zero-copy pair (perf in the guest,
# drops.bt/afpacket-drops.bt), and a profiled send of pktgen, the TX ring
# and trafgen.
#
#   scripts/bench-guest.sh full|quick OUT.csv
#
#   RINGCAP_BENCH_FRAMES, RINGCAP_BENCH_REPS   override the matrix's
#   RINGCAP_BENCH_PARTS   which parts run (default all: "e1000e virtio
#                         multi zerocopy tx sim explain"; quick leaves
#                         explain out); the others are left out of the
#                         plan
#
# Set-ups: af_stock (the stock e1000e, the system libpcap: AF_PACKET,
# TPACKET_V3), af_rce0 (ringcap_e1000e in mode 0, the system libpcap),
# rc_m0/rc_m1/rc_m2 (ringcap_e1000e in transparent mode 0/1/2 with
# libpcap-ring), ringcount (mode 2, ringcap's own reader).
# On virtio-net (figure "virtio"): vio_af (tcpdump, AF_PACKET), vio_m0
# (ringcount, mode 0: the shared hook), vio_xdp (ringcount, mode 2:
# libringcap attaches ringcap's XDP program, the kfunc's copy where the
# module has BTF), vio_redir (the same on the redirect path,
# RINGCAP_XDP=redirect), vio_m1 (ringcount, mode 1: the copy, and the
# stack gets every frame too), vio_rc_m2 (tcpdump through
# libpcap-ring, mode 2), vio_xdpdump (xdp-tools' xdpdump, the XDP
# user's tcpdump), vio_afxdp (dpdk-testpmd rx-only on AF_XDP: it polls
# a CPU, so it is in the share table only, not the cost part), vio_drop
# (xdp-bench drop: native XDP_DROP), and in the cost part vio_pass
# (xdp-bench pass: an XDP program that passes every frame, no capture:
# what the stack costs with XDP on virtio_net, which mode 1 pays too).
# Three readers (figure "multi", 64 B; vio_ on virtio-net, e1k_ on the
# 82574L): _af (tcpdumps on AF_PACKET, each a copy), _m0td (tcpdumps
# through libpcap-ring in mode 0, each a copy; also with one reader),
# _cluster (three tcpdumps through libpcap-ring in mode 2 with
# RINGCAP_CLUSTER=1:flow: they share the frames), _rccl (the same with
# three ringcounts -C 1:flow: the cluster without libpcap-ring and
# tcpdump), _fanout (three netsniff-ng in AF_PACKET fanout group 1, hash:
# they share the frames). e1k_ uses the stock e1000e except for
# e1k_cluster and e1k_rccl (ringcap_e1000e).
# Zero-copy (figure "zerocopy", the 82574L, 64 flows that RSS spreads over
# its two RX queues; 64, 512 and 1500 B, quick 64 and 1500 B): zc_zc (two
# `ringcount -z` on ringcap_e1000e, process i on queue i: each reads its
# queue's frames in the NIC's own buffers), zc_copy (the same two
# ringcounts, queue i each, in copy mode: ringcap_e1000e in mode 2),
# zc_af (the stock e1000e, one netsniff-ng without fanout walking one
# TPACKET_V3 ring for all queues: AF_PACKET cannot bind to one queue).
# The cost part adds zc_zc4k: zc_zc with 4096 buffers a queue, a copy
# ring's 8 MiB (see rce_ring()). Compare their total share, captured_sum / offered (the CSV's share
# column is per process, as for the cluster and fanout rows).
# Transmit (figure "tx", the 82574L, FRAMES frames of 64 B, full matrix
# also 1500 B, as fast as the sender goes, the host counting what
# arrives): tx_ceiling (the kernel's pktgen on ringcap_e1000e, one skb
# cloned, a doorbell per burst of 64: what the emulated NIC takes with no
# user space), tx_ring (rcgen --tx-ring: ringcap's TX ring, straight into
# ringcap_e1000e's descriptors), tx_trafgen (netsniff-ng's trafgen:
# AF_PACKET TX_RING with its default qdisc bypass), tx_sendmmsg
# (bench-sendmmsg: AF_PACKET SOCK_RAW, sendmmsg() of 64 frames, through
# the qdisc), all on ringcap_e1000e, and tx_trafgen_stock (trafgen on the
# stock e1000e). OUT-tx.csv (tx_run says what each column is).
# Cost (part "cost", alone, in a 1-vCPU guest booted with --icount: one
# virtual ns is one instruction): the one-reader set-ups of the 82574L
# and of virtio-net, and the zero-copy trio, offered COST_FRAMES frames at
# COST_RATE a second, below every set-up's loss point, COST_REPS times,
# set-ups interleaved; rows in OUT-cost.csv, guest instructions per frame
# the NIC received, split as scripts/cost.sh says. NAPI runs threaded
# there, so that a stock driver's receive work is a thread of its own.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$top/scripts/guest-nic.sh"
. "$top/scripts/cost.sh"

matrix=${1:?full or quick}
csv=${2:?output CSV}
RUN=$top/libpcap-ring/ringcap-run
PACKZIP=$top/userland/build/bin/packzip
RINGCOUNT=$top/userland/build/bin/ringcount
INJECT=$top/selftests/build/bin/rc_inject
RCGEN=$top/userland/build/bin/rcgen
SENDMMSG=$top/build/bench/bench-sendmmsg	# scripts/bench-sendmmsg.c
SIM_KO=$top/selftests/build/$(uname -r)/ringcap_sim.ko
PARAMS=/sys/module/ringcap/parameters
BUF_KIB=8192			# every reader gets 8 MiB of buffer or ring
FLOWS=64

case $matrix in
full)
	FRAMES=100000 REPS=7
	SETUPS="af_stock af_rce0 rc_m0 rc_m1 rc_m2 ringcount"
	SIZES="64 256 512 1500" LEVELS="0 1 3 6 9" PROCS="2 3" PROC_LEVELS="0 9"
	VIO_SIZES="64 1500" MULTI_NICS="vio e1k" ZC_SIZES="64 512 1500"
	TX_SIZES="64 1500" SIM_FRAMES=200000 COST_SIZES="64 1500" ;;
quick)
	FRAMES=30000 REPS=1
	SETUPS="af_stock rc_m0 rc_m2 ringcount"
	SIZES="64 1500" LEVELS="0 9" PROCS="3" PROC_LEVELS="0"
	VIO_SIZES="64" MULTI_NICS="vio" ZC_SIZES="64 1500"
	TX_SIZES="64" SIM_FRAMES=50000 COST_SIZES="64" ;;
*)
	echo "bench: matrix full or quick, not '$matrix'" >&2
	exit 2 ;;
esac
VIO_SETUPS="vio_af vio_m0 vio_xdp vio_redir vio_rc_m2 vio_xdpdump vio_afxdp vio_drop"
# Three readers per NIC: "SETUP:PROCS" runs, 64 B, tcpdump or netsniff-ng.
MULTI_RUNS="af:1 af:3 m0td:1 m0td:3 cluster:3 rccl:3 fanout:3"
CLUSTER=1:flow
# Zero-copy: the 82574L's RX queues, one ringcount each (zc_af: one
# netsniff-ng on all of them).
ZC_SETUPS="zc_zc zc_copy zc_af" ZC_QUEUES=2
# Transmit (figure "tx"): the ceiling (pktgen), then ringcap's TX ring,
# trafgen and sendmmsg() on ringcap_e1000e, then trafgen on the stock
# e1000e.
TX_SETUPS="tx_ceiling tx_ring tx_trafgen tx_sendmmsg tx_trafgen_stock"
# Cost: a rate every set-up keeps up with under icount (each row says
# what the NIC received and the readers captured, so one that did not
# shows), and five repetitions: the spread says what the instrument
# resolves.
COST_SETUPS="af_stock rc_m0 rc_m1 rc_m2 ringcount vio_af vio_m0 vio_xdp vio_redir vio_m1 vio_pass vio_rc_m2 vio_xdpdump vio_drop zc_zc zc_zc4k zc_copy zc_af"
COST_FRAMES=20000 COST_RATE=5000 COST_REPS=5
COST_SETUPS=${RINGCAP_BENCH_COST_SETUPS:-$COST_SETUPS}
FRAMES=${RINGCAP_BENCH_FRAMES:-$FRAMES}
REPS=${RINGCAP_BENCH_REPS:-$REPS}
PARTS=" ${RINGCAP_BENCH_PARTS:-e1000e virtio multi zerocopy tx sim$([ "$matrix" = quick ] || echo " explain")} "
part() { [[ $PARTS == *" $1 "* ]]; }
part e1000e || SETUPS=
part virtio || VIO_SETUPS=
part multi || MULTI_NICS=
part zerocopy || ZC_SETUPS=
part tx || TX_SETUPS=
part cost || COST_SETUPS=
COST=0
if [ "${RINGCAP_VM_ICOUNT:-0}" = 1 ]; then
	[ "$PARTS" = " cost " ] ||
		{ echo "bench: an --icount guest runs the cost part alone, not:$PARTS" >&2; exit 2; }
	COST=1
elif part cost; then
	echo "bench: the cost part needs a guest booted with --icount --cpus 1 (scripts/bench.sh)" >&2
	exit 2
fi

out=$(mktemp -d)
apps=()
bt= perf_pid= ebt_pid=
cleanup() {
	local p
	for p in "${apps[@]+"${apps[@]}"}" $bt $perf_pid; do kill "$p" 2>/dev/null || true; done
	[ -z "$ebt_pid" ] || bt_kill "$ebt_pid"
	rm -rf "$out"
}
trap cleanup EXIT

for f in "$PACKZIP" "$RINGCOUNT" "$INJECT"; do
	[ -x "$f" ] || { echo "bench: $f missing (make, make -C selftests)" >&2; exit 1; }
done
! part explain || command -v perf >/dev/null ||
	{ echo "bench: the explain part needs perf (scripts/deps.sh --bench)" >&2; exit 1; }
[ -f "$top/libpcap-ring/build/lib/libpcap.so.0.8" ] ||
	{ echo "bench: no drop-in libpcap (make -C libpcap-ring)" >&2; exit 1; }
if part tx || part explain; then
	grep -q -- --tx-ring <("$RCGEN" --help 2>&1) ||
		{ echo "bench: the tx and explain parts need $RCGEN with --tx-ring (make -C userland)" >&2; exit 1; }
	[ -x "$SENDMMSG" ] ||
		{ echo "bench: the tx and explain parts need $SENDMMSG (scripts/bench.sh builds it)" >&2; exit 1; }
	command -v trafgen >/dev/null ||
		{ echo "bench: the tx and explain parts need trafgen (netsniff-ng, scripts/deps.sh)" >&2; exit 1; }
	modprobe -n pktgen 2>/dev/null ||
		{ echo "bench: the tx and explain parts need the kernel's pktgen module" >&2; exit 1; }
fi

# ---- measuring ---------------------------------------------------------

# Poll-family syscalls per process, counted in the kernel for the whole
# run by one bpftrace; SIGUSR1 makes it print the map (bpftrace's own).
polls_start() {
	mountpoint -q /sys/kernel/tracing || mount -t tracefs none /sys/kernel/tracing
	bpftrace -e '
tracepoint:syscalls:sys_enter_poll, tracepoint:syscalls:sys_enter_ppoll,
tracepoint:syscalls:sys_enter_select, tracepoint:syscalls:sys_enter_pselect6,
tracepoint:syscalls:sys_enter_epoll_wait, tracepoint:syscalls:sys_enter_epoll_pwait
{ @polls[pid] = count(); }' >"$out/polls" 2>&1 &
	bt=$!
	wait_for 120 grep -q Attaching "$out/polls" ||
		{ echo "bench: bpftrace did not start:" >&2; cat "$out/polls" >&2; exit 1; }
}
# polls_of PID...: their poll-family syscalls so far (the processes ended)
polls_of() {
	local p sum=0 v n0
	n0=$(wc -l <"$out/polls")
	kill -USR1 "$bt"
	wait_for 10 eval '[ "$(wc -l <"$out/polls")" -gt "$n0" ]' || true
	sleep 0.3
	for p in "$@"; do
		v=$(sed -n "s/^@polls\[$p\]: \([0-9]*\)$/\1/p" "$out/polls" | tail -n 1)
		sum=$((sum + ${v:-0}))
	done
	echo "$sum"
}

# CPU time per CPU from /proc/stat: "cpuN user system softirq total" lines.
cpu_snap() {
	awk '$1 ~ /^cpu[0-9]+$/ {
		t = 0; for (i = 2; i <= 9; i++) t += $i
		print $1, $2 + $3, $4, $8, t }' /proc/stat
}
# cpu_split BEFORE AFTER: "u0 s0 si0 u1 s1 si1" in percent of each CPU
cpu_split() {
	join <(echo "$1") <(echo "$2") | awk '{
		t = $9 - $5; if (t <= 0) t = 1
		printf "%.1f %.1f %.1f ", 100 * ($6 - $2) / t,
			100 * ($7 - $3) / t, 100 * ($8 - $4) / t }'
}

# has_capture_socket PID: PID holds a bound AF_PACKET or ringcap socket
has_capture_socket() {
	local inos
	inos=$(ls -l "/proc/$1/fd" 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p')
	[ -n "$inos" ] || return 1
	awk -v list="$inos" 'BEGIN { n = split(list, a, "\n"); for (i = 1; i <= n; i++) want[a[i]] = 1 }
		FILENAME ~ /packet$/ && FNR > 1 && ($9 in want) { f = 1 }
		FILENAME ~ /ringcap$/ && ($2 in want) { f = 1 }
		END { exit !f }' /proc/net/packet /proc/net/ringcap 2>/dev/null
}

# ---- capture processes -----------------------------------------------------

# app_start I KIND LEVEL LIB WAKE CPU: capture process I on $dev.
# KIND tcpdump|packzip|ringcount|ringcount_q|netsniff|xdpdrop|xdppass|xdpdump|testpmd (ringcount_q:
# ringcount on RX queue I alone, $dev@I); LIB system|ring; WAKE
# default|n1; CPU a CPU to pin it to, or "-". APP_ENV: variables for it
# (RINGCAP_CLUSTER); RC_ARGS: more ringcount options (-C, -z); NS_ARGS:
# netsniff-ng's fanout options (default group 1 by flow hash).
app_start() {
	local i=$1 kind=$2 level=$3 lib=$4 wake=$5 cpu=$6 pre=() cmd=() spec=$dev
	[ "$cpu" = - ] || pre+=(taskset -c "$cpu")
	[ ${#APP_ENV[@]} = 0 ] || pre+=(env "${APP_ENV[@]}")
	[ "$lib" = system ] || [[ $kind == ringcount* ]] || pre+=("$RUN")
	case $kind in
	tcpdump)
		cmd=(tcpdump -i "$dev" -Q in -n -p -w /dev/null -B "$BUF_KIB" -Z root)
		[ "$wake" = default ] || cmd+=(--immediate-mode) ;;
	packzip)
		cmd=("$PACKZIP" -i "$dev" -z "$level" -B "$BUF_KIB")
		[ "$wake" = default ] || cmd+=(--immediate) ;;
	ringcount|ringcount_q)
		[ "$kind" = ringcount ] || spec=$dev@$i
		cmd=("$RINGCOUNT" -q -i "$spec" -r $((BUF_KIB * 1024)) "${RC_ARGS[@]+"${RC_ARGS[@]}"}")
		[ "$wake" = default ] || cmd+=(-w 1) ;;
	netsniff)
		# Only walking its ring (no output, no printing), in the fanout
		# group of NS_ARGS if any; the same ring memory as the others,
		# no promiscuous mode (as tcpdump -p), and leave the system's
		# socket memory sysctls and IRQ affinities alone.
		cmd=(netsniff-ng -i "$dev" -s -M -A -Q -N -S "${BUF_KIB}KiB"
			"${NS_ARGS[@]+"${NS_ARGS[@]}"}") ;;
	xdpdrop)
		cmd=(xdp-bench drop -i 1 "$dev") ;;
	xdppass)
		cmd=(xdp-bench pass -i 1 "$dev") ;;
	xdpdump)
		# The XDP user's tcpdump (xdp-tools): its own trace program
		# on the device, each frame to user space through a perf ring.
		cmd=(xdpdump -i "$dev" --load-xdp-program -w /dev/null) ;;
	testpmd)
		# AF_XDP (DPDK's PMD, copy mode on virtio_net): rx-only, one
		# lcore polling on CPU 1, 512 MB without hugepages.
		cmd=(dpdk-testpmd -l 0,1 --no-huge -m 512 --no-pci
			--vdev "net_af_xdp0,iface=$dev" -- --total-num-mbufs=16384
			--forward-mode=rxonly --auto-start --stats-period=1) ;;
	esac
	"${pre[@]+"${pre[@]}"}" "${cmd[@]}" >"$out/app$i" 2>&1 &
	apps[i]=$!
}
# app_stop I KIND: stop it; sets CAP (captured) and DROP (dropped in the
# ring or socket buffer, as the process's statistics say).
app_stop() {
	local i=$1 kind=$2 s
	kill -INT "${apps[i]}" 2>/dev/null || true
	wait "${apps[i]}" 2>/dev/null || true
	case $kind in
	tcpdump)
		CAP=$(sed -n 's/^\([0-9]*\) packets\{0,1\} captured.*/\1/p' "$out/app$i")
		DROP=$(sed -n 's/^\([0-9]*\) packets\{0,1\} dropped by kernel.*/\1/p' "$out/app$i") ;;
	packzip)
		s=$(grep '^packzip:' "$out/app$i" | tail -n 1)
		CAP=$(kv captured "$s") DROP=$(kv ps_drop "$s") ;;
	ringcount|ringcount_q)
		s=$(grep '^ringcount:' "$out/app$i" | tail -n 1)
		CAP=$(kv captured "$s") DROP=$(kv dropped "$s") ;;
	netsniff)
		# Its TPACKET_V3 summary: frames it walked ("incoming"), and
		# the ring-full drops ("failed filter (out of space)").
		s=$(tr -d '\r' <"$out/app$i")
		CAP=$(sed -n 's/^ *\([0-9]*\)  packets incoming.*/\1/p' <<<"$s" | tail -n 1)
		DROP=$(sed -n 's/^ *\([0-9]*\)  packets failed filter.*/\1/p' <<<"$s" | tail -n 1) ;;
	xdpdrop)
		# What XDP_DROP handled: the driver's xdp_drops counters over
		# the offer (vio_offer).
		CAP=$XDP_DROPS DROP=0 ;;
	xdppass)
		# It captures nothing: every frame the NIC received went on.
		CAP=$NIC_RX DROP=0 ;;
	xdpdump)
		CAP=$(sed -n 's/^\([0-9]*\) packets\{0,1\} captured.*/\1/p' "$out/app$i")
		DROP=$(sed -n 's/^\([0-9]*\) packets\{0,1\} dropped by perf ring.*/\1/p' "$out/app$i") ;;
	testpmd)
		# The last "Accumulated forward statistics", at exit.
		s=$(grep -E '^ *RX-packets: [0-9]+ +RX-dropped' "$out/app$i" | tail -n 1)
		CAP=$(sed -n 's/.*RX-packets: *\([0-9]*\).*/\1/p' <<<"$s")
		DROP=$(sed -n 's/.*RX-dropped: *\([0-9]*\).*/\1/p' <<<"$s") ;;
	esac
	if [ -z "$CAP" ]; then
		echo "bench: process $i ($kind) gave no summary:" >&2
		sed 's/^/  /' "$out/app$i" >&2
		CAP=0 DROP=0
	fi
}

# app_ready I KIND: process I is capturing (its socket is bound, or for
# xdp-bench its program is attached)
app_ready() {
	if [ "$2" = xdpdrop ] || [ "$2" = xdppass ]; then
		xdp_attached && ! grep -q 'ERROR\|Couldn' "$out/app$1"
	elif [ "$2" = xdpdump ]; then
		xdp_attached && grep -q '^listening on' "$out/app$1"
	elif [ "$2" = testpmd ]; then
		xdp_attached && grep -q '^Logical Core' "$out/app$1"
	else
		has_capture_socket "${apps[$1]}"
	fi
}
# The capture path of PID's ringcap socket (the last column of
# /proc/net/ringcap: aware, hook, xdp, zerocopy, hook:WHY), "-" if it
# has none.
path_of() { awk -v p="$1" '$1 == p { print $NF; f = 1; exit } END { if (!f) print "-" }' /proc/net/ringcap; }

# ---- set-ups ---------------------------------------------------------------

SETUP_LIB= SETUP_KIND=
OFFER=nic_offer
NS_FANOUT=(--fanout-group 1 --fanout-type hash)
APP_ENV=() RC_ARGS=() NS_ARGS=("${NS_FANOUT[@]}")
setup_enter() {
	OFFER=nic_offer APP_ENV=() RC_ARGS=() NS_ARGS=("${NS_FANOUT[@]}")
	case $1 in
	af_stock)
		nic_bind e1000e; SETUP_LIB=system ;;
	af_rce0)
		nic_bind ringcap_e1000e; echo 0 >"$PARAMS/transparent_mode"; SETUP_LIB=system ;;
	rc_m[012])
		nic_bind ringcap_e1000e; echo "${1#rc_m}" >"$PARAMS/transparent_mode"; SETUP_LIB=ring ;;
	ringcount)
		nic_bind ringcap_e1000e; echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring ;;
	e1k_af|e1k_fanout)
		nic_bind e1000e; echo 0 >"$PARAMS/transparent_mode"; SETUP_LIB=system ;;
	e1k_m0td)
		nic_bind e1000e; echo 0 >"$PARAMS/transparent_mode"; SETUP_LIB=ring ;;
	e1k_cluster)
		nic_bind ringcap_e1000e; echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring
		APP_ENV=("RINGCAP_CLUSTER=$CLUSTER") ;;
	e1k_rccl)
		nic_bind ringcap_e1000e; echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring
		RC_ARGS=(-C "$CLUSTER") ;;
	zc_zc|zc_zc4k)
		# The mode does not matter to a zero-copy queue (its frames go
		# to its reader in every mode): 2, as zc_copy.
		nic_bind ringcap_e1000e; echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring
		RC_ARGS=(-z) ;;
	zc_copy)
		nic_bind ringcap_e1000e; echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring ;;
	zc_af)
		nic_bind e1000e; echo 0 >"$PARAMS/transparent_mode"; SETUP_LIB=system
		NS_ARGS=() ;;
	vio_*)
		vio_enter "$1" ;;
	esac
	rce_ring "$1"
}

# zc_zc4k gives each queue of the 82574L 4096 buffers, the 8 MiB a copy
# reader's ring has (zero-copy's buffers are the queue's own: 256 by
# default, which caps its reader's watermark at 64, libringcap's
# rc_zc_watermark()); every other set-up on ringcap_e1000e has the default.
rce_ring() {
	local want=256 cur
	[ "$(basename "$(readlink -f "/sys/class/net/$dev/device/driver")")" = ringcap_e1000e ] ||
		return 0
	[ "$1" != zc_zc4k ] || want=4096
	cur=$(ethtool -g "$dev" | awk '/^Current/ { c = 1 } c && /^RX:/ { print $2; exit }')
	[ "$cur" != "$want" ] || return 0
	ethtool -G "$dev" rx "$want"
	wait_for 20 grep -qx 1 "/sys/class/net/$dev/carrier" ||
		echo "bench: $dev: no link after its RX ring went to $want" >&2
}

# ---- the virtio-net NIC ------------------------------------------------------

# Like the 82574L (scripts/guest-nic.sh), fed by the host generator: the
# first virtio-dgram NIC of `rc_host nics`, found by its MAC (its netdev
# sits under the virtio device, not the PCI function).
VNIC= VMAC= vdev=
vio_find() {
	local nics
	nics=$("$RC_HOST" nics 2>&1) || { echo "bench: rc_host nics: $nics" >&2; return 1; }
	read -r VNIC _ VMAC _ <<<"$(awk '$2 == "virtio-dgram" { print; exit }' <<<"$nics")"
	[ -n "$VNIC" ] || { echo "bench: no virtio-dgram NIC in this guest (scripts/vm/run --nic virtio-dgram)" >&2; return 1; }
	modprobe virtio_net 2>/dev/null || true
	wait_for 20 eval 'vdev=$(iface_by_mac "$VMAC")' ||
		{ echo "bench: $VNIC ($VMAC) has no interface" >&2; return 1; }
	ip link set "$vdev" up
	wait_for 20 grep -qx 1 "/sys/class/net/$vdev/carrier" ||
		{ echo "bench: $vdev: no link" >&2; return 1; }
	echo "bench: virtio-net $VNIC $VMAC is $vdev, driver $(basename "$(readlink -f "/sys/class/net/$vdev/device/driver")")"
}
# Both from ip's output, read whole: `ip | grep -q` under pipefail fails
# when ip dies of SIGPIPE, and `! xdp_attached` would pass when ip fails.
xdp_attached() { local l; l=$(ip link show dev "$dev") && grep -q 'prog/xdp' <<<"$l"; }
xdp_detached() { local l; l=$(ip link show dev "$dev") && ! grep -q 'prog/xdp' <<<"$l"; }
vio_xdp_drops() { ethtool -S "$vdev" | awk '$1 ~ /xdp_drops:$/ { s += $2 } END { print s + 0 }'; }
vio_wiredrops() { "$RC_HOST" wiredrops "$VNIC" | sed -n 's/^drops=\([0-9]*\)$/\1/p' | grep .; }
# vio_offer FRAMES SIZE RATE FLOWS: nic_offer for the virtio-net NIC;
# also sets XDP_DROPS (what an XDP_DROP program dropped meanwhile). With
# PROFILE set, "$PROFILE enable|disable" brackets the generator's send
# and the draining of what it sent.
PROFILE=
vio_offer() {
	local g w0 m0 n0 x0
	w0=$(vio_wiredrops)
	m0=$(nic_sys rx_missed_errors)
	n0=$(nic_sys rx_packets)
	x0=$(vio_xdp_drops)
	[ -z "$PROFILE" ] || "$PROFILE" enable
	g=$(gen_offer "$VNIC" --dst-mac "$VMAC" --flows "$4" --size "$2" \
		--rate "$3" --count "$1")
	steady 0.5 nic_sys rx_packets || true
	[ -z "$PROFILE" ] || "$PROFILE" disable
	OFFERED=$(kv sent "$g")
	OFFER_PPS=$(kv rate_pps "$g")
	WIRE=$(($(vio_wiredrops) - w0))
	MISSED=$(($(nic_sys rx_missed_errors) - m0))
	NIC_RX=$(($(nic_sys rx_packets) - n0))
	XDP_DROPS=$(($(vio_xdp_drops) - x0))
}
vio_enter() {
	dev=$vdev OFFER=vio_offer APP_ENV=() RC_ARGS=()
	# The previous set-up's XDP program (ringcap's or xdp-bench's) goes
	# with its last process; another one would make ours fall back.
	wait_for 10 xdp_detached ||
		echo "bench: $dev still runs an XDP program: $(ip link show dev "$dev" | grep -o 'prog/xdp.*')" >&2
	case $1 in
	vio_af|vio_fanout|vio_drop|vio_pass|vio_xdpdump|vio_afxdp)
		echo 0 >"$PARAMS/transparent_mode"; SETUP_LIB=system ;;
	vio_m0|vio_m0td)
		echo 0 >"$PARAMS/transparent_mode"; SETUP_LIB=ring ;;
	vio_xdp|vio_rc_m2)
		echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring ;;
	vio_redir)
		echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring
		APP_ENV=(RINGCAP_XDP=redirect) ;;
	vio_m1)
		echo 1 >"$PARAMS/transparent_mode"; SETUP_LIB=ring ;;
	vio_cluster)
		echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring
		APP_ENV=("RINGCAP_CLUSTER=$CLUSTER") ;;
	vio_rccl)
		echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring
		RC_ARGS=(-C "$CLUSTER") ;;
	esac
}

# ---- one measured run -------------------------------------------------------

HEADER="kernel,git_rev,date,figure,setup,size,app,level,procs,wakeup,placement,rep,offered,offer_pps,wire_drops,nic_rx,nic_missed,captured_min,captured_sum,captured_per_proc,ring_drops,filter_drops,wakeups,polls,wakeups_per_1k,polls_per_1k,cpu0_user,cpu0_sys,cpu0_softirq,cpu1_user,cpu1_sys,cpu1_softirq,share,path"

# run FIGURE SETUP SIZE KIND LEVEL PROCS WAKE PLACEMENT REP
run() {
	local fig=$1 setup=$2 size=$3 kind=$4 level=$5 procs=$6 wake=$7 place=$8 rep=$9
	local i cpu=- c0 c1 k0 k1 p caps=() capmin= capsum=0 dropsum=0 wk=0 pl w pids=() paths=() path
	case $place in same) cpu=0 ;; different) cpu=1 ;; esac
	for ((i = 0; i < procs; i++)); do
		app_start "$i" "$kind" "$level" "$SETUP_LIB" "$wake" "$cpu"
		pids+=("${apps[i]}")
	done
	for ((i = 0; i < procs; i++)); do
		wait_for 30 app_ready "$i" "$kind" ||
			{ echo "bench: process $i ($kind) did not start:" >&2; cat "$out/app$i" >&2; }
	done
	sleep 0.5	# the socket is there; let the ring or TPACKET set-up finish
	if [ "$COST" = 1 ]; then
		for p in "${pids[@]}"; do cost_reader "$p"; done
		rm -f "$COST_WINDOW"	# a failed cost_wait leaves none
		k0=$(cost_snap)
		$OFFER "$COST_FRAMES" "$size" "$COST_RATE" "$FLOWS"
		k1=$(cost_snap)
	else
		c0=$(cpu_snap)
		$OFFER "$FRAMES" "$size" 0 "$FLOWS"
		c1=$(cpu_snap)
	fi
	# Wake-ups and paths of the ringcap sockets, read while they are
	# still open.
	for ((i = 0; i < procs; i++)); do
		w=$(awk -v p="${apps[i]}" '$1 == p { s += $9 } END { print s + 0 }' /proc/net/ringcap)
		wk=$((wk + w))
		if [[ " xdpdrop xdppass xdpdump testpmd " == *" $kind "* ]]; then
			# xdp-bench's path keeps the name earlier runs gave it.
			xdp_attached && paths+=("${kind/#xdpdrop/xdp_drop}") || paths+=(not-attached)
		else
			paths+=("$(path_of "${apps[i]}")")
		fi
	done
	path=$(printf '%s\n' "${paths[@]}" | sort -u | paste -sd /)
	for ((i = 0; i < procs; i++)); do
		app_stop "$i" "$kind"
		caps+=("$CAP")
		capsum=$((capsum + CAP)) dropsum=$((dropsum + ${DROP:-0}))
		[ -n "$capmin" ] && [ "$capmin" -le "$CAP" ] || capmin=$CAP
	done
	apps=()
	if [ "$COST" = 1 ]; then
		cost_row "$setup" "$size" "$kind" "$procs" "$rep" "$capsum" "$dropsum" \
			"$path" "$k0" "$k1"
		return
	fi
	pl=$(polls_of "${pids[@]}")
	local f=(
		"$(uname -r)" "$GIT_REV" "$DATE" "$fig" "$setup" "$size" "$kind" "$level"
		"$procs" "$wake" "$place" "$rep" "$OFFERED" "$OFFER_PPS" "$WIRE" "$NIC_RX"
		"$MISSED" "$capmin" "$capsum" "$(IFS=';'; echo "${caps[*]}")" "$dropsum" 0 "$wk" "$pl"
		"$(awk -v a="$wk" -v c="$capsum" 'BEGIN { printf "%.1f", c ? 1000 * a / c : 0 }')"
		"$(awk -v a="$pl" -v c="$capsum" 'BEGIN { printf "%.1f", c ? 1000 * a / c : 0 }')"
		$(cpu_split "$c0" "$c1")
		"$(awk -v c="$capsum" -v n="$procs" -v o="$OFFERED" 'BEGIN { printf "%.4f", o ? c / n / o : 0 }')"
		"$path"
	)
	(IFS=,; echo "${f[*]}") >>"$csv"
	printf 'bench: %-9s %-8s %4sB %-9s L%s x%s %-7s %-9s rep %s: offered %s, NIC %s, captured %s (%s per process), ring drops %s, wake-ups %s, polls %s, path %s\n' \
		"$fig" "$setup" "$size" "$kind" "$level" "$procs" "$wake" "$place" "$rep" \
		"$OFFERED" "$NIC_RX" "$capsum" "$(IFS=/; echo "${caps[*]}")" "$dropsum" "$wk" "$pl" "$path"
}

# reader_of SETUP: what `run` starts for a set-up of one reader (or of a
# reader per RX queue): KIND, and PROCS, the processes
reader_of() {
	PROCS=1
	case $1 in
	ringcount|vio_m0|vio_xdp|vio_redir|vio_m1) KIND=ringcount ;;
	vio_drop) KIND=xdpdrop ;;
	vio_pass) KIND=xdppass ;;
	vio_xdpdump) KIND=xdpdump ;;
	vio_afxdp) KIND=testpmd ;;
	zc_zc|zc_zc4k|zc_copy) KIND=ringcount_q PROCS=$ZC_QUEUES ;;
	zc_af) KIND=netsniff ;;
	*) KIND=tcpdump ;;
	esac
}

# vio_runs REP: the virtio-net set-ups, one reader, each frame size
vio_runs() {
	local setup size
	for setup in $VIO_SETUPS; do
		setup_enter "$setup"
		reader_of "$setup"
		for size in $VIO_SIZES; do
			run virtio "$setup" "$size" "$KIND" - "$PROCS" default default "$1"
		done
	done
}
# multi_runs NIC REP: three readers on NIC (vio or e1k), 64 B
multi_runs() {
	local r setup procs kind
	for r in $MULTI_RUNS; do
		setup=$1_${r%:*} procs=${r#*:}
		setup_enter "$setup"
		case $setup in
		*_fanout) kind=netsniff ;;
		*_rccl) kind=ringcount ;;
		*) kind=tcpdump ;;
		esac
		run multi "$setup" 64 "$kind" - "$procs" default default "$2"
	done
}

# zc_runs REP: zero-copy against copy mode (one ringcount per RX queue of
# the 82574L) and AF_PACKET (one netsniff-ng), each frame size
zc_runs() {
	local setup size
	for setup in $ZC_SETUPS; do
		setup_enter "$setup"
		reader_of "$setup"
		for size in $ZC_SIZES; do
			run zerocopy "$setup" "$size" "$KIND" - "$PROCS" default default "$1"
		done
	done
}

# ---- cost: instructions per frame ---------------------------------------------

COST_HEADER="kernel,git_rev,date,setup,size,app,procs,rep,offered,offer_pps,nic_rx,captured_sum,ring_drops,busy,total,rx,reader,reader_sys,reader_user,bench,other,window,window_user,path"

# cost_row SETUP SIZE KIND PROCS REP CAPTURED DROPS PATH SNAP0 SNAP1: one
# row of OUT-cost.csv, per frame the NIC received (what was offered, if
# the NIC does not count what XDP took)
cost_row() {
	local n=${NIC_RX:-0} split
	[ "$n" -gt 0 ] || n=$OFFERED
	split=$(cost_split "$9" "${10}" "$n" "$(cat "$COST_WINDOW")")
	local f=(
		"$(uname -r)" "$GIT_REV" "$DATE" "$1" "$2" "$3" "$4" "$5" "$OFFERED"
		"$OFFER_PPS" "$NIC_RX" "$6" "$7"
		$(for k in busy total rx reader reader_sys reader_user bench other window; do
			kv "$k" " $split"; done)
		"$(kv window_user " $(cat "$COST_WINDOW")")"
		"$8"
	)
	(IFS=,; echo "${f[*]}") >>"$COST_CSV"
	printf 'bench: cost %-9s %4sB rep %s: offered %s at %s/s, NIC %s, captured %s: %s\n' \
		"$1" "$2" "$5" "$OFFERED" "$OFFER_PPS" "$NIC_RX" "$6" "$split"
}

# cost_runs REP: every set-up of COST_SETUPS at each of COST_SIZES
cost_runs() {
	local setup size
	for setup in $COST_SETUPS; do
		setup_enter "$setup"
		reader_of "$setup"
		# A stock driver's NAPI in a thread of its own (napi/*), not in
		# whatever task the interrupt hit (ringcap_e1000e has its own).
		echo 1 >"/sys/class/net/$dev/threaded" 2>/dev/null || true
		for size in $COST_SIZES; do
			run cost "$setup" "$size" "$KIND" - "$PROCS" default default "$1"
		done
	done
}

# ---- transmit ----------------------------------------------------------------

# Figure "tx": frames sent from the guest out of the 82574L ($dev) toward
# the host, as fast as each sender goes (no rate limit), the host's rcgen
# --recv counting what arrives. Every sender runs on CPU 0 (trafgen -P 1
# pins itself there, pktgen's thread is kpktgend_0, the others go through
# taskset). One row per run in $TX_CSV:
#   sent, send_seconds  the sender's own count and timing of its send loop
#                       (rcgen: up to the drained ring; trafgen: up to its
#                       final flush, which it leaves out; pktgen: its
#                       Result; bench-sendmmsg: first to last call)
#   wall_seconds        the guest's clock around the whole sender command,
#                       start-up included
#   received, received_bytes, recv_seconds
#                       the host's count, and its window: from before the
#                       sender starts (it must listen first) to the last
#                       frame, or to when it was stopped
#   sent_pps, received_pps   sent and received over send_seconds
#   nic_tx, nic_tx_dropped   the driver's tx_packets and tx_dropped over
#                       the run; ring_frames: tx0_ring_frames (frames the
#                       driver took from a TX ring without an skb; "-" on
#                       the stock e1000e), path: ring, skb or ring+skb
# trafgen's TX_RING bypasses the qdisc, and a frame it flushes while the
# driver's queue is stopped is dropped without a count anywhere (AF_PACKET
# frees it and reports ENOBUFS, which trafgen ignores): its sent counts
# what it put into its ring, the host's received what left the NIC.
TX_NIC=nic0		# the 82574L on the host's side (scripts/guest-nic.sh)
TX_CPU=0
TX_BATCH=64		# frames per kick (rcgen), per sendmmsg(), per pktgen burst
TX_WAIT=5		# seconds the host's receiver gets once the NIC is quiet
TX_RECV_MAX=300		# its own bound, should it never be stopped
TX_SHARE=${RC_HOST_SHARE:-/run/ringcap-vm/share}
PG=/proc/net/pktgen
TX_HEADER="kernel,git_rev,date,setup,driver,sender,size,rep,frames,sent,send_seconds,sent_pps,wall_seconds,received,received_bytes,recv_seconds,received_pps,nic_tx,nic_tx_dropped,ring_frames,send_errors,cpu0_user,cpu0_sys,cpu0_softirq,cpu1_user,cpu1_sys,cpu1_softirq,path"

tx_enter() {
	case $1 in
	tx_trafgen_stock) nic_bind e1000e ;;
	*) nic_bind ringcap_e1000e ;;
	esac
	# Before any send: a profiled one (explain_tx) starts with the sender.
	[ "$1" != tx_ceiling ] || [ -d "$PG" ] || modprobe pktgen
	echo 0 >"$PARAMS/transparent_mode"
}

# trafgen's one packet, SIZE bytes without FCS: Ethernet broadcast,
# IPv4 10.1.0.1 -> 10.0.0.2 with its checksum, UDP 10000 -> 5001 without
# one, zeros. Static: trafgen only copies it into its ring, where rcgen
# also writes a sequence number and two checksums per frame.
tx_trafgen_cfg() {
	cat <<EOF
{
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x00, 0x00, 0x00, 0x00, 0x02,
  c16(0x0800),
  0x45, 0x00, c16($(($1 - 14))), c16(0), c16(0x4000), 64, 17, csumip(14, 33),
  10, 1, 0, 1, 10, 0, 0, 2,
  c16(10000), c16(5001), c16($(($1 - 34))), c16(0),
  fill(0x00, $(($1 - 42)))
}
EOF
}

pg_set() { echo "$2" >"$1" || echo "bench: pktgen: '$2' into $1 refused" >&2; }
# tx_pktgen SIZE: the kernel's pktgen on $dev, the same skb again and
# again (clone_skb), a doorbell per burst of TX_BATCH (xmit_more): no
# user space, the least the guest can do per frame.
tx_pktgen() {
	local th=$PG/kpktgend_$TX_CPU p=$PG/$dev
	pg_set "$th" rem_device_all
	pg_set "$th" "add_device $dev"
	pg_set "$p" "count $FRAMES"
	pg_set "$p" "pkt_size $1"
	pg_set "$p" "clone_skb $FRAMES"
	pg_set "$p" "burst $TX_BATCH"
	pg_set "$p" "delay 0"
	pg_set "$p" "dst 10.0.0.2"
	pg_set "$p" "dst_mac ff:ff:ff:ff:ff:ff"
	pg_set "$PG/pgctrl" start	# returns when the count is sent
	cat "$p" >"$out/tx"
	pg_set "$th" rem_device_all
}

# tx_send SETUP SIZE: run the sender, its output in $out/tx
tx_send() {
	case $1 in
	tx_ceiling)
		tx_pktgen "$2" ;;
	tx_ring)
		taskset -c "$TX_CPU" "$RCGEN" --tx-ring "$dev" --size "$2" --flows "$FLOWS" \
			--rate 0 --count "$FRAMES" -q >"$out/tx" 2>&1 || true ;;
	tx_trafgen|tx_trafgen_stock)
		tx_trafgen_cfg "$2" >"$out/trafgen.cfg"
		# Its TX_RING (the default) with the qdisc bypass (the default
		# since Linux 3.14, -q turns it off); its IRQ affinity left
		# alone (-Q), as for the others.
		# Its config goes through cpp into a file beside the cwd: the
		# guest sees the repository read-only, so it runs in $out.
		(cd "$out" && trafgen -i trafgen.cfg -o "$dev" -n "$FRAMES" -P 1 -Q) \
			>"$out/tx" 2>&1 || true ;;
	tx_sendmmsg)
		taskset -c "$TX_CPU" "$SENDMMSG" "$dev" "$FRAMES" "$2" "$FLOWS" "$TX_BATCH" \
			>"$out/tx" 2>&1 || true ;;
	esac
}

# tx_result SETUP: read $out/tx; sets SENT SEND_S SEND_ERR (the sender's
# own count, seconds and errors; empty if it printed none)
tx_result() {
	local s e r
	SENT= SEND_S= SEND_ERR=
	case $1 in
	tx_ceiling)
		s=$(tr '\n' ' ' <"$out/tx")
		SENT=$(sed -n 's/.*pkts-sofar: *\([0-9]*\).*/\1/p' <<<"$s")
		SEND_ERR=$(sed -n 's/.*pkts-sofar: *[0-9]* *errors: *\([0-9]*\).*/\1/p' <<<"$s")
		SEND_S=$(sed -n 's/.*Result: OK: *\([0-9]*\)(.*/\1/p' <<<"$s")
		[ -z "$SEND_S" ] || SEND_S=$(awk -v u="$SEND_S" 'BEGIN { printf "%.6f", u / 1e6 }') ;;
	tx_ring)
		s=$(grep '^rcgen:' "$out/tx" | tail -n 1)
		SENT=$(kv sent "$s") SEND_S=$(kv seconds "$s")
		# Refused frames (tx_refused) are errors too; tx_full (kicks a
		# full queue cut short, the rest sent later) is not.
		e=$(kv send_errors "$s") r=$(kv tx_refused "$s")
		[ -z "$SENT" ] || SEND_ERR=$((${e:-0} + ${r:-0})) ;;
	tx_trafgen|tx_trafgen_stock)
		s=$(tr -d '\r' <"$out/tx")
		SENT=$(sed -n 's/^ *\([0-9]*\) packets outgoing.*/\1/p' <<<"$s" | tail -n 1)
		SEND_S=$(sed -n 's/^ *\([0-9]*\) sec, \([0-9]*\) usec on CPU0.*/\1 \2/p' <<<"$s" |
			awk '{ printf "%.6f", $1 + $2 / 1e6 }')
		[ -z "$SENT" ] || SEND_ERR=0 ;;
	tx_sendmmsg)
		s=$(grep '^bench-sendmmsg:' "$out/tx" | tail -n 1)
		SENT=$(kv sent "$s") SEND_S=$(kv seconds "$s") SEND_ERR=$(kv retries "$s") ;;
	esac
	if [ -z "$SENT" ] || [ -z "$SEND_S" ]; then
		echo "bench: $1: the sender gave no summary:" >&2
		sed 's/^/  /' "$out/tx" >&2
		SENT=${SENT:-0} SEND_S=${SEND_S:-0}
	fi
}

# tx_run SETUP SIZE REP: one measured send, one row of $TX_CSV
tx_run() {
	local setup=$1 size=$2 rep=$3 id=tx-$1-$2-$3 drv sender c0 c1 t0 t1
	local n0 d0 r0 g recv rbytes rsecs nic_tx drops ring=- path wall
	drv=$(basename "$(readlink -f "/sys/bus/pci/devices/$pci/driver")")
	case $setup in
	tx_ceiling) sender=pktgen ;;
	tx_ring) sender=rcgen ;;
	tx_sendmmsg) sender=sendmmsg ;;
	*) sender=trafgen ;;
	esac
	# The host listens first: its rcgen says so once it is bound.
	"$RC_HOST" --bg "$id" recv "$TX_NIC" --count "$FRAMES" --duration "$TX_RECV_MAX" ||
		echo "bench: rc_host refused the receiver $id" >&2
	wait_for 30 grep -q '^rcgen: receiving on' "$TX_SHARE/hostreq/$id.out" ||
		{ echo "bench: the host's receiver $id did not say it listens; going on" >&2; sleep 1; }
	n0=$(nic_sys tx_packets) d0=$(nic_sys tx_dropped) r0=$(nic_stat tx0_ring_frames)
	c0=$(cpu_snap)
	[ -z "${PROFILE:-}" ] || "$PROFILE" enable
	t0=$EPOCHREALTIME
	tx_send "$setup" "$size"
	t1=$EPOCHREALTIME
	[ -z "${PROFILE:-}" ] || "$PROFILE" disable
	tx_result "$setup"
	c1=$(cpu_snap)
	steady 0.5 nic_sys tx_packets || true
	nic_tx=$(($(nic_sys tx_packets) - n0)) drops=$(($(nic_sys tx_dropped) - d0))
	[ -z "$r0" ] || ring=$(($(nic_stat tx0_ring_frames) - r0))
	# Whatever left the NIC is at the host by now: a receiver still
	# short of FRAMES is stopped after TX_WAIT (rc_host then exits 124)
	# and prints what it got.
	"$RC_HOST" --timeout "$TX_WAIT" --wait "$id" >"$out/recv" 2>&1 || true
	g=$(grep '^rcgen: received=' "$out/recv" | tail -n 1 || true)
	[ -n "$g" ] || { echo "bench: $id: the host's receiver gave no summary:" >&2; sed 's/^/  /' "$out/recv" >&2; }
	recv=$(kv received "$g") rbytes=$(kv bytes "$g") rsecs=$(kv seconds "$g")
	recv=${recv:-0} rbytes=${rbytes:-0} rsecs=${rsecs:-0}
	if [ "$ring" = - ]; then path=skb
	elif [ "$ring" -gt 0 ] && [ "$ring" -ge "$nic_tx" ]; then path=ring
	elif [ "$ring" -gt 0 ]; then path=ring+skb
	else path=skb
	fi
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
	local f=(
		"$(uname -r)" "$GIT_REV" "$DATE" "$setup" "$drv" "$sender" "$size" "$rep"
		"$FRAMES" "$SENT" "$SEND_S"
		"$(awk -v n="$SENT" -v s="$SEND_S" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')"
		"$wall" "$recv" "$rbytes" "$rsecs"
		"$(awk -v n="$recv" -v s="$SEND_S" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')"
		"$nic_tx" "$drops" "$ring" "${SEND_ERR:-0}" $(cpu_split "$c0" "$c1") "$path"
	)
	(IFS=,; echo "${f[*]}") >>"$TX_CSV"
	printf 'bench: tx        %-16s %4sB rep %s: %s sent %s in %ss (%ss wall), host received %s in %ss, NIC tx %s (dropped %s, ring %s), path %s\n' \
		"$setup" "$size" "$rep" "$sender" "$SENT" "$SEND_S" "$wall" "$recv" "$rsecs" \
		"$nic_tx" "$drops" "$ring" "$path"
}

# tx_runs REP: every transmit set-up, each frame size
tx_runs() {
	local setup size
	for setup in $TX_SETUPS; do
		tx_enter "$setup"
		for size in $TX_SIZES; do tx_run "$setup" "$size" "$1"; done
	done
}

# ---- the sim micro-benchmark -----------------------------------------------

# Frames injected into ringcap_sim as fast as it takes them: AF_PACKET
# (tcpdumps with the system libpcap) against ringcounts in mode 0 (one
# shared hook per device, however many readers) and mode 2, with 1 reader
# and, for AF_PACKET and mode 0, 3 readers each getting every frame;
# kernel time (system + softirq, all CPUs) per injected frame (what
# serving all readers costs) and per captured frame.
SIM_RUNS="sim_af:1 sim_m0:1 sim_m2:1 sim_af:3 sim_m0:3"
sim_bench() {
	local rep r setup readers c0 c1 k i cap capsum ns nsi batch=10000 n pids=()
	ip link add rcbench0 type ringcap_sim 2>/dev/null ||
		{ insmod "$SIM_KO" && ip link add rcbench0 type ringcap_sim; }
	ip link set rcbench0 up
	for ((rep = 1; rep <= REPS; rep++)); do
		for r in $SIM_RUNS; do
			setup=${r%:*} readers=${r#*:} pids=()
			case $setup in
			sim_m2) echo 2 >"$PARAMS/transparent_mode" ;;
			*) echo 0 >"$PARAMS/transparent_mode" ;;
			esac
			for ((i = 0; i < readers; i++)); do
				if [ "$setup" = sim_af ]; then
					tcpdump -i rcbench0 -n -p -w /dev/null -B "$BUF_KIB" -Z root >"$out/sim$i" 2>&1 &
				else
					"$RINGCOUNT" -q -i rcbench0 -r $((BUF_KIB * 1024)) >"$out/sim$i" 2>&1 &
				fi
				pids+=($!)
			done
			for ((i = 0; i < readers; i++)); do
				wait_for 30 has_capture_socket "${pids[i]}" ||
					{ echo "bench: sim reader $i did not start:" >&2; cat "$out/sim$i" >&2; }
			done
			sleep 0.5
			c0=$(cpu_snap)
			for ((n = 0; n < SIM_FRAMES; n += batch)); do
				"$INJECT" -d rcbench0 -n "$batch" -s "$n" -q mixed -l 60
			done
			sleep 1
			c1=$(cpu_snap)
			capsum=0
			for ((i = 0; i < readers; i++)); do
				kill -INT "${pids[i]}"
				wait "${pids[i]}" || true
				if [ "$setup" = sim_af ]; then
					cap=$(sed -n 's/^\([0-9]*\) packets\{0,1\} captured.*/\1/p' "$out/sim$i")
				else
					cap=$(kv captured "$(grep '^ringcount:' "$out/sim$i" | tail -n 1)")
				fi
				capsum=$((capsum + ${cap:-0}))
			done
			k=$(join <(echo "$c0") <(echo "$c1") | awk '{ s += ($7 - $3) + ($8 - $4) } END { print s }')
			ns=$(awk -v k="$k" -v c="$capsum" -v hz="$(getconf CLK_TCK)" \
				'BEGIN { printf "%.0f", c ? k * 1e9 / hz / c : 0 }')
			nsi=$(awk -v k="$k" -v c="$SIM_FRAMES" -v hz="$(getconf CLK_TCK)" \
				'BEGIN { printf "%.0f", k * 1e9 / hz / c }')
			echo "$(uname -r),$GIT_REV,$DATE,$setup,$SIM_FRAMES,$capsum,$k,$ns,$rep,$readers,$nsi" >>"$SIM_CSV"
			echo "bench: sim $setup x$readers rep $rep: injected $SIM_FRAMES, captured $capsum in all, kernel time ${nsi} ns per injected frame, ${ns} ns per captured frame"
		done
	done
	echo 0 >"$PARAMS/transparent_mode"
	ip link del rcbench0
}

# ---- where the time goes -----------------------------------------------------

# One more run of each set-up below (virtio-net at 64 B, the zero-copy
# pair on the 82574L at 1500 B), outside the matrix, with three times the
# frames: perf samples every CPU while the generator sends and the NIC
# drains (cpu-clock; TCG has no PMU counters), and drops.bt or
# afpacket-drops.bt counts what the guest's capture sockets take and
# lose. Profiling costs CPU, so these runs' shares go to their own CSV,
# never beside the measured ones. Output: explain/SETUP-xN.perf (perf
# report by command, object and symbol, tab-separated) and .drops,
# explain/runs.csv; then the transmit side (explain_tx).
EXPLAIN_RUNS="vio_drop:xdpdrop:1 vio_af:tcpdump:1 vio_xdp:ringcount:1
	vio_rc_m2:tcpdump:1 vio_af:tcpdump:3 vio_m0td:tcpdump:3
	zc_zc:ringcount_q:2:1500 zc_copy:ringcount_q:2:1500"
# perf takes seconds to start under TCG, far longer than the traffic
# lasts: it starts disabled, and its control FIFO enables it for the
# generator's send only (perf_ctl), acknowledging once it samples.
PERF_CTL= PERF_ACK=
perf_ctl() {
	local reply=
	kill -0 "$perf_pid" 2>/dev/null ||
		{ echo "bench: perf is gone: $(cat "$out/perf.log")" >&2; return 0; }
	echo "$1" >&"$PERF_CTL"
	read -r -t 120 -u "$PERF_ACK" reply || true
	[ "$reply" = ack ] || echo "bench: perf did not acknowledge '$1':" \
		"$(cat "$out/perf.log")" >&2
}
perf_begin() {
	rm -f "$out/perf.ctl" "$out/perf.ack" "$out/perf.data"
	mkfifo "$out/perf.ctl" "$out/perf.ack"
	exec {PERF_CTL}<>"$out/perf.ctl" {PERF_ACK}<>"$out/perf.ack"
	perf record -q -a -e cpu-clock -F 1999 -D -1 -o "$out/perf.data" \
		--control "fifo:$out/perf.ctl,$out/perf.ack" >"$out/perf.log" 2>&1 &
	perf_pid=$!
}
# perf_end FILE: stop perf, its report by command, object and symbol
perf_end() {
	kill -INT "$perf_pid" 2>/dev/null || true
	wait "$perf_pid" 2>/dev/null || true
	perf_pid=
	exec {PERF_CTL}<&- {PERF_ACK}<&-
	perf report -i "$out/perf.data" --stdio -n -t $'\t' \
		--sort comm,dso,sym >"$1" 2>"$out/perf.log" ||
		{ echo "bench: perf report failed:" >&2; cat "$out/perf.log" >&2; }
}
explain_offer() {
	perf_begin
	PROFILE=perf_ctl $EXPLAIN_VIA "$@"
}
explain_runs() {
	local r setup kind procs size name script
	mkdir -p "$EXPLAIN"
	echo "$HEADER" >"$EXPLAIN/runs.csv"
	for r in $EXPLAIN_RUNS; do
		IFS=: read -r setup kind procs size <<<"$r"
		name=$setup-x$procs ebt_pid=
		setup_enter "$setup"
		# setup_enter chose the NIC's offer: profile that one.
		EXPLAIN_VIA=$OFFER
		case $setup in
		vio_drop) script= ;;
		vio_af) script=afpacket-drops.bt ;;
		*) script=drops.bt ;;
		esac
		if [ -n "$script" ]; then
			bt_spawn "$EXPLAIN/$name.drops" "$top/userland/bpftrace/$script" 0
			ebt_pid=$bt_pid
			wait_for 120 grep -q '^Tracing' "$EXPLAIN/$name.drops" ||
				{ echo "bench: $script did not start:" >&2; cat "$EXPLAIN/$name.drops" >&2; }
		fi
		# Three times the frames: more samples of the same traffic.
		OFFER=explain_offer csv=$EXPLAIN/runs.csv FRAMES=$((FRAMES * 3)) \
			run explain "$setup" "${size:-64}" "$kind" - "$procs" default default 1
		if [ -n "$ebt_pid" ]; then
			bt_halt "$ebt_pid" "$EXPLAIN/$name.drops" ||
				echo "bench: $script printed no totals" >&2
			ebt_pid=
		fi
		perf_end "$EXPLAIN/$name.perf"
	done
	explain_tx
}

# The transmit side: one 64 B send of each of EXPLAIN_TX, three times the
# frames, perf enabled around the sender only (tx_run's PROFILE); its row
# goes to explain/tx-runs.csv, the profile to explain/tx-SETUP.perf.
EXPLAIN_TX="tx_ceiling tx_ring tx_trafgen"
explain_tx() {
	local setup
	echo "$TX_HEADER" >"$EXPLAIN/tx-runs.csv"
	for setup in $EXPLAIN_TX; do
		tx_enter "$setup"
		perf_begin
		PROFILE=perf_ctl TX_CSV=$EXPLAIN/tx-runs.csv FRAMES=$((FRAMES * 3)) \
			tx_run "$setup" 64 1
		perf_end "$EXPLAIN/tx-$setup.perf"
	done
}

# ---- the matrix --------------------------------------------------------------

GIT_REV=${RINGCAP_BENCH_REV:-unknown}
DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)
SIM_CSV=${csv%.csv}-sim.csv
TX_CSV=${csv%.csv}-tx.csv
EXPLAIN=$(dirname "$csv")/explain
echo "$HEADER" >"$csv"
echo "kernel,git_rev,date,setup,injected,captured,kernel_ticks,kernel_ns_per_frame,rep,readers,kernel_ns_per_injected" >"$SIM_CSV"
echo "$TX_HEADER" >"$TX_CSV"

# The rows the matrix below writes, to check the CSV against at the end.
wc_w() { echo $#; }
planned=0
for setup in $SETUPS; do
	case $setup in
	ringcount) planned=$((planned + $(wc_w $SIZES) + $(wc_w $PROCS) + 1)) ;;
	rc_m2|af_stock) planned=$((planned + $(wc_w $SIZES) + $(wc_w $LEVELS) +
		$(wc_w $PROC_LEVELS) * $(wc_w $PROCS) + 1)) ;;
	*) planned=$((planned + $(wc_w $SIZES) + $(wc_w $LEVELS) +
		$(wc_w $PROC_LEVELS) * $(wc_w $PROCS))) ;;
	esac
done
part e1000e && planned=$((planned + 2))
planned=$((planned + $(wc_w $VIO_SETUPS) * $(wc_w $VIO_SIZES) +
	$(wc_w $MULTI_NICS) * $(wc_w $MULTI_RUNS) +
	$(wc_w $ZC_SETUPS) * $(wc_w $ZC_SIZES)))
planned=$((planned * REPS))
# The tx part's rows go to their own CSV, checked on their own.
tx_planned=$(($(wc_w $TX_SETUPS) * $(wc_w $TX_SIZES) * REPS))

nic_find
# Nothing but the generator's frames on the wire: no IPv6 chatter.
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
vio_find
modprobe ringcap
modprobe ringcap_e1000e

if [ "$COST" = 1 ]; then
	COST_CSV=${csv%.csv}-cost.csv
	echo "$COST_HEADER" >"$COST_CSV"
	cost_planned=$(($(wc_w $COST_SETUPS) * $(wc_w $COST_SIZES) * COST_REPS))
	cost_init || { echo "bench: no cgroups rc-bench and rc-reader in /sys/fs/cgroup" >&2; exit 1; }
	echo "bench: cost, $(uname -r), $(nproc) CPU under icount, $COST_FRAMES frames at $COST_RATE/s per run, $COST_REPS repetitions, $cost_planned runs"
	# The guest sleeps through each send: no polls to count. The sleep
	# is the insn-split plugin's window (scripts/cost.sh).
	[ -x "${INSN_MARK:-}" ] && [ -f "${INSN_LOG:-}" ] ||
		{ echo "bench: the cost part needs INSN_MARK and the insn-split plugin's INSN_LOG (scripts/bench.sh)" >&2; exit 1; }
	GEN_WAIT=$(((COST_FRAMES + COST_RATE - 1) / COST_RATE + 1))
	GEN_SLEEP=cost_wait COST_WINDOW=$out/cost-window
	for ((rep = 1; rep <= COST_REPS; rep++)); do cost_runs "$rep"; done
	rows=$(($(wc -l <"$COST_CSV") - 1))
	echo "bench: done, $rows rows of $cost_planned planned in $COST_CSV"
	[ "$rows" = "$cost_planned" ] || { echo "bench: $((cost_planned - rows)) cost runs are missing" >&2; exit 1; }
	exit 0
fi
polls_start
echo "bench: $(uname -r), $(nproc) CPUs, $FRAMES frames per run, $REPS repetitions, matrix $matrix, parts$PARTS, $planned runs + $tx_planned tx runs"

for ((rep = 1; rep <= REPS; rep++)); do
	for setup in $SETUPS; do
		setup_enter "$setup"
		if [ "$setup" = ringcount ]; then
			for size in $SIZES; do run size "$setup" "$size" ringcount - 1 default default "$rep"; done
			for p in $PROCS; do run procs "$setup" 64 ringcount - "$p" default default "$rep"; done
			run wakeup "$setup" 64 ringcount - 1 n1 default "$rep"
			continue
		fi
		for size in $SIZES; do run size "$setup" "$size" tcpdump - 1 default default "$rep"; done
		for level in $LEVELS; do run level "$setup" 64 packzip "$level" 1 default default "$rep"; done
		for level in $PROC_LEVELS; do
			for p in $PROCS; do run procs "$setup" 64 packzip "$level" "$p" default default "$rep"; done
		done
		case $setup in
		rc_m2|af_stock)
			run wakeup "$setup" 64 tcpdump - 1 n1 default "$rep" ;;
		esac
	done
	# Kernel thread and application on one CPU or two: both RX threads on
	# CPU 0 (rx_cpu=0,0), the application pinned to CPU 0 or CPU 1.
	if part e1000e; then
		rmmod ringcap_e1000e
		modprobe ringcap_e1000e rx_cpu=0,0
		setup_enter rc_m2
		run placement rc_m2 64 packzip 0 1 default same "$rep"
		run placement rc_m2 64 packzip 0 1 default different "$rep"
		rmmod ringcap_e1000e
		modprobe ringcap_e1000e
	fi
	vio_runs "$rep"
	for nic in $MULTI_NICS; do multi_runs "$nic" "$rep"; done
	zc_runs "$rep"
	tx_runs "$rep"
done
! part sim || sim_bench
! part explain || explain_runs
rows=$(($(wc -l <"$csv") - 1))
tx_rows=$(($(wc -l <"$TX_CSV") - 1))
echo "bench: done, $rows rows of $planned planned in $csv, $tx_rows of $tx_planned in $TX_CSV"
[ "$rows" = "$planned" ] || { echo "bench: $((planned - rows)) runs are missing" >&2; exit 1; }
[ "$tx_rows" = "$tx_planned" ] || { echo "bench: $((tx_planned - tx_rows)) tx runs are missing" >&2; exit 1; }
