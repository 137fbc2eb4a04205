#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: build everything, install the Debian packages and run
# the selftests in one QEMU guest per supported kernel.
#
#   scripts/check.sh [--no-deps] [--no-debug | --only-debug] [--guest-cmd CMD] [KVER...]
#
#   --no-deps        skip scripts/deps.sh (no apt)
#   --no-debug       skip the debug-kernel tier
#   --only-debug     run only the debug-kernel tier (make check-debug)
#   --guest-cmd CMD  run CMD in the guests instead of selftests/run_guest.sh
#                    (to iterate on one test; its output must be TAP)
#   KVER...          kernels to test (default: scripts/kernels.sh)
#   RINGCAP_CHECK_TIMEOUT  seconds per distro guest, boot included
#                          (default: each job's, see job_timeout)
#   RINGCAP_CHECK_TIMEOUT_DEBUG  the same for a debug-kernel guest
#
# The order of the run, planned for two CPUs (docs/CI.md has the measured
# durations and the margins):
#   1. deps; then the debug kernel (scripts/debug-kernel.sh's KASAN/
#      lockdep/kmemleak/UBSAN 6.12, cached in /var/cache/ringcap, about
#      16 minutes on 2 cores the first time) builds at full speed beside
#      the common build: userland and libpcap-ring with their host tests,
#      the modules W=1, the selftests, the packages installed through DKMS
#      (skipped when the tree has not changed since the last install);
#   2. once everything is built, the guests, two at a time, six in all
#      (see job_run): 6.1's "core" half and its "e1000e" half (in two
#      guests) in full, 6.12's core half, and two debug-kernel guests
#      that run the parts its
#      checkers add to, with 60 s of the fuzzer (selftests/fuzz/fuzz.sh);
#      any kernel report fails a guest. No guest runs beside the kernel
#      build, which would halve its speed.
# The output of each guest is shown once the guests are done; the
# summary gives every step's and every guest's duration, and each test
# program's seconds per guest, so drift shows.
#
# Build steps that fail count as one failed test each and the run goes on,
# so one report shows everything. A guest that times out, panics or logs a
# kernel warning counts as one more failure. The last line is always
# "N passed, N failed[, N skipped]"; the exit status is 0 only without
# failures. Logs: build/check/<KVER>/<half>/ (console.log, result,
# share/), build/check/lane/ (kernel build, guest output, timings).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"

deps=1
debug=1
distro=1
guest_cmd=selftests/run_guest.sh
while [ $# -gt 0 ]; do
	case $1 in
	--no-deps) deps=0; shift ;;
	--no-debug) debug=0; shift ;;
	--only-debug) distro=0; shift ;;
	--guest-cmd) guest_cmd=${2:?}; shift 2 ;;
	--) shift; break ;;
	-*) echo "check: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done

passed=0 failed=0 skipped=0
problems=()
timings=()

now() { date +%s; }
phase_start=
begin() { phase_start=$(now); echo "==== check: $1"; }
end() { timings+=("$(printf '%-30s %5ds' "$1" $(($(now) - phase_start)))"); }
# A build step failing is one failed check, named in the summary.
step() { # step NAME CMD...
	local name=$1
	shift
	begin "$name"
	step_ok=1
	if "$@"; then
		end "$name"
	else
		step_ok=0
		end "$name"
		failed=$((failed + 1))
		problems+=("$name failed")
		echo "==== check: $name FAILED" >&2
	fi
}

# ---- results: TAP streams, guests ------------------------------------

