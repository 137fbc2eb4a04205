#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rcgen against itself on loopback, as it stands in for QEMU's dgram
# backend: frames sent to "rcgen --recv" on a free port arrive complete
# and in order, the pcap it writes is valid (tcpdump and/or python3 read
# it), --rate holds its pace without spinning, signals stop both modes
# with a summary, socket errors exit 1 and bad usage exits 2; --replay
# sends a pcap file's frames byte for byte and refuses files it cannot
# send as they are. --tx-ring: its usage errors, the clear error without
# the module, and (TESTBIN/rcgen_fake: rcgen over libringcap's real
# transmit side with the kernel faked, tests/fake_tx_kernel.c) the same
# frames, generated or replayed, through a transmit ring whose device
# queue fills, paced, drained at a stop. No root, no module. TAP.
#
#   BIN=userland/build/bin [TESTBIN=userland/build/tests] \
#	userland/tests/test_rcgen.sh

set -u
BIN=${BIN:-$(dirname "$0")/../build/bin}
TESTBIN=${TESTBIN:-$(dirname "$0")/../build/tests}
RG="$BIN/rcgen"
RGF="$TESTBIN/rcgen_fake"
TMP=$(mktemp -d)
pids=		# background rcgens not yet waited for
cleanup() {
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	rm -rf "$TMP"
}

# reap PID: wait for it, its exit status in $st
reap() {
	wait "$1"
	st=$?
	pids=$(echo "$pids" | tr ' ' '\n' | grep -vx "$1" | tr '\n' ' ')
}
trap cleanup EXIT
trap 'exit 1' INT TERM
. "$(dirname "$0")/tap.sh"

# field FILE KEY: KEY's value in FILE's summary line
field() {
	sed -n "s/^rcgen:.* $2=\([0-9.]*\).*/\1/p" "$TMP/$1" | tail -n 1
}

# in_range VALUE MIN MAX: MIN <= VALUE <= MAX, fractions allowed
in_range() {
	[ -n "$1" ] && awk -v v="$1" -v lo="$2" -v hi="$3" \
		'BEGIN { exit !(v + 0 >= lo && v + 0 <= hi) }'
}

# The input backlogs' drops, all CPUs (the second column, in hex); sh's
# twin of selftests/lib.sh's, which is bash.
softnet_dropped() {
	s=0
	while read -r _ d _; do s=$((s + 0x$d)); done </proc/net/softnet_stat
	echo "$s"
}

# start_recv NAME ARGS...: "rcgen --recv --bind 0 ARGS" in the background,
# output in $TMP/NAME.{out,err}; waits until it is bound (it says so on
# stderr), then sets $port and $rpid. Returns 1 if it never is.
start_recv() {
	name=$1
	shift
	"$RG" --recv --bind 0 "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	rpid=$!
	pids="$pids $rpid"
	port=
	i=0
	while [ $i -lt 250 ]; do
		port=$(sed -n 's/^rcgen: receiving on 127\.0\.0\.1:\([0-9]*\)$/\1/p' \
		       "$TMP/$name.err" 2>/dev/null)
		[ -z "$port" ] || return 0
		kill -0 "$rpid" 2>/dev/null || break
		sleep 0.02
		i=$((i + 1))
	done
	return 1
}

# cpu_seconds FILE: user+system seconds of the children in FILE, the output
# of "times" (which has to run in this shell, not in a $(...) subshell)
cpu_seconds() {
	sed -n 2p "$1" | tr -d ' ' | awk -F s '/^[0-9]+m[0-9.]+s[0-9]+m[0-9.]+s$/ {
		t = 0
		for (i = 1; i < NF; i++) {
			split($i, a, "m")
			t += a[1] * 60 + a[2]
		}
		print t
	}'
}

# now_ms: wall clock in milliseconds, empty without date +%N
now_ms() {
	t=$(date +%s%N)
	case $t in
	*[!0-9]*) echo ;;
	*) echo $((t / 1000000)) ;;
	esac
}

# --- usage ------------------------------------------------------------
check "rcgen --help exits 0" 0 "$RG" --help
grep_check "--help prints usage on stdout" out "^Usage: rcgen --to LPORT"
for args in "" "--to" "--to 0" "--to 65536" "--to x" "--to 5 --size 59" \
	    "--to 5 --size 1515" "--to 5 --flows 0" "--to 5 --flows 55537" \
	    "--to 5 --rate -1" "--to 5 --rate 10000001" "--to 5 --count 0" \
	    "--to 5 --duration 0" "--to 5 --duration x" \
	    "--to 5 --dst-mac 01:02:03:04:05" \
	    "--to 5 --dst-mac 01:02:03:04:05:0g" \
	    "--to 5 --src-mac 01:00:00:00:00:01" "--to 5 --dst-ip 10.0.0" \
	    "--to 5 --dport 0" "--to 5 --host localhost" \
	    "--recv" "--recv --bind 65536" \
	    "--recv --bind 5 --size 100" \
	    "--to 5 junk" "-x" "--no-such-option" "--recv=1"; do
	# shellcheck disable=SC2086 # word splitting wanted
	check "rcgen ${args:-(no arguments)}: exit 2" 2 "$RG" $args
