#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch a Debian source package into DIR with `apt-get source`, without
# touching the system's apt configuration: the deb-src entry, the package
# lists and the apt state all live under DIR/apt/, and apt is pointed at
# them with -o options. The system's trusted keys are still used, so the
# .dsc is verified as usual. The version is the one of BINARY the system
# has installed, so what is built from it matches what runs.
#
#   get-source.sh DIR SOURCE BINARY
#       unpacks SOURCE and prints the tree's path on stdout
#   get-source.sh --download-only DIR SOURCE BINARY
#       only downloads (.dsc, tarballs, verified) and prints DIR
#
# libpcap-ring builds Debian's libpcap this way; the bench takes QEMU's
# plugin header from qemu's upstream tarball.
set -euo pipefail

only=
if [ "${1:-}" = --download-only ]; then only=--download-only; shift; fi
[ $# = 3 ] || { echo "usage: get-source.sh [--download-only] DIR SOURCE BINARY" >&2; exit 2; }
dir=$(realpath -m "$1") pkg=$2 bin=$3
apt_dir=$dir/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"

# Reuse the system's deb URIs and suites, as deb-src lines.
src=$apt_dir/sources.list
if [ ! -s "$src" ]; then
	{
		grep -hs '^deb .*debian' /etc/apt/sources.list \
			/etc/apt/sources.list.d/*.list | sed 's/^deb /deb-src /' || true
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			awk -v RS= '/Types:[^\n]*deb/ {
				uri = ""; suites = ""; comps = ""; key = ""
				n = split($0, l, "\n")
				for (i = 1; i <= n; i++) {
					if (l[i] ~ /^URIs:/) { sub(/^URIs:[ \t]*/, "", l[i]); uri = l[i] }
					if (l[i] ~ /^Suites:/) { sub(/^Suites:[ \t]*/, "", l[i]); suites = l[i] }
					if (l[i] ~ /^Components:/) { sub(/^Components:[ \t]*/, "", l[i]); comps = l[i] }
					if (l[i] ~ /^Signed-By:/) { sub(/^Signed-By:[ \t]*/, "", l[i]); key = l[i] }
				}
				if (uri !~ /debian/) next
				ns = split(suites, s, /[ \t]+/)
				for (j = 1; j <= ns; j++) {
					opt = key != "" ? "[signed-by=" key "] " : ""
					print "deb-src " opt uri " " s[j] " " comps
				}
			}' "$f"
		done
	} | sort -u >"$src"
fi
[ -s "$src" ] || { echo "get-source: no Debian apt source found to derive a deb-src entry from" >&2; exit 1; }

opts=(-o "Dir::Etc::sourcelist=$src" -o "Dir::Etc::sourceparts=-"
      -o "Dir::State::Lists=$apt_dir/lists"
      -o "Dir::Cache::archives=$apt_dir/cache/archives"
      -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache="
      -o "APT::Sandbox::User=root")

echo "get-source: deb-src entries (private, $src):" >&2
sed 's/^/  /' "$src" >&2
apt-get "${opts[@]}" -qq update >&2
cd "$dir"
# A tree left by an earlier run may have been edited: start from the archive.
[ -n "$only" ] || rm -rf "$dir/$pkg"-*/
ver=$(dpkg-query -W -f='${source:Version}' "$bin" 2>/dev/null || true)
apt-get "${opts[@]}" -qq source $only "$pkg${ver:+=$ver}" >&2 ||
	apt-get "${opts[@]}" -qq source $only "$pkg" >&2
if [ -n "$only" ]; then
	echo "$dir"
else
	ls -d "$dir/$pkg"-*/ | sort -V | tail -n 1 | sed 's:/$::'
fi
