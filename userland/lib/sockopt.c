// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Socket options: ring geometry, snaplen, promiscuous mode, zero-copy
 * receive, the transmit ring and transmit-only sockets, the wake-up
 * policy, classic BPF filters and the counters.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/socket.h>
#include "internal.h"

static const char *rc_optname(int name)
{
	switch (name) {
	case RINGCAP_RING_SIZE:
		return "ring size";
	case RINGCAP_SNAPLEN:
		return "snaplen";
	case RINGCAP_WATERMARK:
		return "watermark";
	case RINGCAP_TIMEOUT_US:
		return "timeout_us";
	case RINGCAP_PROMISC:
		return "promisc";
	case RINGCAP_ZEROCOPY:
		return "zero-copy";
	case RINGCAP_TX_RING_SIZE:
		return "transmit ring size";
	case RINGCAP_CAPTURE:
		return "capture";
	case RINGCAP_FLOW_CUTOFF:
		return "the per-flow cut-off";
	}
	return "option";
}

static int rc_setopt(struct ringcap *rc, int name, uint32_t val)
{
	const char *why = "";

	if (!setsockopt(rc->fd, SOL_RINGCAP, name, &val, sizeof(val)))
		return 0;
	/*
	 * Zero-copy and the transmit options, like promisc, are refused
	 * once bound, ring or not.
	 */
	if (errno == EBUSY && (name == RINGCAP_ZEROCOPY ||
			       name == RINGCAP_TX_RING_SIZE ||
			       name == RINGCAP_CAPTURE ||
			       name == RINGCAP_FLOW_CUTOFF))
		why = " (the socket is already bound: set it before bind)";
	else if (errno == EBUSY)
		why = " (the ring already exists: set it before bind/map)";
	else if (errno == ENOPROTOOPT && name == RINGCAP_ZEROCOPY)
		why = " (the loaded module does not offer zero-copy receive)";
	else if (errno == ENOPROTOOPT && (name == RINGCAP_TX_RING_SIZE ||
					  name == RINGCAP_CAPTURE))
		why = " (the loaded module has no transmit ring)";
	else if (errno == ENOPROTOOPT && name == RINGCAP_FLOW_CUTOFF)
		why = " (the loaded module has no per-flow cut-off)";
	else if (errno == ENOMEM && name == RINGCAP_FLOW_CUTOFF)
		why = " (no memory for the flow table: module parameter cutoff_flows)";
	else if (errno == EINVAL && name == RINGCAP_TX_RING_SIZE)
		why = " (not 0 or a power of two within the module's limits)";
	else if (errno == EINVAL && name == RINGCAP_SNAPLEN)
		why = " (out of range, or more than half the ring holds)";
	else if (errno == EINVAL && name == RINGCAP_RING_SIZE)
		why = " (out of range, or too small for the snaplen set)";
	else if (errno == EINVAL)
		why = " (out of range)";
	return rc_fail(rc, errno, "setting %s to %u: %s%s", rc_optname(name),
		       val, strerror(errno), why);
}

int rcap_set_ring_size(struct ringcap *rc, uint32_t bytes)
{
	return rc_setopt(rc, RINGCAP_RING_SIZE, bytes);
}

int rcap_get_ring_size(struct ringcap *rc, uint32_t *bytes)
{
	socklen_t len = sizeof(*bytes);

	if (!getsockopt(rc->fd, SOL_RINGCAP, RINGCAP_RING_SIZE, bytes, &len))
		return 0;
	return rc_fail(rc, errno, "reading the ring size: %s",
		       strerror(errno));
}

int rcap_set_snaplen(struct ringcap *rc, uint32_t snaplen)
{
	return rc_setopt(rc, RINGCAP_SNAPLEN, snaplen);
}

int rcap_set_promisc(struct ringcap *rc, int on)
{
	return rc_setopt(rc, RINGCAP_PROMISC, on ? 1 : 0);
}

int rcap_set_zerocopy(struct ringcap *rc, int on)
{
	if (rc_setopt(rc, RINGCAP_ZEROCOPY, on ? 1 : 0))
		return -1;
	/* Remembered so that a refused bind can be explained (bind.c). */
	rc->zerocopy = !!on;
	return 0;
}

int rcap_set_tx_ring(struct ringcap *rc, uint32_t bytes)
{
	if (rc_setopt(rc, RINGCAP_TX_RING_SIZE, bytes))
		return -1;
	/* What rcap_map() is to map beside the receive ring. */
	rc->tx_ring_size = bytes;
	return 0;
}

int rcap_set_capture(struct ringcap *rc, int on)
{
	if (rc_setopt(rc, RINGCAP_CAPTURE, on ? 1 : 0))
		return -1;
	/* A bind must then attach no XDP program, nor ask for zero-copy. */
	rc->no_capture = !on;
	return 0;
}

int rcap_set_gaps(struct ringcap *rc, int on)
{
	return rc_setopt(rc, RINGCAP_GAPS, on ? 1 : 0);
}

