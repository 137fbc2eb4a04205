// SPDX-License-Identifier: GPL-2.0
/*
 * The library's transmit side as the kernel answers it: flushes that
 * publish and kick (or do not need to) while a device queue fills,
 * rcap_tx_wait() and its sleeps, corrupt completions, the kick's
 * refusals in words, and the options before bind (transmit ring size,
 * capture off, the transmit counters). Over the fake descriptor of
 * tx_fixture.c; test_tx_ring.c has the ring's memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tap.h"
#include "tx_fixture.h"

/* The device's queue fills: flushes report frames still waiting. */
static void device_full(void)
{
	struct fake_tx ft;
	struct seen seen;
	int i, ret, rounds = 0;
	unsigned long kicks;
	struct timespec t0, t1;
	long longest;
	double ms;

	tx_init(&ft, SIZE, 0, FRAME_MAX, &seen);
	ft.budget = 3;
	for (i = 0; i < 10; i++)
		rcap_tx_put(ft.rc, frame(100, i), 100);
	ret = rcap_tx_flush(ft.rc);
	ok(ret == 1 && seen.n == 3 && ft.hdr->completion == 3 * 120 &&
	   ft.full == 1,
	   "a device that takes 3 per kick: flush returns 1, completion after the third (ret %d)",
	   ret);
	while ((ret = rcap_tx_flush(ft.rc)) == 1)
		rounds++;
	ok(!ret && rounds == 2 && seen.n == 10 && !seen.bad && ft.kicks == 4,
	   "flushing again sends the rest in order: 4 kicks in all");

	/* Stuck: wait kicks at growing intervals until the queue drains. */
	for (i = 0; i < 10; i++)
		rcap_tx_put(ft.rc, frame(100, 10 + i), 100);
	ft.budget = 0;
	sleeps = 0;
	ret = rcap_tx_wait(ft.rc, 0);
	ok(ret == 0 && sleeps == 0 && ft.hdr->producer == ft.rc->tx_prod,
	   "wait, timeout 0, device stuck: publishes, one kick, 0, no sleep");
	drain_after = 5;
	ret = rcap_tx_wait(ft.rc, -1);
	ok(ret == 1 && sleeps == 5 && seen.n == 20 && !seen.bad,
	   "wait, no timeout: 1 once the device drains (after %lu sleeps)",
	   sleeps);
	ok(sleep_ns[0] == 20000 && sleep_ns[1] == 40000 &&
	   sleep_ns[4] == 320000,
	   "... sleeping 20 us, 40 us, ... doubling (%ld %ld %ld)",
	   sleep_ns[0], sleep_ns[1], sleep_ns[4]);
	drain_after = 0;

	for (i = 0; i < 3; i++)
		rcap_tx_put(ft.rc, frame(100, 20 + i), 100);
	ft.budget = 0;
	sleeps = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = rcap_tx_wait(ft.rc, 20);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000.0 +
	     (t1.tv_nsec - t0.tv_nsec) / 1e6;
	longest = 0;
	for (i = 0; i < (int)sleeps && i < 64; i++)
		longest = sleep_ns[i] > longest ? sleep_ns[i] : longest;
	ok(ret == 0 && sleeps >= 1 && longest <= 1000000 && ms >= 19.9,
	   "wait 20 ms, device stuck: 0 after %.1f ms, %lu sleeps of at most 1 ms",
	   ms, sleeps);
	ft.budget = 1;
	ok(rcap_tx_wait(ft.rc, 20) == 1 && seen.n == 21,
	   "wait: 1 as soon as one frame goes out");
	ft.budget = -1;
	ok(rcap_tx_wait(ft.rc, 20) == 1 && seen.n == 23,
	   "wait with everything sendable: 1, all sent");
	kicks = ft.kicks;
	ok(rcap_tx_wait(ft.rc, 20) == 1 && ft.kicks == kicks,
	   "wait with nothing outstanding: 1 at once, no kick");
	tx_free(&ft);
}

static void corrupt(void)
{
	struct fake_tx ft;
	int ret;

	tx_init(&ft, SIZE, 0, FRAME_MAX, NULL);
	rcap_tx_put(ft.rc, frame(100, 0), 100);
	ft.hdr->completion = 8 * SIZE;
	errno = 0;
	ret = rcap_tx_flush(ft.rc);
	ok(ret == -1 && errno == EIO &&
	   strstr(rcap_errmsg(ft.rc), "corrupt transmit ring: completion 32768"),
	   "completion ahead of producer: EIO (%s)", rcap_errmsg(ft.rc));
	ft.hdr->completion = 4;
	ok(rcap_tx_flush(ft.rc) == -1 && errno == EIO,
	   "unaligned completion: EIO");
	ft.hdr->completion = 0;
	while (!rcap_tx_put(ft.rc, frame(100, 0), 100))
		;
	ft.hdr->completion = (uint64_t)-8;
	errno = 0;
	ret = rcap_tx_put(ft.rc, frame(100, 0), 100);
	ok(ret == -1 && errno == EIO,
	   "put on a full ring, completion behind by more than the ring: EIO");
	tx_free(&ft);
}

