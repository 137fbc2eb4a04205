# SPDX-License-Identifier: GPL-2.0
#
# A set-up of the bench, the virtio-net NIC and the veth pair; sourced by
# scripts/bench-guest.sh, never run. A set-up is which driver has the
# NIC, ringcap's transparent mode, the library the readers go through
# and their options. Expects PARAMS and CLUSTER (config.sh), and
# scripts/guest-nic.sh sourced (nic_bind, nic_sys, gen_offer, RC_HOST;
# selftests/lib.sh's wait_for, steady, kv, iface_by_mac).
#
#   setup_enter SETUP    puts the guest in SETUP; sets dev, OFFER (the
#                        offer function), SETUP_LIB (system or ring),
#                        APP_ENV, RC_ARGS, NS_ARGS
#   rce_ring SETUP       the 82574L's RX ring size SETUP wants
#   vio_find             finds the virtio-net NIC: sets VNIC VMAC vdev
#   vio_offer FRAMES SIZE RATE FLOWS
#                        nic_offer for the virtio-net NIC
#   veth_find            makes the veth pair of the veth part
#   veth_offer FRAMES SIZE RATE FLOWS
#                        its offer: the peer sends into the capture end
#   xdp_attached, xdp_detached
#                        whether $dev runs an XDP program

SETUP_LIB= SETUP_KIND=
OFFER=nic_offer
NS_FANOUT=(--fanout-group 1 --fanout-type hash)
APP_ENV=() RC_ARGS=() NS_ARGS=("${NS_FANOUT[@]}")
setup_enter() {
	OFFER=nic_offer APP_ENV=() RC_ARGS=() NS_ARGS=("${NS_FANOUT[@]}")
	case $1 in
	af_stock)
		nic_bind e1000e; SETUP_LIB=system ;;
	af_rce0)
		nic_bind ringcap_e1000e; echo 0 >"$PARAMS/transparent_mode"; SETUP_LIB=system ;;
	rc_m[012])
		nic_bind ringcap_e1000e; echo "${1#rc_m}" >"$PARAMS/transparent_mode"; SETUP_LIB=ring ;;
	ringcount)
		nic_bind ringcap_e1000e; echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring ;;
	rc_pcap|rc_pcapng)
		# ringcount writing every frame to a file in tmpfs, classic
		# pcap against pcapng with its options (docs/PCAPNG.md).
		nic_bind ringcap_e1000e; echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring
		RC_ARGS=(-w "$out/capture.${1#rc_}") ;;
	rc_cutoff)
		# The same pcapng file, of each flow and direction only the
		# frames within its first 1500 bytes (RINGCAP_FLOW_CUTOFF).
		nic_bind ringcap_e1000e; echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring
		RC_ARGS=(-k 1500 -w "$out/capture.pcapng") ;;
	e1k_af|e1k_fanout)
		nic_bind e1000e; echo 0 >"$PARAMS/transparent_mode"; SETUP_LIB=system ;;
	e1k_m0td)
		nic_bind e1000e; echo 0 >"$PARAMS/transparent_mode"; SETUP_LIB=ring ;;
	e1k_cluster)
		nic_bind ringcap_e1000e; echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring
		APP_ENV=("RINGCAP_CLUSTER=$CLUSTER") ;;
	e1k_rccl)
		nic_bind ringcap_e1000e; echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring
		RC_ARGS=(-C "$CLUSTER") ;;
	zc_zc|zc_zc256|zc_zc4k)
		# The mode does not matter to a zero-copy queue (its frames go
		# to its reader in every mode): 2, as zc_copy.
		nic_bind ringcap_e1000e; echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring
		RC_ARGS=(-z) ;;
	zc_copy)
		nic_bind ringcap_e1000e; echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring ;;
	zc_af)
		nic_bind e1000e; echo 0 >"$PARAMS/transparent_mode"; SETUP_LIB=system
		NS_ARGS=() ;;
	vio_*)
		vio_enter "$1" ;;
	veth_*)
		veth_enter "$1" ;;
	esac
	rce_ring "$1"
}

