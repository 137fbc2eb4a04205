#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# packzip without a capture device: help, usage errors (exit 2), runtime
# errors (exit 1), and -r over pcap files made here with known frames. The
# gzip-compressed pcap it writes must give back exactly the input records at
# every level, through zcat alone and through tcpdump. A live run on lo (as
# root) is a smoke test, skipped where capturing is not possible. TAP.
#
#   BIN=userland/build/bin userland/tests/test_packzip.sh

set -u
BIN=${BIN:-$(dirname "$0")/../build/bin}
PZ="$BIN/packzip"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. "$(dirname "$0")/tap.sh"
FRAMES=200		# frames in the test file
UDP9=180		# of which UDP to port 9 (the rest: port 7 and ARP)

# is NAME GOT WANT: two strings are equal
is() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1 (got '$2', want '$3')"
	fi
}

# key K: value of K= in the summary line of the last run (out, or err)
key() {
	sed -n "s/^packzip: .* $1=\([^ ]*\).*/\1/p" "$TMP/out" "$TMP/err" |
		head -n 1
}

# An exit status of 2 or 1 alone proves little: the message must be
# packzip's, one line on stderr (and for bad usage a second pointing to
# --help), with nothing on stdout.
one_line_error() {
	err_lines 1 "one 'packzip:' line on stderr, nothing on stdout"
}
usage_error() {
	err_lines 2 "one 'packzip:' line and \"Try 'packzip --help'.\" on stderr, nothing on stdout"
}
err_lines() {
	if [ "$(wc -l <"$TMP/err")" = "$1" ] &&
	   head -n 1 "$TMP/err" | grep -q '^packzip: ' &&
	   { [ "$1" = 1 ] || [ "$(sed -n 2p "$TMP/err")" = "Try 'packzip --help'." ]; } &&
	   [ ! -s "$TMP/out" ]; then
		ok "... $2"
	else
		not_ok "... $2"
		sed 's/^/#   err: /' "$TMP/err"
		sed 's/^/#   out: /' "$TMP/out"
	fi
}

