// SPDX-License-Identifier: GPL-2.0
/*
 * Zero-copy receive: one socket takes an RX queue of an aware driver that
 * offers it, maps the queue's DMA buffers read-only, and gets records that
 * point into them instead of copies (uapi/linux/ringcap.h).
 *
 * A buffer delivered to the reader stays out of the NIC until the reader's
 * consumer position passes its record. Records are written in the order
 * the queue fills its buffers, so the buffers the reader holds are a FIFO:
 * the driver re-arms everything before the oldest one still held
 * (ringcap_zc_reclaim). The FIFO and the ring's producer side are the
 * queue context's alone (the driver's RX thread), as is the NIC ring.
 *
 * Lifetime. struct ringcap_zc is shared by the socket, each mapping of
 * its buffers and, while the queue feeds it, the driver; each holds a
 * reference, and it holds a reference to every page. So the pages stay
 * while any of them is left, and the driver, once it let go of them
 * (ringcap_zc_gone), never re-arms them: they are never reused while
 * mapped. The queue goes dead (no more frames, socket ENODEV) when the
 * driver unregisters or its buffers go.
 *
 * Nothing else may hold a page. When the socket is released (after its
 * last mapping: each holds the file) the driver hands the queue to the
 * stack with the same pages, and the descriptors it armed while the reader
 * had the queue are the NIC's already: a page it would have to take back
 * cannot be. So the mapping is VM_PFNMAP (ringcap_zc_mmap): no
 * get_user_pages() or pin_user_pages() reaches its pages, so no vmsplice()
 * pipe, O_DIRECT or MSG_ZEROCOPY buffer, io_uring fixed buffer or
 * process_vm_readv() keeps one beyond the mapping; debuggers read through
 * ringcap_zc_vm_access(), a copy.
 */
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/refcount.h>
#include <linux/rtnetlink.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include "ringcap.h"

struct ringcap_zc_held {
	u64 end;		/* ring position just past its record */
	u32 buf;
};

struct ringcap_zc {
	refcount_t ref;
	struct ringcap_sock *rs;
	struct ringcap_dev *rd;		/* under rtnl; NULL once dead */
	u16 queue;
	bool dead;			/* the queue no longer feeds us */
	struct ringcap_zc_bufs bufs;	/* pages referenced by us */

	/*
	 * The driver's zc_wakeup for the queue, under wake_lock: set once
	 * zc_start succeeded, NULL before zc_stop and once dead, so no
	 * call starts after those and none is in flight then.
	 */
	spinlock_t wake_lock;
	void (*wakeup)(struct net_device *dev, unsigned int q);
	struct net_device *wake_dev;

	/* the queue's context only */
	struct ringcap_zc_held *held;	/* nr_bufs entries */
	u32 head, nr_held;
};

static void ringcap_zc_put(struct ringcap_zc *zc)
{
	unsigned int i;

	if (!refcount_dec_and_test(&zc->ref))
		return;
	/* nr_pages stays 0 until every page is referenced. */
	for (i = 0; i < zc->bufs.nr_pages; i++)
		put_page(zc->bufs.pages[i]);
	kvfree(zc->bufs.pages);
	kvfree(zc->held);
	kfree(zc);
}

/**
 * ringcap_zc_set_bufs - take note of a zero-copy queue's buffers
 * @zc: what zc_start was given
 * @b: the driver's description; the page array is copied
 *
 * Return: 0, -EINVAL for a layout the ABI cannot describe, -ENOMEM.
 */
int ringcap_zc_set_bufs(struct ringcap_zc *zc, const struct ringcap_zc_bufs *b)
{
	unsigned int i;

	ASSERT_RTNL();
	if (zc->bufs.nr_pages || !b->nr_bufs || !b->buf_size ||
	    PAGE_SIZE % b->buf_size ||
	    (u64)b->nr_pages * PAGE_SIZE != (u64)b->nr_bufs * b->buf_size ||
	    (u64)b->nr_pages * PAGE_SIZE > U32_MAX)
		return -EINVAL;
	zc->held = kvcalloc(b->nr_bufs, sizeof(*zc->held), GFP_KERNEL);
	zc->bufs.pages = kvcalloc(b->nr_pages, sizeof(*b->pages), GFP_KERNEL);
	if (!zc->held || !zc->bufs.pages) {
		kvfree(zc->held);
		kvfree(zc->bufs.pages);
		zc->held = NULL;
		zc->bufs.pages = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < b->nr_pages; i++) {
		get_page(b->pages[i]);
		zc->bufs.pages[i] = b->pages[i];
	}
	zc->bufs.nr_pages = b->nr_pages;
	zc->bufs.buf_size = b->buf_size;
	zc->bufs.nr_bufs = b->nr_bufs;
	return 0;
}
EXPORT_SYMBOL_GPL(ringcap_zc_set_bufs);

