#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The XDP link a reader hands over (RINGCAP_XDP_LINK) and every way it or
# its program can go away while the module holds it: the program's fd
# closed, the link detached (BPF_LINK_DETACH), given another program
# (BPF_LINK_UPDATE, which frees the old program and its map), the device
# deleted; each followed by transparent_mode writes, device deletion and
# close, which must neither touch freed memory nor oops. Then the links
# the module must refuse (attached to another device), the same ways away
# for the copy program's link (no map; the module holds its program),
# and the log lines an unprivileged user can cause (uid nobody, its own
# user and network namespace).
#
# rc_xdplink (selftests/rc_xdplink.c) does the BPF side. Each run of it
# has a deadline: a module that oopses holding rtnl wedges every later
# rtnl user, so a stuck run fails the case, the remaining cases are not
# run, and nothing else here touches rtnl (no cleanup: the guest is lost).
#
# Runs in a guest as root, after run_guest.sh loaded ringcap; uses ip,
# unshare and setpriv. Leaves transparent_mode at 0.
#
#   RC_BIN       where rc_xdplink is (default: selftests/build/bin)
#   RC_XDP_OBJ   libringcap's XDP program object (default: its build)
#   RC_XDP_COPY_OBJ  its copy program's object (default: beside it)
#
# Output: TAP. Exit status: 0 all passed, 1 a test failed, 4 skipped.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
BIN=${RC_BIN:-$here/build/bin}
OBJ=${RC_XDP_OBJ:-$here/../userland/build/obj/lib/bpf/ringcap_xdp.bpf.o}
COPY=${RC_XDP_COPY_OBJ:-$(dirname "$OBJ")/ringcap_xdp_copy.bpf.o}
MODE=/sys/module/ringcap/parameters/transparent_mode
DEV=xl0
PEER=xl1
OTHER=xm0
OPEER=xm1
DEADLINE=60	# seconds for one rc_xdplink run; a few under TCG
SPAM=300
PLAN=15
# RINGCAP_PATH numbers (<linux/ringcap.h>) and ENOLINK
P_XDP="path: 3 why 0 error 0"
P_COPY="path: 5 why 0 error 0"
P_GONE="path: 1 why 3 error 67"

n=0
failed=0
skipped=0
wedged=
tmp=$(mktemp -d)
chmod 755 "$tmp"	# uid nobody runs a copy of rc_xdplink from here

