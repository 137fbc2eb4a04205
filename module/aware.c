// SPDX-License-Identifier: GPL-2.0
/*
 * The API for ringcap-aware drivers (ringcap_driver.h): transparent modes
 * 1 and 2, where the driver hands each frame over while it is still in its
 * DMA buffer, before (mode 1) or instead of (mode 2) building an skb.
 */
#include <linux/etherdevice.h>
#include <linux/percpu.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include "ringcap.h"
#include "ringcap_driver.h"

struct ringcap_dev {
	struct list_head node;		/* ringcap_devs, under rtnl */
	struct net_device *dev;
	unsigned int nr_rxq;
	struct list_head socks;		/* bound sockets; RCU for readers */
};

static LIST_HEAD(ringcap_devs);

/*
 * Classic BPF programs expect an skb as their context. Frames from an aware
 * driver have none, so each CPU keeps one empty skb whose data pointer is
 * aimed at the frame for the duration of the filter run. Loads outside the
 * frame are bounded by len; loads relative to the MAC or network header
 * resolve into the skb's own empty head and fail safely. Delivery runs with
 * BH disabled, so nothing else on this CPU can use the skb meanwhile.
 */
static DEFINE_PER_CPU(struct sk_buff *, ringcap_filter_skb);

static struct sk_buff *ringcap_filter_skb_for(struct net_device *dev,
					      const void *data,
					      unsigned int len)
{
	struct sk_buff *skb = this_cpu_read(ringcap_filter_skb);

	skb->data = (unsigned char *)data;
	skb->len = len;
	skb->data_len = 0;
	skb->dev = dev;
	skb->protocol = len >= ETH_HLEN ?
			((const struct ethhdr *)data)->h_proto : 0;
	return skb;
}

struct ringcap_dev *ringcap_dev_find(struct net_device *dev)
{
	struct ringcap_dev *rd;

	ASSERT_RTNL();
	list_for_each_entry(rd, &ringcap_devs, node)
		if (rd->dev == dev)
			return rd;
	return NULL;
}

unsigned int ringcap_dev_nr_queues(struct net_device *dev)
{
	struct ringcap_dev *rd = ringcap_dev_find(dev);

	return rd ? rd->nr_rxq : dev->real_num_rx_queues;
}

static void ringcap_dev_link(struct ringcap_dev *rd, struct ringcap_sock *rs)
{
	list_add_tail_rcu(&rs->rd_node, &rd->socks);
	rcu_assign_pointer(rs->rd, rd);
}

/* A socket was bound (rtnl held): feed it from the driver if aware. */
void ringcap_dev_attach(struct ringcap_sock *rs)
{
	struct ringcap_dev *rd = ringcap_dev_find(rs->dev);

	if (rd)
		ringcap_dev_link(rd, rs);
}

/*
 * The caller waits for an RCU grace period before reusing rs->rd_node or
 * freeing rs (ringcap_unbind() does, through dev_remove_pack()).
 */
void ringcap_dev_detach(struct ringcap_sock *rs)
{
	if (!rtnl_dereference(rs->rd))
		return;
	list_del_rcu(&rs->rd_node);
	RCU_INIT_POINTER(rs->rd, NULL);
}

/**
 * ringcap_register_dev - declare a net_device as ringcap-aware
 * @dev: a registered net_device
 * @nr_rxq: how many RX queues the driver will report frames from
 *
 * Caller holds rtnl_lock. Sockets already bound to @dev start being fed
 * through ringcap_rx() from now on.
 *
 * Return: a handle for ringcap_rx(), or an ERR_PTR: -EINVAL for no queues,
 * -EEXIST if @dev is registered already, -ENOMEM.
 */
struct ringcap_dev *ringcap_register_dev(struct net_device *dev,
					 unsigned int nr_rxq)
{
	struct ringcap_sock *rs;
	struct ringcap_dev *rd;

	ASSERT_RTNL();
	if (!nr_rxq || nr_rxq > RINGCAP_QUEUE_ANY)
		return ERR_PTR(-EINVAL);
	if (ringcap_dev_find(dev))
		return ERR_PTR(-EEXIST);
	rd = kzalloc(sizeof(*rd), GFP_KERNEL);
	if (!rd)
		return ERR_PTR(-ENOMEM);
	rd->dev = dev;
	rd->nr_rxq = nr_rxq;
	INIT_LIST_HEAD(&rd->socks);
	list_add_tail(&rd->node, &ringcap_devs);

	mutex_lock(&ringcap_socks_lock);
	list_for_each_entry(rs, &ringcap_socks, all_node)
		if (rs->dev == dev)
			ringcap_dev_link(rd, rs);
	mutex_unlock(&ringcap_socks_lock);
	return rd;
}
EXPORT_SYMBOL_GPL(ringcap_register_dev);

