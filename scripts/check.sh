#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: build everything, install the modules with DKMS and run
# the selftests in one QEMU guest per supported kernel.
#
#   scripts/check.sh [--no-deps] [--guest-cmd CMD] [KVER...]
#
#   --no-deps        skip scripts/deps.sh (no apt)
#   --guest-cmd CMD  run CMD in the guests instead of selftests/run_guest.sh
#                    (to iterate on one test; its output must be TAP)
#   KVER...          kernels to test (default: scripts/kernels.sh)
#   RINGCAP_CHECK_TIMEOUT  seconds per guest, boot included (default 900)
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
guest_cmd=selftests/run_guest.sh
while [ $# -gt 0 ]; do
	case $1 in
	--no-deps) deps=0; shift ;;
	--guest-cmd) guest_cmd=${2:?}; shift 2 ;;
	--) shift; break ;;
	-*) echo "check: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
timeout=${RINGCAP_CHECK_TIMEOUT:-900}

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

[ ! -f userland/Makefile ] || step userland make -C userland
step "module W=1" scripts/build-module.sh --strict "${kvers[@]}"
[ ! -f selftests/Makefile ] || step selftests make -C selftests all KVERS="${kvers[*]}"
step dkms scripts/dkms-install.sh "${kvers[@]}"

# One guest per kernel, one after the other: each takes both host CPUs,
# and the timing-sensitive tests (wake-up timers) want them undisturbed.
declare -A kresult=()
for k in "${kvers[@]}"; do
	begin "guest $k"
	dir=$top/build/check/$k
	rm -rf "$dir"
	mkdir -p "$dir"
	if [ "$guest_cmd" = selftests/run_guest.sh ] && [ ! -x selftests/run_guest.sh ]; then
		echo "check: selftests/run_guest.sh missing" >&2
		failed=$((failed + 1))
		problems+=("$k: selftests/run_guest.sh missing")
		end "guest $k"
		continue
	fi
	vrc=0
	scripts/vm/run -k "$k" --timeout "$timeout" --run-dir "$dir" -- "$guest_cmd" || vrc=$?
	end "guest $k"

	tap=$dir/share/stdout
	p=$(grep -cE '^ok [0-9]+' "$tap" 2>/dev/null || true)
	s=$(grep -ciE '^ok [0-9]+.*# *skip' "$tap" 2>/dev/null || true)
	f=$(grep -cE '^not ok [0-9]+' "$tap" 2>/dev/null || true)
	p=$((${p:-0} - ${s:-0}))
	passed=$((passed + p)) skipped=$((skipped + ${s:-0})) failed=$((failed + ${f:-0}))
	while IFS= read -r line; do
		problems+=("$k: $line")
	done < <(grep -E '^not ok [0-9]+' "$tap" || true)

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
	kresult[$k]="$p passed, ${f:-0} failed, ${s:-0} skipped (boot ${boot:--}s)$note"
done

echo
echo "==== check: results"
for k in "${kvers[@]}"; do
	printf '  %-22s %s\n' "$k" "${kresult[$k]:-not run}"
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
