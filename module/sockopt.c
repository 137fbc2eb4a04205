// SPDX-License-Identifier: GPL-2.0
/*
 * Socket options at level SOL_RINGCAP. SOL_SOCKET options, including
 * SO_ATTACH_FILTER and SO_DETACH_FILTER, are handled by the socket core.
 */
#include <linux/capability.h>
#include <linux/log2.h>
#include <linux/rtnetlink.h>
#include <linux/sockptr.h>
#include "ringcap.h"

/* The value of any settable option; zeroed first, so a name ends. */
union ringcap_optval {
	u32 u32;
	struct ringcap_cluster cluster;
	struct ringcap_xdp_link xdp_link;
	char name[RINGCAP_PERSIST_NAME_MAX + 1];
};

/* From when a socket's option is fixed (EBUSY): the one place that says. */
enum ringcap_fixed {
	RINGCAP_FIXED_NEVER,
	RINGCAP_FIXED_AT_BIND,		/* bind acts on it */
	RINGCAP_FIXED_WITH_RING,	/* the geometry, once the ring exists */
	RINGCAP_FIXED_WITH_TX,		/* ... the transmit ring's */
};

static bool ringcap_opt_fixed(const struct ringcap_sock *rs,
			      enum ringcap_fixed fixed)
{
	/* A device that went away leaves its socket unbound, not reusable. */
	bool bound = rs->dev || rs->gone;

	switch (fixed) {
	case RINGCAP_FIXED_NEVER:
		return false;
	case RINGCAP_FIXED_AT_BIND:
		return bound;
	case RINGCAP_FIXED_WITH_RING:
		return bound || rs->ring;
	case RINGCAP_FIXED_WITH_TX:
		return bound || rs->tx;
	}
	return true;
}

static bool ringcap_ring_size_ok(u32 val)
{
	return val >= RINGCAP_RING_SIZE_FLOOR && is_power_of_2(val) &&
	       val <= READ_ONCE(ringcap_max_ring_mem);
}

static int ringcap_check_ring_size(const union ringcap_optval *v)
{
	return ringcap_ring_size_ok(v->u32) ? 0 : -EINVAL;
}

static int ringcap_set_ring_size(struct ringcap_sock *rs,
				 const union ringcap_optval *v)
{
	/* A snaplen the user chose must stay deliverable (the uapi header). */
	if (rs->snaplen_set && rs->snaplen > RINGCAP_SNAPLEN_FOR_RING(v->u32))
		return -EINVAL;
	rs->ring_size = v->u32;
	if (!rs->snaplen_set)
		WRITE_ONCE(rs->snaplen, RINGCAP_SNAPLEN_FOR_RING(v->u32));
	return 0;
}

static int ringcap_set_snaplen(struct ringcap_sock *rs,
			       const union ringcap_optval *v)
{
	u32 size = rs->ring ? rs->ring->data_size : rs->ring_size;

	/* Larger would make every longer frame "ring full", forever. */
	if (!v->u32 || v->u32 > RINGCAP_SNAPLEN_FOR_RING(size))
		return -EINVAL;
	rs->snaplen_set = true;
	WRITE_ONCE(rs->snaplen, v->u32);
	if (rs->ring)
		WRITE_ONCE(rs->ring->hdr->snaplen, v->u32);
	return 0;
}

static int ringcap_check_watermark(const union ringcap_optval *v)
{
	return v->u32 && v->u32 <= RINGCAP_WATERMARK_MAX ? 0 : -EINVAL;
}

static int ringcap_set_watermark(struct ringcap_sock *rs,
				 const union ringcap_optval *v)
{
	WRITE_ONCE(rs->watermark, v->u32);
	return 0;
}

static int ringcap_check_timeout(const union ringcap_optval *v)
{
	return v->u32 <= RINGCAP_TIMEOUT_US_MAX ? 0 : -EINVAL;
}

static int ringcap_set_timeout(struct ringcap_sock *rs,
			       const union ringcap_optval *v)
{
	WRITE_ONCE(rs->timeout_us, v->u32);
	return 0;
}

static int ringcap_check_flag(const union ringcap_optval *v)
{
	return v->u32 <= 1 ? 0 : -EINVAL;
}

static int ringcap_set_promisc(struct ringcap_sock *rs,
			       const union ringcap_optval *v)
{
	rs->promisc = v->u32;
	return 0;
}

static int ringcap_set_zerocopy(struct ringcap_sock *rs,
				const union ringcap_optval *v)
{
	rs->zerocopy = v->u32;
	return 0;
}

