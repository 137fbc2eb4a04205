// SPDX-License-Identifier: GPL-2.0
/*
 * Putting one frame into one socket's ring: filter, cut-off, copy, count,
 * signal.
 * Every source ends here through its device's set (dev.c): the mode 0
 * packet_type hook (hook.c), the aware driver API (aware.c), the XDP
 * paths (xdp.c, kfunc.c) and zero-copy queues (zerocopy.c); frames
 * without an skb get one for the filter (frame.c).
 */
#include <linux/filter.h>
#include "ringcap.h"
#include "trace.h"

static unsigned int ringcap_run_filter(const struct sk_filter *filter,
				       struct ringcap_frame *f)
{
	/* Mode 0 has the stack's skb; an aware driver's frame gets one. */
	struct sk_buff *skb = f->skb ? f->skb : ringcap_filter_skb(f);

	return bpf_prog_run_clear_cb(filter->prog, skb);
}

static void ringcap_fill(struct ringcap_rec *rec, const struct ringcap_frame *f,
			 u32 rec_len, u32 caplen)
{
	rec->rec_len = rec_len;
	rec->flags = f->flags | (caplen < f->len ? RINGCAP_REC_TRUNC : 0) |
		     (f->zc ? RINGCAP_REC_ZC : 0);
	rec->queue = f->queue;
	rec->caplen = caplen;
	rec->wire_len = f->len;
	rec->tstamp_ns = f->tstamp_ns;
	rec->ifindex = f->ifindex;
	rec->rss_hash = f->rss_hash;
	rec->vlan_tci = f->vlan_tci;
	rec->vlan_proto = (__force u16)f->vlan_proto;
	rec->zc_offset = f->zc_offset;
	if (f->zc)
		return;		/* the frame stays in the reader's buffer */
	if (f->skb)
		skb_copy_bits(f->skb, 0, rec + 1, caplen);
	else
		ringcap_frame_copy(f, rec + 1, caplen);
}

/**
 * ringcap_batch_end - let go of the socket a batch holds
 * @b: the batch
 *
 * Publishes its frames' count and applies the wake-up policy to them
 * once, then drops the socket's producer lock.
 */
void ringcap_batch_end(struct ringcap_batch *b)
{
	struct ringcap_sock *rs = b->rs;

	if (!rs)
		return;
	if (b->n) {
		WRITE_ONCE(READ_ONCE(rs->ring)->hdr->received, rs->st.received);
		ringcap_wakeup_frames(rs);
	}
	spin_unlock(&rs->prod_lock);
	b->rs = NULL;
	b->n = 0;
}

/* Hold rs's producer lock in @b, letting go of another socket's first. */
static void ringcap_batch_hold(struct ringcap_batch *b, struct ringcap_sock *rs)
{
	if (b->rs == rs)
		return;
	ringcap_batch_end(b);
	spin_lock(&rs->prod_lock);
	b->rs = rs;
}

/**
 * ringcap_deliver_batched - offer one frame to one socket, in a batch
 * @b: the batch: the socket whose lock it holds, and its frames since
 * @rs: a bound socket
 * @f: the frame
 *
 * Runs in softirq context or with BH disabled, under RCU. Consecutive
 * frames for one unfiltered socket take its lock, publish its count and
 * check its watermark once (ringcap_batch_end(), which the caller runs
 * after the last frame); the redirect path's batches of up to 16 frames
 * do that (xdp.c). A frame for another socket ends the batch first, and
 * so does one for a socket with a filter: filters run outside every lock,
 * in parallel with the other queues' CPUs.
 *
 * Return: whether the frame is in the ring (for a zero-copy frame: its
 * buffer is the reader's now).
 */
bool ringcap_deliver_batched(struct ringcap_batch *b, struct ringcap_sock *rs,
			     struct ringcap_frame *f)
{
	struct ringcap_ring *ring = READ_ONCE(rs->ring);
	u32 caplen = min(f->len, READ_ONCE(rs->snaplen));
	unsigned int res = UINT_MAX;
	struct sk_filter *filter;
	struct ringcap_rec *rec;
	u32 rec_len;
	bool bad;

	/* Callers run under RCU (softirq or rcu_read_lock()). */
	filter = rcu_dereference(rs->sk.sk_filter);
	if (filter) {
		ringcap_batch_end(b);
		res = ringcap_run_filter(filter, f);
	}
	ringcap_batch_hold(b, rs);
	if (!res) {
		rs->st.filtered++;
		WRITE_ONCE(ring->hdr->filtered, rs->st.filtered);
		trace_ringcap_drop(f->ifindex, f->queue, ringcap_sock_ino(rs),
				   RINGCAP_DROP_FILTER);
		return false;
	}
	caplen = min(caplen, res);

	if (unlikely(rs->cutoff) && ringcap_cutoff_past(rs, f)) {
		trace_ringcap_drop(f->ifindex, f->queue, ringcap_sock_ino(rs),
				   RINGCAP_DROP_CUTOFF);
		return false;
	}
	/* A gap record first, if one is due; then the frame's, if room. */
	if (unlikely(rs->gap_pending) &&
	    !ringcap_gap_put(rs, ring, f->tstamp_ns, &bad))
		rec = NULL;
	else
		rec = ringcap_ring_reserve(ring, f->zc ? 0 : caplen, &rec_len,
					   &bad);
	if (!rec) {
		rs->st.dropped++;
		if (bad)
			rs->st.bad_consumer++;
		if (rs->gaps)
			ringcap_gap_lost(rs);
		WRITE_ONCE(ring->hdr->dropped, rs->st.dropped);
		WRITE_ONCE(ring->hdr->received, rs->st.received);
		/* A full ring must reach the reader even below N frames. */
		ringcap_wakeup_flush(rs);
		trace_ringcap_drop(f->ifindex, f->queue, ringcap_sock_ino(rs),
				   bad ? RINGCAP_DROP_BAD_CONSUMER :
					 RINGCAP_DROP_RING_FULL);
		return false;
	}
	ringcap_fill(rec, f, rec_len, caplen);
	ringcap_ring_commit(ring, rec_len);
	rs->st.received++;
	rs->pending++;
	b->n++;
	trace_ringcap_deliver(f->ifindex, f->queue, ringcap_sock_ino(rs),
			      caplen, f->len);
	return true;
}

/**
 * ringcap_deliver - offer one frame to one socket, a batch of its own
 * @rs: a bound socket
 * @f: the frame
 *
 * As ringcap_deliver_batched().
 *
 * Return: whether the frame is in the ring.
 */
bool ringcap_deliver(struct ringcap_sock *rs, struct ringcap_frame *f)
{
	struct ringcap_batch b = {};
	bool in = ringcap_deliver_batched(&b, rs, f);

	ringcap_batch_end(&b);
	return in;
}
