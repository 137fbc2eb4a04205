#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of `make fuzz` (and of the debug lane's short run in
# `make check`): rcfuzz in segments under traffic, the driver side beside
# it, and between segments a full unload and reload of the modules, which
# must succeed once every socket is closed (nothing leaked a reference).
#
#   selftests/fuzz/fuzz.sh
#
#   RC_FUZZ_SECONDS   total fuzzing time (default 60)
#   RC_FUZZ_SEGMENT   seconds per rcfuzz run between reloads (default 30)
#   RC_FUZZ_WORKERS   rcfuzz worker processes (default 3)
#   RC_FUZZ_SEED      seed of the first segment (segment i: SEED + i;
#                     default: from the clock, printed)
#   RC_BIN            rcfuzz (default: ../build/bin)
#   RC_SIM_KO         ringcap_sim.ko (default ../build/$(uname -r)/)
#   RC_RINGCAP_KO, RC_E1000E_KO   insmod these instead of modprobe
#   RC_HOST           the guest-to-host helper (default ../rc_host)
#   RC_REQUIRE=1      missing NICs fail instead of skipping
#
# The driver side needs the guest's 82574Ls (scripts/vm/run --nic
# e1000e-pair --nic e1000e-dgram): on ringcap_e1000e, named rce0-rce2 by
# MAC, all in the initial network namespace (where rcfuzz's worker 0 binds
# them), the host generator sending into rce2. Meanwhile a loop takes
# links down and up (ip, and set_link in the QEMU monitor), changes ring
# sizes (ethtool -G), channels (-L, which the driver refuses) and
# interrupt moderation (-C) with valid and invalid values, unbinds and
# rebinds the PCI functions and reloads the driver, and checks that valid
# requests succeed and invalid ones fail. Without the NICs that part is a
# loud TAP skip, and a failure under RC_REQUIRE=1 (scripts/fuzz.sh and
# run_guest.sh set it: `make fuzz` promises the 82574L).
#
# Output: TAP; the last comment line gives the operation count
# (docs/RELIABILITY.md). Exit status 0 only without failures.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../lib.sh"
BIN=${RC_BIN:-$here/../build/bin}
TOTAL=${RC_FUZZ_SECONDS:-60}
SEGMENT=${RC_FUZZ_SEGMENT:-30}
WORKERS=${RC_FUZZ_WORKERS:-3}
SEED=${RC_FUZZ_SEED:-$(($(date +%s%N) % 1000000007))}
RC_HOST=${RC_HOST:-$here/../rc_host}
export RC_SIM_KO=${RC_SIM_KO:-$here/../build/$(uname -r)/ringcap_sim.ko}
DRV=ringcap_e1000e
PARAMS=/sys/module/ringcap/parameters
PCI_DRV=/sys/bus/pci/drivers
MAC=(52:54:00:12:34:10 52:54:00:12:34:11 52:54:00:12:34:12)
PCI=()
nics=0
host=0

# Missing NICs: a failure when required (make fuzz, run_guest.sh).
if [ "${RC_REQUIRE:-0}" = 1 ]; then MISSING=1; else MISSING=4; fi
n=0 failed=0 skipped=0
tmp=$(mktemp -d)
klog_start=$(klog_lines) || klog_start=0	# unreadable: the log case fails
t_start=$SECONDS
drv_pid=
gen_started=0

