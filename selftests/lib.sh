# SPDX-License-Identifier: GPL-2.0
#
# Helpers the shell selftests share; sourced, never run. TAP result lines
# (the caller sets n=0 failed=0 first), polling against a deadline, and
# loading ringcap the way run_guest.sh asked (RC_RINGCAP_KO or DKMS).

ok() { n=$((n + 1)); echo "ok $n $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $*"; }
# check DESC CMD...: one result from CMD's exit status
check() {
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }
# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds; by the
# clock, since under emulation each try itself takes a while
wait_for() {
	local end=$(($(now_ms) + $1 * 1000))
	shift
	while :; do
		"$@" 2>/dev/null && return 0
		[ "$(now_ms)" -lt "$end" ] || return 1
		sleep 0.1
	done
}

loaded() { [ -d "/sys/module/$1" ]; }
load_ringcap() {
	if [ -n "${RC_RINGCAP_KO:-}" ]; then
		insmod "$RC_RINGCAP_KO" "$@"
	else
		modprobe ringcap "$@"
	fi
}
