#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ringcount and ringstat as a user meets them without the module: help,
# usage errors (exit 2), "module not loaded" (exit 1), and ringstat on a
# sample of /proc/net/ringcap, including a column it does not know. TAP.
#
#   BIN=userland/build/bin userland/tests/test_tools.sh

set -u
BIN=${BIN:-$(dirname "$0")/../build/bin}
RC="$BIN/ringcount"
RS="$BIN/ringstat"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. "$(dirname "$0")/tap.sh"

check "ringcount --help exits 0" 0 "$RC" --help
grep_check "ringcount --help shows usage" out "^Usage: ringcount -i DEV"
grep_check "ringcount --help shows -z" out "^  -z, --zero-copy "
check "ringcount -h exits 0" 0 "$RC" -h
for args in "" "-i" "-i eth0 -c 0" "-i eth0 -d -1" "-i eth0 -s 0" \
	    "-i eth0 -s 65536" "-i eth0 -W 0" "-i eth0 -t 10000001" \
	    "-i eth0 -r 4095" "-i eth0 -r 5000" "-i eth0@x" "-i eth0@" \
	    "-i @1" "-i eth0 junk" "-x" "--no-such-option"; do
	# shellcheck disable=SC2086 # word splitting wanted
	check "ringcount ${args:-(no arguments)}: exit 2" 2 "$RC" $args
done
grep_check "a usage error points to --help" err "Try 'ringcount --help'"
check "ringcount -z without a queue: exit 2" 2 "$RC" -i eth0 -z
grep_check "... saying that zero-copy needs one queue, named as DEV@Q" err \
	"^ringcount: -z: zero-copy needs one RX queue: name it as eth0@Q$"
check "ringcount --zero-copy on eth0@all: exit 2" 2 "$RC" -i eth0@all \
	--zero-copy
check "ringcount -z with -C: exit 2" 2 "$RC" -i eth0@1 -z -C 3
grep_check "... saying the two do not go together" err \
	"^ringcount: -z and -C do not go together"

if [ -e /sys/module/ringcap ]; then
	skip "ringcap is loaded: cannot test its absence"
else
	check "ringcount without the module: exit 1" 1 "$RC" -i lo -q -c 1
	grep_check "... saying so" err \
		"ringcap module not loaded \(no /sys/module/ringcap\)"
fi

check "ringstat --help exits 0" 0 "$RS" --help
for args in "-x" "-i" "-i 0" "-i abc" "-c 2" "-i 1 -c 0" "extra" \
	    "--delete" "--delete x -i 1" "--delete x -f /dev/null"; do
	# shellcheck disable=SC2086
	check "ringstat $args: exit 2" 2 "$RS" $args
done
if [ -e /proc/net/ringcap ]; then
	skip "ringcap is loaded: cannot test its absence"
else
	check "ringstat without the module: exit 1" 1 "$RS"
	grep_check "... saying so" err "ringcap module not loaded"
	check "ringstat --delete without the module: exit 1" 1 "$RS" --delete x
	grep_check "... saying so" err "ringcap module not loaded"
fi
check "ringstat -f missing file: exit 1" 1 "$RS" -f "$TMP/nonexistent"

cat >"$TMP/proc" <<'PROC'
ringcap 0.1.0 abi 1 family 25 transparent_mode 2 ring_size 1048576 max_ring_mem 67108864 watermark 64 timeout_us 1000 future_knob 7
pid     inode     device          queue ring_bytes received   dropped    filtered   wakeups    bad_consumer filter newcol
1234    56789     rcsim0          all   1048576    1009       0          0          17         0            no     x
4321    777       eth0            1     4194304    123456789  42         7          1000       3            yes    y
PROC
check "ringstat -f sample: exit 0" 0 "$RS" -f "$TMP/proc"
grep_check "module line as key: value" out "^transparent_mode: +2$"
grep_check "unknown module keys are shown" out "^future_knob: +7$"
grep_check "version shown" out "^version: +0\.1\.0$"
grep_check "aligned header" out "^ pid  inode  device  queue"
grep_check "numbers right-aligned" out "^4321    777  eth0    1 +4194304  123456789"
grep_check "unknown columns are kept" out "newcol$"
check "ringstat -i 0.05 -c 2 on the sample: exit 0" 0 \
	"$RS" -f "$TMP/proc" -i 0.05 -c 2
grep_check "rates in interval mode" out "rx/s +drop/s$"
grep_check "rates are numbers on the second view" out "  0 +0$"
echo "garbage" >"$TMP/bad"
check "ringstat on a file that is not ringcap's: exit 1" 1 \
	"$RS" -f "$TMP/bad"

tap_end
