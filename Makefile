# SPDX-License-Identifier: GPL-2.0
#
# ringcap build entry points. The kernel modules are built with the
# kernel's kbuild through the top-level Kbuild (as DKMS does), for each
# supported kernel rather than the running one (this host runs a kernel
# without headers, and the tests boot Debian's kernels in QEMU anyway).
#
#   make              userland + the drop-in libpcap + modules for every
#                     kernel (build/KVER/)
#   make libpcap-ring the drop-in libpcap (libpcap-ring/, docs/LIBPCAP.md)
#   make module       modules only, W=1 (warnings shown)
#   make module-w1    modules, W=1, any warning fails
#   make selftests    test programs and the test netdev module
#   make deb          the Debian packages in build/deb/, lintian-checked
#                     (ringcap-dkms, ringcap-tools, ringcap-libpcap,
#                     libringcap1, libringcap-dev; scripts/deb.sh)
#   make install      make deb, then apt-get install ./build/deb/*.deb
#                     (root; DKMS builds the modules for every kernel)
#   make check        everything above + selftests in a guest per kernel,
#                     then on the debug kernel
#   make check-debug  only the debug-kernel tier (KASAN, lockdep, ...)
#   make demo         the 82574L on ringcap_e1000e in a guest, host traffic
#                     captured by tcpdump through ringcap (scripts/demo.sh)
#   make demo-sensors two sensor guests behind a packet broker, each a
#                     ringcap cluster of unchanged softflowd, exporting to
#                     nfcapd; every flow checked at the collector
#                     (scripts/demo-sensors.sh, docs/SCALING.md)
#   make bench        ringcap against AF_PACKET, side by side, the full
#                     matrix (about an hour), then the cost in
#                     instructions per frame (docs/BENCHMARKS.md)
#   make bench-quick  a reduced matrix, about 30 minutes
#   make fuzz         random and hostile use of the whole user API on the
#                     debug kernel, FUZZ_SECONDS (default 600; RELIABILITY.md)
#   make soak         traffic, mode switches, reader restarts and reloads on
#                     the debug kernel, SOAK_SECONDS (default 600)
#   make clean
#
# KVERS="..." picks the kernels (default: scripts/kernels.sh).

KVERS ?= $(shell scripts/kernels.sh)
export RINGCAP_KERNELS := $(KVERS)

.PHONY: all userland libpcap-ring module module-w1 selftests deb install check \
	check-debug demo demo-sensors bench bench-quick fuzz soak clean help

all: userland libpcap-ring module

userland:
	@if [ -f userland/Makefile ]; then $(MAKE) -C userland; \
	else echo "userland: nothing to build yet"; fi

libpcap-ring: userland
	$(MAKE) -C libpcap-ring all tests

module:
	scripts/build-module.sh $(KVERS)

module-w1:
	scripts/build-module.sh --strict $(KVERS)

selftests:
	@if [ -f selftests/Makefile ]; then $(MAKE) -C selftests all KVERS="$(KVERS)"; \
	else echo "selftests: nothing to build yet"; fi

deb:
	scripts/deb.sh

install:
	scripts/install-debs.sh $(KVERS)

check:
	scripts/check.sh $(KVERS)

# make check runs the debug tier last; this runs it alone.
check-debug:
	scripts/check.sh --only-debug $(KVERS)

demo:
	scripts/demo.sh

demo-sensors:
	scripts/demo-sensors.sh

bench:
	scripts/bench.sh full

bench-quick:
	scripts/bench.sh quick

fuzz:
	scripts/fuzz.sh $(or $(FUZZ_SECONDS),600)

soak:
	scripts/soak.sh $(or $(SOAK_SECONDS),600)

clean:
	rm -rf build
	@if [ -f userland/Makefile ]; then $(MAKE) -C userland clean; fi
	$(MAKE) -C libpcap-ring clean
	@if [ -f selftests/Makefile ]; then $(MAKE) -C selftests clean; fi

help:
	@sed -n '/^#   make/s/^#   //p' Makefile