# mkpcap FILE nano|micro: the test frames, little-endian pcap, snaplen
# 65535, Ethernet. Text payloads compress well; some records are cut
# (caplen < len) and the nanosecond file has fractions above 999999.
mkpcap() {
	python3 - "$1" "$2" "$FRAMES" <<'PY'
import struct, sys
path, prec, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
magic = 0xa1b23c4d if prec == "nano" else 0xa1b2c3d4
scale = 1000000000 if prec == "nano" else 1000000
text = b"packzip test payload: the quick brown fox jumps over the lazy dog. "
out = [struct.pack("<IHHiIII", magic, 2, 4, 0, 0, 65535, 1)]
for i in range(count):
    eth = b"\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01"
    if i % 20 == 19:			# ARP request
        frame = eth + b"\x08\x06" + bytes(range(28)) + bytes(18)
    else:
        port = 7 if i % 20 == 9 else 9
        body = (text * 30)[:(i * 37) % 1400 + 20]
        udp = struct.pack(">HHHH", 40000 + i, port, 8 + len(body), 0) + body
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i, 0,
                         64, 17, 0, bytes([10, 0, 0, 1]),
                         bytes([10, 0, 0, 2]))
        frame = eth + b"\x08\x00" + ip + udp
    cap = len(frame) if i % 7 else min(len(frame), 96)
    t = 1700000000 * scale + i * (scale // 1000 + 123457)
    out.append(struct.pack("<IIII", t // scale, t % scale, cap, len(frame)))
    out.append(frame[:cap])
open(path, "wb").write(b"".join(out))
PY
}

# same_records NAME A B [N]: same link type, precision and the first N (or
# all) records byte for byte; the snaplen fields may differ
same_records() {
	if python3 - "$2" "$3" "${4:-}" >"$TMP/cmp" 2>&1 <<'PY'; then
import struct, sys
def records(path):
    d = open(path, "rb").read()
    magic, = struct.unpack("<I", d[:4])
    assert magic in (0xa1b2c3d4, 0xa1b23c4d), "%s: magic %x" % (path, magic)
    link, = struct.unpack("<I", d[20:24])
    recs, off = [], 24
    while off < len(d):
        caplen, = struct.unpack("<I", d[off + 8:off + 12])
        recs.append(d[off:off + 16 + caplen])
        off += 16 + caplen
    assert off == len(d), "%s: trailing bytes" % path
    return magic, link, recs
a, b = records(sys.argv[1]), records(sys.argv[2])
assert a[:2] == b[:2], "headers differ: %r %r" % (a[:2], b[:2])
ra, rb = a[2], b[2]
if sys.argv[3]:
    ra = ra[:int(sys.argv[3])]
assert len(ra) == len(rb), "%d records, want %d" % (len(rb), len(ra))
for i, (x, y) in enumerate(zip(ra, rb)):
    assert x == y, "record %d differs" % i
PY
		ok "$1"
	else
		not_ok "$1"
		sed 's/^/#   /' "$TMP/cmp"
	fi
}

size() {
	wc -c <"$1" | tr -d ' '
}

if ! command -v python3 >/dev/null || ! command -v tcpdump >/dev/null ||
   ! command -v zcat >/dev/null; then
	echo "1..0 # SKIP needs python3, tcpdump and zcat"
	exit 0
fi
IN="$TMP/in.pcap"
mkpcap "$IN" micro
mkpcap "$TMP/nano.pcap" nano

# --- help and usage errors -------------------------------------------------
check "packzip --help exits 0" 0 "$PZ" --help
grep_check "--help shows usage on stdout" out "^Usage: packzip -i DEV"
check "packzip -h exits 0" 0 "$PZ" -h
for args in "" "-i" "-z 6" "-i lo -r $IN" "-r $IN -z 10" "-r $IN -z -1" \
	    "-r $IN -z x" "-r $IN -z 5x" "-r $IN -c abc" "-r $IN -c 0" \
	    "-r $IN -c -3" "-r $IN -t 0" "-r $IN -t soon" "-i lo -s 0" \
	    "-i lo -s 262145" "-i lo -B 0" "-r $IN -s 100" \
	    "-r $IN --immediate" "-x" "--no-such-option" \
	    "-r $IN udp port" "-r $IN no such filter" "-r $IN --format pcapx" \
	    "-r $IN --compress lz4" "-r $IN --compress zstd -z 0" \
	    "-r $IN --compress zstd -z 20"; do
	# shellcheck disable=SC2086 # word splitting wanted
	check "packzip ${args:-(no arguments)}: exit 2" 2 "$PZ" $args
	usage_error
done

# --- runtime errors --------------------------------------------------------
check "-r missing file: exit 1" 1 "$PZ" -r "$TMP/nonexistent.pcap"
one_line_error
echo "not a pcap file" >"$TMP/junk"
check "-r a file that is not pcap: exit 1" 1 "$PZ" -r "$TMP/junk"
one_line_error
check "-w in a missing directory: exit 1" 1 \
	"$PZ" -r "$IN" -w "$TMP/no/such/dir/out.pcap.gz"
one_line_error
check "-w onto a directory: exit 1" 1 "$PZ" -r "$IN" -w "$TMP"
one_line_error
if [ -w /dev/full ]; then
	check "-w /dev/full: exit 1" 1 "$PZ" -r "$IN" -z 0 -w /dev/full
	grep_check "... saying why" err "^packzip: /dev/full: No space left"
else
	skip "no /dev/full"
fi
check "-i on a device that does not exist: exit 1" 1 \
	"$PZ" -i pz-no-such0 -t 1
one_line_error
check "-i missing device with -w: exit 1" 1 \
	"$PZ" -i pz-no-such0 -w "$TMP/never.gz"
if [ -e "$TMP/never.gz" ]; then
	not_ok "... and leaves no output file behind"
else
	ok "... and leaves no output file behind"
fi

# --- -r, every level: the output is the input ------------------------------
for z in 0 1 6 9; do
	out="$TMP/out$z.pcap.gz"
	check "-r in.pcap -z $z -w: exit 0" 0 "$PZ" -r "$IN" -z "$z" -w "$out"
	grep_check "... one summary line" out \
		"^packzip: file=[^ ]+ level=$z captured=[0-9]+ ps_recv=- ps_drop=- ps_ifdrop=- bytes_in=[0-9]+ bytes_out=[0-9]+ ratio=[0-9.]+ cpu_user_ms=[0-9]+ cpu_sys_ms=[0-9]+ wall_ms=[0-9]+ format=pcap compress=gzip$"
	is "... captured= is the frame count" "$(key captured)" "$FRAMES"
	is "... bytes_in= is the uncompressed pcap size" "$(key bytes_in)" \
		"$(size "$IN")"
	is "... bytes_out= is the file size" "$(key bytes_out)" "$(size "$out")"
	eval "bytes_out_$z=\$(key bytes_out)"
	if zcat "$out" >"$TMP/plain$z.pcap" && cmp -s "$IN" "$TMP/plain$z.pcap"
	then
		ok "... zcat gives back in.pcap byte for byte"
	else
		not_ok "... zcat gives back in.pcap byte for byte"
	fi
	if zcat "$out" | tcpdump -r - -w "$TMP/copy$z.pcap" 2>"$TMP/err"; then
		ok "... tcpdump reads it"
	else
		not_ok "... tcpdump reads it"
		sed 's/^/#   /' "$TMP/err"
	fi
	same_records "... with the same records" "$IN" "$TMP/copy$z.pcap"
done

in_size=$(size "$IN")
if [ "$bytes_out_9" -lt "$bytes_out_0" ]; then
	ok "level 9 ($bytes_out_9 bytes) is smaller than level 0 ($bytes_out_0)"
else
	not_ok "level 9 ($bytes_out_9 bytes) is smaller than level 0 ($bytes_out_0)"
fi
if [ "$bytes_out_1" -lt "$bytes_out_0" ] &&
   [ "$bytes_out_6" -lt "$bytes_out_0" ]; then
	ok "levels 1 ($bytes_out_1) and 6 ($bytes_out_6) compress too"
else
	not_ok "levels 1 ($bytes_out_1) and 6 ($bytes_out_6) compress too"
fi
if [ "$bytes_out_0" -ge "$in_size" ]; then
	ok "level 0 ($bytes_out_0) is not smaller than the input ($in_size)"
else
	not_ok "level 0 ($bytes_out_0) is not smaller than the input ($in_size)"
fi
echo "# compressed sizes of $in_size bytes: z0=$bytes_out_0 z1=$bytes_out_1 z6=$bytes_out_6 z9=$bytes_out_9"

# --- without -w, the same stream is only counted ---------------------------
check "-r in.pcap -z 6 without -w: exit 0" 0 "$PZ" -r "$IN"
is "... level 6 is the default" "$(key level)" 6
is "... bytes_out= as with -w" "$(key bytes_out)" "$bytes_out_6"

# --- pcapng, each compression: the same packets, and the counters -----------
if command -v tshark >/dev/null; then
	tshark -r "$IN" -x >"$TMP/in.hex" 2>/dev/null
	tshark -r "$IN" -T fields -e frame.time_epoch -e frame.len \
		-e frame.cap_len >"$TMP/in.fields" 2>/dev/null
	for c in gzip zstd none; do
		out="$TMP/out-$c.pcapng"
		check "-r in.pcap --format pcapng --compress $c -w: exit 0" 0 \
			"$PZ" -r "$IN" --format pcapng --compress "$c" -z 3 -w "$out"
		grep_check "... the summary says so" out \
			" format=pcapng compress=$c\$"
		is "... bytes_out= is the file size" "$(key bytes_out)" \
			"$(size "$out")"
		tshark -r "$out" -x >"$TMP/out.hex" 2>/dev/null
		tshark -r "$out" -T fields -e frame.time_epoch -e frame.len \
			-e frame.cap_len >"$TMP/out.fields" 2>/dev/null
		if [ -s "$TMP/in.hex" ] && cmp -s "$TMP/in.hex" "$TMP/out.hex" &&
		   cmp -s "$TMP/in.fields" "$TMP/out.fields"; then
			ok "... tshark reads every packet back: bytes, lengths, time"
		else
			not_ok "... tshark reads every packet back: bytes, lengths, time"
		fi
		capinfos "$out" >"$TMP/ci" 2>&1
		if grep -q 'Capture application: packzip' "$TMP/ci" &&
		   grep -q 'Number of stat entries = 1' "$TMP/ci" &&
		   grep -q 'Time precision = nanoseconds (9)' "$TMP/ci"; then
			ok "... capinfos: one interface at 1 ns, one statistics block"
		else
			not_ok "... capinfos" "$TMP/ci"
		fi
		is "... isb_usrdeliv is the frame count" "$(tshark -r "$out" \
			-X 'read_format:MIME Files Format' -T fields \
			-e pcapng.options.option.data.interface.delivered_to_user \
			2>/dev/null | tr -d '\n')" "$FRAMES"
	done
else
	skip "tshark is not installed (Debian: tshark): pcapng output unchecked"
fi

# --- stops and filters -----------------------------------------------------
check "-c 5: exit 0" 0 "$PZ" -r "$IN" -c 5 -w "$TMP/c5.gz"
is "... captured=5" "$(key captured)" 5
zcat "$TMP/c5.gz" >"$TMP/c5.pcap"
same_records "... the first 5 records" "$IN" "$TMP/c5.pcap" 5

check "filter 'udp port 9': exit 0" 0 "$PZ" -r "$IN" -w "$TMP/f.gz" \
	udp and dst port 9
is "... captured= the matching frames" "$(key captured)" "$UDP9"
is "... and only those are written" \
	"$(zcat "$TMP/f.gz" | tcpdump -nr - 2>/dev/null |
	   grep -c '10\.0\.0\.2\.9: UDP')" "$UDP9"

check "-r - (stdin) -w - (stdout): exit 0" 0 sh -c \
	"'$PZ' -r - -z 1 -w - <'$IN' >'$TMP/stdout.gz' 2>'$TMP/err'"
if zcat "$TMP/stdout.gz" | cmp -s - "$IN"; then
	ok "... the stream on stdout is in.pcap"
else
	not_ok "... the stream on stdout is in.pcap"
fi
grep_check "... the summary goes to stderr" err "^packzip: file=- level=1 captured=$FRAMES "

# --- nanosecond files keep their precision ---------------------------------
check "-r nano.pcap -w: exit 0" 0 "$PZ" -r "$TMP/nano.pcap" -w "$TMP/nano.gz"
if zcat "$TMP/nano.gz" | cmp -s - "$TMP/nano.pcap"; then
	ok "... nanosecond magic and timestamps kept"
else
	not_ok "... nanosecond magic and timestamps kept"
fi
check "-r in.pcap --nano: exit 0" 0 "$PZ" -r "$IN" --nano -w "$TMP/up.gz"
zcat "$TMP/up.gz" | tcpdump --nano -r - -w "$TMP/up.pcap" 2>/dev/null
is "... written with the nanosecond magic" \
	"$(od -An -tx4 -N4 "$TMP/up.pcap" | tr -d ' ')" a1b23c4d

# --- live, on lo: root only, harmless ---------------------------------------
live="$TMP/live.gz"
if [ "$(id -u)" != 0 ]; then
	skip "live capture on lo needs root"
elif ! "$PZ" -i lo -c 1 -t 0.2 >"$TMP/out" 2>"$TMP/err"; then
	skip "cannot capture on lo here: $(head -n 1 "$TMP/err")"
else
	# Send datagrams until packzip has seen three (or its -t ends it):
	# a condition, not a guessed sleep.
	"$PZ" -i lo -c 3 -t 20 -w "$live" udp port 45678 \
		>"$TMP/out" 2>"$TMP/err" &
	pid=$!
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 200 ]; do
		python3 -c 'import socket; socket.socket(socket.AF_INET,
