# SPDX-License-Identifier: GPL-2.0
#
# Memory and leak records for selftests/soak/soak.sh; sourced, never run.
#
#   mem_settle          give back what can be given back before a record:
#                       drop caches, shrink every slab cache, wait until
#                       SUnreclaim stops moving
#   mem_record NAME     save /proc/meminfo, /proc/vmstat and the slab list
#                       (/proc/slabinfo, else /sys/kernel/slab) as
#                       $ART/NAME.{meminfo,vmstat,slab}
#   mem_kb NAME KEY     a /proc/meminfo field (kB) of record NAME
#   vm_pages NAME KEY   a /proc/vmstat field of record NAME
#   kml_have            the kernel has kmemleak
#   kml_forget          scan, then forget every object reported so far
#   kml_report FILE     scan (twice: kmemleak reports an object only once
#                       it is 5 s old and was unreferenced in a scan) and
#                       save the report; sets KML_ALL (objects reported)
#                       and KML_OURS (those whose allocation backtrace
#                       has a frame in ringcap or ringcap_e1000e)
#
# Needs lib.sh (steady) and $ART.

KMEMLEAK=/sys/kernel/debug/kmemleak

mem_field() { awk -v k="$1:" '$1 == k {print $2}' /proc/meminfo; }

mem_settle() {
	local f
	sync
	echo 3 >/proc/sys/vm/drop_caches
	for f in /sys/kernel/slab/*/shrink; do
		echo 1 >"$f" 2>/dev/null || true
	done
	# Sockets and rings are freed after RCU grace periods and by
	# workqueues: wait until the counter holds still for 2 s.
	steady 2 mem_field SUnreclaim || true
}

mem_record() {
	local f
	cp /proc/meminfo "$ART/$1.meminfo"
	cp /proc/vmstat "$ART/$1.vmstat"
	if [ -r /proc/slabinfo ]; then
		cp /proc/slabinfo "$ART/$1.slab"
	else
		for f in /sys/kernel/slab/*/; do
			[ -L "${f%/}" ] && continue
			echo "$(basename "$f") objects $(cut -d' ' -f1 "$f/objects") slabs $(cut -d' ' -f1 "$f/slabs") order $(cat "$f/order")"
		done >"$ART/$1.slab"
	fi
}

mem_kb() { awk -v k="$2:" '$1 == k {print $2}' "$ART/$1.meminfo"; }
vm_pages() { awk -v k="$2" '$1 == k {print $2}' "$ART/$1.vmstat"; }

kml_have() { [ -w "$KMEMLEAK" ]; }
kml_forget() {
	echo scan >"$KMEMLEAK"
	echo clear >"$KMEMLEAK"
}
kml_report() {
	sleep 6
	echo scan >"$KMEMLEAK"
	sleep 6
	echo scan >"$KMEMLEAK"
	cat "$KMEMLEAK" >"$1"
	KML_ALL=$(grep -c '^unreferenced object' "$1" || true)
	# One record per object; ours if a frame names a symbol of ours or
	# either module.
	KML_OURS=$(awk '
		/^unreferenced object/ { if (ours) n++; ours = 0; next }
		/\[ringcap(_e1000e)?\]|[ <]ringcap_|[ <]rce_/ { ours = 1 }
		END { if (ours) n++; print n + 0 }' "$1")
}
