# SPDX-License-Identifier: GPL-2.0
#
# The transmit figure: sends from the guest out of the 82574L, the host
# counting what arrives, one row of $TX_CSV per run (the columns are
# described below); sourced by scripts/bench-guest.sh, never run.
# Expects RCGEN, SENDMMSG, PARAMS, FLOWS, FRAMES, TX_SETUPS, TX_SIZES and
# $out (config.sh), GIT_REV, DATE and TX_CSV (matrix.sh), cpu_snap and
# cpu_split (measure.sh), and scripts/guest-nic.sh sourced (nic_bind,
# $dev, $pci, RC_HOST, nic_sys, nic_stat; selftests/lib.sh's wait_for,
# steady, kv).
#
#   tx_enter SETUP       the 82574L's driver for SETUP
#   tx_run SETUP SIZE REP
#                        one measured send, one row
#   tx_runs REP          every transmit set-up at each frame size
#   TX_HEADER            the header line of $TX_CSV

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
