// SPDX-License-Identifier: GPL-2.0
/*
 * rc_xdplink: hand an XDP link to a ringcap socket, then take it away
 * from under the module in one of the ways the BPF syscall allows, and
 * see what the module does next. Steps run in the order given, each
 * printing one line ("STEP: ..."); the last line is "end". A step that
 * fails in a way the caller did not ask about prints "error: ..." and
 * exits 1. The caller (xdp_link.sh) runs it with a deadline: a module
 * that oopses holding rtnl leaves it stuck, and says so by never ending.
 *
 *   rc_xdplink OBJ DEV STEP...
 *
 *   OBJ          libringcap's XDP program object (ringcap_xdp.bpf.o)
 *   copy=OBJ     from here on, links are of OBJ, the copy program
 *                (ringcap_xdp_copy.bpf.o, no map), handed over with
 *                RINGCAP_XDP_LINK_COPY; update waits for the old program
 *                instead of its map
 *   copyflag     links of the redirect program (it has a map) are handed
 *                over with RINGCAP_XDP_LINK_COPY, which the module refuses
 *   passlink     an XDP program without maps that returns XDP_PASS and
 *                calls nothing, attached to DEV and handed over with the
 *                copy flag (the module must refuse it: "link: -errno")
 *   bind         a socket bound to DEV, all queues
 *   link[=D]     load OBJ, attach it as a native-mode link to D (default
 *                DEV), hand the link over: "link: 0" or "link: -errno"
 *   rolink       the same on DEV, but the program's map is a frozen,
 *                BPF_F_RDONLY_PROG one
 *   closeprog    close the program and its map (the link holds them)
 *   update       BPF_LINK_UPDATE the link to another copy of OBJ, close
 *                that copy; wait (5 s at most) for the old program's map
 *                to be freed: "update: old map freed" or "... kept"
 *   detach       BPF_LINK_DETACH the link
 *   closelink    close this process's link fd (the module's stays)
 *   spray        create 64 zeroed maps of the geometry of the program's:
 *                a freed map's memory may come back as one of them
 *   sprayed      how many values the module wrote into them (it must
 *                write none: they are not its)
 *   cfg          how many values of the first program's map are non-zero
 *   prog         whether the last link's first program still exists:
 *                "prog: alive" or "prog: freed"
 *   mode=N       write N to transparent_mode
 *   path         RINGCAP_PATH: "path: P why W error E"
 *   deldev       ip link del DEV
 *   close        close the socket
 *   spam=N       N times, on DEV: socket, bind, RINGCAP_XDP_LINK with fd
 *                -1 and errno 1 or 2 in turn, close (for an unprivileged
 *                user: the log lines this costs the kernel)
 *   sleep=MS     sleep MS milliseconds
 */
#include <errno.h>
#include <stdbool.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <ringcap/xdp.h>
#include <bpf/libbpf.h>
#include "rc_util.h"

#define NSPRAY	64

static const char *obj_path, *dev;
static int sock = -1, link_fd = -1, map_id, prog_id;
static bool copy_prog;		/* copy=OBJ: the mapless copy program */
static __u32 link_flags;	/* RINGCAP_XDP_LINK_COPY after copy= or copyflag */
static struct bpf_object *obj;
static int spray_fd[NSPRAY];

