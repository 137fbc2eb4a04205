#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck source-path=SCRIPTDIR
#
# rcgen against itself on loopback, as it stands in for QEMU's dgram
# backend: frames sent to "rcgen --recv" on a free port arrive complete
# and in order, the pcap it writes is valid (tcpdump and/or python3 read
# it), --rate holds its pace without spinning, signals stop both modes
# with a summary, socket errors exit 1 and bad usage exits 2. --replay is
# test_rcgen_replay.sh's, --tx-ring test_rcgen_tx.sh's. No root, no
# module. TAP.
#
#   BIN=userland/build/bin userland/tests/test_rcgen.sh

set -u
BIN=${BIN:-$(dirname "$0")/../build/bin}
RG="$BIN/rcgen"
. "$(dirname "$0")/rcgen_lib.sh"

# The input backlogs' drops, all CPUs (the second column, in hex); sh's
# twin of selftests/lib.sh's, which is bash.
softnet_dropped() {
	s=0
	while read -r _ d _; do s=$((s + 0x$d)); done </proc/net/softnet_stat
	echo "$s"
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

tap_end
