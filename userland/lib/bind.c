// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Device specs ("eth0", "eth0@1") and binding a socket to (device, queue),
 * with a message that says why when the kernel refuses.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <net/if.h>
#include <sys/socket.h>
#include "internal.h"

/* The rules the kernel applies to interface names (dev_valid_name()). */
static int rc_valid_ifname(const char *name, size_t len)
{
	size_t i;

	if (!len || len >= IFNAMSIZ)
		return 0;
	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	for (i = 0; i < len; i++)
		if (name[i] == '/' || name[i] == ':' ||
		    isspace((unsigned char)name[i]))
			return 0;
	return 1;
}

/* Decimal digits only: no sign, no spaces, below RINGCAP_QUEUE_ANY. */
static int rc_parse_queue(const char *s, int *queue)
{
	long val = 0;

	if (!strcmp(s, "all")) {
		*queue = -1;
		return 0;
	}
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		val = val * 10 + (*s - '0');
		if (val >= RINGCAP_QUEUE_ANY)
			return -1;
	}
	*queue = (int)val;
	return 0;
}

int rcap_parse_spec(const char *spec, char *ifname, size_t ifname_len,
		       int *queue)
{
	const char *at;
	size_t len;
	int q = -1;

	if (!spec || !ifname || !ifname_len || !queue)
		goto inval;
	/* The last '@' splits, so the queue part never contains one. */
	at = strrchr(spec, '@');
	len = at ? (size_t)(at - spec) : strlen(spec);
	if (!rc_valid_ifname(spec, len) || len >= ifname_len)
		goto inval;
	if (at && rc_parse_queue(at + 1, &q))
		goto inval;
	memcpy(ifname, spec, len);
	ifname[len] = '\0';
	*queue = q;
	return 0;
inval:
	errno = EINVAL;
	return -1;
}

/*
 * A zero-copy bind has refusals of its own (the ABI header's "Zero-copy
 * receive"), and strerror() alone would send the user looking in the
 * wrong place: "Operation not supported" does not say that another
 * driver would do, nor "Invalid argument" that a queue is missing. So
 * each gets a message that says what to change. 0 when err is not one
 * of them, and the caller explains it as for any socket.
 */
static int rc_zc_bind_fail(struct ringcap *rc, int err, const char *ifname,
			   int queue)
{
	switch (err) {
	case EOPNOTSUPP:
		return rc_fail(rc, err,
			       "zero-copy needs a driver that offers it (ringcap_e1000e); %s's driver does not",
			       ifname);
	case EINVAL:
		if (queue < 0)
			return rc_fail(rc, err,
				       "zero-copy needs one RX queue: name it as %s@Q",
				       ifname);
		if (rc->cluster)
			return rc_fail(rc, err,
				       "zero-copy gives queue %d of %s to one socket: it cannot join a cluster",
				       queue, ifname);
		break;
	case EBUSY:
		/* A bound handle gets EBUSY for that, as in copy mode. */
		if (rc->bound)
			break;
		return rc_fail(rc, err,
			       "queue %d of %s is taken by another zero-copy socket, or a copy-mode socket bound to it",
			       queue, ifname);
	case ENETDOWN:
		return rc_fail(rc, err,
			       "%s is down: zero-copy needs the device up (ip link set %s up)",
			       ifname, ifname);
	case EPERM:
		return rc_fail(rc, err,
			       "zero-copy takes queue %d of %s from the system, which needs CAP_NET_ADMIN; capture without it (CAP_NET_RAW) in copy mode",
			       queue, ifname);
	}
	return 0;
}

