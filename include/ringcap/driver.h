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

/*
 * What a driver may offer beyond ringcap_rx(), in struct ringcap_drv_ops
 * passed to ringcap_register_dev().
 *
 * Zero-copy receive (module/zerocopy.c): a socket takes one RX queue over
 * and reads the frames in the driver's own buffers, mapped into its
 * process.
 * zc_start (RTNL held): hand queue @q to @zc. The driver first describes
 * its buffers with ringcap_zc_set_bufs() (and fails with what that
 * returns), then, once no earlier frame of the queue is in flight, sends
 * every frame of the queue to ringcap_zc_rx() and re-arms a buffer only
 * when ringcap_zc_reclaim() says the reader released it. -ENETDOWN while
 * the device is down, -EBUSY if the queue is taken.
 * zc_stop (RTNL held): the reader is gone; return every buffer to the NIC
 * and the queue to the stack. Not called after ringcap_zc_gone().
 * zc_wakeup: a reader found nothing to read and polls: have queue @q
 * fetch what the NIC holds, re-arm what the reader released and, with
 * nothing left, unmask its interrupt (ringcap_zc_reader_waits()).
 * Called from poll() with BH disabled, so it must not sleep; never
 * before zc_start returned 0, never once zc_stop has been called or the
 * driver has called ringcap_zc_gone() (what it uses may go then, after
 * a grace period: a call in flight holds off synchronize_rcu()). It
 * must not take RTNL, nor a lock the driver holds while it calls
 * ringcap_zc_gone(): the module waits there for a call in flight.
 * Required with zc_start.
 * The driver calls ringcap_zc_gone() when the queue's buffers go away
 * (device down, removal) after the NIC stopped writing them and before
 * it frees them: the module keeps the pages until the reader lets them
 * go, the socket reports ENODEV, and the driver never hears of @zc again.
 *
 * Transmit ring (module/tx.c): tx_frames puts up to @n frames, in order,
 * into the NIC's TX descriptors without an skb, copying each before it
 * returns, and returns how many it took (fewer when its ring is full:
 * the rest are offered again later) or -ENETDOWN. Called under RCU (it
 * must not sleep), from process context with the socket's mutex held;
 * ringcap_unregister_dev() waits for calls in flight.
 */
struct ringcap_zc;

struct ringcap_tx_frame {
	const void *data;
	unsigned int len;
};

struct ringcap_drv_ops {
	int (*zc_start)(struct net_device *dev, unsigned int q,
			struct ringcap_zc *zc);
	void (*zc_stop)(struct net_device *dev, unsigned int q);
	void (*zc_wakeup)(struct net_device *dev, unsigned int q);
	int (*tx_frames)(struct net_device *dev,
			 const struct ringcap_tx_frame *f, unsigned int n);
};

struct ringcap_zc_bufs {
	struct page **pages;	/* order-0 pages, buffers in order */
	unsigned int nr_pages;
	unsigned int buf_size;	/* divides PAGE_SIZE */
	unsigned int nr_bufs;	/* nr_pages * PAGE_SIZE / buf_size */
};

struct ringcap_dev *ringcap_register_dev(struct net_device *dev,
					 unsigned int nr_rxq,
					 const struct ringcap_drv_ops *ops);
void ringcap_unregister_dev(struct ringcap_dev *rd);
/*
 * What ringcap_rx() did with a frame; the driver acts on RINGCAP_RX_STACK
 * and passes the whole value to ringcap_rx_skb() unchanged (the bits above
 * the flags say which sockets had it).
 *
 * The rule the mode 0 hook relies on: ringcap_rx_skb() writes its mark
 * into the end of skb->cb of a fresh skb whose dev is the registered
 * device, and the driver passes that skb up without GRO
 * (netif_receive_skb(), netif_receive_skb_list() or netif_rx(), never
 * napi_gro_receive()): GRO uses skb->cb for its own state and merges
 * frames, so the mark would be lost or stand for another frame, and the
 * device's sockets would get the frame twice. The mark holds on that
 * device only; the devices stacked above it deliver to their own sockets.
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

/*
 * The NIC lost @frames that never reached the driver (its missed packet
 * counter grew by that much since the driver last said): the device's
 * sockets that keep gap records count them (RINGCAP_GAPS). Process or
 * softirq context, not hard IRQ; @rd as for ringcap_rx().
 */
void ringcap_nic_lost(struct ringcap_dev *rd, u64 frames);

/* Zero-copy queues, from the queue's own context (one at a time). */
int ringcap_zc_set_bufs(struct ringcap_zc *zc, const struct ringcap_zc_bufs *b);
bool ringcap_zc_rx(struct ringcap_zc *zc, unsigned int buf, unsigned int len,
		   const struct ringcap_rx_meta *meta);
int ringcap_zc_reclaim(struct ringcap_zc *zc);
bool ringcap_zc_reader_waits(struct ringcap_zc *zc);
bool ringcap_zc_dead(const struct ringcap_zc *zc);
void ringcap_zc_gone(struct ringcap_zc *zc);

#endif /* _RINGCAP_DRIVER_H */
