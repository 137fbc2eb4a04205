# SPDX-License-Identifier: GPL-2.0
#
# Guest instructions, counted by the guest's own clock: in a guest booted
# with `scripts/vm/run --icount --cpus 1` one virtual ns is one
# instruction executed, so the scheduler's exact run time of a task or a
# cgroup is its instruction count, and the clock's advance less the idle
# time is every instruction the CPU ran, interrupt work included. Sourced
# by scripts/bench-guest.sh, never run.
#
#   cost_init            two cgroups, rc-bench and rc-reader, and this
#                        shell (so what it starts) into rc-bench
#   cost_reader PID      PID, and the threads it starts, count as reader
#   cost_snap            one snapshot on stdout (keep it in a variable)
#   cost_wait SECONDS    the sleep through a send, inside the window of
#                        the insn-split plugin (scripts/insn-mark.c);
#                        its line goes to $COST_WINDOW
#   cost_split BEFORE AFTER FRAMES [WINDOW]
#                        what ran between two snapshots, in instructions
#                        per frame: "busy= total= rx= reader=
#                        reader_sys= reader_user= bench= other= window="
#                        (busy: all the CPU ran; total: less the bench)
#
# Where the instructions go:
#   reader  the capture processes (cgroup rc-reader, exited threads
#           included); interrupts that hit the reader are in it. Its
#           kernel and user split is the one the insn-split plugin
#           counted in the window of cost_wait (WINDOW), where the
#           readers are the only user space that runs: exact there, and
#           applied to all of the reader's time. window= says how much of
#           that time the window saw. Without WINDOW the reader's time is
#           all counted as kernel time and window=0
#   bench   the bench's own shell and the commands it runs (rc-bench)
#   other   every other task (kworkers, rcu, init), thread by thread
#   rx      the rest: the receive path. Interrupts and softirqs taken
#           in the idle loop or in a kernel thread, the per-queue RX
#           threads of ringcap_e1000e, threaded NAPI, ksoftirqd; anything
#           that ran outside a task
# The count is TCG's: a `rep movs` is one instruction, so is an MMIO.

COST_CG=/sys/fs/cgroup

cost_init() {
	mkdir -p "$COST_CG/rc-bench" "$COST_CG/rc-reader" &&
		echo $$ >"$COST_CG/rc-bench/cgroup.procs"
}

cost_reader() { echo "$1" >"$COST_CG/rc-reader/cgroup.procs"; }

# INSN_MARK and INSN_LOG: scripts/bench.sh builds the one and has QEMU
# run the plugin that writes the other.
cost_wait() {
	"$INSN_MARK" "$INSN_LOG" "$COST_CG/rc-reader/cpu.stat" "$1" >"$COST_WINDOW"
}

# cost_snap: "now NS", "idle NS", "cg CG USAGE" (µs), then
# "task TID NS COMM" for each thread outside the two cgroups.
cost_snap() {
	local t cg rt _ st
	awk '/^now at/ { print "now", $3 }
		# "  .idle_sleeptime : N nsecs", "  .iowait_sleeptime: N nsecs"
		$1 ~ /^\.(idle|iowait)_sleeptime/ { s += $(NF - 1) }
		END { printf "idle %.0f\n", s }' /proc/timer_list
	for cg in rc-reader rc-bench; do
		awk -v cg="$cg" '$1 == "usage_usec" { print "cg", cg, $2 }' \
			"$COST_CG/$cg/cpu.stat"
	done
	# Builtins only (a thread may end between the glob and the read).
	for t in /proc/[0-9]*/task/[0-9]*; do
		{ read -r cg <"$t/cgroup" && read -r rt _ <"$t/schedstat" &&
			read -r st <"$t/stat"; } 2>/dev/null || continue
		[[ $cg == *"/rc-"* ]] || echo "${t##*/} $rt $st"
	done | awk '{
		# stat: "TID (COMM) STATE ...": COMM may hold spaces and ")".
		i = index($0, "("); j = 0
		for (k = length($0); k > i; k--)
			if (substr($0, k, 1) == ")") { j = k; break }
		comm = substr($0, i + 1, j - i - 1); gsub(/ /, "_", comm)
		print "task", $1, $2, comm
	}'
}

# cost_split BEFORE AFTER FRAMES [WINDOW]
cost_split() {
	awk -v frames="$3" -v window="${4:-}" '
	BEGIN {
		n = split(window, w, /[ =]/)
		for (i = 1; i < n; i += 2) win[w[i]] = w[i + 1]
	}
	FNR == NR {
		if ($1 == "now") n0 = $2; else if ($1 == "idle") i0 = $2
		else if ($1 == "cg") u0[$2] = $3
		else r0[$2] = $3
		next
	}
	$1 == "now" { n1 = $2; next }
	$1 == "idle" { i1 = $2; next }
	$1 == "cg" { u[$2] = 1000 * ($3 - u0[$2]); next }
	{
		d = $3 - r0[$2]		# a thread born meanwhile: all of it
		# ringcap_e1000e names its RX threads DEV-rxN (driver/rxthread.c).
		if (d > 0 && $4 !~ /^(napi\/|ksoftirqd\/|irq\/)|-rx[0-9]+$/)
			other += d
	}
	END {
		busy = (n1 - n0) - (i1 - i0)
		reader = u["rc-reader"]; bench = u["rc-bench"]
		rx = busy - reader - bench - other
		# The user share of the reader, as counted in the window.
		wr = win["window_reader_ns"] + 0
		share = wr > 0 ? win["window_user"] / wr : 0
		if (share > 1) share = 1
		user = reader * share
		f = frames > 0 ? frames : 1
		printf "busy=%.0f total=%.0f rx=%.0f reader=%.0f reader_sys=%.0f reader_user=%.0f bench=%.0f other=%.0f window=%.2f\n",
			busy / f, (busy - bench) / f, rx / f, reader / f,
			(reader - user) / f, user / f, bench / f, other / f,
			(reader > 0 ? wr / reader : 0)
	}' <(echo "$1") <(echo "$2")
}
