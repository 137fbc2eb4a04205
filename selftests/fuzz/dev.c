// SPDX-License-Identifier: GPL-2.0
/*
 * rcfuzz: a worker's devices and its own traffic. veth pairs and sim
 * devices made and deleted under bound sockets, links taken down and up,
 * frames injected into the sims (good and malformed records) and sent
 * through the veths.
 *
 * Deleting a device we know sockets are bound to is checked at once, as
 * CONTRACTS.md says: poll gives EPOLLERR, SO_ERROR reads ENODEV, and bind
 * then fails with EBUSY.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include "fuzz.h"
#include "rc_frames.h"
#include "rc_util.h"

void fz_ipv6_off(const char *dev)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6",
		 dev);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, "1", 1) < 0) {
		/* no IPv6 there: nothing to silence */
	}
	close(fd);
}

static int free_slot(struct fz_worker *w, int not)
{
	int i;

	for (i = 0; i < FZ_MAX_DEVS; i++)
		if (!w->devs[i].alive && i != not)
			return i;
	return -1;
}

static int alive_here(struct fz_worker *w)
{
	int i, n = 0;

	for (i = 0; i < FZ_MAX_DEVS; i++)
		n += w->devs[i].alive && w->devs[i].gen == w->gen;
	return n;
}

static void dev_init(struct fz_dev *d, const char *name, int gen, int nq,
		     bool sim, int peer)
{
	if (d->pkt_fd >= 0)
		close(d->pkt_fd);
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->ifindex = if_nametoindex(name);
	d->gen = gen;
	d->nq = nq;
	d->sim = sim;
	d->peer = peer;
	d->pkt_fd = -1;
	d->alive = d->ifindex > 0;
}

/*
 * Device names are numbered from one counter that every process shares:
 * a fork child numbering from its copy of a worker's counter would make a
 * name the worker used before, and the worker, deleting what it takes for
 * its own device (gone meanwhile with the sim module), would check its
 * sockets against someone else's device.
 */
static unsigned int dev_seq(void)
{
	return __atomic_fetch_add(&fz->dev_seq, 1, __ATOMIC_RELAXED);
}

/* ip link set NAME up|down, in the worker's current netns; 0 or -errno */
int fz_set_updown(struct fz_worker *w, const char *name, bool up)
{
	struct ifreq ifr;
	int fd = w->ctl_fd[w->gen];

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr))
		return -errno;
	if (up)
		ifr.ifr_flags |= IFF_UP;
	else
		ifr.ifr_flags &= ~IFF_UP;
	return ioctl(fd, SIOCSIFFLAGS, &ifr) ? -errno : 0;
}

/*
 * A veth pair that one operation owns from start to end (tx.c, xdp.c,
 * cluster.c), outside w->devs: it may take it down, up and away while
 * its own sockets use it, and no other socket's model depends on it.
 * a and b get the names (IFNAMSIZ); returns a's ifindex or -errno.
 */
int fz_session_veth(struct fz_worker *w, char *a, char *b)
{
	unsigned int seq = dev_seq();
	int err, idx;

	snprintf(a, IFNAMSIZ, "fz%ds%ua", w->id, seq);
	snprintf(b, IFNAMSIZ, "fz%ds%ub", w->id, seq);
	err = fz_nl_veth(a, b);
	fz_count(OP_DEV_CREATE, err < 0);
	if (err < 0)
		return err;
	fz_ipv6_off(a);
	fz_ipv6_off(b);
	err = fz_set_updown(w, a, true) ?: fz_set_updown(w, b, true);
	idx = if_nametoindex(a);
	if (err || !idx) {
		fz_nl_del(a);
		return err ?: -ENODEV;
	}
	return idx;
}

static int make_veth(struct fz_worker *w)
{
	int a = free_slot(w, -1), b = free_slot(w, a), err;
	unsigned int seq;
	char na[16], nb[16];

	if (a < 0 || b < 0)
		return -ENOSPC;
	seq = dev_seq();
	snprintf(na, sizeof(na), "fz%dv%ua", w->id, seq);
	snprintf(nb, sizeof(nb), "fz%dv%ub", w->id, seq);
	err = fz_nl_veth(na, nb);
	if (!err) {
		fz_ipv6_off(na);
		fz_ipv6_off(nb);
		err = fz_set_updown(w, na, true) ?: fz_set_updown(w, nb, true);
	}
	fz_count(OP_DEV_CREATE, err < 0);
	if (err < 0)
		return err;
	dev_init(&w->devs[a], na, w->gen, 1, false, b);
	dev_init(&w->devs[b], nb, w->gen, 1, false, a);
	w->devs[a].pkt_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	return 0;
}

