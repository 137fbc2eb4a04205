#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything the build, the tests and the demo need on Debian 12.
# Idempotent: packages already present are skipped, so a warm machine pays
# only for one `dpkg -s` per package.
set -euo pipefail

# Newest 6.12 kernel that bookworm-security ships with both the unsigned
# image and its headers (the signed image needs shim; the unsigned one boots
# fine under QEMU with -kernel).
pick_612() {
	apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' |
		awk '{print $1}' | sed 's/^linux-headers-//' | sort -V |
		while read -r k; do
			apt-cache show "linux-image-$k-unsigned" >/dev/null 2>&1 && echo "$k"
		done | tail -n 1
}

PKGS="build-essential dkms kmod cpio gzip busybox-static qemu-system-x86
      bpftrace libpcap-dev tcpdump iproute2 ethtool python3
      linux-image-amd64 linux-headers-amd64
      flex bison bc libelf-dev libssl-dev xz-utils
      dpkg-dev debhelper dh-dkms lintian pkgconf libdbus-1-dev libbluetooth-dev tshark zlib1g-dev libzstd-dev
      clang libbpf-dev xdp-tools netsniff-ng fprobe pmacct dwarves zstd
      python3-scipy"

# `deps.sh --bench`: also what `make bench` needs for its plots, its
# profile (perf, which runs in the 6.1 guest) and its AF_XDP peer
# (dpdk-testpmd, in dpdk-dev, and DPDK's AF_XDP PMD).
[ "${1:-}" != --bench ] || PKGS+=" python3-matplotlib linux-perf dpdk-dev librte-net-af-xdp23"
# `deps.sh --sensors`: the exporter and the collector of `make demo-sensors`.
[ "${1:-}" != --sensors ] || PKGS+=" softflowd nfdump"

missing() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || echo "$p"
	done
}

need=$(missing $PKGS)
k612=$(ls -d /usr/src/linux-headers-6.12.*+deb12-amd64 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$k612" ] || [ -n "$need" ] || [ -n "$(missing linux-source-6.12)" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	k=$(pick_612)
	[ -n "$k" ] || { echo "deps: no 6.12 kernel found in apt" >&2; exit 1; }
	need="$need $(missing linux-image-$k-unsigned linux-headers-$k linux-source-6.12)"
	echo "deps: installing:" $need
	apt-get install -y -qq --no-install-recommends $need
fi
echo "deps: all present"
