// SPDX-License-Identifier: GPL-2.0
/*
 * The API for ringcap-aware drivers (<ringcap/driver.h>): transparent modes
 * 1 and 2, where the driver hands each frame over while it is still in its
 * DMA buffer, before (mode 1) or instead of (mode 2) building an skb.
 *
 * The sockets an aware device feeds are its set in dev.c, the same one the
 * mode 0 hook walks.
 */
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include "ringcap.h"

/**
 * ringcap_register_dev - declare a net_device as ringcap-aware
 * @dev: a registered net_device
 * @nr_rxq: how many RX queues the driver will report frames from
 * @ops: what the driver offers beyond ringcap_rx() (zero-copy receive, the
 *	 transmit ring), or NULL (<ringcap/driver.h>)
 *
 * Caller holds rtnl_lock. Sockets already bound to @dev start being fed
 * through ringcap_rx() from now on.
 *
 * Return: a handle for ringcap_rx(), or an ERR_PTR: -EINVAL for no queues
 * or for @ops with zc_start but not zc_stop and zc_wakeup, -EEXIST if @dev
 * is registered already, -ENOMEM.
 */
struct ringcap_dev *ringcap_register_dev(struct net_device *dev,
					 unsigned int nr_rxq,
					 const struct ringcap_drv_ops *ops)
{
	struct ringcap_dev *rd;
	int err;

	ASSERT_RTNL();
	if (!nr_rxq || nr_rxq > RINGCAP_QUEUE_ANY)
		return ERR_PTR(-EINVAL);
	rd = ringcap_dev_get(dev);
	if (!rd)
		return ERR_PTR(-ENOMEM);
	if (rd->nr_rxq)
		return ERR_PTR(-EEXIST);
	rd->nr_rxq = nr_rxq;
	err = ringcap_zc_register(rd, ops);
	if (err)
		goto err_put;
	WRITE_ONCE(rd->ops, ops);
	err = ringcap_dev_open_all(rd);
	if (err)
		goto err_zc;
	return rd;

err_zc:
	WRITE_ONCE(rd->ops, NULL);
	ringcap_zc_unregister(rd);
err_put:
	rd->nr_rxq = 0;
	ringcap_dev_put(rd);
	return ERR_PTR(err);
}
EXPORT_SYMBOL_GPL(ringcap_register_dev);

/**
 * ringcap_unregister_dev - stop feeding rings from a device
 * @rd: the handle from ringcap_register_dev()
 *
 * Caller holds rtnl_lock and starts no ringcap_rx() call with @rd once
 * this returns; calls already running may finish meanwhile. Bound sockets
 * stay bound and fall back to the standard path (mode 0); zero-copy
 * sockets report ENODEV (zerocopy.c);
 * skbs the driver already marked with ringcap_rx_skb() still reach each
 * socket once.
 */
void ringcap_unregister_dev(struct ringcap_dev *rd)
{
	ASSERT_RTNL();
	/* No transmit ring calls tx_frames after the grace period below. */
	WRITE_ONCE(rd->ops, NULL);
	ringcap_zc_unregister(rd);
	ringcap_dev_close_all(rd);
	rd->nr_rxq = 0;
	/*
	 * ringcap_rx() calls in flight (a driver's RX thread finishing its
	 * batch) may still walk the set, so rd stays until they are done.
	 * What they deliver is marked with its version, which the ranges
	 * just closed still count as delivered.
	 */
	synchronize_net();
	ringcap_dev_put(rd);
}
EXPORT_SYMBOL_GPL(ringcap_unregister_dev);

/**
 * ringcap_rx - hand one received frame to the rings
 * @rd: the device's handle
 * @queue: RX queue the frame arrived on, below the registered count
 * @data: the frame, from its Ethernet header; only read during the call
 * @len: its length
 * @meta: hardware facts about the frame, or NULL
 *
 * May be called from any context but hard IRQ; calls for one queue must
 * not run concurrently. Frames shorter than an Ethernet header or longer
 * than RINGCAP_RX_FRAME_MAX are left to the standard path.
 *
 * Return: flags and a version, for the driver to pass to ringcap_rx_skb()
 * unchanged. RINGCAP_RX_STACK if the driver must also pass the frame to
 * the stack: always in mode 0 (the rings then get it through the standard
 * path), in mode 1, and in mode 2 unless a socket bound to this device
 * and queue with CAP_NET_ADMIN wants it (a socket bound without it gets a
 * copy, as in mode 1: taking frames from the stack is the
 * administrator's act); RINGCAP_RX_RING if a bound socket was offered the
 * frame (whether its filter took it or its ring had room is counted
 * there).
 */
unsigned int ringcap_rx(struct ringcap_dev *rd, unsigned int queue,
			const void *data, unsigned int len,
			const struct ringcap_rx_meta *meta)
{
	struct ringcap_frame f = {
		.data = data,
		.len = len,
		.dev = rd->dev,
		.ifindex = rd->dev->ifindex,
		.queue = queue,
	};
	struct ringcap_dev_set *set;
	enum ringcap_mode mode = ringcap_mode();
	unsigned int where, wanted;

	if (mode == RINGCAP_MODE_HOOK ||
	    unlikely(queue >= rd->nr_rxq || len < ETH_HLEN ||
		     len > RINGCAP_RX_FRAME_MAX))
		return RINGCAP_RX_STACK;

	ringcap_frame_meta(&f, meta);
	if (!(f.flags & RINGCAP_REC_VLAN))
		ringcap_frame_untag(&f);

	local_bh_disable();
	rcu_read_lock();
	set = rcu_dereference(rd->set);
	wanted = ringcap_set_deliver(set, &f, NULL);
	where = set->version << RINGCAP_RX_VERSION_SHIFT;
	rcu_read_unlock();
	local_bh_enable();

	if (!wanted)
		return RINGCAP_RX_STACK;
	where |= RINGCAP_RX_RING;
	if (mode == RINGCAP_MODE_STEAL && (wanted & RINGCAP_SET_STEAL))
		return where;
	return where | RINGCAP_RX_STACK;
}
EXPORT_SYMBOL_GPL(ringcap_rx);

/**
 * ringcap_rx_skb - note what ringcap_rx() did with the frame of an skb
 * @skb: the skb a driver built for the stack, not yet passed up; skb->dev
 *	 is the registered device (netdev_alloc_skb() and eth_type_trans()
 *	 set it)
 * @where: what ringcap_rx() returned for its frame
 *
 * The mode 0 hook of the device must deliver exactly the frames
 * ringcap_rx() did not. It cannot tell by the current mode or the current
 * sockets, which may have changed since the driver's call: the set's
 * version travels with the skb instead, with the device it belongs to, so
 * that the hooks of the devices stacked above (bridge, bond, VLAN,
 * macvlan) still deliver the frame to their own sockets. Any context.
 */
void ringcap_rx_skb(struct sk_buff *skb, unsigned int where)
{
	struct ringcap_skb_cb *cb = ringcap_skb_cb(skb);

	if (!(where & RINGCAP_RX_RING))
		return;
	cb->magic = RINGCAP_SKB_IN_RINGS;
	cb->version = where >> RINGCAP_RX_VERSION_SHIFT;
	cb->dev = skb->dev;
}
EXPORT_SYMBOL_GPL(ringcap_rx_skb);
