// SPDX-License-Identifier: GPL-2.0
/*
 * Persistent rings (uapi "Persistent rings"): a socket bound with a name
 * stays bound and capturing when its file is closed, held by the list
 * below instead of by its file ("unclaimed"). A later socket that binds
 * with the name takes it over: the new struct socket is grafted onto the
 * ring's sock, as accept() grafts a connection onto a new socket, and
 * the sock that socket had is kept, unusable, until the file is released
 * (another thread's call may still hold it). So the ring, its producer
 * state, its counters and its place in the device's set never change
 * hands: no frame meets two producers, and none meets a gap between them.
 *
 * Lifetime: the list holds the sock reference that the file held. It is
 * dropped when the ring is deleted: by RINGCAP_PERSIST_DELETE, by the
 * reaper once unclaimed for persist_timeout seconds, or when the device
 * goes away. An unclaimed sock also keeps its network namespace (every
 * socket does), so a namespace's rings go by the timeout, not with it.
 *
 * All of it is under rtnl, as the binding state it extends.
 */
#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/rtnetlink.h>
#include <linux/security.h>
#include <linux/workqueue.h>
#include "ringcap.h"

static LIST_HEAD(ringcap_persists);

static void ringcap_persist_reap(struct work_struct *work);
static DECLARE_DELAYED_WORK(ringcap_persist_work, ringcap_persist_reap);

/**
 * ringcap_persist_name - is this a name a ring may have?
 * @name: the bytes, not necessarily terminated
 * @len: how many
 *
 * Return: 0, or -EINVAL unless 1..RINGCAP_PERSIST_NAME_MAX bytes of
 * [A-Za-z0-9._-]: what /proc and ringstat print as one word.
 */
int ringcap_persist_name(const char *name, unsigned int len)
{
	unsigned int i;

	if (!len || len > RINGCAP_PERSIST_NAME_MAX)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && name[i] != '.' && name[i] != '_' &&
		    name[i] != '-')
			return -EINVAL;
	return 0;
}

static struct ringcap_sock *ringcap_persist_find(struct net *net,
						 const char *name)
{
	struct ringcap_sock *rs;

	ASSERT_RTNL();
	list_for_each_entry(rs, &ringcap_persists, persist_node)
		if (net_eq(sock_net(&rs->sk), net) && !strcmp(rs->persist, name))
			return rs;
	return NULL;
}

/* Every namespace's: a user with many namespaces has one allowance. */
static unsigned int ringcap_persist_count(kuid_t uid)
{
	struct ringcap_sock *rs;
	unsigned int n = 0;

	list_for_each_entry(rs, &ringcap_persists, persist_node)
		n += uid_eq(rs->persist_owner, uid);
	return n;
}

/* The ring's creator, or an administrator of the namespace. */
static bool ringcap_persist_may(const struct ringcap_sock *ring,
				const struct ringcap_sock *rs)
{
	return uid_eq(ring->persist_owner, current_euid()) ||
	       ns_capable(sock_net(&rs->sk)->user_ns, CAP_NET_ADMIN);
}

/**
 * ringcap_persist_bind - what a bind of a socket with a name is
 * @rs: the socket; rtnl, ringcap_socks_lock and rs->lock held
 * @addr: where it binds
 * @ring: set to the unclaimed ring it takes over, or NULL
 *
 * Return: 0: with *@ring NULL bind @rs as it is (a new persistent ring,
 * or no name at all); else the errno docs/CONTRACTS.md gives (EPERM:
 * the ring takes frames from the stack, and the caller may not).
 */
int ringcap_persist_bind(struct ringcap_sock *rs,
			 const struct sockaddr_ringcap *addr,
			 struct ringcap_sock **ring)
{
	struct ringcap_sock *old;

	ASSERT_RTNL();
	*ring = NULL;
	if (!rs->persist[0])
		return 0;
	if (rs->dev || rs->gone)
		return -EBUSY;
	if (rs->zerocopy || rs->tx_size || !rs->capture)
		return -EINVAL;
	old = ringcap_persist_find(sock_net(&rs->sk), rs->persist);
	if (!old) {
		if (ringcap_persist_count(current_euid()) >=
		    READ_ONCE(ringcap_max_persist))
			return -EDQUOT;
		/* What it loses while nobody reads, it says where. */
		WRITE_ONCE(rs->gaps, true);
		return 0;
	}
	if (!ringcap_persist_may(old, rs))
		return -EACCES;
	if (old->ifindex != addr->rc_ifindex || old->queue != addr->rc_queue)
		return -EEXIST;
	if (!old->unclaimed)
		return -EBUSY;
	/*
	 * A ring bound with CAP_NET_ADMIN takes frames from the stack: the
	 * same uid without it (a container's root, say) may not inherit that.
	 */
	if (old->steal && !ringcap_may_steal(rs, true))
		return -EPERM;
	/* The ring keeps its filter until the new reader sets one. */
	if (rcu_access_pointer(rs->sk.sk_filter))
		return -EINVAL;
	/* Its cut-off stays; a reader that asks for another is told. */
	if (ringcap_cutoff_limit(rs) &&
	    ringcap_cutoff_limit(rs) != ringcap_cutoff_limit(old))
		return -EINVAL;
	*ring = old;
	return 0;
}

/**
 * ringcap_persist_bound - a socket with a name is bound: its ring is named
 * @rs: the socket, just bound; rtnl held
 */
void ringcap_persist_bound(struct ringcap_sock *rs)
{
	ASSERT_RTNL();
	if (!rs->persist[0])
		return;
	rs->persist_owner = current_euid();
	list_add_tail(&rs->persist_node, &ringcap_persists);
}

