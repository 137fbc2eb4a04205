// SPDX-License-Identifier: GPL-2.0
/*
 * rcfuzz: making and deleting links with rtnetlink directly. ip(8) costs a
 * fork and two execs per call, which on the debug kernel under emulation
 * is most of a second; the workers make and delete devices often.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include "fuzz.h"

struct nl_req {
	struct nlmsghdr h;
	struct ifinfomsg i;
	char buf[512];
};

static struct rtattr *nl_add(struct nl_req *q, int type, const void *d,
			     int len)
{
	struct nlmsghdr *h = &q->h;
	char *at = (char *)q + NLMSG_ALIGN(h->nlmsg_len);
	struct rtattr *a = (void *)at;

	if (at + RTA_SPACE(len) > (char *)(q + 1))
		return a;	/* never: the requests are small */

	a->rta_type = type;
	a->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(at + RTA_LENGTH(0), d, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_ALIGN(a->rta_len);
	return a;
}

static void nl_end(struct nl_req *q, struct rtattr *nest)
{
	nest->rta_len = (char *)q + q->h.nlmsg_len - (char *)nest;
}

/* Send one request and wait for its ack; 0 or -errno. */
static int nl_talk(struct nlmsghdr *h)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char buf[1024];
	struct nlmsgerr *e;
	struct nlmsghdr *r;
	int fd, err = -EIO;
	ssize_t n;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	h->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	if (sendto(fd, h, h->nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0) {
		err = -errno;
		goto out;
	}
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0) {
		err = -errno;
		goto out;
	}
	r = (struct nlmsghdr *)buf;
	if (NLMSG_OK(r, n) && r->nlmsg_type == NLMSG_ERROR) {
		e = NLMSG_DATA(r);
		err = e->error;
	}
out:
	close(fd);
	return err;
}

static void nl_init(struct nl_req *q, int type, int flags)
{
	memset(q, 0, sizeof(*q));
	q->h.nlmsg_len = NLMSG_LENGTH(sizeof(q->i));
	q->h.nlmsg_type = type;
	q->h.nlmsg_flags = flags;
	q->i.ifi_family = AF_UNSPEC;
}

/* ip link add a type veth peer name b */
int fz_nl_veth(const char *a, const char *b)
{
	struct rtattr *info, *data, *peer;
	struct ifinfomsg pi = { .ifi_family = AF_UNSPEC };
	struct nl_req q;

	nl_init(&q, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
	nl_add(&q, IFLA_IFNAME, a, strlen(a) + 1);
	info = nl_add(&q, IFLA_LINKINFO, NULL, 0);
	nl_add(&q, IFLA_INFO_KIND, "veth", 4);
	data = nl_add(&q, IFLA_INFO_DATA, NULL, 0);
	peer = nl_add(&q, VETH_INFO_PEER, &pi, sizeof(pi));
	nl_add(&q, IFLA_IFNAME, b, strlen(b) + 1);
	nl_end(&q, peer);
	nl_end(&q, data);
	nl_end(&q, info);
	return nl_talk(&q.h);
}

/* ip link add name type kind */
int fz_nl_add(const char *name, const char *kind)
{
	struct rtattr *info;
	struct nl_req q;

	nl_init(&q, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
	nl_add(&q, IFLA_IFNAME, name, strlen(name) + 1);
	info = nl_add(&q, IFLA_LINKINFO, NULL, 0);
	nl_add(&q, IFLA_INFO_KIND, kind, strlen(kind));
	nl_end(&q, info);
	return nl_talk(&q.h);
}

/* ip link del name */
int fz_nl_del(const char *name)
{
	struct nl_req q;

	nl_init(&q, RTM_DELLINK, 0);
	nl_add(&q, IFLA_IFNAME, name, strlen(name) + 1);
	return nl_talk(&q.h);
}
