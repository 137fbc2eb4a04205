#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench` / `make bench-quick`: build, install the modules with DKMS
# and, in a 2-vCPU guest on the 6.1 kernel whose emulated 82574L (nic0)
# and virtio-net NIC (nic1) are fed by the host generator, measure every
# set-up of the matrix side by side (scripts/bench-guest.sh), and the
# transmit rate back out of nic0, which the host counts; then, in a
# 1-vCPU guest booted with --icount, what each set-up costs in guest
# instructions per frame (the part "cost"); then summarise
# (scripts/bench-report.py).
#
#   scripts/bench.sh [full|quick]       default full
#   RINGCAP_BENCH_KERNEL=KVER           another kernel than the 6.1 one
#   RINGCAP_BENCH_FRAMES, _REPS         override the matrix's
#   RINGCAP_BENCH_COST_SETUPS           the cost part's set-ups (default
#                                       all; e.g. "vio_xdp vio_drop")
#   RINGCAP_BENCH_COST_SIZES            its frame sizes (default the
#                                       matrix's: 64 1500, quick 64)
#   RINGCAP_BENCH_COST_FRAMES           frames per cost run (default
#                                       20000; 42300 is 64 flows of 1 MB
#                                       at 1514 B, the cut-off's target)
#   RINGCAP_BENCH_COST_RATE             their rate a second (default 5000;
#                                       higher makes batches, and may
#                                       pass a set-up's loss point: the
#                                       rows say what was received)
#   RINGCAP_BENCH_PARTS                 only these parts (e1000e virtio
#                                       veth multi zerocopy tx sim
#                                       explain cost; default all,
#                                       quick without explain)
#
# Results: bench/results/<date>-<matrix>/ (results.csv, sim.csv, tx.csv,
# cost.csv, explain/, summary.md, fig-*.png, bench.log, cost.log); a full
# run also rewrites the results section of docs/BENCHMARKS.md. Not part of
# `make check`: nothing here is a pass/fail test, these are measurements.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
matrix=${1:-full}
case $matrix in full|quick) ;; *) echo "bench: full or quick, not '$matrix'" >&2; exit 2 ;; esac

scripts/deps.sh --bench
k=${RINGCAP_BENCH_KERNEL:-$(scripts/kernels.sh | tr ' ' '\n' | grep '^6\.1\.' | head -n 1)}
[ -n "$k" ] || { echo "bench: no 6.1 kernel (scripts/deps.sh)" >&2; exit 1; }

make -s -C userland
make -s -C libpcap-ring
make -s -C selftests all KVERS="$k"
# The tx part's plain AF_PACKET sendmmsg() sender, built here: compiling
# it in the guest would take long under TCG.
mkdir -p build/bench
cc -O2 -Wall -Wextra -o build/bench/bench-sendmmsg scripts/bench-sendmmsg.c
# The cost part's kernel/user split: a TCG plugin built against the
# plugin header of the QEMU this host runs (Debian's qemu source, its
# upstream tarball), and the guest's mark (scripts/cost.sh).
if [ ! -f build/bench/qemu/qemu-plugin.h ]; then
	qsrc=$(scripts/get-source.sh --download-only build/bench/qemu-src qemu qemu-system-x86)
	mkdir -p build/bench/qemu
	tar -xJf "$(ls "$qsrc"/qemu_*.orig.tar.xz | tail -n 1)" -C build/bench/qemu \
		--wildcards --strip-components=3 '*/include/qemu/qemu-plugin.h'
fi
cc -O2 -Wall -Wextra -Wno-unused-parameter -shared -fPIC -I build/bench/qemu \
	-o build/bench/insn-split.so scripts/insn-split.c
cc -O2 -Wall -Wextra -o build/bench/insn-mark scripts/insn-mark.c
scripts/install-debs.sh "$k"

rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
# Tracked files only: earlier results under bench/results do not count.
git diff --quiet HEAD 2>/dev/null || rev+=-dirty
# A run of some parts only is named after them, and neither rewrites the
# docs nor becomes latest-*.
parts=${RINGCAP_BENCH_PARTS:-}
res=$top/bench/results/$(date -u +%Y%m%d-%H%M%S)-$matrix${parts:+-$(tr -s ' ' + <<<"$parts")}
vmdir=$top/build/bench/vm
mkdir -p "$res"
env=(-e "RINGCAP_BENCH_REV=$rev")
for v in FRAMES REPS COST_SETUPS COST_SIZES COST_FRAMES COST_RATE; do
	eval "val=\${RINGCAP_BENCH_$v:-}"
	[ -z "$val" ] || env+=(-e "RINGCAP_BENCH_$v=$val")
