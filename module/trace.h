/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints, group "ringcap". These are the stable hooks for the bpftrace
 * scripts: a frame written to a ring, a frame dropped (and why), a reader
 * woken (and why). ino identifies the socket (as in /proc/net/ringcap).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ringcap

#if !defined(_RINGCAP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RINGCAP_TRACE_H

#include <linux/tracepoint.h>
#include "reasons.h"

/*
 * The reasons come from their lists in reasons.h. TRACE_DEFINE_ENUM
 * makes the format files show each constant as its number, so that tools
 * reading them (perf, trace-cmd) can print the names too.
 */
#define RINGCAP_TRACE_DROP(c, name)	TRACE_DEFINE_ENUM(RINGCAP_DROP_##c);
#define RINGCAP_TRACE_WAKE(c, name)	TRACE_DEFINE_ENUM(RINGCAP_WAKE_##c);
RINGCAP_DROP_REASONS(RINGCAP_TRACE_DROP, RINGCAP_TRACE_DROP)
RINGCAP_WAKE_REASONS(RINGCAP_TRACE_WAKE, RINGCAP_TRACE_WAKE)

#define RINGCAP_SYM_DROP(c, name)	{ RINGCAP_DROP_##c, #name },
#define RINGCAP_SYM_DROPe(c, name)	{ RINGCAP_DROP_##c, #name }
#define RINGCAP_SYM_WAKE(c, name)	{ RINGCAP_WAKE_##c, #name },
#define RINGCAP_SYM_WAKEe(c, name)	{ RINGCAP_WAKE_##c, #name }

#define ringcap_show_drop(r)						\
	__print_symbolic(r, RINGCAP_DROP_REASONS(RINGCAP_SYM_DROP,	\
						 RINGCAP_SYM_DROPe))
#define ringcap_show_wake(r)						\
	__print_symbolic(r, RINGCAP_WAKE_REASONS(RINGCAP_SYM_WAKE,	\
						 RINGCAP_SYM_WAKEe))

TRACE_EVENT(ringcap_deliver,
	TP_PROTO(int ifindex, u16 queue, u64 ino, u32 caplen, u32 len),
	TP_ARGS(ifindex, queue, ino, caplen, len),
	TP_STRUCT__entry(
		__field(int, ifindex)
		__field(u16, queue)
		__field(u64, ino)
		__field(u32, caplen)
		__field(u32, len)
	),
	TP_fast_assign(
		__entry->ifindex = ifindex;
		__entry->queue = queue;
		__entry->ino = ino;
		__entry->caplen = caplen;
		__entry->len = len;
	),
	TP_printk("ifindex=%d queue=%u ino=%llu caplen=%u len=%u",
		  __entry->ifindex, __entry->queue, __entry->ino,
		  __entry->caplen, __entry->len)
);

TRACE_EVENT(ringcap_drop,
	TP_PROTO(int ifindex, u16 queue, u64 ino,
		 enum ringcap_drop_reason reason),
	TP_ARGS(ifindex, queue, ino, reason),
	TP_STRUCT__entry(
		__field(int, ifindex)
		__field(u16, queue)
		__field(u64, ino)
		__field(int, reason)
	),
	TP_fast_assign(
		__entry->ifindex = ifindex;
		__entry->queue = queue;
		__entry->ino = ino;
		__entry->reason = reason;
	),
	TP_printk("ifindex=%d queue=%u ino=%llu reason=%s",
		  __entry->ifindex, __entry->queue, __entry->ino,
		  ringcap_show_drop(__entry->reason))
);

TRACE_EVENT(ringcap_wakeup,
	TP_PROTO(u64 ino, enum ringcap_wake_reason reason, u32 pending),
	TP_ARGS(ino, reason, pending),
	TP_STRUCT__entry(
		__field(u64, ino)
		__field(int, reason)
		__field(u32, pending)
	),
	TP_fast_assign(
		__entry->ino = ino;
		__entry->reason = reason;
		__entry->pending = pending;
	),
	TP_printk("ino=%llu reason=%s pending=%u", __entry->ino,
		  ringcap_show_wake(__entry->reason), __entry->pending)
);

#endif /* _RINGCAP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