static void die(const char *fmt, const char *what, int err)
{
	printf("error: ");
	printf(fmt, what);
	printf(": %s\n", strerror(err));
	exit(1);
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/* OBJ loaded, its map taken from map_fd (>= 0) if given. */
static struct bpf_object *load(int map_fd)
{
	struct bpf_object *o = bpf_object__open_file(obj_path, NULL);
	struct bpf_map *m;

	if (!o)
		die("opening %s", obj_path, errno);
	m = bpf_object__find_map_by_name(o, "ringcap_cfg");
	if (!m && !copy_prog)
		die("%s has no ringcap_cfg", obj_path, ENOENT);
	if (map_fd >= 0 &&
	    (bpf_map__set_map_flags(m, BPF_F_RDONLY_PROG) ||
	     bpf_map__reuse_fd(m, map_fd)))
		die("reusing the map in %s", obj_path, errno);
	if (bpf_object__load(o))
		die("loading %s", obj_path, errno);
	return o;
}

static int prog_fd(struct bpf_object *o)
{
	return bpf_program__fd(bpf_object__find_program_by_name(o,
			copy_prog ? "ringcap_xdp_copy" : "ringcap_xdp"));
}

static int prog_id_of(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		die("reading %s", "the program's info", errno);
	return info.id;
}

static int id_of(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		die("reading %s", "the map's info", errno);
	return info.id;
}

static void do_link(const char *on, int map_fd)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = XDP_FLAGS_DRV_MODE);
	struct ringcap_xdp_link req = {};
	int ifindex = if_nametoindex(on);

	if (!ifindex)
		die("no device %s", on, errno);
	obj = load(map_fd);
	map_id = copy_prog ? 0 :
		 id_of(bpf_map__fd(bpf_object__find_map_by_name(obj, "ringcap_cfg")));
	prog_id = prog_id_of(prog_fd(obj));
	link_fd = bpf_link_create(prog_fd(obj), ifindex, BPF_XDP, &opts);
	if (link_fd < 0)
		die("attaching to %s", on, errno);
	req.fd = link_fd;
	req.flags = link_flags;
	if (setsockopt(sock, SOL_RINGCAP, RINGCAP_XDP_LINK, &req, sizeof(req)))
		printf("link: -%s\n", strerrorname_np(errno));
	else
		printf("link: 0\n");
}

/* A mapless XDP_PASS program, as the copy flag's impostor. */
static void pass_link(void)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = XDP_FLAGS_DRV_MODE);
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct ringcap_xdp_link req = { .flags = RINGCAP_XDP_LINK_COPY };
	int fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "rc_pass", "GPL", insns,
			       sizeof(insns) / sizeof(insns[0]), NULL);

	if (fd < 0)
		die("%s", "loading an XDP_PASS program", errno);
	link_fd = bpf_link_create(fd, if_nametoindex(dev), BPF_XDP, &opts);
	if (link_fd < 0)
		die("attaching to %s", dev, errno);
	close(fd);
	req.fd = link_fd;
	if (setsockopt(sock, SOL_RINGCAP, RINGCAP_XDP_LINK, &req, sizeof(req)))
		printf("passlink: -%s\n", strerrorname_np(errno));
	else
		printf("passlink: 0\n");
}

/* Count the non-zero values of the array map fd. */
static int nonzero(int fd)
{
	__u32 k, v;
	int n = 0;

	for (k = 0; k < RINGCAP_XDP_CFG_ENTRIES; k++)
		if (!bpf_map_lookup_elem(fd, &k, &v) && v)
			n++;
	return n;
}

static void update(void)
{
	struct bpf_object *o = load(-1);
	int i, fd;

	if (bpf_link_update(link_fd, prog_fd(o), NULL))
		die("%s", "BPF_LINK_UPDATE", errno);
	bpf_object__close(o);
	/*
	 * The old program's last reference was the link's, unless ours or
	 * the module's: the redirect program's map goes with it, the copy
	 * program has none.
	 */
	for (i = 0; i < 50; i++) {
		fd = copy_prog ? bpf_prog_get_fd_by_id(prog_id) :
				 bpf_map_get_fd_by_id(map_id);
		if (fd < 0 && errno == ENOENT)
			break;
		if (fd >= 0)
			close(fd);
		usleep(100000);
	}
	/* Then its memory goes, from a work item. */
	usleep(500000);
	printf("update: old %s %s\n", copy_prog ? "program" : "map",
	       i < 50 ? "freed" : "kept");
}

/* Whether the first link's program still exists (the module may hold it). */
static void prog_alive(void)
{
	int fd = bpf_prog_get_fd_by_id(prog_id);

	if (fd < 0 && errno != ENOENT)
		die("%s", "BPF_PROG_GET_FD_BY_ID", errno);
	printf("prog: %s\n", fd >= 0 ? "alive" : "freed");
	if (fd >= 0)
		close(fd);
}

static void spray(void)
{
	int i;

	for (i = 0; i < NSPRAY; i++) {
		spray_fd[i] = bpf_map_create(BPF_MAP_TYPE_ARRAY, "rc_spray", 4, 4,
					     RINGCAP_XDP_CFG_ENTRIES, NULL);
		if (spray_fd[i] < 0)
			die("%s", "creating a map", errno);
	}
	printf("spray: %d maps\n", NSPRAY);
}