/**
 * ringcap_zc_rx - hand one frame, in buffer @buf, to the queue's reader
 * @zc: the queue's zero-copy state
 * @buf: the buffer, below nr_bufs; the frame starts at its first byte
 * @len: the frame's length
 * @meta: hardware facts, or NULL
 *
 * Called from the queue's context, under RCU, in buffer order.
 *
 * Return: true if the reader has the buffer now (the driver must not
 * re-arm it before ringcap_zc_reclaim() says so); false if the frame was
 * not taken (filtered, no room, dead), the buffer the driver's again.
 */
bool ringcap_zc_rx(struct ringcap_zc *zc, unsigned int buf, unsigned int len,
		   const struct ringcap_rx_meta *meta)
{
	struct ringcap_sock *rs = zc->rs;
	struct ringcap_frame f = {
		.data = page_address(zc->bufs.pages[buf * zc->bufs.buf_size /
						    PAGE_SIZE]) +
			buf * zc->bufs.buf_size % PAGE_SIZE,
		.len = len,
		.queue = zc->queue,
		.zc = true,
		.zc_offset = buf * zc->bufs.buf_size,
	};
	bool taken;

	if (READ_ONCE(zc->dead) || buf >= zc->bufs.nr_bufs ||
	    zc->nr_held == zc->bufs.nr_bufs ||
	    len < ETH_HLEN || len > zc->bufs.buf_size)
		return false;
	f.dev = rs->dev;
	f.ifindex = rs->ifindex;
	/* An in-band tag stays: taking it out would move the frame. */
	ringcap_frame_meta(&f, meta);

	local_bh_disable();
	taken = ringcap_deliver(rs, &f);
	local_bh_enable();
	if (taken) {
		struct ringcap_zc_held *h;

		h = &zc->held[(zc->head + zc->nr_held) % zc->bufs.nr_bufs];
		/* Our own copy: the shared producer is only a mirror. */
		h->end = READ_ONCE(rs->ring->prod);
		h->buf = buf;
		zc->nr_held++;
	}
	return taken;
}
EXPORT_SYMBOL_GPL(ringcap_zc_rx);

/**
 * ringcap_zc_reclaim - take back what the reader released
 * @zc: the queue's zero-copy state; from the queue's context
 *
 * The consumer position is checked as in copy mode; an invalid one
 * releases nothing (and the next frame that finds no room counts it).
 *
 * Return: the oldest buffer the reader still holds (every buffer the
 * queue filled before it may be re-armed), or -1 if it holds none.
 */
int ringcap_zc_reclaim(struct ringcap_zc *zc)
{
	struct ringcap_ring *ring = zc->rs->ring;
	u64 cons;

	/* Pairs with the reader's release store: it is done with them. */
	cons = smp_load_acquire(&ring->hdr->consumer);
	if (ringcap_ring_consumer_ok(ring, cons)) {
		while (zc->nr_held &&
		       (s64)(cons - zc->held[zc->head].end) >= 0) {
			zc->head = (zc->head + 1) % zc->bufs.nr_bufs;
			zc->nr_held--;
		}
	}
	return zc->nr_held ? (int)zc->held[zc->head].buf : -1;
}
EXPORT_SYMBOL_GPL(ringcap_zc_reclaim);

/**
 * ringcap_zc_reader_waits - is the queue's reader asleep in poll()?
 * @zc: the queue, from its own context
 *
 * nCap's interrupt policy: the driver unmasks the queue's interrupt only
 * for a reader asleep in poll(); one that is busy reading will poll() again
 * when it runs dry, and that poll fetches what arrived meanwhile.
 *
 * Return: whether it is.
 */
