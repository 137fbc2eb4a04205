#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RX threads and interrupt modes: one kernel thread per queue, pinned by
# default or where rx_cpu= says, and the NICs working with one MSI vector
# or legacy INTx, every RX mask given back.
#
# One area of the ringcap_e1000e tests on QEMU's 82574L: it sets up its
# own NICs, driver and namespace and puts them back at the end (lib.sh
# here), so it runs alone or beside the other areas, in any order. In a
# guest as root (scripts/vm/run ... --nic e1000e-pair --nic e1000e-dgram),
# after run_guest.sh loaded ringcap:
#
#   RC_TESTS=e1000e/irq.sh selftests/run_guest.sh
#
# Settings (RC_E1000E_*, RC_REQUIRE, RC_HOST...): see lib.sh.
#
# Output: TAP. Exit status: 0 all passed, 1 a test failed, 4 skipped.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e1000e_begin 8

# ---- RX threads -----------------------------------------------------------

t_threads() {
	local dev q pid ppid bad= s=
	for dev in "$A" "$B" "$G"; do
		for q in 0 1; do
			if ! pid=$(kthread_pid "$dev-rx$q"); then
				s+=" $dev-rx$q=missing"
				bad=1
				continue
			fi
			ppid=$(awk '/^PPid:/ {print $2}' "/proc/$pid/status")
			s+=" $dev-rx$q=$pid"
			[ "$ppid" = 2 ] || { s+="(ppid $ppid, not a kthread)"; bad=1; }
		done
	done
	msg=${s# }
	[ -z "$bad" ]
}
tcase "RX threads: one kernel thread per queue, named <ifname>-rx<q>" t_threads

# t_pinned CPU0 CPU1: every RX thread of queue q runs only on CPUq
t_pinned() {
	local dev q c bad= s= want=("$1" "$2")
	for dev in "$A" "$B" "$G"; do
		for q in 0 1; do
			c=$(thread_cpus "$dev-rx$q") || { s+=" $dev-rx$q=missing"; bad=1; continue; }
			s+=" $dev-rx$q:$c"
			[ "$c" = "${want[q]}" ] || bad=1
		done
	done
	msg="want rx0:${want[0]} rx1:${want[1]};$s"
	[ -z "$bad" ]
}
tcase "RX threads: pinned by default, queue q on CPU q mod $(nproc --all)" \
	t_pinned "$(default_cpu 0)" "$(default_cpu 1)"

t_rx_cpu() {
	local out
	unload_drv || { msg="rmmod $DRV failed"; broken=$msg; return 1; }
	out=$(load_drv rx_cpu=1,0 2>&1) || { msg="modprobe rx_cpu=1,0: $out"; broken=$msg; return 1; }
	nics_setup || { broken="NIC setup after reload failed: $msg"; return 1; }
	if [ "$(nproc --all)" -ge 2 ]; then
		t_pinned 1 0
	else
		t_pinned 0 0
	fi
}
tcase "RX threads: reloaded with rx_cpu=1,0 they move to CPUs 1 and 0" t_rx_cpu

# One vector for everything: the RX queues share RXT0, whose mask is held
# until both queues' threads have drained (irq.c). Reloads the driver with
# irq_mode=MODE, checks each NIC says so, that traffic flows and that every
# mask taken was given back; then reloads it with the default (MSI-X).
t_irq_mode() {
	local mode=$1 want out p n=0 q k
	local -A s
	case $mode in msi) want="using MSI interrupts" ;; *) want="using legacy INTx interrupts" ;; esac
	unload_drv || { msg="rmmod $DRV failed"; broken=$msg; return 1; }
	dmesg -C
	out=$(load_drv irq_mode="$mode" 2>&1) || { msg="modprobe irq_mode=$mode: $out"; broken=$msg; return 1; }
	nics_setup || { broken="NIC setup after reload failed: $msg"; return 1; }
	for p in "${PCI[@]}"; do
		# <(...): a pipeline's dmesg could die of SIGPIPE (pipefail)
		grep -q "$p: $want" <(dmesg) && n=$((n + 1))
	done
	works || { msg="irq_mode=$mode: $msg"; return 1; }
	msg="$n of ${#PCI[@]} NICs: '$want'; $msg"
	settle "$G" || true
	snap s "$G" || return 1
	for q in 0 1; do
		k=rx$q
		msg+="; $k irqs ${s[${k}_irqs]} masks ${s[${k}_masks]} unmasks ${s[${k}_unmasks]}"
		[ "${s[${k}_masks]}" = "${s[${k}_unmasks]}" ] && [ "${s[${k}_irqs]}" -gt 0 ] || n=-1
	done
	unload_drv || { msg+="; rmmod $DRV failed"; broken="rmmod $DRV failed"; return 1; }
	out=$(load_drv 2>&1) || { msg+="; modprobe: $out"; broken="$DRV did not load"; return 1; }
	nics_setup || { broken="NIC setup after reload failed: $msg"; return 1; }
	[ "$n" = "${#PCI[@]}" ]
}
tcase "interrupts: with irq_mode=msi (one vector) the NICs work and every RX mask is given back" t_irq_mode msi
tcase "interrupts: with irq_mode=legacy (INTx) the NICs work and every RX mask is given back" t_irq_mode legacy

e1000e_end