static int ringcap_set_capture(struct ringcap_sock *rs,
			       const union ringcap_optval *v)
{
	rs->capture = v->u32;
	return 0;
}

static int ringcap_set_gaps(struct ringcap_sock *rs,
			    const union ringcap_optval *v)
{
	/* Before bind: read by producers (and ringcap_nic_lost()) after. */
	WRITE_ONCE(rs->gaps, v->u32);
	return 0;
}

static int ringcap_set_cutoff(struct ringcap_sock *rs,
			      const union ringcap_optval *v)
{
	return ringcap_cutoff_set(rs, v->u32);
}

static int ringcap_check_cutoff(const union ringcap_optval *v)
{
	return v->u32 <= RINGCAP_FLOW_CUTOFF_MAX ? 0 : -EINVAL;
}

static int ringcap_check_name(const union ringcap_optval *v)
{
	return ringcap_persist_name(v->name, strlen(v->name));
}

static int ringcap_set_persist(struct ringcap_sock *rs,
			       const union ringcap_optval *v)
{
	strscpy_pad(rs->persist, v->name, sizeof(rs->persist));
	return 0;
}

static int ringcap_set_persist_delete(struct ringcap_sock *rs,
				      const union ringcap_optval *v)
{
	return ringcap_persist_delete(rs, v->name);
}

/* As RINGCAP_RING_SIZE, or 0 for none. */
static int ringcap_check_tx_size(const union ringcap_optval *v)
{
	return !v->u32 || ringcap_ring_size_ok(v->u32) ? 0 : -EINVAL;
}

static int ringcap_set_tx_size(struct ringcap_sock *rs,
			       const union ringcap_optval *v)
{
	rs->tx_size = v->u32;
	return 0;
}

/* Membership is fixed at bind, where the cluster's other members are met. */
static int ringcap_check_cluster(const union ringcap_optval *v)
{
	return ringcap_cluster_policy_ok(v->cluster.policy) ? 0 : -EINVAL;
}

static int ringcap_set_cluster(struct ringcap_sock *rs,
			       const union ringcap_optval *v)
{
	rs->cluster = v->cluster;
	return 0;
}

/* The reader's XDP link for its device, or why it has none (xdp.c). */
static int ringcap_check_xdp_link(const union ringcap_optval *v)
{
	if ((v->xdp_link.flags & ~RINGCAP_XDP_LINK_COPY) ||
	    v->xdp_link.reserved)
		return -EINVAL;
	return 0;
}

