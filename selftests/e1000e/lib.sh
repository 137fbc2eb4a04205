# SPDX-License-Identifier: GPL-2.0
#
# What the ringcap_e1000e area scripts (selftests/e1000e/*.sh) share;
# sourced, never run. The NICs, the driver and the namespace; ethtool
# snapshots; ringcount in the background; the host generator; the
# bpftrace allocation counter; and e1000e_begin, which makes every area
# start from the same state: the stock e1000e holds no 82574L, a fresh
# $DRV with default parameters has probed all three, rce0..rce2 are
# named, addressed and up, and ringcap is in mode 0. The EXIT trap undoes
# it all, so each area runs alone, and one that breaks its NICs leaves
# nothing behind for the next.
#
# NICs are known by the MACs the runner gives them (52:54:00:12:34:1N for
# nicN, scripts/vm/run ... --nic e1000e-pair --nic e1000e-dgram):
# nic0/nic1 are cabled to each other, nic2 to the host generator. They are
# renamed rce0, rce1 (moved into netns "rce") and rce2. Any 82574L held by
# the stock e1000e is released first and given back at the end.
#
#   RC_REQUIRE=1    missing NICs, driver module or helpers fail the tests
#                   instead of skipping them (run_guest.sh sets it)
#   RC_BIN          selftest programs (default: selftests/build/bin)
#   RC_TOOLS        ringcount (default: userland/build/bin)
#   RC_HOST         the guest-to-host helper (default: selftests/rc_host):
#                   QEMU monitor commands and the host generator
#   RC_E1000E_KO    insmod this ringcap_e1000e.ko instead of modprobe (a
#                   kernel without the DKMS module, e.g. the debug tier)
#   RC_LPR          libpcap-ring directory, with the drop-in built
#                   (default: libpcap-ring)
#   RC_E1000E_CYCLES  reload/rebind cycles per kind (default 20)
#   RC_E1000E_FRAMES  frames of the RSS / no-allocation run (default
#                   100000; the overload run offers twice as many)
#   RC_E1000E_TCP_MB  size of the TCP transfers (default 10)
#                   (the debug tier lowers the two volumes: its kernel is
#                   several times slower and every case still runs)
#   RC_E1000E_ONLY  run only the cases whose function is in this list
#                   (e.g. "t_rss t_noalloc"; the setup cases always run);
#                   the area's others are skipped. To run whole areas,
#                   run their scripts (run_guest.sh: RC_TESTS=e1000e/rss.sh).
#   RC_E1000E_BREAK make the setup of the areas named here fail (e.g.
#                   "rss"), to show that the other areas do not care
#
# An area script calls e1000e_begin PLAN (its cases plus the three setup
# cases), runs its cases with tcase and ends with e1000e_end.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$top/lib.sh"
AREA=$(basename "$0" .sh)
BIN=${RC_BIN:-$top/build/bin}
TOOLS=${RC_TOOLS:-$top/../userland/build/bin}
RINGCOUNT=$TOOLS/ringcount
RC_HOST=${RC_HOST:-$top/rc_host}
PY=/usr/bin/python3
NETPY=$top/e1000e/net.py
FRAMES_PY=$top/rc_frames.py
LPR=${RC_LPR:-$top/../libpcap-ring}
RINGCAP_RUN=$LPR/ringcap-run
CYCLES=${RC_E1000E_CYCLES:-20}
FRAMES=${RC_E1000E_FRAMES:-100000}
TCP_MB=${RC_E1000E_TCP_MB:-10}
PARAMS=/sys/module/ringcap/parameters
DRV=ringcap_e1000e
PCI_DRV=/sys/bus/pci/drivers
NS=rce
A=rce0 B=rce1 G=rce2		# pair side 1, pair side 2 (in $NS), generator
IP_A=10.9.0.1 IP_B=10.9.0.2
MAC=(52:54:00:12:34:10 52:54:00:12:34:11 52:54:00:12:34:12)
PCI=(- - -)

# Missing prerequisites: a failure when required, else a skip.
if [ "${RC_REQUIRE:-0}" = 1 ]; then MISSING=1; else MISSING=4; fi

