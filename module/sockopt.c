// SPDX-License-Identifier: GPL-2.0
/*
 * Socket options at level SOL_RINGCAP. SOL_SOCKET options, including
 * SO_ATTACH_FILTER and SO_DETACH_FILTER, are handled by the socket core.
 */
#include <linux/log2.h>
#include <linux/sockptr.h>
#include "ringcap.h"

static int ringcap_set_ring_size(struct ringcap_sock *rs, u32 val)
{
	if (val < RINGCAP_RING_SIZE_FLOOR || !is_power_of_2(val) ||
	    val > READ_ONCE(ringcap_max_ring_mem))
		return -EINVAL;
	/* The geometry is fixed once the ring exists (bound or mapped). */
	if (rs->ring)
		return -EBUSY;
	/* A snaplen the user chose must stay deliverable (the uapi header). */
	if (rs->snaplen_set && rs->snaplen > RINGCAP_SNAPLEN_FOR_RING(val))
		return -EINVAL;
	rs->ring_size = val;
	if (!rs->snaplen_set)
		WRITE_ONCE(rs->snaplen, RINGCAP_SNAPLEN_FOR_RING(val));
	return 0;
}

static int ringcap_set_snaplen(struct ringcap_sock *rs, u32 val)
{
	u32 size = rs->ring ? rs->ring->data_size : rs->ring_size;

	/* Larger would make every longer frame "ring full", forever. */
	if (!val || val > RINGCAP_SNAPLEN_FOR_RING(size))
		return -EINVAL;
	rs->snaplen_set = true;
	WRITE_ONCE(rs->snaplen, val);
	if (rs->ring)
		WRITE_ONCE(rs->ring->hdr->snaplen, val);
	return 0;
}

/* As RINGCAP_RING_SIZE, or 0 for none; fixed once the ring exists. */
static int ringcap_set_tx_size(struct ringcap_sock *rs, u32 val)
{
	if (val && (val < RINGCAP_RING_SIZE_FLOOR || !is_power_of_2(val) ||
		    val > READ_ONCE(ringcap_max_ring_mem)))
		return -EINVAL;
	if (rs->tx || rs->dev || rs->gone)
		return -EBUSY;
	rs->tx_size = val;
	return 0;
}

/* A 0/1 option that bind acts on, so fixed from then on. */
static int ringcap_set_flag(struct ringcap_sock *rs, u32 val, bool *flag)
{
	if (val > 1)
		return -EINVAL;
	if (rs->dev || rs->gone)
		return -EBUSY;
	*flag = val;
	return 0;
}

/* Membership is fixed at bind, where the cluster's other members are met. */
static int ringcap_set_cluster(struct ringcap_sock *rs, sockptr_t optval,
			       unsigned int optlen)
{
	struct ringcap_cluster cl;
	int err = 0;

	if (optlen != sizeof(cl))
		return -EINVAL;
	if (copy_from_sockptr(&cl, optval, sizeof(cl)))
		return -EFAULT;
	if (cl.policy > RINGCAP_CLUSTER_QUEUE)
		return -EINVAL;
	mutex_lock(&rs->lock);
	if (rs->dev || rs->gone)
		err = -EBUSY;
	else
		rs->cluster = cl;
	mutex_unlock(&rs->lock);
	return err;
}

