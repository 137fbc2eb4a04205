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
#   RINGCAP_CHECK_TIMEOUT  seconds per guest, boot included (default 1200;
#                          the debug kernel gets three times that)
#
# The debug tier builds scripts/debug-kernel.sh's KASAN/lockdep/kmemleak/
# UBSAN kernel, or reuses its cache (about 15 minutes the first time on 2
# cores), builds ringcap.ko and the sim against it and runs the same
# selftests and then 60 s of the fuzzer (selftests/fuzz/fuzz.sh, whose
# results count like the others'); the runner fails the guest on any
# kernel report. It is the longest part, so it runs beside the rest: its
# kernel builds at low priority from the start, and its guest boots as
# soon as that kernel and the common build are ready, while the distro
# guests run one after the other. A TCG guest keeps one host CPU busy, so
# on two CPUs the two lanes hardly slow each other. Its output is shown
# once it is done (build/check/debug-lane.log).
#
# Build steps that fail count as one failed test each and the run goes on,
# so one report shows everything. A guest that times out, panics or logs a
# kernel warning counts as one more failure. The last line is always
# "N passed, N failed[, N skipped]"; the exit status is 0 only without
# failures. Logs: build/check/<KVER>/ (console.log, result, share/).
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
timeout=${RINGCAP_CHECK_TIMEOUT:-1200}

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
	if "$@"; then
		end "$name"
	else
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

# The debug lane, in the background: kernel (cached or built at low
# priority), its modules once the common build is done, then its guest.
# It reports through files: status (what failed), timings, its output.
# Its guest is the run's long pole, so the e1000e volume tests send less
# and cycle 8 times instead of 20: what this kernel adds is its checkers
# (KASAN, lockdep, kmemleak), which see every path in the first cycles;
# the release kernels still run 20.
debug_lane() {
	local dk krel t0 t1
	t0=$(now)
	if ! dk=$(nice -n 19 env JOBS=2 scripts/debug-kernel.sh build); then
		echo "debug kernel build failed (see scripts/debug-kernel.sh)" >>"$lane/failed"
		return
	fi
	t1=$(now)
	printf '%-30s %5ds\n' "debug kernel" $((t1 - t0)) >>"$lane/timings"
	krel=$(cat "$dk/kernelrelease")
	echo "$krel" >"$lane/krel"
	# Until the main lane has built the common parts (or has died).
	until [ -e "$lane/common-done" ]; do
		kill -0 $$ 2>/dev/null || return
		sleep 2
	done
	t0=$(now)
	if ! make -C selftests modules KVERS="$krel" KDIR="$dk/build"; then
		echo "selftests $krel failed" >>"$lane/failed"
	fi
	t1=$(now)
	printf '%-30s %5ds\n' "selftests $krel" $((t1 - t0)) >>"$lane/timings"
	guest_run "$krel" $((timeout * 3)) --kernel-image "$dk/bzImage" "${guest_nics[@]}" \
		-e "RC_RINGCAP_KO=$top/selftests/build/$krel/ringcap.ko" \
		-e "RC_E1000E_KO=$top/selftests/build/$krel/ringcap_e1000e.ko" \
		-e RC_E1000E_FRAMES=20000 -e RC_E1000E_TCP_MB=2 -e RC_E1000E_CYCLES=8 \
		-e RC_TEST_TIMEOUT=2400 \
		-e RC_FUZZ_SECONDS=60 -e RC_FUZZ_SEGMENT=60
	printf '%-30s %5ds\n' "guest $krel" $(($(now) - t1)) >>"$lane/timings"
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
lane=$top/build/check/debug-lane
rm -rf "$lane" "$lane.log"
mkdir -p "$lane"
lane_pid=
if [ "$debug" = 1 ]; then
	echo "==== check: debug lane started (build/check/debug-lane.log)"
	debug_lane >"$lane.log" 2>&1 </dev/null &
	lane_pid=$!
fi

step userland make -C userland
# The drop-in libpcap and its test program, which the guests run.
step libpcap-ring make -C libpcap-ring all tests
# Host-side tests of libringcap's reader, the tools and the libpcap backend
# (no module needed).
if [ "$distro" = 1 ]; then
	host_tests userland userland test
	host_tests libpcap-ring libpcap-ring check
fi
step "module W=1" scripts/build-module.sh --strict "${kvers[@]}"
step selftests make -C selftests all KVERS="${kvers[*]}"
# Installed as a user does: make deb, then apt-get install ./*.deb (DKMS
# builds the modules); the host tests above already ran the unit tests.
step packages env DEB_BUILD_OPTIONS=nocheck scripts/install-debs.sh "${kvers[@]}"
touch "$lane/common-done"

if [ "$distro" = 1 ]; then
	for k in "${kvers[@]}"; do
		begin "guest $k"
		guest_run "$k" "$timeout" -k "$k" "${guest_nics[@]}"
		end "guest $k"
		guest_account "$k"
	done
fi

if [ -n "$lane_pid" ]; then
	begin "debug lane (waiting)"
	wait "$lane_pid" || true
	end "debug lane (waiting)"
	echo "==== check: the debug lane's output (build/check/debug-lane.log)"
	cat "$lane.log"
	[ ! -f "$lane/timings" ] || mapfile -t -O "${#timings[@]}" timings < <(sed 's/^/(debug lane) /' "$lane/timings")
	if [ -f "$lane/failed" ]; then
		while IFS= read -r line; do
			failed=$((failed + 1))
			problems+=("$line")
		done <"$lane/failed"
	fi
	[ ! -f "$lane/krel" ] || guest_account "$(cat "$lane/krel")"
fi

echo
echo "==== check: results"
for k in "${knames[@]}"; do
	printf '  %-24s %s\n' "$k" "${kresult[$k]:-not run}"
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
