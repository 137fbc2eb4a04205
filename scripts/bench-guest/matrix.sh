# SPDX-License-Identifier: GPL-2.0
#
# Running the matrix; sourced last by scripts/bench-guest.sh, never run.
# The output CSVs and their header lines, the rows the chosen parts must
# write, the NICs found and the modules loaded, then either the cost
# part alone (an --icount guest) or every other part, REPS times, the
# set-ups interleaved in each repetition; last, the CSVs checked against
# the plan. Expects $csv and all that the other parts define.

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
	$(wc_w $VETH_SETUPS) * $(wc_w $VETH_SIZES) +
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
! part veth || veth_find
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
	reader_runs virtio "$VIO_SETUPS" "$VIO_SIZES" "$rep"
	reader_runs veth "$VETH_SETUPS" "$VETH_SIZES" "$rep"
	for nic in $MULTI_NICS; do multi_runs "$nic" "$rep"; done
	reader_runs zerocopy "$ZC_SETUPS" "$ZC_SIZES" "$rep"
	tx_runs "$rep"
done
! part sim || sim_bench
! part explain || explain_runs
rows=$(($(wc -l <"$csv") - 1))
tx_rows=$(($(wc -l <"$TX_CSV") - 1))
echo "bench: done, $rows rows of $planned planned in $csv, $tx_rows of $tx_planned in $TX_CSV"
[ "$rows" = "$planned" ] || { echo "bench: $((planned - rows)) runs are missing" >&2; exit 1; }
[ "$tx_rows" = "$tx_planned" ] || { echo "bench: $((tx_planned - tx_rows)) tx runs are missing" >&2; exit 1; }
