// SPDX-License-Identifier: GPL-2.0
/*
 * The reader and a producer on two threads at once, through a small ring,
 * so the ordering of producer and consumer positions is exercised for
 * real: any frame read before it was fully written, or overwritten before
 * it was released, shows up as a wrong sequence number or payload byte.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include "fake_ring.h"
#include "tap.h"

#define FRAMES	300000U
#define SIZE	8192

static struct fake_ring fr;

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
		n = ringcap_recv_batch(fr.rc, pkts, 32);
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
		ringcap_release(fr.rc);
	}
	if (bad) {
		ok(0, "frame %u wrong or ring corrupt: %s", seq,
		   ringcap_errmsg(fr.rc));
		/* No join: the producer may be stuck on a full ring. */
		exit(tap_done());
	}
	pthread_join(thr, NULL);
	ok(seq == FRAMES, "%u frames passed between two threads, in order and intact (%lu pads, %lu empty polls)",
	   seq, fr.pads, empty);
	ok(fr.hdr->consumer == fr.hdr->producer,
	   "everything released at the end");
	fake_ring_free(&fr);
	return tap_done();
}
