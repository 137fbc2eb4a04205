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

static int ringcap_ring_ensure(struct ringcap_sock *rs)
{
	struct ringcap_ring *ring;

	lockdep_assert_held(&rs->lock);
	if (rs->ring)
		return 0;
	ring = ringcap_ring_alloc(rs->ring_size, rs->snaplen);
	if (IS_ERR(ring))
		return PTR_ERR(ring);
	WRITE_ONCE(rs->ring, ring);
	return 0;
}

/* The ring, allocated with the socket's size if it has none yet. */
struct ringcap_ring *ringcap_sock_ring(struct ringcap_sock *rs)
{
	struct ringcap_ring *ring;
	int err;

	mutex_lock(&rs->lock);
	err = ringcap_ring_ensure(rs);
	ring = err ? ERR_PTR(err) : rs->ring;
	mutex_unlock(&rs->lock);
	return ring;
}

static u64 ringcap_dev_missed(struct net_device *dev)
{
	struct rtnl_link_stats64 st;

	dev_get_stats(dev, &st);
	return st.rx_missed_errors;
}

/*
 * Fold the device's missed-frame counter into the socket's. Drivers may
 * reset their counters (a reinit, ethtool), so a value below the last one
 * read starts a new run from zero rather than wrapping the difference.
 * rs->lock keeps rs->dev bound (every unbind holds it) and the sum whole.
 */
static void ringcap_sock_fold_missed(struct ringcap_sock *rs)
{
	u64 now;

	lockdep_assert_held(&rs->lock);
	if (!rs->dev)
		return;
	now = ringcap_dev_missed(rs->dev);
	rs->nic_dropped += now >= rs->nic_missed_last ?
			   now - rs->nic_missed_last : now;
	rs->nic_missed_last = now;
}

/* The device's missed frames since bind; needs rs->lock, not rtnl. */
u64 ringcap_sock_nic_dropped(struct ringcap_sock *rs)
{
	u64 v;

	mutex_lock(&rs->lock);
	ringcap_sock_fold_missed(rs);
	v = rs->nic_dropped;
	mutex_unlock(&rs->lock);
	return v;
}

/* The name /proc shows; ringcap_socks_lock held, so readers see it whole. */
void ringcap_sock_set_devname(struct ringcap_sock *rs, const char *name)
{
	lockdep_assert_held(&ringcap_socks_lock);
	strscpy(rs->devname, name, sizeof(rs->devname));
}

/*
 * May this bind take frames away from the device's stack (zero-copy, and
 * mode 2)? That is an administrator's act, as attaching XDP is, so it
 * takes CAP_NET_ADMIN over the device's network namespace, which is the
 * socket's (the device was found there). CAP_NET_RAW, which made the
 * socket, lets a user capture what AF_PACKET would, and no more.
 *
 * In a user namespace that owns its network namespace, its root has
 * CAP_NET_ADMIN there, and so over the devices of that namespace only:
 * the host's NICs are not in it (moving one in is the host's
 * administrator's act), so it can take nothing from the host's stack.
 * The probe for mode 2 is not audited: a capture without the capability
 * is an ordinary capture, not a denial.
 */
static bool ringcap_may_steal(struct ringcap_sock *rs, bool audit)
{
	struct user_namespace *ns = sock_net(&rs->sk)->user_ns;

	return audit ? ns_capable(ns, CAP_NET_ADMIN) :
		       ns_capable_noaudit(ns, CAP_NET_ADMIN);
}

int ringcap_bind(struct socket *sock, struct sockaddr *uaddr, int addr_len)
{
	struct sockaddr_ringcap *addr = (struct sockaddr_ringcap *)uaddr;
	struct ringcap_sock *rs = ringcap_sk(sock->sk);
	struct net_device *dev;
	unsigned int nq;
	int err;

	if (addr_len < (int)sizeof(*addr))
		return -EINVAL;
	if (addr->rc_family != ringcap_family_nr)
		return -EAFNOSUPPORT;

	rtnl_lock();
	/* Every change of rs->dev holds ringcap_socks_lock, for /proc. */
	mutex_lock(&ringcap_socks_lock);
	mutex_lock(&rs->lock);
	err = -EBUSY;
	if (rs->dev || rs->gone)
		goto out_unlock;
	err = -ENODEV;
	dev = __dev_get_by_index(sock_net(sock->sk), addr->rc_ifindex);
	if (!dev)
		goto out_unlock;
	nq = ringcap_dev_nr_queues(dev);
	err = -ERANGE;
	if (addr->rc_queue != RINGCAP_QUEUE_ANY && addr->rc_queue >= nq)
		goto out_unlock;
	err = ringcap_ring_ensure(rs);
	if (err)
		goto out_unlock;
	err = ringcap_tx_prepare(rs);
	if (err)
		goto out_unlock;
	err = -EINVAL;
	if (!rs->capture && rs->zerocopy)
		goto out_unlock;
	/* A zero-copy socket takes its queue from the stack, in every mode. */
	err = -EPERM;
	if (rs->zerocopy && !ringcap_may_steal(rs, true))
		goto out_unlock;
	if (rs->promisc && rs->capture) {
		err = dev_set_promiscuity(dev, 1);
		if (err)
			goto out_unlock;
	}

	dev_hold(dev);
	rs->dev = dev;
	rs->ifindex = dev->ifindex;
	ringcap_sock_set_devname(rs, dev->name);
	rs->queue = addr->rc_queue;
	rs->steal = rs->zerocopy || ringcap_may_steal(rs, false);
	rs->nic_missed_last = ringcap_dev_missed(dev);
	rs->nic_dropped = 0;
	ringcap_tx_bind(rs);
	if (!rs->capture)
		err = 0;	/* transmit only: no receive path to join */
	else if (rs->zerocopy)
		err = ringcap_zc_bind(rs);
	else
		err = ringcap_dev_bind(rs);
	if (err)
		goto err_unhold;
	goto out_unlock;

err_unhold:
	rs->dev = NULL;
	dev_put(dev);
	if (rs->promisc && rs->capture)
		dev_set_promiscuity(dev, -1);
out_unlock:
	mutex_unlock(&rs->lock);
	mutex_unlock(&ringcap_socks_lock);
	rtnl_unlock();
	return err;
}

/*
 * Undo ringcap_bind(). Returns with no producer able to reach the socket
 * (ringcap_dev_unbind() waits for them).
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
		ringcap_dev_unbind(rs);
	ringcap_sock_fold_missed(rs);
	if (rs->promisc && rs->capture)
		dev_set_promiscuity(dev, -1);
	rs->dev = NULL;
	dev_put(dev);
}