done
grep_check "a usage error points to --help" err "Try 'rcgen --help'"
check "bad --size: exit 2" 2 "$RG" --to 5 --size 59
grep_check "... naming --size" err "^rcgen: --size: .*60\.\.1514.*'59'"
check "--to with --recv: exit 2" 2 "$RG" --recv --bind 5 --to 6
grep_check "... naming --to" err "^rcgen: --to is for sending"
check "--write without --recv: exit 2" 2 "$RG" --to 5 --write "$TMP/x.pcap"
if [ -e "$TMP/x.pcap" ]; then
	not_ok "a usage error writes no file"
else
	ok "a usage error writes no file"
fi

# --- 1009 frames, 64 flows, 128 bytes, into a pcap --------------------
# Paced at 20 kpps (50 ms) so that a receiver without CAP_NET_ADMIN,
# whose socket buffer rmem_max may cap at ~256 such datagrams, loses
# none however the two processes are scheduled.
if start_recv rx --count 1009 --duration 20 --write "$TMP/rx.pcap"; then
	ok "receiver bound to a free port ($port)"
	check "send 1009 frames, 64 flows, 128 bytes: exit 0" 0 \
		"$RG" --to "$port" --count 1009 --flows 64 --size 128 \
		--rate 20000 --quiet
	grep_check "send summary" out \
		"^rcgen: sent=1009 bytes=129152 seconds=[0-9]+\.[0-9]{3} rate_pps=[0-9]+ flows=64 size=128 send_errors=0$"
	if [ "$(wc -l <"$TMP/out")" = 1 ] && [ ! -s "$TMP/err" ]; then
		ok "--quiet: the summary line only"
	else
		not_ok "--quiet: the summary line only" "$TMP/err"
	fi
	reap "$rpid"
	if [ $st = 0 ]; then
		ok "receiver stops after --count 1009"
	else
		not_ok "receiver stops after --count 1009 (exit $st)" \
			"$TMP/rx.err"
	fi
	grep_check "receiver got all 1009 frames, 129152 bytes" rx.out \
		"^rcgen: received=1009 bytes=129152 seconds=[0-9]+\.[0-9]{3} socket_drops=0$"
else
	not_ok "receiver bound to a free port" "$TMP/rx.err"
fi

checked=0
if command -v tcpdump >/dev/null 2>&1 && [ -s "$TMP/rx.pcap" ]; then
	checked=1
	tcpdump -nn -vv -r "$TMP/rx.pcap" >"$TMP/td" 2>"$TMP/td.err"
	st=$?
	if [ $st = 0 ] &&
	   [ "$(grep -c ' IP (tos ' "$TMP/td")" = 1009 ]; then
		ok "tcpdump reads 1009 IPv4 frames from the pcap"
	else
		not_ok "tcpdump reads 1009 IPv4 frames from the pcap (exit $st)" \
			"$TMP/td.err"
	fi
	if [ "$(grep -c 'length 114)' "$TMP/td")" = 1009 ] &&
	   [ "$(grep -c 'udp sum ok' "$TMP/td")" = 1009 ] &&
	   ! grep -q 'bad' "$TMP/td"; then
		ok "tcpdump: IPv4 length 114, IPv4 and UDP checksums good"
	else
		not_ok "tcpdump: IPv4 length 114, IPv4 and UDP checksums good"
		grep -m 5 -E 'bad|IP \(' "$TMP/td" | sed 's/^/#   /'
	fi
	srcs=$(sed -n 's/^ *\(10\.1\.[0-9]*\.[0-9]*\)\.[0-9]* > .*/\1/p' \
	       "$TMP/td" | sort -u | wc -l)
	if [ "$srcs" = 64 ]; then
		ok "tcpdump: 64 distinct source addresses"
	else
		not_ok "tcpdump: 64 distinct source addresses (got $srcs)"
	fi
fi
if command -v python3 >/dev/null 2>&1 && [ -s "$TMP/rx.pcap" ]; then
	checked=1
	# Prints "ok - WHAT" or "not ok - WHAT" per property, numbered below.
	python3 - "$TMP/rx.pcap" 1009 128 64 >"$TMP/py" 2>&1 <<'PY'
