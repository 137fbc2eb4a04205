# SPDX-License-Identifier: GPL-2.0
#
# One measured run and its CSV row, and the loops of runs over a
# figure's set-ups; sourced by scripts/bench-guest.sh, never run. In the
# cost part's guest (COST=1) a run's row goes to OUT-cost.csv instead,
# in guest instructions per frame (scripts/cost.sh). Expects the
# matrix's lists and the state of config.sh, $csv (the caller's),
# GIT_REV, DATE, COST_CSV and COST_WINDOW (matrix.sh), and the functions
# of measure.sh, apps.sh, setups.sh and scripts/cost.sh.
#
#   run FIGURE SETUP SIZE KIND LEVEL PROCS WAKE PLACEMENT REP
#                        one run, one row
#   reader_of SETUP      sets KIND and PROCS: the readers of a set-up
#   reader_runs FIGURE SETUPS SIZES REP, multi_runs NIC REP,
#   cost_runs REP
#                        a figure's runs of one repetition
#   HEADER, COST_HEADER  the header lines of the two CSVs

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
	ringcount|rc_pcap|rc_pcapng|rc_cutoff|vio_m0|vio_xdp|vio_redir|vio_m1|veth_xdp) KIND=ringcount ;;
	vio_drop|veth_drop) KIND=xdpdrop ;;
	vio_pass) KIND=xdppass ;;
	vio_xdpdump) KIND=xdpdump ;;
	vio_afxdp|veth_afxdp) KIND=testpmd ;;
	zc_zc|zc_zc256|zc_zc4k|zc_copy) KIND=ringcount_q PROCS=$ZC_QUEUES ;;
	zc_af) KIND=netsniff ;;
	# The multi part's three readers, for the cost part.
	vio_cluster) KIND=tcpdump PROCS=3 ;;
	vio_rccl) KIND=ringcount PROCS=3 ;;
	vio_fanout) KIND=netsniff PROCS=3 ;;
	*) KIND=tcpdump ;;
	esac
}

# reader_runs FIGURE "SETUPS" "SIZES" REP: each set-up's readers
# (reader_of) at each frame size: the figures virtio (one reader on the
# virtio-net NIC), veth (one on the veth pair) and zerocopy (one
# ringcount per RX queue of the 82574L, zc_af one netsniff-ng on all)
reader_runs() {
	local setup size
	for setup in $2; do
		setup_enter "$setup"
		reader_of "$setup"
		for size in $3; do
			run "$1" "$setup" "$size" "$KIND" - "$PROCS" default default "$4"
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

# ---- cost: instructions per frame ---------------------------------------------

COST_HEADER="kernel,git_rev,date,setup,size,app,procs,rep,offered,offer_pps,nic_rx,captured_sum,ring_drops,busy,total,rx,reader,reader_sys,reader_user,bench,other,window,window_user,path,disk_bytes"

# cost_row SETUP SIZE KIND PROCS REP CAPTURED DROPS PATH SNAP0 SNAP1: one
# row of OUT-cost.csv, per frame the NIC received (what was offered, if
# the NIC does not count what XDP took)
cost_row() {
	local n=${NIC_RX:-0} split disk= f
	[ "$n" -gt 0 ] || n=$OFFERED
	# What a set-up that writes a capture file wrote, compressed or not.
	for f in "$out"/capture.*; do
		[ -e "$f" ] || continue
		disk=$(stat -c %s "$f")
		rm -f "$f"
	done
	split=$(cost_split "$9" "${10}" "$n" "$(cat "$COST_WINDOW")")
	local f=(
		"$(uname -r)" "$GIT_REV" "$DATE" "$1" "$2" "$3" "$4" "$5" "$OFFERED"
		"$OFFER_PPS" "$NIC_RX" "$6" "$7"
		$(for k in busy total rx reader reader_sys reader_user bench other window; do
			kv "$k" " $split"; done)
		"$(kv window_user " $(cat "$COST_WINDOW")")"
		"$8" "$disk"
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
