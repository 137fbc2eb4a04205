#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make fuzz`: selftests/fuzz/ on the debug kernel (KASAN, lockdep,
# kmemleak, UBSAN) in one QEMU guest with the 82574L NICs, for SECONDS of
# fuzzing (docs/RELIABILITY.md).
#
#   scripts/fuzz.sh [--kernel KVER] [--seed N] [--segment SEC] [--workers N] [SECONDS]
#
#   SECONDS          fuzzing time (default 600); the guest also boots,
#                    reloads the modules between segments and reports
#   --kernel KVER    a distro kernel instead of the debug one (quicker,
#                    without the debug checks)
#   --seed N         seed of the first segment (default: from the clock)
#   --segment SEC    rcfuzz run length between full module reloads (60)
#   --workers N      rcfuzz worker processes (3)
#
# Builds what it needs (the debug kernel once, then cached; userland for
# the host traffic generator; the selftest programs and modules), runs
# selftests/fuzz/fuzz.sh in the guest and prints its TAP. The guest fails
# on any kernel report (scripts/vm/run exits 125) and that fails the run.
# Logs: build/fuzz/KVER/ (console.log, share/stdout, share/dmesg, result).
# Exit status 0 only if the fuzz and the guest were clean.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"

kver= seed= segment=60 workers=3 secs=600
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kver=${2:?}; shift 2 ;;
	--seed) seed=${2:?}; shift 2 ;;
	--segment) segment=${2:?}; shift 2 ;;
	--workers) workers=${2:?}; shift 2 ;;
	-h | --help) sed -n '/^#   scripts/,/^#   --workers/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "fuzz: unknown option $1" >&2; exit 2 ;;
	*) secs=$1; shift ;;
	esac
done
[[ $secs =~ ^[0-9]+$ ]] && [ "$secs" -gt 0 ] || { echo "fuzz: SECONDS must be a positive number" >&2; exit 2; }

make -s -C userland
make -s -C selftests progs
vm=()
if [ -n "$kver" ]; then
	krel=$kver
	make -s -C selftests modules KVERS="$krel"
	vm=(-k "$krel")
else
	dk=$(nice -n 19 scripts/debug-kernel.sh build)
	krel=$(cat "$dk/kernelrelease")
	make -s -C selftests modules KVERS="$krel" KDIR="$dk/build"
	vm=(--kernel-image "$dk/bzImage")
fi
b=$top/selftests/build/$krel
envs=(-e RC_REQUIRE=1 -e "RC_FUZZ_SECONDS=$secs" -e "RC_FUZZ_SEGMENT=$segment"
      -e "RC_FUZZ_WORKERS=$workers"
      -e "RC_RINGCAP_KO=$b/ringcap.ko" -e "RC_E1000E_KO=$b/ringcap_e1000e.ko"
      -e "RC_SIM_KO=$b/ringcap_sim.ko")
[ -z "$seed" ] || envs+=(-e "RC_FUZZ_SEED=$seed")

dir=$top/build/fuzz/$krel
rm -rf "$dir"
mkdir -p "$dir"
echo "==== fuzz: $secs s on $krel (logs: $dir)"
rc=0
# Boot, reloads between segments and the debug kernel's slowness.
scripts/vm/run "${vm[@]}" --nic e1000e-pair --nic e1000e-dgram "${envs[@]}" \
	--timeout $((secs * 2 + 900)) --run-dir "$dir" -- selftests/fuzz/fuzz.sh || rc=$?
echo "==== fuzz: $(grep -cE '^ok [0-9]+' "$dir/share/stdout" 2>/dev/null || true) ok, $(grep -cE '^not ok [0-9]+' "$dir/share/stdout" 2>/dev/null || true) not ok; guest: $(cat "$dir/result" 2>/dev/null || echo '?')"
case $rc in
0) ;;
125) echo "fuzz: the kernel reported trouble: $dir/console.log" >&2 ;;
124) echo "fuzz: the guest timed out: $dir/console.log" >&2 ;;
*) echo "fuzz: failed (exit $rc): $dir/share/stdout" >&2 ;;
esac
exit "$rc"