cleanup() {
	set +e
	[ -z "$drv_pid" ] || { touch "$tmp/stop"; wait "$drv_pid"; }
	[ "$gen_started" = 0 ] || "$RC_HOST" --timeout 1 --wait fzgen >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "TAP version 13"
echo "# fuzz: $TOTAL s in segments of $SEGMENT s, $WORKERS workers, seed $SEED, $(uname -r), $(nproc) CPUs"

# ---- modules and NICs ---------------------------------------------------

load_drv() {
	if [ -n "${RC_E1000E_KO:-}" ]; then
		insmod "$RC_E1000E_KO"
	else
		modprobe "$DRV"
	fi
}
load_sim() { loaded ringcap_sim || insmod "$RC_SIM_KO"; }

pci_driver() {
	local d=/sys/bus/pci/devices/$1/driver
	[ -e "$d" ] && basename "$(readlink -f "$d")" || echo none
}
pci_netdev() { ls "/sys/bus/pci/devices/$1/net" 2>/dev/null | head -n 1; }

# Name the 82574Ls rce0-rce2 by MAC and bring them up. Idempotent.
nics_setup() {
	local i dev
	for i in 0 1 2; do
		dev=$(iface_by_mac "${MAC[i]}") || return 1
		if [ "$dev" != "rce$i" ]; then
			ip link set dev "$dev" down
			ip link set dev "$dev" name "rce$i" || return 1
		fi
		sysctl -qw "net.ipv6.conf.rce$i.disable_ipv6=1" 2>/dev/null
		ip link set dev "rce$i" up || return 1
	done
}

t_setup() {
	local out
	[ "$(id -u)" = 0 ] || { msg="needs root"; return 1; }
	[ -x "$BIN/rcfuzz" ] || { msg="$BIN/rcfuzz missing (make -C selftests all)"; return 1; }
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	if ! loaded ringcap; then
		out=$(load_ringcap 2>&1) || { msg="loading ringcap: $out"; return 1; }
	fi
	out=$(load_sim 2>&1) || { msg="insmod $RC_SIM_KO: $out"; return 1; }
	msg="ringcap and ringcap_sim loaded"
}

t_nics() {
	local f pci out all=()
	for f in /sys/bus/pci/devices/*; do
		[ "$(cat "$f/vendor"):$(cat "$f/device")" = 0x8086:0x10d3 ] && all+=("$(basename "$f")")
	done
	if [ ${#all[@]} -lt 3 ]; then
		msg="${#all[@]} 82574L found, need 3 (boot with --nic e1000e-pair --nic e1000e-dgram): link flaps, ethtool, unbind/bind, driver reloads and zero-copy are not fuzzed"
		return "$MISSING"
	fi
	for pci in "${all[@]}"; do
		[ "$(pci_driver "$pci")" != e1000e ] || echo "$pci" >"$PCI_DRV/e1000e/unbind"
	done
	if ! loaded "$DRV"; then
		out=$(load_drv 2>&1) || { msg="loading $DRV: $out"; return 1; }
	fi
	wait_for 20 nics_setup || { msg="no netdevs with the MACs ${MAC[*]}"; return 1; }
	for f in 0 1 2; do
		PCI[f]=$(basename "$(readlink -f "/sys/class/net/rce$f/device")")
	done
	nics=1
	if "$RC_HOST" nics >"$tmp/nics" 2>&1 && grep -q '^nic2 .*dgram' "$tmp/nics"; then
		host=1
		"$RC_HOST" --bg fzgen gen nic2 --dst-mac "${MAC[2]}" --flows 8 \
			--rate 300 --duration $((TOTAL + 300)) >/dev/null 2>&1 && gen_started=1
	fi
	msg="rce0-rce2 = ${PCI[*]} on $DRV; host generator into rce2: $([ "$gen_started" = 1 ] && echo yes || echo no)"
}

# ---- the driver side ----------------------------------------------------

# dfail MSG: a driver-side request did not do what it should
dfail() { echo "# FAIL driver: $*"; echo x >>"$tmp/dfail"; }
dcount() { echo "$1" >>"$tmp/dops"; }
# expect_ok|expect_fail DESC CMD...
expect_ok() {
	local d=$1 out
	shift
	out=$("$@" 2>&1) || dfail "$d: $(echo "$out" | tail -n 1)"
}
expect_fail() {
	local d=$1
	shift
	! "$@" >/dev/null 2>&1 || dfail "$d succeeded"
}

# The current RX/TX ring sizes ("RX TX") and rx-usecs of a device.
ring_now() {
	ethtool -g "$1" 2>/dev/null |
		awk '/^Current/ { c = 1 } c && /^RX:/ { r = $2 } c && /^TX:/ { t = $2 } END { print r, t }'
}
usecs_now() { ethtool -c "$1" 2>/dev/null | awk '/^rx-usecs:/ { print $2 }'; }

driver_op() {
	local i=$((RANDOM % 3)) dev v r t pci
	dev=rce$i
	[ -e "/sys/class/net/$dev" ] || { nics_setup >/dev/null 2>&1; return; }
	case $((RANDOM % 20)) in
	0 | 1 | 2 | 3)
		dcount link
		ip link set "$dev" down
		sleep 0.$((RANDOM % 5))
		expect_ok "ip link set $dev up" ip link set "$dev" up
		;;
	4 | 5)
		[ "$host" = 1 ] || return
		dcount set_link
		"$RC_HOST" --timeout 20 monitor set_link "nic$i" off >/dev/null 2>&1 ||
			dfail "set_link nic$i off"
		sleep 0.$((RANDOM % 5))
		"$RC_HOST" --timeout 20 monitor set_link "nic$i" on >/dev/null 2>&1 ||
			dfail "set_link nic$i on"
		;;
	6 | 7 | 8 | 9)
		dcount ethtool_G
		v=(64 80 256 512 1024 4096)
		r=${v[RANDOM % 6]} t=${v[RANDOM % 6]}
		if [ $((RANDOM % 3)) = 0 ]; then
			v=(0 8 63 4097 100000)
			r=${v[RANDOM % 5]}
			expect_fail "ethtool -G $dev rx $r" ethtool -G "$dev" rx "$r" tx "$t"
		elif [ "$(ring_now "$dev")" != "$r $t" ]; then
			# ethtool refuses a request that changes nothing
			expect_ok "ethtool -G $dev rx $r tx $t" ethtool -G "$dev" rx "$r" tx "$t"
		fi
		;;
	10 | 11)
		dcount ethtool_L
		# The driver has no set_channels: only that nothing breaks.
		ethtool -L "$dev" rx $((RANDOM % 4)) combined $((RANDOM % 3)) >/dev/null 2>&1
		;;
	12 | 13 | 14)
		dcount ethtool_C
		v=(0 1 3 50 100 1000 16776)
		r=${v[RANDOM % 7]}
		if [ $((RANDOM % 3)) = 0 ]; then
			v=(16777 20000 1000000)
			r=${v[RANDOM % 3]}
			expect_fail "ethtool -C $dev rx-usecs $r" \
				ethtool -C "$dev" rx-usecs "$r"
		elif [ "$(usecs_now "$dev")" != "$r" ]; then
			# ethtool refuses a request that changes nothing
			expect_ok "ethtool -C $dev rx-usecs $r" \
				ethtool -C "$dev" rx-usecs "$r"
		fi
		;;
	15 | 16 | 17 | 18)
		dcount rebind
		pci=${PCI[i]}
		echo "$pci" >"$PCI_DRV/$DRV/unbind" 2>/dev/null || dfail "unbind $pci"
		sleep 0.$((RANDOM % 5))
		echo "$pci" >"$PCI_DRV/$DRV/bind" 2>/dev/null || dfail "bind $pci"
		wait_for 10 nics_setup || dfail "no netdev after rebinding $pci"
		;;
	*)
		dcount reload
		rmmod_wait "$DRV" || { dfail "rmmod $DRV"; return; }
		expect_ok "loading $DRV" load_drv
		wait_for 20 nics_setup || dfail "no netdevs after reloading $DRV"
		;;
	esac
}

driver_loop() {
	RANDOM=$1
	while [ ! -e "$tmp/stop" ]; do
		driver_op
		sleep 0.$((1 + RANDOM % 4))
	done
}

# ---- segments and reloads -----------------------------------------------

t_segment() { # I SEED SECS
	local out rc line bad
	out=$tmp/seg.$1
	"$BIN/rcfuzz" --seed "$2" --seconds "$3" --workers "$WORKERS" \
		--stats "$tmp/stats.$1" >"$out" 2>&1 </dev/null
	rc=$?
	while IFS= read -r line; do
		case $line in
		"TAP version"* | 1..*) ;;
		"ok "* | "not ok "*) echo "# ${line#*rcfuzz: }" ;;
		\#*) echo "$line" ;;
		*) echo "# $line" ;;
		esac
	done <"$out"
	bad=$(grep -m 1 '^not ok' "$out" | sed 's/^not ok [0-9]* rcfuzz: //')
	msg="seed $2, $3 s, $(kv ops "$(tr '\n' ' ' <"$tmp/stats.$1" 2>/dev/null)") operations"
	if [ "$rc" != 0 ]; then
		msg+="; rcfuzz exit $rc${bad:+: $bad}"
		return 1
	fi
}

# Every socket is closed: the modules must go, then come back.
t_reload() {
	local out
	for out in $(ip -o link show 2>/dev/null | awk -F': ' '$2 ~ /^fz/ {sub(/@.*/, "", $2); print $2}'); do
		ip link del "$out" 2>/dev/null
	done
	if [ "$nics" = 1 ]; then
		rmmod_wait "$DRV" || { msg="rmmod $DRV failed"; return 1; }
	fi
	rmmod_wait ringcap_sim || { msg="rmmod ringcap_sim failed"; return 1; }
	rmmod_wait ringcap ||
		{ msg="rmmod ringcap: still in use (refcnt $(cat /sys/module/ringcap/refcnt 2>/dev/null)) with every socket closed"; return 1; }
	if load_ringcap ring_size=3 >/dev/null 2>&1 || loaded ringcap; then
		msg="ringcap loaded with ring_size=3"
		return 1
	fi
	out=$(load_ringcap transparent_mode=$((RANDOM % 3)) watermark=$((1 + RANDOM % 128)) 2>&1) ||
		{ msg="reloading ringcap: $out"; return 1; }
	out=$(load_sim 2>&1) || { msg="insmod $RC_SIM_KO: $out"; return 1; }
	if [ "$nics" = 1 ]; then
		out=$(load_drv 2>&1) || { msg="loading $DRV: $out"; return 1; }
		wait_for 20 nics_setup || { msg="no rce0-rce2 after reloading $DRV"; return 1; }
	fi
	msg="rmmod $([ "$nics" = 1 ] && echo "$DRV ")ringcap_sim ringcap, ring_size=3 refused, reloaded with transparent_mode=$(cat "$PARAMS/transparent_mode") watermark=$(cat "$PARAMS/watermark")"
}

