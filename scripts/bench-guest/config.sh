# SPDX-License-Identifier: GPL-2.0
#
# What the bench guest runs; sourced by scripts/bench-guest.sh, never
# run. The programs it drives, the full and quick matrices (set-ups,
# sizes, levels, repetitions), the parts RINGCAP_BENCH_PARTS picks
# (`part NAME` tests one; a part left out empties its list), whether
# this is the --icount guest of the cost part (COST=1), the state every
# part shares (the scratch directory $out, the pids cleanup() stops on
# exit), and the checks that each chosen part has its tools. The caller
# sets $top, $matrix and $csv first and has sourced scripts/guest-nic.sh.

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
	VIO_SIZES="64 1500" VETH_SIZES="64 1500" MULTI_NICS="vio e1k" ZC_SIZES="64 512 1500"
	TX_SIZES="64 1500" SIM_FRAMES=200000 COST_SIZES="64 1500" ;;
quick)
	FRAMES=30000 REPS=1
	SETUPS="af_stock rc_m0 rc_m2 ringcount"
	SIZES="64 1500" LEVELS="0 9" PROCS="3" PROC_LEVELS="0"
	VIO_SIZES="64" VETH_SIZES="64" MULTI_NICS="vio" ZC_SIZES="64 1500"
	TX_SIZES="64" SIM_FRAMES=50000 COST_SIZES="64" ;;
*)
	echo "bench: matrix full or quick, not '$matrix'" >&2
	exit 2 ;;
esac
VIO_SETUPS="vio_af vio_m0 vio_xdp vio_redir vio_rc_m2 vio_xdpdump vio_afxdp vio_drop"
# A veth pair inside the guest, no NIC model: the XDP path, AF_XDP,
# AF_PACKET and XDP_DROP on veth, the sender on VETH_CPU (setups.sh).
VETH_SETUPS="veth_af veth_xdp veth_afxdp veth_drop" VETH_CPU=0
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
COST_SETUPS="af_stock rc_m0 rc_m1 rc_m2 ringcount rc_pcap rc_pcapng rc_cutoff vio_af vio_m0 vio_xdp vio_redir vio_m1 vio_pass vio_rc_m2 vio_xdpdump vio_drop vio_cluster vio_rccl vio_fanout zc_zc zc_zc256 zc_zc4k zc_copy zc_af"
COST_FRAMES=20000 COST_RATE=5000 COST_REPS=5
COST_SETUPS=${RINGCAP_BENCH_COST_SETUPS:-$COST_SETUPS}
COST_FRAMES=${RINGCAP_BENCH_COST_FRAMES:-$COST_FRAMES}
COST_RATE=${RINGCAP_BENCH_COST_RATE:-$COST_RATE}
COST_SIZES=${RINGCAP_BENCH_COST_SIZES:-$COST_SIZES}
FRAMES=${RINGCAP_BENCH_FRAMES:-$FRAMES}
REPS=${RINGCAP_BENCH_REPS:-$REPS}
PARTS=" ${RINGCAP_BENCH_PARTS:-e1000e virtio veth multi zerocopy tx sim$([ "$matrix" = quick ] || echo " explain")} "
part() { [[ $PARTS == *" $1 "* ]]; }
part e1000e || SETUPS=
part virtio || VIO_SETUPS=
part veth || VETH_SETUPS=
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
if part tx || part explain || part veth; then
	grep -q -- --tx-ring <("$RCGEN" --help 2>&1) ||
		{ echo "bench: the tx, explain and veth parts need $RCGEN with --tx-ring (make -C userland)" >&2; exit 1; }
fi
if part tx || part explain; then
	[ -x "$SENDMMSG" ] ||
		{ echo "bench: the tx and explain parts need $SENDMMSG (scripts/bench.sh builds it)" >&2; exit 1; }
	command -v trafgen >/dev/null ||
		{ echo "bench: the tx and explain parts need trafgen (netsniff-ng, scripts/deps.sh)" >&2; exit 1; }
	modprobe -n pktgen 2>/dev/null ||
		{ echo "bench: the tx and explain parts need the kernel's pktgen module" >&2; exit 1; }
fi