static void kick_refused(int err, const char *msg)
{
	struct fake_tx ft;
	int ret;

	tx_init(&ft, SIZE, 0, FRAME_MAX, NULL);
	rcap_tx_put(ft.rc, frame(60, 0), 60);
	kick_errno = err;
	errno = 0;
	ret = rcap_tx_flush(ft.rc);
	ok(ret == -1 && errno == err && !strcmp(rcap_errmsg(ft.rc), msg),
	   "kick refused with %s: \"%s\"", strerror(err),
	   rcap_errmsg(ft.rc));
	tx_free(&ft);
}

static void kicks(void)
{
	struct fake_tx ft;
	int ret;

	kick_refused(ENODEV, "sending: the transmit device went away");
	kick_refused(ENOTCONN,
		     "sending: the socket is not bound to a device (rcap_bind() first)");
	kick_refused(ENXIO,
		     "sending: No such device or address (the socket has no transmit ring: rcap_set_tx_ring() before bind)");
	kick_refused(EINVAL,
		     "sending: Invalid argument (the kernel refused the transmit ring's producer position or a record: the ring's memory was overwritten)");
	kick_refused(EPERM, "sending: Operation not permitted");
	kick_errno = EINTR;
	tx_init(&ft, SIZE, 0, FRAME_MAX, NULL);
	rcap_tx_put(ft.rc, frame(60, 0), 60);
	ret = rcap_tx_flush(ft.rc);
	ok(ret == 0 && ft.sent == 1, "a kick interrupted by a signal is made again");

	/* A record overwritten after the put: the kernel's EINVAL. */
	rcap_tx_put(ft.rc, frame(60, 1), 60);
	rcap_tx_put(ft.rc, frame(60, 2), 60);
	((struct ringcap_tx_rec *)(ft.data + 80 + 80))->rec_len = 12;
	errno = 0;
	ret = rcap_tx_flush(ft.rc);
	ok(ret == -1 && errno == EINVAL && ft.sent == 2 && ft.bad == 1,
	   "an overwritten record: EINVAL from the kernel, what came before it sent");
	tx_free(&ft);
}

static void options(void)
{
	struct ringcap *rc = calloc(1, sizeof(*rc));
	struct ringcap_tx_stats st;
	int ret;

	rc->fd = FAKE_FD;
	ret = rcap_set_tx_ring(rc, 1 << 20);
	ok(!ret && rc->tx_ring_size == 1 << 20 &&
	   opt_set[RINGCAP_TX_RING_SIZE] == 1 << 20,
	   "set_tx_ring: RINGCAP_TX_RING_SIZE set, noted for rcap_map()");
	opt_errno = EINVAL;
	ret = rcap_set_tx_ring(rc, 3000);
	ok(ret == -1 && errno == EINVAL && rc->tx_ring_size == 1 << 20 &&
	   !strcmp(rcap_errmsg(rc),
		   "setting transmit ring size to 3000: Invalid argument (not 0 or a power of two within the module's limits)"),
	   "set_tx_ring refused: not noted (%s)", rcap_errmsg(rc));
	opt_errno = EBUSY;
	ret = rcap_set_tx_ring(rc, 4096);
	ok(ret == -1 && errno == EBUSY &&
	   strstr(rcap_errmsg(rc), "(the socket is already bound: set it before bind)"),
	   "set_tx_ring after bind: EBUSY, saying so (%s)", rcap_errmsg(rc));
	opt_errno = ENOPROTOOPT;
	ret = rcap_set_tx_ring(rc, 4096);
	ok(ret == -1 && errno == ENOPROTOOPT &&
	   strstr(rcap_errmsg(rc), "(the loaded module has no transmit ring)"),
	   "set_tx_ring on an older module: ENOPROTOOPT, saying so (%s)",
	   rcap_errmsg(rc));

	ret = rcap_set_capture(rc, 0);
	ok(!ret && rc->no_capture && opt_set[RINGCAP_CAPTURE] == 0,
	   "set_capture(0): RINGCAP_CAPTURE 0, noted");
	ret = rcap_set_capture(rc, 5);
	ok(!ret && !rc->no_capture && opt_set[RINGCAP_CAPTURE] == 1,
	   "set_capture(5): RINGCAP_CAPTURE 1");
	opt_errno = EBUSY;
	ret = rcap_set_capture(rc, 0);
	ok(ret == -1 && !rc->no_capture &&
	   !strcmp(rcap_errmsg(rc),
		   "setting capture to 0: Device or resource busy (the socket is already bound: set it before bind)"),
	   "set_capture after bind: EBUSY, not noted (%s)", rcap_errmsg(rc));

	ret = rcap_tx_stats(rc, &st);
	ok(!ret && !memcmp(&st, &fake_stats, sizeof(st)),
	   "tx_stats: the kernel's struct ringcap_tx_stats");
	opt_errno = ENXIO;
	ret = rcap_tx_stats(rc, &st);
	ok(ret == -1 && errno == ENXIO && !st.sent &&
	   !strcmp(rcap_errmsg(rc),
		   "reading the transmit counters: No such device or address (the socket has no transmit ring)"),
	   "tx_stats without a transmit ring: ENXIO, zeroed (%s)",
	   rcap_errmsg(rc));
	rc->fd = -1;
	rcap_close(rc);
}

int main(void)
{
	device_full();
	corrupt();
	kicks();
	options();
	return tap_done();
}