import struct, sys

path, count, size, flows = sys.argv[1], *map(int, sys.argv[2:])
data = open(path, "rb").read()

def check(cond, what):
    print(("ok - " if cond else "not ok - ") + what)

def folded(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s

order = None
for e in "<>":
    if len(data) >= 24 and struct.unpack(e + "I", data[:4])[0] == 0xa1b2c3d4:
        order = e
check(order is not None, "pcap magic: microseconds")
if order is None:
    sys.exit(1)
_, major, minor, _, _, snaplen, linktype = struct.unpack(order + "IHHiIII",
                                                         data[:24])
check((major, minor, linktype) == (2, 4, 1),
      "pcap 2.4, LINKTYPE_ETHERNET (got %d.%d, %d)" % (major, minor, linktype))

recs, off = [], 24
while off + 16 <= len(data):
    sec, usec, caplen, length = struct.unpack(order + "IIII", data[off:off + 16])
    recs.append((usec, caplen, length, data[off + 16:off + 16 + caplen]))
    off += 16 + caplen
check(off == len(data) and len(recs) == count,
      "%d records, nothing after them (got %d)" % (count, len(recs)))
check(all(c == size and l == size and len(f) == size and u < 1000000
          for u, c, l, f in recs),
      "every record %d bytes, usec < 10^6" % size)
frames = [f for _, _, _, f in recs if len(f) == size]

check(all(f[0:6] == b"\xff" * 6 and f[6:12] == bytes.fromhex("020000000001")
          and f[12:14] == b"\x08\x00" for f in frames),
      "Ethernet: ff:ff:ff:ff:ff:ff from 02:00:00:00:00:01, IPv4")
check(all(f[14] == 0x45 and struct.unpack("!H", f[16:18])[0] == size - 14
          and f[23] == 17 and f[30:34] == bytes([10, 0, 0, 2])
          for f in frames),
      "IPv4: 20-byte header, length %d, UDP, to 10.0.0.2" % (size - 14))
check(all(folded(f[14:34]) == 0xffff for f in frames),
      "IPv4 header checksums valid")
check(all(folded(f[26:34] + b"\0\x11" + f[38:40] + f[34:]) == 0xffff
          and f[40:42] != b"\0\0" for f in frames),
      "UDP checksums valid and present")
check(all(struct.unpack("!HH", f[36:40]) == (5001, size - 34) for f in frames),
      "UDP: to port 5001, length %d" % (size - 34))
check(len({f[26:30] for f in frames}) == flows,
      "%d distinct source addresses" % flows)

seqs = [struct.unpack("!I", f[46:50])[0] for f in frames]
check(seqs == list(range(count)),
      "sequence numbers 0..%d in order" % (count - 1))
ok = True
for f, seq in zip(frames, seqs):
    flow = seq % flows
    ok &= f[42:46] == b"RCG1"
    ok &= struct.unpack("!I", f[50:54])[0] == flow
    ok &= struct.unpack("!I", f[26:30])[0] == 0x0a010001 + flow
    ok &= struct.unpack("!H", f[34:36])[0] == 10000 + flow
    ok &= struct.unpack("!H", f[18:20])[0] == seq & 0xffff
    ok &= f[54:] == bytes(k & 0xff for k in range(12, size - 42))
check(ok, "magic RCG1; flow = seq %% %d; source 10.1.0.1+flow:10000+flow;"
          " IP id = seq; filler" % flows)
PY
	st=$?
	py_failed=$failed
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "pcap: ${line#ok - }" ;;
		"not ok - "*) not_ok "pcap: ${line#not ok - }" ;;
		*) echo "#   $line" ;;
		esac
	done <"$TMP/py"
	if [ $st != 0 ] && [ "$failed" = "$py_failed" ]; then
		not_ok "pcap checker finished (python3 exit $st)"
	fi
fi
[ $checked = 1 ] || skip "neither tcpdump nor python3 to read the pcap"

