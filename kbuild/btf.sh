#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Give a module its BTF where the kernel's headers cannot: DKMS runs this
# after the build (dkms.conf). ringcap's XDP kfunc (module/kfunc.c) exists
# for BPF programs only if the module carries BTF, split on the kernel's
# own, with its .BTF_ids filled. kbuild does both when the headers ship a
# vmlinux (Debian's 6.12 do); Debian's 6.1 headers ship none, so the base
# BTF comes from the kernel image in /boot, pahole (package dwarves)
# encodes the module's, and btfids.py fills the ids. Without them the
# module works all the same, on the XDP redirect path (docs/XDP.md), and
# this says why.
#
# usage: btf.sh KVER KERNEL_SOURCE_DIR MODULE.ko
set -eu

kver=$1 ksrc=$2 ko=$3
here=$(dirname "$0")
skip() {
	echo "btf.sh: $ko keeps no BTF for $kver: $*;" \
		"XDP capture takes the redirect path" >&2
	exit 0
}

grep -q '^CONFIG_DEBUG_INFO_BTF_MODULES=y' "$ksrc/.config" 2>/dev/null ||
	skip "the kernel has no CONFIG_DEBUG_INFO_BTF_MODULES"
if readelf -S "$ko" | grep -q ' \.BTF '; then
	echo "btf.sh: $ko: BTF made by kbuild"
	exit 0
fi
command -v pahole >/dev/null || skip "no pahole (install dwarves)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The running kernel's BTF is the base if it is the one built for;
# otherwise the image's, whose payload the x86 boot header locates
# (setup_sects at 0x1f1, payload_offset and _length at 0x248).
if [ "$(uname -r)" = "$kver" ] && [ -r /sys/kernel/btf/vmlinux ]; then
	base=/sys/kernel/btf/vmlinux
else
	img=/boot/vmlinuz-$kver
	[ -r "$img" ] || skip "no $img to take the kernel's BTF from"
	python3 - "$img" "$tmp/payload" <<'PY' || skip "no payload in $img"
import struct, sys
d = open(sys.argv[1], 'rb').read()
setup = d[0x1f1] or 4
off, length = struct.unpack_from('<II', d, 0x248)
start = (setup + 1) * 512 + off
open(sys.argv[2], 'wb').write(d[start:start + length])
PY
	case $(od -An -tx1 -N4 "$tmp/payload" | tr -d ' ') in
	fd377a58) unpack="xz -dc --single-stream" ;;
	28b52ffd) unpack="zstd -dcq" ;;
	1f8b*) unpack="gzip -dc" ;;
	*) skip "$img's compression is not one handled here" ;;
	esac
	# Trailing bytes (the decompressed size) make some tools complain.
	$unpack <"$tmp/payload" >"$tmp/vmlinux" 2>/dev/null || true
	readelf -S "$tmp/vmlinux" 2>/dev/null | grep -q ' \.BTF ' ||
		skip "no BTF found in $img"
	base=$tmp/vmlinux
fi

# The kernel's own choice of pahole options for its version.
flags=$(PAHOLE=pahole sh "$ksrc/scripts/pahole-flags.sh" 2>/dev/null || true)
LLVM_OBJCOPY=objcopy pahole -J $flags --btf_base "$base" "$ko"
python3 "$here/btfids.py" "$base" "$ko"
