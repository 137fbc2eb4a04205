#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: build what the demo needs, install ringcap with DKMS and,
# in a QEMU guest on the 6.1 kernel, count frames injected into a
# simulated ringcap-aware device with ringcount (scripts/demo-guest.sh).
#
#   scripts/demo.sh [FRAMES]           default 10000
#   RINGCAP_DEMO_KERNEL=KVER           another kernel than the 6.1 one
#   RINGCAP_DEMO_MODE=0|1|2            transparent_mode for the capture
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
scripts/deps.sh
k=${RINGCAP_DEMO_KERNEL:-$(scripts/kernels.sh | tr ' ' '\n' | grep '^6\.1\.' | head -n 1)}
[ -n "$k" ] || { echo "demo: no 6.1 kernel (scripts/deps.sh)" >&2; exit 1; }

make -s -C userland
make -s -C selftests all KVERS="$k"
scripts/dkms-install.sh "$k"
env=()
[ -z "${RINGCAP_DEMO_MODE:-}" ] || env=(-e "RINGCAP_DEMO_MODE=$RINGCAP_DEMO_MODE")
exec scripts/vm/run -k "$k" --timeout 600 "${env[@]+"${env[@]}"}" -- \
	scripts/demo-guest.sh "${1:-10000}"
