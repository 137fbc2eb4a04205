#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck source-path=SCRIPTDIR
#
# rcgen --tx-ring: its usage errors, the clear error without the module,
# and (TESTBIN/rcgen_fake: rcgen over libringcap's real transmit side with
# the kernel faked, tests/fake_tx_kernel.c) the same frames, generated or
# replayed, through a transmit ring whose device queue fills, paced,
# drained at a stop; frames longer than the device takes, and a device
# that does not exist, refused before sending. No root, no module. TAP.
#
#   BIN=userland/build/bin TESTBIN=userland/build/tests \
#	userland/tests/test_rcgen_tx.sh

set -u
BIN=${BIN:-$(dirname "$0")/../build/bin}
TESTBIN=${TESTBIN:-$(dirname "$0")/../build/tests}
RG="$BIN/rcgen"
RGF="$TESTBIN/rcgen_fake"
. "$(dirname "$0")/rcgen_lib.sh"

RP=$TMP/replay
mkdir "$RP"
edge_files "$RP"
{ pcap_hdr 0xa1b2c3d4 1; pcap_rec 13 13; } >"$RP/short.pcap"

check "rcgen --help: exit 0" 0 "$RG" --help
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
	if capture_own rx; then
		same_frames "txsmall: the very frames --to sends, in order" \
			"$TMP/rx.pcap" "$TMP/txsmall.pcap"
	else
		not_ok "txsmall: the frames --to sends, to compare with" \
			"$TMP/rx.err"
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
