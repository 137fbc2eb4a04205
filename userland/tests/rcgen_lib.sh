# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# What the rcgen tests share (test_rcgen.sh, test_rcgen_replay.sh,
# test_rcgen_tx.sh). A test sets RG (the rcgen to run) and sources this,
# which makes TMP, its scratch directory, traps EXIT with cleanup and
# sources tap.sh:
#
#   RG="$BIN/rcgen"
#   . "$(dirname "$0")/rcgen_lib.sh"
#
# Every rcgen started in the background goes into $pids, and leaves it
# through reap, so that cleanup kills only what is still running.

pids=		# background rcgens not yet waited for

cleanup() {
	# Every job too: a signal may come between "cmd &" and pids="$pids
	# $!". Through a file, as dash lists no jobs in a $(...) subshell.
	jobs -p >"$TMP/jobs" 2>/dev/null
	for p in $pids $(cat "$TMP/jobs" 2>/dev/null); do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$TMP"
}

# reap PID: wait for it, its exit status in $st
reap() {
	wait "$1"
	st=$?
	pids=$(echo "$pids" | tr ' ' '\n' | grep -vx "$1" | tr '\n' ' ')
}

# field FILE KEY: KEY's value in FILE's summary line
field() {
	sed -n "s/^rcgen:.* $2=\([0-9.]*\).*/\1/p" "$TMP/$1" | tail -n 1
}

# in_range VALUE MIN MAX: MIN <= VALUE <= MAX, fractions allowed
in_range() {
	[ -n "$1" ] && awk -v v="$1" -v lo="$2" -v hi="$3" \
		'BEGIN { exit !(v + 0 >= lo && v + 0 <= hi) }'
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

# capture_own NAME: $TMP/NAME.pcap, the 1009 frames of 64 flows and 128
# bytes that "rcgen --to" sends, as "rcgen --recv --write" saves them
# (test_rcgen.sh checks that run case by case). 0 when all 1009 arrived;
# else 1, no NAME.pcap, and why in $TMP/NAME.err.
capture_own() {
	if ! start_recv "$1" --count 1009 --duration 20 \
			--write "$TMP/$1.pcap"; then
		rm -f "$TMP/$1.pcap"
		return 1
	fi
	"$RG" --to "$port" --count 1009 --flows 64 --size 128 --rate 20000 \
		--quiet >"$TMP/$1.send" 2>&1 ||
		cat "$TMP/$1.send" >>"$TMP/$1.err"
	reap "$rpid"
	if [ $st = 0 ] && grep -q '^rcgen: received=1009 bytes=129152 ' \
			"$TMP/$1.out"; then
		return 0
	fi
	cat "$TMP/$1.out" >>"$TMP/$1.err"
	rm -f "$TMP/$1.pcap"
	return 1
}

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

# edge_files DIR: DIR/edges.pcap, 9 frames of every edge length (random
# bytes: nothing in them is rcgen's own); DIR/edges31.pcap, the same
# frames three and a half times, what --count 31 sends; DIR/nano.pcap,
# edges.pcap with the nanosecond magic.
edge_files() {
	{
		pcap_hdr 0xa1b2c3d4 1
		for l in 14 15 59 60 61 127 1000 1513 1514; do
			pcap_rec "$l" "$l"
		done
	} >"$1/edges.pcap"
	{
		head -c 24 "$1/edges.pcap"
		tail -c +25 "$1/edges.pcap"
		tail -c +25 "$1/edges.pcap"
		tail -c +25 "$1/edges.pcap"
		tail -c +25 "$1/edges.pcap" |
			head -c $((4 * 16 + 14 + 15 + 59 + 60))
	} >"$1/edges31.pcap"
	{
		le32 0xa1b23c4d
		tail -c +5 "$1/edges.pcap"
	} >"$1/nano.pcap"
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
	# shellcheck disable=SC2181 # the status of either branch above
	if [ $? = 0 ]; then
		ok "$1"
	else
		not_ok "$1" "$TMP/cmp"
	fi
}

TMP=$(mktemp -d)
trap cleanup EXIT
trap 'exit 1' INT TERM
. "$(dirname "$0")/tap.sh"
