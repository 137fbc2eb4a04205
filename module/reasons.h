/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reasons of ringcap's tracepoints (trace.h), which the bpftrace
 * scripts (userland/bpftrace/) show by these names.
 */
#ifndef _RINGCAP_REASONS_H
#define _RINGCAP_REASONS_H

/*
 * Reasons, as the tracepoints ringcap:ringcap_drop and ringcap:ringcap_wakeup
 * give them in their "reason" field. Each list names every reason once: the
 * suffix of its enum constant, which is numbered by its place in the list,
 * and the name that the tracepoints print and the bpftrace scripts show.
 * FN is applied to each entry but the last and FNe to the last, so that a
 * list built from them needs no trailing separator.
 *
 * A frame a socket did not take (the counter it is in):
 *   ring_full     no room in the ring: the reader is behind (dropped)
 *   bad_consumer  the reader wrote an invalid consumer (dropped, bad_consumer)
 *   filter        the socket's BPF filter refused it (filtered)
 *   cutoff        past its flow's cut-off, RINGCAP_FLOW_CUTOFF (cutoff)
 * A sleeping reader woken:
 *   watermark     N frames since the last signal, or a full ring (wakeups)
 *   timer         m us after the first unsignalled frame (wakeups_timer)
 */
#define RINGCAP_DROP_REASONS(FN, FNe)		\
	FN(RING_FULL, ring_full)		\
	FN(BAD_CONSUMER, bad_consumer)		\
	FN(FILTER, filter)			\
	FNe(CUTOFF, cutoff)

#define RINGCAP_WAKE_REASONS(FN, FNe)		\
	FN(WATERMARK, watermark)		\
	FNe(TIMER, timer)

#define __RINGCAP_DROP_ENUM(c, name)	RINGCAP_DROP_##c,
#define __RINGCAP_WAKE_ENUM(c, name)	RINGCAP_WAKE_##c,

/*
 * RINGCAP_DROP_RING_FULL (0), RINGCAP_DROP_BAD_CONSUMER, RINGCAP_DROP_FILTER,
 * RINGCAP_DROP_CUTOFF
 */
enum ringcap_drop_reason {
	RINGCAP_DROP_REASONS(__RINGCAP_DROP_ENUM, __RINGCAP_DROP_ENUM)
	__RINGCAP_DROP_MAX	/* not a reason: how many there are */
};

/* RINGCAP_WAKE_WATERMARK (0), RINGCAP_WAKE_TIMER */
enum ringcap_wake_reason {
	RINGCAP_WAKE_REASONS(__RINGCAP_WAKE_ENUM, __RINGCAP_WAKE_ENUM)
	__RINGCAP_WAKE_MAX	/* not a reason: how many there are */
};

#endif /* _RINGCAP_REASONS_H */