tap_count() { # tap_count NAME FILE: add a TAP stream's results to the totals
	local p s f line
	knames+=("$1")
	if [ ! -s "$2" ]; then
		kresult[$1]="no results"
		return 0
	fi
	p=$(grep -cE '^ok [0-9]+' "$2" || true)
	s=$(grep -ciE '^ok [0-9]+.*# *skip' "$2" || true)
	f=$(grep -cE '^not ok [0-9]+' "$2" || true)
	passed=$((passed + p - s)) skipped=$((skipped + s)) failed=$((failed + f))
	while IFS= read -r line; do
		problems+=("$1: $line")
	done < <(grep -E '^not ok [0-9]+' "$2" || true)
	kresult[$1]="$((p - s)) passed, $f failed, $s skipped"
}
declare -A kresult=()
knames=()
# host_tests NAME DIR: `make -C DIR check|test`'s TAP; a run that ends
# without a single result (a build error) is one failure.
host_tests() {
	local name=$1 tap=build/check/$1.tap
	begin "$name tests"
	mkdir -p build/check
	make -s -C "$2" "$3" >"$tap" 2>&1 || true
	end "$name tests"
	tap_count "host: $name" "$tap"
	if ! grep -qE '^(not )?ok [0-9]+' "$tap"; then
		failed=$((failed + 1))
		problems+=("host: $name: no test results (see $tap)")
	fi
}
# Every guest gets the NICs selftests/e1000e/*.sh expect: nic0 and nic1
# cabled to each other, nic2 fed by the host generator (free UDP ports);
# and nic3, a virtio-net NIC also fed by the generator, for
# selftests/virtio.sh.
guest_nics=(--nic e1000e-pair --nic e1000e-dgram --nic virtio-dgram)
# guest_run NAME TIMEOUT RUNNER-ARGS...: boot a guest for kernel NAME and
# run the selftests in it; everything it leaves is in build/check/NAME/.
guest_run() {
	local k=$1 gtimeout=$2 dir
	shift 2
	dir=$top/build/check/$k
	rm -rf "$dir"
	mkdir -p "$dir"
	if [ "$guest_cmd" = selftests/run_guest.sh ] && [ ! -x selftests/run_guest.sh ]; then
		echo "check: selftests/run_guest.sh missing" >"$dir/missing"
		return 0
	fi
	scripts/vm/run "$@" --timeout "$gtimeout" --run-dir "$dir" -- "$guest_cmd" ||
		echo "$?" >"$dir/exit"
}
# guest_account NAME: add what the guest for NAME left to the totals.
guest_account() {
	local k=$1 dir=$top/build/check/$1 vrc tap f verdict cause note boot
	if [ -f "$dir/missing" ]; then
		failed=$((failed + 1))
		problems+=("$k: $(cat "$dir/missing")")
		knames+=("$k")
		return
	fi
	vrc=$(cat "$dir/exit" 2>/dev/null || echo 0)
	tap=$dir/share/stdout
	tap_count "$k" "$tap"
	f=$(grep -cE '^not ok [0-9]+' "$tap" 2>/dev/null || true)

	verdict=$(sed -n 's/.*verdict=\([a-z]*\).*/\1/p' "$dir/result" 2>/dev/null || true)
	cause=$(sed -n 's/.* cause=//p' "$dir/result" 2>/dev/null || true)
	note=
	if [ "$verdict" != ok ]; then
		failed=$((failed + 1))
		problems+=("$k: guest: ${cause:-runner failed (exit $vrc)}")
		note=", guest FAILED: ${cause:-exit $vrc}"
	elif [ "$vrc" != 0 ] && [ "${f:-0}" = 0 ]; then
		# The command failed without saying which test: still a failure.
		failed=$((failed + 1))
		problems+=("$k: $guest_cmd exited $vrc with no failing test")
		note=", exit $vrc"
	fi
	boot=$(sed -n 's/.*boot_s=\([^ ]*\).*/\1/p' "$dir/result" 2>/dev/null || true)
	kresult[$k]="${kresult[$k]:-no results} (boot ${boot:--}s)$note"
}

# ---- the debug kernel, the guest pool ---------------------------------

# The debug kernel (cached, or built at full speed beside the common
# build: nothing else needs the CPUs then). It reports through files in
# $lane: dir (the cache dir) or failed, and timings.
kernel_build() {
	local dk t0
	t0=$(now)
	if dk=$(scripts/debug-kernel.sh build); then
		echo "$dk" >"$lane/dir"
	else
		echo "debug kernel build failed (see scripts/debug-kernel.sh)" >>"$lane/failed"
	fi
	printf '%-30s %5ds\n' "debug kernel" $(($(now) - t0)) >>"$lane/timings"
}

