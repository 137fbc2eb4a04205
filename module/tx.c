// SPDX-License-Identifier: GPL-2.0
/*
 * The transmit ring (uapi/linux/ringcap.h): the application writes
 * frames, a kick (a zero-length send, or poll() for POLLOUT) sends what
 * lies between completion and producer, in order, out of the bound
 * device: straight into an aware driver's TX descriptors
 * (ringcap_drv_ops.tx_frames), elsewhere as skbs handed to the device's
 * queue without a qdisc.
 *
 * The kernel reads the user-written records once each into its own
 * variables and checks them before use, as it does the receive ring's
 * consumer: nothing written there can steer a read outside the area. One
 * kick at a time (tx->lock), under rs->lock so that the device stays
 * bound; a kick never waits for the device. A kick that finds the
 * device's queue full wakes poll() sleepers again shortly (tx->retry), so
 * that poll(POLLOUT) on a full ring returns once the device has room.
 */
#include <linux/etherdevice.h>
#include <linux/hrtimer.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include "ringcap.h"

/*
 * Records taken per batch (at most this many frames handed to the
 * device per call), and between reschedules.
 */
#define RINGCAP_TX_BATCH	64
/*
 * How soon a poll(POLLOUT) sleeper tries again after a kick found the
 * device's queue full. Nothing tells us when a device's queue drains (a
 * driver wakes its queue for the qdisc, not for us), so we look again;
 * 100 us is under the time an 82574L takes to send a full queue of 256
 * small frames at line rate.
 */
#define RINGCAP_TX_RETRY_NS	(100 * NSEC_PER_USEC)

/*
 * One batch of a kick: the frames to hand to the device, where each one's
 * record starts, and how many records the batch refused before it. A
 * device that takes fewer frames than offered leaves the ring at the
 * first one it did not take; the refusals after that point are counted
 * when a later kick passes them again, not now, so that each record is
 * counted once (RINGCAP_TX_STATS: sent + refused never exceeds the
 * records put).
 */
struct ringcap_tx_batch {
	struct ringcap_tx_frame f[RINGCAP_TX_BATCH];
	u64 start[RINGCAP_TX_BATCH];
	u8 refused_len[RINGCAP_TX_BATCH];
	u8 refused_down[RINGCAP_TX_BATCH];
};

struct ringcap_tx {
	struct ringcap_ring *ring;	/* its header page is a ringcap_tx_hdr */
	u64 done;			/* completion, the kernel's own copy */
	struct ringcap_tx_stats st;
	struct ringcap_tx_batch b;	/* the kick's, under lock */
	struct mutex lock;		/* one kick at a time */
	struct sock *sk;		/* whose sleepers the retry wakes */
	struct hrtimer retry;		/* armed by a kick that found it full */
};

static struct ringcap_tx_hdr *ringcap_tx_hdr(struct ringcap_tx *tx)
{
	return (struct ringcap_tx_hdr *)tx->ring->hdr;
}

/* The device's queue may have room again: poll() kicks and looks. */
static enum hrtimer_restart ringcap_tx_retry(struct hrtimer *t)
{
	struct ringcap_tx *tx = container_of(t, struct ringcap_tx, retry);
	struct socket_wq *wq;

	rcu_read_lock();
	wq = rcu_dereference(tx->sk->sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_poll(&wq->wait, EPOLLOUT | EPOLLWRNORM);
	rcu_read_unlock();
	return HRTIMER_NORESTART;
}

/* The transmit ring, allocated now if the socket asked for one; rs->lock. */
static struct ringcap_tx *ringcap_tx_ensure(struct ringcap_sock *rs)
{
	struct ringcap_tx_hdr *hdr;
	struct ringcap_tx *tx;
	struct ringcap_ring *ring;

	BUILD_BUG_ON(sizeof(struct ringcap_tx_hdr) > RINGCAP_HDR_BYTES);
	BUILD_BUG_ON(offsetof(struct ringcap_tx_hdr, completion) != 128);
	BUILD_BUG_ON(offsetof(struct ringcap_tx_hdr, producer) != 256);
	BUILD_BUG_ON(sizeof(struct ringcap_tx_rec) % RINGCAP_REC_ALIGN);
	/* A batch's refusals before each frame fit its u8 counters. */
	BUILD_BUG_ON(RINGCAP_TX_BATCH > U8_MAX);

