// SPDX-License-Identifier: GPL-2.0
/*
 * Clusters: which member of a cluster gets a frame. Members are the
 * sockets of one destination of a device's set (dev.c); the set is
 * immutable, so the choice needs no lock and sees a consistent member
 * count. A member's full ring is its own drop: the frame is not offered to
 * another member, which would split the flow.
 */
#include <linux/etherdevice.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <linux/random.h>
#include "ringcap.h"

/* Room for two VLAN tags, the longest IPv4 header and the ports. */
#define RINGCAP_FLOW_BYTES	(ETH_HLEN + 2 * 4 + 60 + 4)

static u32 ringcap_flow_seed __read_mostly;

static bool ringcap_flow_ports(u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_SCTP || proto == IPPROTO_UDPLITE;
}

static u32 ringcap_get32(const u8 *p)
{
	return get_unaligned((const u32 *)p);
}

/*
 * A hash of the frame's addresses, protocol and ports that is the same in
 * both directions: each pair is folded by XOR before hashing. IPv4
 * fragments hash without ports, all of them alike, so that the first
 * (which has the ports) stays with the rest of its datagram. Only IPv6
 * headers without extension headers are looked into for ports.
 */
static void ringcap_flow_hash(struct ringcap_frame *f)
{
	u8 buf[RINGCAP_FLOW_BYTES];
	u32 n = min_t(u32, f->len, sizeof(buf));
	u32 addrs = 0, ports = 0, off = ETH_HLEN, hl, i;
	const u8 *p;
	u16 type;
	u8 proto;

	f->flow_hashed = true;
	if (f->skb) {
		p = skb_header_pointer(f->skb, 0, n, buf);
		if (!p)
			return;
	} else {
		ringcap_frame_copy(f, buf, n);
		p = buf;
	}
	if (n < ETH_HLEN)
		return;
	type = get_unaligned_be16(p + 12);
	while ((type == ETH_P_8021Q || type == ETH_P_8021AD) && off + 4 <= n) {
		type = get_unaligned_be16(p + off + 2);
		off += 4;
	}
	if (type == ETH_P_IP) {
		if (off + sizeof(struct iphdr) > n)
			return;
		hl = (p[off] & 0x0f) * 4;
		proto = p[off + 9];
		addrs = ringcap_get32(p + off + 12) ^ ringcap_get32(p + off + 16);
		/* More fragments, or an offset: a fragment. */
		if (get_unaligned_be16(p + off + 6) & 0x3fff)
			proto = 0;
	} else if (type == ETH_P_IPV6) {
		if (off + sizeof(struct ipv6hdr) > n)
			return;
		hl = sizeof(struct ipv6hdr);
		proto = p[off + 6];
		for (i = 8; i < 40; i += 4)
			addrs ^= ringcap_get32(p + off + i);
	} else {
		return;
	}
	if (ringcap_flow_ports(proto) && hl >= 20 && off + hl + 4 <= n)
		ports = get_unaligned_be16(p + off + hl) ^
			get_unaligned_be16(p + off + hl + 2);
	f->flow_hash = jhash_3words(addrs, ports, proto, ringcap_flow_seed);
	f->flow_ip = true;
}

/**
 * ringcap_cluster_pick - the member of a cluster that gets a frame
 * @d: a destination with at least two members
 * @f: the frame
 *
 * Return: one of @d's sockets.
 */
struct ringcap_sock *ringcap_cluster_pick(struct ringcap_dest *d,
					  struct ringcap_frame *f)
{
	switch (d->cluster.policy) {
	case RINGCAP_CLUSTER_RR:
		return d->socks[(u32)atomic_inc_return(&d->next) % d->nr];
	case RINGCAP_CLUSTER_QUEUE:
		return d->socks[f->queue % d->nr];
	default:
		if (!f->flow_hashed)
			ringcap_flow_hash(f);
		/* Non-IP frames all go to one member. */
		if (!f->flow_ip)
			return d->socks[0];
		return d->socks[reciprocal_scale(f->flow_hash, d->nr)];
	}
}

/**
 * ringcap_cluster_check - may a socket join its cluster on this device?
 * @rd: the device; rtnl held
 * @rs: the socket, not yet in rd->socks
 *
 * A cluster's members share one device, queue spec and policy.
 *
 * Return: 0, or -EEXIST if @rs disagrees with the members already bound.
 */
int ringcap_cluster_check(struct ringcap_dev *rd, struct ringcap_sock *rs)
{
	struct ringcap_sock *m;

	if (!rs->cluster.id)
		return 0;
	list_for_each_entry(m, &rd->socks, dev_node)
		if (m->cluster.id == rs->cluster.id &&
		    (m->cluster.policy != rs->cluster.policy ||
		     m->queue != rs->queue))
			return -EEXIST;
	return 0;
}

/**
 * ringcap_cluster_policy_name - a policy as /proc/net/ringcap names it
 * @policy: RINGCAP_CLUSTER_*
 *
 * Return: a static string, "?" for an unknown policy.
 */
const char *ringcap_cluster_policy_name(u32 policy)
{
	switch (policy) {
	case RINGCAP_CLUSTER_FLOW:
		return "flow";
	case RINGCAP_CLUSTER_RR:
		return "rr";
	case RINGCAP_CLUSTER_QUEUE:
		return "queue";
	}
	return "?";
}

/**
 * ringcap_cluster_init - seed the flow hash, once per load
 */
void ringcap_cluster_init(void)
{
	ringcap_flow_seed = get_random_u32();
}