# --- pacing -----------------------------------------------------------
# 1000 frames at 2000/s: the first at once, the last 0.4995 s later.
# Loose bounds: shared machines stall. A pacer that spins would use a
# whole core for the half second; sleeping costs a few per cent.
if start_recv paced --count 1000 --duration 20; then
	times >"$TMP/times0"
	t0=$(now_ms)
	check "--rate 2000 --count 1000: exit 0" 0 \
		"$RG" --to "$port" --rate 2000 --count 1000 --quiet
	t1=$(now_ms)
	times >"$TMP/times1"
	secs=$(field out seconds)
	if in_range "$secs" 0.3 3; then
		ok "--rate 2000 --count 1000 takes about 0.5 s ($secs s)"
	else
		not_ok "--rate 2000 --count 1000 takes about 0.5 s (${secs:-?} s)" \
			"$TMP/out"
	fi
	if [ -n "$t0" ] && [ -n "$t1" ]; then
		if in_range $((t1 - t0)) 300 3000; then
			ok "... by the wall clock too ($((t1 - t0)) ms)"
		else
			not_ok "... by the wall clock too ($((t1 - t0)) ms)"
		fi
	fi
	cpu0=$(cpu_seconds "$TMP/times0")
	cpu1=$(cpu_seconds "$TMP/times1")
	cpu=$(awk -v a="$cpu0" -v b="$cpu1" 'BEGIN { printf "%.2f", b - a }')
	if [ -z "$cpu0" ] || [ -z "$cpu1" ]; then
		skip "no CPU times from the shell's times builtin"
	elif in_range "$cpu" 0 "$(awk -v s="${secs:-1}" 'BEGIN { print s / 2 }')"; then
		ok "... sleeping, not spinning ($cpu s CPU)"
	else
		not_ok "... sleeping, not spinning ($cpu s CPU in ${secs:-?} s)"
	fi
	reap "$rpid"
	grep_check "receiver got all 1000 paced frames" paced.out \
		"^rcgen: received=1000 bytes=60000 "
else
	not_ok "receiver for the paced run bound" "$TMP/paced.err"
fi

# --- unpaced, then SIGINT to the receiver -----------------------------
# As fast as possible the receiver may lose some (socket buffer full):
# the sender's count is exact, the receiver's at most that.
if start_recv fast --duration 20; then
	sd0=$(softnet_dropped)
	check "unpaced --count 20000 --size 1514: exit 0" 0 \
		"$RG" --to "$port" --count 20000 --size 1514 --flows 7 --quiet
	grep_check "... sent all 20000" out \
		"^rcgen: sent=20000 bytes=30280000 .* flows=7 size=1514 send_errors=0$"
	kill -INT "$rpid"
	reap "$rpid"
	if [ $st = 0 ]; then
		ok "SIGINT stops the receiver, exit 0"
	else
		not_ok "SIGINT stops the receiver, exit 0 (exit $st)" \
			"$TMP/fast.err"
	fi
	got=$(field fast.out received)
	if in_range "$got" 1 20000; then
		ok "... with its summary (received=$got of 20000)"
	else
		not_ok "... with its summary" "$TMP/fast.out"
	fi
	# Every frame it missed is one its socket refused, or one the
	# loopback's input backlog dropped (softnet_stat).
	drops=$(field fast.out socket_drops)
	backlog=$(($(softnet_dropped) - sd0))
	if [ -n "$got" ] && [ -n "$drops" ] &&
		[ $((got + drops + backlog)) -eq 20000 ]; then
		ok "... and socket_drops=$drops (+ backlog $backlog) says what it missed"
	else
		not_ok "... and socket_drops says what it missed (received=$got socket_drops=$drops backlog=$backlog)" \
			"$TMP/fast.out"
	fi
	# The port is free again now: nothing listens there.
	check "sending to a port nobody listens on: exit 0" 0 \
		"$RG" --to "$port" --rate 1000 --duration 0.3
	errs=$(field out send_errors)
	if in_range "$errs" 1 1000000; then
		ok "... refused frames counted (send_errors=$errs)"
	else
		not_ok "... refused frames counted" "$TMP/out"
	fi
	grep_check "... and said once on stderr" err "Connection refused"
	secs=$(field out seconds)
	if in_range "$secs" 0.3 3; then
		ok "--duration 0.3 stops it ($secs s)"
	else
		not_ok "--duration 0.3 stops it (${secs:-?} s)" "$TMP/out"
	fi
else
	not_ok "receiver for the unpaced run bound" "$TMP/fast.err"
fi

# --- SIGTERM to the sender; socket and file errors ---------------------
if start_recv term --duration 20; then
	"$RG" --to "$port" --rate 1000 >"$TMP/tx.out" 2>"$TMP/tx.err" &
	tpid=$!
	pids="$pids $tpid"
	i=0
	while [ $i -lt 250 ] && ! grep -qs '^rcgen: sending to' "$TMP/tx.err"; do
		sleep 0.02
		i=$((i + 1))
	done
	kill -TERM "$tpid"
	reap "$tpid"
	if [ $st = 0 ]; then
		ok "SIGTERM stops the sender, exit 0"
	else
		not_ok "SIGTERM stops the sender, exit 0 (exit $st)" "$TMP/tx.err"
	fi
	grep_check "... with its summary" tx.out \
		"^rcgen: sent=[0-9]+ bytes=[0-9]+ seconds=[0-9.]+ rate_pps=[0-9]+ flows=1 size=60 send_errors=0$"

	check "binding a port in use: exit 1" 1 \
		"$RG" --recv --bind "$port" --duration 0.1
	grep_check "... saying so" err \
		"^rcgen: cannot bind 127\.0\.0\.1:$port: Address already in use$"
	kill -TERM "$rpid"
	reap "$rpid"
