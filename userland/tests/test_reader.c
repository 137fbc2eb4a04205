// SPDX-License-Identifier: GPL-2.0
/*
 * The library's reader against rings in ordinary memory: header checks,
 * batches, release, pad records, wrap-around of the area and of the 64-bit
 * positions, refusal of every kind of corrupt record, and zero-copy
 * records resolved into (and bounded by) the buffer area, and gap records.
 */
#include <errno.h>
#include <string.h>
#include "fake_ring.h"
#include "tap.h"

#define SIZE	4096
#define HDR	sizeof(struct ringcap_rec)

static void hdr_checks(void)
{
	struct ringcap_ring_info info;
	struct ringcap_ring_hdr h;
	struct fake_ring fr;
	struct ringcap *rc;
	int ret;

	fake_ring_init(&fr, SIZE, 0);
	rc = fr.rc;
	info = fr.info;
	h = *fr.hdr;
	ok(!rc_check_hdr(rc, &h, &info), "a good header is accepted");

	/* Each check runs before ok(): argument order is unspecified. */
	h.magic = 0x12345678;
	errno = 0;
	ret = rc_check_hdr(rc, &h, &info);
	ok(ret && errno == EPROTO &&
	   strstr(rcap_errmsg(rc), "magic"),
	   "bad magic: EPROTO (%s)", rcap_errmsg(rc));
	h = *fr.hdr;
	h.abi_version = RINGCAP_ABI_VERSION + 1;
	errno = 0;
	ret = rc_check_hdr(rc, &h, &info);
	ok(ret && errno == EPROTO &&
	   strstr(rcap_errmsg(rc), "ABI version 2") &&
	   strstr(rcap_errmsg(rc), "ABI version 1"),
	   "ABI mismatch: EPROTO naming both versions (%s)",
	   rcap_errmsg(rc));
	h = *fr.hdr;
	h.rec_hdr_len = HDR + 8;
	ret = rc_check_hdr(rc, &h, &info);
	ok(ret && errno == EPROTO,
	   "other record header size: EPROTO (%s)", rcap_errmsg(rc));
	h = *fr.hdr;
	h.data_size = SIZE - 8;
	info.data_size = SIZE - 8;
	ret = rc_check_hdr(rc, &h, &info);
	ok(ret && errno == EPROTO,
	   "data size not a power of two: EPROTO (%s)", rcap_errmsg(rc));
	h = *fr.hdr;
	info = fr.info;
	info.mmap_size = SIZE;
	ret = rc_check_hdr(rc, &h, &info);
	ok(ret && errno == EPROTO,
	   "data area beyond the mapping: EPROTO (%s)", rcap_errmsg(rc));
	info = fr.info;
	info.data_size = SIZE * 2;
	ok(rc_check_hdr(rc, &h, &info) && errno == EPROTO,
	   "header and ring info disagree: EPROTO");
	fake_ring_free(&fr);
}

static void batches(void)
{
	struct ringcap_pkt pkts[8];
	struct fake_ring fr;
	int n, i, good;

	fake_ring_init(&fr, SIZE, 0);
	ok(rcap_recv_batch(fr.rc, pkts, 8) == 0, "empty ring: 0 frames");

	fake_ring_put(&fr, 60, 1);
	fake_ring_put(&fr, 0, 2);
	fake_ring_put(&fr, 1514, 3);
	n = rcap_recv_batch(fr.rc, pkts, 8);
	ok(n == 3 && fake_frame_ok(&pkts[0], 60, 1) &&
	   fake_frame_ok(&pkts[1], 0, 2) && fake_frame_ok(&pkts[2], 1514, 3),
	   "three frames (60, 0, 1514 bytes) read in order, intact");
	ok(pkts[0].rec->rec_len == 104,
	   "a 60-byte frame takes 104 bytes of ring (<= 128)");
	ok(rcap_recv_batch(fr.rc, pkts, 8) == 0,
	   "the next batch continues after them: 0 frames");
	ok(fr.hdr->consumer == 0, "consumer unchanged before release");
	rcap_release(fr.rc);
	ok(fr.hdr->consumer == fr.prod, "release publishes the read position");

	for (i = 0; i < 5; i++)
		fake_ring_put(&fr, 100, 10 + i);
	good = rcap_recv_batch(fr.rc, pkts, 2) == 2 &&
	       fake_frame_ok(&pkts[1], 100, 11);
	good &= rcap_recv_batch(fr.rc, pkts, 2) == 2 &&
		fake_frame_ok(&pkts[0], 100, 12);
	good &= rcap_recv_batch(fr.rc, pkts, 2) == 1 &&
		fake_frame_ok(&pkts[0], 100, 14);
	ok(good, "max bounds a batch; later batches pick up where it stopped");
	ok(rcap_recv_batch(fr.rc, pkts, 0) == 0, "max 0: 0 frames");
	rcap_release(fr.rc);
	fake_ring_free(&fr);
}