/* The reader's XDP link for its device, or why it has none (xdp.c). */
static int ringcap_set_xdp_link(struct ringcap_sock *rs, sockptr_t optval,
				unsigned int optlen)
{
	struct ringcap_xdp_link req = {};
	int err;

	/* Before flags, the option was fd and error alone (uapi). */
	if (optlen != sizeof(req) &&
	    optlen != offsetofend(struct ringcap_xdp_link, error))
		return -EINVAL;
	if (copy_from_sockptr(&req, optval, optlen))
		return -EFAULT;
	if ((req.flags & ~RINGCAP_XDP_LINK_COPY) || req.reserved)
		return -EINVAL;
	if (!ns_capable(sock_net(&rs->sk)->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	rtnl_lock();
	err = ringcap_xdp_set_link(rs, &req);
	rtnl_unlock();
	return err;
}

int ringcap_setsockopt(struct socket *sock, int level, int optname,
		       sockptr_t optval, unsigned int optlen)
{
	struct ringcap_sock *rs = ringcap_sk(sock->sk);
	u32 val;
	int err = 0;

	if (level != SOL_RINGCAP)
		return -ENOPROTOOPT;
	if (optname == RINGCAP_CLUSTER)
		return ringcap_set_cluster(rs, optval, optlen);
	if (optname == RINGCAP_XDP_LINK)
		return ringcap_set_xdp_link(rs, optval, optlen);
	if (optlen != sizeof(val))
		return (optname >= RINGCAP_RING_SIZE &&
			optname <= RINGCAP_PROMISC) ||
		       (optname >= RINGCAP_ZEROCOPY &&
			optname <= RINGCAP_CAPTURE) ? -EINVAL : -ENOPROTOOPT;
	if (copy_from_sockptr(&val, optval, sizeof(val)))
		return -EFAULT;

	mutex_lock(&rs->lock);
	switch (optname) {
	case RINGCAP_RING_SIZE:
		err = ringcap_set_ring_size(rs, val);
		break;
	case RINGCAP_SNAPLEN:
		err = ringcap_set_snaplen(rs, val);
		break;
	case RINGCAP_WATERMARK:
		if (!val || val > RINGCAP_WATERMARK_MAX)
			err = -EINVAL;
		else
			WRITE_ONCE(rs->watermark, val);
		break;
	case RINGCAP_TIMEOUT_US:
		if (val > RINGCAP_TIMEOUT_US_MAX)
			err = -EINVAL;
		else
			WRITE_ONCE(rs->timeout_us, val);
		break;
	case RINGCAP_PROMISC:
		err = ringcap_set_flag(rs, val, &rs->promisc);
		break;
	case RINGCAP_ZEROCOPY:
		err = ringcap_set_flag(rs, val, &rs->zerocopy);
		break;
	case RINGCAP_CAPTURE:
		err = ringcap_set_flag(rs, val, &rs->capture);
		break;
	case RINGCAP_TX_RING_SIZE:
		err = ringcap_set_tx_size(rs, val);
		break;
	default:
		err = -ENOPROTOOPT;
	}
	mutex_unlock(&rs->lock);
	return err;
}

/* No rtnl: any socket holder may ask, as often as it likes. */
int ringcap_getsockopt(struct socket *sock, int level, int optname,
		       char __user *optval, int __user *optlen)
{
	struct ringcap_sock *rs = ringcap_sk(sock->sk);
	struct ringcap_ring_info info;
	struct ringcap_cluster cl;
	struct ringcap_path path;
	struct ringcap_tx_stats txst;
	struct ringcap_stats st;
	struct ringcap_ring *ring;
	const void *src;
	int len, err;
	u32 val;

	if (level != SOL_RINGCAP)
		return -ENOPROTOOPT;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;

	switch (optname) {
	case RINGCAP_RING_SIZE:
		val = rs->ring ? rs->ring->data_size : READ_ONCE(rs->ring_size);
		break;
	case RINGCAP_SNAPLEN:
		val = READ_ONCE(rs->snaplen);
		break;
	case RINGCAP_WATERMARK:
		val = READ_ONCE(rs->watermark);
		break;
	case RINGCAP_TIMEOUT_US:
		val = READ_ONCE(rs->timeout_us);
		break;
	case RINGCAP_PROMISC:
		val = rs->promisc;
		break;
	case RINGCAP_ZEROCOPY:
		val = rs->zerocopy;
		break;
	case RINGCAP_CAPTURE:
		val = rs->capture;
		break;
	case RINGCAP_TX_RING_SIZE:
		val = READ_ONCE(rs->tx_size);
		break;
	case RINGCAP_TX_INFO:
		err = ringcap_tx_info(rs, &info);
		if (err)
			return err;
		src = &info;
		len = len < (int)sizeof(info) ? -1 : (int)sizeof(info);
		goto copy;
	case RINGCAP_TX_STATS:
		err = ringcap_tx_stats(rs, &txst);
		if (err)
			return err;
		src = &txst;
		len = len < (int)sizeof(txst) ? -1 : (int)sizeof(txst);
		goto copy;
	case RINGCAP_ABI:
		val = RINGCAP_ABI_VERSION;
		break;
	case RINGCAP_RING_INFO:
		ring = ringcap_sock_ring(rs);
		if (IS_ERR(ring))
			return PTR_ERR(ring);
		ringcap_ring_info(ring, &info);
		src = &info;
		len = len < (int)sizeof(info) ? -1 : (int)sizeof(info);
		goto copy;
	case RINGCAP_CLUSTER:
		mutex_lock(&rs->lock);
		cl = rs->cluster;
		mutex_unlock(&rs->lock);
		src = &cl;
		len = len < (int)sizeof(cl) ? -1 : (int)sizeof(cl);
		goto copy;
	case RINGCAP_PATH:
		rcu_read_lock();
		ringcap_xdp_path(rs, &path);
		rcu_read_unlock();
		src = &path;
		len = len < (int)sizeof(path) ? -1 : (int)sizeof(path);
		goto copy;
	case RINGCAP_STATS:
		ringcap_sock_stats(rs, &st);
		src = &st;
		len = len < (int)sizeof(st) ? -1 : (int)sizeof(st);
		goto copy;
	default:
		return -ENOPROTOOPT;
	}
	src = &val;
	len = len < (int)sizeof(val) ? -1 : (int)sizeof(val);
copy:
	if (len < 0)
		return -EINVAL;
	if (put_user(len, optlen) || copy_to_user(optval, src, len))
		return -EFAULT;
	return 0;
}
