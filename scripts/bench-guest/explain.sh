# SPDX-License-Identifier: GPL-2.0
#
# Where the time goes: profiled runs outside the matrix, their output in
# $EXPLAIN for scripts/bench_explain.py; sourced by
# scripts/bench-guest.sh, never run. Expects $top, FRAMES, $out and the
# pids cleanup() stops, perf_pid and ebt_pid (config.sh), EXPLAIN
# (matrix.sh), setup_enter and its OFFER (setups.sh), run and HEADER
# (run.sh), tx_enter, tx_run and TX_HEADER (tx.sh), and
# selftests/lib.sh's wait_for, bt_spawn and bt_halt.
#
#   explain_runs         the profiled receive runs, then explain_tx
#   explain_tx           the profiled sends

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