/* Start 8 bytes before the end of the area: the pad is a bare 8 bytes. */
static void short_pad(void)
{
	struct ringcap_pkt pkts[4];
	struct fake_ring fr;
	int n;

	fake_ring_init(&fr, SIZE, 3 * SIZE - 8);
	fake_ring_put(&fr, 64, 7);
	n = rcap_recv_batch(fr.rc, pkts, 4);
	ok(fr.pads == 1 && n == 1 && fake_frame_ok(&pkts[0], 64, 7) &&
	   (const uint8_t *)pkts[0].rec == fr.data,
	   "an 8-byte pad at the end of the area is skipped; frame at 0");
	rcap_release(fr.rc);
	ok(fr.hdr->consumer == 3 * SIZE + 104,
	   "consumer moves past the pad and the frame");
	fake_ring_free(&fr);
}

/*
 * Many frames of varying size through a small ring, read in varying
 * batches: the area wraps hundreds of times, and with start near 2^64
 * the positions wrap too.
 */
static void wrap(uint64_t start, const char *what)
{
	uint32_t seq_w = 0, seq_r = 0, caplen_of[1024];
	struct ringcap_pkt pkts[16];
	struct fake_ring fr;
	int n, i, bad = 0;
	uint32_t len;

	fake_ring_init(&fr, SIZE, start);
	while (seq_r < 20000 && !bad) {
		/* Fill until full, with sizes that leave odd tails. */
		for (;;) {
			len = (seq_w * 37) % 700;
			if (fake_ring_put(&fr, len, seq_w))
				break;
			caplen_of[seq_w++ % 1024] = len;
		}
		n = rcap_recv_batch(fr.rc, pkts, 1 + seq_r % 16);
		if (n <= 0)
			bad = 1;
		for (i = 0; i < n; i++, seq_r++)
			if (!fake_frame_ok(&pkts[i], caplen_of[seq_r % 1024],
					   seq_r))
				bad = 1;
		rcap_release(fr.rc);
	}
	ok(!bad && fr.pads > 100,
	   "%s: %u frames in order and intact across %lu pads", what, seq_r,
	   fr.pads);
	fake_ring_free(&fr);
}

/* Overwrite one field of the first record and expect EIO. */
static void corrupt_one(const char *what, uint32_t rec_len, uint16_t flags,
			uint32_t caplen)
{
	struct ringcap_pkt pkts[4];
	struct ringcap_rec *rec;
	struct fake_ring fr;
	int ret;

	fake_ring_init(&fr, SIZE, 0);
	fake_ring_put(&fr, 200, 1);
	fake_ring_put(&fr, 200, 2);
	rec = (struct ringcap_rec *)fr.data;
	rec->rec_len = rec_len;
	rec->flags = flags;
	rec->caplen = caplen;
	errno = 0;
	ret = rcap_recv_batch(fr.rc, pkts, 4);
	ok(ret == -1 && errno == EIO &&
	   strstr(rcap_errmsg(fr.rc), "corrupt"),
	   "%s: EIO (%s)", what, rcap_errmsg(fr.rc));
	fake_ring_free(&fr);
}

