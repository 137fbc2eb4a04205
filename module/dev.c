// SPDX-License-Identifier: GPL-2.0
/*
 * What ringcap keeps per net_device: the sockets bound to it, published
 * as an immutable, versioned set of destinations that every source of
 * frames walks under RCU (the one mode 0 packet_type of the device, an
 * aware driver's ringcap_rx()), so that N sockets cost one hook call per
 * frame, not N. A destination is one socket, or one cluster whose members
 * share the frames (cluster.c).
 *
 * The state exists while a socket is bound to the device (bind.c, which
 * publishes the set as sockets join and leave) or an aware driver has
 * registered it (aware.c), and changes under rtnl only. On a
 * device with native XDP it also holds the reader's XDP link (xdp.c).
 *
 * The version of the set that offered a frame in an aware driver travels
 * with the driver's skb to the device's mode 0 hook, which then delivers
 * the frame to exactly the destinations that set did not hold
 * (ringcap_fed_by()): none twice when the device unregisters in between,
 * none missed when a socket binds in between. Versions are global, one
 * sequence for all devices, so a version says nothing about the sockets
 * of another device: the hooks of devices stacked on the aware one
 * ignore the mark (hook.c).
 */
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include "ringcap.h"

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

static struct ringcap_dest *ringcap_set_cluster(struct ringcap_dev_set *set,
						u32 id)
{
	unsigned int i;

	for (i = 0; i < set->nr_dests; i++)
		if (set->dests[i].cluster.id == id)
			return &set->dests[i];
	return NULL;
}

/* One destination per lone socket, and one per cluster with its members. */
static void ringcap_set_fill(struct ringcap_dev_set *set,
			     struct list_head *socks)
{
	struct ringcap_sock *rs, *m;
	struct ringcap_dest *d;
	unsigned int n = 0, i;

	list_for_each_entry(rs, socks, dev_node) {
		if (rs->cluster.id && ringcap_set_cluster(set, rs->cluster.id))
			continue;
		d = &set->dests[set->nr_dests++];
		d->cluster = rs->cluster;
		d->queue = rs->queue;
		d->steal = rs->steal;
		d->socks = &set->socks[n];
		d->nr = 0;
		atomic_set(&d->next, 0);
		if (!rs->cluster.id) {
			set->socks[n++] = rs;
			d->nr = 1;
			continue;
		}
		if (ringcap_cluster_spans(rs)) {
			/*
			 * Its members on every device (cluster.c). Only those
			 * bound here may keep this device's frames from its
			 * stack (mode 2), as on every path (xdp.c too).
			 */
			d->nr = ringcap_cluster_span_members(rs, d->socks);
			for (i = 0; i < d->nr; i++)
				if (d->socks[i]->ifindex == rs->ifindex)
					d->steal |= d->socks[i]->steal;
			n += d->nr;
			continue;
		}
		list_for_each_entry(m, socks, dev_node) {
			if (m->cluster.id != rs->cluster.id)
				continue;
			set->socks[n++] = m;
			d->steal |= m->steal;
			d->nr++;
		}
	}
}

/**
 * ringcap_dev_publish - publish a device's next socket set
 * @rd: the device; rtnl held
 * @add: a socket new in rd->socks, or NULL
 * @del: a socket gone from rd->socks, or NULL
 * @open_all: every socket starts being fed by this version, as when a
 *	      driver registers
 * @nofail: the allocation may not fail (a republish)
 *
 * The set is built from rd->socks. The sockets' fed ranges change before
 * the set is visible, so a mark of the new version never meets an old
 * range. The old set is freed after a grace period.
 *
 * Return: 0, or -ENOMEM; never an error with @del: a socket being unbound
 * must leave.
 */
int ringcap_dev_publish(struct ringcap_dev *rd, struct ringcap_sock *add,
			struct ringcap_sock *del, bool open_all, bool nofail)
{
	struct ringcap_dev_set *old = rtnl_dereference(rd->set);
	gfp_t gfp = GFP_KERNEL | (del || nofail ? __GFP_NOFAIL : 0);
	struct ringcap_dev_set *set;
	struct ringcap_sock *rs;
	unsigned int nr = 0;

	unsigned int nr_span;