# tcase (lib.sh) leaves the case's status in tc_rc.
tcase "setup: modules loaded, rcfuzz present" t_setup
[ "$tc_rc" = 0 ] || {
	echo "1..$n"
	exit 1
}
tcase "driver side: the 82574Ls on $DRV" t_nics

segs=$(((TOTAL + SEGMENT - 1) / SEGMENT))
left=$TOTAL
for ((i = 0; i < segs; i++)); do
	secs=$((left < SEGMENT ? left : SEGMENT))
	left=$((left - secs))
	rm -f "$tmp/stop"
	if [ "$nics" = 1 ]; then
		driver_loop $((SEED + i)) &
		drv_pid=$!
	fi
	tcase "fuzz segment $((i + 1))/$segs" t_segment "$i" $((SEED + i)) "$secs"
	if [ -n "$drv_pid" ]; then
		touch "$tmp/stop"
		wait "$drv_pid"
		drv_pid=
	fi
	tcase "reload after segment $((i + 1)): every module unloads with no socket left, and loads again" t_reload
	[ "$tc_rc" = 0 ] || break
done

if [ "$nics" = 1 ]; then
	msg="$(sort "$tmp/dops" 2>/dev/null | uniq -c | awk '{printf "%s%s %s", s, $2, $1; s = ", "}'), $(cat "$tmp/dfail" 2>/dev/null | wc -l) failed"
	[ -s "$tmp/dfail" ] && rc=1 || rc=0
	result "$rc" "driver side: link flaps, set_link, ethtool -G/-L/-C, unbind/bind, reloads as documented" "$msg"