/**
 * ringcap_persist_takeover - make @sock the socket of an unclaimed ring
 * @sock: the socket being bound, whose sock is @rs
 * @rs: its sock, replaced
 * @ring: the ring's sock, from ringcap_persist_bind()
 *
 * rtnl, ringcap_socks_lock and @rs->lock held. The reader's wake-up
 * options come along; everything else is the ring's. @rs is orphaned and
 * kept by @ring until the file is released: another thread's call that
 * fetched it from @sock before the swap may still be using it.
 */
void ringcap_persist_takeover(struct socket *sock, struct ringcap_sock *rs,
			      struct ringcap_sock *ring)
{
	ASSERT_RTNL();
	mutex_lock_nested(&ring->lock, SINGLE_DEPTH_NESTING);
	WRITE_ONCE(ring->watermark, rs->watermark);
	WRITE_ONCE(ring->timeout_us, rs->timeout_us);
	/* /proc reads the pid under ringcap_socks_lock, which we hold. */
	ring->pid = rs->pid;
	rs->pid = NULL;
	ring->unclaimed = false;
	mutex_unlock(&ring->lock);
	list_del(&rs->all_node);
	/* A call that fetched @rs before the swap finds it unusable. */
	WRITE_ONCE(rs->gone, true);

	/*
	 * What sock_graft() does, but with sock->sk never NULL in between:
	 * other threads' calls read it without a lock, and get @rs (kept)
	 * or @ring.
	 */
	sock_reset_flag(&ring->sk, SOCK_DEAD);
	write_lock_bh(&ring->sk.sk_callback_lock);
	rcu_assign_pointer(ring->sk.sk_wq, &sock->wq);
	WRITE_ONCE(sock->sk, &ring->sk);
	sk_set_socket(&ring->sk, sock);
	ring->sk.sk_uid = SOCK_INODE(sock)->i_uid;
	security_sock_graft(&ring->sk, sock);
	write_unlock_bh(&ring->sk.sk_callback_lock);
	sock_orphan(&rs->sk);
	ring->replaced = &rs->sk;
}

/**
 * ringcap_persist_keep - the file of a persistent socket is closed
 * @rs: the socket; rtnl, ringcap_socks_lock and rs->lock held
 *
 * Return: true if the ring stays (bound, with a name): the list has the
 * file's reference now and the caller only orphans the sock; false for
 * every other socket, which the caller releases.
 */
bool ringcap_persist_keep(struct ringcap_sock *rs)
{
	ASSERT_RTNL();
	if (!rs->persist[0] || !rs->dev)
		return false;
	rs->unclaimed = true;
	rs->unclaimed_at = jiffies;
	put_pid(rs->pid);
	rs->pid = NULL;
	queue_delayed_work(system_wq, &ringcap_persist_work, HZ);
	return true;
}

/**
 * ringcap_persist_unbound - a socket is unbound for good: its name goes
 * @rs: the socket; rtnl and ringcap_socks_lock held
 *
 * An unclaimed ring is deleted with it: nobody can take it over any more.
 */
void ringcap_persist_unbound(struct ringcap_sock *rs)
{
	ASSERT_RTNL();
	lockdep_assert_held(&ringcap_socks_lock);
	list_del_init(&rs->persist_node);
	if (!rs->unclaimed)
		return;
	rs->unclaimed = false;
	list_del(&rs->all_node);
	ringcap_wakeup_stop(rs);
	sock_put(&rs->sk);
}

/* Delete an unclaimed ring; rtnl and ringcap_socks_lock held. */
static void ringcap_persist_drop(struct ringcap_sock *rs)
{
	mutex_lock(&rs->lock);
	ringcap_unbind(rs);
	mutex_unlock(&rs->lock);
	ringcap_persist_unbound(rs);
}

/**
 * ringcap_persist_delete - RINGCAP_PERSIST_DELETE
 * @rs: the socket asked; rtnl held
 * @name: the ring's name, checked
 *
 * Return: 0, -ENOENT (no such ring in the namespace), -EACCES (another
 * user's), -EBUSY (a reader has it).
 */
int ringcap_persist_delete(struct ringcap_sock *rs, const char *name)
{
	struct ringcap_sock *ring;

	ASSERT_RTNL();
	ring = ringcap_persist_find(sock_net(&rs->sk), name);
	if (!ring)
		return -ENOENT;
	if (!ringcap_persist_may(ring, rs))
		return -EACCES;
	if (!ring->unclaimed)
		return -EBUSY;
	mutex_lock(&ringcap_socks_lock);
	ringcap_persist_drop(ring);
	mutex_unlock(&ringcap_socks_lock);
	return 0;
}

/* Once a second while a ring is unclaimed: delete those past the timeout. */
static void ringcap_persist_reap(struct work_struct *work)
{
	unsigned long ttl = READ_ONCE(ringcap_persist_timeout) * HZ;
	struct ringcap_sock *rs, *tmp;
	bool more = false;

	rtnl_lock();
	mutex_lock(&ringcap_socks_lock);
	list_for_each_entry_safe(rs, tmp, &ringcap_persists, persist_node) {
		if (!rs->unclaimed)
			continue;
		if (time_before(jiffies, rs->unclaimed_at + ttl))
			more = true;
		else
			ringcap_persist_drop(rs);
	}
	mutex_unlock(&ringcap_socks_lock);
	rtnl_unlock();
	if (more)
		queue_delayed_work(system_wq, &ringcap_persist_work, HZ);
}

/**
 * ringcap_persist_exit - stop the reaper
 *
 * No ring is left: an unclaimed one holds the module (its sock's proto).
 */
void ringcap_persist_exit(void)
{
	cancel_delayed_work_sync(&ringcap_persist_work);
}
