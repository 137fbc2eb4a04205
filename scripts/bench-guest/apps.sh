# SPDX-License-Identifier: GPL-2.0
#
# The capture processes of a run; sourced by scripts/bench-guest.sh,
# never run. Expects $dev (scripts/guest-nic.sh's nic_bind or vio_enter),
# the set-up's APP_ENV, RC_ARGS and NS_ARGS (setups.sh), the programs,
# BUF_KIB, $out and the apps array (config.sh), NIC_RX and XDP_DROPS from
# the last offer, xdp_attached (setups.sh), has_capture_socket
# (measure.sh) and kv (selftests/lib.sh).
#
#   app_start I KIND LEVEL LIB WAKE CPU
#                        start capture process I, its pid in apps[I]
#   app_ready I KIND     process I is capturing
#   app_stop I KIND      stop it; sets CAP and DROP, its own counts
#   path_of PID          the capture path of PID's ringcap socket

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
		[ "$wake" = default ] || cmd+=(-W 1) ;;
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
		# AF_XDP (DPDK's PMD, copy mode on virtio_net and veth): rx-only, one
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
path_of() { awk -v p="$1" '$1 == p { print $14; f = 1; exit } END { if (!f) print "-" }' /proc/net/ringcap; }