fi

if klog_clean "$klog_start"; then
	result 0 "kernel log: no report during the fuzz"
else
	sed 's/^/# /' <<<"$klog_bad"
	result 1 "kernel log: no report during the fuzz"
fi

ops=0
for f in "$tmp"/stats.*; do
	[ -e "$f" ] && ops=$((ops + $(kv ops "$(tr '\n' ' ' <"$f")")))
done
dops=$(cat "$tmp/dops" 2>/dev/null | wc -l)
# Per operation and per option, summed over the segments (RELIABILITY.md).
if ls "$tmp"/stats.* >/dev/null 2>&1; then
	awk -F= '
		/^op_/ { k = substr($1, 4); if (!(k in op)) o[++no] = k; op[k] += $2 }
		/^err_/ { er[substr($1, 5)] += $2 }
		/^opt_set_/ { set[substr($1, 9) + 0] += $2 }
		/^opt_get_/ { get[substr($1, 9) + 0] += $2 }
		END {
			l = "# fuzz: per operation (calls/documented failures):"
			for (i = 1; i <= no; i++) l = l " " o[i] "=" op[o[i]] "/" er[o[i]] + 0
			print l
			for (w = 0; w < 2; w++) {
				l = "# fuzz: SOL_RINGCAP options " (w ? "read" : "set") ", by number:"
				for (i = 1; i <= 21; i++) {
					v = w ? get[i] : set[i]
					if (v) l = l " " i "=" v
				}
				print l
			}
		}' "$tmp"/stats.*
fi
if [ -s "$tmp/dops" ]; then
	echo "# fuzz: driver side: $(sort "$tmp/dops" | uniq -c | awk '{printf "%s%s=%s", s, $2, $1; s = " "}')"
fi
echo "1..$n"
echo "# fuzz: $ops rcfuzz operations and $dops driver-side ones in $((SECONDS - t_start)) s, seed $SEED"
[ "$failed" = 0 ]