bool ringcap_zc_reader_waits(struct ringcap_zc *zc)
{
	struct socket_wq *wq;
	bool waits;

	rcu_read_lock();
	wq = rcu_dereference(zc->rs->sk.sk_wq);
	waits = skwq_has_sleeper(wq);
	rcu_read_unlock();
	return waits;
}
EXPORT_SYMBOL_GPL(ringcap_zc_reader_waits);

/**
 * ringcap_zc_dead - has the reader let the queue go?
 * @zc: the queue
 *
 * Return: whether it has; the driver then stops sending it frames.
 */
bool ringcap_zc_dead(const struct ringcap_zc *zc)
{
	return READ_ONCE(zc->dead);
}
EXPORT_SYMBOL_GPL(ringcap_zc_dead);

/* No zc_wakeup starts from now on, and none is running when it returns. */
static void ringcap_zc_quiet(struct ringcap_zc *zc)
{
	spin_lock_bh(&zc->wake_lock);
	zc->wakeup = NULL;
	zc->wake_dev = NULL;
	spin_unlock_bh(&zc->wake_lock);
}

/* The queue stops feeding @zc for good; rtnl held. */
static void ringcap_zc_kill(struct ringcap_zc *zc)
{
	ASSERT_RTNL();
	if (zc->dead)
		return;
	ringcap_zc_quiet(zc);
	WRITE_ONCE(zc->dead, true);
	if (zc->rd)
		zc->rd->zc[zc->queue] = NULL;
	zc->rd = NULL;
	ringcap_sock_lost(zc->rs);
}

/**
 * ringcap_zc_gone - the driver lets go of a zero-copy queue's buffers
 * @zc: what zc_start was given
 *
 * RTNL held, the NIC no longer writing the buffers, the queue's context
 * done with @zc. The reader keeps its mapping; the socket reports ENODEV.
 */
void ringcap_zc_gone(struct ringcap_zc *zc)
{
	ringcap_zc_kill(zc);
	ringcap_zc_put(zc);
}
EXPORT_SYMBOL_GPL(ringcap_zc_gone);

/**
 * ringcap_zc_register - a slot per RX queue, for a driver that offers zero-copy
 * @rd: the device, registering; rtnl held
 * @ops: what the driver offers, or NULL
 *
 * Return: 0 (also for a driver without zc_start), -EINVAL for zc_start
 * without zc_stop and zc_wakeup, or -ENOMEM.
 */
int ringcap_zc_register(struct ringcap_dev *rd,
			const struct ringcap_drv_ops *ops)
{
	if (!ops || !ops->zc_start)
		return 0;
	if (WARN_ON(!ops->zc_stop || !ops->zc_wakeup))
		return -EINVAL;
	rd->zc = kcalloc(rd->nr_rxq, sizeof(*rd->zc), GFP_KERNEL);
	return rd->zc ? 0 : -ENOMEM;
}

/**
 * ringcap_zc_unregister - the driver goes: its queues feed no one any more
 * @rd: the device, in ringcap_unregister_dev(); rtnl held
 */
void ringcap_zc_unregister(struct ringcap_dev *rd)
{
	unsigned int q;

	ASSERT_RTNL();
	for (q = 0; rd->zc && q < rd->nr_rxq; q++)
		if (rd->zc[q])
			ringcap_zc_kill(rd->zc[q]);
	kfree(rd->zc);
	rd->zc = NULL;
}

/**
 * ringcap_zc_queue_taken - does a zero-copy socket have the queue?
 * @rd: the device; rtnl held
 * @queue: the RX queue
 *
 * Return: whether one has, which a copy-mode bind to it must not change.
 */
bool ringcap_zc_queue_taken(struct ringcap_dev *rd, u16 queue)
{
	return rd->zc && queue < rd->nr_rxq && rd->zc[queue];
}

/**
 * ringcap_zc_bind - bind a zero-copy socket to its queue
 * @rs: the socket, rs->dev and rs->queue set, ring allocated
 *
 * Under rtnl and rs->lock.
 *
 * Return: 0; -EOPNOTSUPP if the device's driver does not offer zero-copy;
 * -EINVAL for all queues or a cluster; -EBUSY if another socket has the
 * queue (zero-copy, or copy-mode bound to it); -ENETDOWN while down.
 */