	list_for_each_entry(rs, &rd->socks, dev_node)
		nr++;
	/* Spanning clusters bring members of other devices (cluster.c). */
	nr_span = ringcap_cluster_span_room(&rd->socks);
	/* At most one destination per socket, after the socket pointers. */
	set = kmalloc(struct_size(set, socks, nr + nr_span) +
		      nr * sizeof(struct ringcap_dest), gfp);
	if (!set)
		return -ENOMEM;
	set->version = ringcap_next_version();
	set->nr_dests = 0;
	set->dests = (struct ringcap_dest *)&set->socks[nr + nr_span];
	ringcap_set_fill(set, &rd->socks);
	if (open_all)
		list_for_each_entry(rs, &rd->socks, dev_node)
			ringcap_fed_open(rs, set->version);
	if (add)
		ringcap_fed_open(add, set->version);
	if (del)
		ringcap_fed_close(del, set->version);
	rcu_assign_pointer(rd->set, set);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

/**
 * ringcap_dev_republish - publish a device's set anew, as it stands
 * @rd: the device, whose spanning clusters changed elsewhere; rtnl held
 *
 * Sockets neither join nor leave it, so it cannot fail.
 */
void ringcap_dev_republish(struct ringcap_dev *rd)
{
	ringcap_dev_publish(rd, NULL, NULL, false, true);
}

/**
 * ringcap_dev_close_all - no set of @rd offers its sockets frames from now
 * @rd: the device, whose aware driver unregisters; rtnl held
 *
 * Every socket's fed range closes, so the mode 0 hook takes over.
 */
void ringcap_dev_close_all(struct ringcap_dev *rd)
{
	u32 version = ringcap_next_version();
	struct ringcap_sock *rs;

	list_for_each_entry(rs, &rd->socks, dev_node)
		ringcap_fed_close(rs, version);
}

/**
 * ringcap_dev_open_all - every socket of @rd is fed by a new set
 * @rd: the device, whose aware driver registers; rtnl held
 *
 * Return: 0 or -ENOMEM.
 */
int ringcap_dev_open_all(struct ringcap_dev *rd)
{
	return ringcap_dev_publish(rd, NULL, NULL, true, false);
}

/**
 * ringcap_dev_find - the state ringcap keeps for a device
 * @dev: the device; rtnl held
 *
 * Return: the state, or NULL if it has none.
 */
struct ringcap_dev *ringcap_dev_find(struct net_device *dev)
{
	struct ringcap_dev *rd;

	ASSERT_RTNL();
	list_for_each_entry(rd, &ringcap_devs, node)
		if (rd->dev == dev)
			return rd;
	return NULL;
}

/**
 * ringcap_dev_find_rcu - ringcap_dev_find() under RCU instead of rtnl
 * @dev: the device
 *
 * The transmit ring asks without rtnl.
 *
 * Return: the state, valid until rcu_read_unlock(), or NULL.
 */
struct ringcap_dev *ringcap_dev_find_rcu(struct net_device *dev)
{
	struct ringcap_dev *rd;

	list_for_each_entry_rcu(rd, &ringcap_devs, node)
		if (rd->dev == dev)
			return rd;
	return NULL;
}

/**
 * ringcap_dev_get - the state of a device, created if it has none
 * @dev: the device; rtnl held
 *
 * A new state has an empty set. Undone by ringcap_dev_put().
 *
 * Return: the state, or NULL for want of memory.
 */
struct ringcap_dev *ringcap_dev_get(struct net_device *dev)
{
	struct ringcap_dev *rd = ringcap_dev_find(dev);
	struct ringcap_dev_set *set;

