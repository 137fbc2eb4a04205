// SPDX-License-Identifier: GPL-2.0
/*
 * Clusters: which member of a cluster gets a frame. Members are the
 * sockets of one destination of a device's set (dev.c); the set is
 * immutable, so the choice needs no lock and sees a consistent member
 * count. A member's full ring is its own drop: the frame is not offered to
 * another member, which would split the flow. A spanning cluster's
 * members are bound to several devices, and each of those devices' sets
 * holds them all (dev.c), so its frames are shared by every member.
 */
#include <linux/jhash.h>
#include <linux/random.h>
#include "ringcap.h"

static u32 ringcap_flow_seed __read_mostly;

/* The bound members of spanning clusters, every namespace's; under rtnl. */
static LIST_HEAD(ringcap_spans);

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
	struct ringcap_flow in;

	switch (d->cluster.policy & RINGCAP_CLUSTER_POLICY) {
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
		/* A tunnel's frame by the flow it carries, if asked. */
		if ((d->cluster.policy & RINGCAP_CLUSTER_INNER) &&
		    ringcap_flow_inner(f, &in))
			return d->socks[reciprocal_scale(ringcap_flow_hash(&in),
							 d->nr)];
		return d->socks[reciprocal_scale(ringcap_flow_hash(&f->flow),
						 d->nr)];
	}
}

/*
 * May rs join a spanning cluster? Its members agree on the policy in
 * every device of the namespace, and each takes all of its device's
 * queues.
 */
static int ringcap_cluster_check_span(struct ringcap_sock *rs)
{
	struct ringcap_sock *m;
	unsigned int n = 0;

	if (rs->queue != RINGCAP_QUEUE_ANY)
		return -EINVAL;
	list_for_each_entry(m, &ringcap_spans, span_node) {
		if (m->cluster.id != rs->cluster.id ||
		    !net_eq(sock_net(&m->sk), sock_net(&rs->sk)))
			continue;
		if (m->cluster.policy != rs->cluster.policy)
			return -EEXIST;
		n++;
	}
	/*
	 * Every device of the cluster holds all its members in each set it
	 * publishes, and republishes when one comes or goes: bounded, so
	 * that what a user's binds cost under rtnl stays small.
	 */
	return n < RINGCAP_CLUSTER_SPAN_MAX ? 0 : -ENOSPC;
}

/**
 * ringcap_cluster_check - may a socket join its cluster on this device?
 * @rd: the device; rtnl held
 * @rs: the socket, not yet in rd->socks
 *
 * A cluster's members share one device, queue spec and policy; a
 * spanning cluster's share the namespace and policy, on any device.
 *
 * Return: 0; -EEXIST if @rs disagrees with the members already bound;
 * -EINVAL for a spanning member bound to one queue; -ENOSPC for one
 * past RINGCAP_CLUSTER_SPAN_MAX members.
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
	return ringcap_cluster_spans(rs) ? ringcap_cluster_check_span(rs) : 0;
}

/**
 * ringcap_cluster_span_join - a member of a spanning cluster binds
 * @rs: the member, before its device's set is published; rtnl held
 *
 * The sets published from here on hold it; its device's comes first,
 * then the others follow (ringcap_cluster_span_devices()).
 */
void ringcap_cluster_span_join(struct ringcap_sock *rs)
{
	ASSERT_RTNL();
	list_add_tail(&rs->span_node, &ringcap_spans);
}

/**
 * ringcap_cluster_span_leave - undo ringcap_cluster_span_join()
 * @rs: the member, before its device publishes a set without it; rtnl held
 */
void ringcap_cluster_span_leave(struct ringcap_sock *rs)
{
	ASSERT_RTNL();
	list_del(&rs->span_node);
}

/**
 * ringcap_cluster_span_devices - each other device of rs's spanning cluster
 * @rs: a member that joined or left; rtnl held
 * @fn: called once for each device, other than rs's, with a member of its
 *	cluster in its namespace (bind.c has each publish its set anew)
 */
