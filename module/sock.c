// SPDX-License-Identifier: GPL-2.0
/*
 * The ringcap socket family: creation, release, mmap and poll, and its
 * registration with the socket layer.
 */
#include <linux/capability.h>
#include <linux/if_ether.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/rtnetlink.h>
#include <net/net_namespace.h>
#include "ringcap.h"

DEFINE_MUTEX(ringcap_socks_lock);
LIST_HEAD(ringcap_socks);

static struct proto ringcap_proto = {
	.name = "RINGCAP",
	.owner = THIS_MODULE,
	.obj_size = sizeof(struct ringcap_sock),
};

static void ringcap_sk_destruct(struct sock *sk)
{
	ringcap_tx_free(ringcap_sk(sk));
	ringcap_cutoff_free(ringcap_sk(sk));
	ringcap_ring_free(ringcap_sk(sk)->ring);
	put_pid(ringcap_sk(sk)->pid);
}

static int ringcap_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct ringcap_sock *rs;
	bool keep;

	if (!sk)
		return 0;
	rs = ringcap_sk(sk);
	/* No call is running on the file now: the sock it replaced can go. */
	if (rs->replaced) {
		ringcap_wakeup_stop(ringcap_sk(rs->replaced));
		sock_put(rs->replaced);
		rs->replaced = NULL;
	}

	rtnl_lock();
	mutex_lock(&ringcap_socks_lock);
	mutex_lock(&rs->lock);
	/* A persistent ring stays bound, its reference kept (persist.c). */
	keep = ringcap_persist_keep(rs);
	if (!keep) {
		list_del(&rs->all_node);
		ringcap_unbind(rs);
	}
	mutex_unlock(&rs->lock);
	if (!keep)
		ringcap_persist_unbound(rs);
	/* A kept ring stays listed: /proc must see it whole, orphaned or not. */
	sock_orphan(sk);
	mutex_unlock(&ringcap_socks_lock);
	rtnl_unlock();

	sock->sk = NULL;
	if (keep)
		return 0;
	/* No producer can reach us now, so none can re-arm the timer. */
	ringcap_wakeup_stop(rs);
	/* SOCK_RCU_FREE: the ring goes after readers of rs->ring are done. */
	sock_put(sk);
	return 0;
}

/* The name /proc shows; ringcap_socks_lock held, so readers see it whole. */
static void ringcap_sock_set_devname(struct ringcap_sock *rs, const char *name)
{
	lockdep_assert_held(&ringcap_socks_lock);
	strscpy(rs->devname, name, sizeof(rs->devname));
}

/*
 * bind(2): the address checked, then ringcap_bind() under its locks; or,
 * for a name whose ring is unclaimed, that ring becomes this socket's
 * sock, and the sock this socket had is kept, orphaned, until the file
 * is released (persist.c).
 */
static int ringcap_sock_bind(struct socket *sock, struct sockaddr *uaddr,
			     int addr_len)
{
	struct sockaddr_ringcap *addr = (struct sockaddr_ringcap *)uaddr;
	struct ringcap_sock *rs = ringcap_sk(sock->sk), *ring = NULL;
	int err;

	if (addr_len < (int)sizeof(*addr))
		return -EINVAL;
	if (addr->rc_family != ringcap_family_nr)
		return -EAFNOSUPPORT;
	rtnl_lock();
	mutex_lock(&ringcap_socks_lock);
	mutex_lock(&rs->lock);
	/* Another thread's bind took a ring over since we read sock->sk. */
	if (sock->sk != &rs->sk)
		err = -EBUSY;
	else
		err = ringcap_persist_bind(rs, addr, &ring);
	if (!err && ring) {
		ringcap_persist_takeover(sock, rs, ring);
	} else if (!err) {
		err = ringcap_bind(rs, addr);
		if (!err) {
			ringcap_sock_set_devname(rs, rs->dev->name);
			ringcap_persist_bound(rs);
		}
	}
	mutex_unlock(&rs->lock);
	mutex_unlock(&ringcap_socks_lock);
	rtnl_unlock();
	return err;
}

