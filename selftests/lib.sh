# SPDX-License-Identifier: GPL-2.0
#
# Helpers the shell selftests (and the demo and benchmark guests, through
# scripts/guest-nic.sh) share; sourced, never run. TAP result lines (the
# caller sets n=0 failed=0 skipped=0 first, and PLAN for skip_all) and
# test cases (tcase), polling against a deadline, loading ringcap the
# way run_guest.sh asked (RC_RINGCAP_KO or DKMS), and reading what the
# kernel reports.

ok() { n=$((n + 1)); echo "ok $n $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $*"; }
# check DESC CMD...: one result from CMD's exit status
check() {
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
# result RC NAME [MSG]: one TAP line; RC 0 ok, 4 skip, anything else not ok
result() {
	n=$((n + 1))
	case $1 in
	0) echo "ok $n $2${3:+ ($3)}" ;;
	4) skipped=$((skipped + 1)); echo "ok $n $2 # SKIP ${3:-skipped}" ;;
	*) failed=$((failed + 1)); echo "not ok $n $2 # ${3:-failed}" ;;
	esac
}
# tcase NAME CMD...: one result from CMD, which may say why in $msg; its
# status is the verdict (as result's) and is left in tc_rc. Once the
# caller set $broken (what it can no longer trust) every later case fails
# as "not run". With TCASE_ONLY set, a case whose CMD is in neither it nor
# TCASE_ALWAYS is skipped, naming TCASE_ONLY_VAR (the caller's variable).
# Prints the time the case took, and since $t_start when that is set.
tcase() {
	local name=$1 t0=$SECONDS
	shift
	msg= tc_rc=0
	if [ -n "${broken:-}" ]; then
		tc_rc=1
		result 1 "$name" "not run: $broken"
		return 0
	fi
	if [ -n "${TCASE_ONLY:-}" ] &&
		[[ " $TCASE_ONLY ${TCASE_ALWAYS:-} " != *" $1 "* ]]; then
		tc_rc=4
		result 4 "$name" "not in ${TCASE_ONLY_VAR:-TCASE_ONLY}"
		return 0
	fi
	"$@" || tc_rc=$?
	result "$tc_rc" "$name" "$msg"
	echo "# $((SECONDS - t0)) s${t_start:+, $((SECONDS - t_start)) s in total}"
}
# skip_all NAME WHY: report all $PLAN tests as skipped and exit 4, or as
# failed and exit 1 when the caller requires them to run (RC_REQUIRE=1)
skip_all() {
	local i
	echo "# SKIP $2"
	for ((i = 1; i <= PLAN; i++)); do
		if [ "${RC_REQUIRE:-0}" = 1 ]; then
			echo "not ok $i $1 # $2"
		else
			echo "ok $i $1 # SKIP $2"
		fi
	done
	[ "${RC_REQUIRE:-0}" = 1 ] && exit 1
	exit 4
}
# The kernel's reports: what the runners and the scripts look for.
KLOG_REPORTS='BUG:|WARNING:|Oops|general protection|KASAN|UBSAN|kmemleak: [1-9]|possible circular locking|INFO: task .* blocked|Call Trace'
# klog_lines: how many lines the kernel log has now (a start for
# klog_clean); fails if it cannot be read.
klog_lines() {
	local log
	log=$(dmesg) || return 1
	awk 'END { print NR }' <<<"$log"
}
# klog_clean [START]: 0 if the kernel log, after its first START lines,
# holds no report. 1 if it does, the first 20 in $klog_bad; also 1 if
# the log cannot be read, which must not look clean (`! dmesg | grep -q`
# passes when dmesg dies, and under pipefail even when grep finds one:
# grep -q exits at the first match and dmesg dies of SIGPIPE).
klog_clean() {
	local log
	if ! log=$(dmesg 2>&1) || [ -z "$log" ]; then
		klog_bad="cannot read the kernel log: ${log:-empty}"
		return 1
	fi
	klog_bad=$(awk -v s="${1:-0}" -v re="$KLOG_REPORTS" \
		'NR > s && $0 ~ re { print; if (++n == 20) exit }' <<<"$log")
	[ -z "$klog_bad" ]
}
# no_sockets_left: 0 if /proc/net/ringcap lists no socket; 1 if it does
# or cannot be read (an unloaded module has no sockets, and no file).
no_sockets_left() {
	awk 'NR > 2 { n++ } END { exit !(NR >= 2 && n == 0) }' /proc/net/ringcap
}
# show FILE...: the files as TAP comments
show() { sed 's/^/# /' "$@" || true; }