static void corruption(void)
{
	struct ringcap_pkt pkts[4];
	struct ringcap_rec *rec;
	struct fake_ring fr;
	int ret;

	corrupt_one("rec_len 0", 0, 0, 0);
	corrupt_one("rec_len not a multiple of 8", 244, 0, 200);
	corrupt_one("rec_len shorter than a record header", 16, 0, 0);
	corrupt_one("rec_len past the producer", 488, 0, 200);
	corrupt_one("rec_len across the end of the area", SIZE + 8, 0, 200);
	corrupt_one("caplen larger than the record", 248, 0, 209);
	corrupt_one("pad that stops short of the end", 248, RINGCAP_REC_PAD, 0);

	fake_ring_init(&fr, SIZE, 0);
	fake_ring_put(&fr, 100, 1);
	fr.hdr->producer = (uint64_t)-8;
	ret = rcap_recv_batch(fr.rc, pkts, 4);
	ok(ret == -1 && errno == EIO,
	   "producer behind the read position: EIO (%s)",
	   rcap_errmsg(fr.rc));
	fr.hdr->producer = SIZE + 8;
	ok(rcap_recv_batch(fr.rc, pkts, 4) == -1 && errno == EIO,
	   "producer more than a ring ahead: EIO");
	fr.hdr->producer = 4;
	ok(rcap_recv_batch(fr.rc, pkts, 4) == -1 && errno == EIO,
	   "unaligned producer: EIO");
	fake_ring_free(&fr);

	/* Good frames before a bad one are delivered first. */
	fake_ring_init(&fr, SIZE, 0);
	fake_ring_put(&fr, 100, 1);
	fake_ring_put(&fr, 100, 2);
	fake_ring_put(&fr, 100, 3);
	rec = (struct ringcap_rec *)(fr.data + 2 * 144);
	rec->caplen = 5000;
	ret = rcap_recv_batch(fr.rc, pkts, 4);
	ok(ret == 2 && fake_frame_ok(&pkts[1], 100, 2),
	   "frames before a corrupt record are returned (%d)", ret);
	rcap_release(fr.rc);
	ok(rcap_recv_batch(fr.rc, pkts, 4) == -1 && errno == EIO &&
	   fr.hdr->consumer == 2 * 144,
	   "then EIO, and the consumer stops at the corrupt record");
	fake_ring_free(&fr);
}

/* The zero-copy part of the header, as rcap_map() checks it. */
static void zc_hdr_checks(void)
{
	struct ringcap_ring_info info;
	struct ringcap_ring_hdr h;
	struct fake_ring fr;
	struct ringcap *rc;
	int ret;

	fake_ring_init(&fr, SIZE, 0);
	fake_ring_zc(&fr, 256, 2048);
	rc = fr.rc;
	info = fr.info;
	h = *fr.hdr;
	ok(!rc_check_hdr(rc, &h, &info),
	   "zero-copy header: 256 buffers of 2048 bytes accepted");
	h.zc_nr_bufs = 255;
	errno = 0;
	ret = rc_check_hdr(rc, &h, &info);
	ok(ret && errno == EPROTO &&
	   strstr(rcap_errmsg(rc), "inconsistent zero-copy geometry"),
	   "zero-copy: buffers that do not add up to zc_mmap_size: EPROTO (%s)",
	   rcap_errmsg(rc));
	h = *fr.hdr;
	h.zc_buf_size = 0;
	h.zc_nr_bufs = 0;
	ok(rc_check_hdr(rc, &h, &info) && errno == EPROTO,
	   "zero-copy: zc_mmap_size without buffers: EPROTO");
	h = *fr.hdr;
	h.zc_mmap_offset += 8;
	ok(rc_check_hdr(rc, &h, &info) && errno == EPROTO,
	   "zero-copy: zc_mmap_offset not page-aligned: EPROTO");
	h = *fr.hdr;
	h.zc_mmap_offset = 0;
	ok(rc_check_hdr(rc, &h, &info) && errno == EPROTO,
	   "zero-copy: buffers mapped over the ring: EPROTO");
	h = *fr.hdr;
	h.zc_mmap_offset = (uint64_t)-4096;
	ok(rc_check_hdr(rc, &h, &info) && errno == EPROTO,
	   "zero-copy: zc_mmap_offset + size past what mmap() takes: EPROTO");
	fake_ring_free(&fr);
}

static void zc_watermark(void)
{
	ok(rc_zc_watermark(672, 256) == 64 && rc_zc_watermark(65, 256) == 64,
	   "zero-copy watermark: above a quarter of 256 buffers -> 64");
	ok(rc_zc_watermark(64, 256) == 64 && rc_zc_watermark(1, 256) == 1 &&
	   rc_zc_watermark(16, 4096) == 16,
	   "zero-copy watermark: at or below a quarter it stands");
	ok(rc_zc_watermark(5, 3) == 1 && rc_zc_watermark(1, 1) == 1,
	   "zero-copy watermark: never below 1");
}

/* Records that point into the buffers, mixed with copy-mode ones. */
static void zc_records(void)
{
	struct ringcap_pkt pkts[8];
	struct fake_ring fr;
	int n;

	fake_ring_init(&fr, SIZE, 0);
	fake_ring_zc(&fr, 4, 2048);
	fake_ring_put_zc(&fr, 2048, 60, 1);
	fake_ring_put_zc(&fr, 0, 1514, 2);
	fake_ring_put(&fr, 100, 3);
	fake_ring_put_zc(&fr, 3 * 2048, 2048, 4);	/* to the last byte */
	n = rcap_recv_batch(fr.rc, pkts, 8);
	ok(n == 4 && fake_zc_frame_ok(&fr, &pkts[0], 2048, 60, 1) &&
	   fake_zc_frame_ok(&fr, &pkts[1], 0, 1514, 2) &&
	   fake_frame_ok(&pkts[2], 100, 3) &&
	   fake_zc_frame_ok(&fr, &pkts[3], 3 * 2048, 2048, 4),
	   "zero-copy: data is bufs + zc_offset, intact; a copy-mode record between them is rec + 1 (%d)",
	   n);
	ok(pkts[0].rec->rec_len == 40 && pkts[1].rec->rec_len == 40,
	   "zero-copy: a record is a bare 40-byte header, whatever the frame");
	rcap_release(fr.rc);
	ok(fr.hdr->consumer == fr.prod,
	   "zero-copy: release hands the records (and their buffers) back");
	fake_ring_free(&fr);
}

