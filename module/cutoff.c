// SPDX-License-Identifier: GPL-2.0
/*
 * Per-flow cut-off (RINGCAP_FLOW_CUTOFF): a socket keeps the first bytes
 * of each flow and direction and counts the rest without copying it. Its
 * table of flows has a fixed size (module parameter cutoff_flows), is
 * allocated when the option is set, and is charged to the setter's memory
 * cgroup as the ring is. When a new flow finds no room, the flow seen
 * least recently is forgotten: if it comes back it starts afresh, so a
 * full table makes the socket keep more, never less. The table is used
 * under rs->prod_lock, as the ring is written; its seed is its own, so
 * that senders who do not know it cannot aim at one bucket.
 */
#include <linux/jhash.h>
#include <linux/log2.h>
#include <linux/random.h>
#include "ringcap.h"

struct ringcap_cutoff_flow {
	struct hlist_node node;		/* in its bucket; unhashed while free */
	struct list_head lru;		/* in t->lru */
	struct ringcap_flow_key key;
	u64 bytes;			/* wire bytes offered so far */
	unsigned long seen;		/* jiffies of its last frame */
};

struct ringcap_cutoff {
	u32 limit;			/* bytes kept per flow and direction */
	u32 seed;
	unsigned int hash_bits;
	struct hlist_head *buckets;
	struct list_head lru;		/* free flows first, then least recent */
	struct ringcap_cutoff_flow flows[];
};

static_assert(sizeof(struct ringcap_flow_key) == 40);

#define RINGCAP_CUTOFF_GFP \
	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

static void ringcap_cutoff_table_free(struct ringcap_cutoff *t)
{
	if (!t)
		return;
	kvfree(t->buckets);
	kvfree(t);
}

static struct ringcap_cutoff *ringcap_cutoff_table_alloc(unsigned int nr)
{
	struct ringcap_cutoff *t;
	unsigned int i;

	/* Past the cgroup's limit: ENOMEM, not the OOM killer (ring.c). */
	t = kvzalloc(struct_size(t, flows, nr), RINGCAP_CUTOFF_GFP);
	if (!t)
		return NULL;
	/* About one flow per bucket when full. */
	t->hash_bits = ilog2(roundup_pow_of_two(nr));
	t->buckets = kvcalloc(1U << t->hash_bits, sizeof(*t->buckets),
			      RINGCAP_CUTOFF_GFP);
	if (!t->buckets) {
		kvfree(t);
		return NULL;
	}
	t->seed = get_random_u32();
	INIT_LIST_HEAD(&t->lru);
	for (i = 0; i < nr; i++)
		list_add_tail(&t->flows[i].lru, &t->lru);
	return t;
}

/**
 * ringcap_cutoff_set - RINGCAP_FLOW_CUTOFF, before bind
 * @rs: the socket; rs->lock held
 * @bytes: the cut-off, or 0 for none
 *
 * The table is sized by cutoff_flows as it is now; a socket that had one
 * keeps it and only the cut-off changes.
 *
 * Return: 0, or -ENOMEM with the socket as it was.
 */
int ringcap_cutoff_set(struct ringcap_sock *rs, u32 bytes)
{
	struct ringcap_cutoff *t = rs->cutoff;

	lockdep_assert_held(&rs->lock);
	if (!bytes) {
		rs->cutoff = NULL;
		ringcap_cutoff_table_free(t);
		return 0;
	}
	if (!t) {
		t = ringcap_cutoff_table_alloc(READ_ONCE(ringcap_cutoff_flows));
		if (!t)
			return -ENOMEM;
		rs->cutoff = t;
	}
	t->limit = bytes;
	return 0;
}

/**
 * ringcap_cutoff_free - free a socket's flow table
 * @rs: the socket, which no producer can reach any more
 */
void ringcap_cutoff_free(struct ringcap_sock *rs)
{
	ringcap_cutoff_table_free(rs->cutoff);
	rs->cutoff = NULL;
}

