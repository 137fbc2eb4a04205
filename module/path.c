// SPDX-License-Identifier: GPL-2.0
/*
 * The path report (RINGCAP_PATH, /proc/net/ringcap, ringstat): which
 * source feeds a socket, and when it is the plain hook where the reader
 * may have wanted XDP, why.
 */
#include "ringcap.h"

/*
 * Mode 1 on a device without the copy program: what the reader may do.
 * A socket bound with CAP_NET_ADMIN is asked for the copy program where
 * the driver has native XDP and the module the kfunc; every other case is
 * the plain hook, which mode 1 always was there.
 */
static void ringcap_path_mode1(struct ringcap_sock *rs, struct ringcap_dev *rd,
			       struct ringcap_path *p)
{
	if (!READ_ONCE(rs->steal) || !rd->xdp_native ||
	    !ringcap_kfunc_available() || READ_ONCE(rd->xdp))
		p->error = 0;
	else if (p->error)
		p->why = RINGCAP_XDP_REFUSED;
	else
		p->why = RINGCAP_XDP_NO_COPY_PROGRAM;
}

/**
 * ringcap_sock_path - which path feeds a socket, and why not XDP
 * @rs: the socket; under RCU (a snapshot: rd outlives a grace period, and
 *	the fields read change under rtnl)
 * @p: filled in
 */
void ringcap_sock_path(struct ringcap_sock *rs, struct ringcap_path *p)
{
	struct ringcap_dev *rd = READ_ONCE(rs->rd);
	enum ringcap_mode mode = ringcap_mode();

	memset(p, 0, sizeof(*p));
	if (ringcap_kfunc_available())
		p->flags |= RINGCAP_PATH_KFUNC;
	if (READ_ONCE(rs->zc)) {
		p->path = RINGCAP_PATH_ZEROCOPY;
		return;
	}
	if (!rd)
		return;
	if (mode == RINGCAP_MODE_STEAL && !READ_ONCE(rs->steal))
		p->flags |= RINGCAP_PATH_PASS;
	p->path = RINGCAP_PATH_HOOK;
	if (READ_ONCE(rd->nr_rxq)) {
		if (mode != RINGCAP_MODE_HOOK)
			p->path = RINGCAP_PATH_AWARE;
		return;
	}
	if (mode == RINGCAP_MODE_HOOK)
		return;
	p->error = READ_ONCE(rd->xdp_error);
	if (READ_ONCE(rd->xdp) && READ_ONCE(rd->xdp_copy))
		p->path = RINGCAP_PATH_XDP_COPY;
	else if (mode == RINGCAP_MODE_COPY)
		/* Only the copy program serves mode 1 (libringcap, xdp.c). */
		ringcap_path_mode1(rs, rd, p);
	else if (READ_ONCE(rd->xdp))
		p->path = RINGCAP_PATH_XDP;
	else if (p->flags & RINGCAP_PATH_PASS)
		return;		/* no program would serve it (set_link) */
	else if (!rd->xdp_native)
		p->why = RINGCAP_XDP_NO_NATIVE;
	else if (p->error)
		p->why = RINGCAP_XDP_REFUSED;
	else
		p->why = RINGCAP_XDP_NO_PROGRAM;
}

/**
 * ringcap_path_name - the path as /proc/net/ringcap names it
 * @p: what ringcap_sock_path() said
 *
 * Return: a static string.
 */
const char *ringcap_path_name(const struct ringcap_path *p)
{
	static const char *const why[] = {
		[RINGCAP_XDP_NONE] = "hook",
		[RINGCAP_XDP_NO_NATIVE] = "hook:no-native-xdp",
		[RINGCAP_XDP_NO_PROGRAM] = "hook:no-program",
		[RINGCAP_XDP_REFUSED] = "hook:refused",
		[RINGCAP_XDP_NO_COPY_PROGRAM] = "hook:no-program",
	};

	switch (p->path) {
	case RINGCAP_PATH_HOOK:
		if (p->why == RINGCAP_XDP_REFUSED && p->error == EBUSY)
			return "hook:busy";
		return p->why < ARRAY_SIZE(why) ? why[p->why] : "hook";
	case RINGCAP_PATH_AWARE:
		return "aware";
	case RINGCAP_PATH_XDP:
		return "xdp-redirect";
	case RINGCAP_PATH_XDP_COPY:
		return "xdp-copy";
	case RINGCAP_PATH_ZEROCOPY:
		return "zerocopy";
	}
	return "-";
}
