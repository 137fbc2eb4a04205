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
# frames, and each CPU's user/sys/softirq split. Then the sim-device
# micro-benchmark: the capture path without NIC emulation.
#
#   scripts/bench-guest.sh full|quick OUT.csv
#
#   RINGCAP_BENCH_FRAMES, RINGCAP_BENCH_REPS   override the matrix's
#
# Set-ups: af_stock (the stock e1000e, the system libpcap: AF_PACKET,
# TPACKET_V3), af_rce0 (ringcap_e1000e in mode 0, the system libpcap),
# rc_m0/rc_m1/rc_m2 (ringcap_e1000e in transparent mode 0/1/2 with
# libpcap-ring), ringcount (mode 2, ringcap's own reader).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$top/scripts/guest-nic.sh"

matrix=${1:?full or quick}
csv=${2:?output CSV}
RUN=$top/libpcap-ring/ringcap-run
PACKZIP=$top/userland/build/bin/packzip
RINGCOUNT=$top/userland/build/bin/ringcount
INJECT=$top/selftests/build/bin/rc_inject
SIM_KO=$top/selftests/build/$(uname -r)/ringcap_sim.ko
PARAMS=/sys/module/ringcap/parameters
BUF_KIB=8192			# every reader gets 8 MiB of buffer or ring
FLOWS=64

case $matrix in
full)
	FRAMES=100000 REPS=3
	SETUPS="af_stock af_rce0 rc_m0 rc_m1 rc_m2 ringcount"
	SIZES="64 256 512 1500" LEVELS="0 1 3 6 9" PROCS="2 3" PROC_LEVELS="0 9"
	SIM_FRAMES=200000 ;;
quick)
	FRAMES=30000 REPS=1
	SETUPS="af_stock rc_m0 rc_m2 ringcount"
	SIZES="64 1500" LEVELS="0 9" PROCS="3" PROC_LEVELS="0"
	SIM_FRAMES=50000 ;;
*)
	echo "bench: matrix full or quick, not '$matrix'" >&2
	exit 2 ;;
esac
FRAMES=${RINGCAP_BENCH_FRAMES:-$FRAMES}
REPS=${RINGCAP_BENCH_REPS:-$REPS}

out=$(mktemp -d)
apps=()
bt=
cleanup() {
	local p
	for p in "${apps[@]+"${apps[@]}"}" $bt; do kill "$p" 2>/dev/null || true; done
	rm -rf "$out"
}
trap cleanup EXIT

for f in "$PACKZIP" "$RINGCOUNT" "$INJECT"; do
	[ -x "$f" ] || { echo "bench: $f missing (make, make -C selftests)" >&2; exit 1; }
done
[ -f "$top/libpcap-ring/build/lib/libpcap.so.0.8" ] ||
	{ echo "bench: no drop-in libpcap (make -C libpcap-ring)" >&2; exit 1; }

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
# KIND tcpdump|packzip|ringcount; LIB system|ring; WAKE default|n1;
# CPU a CPU to pin it to, or "-".
app_start() {
	local i=$1 kind=$2 level=$3 lib=$4 wake=$5 cpu=$6 pre=() cmd=()
	[ "$cpu" = - ] || pre+=(taskset -c "$cpu")
	[ "$lib" = system ] || [ "$kind" = ringcount ] || pre+=("$RUN")
	case $kind in
	tcpdump)
		cmd=(tcpdump -i "$dev" -Q in -n -p -w /dev/null -B "$BUF_KIB" -Z root)
		[ "$wake" = default ] || cmd+=(--immediate-mode) ;;
	packzip)
		cmd=("$PACKZIP" -i "$dev" -z "$level" -B "$BUF_KIB")
		[ "$wake" = default ] || cmd+=(--immediate) ;;
	ringcount)
		cmd=("$RINGCOUNT" -q -i "$dev" -r $((BUF_KIB * 1024)))
		[ "$wake" = default ] || cmd+=(-w 1) ;;
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
	ringcount)
		s=$(grep '^ringcount:' "$out/app$i" | tail -n 1)
		CAP=$(kv captured "$s") DROP=$(kv dropped "$s") ;;
	esac
	if [ -z "$CAP" ]; then
		echo "bench: process $i ($kind) gave no summary:" >&2
		sed 's/^/  /' "$out/app$i" >&2
		CAP=0 DROP=0
	fi
}

