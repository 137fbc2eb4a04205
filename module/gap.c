// SPDX-License-Identifier: GPL-2.0
/*
 * Gap records (uapi/linux/ringcap.h, RINGCAP_GAPS): what a socket lost,
 * counted by reason under its rs->prod_lock, goes into its ring as one
 * record before the next frame's, so the reader sees the loss where it
 * happened. The counts are kept only for a socket that asked for them.
 */
#include "ringcap.h"

/* The structure grows only at its end (uapi): its first size is fixed. */
static_assert(RINGCAP_GAP_SIZE_V1 ==
	      offsetofend(struct ringcap_gap, nic));
static_assert(RINGCAP_GAP_SIZE_V2 ==
	      offsetofend(struct ringcap_gap, cutoff));

/**
 * ringcap_gap_lost - count a frame meant for the socket that it lost
 * @rs: the socket, with RINGCAP_GAPS; rs->prod_lock held
 *
 * A cluster member's frame is lost to that member alone (it is not given
 * to another, uapi "Clusters"), so it has a reason of its own.
 */
void ringcap_gap_lost(struct ringcap_sock *rs)
{
	if (rs->cluster.id)
		rs->gap.cluster_full++;
	else
		rs->gap.ring_full++;
	rs->gap_pending = true;
}

/**
 * ringcap_gap_put - write the counts since the last gap record
 * @rs: the socket, with a gap pending; rs->prod_lock held
 * @ring: its ring
 * @tstamp_ns: the record's time: that of the frame that ends the gap
 * @bad: set as ringcap_ring_reserve() sets it
 *
 * Return: whether the record is in the ring (the counts start again from
 * zero); false when there is no room, and the counts stay.
 */
bool ringcap_gap_put(struct ringcap_sock *rs, struct ringcap_ring *ring,
		     u64 tstamp_ns, bool *bad)
{
	struct ringcap_rec *rec;
	u32 rec_len;

	rec = ringcap_ring_reserve(ring, sizeof(rs->gap), &rec_len, bad);
	if (!rec)
		return false;
	/* The ring is the reader's memory: every byte of it is written. */
	*rec = (struct ringcap_rec) {
		.rec_len = rec_len,
		.flags = RINGCAP_REC_GAP,
		.queue = rs->queue,
		.caplen = sizeof(rs->gap),
		.tstamp_ns = tstamp_ns,
		.ifindex = rs->ifindex,
	};
	memcpy(rec + 1, &rs->gap, sizeof(rs->gap));
	ringcap_ring_commit(ring, rec_len);
	memset(&rs->gap, 0, sizeof(rs->gap));
	rs->gap_pending = false;
	return true;
}

/**
 * ringcap_nic_lost - the NIC lost frames before any reached the driver
 * @rd: the device's handle from ringcap_register_dev()
 * @frames: how many, as its missed counter grew since the last report
 *
 * Every socket with RINGCAP_GAPS bound to the device counts them: the NIC
 * dropped them before the socket's filter or queue could be looked at.
 * Process or softirq context (not hard IRQ), any lock of the driver's.
 */
void ringcap_nic_lost(struct ringcap_dev *rd, u64 frames)
{
	const struct ringcap_dev_set *set;
	const struct ringcap_dest *d;
	struct ringcap_sock *rs;
	unsigned long flags;
	unsigned int i, j;

	rcu_read_lock();
	set = rcu_dereference(rd->set);
	for (i = 0; i < set->nr_dests; i++) {
		d = &set->dests[i];
		for (j = 0; j < d->nr; j++) {
			rs = d->socks[j];
			/* A spanning cluster's members bound elsewhere: not theirs. */
			if (!READ_ONCE(rs->gaps) || rs->ifindex != rd->dev->ifindex)
				continue;
			/* The driver may hold a lock of its own with IRQs off. */
			spin_lock_irqsave(&rs->prod_lock, flags);
			rs->gap.nic += frames;
			rs->gap_pending = true;
			spin_unlock_irqrestore(&rs->prod_lock, flags);
		}
	}
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(ringcap_nic_lost);
