// SPDX-License-Identifier: GPL-2.0
/*
 * The library's transmit ring as memory: header checks, calls without a
 * ring, the record layout, frame lengths against frame_max (renewed by
 * each kick) and what one record holds, pad records at the end of the
 * area (down to a bare 8 bytes, nothing written past it), EAGAIN when the
 * ring is full and room again once completion moves, and many frames
 * through a small ring with positions across 2^64. Over the fake
 * descriptor of tx_fixture.c; test_tx_kick.c has what the kernel answers.
 */
#include <errno.h>
#include <string.h>
#include "tap.h"
#include "tx_fixture.h"

static void hdr_checks(void)
{
	struct ringcap_ring_info info;
	struct ringcap_tx_hdr h;
	struct fake_tx ft;
	struct ringcap *rc;
	int ret;

	fake_tx_init(&ft, SIZE, 0, FRAME_MAX, NULL);
	rc = ft.rc;
	info = ft.info;
	h = *ft.hdr;
	ok(!rc_check_tx_hdr(rc, &h, &info), "a good transmit header is accepted");

	h.magic = RINGCAP_MAGIC;
	errno = 0;
	ret = rc_check_tx_hdr(rc, &h, &info);
	ok(ret && errno == EPROTO && strstr(rcap_errmsg(rc), "not a ringcap transmit ring"),
	   "the receive ring's magic: EPROTO (%s)", rcap_errmsg(rc));
	h = *ft.hdr;
	h.abi_version = RINGCAP_ABI_VERSION + 1;
	ret = rc_check_tx_hdr(rc, &h, &info);
	ok(ret && errno == EPROTO && strstr(rcap_errmsg(rc), "ABI version 2"),
	   "ABI mismatch: EPROTO (%s)", rcap_errmsg(rc));
	h = *ft.hdr;
	h.rec_hdr_len = sizeof(struct ringcap_rec);
	ret = rc_check_tx_hdr(rc, &h, &info);
	ok(ret && errno == EPROTO && strstr(rcap_errmsg(rc), "transmit record header is 40 bytes, expected 16"),
	   "the receive ring's record size: EPROTO (%s)", rcap_errmsg(rc));
	h = *ft.hdr;
	h.data_size = SIZE - 8;
	info.data_size = SIZE - 8;
	ret = rc_check_tx_hdr(rc, &h, &info);
	ok(ret && errno == EPROTO, "data size not a power of two: EPROTO (%s)",
	   rcap_errmsg(rc));
	h = *ft.hdr;
	info = ft.info;
	info.mmap_size = SIZE;
	ret = rc_check_tx_hdr(rc, &h, &info);
	ok(ret && errno == EPROTO, "data area beyond the mapping: EPROTO (%s)",
	   rcap_errmsg(rc));
	info = ft.info;
	info.data_offset = 8192;
	ret = rc_check_tx_hdr(rc, &h, &info);
	ok(ret && errno == EPROTO, "header and ring info disagree: EPROTO");
	info = ft.info;
	h.data_size = 16;
	info.data_size = 16;
	ret = rc_check_tx_hdr(rc, &h, &info);
	ok(ret && errno == EPROTO, "a 16-byte area holds no frame: EPROTO");
	h = *ft.hdr;
	info = ft.info;
	h.frame_max = 13;
	ret = rc_check_tx_hdr(rc, &h, &info);
	ok(ret && errno == EPROTO && strstr(rcap_errmsg(rc), "at most 13 bytes"),
	   "frame_max 13: EPROTO (%s)", rcap_errmsg(rc));
	h = *ft.hdr;
	h.producer = SIZE + 8;
	ret = rc_check_tx_hdr(rc, &h, &info);
	ok(ret && errno == EPROTO && strstr(rcap_errmsg(rc), "positions"),
	   "producer more than a ring ahead of completion: EPROTO (%s)",
	   rcap_errmsg(rc));
	h.producer = 4;
	ret = rc_check_tx_hdr(rc, &h, &info);
	ok(ret && errno == EPROTO, "unaligned producer: EPROTO");
	fake_tx_free(&ft);
}

