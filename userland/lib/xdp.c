// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Modes 1 and 2 on devices with native XDP but no aware driver: after
 * bind, when the module says it waits for a program (RINGCAP_PATH), load
 * one of the two embedded in this library, attach it to the device as a
 * native-mode BPF link, and hand the link over with RINGCAP_XDP_LINK:
 *   - the copy program (bpf/ringcap_xdp_copy.bpf.c), which calls the
 *     module's kfunc, when the module has it (RINGCAP_PATH_KFUNC);
 *   - else the redirect program (bpf/ringcap_xdp.bpf.c), mode 2 only.
 * RINGCAP_XDP=redirect in the environment picks the redirect program
 * where the copy one would do, to compare the two. The module owns the
 * link from then on: it detaches when the device's last ringcap socket
 * goes, whoever closes it and however. When
 * attaching fails (the device runs an XDP program of its own: EBUSY; no
 * CAP_BPF: EPERM), the errno goes to the module instead, which logs it and
 * shows the fallback to the mode 0 hook in /proc/net/ringcap.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "internal.h"

/* The programs' ELF objects (xdp_obj.S). */
extern const unsigned char rc_xdp_obj[], rc_xdp_obj_end[];
extern const unsigned char rc_xdp_copy_obj[], rc_xdp_copy_obj_end[];

struct rc_xdp_prog {
	const unsigned char *obj, *end;
	const char *name;
};

static const struct rc_xdp_prog rc_xdp_redirect = {
	rc_xdp_obj, rc_xdp_obj_end, "ringcap_xdp"
};
static const struct rc_xdp_prog rc_xdp_copy = {
	rc_xdp_copy_obj, rc_xdp_copy_obj_end, "ringcap_xdp_copy"
};

int rcap_path(struct ringcap *rc, struct ringcap_path *path)
{
	socklen_t len = sizeof(*path);

	memset(path, 0, sizeof(*path));
	if (!getsockopt(rc->fd, SOL_RINGCAP, RINGCAP_PATH, path, &len))
		return 0;
	return rc_fail(rc, errno, "reading the capture path: %s",
		       strerror(errno));
}

const char *rcap_path_name(const struct ringcap_path *path)
{
	/* Mode 2 bound without CAP_NET_ADMIN: the stack gets them too. */
	int pass = path->flags & RINGCAP_PATH_PASS;

	switch (path->path) {
	case RINGCAP_PATH_AWARE:
		return pass ? "aware:pass" : "aware";
	case RINGCAP_PATH_XDP:
		return pass ? "xdp-redirect:pass" : "xdp-redirect";
	case RINGCAP_PATH_XDP_COPY:
		return pass ? "xdp-copy:pass" : "xdp-copy";
	case RINGCAP_PATH_ZEROCOPY:
		return "zerocopy";
	case RINGCAP_PATH_HOOK:
		break;
	default:
		return "-";
	}
	switch (path->why) {
	case RINGCAP_XDP_NO_NATIVE:
		return "hook:no-native-xdp";
	case RINGCAP_XDP_NO_PROGRAM:
	case RINGCAP_XDP_NO_COPY_PROGRAM:
		return "hook:no-program";
	case RINGCAP_XDP_REFUSED:
		return path->error == EBUSY ? "hook:busy" : "hook:refused";
	}
	return pass ? "hook:pass" : "hook";
}

/* libbpf reports failures on stderr; ours go to the module instead. */
static int rc_bpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/* A BPF link of the program on ifindex in native mode, or -errno. */
static int rc_xdp_link(const struct rc_xdp_prog *p, unsigned int ifindex)
{
	LIBBPF_OPTS(bpf_object_open_opts, oopts,
		    .object_name = p->name);
	LIBBPF_OPTS(bpf_link_create_opts, lopts,
		    .flags = XDP_FLAGS_DRV_MODE);
	struct bpf_program *prog;
	struct bpf_object *obj;
	int fd, err;

	obj = bpf_object__open_mem(p->obj, p->end - p->obj, &oopts);
	if (!obj)
		return -errno;
	err = bpf_object__load(obj);
	if (err)
		goto out;
	prog = bpf_object__find_program_by_name(obj, p->name);
	if (!prog) {
		err = -ENOENT;
		goto out;
	}
	fd = bpf_link_create(bpf_program__fd(prog), ifindex, BPF_XDP, &lopts);
	err = fd < 0 ? -errno : fd;
out:
	/* The link holds the program, and the program its map. */
	bpf_object__close(obj);
	return err;
}

/*
 * Called by rcap_bind() once bound; never fails the bind: a device that
 * cannot have the program keeps the mode 0 hook, and says so.
 */
void rc_xdp_attach(struct ringcap *rc, unsigned int ifindex)
{
	struct ringcap_xdp_link req = { .fd = -1 };
	const char *want = getenv("RINGCAP_XDP");
	bool redirect = want && !strcmp(want, "redirect");
	const struct rc_xdp_prog *p;
	libbpf_print_fn_t old;
	struct ringcap_path path;
	bool copy;
	int ret;

	if (rcap_path(rc, &path) || path.path != RINGCAP_PATH_HOOK)
		return;
	/* Mode 1 waits for the copy program only; mode 2 for either. */
	copy = !redirect && (path.why == RINGCAP_XDP_NO_COPY_PROGRAM ||
			     (path.why == RINGCAP_XDP_NO_PROGRAM &&
			      (path.flags & RINGCAP_PATH_KFUNC)));
	if (!copy && path.why != RINGCAP_XDP_NO_PROGRAM)
		return;
	p = copy ? &rc_xdp_copy : &rc_xdp_redirect;
	req.flags = copy ? RINGCAP_XDP_LINK_COPY : 0;
	old = libbpf_set_print(rc_bpf_quiet);
	ret = rc_xdp_link(p, ifindex);
	libbpf_set_print(old);
	if (ret >= 0)
		req.fd = ret;
	else
		req.error = -ret;
	/*
	 * EBUSY: another socket's link got there first, which serves this
	 * one as well; the path says what became of it either way.
	 */
	setsockopt(rc->fd, SOL_RINGCAP, RINGCAP_XDP_LINK, &req, sizeof(req));
	if (req.fd >= 0)
		close(req.fd);
}

/* The names before libringcap 1.2 (libringcap.h). */
RC_OLD_NAME(path);
RC_OLD_NAME(path_name);
