#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the package's kernel modules for each given kernel through the
# top-level Kbuild, the one DKMS uses, with W=1.
#
#   build-module.sh [--strict] [--sim] [--kdir DIR] [KVER...]
#                                           default: scripts/kernels.sh
#
# Each kernel gets a staging copy of the source in build/KVER/src: kbuild
# writes its objects beside the sources, and the 6.1 kbuild has no way to
# put them elsewhere (MO= came in 6.13), so two kernels cannot share one
# tree. Copies keep their timestamps, so a rebuild recompiles only what
# changed. The modules end up in build/KVER/src/<dir>/*.ko, the log in
# build/KVER/module.log.
#
# --strict  fail if the compiler, modpost or objtool printed any warning,
#           or if the built ringcap.ko's version differs from VERSION
# --sim     also the test device, selftests/ringcap_sim (RINGCAP_SIM=m)
# --kdir    the kernel tree to build against (one KVER; the debug kernel),
#           instead of /lib/modules/KVER/build
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
strict=0
sim=()
kdir_opt=
while [ $# -gt 0 ]; do
	case $1 in
	--strict) strict=1; shift ;;
	--sim) sim=(RINGCAP_SIM=m); shift ;;
	--kdir) kdir_opt=${2:?}; shift 2 ;;
	*) break ;;
	esac
done
if [ $# -eq 0 ]; then
	read -r -a kvers <<<"$("$top/scripts/kernels.sh")"
else
	kvers=("$@")
fi
version=$(<"$top/VERSION")
jobs=${JOBS:-$(nproc)}

fail=0
for k in "${kvers[@]}"; do
	kdir=${kdir_opt:-/lib/modules/$k/build}
	[ -e "$kdir/Makefile" ] || { echo "build-module: no headers for $k ($kdir)" >&2; exit 1; }
	out=$top/build/$k
	src=$out/src
	mkdir -p "$src"
	files=$(cd "$top" && scripts/pkg-files.sh | LC_ALL=C sort)
	(cd "$top" && printf '%s\n' "$files" | xargs -r -d '\n' cp --parents -pu -t "$src")
	# A source the tree no longer has must not linger in the copy, where
	# an include path could still find it.
	(cd "$src" && find . -type f \( -name '*.[ch]' -o -name Kbuild \) ! -name '*.mod.c' | sed 's|^\./||' |
		LC_ALL=C sort | LC_ALL=C comm -23 - <(printf '%s\n' "$files") |
		xargs -r -d '\n' rm -f --)

	log=$out/module.log
	if ! make -C "$kdir" M="$src" W=1 -j"$jobs" "${sim[@]+"${sim[@]}"}" modules >"$log" 2>&1; then
		cat "$log" >&2
		echo "build-module: $k: build FAILED (log $log)" >&2
		fail=1
		continue
	fi
	warnings=$(grep -i 'warning' "$log" || true)
	built=$(cd "$src" && find . -name '*.ko' | sed 's|^\./||' | sort | tr '\n' ' ')
	if [ -n "$warnings" ]; then
		echo "$warnings" >&2
		echo "build-module: $k: $(echo "$warnings" | wc -l) warning line(s) with W=1 (log $log)" >&2
		[ "$strict" = 0 ] || fail=1
	else
		echo "build-module: $k: ok, W=1 clean: $built"
	fi
	v=$(modinfo -F version "$src/module/ringcap.ko" 2>/dev/null || true)
	if [ "$v" != "$version" ]; then
		echo "build-module: $k: ringcap.ko says version '$v', VERSION says '$version'" >&2
		[ "$strict" = 0 ] || fail=1
	fi
done
exit "$fail"
