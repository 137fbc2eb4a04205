// SPDX-License-Identifier: GPL-2.0
/*
 * Mode 2 on devices with native XDP and no aware driver: capture before
 * the skb. The reader attaches libringcap's XDP program to the device as a
 * BPF link and hands the link over (RINGCAP_XDP_LINK); the module keeps it
 * while sockets are bound there and steers the program through its
 * ringcap_cfg map: redirect the frames some socket wants into this
 * namespace's ringcapxdpN device, pass the rest. That device's
 * ndo_xdp_xmit() receives the frames in batches, without an skb, and
 * offers them to the device's set as the aware path does.
 *
 * Every frame takes exactly one of two ways, the redirect or the stack
 * (where the mode 0 hook sees it), and each delivers to the set current
 * when the frame arrives; so a change of mode or of the bound sockets
 * neither loses nor duplicates a frame. The one care needed: a frame
 * redirected for a socket must still find it, so a socket leaves the
 * map, and a grace period passes, before it leaves the set.
 *
 * Only sockets bound with CAP_NET_ADMIN (rs->steal, bind.c) write the
 * map: a frame is taken from the stack only for them. The others get the
 * redirected frames they want too, and the rest through the mode 0 hook,
 * as in mode 1; the link is held while a socket of the first kind is
 * bound.
 */
#include <linux/bpf.h>
#include <linux/file.h>
#include <linux/filter.h>
#include <linux/if_arp.h>
#include <linux/llist.h>
#include <linux/ratelimit.h>
#include <linux/rtnetlink.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/xdp.h>
#include "ringcap.h"

/* Devices whose link the module holds: under rtnl, RCU for the xmit. */
static LIST_HEAD(ringcap_xdp_devs);

/*
 * What the module holds of a reader's XDP link, each by a reference of its
 * own: the link's file (the link stays attached while it is open), the
 * program that ran on the link when it was handed over, and that
 * program's map (the redirect program's; the copy program has none). The
 * link may be detached, or given another program (BPF_LINK_UPDATE), while
 * the module holds it; the program and the map it writes then still live
 * until it lets them go.
 */
struct ringcap_xdp_hold {
	struct llist_node gone;
	struct file *file;
	struct bpf_prog *prog;
	struct bpf_map *map;
};

/*
 * Holds let go of, put by a work item: the last put of a program or of a
 * link may take rtnl (an XDP link's release detaches it; a device-bound
 * program's release unbinds it), and they are let go of under rtnl.
 */
static LLIST_HEAD(ringcap_xdp_gone);

static void ringcap_xdp_put_work(struct work_struct *work)
{
	struct ringcap_xdp_hold *h, *next;

	llist_for_each_entry_safe(h, next, llist_del_all(&ringcap_xdp_gone),
				  gone) {
		if (h->map)
			bpf_map_put(h->map);
		bpf_prog_put(h->prog);
		/* The link's release, if this is the last reference. */
		fput(h->file);
		kfree(h);
	}
}

static DECLARE_WORK(ringcap_xdp_put, ringcap_xdp_put_work);

/*
 * What a user without privileges in the initial namespace can make the
 * module log (the fallbacks: CAP_NET_ADMIN over its own network namespace
 * is enough) is rate limited, together; the path in /proc/net/ringcap and
 * RINGCAP_PATH says the same for every socket.
 */
static DEFINE_RATELIMIT_STATE(ringcap_xdp_log, DEFAULT_RATELIMIT_INTERVAL,
			      DEFAULT_RATELIMIT_BURST);
