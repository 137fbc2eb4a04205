# SPDX-License-Identifier: GPL-2.0
#
# Reader generations for selftests/soak/soak.sh; sourced, never run.
#
# A slot is a place a ringcount reads (DEV or DEV@Q, in the init netns or
# in another). Each start is a new generation with its own ring size; each
# stop ends it with a signal:
#   INT/TERM  ringcount prints its summary, which is checked: the frames it
#             read are no more than the kernel wrote into its ring (the
#             rest was left in the ring when it stopped), and the kernel
#             saw no bad consumer index;
#   KILL      the counters die with the socket and cannot be read; what is
#             checked is that the process died of it.
# Either way the socket must then leave /proc/net/ringcap (it was freed).
#
#   rd_start SLOT SPEC SIZE [NETNS]   start a generation; 0 once bound
#   rd_stop SLOT SIG [lost]           end it and check it; "lost": the
#                                     device may have gone first (exit 1)
#   rd_stop_all SIG [lost]
#   rd_val SLOT KEY                   from SLOT's last summary
#
# Needs lib.sh (kv, now_ms, wait_for), $RINGCOUNT and $tmp. Counts into
# GEN_STARTED, GEN_KILLED, GEN_STOPPED, GEN_LOST; every problem into
# GEN_BAD, the first few described in GEN_WHY.

declare -A RD_PID=() RD_OUT=() RD_SPEC=() RD_NS=() RD_INO=() RD_SIZE=() RD_SUM=()
GEN_STARTED=0 GEN_KILLED=0 GEN_STOPPED=0 GEN_LOST=0 GEN_BAD=0 GEN_WHY=

gen_bad() {
	GEN_BAD=$((GEN_BAD + 1))
	[ "$GEN_BAD" -gt 3 ] || GEN_WHY+="${GEN_WHY:+; }$*"
	echo "# reader: $*"
}

rd_start() {
	local slot=$1 spec=$2 size=$3 ns=${4:-} dev=${2%@*} q=all pre=() pid ino end
	[[ $spec == *@* ]] && q=${spec#*@}
	[ -z "$ns" ] || pre=(ip netns exec "$ns")
	RD_OUT[$slot]=$tmp/rd.$slot.$GEN_STARTED
	# Started directly so that $! is ringcount: `ip netns exec` execs it.
	"${pre[@]}" "$RINGCOUNT" -q -i "$spec" -r "$size" >"${RD_OUT[$slot]}" 2>&1 &
	pid=$!
	RD_PID[$slot]=$pid RD_SPEC[$slot]=$spec RD_NS[$slot]=$ns RD_SIZE[$slot]=$size
	RD_INO[$slot]=
	GEN_STARTED=$((GEN_STARTED + 1))
	# /proc/PID/net is the netns of PID, so no need to enter it.
	end=$(($(now_ms) + 30000))
	while kill -0 "$pid" 2>/dev/null && [ "$(now_ms)" -lt "$end" ]; do
		ino=$(awk -v p="$pid" -v d="$dev" -v q="$q" \
			'$1 == p && $3 == d && $4 == q {print $2; exit}' \
			"/proc/$pid/net/ringcap" 2>/dev/null || true)
		if [ -n "$ino" ]; then
			RD_INO[$slot]=$ino
			return 0
		fi
		sleep 0.1
	done
	gen_bad "$slot: ringcount -i $spec -r $size did not bind: $(tail -n 2 "${RD_OUT[$slot]}" | tr '\n' ' ')"
	return 1
}

# Is the socket of SLOT's last generation gone from its netns's list?
rd_freed() {
	local slot=$1 pre=()
	[ -z "${RD_NS[$slot]}" ] || pre=(ip netns exec "${RD_NS[$slot]}")
	"${pre[@]}" awk -v i="${RD_INO[$slot]}" '$2 == i {f = 1} END {exit f}' /proc/net/ringcap
}

rd_stop() {
	local slot=$1 sig=$2 lost=${3:-} pid=${RD_PID[$1]:-} rc=0 sum what out
	[ -n "$pid" ] || return 0
	kill -"$sig" "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || rc=$?
	RD_PID[$slot]=
	out=${RD_OUT[$slot]}
	what="$slot (${RD_SPEC[$slot]}, ring ${RD_SIZE[$slot]}, SIG$sig)"
	if [ -n "${RD_INO[$slot]}" ] && ! wait_for 20 rd_freed "$slot"; then
		gen_bad "$what: socket inode ${RD_INO[$slot]} still in /proc/net/ringcap 20 s after exit $rc"
	fi
	RD_SUM[$slot]=
	if [ "$sig" = KILL ] && [ "$rc" = 137 ]; then
		GEN_KILLED=$((GEN_KILLED + 1))
		rm -f "$out"
		return 0
	fi
	sum=$(grep '^ringcount:' "$out" | tail -n 1 || true)
	if [ "$rc" = 1 ] && [ -n "$lost" ] && grep -q 'device went away' "$out"; then
		GEN_LOST=$((GEN_LOST + 1))
	elif [ "$rc" != 0 ]; then
		gen_bad "$what: exit $rc: $(tail -n 2 "$out" | tr '\n' ' ')"
		return 0
	else
		GEN_STOPPED=$((GEN_STOPPED + 1))
	fi
	if [ -z "$sum" ]; then
		gen_bad "$what: exit $rc without a summary: $(tail -n 1 "$out")"
		return 0
	fi
	RD_SUM[$slot]=$sum
	rm -f "$out"
	# Whatever was left unread stays in the ring: read <= written.
	if [ "$(kv captured "$sum")" -gt "$(kv received "$sum")" ] ||
		[ "$(kv bad_consumer "$sum")" != 0 ]; then
		gen_bad "$what: $sum"
	fi
}

rd_stop_all() {
	local slot
	for slot in "${!RD_PID[@]}"; do
		rd_stop "$slot" "$@"
	done
}

rd_val() { kv "$2" "${RD_SUM[$1]:-}"; }
