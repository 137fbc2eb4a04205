#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run every ringcap selftest inside a test guest, as root, and print one
# combined TAP stream: results renumbered, each named after its test
# program ("receive: path.sim_mode1.frames_arrive_byte_exact_in_order").
#
#   selftests/run_guest.sh [KBUILD_DIR]
#
#   KBUILD_DIR      where this kernel's ringcap_sim.ko is
#                   (default: selftests/build/$(uname -r))
#   RC_BIN          test programs (default: selftests/build/bin)
#   RC_TESTS        run only these programs, e.g. "receive lifecycle.sh
#                   e1000e/rss.sh"; "e1000e" (or "e1000e.sh") stands for
#                   every e1000e area script, e1000e/*.sh but lib.sh
#                   (each area sets up its own NICs, so any one runs
#                   alone; their RC_E1000E_* settings, such as
#                   RC_E1000E_ONLY to pick cases inside an area: see
#                   selftests/e1000e/lib.sh), "e1000e-a" and "e1000e-b"
#                   for its two halves, and "core" for everything
#                   else; the default is "core e1000e" (make check gives
#                   each of its guests a part: scripts/check.sh, job_run)
#   RC_RINGCAP_KO   insmod this ringcap.ko instead of `modprobe ringcap`
#                   (the DKMS-installed module)
#   RC_TEST_TIMEOUT seconds per program (default 1200)
#   RC_FUZZ_SECONDS end with fuzz/fuzz.sh for that long (make check's
#                   debug core guest; its other RC_FUZZ_* settings are
#                   fuzz.sh's)
#
# It loads ringcap (from DKMS) and ringcap_sim, runs the C tests, then
# lifecycle.sh and libpcap.sh (which unload and reload the modules),
# tools.sh (ringcount's wake-up defaults), xdp.sh (mode 2 on veth),
# xdp_link.sh (the XDP link taken away under the module),
# bpftrace.sh (the diagnostics against known workloads), virtio.sh
# (capture on a virtio-net NIC fed by the host generator; failed, saying
# so, in a guest without --nic virtio-dgram), then the e1000e/*.sh areas
# (the emulated 82574L on ringcap_e1000e, each setting up and tearing
# down its own NICs), then checks the kernel log for oopses and
# warnings. A module that fails to load shows as failed setup lines and
# failed tests, never as a crash of this script.
# Exit status: 0 if nothing failed, 1 otherwise.
#
# Expects a throw-away guest (scripts/vm/run): it writes only to /tmp, but
# changes global settings such as net.core.netdev_max_backlog.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KB=${1:-$here/build/$(uname -r)}
BIN=${RC_BIN:-$here/build/bin}
TESTS=${RC_TESTS:-core e1000e}
# Everything but the 82574L areas, in this order.
CORE="socket_api receive ring wakeup modes cluster span cutoff lifecycle hardening persist lifecycle.sh tools.sh span.sh xdp.sh xdp_link.sh libpcap.sh bpftrace.sh virtio.sh"
# The e1000e areas, in this order (each stands alone), in two halves of
# about equal length, which make check runs in two guests.
E1000E_A="e1000e/traffic.sh e1000e/stacked.sh e1000e/rss.sh"
E1000E_B="e1000e/irq.sh e1000e/ethtool.sh e1000e/overload.sh e1000e/link.sh e1000e/rebind.sh e1000e/zerocopy.sh e1000e/txring.sh"
words=()
for t in $TESTS; do
	case $t in
	core) read -r -a a <<<"$CORE"; words+=("${a[@]}") ;;
	e1000e | e1000e.sh) read -r -a a <<<"$E1000E_A $E1000E_B"; words+=("${a[@]}") ;;
	e1000e-a) read -r -a a <<<"$E1000E_A"; words+=("${a[@]}") ;;
	e1000e-b) read -r -a a <<<"$E1000E_B"; words+=("${a[@]}") ;;
	*) words+=("$t") ;;
	esac
done
TESTS=${words[*]}
[ -z "${RC_FUZZ_SECONDS:-}" ] || [[ " $TESTS " == *" fuzz/fuzz.sh "* ]] ||
	TESTS+=" fuzz/fuzz.sh"
