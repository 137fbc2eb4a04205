// SPDX-License-Identifier: GPL-2.0
/*
 * Putting one frame into one socket's ring: filter, copy, count, signal.
 * Every source ends here through its device's set (dev.c): the mode 0
 * packet_type hook below and the aware driver API in aware.c, whose
 * frames get an skb here for the filter.
 */
#include <linux/etherdevice.h>
#include <linux/filter.h>
#include <linux/if_vlan.h>
#include <linux/percpu.h>
#include "ringcap.h"
#include "trace.h"

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

static unsigned int ringcap_run_filter(struct ringcap_sock *rs,
				       struct ringcap_frame *f)
{
	struct sk_filter *filter;
	struct sk_buff *skb;

	/* Callers run under RCU (softirq or rcu_read_lock()). */
	filter = rcu_dereference(rs->sk.sk_filter);
	if (!filter)
		return UINT_MAX;
	/* Mode 0 has the stack's skb; an aware driver's frame gets one. */
	skb = f->skb ? f->skb : ringcap_filter_skb(f);
	return bpf_prog_run_clear_cb(filter->prog, skb);
}

/*
 * A linear frame (aware driver, XDP) as the rings get it: an in-band 802.1Q/802.1ad tag is taken
 * out and reported, as the standard path does before its taps run, so that
 * records and filters are the same in every mode.
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

/* The first len bytes of an aware driver's frame, less any in-band tag. */
void ringcap_frame_copy(const struct ringcap_frame *f, void *to, u32 len)
{
	u32 head = f->vlan_hole ? min_t(u32, len, f->vlan_hole) : len;

	memcpy(to, f->data, head);
	if (len > head)
		memcpy(to + head, f->data + head + VLAN_HLEN, len - head);
}

static void ringcap_fill(struct ringcap_rec *rec, const struct ringcap_frame *f,
			 u32 rec_len, u32 caplen)
{
	rec->rec_len = rec_len;
	rec->flags = f->flags | (caplen < f->len ? RINGCAP_REC_TRUNC : 0) |
		     (f->zc ? RINGCAP_REC_ZC : 0);
	rec->queue = f->queue;
	rec->caplen = caplen;
	rec->wire_len = f->len;
	rec->tstamp_ns = f->tstamp_ns;
	rec->ifindex = f->ifindex;
	rec->rss_hash = f->rss_hash;
	rec->vlan_tci = f->vlan_tci;
	rec->vlan_proto = (__force u16)f->vlan_proto;
	rec->zc_offset = f->zc_offset;
	if (f->zc)
		return;		/* the frame stays in the reader's buffer */
	if (f->skb)
		skb_copy_bits(f->skb, 0, rec + 1, caplen);
	else
		ringcap_frame_copy(f, rec + 1, caplen);
}

/**
 * ringcap_deliver - offer one frame to one socket
 * @rs: a bound socket
 * @f: the frame
 *
 * Runs in softirq context or with BH disabled, under RCU.
 *
 * Return: whether the frame is in the ring (for a zero-copy frame: its
 * buffer is the reader's now).
 */