	lockdep_assert_held(&rs->lock);
	if (rs->tx)
		return rs->tx;
	if (!rs->tx_size)
		return ERR_PTR(-ENXIO);
	tx = kzalloc(sizeof(*tx), GFP_KERNEL_ACCOUNT);
	if (!tx)
		return ERR_PTR(-ENOMEM);
	ring = ringcap_ring_area(rs->tx_size);
	if (IS_ERR(ring)) {
		kfree(tx);
		return ERR_CAST(ring);
	}
	tx->ring = ring;
	mutex_init(&tx->lock);
	tx->sk = &rs->sk;
	hrtimer_setup(&tx->retry, ringcap_tx_retry, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL);
	hdr = ringcap_tx_hdr(tx);
	hdr->magic = RINGCAP_TX_MAGIC;
	hdr->abi_version = RINGCAP_ABI_VERSION;
	hdr->rec_hdr_len = sizeof(struct ringcap_tx_rec);
	hdr->data_offset = RINGCAP_HDR_BYTES;
	hdr->data_size = rs->tx_size;
	WRITE_ONCE(rs->tx, tx);
	return tx;
}

/*
 * The longest untagged frame @dev takes now: AF_PACKET's bound for a
 * SOCK_RAW send (packet_snd(), tpacket_snd()), the MTU plus the link
 * header, with the MTU read as it is now (it may change at any time,
 * under RTNL, which we do not hold). A software device may have an MTU
 * of gigabytes (dummy, loopback: no max_mtu); a frame is built in one
 * linear buffer, and a record asking for more than we can ever allocate
 * would stay in the ring for good, so the MTU counts as at most
 * RINGCAP_TX_MTU_MAX (loopback's default MTU).
 */
static u32 ringcap_tx_len_max(const struct net_device *dev)
{
	return min_t(u32, READ_ONCE(dev->mtu), RINGCAP_TX_MTU_MAX) +
	       dev->hard_header_len;
}

/*
 * Whether a frame of @len bytes may go out of @dev: within the bound
 * above, or VLAN_HLEN more for a frame tagged 802.1Q on an Ethernet
 * device, as AF_PACKET allows (packet_extra_vlan_len_allowed(): 0x8100
 * only, not 0x88a8). The EtherType is read once from the ring; a frame
 * rewritten meanwhile goes out as the device copies it, never longer
 * than checked here.
 */
static bool ringcap_tx_len_ok(const struct net_device *dev, const u8 *frame,
			      u32 len)
{
	u32 max = ringcap_tx_len_max(dev);

	if (len < ETH_HLEN || len > max + VLAN_HLEN)
		return false;
	if (len <= max)
		return true;
	return dev->type == ARPHRD_ETHER &&
	       READ_ONCE(*(const __be16 *)(frame + 12)) == htons(ETH_P_8021Q);
}

/* The longest frame (a tagged one) @dev takes now, which the header shows. */
static void ringcap_tx_show_max(struct ringcap_tx *tx,
				const struct net_device *dev)
{
	WRITE_ONCE(ringcap_tx_hdr(tx)->frame_max,
		   ringcap_tx_len_max(dev) + VLAN_HLEN);
}

/**
 * ringcap_tx_bind - the transmit ring's header shows the bound device's limit
 * @rs: a socket binding to rs->dev; rs->lock held
 *
 * Each kick updates the limit from then on.
 */
void ringcap_tx_bind(struct ringcap_sock *rs)
{
	if (rs->tx)
		ringcap_tx_show_max(rs->tx, rs->dev);
}

/**
 * ringcap_tx_prepare - allocate the transmit ring the socket asked for
 * @rs: a socket about to bind; rs->lock held
 *
 * Return: 0 (also without RINGCAP_TX_RING_SIZE) or -ENOMEM.
 */
int ringcap_tx_prepare(struct ringcap_sock *rs)
{
	struct ringcap_tx *tx;

	tx = rs->tx_size ? ringcap_tx_ensure(rs) : NULL;
	return IS_ERR(tx) ? PTR_ERR(tx) : 0;
}

/**
 * ringcap_tx_free - free a released socket's transmit ring, if any
 * @rs: the socket, which no kick can reach any more
 */
void ringcap_tx_free(struct ringcap_sock *rs)
{
	struct ringcap_tx *tx = rs->tx;

	if (!tx)
		return;
	hrtimer_cancel(&tx->retry);
	ringcap_ring_free(tx->ring);
	kfree(tx);
}

/**
 * ringcap_tx_info - what RINGCAP_TX_INFO reports, the ring allocated if need be
 * @rs: the socket; takes rs->lock
 * @info: filled in
 *
 * Return: 0, -ENXIO without RINGCAP_TX_RING_SIZE, or -ENOMEM.
 */
int ringcap_tx_info(struct ringcap_sock *rs, struct ringcap_ring_info *info)
{
	struct ringcap_tx *tx;

	mutex_lock(&rs->lock);
	tx = ringcap_tx_ensure(rs);
	if (!IS_ERR(tx))
		ringcap_ring_info(tx->ring, info);
	mutex_unlock(&rs->lock);
	return PTR_ERR_OR_ZERO(tx);
}

/**
 * ringcap_tx_stats - what RINGCAP_TX_STATS reports
 * @rs: the socket
 * @st: filled in, under the kick's lock
 *
 * Return: 0, or -ENXIO without a transmit ring.
 */
int ringcap_tx_stats(struct ringcap_sock *rs, struct ringcap_tx_stats *st)
{
	struct ringcap_tx *tx = READ_ONCE(rs->tx);

	if (!tx)
		return -ENXIO;
	mutex_lock(&tx->lock);
	*st = tx->st;
	mutex_unlock(&tx->lock);
	return 0;
}

/**
 * ringcap_tx_mmap - map the transmit ring at RINGCAP_TX_MMAP_OFFSET
 * @rs: the socket; takes rs->lock
 * @vma: the mapping
 *
 * Return: 0, -ENXIO without RINGCAP_TX_RING_SIZE, -ENOMEM, or
 * ringcap_ring_mmap()'s error.
 */
int ringcap_tx_mmap(struct ringcap_sock *rs, struct vm_area_struct *vma)
{
	struct ringcap_tx *tx;
	int err;

	mutex_lock(&rs->lock);
	tx = ringcap_tx_ensure(rs);
	err = IS_ERR(tx) ? PTR_ERR(tx) :
	      ringcap_ring_mmap(tx->ring, vma,
				RINGCAP_TX_MMAP_OFFSET >> PAGE_SHIFT);
	mutex_unlock(&rs->lock);
	return err;
}

/* An skb per frame, to the device's queue without a qdisc. */
static int ringcap_tx_generic(struct net_device *dev,
			      const struct ringcap_tx_frame *f, unsigned int n,
			      struct ringcap_tx_stats *st)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct sk_buff *skb;
		int ret;

