// SPDX-License-Identifier: GPL-2.0
/*
 * The reader and a producer on two threads at once, through a small ring,
 * so the ordering of producer and consumer positions is exercised for
 * real: any frame read before it was fully written, or overwritten before
 * it was released, shows up as a wrong sequence number or payload byte.
 * The same for the transmit side: libringcap's rcap_tx_put() and
 * rcap_tx_flush() on one thread, the kernel's consumer (fake_tx_kick)
 * on another, as when a poll() elsewhere kicks.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include "fake_ring.h"
#include "tap.h"

#define FRAMES	300000U
#define SIZE	8192

static struct fake_ring fr;
static struct fake_tx ft;

#define FAKE_FD		1000

/*
 * The kick of the transmit test: the consumer runs on its own thread,
 * so the kick itself only returns (a kernel that sends later).
 */
ssize_t sendto(int fd, const void *buf, size_t len, int flags,
	       const struct sockaddr *addr, socklen_t alen)
{
	if (fd != FAKE_FD)
		return syscall(SYS_sendto, fd, buf, len, flags, addr, alen);
	return 0;
}

static uint32_t caplen_of(uint32_t seq)
{
	return (seq * 7919) % 300;
}

static void *producer(void *arg)
{
	uint32_t seq = 0;

	(void)arg;
	while (seq < FRAMES) {
		if (fake_ring_put(&fr, caplen_of(seq), seq))
			sched_yield();	/* full: let the reader run */
		else
			seq++;
	}
	return NULL;
}

/* The transmit side: frames as the kernel thread must find them. */
static uint32_t tx_seen, tx_bad;

static void tx_frame(void *arg, const uint8_t *f, uint32_t len)
{
	uint32_t i;

	(void)arg;
	if (len != 14 + caplen_of(tx_seen))
		tx_bad++;
	for (i = 0; i < len; i++)
		if (f[i] != (uint8_t)(tx_seen + i)) {
			tx_bad++;
			break;
		}
	tx_seen++;
}

static void *tx_kernel(void *arg)
{
	(void)arg;
	while (tx_seen < FRAMES && !tx_bad && !ft.bad) {
		fake_tx_kick(&ft);
		if (__atomic_load_n(&ft.hdr->producer, __ATOMIC_ACQUIRE) ==
		    ft.done)
			sched_yield();
	}
	return NULL;
}

static void tx_stress(void)
{
	static uint8_t buf[400];
	uint32_t seq = 0, len, i;
	unsigned long full = 0;
	pthread_t thr;
	int bad = 0;

	fake_tx_init(&ft, SIZE, 0, 1518, NULL);
	ft.rc->fd = FAKE_FD;
	ft.on_frame = tx_frame;
	if (pthread_create(&thr, NULL, tx_kernel, NULL)) {
		ok(0, "cannot start the kernel thread");
		return;
	}
	while (seq < FRAMES && !bad) {
		len = 14 + caplen_of(seq);
		for (i = 0; i < len; i++)
			buf[i] = (uint8_t)(seq + i);
		if (!rcap_tx_put(ft.rc, buf, len)) {
			if (++seq % 16 == 0 && rcap_tx_flush(ft.rc) < 0)
				bad = 1;
			continue;
		}
		if (errno != EAGAIN || rcap_tx_flush(ft.rc) < 0)
			bad = 1;
		full++;
		sched_yield();
	}
	while (!bad && rcap_tx_flush(ft.rc) == 1)
		sched_yield();
	if (bad) {
		ok(0, "transmit frame %u: %s", seq, rcap_errmsg(ft.rc));
		exit(tap_done());
	}
	pthread_join(thr, NULL);
	ok(tx_seen == FRAMES && !tx_bad && !ft.bad,
	   "transmit: %u frames passed between two threads, in order and intact (%lu pads, %lu times full)",
	   tx_seen, ft.pads, full);
	ft.rc->fd = -1;
	fake_tx_free(&ft);
}

int main(void)
{
	struct ringcap_pkt pkts[32];
	uint32_t seq = 0;
	unsigned long empty = 0;
	pthread_t thr;
	int n, i, bad = 0;

	fake_ring_init(&fr, SIZE, 0);
	if (pthread_create(&thr, NULL, producer, NULL)) {
		ok(0, "cannot start the producer thread");
		return tap_done();
	}
	while (seq < FRAMES && !bad) {
		n = rcap_recv_batch(fr.rc, pkts, 32);
		if (n < 0) {
			bad = 1;
			break;
		}
		if (!n) {
			empty++;
			sched_yield();
			continue;
		}
		for (i = 0; i < n && !bad; i++, seq++)
			if (!fake_frame_ok(&pkts[i], caplen_of(seq), seq))
				bad = 1;
		rcap_release(fr.rc);
	}
	if (bad) {
		ok(0, "frame %u wrong or ring corrupt: %s", seq,
		   rcap_errmsg(fr.rc));
		/* No join: the producer may be stuck on a full ring. */
		exit(tap_done());
	}
	pthread_join(thr, NULL);
	ok(seq == FRAMES, "%u frames passed between two threads, in order and intact (%lu pads, %lu empty polls)",
	   seq, fr.pads, empty);
	ok(fr.hdr->consumer == fr.hdr->producer,
	   "everything released at the end");
	fake_ring_free(&fr);
	tx_stress();
	return tap_done();
}