static void unmapped(void)
{
	struct ringcap rc = { .fd = -1 };
	int ret;

	errno = 0;
	ret = rcap_tx_put(&rc, frame(60, 0), 60);
	ok(ret == -1 && errno == ENXIO &&
	   strstr(rcap_errmsg(&rc), "rcap_set_tx_ring() before bind"),
	   "put without a transmit ring: ENXIO (%s)", rcap_errmsg(&rc));
	errno = 0;
	ok(rcap_tx_flush(&rc) == -1 && errno == ENXIO,
	   "flush without a transmit ring: ENXIO");
	errno = 0;
	ok(rcap_tx_wait(&rc, 0) == -1 && errno == ENXIO,
	   "wait without a transmit ring: ENXIO");
	ok(!rcap_tx_frame_max(&rc) && !rcap_tx_hdr(&rc),
	   "no transmit ring: frame_max 0, no header");
}

static void layout(void)
{
	const struct ringcap_tx_rec *rec;
	struct fake_tx ft;
	struct seen seen;
	int ret, good;

	tx_init(&ft, SIZE, 0, FRAME_MAX, &seen);
	seen.first_seq = 1;
	ok(rcap_tx_frame_max(ft.rc) == FRAME_MAX &&
	   rcap_tx_hdr(ft.rc) == ft.hdr,
	   "frame_max is the device's, the header is the mapped one");
	ret = rcap_tx_put(ft.rc, frame(60, 1), 60);
	rec = (const struct ringcap_tx_rec *)ft.data;
	ok(!ret && rec->rec_len == 80 && rec->flags == 0 && rec->__pad == 0 &&
	   rec->len == 60 && rec->__reserved == 0 &&
	   !memcmp(rec + 1, frame(60, 1), 60),
	   "a 60-byte frame: record of 80 bytes at offset 0, flags 0, len 60, the bytes after it");
	ret = rcap_tx_put(ft.rc, frame(14, 2), 14);
	rec = (const struct ringcap_tx_rec *)(ft.data + 80);
	ok(!ret && rec->rec_len == 32 && rec->len == 14 &&
	   !memcmp(rec + 1, frame(14, 2), 14),
	   "a 14-byte frame right after it: 32 bytes (16 + 14, rounded to 8)");
	ret = rcap_tx_put(ft.rc, frame(FRAME_MAX, 3), FRAME_MAX);
	rec = (const struct ringcap_tx_rec *)(ft.data + 112);
	ok(!ret && rec->rec_len == 1536 && rec->len == FRAME_MAX,
	   "a frame_max frame (1518): 1536 bytes");
	ok(ft.hdr->producer == 0 && ft.kicks == 0,
	   "nothing is published or kicked before a flush");
	ret = rcap_tx_flush(ft.rc);
	ok(ret == 0 && ft.hdr->producer == 1648 && ft.kicks == 1 &&
	   ft.hdr->completion == 1648 && seen.n == 3 && !seen.bad,
	   "flush: producer 1648 published, one kick, 3 frames sent intact, completion read: 0 (ret %d)",
	   ret);
	ok(rcap_tx_flush(ft.rc) == 0 && ft.kicks == 1,
	   "flush with nothing outstanding: 0, and no system call");
	good = !rcap_tx_put(ft.rc, frame(100, 4), 100) &&
	       rcap_tx_flush(ft.rc) == 0 && ft.kicks == 2 && seen.n == 4;
	ok(good && !seen.bad && fake_tx_guard_ok(&ft),
	   "the next frame follows; nothing written past the area");
	tx_free(&ft);
}

