#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/cost.sh's arithmetic on two made-up snapshots, where every
# figure is known: what each kind of thread counts as, and the sums.
# TAP on stdout.
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$top/scripts/cost.sh"

n=0 failed=0
check() { # NAME WANT GOT
	n=$((n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1: want '$2', got '$3'"
		failed=$((failed + 1))
	fi
}

echo "1..6"
# 2M ns of clock, 0.5M of it idle: 1.5M instructions ran. The reader's
# cgroup ran 300 µs, the bench's 100 µs.
before='now 1000000
idle 0
cg rc-reader 0
cg rc-bench 0
task 10 0 napi/eth0-8193
task 11 0 eth1-rx0
task 12 0 kworker/0:1-events
task 13 0 ksoftirqd/0
task 15 7000 irq/24-virtio0'
after='now 3000000
idle 500000
cg rc-reader 300
cg rc-bench 100
task 10 400000 napi/eth0-8193
task 11 200000 eth1-rx0
task 12 50000 kworker/0:1-events
task 13 10000 ksoftirqd/0
task 14 5000 bash
task 15 9000 irq/24-virtio0'
# The window saw 240000 ns of the reader, 60000 of them in user space:
# a quarter of all its 300000 is user time.
window="window_user=60000 window_kernel=900000 window_reader_ns=240000"
got=$(cost_split "$before" "$after" 1000 "$window")
# other: the kworker (50000) and the thread born meanwhile (5000);
# rx: 1.5M - 300000 - 100000 - 55000 (the NAPI thread, the RX thread,
# ksoftirqd, the interrupt thread and what ran outside any task).
check "per frame, split as the header says" \
	"busy=1500 total=1400 rx=1045 reader=300 reader_sys=225 reader_user=75 bench=100 other=55 window=0.80" \
	"$got"
# No window (the plugin did not run): nothing is called user time.
got=$(cost_split "$before" "$after" 1000)
check "no window: the reader's time is not split, window=0" \
	"reader_sys=300 reader_user=0 bench=100 other=55 window=0.00" \
	"$(grep -o 'reader_sys=.*' <<<"$got")"
# More user instructions than reader time in the window (another
# process ran user code): the reader's user share stops at all of it.
got=$(cost_split "$before" "$after" 1000 "window_user=500000 window_kernel=1 window_reader_ns=240000")
check "a user count above the reader's time: all user, never more" \
	"reader_sys=0 reader_user=300" "$(grep -o 'reader_sys=[0-9]* reader_user=[0-9]*' <<<"$got")"
# A reader that never ran in the window: no share to apply.
got=$(cost_split "$before" "$after" 1000 "window_user=0 window_kernel=5 window_reader_ns=0")
check "a window without the reader: not split" \
	"reader_sys=300 reader_user=0" "$(grep -o 'reader_sys=[0-9]* reader_user=[0-9]*' <<<"$got")"
# No frames: the figures are totals, not divided by zero.
got=$(cost_split "$before" "$after" 0)
check "no frames: totals" "busy=1500000" "$(grep -o '^busy=[0-9]*' <<<"$got")"
# An RX thread of another device name still counts as the receive path.
got=$(cost_split "${before//eth1-rx0/enp0s4-rx1}" "${after//eth1-rx0/enp0s4-rx1}" 1000)
check "DEV-rxN threads are the receive path" "rx=1045" "$(grep -o 'rx=[0-9]*' <<<"$got" | head -n 1)"
exit $((failed > 0))
