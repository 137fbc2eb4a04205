// SPDX-License-Identifier: GPL-2.0
/*
 * One kernel thread per RX queue, in place of NAPI on the receive side.
 *
 * The thread owns its ring: it drains it in batches of rx_batch frames,
 * and only when a pass comes back short does it give the interrupt back
 * (rce_rx_irq_arm) and sleep. The state is set to sleeping before the
 * unmask and the ring looked at once more after it, so a frame that lands
 * in between either raises an interrupt that wakes us or is seen here.
 * Being an ordinary kthread, it can be pinned (rx_cpu) and seen in top.
 * On a zero-copy queue the unmask waits for a reader asleep in poll(),
 * whose poll() also wakes the thread (zc.c).
 */
#include <linux/kthread.h>
#include <linux/sched.h>
#include "rce.h"
#include "trace.h"

static int rce_rx_thread(void *data)
{
	struct rce_rx_ring *rx = data;
	unsigned int batch, done;
	bool arm;

	while (!kthread_should_stop()) {
		rce_zc_apply(rx);
		batch = rce_param_rx_batch();
		done = rce_rx_clean(rx, batch);
		if (done == batch || rce_param_busy_poll()) {
			/* More to do, or polling: let others have the CPU. */
			cond_resched();
			continue;
		}

		/*
		 * Traced while the queue is still masked: the kernel skips a
		 * BPF program that interrupts another on its CPU, so one run
		 * here after the unmask would hide the very interrupt that
		 * follows it from rce_rx_irq.
		 */
		arm = rce_zc_want_irq(rx);
		trace_rce_rx_idle(rx, arm);
		set_current_state(TASK_INTERRUPTIBLE);
		if (arm) {
			rce_rx_irq_arm(rx);
		} else {
			u64_stats_update_begin(&rx->stats.syncp);
			u64_stats_inc(&rx->stats.zc_masked);
			u64_stats_update_end(&rx->stats.syncp);
		}
		/*
		 * A descriptor written since the clean is work, unless the
		 * clean could take none: a zero-copy reader that holds every
		 * buffer or is gone leaves it there, and spinning on it
		 * would hold up RCU on this CPU, and with it the unbind
		 * whose switch (rce_zc_switch()) wakes us. The reader's
		 * release wakes us too (zc_wakeup).
		 */
		if ((rce_rx_pending(rx) && (done || !rx->zc)) ||
		    kthread_should_stop() ||
		    READ_ONCE(rx->zc_next) != rx->zc) {
			__set_current_state(TASK_RUNNING);
			cond_resched();
			continue;
		}
		schedule();
		u64_stats_update_begin(&rx->stats.syncp);
		u64_stats_inc(&rx->stats.wakeups);
		u64_stats_update_end(&rx->stats.syncp);
	}
	return 0;
}

/**
 * rce_rx_threads_start - create and start each queue's thread
 * @ad: the adapter, with rings configured and handlers installed
 *
 * Return: 0, or the kthread_create() error with no thread left behind.
 */
int rce_rx_threads_start(struct rce_adapter *ad)
{
	struct task_struct *t;
	int q;

	for (q = 0; q < RCE_NUM_RXQ; q++) {
		struct rce_rx_ring *rx = &ad->rx[q];

		t = kthread_create(rce_rx_thread, rx, "%s-rx%d",
				   ad->netdev->name, q);
		if (IS_ERR(t)) {
			netdev_err(ad->netdev, "cannot create RX thread %d: %ld\n",
				   q, PTR_ERR(t));
			rce_rx_threads_stop(ad);
			return PTR_ERR(t);
		}
		kthread_bind(t, rce_param_rx_cpu(q));
		WRITE_ONCE(rx->thread, t);
		wake_up_process(t);
	}
	return 0;
}

/**
 * rce_rx_threads_stop - stop every queue's thread
 * @ad: the adapter
 *
 * Handlers and the module's zc_wakeup calls read rx->thread: it is
 * cleared, and running handlers and calls (under RCU) finish, before the
 * task can go away under them.
 */
void rce_rx_threads_stop(struct rce_adapter *ad)
{
	struct task_struct *t[RCE_NUM_RXQ];
	int q;

	for (q = 0; q < RCE_NUM_RXQ; q++) {
		t[q] = ad->rx[q].thread;
		WRITE_ONCE(ad->rx[q].thread, NULL);
	}
	rce_irq_sync(ad);
	synchronize_rcu();
	for (q = 0; q < RCE_NUM_RXQ; q++)
		if (t[q])
			kthread_stop(t[q]);
}