# zc_zc4k gives each queue of the 82574L 4096 buffers, the 8 MiB a copy
# reader's ring has, and zc_zc256 the 256 that were the default before
# 1024 (zero-copy's buffers are the queue's own, and libringcap's
# rc_zc_watermark() caps its reader's watermark at a quarter of them);
# every other set-up on ringcap_e1000e has the default, 1024.
rce_ring() {
	local want=1024 cur
	[ "$(basename "$(readlink -f "/sys/class/net/$dev/device/driver")")" = ringcap_e1000e ] ||
		return 0
	case $1 in
	zc_zc4k) want=4096 ;;
	zc_zc256) want=256 ;;
	esac
	cur=$(ethtool -g "$dev" | awk '/^Current/ { c = 1 } c && /^RX:/ { print $2; exit }')
	[ "$cur" != "$want" ] || return 0
	ethtool -G "$dev" rx "$want"
	wait_for 20 grep -qx 1 "/sys/class/net/$dev/carrier" ||
		echo "bench: $dev: no link after its RX ring went to $want" >&2
}

# ---- the virtio-net NIC ------------------------------------------------------

# Like the 82574L (scripts/guest-nic.sh), fed by the host generator: the
# first virtio-dgram NIC of `rc_host nics`, found by its MAC (its netdev
# sits under the virtio device, not the PCI function).
VNIC= VMAC= vdev=
vio_find() {
	local nics
	nics=$("$RC_HOST" nics 2>&1) || { echo "bench: rc_host nics: $nics" >&2; return 1; }
	read -r VNIC _ VMAC _ <<<"$(awk '$2 == "virtio-dgram" { print; exit }' <<<"$nics")"
	[ -n "$VNIC" ] || { echo "bench: no virtio-dgram NIC in this guest (scripts/vm/run --nic virtio-dgram)" >&2; return 1; }
	modprobe virtio_net 2>/dev/null || true
	wait_for 20 eval 'vdev=$(iface_by_mac "$VMAC")' ||
		{ echo "bench: $VNIC ($VMAC) has no interface" >&2; return 1; }
	ip link set "$vdev" up
	wait_for 20 grep -qx 1 "/sys/class/net/$vdev/carrier" ||
		{ echo "bench: $vdev: no link" >&2; return 1; }
	echo "bench: virtio-net $VNIC $VMAC is $vdev, driver $(basename "$(readlink -f "/sys/class/net/$vdev/device/driver")")"
}
# Both from ip's output, read whole: `ip | grep -q` under pipefail fails
# when ip dies of SIGPIPE, and `! xdp_attached` would pass when ip fails.
xdp_attached() { local l; l=$(ip link show dev "$dev") && grep -q 'prog/xdp' <<<"$l"; }
xdp_detached() { local l; l=$(ip link show dev "$dev") && ! grep -q 'prog/xdp' <<<"$l"; }
# What an XDP_DROP program dropped on a device: virtio_net's and veth's
# per-queue xdp_drops.
xdp_drops_of() { ethtool -S "$1" | awk '$1 ~ /xdp_drops:$/ { s += $2 } END { print s + 0 }'; }
vio_wiredrops() { "$RC_HOST" wiredrops "$VNIC" | sed -n 's/^drops=\([0-9]*\)$/\1/p' | grep .; }
# vio_offer FRAMES SIZE RATE FLOWS: nic_offer for the virtio-net NIC;
# also sets XDP_DROPS (what an XDP_DROP program dropped meanwhile). With
# PROFILE set, "$PROFILE enable|disable" brackets the generator's send
# and the draining of what it sent.
PROFILE=
vio_offer() {
	local g w0 m0 n0 x0
	w0=$(vio_wiredrops)
	m0=$(nic_sys rx_missed_errors)
	n0=$(nic_sys rx_packets)
	x0=$(xdp_drops_of "$vdev")
	[ -z "$PROFILE" ] || "$PROFILE" enable
	g=$(gen_offer "$VNIC" --dst-mac "$VMAC" --flows "$4" --size "$2" \
		--rate "$3" --count "$1")
	steady 0.5 nic_sys rx_packets || true
	[ -z "$PROFILE" ] || "$PROFILE" disable
	OFFERED=$(kv sent "$g")
	OFFER_PPS=$(kv rate_pps "$g")
	WIRE=$(($(vio_wiredrops) - w0))
	MISSED=$(($(nic_sys rx_missed_errors) - m0))
	NIC_RX=$(($(nic_sys rx_packets) - n0))
	XDP_DROPS=$(($(xdp_drops_of "$vdev") - x0))
}
# The previous set-up's XDP program (ringcap's or xdp-bench's) goes with
# its last process; another one would make ours fall back.
xdp_wait_detached() {
	wait_for 10 xdp_detached ||
		echo "bench: $dev still runs an XDP program: $(ip link show dev "$dev" | grep -o 'prog/xdp.*')" >&2
}
vio_enter() {
	dev=$vdev OFFER=vio_offer APP_ENV=() RC_ARGS=()
	xdp_wait_detached
	case $1 in
	vio_af|vio_fanout|vio_drop|vio_pass|vio_xdpdump|vio_afxdp)
		echo 0 >"$PARAMS/transparent_mode"; SETUP_LIB=system ;;
	vio_m0|vio_m0td)
		echo 0 >"$PARAMS/transparent_mode"; SETUP_LIB=ring ;;
	vio_xdp|vio_rc_m2)
		echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring ;;
	vio_redir)
		echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring
		APP_ENV=(RINGCAP_XDP=redirect) ;;
	vio_m1)
		echo 1 >"$PARAMS/transparent_mode"; SETUP_LIB=ring ;;
	vio_cluster)
		echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring
		APP_ENV=("RINGCAP_CLUSTER=$CLUSTER") ;;
	vio_rccl)
		echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring
		RC_ARGS=(-C "$CLUSTER") ;;
	esac
}

