#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck source-path=SCRIPTDIR
#
# rcgen --replay on loopback: it sends a pcap file's frames byte for byte
# (every edge length, a nanosecond file, going round a file for --count,
# rcgen's own capture), with "rcgen --recv --write" saving what arrives;
# it refuses what shapes generated frames alongside a file, and files it
# cannot send as they are, before the first frame. No root, no module.
# TAP.
#
#   BIN=userland/build/bin userland/tests/test_rcgen_replay.sh

set -u
BIN=${BIN:-$(dirname "$0")/../build/bin}
RG="$BIN/rcgen"
. "$(dirname "$0")/rcgen_lib.sh"

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
edge_files "$RP"

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
if capture_own rx; then
	# rcgen's own capture: 1009 frames of 128 bytes.
	if replay_to again 1009 "$TMP/rx.pcap"; then
		grep_check "rcgen's own pcap replayed: its 1009 frames sent" out \
			"^rcgen: sent=1009 bytes=129152 .* flows=0 size=0 send_errors=0$"
		grep_check "... saying what it replays" err \
			"^rcgen: sending to 127\.0\.0\.1:[0-9]+ from port [0-9]+, replay .*rx\.pcap \(1009 frames, 129152 bytes\) rate=20000 pps$"
		same_frames "... and they arrive byte for byte" \
			"$TMP/rx.pcap" "$TMP/again.pcap"
	fi
else
	not_ok "rcgen's own pcap to replay: 1009 frames captured" \
		"$TMP/rx.err"
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

tap_end