static int ringcap_set_xdp_link(struct ringcap_sock *rs,
				const union ringcap_optval *v)
{
	if (!ns_capable(sock_net(&rs->sk)->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	return ringcap_xdp_set_link(rs, &v->xdp_link);
}

/*
 * One settable option: its size (and, if it grew, its first one; a name
 * takes 1..len bytes), when it is fixed, its value's check (EINVAL,
 * before the socket's state is looked at) and its setter, which runs
 * under rs->lock, or under rtnl alone for the options that change a
 * device's state or the persistent rings.
 */
struct ringcap_setopt {
	unsigned int len, old_len;
	bool name;
	enum ringcap_fixed fixed;
	bool rtnl;
	int (*check)(const union ringcap_optval *v);
	int (*set)(struct ringcap_sock *rs, const union ringcap_optval *v);
};

#define RINGCAP_U32(fix, chk, fn) \
	{ .len = sizeof(u32), .fixed = (fix), .check = (chk), .set = (fn) }
#define RINGCAP_NAME(fix, under_rtnl, fn)				\
	{ .len = RINGCAP_PERSIST_NAME_MAX, .name = true, .fixed = (fix),	\
	  .rtnl = (under_rtnl), .check = ringcap_check_name, .set = (fn) }

static const struct ringcap_setopt ringcap_setopts[] = {
	[RINGCAP_RING_SIZE] = RINGCAP_U32(RINGCAP_FIXED_WITH_RING,
					  ringcap_check_ring_size,
					  ringcap_set_ring_size),
	[RINGCAP_SNAPLEN] = RINGCAP_U32(RINGCAP_FIXED_NEVER, NULL,
					ringcap_set_snaplen),
	[RINGCAP_WATERMARK] = RINGCAP_U32(RINGCAP_FIXED_NEVER,
					  ringcap_check_watermark,
					  ringcap_set_watermark),
	[RINGCAP_TIMEOUT_US] = RINGCAP_U32(RINGCAP_FIXED_NEVER,
					   ringcap_check_timeout,
					   ringcap_set_timeout),
	[RINGCAP_PROMISC] = RINGCAP_U32(RINGCAP_FIXED_AT_BIND,
					ringcap_check_flag,
					ringcap_set_promisc),
	[RINGCAP_CLUSTER] = {
		.len = sizeof(struct ringcap_cluster),
		.fixed = RINGCAP_FIXED_AT_BIND,
		.check = ringcap_check_cluster,
		.set = ringcap_set_cluster,
	},
	[RINGCAP_XDP_LINK] = {
		.len = sizeof(struct ringcap_xdp_link),
		/* Before flags, the option was fd and error alone (uapi). */
		.old_len = offsetofend(struct ringcap_xdp_link, error),
		.rtnl = true,
		.check = ringcap_check_xdp_link,
		.set = ringcap_set_xdp_link,
	},
	[RINGCAP_ZEROCOPY] = RINGCAP_U32(RINGCAP_FIXED_AT_BIND,
					 ringcap_check_flag,
					 ringcap_set_zerocopy),
	[RINGCAP_TX_RING_SIZE] = RINGCAP_U32(RINGCAP_FIXED_WITH_TX,
					     ringcap_check_tx_size,
					     ringcap_set_tx_size),
	[RINGCAP_CAPTURE] = RINGCAP_U32(RINGCAP_FIXED_AT_BIND,
					ringcap_check_flag,
					ringcap_set_capture),
	[RINGCAP_GAPS] = RINGCAP_U32(RINGCAP_FIXED_AT_BIND, ringcap_check_flag,
				     ringcap_set_gaps),
	[RINGCAP_PERSIST] = RINGCAP_NAME(RINGCAP_FIXED_AT_BIND, false,
					 ringcap_set_persist),
	[RINGCAP_FLOW_CUTOFF] = RINGCAP_U32(RINGCAP_FIXED_AT_BIND,
					    ringcap_check_cutoff,
					    ringcap_set_cutoff),
	[RINGCAP_PERSIST_DELETE] = RINGCAP_NAME(RINGCAP_FIXED_NEVER, true,
						ringcap_set_persist_delete),
};

/**
 * ringcap_setsockopt - setsockopt(2) at level SOL_RINGCAP
 * @sock: the socket
 * @level: SOL_RINGCAP, else -ENOPROTOOPT
 * @optname: RINGCAP_*
 * @optval: the value
 * @optlen: its length
 *
 * An option the module does not set is ENOPROTOOPT whatever its length;
 * one it sets, given the wrong length, EINVAL.
 *
 * Return: 0, or the errno docs/CONTRACTS.md gives for the option.
 */
int ringcap_setsockopt(struct socket *sock, int level, int optname,
		       sockptr_t optval, unsigned int optlen)
{
	struct ringcap_sock *rs = ringcap_sk(sock->sk);
	const struct ringcap_setopt *o;
	union ringcap_optval v = {};
	int err;

	if (level != SOL_RINGCAP || optname < 0 ||
	    optname >= (int)ARRAY_SIZE(ringcap_setopts) ||
	    !ringcap_setopts[optname].set)
		return -ENOPROTOOPT;
	o = &ringcap_setopts[optname];
	if (o->name ? !optlen || optlen > o->len :
	    optlen != o->len && (!o->old_len || optlen != o->old_len))
		return -EINVAL;
	if (copy_from_sockptr(&v, optval, optlen))
		return -EFAULT;
	/* A NUL inside the name would shorten it unseen. */
	if (o->name && strlen(v.name) != optlen)
		return -EINVAL;
	err = o->check ? o->check(&v) : 0;
	if (err)
		return err;
	if (o->rtnl) {
		rtnl_lock();
		err = o->set(rs, &v);
		rtnl_unlock();
		return err;
	}
	mutex_lock(&rs->lock);
	err = ringcap_opt_fixed(rs, o->fixed) ? -EBUSY : o->set(rs, &v);
	mutex_unlock(&rs->lock);
	return err;
}

/* The value of any option getsockopt() reports. */
union ringcap_getval {
	u32 u32;
	struct ringcap_ring_info info;
	struct ringcap_cluster cluster;
	struct ringcap_path path;
	struct ringcap_stats stats;
	struct ringcap_tx_stats tx_stats;
	char name[RINGCAP_PERSIST_NAME_MAX];
};

static int ringcap_get_ring_size(struct ringcap_sock *rs,
				 union ringcap_getval *v)
{
	struct ringcap_ring *ring = READ_ONCE(rs->ring);

	v->u32 = ring ? ring->data_size : READ_ONCE(rs->ring_size);
	return 0;
}

static int ringcap_get_snaplen(struct ringcap_sock *rs, union ringcap_getval *v)
{
	v->u32 = READ_ONCE(rs->snaplen);
	return 0;
}

static int ringcap_get_watermark(struct ringcap_sock *rs,
				 union ringcap_getval *v)
{
	v->u32 = READ_ONCE(rs->watermark);
	return 0;
}

static int ringcap_get_timeout(struct ringcap_sock *rs, union ringcap_getval *v)
{
	v->u32 = READ_ONCE(rs->timeout_us);
	return 0;
}

static int ringcap_get_promisc(struct ringcap_sock *rs, union ringcap_getval *v)
{
	v->u32 = rs->promisc;
	return 0;
}

static int ringcap_get_zerocopy(struct ringcap_sock *rs,
				union ringcap_getval *v)
{
	v->u32 = rs->zerocopy;
	return 0;
}

static int ringcap_get_capture(struct ringcap_sock *rs, union ringcap_getval *v)
{
	v->u32 = rs->capture;
	return 0;
}

static int ringcap_get_gaps(struct ringcap_sock *rs, union ringcap_getval *v)
{
	v->u32 = READ_ONCE(rs->gaps);
	return 0;
}

static int ringcap_get_cutoff(struct ringcap_sock *rs, union ringcap_getval *v)
{
	mutex_lock(&rs->lock);
	v->u32 = ringcap_cutoff_limit(rs);
	mutex_unlock(&rs->lock);
	return 0;
}

/* The name, zero-padded to RINGCAP_PERSIST_NAME_MAX bytes. */
static int ringcap_get_persist(struct ringcap_sock *rs, union ringcap_getval *v)
{
	mutex_lock(&rs->lock);
	memcpy(v->name, rs->persist, sizeof(v->name));
	mutex_unlock(&rs->lock);
	return 0;
}

static int ringcap_get_tx_size(struct ringcap_sock *rs, union ringcap_getval *v)
{
	v->u32 = READ_ONCE(rs->tx_size);
	return 0;
}

static int ringcap_get_abi(struct ringcap_sock *rs, union ringcap_getval *v)
{
	v->u32 = RINGCAP_ABI_VERSION;
	return 0;
}

static int ringcap_get_cluster(struct ringcap_sock *rs, union ringcap_getval *v)
{
	mutex_lock(&rs->lock);
	v->cluster = rs->cluster;
	mutex_unlock(&rs->lock);
	return 0;
}

/* The ring, allocated now if bind or mmap has not yet. */
static int ringcap_get_ring_info(struct ringcap_sock *rs,
				 union ringcap_getval *v)
{
	struct ringcap_ring *ring = ringcap_sock_ring(rs);

	if (IS_ERR(ring))
		return PTR_ERR(ring);
	ringcap_ring_info(ring, &v->info);
	ringcap_zc_info(rs, &v->info);
	return 0;
}

static int ringcap_get_stats(struct ringcap_sock *rs, union ringcap_getval *v)
{
	ringcap_sock_stats(rs, &v->stats);
	return 0;
}

static int ringcap_get_path(struct ringcap_sock *rs, union ringcap_getval *v)
{
	rcu_read_lock();
	ringcap_sock_path(rs, &v->path);
	rcu_read_unlock();
	return 0;
}

static int ringcap_get_tx_info(struct ringcap_sock *rs, union ringcap_getval *v)
{
	return ringcap_tx_info(rs, &v->info);
}

static int ringcap_get_tx_stats(struct ringcap_sock *rs,
				union ringcap_getval *v)
{
	return ringcap_tx_stats(rs, &v->tx_stats);
}

/*
 * One option getsockopt() reports: its size, the smallest buffer it takes
 * (the first size published, for a structure that grows) and its getter.
 */
struct ringcap_getopt {
	unsigned int len, min_len;
	int (*get)(struct ringcap_sock *rs, union ringcap_getval *v);
};

#define RINGCAP_GET_GROWS(type, v1, fn)	\
	{ .len = sizeof(type), .min_len = (v1), .get = (fn) }
#define RINGCAP_GET(type, fn)	RINGCAP_GET_GROWS(type, sizeof(type), fn)

/* The first sizes end where a field of that first structure ended. */
static_assert(RINGCAP_RING_INFO_SIZE_V1 ==
	      offsetofend(struct ringcap_ring_info, data_size));
static_assert(RINGCAP_RING_INFO_SIZE_V2 ==
	      offsetofend(struct ringcap_ring_info, zc_nr_bufs));
static_assert(RINGCAP_STATS_SIZE_V1 ==
	      offsetofend(struct ringcap_stats, nic_dropped));
static_assert(RINGCAP_STATS_SIZE_V2 ==
	      offsetofend(struct ringcap_stats, flows_evicted));
static_assert(RINGCAP_TX_STATS_SIZE_V1 ==
	      offsetofend(struct ringcap_tx_stats, kicks));

static const struct ringcap_getopt ringcap_getopts[] = {
	[RINGCAP_RING_SIZE] = RINGCAP_GET(u32, ringcap_get_ring_size),
	[RINGCAP_SNAPLEN] = RINGCAP_GET(u32, ringcap_get_snaplen),
	[RINGCAP_WATERMARK] = RINGCAP_GET(u32, ringcap_get_watermark),
	[RINGCAP_TIMEOUT_US] = RINGCAP_GET(u32, ringcap_get_timeout),
	[RINGCAP_PROMISC] = RINGCAP_GET(u32, ringcap_get_promisc),
	[RINGCAP_CLUSTER] = RINGCAP_GET(struct ringcap_cluster,
					ringcap_get_cluster),
	[RINGCAP_ZEROCOPY] = RINGCAP_GET(u32, ringcap_get_zerocopy),
	[RINGCAP_TX_RING_SIZE] = RINGCAP_GET(u32, ringcap_get_tx_size),
	[RINGCAP_CAPTURE] = RINGCAP_GET(u32, ringcap_get_capture),
	[RINGCAP_GAPS] = RINGCAP_GET(u32, ringcap_get_gaps),
	[RINGCAP_PERSIST] = RINGCAP_GET(char[RINGCAP_PERSIST_NAME_MAX],
					ringcap_get_persist),
	[RINGCAP_FLOW_CUTOFF] = RINGCAP_GET(u32, ringcap_get_cutoff),
	[RINGCAP_RING_INFO] = RINGCAP_GET_GROWS(struct ringcap_ring_info,
						RINGCAP_RING_INFO_SIZE_V1,
						ringcap_get_ring_info),
	[RINGCAP_STATS] = RINGCAP_GET_GROWS(struct ringcap_stats,
					    RINGCAP_STATS_SIZE_V1,
					    ringcap_get_stats),
	[RINGCAP_ABI] = RINGCAP_GET(u32, ringcap_get_abi),
	[RINGCAP_PATH] = RINGCAP_GET(struct ringcap_path, ringcap_get_path),
	[RINGCAP_TX_INFO] = RINGCAP_GET_GROWS(struct ringcap_ring_info,
					      RINGCAP_RING_INFO_SIZE_V1,
					      ringcap_get_tx_info),
	[RINGCAP_TX_STATS] = RINGCAP_GET_GROWS(struct ringcap_tx_stats,
					       RINGCAP_TX_STATS_SIZE_V1,
					       ringcap_get_tx_stats),
};

/**
 * ringcap_getsockopt - getsockopt(2) at level SOL_RINGCAP
 * @sock: the socket
 * @level: SOL_RINGCAP, else -ENOPROTOOPT
 * @optname: RINGCAP_*
 * @optval: where the value goes
 * @optlen: its room in, the value's length out
 *
 * No rtnl: any socket holder may ask, as often as it likes. A buffer
 * shorter than the option's first size is EINVAL; a longer one gets what
 * fits, up to the option's size today, and optlen says how much.
 *
 * Return: 0, or the errno docs/CONTRACTS.md gives for the option.
 */
int ringcap_getsockopt(struct socket *sock, int level, int optname,
		       char __user *optval, int __user *optlen)
{
	struct ringcap_sock *rs = ringcap_sk(sock->sk);
	const struct ringcap_getopt *o;
	union ringcap_getval v;
	unsigned int n;
	int len, err;

	if (level != SOL_RINGCAP)
		return -ENOPROTOOPT;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	if (optname < 0 || optname >= (int)ARRAY_SIZE(ringcap_getopts) ||
	    !ringcap_getopts[optname].get)
		return -ENOPROTOOPT;
	o = &ringcap_getopts[optname];
	memset(&v, 0, sizeof(v));
	err = o->get(rs, &v);
	if (err)
		return err;
	if (len < (int)o->min_len)
		return -EINVAL;
	n = min_t(unsigned int, len, o->len);
	if (put_user(n, optlen) || copy_to_user(optval, &v, n))
		return -EFAULT;
	return 0;
}
