// SPDX-License-Identifier: GPL-2.0
/*
 * Clusters: which member of a cluster gets a frame. Members are the
 * sockets of one destination of a device's set (dev.c); the set is
 * immutable, so the choice needs no lock and sees a consistent member
 * count. A member's full ring is its own drop: the frame is not offered to
 * another member, which would split the flow.
 */
#include <linux/jhash.h>
#include <linux/random.h>
#include "ringcap.h"

static u32 ringcap_flow_seed __read_mostly;

/*
 * A hash of the frame's addresses, protocol and ports that is the same in
 * both directions: each pair is folded by XOR before hashing. Fragments
 * have no ports (flow.c), so every fragment of a datagram, the first
 * (which has them) included, goes with the others.
 */
static u32 ringcap_flow_hash(const struct ringcap_flow *fl)
{
	const struct ringcap_flow_key *k = &fl->key;
	u32 addrs = 0, ports = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(k->src); i++)
		addrs ^= (__force u32)k->src[i] ^ (__force u32)k->dst[i];
	if (!fl->fragment)
		ports = (__force u32)(k->sport ^ k->dport);
	return jhash_3words(addrs, ports, k->proto, ringcap_flow_seed);
}

/**
 * ringcap_cluster_pick - the member of a cluster that gets a frame
 * @d: a destination with at least two members
 * @f: the frame
 *
 * Return: one of @d's sockets.
 */
struct ringcap_sock *ringcap_cluster_pick(struct ringcap_dest *d,
					  struct ringcap_frame *f)
{
	switch (d->cluster.policy) {
	case RINGCAP_CLUSTER_RR:
		return d->socks[(u32)atomic_inc_return(&d->next) % d->nr];
	case RINGCAP_CLUSTER_QUEUE:
		return d->socks[f->queue % d->nr];
	default:
		if (!f->flow_parsed)
			ringcap_flow_parse(f);
		/* Non-IP frames all go to one member. */
		if (!f->flow.key.family)
			return d->socks[0];
		return d->socks[reciprocal_scale(ringcap_flow_hash(&f->flow),
						 d->nr)];
	}
}

/**
 * ringcap_cluster_check - may a socket join its cluster on this device?
 * @rd: the device; rtnl held
 * @rs: the socket, not yet in rd->socks
 *
 * A cluster's members share one device, queue spec and policy.
 *
 * Return: 0, or -EEXIST if @rs disagrees with the members already bound.
 */
int ringcap_cluster_check(struct ringcap_dev *rd, struct ringcap_sock *rs)
{
	struct ringcap_sock *m;

	if (!rs->cluster.id)
		return 0;
	list_for_each_entry(m, &rd->socks, dev_node)
		if (m->cluster.id == rs->cluster.id &&
		    (m->cluster.policy != rs->cluster.policy ||
		     m->queue != rs->queue))
			return -EEXIST;
	return 0;
}

/**
 * ringcap_cluster_policy_name - a policy as /proc/net/ringcap names it
 * @policy: RINGCAP_CLUSTER_*
 *
 * Return: a static string, "?" for an unknown policy.
 */
const char *ringcap_cluster_policy_name(u32 policy)
{
	switch (policy) {
	case RINGCAP_CLUSTER_FLOW:
		return "flow";
	case RINGCAP_CLUSTER_RR:
		return "rr";
	case RINGCAP_CLUSTER_QUEUE:
		return "queue";
	}
	return "?";
}

/**
 * ringcap_cluster_init - seed the flow hash, once per load
 */
void ringcap_cluster_init(void)
{
	ringcap_flow_seed = get_random_u32();
}
