#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install this checkout's modules through DKMS, as a user would, for each
# kernel we test (scripts/kernels.sh, or the KVERs given).
#
#   dkms-install.sh [KVER...]
#
# Copies the package files (scripts/pkg-files.sh) to /usr/src/ringcap-VER,
# then dkms add, build and install per kernel. Every ringcap version DKMS
# knew is removed first, so a re-run after a source change always installs
# the new code. When the copy would be identical to what is already built
# and installed for every kernel, nothing is rebuilt.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
name=ringcap
version=$(sed -n '/^[0-9]/{p;q}' "$top/VERSION")
dest=/usr/src/$name-$version
if [ $# -eq 0 ]; then
	read -r -a kvers <<<"$("$top/scripts/kernels.sh")"
else
	kvers=("$@")
fi

msg() { echo "dkms-install: $*" >&2; }
command -v dkms >/dev/null || { msg "dkms missing (scripts/deps.sh)"; exit 1; }
[ -w /usr/src ] || { msg "needs root (writes /usr/src, /lib/modules)"; exit 1; }

# "Unchanged" means: the files a DKMS build reads (names and bytes) are the
# same. The rest of the package (tools, tests) cannot change the modules,
# and hashing it would rebuild both kernels whenever a test is edited.
files=$(cd "$top" && scripts/pkg-files.sh | LC_ALL=C sort)
hash=$(cd "$top" && printf '%s\n' "$files" |
	grep -E '^(Kbuild|dkms\.conf|VERSION|module/.*|driver/.*)$' |
	xargs -d '\n' sha256sum | sha256sum | cut -c1-16)

installed_for() { # KVER: is ringcap/version installed for it?
	dkms status -m "$name" -v "$version" -k "$1" 2>/dev/null | grep -q ': installed'
}
if [ "$(cat "$dest/.ringcap-source-hash" 2>/dev/null)" = "$hash" ]; then
	all=1
	for k in "${kvers[@]}"; do installed_for "$k" || all=0; done
	if [ "$all" = 1 ]; then
		msg "$name/$version unchanged and installed for ${kvers[*]}"
		exit 0
	fi
fi

# Forget every version DKMS has of us (an older VERSION included).
for v in $(dkms status -m "$name" 2>/dev/null | sed -n "s|^$name/\([^,:]*\)[,:].*|\1|p" | sort -u); do
	msg "removing $name/$v"
	dkms remove -m "$name" -v "$v" --all >/dev/null 2>&1 || true
	[ "$v" = "$version" ] || rm -rf "/usr/src/$name-$v"
done

rm -rf "$dest"
mkdir -p "$dest"
(cd "$top" && printf '%s\n' "$files" | xargs -d '\n' cp --parents -p -t "$dest")
echo "$hash" >"$dest/.ringcap-source-hash"
dkms add -m "$name" -v "$version" >/dev/null

# dkms runs readelf on the 6.12 headers' tools to guess the kernel's
# compiler and lets its harmless complaint through; keep the output readable.
exec 2> >(grep --line-buffered -v "readelf: Warning: Section '.comment' was not dumped" >&2)

fail=0
for k in "${kvers[@]}"; do
	msg "$k: building $name/$version"
	if ! dkms build -m "$name" -v "$version" -k "$k" >/dev/null ||
		! dkms install -m "$name" -v "$version" -k "$k" --force >/dev/null; then
		log=/var/lib/dkms/$name/$version/build/make.log
		[ ! -r "$log" ] || tail -n 40 "$log" >&2
		msg "$k: FAILED (log $log)"
		fail=1
		continue
	fi
	msg "$k: installed $(modinfo -k "$k" -F filename "$name" 2>/dev/null || echo '?')"
done
exit "$fail"