static int make_sim(struct fz_worker *w)
{
	int d = free_slot(w, -1), err;
	char name[16];

	if (d < 0 || access(RC_SIM_DEBUGFS, F_OK))
		return -ENOSPC;
	snprintf(name, sizeof(name), "fz%ds%u", w->id, dev_seq());
	err = fz_nl_add(name, "ringcap_sim");
	if (!err) {
		fz_ipv6_off(name);
		err = fz_set_updown(w, name, true);
	}
	fz_count(OP_DEV_CREATE, err < 0);
	if (err < 0)
		return err;
	dev_init(&w->devs[d], name, w->gen, 2, true, -1);
	return 0;
}

/* A fresh network namespace (or the first one): lo up, a veth, a sim. */
int fz_dev_setup(struct fz_worker *w)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd;

	if (w->netns_fd[w->gen] < 0)
		w->netns_fd[w->gen] = open("/proc/self/ns/net",
					   O_RDONLY | O_CLOEXEC);
	if (!w->ngens)
		w->ngens = 1;
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	w->ctl_fd[w->gen] = fd;
	if (fd < 0)
		return -errno;
	if (!w->init_netns || w->gen) {
		fz_ipv6_off("all");
		fz_ipv6_off("default");
		if (!ioctl(fd, SIOCGIFFLAGS, &ifr)) {
			ifr.ifr_flags |= IFF_UP;
			ioctl(fd, SIOCSIFFLAGS, &ifr);
		}
	}
	make_sim(w);
	return make_veth(w);
}

/* Delete the worker's devices in the initial netns, which outlive it. */
void fz_dev_cleanup(struct fz_worker *w)
{
	int i;

	for (i = 0; i < FZ_MAX_DEVS; i++)
		if (w->devs[i].alive && w->devs[i].gen == 0 && w->init_netns &&
		    (w->devs[i].sim || w->devs[i].peer > i))
			fz_nl_del(w->devs[i].name);
}

void fz_op_dev_create(struct fz_worker *w)
{
	if (alive_here(w) >= 5)
		return;
	if (fz_chance(w, 60))
		make_veth(w);
	else
		make_sim(w);
}

/* Sockets bound to a device we just deleted must see it gone. */
static void check_gone(struct fz_worker *w, int d)
{
	struct pollfd pfd;
	socklen_t len;
	int i, v;

	for (i = 0; i < w->nsocks; i++) {
		struct fz_sock *s = &w->socks[i];

		if (!s->bound || s->gone || s->dev != d || s->shared ||
		    s->ifindex != w->devs[d].ifindex)
			continue;
		s->must_be_gone = true;
		s->gone = true;
		pfd = (struct pollfd){ .fd = s->fd, .events = POLLIN };
		poll(&pfd, 1, 0);
		fz_check(pfd.revents & POLLERR,
			 "poll gives 0x%x after %s was deleted: no POLLERR",
			 pfd.revents, w->devs[d].name);
		v = 0;
		len = sizeof(v);
		getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &v, &len);
		fz_check(v == ENODEV, "SO_ERROR reads %d after %s was deleted",
			 v, w->devs[d].name);
	}
}

void fz_op_dev_delete(struct fz_worker *w)
{
	int d = fz_rnd(w, FZ_MAX_DEVS), i, err;
	struct fz_dev *dev = &w->devs[d];

	for (i = 0; i < FZ_MAX_DEVS && !(dev->alive && dev->gen == w->gen);
	     i++) {
		d = (d + 1) % FZ_MAX_DEVS;
		dev = &w->devs[d];
	}
	if (!dev->alive || dev->gen != w->gen)
		return;
	err = fz_nl_del(dev->name);
	fz_count(OP_DEV_DELETE, err);
	/* A sim may have gone with its module (the supervisor). */
	dev->alive = false;
	if (dev->peer >= 0)
		w->devs[dev->peer].alive = false;
	if (err)
		return;
	check_gone(w, d);
	if (dev->peer >= 0)
		check_gone(w, dev->peer);
}

