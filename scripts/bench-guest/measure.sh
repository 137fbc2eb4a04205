# SPDX-License-Identifier: GPL-2.0
#
# What the bench guest measures around a run besides the NIC's own
# counters; sourced by scripts/bench-guest.sh, never run. Expects $out
# and $bt (scripts/bench-guest/config.sh) and wait_for
# (selftests/lib.sh).
#
#   polls_start          bpftrace counting poll-family syscalls per
#                        process, in the background ($bt)
#   polls_of PID...      their poll-family syscalls so far
#   cpu_snap             each CPU's user, system and softirq time
#   cpu_split BEFORE AFTER
#                        between two snapshots, in percent of each CPU
#   has_capture_socket PID
#                        PID holds a bound AF_PACKET or ringcap socket

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
