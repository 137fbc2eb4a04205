// SPDX-License-Identifier: GPL-2.0
/*
 * Binding a socket to (device, queue) and unbinding it. All binding state
 * changes under rtnl_lock, which is also what the netdev notifier that
 * unbinds the sockets of a device going away runs under (sock.c).
 */
#include <linux/capability.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include "ringcap.h"

/**
 * ringcap_may_steal - may the caller take frames from the device's stack?
 * @rs: the socket it binds (or takes over)
 * @audit: whether a refusal is a denial to audit
 *
 * Zero-copy and mode 2 take frames away from the stack: an
 * administrator's act, as attaching XDP is, so it takes CAP_NET_ADMIN
 * over the device's network namespace, which is the
 * socket's (the device was found there). CAP_NET_RAW, which made the
 * socket, lets a user capture what AF_PACKET would, and no more.
 *
 * In a user namespace that owns its network namespace, its root has
 * CAP_NET_ADMIN there, and so over the devices of that namespace only:
 * the host's NICs are not in it (moving one in is the host's
 * administrator's act), so it can take nothing from the host's stack.
 * The probe for mode 2 is not audited: a capture without the capability
 * is an ordinary capture, not a denial.
 *
 * Return: whether it may.
 */
bool ringcap_may_steal(struct ringcap_sock *rs, bool audit)
{
	struct user_namespace *ns = sock_net(&rs->sk)->user_ns;

	return audit ? ns_capable(ns, CAP_NET_ADMIN) :
		       ns_capable_noaudit(ns, CAP_NET_ADMIN);
}

/*
 * rs, a member of a spanning cluster, joined or left its device's set,
 * published: every other device of its cluster follows. Its own device
 * published first, so its fed range (dev.c) opened, or closed, before any
 * other set that holds it, or no longer does, is seen.
 */
static void ringcap_span_publish(struct ringcap_sock *rs)
{
	if (ringcap_cluster_spans(rs))
		ringcap_cluster_span_devices(rs, ringcap_dev_republish);
}

/*
 * rs (rtnl held, rs->dev and rs->queue set) joins its device's set, and
 * the sources that feed the set learn of it: the mode 0 hook, which the
 * device's first socket adds, and the XDP path's map.
 */
static int ringcap_join(struct ringcap_sock *rs)
{
	struct ringcap_dev *rd;
	int err;

	ASSERT_RTNL();
	rd = ringcap_dev_get(rs->dev);
	if (!rd)
		return -ENOMEM;
	err = -EBUSY;
	if (ringcap_zc_queue_taken(rd, rs->queue))
		goto err_put;
	err = ringcap_cluster_check(rd, rs);
	if (err)
		goto err_put;
	list_add_tail(&rs->dev_node, &rd->socks);
	if (ringcap_cluster_spans(rs))
		ringcap_cluster_span_join(rs);
	err = ringcap_dev_publish(rd, rs, NULL, false, false);
	if (err)
		goto err_del;
	WRITE_ONCE(rs->rd, rd);
	ringcap_span_publish(rs);
	if (list_is_singular(&rd->socks))
		ringcap_hook_add(rd);
	ringcap_xdp_update(rd, false);
	return 0;

err_del:
	if (ringcap_cluster_spans(rs))
		ringcap_cluster_span_leave(rs);
	list_del(&rs->dev_node);
err_put:
	ringcap_dev_put(rd);
	return err;
}

/*
 * Undo ringcap_join(). Returns with no source able to reach rs: the XDP
 * path stops redirecting for it before the set without it is published,
 * the last socket's hook removal waits for a grace period, and for the
 * others we wait for one, which also covers an aware driver or the hook
 * walking the set rs has just left.
 */
static void ringcap_leave(struct ringcap_sock *rs)
{
	struct ringcap_dev *rd = rs->rd;

	ASSERT_RTNL();
	if (!rd)
		return;
	list_del(&rs->dev_node);
	ringcap_xdp_update(rd, true);
	if (ringcap_cluster_spans(rs))
		ringcap_cluster_span_leave(rs);
	ringcap_dev_publish(rd, NULL, rs, false, false);
	ringcap_span_publish(rs);
	if (list_empty(&rd->socks))
		ringcap_hook_del(rd);
	else
		synchronize_net();
	WRITE_ONCE(rs->rd, NULL);
	ringcap_dev_put(rd);
}

/**
 * ringcap_bind - bind a socket to (device, queue) and join its device
 * @rs: the socket
 * @addr: the address, its length and family checked by the caller
 *
 * Caller holds rtnl_lock, ringcap_socks_lock (every change of rs->dev
 * does, for /proc) and rs->lock, in that order (sock.c).
 *
 * Return: 0, or the errno bind(2) returns.
 */
int ringcap_bind(struct ringcap_sock *rs, const struct sockaddr_ringcap *addr)
{
	struct net_device *dev;
	unsigned int nq;
	int err;

	ASSERT_RTNL();
	lockdep_assert_held(&rs->lock);
	if (rs->dev || rs->gone)
		return -EBUSY;
	dev = __dev_get_by_index(sock_net(&rs->sk), addr->rc_ifindex);
	if (!dev)
		return -ENODEV;
	nq = ringcap_dev_nr_queues(dev);
	if (addr->rc_queue != RINGCAP_QUEUE_ANY && addr->rc_queue >= nq)
		return -ERANGE;
	err = ringcap_ring_ensure(rs);
	if (err)
		return err;
	err = ringcap_tx_prepare(rs);
	if (err)
		return err;
	if (!rs->capture && rs->zerocopy)
		return -EINVAL;
	/* A zero-copy socket takes its queue from the stack, in every mode. */
	if (rs->zerocopy && !ringcap_may_steal(rs, true))
		return -EPERM;
	if (rs->promisc && rs->capture) {
		err = dev_set_promiscuity(dev, 1);
		if (err)
			return err;
	}

	dev_hold(dev);
	rs->dev = dev;
	rs->ifindex = dev->ifindex;
	rs->queue = addr->rc_queue;
	rs->steal = rs->zerocopy || ringcap_may_steal(rs, false);
	ringcap_sock_nic_start(rs);
	ringcap_tx_bind(rs);
	if (!rs->capture)
		err = 0;	/* transmit only: no receive path to join */
	else if (rs->zerocopy)
		err = ringcap_zc_bind(rs);
	else
		err = ringcap_join(rs);
	if (err)
		goto err_unhold;
	return 0;

err_unhold:
	rs->dev = NULL;
	dev_put(dev);
	if (rs->promisc && rs->capture)
		dev_set_promiscuity(dev, -1);
	return err;
}

/**
 * ringcap_unbind - undo ringcap_bind()
 * @rs: the socket; rtnl, ringcap_socks_lock and rs->lock held
 *
 * Returns with no producer able to reach the socket (ringcap_leave() and
 * ringcap_zc_unbind() wait for them). Nothing to do for an unbound one.
 */
void ringcap_unbind(struct ringcap_sock *rs)
{
	struct net_device *dev = rs->dev;

	ASSERT_RTNL();
	if (!dev)
		return;
	if (rs->zc)
		ringcap_zc_unbind(rs);
	else if (rs->capture)
		ringcap_leave(rs);
	ringcap_sock_fold_missed(rs);
	if (rs->promisc && rs->capture)
		dev_set_promiscuity(dev, -1);
	rs->dev = NULL;
	dev_put(dev);
}