cleanup() {
	# After a wedge every rtnl user hangs: leave the guest as it is.
	if [ -z "$wedged" ]; then
		echo 0 >"$MODE" 2>/dev/null || true
		ip link del "$DEV" 2>/dev/null || true
		ip link del "$OTHER" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "TAP version 13"
echo "1..$PLAN"
for t in ip unshare setpriv; do
	command -v "$t" >/dev/null || skip_all xdp_link "no $t"
done
[ -x "$BIN/rc_xdplink" ] || skip_all xdp_link "no $BIN/rc_xdplink (make -C selftests)"
[ -f "$OBJ" ] || skip_all xdp_link "no XDP object $OBJ (make -C userland)"
loaded ringcap || skip_all xdp_link "ringcap is not loaded"

# Two veth pairs, up: the link goes on $DEV, or on $OTHER to be foreign.
veth_up() {
	ip link add "$1" type veth peer name "$2"
	ip link set "$1" up
	ip link set "$2" up
}
has_xdp() { grep -q 'prog/xdp' <(ip -d link show "$1"); }
no_xdp() { ! has_xdp "$1"; }

# xl DEV STEP...: run rc_xdplink with the deadline; its lines in $out.
# 0 if it ran to its end, 1 if it failed or (setting $wedged) got stuck.
xl() {
	local dev=$1 pid
	shift
	"$BIN/rc_xdplink" "$OBJ" "$dev" "$@" >"$tmp/xl" 2>"$tmp/xl.err" &
	pid=$!
	if ! wait_for "$DEADLINE" eval "! kill -0 $pid"; then
		wedged="rc_xdplink stuck for ${DEADLINE} s after \"$(tail -n 1 "$tmp/xl")\": rtnl held by a dead task?"
		broken=$wedged
		out=$(cat "$tmp/xl")
		msg="$wedged $(grep -m 1 -E 'BUG:|Oops' <(dmesg) || true)"
		return 1
	fi
	wait "$pid" || true
	out=$(cat "$tmp/xl")
	grep -qx end <<<"$out" && return 0
	msg="rc_xdplink: $(tail -n 1 "$tmp/xl") $(tail -n 1 "$tmp/xl.err")"
	return 1
}
# got STEP: what step STEP printed
got() { sed -n "s/^$1: //p" <<<"$out" | tail -n 1; }
# The steps' lines, for the TAP message.
said() { tr '\n' ';' <<<"$out" | sed 's/;$//'; }
no_bug() { ! grep -Eq "BUG:|WARNING:|Oops|general protection" <(dmesg); }

veth_up "$DEV" "$PEER"
veth_up "$OTHER" "$OPEER"
echo 2 >"$MODE"

# 1: the baseline. libringcap closes the program's fd once the link is
# made; the link holds the program, and the module its own references.
prog_closed() {
	xl "$DEV" bind link closeprog spray mode=0 mode=2 path sprayed close || return 1
	msg=$(said)
	[ "$(got link)" = 0 ] && [ "path: $(got path)" = "$P_XDP" ] &&
		[ "$(got sprayed)" = "0 written" ] && wait_for 10 no_xdp "$DEV" || return 1
	no_bug || { msg+="; kernel log: $(grep -m 1 -E 'BUG:|WARNING:|Oops' <(dmesg))"; return 1; }
}
tcase "program fd closed: the link still runs; mode writes and close are clean, program gone" prog_closed

# 2: BPF_LINK_UPDATE puts the old program; its last reference was the
# link's, so it goes and its map with it, unless the module holds them.
# The freed map's memory may come back as one of the sprayed maps: the
# module must write none of them, must see that its program no longer
# runs (the path falls back to the hook: ENOLINK), and device deletion
# and close after that must be clean.
updated() {
	xl "$DEV" bind link closeprog update spray mode=0 mode=2 path sprayed \
		mode=0 mode=2 deldev mode=0 mode=2 close || return 1
	msg=$(said)
	[ "$(got link)" = 0 ] && [ "path: $(got path)" = "$P_GONE" ] &&
		[ "$(got sprayed)" = "0 written" ] && [ "$(got deldev)" = 0 ] || return 1
	no_bug || { msg+="; kernel log: $(grep -m 1 -E 'BUG:|WARNING:|Oops' <(dmesg))"; return 1; }
}
tcase "BPF_LINK_UPDATE under a bound socket: no write to freed memory, path falls back (ENOLINK); deletion, close clean" updated
[ -n "$wedged" ] || { ip link del "$DEV" 2>/dev/null || true; veth_up "$DEV" "$PEER"; }

# 3: BPF_LINK_DETACH leaves the link without a device: nothing runs the
# program any more, and the path must say so.
detached() {
	xl "$DEV" bind link closeprog detach mode=0 mode=2 path close || return 1
	msg=$(said)
	[ "$(got link)" = 0 ] && [ "path: $(got path)" = "$P_GONE" ] &&
		no_xdp "$DEV" && no_bug
}
tcase "BPF_LINK_DETACH under a bound socket: path falls back (ENOLINK), nothing attached, close clean" detached

# 4: the same with the reader's link fd closed first: the module's is
# then the link's last reference, and letting it go releases the link
# (which takes rtnl) from the module's work item, not under rtnl.
update_closelink() {
	xl "$DEV" bind link closeprog update closelink spray mode=0 mode=2 path sprayed close || return 1
	msg=$(said)
	[ "$(got link)" = 0 ] && [ "path: $(got path)" = "$P_GONE" ] &&
		[ "$(got sprayed)" = "0 written" ] && wait_for 10 no_xdp "$DEV" && no_bug
}
tcase "BPF_LINK_UPDATE, link fd closed: no write to freed memory, the link released, program gone" update_closelink

# 5: the device goes with the link on it; then mode writes and close.
dev_deleted() {
	xl "$DEV" bind link closeprog deldev mode=0 mode=2 close || return 1
	msg=$(said)
	[ "$(got deldev)" = 0 ] && no_bug
}
tcase "device deleted under the link: mode writes and close after it are clean" dev_deleted
[ -n "$wedged" ] || { ip link del "$DEV" 2>/dev/null || true; veth_up "$DEV" "$PEER"; }

# 6: a link the module must refuse (EINVAL), leaving its map alone.
foreign() {
	xl "$DEV" bind "link=$OTHER" cfg path close || return 1
	msg=$(said)
	[ "$(got link)" = -EINVAL ] && [ "$(got cfg)" = "0 set" ] &&
		[ "$(got path)" != "${P_XDP#path: }" ]
}
tcase "a link attached to another device is refused (EINVAL), its map untouched" foreign

# 7-12: the copy program's link. It has no map: the module holds the
# link's file and the program (bpf_prog_inc), and must let both go on
# the same events. Without module BTF there is no kfunc and no copy path.
copy_ready() {
	[ -e /sys/kernel/btf/ringcap ] || { msg="no module BTF (/sys/kernel/btf/ringcap): no kfunc, the copy path cannot run"; return 4; }
	[ -f "$COPY" ] || { msg="no copy program object $COPY (make -C userland)"; return 4; }
}
copy_closed() {
	copy_ready || return
	xl "$DEV" bind "copy=$COPY" link closeprog mode=0 mode=2 path close || return 1
	msg=$(said)
	[ "$(got link)" = 0 ] && [ "path: $(got path)" = "$P_COPY" ] &&
		wait_for 10 no_xdp "$DEV" && no_bug
}
tcase "copy program: program fd closed, the link still runs (xdp-copy); mode writes and close are clean, program gone" copy_closed

# BPF_LINK_UPDATE: the old program's last reference is the module's; it
# must see that the program no longer runs and let it go.
copy_updated() {
	copy_ready || return
	xl "$DEV" bind "copy=$COPY" link closeprog update mode=0 mode=2 path \
		sleep=1000 prog deldev close || return 1
	msg=$(said)
	[ "$(got link)" = 0 ] && [ "path: $(got path)" = "$P_GONE" ] &&
		[ "$(got prog)" = freed ] && [ "$(got deldev)" = 0 ] && no_bug
}
tcase "copy program: BPF_LINK_UPDATE under a bound socket: path falls back (ENOLINK), the old program freed; deletion, close clean" copy_updated
[ -n "$wedged" ] || { ip link del "$DEV" 2>/dev/null || true; veth_up "$DEV" "$PEER"; }

copy_detached() {
	copy_ready || return
	xl "$DEV" bind "copy=$COPY" link closeprog detach mode=0 mode=2 path close || return 1
	msg=$(said)
	[ "$(got link)" = 0 ] && [ "path: $(got path)" = "$P_GONE" ] &&
		no_xdp "$DEV" && no_bug
}
tcase "copy program: BPF_LINK_DETACH under a bound socket: path falls back (ENOLINK), nothing attached" copy_detached

copy_deleted() {
	copy_ready || return
	xl "$DEV" bind "copy=$COPY" link closeprog deldev mode=0 mode=2 close || return 1
	msg=$(said)
	[ "$(got link)" = 0 ] && [ "$(got deldev)" = 0 ] && no_bug
}
tcase "copy program: device deleted under the link: mode writes and close after it are clean" copy_deleted
[ -n "$wedged" ] || { ip link del "$DEV" 2>/dev/null || true; veth_up "$DEV" "$PEER"; }

# The copy flag on a program with a map (the redirect one): refused,
# whether or not the module has the kfunc, and its map left alone.
copy_flag_refused() {
	xl "$DEV" bind copyflag link cfg path close || return 1
	msg=$(said)
	[ "$(got link)" = -EINVAL ] && [ "$(got cfg)" = "0 set" ] &&
		[ "$(got path)" != "${P_XDP#path: }" ] && [ "$(got path)" != "${P_COPY#path: }" ]
}
tcase "RINGCAP_XDP_LINK_COPY on a program with a map is refused (EINVAL), its map untouched" copy_flag_refused

# The copy flag on a mapless program that does not call the kfunc: it
# would capture nothing while the path said xdp-copy.
copy_impostor() {
	copy_ready || return
	xl "$DEV" bind passlink path close || return 1
	msg=$(said)
	[ "$(got passlink)" = -EINVAL ] && [ "$(got path)" != "${P_COPY#path: }" ]
}
tcase "RINGCAP_XDP_LINK_COPY on a mapless program that does not call the kfunc is refused (EINVAL)" copy_impostor

# 13: uid nobody, with CAP_NET_ADMIN over its own namespaces only: binds
# on lo in mode 2 (no native XDP) and reports a failed attach $SPAM times
# each. The module rate limits these lines: at most 10 per 5 s, and one
# "callbacks suppressed" line per 5 s.
log_bounded() {
	local before after t0 secs allowed pid
	cp "$BIN/rc_xdplink" "$tmp/"
	chmod 755 "$tmp/rc_xdplink"
	if ! setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Urn true 2>"$tmp/us.err"; then
		msg="no user namespace for uid nobody: $(cat "$tmp/us.err")"
		[ "${RC_REQUIRE:-0}" = 1 ] && return 1
		return 4
	fi
	# The kernel's own "entered/left promiscuous mode" lines come with
	# every promiscuous bind, as with AF_PACKET's PACKET_MR_PROMISC:
	# only ringcap's lines are counted.
	before=$(grep -vc "promiscuous mode" <(dmesg))
	t0=$(now_ms)
	setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Urn \
		sh -c 'ip link set lo up && exec "$@"' sh \
		"$tmp/rc_xdplink" "$OBJ" lo "spam=$SPAM" >"$tmp/xl" 2>&1 &
	pid=$!
	wait_for "$DEADLINE" eval "! kill -0 $pid" || { msg="stuck: $(cat "$tmp/xl")"; return 1; }
	wait "$pid" || true
	secs=$((($(now_ms) - t0) / 1000))
	after=$(grep -vc "promiscuous mode" <(dmesg))
	allowed=$((11 * (secs / 5 + 1)))
	msg="$((after - before)) new kernel log lines in ${secs} s for $((2 * SPAM)) calls, $allowed allowed; $(tail -n 1 "$tmp/xl")"
	grep -qx "spam: $SPAM" "$tmp/xl" && [ $((after - before)) -le "$allowed" ]
}
tcase "uid nobody in its own user+net namespace: $((2 * SPAM)) calls cost a bounded number of log lines" log_bounded

check "no socket left in /proc/net/ringcap" eval '[ "$(awk "NR > 2" /proc/net/ringcap | wc -l)" = 0 ]'
check "no oops, warning or BUG in the kernel log" eval '! grep -Eq "BUG:|WARNING:|Oops|kmemleak: [1-9]" <(dmesg)'

echo "# $n run, $failed failed, $skipped skipped"
[ "$failed" = 0 ] || exit 1
[ "$skipped" = 0 ] || exit 4
exit 0