	if (rd)
		return rd;
	rd = kzalloc(sizeof(*rd), GFP_KERNEL);
	set = kzalloc(sizeof(*set), GFP_KERNEL);
	if (!rd || !set) {
		kfree(set);
		kfree(rd);
		return NULL;
	}
	rd->dev = dev;
	rd->xdp_native = !!dev->netdev_ops->ndo_bpf;
	INIT_LIST_HEAD(&rd->socks);
	set->version = ringcap_next_version();
	set->dests = (struct ringcap_dest *)set->socks;
	RCU_INIT_POINTER(rd->set, set);
	list_add_tail_rcu(&rd->node, &ringcap_devs);
	return rd;
}

/**
 * ringcap_dev_put - free a device's state once nothing needs it
 * @rd: the state; rtnl held
 *
 * Freed when neither a socket nor a driver needs it. The packet_type
 * left with the last socket and the driver has stopped calling
 * ringcap_rx(), each followed by a grace period; but the XDP kfunc may be
 * called by any XDP program, not only ours, and finds the device under
 * RCU until it leaves the list here, as /proc and RINGCAP_PATH readers
 * do: the set and the state go after a grace period.
 */
void ringcap_dev_put(struct ringcap_dev *rd)
{
	struct ringcap_dev_set *set;

	ASSERT_RTNL();
	if (rd->nr_rxq || !list_empty(&rd->socks))
		return;
	list_del_rcu(&rd->node);
	set = rcu_dereference_protected(rd->set, true);
	if (set)
		kfree_rcu(set, rcu);
	kfree_rcu(rd, rcu);
}

/**
 * ringcap_dev_nr_queues - how many RX queues a socket may bind to
 * @dev: the device; rtnl held
 *
 * Return: the aware driver's count, else the device's real RX queues.
 */
unsigned int ringcap_dev_nr_queues(struct net_device *dev)
{
	struct ringcap_dev *rd = ringcap_dev_find(dev);

	return rd && rd->nr_rxq ? rd->nr_rxq : dev->real_num_rx_queues;
}

/*
 * Has one of d's sockets had the frames of set @version of device
 * @ifindex already? A socket's fed range counts its own device's sets:
 * a spanning cluster's members bound elsewhere say nothing of this
 * device's (its destination here exists exactly while a member bound
 * here does).
 */
static bool ringcap_dest_fed(const struct ringcap_dest *d, int ifindex,
			     u32 version)
{
	unsigned int i;

	for (i = 0; i < d->nr; i++)
		if (d->socks[i]->ifindex == ifindex &&
		    ringcap_fed_by(d->socks[i], version))
			return true;
	return false;
}

/**
 * ringcap_set_deliver_batched - offer a frame of a batch to a set
 * @set: the device's set, under RCU with BH disabled
 * @f: the frame
 * @skip: the version of the set that offered the frame already, or NULL
 * @b: the batch (ringcap_deliver_batched()); the caller ends it
 *
 * A destination bound to another queue does not want the frame; one fed by
 * @skip has it. Every other lone socket gets it, and every cluster gives
 * it to one member.
 *
 * Return: RINGCAP_SET_WANTED if a destination wanted the frame, with
 * RINGCAP_SET_STEAL if one of those may keep it from the stack in mode 2.
 */
unsigned int ringcap_set_deliver_batched(struct ringcap_dev_set *set,
					 struct ringcap_frame *f,
					 const u32 *skip,
					 struct ringcap_batch *b)
{
	struct ringcap_dest *d;
	unsigned int wanted = 0;
	unsigned int i;

	for (i = 0; i < set->nr_dests; i++) {
		d = &set->dests[i];
		if (d->queue != RINGCAP_QUEUE_ANY && d->queue != f->queue)
			continue;
		wanted |= RINGCAP_SET_WANTED |
			  (d->steal ? RINGCAP_SET_STEAL : 0);
		if (skip && ringcap_dest_fed(d, f->ifindex, *skip))
			continue;
		ringcap_deliver_batched(b, d->nr == 1 ? d->socks[0] :
					ringcap_cluster_pick(d, f), f);
	}
	return wanted;
}

/**
 * ringcap_set_deliver - offer one frame to a set, a batch of its own
 * @set: the device's set, under RCU with BH disabled
 * @f: the frame
 * @skip: as for ringcap_set_deliver_batched()
 *
 * Return: as ringcap_set_deliver_batched().
 */
unsigned int ringcap_set_deliver(struct ringcap_dev_set *set,
				 struct ringcap_frame *f, const u32 *skip)
{
	struct ringcap_batch b = {};
	unsigned int wanted = ringcap_set_deliver_batched(set, f, skip, &b);

	ringcap_batch_end(&b);
	return wanted;
}