int rcap_set_cutoff(struct ringcap *rc, uint32_t bytes)
{
	return rc_setopt(rc, RINGCAP_FLOW_CUTOFF, bytes);
}

/* A name option: its bytes, without the NUL (uapi). */
static int rc_setname(struct ringcap *rc, int opt, const char *name,
		      const char *what)
{
	size_t n = strlen(name);

	if (!setsockopt(rc->fd, SOL_RINGCAP, opt, name, n))
		return 0;
	if (errno == EINVAL)
		return rc_fail(rc, EINVAL,
			       "%s \"%.40s\": a name is 1..%d characters of A-Z a-z 0-9 . _ -",
			       what, name, RINGCAP_PERSIST_NAME_MAX);
	if (errno == ENOPROTOOPT)
		return rc_fail(rc, errno,
			       "%s: the loaded module has no persistent rings",
			       what);
	if (errno == EBUSY && opt == RINGCAP_PERSIST)
		return rc_fail(rc, errno,
			       "%s: the socket is already bound: set it before bind",
			       what);
	if (errno == EBUSY)
		return rc_fail(rc, errno,
			       "%s \"%s\": a reader has it (close that first)",
			       what, name);
	if (errno == ENOENT)
		return rc_fail(rc, errno,
			       "%s \"%s\": no persistent ring of that name in this network namespace",
			       what, name);
	if (errno == EACCES)
		return rc_fail(rc, errno,
			       "%s \"%s\": another user's ring (needs CAP_NET_ADMIN)",
			       what, name);
	return rc_fail(rc, errno, "%s \"%s\": %s", what, name,
		       strerror(errno));
}

int rcap_set_persist(struct ringcap *rc, const char *name)
{
	if (rc_setname(rc, RINGCAP_PERSIST, name, "persistent ring"))
		return -1;
	rc->persist = 1;
	return 0;
}

int rcap_delete_persist(struct ringcap *rc, const char *name)
{
	return rc_setname(rc, RINGCAP_PERSIST_DELETE, name,
			  "deleting persistent ring");
}

int rcap_set_wakeup(struct ringcap *rc, uint32_t watermark,
		       uint32_t timeout_us)
{
	if (watermark != RINGCAP_WAKEUP_KEEP &&
	    rc_setopt(rc, RINGCAP_WATERMARK, watermark))
		return -1;
	if (timeout_us != RINGCAP_WAKEUP_KEEP &&
	    rc_setopt(rc, RINGCAP_TIMEOUT_US, timeout_us))
		return -1;
	return 0;
}

int rcap_set_filter(struct ringcap *rc, const struct sock_fprog *prog)
{
	if (!setsockopt(rc->fd, SOL_SOCKET, SO_ATTACH_FILTER, prog,
			sizeof(*prog)))
		return 0;
	return rc_fail(rc, errno, "attaching a %u-instruction BPF filter: %s",
		       prog ? prog->len : 0, strerror(errno));
}

int rcap_clear_filter(struct ringcap *rc)
{
	int dummy = 0;

	/* ENOENT only means there was no filter: the goal is reached. */
	if (!setsockopt(rc->fd, SOL_SOCKET, SO_DETACH_FILTER, &dummy,
			sizeof(dummy)) || errno == ENOENT)
		return 0;
	return rc_fail(rc, errno, "detaching the BPF filter: %s",
		       strerror(errno));
}

int rcap_stats_sized(struct ringcap *rc, struct ringcap_stats *st,
		     size_t size)
{
	socklen_t len = size;

	if (size < RINGCAP_STATS_SIZE_V1 || size > INT_MAX)
		return rc_fail(rc, EINVAL,
			       "reading the counters: %zu bytes is below the first size, %d",
			       size, RINGCAP_STATS_SIZE_V1);
	memset(st, 0, size);
	if (!getsockopt(rc->fd, SOL_RINGCAP, RINGCAP_STATS, st, &len))
		return 0;
	return rc_fail(rc, errno, "reading the counters: %s", strerror(errno));
}

int rcap_stats(struct ringcap *rc, struct ringcap_stats *st)
{
	/*
	 * The first size, not sizeof: a program built before the structure
	 * grew passes the smaller one, and this library must not write past
	 * it. Later fields come through rcap_stats_sized().
	 */
	return rcap_stats_sized(rc, st, RINGCAP_STATS_SIZE_V1);
}

/* The names before libringcap 1.2 (libringcap.h). */
RC_OLD_NAME(clear_filter);
RC_OLD_NAME(get_ring_size);
RC_OLD_NAME(set_capture);
RC_OLD_NAME(set_filter);
RC_OLD_NAME(set_promisc);
RC_OLD_NAME(set_ring_size);
RC_OLD_NAME(set_snaplen);
RC_OLD_NAME(set_tx_ring);
RC_OLD_NAME(set_wakeup);
RC_OLD_NAME(set_zerocopy);
RC_OLD_NAME(stats);