TIMEOUT=${RC_TEST_TIMEOUT:-1200}
# Each result's seconds go to artifacts/times in a scripts/vm/run guest.
times_out=
[ -z "${RINGCAP_VM_ARTIFACTS:-}" ] || times_out=$RINGCAP_VM_ARTIFACTS/times

. "$here/lib.sh"	# ok, not_ok
n=0
failed=0
skipped=0

# The harness (and lifecycle.sh) treat a missing module as a failure, not
# a skip, when run from here.
export RC_REQUIRE=1
export RC_BIN=$BIN
export RC_SIM_KO=$KB/ringcap_sim.ko

echo "TAP version 13"
echo "# ringcap selftests on $(uname -r), $(nproc) CPUs"
klog_start=$(klog_lines) || klog_start=0	# unreadable: the last line fails

# setup
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
sysctl -qw net.core.netdev_max_backlog=10000 || true
if [ -d /sys/module/ringcap ]; then
	ok "setup: ringcap already loaded"
elif [ -n "${RC_RINGCAP_KO:-}" ]; then
	if out=$(insmod "$RC_RINGCAP_KO" 2>&1); then
		ok "setup: insmod $RC_RINGCAP_KO"
	else
		not_ok "setup: insmod $RC_RINGCAP_KO # $out"
	fi
elif out=$(modprobe ringcap 2>&1); then
	ok "setup: modprobe ringcap ($(modinfo -F filename ringcap 2>/dev/null))"
else
	not_ok "setup: modprobe ringcap # $out"
fi
if [ -d /sys/module/ringcap_sim ]; then
	ok "setup: ringcap_sim already loaded"
elif out=$(insmod "$RC_SIM_KO" 2>&1); then
	ok "setup: insmod $RC_SIM_KO"
else
	not_ok "setup: insmod $RC_SIM_KO # $out"
fi

# One program: stream its output, renumbering its results into ours.
run_one() {
	local name=$1 cmd=$2 line rc= results=0 fails=0 start=$SECONDS
	local last=$SECONDS

	echo "# ---- $name"
	while IFS= read -r line; do
		if [[ $line =~ ^__rc=([0-9]+)$ ]]; then
			rc=${BASH_REMATCH[1]}
		elif [[ $line =~ ^(not\ )?ok\ [0-9]+\ (.*)$ ]]; then
			results=$((results + 1))
			# seconds since the previous result, to find slow cases
			[ -z "$times_out" ] || printf '%4d %s: %s\n' $((SECONDS - last)) \
				"$name" "${BASH_REMATCH[2]}" >>"$times_out"
			last=$SECONDS
			if [ -n "${BASH_REMATCH[1]}" ]; then
				fails=$((fails + 1))
				not_ok "$name: ${BASH_REMATCH[2]}"
			else
				[[ $line == *"# SKIP"* ]] && skipped=$((skipped + 1))
				ok "$name: ${BASH_REMATCH[2]}"
			fi
		elif [[ $line =~ ^TAP\ version || $line =~ ^1\.\.[0-9]+$ ]]; then
			:
		elif [[ $line == \#* ]]; then
			echo "$line"
		else
			echo "# $line"
		fi
	done < <(timeout -k 10 "$TIMEOUT" "$cmd" 2>&1 </dev/null; echo "__rc=$?")

	echo "# ---- $name: exit ${rc:-?}, $results results, $((SECONDS - start)) s"
	if [ "$results" -eq 0 ]; then
		not_ok "$name: no results (exit status ${rc:-?})"
	elif [ "${rc:-1}" != 0 ] && [ "${rc:-1}" != 4 ] && [ "$fails" -eq 0 ]; then
		not_ok "$name: exited with status ${rc:-?}"
	fi
}

for t in $TESTS; do
	if [[ $t == *.sh ]]; then
		cmd=$here/$t
	else
		cmd=$BIN/$t
	fi
	if [ ! -x "$cmd" ]; then
		not_ok "$t: $cmd missing (make -C selftests all)"
		continue
	fi
	run_one "$t" "$cmd"
done

# The kernel must have stayed healthy throughout (and its log readable).
if klog_clean "$klog_start"; then
	ok "kernel log: no oops, warning or BUG during the tests"
else
	sed 's/^/# /' <<<"$klog_bad"
	not_ok "kernel log: no oops, warning or BUG during the tests"
fi

echo "1..$n"
echo "# $((n - failed - skipped)) passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