int ringcap_zc_bind(struct ringcap_sock *rs)
{
	struct ringcap_ring_hdr *hdr = rs->ring->hdr;
	struct ringcap_dev *rd = ringcap_dev_find(rs->dev);
	struct ringcap_sock *m;
	struct ringcap_zc *zc;
	int err;

	ASSERT_RTNL();
	if (!rd || !rd->zc)
		return -EOPNOTSUPP;
	if (rs->queue == RINGCAP_QUEUE_ANY || rs->cluster.id)
		return -EINVAL;
	if (rs->queue >= rd->nr_rxq)
		return -ERANGE;
	if (rd->zc[rs->queue])
		return -EBUSY;
	list_for_each_entry(m, &rd->socks, dev_node)
		if (m->queue == rs->queue)
			return -EBUSY;

	zc = kzalloc(sizeof(*zc), GFP_KERNEL);
	if (!zc)
		return -ENOMEM;
	refcount_set(&zc->ref, 2);	/* ours and the driver's */
	zc->rs = rs;
	zc->rd = rd;
	zc->queue = rs->queue;
	spin_lock_init(&zc->wake_lock);
	err = rd->ops->zc_start(rs->dev, rs->queue, zc);
	if (err) {
		refcount_set(&zc->ref, 1);
		ringcap_zc_put(zc);
		return err;
	}
	rd->zc[rs->queue] = zc;
	zc->wakeup = rd->ops->zc_wakeup;
	zc->wake_dev = rs->dev;
	/*
	 * Published once whole: poll() takes it without rs->lock, so a
	 * zc_start that failed must never have been visible (it is freed
	 * at once), and a reader must see the lock and the op set.
	 */
	smp_store_release(&rs->zc, zc);
	hdr->zc_buf_size = zc->bufs.buf_size;
	hdr->zc_nr_bufs = zc->bufs.nr_bufs;
	hdr->zc_mmap_offset = RINGCAP_ZC_MMAP_OFFSET;
	hdr->zc_mmap_size = (u64)zc->bufs.nr_pages * PAGE_SIZE;
	return 0;
}

/**
 * ringcap_zc_unbind - undo ringcap_zc_bind()
 * @rs: the socket; rtnl and rs->lock held
 */
void ringcap_zc_unbind(struct ringcap_sock *rs)
{
	struct ringcap_zc *zc = rs->zc;

	ASSERT_RTNL();
	if (!zc->dead) {
		/* The driver re-arms every buffer and forgets zc. */
		ringcap_zc_quiet(zc);
		zc->rd->ops->zc_stop(rs->dev, zc->queue);
		zc->rd->zc[zc->queue] = NULL;
		zc->rd = NULL;
		WRITE_ONCE(zc->dead, true);
		ringcap_zc_put(zc);	/* the driver's */
	}
	/*
	 * After the grace period no poll() holds zc and no queue context
	 * that read dead too early still uses rs.
	 */
	WRITE_ONCE(rs->zc, NULL);
	synchronize_net();
	ringcap_zc_put(zc);
}

/**
 * ringcap_zc_info - a zero-copy socket's buffer area, for RINGCAP_RING_INFO
 * @rs: the socket; takes rs->lock
 * @info: its zc_* fields set while the socket has a zero-copy queue (also
 *	once the queue died: the header keeps describing the area too)
 */
void ringcap_zc_info(struct ringcap_sock *rs, struct ringcap_ring_info *info)
{
	struct ringcap_zc *zc;

	mutex_lock(&rs->lock);
	zc = rs->zc;
	if (zc) {
		info->zc_mmap_offset = RINGCAP_ZC_MMAP_OFFSET;
		info->zc_mmap_size = (u64)zc->bufs.nr_pages * PAGE_SIZE;
		info->zc_buf_size = zc->bufs.buf_size;
		info->zc_nr_bufs = zc->bufs.nr_bufs;
	}
	mutex_unlock(&rs->lock);
}

/* A split (partial munmap), mremap() or fork() makes one more mapping. */
static void ringcap_zc_vm_open(struct vm_area_struct *vma)
{
	struct ringcap_zc *zc = vma->vm_private_data;

	refcount_inc(&zc->ref);
}

static void ringcap_zc_vm_close(struct vm_area_struct *vma)
{
	ringcap_zc_put(vma->vm_private_data);
}

