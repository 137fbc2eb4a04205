// SPDX-License-Identifier: GPL-2.0
/*
 * The wake-up policy: signal the reader once N frames have arrived since
 * the last signal, or m microseconds after the first frame not yet
 * signalled, whichever comes first (Braun et al., IMC 2010).
 *
 * "Signalled" is a ring position, rs->sig_pos: poll() reports EPOLLIN while
 * the reader's consumer position is below it. Nothing is cleared on the
 * reader's side, so a signal cannot be lost between poll() finding the ring
 * empty and the reader going to sleep. A reader that is not asleep in
 * poll() is never woken; only real wake-ups are counted.
 *
 * A reader whose device or zero-copy queue is gone is signalled here
 * too (ringcap_sock_lost()).
 *
 * All state is under rs->prod_lock. The timer is a soft hrtimer, so its
 * callback runs in softirq context and producers (softirq or BH disabled)
 * never race with it on their own CPU.
 */
#include <linux/hrtimer.h>
#include <linux/poll.h>
#include "ringcap.h"
#include "trace.h"

static void ringcap_signal(struct ringcap_sock *rs,
			   enum ringcap_wake_reason reason)
{
	struct socket_wq *wq;
	u32 pending = rs->pending;

	WRITE_ONCE(rs->sig_pos, rs->ring->prod);
	rs->pending = 0;
	/* May fail if the callback is waiting for our lock; it then finds
	 * pending == 0 (or a few new frames, which it signals early).
	 */
	hrtimer_try_to_cancel(&rs->timer);

	rcu_read_lock();
	wq = rcu_dereference(rs->sk.sk_wq);
	/* skwq_has_sleeper() has the barrier that pairs with sock_poll_wait() */
	if (skwq_has_sleeper(wq)) {
		wake_up_interruptible_sync_poll(&wq->wait,
						EPOLLIN | EPOLLRDNORM);
		rs->st.wakeups++;
		if (reason == RINGCAP_WAKE_TIMER)
			rs->st.wakeups_timer++;
		WRITE_ONCE(rs->ring->hdr->wakeups, rs->st.wakeups);
		trace_ringcap_wakeup(ringcap_sock_ino(rs), reason, pending);
	}
	rcu_read_unlock();
}

static enum hrtimer_restart ringcap_timer_fn(struct hrtimer *t)
{
	struct ringcap_sock *rs = container_of(t, struct ringcap_sock, timer);

	spin_lock(&rs->prod_lock);
	if (rs->pending)
		ringcap_signal(rs, RINGCAP_WAKE_TIMER);
	spin_unlock(&rs->prod_lock);
	return HRTIMER_NORESTART;
}

/**
 * ringcap_wakeup_init - set a new socket's timer up
 * @rs: the socket
 */
void ringcap_wakeup_init(struct ringcap_sock *rs)
{
	hrtimer_setup(&rs->timer, ringcap_timer_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_SOFT);
}

/**
 * ringcap_wakeup_frames - frames were committed to the ring
 * @rs: the socket; rs->prod_lock held, rs->pending counts them
 *
 * Signals the reader at the watermark, or arms the timer for the first
 * frame not yet signalled. Once per batch (capture.c): a batch reaches
 * the reader at most its length late, as a NAPI poll's frames would.
 */
void ringcap_wakeup_frames(struct ringcap_sock *rs)
{
	u32 timeout_us = READ_ONCE(rs->timeout_us);

	if (!rs->pending)
		return;
	if (rs->pending >= READ_ONCE(rs->watermark)) {
		ringcap_signal(rs, RINGCAP_WAKE_WATERMARK);
		return;
	}
	/* Armed by the first unsignalled frame only; active covers a
	 * callback that is already running and will see this frame.
	 */
	if (timeout_us && !hrtimer_active(&rs->timer))
		hrtimer_start(&rs->timer,
			      ns_to_ktime((u64)timeout_us * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_SOFT);
}

/**
 * ringcap_wakeup_flush - signal whatever is pending now
 * @rs: the socket; rs->prod_lock held
 *
 * For a full ring and a lost device, which must reach the reader below
 * the watermark.
 */
void ringcap_wakeup_flush(struct ringcap_sock *rs)
{
	if (rs->pending)
		ringcap_signal(rs, RINGCAP_WAKE_WATERMARK);
}

/**
 * ringcap_wakeup_stop - cancel the timer of a socket being released
 * @rs: the socket, which no producer can reach any more
 */
void ringcap_wakeup_stop(struct ringcap_sock *rs)
{
	hrtimer_cancel(&rs->timer);
}

/**
 * ringcap_readable - has the reader been signalled frames it has not read?
 * @rs: the socket
 * @ring: its ring
 *
 * Return: whether the consumer position is below the last signal's.
 */
bool ringcap_readable(struct ringcap_sock *rs, struct ringcap_ring *ring)
{
	u64 cons = READ_ONCE(ring->hdr->consumer);

	return (s64)(READ_ONCE(rs->sig_pos) - cons) > 0;
}

/**
 * ringcap_sock_lost - the socket's device, or its zero-copy queue, went away
 * @rs: the socket, with a ring; rtnl held
 *
 * POLLERR, and ENODEV in SO_ERROR from now on, once the reader has been
 * signalled what the ring holds.
 */
void ringcap_sock_lost(struct ringcap_sock *rs)
{
	/*
	 * The error before the flag: a reader whose poll() sees gone must
	 * find ENODEV in SO_ERROR, not 0 (poll reads the flag with acquire).
	 */
	WRITE_ONCE(rs->sk.sk_err, ENODEV);
	smp_store_release(&rs->gone, true);

	/* Let the reader drain what it has, then see the error. */
	spin_lock_bh(&rs->prod_lock);
	ringcap_wakeup_flush(rs);
	spin_unlock_bh(&rs->prod_lock);
	sk_error_report(&rs->sk);
}
