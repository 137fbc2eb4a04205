// SPDX-License-Identifier: GPL-2.0
/*
 * The API for ringcap-aware drivers (<ringcap/driver.h>): transparent modes
 * 1 and 2, where the driver hands each frame over while it is still in its
 * DMA buffer, before (mode 1) or instead of (mode 2) building an skb.
 *
 * Which sockets an aware device feeds is an immutable, versioned set,
 * replaced under rtnl and read under RCU. The version of the set that
 * offered a frame travels with the driver's skb to the mode 0 hook, which
 * then delivers the frame to exactly the sockets that set did not hold
 * (ringcap_fed_by()): none twice when the device unregisters in between,
 * none missed when a socket binds in between.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include "ringcap.h"

struct ringcap_dev_set {
	struct rcu_head rcu;
	u32 version;
	unsigned int nr;
	struct ringcap_sock *socks[];
};

struct ringcap_dev {
	struct list_head node;		/* ringcap_devs, under rtnl */
	struct net_device *dev;
	unsigned int nr_rxq;
	struct ringcap_dev_set __rcu *set;	/* never NULL */
};

static LIST_HEAD(ringcap_devs);
static u32 ringcap_set_version;		/* under rtnl */

/* Sockets stay in sets this long while linked (ringcap_fed_by()). */
#define RINGCAP_FED_OPEN	((RINGCAP_VERSION_MASK >> 1) + 1)

static u32 ringcap_next_version(void)
{
	ASSERT_RTNL();
	ringcap_set_version = (ringcap_set_version + 1) & RINGCAP_VERSION_MASK;
	return ringcap_set_version;
}

/* rs is in sets from @version on; it is in no set yet. */
static void ringcap_fed_open(struct ringcap_sock *rs, u32 version)
{
	WRITE_ONCE(rs->fed_len, 0);
	WRITE_ONCE(rs->fed_from, version);
	WRITE_ONCE(rs->fed_len, RINGCAP_FED_OPEN);
}

/* rs is in no set from @version on. */
static void ringcap_fed_close(struct ringcap_sock *rs, u32 version)
{
	WRITE_ONCE(rs->fed_len,
		   (version - rs->fed_from) & RINGCAP_VERSION_MASK);
}

/*
 * Publish rd's next set: the current one with @add added or @del removed.
 * The sockets' fed ranges change before the set is visible, so a mark of
 * the new version never meets an old range. Removal cannot fail: a socket
 * being unbound must leave.
 */
static int ringcap_dev_set_publish(struct ringcap_dev *rd,
				   struct ringcap_sock *add,
				   struct ringcap_sock *del)
{
	struct ringcap_dev_set *old = rtnl_dereference(rd->set);
	unsigned int i, nr = old ? old->nr : 0;
	struct ringcap_dev_set *set;
	gfp_t gfp = GFP_KERNEL | (del ? __GFP_NOFAIL : 0);