socket.SOCK_DGRAM).sendto(b"packzip" * 20, ("127.0.0.1", 45678))'
		sleep 0.1
		i=$((i + 1))
	done
	wait "$pid"
	is "live -i lo -c 3 on UDP we send: exit 0" "$?" 0
	grep_check "... summary with pcap_stats numbers" out \
		"^packzip: dev=lo level=6 captured=3 ps_recv=[0-9]+ ps_drop=[0-9]+ ps_ifdrop=[0-9]+ "
	is "... the three datagrams in the file" \
		"$(zcat "$live" | tcpdump -nr - 2>/dev/null |
		   grep -c '127\.0\.0\.1\.45678: UDP, length 140')" 3

	check "live -i lo -t 1 --immediate -B 1024 -s 128: exit 0" 0 \
		"$PZ" -i lo -t 1 --immediate -B 1024 -s 128 -z 1
	ms=$(key wall_ms)
	if [ "${ms:-0}" -ge 900 ] && [ "${ms:-0}" -lt 5000 ]; then
		ok "... stopped by -t after about 1 s (wall_ms=$ms)"
	else
		not_ok "... stopped by -t after about 1 s (wall_ms=$ms)"
	fi

	# SIGTERM once packzip sleeps in poll() (syscall 7) inside pcap_loop:
	# pcap_breakloop() from the handler must wake it, then a summary.
	"$PZ" -i lo -t 30 >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	i=0
	until [ $i -ge 100 ] || grep -Eq '^(7|271) ' "/proc/$pid/syscall" \
		2>/dev/null; do
		sleep 0.05
		i=$((i + 1))
	done
	[ $i -ge 100 ] && echo "# packzip never seen in poll(); signalled anyway"
	kill -TERM "$pid"
	wait "$pid"
	is "live run ended by SIGTERM: exit 0" "$?" 0
	ms=$(key wall_ms)
	if [ -n "$ms" ] && [ "$ms" -lt 20000 ]; then
		ok "... at once, with a summary (wall_ms=$ms)"
	else
		not_ok "... at once, with a summary (wall_ms=${ms:-none})"
		sed 's/^/#   /' "$TMP/err"
	fi
fi

tap_end
