// SPDX-License-Identifier: GPL-2.0
/*
 * A frame on its way into the rings (struct ringcap_frame), whatever its
 * source: what the driver says about it, its in-band VLAN tag taken out,
 * its bytes copied, and the skb a socket filter runs on.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/percpu.h>
#include "ringcap.h"

/**
 * ringcap_frame_meta - what a driver says about a frame, into the frame
 * @f: the frame
 * @meta: the driver's facts, or NULL
 *
 * The frame is stamped here when the hardware gave no time.
 */
void ringcap_frame_meta(struct ringcap_frame *f,
			const struct ringcap_rx_meta *meta)
{
	if (meta) {
		f->tstamp_ns = meta->tstamp_ns;
		if (meta->has_vlan) {
			f->flags |= RINGCAP_REC_VLAN;
			f->vlan_tci = meta->vlan_tci;
			f->vlan_proto = htons(ETH_P_8021Q);
		}
		if (meta->has_hash) {
			f->flags |= RINGCAP_REC_HASH;
			f->rss_hash = meta->rss_hash;
		}
	}
	if (!f->tstamp_ns)
		f->tstamp_ns = ktime_get_real_ns();
}

/**
 * ringcap_frame_untag - take a linear frame's in-band VLAN tag out
 * @f: a frame of an aware driver or XDP, with data and len set
 *
 * An 802.1Q or 802.1ad tag is taken out and reported, as the standard
 * path does before its taps run, so that records and filters are the same
 * in every mode.
 */
void ringcap_frame_untag(struct ringcap_frame *f)
{
	const struct vlan_ethhdr *veh = f->data;

	if (f->len < VLAN_ETH_HLEN || !eth_type_vlan(veh->h_vlan_proto))
		return;
	f->flags |= RINGCAP_REC_VLAN;
	f->vlan_proto = veh->h_vlan_proto;
	f->vlan_tci = ntohs(veh->h_vlan_TCI);
	f->vlan_hole = 2 * ETH_ALEN;
	f->len -= VLAN_HLEN;
}

/**
 * ringcap_frame_copy - copy the start of a linear frame, less any tag
 * @f: the frame
 * @to: where to
 * @len: how many bytes, at most f->len
 */
void ringcap_frame_copy(const struct ringcap_frame *f, void *to, u32 len)
{
	u32 head = f->vlan_hole ? min_t(u32, len, f->vlan_hole) : len;

	memcpy(to, f->data, head);
	if (len > head)
		memcpy(to + head, f->data + head + VLAN_HLEN, len - head);
}

/*
 * Classic BPF programs run on an skb. Frames from an aware driver have
 * none, so each CPU keeps a real linear skb with room for the largest frame
 * ringcap_rx() takes, and the frame is copied into it when, and only when,
 * a socket with a filter is offered it. The skb is set up as the standard
 * receive path sets one up before its taps run (eth_type_trans(), network
 * header after the Ethernet header, a stripped VLAN tag in the skb, data
 * back at the MAC header), so that every load, ancillary ones included,
 * sees in modes 1 and 2 what it sees in mode 0. Delivery runs with BH
 * disabled, so nothing else on this CPU can use the skb meanwhile.
 */
static DEFINE_PER_CPU(struct sk_buff *, ringcap_filter_skbs);

/**
 * ringcap_filter_skb - the skb a socket filter runs on for a linear frame
 * @f: the frame; BH disabled
 *
 * Filled on first use, then kept in @f for the frame's other sockets.
 *
 * Return: this CPU's filter skb, holding the frame.
 */
struct sk_buff *ringcap_filter_skb(struct ringcap_frame *f)
{
	struct net_device *dev = f->dev;
	struct sk_buff *skb = f->filter_skb;

	if (skb)
		return skb;
	skb = this_cpu_read(ringcap_filter_skbs);
	f->filter_skb = skb;
	skb->data = skb->head;
	skb_reset_tail_pointer(skb);
	skb->len = 0;
	ringcap_frame_copy(f, skb_put(skb, f->len), f->len);
	skb->dev = dev;
	skb->protocol = eth_type_trans(skb, dev);
	skb_reset_network_header(skb);
	skb_reset_transport_header(skb);
	skb_reset_mac_len(skb);
	skb_push(skb, ETH_HLEN);
	skb_record_rx_queue(skb, f->queue);
	skb->hash = f->rss_hash;
	if (f->flags & RINGCAP_REC_VLAN) {
		__vlan_hwaccel_put_tag(skb, f->vlan_proto, f->vlan_tci);
	} else {
		/* 6.1 keeps the fields apart from its present bit: clear all. */
		__vlan_hwaccel_clear_tag(skb);
		skb->vlan_proto = 0;
		skb->vlan_tci = 0;
	}
	return skb;
}

static void ringcap_filter_skbs_free(void)
{
	struct sk_buff *skb;
	int cpu;

	for_each_possible_cpu(cpu) {
		skb = per_cpu(ringcap_filter_skbs, cpu);
		if (!skb)
			continue;
		/* Point data home again before the skb is freed. */
		skb->data = skb->head;
		skb_reset_tail_pointer(skb);
		skb->len = 0;
		kfree_skb(skb);
		per_cpu(ringcap_filter_skbs, cpu) = NULL;
	}
}

/**
 * ringcap_capture_init - allocate every CPU's filter skb
 *
 * Return: 0 or -ENOMEM, with nothing left allocated.
 */
int ringcap_capture_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		per_cpu(ringcap_filter_skbs, cpu) =
			alloc_skb(RINGCAP_RX_FRAME_MAX, GFP_KERNEL);
		if (!per_cpu(ringcap_filter_skbs, cpu)) {
			ringcap_filter_skbs_free();
			return -ENOMEM;
		}
	}
	return 0;
}

/**
 * ringcap_capture_exit - free every CPU's filter skb
 */
void ringcap_capture_exit(void)
{
	ringcap_filter_skbs_free();
}
