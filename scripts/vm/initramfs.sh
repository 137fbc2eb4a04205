#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse from the cache) the guest initramfs for one kernel.
#
#   initramfs.sh MODDIR      MODDIR is /lib/modules/<kver> or any tree with a
#                            modules.dep; a missing dir means "no modules"
#                            (a kernel with virtio-pci and 9p built in)
#
# Prints the path of the cpio.gz on stdout; progress goes to stderr.
#
# The image holds static busybox, the stage-1 init, the stage-2 guest-init
# (copied to the guest's /run before switch_root) and the modules needed to
# mount the host's root over virtio-9p, plus virtio_net for a --nic
# virtio-dgram (the guest has no udev to load it when the device shows up).
# Which modules those are differs per kernel (6.1 has virtio_pci as a
# module, 6.12 has it built in; 9p pulls in netfs and, on 6.1, fscache;
# virtio_net pulls in net_failover and failover; the debug kernel has all
# of them built in), so they are found through modules.dep rather than
# listed by hand, and decompressed here because busybox insmod cannot read
# .ko.xz.
#
# Cache: ${RINGCAP_CACHE_DIR:-/var/cache/ringcap}/vm, keyed by a hash of the
# scripts, busybox and the module files, so any change to an input builds a
# new image; a build goes to a temp file renamed into place, so concurrent
# runners never see a half-written image.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
moddir=${1:?usage: initramfs.sh MODDIR}
busybox=${RINGCAP_BUSYBOX:-/bin/busybox}
cache=${RINGCAP_CACHE_DIR:-/var/cache/ringcap}/vm
# Enough to mount the host root: the PCI transport, the 9p transport, the
# fs; and the virtio NIC driver, loaded whether or not a guest has one.
targets="virtio_pci 9pnet_virtio 9p virtio_net"

msg() { echo "initramfs: $*" >&2; }

file_busybox=$(file -L "$busybox" 2>/dev/null || true)
case $file_busybox in
*statically*) ;;
*) msg "$busybox is not a static busybox (apt-get install busybox-static)"; exit 1 ;;
esac

# Module resolution: print the modules.dep paths of the targets and their
# dependencies, dependencies first. modules.dep lists the whole closure of
# each module with the one to load first at the end, hence the reverse walk.
declare -A seen=()
notes=()
dep_line() {
	grep -m 1 -E "(^|/)$1\.ko(\.xz|\.zst|\.gz)?:" "$moddir/modules.dep" || true
}
resolve() {
	local name=$1 line path deps i
	[ -z "${seen[$name]:-}" ] || return 0
	seen[$name]=1
	line=$(dep_line "$name")
	if [ -z "$line" ]; then
		notes+=("$name: not a module here (built in or absent), skipped")
		return 0
	fi
	path=${line%%:*}
	read -r -a deps <<<"${line#*:}"
	for ((i = ${#deps[@]} - 1; i >= 0; i--)); do
		local d=${deps[i]##*/}
		resolve "${d%%.ko*}"
	done
	echo "$path"
}

mods=()
if [ -f "$moddir/modules.dep" ]; then
	# Resolve in this shell (not a pipe) so `seen` spans all targets.
	list=$(mktemp)
	for t in $targets; do resolve "$t"; done >"$list"
	mapfile -t mods <"$list"
	rm -f "$list"
else
	notes+=("no $moddir/modules.dep: image without modules")
fi

# The key hashes contents, not paths: two clones of one tree share an
# image instead of pruning each other's.
key=$({
	sha256sum "$here/init" "$here/guest-init" "$here/initramfs.sh" "$busybox"
	for m in "${mods[@]}"; do sha256sum "$moddir/$m"; done
} | cut -d' ' -f1 | sha256sum | cut -c1-16)
# The tag names the kernel; the path hash keeps two trees of the same
# release (distro and debug build) from pruning each other's images.
tag=$(basename "$moddir")-$(echo "$moddir" | sha256sum | cut -c1-6)
out=$cache/initramfs-$tag-$key.cpio.gz
if [ -s "$out" ]; then
	touch "$out" 2>/dev/null || true	# in use: kept by the prune below
	echo "$out"
	exit 0
fi

for n in "${notes[@]+"${notes[@]}"}"; do msg "$n"; done
mkdir -p "$cache"
stage=$(mktemp -d)
tmp=$(mktemp "$cache/.initramfs.XXXXXX")
trap 'rm -rf "$stage" "$tmp"' EXIT

mkdir -p "$stage"/{bin,dev,proc,sys,mnt,modules}
cp "$busybox" "$stage/bin/busybox"
install -m 0755 "$here/init" "$stage/init"
install -m 0755 "$here/guest-init" "$stage/guest-init"
# The kernel opens /dev/console before running /init; without the node
# init would start with no stdin/stdout (devtmpfs is mounted only later).
mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null ||
	msg "cannot mknod /dev/console (not root?); init reopens it later"
# Numbered names make the glob order in init the load order.
n=10
for m in "${mods[@]}"; do
	base=${m##*/}
	dst=$stage/modules/$n-${base%%.ko*}.ko
	case $m in
	*.ko.xz) xz -dc "$moddir/$m" >"$dst" ;;
	*.ko.zst) zstd -qdc "$moddir/$m" >"$dst" ;;
	*.ko.gz) gzip -dc "$moddir/$m" >"$dst" ;;
	*) cp "$moddir/$m" "$dst" ;;
	esac
	n=$((n + 1))
done
msg "modules: $(cd "$stage/modules" && ls | tr '\n' ' ' | sed 's/^$/(none)/')"

(cd "$stage" && find . -mindepth 1 | sort | cpio --quiet -o -H newc -R 0:0) |
	gzip -1 >"$tmp"
chmod 0644 "$tmp"
mv "$tmp" "$out"
# Drop images of this kernel built from other inputs and unused for an
# hour: another clone's guest may be about to boot a newer one.
for old in "$cache"/initramfs-"$tag"-*.cpio.gz; do
	[ "$old" = "$out" ] || [ -z "$(find "$old" -mmin +60 2>/dev/null)" ] ||
		rm -f "$old"
done
msg "built $out"
echo "$out"