#define ringcap_xdp_fallback(dev, fmt, ...)				\
	do {								\
		if (__ratelimit(&ringcap_xdp_log))			\
			netdev_info(dev, "mode %d stays on the mode 0 hook: " \
				    fmt, ringcap_mode(), ##__VA_ARGS__); \
	} while (0)

static unsigned int ringcap_xdp_net_id;
struct ringcap_xdp_net {
	struct net_device *target;	/* under rtnl; made on first use */
};

/* The device holding a link that redirected to target, by ifindex. */
static struct ringcap_dev *ringcap_xdp_find(const struct net_device *target,
					    int ifindex)
{
	struct ringcap_dev *rd;

	list_for_each_entry_rcu(rd, &ringcap_xdp_devs, xdp_node)
		if (rd->dev->ifindex == ifindex &&
		    net_eq(dev_net(rd->dev), dev_net(target)))
			return rd;
	return NULL;
}

/*
 * Offer one redirected frame to its device's set. Its origin is in the
 * metadata the program wrote: a redirected frame carries no pointer to
 * its device. *from and *rd cache the last lookup of a batch.
 */
static bool ringcap_xdp_offer(struct net_device *target,
			      struct xdp_frame *xdpf, u64 tstamp_ns, int *from,
			      struct ringcap_dev **rd, struct ringcap_batch *b)
{
	const struct ringcap_xdp_meta *meta = xdpf->data - sizeof(*meta);
	struct ringcap_frame f = {
		.data = xdpf->data,
		.len = xdpf->len,
	};

	if (xdpf->metasize < sizeof(*meta) || xdpf->len < ETH_HLEN)
		return false;
	if (meta->ifindex != *from) {
		*from = meta->ifindex;
		*rd = ringcap_xdp_find(target, *from);
	}
	if (!*rd)
		return false;
	f.dev = (*rd)->dev;
	f.ifindex = *from;
	f.queue = min_t(u32, meta->queue, RINGCAP_QUEUE_ANY - 1);
	f.tstamp_ns = tstamp_ns;
	ringcap_frame_untag(&f);
	return ringcap_set_deliver_batched(rcu_dereference((*rd)->set), &f,
					   NULL, b);
}

/*
 * The target device's ndo_xdp_xmit(), in the receiving driver's NAPI
 * poll, at its flush: a batch of up to 16 frames that poll received.
 * Every frame is consumed: offered, then given back. One no set wanted
 * (its socket left in between, or it came from elsewhere) counts in the
 * target's tx_dropped.
 *
 * The batch shares one timestamp: its frames left the NIC's ring in one
 * poll, and a clock read per frame (on a guest, a trap to the
 * hypervisor) cost about what the redirect itself does. A socket that
 * takes consecutive frames of it is locked, and its watermark checked,
 * once (struct ringcap_batch). The frames go back in bulk, which a
 * page_pool driver takes in one call.
 */
static int ringcap_xdp_xmit(struct net_device *target, int n,
			    struct xdp_frame **frames, u32 flags)
{
	u64 tstamp_ns = ktime_get_real_ns();
	struct ringcap_batch b = {};
	struct ringcap_dev *rd = NULL;
	struct xdp_frame_bulk bq;
	int i, from = 0;

	xdp_frame_bulk_init(&bq);
	rcu_read_lock();	/* also what xdp_return_frame_bulk() needs */
	for (i = 0; i < n; i++) {
		if (!ringcap_xdp_offer(target, frames[i], tstamp_ns, &from, &rd,
				       &b))
			dev_core_stats_tx_dropped_inc(target);
	}
	ringcap_batch_end(&b);
	for (i = 0; i < n; i++)
		xdp_return_frame_bulk(frames[i], &bq);
	xdp_flush_frame_bulk(&bq);
	rcu_read_unlock();
	return n;
}

/* Nothing is sent through the target; the stack's frames are dropped. */
static netdev_tx_t ringcap_xdp_start_xmit(struct sk_buff *skb,
					  struct net_device *dev)
{
	dev_core_stats_tx_dropped_inc(dev);
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops ringcap_xdp_ops = {
	.ndo_start_xmit = ringcap_xdp_start_xmit,
	.ndo_xdp_xmit = ringcap_xdp_xmit,
};

static void ringcap_xdp_setup(struct net_device *dev)
{
	dev->netdev_ops = &ringcap_xdp_ops;
	/*
	 * Not ARPHRD_NONE: IPv6 configures that type (as it does tun),
	 * and the router solicitations and MLD reports it would then send
	 * through here would count as frames the target dropped. The
	 * stack configures nothing on a void device.
	 */
	dev->type = ARPHRD_VOID;
	dev->flags = IFF_NOARP;
	dev->priv_flags |= IFF_NO_QUEUE;
	/* Redirects check the frame against the MTU. */
	dev->mtu = ETH_MAX_MTU;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = ETH_MAX_MTU;
	dev->needs_free_netdev = true;
	/*
	 * The namespace's ringcap_xdp_net points at it and its programs
	 * redirect to its ifindex there: moved elsewhere it would serve
	 * no one, and its new namespace's deletion would hand it to
	 * init_net (a device without rtnl_link_ops is pushed back there)
	 * while the old namespace still held it.
	 */
	ringcap_set_netns_local(dev);
	ringcap_xdp_features_ndo_xmit(dev);
}

/* The namespace's target device, made and brought up on first use. */
static struct net_device *ringcap_xdp_target(struct net *net)
{
	struct ringcap_xdp_net *xn = net_generic(net, ringcap_xdp_net_id);
	struct net_device *dev;
	int err;

	ASSERT_RTNL();
	if (xn->target)
		return xn->target;
	dev = alloc_netdev(0, "ringcapxdp%d", NET_NAME_ENUM,
			   ringcap_xdp_setup);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	dev_net_set(dev, net);
	err = register_netdevice(dev);
	if (err)
		goto err_free;
	err = dev_open(dev, NULL);
	if (err)
		goto err_unregister;
	xn->target = dev;
	return dev;

err_unregister:
	unregister_netdevice(dev);
	return ERR_PTR(err);
err_free:
	free_netdev(dev);
	return ERR_PTR(err);
}

static void __net_exit ringcap_xdp_net_exit(struct net *net)
{
	struct ringcap_xdp_net *xn = net_generic(net, ringcap_xdp_net_id);

	if (!xn->target)
		return;
	rtnl_lock();
	unregister_netdevice(xn->target);
	xn->target = NULL;
	rtnl_unlock();
}

static struct pernet_operations ringcap_xdp_net_ops = {
	.exit = ringcap_xdp_net_exit,
	.id = &ringcap_xdp_net_id,
	.size = sizeof(struct ringcap_xdp_net),
};

static void ringcap_xdp_cfg(struct bpf_map *map, u32 key, u32 val)
{
	u32 *v;

	rcu_read_lock();
	v = map->ops->map_lookup_elem(map, &key);
	if (v)
		WRITE_ONCE(*v, val);
	rcu_read_unlock();
}

/* Is a socket that may take frames from the stack bound to rd? */
static bool ringcap_xdp_stealers(struct ringcap_dev *rd)
{
	struct ringcap_sock *rs;

	list_for_each_entry(rs, &rd->socks, dev_node)
		if (rs->steal)
			return true;
	return false;
}

/*
 * The link attached to dev in native mode, as the kernel's BPF code hands
 * it out (the private_data of its file): struct bpf_xdp_link (private to
 * net/core/dev.c, 5.9 to 6.12 at least) begins with its struct bpf_link.
 * Under rtnl, which every attach, detach and update of an XDP link holds.
 */
static const void *ringcap_xdp_dev_link(const struct net_device *dev)
{
	ASSERT_RTNL();
	return dev->xdp_state[XDP_MODE_DRV].link;
}

/*
 * Does rd's device still run, through the link the module holds, the
 * program it was handed over with? Not once the link was detached
 * (BPF_LINK_DETACH, or the device going away) or given another program
 * (BPF_LINK_UPDATE). Under rtnl, which orders both.
 */
static bool ringcap_xdp_runs(const struct ringcap_dev *rd)
{
	const struct bpf_link *link = rd->xdp->file->private_data;

	return ringcap_xdp_dev_link(rd->dev) == link &&
	       READ_ONCE(link->prog) == rd->xdp->prog;
}

/*
 * Let go of rd's link, its program and map (rtnl held): it no longer
 * redirects anything to the sockets here, and the module writes its map
 * no more. @error, if not 0, is why, for RINGCAP_PATH. The references go
 * in a work item (see ringcap_xdp_gone), after a grace period for the
 * target's xmit, which looks rd up in ringcap_xdp_devs.
 */
static void ringcap_xdp_release(struct ringcap_dev *rd, int error)
{
	struct ringcap_xdp_hold *h = rd->xdp;

	ASSERT_RTNL();
	/*
	 * Whatever still runs the redirect program passes every frame; the
	 * copy program's kfunc keeps copying for the sockets that are left.
	 */
	if (h->map)
		ringcap_xdp_cfg(h->map, RINGCAP_XDP_CFG_TARGET, 0);
	list_del_rcu(&rd->xdp_node);
	synchronize_net();
	WRITE_ONCE(rd->xdp, NULL);
	WRITE_ONCE(rd->xdp_copy, false);
	WRITE_ONCE(rd->xdp_error, error);
	llist_add(&h->gone, &ringcap_xdp_gone);
	schedule_work(&ringcap_xdp_put);
	if (error)
		ringcap_xdp_fallback(rd->dev, "the XDP link was detached or given another program (%pe)\n",
				     ERR_PTR(-error));
	else
		netdev_info(rd->dev, "XDP program released\n");
}

/*
 * Write rd's map from its bound sockets and the mode: which queues are
 * wanted, then whether to redirect at all. First, if the link no longer
 * runs the program the map belongs to, let it go (the frames go to the
 * stack, where the mode 0 hook sees them). Returns whether rd still holds
 * a link.
 */
static bool ringcap_xdp_write(struct ringcap_dev *rd)
{
	DECLARE_BITMAP(want, RINGCAP_XDP_QUEUES) = {};
	struct ringcap_sock *rs;
	struct bpf_map *map;
	bool any = false;
	unsigned int q;

	ASSERT_RTNL();
	if (!ringcap_xdp_runs(rd)) {
		ringcap_xdp_release(rd, ENOLINK);
		return false;
	}
	/* The copy program's kfunc reads the sockets and the mode itself. */
	map = rd->xdp->map;
	if (!map)
		return true;
	list_for_each_entry(rs, &rd->socks, dev_node) {
		if (!rs->steal)
			continue;
		if (rs->queue == RINGCAP_QUEUE_ANY)
			any = true;
		else if (rs->queue < RINGCAP_XDP_QUEUES)
			__set_bit(rs->queue, want);
	}
	for (q = 0; q < RINGCAP_XDP_QUEUES; q++)
		ringcap_xdp_cfg(map, RINGCAP_XDP_CFG_QUEUE0 + q,
				test_bit(q, want));
	ringcap_xdp_cfg(map, RINGCAP_XDP_CFG_ANY, any);
	ringcap_xdp_cfg(map, RINGCAP_XDP_CFG_DEV, rd->dev->ifindex);
	ringcap_xdp_cfg(map, RINGCAP_XDP_CFG_TARGET,
			ringcap_mode() == RINGCAP_MODE_STEAL &&
			ringcap_xdp_stealers(rd) ? rd->xdp_target : 0);
	return true;
}

/* The transparent mode changed: redirect, or stop, on every device. */
static void ringcap_xdp_mode_changed(void)
{
	struct ringcap_dev *rd, *next;

	rtnl_lock();
	list_for_each_entry_safe(rd, next, &ringcap_xdp_devs, xdp_node)
		ringcap_xdp_write(rd);
	rtnl_unlock();
}

/*
 * The map of libringcap's program, with a reference of the caller's, or
 * NULL if prog is not such a program. The module writes the map, so one
 * that the BPF code promised nobody would write, as the verifier may
 * have relied on (BPF_F_RDONLY_PROG, frozen), is refused.
 */
static struct bpf_map *ringcap_xdp_map(struct bpf_prog *prog)
{
	struct bpf_map *map = NULL;

	if (prog->type != BPF_PROG_TYPE_XDP)
		return NULL;
	/* BPF_PROG_BIND_MAP adds maps under this mutex. */
	mutex_lock(&prog->aux->used_maps_mutex);
	if (prog->aux->used_map_cnt == 1) {
		map = prog->aux->used_maps[0];
		bpf_map_inc(map);
	}
	mutex_unlock(&prog->aux->used_maps_mutex);
	if (!map)
		return NULL;
	if (map->map_type != BPF_MAP_TYPE_ARRAY || map->key_size != 4 ||
	    map->value_size != 4 ||
	    map->max_entries != RINGCAP_XDP_CFG_ENTRIES ||
	    (map->map_flags & (BPF_F_RDONLY | BPF_F_WRONLY |
			       BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG)) ||
	    READ_ONCE(map->frozen)) {
		bpf_map_put(map);
		return NULL;
	}
	return map;
}

/*
 * Is prog what libringcap's copy program looks like: an XDP program that
 * calls the kfunc and has no map (the redirect program has its map)?
 * Whatever it is, the module writes nothing of it.
 */
static bool ringcap_xdp_copy_prog(struct bpf_prog *prog)
{
	bool mapless;

	if (prog->type != BPF_PROG_TYPE_XDP || !ringcap_kfunc_called_by(prog))
		return false;
	mutex_lock(&prog->aux->used_maps_mutex);
	mapless = !prog->aux->used_map_cnt;
	mutex_unlock(&prog->aux->used_maps_mutex);
	return mapless;
}

/**
 * ringcap_xdp_set_link - take over the reader's XDP link for its device
 * @rs: a bound socket, rtnl held
 * @req: the link, or the errno its attach failed with
 *
 * The link is known by the device: it must be the one attached to rs's
 * device in native mode, which no other file can be. Its program and,
 * for the redirect program, its map are then taken with references of
 * the module's own. The copy program (RINGCAP_XDP_LINK_COPY) is any XDP
 * program without maps: the module writes nothing of it, and whatever it
 * does with the kfunc, the kfunc checks.
 *
 * Return: 0, or -EINVAL, -EBUSY, -EBADF, -ENOMEM, -EPERM as the ABI says.
 */
int ringcap_xdp_set_link(struct ringcap_sock *rs,
			 const struct ringcap_xdp_link *req)
{
	struct ringcap_dev *rd = rs->rd;
	struct ringcap_xdp_hold *h;
	struct net_device *target;
	struct bpf_link *link;
	int err;

	ASSERT_RTNL();
	if (!rd || rd->nr_rxq)
		return -EINVAL;
	/* Its link would serve nothing of its own, and outlive its reason. */
	if (!rs->steal)
		return -EPERM;
	/* A link that went away since (the write lets it go) leaves room. */
	if (rd->xdp && ringcap_xdp_write(rd))
		return -EBUSY;
	if (req->fd < 0) {
		if (req->error <= 0)
			return -EINVAL;
		if (rd->xdp_error != req->error)
			ringcap_xdp_fallback(rd->dev, "attaching the XDP program failed (%pe)\n",
					     ERR_PTR(-req->error));
		WRITE_ONCE(rd->xdp_error, req->error);
		return 0;
	}
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	err = -EBADF;
	h->file = fget(req->fd);
	if (!h->file)
		goto err_free;
	err = -EINVAL;
	link = h->file->private_data;
	if (!link || ringcap_xdp_dev_link(rd->dev) != link)
		goto err_fput;
	h->prog = READ_ONCE(link->prog);
	if (req->flags & RINGCAP_XDP_LINK_COPY) {
		if (!ringcap_xdp_copy_prog(h->prog))
			goto err_fput;
	} else {
		h->map = ringcap_xdp_map(h->prog);
		if (!h->map)
			goto err_fput;
	}
	bpf_prog_inc(h->prog);
	/* The redirect program's target; the copy program has none. */
	if (h->map) {
		target = ringcap_xdp_target(dev_net(rd->dev));
		err = PTR_ERR(target);
		if (IS_ERR(target))
			goto err_put;
		rd->xdp_target = target->ifindex;
	}

	WRITE_ONCE(rd->xdp_error, 0);
	WRITE_ONCE(rd->xdp_copy, !h->map);
	WRITE_ONCE(rd->xdp, h);
	list_add_rcu(&rd->xdp_node, &ringcap_xdp_devs);
	ringcap_xdp_write(rd);
	if (h->map)
		netdev_info(rd->dev, "mode 2 through XDP into %s\n",
			    netdev_name(target));
	else
		netdev_info(rd->dev, "capture in XDP, copied by the kfunc\n");
	return 0;

err_put:
	/* Not the last references: the link holds both. */
	bpf_prog_put(h->prog);
	if (h->map)
		bpf_map_put(h->map);
err_fput:
	fput(h->file);
err_free:
	kfree(h);
	return err;
}

/**
 * ringcap_xdp_update - a device's sockets changed: rewrite its XDP map
 * @rd: the device; rtnl held
 * @leaving: a socket was just unlinked from rd->socks
 *
 * A socket that left stops being redirected for here, and when no socket
 * that may take frames is left the link goes; either way, frames
 * redirected before must find the sockets still in the set, hence the
 * grace period here, before the caller publishes the set without it.
 */
void ringcap_xdp_update(struct ringcap_dev *rd, bool leaving)
{
	ASSERT_RTNL();
	if (!rd->xdp) {
		/*
		 * libringcap attaches nothing where the driver has no XDP;
		 * the fallback is said when the first reader binds.
		 */
		if (!leaving && !rd->nr_rxq && !rd->xdp_native &&
		    ringcap_mode() == RINGCAP_MODE_STEAL &&
		    list_is_singular(&rd->socks))
			ringcap_xdp_fallback(rd->dev, "the driver has no native XDP\n");
		return;
	}
	if (!ringcap_xdp_write(rd) || !leaving)
		return;
	synchronize_net();
	if (ringcap_xdp_stealers(rd))
		return;
	/*
	 * Nothing is redirected here any more; the caller's grace period
	 * covers readers of the list.
	 */
	ringcap_xdp_release(rd, 0);
}

/**
 * ringcap_xdp_init - the redirect targets' namespaces; follow the mode
 *
 * Return: 0 or register_pernet_device()'s error.
 */
int __init ringcap_xdp_init(void)
{
	int err = register_pernet_device(&ringcap_xdp_net_ops);

	if (!err)
		ringcap_mode_follow(ringcap_xdp_mode_changed);
	return err;
}

/**
 * ringcap_xdp_exit - undo ringcap_xdp_init() once no socket is left
 */
void ringcap_xdp_exit(void)
{
	ringcap_mode_follow(NULL);
	unregister_pernet_device(&ringcap_xdp_net_ops);
	/* No socket is left to let go of a link; put what they let go. */
	flush_work(&ringcap_xdp_put);
}