/**
 * ringcap_unregister_dev - stop feeding rings from a device
 * @rd: the handle from ringcap_register_dev()
 *
 * Caller holds rtnl_lock and makes no further ringcap_rx() call with @rd.
 * Bound sockets stay bound and fall back to the standard path (mode 0).
 */
void ringcap_unregister_dev(struct ringcap_dev *rd)
{
	struct ringcap_sock *rs, *tmp;

	ASSERT_RTNL();
	list_del(&rd->node);
	list_for_each_entry_safe(rs, tmp, &rd->socks, rd_node)
		ringcap_dev_detach(rs);
	/* ringcap_rx() calls in flight may still walk rd->socks. */
	synchronize_net();
	kfree(rd);
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
 * not run concurrently.
 *
 * Return: RINGCAP_RX_STACK if the driver must also pass the frame to the
 * stack: always in mode 0 (the rings then get it through the standard
 * path), in mode 1, and in mode 2 when no socket is bound to this device
 * and queue; RINGCAP_RX_RING if a bound socket was offered the frame
 * (whether its filter took it or its ring had room is counted there).
 */
unsigned int ringcap_rx(struct ringcap_dev *rd, unsigned int queue,
			const void *data, unsigned int len,
			const struct ringcap_rx_meta *meta)
{
	struct ringcap_frame f = {
		.data = data,
		.len = len,
		.ifindex = rd->dev->ifindex,
		.queue = queue,
	};
	struct ringcap_sock *rs;
	struct sk_buff *skb;
	bool bound = false;
	int mode = ringcap_mode();

	if (mode == 0 || unlikely(queue >= rd->nr_rxq))
		return RINGCAP_RX_STACK;

	if (meta) {
		f.tstamp_ns = meta->tstamp_ns;
		if (meta->has_vlan) {
			f.flags |= RINGCAP_REC_VLAN;
			f.vlan_tci = meta->vlan_tci;
			f.vlan_proto = htons(ETH_P_8021Q);
		}
		if (meta->has_hash) {
			f.flags |= RINGCAP_REC_HASH;
			f.rss_hash = meta->rss_hash;
		}
	}
	if (!f.tstamp_ns)
		f.tstamp_ns = ktime_get_real_ns();

	local_bh_disable();
	rcu_read_lock();
	skb = ringcap_filter_skb_for(rd->dev, data, len);
	list_for_each_entry_rcu(rs, &rd->socks, rd_node) {
		if (rs->queue != RINGCAP_QUEUE_ANY && rs->queue != queue)
			continue;
		bound = true;
		ringcap_deliver(rs, &f, skb);
	}
	rcu_read_unlock();
	local_bh_enable();

	if (!bound)
		return RINGCAP_RX_STACK;
	return mode == 1 ? RINGCAP_RX_STACK | RINGCAP_RX_RING : RINGCAP_RX_RING;
}
EXPORT_SYMBOL_GPL(ringcap_rx);

/**
 * ringcap_rx_skb - note what ringcap_rx() did with the frame of an skb
 * @skb: the skb a driver built for the stack, not yet passed up
 * @where: what ringcap_rx() returned for its frame
 *
 * The mode 0 hook must deliver exactly the frames ringcap_rx() did not.
 * It cannot tell by the current mode, which may have changed since the
 * driver's call: the mark travels with the skb instead. Any context.
 */
void ringcap_rx_skb(struct sk_buff *skb, unsigned int where)
{
	if (where & RINGCAP_RX_RING)
		ringcap_skb_cb(skb)->magic = RINGCAP_SKB_IN_RINGS;
}
EXPORT_SYMBOL_GPL(ringcap_rx_skb);

static void ringcap_filter_skbs_free(void)
{
	struct sk_buff *skb;
	int cpu;

	for_each_possible_cpu(cpu) {
		skb = per_cpu(ringcap_filter_skb, cpu);
		if (!skb)
			continue;
		/* Point data home again before the skb is freed. */
		skb->data = skb->head;
		skb->len = 0;
		kfree_skb(skb);
		per_cpu(ringcap_filter_skb, cpu) = NULL;
	}
}

int ringcap_aware_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		per_cpu(ringcap_filter_skb, cpu) = alloc_skb(0, GFP_KERNEL);
		if (!per_cpu(ringcap_filter_skb, cpu)) {
			ringcap_filter_skbs_free();
			return -ENOMEM;
		}
	}
	return 0;
}

void ringcap_aware_exit(void)
{
	ringcap_filter_skbs_free();
}
