#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: build what the demo needs, install ringcap and
# ringcap_e1000e with DKMS and, in a QEMU guest on the 6.1 kernel, capture
# host-generated traffic from the emulated 82574L in transparent mode 2
# with Debian's tcpdump, unchanged, through ringcap (libpcap-ring), say
# where every frame went, then offer the same load to a ringcount per RX
# queue (scripts/demo-guest.sh).
#
#   scripts/demo.sh [FRAMES]           default 200000
#   RINGCAP_DEMO_KERNEL=KVER           another kernel than the 6.1 one
#   RINGCAP_DEMO_MODE, _RATE, _SIZE, _COMPARE   see scripts/demo-guest.sh
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
scripts/deps.sh
k=${RINGCAP_DEMO_KERNEL:-$(scripts/kernels.sh | tr ' ' '\n' | grep '^6\.1\.' | head -n 1)}
[ -n "$k" ] || { echo "demo: no 6.1 kernel (scripts/deps.sh)" >&2; exit 1; }

make -s -C userland
make -s -C libpcap-ring
scripts/install-debs.sh "$k"
env=()
for v in MODE RATE SIZE COMPARE; do
	eval "val=\${RINGCAP_DEMO_$v:-}"
	[ -z "$val" ] || env+=(-e "RINGCAP_DEMO_$v=$val")
done
exec scripts/vm/run -k "$k" --timeout 900 --nic e1000e-dgram "${env[@]+"${env[@]}"}" -- \
	scripts/demo-guest.sh "${1:-200000}"
