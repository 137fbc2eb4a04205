// SPDX-License-Identifier: GPL-2.0
/*
 * The mode 0 source: one ETH_P_ALL packet_type per device with bound
 * sockets, which the standard receive path calls for every frame. The
 * device's first socket adds it and its last removes it (bind.c).
 */
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include "ringcap.h"

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
static int ringcap_pt_rcv(struct sk_buff *skb, struct net_device *dev,
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

/**
 * ringcap_hook_add - the standard path hands a device's frames over
 * @rd: the device, whose first socket just joined its set; rtnl held
 */
void ringcap_hook_add(struct ringcap_dev *rd)
{
	rd->pt.type = htons(ETH_P_ALL);
	rd->pt.dev = rd->dev;
	rd->pt.func = ringcap_pt_rcv;
	rd->pt.af_packet_priv = rd;
	dev_add_pack(&rd->pt);
}

/**
 * ringcap_hook_del - the standard path stops handing the frames over
 * @rd: the device, whose last socket just left its set; rtnl held
 *
 * Returns after a grace period (dev_remove_pack()): no hook call runs.
 */
void ringcap_hook_del(struct ringcap_dev *rd)
{
	dev_remove_pack(&rd->pt);
}
