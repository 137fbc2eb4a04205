#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mode 2 through XDP on a device with native XDP and no aware driver, a
# veth whose peer sends from another network namespace: frames the bound
# sockets want reach the rings and not the stack, the program comes and
# goes with the sockets (close, SIGKILL), a queue-bound socket leaves the
# other queue to the stack, mode switches under traffic lose and repeat
# nothing, and where XDP cannot be had (the device runs its own program,
# the driver has none) the mode 0 hook captures and says why.
# Device deletion under an XDP socket: POLLERR/ENODEV, nothing left.
# A ring bound by uid nobody with CAP_NET_RAW alone takes nothing from the
# stack: it neither steers root's program nor keeps it attached.
# Mode 1 through the copy program: the ring and the stack each get every
# datagram once; without the kfunc mode 1 is the plain hook.
#
# The cases run once per XDP path: "copy" (the module's kfunc, where it
# has BTF) and "redirect" (the fallback, RINGCAP_XDP=redirect), each case
# named after its path; a kernel with BTF must give the module its BTF
# (DKMS, kbuild/btf.sh), which the first case checks.
#
# Runs in a guest as root, after run_guest.sh loaded ringcap; uses the
# installed tools (ringcount, ringcap-run) and Debian's tcpdump, ip and
# python3. Leaves transparent_mode at 0.
#
#   RC_XDP_OBJ   the XDP program object, attached the legacy way as "the
#                device's own program" (default: libringcap's build)
#   RC_XDP_REPEAT  queue-bound binds under traffic in case 6 (default 20)
#   RC_XDP_SEND_DELAY  seconds the sender waits before its first datagram
#                (default 0): a slow guest's start-up, injected, which the
#                stack's receiver must outwait (it once gave up after 3 s)
#   RC_XDP_ONLY  run only these cases (their functions' names, e.g.
#                "xdp_takes queue_repeat"); the others are skipped, saying
#                so (make check's debug-kernel guest runs a few)
#   RC_XDP_PATHS the paths to run the cases on (default: "copy redirect"
#                where the module has the kfunc, else "redirect")
#
# Output: TAP. Exit status: 0 all passed, 1 a test failed, 4 skipped.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
OBJ=${RC_XDP_OBJ:-$here/../userland/build/obj/lib/bpf/ringcap_xdp.bpf.o}
COPY_OBJ=$(dirname "$OBJ")/ringcap_xdp_copy.bpf.o
RUN=${RC_LPR:-$here/../libpcap-ring}/ringcap-run
MODE=/sys/module/ringcap/parameters/transparent_mode
NS=rcxdp
DEV=vx0
PEER=vx1
TCASE_ONLY=${RC_XDP_ONLY:-}
TCASE_ONLY_VAR=RC_XDP_ONLY
# The kernel log, and the module's BTF, are checked whichever cases run.
TCASE_ALWAYS="t_klog has_btf"
ADDR=10.77.0.1
PADDR=10.77.0.2
PORT=9777
N=400
# The module has its kfunc where it has BTF (kfunc.c).
if [ -e /sys/kernel/btf/ringcap ]; then
	PATHS=${RC_XDP_PATHS:-copy redirect}
else
	PATHS=${RC_XDP_PATHS:-redirect}