else
	not_ok "receiver for the SIGTERM run bound" "$TMP/term.err"
fi
check "--write into a missing directory: exit 1" 1 \
	"$RG" --recv --bind 0 --duration 0.1 --write "$TMP/no/such.pcap"
grep_check "... saying so" err "^rcgen: cannot write $TMP/no/such\.pcap: "

# --- --replay ---------------------------------------------------------
# le32 N: N as 4 little-endian bytes (printf's octal escapes: POSIX sh)
le32() {
	# shellcheck disable=SC2059 # the escapes are the format
	printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) \
		$(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"
}

# pcap_hdr MAGIC LINKTYPE: a pcap file header, version 2.4
pcap_hdr() {
	le32 "$1"
	printf '\002\000\004\000'
	le32 0
	le32 0
	le32 65535
	le32 "$2"
}

# pcap_rec CAPLEN LEN [DATA_BYTES]: a record of random bytes, timestamp 0;
# DATA_BYTES (default CAPLEN) fewer makes a file cut short
pcap_rec() {
	le32 0
	le32 0
	le32 "$1"
	le32 "$2"
	head -c "${3:-$1}" /dev/urandom
}

# same_frames NAME SENT GOT: the frames of pcap GOT are those of pcap SENT,
# bytes and lengths (timestamps apart), by python3 or else tcpdump -xx
same_frames() {
	if command -v python3 >/dev/null 2>&1; then
		python3 - "$2" "$3" >"$TMP/cmp" 2>&1 <<'PY'
import struct, sys

def frames(path):
    d = open(path, "rb").read()
    nano = {0xa1b2c3d4: 0, 0xa1b23c4d: 1}[struct.unpack("<I", d[:4])[0]]
    out, off = [], 24
    while off < len(d):
        cap, wire = struct.unpack("<II", d[off + 8:off + 16])
        out.append((cap, wire, d[off + 16:off + 16 + cap]))
        off += 16 + cap
    return out

a, b = frames(sys.argv[1]), frames(sys.argv[2])
for i, (x, y) in enumerate(zip(a, b)):
    if x != y:
        sys.exit("frame %d differs: %d/%d bytes sent, %d/%d received"
                 % (i + 1, x[0], x[1], y[0], y[1]))
if len(a) != len(b):
    sys.exit("%d frames sent, %d received" % (len(a), len(b)))
PY
	elif command -v tcpdump >/dev/null 2>&1; then
		tcpdump -t -nn -xx -r "$2" >"$TMP/cmp.a" 2>/dev/null &&
		tcpdump -t -nn -xx -r "$3" >"$TMP/cmp.b" 2>/dev/null &&
		cmp "$TMP/cmp.a" "$TMP/cmp.b" >"$TMP/cmp" 2>&1
	else
		skip "$1 (neither python3 nor tcpdump to compare)"
		return
	fi
	if [ $? = 0 ]; then
		ok "$1"
	else
		not_ok "$1" "$TMP/cmp"
	fi
}

# replay_to NAME COUNT FILE ARGS...: "rcgen --replay FILE ARGS" into a
# receiver that expects COUNT frames and writes them to $TMP/NAME.pcap
replay_to() {
	name=$1 want=$2 file=$3
	shift 3
	if ! start_recv "$name" --count "$want" --duration 20 \
			--write "$TMP/$name.pcap"; then
		not_ok "receiver for $name bound" "$TMP/$name.err"
		return 1
	fi
	check "$name: --replay exit 0" 0 \
		"$RG" --to "$port" --replay "$file" --rate 20000 "$@"
	reap "$rpid"
	if [ $st != 0 ]; then
		not_ok "$name: receiver got $want frames (exit $st)" \
			"$TMP/$name.err"
		return 1
	fi
}

RP=$TMP/replay
mkdir "$RP"
# Every edge length, random bytes: nothing in them is rcgen's own.
lens="14 15 59 60 61 127 1000 1513 1514"
{
	pcap_hdr 0xa1b2c3d4 1
	for l in $lens; do
		pcap_rec "$l" "$l"
	done
} >"$RP/edges.pcap"
# The same frames three and a half times: what --count 31 sends.
{
	head -c 24 "$RP/edges.pcap"
	tail -c +25 "$RP/edges.pcap"
	tail -c +25 "$RP/edges.pcap"
	tail -c +25 "$RP/edges.pcap"
	tail -c +25 "$RP/edges.pcap" | head -c $((4 * 16 + 14 + 15 + 59 + 60))
} >"$RP/edges31.pcap"
# The same with the nanosecond magic.
{
	le32 0xa1b23c4d
	tail -c +5 "$RP/edges.pcap"
} >"$RP/nano.pcap"