/* A zero-copy record whose frame is not inside the buffers: EIO. */
static void zc_corrupt_one(const char *what, uint32_t zc_offset,
			   uint32_t caplen, int attach)
{
	struct ringcap_pkt pkts[4];
	struct fake_ring fr;
	int ret;

	fake_ring_init(&fr, SIZE, 0);
	fake_ring_zc(&fr, 4, 2048);
	if (!attach)
		rc_attach_zc(fr.rc, NULL, 0);
	fake_ring_put_zc(&fr, zc_offset, caplen, 1);
	errno = 0;
	ret = rcap_recv_batch(fr.rc, pkts, 4);
	ok(ret == -1 && errno == EIO &&
	   strstr(rcap_errmsg(fr.rc), "corrupt ring at offset 0"),
	   "%s: EIO (%s)", what, rcap_errmsg(fr.rc));
	ok(fr.rc->cursor == 0, "... and the read position stays before it");
	fake_ring_free(&fr);
}

static void zc_corruption(void)
{
	struct ringcap_pkt pkts[4];
	struct ringcap_rec *rec;
	struct fake_ring fr;
	int ret;

	zc_corrupt_one("zero-copy: zc_offset + caplen one past the buffers",
		       3 * 2048 + 1, 2048, 1);
	zc_corrupt_one("zero-copy: zc_offset past the buffers", 8192, 1, 1);
	/* 32-bit sums would wrap to 59 and pass. */
	zc_corrupt_one("zero-copy: zc_offset + caplen that wraps 2^32",
		       UINT32_MAX - 4, 64, 1);
	zc_corrupt_one("zero-copy: a record with no buffers mapped", 0, 60, 0);
	fake_ring_init(&fr, SIZE, 0);
	fake_ring_zc(&fr, 4, 2048);
	fake_ring_put_zc(&fr, 8192, 0, 1);
	ret = rcap_recv_batch(fr.rc, pkts, 4);
	ok(ret == 1 && pkts[0].data == fr.zc + 8192,
	   "zero-copy: an empty frame right at the end is in bounds (%d)", ret);
	fake_ring_free(&fr);

	/* As for copy-mode records: the good ones first, then EIO. */
	fake_ring_init(&fr, SIZE, 0);
	fake_ring_zc(&fr, 4, 2048);
	fake_ring_put_zc(&fr, 0, 60, 1);
	fake_ring_put_zc(&fr, 2048, 60, 2);
	fake_ring_put_zc(&fr, 4096, 60, 3);
	rec = (struct ringcap_rec *)(fr.data + 2 * 40);
	rec->zc_offset = 8190;
	ret = rcap_recv_batch(fr.rc, pkts, 4);
	ok(ret == 2 && fake_zc_frame_ok(&fr, &pkts[1], 2048, 60, 2),
	   "zero-copy: frames before a corrupt record are returned (%d)", ret);
	rcap_release(fr.rc);
	errno = 0;
	ret = rcap_recv_batch(fr.rc, pkts, 4);
	ok(ret == -1 && errno == EIO && fr.hdr->consumer == 2 * 40 &&
	   strstr(rcap_errmsg(fr.rc),
		  "zc_offset 8190 caplen 60: frame beyond the 8192 bytes of zero-copy buffers"),
	   "zero-copy: then EIO naming zc_offset and the buffers' size (%s)",
	   rcap_errmsg(fr.rc));
	fake_ring_free(&fr);
}

/* A gap record as the kernel writes one, @caplen bytes of counts. */
static void put_gap(struct fake_ring *fr, uint32_t caplen, uint64_t base)
{
	struct ringcap_rec *rec = fake_ring_reserve(fr, caplen);
	uint64_t *c = (uint64_t *)(rec + 1);
	uint32_t i;

	rec->flags = RINGCAP_REC_GAP;
	for (i = 0; i < caplen / 8; i++)
		c[i] = base + i;
	fake_ring_commit(fr, rec);
}