int rcap_bind(struct ringcap *rc, const char *ifname, int queue)
{
	struct sockaddr_ringcap addr;
	unsigned int ifindex;
	const char *why = "";

	if (queue < -1 || queue >= RINGCAP_QUEUE_ANY)
		return rc_fail(rc, EINVAL,
			       "bad queue %d (0..%d, or -1 for all)", queue,
			       RINGCAP_QUEUE_ANY - 1);
	/*
	 * The kernel would say EOPNOTSUPP first on a device without
	 * zero-copy; the missing queue is wrong on every device, so it
	 * is the one to tell.
	 */
	if (rc->zerocopy && queue < 0)
		return rc_zc_bind_fail(rc, EINVAL, ifname, queue);
	/* The kernel says only EINVAL to this one too. */
	if (rc->zerocopy && rc->no_capture)
		return rc_fail(rc, EINVAL,
			       "zero-copy receive needs a capturing socket, but capture is off (rcap_set_capture(rc, 0))");
	ifindex = if_nametoindex(ifname);
	if (!ifindex)
		return rc_fail(rc, ENODEV, "no such device: %s", ifname);

	memset(&addr, 0, sizeof(addr));
	addr.rc_family = rc->family;
	addr.rc_ifindex = (int32_t)ifindex;
	addr.rc_queue = queue < 0 ? RINGCAP_QUEUE_ANY : (uint16_t)queue;
	if (!bind(rc->fd, (struct sockaddr *)&addr, sizeof(addr))) {
		rc->bound = 1;
		/*
		 * A socket that only sends wants no frames: an XDP program
		 * would only cost every frame of the device a detour.
		 */
		if (!rc->no_capture)
			rc_xdp_attach(rc, ifindex);
		return 0;
	}

	if (rc->zerocopy && rc_zc_bind_fail(rc, errno, ifname, queue))
		return -1;
	if (rc->persist && (errno == EEXIST || errno == EDQUOT ||
			    errno == EACCES || errno == EBUSY ||
			    errno == EINVAL))
		why = errno == EEXIST ? " (the persistent ring of that name is bound to another device or queue)" :
		      errno == EDQUOT ? " (this user holds max_persist persistent rings already: delete one, ringstat --delete NAME)" :
		      errno == EACCES ? " (the persistent ring of that name is another user's)" :
		      errno == EBUSY ? " (a reader has the persistent ring of that name)" :
		      " (a persistent ring takes no zero-copy, no transmit ring and no filter before bind)";
	else if (errno == ERANGE)
		why = " (the device has fewer RX queues)";
	else if (errno == EBUSY && !rc->bound && queue >= 0)
		why = " (a zero-copy socket has taken that queue)";
	else if (errno == EBUSY)
		why = " (the socket is already bound)";
	else if (errno == ENODEV)
		why = " (the device went away)";
	else if (errno == EEXIST)
		why = " (the cluster exists there with another policy or queue)";
	/* The ring is allocated at bind: say which limit, and what to do. */
	else if (errno == ENOMEM)
		why = " (no memory for the ring under the memory cgroup's memory.max: raise it, or ask for a smaller ring)";
	else if (errno == ENOBUFS)
		why = " (the ring is past RLIMIT_MEMLOCK, which this ringcap module charges: raise it, ulimit -l or LimitMEMLOCK=, or ask for a smaller ring)";
	if (queue < 0)
		return rc_fail(rc, errno, "binding to %s (all queues): %s%s",
			       ifname, strerror(errno), why);
	return rc_fail(rc, errno, "binding to %s queue %d: %s%s", ifname,
		       queue, strerror(errno), why);
}

int rcap_bind_spec(struct ringcap *rc, const char *spec)
{
	char ifname[IFNAMSIZ];
	int queue;

	if (rcap_parse_spec(spec, ifname, sizeof(ifname), &queue))
		return rc_fail(rc, EINVAL,
			       "bad device \"%s\": expected DEV or DEV@QUEUE",
			       spec ? spec : "(null)");
	return rcap_bind(rc, ifname, queue);
}

/* The names before libringcap 1.2 (libringcap.h). */
RC_OLD_NAME(bind);
RC_OLD_NAME(bind_spec);
RC_OLD_NAME(parse_spec);
