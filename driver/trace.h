/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints, group "ringcap_e1000e": what each RX queue's interrupt and
 * thread do, and the NIC's own drop counters. They are the hooks of the
 * bpftrace scripts in userland/bpftrace/ (docs/DIAGNOSTICS.md). ifindex
 * and queue name an RX queue as in ringcap's tracepoints, so the two can
 * be joined.
 *
 * They fire per interrupt, per drain pass, per sleep and per counter fold,
 * never per frame. Disabled, each costs one static branch; the arguments
 * are pointers and counts the caller already has, and the fields are read
 * from them only when the event is enabled.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ringcap_e1000e

#if !defined(_RCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RCE_TRACE_H

#include <linux/tracepoint.h>
#include "rce.h"

/*
 * The queue's vector fired (hard IRQ). masked: this interrupt took the
 * mask for the thread; 0 means the mask was already held (a late or
 * spurious message, or the other queue's cause on a shared vector).
 */
TRACE_EVENT(rce_rx_irq,
	TP_PROTO(const struct rce_rx_ring *rx, bool masked),
	TP_ARGS(rx, masked),
	TP_STRUCT__entry(
		__field(int, ifindex)
		__field(u16, queue)
		__field(u8, masked)
	),
	TP_fast_assign(
		__entry->ifindex = rx->ad->netdev->ifindex;
		__entry->queue = rx->q;
		__entry->masked = masked;
	),
	TP_printk("ifindex=%d queue=%u masked=%u", __entry->ifindex,
		  __entry->queue, __entry->masked)
);

/*
 * One drain pass of the queue's thread that found work: descs descriptors
 * handled, frames good frames among them (the rest were bad or pieces of
 * an oversized frame), to_ring frames offered to a ring, to_stack frames
 * passed up, no_skb frames for the stack lost for want of an skb. descs
 * == budget: the pass stopped at the budget (rx_batch), another follows
 * at once.
 */
TRACE_EVENT(rce_rx_batch,
	TP_PROTO(const struct rce_rx_ring *rx, unsigned int descs,
		 unsigned int frames, unsigned int to_ring,
		 unsigned int to_stack, unsigned int no_skb,
		 unsigned int budget),
	TP_ARGS(rx, descs, frames, to_ring, to_stack, no_skb, budget),
	TP_STRUCT__entry(
		__field(int, ifindex)
		__field(u16, queue)
		__field(u32, descs)
		__field(u32, frames)
		__field(u32, to_ring)
		__field(u32, to_stack)
		__field(u32, no_skb)
		__field(u32, budget)
	),
	TP_fast_assign(
		__entry->ifindex = rx->ad->netdev->ifindex;
		__entry->queue = rx->q;
		__entry->descs = descs;
		__entry->frames = frames;
		__entry->to_ring = to_ring;
		__entry->to_stack = to_stack;
		__entry->no_skb = no_skb;
		__entry->budget = budget;
	),
	TP_printk("ifindex=%d queue=%u descs=%u frames=%u to_ring=%u to_stack=%u no_skb=%u budget=%u",
		  __entry->ifindex, __entry->queue, __entry->descs,
		  __entry->frames, __entry->to_ring, __entry->to_stack,
		  __entry->no_skb, __entry->budget)
);

/*
 * The queue is empty: its thread is about to give the interrupt back and
 * sleep (unless a frame lands in between: then it drains again).
 */
TRACE_EVENT(rce_rx_idle,
	TP_PROTO(const struct rce_rx_ring *rx, bool armed),
	TP_ARGS(rx, armed),
	TP_STRUCT__entry(
		__field(int, ifindex)
		__field(u16, queue)
		__field(u8, armed)
	),
	TP_fast_assign(
		__entry->ifindex = rx->ad->netdev->ifindex;
		__entry->queue = rx->q;
		__entry->armed = armed;
	),
	TP_printk("ifindex=%d queue=%u armed=%u", __entry->ifindex,
		  __entry->queue, __entry->armed)
);

/*
 * The hardware counters were folded and the NIC dropped frames since the
 * last fold: missed (MPC, no room in the packet buffer) and no_buffer
 * (RNBC, no free descriptor; the frame may still have been taken later).
 * Device-wide: the 82574 does not count per queue.
 */
TRACE_EVENT(rce_hw_drops,
	TP_PROTO(const struct rce_adapter *ad, u32 missed, u32 no_buffer),
	TP_ARGS(ad, missed, no_buffer),
	TP_STRUCT__entry(
		__field(int, ifindex)
		__field(u32, missed)
		__field(u32, no_buffer)
	),
	TP_fast_assign(
		__entry->ifindex = ad->netdev->ifindex;
		__entry->missed = missed;
		__entry->no_buffer = no_buffer;
	),
	TP_printk("ifindex=%d missed=%u no_buffer=%u", __entry->ifindex,
		  __entry->missed, __entry->no_buffer)
);

#endif /* _RCE_TRACE_H */

/*
 * define_trace.h includes "./trace.h" again; Kbuild puts this directory
 * first on the quoted-include path of trace.o (ringcap's own trace.h is
 * on the path too when both modules build in one pass).
 */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