now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }
# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds; by the
# clock, since under emulation each try itself takes a while
# The stack's input drops so far, summed over CPUs (softnet_stat's second
# column): a frame a full backlog (netdev_max_backlog) turned away.
softnet_dropped() {
	local _ d s=0
	while read -r _ d _; do s=$((s + 16#$d)); done </proc/net/softnet_stat
	echo "$s"
}
wait_for() {
	local end=$(($(now_ms) + $1 * 1000))
	shift
	while :; do
		"$@" 2>/dev/null && return 0
		[ "$(now_ms)" -lt "$end" ] || return 1
		sleep 0.1
	done
}
# steady SECONDS CMD...: wait until CMD prints the same twice SECONDS
# apart (a sender is done and the queues are drained); 1 if it never does
# within 60 tries
steady() {
	local a b i every=$1
	shift
	a=$("$@")
	for ((i = 0; i < 60; i++)); do
		sleep "$every"
		b=$("$@")
		[ "$a" = "$b" ] && return 0
		a=$b
	done
	return 1
}

loaded() { [ -d "/sys/module/$1" ]; }
# rmmod_wait MOD [SECONDS]: unload MOD, retrying for up to SECONDS (20):
# a closed socket drops its module reference only after an RCU grace
# period, so the last close is not the last reference at once. 0 once
# MOD is gone (or was never there).
rmmod_wait() { wait_for "${2:-20}" rmmod_gone "$1"; }
rmmod_gone() { rmmod "$1" 2>/dev/null || ! loaded "$1"; }
load_ringcap() {
	if [ -n "${RC_RINGCAP_KO:-}" ]; then
		insmod "$RC_RINGCAP_KO" "$@"
	else
		modprobe ringcap "$@"
	fi
}

# kv KEY TEXT: the value of the last KEY=VALUE in TEXT (a tool's summary),
# KEY after a space or a colon. In bash alone: on the debug kernel under
# TCG each program started costs a second or two.
kv() {
	local re=".*[ :]$1=([^ ]*)" line v=
	while IFS= read -r line; do
		[[ $line =~ $re ]] && v=${BASH_REMATCH[1]}
	done <<<"$2"
	[ -z "$v" ] || echo "$v"
}
# Background ringcounts by ID, which the caller starts: pids in RCPID,
# output files in RCOUT, summary lines in RCSUM (associative arrays the
# caller declares). rc_stop ID stops one and keeps its summary line;
# rc_val ID KEY reads a value from it.
rc_stop() {
	local pid=${RCPID[$1]:-}
	[ -n "$pid" ] || return 0
	kill -INT "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	RCPID[$1]=
	RCSUM[$1]=$(grep '^ringcount:' "${RCOUT[$1]}" | tail -n 1 || true)
	[ -n "${RCSUM[$1]}" ] || RCSUM[$1]="ringcount: (no summary: $(tail -n 1 "${RCOUT[$1]}"))"
}
rc_val() { kv "$2" "${RCSUM[$1]}"; }
# The socket line of PID in /proc/net/ringcap (empty if it has none), and
# a column of it: 2 inode, 4 queue, 6 received, 7 dropped, 8 filtered,
# 9 wakeups, 11 filter, 12 cluster, 13 policy, 14 path (proc_path).
# (In bash alone, as kv: tests poll them every 0.1 s.)
proc_line() {
	local line f
	while IFS= read -r line; do
		read -r f _ <<<"$line"
		[ "$f" != "$1" ] || echo "$line"
	done </proc/net/ringcap
}
proc_field() {
	local f
	read -r -a f <<<"$(proc_line "$1")"
	echo "${f[$2 - 1]:-}"
}
proc_path() { proc_field "$1" 14; }
# The init-netns interface with this MAC.
iface_by_mac() {
	local f a
	for f in /sys/class/net/*/address; do
		read -r a <"$f" || continue
		[ "$a" = "$1" ] || continue
		f=${f%/address}
		echo "${f##*/}"
		return 0
	done
	return 1
}
# The pid of the (kernel) thread named exactly NAME.
kthread_pid() {
	local f c
	for f in /proc/[0-9]*/comm; do
		{ read -r c <"$f"; } 2>/dev/null || continue
		[ "$c" = "$1" ] && { f=${f#/proc/}; echo "${f%/comm}"; return 0; }
	done
	return 1
}
# The CPUs the kernel thread NAME may run on (Cpus_allowed_list, e.g. "1");
# fails if there is no such thread.
thread_cpus() {
	local pid
	pid=$(kthread_pid "$1") || return 1
	awk '/^Cpus_allowed_list:/ {print $2}' "/proc/$pid/status"
}

# bt_spawn OUT SCRIPT [ARGS]: bpftrace -B none SCRIPT in the background,
# its output in OUT, its pid in $bt_pid; bt_halt ends it.
#
# bpftrace 0.17 acts on SIGINT only when the signal interrupts its
# epoll_wait(): one that lands between two polls (every 100 ms) sets a
# flag that nothing reads again (poll_perf_events in its bpftrace.cpp).
# Under TCG that left a bpftrace running 60 s after SIGINT in about one
# guest in three. After every poll, though, it looks whether the process
# given to -p is alive, and ends through its END block when it is not
# (-p attaches nothing else to that process but USDT probes and
# watchpoints, which the scripts have none of). So each bpftrace gets a
# lifeline of its own, a sleep, which bt_halt kills.
declare -gA BT_LIFE=()
bt_spawn() {
	local out=$1 life
	shift
	# Not on the caller's stdout: a lifeline left behind would hold a
	# pipe that run_guest.sh reads to its end.
	sleep 1d </dev/null >/dev/null 2>&1 &
	life=$!
	bpftrace -B none -p "$life" "$@" >"$out" 2>&1 &
	bt_pid=$!
	BT_LIFE[$bt_pid]=$life
}

# bt_kill PID: kill a bpftrace of bt_spawn that failed to start, and its
# lifeline
bt_kill() {
	kill "$1" "${BT_LIFE[$1]:-}" 2>/dev/null || true
	wait "$1" "${BT_LIFE[$1]:-}" 2>/dev/null || true
	unset "BT_LIFE[$1]"
}

# bt_halt PID FILE: end a bpftrace of bt_spawn (output in FILE) so that
# its END block runs and prints "=== end"; after 120 s (detaching takes
# seconds under TCG) kill it. 0 if FILE has its totals, 1 if not.
bt_halt() {
	local pid=$1 out=$2 life=${BT_LIFE[$1]:-}
	kill "$life" 2>/dev/null || echo "# bt_halt: $pid is no bpftrace of bt_spawn"
	wait "$life" 2>/dev/null || true
	unset "BT_LIFE[$pid]"
	wait_for 120 eval "! kill -0 $pid" || {
		echo "# bpftrace $pid still running 120 s after its lifeline ended; killed"
		kill -KILL "$pid" 2>/dev/null || true
	}
	wait "$pid" 2>/dev/null || true
	grep -q '^=== end' "$out"
}

# counters_into NAME CMD...: the "key: number" lines CMD prints (ethtool
# -S, say) into the associative array NAME; 0 if it has rx0_packets.
counters_into() {
	local -n _s=$1
	local k v
	shift
	_s=()
	while read -r k v; do
		[[ $v =~ ^[0-9]+$ ]] && _s[${k%:}]=$v
	done < <("$@" 2>/dev/null)
	[ -n "${_s[rx0_packets]:-}" ]
}
# d OLD NEW KEY: NEW[KEY] - OLD[KEY] of two counters_into arrays
d() {
	local -n _o=$1 _n=$2
	echo $((${_n[$3]:-0} - ${_o[$3]:-0}))
}

# as_nobody CMD...: CMD as uid and gid nobody holding CAP_NET_RAW alone
# (effective, permitted, inheritable, ambient), as a capture tool given
# just that capability runs; what DESIGN.md's "Security posture" calls an
# unprivileged user. "${NOBODY[@]}" CMD execs CMD, so that $! of it in the
# background is CMD's pid (as_nobody, a function, adds a shell). The
# memlock limit is set to 16 MiB, so that the ring charges (a matter of
# their own) are not what a case tests.
NOBODY=(prlimit --memlock=$((16 << 20)) setpriv --reuid=65534 --regid=65534
	--clear-groups --inh-caps=-all,+net_raw --ambient-caps=+net_raw)
as_nobody() { "${NOBODY[@]}" "$@"; }
# 0 when as_nobody gives exactly that here; else msg says why.
as_nobody_check() {
	local st uid eff
	command -v setpriv >/dev/null && command -v prlimit >/dev/null || {
		msg="no setpriv or prlimit (util-linux)"
		[ "${RC_REQUIRE:-0}" = 1 ] && return 1
		return 4
	}
	st=$(as_nobody cat /proc/self/status 2>&1) || { msg="as nobody: $st"; return 1; }
	uid=$(awk '/^Uid:/ {print $2}' <<<"$st")
	eff=$(awk '/^CapEff:/ {print $2}' <<<"$st")
	[ "$uid" = 65534 ] && [ "$((16#${eff:-0}))" = $((1 << 13)) ] && return 0
	msg="setpriv gave uid ${uid:-?} CapEff ${eff:-?}, want 65534 and 2000 (CAP_NET_RAW alone)"
	return 1
}
