#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) ringcap's debug kernel: Debian's linux-source-6.12 with
# KASAN, lockdep, kmemleak, UBSAN and friends, configured as allnoconfig plus
# scripts/debug-kernel.config, every guest need built in.
#
#   debug-kernel.sh build   build unless cached; print the cache dir on stdout
#   debug-kernel.sh path    print the cache dir if built, else exit 1
#   debug-kernel.sh key     print the cache key
#   debug-kernel.sh clean   remove cached builds with other keys
#
# The cache dir ($RINGCAP_CACHE_DIR/debug-kernel/<key>, by default under
# /var/cache/ringcap) holds:
#   bzImage        the kernel for `qemu -kernel` (scripts/vm/run --kernel-image)
#   build/         the built kernel tree: make -C $DIR/build M=$PWD modules
#   kernelrelease  uname -r inside the guest (6.12.N-ringcap-debug)
#   config, System.map, build.log, info
#
# The key hashes this script, the fragment, the source package version and
# the compiler, so changing any of them builds a new tree. A build happens in
# a temporary dir renamed into place when complete, so an interrupted build
# never looks cached. The tree is built in place (no O=), which keeps it
# relocatable: nothing an external module build reads holds an absolute path.
#
# Progress goes to stderr and the build log; stdout carries only the path.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self=$here/debug-kernel.sh
frag=$here/debug-kernel.config
src_pkg=linux-source-6.12
src_tar=${RINGCAP_KSRC_TAR:-/usr/src/$src_pkg.tar.xz}
cache=${RINGCAP_CACHE_DIR:-/var/cache/ringcap}/debug-kernel
jobs=${JOBS:-3}

msg() { echo "debug-kernel: $*" >&2; }
die() { msg "$*"; exit 1; }

src_version() {
	dpkg-query -W -f='${Version}' "$src_pkg" 2>/dev/null ||
		stat -c '%s-%Y' "$src_tar"
}

cache_key() {
	{
		sha256sum "$self" "$frag" | cut -d' ' -f1
		src_version
		gcc -dumpfullversion 2>/dev/null || true
	} | sha256sum | cut -c1-16
}

# Print every fragment line that the final .config does not honour: Kconfig
# drops a value silently when a dependency is off.
check_config() {
	local cfg=$1 line sym
	grep -E '^(CONFIG_[A-Z0-9_]+=|# CONFIG_[A-Z0-9_]+ is not set)' "$frag" |
	while read -r line; do
		case $line in
		"# "*)
			sym=${line#\# }
			sym=${sym%% *}
			if grep -q "^$sym=" "$cfg"; then
				echo "$line (got: $(grep "^$sym=" "$cfg"))"
			fi
			;;
		*)
			sym=${line%%=*}
			if ! grep -qxF "$line" "$cfg"; then
				echo "$line (got: $(grep -E "^(# )?$sym[= ]" "$cfg" || echo unset))"
			fi
			;;
		esac
	done
}

do_build() {
	local key dir tmp log start kr dropped

	key=$(cache_key)
	dir=$cache/$key
	mkdir -p "$cache"
	exec 9>"$cache/.lock"
	if ! flock -n 9; then
		msg "another build holds $cache/.lock; waiting"
		flock 9
	fi
	if [ -f "$dir/bzImage" ]; then
		msg "cached: $(cat "$dir/kernelrelease")"
		echo "$dir"
		return
	fi
	[ -r "$src_tar" ] || die "$src_tar missing (apt-get install $src_pkg)"

	# Under the lock, leftovers of interrupted builds are nobody's.
	rm -rf "$cache"/.tmp-*
	tmp=$cache/.tmp-$key
	mkdir -p "$tmp"
	trap 'rm -rf "$tmp"' EXIT
	log=$tmp/build.log
	start=$(date +%s)
	msg "building $src_pkg $(src_version) key $key with -j$jobs"
	msg "log: $log (about 15 min on 2 cores)"

	mkdir "$tmp/build"
	tar -xJf "$src_tar" -C "$tmp/build" --strip-components=1 >>"$log" 2>&1 ||
		fail "$log" "extracting $src_tar failed"
	make -C "$tmp/build" allnoconfig KCONFIG_ALLCONFIG="$frag" \
		>>"$log" 2>&1 || fail "$log" "allnoconfig failed"
	dropped=$(check_config "$tmp/build/.config")
	if [ -n "$dropped" ]; then
		echo "$dropped" >&2
		fail "$log" "Kconfig dropped the options above: fix $frag"
	fi
	make -C "$tmp/build" -j"$jobs" all >>"$log" 2>&1 ||
		fail "$log" "kernel build failed"
	kr=$(make -s -C "$tmp/build" kernelrelease)

	echo "$kr" >"$tmp/kernelrelease"
	cp "$tmp/build/arch/x86/boot/bzImage" "$tmp/bzImage"
	cp "$tmp/build/.config" "$tmp/config"
	cp "$tmp/build/System.map" "$tmp/System.map"
	{
		echo "key $key"
		echo "source $src_pkg $(src_version)"
		echo "compiler $(gcc -dumpfullversion 2>/dev/null || echo unknown)"
		echo "build_seconds $(($(date +%s) - start))"
		echo "built $(date -u +%FT%TZ)"
	} >"$tmp/info"
	mv -T "$tmp" "$dir"
	trap - EXIT
	msg "built $kr in $(elapsed "$start")"
	echo "$dir"
}

elapsed() {
	local s=$(($(date +%s) - $1))
	printf '%dm%02ds' $((s / 60)) $((s % 60))
}

# Keep the log of a failed build where the next run will not delete it.
fail() {
	cp "$1" "$cache/failed-build.log" 2>/dev/null || true
	tail -n 20 "$1" >&2 || true
	die "$2 (full log: $cache/failed-build.log)"
}

do_path() {
	local dir
	dir=$cache/$(cache_key)
	[ -f "$dir/bzImage" ] || exit 1
	echo "$dir"
}

do_clean() {
	local key d
	key=$(cache_key)
	[ -d "$cache" ] || return 0
	exec 9>"$cache/.lock"
	flock 9
	for d in "$cache"/* "$cache"/.tmp-*; do
		[ -d "$d" ] || continue
		[ "$(basename "$d")" = "$key" ] && continue
		msg "removing $d"
		rm -rf "$d"
	done
}

case ${1:-} in
build) do_build ;;
path) do_path ;;
key) cache_key ;;
clean) do_clean ;;
*)
	echo "usage: $0 build|path|key|clean" >&2
	exit 2
	;;
esac
