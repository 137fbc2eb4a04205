#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make soak`: on the debug kernel (KASAN, lockdep, kmemleak, ...), traffic
# at the NIC's ceiling into ringcap_e1000e and through a veth pair for
# SECONDS while the transparent mode switches, readers are killed and
# restarted with other ring sizes and the modules are reloaded; memory,
# kmemleak and the driver's buffers recorded before and after. The guest
# side, and what exactly is checked, is selftests/soak/soak.sh.
#
#   scripts/soak.sh [-k KVER | --rev REV] [SECONDS]     default 600
#
#   -k KVER      a distro kernel (scripts/kernels.sh) instead of the debug
#                kernel, for quick runs; its modules come from DKMS
#   --rev REV    debug kernel: build the modules from commit REV instead
#                of the working tree (which others may be editing)
#   SOAK_*       passed to the guest (SOAK_WINDOW, SOAK_RATE, SOAK_SEED, ...)
#
# For the debug kernel: scripts/debug-kernel.sh build (cached after the
# first time), ringcap.ko and ringcap_e1000e.ko built against it by
# `make -C selftests modules`, and put in a depmod'ed module tree
# (build/soak/modules/) that the guest mounts on /lib/modules/<release>,
# so that modprobe and rmmod work there as on a real host.
#
# Logs: build/soak/<kernel>-<time>/: console.log, result, share/stdout (the
# TAP), share/dmesg, share/kmemleak, share/artifacts/ (summary, the memory,
# slab, vmstat and ethtool records before and after, kmemleak's report).
# Exit status: 0 only if every check passed and the runner saw no kernel
# report (125: it did; 124: timeout).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"

kver= rev=
while [ $# -gt 0 ]; do
	case $1 in
	-k) kver=${2:?}; shift 2 ;;
	--rev) rev=${2:?}; shift 2 ;;
	-h | --help) sed -n '/^#   scripts/,/^#   SOAK_/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "soak: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
secs=${1:-600}
[[ $secs =~ ^[0-9]+$ ]] && [ "$secs" -gt 0 ] || { echo "soak: SECONDS must be a number, got '$secs'" >&2; exit 2; }

msg() { echo "soak: $*" >&2; }
[ -z "$kver" ] || [ -z "$rev" ] || { msg "--rev is for the debug kernel (-k installs the packages)"; exit 2; }

make -s -C userland
runner=(scripts/vm/run --nic e1000e-dgram)
if [ -n "$kver" ]; then
	label=$kver
	scripts/install-debs.sh
	export SOAK_SOURCE="the packages (DKMS) from the working tree at $(git describe --always --dirty)"
	runner+=(-k "$kver")
	timeout=$((secs * 2 + 900))
else
	dk=$(nice -n 19 scripts/debug-kernel.sh build)
	krel=$(cat "$dk/kernelrelease")
	label=$krel
	if [ -n "$rev" ]; then
		sha=$(git rev-parse --short=12 "$rev^{commit}")
		src=$top/build/soak/src/$sha
		rm -rf "$src"
		mkdir -p "$src"
		git archive "$sha" Kbuild VERSION module driver | tar -x -C "$src"
		make -C "$dk/build" M="$src" modules
		kos=("$src/module/ringcap.ko" "$src/driver/ringcap_e1000e.ko")
		export SOAK_SOURCE="commit $sha"
	else
		make -C selftests modules KVERS="$krel" KDIR="$dk/build"
		kos=("selftests/build/$krel/ringcap.ko" "selftests/build/$krel/ringcap_e1000e.ko")
		export SOAK_SOURCE="working tree at $(git describe --always --dirty)"
	fi
	base=$top/build/soak/modules
	rm -rf "$base/lib/modules/$krel"
	mkdir -p "$base/lib/modules/$krel/extra"
	cp "${kos[@]}" "$base/lib/modules/$krel/extra/"
	depmod -b "$base" "$krel" 2>&1 | grep -v 'could not open modules\.' >&2 || true
	runner+=(--kernel-image "$dk/bzImage" --modules-dir "$base/lib/modules/$krel")
	# KASAN, lockdep and kmemleak's scans make it several times slower.
	timeout=$((secs * 2 + 1800))
fi

for v in $(compgen -e | grep '^SOAK_' || true); do
	[ "$v" = SOAK_SECONDS ] || runner+=(-e "$v=${!v}")
done
dir=$top/build/soak/$label-$(date +%Y%m%d-%H%M%S)
mkdir -p "$dir"
msg "$secs s on $label; logs in $dir"
rc=0
"${runner[@]}" --timeout "$timeout" --run-dir "$dir" -- selftests/soak/soak.sh "$secs" || rc=$?
msg "guest: $(cat "$dir/result" 2>/dev/null || echo 'no result')"
msg "summary: $dir/share/artifacts/summary; TAP: $dir/share/stdout"
[ "$rc" = 0 ] && msg "clean" || msg "FAILED (exit $rc)"
exit "$rc"