static int ringcap_mmap(struct file *file, struct socket *sock,
			struct vm_area_struct *vma)
{
	struct ringcap_sock *rs = ringcap_sk(sock->sk);
	struct ringcap_ring *ring;

	if (vma->vm_pgoff == RINGCAP_ZC_MMAP_OFFSET >> PAGE_SHIFT)
		return ringcap_zc_mmap(rs, vma);
	if (vma->vm_pgoff == RINGCAP_TX_MMAP_OFFSET >> PAGE_SHIFT)
		return ringcap_tx_mmap(rs, vma);
	ring = ringcap_sock_ring(rs);
	if (IS_ERR(ring))
		return PTR_ERR(ring);
	return ringcap_ring_mmap(ring, vma, 0);
}

/*
 * Frames go out through the transmit ring only: a send of zero bytes is
 * its kick, anything else EINVAL.
 */
static int ringcap_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	if (len)
		return -EINVAL;
	return ringcap_tx_kick(ringcap_sk(sock->sk));
}

static __poll_t ringcap_poll(struct file *file, struct socket *sock,
			     poll_table *wait)
{
	struct ringcap_sock *rs = ringcap_sk(sock->sk);
	struct ringcap_ring *ring;
	__poll_t mask = 0;

	sock_poll_wait(file, sock, wait);
	mask |= ringcap_tx_poll(rs, poll_requested_events(wait));
	/* sk_err is cleared by SO_ERROR; a lost device stays an error. */
	if (smp_load_acquire(&rs->gone) || READ_ONCE(rs->sk.sk_err))
		mask |= EPOLLERR;
	ring = READ_ONCE(rs->ring);
	if (!ring)
		return mask;
	if (!ringcap_ring_consumer_ok(ring, READ_ONCE(ring->hdr->consumer)))
		mask |= EPOLLERR;
	else if (ringcap_readable(rs, ring))
		mask |= EPOLLIN | EPOLLRDNORM;
	else
		ringcap_zc_poll(rs);
	return mask;
}

static struct proto_ops ringcap_ops = {
	.owner = THIS_MODULE,
	.release = ringcap_release,
	.bind = ringcap_sock_bind,
	.connect = sock_no_connect,
	.socketpair = sock_no_socketpair,
	.accept = sock_no_accept,
	.getname = sock_no_getname,
	.poll = ringcap_poll,
	.ioctl = sock_no_ioctl,
	.listen = sock_no_listen,
	.shutdown = sock_no_shutdown,
	.setsockopt = ringcap_setsockopt,
	.getsockopt = ringcap_getsockopt,
	.sendmsg = ringcap_sendmsg,
	.recvmsg = sock_no_recvmsg,
	.mmap = ringcap_mmap,
};

static void ringcap_sock_defaults(struct ringcap_sock *rs)
{
	mutex_init(&rs->lock);
	spin_lock_init(&rs->prod_lock);
	rs->queue = RINGCAP_QUEUE_ANY;
	rs->watermark = READ_ONCE(ringcap_default_watermark);
	rs->timeout_us = READ_ONCE(ringcap_default_timeout_us);
	rs->ring_size = min(READ_ONCE(ringcap_default_ring_size),
			    READ_ONCE(ringcap_max_ring_mem));
	rs->snaplen = RINGCAP_SNAPLEN_FOR_RING(rs->ring_size);
	rs->promisc = true;
	rs->capture = true;
	rs->pid = get_pid(task_tgid(current));
	INIT_LIST_HEAD(&rs->persist_node);
	ringcap_wakeup_init(rs);
}