fi
read -r -a paths <<<"$PATHS"
# Per path 17 cases (netns_local is the redirect path's, foreign_kfunc
# the copy path's), then 3.
PLAN=$((17 * ${#paths[@]} + 3))

n=0
failed=0
skipped=0
tmp=$(mktemp -d)
pids=()

cleanup() {
	local p
	for p in "${pids[@]+"${pids[@]}"}"; do kill -KILL "$p" 2>/dev/null || true; done
	echo 0 >"$MODE" 2>/dev/null || true
	ip link del "$DEV" 2>/dev/null || true
	ip netns del "$NS" 2>/dev/null || true
	ip netns del rcxdpa 2>/dev/null || true
	ip netns del rcxdpb 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "TAP version 13"
echo "1..$PLAN"
for t in ringcount ringcap-run tcpdump python3 ip; do
	command -v "$t" >/dev/null || skip_all xdp "no $t"
done
[ -f "$OBJ" ] || skip_all xdp "no XDP object $OBJ (make -C userland)"
klog0=$(klog_lines) || klog0=0	# unreadable: the last case says so

# The wire: vx0 here, vx1 in $NS, two queues each, IPv4 only with static
# neighbours, so that the datagrams sent are the only frames on it.
veth_up() {
	ip link del "$DEV" 2>/dev/null || true
	ip netns del "$NS" 2>/dev/null || true
	ip netns add "$NS"
	ip link add "$DEV" numtxqueues 2 numrxqueues 2 type veth peer name \
		"$PEER" numtxqueues 2 numrxqueues 2 netns "$NS"
	sysctl -qw "net.ipv6.conf.$DEV.disable_ipv6=1"
	ip netns exec "$NS" sysctl -qw "net.ipv6.conf.$PEER.disable_ipv6=1"
	ip addr add "$ADDR/24" dev "$DEV"
	ip netns exec "$NS" ip addr add "$PADDR/24" dev "$PEER"
	ip neigh replace "$PADDR" lladdr "$(ip netns exec "$NS" cat /sys/class/net/$PEER/address)" dev "$DEV"
	ip netns exec "$NS" ip neigh replace "$ADDR" lladdr "$(cat /sys/class/net/$DEV/address)" dev "$PEER"
	ip link set "$DEV" up
	ip netns exec "$NS" ip link set "$PEER" up
}

# send COUNT [PPS]: COUNT datagrams "rcx SEQ" from the peer, one flow
send() {
	ip netns exec "$NS" python3 - "$1" "${2:-4000}" "$ADDR" "$PORT" "${RC_XDP_SEND_DELAY:-0}" <<'EOF'
import socket, sys, time
n, pps, addr, port = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", port))
time.sleep(float(sys.argv[5]))
t0 = time.monotonic()
for i in range(n):
    s.sendto(b"rcx %08d" % i + b"." * 40, (addr, port))
    ahead = t0 + (i + 1) / pps - time.monotonic()
    if ahead > 0:
        time.sleep(ahead)
EOF
}

# The stack's side: a UDP socket counting what it gets into $tmp/udp.
# It counts until udp_wait says the sender is done and then 1 s of quiet:
# an idle timeout alone took a slow sender's start-up (seconds under
# KASAN) for the end, and its 0 for frames stolen from the stack. Its
# buffer is 16 MiB: with the default one, 6.1's stack got 189 of 200
# datagrams in case 5 beside another guest, which read as frames stolen
# (udp_lost shows where such a loss happened).
udp_start() {
	python3 - "$ADDR" "$PORT" "$tmp/udp" <<'EOF' &
import os, socket, sys, time
SO_RCVBUFFORCE = 33
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 16 << 20)
s.bind((sys.argv[1], int(sys.argv[2])))
s.settimeout(0.2)
n, quiet = 0, None
open(sys.argv[3] + ".ready", "w").close()
end = time.monotonic() + 1800
while time.monotonic() < end:
    try:
        s.recv(2048)
        n += 1
        quiet = None
    except socket.timeout:
        if os.path.exists(sys.argv[3] + ".done"):
            quiet = quiet or time.monotonic()
            if time.monotonic() - quiet >= 1.0:
                break
open(sys.argv[3], "w").write("%d\n" % n)
EOF
	udp_pid=$!
	pids+=("$udp_pid")
	wait_for 20 test -e "$tmp/udp.ready"
}
# udp_wait: the sender is done; wait for the receiver to drain, $udp is
# what it got
udp_wait() {
	touch "$tmp/udp.done"
	wait "$udp_pid" || true
	udp=$(cat "$tmp/udp")
	rm -f "$tmp/udp" "$tmp/udp.ready" "$tmp/udp.done"
}
# What veth dropped on the way: the sender's side, full NAPI rings;
# vstat KEY: one of veth's own counters.
peer_dropped() { ip netns exec "$NS" cat "/sys/class/net/$PEER/statistics/tx_dropped"; }
vstat() {
	local k v
	while read -r k v; do
		[ "$k" != "$1:" ] || { echo "$v"; return 0; }
	done < <(ethtool -S "$DEV")
	echo 0
}
# udp_lost: the stack's own losses so far, "RcvbufErrors N, veth drops N"
udp_lost() {
	echo "RcvbufErrors $(awk '$1 == "Udp:" && !h { for (i = 2; i <= NF; i++) c[$i] = i; h = 1; next }
		$1 == "Udp:" { print $c["RcvbufErrors"] }' /proc/net/snmp), veth drops $(( $(vstat rx_queue_0_drops) + $(vstat rx_queue_1_drops) + $(peer_dropped) ))"
}

# rc_start SPEC: ringcount in the background, its summary into $tmp/rc;
# returns once bound and past the attach (path_settled)
rc_start() {
	ringcount -i "$1" -q >"$tmp/rc" 2>"$tmp/rc.err" &
	rc_pid=$!
	pids+=("$rc_pid")
	wait_for 30 eval '[ -n "$(proc_line $rc_pid)" ]' && path_settled "$rc_pid"
}
# rc_summary: stop it and print its summary. Called in $(...), where the
# ringcount is no child to wait for: wait until it is gone instead.
rc_summary() {
	kill -INT "$rc_pid" 2>/dev/null || true
	wait_for 30 eval '! kill -0 "$rc_pid"' || true
	wait "$rc_pid" 2>/dev/null || true
	cat "$tmp/rc"
}
# The namespace's target device (ringcapxdpN), once made, else nothing.
xdp_target() { ip -o link show | sed -n 's/^[0-9]*: \(ringcapxdp[0-9]*\):.*/\1/p'; }
tgt0=$(xdp_target)
# The copy path makes no target device.
no_target() {
	msg="target device before: ${tgt0:-none}, now: $(xdp_target | tr '\n' ' ')"
	[ "$(xdp_target)" = "$tgt0" ]
}
# In mode 2 libringcap attaches the program just after bind: until it has
# handed the link (or why not) over, the path reads hook:no-program.
path_settled() {
	local pid=$1	# in wait_for's eval $1 is wait_for's own
	wait_for 10 eval '[ "$(proc_path "$pid")" != hook:no-program ]' || true
}
# grep -q stops at the match: a writer in a pipeline would then die of
# SIGPIPE and fail it (pipefail), so the writers feed it from <(...).
has_xdp() { grep -q 'prog/xdp' <(ip -d link show "$1"); }
no_xdp() { ! has_xdp "$1"; }

# The module has BTF, and so its kfunc, wherever the kernel has BTF:
# DKMS made it (kbuild/btf.sh); without it XDP capture redirects.
has_btf() {
	msg="kernel BTF: $([ -e /sys/kernel/btf/vmlinux ] && echo yes || echo no), the module's: $([ -e /sys/kernel/btf/ringcap ] && echo yes || echo no); $(dmesg | grep -Eo 'ringcap: version .*' | tail -n 1); paths: $PATHS"
	[ ! -e /sys/kernel/btf/vmlinux ] || [ -e /sys/kernel/btf/ringcap ] &&
		{ [ -e /sys/kernel/btf/ringcap ] || [[ " $PATHS " != *" copy "* ]]; }
}
tcase "the module has BTF and its XDP kfunc where the kernel has BTF" has_btf

# The XDP path takes what the socket wants; the stack gets it back
# once the socket closes, and the program is gone.
xdp_takes() {
	local out udp
	rc_start "$DEV" || { msg="ringcount did not bind"; return 1; }
	[ "$(proc_path "$rc_pid")" = "$XP" ] ||
		{ msg="path $(proc_path "$rc_pid"), not $XP: $(dmesg | grep ringcap | tail -n 2)"; return 1; }
	has_xdp "$DEV" || { msg="no XDP program on $DEV"; return 1; }
	udp_start
	send "$N"
	udp_wait
	out=$(rc_summary)
	echo "# $out"
	msg="ringcount captured $(kv captured "$out") of $N, path $(kv path "$out"), the UDP socket got $udp"
	[ "$(kv captured "$out")" = "$N" ] && [ "$udp" = 0 ] &&
		[ "$(kv path "$out")" = "$XP" ]
}

gone_after_close() {
	local udp
	wait_for 10 no_xdp "$DEV" || { msg="program still attached"; return 1; }
	udp_start
	send "$N"
	udp_wait
	msg="the UDP socket got $udp of $N"
	[ "$udp" = "$N" ]
}

gone_after_kill() {
	rc_start "$DEV" || { msg="ringcount did not bind"; return 1; }
	has_xdp "$DEV" || { msg="no program to begin with"; return 1; }
	kill -KILL "$rc_pid"
	wait "$rc_pid" 2>/dev/null || true
	wait_for 10 no_xdp "$DEV" || { msg="program still attached after SIGKILL"; return 1; }
}

# Taking frames from the stack is the administrator's act (DESIGN.md,
# "Security posture"). Beside root's ring, a ring bound by uid nobody
# with CAP_NET_RAW alone is on the XDP path without steering it
# (xdp:pass); once root's ring closes, the program goes although nobody's
# ring stays, and the stack and nobody's ring both get every datagram.
nobody_passes() {
	local nb_pid nb_path out udp
	as_nobody_check || return $?
	rc_start "$DEV" || { msg="root's ringcount did not bind"; return 1; }
	"${NOBODY[@]}" ringcount -i "$DEV" -q >"$tmp/nb" 2>"$tmp/nb.err" &
	nb_pid=$!
	pids+=("$nb_pid")
	if wait_for 30 eval '[ -n "$(proc_line $nb_pid)" ]'; then
		path_settled "$nb_pid"
		nb_path=$(proc_path "$nb_pid")
	fi
	out=$(rc_summary)
	wait_for 10 no_xdp "$DEV" || true
	msg="beside root's ring nobody's path is ${nb_path:-(not bound: $(tail -n 2 "$tmp/nb.err" | tr '\n' ' '))}; root's ring closed, the program is $(has_xdp "$DEV" && echo "still attached" || echo gone)"
	udp_start
	send "$N"
	udp_wait
	# Stopped whatever happened: a ring left behind would skew the rest.
	kill -INT "$nb_pid" 2>/dev/null || true
	wait "$nb_pid" 2>/dev/null || true
	out=$(cat "$tmp/nb")
	msg+=", the UDP socket got $udp of $N, nobody's ring $(kv captured "$out") (path $(kv path "$out"))"
	[ "$nb_path" = "$XP:pass" ] && no_xdp "$DEV" && [ "$udp" = "$N" ] &&
		[ "$(kv captured "$out")" = "$N" ]
}

# A socket on one queue leaves the other queue to the stack. The
# peer's one flow leaves on one TX queue, which veth maps to one RX queue;
# which one is the kernel's choice, so both are tried: bound to the queue
# the flow arrives on, the socket takes every datagram and the stack none;
# bound to the other, the stack gets every datagram. (What the mode 0 hook
# then offers the socket is veth's business: its skbs record no RX queue,
# which the hook reads as queue 0.)
queue_bound() {
	local q out cap took=0 left=0
	msg=
	for q in 0 1; do
		rc_start "$DEV@$q" || { msg="ringcount on queue $q did not bind"; return 1; }
		udp_start
		send 200
		udp_wait
		out=$(rc_summary)
		cap=$(kv captured "$out")
		msg+="queue $q: ring $cap, stack $udp ($(udp_lost)); "
		if [ "$udp" = 0 ] && [ "$cap" = 200 ]; then
			took=$((took + 1))
		elif [ "$udp" = 200 ]; then
			left=$((left + 1))
		fi
	done
	[ "$took" = 1 ] && [ "$left" = 1 ]
}

# Queue-bound binds and unbinds under one stream of traffic,
# alternating queues, RC_XDP_REPEAT times. Counted by veth's per-queue
# XDP statistics ($VX: the frames the path took, redirected or, after
# their copy, dropped) rather than by guessing the flow's queue: nothing is
# taken from the queue no socket is bound to while one is bound to
# the other; over the whole stream every datagram reached the stack or
# was taken (nor lost, nor both), and every taken one reached
# a socket's ring: no frame counted as the target device's tx_dropped, a
# redirected frame no socket wanted, and the rings' captured + dropped
# are at least the redirected frames (more: until libringcap's program
# is attached, and after it goes, the mode 0 hook copies what the stack
# gets, seconds of the stream per bind on the debug kernel).
stream() {
	rm -f "$tmp/stop" "$tmp/sent" "$tmp/streaming"
	ip netns exec "$NS" python3 - "$ADDR" "$PORT" "$tmp" "${RC_XDP_SEND_DELAY:-0}" <<'EOF' &
import os, socket, sys, time
addr, port, tmp = sys.argv[1], int(sys.argv[2]), sys.argv[3]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", port))
time.sleep(float(sys.argv[4]))
i = 0
while not os.path.exists(tmp + "/stop"):
    s.sendto(b"rcx %08d" % i + b"." * 40, (addr, port))
    i += 1
    if i == 1:
        open(tmp + "/streaming", "w").close()
    time.sleep(0.003)
open(tmp + "/sent", "w").write("%d\n" % i)
EOF
	stream_pid=$!
	pids+=("$stream_pid")
	wait_for 60 test -e "$tmp/streaming"
}
# What the target device dropped: redirected frames no socket wanted (the
# copy path makes no target: 0).
target_dropped() {
	if [ -n "$1" ]; then cat "/sys/class/net/$1/statistics/tx_dropped"; else echo 0; fi
}
queue_repeat() {
	local i q o tgt t0 r0 d0 b e c dp sent out ring=0 red dr td
	local reps=${RC_XDP_REPEAT:-20}
	tgt=$(xdp_target)
	t0=$(target_dropped "$tgt")
	r0=$(( $(vstat "rx_queue_0_$VX") + $(vstat "rx_queue_1_$VX") ))
	d0=$(( $(vstat rx_queue_0_drops) + $(vstat rx_queue_1_drops) + $(peer_dropped) ))
	msg=
	udp_start
	stream || { msg="the sender did not start"; return 1; }
	for ((i = 0; i < reps; i++)); do
		q=$((i % 2)) o=$((1 - i % 2))
		b=$(vstat "rx_queue_${o}_$VX")
		rc_start "$DEV@$q" || { msg+="bind $i: ringcount on queue $q did not bind; "; break; }
		[ "$(proc_path "$rc_pid")" = "$XP" ] ||
			{ msg+="bind $i: path $(proc_path "$rc_pid"); "; rc_summary >/dev/null; break; }
		sleep 0.3
		out=$(rc_summary)
		e=$(vstat "rx_queue_${o}_$VX")
		c=$(kv captured "$out") dp=$(kv dropped "$out")
		ring=$((ring + ${c:-0} + ${dp:-0}))
		[ "$e" = "$b" ] || msg+="bind $i to queue $q: $((e - b)) taken from queue $o; "
	done
	touch "$tmp/stop"
	wait "$stream_pid" || true
	sent=$(cat "$tmp/sent")
	udp_wait
	[ -n "$tgt" ] || tgt=$(xdp_target)
	td=$(( $(target_dropped "$tgt") - t0 ))
	red=$(( $(vstat "rx_queue_0_$VX") + $(vstat "rx_queue_1_$VX") - r0 ))
	dr=$(( $(vstat rx_queue_0_drops) + $(vstat rx_queue_1_drops) + $(peer_dropped) - d0 ))
	msg+="$i binds of $reps; sent $sent: stack $udp, taken ($VX) $red, veth drops $dr; the rings $ring; target tx_dropped +$td"
	[ "$i" = "$reps" ] && [[ $msg != *"taken from"* ]] && [ "$td" = 0 ] &&
		[ $((udp + red + dr)) = "$sent" ] && [ "$ring" -ge "$red" ]
}

# The target is no interface of the stack's: were IPv6 to configure it
# (it does ARPHRD_NONE, as for tun), its router solicitations and MLD
# reports would count in tx_dropped as redirected frames nobody took,
# which the case above once saw on the debug kernel.
target_quiet() {
	local tgt a
	tgt=$(xdp_target)
	[ -n "$tgt" ] || { msg="no target device"; return 1; }
	a=$(ip -6 -o addr show dev "$tgt")
	msg="$tgt: $(ip -o link show dev "$tgt" | grep -o 'link/[a-z0-9]*'), IPv6 addresses: ${a:-none}, tx_dropped $(cat "/sys/class/net/$tgt/statistics/tx_dropped")"
	[ -z "$a" ]
}

# 2 -> 0 -> 2 -> 0 under traffic: an unchanged tcpdump through
# libpcap-ring sees every datagram exactly once, whichever way it came.
switch_exact() {
	local seqs
	ringcap-run tcpdump -i "$DEV" -w "$tmp/sw.pcap" -U -n udp 2>"$tmp/td.err" &
	td_pid=$!
	pids+=("$td_pid")
	wait_for 60 eval '[ -n "$(proc_line $td_pid)" ]' ||
		{ msg="tcpdump did not bind: $(cat "$tmp/td.err")"; return 1; }
	path_settled "$td_pid"
	[ "$(proc_path "$td_pid")" = "$XP" ] || { msg="path $(proc_path "$td_pid")"; return 1; }
	echo 0 >"$MODE"
	send 1200 400 &
	local snd=$!
	sleep 1; echo 2 >"$MODE"
	sleep 1; echo 0 >"$MODE"
	wait "$snd"
	sleep 2
	kill -INT "$td_pid"
	wait "$td_pid" || true
	echo 2 >"$MODE"
	seqs=$(python3 - "$tmp/sw.pcap" <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
off, seen = 24, []
while off + 16 <= len(d):
    incl = struct.unpack_from("<I", d, off + 8)[0]
    pkt = d[off + 16:off + 16 + incl]
    off += 16 + incl
    i = pkt.find(b"rcx ")
    if i >= 0:
        seen.append(int(pkt[i + 4:i + 12]))
print(len(seen), len(set(seen)), min(seen) if seen else -1, max(seen) if seen else -1)
gaps, prev = [], -1
for x in sorted(set(seen)) + [1200]:
    if x != prev + 1:
        gaps.append("%d-%d" % (prev + 1, x - 1))
    prev = x
print("missing", " ".join(gaps[:20]) or "none")
EOF
)
	msg="frames, distinct, first, last: $seqs; gro: $(ethtool -k "$DEV" 2>/dev/null | grep -E "^(rx-gro-list|generic-receive-offload|rx-udp-gro-forwarding):" | tr "\n" " "); $(grep -E 'drop|captured' "$tmp/td.err" | tr '\n' ' ')"
	[ "$(head -n 1 <<<"$seqs")" = "1200 1200 0 1199" ]
}

# A cluster on the XDP path: round robin over two members.
cluster_rr() {
	local a b ca cb
	ringcount -i "$DEV" -q -C 5:rr >"$tmp/ca" 2>&1 &
	a=$!
	ringcount -i "$DEV" -q -C 5:rr >"$tmp/cb" 2>&1 &
	b=$!
	pids+=("$a" "$b")
	wait_for 30 eval '[ -n "$(proc_line $a)" ] && [ -n "$(proc_line $b)" ]' ||
		{ msg="members did not bind"; return 1; }
	path_settled "$a"
	[ "$(proc_path "$a")" = "$XP" ] || { msg="path $(proc_path "$a")"; return 1; }
	send 301
	sleep 1
	kill -INT "$a" "$b"
	wait "$a" "$b" || true
	ca=$(kv captured "$(cat "$tmp/ca")")
	cb=$(kv captured "$(cat "$tmp/cb")")
	msg="members captured $ca and $cb of 301"
	[ $((ca + cb)) = 301 ] && [ $((ca - cb)) -le 1 ] && [ $((cb - ca)) -le 1 ]
}

# A socket with a filter beside one without, fed frames faster than one
# a NAPI poll: the redirect path holds a socket's lock over consecutive
# frames of a batch and lets go of it for a filtered socket (capture.c),
# so the two alternate within every batch here. tcpdump (through
# libpcap-ring, its filter in the kernel) keeps the even-numbered
# datagrams: the last digit of "rcx %08d" is udp[19], and the ASCII
# digits' parity is theirs.
filter_beside() {
	local td out want got odd
	rc_start "$DEV" || { msg="ringcount did not bind"; return 1; }
	"$RUN" tcpdump -Z root -n -w "$tmp/even.pcap" -i "$DEV" \
		'udp[19] & 1 = 0' >"$tmp/td.out" 2>"$tmp/td.err" &
	td=$!
	pids+=("$td")
	wait_for 30 grep -q "listening on" "$tmp/td.err" ||
		{ msg="tcpdump did not start: $(head -c 300 "$tmp/td.err")"; return 1; }
	path_settled "$rc_pid"
	send 2000 20000
	sleep 1
	kill -INT "$td"
	wait "$td" || true
	out=$(rc_summary)
	want=1000
	got=$(tcpdump -n -r "$tmp/even.pcap" 2>/dev/null | grep -c ' UDP' || true)
	odd=$(tcpdump -n -r "$tmp/even.pcap" -A 2>/dev/null |
		grep -Eo 'rcx [0-9]{8}' | awk '$2 % 2' | wc -l)
	msg="ringcount captured $(kv captured "$out") of 2000 (path $(kv path "$out"), filtered $(kv filtered "$out")); tcpdump kept $got, $odd odd, want $want; its end: $(grep -E 'captured|dropped' "$tmp/td.err" | tr '\n' ' ')"
	[ "$(kv captured "$out")" = 2000 ] && [ "$(kv path "$out")" = "$XP" ] &&
		[ "$got" = "$want" ] && [ "$odd" = 0 ] &&
		grep -q '^0 packets dropped by kernel' "$tmp/td.err"
}

# The device's own program stays; ringcap keeps the hook and says so.
own_program() {
	local id out
	ip link set dev "$DEV" xdpdrv obj "$OBJ" sec xdp || { msg="could not attach $OBJ"; return 1; }
	id=$(ip -d link show "$DEV" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p')
	rc_start "$DEV" || { msg="ringcount did not bind"; return 1; }
	udp_start
	send 200
	udp_wait
	[ "$(proc_path "$rc_pid")" = hook:busy ] || { msg="path $(proc_path "$rc_pid")"; rc_summary >/dev/null; return 1; }
	out=$(rc_summary)
	msg="captured $(kv captured "$out") of 200, path $(kv path "$out"), program id $id then $(ip -d link show "$DEV" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p')"
	[ "$(kv captured "$out")" = 200 ] && [ "$(kv path "$out")" = hook:busy ] &&
		grep -q "prog/xdp id $id " <(ip -d link show "$DEV") &&
		grep -Eq "$DEV: mode 2 stays on the mode 0 hook: attaching the XDP program failed \((-EBUSY|-16)\)" <(dmesg)
}

no_native() {
	local out
	out=$(ringcount -i lo -d 0.5 -q 2>&1) || true
	msg="$out"
	[ "$(kv path "$out")" = hook:no-native-xdp ] &&
		grep -q "lo: mode 2 stays on the mode 0 hook: the driver has no native XDP" <(dmesg)
}

# Mode 1 is served by the copy program alone: asked for the redirect
# one, libringcap attaches nothing, and where the module has the kfunc
# the path says it still waits for a program.
mode1_hook() {
	local out want=hook
	[ ! -e /sys/kernel/btf/ringcap ] || want=hook:no-program
	echo 1 >"$MODE"
	out=$(ringcount -i "$DEV" -d 0.5 -q 2>&1) || true
	echo 2 >"$MODE"
	msg="$out"
	[ "$(kv path "$out")" = "$want" ] && wait_for 10 no_xdp "$DEV"
}
# Mode 1 through the copy program: the kfunc copies, the stack gets the
# frame with the mark, and the mode 0 hook does not copy it again.
mode1_copy() {
	local out udp d0 d
	echo 1 >"$MODE"
	d0=$(( $(vstat rx_queue_0_xdp_drops) + $(vstat rx_queue_1_xdp_drops) ))
	rc_start "$DEV" || { echo 2 >"$MODE"; msg="ringcount did not bind"; return 1; }
	msg="path $(proc_path "$rc_pid"), program $(has_xdp "$DEV" && echo attached || echo none)"
	udp_start
	send "$N"
	udp_wait
	out=$(rc_summary)
	echo 2 >"$MODE"
	d=$(( $(vstat rx_queue_0_xdp_drops) + $(vstat rx_queue_1_xdp_drops) - d0 ))
	msg+=": ringcount captured $(kv captured "$out") of $N (path $(kv path "$out")), the UDP socket got $udp, XDP dropped $d ($(udp_lost))"
	[ "$(kv captured "$out")" = "$N" ] && [ "$udp" = "$N" ] && [ "$d" = 0 ] &&
		[ "$(kv path "$out")" = xdp-copy ] && wait_for 10 no_xdp "$DEV"
}

ringstat_shows() {
	local line
	rc_start "$DEV" || return 1
	line=$(ringstat 2>/dev/null | grep -Ew "^ *$rc_pid" || true)
	rc_summary >/dev/null
	msg="ringstat: $line"
	grep -qw -- "$XP" <<<"$line"
}

# The module unloads once the reader that attached the program is gone:
# the link, its program (which, calling the kfunc, holds a reference on
# ringcap.ko) and its map are let go of. Then both modules load again.
reload() {
	local out
	rc_start "$DEV" || { msg="ringcount did not bind"; return 1; }
	out="path $(proc_path "$rc_pid")"
	rc_summary >/dev/null
	wait_for 10 no_xdp "$DEV" || { msg="$out; the program stays"; return 1; }
	if loaded ringcap_sim; then
		rmmod_wait ringcap_sim 10 || { msg="ringcap_sim stays"; return 1; }
	fi
	if ! rmmod_wait ringcap 20; then
		msg="$out; ringcap stays loaded, refcnt $(cat /sys/module/ringcap/refcnt)"
		return 1
	fi
	load_ringcap || { msg="ringcap does not load again"; return 1; }
	[ -z "${RC_SIM_KO:-}" ] || insmod "$RC_SIM_KO" || { msg="ringcap_sim does not load again"; return 1; }
	echo 2 >"$MODE"
	msg="$out; unloaded, loaded again: $(dmesg | grep -Eo 'ringcap: version .*' | tail -n 1)"
}

# Any XDP program may call the kfunc (XDP.md, "Who can call the kfunc"):
# here one of root's own, attached to the device, calls it for every frame
# while readers bind and close, and each last close frees the device's
# socket set under it (with kfree_rcu since 1bb4a36: the kfunc reads the
# set under RCU alone). A use after free there is what KASAN, in the
# debug kernel's guest, reports; every kernel fails on a reader that does
# not capture, or a socket or state left behind.
foreign_kfunc() {
	local i id out sender r0 bad=0 caps=
	ip link set dev "$DEV" xdpdrv obj "$COPY_OBJ" sec xdp ||
		{ msg="could not attach $COPY_OBJ"; return 1; }
	id=$(ip -d link show "$DEV" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p')
	r0=$(cat "/sys/class/net/$DEV/statistics/rx_packets")
	send 1000000 4000 &
	sender=$!
	pids+=("$sender")
	# The sender's python3 takes a while to start in a slow guest.
	wait_for 60 eval '[ "$(cat /sys/class/net/$DEV/statistics/rx_packets)" -gt $((r0 + 100)) ]' ||
		{ msg="no traffic from the sender"; ip netns pids "$NS" | xargs -r kill
		  ip link set dev "$DEV" xdpdrv off; return 1; }
	for ((i = 0; i < ${RC_XDP_REPEAT:-20}; i++)); do
		out=$(ringcount -i "$DEV" -d 0.3 -q 2>&1) || bad=$((bad + 1))
		caps+=" $(kv captured "$out")"
		[ "$(kv captured "$out")" -gt 0 ] 2>/dev/null || bad=$((bad + 1))
		[ -z "$(awk -v d="$DEV" '$3 == d' /proc/net/ringcap)" ] || bad=$((bad + 1))
	done
	# The sender is a python3 in $NS, under the subshell's ip netns exec.
	ip netns pids "$NS" | xargs -r kill 2>/dev/null || true
	wait "$sender" 2>/dev/null || true
	msg="program $id calling the kfunc; $i readers captured$caps; $bad failures; program then $(ip -d link show "$DEV" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p')"
	ip link set dev "$DEV" xdpdrv off
	[ "$bad" = 0 ] && [ -n "$id" ]
}

# The device goes away under an XDP socket.
unregister() {
	local out rc=0
	rc_start "$DEV" || return 1
	[ "$(proc_path "$rc_pid")" = "$XP" ] || { msg="path $(proc_path "$rc_pid")"; return 1; }
	ip link del "$DEV"
	wait "$rc_pid" || rc=$?
	out=$(cat "$tmp/rc.err")
	msg="exit $rc: $out"
	[ "$rc" = 1 ] && grep -Eq "No such device|went away" <<<"$out"
}
# The per-namespace target device stays in its namespace: moved, its
# new namespace's deletion would push it into init_net while the old one
# still held it.
netns_local() {
	local ns=rcxdpa other=rcxdpb tgt= moved p
	ip netns add "$ns"
	ip netns add "$other"
	ip -n "$ns" link add vy0 numrxqueues 2 type veth peer name vy1
	ip -n "$ns" link set vy0 up
	ip -n "$ns" link set vy1 up
	ip netns exec "$ns" ringcount -i vy0 -q >"$tmp/nsrc" 2>&1 &
	p=$!
	pids+=("$p")
	wait_for 30 eval 'tgt=$(ip -n "$ns" -o link show | sed -n "s/^[0-9]*: \(ringcapxdp[0-9]*\):.*/\1/p"); [ -n "$tgt" ]' ||
		{ msg="no ringcapxdp device in $ns: $(cat "$tmp/nsrc")"; kill -INT "$p"; return 1; }
	kill -INT "$p"
	wait "$p" || true
	if ip -n "$ns" link set "$tgt" netns "$other" 2>"$tmp/mv.err"; then
		moved=1
		ip -n "$other" link set "$tgt" name rcmoved || true
	else
		moved=0
	fi
	ip netns del "$other"
	ip netns del "$ns"
	# Namespaces exit in a worker: give it the time to push devices back.
	wait_for 10 eval 'ip link show rcmoved >/dev/null 2>&1' || true
	msg="move: $([ "$moved" = 1 ] && echo allowed || cat "$tmp/mv.err"); in init_net: $(ip -o link show rcmoved 2>/dev/null | cut -d' ' -f2 || true)"
	[ "$moved" = 0 ] && ! ip link show rcmoved >/dev/null 2>&1
}

# The cases of one path. XP is the name its sockets' path reads, VX the
# veth counter of the frames it takes from the stack.
run_path() {
	P=$1
	if [ "$P" = copy ]; then
		XP=xdp-copy VX=xdp_drops
	else
		XP=xdp-redirect VX=xdp_redirect
	fi
	export RINGCAP_XDP=$P
	veth_up
	echo 2 >"$MODE"
	tcase "$P: mode 2 on veth: the ring gets every datagram through XDP, the stack none" xdp_takes
	tcase "$P: after close: the program is gone, the stack gets every datagram" gone_after_close
	tcase "$P: after SIGKILL of the reader: the program is gone" gone_after_kill
	tcase "$P: mode 2: a ring of uid nobody with CAP_NET_RAW alone steers no program ($XP:pass), keeps none attached; the stack gets every datagram" nobody_passes
	tcase "$P: a queue-bound socket takes its queue and leaves the other to the stack" queue_bound
	tcase "$P: queue-bound binds under traffic: every datagram to the stack or its socket, none stolen" queue_repeat
	if [ "$P" = copy ]; then
		tcase "$P: no ringcapxdpN device is made" no_target
	else
		tcase "$P: the target device has no IPv6 address, so the stack sends nothing through it" target_quiet
	fi
	tcase "$P: switching 2->0->2->0 under traffic: every datagram exactly once" switch_exact
	tcase "$P: a 2-member rr cluster on the XDP path splits 301 datagrams 150/151" cluster_rr
	tcase "$P: a filtered tcpdump beside an unfiltered ringcount, 2000 datagrams at 20000/s: each gets exactly its own" filter_beside
	tcase "$P: a device with its own XDP program keeps it; the hook captures, path hook:busy, logged" own_program
	ip link set dev "$DEV" xdpdrv off 2>/dev/null || true
	tcase "$P: a driver without native XDP (lo) keeps the hook: path hook:no-native-xdp, logged" no_native
	if [ "$P" = copy ]; then
		tcase "$P: mode 1 through the copy program: the ring and the stack each get every datagram once" mode1_copy
		tcase "$P: root's own program calls the kfunc on every frame while readers bind and close: each captures, nothing left" foreign_kfunc
	else
		tcase "$P: mode 1 on an XDP device keeps the standard path, no program" mode1_hook
	fi
	tcase "$P: ringstat shows the path" ringstat_shows
	tcase "$P: the reader gone, ringcap unloads (nothing held) and loads again" reload
	tcase "$P: device deleted under an XDP socket: the reader gets ENODEV" unregister
	if [ "$P" = redirect ]; then
		tcase "$P: ringcapxdpN cannot leave its namespace, nor land in init_net" netns_local
		ip link del rcmoved 2>/dev/null || true
	fi
}
for p in "${paths[@]}"; do
	run_path "$p"
done

check "no socket left in /proc/net/ringcap" no_sockets_left
t_klog() { klog_clean "$klog0" || { msg=$(tr '\n' ' ' <<<"$klog_bad"); return 1; }; }
tcase "no oops, warning or BUG in the kernel log" t_klog

echo "# $n run, $failed failed, $skipped skipped"
[ "$failed" = 0 ] || exit 1
[ "$skipped" = 0 ] || exit 4
exit 0
