// SPDX-License-Identifier: GPL-2.0
/*
 * What a frame's headers say about its flow (struct ringcap_flow): its
 * VLAN, addresses, protocol, ports and TCP flags, read once per frame for
 * every socket that asks (cluster.c picks a member by it, cutoff.c keeps
 * each flow's first bytes by it); and, for a cluster that asks, the flow
 * inside a VXLAN or GRE tunnel.
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

/*
 * The flow of the IP packet of ethertype @type at @off of p[0..n), into
 * @fl (zeroed). Return: its transport header's offset, 0 for none (or a
 * packet that is not IP: family 0).
 */
static u32 ringcap_flow_read_ip(const u8 *p, u32 n, u32 off, u16 type,
				struct ringcap_flow *fl)
{
	struct ringcap_flow_key *k = &fl->key;
	u32 th;
	u8 proto;

	if (type == ETH_P_IP) {
		if (off + sizeof(struct iphdr) > n)
			return 0;
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
			return 0;
		proto = p[off + 6];
		memcpy(k->src, p + off + 8, 16);
		memcpy(k->dst, p + off + 24, 16);
		k->family = 6;
		th = ringcap_flow_ipv6_ext(p, off + sizeof(struct ipv6hdr), n,
					   &proto, fl);
	} else {
		return 0;
	}
	k->proto = proto;
	if (fl->fragment || !th || th + 4 > n)
		return 0;
	if (ringcap_flow_has_ports(proto)) {
		memcpy(&k->sport, p + th, 2);
		memcpy(&k->dport, p + th + 2, 2);
	}
	if (proto == IPPROTO_TCP && th + 14 <= n)
		fl->tcp_flags = p[th + 13];
	return th;
}

/*
 * The flow of the Ethernet frame at @off of p[0..n), its VLAN tags
 * looked through; @vlan the id of a tag taken out before, or 0. Return:
 * as ringcap_flow_read_ip().
 */
static u32 ringcap_flow_read_eth(const u8 *p, u32 n, u32 off, u16 vlan,
				 struct ringcap_flow *fl)
{
	u16 type;

	if (off + ETH_HLEN > n)
		return 0;
	fl->key.vlan = vlan;
	type = get_unaligned_be16(p + off + 12);
	off += ETH_HLEN;
	while (eth_type_vlan(htons(type)) && off + VLAN_HLEN <= n) {
		if (!fl->key.vlan)
			fl->key.vlan = get_unaligned_be16(p + off) &
				       VLAN_VID_MASK;
		type = get_unaligned_be16(p + off + 2);
		off += VLAN_HLEN;
	}
	return ringcap_flow_read_ip(p, n, off, type, fl);
}

/*
 * The frame's first bytes, at most @n of them: in place when they are
 * linear and whole, else copied into @buf. NULL if unreadable.
 */
static const u8 *ringcap_flow_bytes(const struct ringcap_frame *f, u8 *buf,
				    u32 n)
{
	/* A device without a link-layer header: nothing to read a flow from. */
	if (f->skb && !dev_has_header(f->skb->dev))
		return NULL;
	if (f->skb)
		return skb_header_pointer(f->skb, 0, n, buf);
	if (f->vlan_hole) {
		ringcap_frame_copy(f, buf, n);
		return buf;
	}
	return f->data;
}

static u16 ringcap_flow_vlan(const struct ringcap_frame *f)
{
	return f->flags & RINGCAP_REC_VLAN ? f->vlan_tci & VLAN_VID_MASK : 0;
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
	u8 buf[RINGCAP_FLOW_BYTES];
	u32 n = min_t(u32, f->len, sizeof(buf));
	const u8 *p;

	f->flow_parsed = true;
	p = ringcap_flow_bytes(f, buf, n);
	if (p)
		f->flow.thoff = ringcap_flow_read_eth(p, n, 0,
						      ringcap_flow_vlan(f),
						      &f->flow);
}

/* VXLAN's UDP port (RFC 7348) and its header's length. */
#define RINGCAP_VXLAN_PORT	4789
#define RINGCAP_VXLAN_HLEN	8
/* Room for an outer IPv6 frame, the tunnel headers and an inner frame. */
#define RINGCAP_FLOW_INNER_BYTES	(2 * RINGCAP_FLOW_BYTES + 16)

/**
 * ringcap_flow_inner - the flow inside a frame's tunnel
 * @f: the frame, its own flow parsed
 * @in: filled with the inner flow
 *
 * A VXLAN frame (UDP to port 4789, the I flag set) carries an Ethernet
 * frame; a GRE one (version 0, with any checksum, key and sequence
 * number, no routing) an Ethernet frame (transparent Ethernet bridging),
 * IPv4 or IPv6.
 *
 * Return: whether @in holds an inner IP flow.
 */
bool ringcap_flow_inner(const struct ringcap_frame *f, struct ringcap_flow *in)
{
	u8 buf[RINGCAP_FLOW_INNER_BYTES];
	u32 n = min_t(u32, f->len, sizeof(buf));
	const struct ringcap_flow *out = &f->flow;
	u32 th, off;
	const u8 *p;
	u16 flags, type;

	memset(in, 0, sizeof(*in));
	if (!out->key.family || out->fragment ||
	    (out->key.proto != IPPROTO_UDP && out->key.proto != IPPROTO_GRE))
		return false;
	/* Both ends of a VXLAN tunnel send to its port (RFC 7348). */
	if (out->key.proto == IPPROTO_UDP &&
	    out->key.dport != htons(RINGCAP_VXLAN_PORT))
		return false;
	/* Where the outer parse found the tunnel's header (UDP or GRE). */
	th = out->thoff;
	if (!th || th + 4 > n)
		return false;
	/* The bytes again, now with room for what follows that header. */
	p = ringcap_flow_bytes(f, buf, n);
	if (!p)
		return false;
	if (out->key.proto == IPPROTO_UDP) {
		/* The I flag: a VXLAN header, not another use of the port. */
		if (th + 9 > n || !(p[th + 8] & 0x08))
			return false;
		ringcap_flow_read_eth(p, n, th + 8 + RINGCAP_VXLAN_HLEN, 0, in);
		return in->key.family;
	}
	/* GRE: flags and version, then the protocol; C, K, S add 4 each. */
	flags = get_unaligned_be16(p + th);
	type = get_unaligned_be16(p + th + 2);
	/* Another version, or source routing (RFC 1701): not parsed. */
	if (flags & 0x4007)
		return false;
	off = th + 4 + (flags & 0x8000 ? 4 : 0) + (flags & 0x2000 ? 4 : 0) +
	      (flags & 0x1000 ? 4 : 0);
	if (type == ETH_P_TEB)
		ringcap_flow_read_eth(p, n, off, 0, in);
	else
		ringcap_flow_read_ip(p, n, off, type, in);
	return in->key.family;
}