static int ringcap_create(struct net *net, struct socket *sock, int protocol,
			  int kern)
{
	struct ringcap_sock *rs;
	struct sock *sk;

	if (!ns_capable(net->user_ns, CAP_NET_RAW))
		return -EPERM;
	if (sock->type != SOCK_RAW)
		return -ESOCKTNOSUPPORT;
	if (protocol && protocol != htons(ETH_P_ALL))
		return -EPROTONOSUPPORT;

	sk = sk_alloc(net, ringcap_family_nr, GFP_KERNEL, &ringcap_proto, kern);
	if (!sk)
		return -ENOMEM;
	sock->ops = &ringcap_ops;
	sock_init_data(sock, sk);
	sk->sk_family = ringcap_family_nr;
	sk->sk_protocol = protocol;
	sk->sk_destruct = ringcap_sk_destruct;
	sock_set_flag(sk, SOCK_RCU_FREE);

	rs = ringcap_sk(sk);
	ringcap_sock_defaults(rs);
	mutex_lock(&ringcap_socks_lock);
	list_add_tail(&rs->all_node, &ringcap_socks);
	mutex_unlock(&ringcap_socks_lock);
	return 0;
}

static struct net_proto_family ringcap_family_ops = {
	.create = ringcap_create,
	.owner = THIS_MODULE,
};

/*
 * A bound device that is unregistered takes its sockets' bindings along,
 * and the persistent rings nobody reads; a renamed one, their /proc name.
 */
static int ringcap_netdev_event(struct notifier_block *nb,
				unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct ringcap_sock *rs, *tmp;

	if (event != NETDEV_UNREGISTER && event != NETDEV_CHANGENAME)
		return NOTIFY_DONE;

	mutex_lock(&ringcap_socks_lock);
	list_for_each_entry_safe(rs, tmp, &ringcap_socks, all_node) {
		if (rs->dev != dev)
			continue;
		if (event == NETDEV_CHANGENAME) {
			ringcap_sock_set_devname(rs, dev->name);
			continue;
		}
		mutex_lock(&rs->lock);
		ringcap_unbind(rs);
		/*
		 * Gone under the same lock: a transmit kick (which takes it)
		 * never finds the socket unbound but not gone (ENOTCONN),
		 * which the fuzzer caught between the two.
		 */
		ringcap_sock_lost(rs);
		mutex_unlock(&rs->lock);
		ringcap_persist_unbound(rs);
	}
	mutex_unlock(&ringcap_socks_lock);
	return NOTIFY_DONE;
}

static struct notifier_block ringcap_netdev_nb = {
	.notifier_call = ringcap_netdev_event,
};

/**
 * ringcap_netdev_init - follow devices going away and being renamed
 *
 * Return: 0 or register_netdevice_notifier()'s error.
 */
int ringcap_netdev_init(void)
{
	return register_netdevice_notifier(&ringcap_netdev_nb);
}

/**
 * ringcap_netdev_exit - undo ringcap_netdev_init()
 */
void ringcap_netdev_exit(void)
{
	unregister_netdevice_notifier(&ringcap_netdev_nb);
}

/**
 * ringcap_sock_init - register the protocol and the address family
 *
 * Return: 0, -EBUSY if the family number is taken (modprobe would take
 * -EEXIST for "already loaded"), or the registration's error.
 */
int ringcap_sock_init(void)
{
	int err;

	err = proto_register(&ringcap_proto, 0);
	if (err)
		return err;
	ringcap_ops.family = ringcap_family_nr;
	ringcap_family_ops.family = ringcap_family_nr;
	err = sock_register(&ringcap_family_ops);
	if (err) {
		pr_err("cannot register address family %u (%s); load with family=<an unused number below %d>\n",
		       ringcap_family_nr,
		       err == -EEXIST ? "already in use" : "out of range",
		       AF_MAX);
		/* modprobe takes EEXIST from init as "already loaded". */
		if (err == -EEXIST)
			err = -EBUSY;
		goto err_proto;
	}
	return 0;

err_proto:
	proto_unregister(&ringcap_proto);
	return err;
}

/**
 * ringcap_sock_exit - undo ringcap_sock_init()
 */
void ringcap_sock_exit(void)
{
	sock_unregister(ringcap_family_nr);
	proto_unregister(&ringcap_proto);
}
