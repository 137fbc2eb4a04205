// SPDX-License-Identifier: GPL-2.0
/*
 * Zero-copy receive (<ringcap/driver.h>, module/zerocopy.c): a ringcap
 * socket takes one RX queue over and reads its frames where the NIC wrote
 * them, in the ring's own pages.
 *
 * The queue's thread owns the ring, so the switch to and from zero-copy
 * happens there: RTNL asks (zc_next) and waits until the thread, between
 * two passes, has made it (rce_zc_apply). On a zero-copy queue a
 * descriptor's buffer goes back to the NIC only when the reader has
 * released it: zc_clean trails next, and everything between them is a
 * frame the reader holds or one waiting behind such a frame.
 *
 * Interrupts follow the reader (nCap): once the NIC has nothing new, the
 * thread unmasks the queue's interrupt only for a reader asleep in poll().
 * A busy reader calls poll() when it runs dry, which wakes the thread
 * (zc_wakeup) to fetch, re-arm and, with nothing left, unmask.
 */
#include <linux/kthread.h>
#include <linux/rtnetlink.h>
#include "rce.h"

/* Hand back every buffer from zc_clean up to @end; the thread's only. */
static unsigned int rce_zc_rearm_to(struct rce_rx_ring *rx, unsigned int end)
{
	struct device *dev = &rx->ad->pdev->dev;
	unsigned int n = 0;

	while (rx->zc_clean != end) {
		dma_sync_single_for_device(dev, rx->bufs[rx->zc_clean].dma,
					   RCE_RX_BUF_LEN, DMA_FROM_DEVICE);
		rce_rx_desc_arm(rx, rx->zc_clean);
		if (++rx->zc_clean == rx->count)
			rx->zc_clean = 0;
		n++;
	}
	return n;
}

/**
 * rce_zc_rearm - give the NIC what the reader released
 * @rx: a zero-copy ring; from its thread, under RCU, reader not dead
 *
 * Return: how many descriptors were re-armed; rx->zc_clean is the new tail.
 */
unsigned int rce_zc_rearm(struct rce_rx_ring *rx)
{
	int held = ringcap_zc_reclaim(rx->zc);
	unsigned int n;

	n = rce_zc_rearm_to(rx, held < 0 ? rx->next : held);
	if (n) {
		u64_stats_update_begin(&rx->stats.syncp);
		u64_stats_add(&rx->stats.zc_rearmed, n);
		u64_stats_update_end(&rx->stats.syncp);
	}
	return n;
}

/**
 * rce_zc_apply - make the switch to or from zero-copy that RTNL asked for
 * @rx: the ring, from its thread between two passes
 */
void rce_zc_apply(struct rce_rx_ring *rx)
{
	struct ringcap_zc *next = READ_ONCE(rx->zc_next);

	if (next == rx->zc)
		return;
	if (next) {
		/* Every descriptor up to next is armed already. */
		rx->zc_clean = rx->next;
	} else {
		/* The reader is gone: all its buffers go back at once. */
		if (rce_zc_rearm_to(rx, rx->next)) {
			wmb();
			rce_wr(rx->ad, RCE_RDT(rx->q),
			       (rx->next ? rx->next : rx->count) - 1);
		}
	}
	rx->zc = next;
	complete(&rx->zc_switched);
}

/**
 * rce_zc_want_irq - should the idle thread unmask the queue's interrupt?
 * @rx: the ring, from its thread
 *
 * Return: true, unless a zero-copy reader holds the queue and is busy.
 */
bool rce_zc_want_irq(struct rce_rx_ring *rx)
{
	bool want;

	if (!rx->zc)
		return true;
	rcu_read_lock();
	want = !ringcap_zc_dead(rx->zc) && ringcap_zc_reader_waits(rx->zc);
	rcu_read_unlock();
	return want;
}

/* RTNL held, device up: ask the thread and wait until it is done. */
static void rce_zc_switch(struct rce_rx_ring *rx, struct ringcap_zc *zc)
{
	reinit_completion(&rx->zc_switched);
	WRITE_ONCE(rx->zc_next, zc);
	wake_up_process(rx->thread);
	wait_for_completion(&rx->zc_switched);
}

/**
 * rce_zc_start - ringcap_drv_ops.zc_start: hand queue @q to a reader
 * @netdev: the device; RTNL held
 * @q: the RX queue
 * @zc: the reader's handle
 *
 * Return: 0; -ENETDOWN while down; -EBUSY if the queue is taken; or what
 * ringcap_zc_set_bufs() returned.
 */
int rce_zc_start(struct net_device *netdev, unsigned int q,
		 struct ringcap_zc *zc)
{
	struct rce_adapter *ad = netdev_priv(netdev);
	struct rce_rx_ring *rx = &ad->rx[q];
	struct ringcap_zc_bufs bufs;
	int err;

	ASSERT_RTNL();
	if (!ad->up)
		return -ENETDOWN;
	if (rx->zc)
		return -EBUSY;
	bufs = (struct ringcap_zc_bufs) {
		.pages = rx->pages,
		.nr_pages = rx->nr_pages,
		.buf_size = RCE_RX_BUF_LEN,
		.nr_bufs = rx->count,
	};
	err = ringcap_zc_set_bufs(zc, &bufs);
	if (err)
		return err;
	rce_zc_switch(rx, zc);
	return 0;
}

/**
 * rce_zc_stop - ringcap_drv_ops.zc_stop: queue @q goes back to the stack
 * @netdev: the device; RTNL held
 * @q: the RX queue
 */
void rce_zc_stop(struct net_device *netdev, unsigned int q)
{
	struct rce_adapter *ad = netdev_priv(netdev);

	ASSERT_RTNL();
	if (ad->up && ad->rx[q].zc)
		rce_zc_switch(&ad->rx[q], NULL);
}

/**
 * rce_zc_wakeup - ringcap_drv_ops.zc_wakeup: a reader of queue @q polls
 * @netdev: the device
 * @q: the RX queue
 *
 * BH disabled, so under RCU: rce_rx_threads_stop() clears rx->thread and
 * waits for a grace period before it stops the task, and rce_down() stops
 * the threads before the module hears of it (ringcap_zc_gone()).
 */
void rce_zc_wakeup(struct net_device *netdev, unsigned int q)
{
	struct rce_adapter *ad = netdev_priv(netdev);
	struct task_struct *t = READ_ONCE(ad->rx[q].thread);

	if (t)
		wake_up_process(t);
}

/**
 * rce_zc_down - a zero-copy ring is going (rce_down)
 * @rx: the ring, its thread stopped and the NIC reset
 *
 * The reader keeps its pages; the module hears that they are no longer fed.
 */
void rce_zc_down(struct rce_rx_ring *rx)
{
	ASSERT_RTNL();
	if (rx->zc)
		ringcap_zc_gone(rx->zc);
	rx->zc = NULL;
	WRITE_ONCE(rx->zc_next, NULL);
}