		skb = netdev_alloc_skb(dev, f[i].len);
		if (!skb)
			break;
		skb_put_data(skb, f[i].data, f[i].len);
		skb_reset_mac_header(skb);
		skb->protocol = eth_hdr(skb)->h_proto;
		skb_set_network_header(skb, ETH_HLEN);
		skb->dev = dev;
		/* As AF_PACKET spreads its bypassing senders over the queues. */
		ret = dev_direct_xmit(skb, raw_smp_processor_id() %
					dev->real_num_tx_queues);
		if (ret == NETDEV_TX_BUSY)
			break;		/* the queue is stopped: try later */
		if (ret != NETDEV_TX_OK)
			st->refused_down++;	/* the device dropped it */
		else
			st->sent++;
	}
	return i;
}

/*
 * Hand @n checked frames to the device; returns how many it took (the
 * rest stay in the ring for the next kick).
 */
static unsigned int ringcap_tx_out(struct ringcap_tx *tx, struct net_device *dev,
				   const struct ringcap_tx_frame *f,
				   unsigned int n)
{
	const struct ringcap_drv_ops *ops;
	struct ringcap_dev *rd;
	int took = -EOPNOTSUPP;

	if (!n)
		return 0;
	/* The aware driver's own path, while it is registered (RCU). */
	rcu_read_lock();
	rd = ringcap_dev_find_rcu(dev);
	ops = rd ? READ_ONCE(rd->ops) : NULL;
	if (ops && ops->tx_frames)
		took = ops->tx_frames(dev, f, n);
	rcu_read_unlock();
	if (took == -EOPNOTSUPP)
		return ringcap_tx_generic(dev, f, n, &tx->st);
	if (took < 0) {
		tx->st.refused_down += n;	/* went down meanwhile */
		return n;
	}
	tx->st.sent += took;
	return took;
}

/**
 * ringcap_tx_kick - send what lies between completion and producer
 * @rs: the socket; takes rs->lock, which keeps the device bound, and the
 *	kick's lock
 *
 * Records are taken in batches of up to RINGCAP_TX_BATCH. A refusal is
 * counted only once the ring has moved past it for good: with the whole
 * batch, or, when the device takes only some of the batch's frames,
 * with the frames it took (the rest of the batch is read again by the
 * next kick).
 *
 * Return: 0, or -EINVAL when the producer or a record cannot be used
 * (what came before it is sent), -ENXIO without a ring, -ENOTCONN when
 * unbound, -ENODEV after the device went away.
 */