# tcase (../lib.sh) picks cases by RC_E1000E_ONLY; setup always runs.
TCASE_ONLY=${RC_E1000E_ONLY:-}
TCASE_ALWAYS="t_find t_load t_setup"
TCASE_ONLY_VAR=RC_E1000E_ONLY

n=0
failed=0
skipped=0
broken=		# set once the NICs can no longer be trusted
msg=
t_start=$SECONDS
tmp=$(mktemp -d)
declare -A RCPID RCOUT RCSUM
stock_bound=()	# PCI addresses e1000e held when we started
stock_was=0	# e1000e (module or built in) was there when we started
drv_was_loaded=0
mode_was=
v6_was=

# in_dev DEV CMD...: run CMD in the network namespace DEV lives in
in_dev() {
	if [ "$1" = "$B" ]; then
		shift
		ip netns exec "$NS" "$@"
	else
		shift
		"$@"
	fi
}

set_mode() { echo "$1" >"$PARAMS/transparent_mode"; }
load_drv() {
	if [ -n "${RC_E1000E_KO:-}" ]; then
		insmod "$RC_E1000E_KO" "$@"
	else
		modprobe "$DRV" "$@"
	fi
}
unload_drv() { rmmod_wait "$DRV" 10; }

# ---- NICs ---------------------------------------------------------------

pci_of() { basename "$(readlink -f "/sys/class/net/$1/device")"; }
pci_driver() {
	local d=/sys/bus/pci/devices/$1/driver
	[ -e "$d" ] && basename "$(readlink -f "$d")" || echo none
}
pci_netdev() { ls "/sys/bus/pci/devices/$1/net" 2>/dev/null | head -n 1; }
carrier() { [ "$(in_dev "$1" cat "/sys/class/net/$1/carrier" 2>/dev/null)" = "$2" ]; }
sysstat() { in_dev "$1" cat "/sys/class/net/$1/statistics/$2"; }

# Name the 82574Ls rce0..2, move rce1 into $NS, address the pair and
# bring all three up. Idempotent; run after every (re)probe.
nics_setup() {
	local i dev want
	[ -e "/run/netns/$NS" ] || ip netns add "$NS" || { msg="ip netns add $NS failed"; return 1; }
	ip -n "$NS" link set lo up
	ip netns exec "$NS" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 2>/dev/null || true
	for i in 0 1 2; do
		want=rce$i
		[ "$i" = 1 ] && ip -n "$NS" link show "$want" >/dev/null 2>&1 && continue
		if ! dev=$(iface_by_mac "${MAC[i]}"); then
			msg="no interface with MAC ${MAC[i]} (nic$i); have: $(ls /sys/class/net | tr '\n' ' ')"
			return 1
		fi
		if [ "$dev" != "$want" ]; then
			ip link set dev "$dev" down
			ip link set dev "$dev" name "$want"
		fi
		PCI[i]=$(pci_of "$want")
		sysctl -qw "net.ipv6.conf.$want.disable_ipv6=1" 2>/dev/null || true
		[ "$i" = 1 ] && ip link set dev "$want" netns "$NS"
	done
	ip netns exec "$NS" sysctl -qw "net.ipv6.conf.$B.disable_ipv6=1" 2>/dev/null || true
	ip addr replace "$IP_A/24" dev "$A"
	ip -n "$NS" addr replace "$IP_B/24" dev "$B"
	ip link set "$A" up
	ip -n "$NS" link set "$B" up
	ip link set "$G" up
	static_neigh
	for dev in "$A" "$B" "$G"; do
		wait_for 20 carrier "$dev" 1 || { msg="$dev: no carrier after 20 s"; return 1; }
	done
}
# Mode 2 hides ARP from a bound device's stack: fixed neighbours keep the
# pair talking whatever the mode.
static_neigh() {
	ip neigh replace "$IP_B" lladdr "${MAC[1]}" dev "$A" nud permanent
	ip -n "$NS" neigh replace "$IP_A" lladdr "${MAC[0]}" dev "$B" nud permanent
}