if replay_to edges 9 "$RP/edges.pcap" --quiet; then
	grep_check "edges: summary, the file once, flows=0 size=0" out \
		"^rcgen: sent=9 bytes=4363 seconds=[0-9]+\.[0-9]{3} rate_pps=[0-9]+ flows=0 size=0 send_errors=0$"
	same_frames "edges: 9 frames of 14..1514 bytes arrive byte for byte" \
		"$RP/edges.pcap" "$TMP/edges.pcap"
fi
if replay_to cycle 31 "$RP/nano.pcap" --count 31 --quiet; then
	grep_check "nanosecond file, --count 31: 31 sent" out \
		"^rcgen: sent=31 bytes=13237 .* flows=0 size=0 send_errors=0$"
	same_frames "... going round the file 3.4 times, byte for byte" \
		"$RP/edges31.pcap" "$TMP/cycle.pcap"
fi
if [ -s "$TMP/rx.pcap" ]; then
	# rcgen's own capture from above: 1009 frames of 128 bytes.
	if replay_to again 1009 "$TMP/rx.pcap"; then
		grep_check "rcgen's own pcap replayed: its 1009 frames sent" out \
			"^rcgen: sent=1009 bytes=129152 .* flows=0 size=0 send_errors=0$"
		grep_check "... saying what it replays" err \
			"^rcgen: sending to 127\.0\.0\.1:[0-9]+ from port [0-9]+, replay .*rx\.pcap \(1009 frames, 129152 bytes\) rate=20000 pps$"
		same_frames "... and they arrive byte for byte" \
			"$TMP/rx.pcap" "$TMP/again.pcap"
	fi
else
	skip "no pcap from the first run to replay"
fi

# Usage: what shapes generated frames does not go with a file.
for opt in "--size 100" "--flows 2" "--dst-mac 52:54:00:12:34:10" \
	   "--src-mac 02:00:00:00:00:02" "--dst-ip 10.0.0.3" "--dport 7"; do
	# shellcheck disable=SC2086 # word splitting wanted
	check "--replay with $opt: exit 2" 2 \
		"$RG" --to 5 --replay "$RP/edges.pcap" $opt
	grep_check "... naming ${opt%% *}" err \
		"^rcgen: ${opt%% *} conflicts with --replay"
done
check "--replay with --recv: exit 2" 2 \
	"$RG" --recv --bind 0 --replay "$RP/edges.pcap"
grep_check "... saying --replay is for sending" err \
	"^rcgen: --replay is for sending, not with --recv"
check "--replay without --to: exit 2" 2 "$RG" --replay "$RP/edges.pcap"
check "--replay without a file: exit 2" 2 "$RG" --to 5 --replay

# Files that cannot be sent as they are: exit 1 before the first frame.
{ pcap_hdr 0xa1b2c3d4 1; pcap_rec 60 60; pcap_rec 60 100; } >"$RP/snap.pcap"
{ pcap_hdr 0xa1b2c3d4 1; pcap_rec 60 60; pcap_rec 60 60
  pcap_rec 1515 1515; } >"$RP/long.pcap"
{ pcap_hdr 0xa1b2c3d4 1; pcap_rec 13 13; } >"$RP/short.pcap"
{ pcap_hdr 0xa1b2c3d4 1; pcap_rec 60 60; pcap_rec 100 100 50; } \
	>"$RP/cut.pcap"
{ pcap_hdr 0xa1b2c3d4 1; pcap_rec 60 60; head -c 10 /dev/zero; } \
	>"$RP/cuthdr.pcap"
{ pcap_hdr 0xa1b2c3d4 101; pcap_rec 60 60; } >"$RP/rawip.pcap"
{ pcap_hdr 0xd4c3b2a1 1; pcap_rec 60 60; } >"$RP/big.pcap"
{ pcap_hdr 0x0a0d0d0a 1; pcap_rec 60 60; } >"$RP/ng.pcap"
pcap_hdr 0xa1b2c3d4 1 >"$RP/empty.pcap"
echo "not a capture" >"$RP/text.pcap"
# name FILE REGEX: one bad file each
while read -r name file regex; do
	check "--replay $name: exit 1" 1 "$RG" --to 5 --replay "$RP/$file"
	if [ -s "$TMP/out" ]; then
		not_ok "... before sending anything" "$TMP/out"
	else
		grep_check "... saying so: $regex" err \
			"^rcgen: $RP/$file: $regex"
	fi