bool ringcap_deliver(struct ringcap_sock *rs, struct ringcap_frame *f)
{
	struct ringcap_ring *ring = READ_ONCE(rs->ring);
	u32 caplen = min(f->len, READ_ONCE(rs->snaplen));
	unsigned int res;
	struct ringcap_rec *rec;
	u32 rec_len;
	bool bad;
	u64 ino = rs->sk.sk_socket ? SOCK_INODE(rs->sk.sk_socket)->i_ino : 0;

	res = ringcap_run_filter(rs, f);
	if (!res) {
		spin_lock(&rs->prod_lock);
		rs->st.filtered++;
		WRITE_ONCE(ring->hdr->filtered, rs->st.filtered);
		spin_unlock(&rs->prod_lock);
		trace_ringcap_drop(f->ifindex, f->queue, ino,
				   RINGCAP_DROP_FILTER);
		return false;
	}
	caplen = min(caplen, res);

	spin_lock(&rs->prod_lock);
	rec = ringcap_ring_reserve(ring, f->zc ? 0 : caplen, &rec_len, &bad);
	if (!rec) {
		rs->st.dropped++;
		if (bad)
			rs->st.bad_consumer++;
		WRITE_ONCE(ring->hdr->dropped, rs->st.dropped);
		/* A full ring must reach the reader even below N frames. */
		ringcap_wakeup_flush(rs);
		spin_unlock(&rs->prod_lock);
		trace_ringcap_drop(f->ifindex, f->queue, ino,
				   bad ? RINGCAP_DROP_BAD_CONSUMER :
					 RINGCAP_DROP_RING_FULL);
		return false;
	}
	ringcap_fill(rec, f, rec_len, caplen);
	ringcap_ring_commit(ring, rec_len);
	rs->st.received++;
	WRITE_ONCE(ring->hdr->received, rs->st.received);
	ringcap_wakeup_frame(rs);
	spin_unlock(&rs->prod_lock);
	trace_ringcap_deliver(f->ifindex, f->queue, ino, caplen, f->len);
	return true;
}

/*
 * Mode 0: the standard receive path hands us every frame of a device with
 * bound sockets through one ETH_P_ALL packet_type per device (dev.c), as
 * AF_PACKET does per socket. Frames an aware driver already offered to a
 * socket (modes 1 and 2) carry the mark ringcap_rx_skb() set, those the
 * XDP kfunc offered carry it in their metadata (kfunc.c), and are not
 * offered to it again here, so that no frame reaches a socket twice, nor
 * none when the mode, the device's registration or the bound sockets
 * change in between. The mark speaks for the sockets of the aware device
 * alone: on a device stacked above it (the skb's dev is then the bridge,
 * bond, VLAN or macvlan device) it is ignored, and every socket bound
 * there gets the frame, as in mode 0.
 */
int ringcap_pt_rcv(struct sk_buff *skb, struct net_device *dev,
		   struct packet_type *pt, struct net_device *orig_dev)
{
	struct ringcap_dev *rd = pt->af_packet_priv;
	struct ringcap_skb_cb *cb = ringcap_skb_cb(skb);
	struct ringcap_frame f = {};
	const u32 *had;
	u8 *old_data = skb->data;
	unsigned int old_len = skb->len;

	if (skb->pkt_type == PACKET_OUTGOING)
		goto out;

	/*
	 * The skb may be shared with other taps: like AF_PACKET we move
	 * data back to the MAC header only for the duration of this call.
	 */
	if (dev_has_header(dev))
		skb_push(skb, skb->data - skb_mac_header(skb));

	f.skb = skb;
	f.len = skb->len;
	f.ifindex = dev->ifindex;
	f.queue = skb_rx_queue_recorded(skb) ? skb_get_rx_queue(skb) : 0;
	f.tstamp_ns = ktime_get_real_ns();
	if (skb_vlan_tag_present(skb)) {
		f.flags |= RINGCAP_REC_VLAN;
		f.vlan_tci = skb_vlan_tag_get(skb);
		f.vlan_proto = skb->vlan_proto;
	}
	if (skb->hash) {
		f.flags |= RINGCAP_REC_HASH;
		f.rss_hash = skb->hash;
	}
	/* The set version that had the frame already, by either mark. */
	if (cb->magic == RINGCAP_SKB_IN_RINGS && cb->dev == rd->dev)
		had = &cb->version;
	else
		had = ringcap_xdp_marked(skb, rd);
	/* Softirq: BH is off and this is an RCU read-side section. */
	ringcap_set_deliver(rcu_dereference(rd->set), &f, had);

	skb->data = old_data;
	skb->len = old_len;
out:
	consume_skb(skb);
	return NET_RX_SUCCESS;
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

void ringcap_capture_exit(void)
{
	ringcap_filter_skbs_free();
}