# snap NAME DEV: ethtool -S DEV and two sysfs counters into the
# associative array NAME.
snap() {
	counters_into "$1" in_dev "$2" sh -c 'ethtool -S "$1" 2>/dev/null
		cd "/sys/class/net/$1/statistics" &&
		echo "sys_rx_dropped: $(cat rx_dropped)" &&
		echo "sys_rx_missed: $(cat rx_missed_errors)"' sh "$2"
}
# dq OLD NEW KEY: d of rx0_KEY plus rx1_KEY, both RX queues together
dq() { echo $(($(d "$1" "$2" "rx0_$3") + $(d "$1" "$2" "rx1_$3"))); }
rxsum() { # rxsum DEV: frames both RX queues took
	in_dev "$1" ethtool -S "$1" 2>/dev/null |
		awk '$1 ~ /^rx[01]_packets:$/ {s += $2} END {print s + 0}'
}
# Wait until DEV's RX counters stop moving (0.5 s without change).
settle() { steady 0.5 rxsum "$1"; }

# ---- ringcount in the background --------------------------------------

# rc_start ID DEV[@Q] [ringcount options]: bind a ringcount; 0 once bound.
# RC_AS: a command prefix to run it under (as_nobody's), empty for root.
RC_AS=()
rc_start() {
	local id=$1 spec=$2 dev=${2%@*} q=all end pre=()
	shift 2
	[[ $spec == *@* ]] && q=${spec#*@}
	[ "$dev" != "$B" ] || pre=(ip netns exec "$NS")
	RCOUT[$id]=$tmp/rc.$id
	# Started directly (not through a function) so that $! is ringcount
	# itself: `ip netns exec` execs it.
	"${pre[@]}" "${RC_AS[@]}" "$RINGCOUNT" -q -i "$spec" -r 8M "$@" >"${RCOUT[$id]}" 2>&1 &
	RCPID[$id]=$!
	# /proc/PID/net is the netns of PID: no need to enter it.
	end=$(($(now_ms) + 20000))
	while kill -0 "${RCPID[$id]}" 2>/dev/null && [ "$(now_ms)" -lt "$end" ]; do
		awk -v p="${RCPID[$id]}" -v d="$dev" -v q="$q" \
			'$1 == p && $3 == d && $4 == q {f = 1} END {exit !f}' \
			"/proc/${RCPID[$id]}/net/ringcap" 2>/dev/null && return 0
		sleep 0.1
	done
	msg="ringcount -i $spec did not bind: $(tail -n 2 "${RCOUT[$id]}" | tr '\n' ' ')"
	return 1
}
# Frames the kernel offered the socket: written into the ring or dropped.
rc_frames() { echo $(($(rc_val "$1" received) + $(rc_val "$1" dropped))); }

# ---- the host side ----------------------------------------------------

have_host() {
	[ -x "$RC_HOST" ] && return 0
	msg="no $RC_HOST: the guest cannot reach the QEMU monitor or the host generator"
	return 1
}
# Frames the host dropped at QEMU's socket for nic2 so far.
wiredrops() { "$RC_HOST" wiredrops nic2 2>&1 | sed -n 's/^drops=\([0-9]*\)$/\1/p' | grep .; }

# gen ARGS...: the host generator into nic2 (to rce2's MAC, unless it
# replays a file's frames); GEN_SENT is what it sent, GEN_OUT its whole
# report.
gen() {
	local out mac=(--dst-mac "${MAC[2]}")
	GEN_SENT=0 GEN_OUT=
	[[ " $* " != *" --replay "* ]] || mac=()
	if ! out=$("$RC_HOST" gen nic2 "${mac[@]}" "$@" 2>&1); then
		msg="rc_host gen nic2 $*: $(tail -n 2 <<<"$out" | tr '\n' ' ')"
		return 1
	fi
	GEN_OUT=$out
	GEN_SENT=$(kv sent "$out")
	[ -n "$GEN_SENT" ] || { msg="rc_host gen: no sent= in: $out"; return 1; }
}

# ---- traffic checks -----------------------------------------------------

# pings FROM_DEV DST: replies out of 3 (busybox ping: the host has no iputils)
pings() {
	in_dev "$1" busybox ping -q -c 3 -i 0.2 -W 5 -w 15 "$2" 2>&1 |
		sed -n 's/.* \([0-9]*\) packets received.*/\1/p'
}
# Ping both ways and feed nic2 from the host: the NICs work.
works() {
	local ab ba before got
	ab=$(pings "$A" "$IP_B")
	ba=$(pings "$B" "$IP_A")
	msg="ping $A->$B ${ab:-0}/3, $B->$A ${ba:-0}/3"
	[ "${ab:-0}" = 3 ] && [ "${ba:-0}" = 3 ] || return 1
	if ! [ -x "$RC_HOST" ]; then
		msg+=", $G not checked: no $RC_HOST"
		return "$MISSING"
	fi
	before=$(rxsum "$G")
	gen --count 200 --rate 1000 --flows 8 || return 1
	settle "$G" || true
	got=$(($(rxsum "$G") - before))
	msg+=", $G took $got of $GEN_SENT generated frames"
	[ "$got" = "$GEN_SENT" ] && [ "$got" -gt 0 ]
}

# ---- RX threads ---------------------------------------------------------

# The CPU the driver picks for queue Q by default: the (Q mod n)th online one.
default_cpu() {
	local cpus
	read -r -a cpus <<<"$(online_cpus)"
	echo "${cpus[$(($1 % ${#cpus[@]}))]}"
}
online_cpus() {
	local r a b out=()
	IFS=, read -r -a r </sys/devices/system/cpu/online
	for a in "${r[@]}"; do
		b=${a#*-}
		a=${a%-*}
		out+=($(seq "$a" "$b"))
	done
	echo "${out[@]}"
}

# ring DEV: "rxmax txmax rx tx"
ring_sizes() {
	ethtool -g "$1" 2>/dev/null | awk '
		/^Pre-set/ {s = "max"} /^Current/ {s = "cur"}
		/^RX:/ {v[s "rx"] = $2} /^TX:/ {v[s "tx"] = $2}
		END {print v["maxrx"], v["maxtx"], v["currx"], v["curtx"]}'
}

# ---- allocations counted from outside the driver (bpftrace) ---------------

# Every slab object (kmalloc, kmem_cache_alloc, and their _node variants on
# kernels that still have them) and every page passes one of these.
ALLOC_TPS="kmalloc kmalloc_node kmem_cache_alloc kmem_cache_alloc_node mm_page_alloc"
AW_PID= AW_RC=0 AW_WHY= AW_TOTAL= AW_PROBES= AW_IRQS=
AW_OUT=$tmp/allocs.out
# alloc_watch_start DEV: count every allocation made on the stacks of
# DEV's RX threads (DEV-rx0, DEV-rx1), until alloc_watch_stop: their own
# code (the driver, ringcap's delivery and wake-ups) and whatever
# softirqs and interrupts run on them; and in the RX queues' interrupt
# handlers (MSI-X vectors DEV-rx0, DEV-rx1), whichever task they
# interrupt. 0 once bpftrace is attached; else AW_WHY says why and AW_RC
# is 4 (skip) when this kernel cannot run it (no BTF: the debug tier),
# else $MISSING or 1.
alloc_watch_start() {
	local tp q pid irq pids= irqs= tr=/sys/kernel/tracing
	AW_PID= AW_RC=1 AW_WHY= AW_TOTAL= AW_PROBES=
	if ! command -v bpftrace >/dev/null; then
		AW_WHY="no bpftrace (apt-get install bpftrace)"
		AW_RC=$MISSING
		return 1
	fi
	mountpoint -q $tr || mount -t tracefs none $tr 2>/dev/null || true
	for tp in $ALLOC_TPS; do
		[ ! -d "$tr/events/kmem/$tp" ] || AW_PROBES+="${AW_PROBES:+,}tracepoint:kmem:$tp"
	done
	for tp in kmalloc kmem_cache_alloc mm_page_alloc; do
		[ -d "$tr/events/kmem/$tp" ] || { AW_WHY="no kmem:$tp tracepoint in $tr"; return 1; }
	done
	for q in 0 1; do
		pid=$(kthread_pid "$1-rx$q") || { AW_WHY="no $1-rx$q thread"; return 1; }
		pids+="${pids:+ || }tid == $pid"
		irq=$(awk -v n="$1-rx$q" '$NF == n {sub(":", "", $1); print $1}' /proc/interrupts)
		[ -z "$irq" ] || irqs+="${irqs:+ || }args->irq == $irq"
	done
	[ -n "$irqs" ] || irqs=0
	cat >"$tmp/allocs.bt" <<-EOF
	BEGIN { printf("attached\n"); }
	tracepoint:irq:irq_handler_entry / $irqs / { @in_irq[cpu] = 1; }
	tracepoint:irq:irq_handler_exit / $irqs / { delete(@in_irq[cpu]); }
	$AW_PROBES
	/ $pids || @in_irq[cpu] /
	{
		@total = count();
		@allocs[probe, comm] = count();
		@stacks[kstack(12)] = count();
	}
	END { printf("=== end\n"); clear(@in_irq); }
	EOF
	AW_IRQS=$(sed 's/args->irq == //g; s/ || /,/g' <<<"$irqs")
	bt_spawn "$AW_OUT" "$tmp/allocs.bt"
	AW_PID=$bt_pid
	# Compiling takes 10-30 s under TCG.
	wait_for 240 grep -q '^attached' "$AW_OUT" && return 0
	AW_WHY="bpftrace did not attach: $(grep -v '^attached' "$AW_OUT" | tail -n 3 | tr '\n' ' ')"
	[ -r /sys/kernel/btf/vmlinux ] || { AW_RC=4; AW_WHY+=" ($(uname -r) has no BTF)"; }
	bt_kill "$AW_PID"
	AW_PID=
	return 1
}
# alloc_watch_stop: stop it; AW_TOTAL is what it counted.
alloc_watch_stop() {
	[ -n "$AW_PID" ] || return 0
	local pid=$AW_PID
	AW_PID=
	if ! bt_halt "$pid" "$AW_OUT"; then
		AW_WHY="bpftrace ended without its totals: $(tail -n 3 "$AW_OUT" | tr '\n' ' ')"
		AW_RC=1
		return 1
	fi
	# A map that was never written is not printed: no line, no allocation.
	AW_TOTAL=$(sed -n 's/^@total: \([0-9]*\)$/\1/p' "$AW_OUT")
	AW_TOTAL=${AW_TOTAL:-0}
}

# ---- reload cycles ------------------------------------------------------------

# Traffic for the first half of a batch: the host generator into nic2 and
# pings across the pair.
cyc_traffic_start() {
	"$RC_HOST" --bg cyc gen nic2 --dst-mac "${MAC[2]}" --flows 8 --rate 2000 --duration 60 \
		>"$tmp/cyc.gen" 2>&1 || true
	ip netns exec "$NS" busybox ping -q -i 0.05 -w 120 "$IP_A" >/dev/null 2>&1 &
	cyc_ping=$!
}
cyc_traffic_stop() {
	kill "$cyc_ping" 2>/dev/null || true
	wait "$cyc_ping" 2>/dev/null || true
	# A one-second wait cancels the request; rcgen still reports.
	"$RC_HOST" --timeout 1 --wait cyc >>"$tmp/cyc.gen" 2>&1 || true
	GEN_SENT=$(kv sent "$(cat "$tmp/cyc.gen")")
}
t_cycles() { # link|module|bind
	local i t0=$SECONDS dev pci gone= m
	have_host || return "$MISSING"
	cyc_traffic_start
	for ((i = 1; i <= CYCLES; i++)); do
		case $1 in
		link)
			ip link set "$A" down
			ip link set "$G" down
			if [ "$i" = "$CYCLES" ]; then
				wait_for 3 eval '! kthread_pid "$A-rx0" >/dev/null && ! kthread_pid "$G-rx1" >/dev/null' && gone=1
			fi
			ip link set "$A" up
			ip link set "$G" up
			;;
		module)
			if ! unload_drv; then
				msg="cycle $i: rmmod $DRV failed"
				broken=$msg
				return 1
			fi
			load_drv || { msg="cycle $i: loading $DRV failed"; broken=$msg; return 1; }
			dev=$(pci_netdev "${PCI[2]}") && ip link set "$dev" up
			;;
		bind)
			for pci in "${PCI[2]}" "${PCI[0]}"; do
				echo "$pci" >"$PCI_DRV/$DRV/unbind"
			done
			for pci in "${PCI[2]}" "${PCI[0]}"; do
				echo "$pci" >"$PCI_DRV/$DRV/bind" ||
					{ msg="cycle $i: bind $pci failed"; broken=$msg; return 1; }
			done
			dev=$(pci_netdev "${PCI[2]}") && ip link set "$dev" up
			;;
		esac
		[ "$i" != $((CYCLES / 2)) ] || cyc_traffic_stop
	done
	m="$CYCLES cycles in $((SECONDS - t0)) s, traffic in the first $((CYCLES / 2)) (generator sent ${GEN_SENT:-?})"
	[ "$1" != link ] || m+=", RX threads $([ -n "$gone" ] && echo gone || echo "still there") while down"
	nics_setup || { msg="$m; setup after: $msg"; broken="NIC setup failed"; return 1; }
	works || { msg="$m; $msg"; return 1; }
	msg="$m; $msg"
	[ "$1" != link ] || [ -n "$gone" ] || return 1
}

