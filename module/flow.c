// SPDX-License-Identifier: GPL-2.0
/*
 * What a frame's headers say about its flow (struct ringcap_flow): its
 * VLAN, addresses, protocol, ports and TCP flags, read once per frame for
 * every socket that asks (cluster.c picks a member by it, cutoff.c keeps
 * each flow's first bytes by it).
 */
#include <linux/if_vlan.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include "ringcap.h"

/*
 * Enough for two VLAN tags, an IPv6 header behind up to 64 bytes of
 * extension headers (the longest IPv4 header is shorter) and the TCP
 * flags.
 */
#define RINGCAP_FLOW_BYTES	(ETH_HLEN + 2 * VLAN_HLEN + \
				 sizeof(struct ipv6hdr) + 64 + 14)

/* At most this many IPv6 extension headers are walked. */
#define RINGCAP_FLOW_EXT_MAX	6

static bool ringcap_flow_has_ports(u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_SCTP || proto == IPPROTO_UDPLITE;
}

/*
 * Past the IPv6 extension headers that may come before the transport
 * header. Return: the transport header's offset, or 0 for none that can
 * be read here (an ESP payload, a chain too long for the buffer).
 */
static u32 ringcap_flow_ipv6_ext(const u8 *p, u32 off, u32 n, u8 *proto,
				 struct ringcap_flow *fl)
{
	unsigned int i;
	u32 len;

	for (i = 0; i < RINGCAP_FLOW_EXT_MAX; i++) {
		switch (*proto) {
		case IPPROTO_HOPOPTS:
		case IPPROTO_ROUTING:
		case IPPROTO_DSTOPTS:
			if (off + 2 > n)
				return 0;
			len = (p[off + 1] + 1) * 8;
			break;
		case IPPROTO_AH:
			if (off + 2 > n)
				return 0;
			len = (p[off + 1] + 2) * 4;
			break;
		case IPPROTO_FRAGMENT:
			if (off + 8 > n)
				return 0;
			*proto = p[off];
			/*
			 * An offset or more fragments: not the whole datagram.
			 * Every fragment stops here, with the next header this
			 * one names: past it, a later fragment has payload.
			 */
			if (get_unaligned_be16(p + off + 2) & 0xfff9) {
				fl->fragment = true;
				return 0;
			}
			off += 8;
			continue;
		default:
			return off;
		}
		*proto = p[off];
		off += len;
	}
	return 0;
}

/**
 * ringcap_flow_parse - read a frame's flow, once
 * @f: the frame; f->flow is filled and f->flow_parsed set
 *
 * A frame that is not IPv4 or IPv6 (behind up to two VLAN tags) on an
 * Ethernet-like device, or too short for its IP header, has family 0.
 * Fragments have no ports, the first included, so that every fragment
 * of a datagram has the same flow.
 */
void ringcap_flow_parse(struct ringcap_frame *f)
{
	struct ringcap_flow *fl = &f->flow;
	struct ringcap_flow_key *k = &fl->key;
	u8 buf[RINGCAP_FLOW_BYTES];
	u32 n = min_t(u32, f->len, sizeof(buf));
	u32 off = ETH_HLEN, th = 0;
	const u8 *p;
	u16 type;
	u8 proto;

	f->flow_parsed = true;
	/* A device without a link-layer header: nothing to read a flow from. */
	if (f->skb && !dev_has_header(f->skb->dev))
		return;
	if (f->skb) {
		p = skb_header_pointer(f->skb, 0, n, buf);
		if (!p)
			return;
	} else if (f->vlan_hole) {
		ringcap_frame_copy(f, buf, n);
		p = buf;
	} else {
		p = f->data;
	}
	if (n < ETH_HLEN)
		return;
	if (f->flags & RINGCAP_REC_VLAN)
		k->vlan = f->vlan_tci & VLAN_VID_MASK;
	type = get_unaligned_be16(p + 12);
	while (eth_type_vlan(htons(type)) && off + VLAN_HLEN <= n) {
		if (!k->vlan)
			k->vlan = get_unaligned_be16(p + off) & VLAN_VID_MASK;
		type = get_unaligned_be16(p + off + 2);
		off += VLAN_HLEN;
	}
	if (type == ETH_P_IP) {
		if (off + sizeof(struct iphdr) > n)
			return;
		proto = p[off + 9];
		memcpy(&k->src[0], p + off + 12, 4);
		memcpy(&k->dst[0], p + off + 16, 4);
		k->family = 4;
		/* More fragments, or an offset: not the whole datagram. */
		if (get_unaligned_be16(p + off + 6) & 0x3fff)
			fl->fragment = true;
		th = off + (p[off] & 0x0f) * 4;
		if (th < off + sizeof(struct iphdr))
			th = 0;
	} else if (type == ETH_P_IPV6) {
		if (off + sizeof(struct ipv6hdr) > n)
			return;
		proto = p[off + 6];
		memcpy(k->src, p + off + 8, 16);
		memcpy(k->dst, p + off + 24, 16);
		k->family = 6;
		th = ringcap_flow_ipv6_ext(p, off + sizeof(struct ipv6hdr), n,
					   &proto, fl);
	} else {
		return;
	}
	k->proto = proto;
	if (fl->fragment || !th || !ringcap_flow_has_ports(proto) ||
	    th + 4 > n)
		return;
	memcpy(&k->sport, p + th, 2);
	memcpy(&k->dport, p + th + 2, 2);
	if (proto == IPPROTO_TCP && th + 14 <= n)
		fl->tcp_flags = p[th + 13];
}
