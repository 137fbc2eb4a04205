#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The pcapng writer (tools/pcapng.c, tools/zsink.c) read back by
# Wireshark's own readers: pcapng_write makes a file of known content
# (see its header) plain, gzip- and zstd-compressed, and tshark and
# capinfos must find every block and option in it: both interfaces with
# nanosecond resolution, every packet's bytes, lengths, time, queue,
# direction and drop count, and both statistics blocks. Skipped, loudly,
# without tshark. TAP.
#
#   BIN=userland/build/bin TESTBIN=userland/build/tests test_pcapng.sh

set -u
TESTBIN=${TESTBIN:-$(dirname "$0")/../build/tests}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. "$(dirname "$0")/tap.sh"
N=300

if ! command -v tshark >/dev/null || ! command -v capinfos >/dev/null; then
	skip "tshark and capinfos are not installed (Debian: tshark), so no reader can check the files"
	tap_end
fi
# tshark warns about running as root on stderr; nothing else is read there.
TS="tshark -o gui.console_open:never"

# What every packet must show, from pcapng_write's rules:
# number, interface, queue, drop count, direction, length, caplen, time.
awk -v n=$N 'BEGIN {
	for (i = 0; i < n; i++) {
		len = 60 + i % 100; cap = len < 96 ? len : 96
		ns = i * 1001
		printf "%d\t%s\t%d\t%s\t0x00000001\t%d\t%d\t1700000000.%09d\n",
		       i + 1, i % 2 ? "rc1@1" : "rc0", i % 2 ? 1 : i % 4,
		       i % 7 ? i % 7 : "", len, cap, ns
	}
}' >"$TMP/want"

for f in t.pcapng t.pcapng.gz t.pcapng.zst; do
	p="$TMP/$f"
	if ! "$TESTBIN/pcapng_write" "$p" $N 2>"$TMP/err"; then
		not_ok "$f: written" "$TMP/err"
		continue
	fi
	case $f in
	*.gz) gzip -t "$p" 2>"$TMP/err" && ok "$f: a whole gzip stream" ||
		not_ok "$f: a whole gzip stream" "$TMP/err" ;;
	*.zst) zstd -q -t "$p" 2>"$TMP/err" && ok "$f: a whole zstd frame" ||
		not_ok "$f: a whole zstd frame" "$TMP/err" ;;
	*) ok "$f: written" ;;
	esac

	capinfos "$p" >"$TMP/ci" 2>&1
	if grep -q "Number of packets: *$N\$" "$TMP/ci" &&
	   grep -q 'Number of interfaces in file: 2' "$TMP/ci" &&
	   [ "$(grep -c 'Time precision = nanoseconds (9)' "$TMP/ci")" = 2 ] &&
	   [ "$(grep -c 'Number of stat entries = 1' "$TMP/ci")" = 2 ] &&
	   grep -q 'Capture application: pcapng_write' "$TMP/ci" &&
	   grep -q 'Filter string = udp' "$TMP/ci"; then
		ok "$f: capinfos: $N packets, 2 interfaces at 1 ns, 1 statistics block each"
	else
		not_ok "$f: capinfos" "$TMP/ci"
	fi

	$TS -r "$p" -T fields -e frame.number -e frame.interface_name \
		-e frame.interface_queue -e frame.drop_count \
		-e frame.packet_flags_direction -e frame.len -e frame.cap_len \
		-e frame.time_epoch >"$TMP/got" 2>"$TMP/err"
	if cmp -s "$TMP/want" "$TMP/got"; then
		ok "$f: every packet's interface, queue, drop count, direction, lengths and time"
	else
		diff "$TMP/want" "$TMP/got" | head -n 20 >"$TMP/diff"
		cat "$TMP/err" >>"$TMP/diff"
		not_ok "$f: packets as written" "$TMP/diff"
	fi

	# Bytes: frame i is (i + j) & 0xff for j below its caplen.
	$TS -r "$p" -x 2>/dev/null | awk -v n=$N '
		/^[0-9a-f][0-9a-f][0-9a-f][0-9a-f]  / {
			# 16 bytes at most, then the ASCII column
			m = split(substr($0, 7, 47), b, " ")
			for (k = 1; k <= m; k++)
				bytes = bytes b[k]
			next
		}
		/^$/ { if (bytes != "") { got[f++] = bytes; bytes = "" } }
		END {
			if (bytes != "") got[f++] = bytes
			if (f != n) { print "frames dumped: " f; exit 1 }
			for (i = 0; i < n; i++) {
				len = 60 + i % 100; cap = len < 96 ? len : 96
				w = ""
				for (j = 0; j < cap; j++)
					w = w sprintf("%02x", (i + j) % 256)
				if (got[i] != w) { print "frame " i ": " got[i]; exit 1 }
			}
		}' >"$TMP/bytes" 2>&1
	if [ $? = 0 ]; then
		ok "$f: every packet's bytes"
	else
		not_ok "$f: packet bytes" "$TMP/bytes"
	fi

	# The statistics blocks, one per interface, in order.
	$TS -r "$p" -X 'read_format:MIME Files Format' -T fields \
		-e pcapng.options.option.data.interface.received \
		-e pcapng.options.option.data.interface.dropped \
		-e pcapng.options.option.data.interface.accepted_by_filter \
		-e pcapng.options.option.data.interface.dropped_by_os \
		-e pcapng.options.option.data.interface.delivered_to_user \
		>"$TMP/isb" 2>"$TMP/err"
	printf '1000,1001\t10,11\t900,901\t20,21\t%d,%d\n' $((N / 2)) $((N / 2)) \
		>"$TMP/isb_want"
	if cmp -s "$TMP/isb" "$TMP/isb_want"; then
		ok "$f: statistics: ifrecv, ifdrop, filteraccept, osdrop, usrdeliv"
	else
		{ echo "want:"; cat "$TMP/isb_want"; echo "got:"; cat "$TMP/isb" "$TMP/err"; } >"$TMP/diff"
		not_ok "$f: statistics blocks" "$TMP/diff"
	fi
done
tap_end