static void spam(int n)
{
	int ifindex = if_nametoindex(dev), i, fd, err;
	struct ringcap_xdp_link req = { .fd = -1 };

	for (i = 0; i < n; i++) {
		fd = rc_socket();
		if (fd < 0)
			die("%s", "socket", -fd);
		err = rc_bind(fd, ifindex, RINGCAP_QUEUE_ANY);
		if (err)
			die("binding to %s", dev, -err);
		req.error = 1 + (i & 1);
		if (setsockopt(fd, SOL_RINGCAP, RINGCAP_XDP_LINK, &req, sizeof(req)))
			die("%s", "RINGCAP_XDP_LINK", errno);
		close(fd);
	}
	printf("spam: %d\n", n);
}

static void step(const char *s)
{
	struct ringcap_path p;
	socklen_t len = sizeof(p);
	int i, n, err;

	if (!strcmp(s, "bind")) {
		sock = rc_socket();
		if (sock < 0)
			die("%s", "socket", -sock);
		err = rc_bind(sock, if_nametoindex(dev), RINGCAP_QUEUE_ANY);
		if (err)
			die("binding to %s", dev, -err);
		printf("bind: 0\n");
	} else if (!strncmp(s, "copy=", 5)) {
		obj_path = s + 5;
		copy_prog = true;
		link_flags = RINGCAP_XDP_LINK_COPY;
		printf("copy: 0\n");
	} else if (!strcmp(s, "copyflag")) {
		link_flags = RINGCAP_XDP_LINK_COPY;
		printf("copyflag: 0\n");
	} else if (!strcmp(s, "passlink")) {
		pass_link();
	} else if (!strcmp(s, "prog")) {
		prog_alive();
	} else if (!strcmp(s, "link")) {
		do_link(dev, -1);
	} else if (!strncmp(s, "link=", 5)) {
		do_link(s + 5, -1);
	} else if (!strcmp(s, "rolink")) {
		LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_RDONLY_PROG);
		int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ringcap_cfg", 4, 4,
					RINGCAP_XDP_CFG_ENTRIES, &o);

		if (fd < 0 || bpf_map_freeze(fd))
			die("%s", "a frozen read-only map", errno);
		do_link(dev, fd);
	} else if (!strcmp(s, "closeprog")) {
		bpf_object__close(obj);
		obj = NULL;
		printf("closeprog: 0\n");
	} else if (!strcmp(s, "update")) {
		update();
	} else if (!strcmp(s, "detach")) {
		if (bpf_link_detach(link_fd))
			die("%s", "BPF_LINK_DETACH", errno);
		printf("detach: 0\n");
	} else if (!strcmp(s, "closelink")) {
		close(link_fd);
		link_fd = -1;
		printf("closelink: 0\n");
	} else if (!strcmp(s, "spray")) {
		spray();
	} else if (!strcmp(s, "sprayed")) {
		for (i = n = 0; i < NSPRAY; i++)
			n += nonzero(spray_fd[i]);
		printf("sprayed: %d written\n", n);
	} else if (!strcmp(s, "cfg")) {
		int fd = bpf_map_get_fd_by_id(map_id);

		if (fd < 0)
			die("%s", "the program's map", errno);
		printf("cfg: %d set\n", nonzero(fd));
		close(fd);
	} else if (!strncmp(s, "mode=", 5)) {
		err = rc_param_set("transparent_mode", atol(s + 5));
		printf("mode %s: %d\n", s + 5, err);
	} else if (!strcmp(s, "path")) {
		memset(&p, 0, sizeof(p));
		if (getsockopt(sock, SOL_RINGCAP, RINGCAP_PATH, &p, &len))
			die("%s", "RINGCAP_PATH", errno);
		printf("path: %u why %u error %d\n", p.path, p.why, p.error);
	} else if (!strcmp(s, "deldev")) {
		printf("deldev: %d\n", rc_link_del(dev));
	} else if (!strcmp(s, "close")) {
		close(sock);
		sock = -1;
		printf("close: 0\n");
	} else if (!strncmp(s, "spam=", 5)) {
		spam(atoi(s + 5));
	} else if (!strncmp(s, "sleep=", 6)) {
		usleep(atoi(s + 6) * 1000);
	} else {
		fprintf(stderr, "rc_xdplink: unknown step %s\n", s);
		exit(2);
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 4) {
		fprintf(stderr, "usage: rc_xdplink OBJ DEV STEP...\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(quiet);
	obj_path = argv[1];
	dev = argv[2];
	for (i = 3; i < argc; i++)
		step(argv[i]);
	printf("end\n");
	return 0;
}
