#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the Debian packages (scripts/deb.sh) and install them the way a
# user does, `apt-get install ./*.deb`; DKMS then builds the modules for
# every installed kernel with headers. `make check`, `make demo`, the
# benchmarks and the soak install this way.
#
#   install-debs.sh [--no-build] [KVER...]
#
#   --no-build  install what build/deb/ holds
#   KVER...     kernels the modules must end up installed for (default:
#               scripts/kernels.sh); a kernel DKMS did not build for is
#               an error
#
# Same-version packages are reinstalled (a rebuilt tree keeps VERSION),
# unless their files and control data are the ones installed last time
# and the modules are in place for every KVER. Holds /tmp/ringcap-dkms.lock, so
# concurrent runs take turns.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
build=1
[ "${1:-}" != --no-build ] || { build=0; shift; }
if [ $# -eq 0 ]; then
	read -r -a kvers <<<"$(scripts/kernels.sh)"
else
	kvers=("$@")
fi
msg() { echo "install-debs: $*" >&2; }
[ "$(id -u)" = 0 ] || { msg "needs root (apt-get install)"; exit 1; }

exec 9>/tmp/ringcap-dkms.lock
flock 9

[ "$build" = 0 ] || scripts/deb.sh
version=$(<VERSION)
arch=$(dpkg --print-architecture)
debs=()
for p in ringcap-dkms:all ringcap-tools:$arch ringcap-libpcap:$arch \
	 libringcap1:$arch libringcap-dev:$arch; do
	f=build/deb/${p%%:*}_${version}_${p#*:}.deb
	[ -f "$f" ] || { msg "$f missing (make deb)"; exit 1; }
	debs+=("./$f")
done

installed_for() { # KVER: is ringcap/version installed for it?
	dkms status -m ringcap -v "$version" -k "$1" 2>/dev/null | grep -q ': installed'
}
stamp=/var/lib/ringcap/installed-debs.sha256
# What a package installs, not the .deb's bytes (those carry build times).
sums=$(for f in "${debs[@]}"; do
	dpkg-deb -f "$f"
	dpkg-deb -I "$f" md5sums 2>/dev/null || true
done | sha256sum)
if [ "$(cat "$stamp" 2>/dev/null)" = "$sums" ]; then
	all=1
	for k in "${kvers[@]}"; do installed_for "$k" || all=0; done
	if [ "$all" = 1 ]; then
		msg "the same packages are installed, modules built for ${kvers[*]}"
		exit 0
	fi
fi

# A tree installed by hand into DKMS (dkms add of /usr/src/ringcap-V, no
# package owning it) would shadow the package's files: remove it first.
for v in $(dkms status -m ringcap 2>/dev/null | sed -n 's|^ringcap/\([^,:]*\)[,:].*|\1|p' | sort -u); do
	dpkg -S "/usr/src/ringcap-$v/dkms.conf" >/dev/null 2>&1 && continue
	msg "removing ringcap/$v, installed into DKMS without a package"
	dkms remove -m ringcap -v "$v" --all >/dev/null 2>&1 || true
	rm -rf "/usr/src/ringcap-$v"
done

# dkms runs readelf on the 6.12 headers' tools to guess the kernel's
# compiler and lets its harmless complaint through; keep the log readable.
log=build/deb/install.log
msg "apt-get install ${debs[*]##*/}"
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --reinstall \
	--no-install-recommends "${debs[@]}" 2>&1 |
	grep --line-buffered -v "readelf: Warning: Section '.comment' was not dumped" >"$log"; then
	tail -n 40 "$log" >&2
	msg "apt-get install failed (log $log)"
	exit 1
fi
fail=0
for k in "${kvers[@]}"; do
	if installed_for "$k"; then
		msg "$k: $(modinfo -k "$k" -F filename ringcap 2>/dev/null || echo '?')"
	else
		msg "$k: DKMS did not install ringcap/$version (headers missing? log $log," \
			"/var/lib/dkms/ringcap/$version/build/make.log)"
		fail=1
	fi
done
if [ "$fail" = 0 ]; then
	mkdir -p "$(dirname "$stamp")"
	echo "$sums" >"$stamp"
fi
exit "$fail"