void fz_op_link_flap(struct fz_worker *w)
{
	int d = fz_rnd(w, FZ_MAX_DEVS + 1), fd = w->ctl_fd[w->gen], err;
	struct ifreq ifr;
	short up;

	memset(&ifr, 0, sizeof(ifr));
	if (d < FZ_MAX_DEVS && w->devs[d].alive && w->devs[d].gen == w->gen)
		snprintf(ifr.ifr_name, IFNAMSIZ, "%s", w->devs[d].name);
	else if (!w->init_netns || w->gen)
		snprintf(ifr.ifr_name, IFNAMSIZ, "lo");
	else
		return;
	if (ioctl(fd, SIOCGIFFLAGS, &ifr)) {
		FZ_EXPECT(OP_LINK_FLAP, errno, ("SIOCGIFFLAGS"), ENODEV);
		return;
	}
	up = ifr.ifr_flags;
	ifr.ifr_flags = up & ~IFF_UP;
	err = ioctl(fd, SIOCSIFFLAGS, &ifr) ? errno : 0;
	FZ_EXPECT(OP_LINK_FLAP, err, ("link down"), 0, ENODEV);
	if (fz_chance(w, 10))
		return;		/* left down: frames to it are dropped */
	ifr.ifr_flags = up | IFF_UP;
	err = ioctl(fd, SIOCSIFFLAGS, &ifr) ? errno : 0;
	FZ_EXPECT(OP_LINK_FLAP, err, ("link up"), 0, ENODEV);
}

static int pick_dev(struct fz_worker *w, bool sim)
{
	int d = fz_rnd(w, FZ_MAX_DEVS), i;

	for (i = 0; i < FZ_MAX_DEVS; i++, d = (d + 1) % FZ_MAX_DEVS)
		if (w->devs[d].alive && w->devs[d].sim == sim &&
		    (sim || w->devs[d].pkt_fd >= 0))
			return d;
	return -1;
}

void fz_op_inject(struct fz_worker *w)
{
	int d = pick_dev(w, true), n = 1 + fz_rnd(w, 48), err, fd;
	struct rc_spec specs[48];
	char path[128];
	uint8_t bad[64];
	ssize_t r;

	if (d < 0)
		return;
	if (fz_chance(w, 8)) {
		/* malformed: queue 2, a runt, or a record cut short */
		memset(bad, 0, sizeof(bad));
		bad[0] = fz_rnd(w, 3) ? 0 : 2;
		bad[2] = fz_chance(w, 50) ? 10 : 200;
		snprintf(path, sizeof(path), RC_SIM_DEBUGFS "/%s/inject",
			 w->devs[d].name);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			FZ_EXPECT(OP_INJECT, errno, ("open inject"), ENOENT,
				  ENXIO);
			return;
		}
		r = write(fd, bad, 4 + fz_rnd(w, 40));
		FZ_EXPECT(OP_INJECT, r < 0 ? errno : 0,
			  ("malformed inject"), EINVAL, EIO);
		close(fd);
		return;
	}
	rc_specs(specs, n, w->frame_seq, fz_chance(w, 70) ? RC_QUEUE_MIXED :
		 (int)fz_rnd(w, 2), w->run,
		 fz_chance(w, 80) ? RC_LEN_VARIED : RC_MIN_LEN);
	w->frame_seq += n;
	err = -rc_sim_inject(w->devs[d].name, specs, n);
	/* ENXIO, ENOENT, EIO: the sim module is going (the supervisor) */
	FZ_EXPECT(OP_INJECT, err, ("inject into %s", w->devs[d].name), 0,
		  ENOENT, EIO, ENXIO);
}