# ---- the veth pair -----------------------------------------------------------

# No NIC model: vb0, in the guest's namespace, is the capture end; its
# peer vb1, in namespace rcvb, sends through a ringcap transmit ring
# (rcgen --tx-ring, as the tx part's tx_ring), pinned to VETH_CPU. veth
# runs an XDP program in its own NAPI, on the sender's CPU; what its
# queue has no room for, the peer counts in tx_dropped (the "wire").
VETH=vb0 VETH_PEER=vb1 VETH_NS=rcvb VETH_MAC=
veth_find() {
	ip netns add "$VETH_NS" 2>/dev/null || true
	ip link show "$VETH" >/dev/null 2>&1 ||
		ip link add "$VETH" type veth peer name "$VETH_PEER" netns "$VETH_NS" ||
		{ echo "bench: cannot make the veth pair" >&2; return 1; }
	ip link set "$VETH" up
	ip -n "$VETH_NS" link set "$VETH_PEER" up
	VETH_MAC=$(cat "/sys/class/net/$VETH/address")
	echo "bench: veth $VETH (peer $VETH_PEER in $VETH_NS) $VETH_MAC"
}
veth_rx() { cat "/sys/class/net/$VETH/statistics/rx_packets"; }
veth_wiredrops() { ip netns exec "$VETH_NS" cat "/sys/class/net/$VETH_PEER/statistics/tx_dropped"; }
veth_offer() {
	local g w0 n0 x0
	w0=$(veth_wiredrops)
	n0=$(veth_rx)
	x0=$(xdp_drops_of "$VETH")
	g=$(ip netns exec "$VETH_NS" taskset -c "$VETH_CPU" "$RCGEN" \
		--tx-ring "$VETH_PEER" --dst-mac "$VETH_MAC" --flows "$4" \
		--size "$2" --rate "$3" --count "$1" -q 2>&1 | grep '^rcgen:')
	steady 0.5 veth_rx || true
	OFFERED=$(kv sent "$g")
	OFFER_PPS=$(kv rate_pps "$g")
	WIRE=$(($(veth_wiredrops) - w0))
	MISSED=0
	NIC_RX=$(($(veth_rx) - n0))
	XDP_DROPS=$(($(xdp_drops_of "$VETH") - x0))
}
veth_enter() {
	dev=$VETH OFFER=veth_offer APP_ENV=() RC_ARGS=()
	xdp_wait_detached
	case $1 in
	veth_af|veth_drop|veth_afxdp)
		echo 0 >"$PARAMS/transparent_mode"; SETUP_LIB=system ;;
	veth_xdp)
		echo 2 >"$PARAMS/transparent_mode"; SETUP_LIB=ring ;;
	esac
}