# ---- set-ups ---------------------------------------------------------------

SETUP_LIB= SETUP_KIND=
setup_enter() {
	case $1 in
	af_stock)
		nic_bind e1000e; SETUP_LIB=system ;;
	af_rce0)
		nic_bind ringcap_e1000e; echo 0 >"$PARAMS/transparent_mode"; SETUP_LIB=system ;;
	rc_m[012])
		nic_bind ringcap_e1000e; echo "${1#rc_m}" >"$PARAMS/transparent_mode"; SETUP_LIB=ring ;;
	ringcount)
		nic_bind ringcap_e1000e; echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring ;;
	esac
}

# ---- one measured run -------------------------------------------------------

HEADER="kernel,git_rev,date,figure,setup,size,app,level,procs,wakeup,placement,rep,offered,offer_pps,wire_drops,nic_rx,nic_missed,captured_min,captured_sum,captured_per_proc,ring_drops,filter_drops,wakeups,polls,wakeups_per_1k,polls_per_1k,cpu0_user,cpu0_sys,cpu0_softirq,cpu1_user,cpu1_sys,cpu1_softirq,share"

# run FIGURE SETUP SIZE KIND LEVEL PROCS WAKE PLACEMENT REP
run() {
	local fig=$1 setup=$2 size=$3 kind=$4 level=$5 procs=$6 wake=$7 place=$8 rep=$9
	local i cpu=- c0 c1 caps=() capmin= capsum=0 dropsum=0 wk=0 pl w pids=()
	case $place in same) cpu=0 ;; different) cpu=1 ;; esac
	for ((i = 0; i < procs; i++)); do
		app_start "$i" "$kind" "$level" "$SETUP_LIB" "$wake" "$cpu"
		pids+=("${apps[i]}")
	done
	for ((i = 0; i < procs; i++)); do
		wait_for 30 has_capture_socket "${apps[i]}" ||
			{ echo "bench: process $i ($kind) did not start:" >&2; cat "$out/app$i" >&2; }
	done
	sleep 0.5	# the socket is there; let the ring or TPACKET set-up finish
	c0=$(cpu_snap)
	nic_offer "$FRAMES" "$size" 0 "$FLOWS"
	c1=$(cpu_snap)
	# Wake-ups of the ringcap sockets, read while they are still open.
	for ((i = 0; i < procs; i++)); do
		w=$(awk -v p="${apps[i]}" '$1 == p { s += $9 } END { print s + 0 }' /proc/net/ringcap)
		wk=$((wk + w))
	done
	for ((i = 0; i < procs; i++)); do
		app_stop "$i" "$kind"
		caps+=("$CAP")
		capsum=$((capsum + CAP)) dropsum=$((dropsum + ${DROP:-0}))
		[ -n "$capmin" ] && [ "$capmin" -le "$CAP" ] || capmin=$CAP
	done
	apps=()
	pl=$(polls_of "${pids[@]}")
	local f=(
		"$(uname -r)" "$GIT_REV" "$DATE" "$fig" "$setup" "$size" "$kind" "$level"
		"$procs" "$wake" "$place" "$rep" "$OFFERED" "$OFFER_PPS" "$WIRE" "$NIC_RX"
		"$MISSED" "$capmin" "$capsum" "$(IFS=';'; echo "${caps[*]}")" "$dropsum" 0 "$wk" "$pl"
		"$(awk -v a="$wk" -v c="$capsum" 'BEGIN { printf "%.1f", c ? 1000 * a / c : 0 }')"
		"$(awk -v a="$pl" -v c="$capsum" 'BEGIN { printf "%.1f", c ? 1000 * a / c : 0 }')"
		$(cpu_split "$c0" "$c1")
		"$(awk -v c="$capsum" -v n="$procs" -v o="$OFFERED" 'BEGIN { printf "%.4f", o ? c / n / o : 0 }')"
	)
	(IFS=,; echo "${f[*]}") >>"$csv"
	printf 'bench: %-9s %-8s %4sB %-9s L%s x%s %-7s %-9s rep %s: offered %s, NIC %s, captured %s (%s per process), ring drops %s, wake-ups %s, polls %s\n' \
		"$fig" "$setup" "$size" "$kind" "$level" "$procs" "$wake" "$place" "$rep" \
		"$OFFERED" "$NIC_RX" "$capsum" "$(IFS=/; echo "${caps[*]}")" "$dropsum" "$wk" "$pl"
}

