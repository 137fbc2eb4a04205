#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ringcount's wake-up defaults against the real module, on a sim device:
# by default it wakes once the full frames that fill a quarter of its ring
# have come (libringcap's ringcap_batch_watermark), not every 64 frames,
# and it still counts the frames no wake-up has announced when a signal
# or -d ends it; -W N keeps its meaning. And -w FILE: a pcapng file, read
# back with tshark and capinfos, that says where frames were lost (each
# gap the jump in sequence numbers before the packet after it) and ends
# with the socket's counters; with -S, a series of such files.
#
# Runs in a guest as root, after run_guest.sh loaded ringcap and
# ringcap_sim; uses the installed ringcount.
#
#   RC_BIN   test programs (default: build/bin next to this script)
#
# Output: TAP. Exit status: 0 all passed, 1 a test failed, 4 skipped.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
BIN=${RC_BIN:-$here/build/bin}
SIM=rctools0
# Below the default watermark of a 4 MiB ring (672), above what ringcount
# takes from the ring at once (256): only the count at the end gets all.
FRAMES=500
PLAN=5

n=0
failed=0
skipped=0
tmp=$(mktemp -d)
rc_pid=

cleanup() {
	[ -z "$rc_pid" ] || kill -KILL "$rc_pid" 2>/dev/null || true
	ip link del "$SIM" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "TAP version 13"
echo "1..$PLAN"
command -v ringcount >/dev/null || skip_all tools "no ringcount installed"
[ -x "$BIN/rc_inject" ] || skip_all tools "no $BIN/rc_inject (make -C selftests)"
ip link add "$SIM" type ringcap_sim || skip_all tools "no ringcap_sim device"
sysctl -qw "net.ipv6.conf.$SIM.disable_ipv6=1" 2>/dev/null || true
ip link set "$SIM" up

# rc_start [ringcount options]: ringcount on $SIM with a 4 MiB ring and no
# timer (-t 0), so that only the watermark wakes it; returns once bound
rc_start() {
	ringcount -q -i "$SIM" -r 4M -t 0 "$@" >"$tmp/rc" 2>&1 &
	rc_pid=$!
	wait_for 30 eval '[ -n "$(proc_line "$rc_pid")" ]' ||
		{ msg="ringcount did not bind: $(cat "$tmp/rc")"; return 1; }
}
# feed: $FRAMES frames into $SIM, then until the socket has received them
feed() {
	"$BIN/rc_inject" -d "$SIM" -n "$FRAMES" -s 0 -q 0 -l 60 >/dev/null
	wait_for 30 eval '[ "$(proc_field "$rc_pid" 6)" -ge "$FRAMES" ]'
}
# rc_end [SIGNAL]: stop it (or let -d end it), and let it run again if it
# was stopped; $cap is what its summary says it captured
rc_end() {
	[ -z "${1:-}" ] || kill "-$1" "$rc_pid"
	kill -CONT "$rc_pid" 2>/dev/null || true
	wait "$rc_pid" || true
	rc_pid=
	cap=$(kv captured "$(grep '^ringcount:' "$tmp/rc" || true)")
	msg+=", captured ${cap:-none} of $FRAMES"
}

# The reader is stopped while the frames come, so that neither a wake-up
# nor its own once-a-second poll timeout can read them first.
batch_then_sigint() {
	local wk
	rc_start || return 1
	kill -STOP "$rc_pid"
	feed || { msg="the socket received $(proc_field "$rc_pid" 6) of $FRAMES"; rc_end INT; return 1; }
	wk=$(proc_field "$rc_pid" 9)
	msg="wake-ups $wk"
	rc_end INT
	[ "$wk" = 0 ] && [ "$cap" = "$FRAMES" ]
}
batch_then_duration() {
	local wk t0=$SECONDS
	rc_start -d 4 || return 1
	kill -STOP "$rc_pid"
	feed || { msg="the socket received $(proc_field "$rc_pid" 6) of $FRAMES"; rc_end INT; return 1; }
	wk=$(proc_field "$rc_pid" 9)
	msg="wake-ups $wk"
	# Past the deadline: resumed, it reads one batch and ends.
	sleep $((t0 + 6 - SECONDS > 0 ? t0 + 6 - SECONDS : 0))
	rc_end
	[ "$wk" = 0 ] && [ "$cap" = "$FRAMES" ]
}
explicit_watermark() {
	local wk
	rc_start -W 64 || return 1
	feed || { msg="the socket received $(proc_field "$rc_pid" 6) of $FRAMES"; rc_end INT; return 1; }
	sleep 1
	wk=$(proc_field "$rc_pid" 9)
	msg="wake-ups $wk"
	rc_end INT
	# A signal while the reader is awake wakes nobody (module/wakeup.c).
	[ "$wk" -ge 1 ] && [ "$wk" -le $((FRAMES / 64)) ] && [ "$cap" = "$FRAMES" ]
}

# A burst overflows the smallest ring while the reader is stopped; a few
# frames after it carry the last gap. The file, zstd-compressed, must say
# exactly what the socket counted.
isb() {
	tshark -r "$1" -X 'read_format:MIME Files Format' -T fields \
		-e "pcapng.options.option.data.interface.$2" 2>/dev/null
}
pcapng_gaps() {
	local f=$tmp/gaps.pcapng.zst line d c jumps sum
	ringcount -q -i "$SIM" -r 16k -W 1 -t 0 -w "$f" >"$tmp/rc" 2>&1 &
	rc_pid=$!
	wait_for 30 eval '[ -n "$(proc_line "$rc_pid")" ]' ||
		{ msg="ringcount did not bind: $(cat "$tmp/rc")"; return 1; }
	kill -STOP "$rc_pid"
	"$BIN/rc_inject" -d "$SIM" -n "$FRAMES" -s 0 -q 0 -l 60 >/dev/null
	wait_for 30 eval '[ $(($(proc_field "$rc_pid" 6) + $(proc_field "$rc_pid" 7))) -ge $FRAMES ]' ||
		{ msg="the socket saw fewer than $FRAMES frames"; rc_end INT; return 1; }
	kill -CONT "$rc_pid"
	sleep 1
	"$BIN/rc_inject" -d "$SIM" -n 5 -s "$FRAMES" -q 0 -l 60 >/dev/null
	wait_for 30 eval '[ $(($(proc_field "$rc_pid" 6) + $(proc_field "$rc_pid" 7))) -ge $((FRAMES + 5)) ]'
	sleep 1
	kill -INT "$rc_pid"
	wait "$rc_pid" || true
	rc_pid=
	line=$(grep '^ringcount:' "$tmp/rc" || true)
	c=$(kv captured "$line")
	d=$(kv dropped "$line")
	msg="summary: ${line:-none}"
	[ -n "$d" ] && [ "$d" -gt 0 ] && [ "$(kv gap_lost "$line")" = "$d" ] &&
		[ $((c + d)) = $((FRAMES + 5)) ] || return 1
	# Each packet: its drop count, and its sequence number (bytes 22-25).
	tshark -r "$f" -T fields -e frame.drop_count -e data.data \
		>"$tmp/pkts" 2>"$tmp/tshark.err" ||
		{ msg+="; tshark: $(head -n 3 "$tmp/tshark.err")"; return 1; }
	jumps=$(awk -F'\t' '{
			seq = 0; h = substr($2, 17, 8)
			for (i = 1; i <= 8; i++)
				seq = seq * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
			if (($1 == "" ? 0 : $1) != seq - prev) bad++
			prev = seq + 1; sum += $1; n++
		} END { printf "%d %d %d", n, sum, bad }' "$tmp/pkts")
	msg+="; file: packets, drop_count sum, misplaced gaps: $jumps"
	[ "$jumps" = "$c $d 0" ] || return 1
	sum="$(isb "$f" dropped_by_os) $(isb "$f" delivered_to_user) $(isb "$f" accepted_by_filter) $(isb "$f" received) $(isb "$f" dropped)"
	msg+="; ISB osdrop usrdeliv filteraccept ifrecv ifdrop: $sum"
	[ "$sum" = "$d $c $((c + d)) $((c + d)) 0" ] || return 1
	capinfos "$f" >"$tmp/ci" 2>&1
	grep -q "Number of packets: *$c\$" "$tmp/ci" &&
		grep -q 'zstd compressed' "$tmp/ci" ||
		{ msg+="; capinfos: $(tr '\n' ' ' <"$tmp/ci" | head -c 300)"; return 1; }
}

# ringcount -S: a series of zstd pcapng files, each whole (tshark reads it
# alone) and ending with the counters so far; together every frame once,
# in order.
rotating_files() {
	local f line files k s got=0 seqs usr last=-1
	rc_start -W 1 -S 16k -w "$tmp/rot.pcapng.zst" || return 1
	"$BIN/rc_inject" -d "$SIM" -n "$FRAMES" -s 0 -q 0 -l 200 >/dev/null
	wait_for 30 eval '[ "$(proc_field "$rc_pid" 6)" -ge "$FRAMES" ]' ||
		{ msg="the socket received $(proc_field "$rc_pid" 6) of $FRAMES"; rc_end INT; return 1; }
	sleep 1
	rc_end INT
	line=$(grep '^ringcount:' "$tmp/rc" || true)
	files=$(kv files "$line")
	msg="summary: ${line:-none}"
	[ -n "$files" ] && [ "$files" -ge 3 ] &&
		[ "$(ls "$tmp"/rot-*.pcapng.zst | wc -l)" = "$files" ] || return 1
	for ((k = 1; k <= files; k++)); do
		f=$(printf '%s/rot-%05d.pcapng.zst' "$tmp" "$k")
		seqs=$(tshark -r "$f" -T fields -e data.data 2>"$tmp/tshark.err" |
			awk '{ h = substr($1, 17, 8); s = 0
				for (i = 1; i <= 8; i++)
					s = s * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
				print s }') ||
			{ msg+="; $f: $(head -n 2 "$tmp/tshark.err")"; return 1; }
		for s in $seqs; do
			[ "$s" = $((last + 1)) ] || { msg+="; $f: seq $s after $last"; return 1; }
			last=$s got=$((got + 1))
		done
		usr=$(isb "$f" delivered_to_user)
		[ "$usr" = "$got" ] || { msg+="; $f: ISB usrdeliv ${usr:-none}, $got frames so far"; return 1; }
	done
	msg+="; $files files, $got frames"
	[ "$got" = "$FRAMES" ]
}

tcase "ringcount's default watermark: $FRAMES frames wake it never; SIGINT still counts them all" batch_then_sigint
tcase "the same when -d ends it" batch_then_duration
tcase "ringcount -W 64: $FRAMES frames, 1 to $((FRAMES / 64)) wake-ups, all counted" explicit_watermark
if command -v tshark >/dev/null && command -v capinfos >/dev/null; then
	tcase "ringcount -w FILE.pcapng.zst: every gap where the frames were lost, the counters at the end, read by tshark" pcapng_gaps
	tcase "ringcount -S 16k: a series of whole zstd pcapng files, each with the counters so far; every frame once, in order" rotating_files
else
	result 4 "ringcount -w FILE.pcapng.zst" "tshark and capinfos are not installed (Debian: tshark): nothing could read the file"
	result 4 "ringcount -S" "tshark is not installed (Debian: tshark): nothing could read the files"
fi

[ "$failed" = 0 ] || exit 1
[ "$skipped" = 0 ] || exit 4
exit 0