/*
 * ptrace() and /proc/PID/mem: get_user_pages() refuses a VM_PFNMAP
 * mapping, so they come here. Reading is a copy; writing is refused, as
 * every other way of writing to the buffers is.
 */
static int ringcap_zc_vm_access(struct vm_area_struct *vma,
				unsigned long addr, void *buf, int len,
				int write)
{
	struct ringcap_zc *zc = vma->vm_private_data;
	unsigned long off = ((vma->vm_pgoff -
			      (RINGCAP_ZC_MMAP_OFFSET >> PAGE_SHIFT)) <<
			     PAGE_SHIFT) + (addr - vma->vm_start);
	unsigned int p = off >> PAGE_SHIFT;

	if (write)
		return -EACCES;
	if (p >= zc->bufs.nr_pages || len <= 0)
		return -EINVAL;
	len = min_t(unsigned long, len, PAGE_SIZE - offset_in_page(off));
	memcpy(buf, page_address(zc->bufs.pages[p]) + offset_in_page(off),
	       len);
	return len;
}

static const struct vm_operations_struct ringcap_zc_vm_ops = {
	.open = ringcap_zc_vm_open,
	.close = ringcap_zc_vm_close,
	.access = ringcap_zc_vm_access,
};

/**
 * ringcap_zc_mmap - map a zero-copy queue's buffers read-only
 * @rs: the socket; takes rs->lock
 * @vma: the mapping, at RINGCAP_ZC_MMAP_OFFSET
 *
 * PROT_WRITE is refused, and VM_MAYWRITE goes
 * so that mprotect() cannot add it later (and so the mapping is never
 * copy-on-write, which remap_pfn_range() needs for a part of it). Page by
 * page with remap_pfn_range(): special PTEs in a VM_IO | VM_PFNMAP
 * mapping, which get_user_pages() and its fast path refuse (see the top of
 * this file). The mapping holds a reference to @zc, and so to the pages,
 * from here until its ->close.
 *
 * Return: 0; -ENODEV without a queue, or once it is gone; -EINVAL for
 * another size; -EACCES for a writable mapping; remap_pfn_range()'s error.
 */
int ringcap_zc_mmap(struct ringcap_sock *rs, struct vm_area_struct *vma)
{
	struct ringcap_zc *zc;
	unsigned int i;
	int err;

	mutex_lock(&rs->lock);
	zc = rs->zc;
	err = -ENODEV;
	if (!zc || READ_ONCE(zc->dead))
		goto out;
	err = -EINVAL;
	if (vma->vm_end - vma->vm_start !=
	    (unsigned long)zc->bufs.nr_pages * PAGE_SIZE)
		goto out;
	err = -EACCES;
	if (vma->vm_flags & VM_WRITE)
		goto out;
	vm_flags_clear(vma, VM_MAYWRITE);
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	for (i = 0; i < zc->bufs.nr_pages; i++) {
		/* On failure mmap() zaps what is in; no reference taken yet. */
		err = remap_pfn_range(vma, vma->vm_start + i * PAGE_SIZE,
				      page_to_pfn(zc->bufs.pages[i]),
				      PAGE_SIZE, vma->vm_page_prot);
		if (err)
			goto out;
	}
	refcount_inc(&zc->ref);
	vma->vm_private_data = zc;
	vma->vm_ops = &ringcap_zc_vm_ops;
	err = 0;
out:
	mutex_unlock(&rs->lock);
	return err;
}

/**
 * ringcap_zc_poll - poll() found nothing to read on a zero-copy socket
 * @rs: the socket
 *
 * Asks the driver (zc_wakeup) to have the queue fetch what the NIC
 * holds, re-arm what the reader released, and unmask the interrupt if
 * there is nothing (ringcap_zc_reader_waits()).
 */
void ringcap_zc_poll(struct ringcap_sock *rs)
{
	struct ringcap_zc *zc;

	rcu_read_lock();
	zc = READ_ONCE(rs->zc);
	if (zc) {
		spin_lock_bh(&zc->wake_lock);
		if (zc->wakeup)
			zc->wakeup(zc->wake_dev, zc->queue);
		spin_unlock_bh(&zc->wake_lock);
	}
	rcu_read_unlock();
}
