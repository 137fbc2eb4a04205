#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make deb`: build the Debian packages into build/deb/ and check them
# with lintian.
#
#   deb.sh [--no-lintian]
#
#   ringcap-dkms     the sources of both modules; DKMS builds them on the
#                    target for every kernel with headers
#   ringcap-tools    libringcap, the tools, the bpftrace scripts,
#                    ringcap-doctor, the man pages
#   ringcap-libpcap  the drop-in libpcap (its own directory) and ringcap-run
#
# debian/changelog is written here from VERSION, the one place the version
# is kept. dpkg-buildpackage leaves its results beside the tree; they are
# moved into build/deb/. Lintian errors fail the build; each override
# kept says why in debian/*.lintian-overrides.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
lintian=1
[ "${1:-}" != --no-lintian ] || lintian=0
msg() { echo "deb: $*" >&2; }

version=$(<VERSION)
out=build/deb
stamp=$out/.source.sha256

# What the packages are built from: every file of the tree that git does
# not ignore (committed or not), and the versions of what builds them.
# The same inputs give the same packages, so a second `make demo` or
# `make check` goes straight to its guests.
source_sum() {
	local f files=()

	# A symbolic link (bench/results/latest-full) counts by its target's
	# name; a file deleted but still in the index, not at all.
	while IFS= read -r -d '' f; do
		if [ -L "$f" ]; then
			printf 'link %s -> %s\n' "$f" "$(readlink "$f")"
		elif [ -f "$f" ]; then
			files+=("$f")
		fi
	done < <(git ls-files -z -co --exclude-standard | sort -z)
	[ ${#files[@]} = 0 ] || sha256sum -- "${files[@]}"
	dpkg-query -W libpcap0.8-dev gcc debhelper dh-dkms 2>/dev/null
	echo "lintian=$lintian"
}
sum=$(source_sum | sha256sum | cut -d' ' -f1)
if [ "${RINGCAP_DEB_FORCE:-0}" != 1 ] && [ "$(cat "$stamp" 2>/dev/null)" = "$sum" ] &&
	[ "$(ls "$out"/*_"$version"_*.deb 2>/dev/null | wc -l)" = 5 ]; then
	msg "$out is up to date with the tree (RINGCAP_DEB_FORCE=1 rebuilds)"
	exit 0
fi
up=$(dirname "$top")
[ -w "$up" ] || { msg "$up must be writable (dpkg-buildpackage writes there)"; exit 1; }

cat >debian/changelog <<EOC
ringcap ($version) unstable; urgency=medium

  * Built from the ringcap tree; VERSION says $version.
    The history is the project's git log.

 -- $(sed -n 's/^Maintainer: //p' debian/control)  $(date -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")
EOC

mkdir -p "$out"
rm -f "$out"/* "$stamp"
# -b: binary packages only (the tree is the source); -d: build-dependency
# check is scripts/deps.sh's job (it installs the same packages).
dpkg-buildpackage -b -d -us -uc --no-sign >"$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	msg "dpkg-buildpackage failed (log $out/build.log)"
	exit 1
}
# debian/files names every file the build left in $up.
for f in $(awk '{print $1}' debian/files) ringcap_"$version"_*.changes; do
	for p in "$up"/$f; do
		[ ! -e "$p" ] || mv "$p" "$out/"
	done
done
ls "$out"/*.deb >&2

if [ "$lintian" = 1 ]; then
	command -v lintian >/dev/null || { msg "no lintian (scripts/deps.sh)"; exit 1; }
	# --fail-on error: warnings are reported and kept deliberately.
	lintian --fail-on error --info "$out"/*.changes | tee "$out/lintian.log" >&2 || {
		msg "lintian found errors (log $out/lintian.log)"
		exit 1
	}
	msg "lintian: $(grep -c '^E:' "$out/lintian.log" || true) errors," \
		"$(grep -c '^W:' "$out/lintian.log" || true) warnings"
fi
echo "$sum" >"$stamp"