static void lengths(void)
{
	struct fake_tx ft;
	int ret;

	tx_init(&ft, SIZE, 0, FRAME_MAX, NULL);
	errno = 0;
	ret = rcap_tx_put(ft.rc, frame(13, 0), 13);
	ok(ret == -1 && errno == EMSGSIZE &&
	   !strcmp(rcap_errmsg(ft.rc),
		   "cannot send a frame of 13 bytes: the transmit ring takes 14 to 1518 (the device's MTU plus an Ethernet and a VLAN header)"),
	   "13 bytes: EMSGSIZE (%s)", rcap_errmsg(ft.rc));
	errno = 0;
	ret = rcap_tx_put(ft.rc, frame(FRAME_MAX + 1, 0), FRAME_MAX + 1);
	ok(ret == -1 && errno == EMSGSIZE &&
	   strstr(rcap_errmsg(ft.rc), "frame of 1519 bytes"),
	   "frame_max + 1 bytes: EMSGSIZE (%s)", rcap_errmsg(ft.rc));
	ok(rcap_tx_put(ft.rc, frame(0, 0), 0) == -1 && errno == EMSGSIZE &&
	   rcap_tx_put(ft.rc, frame(0, 0), UINT32_MAX) == -1 &&
	   errno == EMSGSIZE, "0 and 2^32-1 bytes: EMSGSIZE");
	ok(ft.rc->tx_prod == 0, "refused frames take no room");

	/* A kick renews frame_max from the MTU it finds (the MTU changed). */
	ft.hdr->frame_max = 2000;
	ok(rcap_tx_frame_max(ft.rc) == 2000 &&
	   rcap_tx_put(ft.rc, frame(1600, 0), 1600) == 0,
	   "a kick's frame_max of 2000 (MTU raised): frame_max 2000, 1600 bytes taken");
	ft.hdr->frame_max = 1000;
	errno = 0;
	ret = rcap_tx_put(ft.rc, frame(1001, 0), 1001);
	ok(rcap_tx_frame_max(ft.rc) == 1000 && ret == -1 &&
	   errno == EMSGSIZE && strstr(rcap_errmsg(ft.rc), "takes 14 to 1000"),
	   "a kick's frame_max of 1000 (MTU lowered): 1001 bytes EMSGSIZE (%s)",
	   rcap_errmsg(ft.rc));
	ft.hdr->frame_max = 5;
	ok(rcap_tx_frame_max(ft.rc) == FRAME_MAX,
	   "a frame_max below an Ethernet header (a stray write): the mapped %u",
	   FRAME_MAX);
	ft.hdr->frame_max = FRAME_MAX;
	tx_free(&ft);

	/* A device that takes more than the ring holds in one record. */
	tx_init(&ft, SIZE, 0, 65554, NULL);
	ok(rcap_tx_frame_max(ft.rc) == SIZE - REC,
	   "lo's 65554-byte frames in a 4 KiB ring: frame_max %u, what a record holds",
	   rcap_tx_frame_max(ft.rc));
	errno = 0;
	ret = rcap_tx_put(ft.rc, frame(SIZE - REC + 1, 0), SIZE - REC + 1);
	ok(ret == -1 && errno == EMSGSIZE &&
	   strstr(rcap_errmsg(ft.rc), "what one record of the ring holds"),
	   "one more byte: EMSGSIZE naming the ring (%s)",
	   rcap_errmsg(ft.rc));
	ret = rcap_tx_put(ft.rc, frame(SIZE - REC, 0), SIZE - REC);
	ok(!ret && ft.rc->tx_prod == SIZE && rcap_tx_flush(ft.rc) == 0 &&
	   ft.sent == 1 && fake_tx_guard_ok(&ft),
	   "a frame that fills the whole ring is put and sent");
	tx_free(&ft);
}

/* A pad of tail bytes at the end of the area, then the frame at 0. */
static void pad(uint32_t tail)
{
	uint64_t start = 3 * (uint64_t)SIZE - tail;
	const struct ringcap_tx_rec *rec;
	struct fake_tx ft;
	struct seen seen;
	int ret;

	tx_init(&ft, SIZE, start, FRAME_MAX, &seen);
	seen.first_seq = 7;
	ret = rcap_tx_put(ft.rc, frame(60, 7), 60);
	rec = (const struct ringcap_tx_rec *)(ft.data + SIZE - tail);
	ok(!ret && rec->rec_len == tail && (rec->flags & RINGCAP_TX_PAD),
	   "%u bytes before the end: a pad record of rec_len %u, RINGCAP_TX_PAD",
	   tail, tail);
	rec = (const struct ringcap_tx_rec *)ft.data;
	ok(rec->rec_len == 80 && rec->len == 60 && !rec->flags &&
	   !memcmp(rec + 1, frame(60, 7), 60) && fake_tx_guard_ok(&ft),
	   "... the frame at offset 0, nothing written past the area");
	ret = rcap_tx_flush(ft.rc);
	ok(!ret && ft.hdr->producer == start + tail + 80 && ft.pads == 1 &&
	   seen.n == 1 && !seen.bad && ft.hdr->completion == start + tail + 80,
	   "... the kernel skips the pad and sends the frame; completion past both");
	tx_free(&ft);
}