# Guest jobs: each boots one guest and runs a part of the selftests, so
# six guests share the two CPUs, two at a time, and no guest runs beside
# the kernel build, which halves a TCG guest's speed. A job is
# "KIND:PART" with KIND a distro kernel or "debug".
#
# Every test runs in full on 6.1 (run_guest.sh's "core" and "e1000e"
# halves, this one in two guests, e1000e-a and e1000e-b) and its core
# half again on 6.12, with the smoke sets of
# bpftrace.sh and virtio.sh (see job_run).
# The debug kernel (KASAN, lockdep, kmemleak, UBSAN, DMA-API debugging,
# refcount trackers) runs five to ten times slower than a distro kernel
# under TCG, so it runs what its checkers add to: every C test of the
# socket family (persistent rings' takeovers included), the module's
# reload, ringcount's pcapng read back by tshark and the fuzzer in one
# guest ("core"); in the other ("paths") the XDP path's socket and queue
# cases, its link taken away, and the 82574L's zero-copy and transmit
# rings set up, refused, killed, spliced and taken away (RC_XDP_ONLY and
# RC_E1000E_ONLY pick the cases; the others show as skipped there). Its
# XDP cases run on both paths, the kfunc's copy and the redirect, as
# the kernel has BTF (scripts/debug-kernel.config).
# The 82574L areas run in two guests, run_guest.sh's halves "e1000e-a"
# and "e1000e-b", so that the lanes can come out even (6.1's e1000e as
# one guest, 805 s, left them at 2206 and 2063 s in the warm run on
# 30bcb6d).
debug_core="socket_api receive ring wakeup modes cluster span cutoff lifecycle hardening persist lifecycle.sh tools.sh"
debug_paths="xdp.sh xdp_link.sh e1000e/zerocopy.sh e1000e/txring.sh"
debug_core_env=(-e RC_FUZZ_SECONDS=60 -e RC_FUZZ_SEGMENT=60)
# kmemleak tracks every allocation, a third or more of a debug guest's
# time under TCG (receive, hardening and cluster, two guests side by
# side: 375 s with it, 236 s with kmemleak=off; adding no_debug_objects
# and dma_debug=off saved nothing more). make check never asks it for a
# scan (the automatic scan is off in this kernel), so there it checks
# nothing; make soak, which scans, keeps it on.
debug_append=kmemleak=off
# xdp.sh runs its cases on both XDP paths there (the kernel has BTF):
# 10 queue-bound binds under traffic on each, 20 in all, as before.
debug_paths_env=(
	-e "RC_XDP_ONLY=xdp_takes gone_after_close gone_after_kill queue_repeat target_quiet no_target cluster_rr filter_beside mode1_copy foreign_kfunc mode1_hook reload unregister netns_local"
	-e RC_XDP_REPEAT=10
	-e "RC_E1000E_ONLY=t_refuse t_splice t_kill t_gone t_zc_nobody t_e1000e t_down t_mtu t_account_drv t_works"
)
# Seconds per guest, boot included: about one and a half times the
# longest measured duration (docs/CI.md; the cold run on 8f6d0e0: debug
# paths 1011, 6.12's core 899, 6.1's core 1470 with its bpftrace.sh 773,
# 6.1's e1000e 1133 for both halves, about 700 for the longer; the warm
# run on 30bcb6d: debug core 662).
# RINGCAP_CHECK_TIMEOUT and RINGCAP_CHECK_TIMEOUT_DEBUG override them for
# distro and debug guests.
declare -A job_timeout=(
	[debug:core]=${RINGCAP_CHECK_TIMEOUT_DEBUG:-1000}
	[debug:paths]=${RINGCAP_CHECK_TIMEOUT_DEBUG:-2200}
	[e1000e-a]=${RINGCAP_CHECK_TIMEOUT:-1100}
	[e1000e-b]=${RINGCAP_CHECK_TIMEOUT:-1100}
	[core]=${RINGCAP_CHECK_TIMEOUT:-2200}
)
job_name() { # KIND:PART -> the results' name
	local kind=${1%%:*}
	[ "$kind" != debug ] || kind=$(cat "$lane/krel")
	echo "$kind/${1#*:}"
}
job_run() { # KIND:PART
	local j=$1 kind=${1%%:*} part=${1#*:} name dk krel t tests env=()
	name=$(job_name "$j")
	t=${job_timeout[$j]:-${job_timeout[$part]}}
	if [ "$kind" = debug ]; then
		dk=$(cat "$lane/dir")
		krel=$(cat "$lane/krel")
		if [ "$part" = core ]; then
			tests=$debug_core env=("${debug_core_env[@]}")
		else
			tests=$debug_paths env=("${debug_paths_env[@]}")
		fi
		guest_run "$name" "$t" --kernel-image "$dk/bzImage" \
			--append "$debug_append" "${guest_nics[@]}" \
			-e "RC_TESTS=$tests" \
			-e "RC_RINGCAP_KO=$top/selftests/build/$krel/ringcap.ko" \
			-e "RC_E1000E_KO=$top/selftests/build/$krel/ringcap_e1000e.ko" \
			-e RC_TEST_TIMEOUT=$((t - 120)) "${env[@]}"
	else
		# bpftrace.sh and virtio.sh in full on the first kernel, their
		# smoke sets on the others: each workload of bpftrace.sh is a
		# minute of LLVM; virtio.sh there leaves out the cases that
		# repeat another's path (three readers, round robin, SIGKILL,
		# the mode switches: 50 s).
		[ "$kind" = "${kvers[0]}" ] || env=(-e RC_BPFTRACE_SMOKE=1
			-e "RC_VIRTIO_ONLY=t_one t_bytes t_flow t_xdp_takes t_xdp_closed t_xdp_queue0 t_xdp_unbind")
		# xdp.sh's 20 queue-bound binds under traffic are the debug
		# kernel's, whose slowness showed the race; 4 here (5 s each).
		env+=(-e RC_XDP_REPEAT=4)
		guest_run "$name" "$t" -k "$kind" "${guest_nics[@]}" -e "RC_TESTS=$part" \
			-e RC_TEST_TIMEOUT=$((t - 120)) "${env[@]}"
	fi
}
# worker: take the next unclaimed job (mkdir is the atomic claim) until
# none is left; each job's duration goes to $lane/timings.
worker() {
	local j t0
	for j in "${gjobs[@]}"; do
		mkdir "$lane/claim.${j//[:\/]/_}" 2>/dev/null || continue
		t0=$(now)
		echo "==== check: guest $(job_name "$j") started"
		mkdir -p "$lane/log"
		job_run "$j" >"$lane/log/${j//[:\/]/_}" 2>&1 </dev/null
		printf '%-30s %5ds\n' "guest $(job_name "$j")" $(($(now) - t0)) >>"$lane/timings"
		echo "==== check: guest $(job_name "$j") done in $(($(now) - t0))s"
	done
}
# guest_programs NAME: each test program's duration in that guest, so
# drift shows (run_guest.sh's "# ---- PROG: exit N, N results, N s").
guest_programs() {
	sed -n 's/^# ---- \([^ ]*\): exit [^,]*, [0-9]* results, \([0-9]*\) s$/\1 \2s/p' \
		"$top/build/check/$1/share/stdout" 2>/dev/null | tr '\n' ' '
}

# ---- the run ---------------------------------------------------------

t_all=$(now)
if [ "$deps" = 1 ]; then
	begin deps
	scripts/deps.sh
	end deps
fi

if [ $# -gt 0 ]; then
	kvers=("$@")
else
	read -r -a kvers <<<"$(scripts/kernels.sh)"
fi
echo "==== check: kernels ${kvers[*]}"
lane=$top/build/check/lane
rm -rf "$lane"
mkdir -p "$lane"
kpid=
if [ "$debug" = 1 ]; then
	echo "==== check: debug kernel build started (build/check/lane/kernel.log)"
	kernel_build >"$lane/kernel.log" 2>&1 </dev/null &
	kpid=$!
fi

step userland make -C userland
# The drop-in libpcap and its test program, which the guests run.
step libpcap-ring make -C libpcap-ring all tests
# Host-side tests of libringcap's reader, the tools, the libpcap backend,
# the bench's instruction count and the sensors demo's report (no module
# needed).
if [ "$distro" = 1 ]; then
	host_tests userland userland test
	host_tests libpcap-ring libpcap-ring check
	host_tests scripts scripts/tests check
fi
step "module W=1" scripts/build-module.sh --strict "${kvers[@]}"
step selftests make -C selftests all KVERS="${kvers[*]}"
# Installed as a user does: make deb, then apt-get install ./*.deb (DKMS
# builds the modules); the host tests above already ran the unit tests.
# Nothing is rebuilt or reinstalled when the tree has not changed.
step packages env DEB_BUILD_OPTIONS=nocheck scripts/install-debs.sh "${kvers[@]}"

dbg=0
if [ -n "$kpid" ]; then
	begin "debug kernel (waiting)"
	wait "$kpid" || true
	end "debug kernel (waiting)"
	cat "$lane/kernel.log"
	if [ -f "$lane/dir" ]; then
		dk=$(cat "$lane/dir")
		krel=$(cat "$dk/kernelrelease")
		echo "$krel" >"$lane/krel"
		step "selftests $krel" make -C selftests modules KVERS="$krel" KDIR="$dk/build"
		dbg=$step_ok
	fi
fi
# The jobs in the order the two workers take them. The 82574L areas run
# in full on the first distro kernel (6.1) only, in two guests: a third
# would add about 15 minutes to a run that must fit in CI's 90. With the
# measured durations (docs/CI.md, the warm run on 30bcb6d: 6.1's core
# 1048, debug paths 995, 6.12's core 739, debug core 662, 6.1's e1000e
# 805 for both halves, 346 and 436 s of programs) this order gives two
# lanes within a few per cent of each other, whichever worker takes
# which job (the warm run on b316fd0: 6.1's core, the debug core and
# e1000e-a in 1622 s; the debug paths, 6.12's core and e1000e-b in
# 1733 s; the warm run on 30bcb6d, with five guests, had 2206 and 2063).
gjobs=()
[ "$distro" = 0 ] || gjobs+=("${kvers[0]}:core")
[ "$dbg" = 0 ] || gjobs+=(debug:paths)
if [ "$distro" = 1 ]; then
	for k in "${kvers[@]:1}"; do gjobs+=("$k:core"); done
fi
[ "$dbg" = 0 ] || gjobs+=(debug:core)
[ "$distro" = 0 ] || gjobs+=("${kvers[0]}:e1000e-b" "${kvers[0]}:e1000e-a")
begin "guests (two at a time)"
worker &
wpid=$!
sleep 20	# the two guests' boots (and their QEMU start-up) apart
worker
wait "$wpid" || true
end "guests (two at a time)"
for j in "${gjobs[@]}"; do
	echo "==== check: guest $(job_name "$j"), its output"
	cat "$lane/log/${j//[:\/]/_}" 2>/dev/null || echo "(none)"
done
[ ! -f "$lane/timings" ] || mapfile -t -O "${#timings[@]}" timings <"$lane/timings"
if [ -f "$lane/failed" ]; then
	while IFS= read -r line; do
		failed=$((failed + 1))
		problems+=("$line")
	done <"$lane/failed"
fi
for j in "${gjobs[@]}"; do
	guest_account "$(job_name "$j")"
done

echo
echo "==== check: results"
for k in "${knames[@]}"; do
	printf '  %-31s %s\n' "$k" "${kresult[$k]:-not run}"
done
echo "  test programs (seconds, per guest):"
for j in "${gjobs[@]}"; do
	printf '    %s: %s\n' "$(job_name "$j")" "$(guest_programs "$(job_name "$j")")"
done
if [ ${#problems[@]} -gt 0 ]; then
	echo "  failures:"
	printf '    %s\n' "${problems[@]}"
fi
echo "  timings:"
printf '    %s\n' "${timings[@]}"
printf '    %-30s %5ds\n' total $(($(now) - t_all))
summary="$passed passed, $failed failed"
[ "$skipped" = 0 ] || summary+=", $skipped skipped"
echo "$summary"
[ "$failed" = 0 ]
