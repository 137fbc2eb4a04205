// SPDX-License-Identifier: GPL-2.0
/*
 * A socket's counters as RINGCAP_STATS reports them: those its ring's
 * producer keeps (capture.c), and the frames its device missed since the
 * socket bound, read from the device's own counters.
 */
#include <linux/netdevice.h>
#include "ringcap.h"

static u64 ringcap_dev_missed(struct net_device *dev)
{
	struct rtnl_link_stats64 st;

	dev_get_stats(dev, &st);
	return st.rx_missed_errors;
}

/**
 * ringcap_sock_nic_start - the device's missed frames count from now on
 * @rs: a socket binding to rs->dev; rs->lock held
 */
void ringcap_sock_nic_start(struct ringcap_sock *rs)
{
	lockdep_assert_held(&rs->lock);
	rs->nic_missed_last = ringcap_dev_missed(rs->dev);
	rs->nic_dropped = 0;
}

/**
 * ringcap_sock_fold_missed - fold the device's missed frames into the socket's
 * @rs: the socket; rs->lock held, which keeps rs->dev bound (every unbind
 *	holds it) and the sum whole
 *
 * Drivers may reset their counters (a reinit, ethtool), so a value below
 * the last one read starts a new run from zero rather than wrapping the
 * difference.
 */
void ringcap_sock_fold_missed(struct ringcap_sock *rs)
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
static u64 ringcap_sock_nic_dropped(struct ringcap_sock *rs)
{
	u64 v;

	mutex_lock(&rs->lock);
	ringcap_sock_fold_missed(rs);
	v = rs->nic_dropped;
	mutex_unlock(&rs->lock);
	return v;
}

/**
 * ringcap_sock_stats - what RINGCAP_STATS reports
 * @rs: the socket; takes rs->lock and rs->prod_lock
 * @st: filled in: the ring's counters and the device's since bind
 */
void ringcap_sock_stats(struct ringcap_sock *rs, struct ringcap_stats *st)
{
	spin_lock_bh(&rs->prod_lock);
	*st = rs->st;
	spin_unlock_bh(&rs->prod_lock);
	st->nic_dropped = ringcap_sock_nic_dropped(rs);
}