static void full(void)
{
	struct fake_tx ft;
	struct seen seen;
	int n = 0, ret;

	/* 1000-byte frames take 1016: four fit in 4096, not five. */
	tx_init(&ft, SIZE, 0, FRAME_MAX, &seen);
	while (!rcap_tx_put(ft.rc, frame(1000, n), 1000))
		n++;
	ok(n == 4 && errno == EAGAIN &&
	   strstr(rcap_errmsg(ft.rc), "transmit ring is full"),
	   "four 1000-byte frames fill 4 KiB; the fifth: EAGAIN (%s)",
	   rcap_errmsg(ft.rc));
	ok(ft.hdr->producer == 0, "... and nothing was published");
	ret = rcap_tx_flush(ft.rc);
	ok(!ret && seen.n == 4 && !seen.bad, "flush sends the four");
	ok(!rcap_tx_put(ft.rc, frame(1000, 4), 1000),
	   "room again: completion is read when the ring looks full");

	/*
	 * A flush that the full device stops, then a kick of the caller's
	 * own (poll() for POLLOUT) that sends everything: put sees it.
	 */
	while (!rcap_tx_put(ft.rc, frame(1000, 5), 1000))
		;
	ft.budget = 0;
	ret = rcap_tx_flush(ft.rc);
	ft.budget = -1;
	fake_tx_kick(&ft);
	ok(ret == 1 && !rcap_tx_put(ft.rc, frame(1000, 9), 1000),
	   "a completion moved by another kick (poll()) is seen by put");
	tx_free(&ft);

	/*
	 * A frame longer than the space before the write position: pad and
	 * frame together are more than the ring, empty or not. The pad goes
	 * in, EAGAIN, and once the kernel has passed it the frame fits.
	 */
	tx_init(&ft, SIZE, SIZE / 2, 65554, &seen);
	errno = 0;
	ret = rcap_tx_put(ft.rc, frame(3000, 0), 3000);
	ok(ret == -1 && errno == EAGAIN && ft.rc->tx_prod == SIZE,
	   "3000 bytes at the middle of an empty 4 KiB ring: the pad is written, EAGAIN");
	ok(rcap_tx_flush(ft.rc) == 0 && ft.pads == 1 && !seen.n,
	   "... flush: the kernel passes the pad");
	ok(!rcap_tx_put(ft.rc, frame(3000, 0), 3000) &&
	   rcap_tx_flush(ft.rc) == 0 && seen.n == 1 && !seen.bad,
	   "... then the frame goes in at offset 0 and is sent");
	tx_free(&ft);
}

/*
 * Many frames of varying size through a small ring with a device that
 * takes varying numbers per kick: the area wraps hundreds of times, and
 * with start near 2^64 the positions wrap too.
 */
static void wrap(uint64_t start, const char *what)
{
	uint32_t lens[1024], seq = 0, len, fulls = 0;
	struct fake_tx ft;
	struct seen seen;
	int ret, bad = 0;

	tx_init(&ft, SIZE, start, FRAME_MAX, &seen);
	seen.lens = lens;
	while (seq < 20000 && !bad) {
		len = 14 + (seq * 37) % 1400;
		ret = rcap_tx_put(ft.rc, frame(len, seq), len);
		if (!ret) {
			lens[seq++ % 1024] = len;
			if (seq % 5 == 0 && rcap_tx_flush(ft.rc) < 0)
				bad = 1;
			continue;
		}
		if (errno != EAGAIN)
			bad = 1;
		/* 0: the device's queue is full this time. */
		ft.budget = fulls++ % 4;
		if (rcap_tx_flush(ft.rc) < 0)
			bad = 1;
		ft.budget = -1;
	}
	while ((ret = rcap_tx_flush(ft.rc)) == 1)
		;
	ok(!bad && !ret && seen.n == 20000 && !seen.bad && ft.pads > 100 &&
	   !ft.bad && fake_tx_guard_ok(&ft),
	   "%s: %u frames sent in order and intact across %lu pads, %lu kicks",
	   what, seen.n, ft.pads, ft.kicks);
	tx_free(&ft);
}

int main(void)
{
	hdr_checks();
	unmapped();
	layout();
	lengths();
	pad(40);
	pad(8);
	pad(16);
	full();
	wrap(0, "positions from 0");
	wrap((uint64_t)-5 * SIZE - 40, "positions across 2^64");
	return tap_done();
}