static void gaps(void)
{
	struct ringcap_pkt pkts[8];
	struct ringcap_gap g;
	struct fake_ring fr;
	int n, ret;

	fake_ring_init(&fr, SIZE, 0);
	fake_ring_put(&fr, 60, 1);
	put_gap(&fr, sizeof(g), 10);
	fake_ring_put(&fr, 60, 2);
	/* A later kernel's longer record: the known fields only. */
	put_gap(&fr, sizeof(g) + 16, 20);
	n = rcap_recv_batch(fr.rc, pkts, 8);
	ok(n == 4, "frame, gap, frame, gap: 4 records in order (%d)", n);
	ok(!rcap_gap(&pkts[0], &g) && fake_frame_ok(&pkts[0], 60, 1) &&
	   !rcap_gap(&pkts[2], &g) && fake_frame_ok(&pkts[2], 60, 2),
	   "a frame is no gap");
	ok(rcap_gap(&pkts[1], &g) && g.ring_full == 10 &&
	   g.cluster_full == 11 && g.nic == 12,
	   "a gap record's counts, by reason");
	ok(rcap_gap(&pkts[3], &g) && g.ring_full == 20 && g.nic == 22,
	   "a longer gap record: its first fields");
	rcap_release(fr.rc);

	/* An older, shorter record is refused below the first size. */
	put_gap(&fr, RINGCAP_GAP_SIZE_V1 - 8, 0);
	errno = 0;
	ret = rcap_recv_batch(fr.rc, pkts, 8);
	ok(ret == -1 && errno == EIO && strstr(rcap_errmsg(fr.rc), "gap"),
	   "a gap record shorter than its first size: EIO (%s)",
	   rcap_errmsg(fr.rc));
	fake_ring_free(&fr);
}

/* Giving back part of a batch, also where positions and the area wrap. */
static void release_before(uint64_t start, const char *what)
{
	struct ringcap_pkt pkts[8];
	struct fake_ring fr;
	uint64_t first;
	int n, i;

	fake_ring_init(&fr, SIZE, start);
	for (i = 0; i < 20; i++) {
		fake_ring_put(&fr, 200, i);
		rcap_recv_batch(fr.rc, pkts, 8);
		rcap_release(fr.rc);
	}
	first = fr.hdr->consumer;
	for (i = 0; i < 6; i++)
		fake_ring_put(&fr, 200, 100 + i);
	n = rcap_recv_batch(fr.rc, pkts, 8);
	rcap_release_before(fr.rc, &pkts[0]);
	ok(n == 6 && fr.hdr->consumer == first,
	   "%s: before the first frame gives nothing back", what);
	rcap_release_before(fr.rc, &pkts[3]);
	ok(fr.hdr->consumer == first + 3 * (HDR + 200) ||
	   (fr.hdr->consumer > first && fr.hdr->consumer <= first + 4 * (HDR + 200) &&
	    (fr.hdr->consumer & (SIZE - 1)) ==
	    (uint64_t)((const uint8_t *)pkts[3].rec - fr.data)),
	   "%s: before the fourth gives back three (and any pad): %llu -> %llu",
	   what, (unsigned long long)first,
	   (unsigned long long)fr.hdr->consumer);
	rcap_release_before(fr.rc, &pkts[1]);
	ok((fr.hdr->consumer & (SIZE - 1)) ==
	   (uint64_t)((const uint8_t *)pkts[3].rec - fr.data),
	   "%s: an earlier frame given back already moves nothing back", what);
	rcap_release(fr.rc);
	ok(fr.hdr->consumer == fr.hdr->producer,
	   "%s: rcap_release() gives back the rest", what);
	fake_ring_free(&fr);
}

static void unmapped(void)
{
	struct ringcap rc = { .fd = -1 };
	struct ringcap_pkt pkt;

	errno = 0;
	ok(rcap_recv_batch(&rc, &pkt, 1) == -1 && errno == EINVAL,
	   "recv_batch before map: EINVAL");
	rcap_release(&rc);
	ok(!rcap_hdr(&rc), "release before map is harmless; no header");
}

int main(void)
{
	hdr_checks();
	batches();
	short_pad();
	wrap(0, "positions from 0");
	wrap((uint64_t)-5 * SIZE - 40, "positions across 2^64");
	corruption();
	zc_hdr_checks();
	zc_watermark();
	zc_records();
	zc_corruption();
	gaps();
	release_before(0, "positions from 0");
	release_before((uint64_t)-3 * SIZE, "positions across 2^64");
	unmapped();
	return tap_done();
}
