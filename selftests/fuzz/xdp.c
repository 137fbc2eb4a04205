// SPDX-License-Identifier: GPL-2.0
/*
 * rcfuzz: RINGCAP_XDP_LINK, one session per call. A socket bound to a veth
 * pair of the session's own (native XDP, no aware driver) is handed a BPF
 * link of libringcap's own program (linked in from libringcap.a, loaded
 * with libbpf as libringcap does): attached to its device (valid), to the
 * pair's other end (foreign), or none with the errno an attach "failed"
 * with, or a descriptor that is no link, or one that is not open; bound
 * or not yet. The module holds a link it takes; the session closes its
 * own descriptor at once, then closes the socket or deletes the device
 * with the link held, in any transparent_mode (the supervisor changes it).
 *
 * The errnos are docs/CONTRACTS.md's: EINVAL unbound, for a descriptor that
 * is not such a link, for a link on another device and for no link with
 * no errno; EBADF for a descriptor not open; EBUSY once the device has a
 * link; 0 for a valid link or a positive errno. PATH is checked after.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "fuzz.h"
#include "rc_util.h"

/* libringcap's program, embedded in libringcap.a (userland/lib/xdp_obj.S). */
extern const unsigned char rc_xdp_obj[], rc_xdp_obj_end[];

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/* A native-mode link of the program on ifindex, or -errno. */
static int make_link(int ifindex)
{
	LIBBPF_OPTS(bpf_object_open_opts, oopts, .object_name = "ringcap_xdp");
	LIBBPF_OPTS(bpf_link_create_opts, lopts, .flags = XDP_FLAGS_DRV_MODE);
	struct bpf_program *prog;
	struct bpf_object *obj;
	int fd;

	libbpf_set_print(quiet);
	obj = bpf_object__open_mem(rc_xdp_obj, rc_xdp_obj_end - rc_xdp_obj,
				   &oopts);
	if (!obj)
		return -errno;
	fd = bpf_object__load(obj);
	if (!fd) {
		prog = bpf_object__find_program_by_name(obj, "ringcap_xdp");
		fd = !prog ? -ENOENT :
		     bpf_link_create(bpf_program__fd(prog), ifindex, BPF_XDP,
				     &lopts);
		if (fd < 0)
			fd = -errno;
	}
	/* the link holds the program, and the program its map */
	bpf_object__close(obj);
	return fd;
}

enum { L_VALID, L_FOREIGN, L_ERROR, L_NOLINK, L_CLOSED };

