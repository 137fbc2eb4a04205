/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-kernel API that a ringcap-aware NIC driver calls.
 *
 * A driver registers each net_device with its RX queue count once the
 * device is registered, calls ringcap_rx() for every received frame while
 * it still sits in the driver's DMA buffer, passes the frame to the stack
 * when told to (after ringcap_rx_skb() on the skb it built), and
 * unregisters before unregister_netdev(). See module/aware.c.
 */
#ifndef _RINGCAP_DRIVER_H
#define _RINGCAP_DRIVER_H

#include <linux/netdevice.h>
#include <linux/types.h>

struct ringcap_dev;

/* Optional per-frame facts the hardware gives; zero what is unknown. */
struct ringcap_rx_meta {
	u64	tstamp_ns;	/* 0: ringcap stamps the frame itself */
	u32	rss_hash;
	u16	vlan_tci;	/* stripped tag, valid if has_vlan */
	u8	has_vlan:1;
	u8	has_hash:1;
};

struct ringcap_dev *ringcap_register_dev(struct net_device *dev,
					 unsigned int nr_rxq);
void ringcap_unregister_dev(struct ringcap_dev *rd);
/*
 * What ringcap_rx() did with a frame; the driver acts on RINGCAP_RX_STACK
 * and passes the whole value to ringcap_rx_skb() unchanged (the bits above
 * the flags say which sockets had it).
 */
#define RINGCAP_RX_STACK	0x1	/* the driver must pass it to the stack */
#define RINGCAP_RX_RING		0x2	/* offered to at least one bound socket */
#define RINGCAP_RX_VERSION_SHIFT 2

/* Longer frames (jumbo beyond 9K) are left to the standard path. */
#define RINGCAP_RX_FRAME_MAX	16384

unsigned int ringcap_rx(struct ringcap_dev *rd, unsigned int queue,
			const void *data, unsigned int len,
			const struct ringcap_rx_meta *meta);
void ringcap_rx_skb(struct sk_buff *skb, unsigned int where);

#endif /* _RINGCAP_DRIVER_H */