# ---- the sim micro-benchmark -----------------------------------------------

# Frames injected into ringcap_sim as fast as it takes them, one reader:
# AF_PACKET (tcpdump with the system libpcap) against ringcount in modes 0
# and 2; kernel time (system + softirq, all CPUs) per captured frame.
sim_bench() {
	local rep setup c0 c1 k pid cap ns batch=10000 n
	ip link add rcbench0 type ringcap_sim 2>/dev/null ||
		{ insmod "$SIM_KO" && ip link add rcbench0 type ringcap_sim; }
	ip link set rcbench0 up
	for ((rep = 1; rep <= REPS; rep++)); do
		for setup in sim_af sim_m0 sim_m2; do
			case $setup in
			sim_af) echo 0 >"$PARAMS/transparent_mode"
				tcpdump -i rcbench0 -n -p -w /dev/null -B "$BUF_KIB" -Z root >"$out/sim" 2>&1 & ;;
			sim_m0) echo 0 >"$PARAMS/transparent_mode"
				"$RINGCOUNT" -q -i rcbench0 -r $((BUF_KIB * 1024)) >"$out/sim" 2>&1 & ;;
			sim_m2) echo 2 >"$PARAMS/transparent_mode"
				"$RINGCOUNT" -q -i rcbench0 -r $((BUF_KIB * 1024)) >"$out/sim" 2>&1 & ;;
			esac
			pid=$!
			wait_for 30 has_capture_socket "$pid" ||
				{ echo "bench: sim reader did not start:" >&2; cat "$out/sim" >&2; }
			sleep 0.5
			c0=$(cpu_snap)
			for ((n = 0; n < SIM_FRAMES; n += batch)); do
				"$INJECT" -d rcbench0 -n "$batch" -s "$n" -q mixed -l 60
			done
			sleep 1
			c1=$(cpu_snap)
			kill -INT "$pid"
			wait "$pid" || true
			if [ "$setup" = sim_af ]; then
				cap=$(sed -n 's/^\([0-9]*\) packets\{0,1\} captured.*/\1/p' "$out/sim")
			else
				cap=$(kv captured "$(grep '^ringcount:' "$out/sim" | tail -n 1)")
			fi
			k=$(join <(echo "$c0") <(echo "$c1") | awk '{ s += ($7 - $3) + ($8 - $4) } END { print s }')
			ns=$(awk -v k="$k" -v c="${cap:-0}" -v hz="$(getconf CLK_TCK)" \
				'BEGIN { printf "%.0f", c ? k * 1e9 / hz / c : 0 }')
			echo "$(uname -r),$GIT_REV,$DATE,$setup,$SIM_FRAMES,${cap:-0},$k,$ns,$rep" >>"$SIM_CSV"
			echo "bench: sim $setup rep $rep: injected $SIM_FRAMES, captured ${cap:-0}, kernel time per captured frame ${ns} ns"
		done
	done
	echo 0 >"$PARAMS/transparent_mode"
	ip link del rcbench0
}

# ---- the matrix --------------------------------------------------------------

GIT_REV=${RINGCAP_BENCH_REV:-unknown}
DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)
SIM_CSV=${csv%.csv}-sim.csv
echo "$HEADER" >"$csv"
echo "kernel,git_rev,date,setup,injected,captured,kernel_ticks,kernel_ns_per_frame,rep" >"$SIM_CSV"

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
planned=$(((planned + 2) * REPS))

nic_find
# Nothing but the generator's frames on the wire: no IPv6 chatter.
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
modprobe ringcap
modprobe ringcap_e1000e
polls_start
echo "bench: $(uname -r), $(nproc) CPUs, $FRAMES frames per run, $REPS repetitions, matrix $matrix, $planned runs"

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
	rmmod ringcap_e1000e
	modprobe ringcap_e1000e rx_cpu=0,0
	setup_enter rc_m2
	run placement rc_m2 64 packzip 0 1 default same "$rep"
	run placement rc_m2 64 packzip 0 1 default different "$rep"
	rmmod ringcap_e1000e
	modprobe ringcap_e1000e
done
sim_bench
rows=$(($(wc -l <"$csv") - 1))
echo "bench: done, $rows rows of $planned planned in $csv"
[ "$rows" = "$planned" ] || { echo "bench: $((planned - rows)) runs are missing" >&2; exit 1; }