	set = kmalloc(struct_size(set, socks, nr + !!add), gfp);
	if (!set)
		return -ENOMEM;
	set->version = ringcap_next_version();
	set->nr = 0;
	for (i = 0; i < nr; i++)
		if (old->socks[i] != del)
			set->socks[set->nr++] = old->socks[i];
	if (add) {
		ringcap_fed_open(add, set->version);
		set->socks[set->nr++] = add;
	}
	if (del)
		ringcap_fed_close(del, set->version);
	rcu_assign_pointer(rd->set, set);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
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

/* A socket is being bound (rtnl held): feed it from the driver if aware. */
int ringcap_dev_attach(struct ringcap_sock *rs)
{
	struct ringcap_dev *rd = ringcap_dev_find(rs->dev);
	int err;

	if (!rd)
		return 0;
	err = ringcap_dev_set_publish(rd, rs, NULL);
	if (!err)
		rs->rd = rd;
	return err;
}

/*
 * The caller waits for an RCU grace period before freeing rs
 * (ringcap_unbind() does, through dev_remove_pack()).
 */
void ringcap_dev_detach(struct ringcap_sock *rs)
{
	ASSERT_RTNL();
	if (!rs->rd)
		return;
	ringcap_dev_set_publish(rs->rd, NULL, rs);
	rs->rd = NULL;
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
	struct ringcap_dev_set *set;
	struct ringcap_sock *rs;
	struct ringcap_dev *rd;
	unsigned int nr = 0;

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

	mutex_lock(&ringcap_socks_lock);
	list_for_each_entry(rs, &ringcap_socks, all_node)
		nr += rs->dev == dev;
	set = kmalloc(struct_size(set, socks, nr), GFP_KERNEL);
	if (!set) {
		mutex_unlock(&ringcap_socks_lock);
		kfree(rd);
		return ERR_PTR(-ENOMEM);
	}
	set->version = ringcap_next_version();
	set->nr = 0;
	list_for_each_entry(rs, &ringcap_socks, all_node) {
		if (rs->dev != dev)
			continue;
		ringcap_fed_open(rs, set->version);
		rs->rd = rd;
		set->socks[set->nr++] = rs;
	}
	mutex_unlock(&ringcap_socks_lock);
	RCU_INIT_POINTER(rd->set, set);
	list_add_tail(&rd->node, &ringcap_devs);
	return rd;
}
EXPORT_SYMBOL_GPL(ringcap_register_dev);

/**
 * ringcap_unregister_dev - stop feeding rings from a device
 * @rd: the handle from ringcap_register_dev()
 *
 * Caller holds rtnl_lock and starts no ringcap_rx() call with @rd once
 * this returns; calls already running may finish meanwhile. Bound sockets
 * stay bound and fall back to the standard path (mode 0);
 * skbs the driver already marked with ringcap_rx_skb() still reach each
 * socket once.
 */
void ringcap_unregister_dev(struct ringcap_dev *rd)
{
	struct ringcap_dev_set *set = rtnl_dereference(rd->set);
	u32 version = ringcap_next_version();
	unsigned int i;

	list_del(&rd->node);
	for (i = 0; i < set->nr; i++) {
		ringcap_fed_close(set->socks[i], version);
		set->socks[i]->rd = NULL;
	}
	/*
	 * ringcap_rx() calls in flight (a driver's RX thread finishing its
	 * batch) may still walk the set, so it stays in place until they are
	 * done. What they deliver is marked with its version, which the
	 * ranges just closed still count as delivered.
	 */
	synchronize_net();
	kfree(set);
	kfree(rd);
}
EXPORT_SYMBOL_GPL(ringcap_unregister_dev);

/*
 * The frame as the rings get it: an in-band 802.1Q/802.1ad tag is taken
 * out and reported, as the standard path does before its taps run, so that
 * records and filters are the same in every mode.
 */
static void ringcap_frame_untag(struct ringcap_frame *f)
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
		.dev = rd->dev,
		.ifindex = rd->dev->ifindex,
		.queue = queue,
	};
	struct ringcap_dev_set *set;
	struct ringcap_sock *rs;
	int mode = ringcap_mode();
	unsigned int i, where;
	bool bound = false;

	if (mode == 0 || unlikely(queue >= rd->nr_rxq || len < ETH_HLEN ||
				  len > RINGCAP_RX_FRAME_MAX))
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
	if (!(f.flags & RINGCAP_REC_VLAN))
		ringcap_frame_untag(&f);
	if (!f.tstamp_ns)
		f.tstamp_ns = ktime_get_real_ns();

	local_bh_disable();
	rcu_read_lock();
	set = rcu_dereference(rd->set);
	for (i = 0; i < set->nr; i++) {
		rs = set->socks[i];
		if (rs->queue != RINGCAP_QUEUE_ANY && rs->queue != queue)
			continue;
		bound = true;
		ringcap_deliver(rs, &f);
	}
	where = set->version << RINGCAP_RX_VERSION_SHIFT;
	rcu_read_unlock();
	local_bh_enable();

	if (!bound)
		return RINGCAP_RX_STACK;
	where |= RINGCAP_RX_RING;
	return mode == 1 ? where | RINGCAP_RX_STACK : where;
}
EXPORT_SYMBOL_GPL(ringcap_rx);

/**
 * ringcap_rx_skb - note what ringcap_rx() did with the frame of an skb
 * @skb: the skb a driver built for the stack, not yet passed up
 * @where: what ringcap_rx() returned for its frame
 *
 * The mode 0 hook must deliver exactly the frames ringcap_rx() did not.
 * It cannot tell by the current mode or the current sockets, which may
 * have changed since the driver's call: the set's version travels with
 * the skb instead. Any context.
 */
void ringcap_rx_skb(struct sk_buff *skb, unsigned int where)
{
	struct ringcap_skb_cb *cb = ringcap_skb_cb(skb);

	if (!(where & RINGCAP_RX_RING))
		return;
	cb->magic = RINGCAP_SKB_IN_RINGS;
	cb->version = where >> RINGCAP_RX_VERSION_SHIFT;
}
EXPORT_SYMBOL_GPL(ringcap_rx_skb);