/**
 * ringcap_cutoff_limit - a socket's cut-off
 * @rs: the socket; rs->lock held, or bound (it is fixed then)
 *
 * Return: RINGCAP_FLOW_CUTOFF's value, 0 for none.
 */
u32 ringcap_cutoff_limit(struct ringcap_sock *rs)
{
	return rs->cutoff ? rs->cutoff->limit : 0;
}

static unsigned long ringcap_cutoff_idle_jiffies(void)
{
	return READ_ONCE(ringcap_cutoff_idle) * HZ;
}

/*
 * The flow's entry: found, or the least recently seen (or a free) one
 * taken for it. Either way it is the most recent now.
 */
static struct ringcap_cutoff_flow *
ringcap_cutoff_lookup(struct ringcap_sock *rs, struct ringcap_cutoff *t,
		      const struct ringcap_flow_key *key)
{
	struct ringcap_cutoff_flow *e;
	struct hlist_head *b;
	u32 h;

	h = jhash2((const u32 *)key, sizeof(*key) / sizeof(u32), t->seed);
	b = &t->buckets[hash_32(h, t->hash_bits)];
	hlist_for_each_entry(e, b, node) {
		if (!memcmp(&e->key, key, sizeof(*key))) {
			list_move_tail(&e->lru, &t->lru);
			return e;
		}
	}
	e = list_first_entry(&t->lru, struct ringcap_cutoff_flow, lru);
	if (!hlist_unhashed(&e->node)) {
		hlist_del(&e->node);
		/* One quiet past cutoff_idle had ended: no loss of state. */
		if (!time_after(jiffies, e->seen + ringcap_cutoff_idle_jiffies()))
			rs->st.flows_evicted++;
	}
	e->key = *key;
	e->bytes = 0;
	hlist_add_head(&e->node, b);
	list_move_tail(&e->lru, &t->lru);
	return e;
}

/* Its next frame starts the flow afresh: the entry is free again. */
static void ringcap_cutoff_end(struct ringcap_cutoff *t,
			       struct ringcap_cutoff_flow *e)
{
	hlist_del_init(&e->node);
	list_move(&e->lru, &t->lru);
}

/**
 * ringcap_cutoff_past - is a frame past its flow's cut-off?
 * @rs: a socket with a cut-off; rs->prod_lock held
 * @f: a frame its filter accepted
 *
 * The frame's wire bytes count towards its flow; one past the cut-off is
 * counted (and, with RINGCAP_GAPS, put in the next gap record).
 *
 * Return: true if the frame is not to be copied.
 */
bool ringcap_cutoff_past(struct ringcap_sock *rs, struct ringcap_frame *f)
{
	struct ringcap_cutoff *t = rs->cutoff;
	struct ringcap_cutoff_flow *e;
	u8 tcp;
	u64 before;

	if (!f->flow_parsed)
		ringcap_flow_parse(f);
	if (!f->flow.key.family)
		return false;
	e = ringcap_cutoff_lookup(rs, t, &f->flow.key);
	tcp = f->flow.key.proto == IPPROTO_TCP ? f->flow.tcp_flags : 0;
	/*
	 * Quiet for too long, or a new connection on the same ports: its
	 * SYN, or in the other direction its SYN-ACK, which a connection
	 * whose end this direction never saw (a RST one way) needs.
	 */
	if (time_after(jiffies, e->seen + ringcap_cutoff_idle_jiffies()) ||
	    (tcp & RINGCAP_TCP_SYN))
		e->bytes = 0;
	before = e->bytes;
	e->bytes += f->len;
	e->seen = jiffies;
	if (tcp & (RINGCAP_TCP_FIN | RINGCAP_TCP_RST))
		ringcap_cutoff_end(t, e);
	if (before < t->limit)
		return false;
	rs->st.cutoff++;
	rs->st.cutoff_bytes += f->len;
	if (rs->gaps) {
		rs->gap.cutoff++;
		rs->gap_pending = true;
	}
	return true;
}