void fz_op_xdp_link(struct fz_worker *w)
{
	static const int32_t errs[] = { EBUSY, EPERM, EOPNOTSUPP, 0, -5 };
	struct ringcap_xdp_link req = { .fd = -1 };
	int kind = fz_rnd(w, 100), fd, idx, err, set[6], n = 0, tries, form;
	socklen_t optlen;
	char a[IFNAMSIZ], b[IFNAMSIZ];
	bool bound = false, busy = false, first = true;
	struct ringcap_path path;
	socklen_t len;

	idx = fz_session_veth(w, a, b);
	if (idx <= 0)
		return;
	fd = socket(fz_family, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	FZ_EXPECT(OP_XDP_LINK, fd < 0 ? errno : 0, ("socket"), 0, ENOMEM, ENOBUFS);
	if (fd < 0)
		goto out_dev;
	rc_setopt(fd, RINGCAP_RING_SIZE, 8192);
	if (fz_chance(w, 90)) {
		err = -rc_bind(fd, idx, RINGCAP_QUEUE_ANY);
		FZ_EXPECT(OP_BIND, err, ("bind for an XDP link"), 0, ENOMEM, ENOBUFS);
		bound = !err;
	}
	kind = kind < 45 ? L_VALID : kind < 75 ? L_FOREIGN : kind < 87 ? L_ERROR :
	       kind < 95 ? L_NOLINK : L_CLOSED;
	for (tries = 1 + fz_chance(w, 20); tries--; first = false) {
		n = 0;
		req = (struct ringcap_xdp_link){ .fd = -1 };
		switch (kind) {
		case L_VALID:
		case L_FOREIGN:
			req.fd = make_link(if_nametoindex(kind == L_VALID ? a : b));
			if (req.fd < 0) {
				/* as libringcap does: the module gets the errno */
				req.error = -req.fd;
				req.fd = -1;
			}
			break;
		case L_ERROR:
			req.error = errs[fz_rnd(w, 5)];
			break;
		case L_NOLINK:
			req.fd = fz_chance(w, 50) ? fd :
				 open("/dev/null", O_RDONLY | O_CLOEXEC);
			break;
		default:
			req.fd = 1000 + fz_rnd(w, 1000);
		}
		/*
		 * The form: as libringcap sends it; the 8 bytes before flags
		 * existed; the copy flag on the redirect program, which has
		 * a map (or on any link where the module has no kfunc); a
		 * flag that does not exist; reserved not 0.
		 */
		form = fz_rnd(w, 100);
		optlen = sizeof(req);
		if (form < 15)
			optlen = offsetof(struct ringcap_xdp_link, flags);
		else if (form < 25)
			req.flags = RINGCAP_XDP_LINK_COPY;
		else if (form < 30)
			req.flags = 1U << fz_rnd(w, 32) & ~RINGCAP_XDP_LINK_COPY;
		else if (form < 35)
			req.reserved = 1 + fz_rnd(w, 100);
		err = setsockopt(fd, SOL_RINGCAP, RINGCAP_XDP_LINK, &req,
				 optlen) ? errno : 0;
		fz_count_opt(true, RINGCAP_XDP_LINK);
		/*
		 * The order of the module's checks: the option's form, bound,
		 * busy, then the rest.
		 */
		if ((req.flags & ~RINGCAP_XDP_LINK_COPY) || req.reserved) {
			set[n++] = EINVAL;
		} else if (!bound) {
			set[n++] = EINVAL;
		} else if (busy) {
			set[n++] = EBUSY;
		} else if (req.fd < 0) {
			set[n++] = req.error > 0 ? 0 : EINVAL;
		} else if (kind == L_CLOSED) {
			set[n++] = EBADF;
		} else if (kind == L_VALID && req.flags) {
			set[n++] = EINVAL;	/* not a copy program */
		} else if (kind == L_VALID) {
			set[n++] = 0;
			set[n++] = ENOMEM;	/* the namespace's ringcapxdp device */
		} else {
			/* no link of the program, or one on another device */
			set[n++] = EINVAL;
		}
		set[n] = -1;
		FZ_EXPECTF(OP_XDP_LINK, err, set,
			   "XDP_LINK %s (fd %d error %d, bound %d, %s try)",
			   (const char *[]){ "valid", "foreign", "error",
					     "no link", "closed" }[kind],
			   req.fd, req.error, bound, first ? "first" : "second");
		if (!err && bound && req.fd >= 0)
			busy = true;	/* the module holds it from now on */
		if (req.fd >= 0 && req.fd != fd && kind != L_CLOSED)
			close(req.fd);
	}
	len = sizeof(path);
	err = getsockopt(fd, SOL_RINGCAP, RINGCAP_PATH, &path, &len) ? errno : 0;
	fz_count_opt(false, RINGCAP_PATH);
	if (FZ_EXPECT(OP_XDP_LINK, err, ("PATH"), 0) && !err) {
		fz_check(path.path <= RINGCAP_PATH_XDP_COPY &&
			 path.why <= RINGCAP_XDP_NO_COPY_PROGRAM &&
			 (path.path == RINGCAP_PATH_HOOK || !path.why) &&
			 (bound || path.path == RINGCAP_PATH_UNBOUND),
			 "PATH of an XDP-link socket: path %u why %u error %d (bound %d)",
			 path.path, path.why, path.error, bound);
		if (!busy)
			fz_check(path.path != RINGCAP_PATH_XDP &&
				 path.path != RINGCAP_PATH_XDP_COPY,
				 "PATH reads xdp with no link taken");
	}
	/* with the link held: the socket goes, or the device under it */
	if (fz_chance(w, 50)) {
		close(fd);
		fd = -1;
	}
out_dev:
	if (fd >= 0)
		close(fd);
	if (a[0])
		fz_nl_del(a);
}
