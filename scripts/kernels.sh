#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the kernels ringcap is built and tested for, space separated: for
# each supported series, the newest one installed with both an image in
# /boot (to boot a guest) and headers (to build modules). Fails if a series
# is missing, since a silently skipped kernel is an untested kernel.
#
# RINGCAP_KERNELS="KVER..." overrides the choice (e.g. to test one kernel).
set -euo pipefail

series="6.1 6.12"

if [ -n "${RINGCAP_KERNELS:-}" ]; then
	echo "$RINGCAP_KERNELS"
	exit 0
fi

out=()
for s in $series; do
	k=$(cd /lib/modules && ls -d "$s".*-amd64 2>/dev/null | sort -V |
		while read -r v; do
			[ -r "/boot/vmlinuz-$v" ] && [ -e "/lib/modules/$v/build/Makefile" ] && echo "$v"
		done | tail -n 1)
	if [ -z "$k" ]; then
		echo "kernels: no $s kernel with image and headers (scripts/deps.sh)" >&2
		exit 1
	fi
	out+=("$k")
done
echo "${out[*]}"