done <<EOF
partial-frame snap.pcap record 2: 60 of 100 bytes captured;
too-long long.pcap record 3: 1515 bytes, longer than 1514$
too-short short.pcap record 1: 13 bytes, shorter than 14$
cut-data cut.pcap record 2: cut short at the end of the file \(50 of 100 frame bytes\)$
cut-header cuthdr.pcap record 2: cut short at the end of the file \(10 of 16 header bytes\)$
raw-IP rawip.pcap link type 101, not Ethernet
big-endian big.pcap a big-endian pcap file
pcapng ng.pcap a pcapng file
header-only empty.pcap no frames in the file$
text text.pcap not a pcap file
EOF
check "--replay of a missing file: exit 1" 1 \
	"$RG" --to 5 --replay "$RP/no/such.pcap"
grep_check "... saying so" err "^rcgen: cannot read $RP/no/such\.pcap: "

# --- --tx-ring --------------------------------------------------------
check "rcgen --help again" 0 "$RG" --help
grep_check "--help names --tx-ring" out "^  --tx-ring DEV "
grep_check "... and the summary's extra fields" out "tx_refused= tx_full="
# ARGS|REGEX: a usage error each, exit 2 and saying why
while IFS='|' read -r args regex; do
	# shellcheck disable=SC2086 # word splitting wanted
	check "rcgen $args: exit 2" 2 "$RG" $args
	grep_check "... $regex" err "^rcgen: $regex"
done <<'EOF'
--tx-ring lo --to 5|--to does not apply with --tx-ring: the frames go out of lo
--tx-ring lo --bind 5|--bind does not apply with --tx-ring
--tx-ring lo --host 10.0.0.1|--host does not apply with --tx-ring
--tx-ring-size 8192 --to 5|--tx-ring-size needs --tx-ring DEV
--tx-ring lo --tx-ring-size 5000|--tx-ring-size: expected a power of two, got '5000'
--tx-ring lo --tx-ring-size 2048|--tx-ring-size: expected a number in 4096\.\.1073741824
--tx-ring lo --tx-ring-size 2G|--tx-ring-size: expected a number in 4096\.\.1073741824
--tx-ring lo@1|--tx-ring: expected a device name without @QUEUE
--tx-ring a/b|--tx-ring: expected a network device name, got 'a/b'
--recv --bind 0 --tx-ring lo|--tx-ring is for sending, not with --recv
--recv --bind 0 --tx-ring-size 8192|--tx-ring-size is for sending, not with --recv
--tx-ring lo --write x.pcap|--write needs --recv
--tx-ring lo --replay /dev/null --size 100|--size conflicts with --replay
EOF
for size in 64k 1M 4096; do
	"$RG" --tx-ring lo --tx-ring-size $size -q --count 1 >/dev/null 2>&1
	if [ $? != 2 ]; then
		ok "--tx-ring-size $size is a size rcgen takes"
	else
		not_ok "--tx-ring-size $size is a size rcgen takes"
	fi
done
if [ -e /sys/module/ringcap ]; then
	skip "--tx-ring without the module (ringcap is loaded here)"
else
	check "--tx-ring lo without the module: exit 1" 1 \
		"$RG" --tx-ring lo --count 1
	grep_check "... saying so" err \
		"^rcgen: --tx-ring lo: the ringcap module is not loaded \(no /sys/module/ringcap\)$"
	if [ -s "$TMP/out" ]; then
		not_ok "... before sending anything" "$TMP/out"
	else
		ok "... before sending anything"
	fi
fi
check "--tx-ring with a bad --replay file: exit 1 before the ring" 1 \
	"$RG" --tx-ring lo --replay "$RP/short.pcap"
grep_check "... naming the file" err "^rcgen: $RP/short\.pcap: record 1:"

# Through libringcap's transmit side with the kernel faked: what the
# "device" sent is in $TMP/NAME.pcap, rcgen's output in NAME.{out,err}.
# rgf NAME ARGS...
rgf() {
	rgf_name=$1	# check() sets $name
	shift
	check "$rgf_name: rcgen --tx-ring lo $*: exit 0" 0 \
		env FAKE_TX_PCAP="$TMP/$rgf_name.pcap" "$RGF" --tx-ring lo "$@"
	cp "$TMP/out" "$TMP/$rgf_name.out"
	cp "$TMP/err" "$TMP/$rgf_name.err"
}
# fake_field NAME KEY: KEY's value in the fake kernel's closing line
fake_field() {
	sed -n "s/^fake_tx:.* $2=\([0-9]*\).*/\1/p" "$TMP/$1.err"
}
if [ ! -x "$RGF" ]; then
	skip "no $RGF (make -C userland test builds it): --tx-ring not run"