void ringcap_cluster_span_devices(struct ringcap_sock *rs,
				  void (*fn)(struct ringcap_dev *rd))
{
	struct ringcap_sock *m, *p;

	ASSERT_RTNL();
	list_for_each_entry(m, &ringcap_spans, span_node) {
		if (m->cluster.id != rs->cluster.id || m->rd == rs->rd ||
		    !net_eq(sock_net(&m->sk), sock_net(&rs->sk)))
			continue;
		/* Each device once: at its first member on the list. */
		list_for_each_entry(p, &ringcap_spans, span_node)
			if (p == m || (p->rd == m->rd &&
				       p->cluster.id == rs->cluster.id))
				break;
		if (p == m)
			fn(m->rd);
	}
}

/**
 * ringcap_cluster_span_members - the bound members of a spanning cluster
 * @rs: one of them, or one that joins; rtnl held
 * @out: filled with them, if not NULL
 *
 * Return: how many.
 */
unsigned int ringcap_cluster_span_members(const struct ringcap_sock *rs,
					  struct ringcap_sock **out)
{
	struct ringcap_sock *m;
	unsigned int n = 0;

	ASSERT_RTNL();
	list_for_each_entry(m, &ringcap_spans, span_node) {
		if (m->cluster.id != rs->cluster.id ||
		    !net_eq(sock_net(&m->sk), sock_net(&rs->sk)))
			continue;
		if (out)
			out[n] = m;
		n++;
	}
	return n;
}

/**
 * ringcap_cluster_span_room - socket slots a device's set needs for the
 *	members of its spanning clusters
 * @socks: the device's bound sockets; rtnl held
 *
 * Only the clusters with a member there count, and only their namespace's
 * members, so no one else's sockets make this device's sets larger.
 *
 * Return: the members of each spanning cluster of @socks, added up.
 */
unsigned int ringcap_cluster_span_room(struct list_head *socks)
{
	struct ringcap_sock *rs, *m;
	unsigned int n = 0;

	ASSERT_RTNL();
	list_for_each_entry(rs, socks, dev_node) {
		if (!ringcap_cluster_spans(rs))
			continue;
		/* Each cluster once: at its first member on the list. */
		list_for_each_entry(m, socks, dev_node)
			if (m == rs || m->cluster.id == rs->cluster.id)
				break;
		if (m == rs)
			n += ringcap_cluster_span_members(rs, NULL);
	}
	return n;
}

/**
 * ringcap_cluster_policy_ok - is @policy one a socket may ask for?
 * @policy: RINGCAP_CLUSTER_* with its flags
 *
 * Return: whether it is a known policy with known flags, the inner flow
 * only with the flow policy.
 */
bool ringcap_cluster_policy_ok(u32 policy)
{
	u32 base = policy & RINGCAP_CLUSTER_POLICY;

	if (base > RINGCAP_CLUSTER_QUEUE ||
	    (policy & ~(RINGCAP_CLUSTER_POLICY | RINGCAP_CLUSTER_SPAN |
			RINGCAP_CLUSTER_INNER)))
		return false;
	return !(policy & RINGCAP_CLUSTER_INNER) || base == RINGCAP_CLUSTER_FLOW;
}

/**
 * ringcap_cluster_policy_name - a policy as /proc/net/ringcap names it
 * @policy: RINGCAP_CLUSTER_*
 *
 * Return: a static string, "?" for an unknown policy.
 */
const char *ringcap_cluster_policy_name(u32 policy)
{
	/* By base policy, then +3 with SPAN, then +6 with INNER (flow only). */
	static const char *const names[] = {
		"flow", "rr", "queue",
		"flow+span", "rr+span", "queue+span",
		"flow+inner", NULL, NULL,
		"flow+span+inner",
	};

	if (!ringcap_cluster_policy_ok(policy))
		return "?";
	return names[(policy & RINGCAP_CLUSTER_POLICY) +
		     (policy & RINGCAP_CLUSTER_SPAN ? 3 : 0) +
		     (policy & RINGCAP_CLUSTER_INNER ? 6 : 0)];
}

/**
 * ringcap_cluster_init - seed the flow hash, once per load
 */
void ringcap_cluster_init(void)
{
	ringcap_flow_seed = get_random_u32();
}
