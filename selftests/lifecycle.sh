#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Loading and unloading ringcap.ko: unloading is refused while a socket
# (or ringcap_sim) uses the module and works once they are gone; bad
# parameters are refused at load time and at run time with a clear log
# line; a taken family number fails the load naming `family=`.
#
# Runs in a guest as root, after run_guest.sh loaded ringcap and
# ringcap_sim, and leaves both loaded with default parameters.
#
#   RC_BIN          test programs (default: build/bin next to this script)
#   RC_SIM_KO       ringcap_sim.ko for this kernel
#   RC_RINGCAP_KO   insmod this ringcap.ko instead of `modprobe ringcap`
#
# Output: TAP. Exit status: 0 all passed, 1 a test failed, 4 skipped.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
BIN=${RC_BIN:-$here/build/bin}
SIM_KO=${RC_SIM_KO:-$here/build/$(uname -r)/ringcap_sim.ko}
PARAMS=/sys/module/ringcap/parameters
PLAN=15

n=0
failed=0
skipped=0
hold_pid=
hold_fd=
tmp=$(mktemp -d)

unloaded() { ! loaded "$1"; }

hold_stop() {
	if [ -n "$hold_fd" ]; then
		exec {hold_fd}>&-
		hold_fd=
	fi
	if [ -n "$hold_pid" ]; then
		wait "$hold_pid" || true
		hold_pid=
	fi
}

# Leave the modules as we found them, whatever happened.
cleanup() {
	hold_stop
	loaded ringcap || load_ringcap >/dev/null 2>&1 || true
	loaded ringcap_sim || insmod "$SIM_KO" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# Number of kernel log lines matching an extended regexp.
klog_count() { dmesg | grep -Ec "$1" || true; }

echo "TAP version 13"
echo "1..$PLAN"

if [ "$(id -u)" != 0 ] || ! loaded ringcap || [ ! -x "$BIN/rc_hold" ]; then
	skip_all lifecycle "needs root, ringcap loaded and $BIN/rc_hold"
fi

# 1-2: ringcap_sim holds ringcap
if loaded ringcap_sim; then
	check "rmmod ringcap refused while ringcap_sim uses it" \
		eval '! rmmod ringcap 2>/dev/null && loaded ringcap'
else
	not_ok "rmmod ringcap refused while ringcap_sim uses it # ringcap_sim not loaded"
fi
check "rmmod ringcap_sim (its devices go with it)" \
	rmmod_wait ringcap_sim 10

# 3-5: an open socket holds ringcap
mkfifo "$tmp/hold"
"$BIN/rc_hold" <"$tmp/hold" >"$tmp/hold.out" 2>&1 &
hold_pid=$!
exec {hold_fd}>"$tmp/hold"
check "a socket is open (rc_hold ready)" \
	wait_for 10 grep -qx ready "$tmp/hold.out"
check "rmmod ringcap refused while a socket is open" \
	eval '! rmmod ringcap 2>/dev/null && loaded ringcap && [ "$(cat /sys/module/ringcap/refcnt)" -ge 1 ]'
hold_stop
# The socket's memory (and module reference) goes after an RCU grace period.
check "rmmod ringcap succeeds once the socket is closed" \
	rmmod_wait ringcap 10

# 6-8: bad parameters at load time
before=$(klog_count 'ringcap: .*transparent_mode=3.*invalid')
check "load with transparent_mode=3 refused" \
	eval '! load_ringcap transparent_mode=3 2>/dev/null && unloaded ringcap'
check "transparent_mode=3 refusal explained in the kernel log" \
	eval '[ "$(klog_count "ringcap: .*transparent_mode=3.*invalid")" -gt "$before" ]'
before=$(klog_count 'ringcap: .*family=')
if load_ringcap family=16 2>/dev/null; then
	not_ok "load with family=16 (netlink, taken) refused naming family="
	rmmod ringcap || true
elif loaded ringcap; then
	not_ok "load with family=16 (netlink, taken) refused naming family= # module stayed"
else
	check "load with family=16 (netlink, taken) refused naming family=" \
		eval '[ "$(klog_count "ringcap: .*family=")" -gt "$before" ]'
fi

# 9-11: a non-default mode at load time shows everywhere
check "load with transparent_mode=2" \
	eval 'load_ringcap transparent_mode=2 && [ "$(cat $PARAMS/transparent_mode)" = 2 ]'
check "/proc/net/ringcap reports transparent_mode 2" \
	eval 'head -n 1 /proc/net/ringcap | grep -q " transparent_mode 2 "'
check "rmmod ringcap with no socket" \
	rmmod_wait ringcap 10

# 12-14: run-time writes are validated
check "load with default parameters (transparent_mode 0, family 25)" \
	eval 'load_ringcap && [ "$(cat $PARAMS/transparent_mode)" = 0 ] && [ "$(cat $PARAMS/family)" = 25 ]'
check "writing 3 to transparent_mode refused, mode unchanged" \
	eval '! (echo 3 >$PARAMS/transparent_mode) 2>/dev/null && [ "$(cat $PARAMS/transparent_mode)" = 0 ]'
check "writing 1 to transparent_mode accepted, then 0" \
	eval 'echo 1 >$PARAMS/transparent_mode && [ "$(cat $PARAMS/transparent_mode)" = 1 ] && echo 0 >$PARAMS/transparent_mode'

# 15: the sim device module comes back on top
check "ringcap_sim loads again" insmod "$SIM_KO"

[ "$n" -eq "$PLAN" ] || echo "# plan said $PLAN tests, ran $n"
[ "$failed" -eq 0 ] && [ "$n" -eq "$PLAN" ]