void fz_op_sim_knob(struct fz_worker *w)
{
	int d = pick_dev(w, true), err, n, i;
	const char *name;
	uint8_t buf[8 * (4 + RC_MAX_LEN)];
	struct rc_spec sp;
	char v[24];
	size_t len = 0;

	if (d < 0)
		return;
	name = w->devs[d].name;
	switch (fz_rnd(w, 20)) {
	case 0: case 1: case 2: case 3: case 4: case 5:
		n = 1 + fz_rnd(w, 8);
		for (i = 0; i < n; i++) {
			rc_specs(&sp, 1, w->frame_seq++, fz_rnd(w, 2), w->run,
				 RC_LEN_VARIED);
			buf[len] = sp.queue;
			buf[len + 1] = 0;
			buf[len + 2] = sp.len & 0xff;
			buf[len + 3] = sp.len >> 8;
			rc_frame_build(buf + len + 4, &sp);
			len += 4 + sp.len;
		}
		err = -rc_sim_write(name, "hold", buf, len);
		break;
	case 6: case 7: case 8: case 9: case 10: case 11:
		err = -rc_sim_write(name, "release", "1", 1);
		break;
	case 12: case 13: case 14: case 15:
		err = -rc_sim_write(name, "aware", fz_rnd(w, 2) ? "1" : "0", 1);
		break;
	case 16: case 17: case 18:
		snprintf(v, sizeof(v), "%u", fz_chance(w, 50) ?
			 (unsigned int)fz_rnd(w, 100) : (unsigned int)fz_rand(&w->rng));
		err = -rc_sim_write(name, "rx_missed", v, strlen(v));
		break;
	default:
		snprintf(v, sizeof(v), "%u", fz_rnd(w, 30));
		err = -rc_sim_write(name, "rtnl_hold_ms", v, strlen(v));
	}
	/* ENOENT, ENXIO, EIO: the sim went, or its module (the supervisor) */
	FZ_EXPECT(OP_SIM_KNOB, err, ("sim knob on %s", name), 0, ENOENT, ENXIO,
		  EIO);
}

/* Frames out of veth end a (they arrive on b), or out of lo. */
void fz_op_send(struct fz_worker *w)
{
	int d = pick_dev(w, false), n = 1 + fz_rnd(w, 16), i, err = 0, fd;
	struct sockaddr_ll ll = { .sll_family = AF_PACKET, .sll_halen = 6 };
	uint8_t buf[RC_MAX_LEN];
	struct rc_spec sp;

	if (d >= 0 && fz_chance(w, 80)) {
		fd = w->devs[d].pkt_fd;
		ll.sll_ifindex = w->devs[d].ifindex;
	} else if (!w->init_netns || w->gen) {
		fd = w->ctl_fd[w->gen];
		ll.sll_ifindex = 1;
	} else {
		return;
	}
	for (i = 0; i < n && !err; i++) {
		rc_specs(&sp, 1, w->frame_seq++, 0, w->run,
			 fz_chance(w, 80) ? RC_LEN_VARIED : RC_MIN_LEN);
		rc_frame_build(buf, &sp);
		if (sendto(fd, buf, sp.len, MSG_DONTWAIT,
			   (struct sockaddr *)&ll, sizeof(ll)) < 0)
			err = errno;
	}
	FZ_EXPECT(OP_SEND, err, ("send on ifindex %d", ll.sll_ifindex), 0,
		  ENETDOWN, ENXIO, ENODEV, ENOBUFS, EAGAIN);
}

/* A device for bind: ours mostly, lo, someone else's, a dead one, junk. */
int fz_pick_ifindex(struct fz_worker *w, int *dev)
{
	struct if_nameindex *ni;
	int r = fz_rnd(w, 100), d, n, idx = 0;

	*dev = -1;
	if (r < 60) {
		d = fz_rnd(w, FZ_MAX_DEVS);
		for (n = 0; n < FZ_MAX_DEVS; n++, d = (d + 1) % FZ_MAX_DEVS)
			if (w->devs[d].alive && w->devs[d].gen == w->gen)
				break;
		if (n < FZ_MAX_DEVS) {
			*dev = d;
			return w->devs[d].ifindex;
		}
		return 1;
	}
	if (r < 75)
		return 1;
	if (r < 85) {
		ni = if_nameindex();
		if (!ni)
			return 1;
		for (n = 0; ni[n].if_index; n++)
			;
		if (n)
			idx = ni[fz_rnd(w, n)].if_index;
		if_freenameindex(ni);
		return idx ? idx : 1;
	}
	if (r < 90) {
		d = fz_rnd(w, FZ_MAX_DEVS);
		if (w->devs[d].ifindex)
			*dev = d;
		return w->devs[d].ifindex;
	}
	return (int[]){ 0, -1, 1000000, 0x7fffffff, -0x7fffffff }[fz_rnd(w, 5)];
}
