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

static unsigned int ringcap_run_filter(struct ringcap_sock *rs,
				       struct ringcap_frame *f)
{
	struct sk_filter *filter;
	struct sk_buff *skb;

	/* Callers run under RCU (softirq or rcu_read_lock()). */
	filter = rcu_dereference(rs->sk.sk_filter);
	if (!filter)
		return UINT_MAX;
	/* Mode 0 has the stack's skb; an aware driver's frame gets one. */
	skb = f->skb ? f->skb : ringcap_filter_skb(f);
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
 * ringcap_deliver - offer one frame to one socket
 * @rs: a bound socket
 * @f: the frame
 *
 * Runs in softirq context or with BH disabled, under RCU.
 *
 * Return: whether the frame is in the ring (for a zero-copy frame: its
 * buffer is the reader's now).
 */
bool ringcap_deliver(struct ringcap_sock *rs, struct ringcap_frame *f)
{
	struct ringcap_ring *ring = READ_ONCE(rs->ring);
	u32 caplen = min(f->len, READ_ONCE(rs->snaplen));
	unsigned int res;
	struct ringcap_rec *rec;
	u32 rec_len;
	bool bad;

	res = ringcap_run_filter(rs, f);
	if (!res) {
		spin_lock(&rs->prod_lock);
		rs->st.filtered++;
		WRITE_ONCE(ring->hdr->filtered, rs->st.filtered);
		spin_unlock(&rs->prod_lock);
		trace_ringcap_drop(f->ifindex, f->queue, ringcap_sock_ino(rs),
				   RINGCAP_DROP_FILTER);
		return false;
	}
	caplen = min(caplen, res);

	spin_lock(&rs->prod_lock);
	if (unlikely(rs->cutoff) && ringcap_cutoff_past(rs, f)) {
		spin_unlock(&rs->prod_lock);
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
		/* A full ring must reach the reader even below N frames. */
		ringcap_wakeup_flush(rs);
		spin_unlock(&rs->prod_lock);
		trace_ringcap_drop(f->ifindex, f->queue, ringcap_sock_ino(rs),
				   bad ? RINGCAP_DROP_BAD_CONSUMER :
					 RINGCAP_DROP_RING_FULL);
		return false;
	}
	ringcap_fill(rec, f, rec_len, caplen);
	ringcap_ring_commit(ring, rec_len);
	rs->st.received++;
	WRITE_ONCE(ring->hdr->received, rs->st.received);
	ringcap_wakeup_frame(rs);
	spin_unlock(&rs->prod_lock);
	trace_ringcap_deliver(f->ifindex, f->queue, ringcap_sock_ino(rs),
			      caplen, f->len);
	return true;
}
