#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make demo` (scripts/demo.sh boots the guest): capture
# a known number of frames from a simulated ringcap-aware device and show
# what ringcount and /proc/net/ringcap counted.
#
#   scripts/demo-guest.sh [FRAMES]     default 10000
#
# RINGCAP_DEMO_MODE sets transparent_mode (default: the module's default).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
frames=${1:-10000}
dev=rcsim0
sim=$top/selftests/build/$(uname -r)/ringcap_sim.ko
inject=$top/selftests/build/bin/rc_inject
ringcount=$top/userland/build/bin/ringcount

for f in "$sim" "$inject" "$ringcount"; do
	[ -e "$f" ] || { echo "demo: $f missing (make selftests userland)" >&2; exit 1; }
done

rc_pid=
cleanup() {
	[ -z "$rc_pid" ] || kill "$rc_pid" 2>/dev/null || true
	ip link del "$dev" 2>/dev/null || true
}
trap cleanup EXIT

# wait_for SECONDS CMD...: poll a condition instead of guessing a sleep.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}
# ringcount prints a line per second once its socket is bound and mapped,
# each with the running total: the demo's readiness and progress signals.
started() { grep -q '^t=' /tmp/ringcount.out; }
total() { sed -n 's/^t=.* total=\([0-9]*\).*/\1/p' /tmp/ringcount.out | tail -n 1; }
all_in() { [ "$(total)" -ge "$frames" ]; }

modprobe ringcap ${RINGCAP_DEMO_MODE:+transparent_mode=$RINGCAP_DEMO_MODE}
insmod "$sim"
ip link add "$dev" type ringcap_sim
ip link set "$dev" up
echo "demo: $(uname -r), ringcap $(cat /sys/module/ringcap/version)," \
	"transparent_mode $(cat /sys/module/ringcap/parameters/transparent_mode)"

"$ringcount" -i "$dev" >/tmp/ringcount.out 2>&1 &
rc_pid=$!
wait_for 20 started || { echo "demo: ringcount never bound to $dev" >&2; cat /tmp/ringcount.out >&2; exit 1; }

echo "demo: injecting $frames frames on both RX queues of $dev"
t0=$(date +%s.%N)
"$inject" -d "$dev" -n "$frames" -q mixed
t1=$(date +%s.%N)
# Frames dropped for a full ring never reach the total: give up waiting
# after a few seconds rather than forever.
wait_for 10 all_in || true

echo
echo "demo: /proc/net/ringcap while capturing:"
sed 's/^/  /' /proc/net/ringcap
kill -INT "$rc_pid"
wait "$rc_pid" || true
rc_pid=
echo
echo "demo: ringcount:"
sed 's/^/  /' /tmp/ringcount.out
echo
echo "demo: stack view of $dev:"
ip -s link show "$dev" | sed 's/^/  /'
echo
summary=$(tail -n 1 /tmp/ringcount.out)
captured=$(sed -n 's/.*captured=\([0-9]*\).*/\1/p' <<<"$summary")
dropped=$(sed -n 's/.* dropped=\([0-9]*\).*/\1/p' <<<"$summary")
awk -v n="$frames" -v c="${captured:-0}" -v d="${dropped:-0}" -v a="$t0" -v b="$t1" 'BEGIN {
	printf "demo: injected %d frames in %.2f s; captured %d, dropped %d (ring full)\n", n, b - a, c, d }'