done
# The cost part has a guest of its own; the others share the first.
run_main=1 run_cost=1
if [ -n "$parts" ]; then
	[[ " $parts " == *" cost "* ]] || run_cost=0
	main_parts=$(tr ' ' '\n' <<<"$parts" | grep -vx 'cost' | paste -sd ' ' || true)
	[ -n "$main_parts" ] || run_main=0
	[ -z "$main_parts" ] || env+=(-e "RINGCAP_BENCH_PARTS=$main_parts")
fi
# tsc=reliable: under TCG every vCPU's TSC is QEMU's one monotonic tick
# count, but the kernel's boot-time TSC sync check fails now and then on
# single-threaded TCG's interleaving ("TSCs unsynchronized"), and such a
# guest runs on the HPET: every clock read, each frame's timestamp and
# clock_gettime() included, then exits to QEMU. Which one a boot got
# must not decide a run's figures. (The test guests keep the kernel's
# own choice: e1000e/txring.sh's driver-path case needs the TX ring to
# fill at times, and in the one CI run with every guest on the TSC it
# never did: docs/CI.md.)
env+=(--append tsc=reliable)
timeout=$([ "$matrix" = quick ] && echo 900 || echo 10800)
cost_timeout=$([ "$matrix" = quick ] && echo 2400 || echo 5400)
echo "bench: $matrix matrix on $k, results in ${res#$top/}"
rc=0
if [ "$run_main" = 1 ]; then
	scripts/vm/run -k "$k" --cpus 2 --timeout "$timeout" --nic e1000e-dgram \
		--nic virtio-dgram --run-dir "$vmdir" "${env[@]}" -- \
		scripts/bench-guest.sh "$matrix" /run/ringcap-vm/share/artifacts/results.csv 2>&1 |
		tee "$res/bench.log" || rc=$?
	cp "$vmdir/share/artifacts/results.csv" "$vmdir/share/artifacts/results-sim.csv" \
		"$vmdir/share/artifacts/results-tx.csv" "$res/" 2>/dev/null || true
	[ ! -f "$res/results-sim.csv" ] || mv "$res/results-sim.csv" "$res/sim.csv"
	[ ! -f "$res/results-tx.csv" ] || mv "$res/results-tx.csv" "$res/tx.csv"
	[ ! -d "$vmdir/share/artifacts/explain" ] || cp -r "$vmdir/share/artifacts/explain" "$res/"
	[ "$rc" = 0 ] || { echo "bench: the guest failed (exit $rc), partial results in ${res#$top/}" >&2; exit "$rc"; }
fi
# One vCPU: under icount two would share the one clock (scripts/cost.sh).
if [ "$run_cost" = 1 ]; then
	# The plugin's file is in the guest's share (vm/run makes it anew).
	scripts/vm/run -k "$k" --cpus 1 --icount --timeout "$cost_timeout" --nic e1000e-dgram \
		--nic virtio-dgram --run-dir "$vmdir-cost" "${env[@]}" \
		--qemu -plugin --qemu "$top/build/bench/insn-split.so,out=$vmdir-cost/share/insn.log" \
		-e INSN_MARK="$top/build/bench/insn-mark" \
		-e INSN_LOG=/run/ringcap-vm/share/insn.log \
		-e RINGCAP_BENCH_PARTS=cost -- \
		scripts/bench-guest.sh "$matrix" /run/ringcap-vm/share/artifacts/results.csv 2>&1 |
		tee "$res/cost.log" || rc=$?
	cp "$vmdir-cost/share/artifacts/results-cost.csv" "$res/cost.csv" 2>/dev/null || true
	[ "$rc" = 0 ] || { echo "bench: the cost guest failed (exit $rc), partial results in ${res#$top/}" >&2; exit "$rc"; }
fi

docs=()
[ "$matrix" = quick ] || [ -n "$parts" ] || docs=(--docs docs/BENCHMARKS.md)
scripts/bench-report.py "$res" "${docs[@]+"${docs[@]}"}"
[ -n "$parts" ] || ln -sfn "$(basename "$res")" "$top/bench/results/latest-$matrix"
echo "bench: ${res#$top/}/summary.md"