# ---- setup and cleanup --------------------------------------------------

cleanup() {
	local p pci
	set +e
	# Only our own background jobs that still run.
	for p in $(jobs -p); do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	[ -z "$mode_was" ] || echo "$mode_was" >"$PARAMS/transparent_mode" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	[ -z "$v6_was" ] || sysctl -qw net.ipv6.conf.default.disable_ipv6="$v6_was" 2>/dev/null
	for pci in "${PCI[@]}"; do
		[ "$pci" = - ] || echo >"/sys/bus/pci/devices/$pci/driver_override" 2>/dev/null
	done
	[ ! -d "/sys/module/$DRV" ] || unload_drv
	# The stock driver gets back what it had, before ours may take
	# every free 82574L again.
	for pci in "${stock_bound[@]}"; do
		[ "$(pci_driver "$pci")" = none ] && echo "$pci" >/sys/bus/pci/drivers_probe 2>/dev/null
	done
	[ "$stock_was" = 1 ] || [ ! -d /sys/module/e1000e ] || rmmod e1000e 2>/dev/null
	[ "$drv_was_loaded" = 0 ] || load_drv 2>/dev/null
	rm -rf "$tmp"
}

# The setup cases.

# 1: the NICs are there and free
t_find() {
	local f pci drv nics=()
	for f in /sys/bus/pci/devices/*; do
		[ "$(cat "$f/vendor"):$(cat "$f/device")" = 0x8086:0x10d3 ] || continue
		nics+=("$(basename "$f")")
	done
	if [ ${#nics[@]} -lt 3 ]; then
		msg="${#nics[@]} 82574L (8086:10d3) found, need 3: boot with --nic e1000e-pair --nic e1000e-dgram"
		broken="fewer than 3 82574L NICs"
		return "$MISSING"
	fi
	if [ -d "/sys/module/$DRV" ]; then
		drv_was_loaded=1
		rmmod "$DRV" || { msg="$DRV was loaded and cannot be removed"; broken=$msg; return 1; }
	fi
	for pci in "${nics[@]}"; do
		drv=$(pci_driver "$pci")
		[ "$drv" = none ] && continue
		if [ "$drv" != e1000e ]; then
			msg="$pci is held by $drv"
			broken=$msg
			return 1
		fi
		stock_bound+=("$pci")
		echo "$pci" >"$PCI_DRV/e1000e/unbind"
	done
	msg="${nics[*]}; released from e1000e: ${stock_bound[*]:-none}"
}

# 2: our driver takes them all
t_load() {
	local out pci bound=0 total=0
	if ! out=$(load_drv 2>&1); then
		msg="loading $DRV: $out"
		broken="$DRV did not load"
		[ -n "${RC_E1000E_KO:-}" ] || [ -n "$(modinfo -F filename "$DRV" 2>/dev/null)" ] ||
			return "$MISSING"
		return 1
	fi
	for pci in /sys/bus/pci/devices/*; do
		[ "$(cat "$pci/vendor"):$(cat "$pci/device")" = 0x8086:0x10d3 ] || continue
		total=$((total + 1))
		[ "$(pci_driver "$(basename "$pci")")" = "$DRV" ] && bound=$((bound + 1))
	done
	msg="$bound of $total bound to $DRV; interrupts: $(dmesg | grep "$DRV" | grep -Eo '(MSI-X|MSI|legacy|INTx)[^,;]*' | tail -n 1)"
	[ "$bound" = "$total" ] || { broken="$DRV bound $bound of $total NICs"; return 1; }
}

# 3: names, namespace, addresses, carrier
t_setup() {
	local types=
	nics_setup || { broken="NIC setup failed: $msg"; return 1; }
	if [[ " ${RC_E1000E_BREAK:-} " == *" $AREA "* ]]; then
		msg="RC_E1000E_BREAK=\"$RC_E1000E_BREAK\" breaks this area's setup"
		broken=$msg
		return 1
	fi
	if [ -x "$RC_HOST" ]; then
		types=$("$RC_HOST" nics 2>/dev/null | awk '{printf "%s%s=%s", s, $1, $2; s = " "}')
		if [[ $types != *nic2=*dgram* ]]; then
			msg="rc_host nics says '$types': nic2 is not the dgram NIC"
			return 1
		fi
	fi
	msg="$A=${PCI[0]} $IP_A, $B=${PCI[1]} $IP_B in netns $NS, $G=${PCI[2]}; ${types:-no rc_host}"
}

# e1000e_begin PLAN: the TAP header, the prerequisites (else every case is
# skipped, or failed under RC_REQUIRE=1) and the three setup cases. A
# setup case that fails sets $broken: the area's cases then fail as "not
# run", and the EXIT trap still puts everything back.
e1000e_begin() {
	local why= f
	PLAN=$1
	trap cleanup EXIT
	echo "TAP version 13"
	echo "1..$PLAN"
	echo "# e1000e/$AREA.sh: $(uname -r), $(nproc) CPUs, QEMU machine $(cat /sys/class/dmi/id/product_version 2>/dev/null || echo '?')"
	[ "$(id -u)" = 0 ] || why="needs root"
	[ -n "$why" ] || [ -d /sys/module/ringcap ] || why="ringcap is not loaded"
	for f in "$RINGCOUNT" "$PY" /bin/busybox "$(command -v ethtool || echo ethtool)"; do
		[ -n "$why" ] || [ -x "$f" ] || why="$f missing"
	done
	[ -z "$why" ] || skip_all "e1000e/$AREA" "$why"
	mode_was=$(cat "$PARAMS/transparent_mode")
	[ ! -d /sys/module/e1000e ] || stock_was=1
	v6_was=$(sysctl -n net.ipv6.conf.default.disable_ipv6 2>/dev/null || true)
	sysctl -qw net.ipv6.conf.default.disable_ipv6=1 2>/dev/null || true

	tcase "setup: three 82574Ls, none held by the stock e1000e" t_find
	tcase "setup: modprobe $DRV binds every 82574L" t_load
	tcase "setup: $A, $B (netns $NS), $G named, addressed and up" t_setup
	set_mode 0
}

# e1000e_end: the plan kept, the exit status (0 all passed, 1 a test
# failed, 4 all skipped).
e1000e_end() {
	[ "$n" -eq "$PLAN" ] || echo "# plan said $PLAN tests, ran $n"
	echo "# e1000e/$AREA.sh: $((SECONDS - t_start)) s"
	[ "$failed" -eq 0 ] && [ "$n" -eq "$PLAN" ] || exit 1
	[ "$skipped" -lt "$PLAN" ] || exit 4
	exit 0
}