else
	rgf txedges --replay "$RP/nano.pcap" --count 31 --rate 20000
	grep_check "txedges: the summary as ever, then tx_refused=0 tx_full=N" \
		txedges.out \
		"^rcgen: sent=31 bytes=13237 seconds=[0-9]+\.[0-9]{3} rate_pps=[0-9]+ flows=0 size=0 send_errors=0 tx_refused=0 tx_full=[0-9]+$"
	grep_check "txedges: the start line names the device and the ring" \
		txedges.err \
		"^rcgen: sending out of lo through a 4194304-byte transmit ring, replay .*nano\.pcap \(9 frames, 4363 bytes\) rate=20000 pps$"
	same_frames "txedges: the file 3.4 times round, byte for byte, in order" \
		"$RP/edges31.pcap" "$TMP/txedges.pcap"

	# A 4 KiB ring: full after 27 frames, a pad every 32, and a queue
	# that takes 16 per kick and none every third: every path of the loop.
	rgf txsmall --count 1009 --flows 64 --size 128 --tx-ring-size 4k -q
	grep_check "txsmall: 1009 sent through a 4 KiB ring" txsmall.out \
		"^rcgen: sent=1009 bytes=129152 .* flows=64 size=128 send_errors=0 tx_refused=0 tx_full=[1-9][0-9]*$"
	pads=$(fake_field txsmall pads)
	if [ "$(fake_field txsmall sent)" = 1009 ] &&
	   [ "$(fake_field txsmall bad)" = 0 ] && in_range "${pads:-0}" 10 1009; then
		ok "txsmall: the device got 1009 frames, $pads pad records, no bad record"
	else
		not_ok "txsmall: the device got 1009 frames, pads, no bad record" \
			"$TMP/txsmall.err"
	fi
	if [ -s "$TMP/rx.pcap" ]; then
		same_frames "txsmall: the very frames --to sent above, in order" \
			"$TMP/rx.pcap" "$TMP/txsmall.pcap"
	else
		skip "no pcap from the first run to compare with"
	fi

	rgf txpaced --rate 2000 --count 1000 -q
	secs=$(field txpaced.out seconds)
	if in_range "$secs" 0.3 3; then
		ok "txpaced: --rate 2000 --count 1000 takes about 0.5 s ($secs s)"
	else
		not_ok "txpaced: --rate 2000 --count 1000 takes about 0.5 s (${secs:-?} s)" \
			"$TMP/txpaced.out"
	fi

	# SIGTERM: the summary, and what was put is drained to the device.
	FAKE_TX_PCAP=$TMP/txterm.pcap "$RGF" --tx-ring lo --rate 1000 \
		>"$TMP/txterm.out" 2>"$TMP/txterm.err" &
	tpid=$!
	pids="$pids $tpid"
	i=0
	while [ $i -lt 250 ] && ! grep -qs '^rcgen: sending out of lo' \
			"$TMP/txterm.err"; do
		sleep 0.02
		i=$((i + 1))
	done
	sleep 0.2
	kill -TERM "$tpid"
	reap "$tpid"
	sent=$(field txterm.out sent)
	if [ $st = 0 ] && in_range "${sent:-0}" 1 100000 &&
	   [ "$(fake_field txterm sent)" = "$sent" ]; then
		ok "SIGTERM: exit 0, the summary, all $sent frames put were sent"
	else
		not_ok "SIGTERM: exit 0, the summary, all frames put were sent (exit $st)" \
			"$TMP/txterm.err"
	fi

	check "a device that takes 100 bytes, --size 128: exit 1" 1 \
		env FAKE_TX_FRAME_MAX=100 "$RGF" --tx-ring lo --size 128 --count 5
	grep_check "... before sending, saying so" err \
		"^rcgen: --tx-ring lo: --size has frames of 128 bytes, but lo takes at most 100 \(its MTU plus an Ethernet and a VLAN header\)$"
	check "... and a replayed file with a longer frame: exit 1" 1 \
		env FAKE_TX_FRAME_MAX=1000 "$RGF" --tx-ring lo \
		--replay "$RP/edges.pcap"
	grep_check "... naming the file" err \
		"^rcgen: --tx-ring lo: .*edges\.pcap has frames of 1514 bytes, but lo takes at most 1000"
	check "--tx-ring on a device that does not exist: exit 1" 1 \
		"$RGF" --tx-ring rcnosuch0 --count 1
	grep_check "... saying so" err \
		"^rcgen: --tx-ring rcnosuch0: no such device: rcnosuch0$"
fi

tap_end
