# SPDX-License-Identifier: GPL-2.0
#
# The sim micro-benchmark: the capture path on ringcap_sim, without NIC
# emulation, rows in $SIM_CSV; sourced by scripts/bench-guest.sh, never
# run. Expects SIM_KO, INJECT, RINGCOUNT, PARAMS, BUF_KIB, REPS,
# SIM_FRAMES and $out (config.sh), GIT_REV, DATE and SIM_CSV
# (matrix.sh), cpu_snap and has_capture_socket (measure.sh), and
# selftests/lib.sh's wait_for and kv.
#
#   sim_bench            every run of SIM_RUNS, REPS times

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