int ringcap_tx_kick(struct ringcap_sock *rs)
{
	unsigned int n = 0, recs = 0, took;
	u8 refused_len = 0, refused_down = 0;
	struct ringcap_tx_batch *b;
	struct ringcap_tx_hdr *hdr;
	struct net_device *dev;
	struct ringcap_tx *tx;
	u64 prod, pos;
	int err = 0;

	mutex_lock(&rs->lock);
	tx = rs->tx;
	dev = rs->dev;
	if (!tx || !dev) {
		/* Bind allocates the ring a socket asked for. */
		err = !rs->tx_size ? -ENXIO : rs->gone ? -ENODEV :
		      !dev ? -ENOTCONN : -ENXIO;
		mutex_unlock(&rs->lock);
		return err;
	}
	mutex_lock(&tx->lock);
	hdr = ringcap_tx_hdr(tx);
	b = &tx->b;
	tx->st.kicks++;
	ringcap_tx_show_max(tx, dev);
	/* Acquire pairs with the application's release of producer. */
	prod = smp_load_acquire(&hdr->producer);
	if ((prod & (RINGCAP_REC_ALIGN - 1)) ||
	    prod - tx->done > tx->ring->data_size) {
		tx->st.bad_producer++;
		err = -EINVAL;
		goto out;
	}
	pos = tx->done;
	for (;;) {
		if (pos != prod) {
			u32 off = pos & (tx->ring->data_size - 1);
			u32 tail = tx->ring->data_size - off;
			const u8 *frame = tx->ring->data + off +
					  sizeof(struct ringcap_tx_rec);
			struct ringcap_tx_rec r;

			/* Read once: the application may write meanwhile. */
			memcpy(&r, tx->ring->data + off,
			       min_t(u32, tail, sizeof(r)));
			if (r.rec_len < RINGCAP_REC_ALIGN ||
			    r.rec_len % RINGCAP_REC_ALIGN || r.rec_len > tail ||
			    r.rec_len > prod - pos ||
			    (r.flags & RINGCAP_TX_PAD ? r.rec_len != tail :
			     r.rec_len < sizeof(r) ||
			     r.len > r.rec_len - sizeof(r))) {
				tx->st.bad_producer++;
				err = -EINVAL;
			} else if (r.flags & RINGCAP_TX_PAD) {
				pos += r.rec_len;
			} else if (!ringcap_tx_len_ok(dev, frame, r.len)) {
				refused_len++;
				pos += r.rec_len;
			} else if (!netif_running(dev) ||
				   !netif_carrier_ok(dev)) {
				refused_down++;
				pos += r.rec_len;
			} else {
				b->f[n].data = frame;
				b->f[n].len = r.len;
				b->start[n] = pos;
				b->refused_len[n] = refused_len;
				b->refused_down[n++] = refused_down;
				pos += r.rec_len;
			}
			recs++;
		}
		if (recs < RINGCAP_TX_BATCH && pos != prod && !err)
			continue;
		took = ringcap_tx_out(tx, dev, b->f, n);
		if (took < n) {
			/*
			 * The device is full: the rest waits for a kick,
			 * which a poll() sleeper gets from the retry. Of the
			 * batch's refusals only those before the first frame
			 * not taken are behind us; the next kick meets the
			 * others again.
			 */
			tx->st.refused_len += b->refused_len[took];
			tx->st.refused_down += b->refused_down[took];
			tx->done = b->start[took];
			tx->st.full++;
			hrtimer_start(&tx->retry, ns_to_ktime(RINGCAP_TX_RETRY_NS),
				      HRTIMER_MODE_REL);
			break;
		}
		tx->st.refused_len += refused_len;
		tx->st.refused_down += refused_down;
		tx->done = pos;
		n = 0;
		recs = 0;
		refused_len = 0;
		refused_down = 0;
		if (pos == prod || err)
			break;
		cond_resched();
	}
out:
	WRITE_ONCE(hdr->sent, tx->st.sent);
	WRITE_ONCE(hdr->refused, tx->st.refused_len + tx->st.refused_down);
	WRITE_ONCE(hdr->full, tx->st.full);
	/* Release: we are done reading the records below it. */
	smp_store_release(&hdr->completion, tx->done);
	mutex_unlock(&tx->lock);
	mutex_unlock(&rs->lock);
	return err;
}

/**
 * ringcap_tx_poll - poll()'s transmit half
 * @rs: the socket
 * @asked: the events poll() asked for
 *
 * Kicks if POLLOUT was asked for and records wait.
 *
 * Return: EPOLLOUT | EPOLLWRNORM while the ring has room, else 0 (also
 * without a transmit ring).
 */
__poll_t ringcap_tx_poll(struct ringcap_sock *rs, __poll_t asked)
{
	struct ringcap_tx *tx = READ_ONCE(rs->tx);
	struct ringcap_tx_hdr *hdr;
	u64 prod;

	if (!tx)
		return 0;
	hdr = ringcap_tx_hdr(tx);
	if ((asked & EPOLLOUT) && READ_ONCE(hdr->producer) != READ_ONCE(tx->done))
		ringcap_tx_kick(rs);
	prod = READ_ONCE(hdr->producer);
	return prod - READ_ONCE(tx->done) < tx->ring->data_size ?
	       EPOLLOUT | EPOLLWRNORM : 0;
}
