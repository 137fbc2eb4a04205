#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Capture on a virtio-net NIC, which the stock virtio_net drives: ringcap
# has no aware driver there, so every frame reaches it through the shared
# per-device receive hook (mode 0). The host generator feeds the NIC
# (scripts/vm/run --nic virtio-dgram; rcgen through rc_host) with
# $N frames of mixed sizes over $FLOWS flows, and:
#
#   - one ringcount captures every one, and the stack still gets them all;
#   - Debian's tcpdump through ringcap-run (libpcap-ring, a ringcap
#     socket) writes them byte for byte as rcgen built them, in order
#     (each is rebuilt here from its size, sequence number and flow);
#   - three ringcounts on the device each capture every frame;
#   - three in one flow cluster split them: the shares add up to what was
#     sent and each has some; three in a round-robin cluster are within
#     one frame of each other.
#
# Then mode 2, which on virtio-net goes through XDP (module/xdp.c): the
# ring gets every frame and a UDP socket on rcgen's port none; after
# close and after SIGKILL the program is gone and the socket gets them
# all; a socket bound to queue 0 takes it; switching 2->0->2->0 while
# frames arrive, tcpdump writes each once, in order; unbinding
# virtio_net under an XDP socket gives the reader ENODEV and leaves
# nothing behind.
#
# In a guest as root, after run_guest.sh loaded ringcap:
#
#   scripts/vm/run -k KVER --nic virtio-dgram -- \
#       'RC_TESTS=virtio.sh selftests/run_guest.sh'
#
# The NIC is the first virtio-dgram line of `rc_host nics`, found by its
# MAC (its netdev sits under the virtio device, /sys/bus/pci/devices/PCI/
# virtioN/net/IF, not under the PCI function). A guest without one skips
# every test, and fails them under RC_REQUIRE=1 as it does any missing
# prerequisite (ringcap, ringcount, rc_host): run_guest.sh sets it, and
# every guest of make check has the NIC, so a runner that lost it must
# not turn 15 tests into quiet skips.
#
#   RC_TOOLS        ringcount (default: userland/build/bin)
#   RC_HOST         the guest-to-host helper (default: selftests/rc_host)
#   RC_LPR          libpcap-ring directory (default: libpcap-ring)
#   RC_VIRTIO_RATE  generator rate in frames per second (default 1000:
#                   QEMU stops reading the socket while the RX ring is
#                   full, and TCG drains it slowly)
#   RC_VIRTIO_ONLY  run only these cases (their functions, e.g. "t_one
#                   t_xdp_takes"; setup, t_xdp_setup and the last check
#                   always run), the others skipped, saying so
#
# Output: TAP. Exit status: 0 all passed, 1 a test failed, 4 skipped.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
TOOLS=${RC_TOOLS:-$here/../userland/build/bin}
RINGCOUNT=$TOOLS/ringcount
RC_HOST=${RC_HOST:-$here/rc_host}
LPR=${RC_LPR:-$here/../libpcap-ring}
RINGCAP_RUN=$LPR/ringcap-run
PARAMS=/sys/module/ringcap/parameters
RATE=${RC_VIRTIO_RATE:-1000}
# The traffic: SIZE:COUNT batches, one rcgen each (its sequence numbers
# start at 0 each time), 1009 frames in all; 64 flows, so that a flow
# hash over three members leaves none of them empty but by a fluke of
# odds 3 * (2/3)^64.
BATCHES="60:253 128:252 700:252 1514:252"
FLOWS=64
N=0
for b in $BATCHES; do N=$((N + ${b#*:})); done
PLAN=15

TCASE_ONLY=${RC_VIRTIO_ONLY:-}
TCASE_ONLY_VAR=RC_VIRTIO_ONLY
TCASE_ALWAYS="t_setup t_xdp_setup t_clean"

if [ "${RC_REQUIRE:-0}" = 1 ]; then MISSING=1; else MISSING=4; fi
n=0
failed=0
skipped=0
msg=
broken=
tmp=$(mktemp -d)
mode_was=
was_up=1
rp_was=
GEN_IP=10.0.0.2 GEN_PORT=5001	# where rcgen sends its datagrams
DEV= NIC= MAC=
declare -A RCPID RCOUT RCSUM

cleanup() {
	local id
	set +e
	for id in "${!RCPID[@]}"; do
		[ -z "${RCPID[$id]}" ] || kill -KILL "${RCPID[$id]}" 2>/dev/null
	done
	[ -z "$mode_was" ] || echo "$mode_was" >"$PARAMS/transparent_mode"
	[ -z "$DEV" ] || ip addr del "$GEN_IP/24" dev "$DEV" 2>/dev/null
	[ -z "$rp_was" ] || sysctl -qw "net.ipv4.conf.all.rp_filter=$rp_was"
	# The NIC as we found it, for whatever runs next in this guest.
	[ -z "$DEV" ] || [ "$was_up" = 1 ] || ip link set "$DEV" down
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "TAP version 13"
echo "1..$PLAN"
echo "# virtio.sh: $(uname -r), $(nproc) CPUs"
why=
[ "$(id -u)" = 0 ] || why="needs root"
[ -n "$why" ] || [ -x "$RC_HOST" ] || why="no $RC_HOST"
[ -n "$why" ] || nics=$("$RC_HOST" nics 2>&1) ||
	why="not in a ringcap test guest: $nics"
[ -z "$why" ] || skip_all virtio "$why"
read -r NIC _ MAC _ <<<"$(awk '$2 == "virtio-dgram" {print; exit}' <<<"$nics")"
have=$(awk 'NF {printf "%s%s %s", s, $1, $2; s = ", "}' <<<"$nics")
[ -n "$NIC" ] || skip_all virtio \
	"no virtio-dgram NIC in this guest (scripts/vm/run --nic virtio-dgram); it has ${have:-no NIC}"
[ -d /sys/module/ringcap ] || skip_all virtio "ringcap is not loaded"
[ -x "$RINGCOUNT" ] || skip_all virtio "no $RINGCOUNT (make -C userland)"
klog0=$(klog_lines) || klog0=0	# unreadable: t_xdp_unbind says so

rx_packets() { cat "/sys/class/net/$DEV/statistics/rx_packets"; }
wiredrops() { "$RC_HOST" wiredrops "$NIC" 2>&1 | sed -n 's/^drops=\([0-9]*\)$/\1/p' | grep .; }
set_mode() { echo "$1" >"$PARAMS/transparent_mode"; }

# rc_start ID [ringcount options]: a ringcount on $DEV; 0 once bound.
rc_start() {
	local id=$1 end
	shift
	RCOUT[$id]=$tmp/rc.$id
	"$RINGCOUNT" -q -i "$DEV" -r 4M "$@" >"${RCOUT[$id]}" 2>&1 &
	RCPID[$id]=$!
	end=$(($(now_ms) + 20000))
	while kill -0 "${RCPID[$id]}" 2>/dev/null && [ "$(now_ms)" -lt "$end" ]; do
		[ -z "$(proc_line "${RCPID[$id]}")" ] || return 0
		sleep 0.1
	done
	msg="ringcount -i $DEV $* did not bind: $(tail -n 2 "$tmp/rc.$id" | tr '\n' ' ')"
	return 1
}

# send: the batches from the host generator into the NIC, then wait until
# the NIC has taken what it will. SENT is what rcgen sent, RX what the
# stack counted on $DEV, WIRE what the host dropped at QEMU's socket
# (frames that never reached the NIC: then no capture can be complete).
send() {
	local b out s rx0 w0 w
	SENT=0 RX=0 WIRE=?
	rx0=$(rx_packets)
	w0=$(wiredrops) || { msg="rc_host wiredrops $NIC failed"; return 1; }
	for b in $BATCHES; do
		if ! out=$("$RC_HOST" gen "$NIC" --dst-mac "$MAC" --flows "$FLOWS" \
			--size "${b%:*}" --count "${b#*:}" --rate "$RATE" 2>&1); then
			msg="rc_host gen $NIC: $(tail -n 2 <<<"$out" | tr '\n' ' ')"
			return 1
		fi
		s=$(kv sent "$out")
		SENT=$((SENT + ${s:-0}))
	done
	steady 0.5 rx_packets || true
	RX=$(($(rx_packets) - rx0))
	if w=$(wiredrops); then WIRE=$((w - w0)); fi
	[ "$SENT" = "$N" ] || { msg="the generator sent $SENT of $N frames"; return 1; }
}
traffic() { echo "sent $SENT, $DEV took $RX (stack), host dropped $WIRE at QEMU's socket"; }

# 1: the NIC
t_setup() {
	local drv
	if ! DEV=$(iface_by_mac "$MAC"); then
		msg="$NIC ($MAC) has no interface; have: $(ls /sys/class/net | tr '\n' ' ')"
		return 1
	fi
	drv=$(basename "$(readlink -f "/sys/class/net/$DEV/device/driver")")
	msg="$NIC $MAC is $DEV on $(basename "$(readlink -f "/sys/class/net/$DEV/device/..")"), driver $drv"
	[ "$drv" = virtio_net ] || { msg+="; expected virtio_net"; return 1; }
	# Nothing but the generator on the wire: no IPv6 chatter.
	sysctl -qw "net.ipv6.conf.$DEV.disable_ipv6=1" 2>/dev/null || true
	grep -q '[<,]UP[,>]' <(ip link show "$DEV") || was_up=0
	ip link set "$DEV" up
	wait_for 20 eval '[ "$(cat /sys/class/net/$DEV/carrier 2>/dev/null)" = 1 ]' ||
		{ msg+="; no carrier after 20 s"; return 1; }
	if [ -n "$(awk -v d="$DEV" '$3 == d' /proc/net/ringcap)" ]; then
		msg+="; ringcap sockets are already bound to it"
		return 1
	fi
	mode_was=$(cat "$PARAMS/transparent_mode")
	set_mode 0
}
tcase "setup: the virtio-dgram NIC is up on virtio_net, mode 0" t_setup
[ "$tc_rc" = 0 ] || broken="no usable virtio NIC"

# 2: one reader
t_one() {
	rc_start one || return 1
	send || { rc_stop one; return 1; }
	rc_stop one
	msg="$(traffic); ringcount captured $(rc_val one captured), dropped $(rc_val one dropped), path $(rc_val one path)"
	[ "$(rc_val one captured)" = "$N" ] && [ "$(rc_val one dropped)" = 0 ] &&
		[ "$RX" = "$N" ]
}
tcase "one ringcount captures every one of $N generated frames ($BATCHES) and the stack gets them too" t_one

# 3: the bytes. ringcount only counts; tcpdump through libpcap-ring reads
# the same ring records and writes them out, and each frame is rebuilt
# here as rcgen makes it (userland/tools/rcgen.c): Ethernet, IPv4 (ID =
# sequence number, DF, TTL 64) from 10.1.0.1+flow to 10.0.0.2, UDP from
# port 10000+flow to 5001, payload "RCG1", sequence, flow, then bytes
# counting up from 12; flow = sequence % flows.
check_rcgen_pcap() { # FILE DST_MAC FLOWS SIZE:COUNT...
	/usr/bin/python3 -S - "$@" <<'EOF'
import struct, sys

def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF

def frame(dst, size, seq, flow):
    src_ip = struct.pack("!I", 0x0A010001 + flow)
    dst_ip = bytes([10, 0, 0, 2])
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, size - 14, seq & 0xFFFF,
                     0x4000, 64, 17, 0, src_ip, dst_ip)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    pay = struct.pack("!III", 0x52434731, seq, flow)
    pay += bytes((i - 42) & 0xFF for i in range(54, size))
    udp = struct.pack("!HHHH", 10000 + flow, 5001, size - 34, 0) + pay
    c = csum(src_ip + dst_ip + struct.pack("!BBH", 0, 17, size - 34) + udp)
    udp = udp[:6] + struct.pack("!H", c or 0xFFFF) + udp[8:]
    return dst + bytes([2, 0, 0, 0, 0, 1]) + b"\x08\x00" + ip + udp

path, dst, flows = sys.argv[1], bytes.fromhex(sys.argv[2].replace(":", "")), int(sys.argv[3])
want = []
for b in sys.argv[4:]:
    size, count = map(int, b.split(":"))
    want += [frame(dst, size, s, s % flows) for s in range(count)]
d = open(path, "rb").read()
if len(d) < 24 or struct.unpack("<I", d[:4])[0] not in (0xA1B2C3D4, 0xA1B23C4D):
    sys.exit("%s: not a little-endian pcap file" % path)
off, got = 24, []
while off + 16 <= len(d):
    caplen, wire = struct.unpack("<II", d[off + 8:off + 16])
    got.append((wire, d[off + 16:off + 16 + caplen]))
    off += 16 + caplen
for i, (w, (wire, f)) in enumerate(zip(want, got)):
    if f != w or wire != len(w):
        at = next((j for j in range(min(len(f), len(w))) if f[j] != w[j]), min(len(f), len(w)))
        sys.exit("frame %d of %d differs: %d bytes (wire %d), expected %d; first difference at byte %d"
                 % (i, len(want), len(f), wire, len(w), at))
if len(got) != len(want):
    sys.exit("%d frames in the file, expected %d" % (len(got), len(want)))
print("ok: %d frames byte-exact, in order" % len(got))
EOF
}
# td_start ID: Debian's tcpdump through ringcap-run, writing the first $N
# of rcgen's frames to $tmp/ID.pcap; 0 once it listens.
td_start() {
	[ -x "$RINGCAP_RUN" ] && [ -f "$LPR/build/lib/libpcap.so.0.8" ] ||
		{ msg="no drop-in libpcap: make -C libpcap-ring"; return "$MISSING"; }
	command -v tcpdump >/dev/null || { msg="no tcpdump"; return "$MISSING"; }
	"$RINGCAP_RUN" tcpdump -Z root -i "$DEV" -c "$N" -w "$tmp/$1.pcap" udp dst port 5001 \
		>"$tmp/$1.out" 2>"$tmp/$1.err" &
	RCPID[$1]=$!
	wait_for 20 grep -q "listening on" "$tmp/$1.err" ||
		{ msg="tcpdump did not start: $(tail -n 2 "$tmp/$1.err" | tr '\n' ' ')"; return 1; }
}
# td_check ID: once the traffic is sent, wait for tcpdump ID to end and
# check its file frame by frame; adds to $msg.
td_check() {
	local pid=${RCPID[$1]} rc=0 out
	wait_for 30 eval "! kill -0 $pid" || kill -INT "$pid" 2>/dev/null
	wait "$pid" || rc=$?
	RCPID[$1]=
	msg+="tcpdump: $(grep -E 'captured|dropped by kernel' "$tmp/$1.err" | tr '\n' ' ')"
	[ "$rc" = 0 ] || { msg+="; tcpdump exit $rc"; return 1; }
	out=$(check_rcgen_pcap "$tmp/$1.pcap" "$MAC" "$FLOWS" $BATCHES 2>&1) ||
		{ msg+="; $out"; return 1; }
	msg+="; $out"
}
t_bytes() {
	local sock
	td_start td || return
	sock=$(proc_line "${RCPID[td]}")
	send || return 1
	msg="$(traffic); "
	td_check td || return 1
	[ -n "$sock" ] || { msg+="; tcpdump had no ringcap socket"; return 1; }
}
tcase "tcpdump through ringcap-run writes the $N frames byte for byte as rcgen built them, in order" t_bytes

# rc_many PREFIX [ringcount options]: three ringcounts PREFIX1..3, the
# traffic, then COUNTS their captured counts; fails on any drop.
rc_many() {
	local p=$1 i c drops=0
	shift
	COUNTS=()
	for i in 1 2 3; do rc_start "$p$i" "$@" || return 1; done
	send || { for i in 1 2 3; do rc_stop "$p$i"; done; return 1; }
	for i in 1 2 3; do
		rc_stop "$p$i"
		c=$(rc_val "$p$i" captured)
		COUNTS+=("${c:-?}")
		drops=$((drops + $(rc_val "$p$i" dropped)))
	done
	msg="$(traffic); captured ${COUNTS[*]}, dropped $drops, cluster $(rc_val "${p}1" cluster)"
	[ "$drops" = 0 ] || { msg+="; ring drops"; return 1; }
	[[ "${COUNTS[*]}" =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]] || { msg+="; a summary is missing: ${RCSUM[${p}1]}"; return 1; }
}

# 4: the per-device hook serves every socket bound to the device
t_three() {
	rc_many all || return 1
	[ "${COUNTS[*]}" = "$N $N $N" ]
}
tcase "three ringcounts on $DEV each capture all $N frames" t_three

# 5, 6: clusters
t_flow() {
	local c sum=0
	rc_many flow -C 7:flow || return 1
	for c in "${COUNTS[@]}"; do
		sum=$((sum + c))
		[ "$c" -gt 0 ] || { msg+="; a member got nothing"; return 1; }
	done
	[ "$sum" = "$N" ] || { msg+="; they add up to $sum, not $N"; return 1; }
	[ "$(rc_val flow1 cluster)" = 7:flow ] || { msg+="; not in cluster 7:flow"; return 1; }
}
tcase "three ringcounts in cluster 7:flow share the $N frames ($FLOWS flows): each gets some, together all" t_flow

t_rr() {
	local c sum=0 lo=$N hi=0
	rc_many rr -C 8:rr || return 1
	for c in "${COUNTS[@]}"; do
		sum=$((sum + c))
		[ "$c" -ge "$lo" ] || lo=$c
		[ "$c" -le "$hi" ] || hi=$c
	done
	[ "$sum" = "$N" ] || { msg+="; they add up to $sum, not $N"; return 1; }
	[ $((hi - lo)) -le 1 ] || { msg+="; $((hi - lo)) apart"; return 1; }
	[ "$(rc_val rr1 cluster)" = 8:rr ] || { msg+="; not in cluster 8:rr"; return 1; }
}
tcase "three ringcounts in cluster 8:rr share the $N frames within one frame of each other" t_rr

# 8-14: mode 2 through XDP. rcgen's datagrams go to 10.0.0.2:5001, so
# $DEV gets that address and a UDP socket on that port stands for the
# stack: while a ringcount is bound in mode 2 the XDP program redirects
# every frame to its ring and the socket gets none; once it closes, or
# is killed, the program is gone and the socket gets them all again.
xdp_prog() { ip -d link show "$DEV" | grep -o 'prog/xdp id [0-9]*' || echo none; }
no_xdp() { [ "$(xdp_prog)" = none ]; }

# udp_start: count rcgen's datagrams that reach the stack, until udp_stop
# (then $UDP); the buffer is forced large, python reads slowly under TCG.
udp_start() {
	rm -f "$tmp/udp" "$tmp/udp.ready" "$tmp/udp.stop"
	/usr/bin/python3 -S - "$GEN_IP" "$GEN_PORT" "$tmp/udp" <<'EOF' &
import os, socket, sys
SO_RCVBUFFORCE = 33
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 16 << 20)
s.bind((sys.argv[1], int(sys.argv[2])))
s.settimeout(0.5)
n = 0
open(sys.argv[3] + ".ready", "w").close()
while True:
    try:
        if s.recv(2048)[:4] == b"RCG1":
            n += 1
    except socket.timeout:
        if os.path.exists(sys.argv[3] + ".stop"):
            break
open(sys.argv[3], "w").write("%d\n" % n)
EOF
	RCPID[udp]=$!
	wait_for 20 test -e "$tmp/udp.ready" || { msg="the UDP receiver did not start"; return 1; }
}
udp_stop() {
	touch "$tmp/udp.stop"
	wait "${RCPID[udp]}" 2>/dev/null || true
	RCPID[udp]=
	UDP=$(cat "$tmp/udp" 2>/dev/null || echo '?')
}
# The XDP path's name: the copy program where the module has its kfunc
# (and RINGCAP_XDP does not ask for the redirect), else the redirect.
XP=xdp-redirect
[ ! -e /sys/kernel/btf/ringcap ] || [ "${RINGCAP_XDP:-}" = redirect ] || XP=xdp-copy
# rc_xdp ID [ringcount options]: rc_start in mode 2; fails unless the
# socket is on the XDP path with the program attached.
rc_xdp() {
	local id=$1 p
	rc_start "$@" || return 1
	# libringcap attaches the program just after bind.
	wait_for 10 eval '[ "$(proc_path "${RCPID[$id]}")" = "$XP" ]' || true
	p=$(proc_path "${RCPID[$id]}")
	[ "$p" = "$XP" ] && ! no_xdp && return 0
	msg="path $p, program $(xdp_prog): $(dmesg | grep -E "$DEV: (mode 2|XDP)" | tail -n 2 | tr '\n' ' ')"
	rc_stop "$id"
	return 1
}

# xdp_run ID [ringcount options]: the traffic with ringcount ID bound in
# mode 2 on the XDP path and the UDP receiver counting; then RCSUM[ID]
# and $UDP.
xdp_run() {
	local id=$1
	udp_start || return 1
	rc_xdp "$@" || { udp_stop; return 1; }
	send || { rc_stop "$id"; udp_stop; return 1; }
	rc_stop "$id"
	udp_stop
}

t_xdp_setup() {
	ip addr replace "$GEN_IP/24" dev "$DEV"
	# The sources (10.1.0.x) have no route back through $DEV.
	rp_was=$(sysctl -n net.ipv4.conf.all.rp_filter)
	sysctl -qw net.ipv4.conf.all.rp_filter=0 "net.ipv4.conf.$DEV.rp_filter=0"
	set_mode 2
	msg="$DEV $GEN_IP/24, queues $(ls "/sys/class/net/$DEV/queues" | tr '\n' ' ')"
	no_xdp || { msg+="; $DEV already runs XDP program $(xdp_prog)"; return 1; }
}
tcase "XDP: $DEV takes rcgen's address, mode 2, no program yet" t_xdp_setup
[ "$tc_rc" = 0 ] || broken="XDP setup failed"

t_xdp_takes() {
	xdp_run x1 || return 1
	msg="$(traffic); ringcount captured $(rc_val x1 captured), dropped $(rc_val x1 dropped), path $(rc_val x1 path); the UDP socket got $UDP"
	[ "$(rc_val x1 captured)" = "$N" ] && [ "$(rc_val x1 dropped)" = 0 ] &&
		[ "$(rc_val x1 path)" = "$XP" ] && [ "$UDP" = 0 ]
}
tcase "XDP: while a ringcount is bound in mode 2 its ring gets all $N frames, the stack none" t_xdp_takes

t_xdp_closed() {
	wait_for 10 no_xdp || { msg="program $(xdp_prog) still attached after close"; return 1; }
	udp_start || return 1
	send || { udp_stop; return 1; }
	udp_stop
	msg="$(traffic); no program; the UDP socket got $UDP ($(grep -E '^Udp:' /proc/net/snmp | tail -n 1))"
	[ "$UDP" = "$N" ]
}
tcase "XDP: after close the program is gone and the stack gets all $N frames again" t_xdp_closed

t_xdp_killed() {
	local prog
	rc_xdp x2 || return 1
	prog=$(xdp_prog)
	kill -KILL "${RCPID[x2]}"
	wait "${RCPID[x2]}" 2>/dev/null || true
	RCPID[x2]=
	msg="$prog before SIGKILL, $(xdp_prog) after"
	wait_for 10 no_xdp || return 1
	msg="$prog before SIGKILL, none after"
}
tcase "XDP: after SIGKILL of the reader the program is gone" t_xdp_killed

# The dgram backend gives virtio-net one queue pair: the queue-bound
# socket on queue 0 takes everything. Leaving another queue to the stack
# needs a second queue, which QEMU gives virtio-net only with a tap
# backend; xdp.sh shows it on veth.
t_xdp_queue0() {
	xdp_run q0 -i "$DEV@0" || return 1
	msg="$(traffic); ringcount $DEV@0 captured $(rc_val q0 captured), path $(rc_val q0 path); the UDP socket got $UDP"
	[ "$(rc_val q0 captured)" = "$N" ] && [ "$UDP" = 0 ]
}
tcase "XDP: a socket bound to queue 0 takes all $N frames of that queue, the stack none" t_xdp_queue0

t_xdp_queue1() {
	local nq
	nq=$(ls -d "/sys/class/net/$DEV/queues/rx-"* | wc -l)
	if [ "$nq" -lt 2 ]; then
		msg="$DEV has $nq RX queue: QEMU's dgram netdev has no multiqueue (a tap backend has); xdp.sh tests it on veth"
		return 4
	fi
	xdp_run q1 -i "$DEV@1" || return 1
	msg="$(traffic); ringcount $DEV@1 captured $(rc_val q1 captured); the UDP socket got $UDP"
	[ $(($(rc_val q1 captured) + UDP)) = "$N" ]
}
tcase "XDP: a socket bound to queue 1 leaves the other queues to the stack" t_xdp_queue1

# 2 -> 0 -> 2 -> 0 while the generator sends: tcpdump, bound in mode 2
# (which attaches the program), writes every frame once, in order.
t_xdp_switch() {
	local sw t0 took rc=0
	td_start sw || return
	wait_for 10 eval '[ "$(proc_path "${RCPID[sw]}")" = "$XP" ]' ||
		{ msg="tcpdump's path: $(proc_path "${RCPID[sw]}")"; return 1; }
	( for m in 0 2 0; do sleep 0.8; set_mode "$m"; echo "$m at $(now_ms)"; done ) >"$tmp/sw.modes" &
	sw=$!
	t0=$(now_ms)
	send || { wait "$sw"; return 1; }
	took=$(($(now_ms) - t0))
	wait "$sw"
	msg="$(traffic); send $took ms from $t0, modes: $(tr '\n' ' ' <"$tmp/sw.modes"); "
	td_check sw || rc=1
	set_mode 2
	[ "$rc" = 0 ] || return 1
	[ "$took" -gt 2400 ] || { msg+="; the traffic ended before the last switch"; return 1; }
}
tcase "XDP: switching 2->0->2->0 while $N frames arrive, tcpdump writes each once, byte-exact, in order" t_xdp_switch

# The device goes while an XDP socket is bound: virtio_net lets go of it.
t_xdp_unbind() {
	local vdev rc=0 out left
	vdev=$(basename "$(readlink -f "/sys/class/net/$DEV/device")")
	rc_xdp gone || return 1
	echo "$vdev" >/sys/bus/virtio/drivers/virtio_net/unbind
	wait "${RCPID[gone]}" 2>/dev/null || rc=$?
	RCPID[gone]=
	out=$(grep -v '^ringcount: dev=' "$tmp/rc.gone" | tail -n 1)
	echo "$vdev" >/sys/bus/virtio/drivers/virtio_net/bind
	wait_for 20 eval 'DEV=$(iface_by_mac "$MAC")' || { msg="$vdev did not come back"; broken="$vdev is gone"; return 1; }
	sysctl -qw "net.ipv6.conf.$DEV.disable_ipv6=1" 2>/dev/null || true
	ip link set "$DEV" up
	left=$(awk 'NR > 2' /proc/net/ringcap | wc -l)
	msg="ringcount exit $rc: $out; $vdev back as $DEV, program $(xdp_prog), $left ringcap sockets left"
	klog_clean "$klog0" || msg+="; kernel log: $(tr '\n' ' ' <<<"$klog_bad")"
	[ "$rc" = 1 ] && grep -Eq "No such device|went away" <<<"$out" &&
		no_sockets_left && no_xdp && [ -z "$klog_bad" ]
}
tcase "XDP: virtio_net unbound under an XDP socket: the reader gets ENODEV, nothing is left" t_xdp_unbind
set_mode 0

# 15: nothing left behind
t_clean() {
	local left
	left=$(awk -v d="$DEV" '$3 == d' /proc/net/ringcap)
	msg="sockets on $DEV: ${left:-none}"
	[ -z "$left" ]
}
tcase "no ringcap socket is left on $DEV" t_clean

[ "$n" -eq "$PLAN" ] || echo "# plan said $PLAN tests, ran $n"
[ "$failed" -eq 0 ] && [ "$n" -eq "$PLAN" ] || exit 1
[ "$skipped" -lt "$PLAN" ] || exit 4
exit 0
