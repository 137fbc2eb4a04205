// SPDX-License-Identifier: GPL-2.0
/*
 * The in-memory rings: a receive ring and its producer, a transmit ring
 * and its consumer; see fake_ring.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fake_ring.h"

#define FAKE_HDR_BYTES	4096
#define FAKE_GUARD	64
#define FAKE_GUARD_BYTE	0xa5

void fake_ring_init(struct fake_ring *fr, uint32_t data_size, uint64_t start)
{
	void *map;

	memset(fr, 0, sizeof(*fr));
	if (posix_memalign(&map, FAKE_HDR_BYTES, FAKE_HDR_BYTES + data_size))
		abort();
	memset(map, 0, FAKE_HDR_BYTES + data_size);
	fr->hdr = map;
	fr->hdr->magic = RINGCAP_MAGIC;
	fr->hdr->abi_version = RINGCAP_ABI_VERSION;
	fr->hdr->rec_hdr_len = sizeof(struct ringcap_rec);
	fr->hdr->data_offset = FAKE_HDR_BYTES;
	fr->hdr->data_size = data_size;
	fr->hdr->snaplen = RINGCAP_SNAPLEN_MAX;
	fr->hdr->producer = start;
	fr->hdr->consumer = start;
	fr->info.mmap_size = FAKE_HDR_BYTES + data_size;
	fr->info.data_offset = FAKE_HDR_BYTES;
	fr->info.data_size = data_size;
	fr->data = (uint8_t *)map + FAKE_HDR_BYTES;
	fr->prod = start;

	fr->rc = calloc(1, sizeof(*fr->rc));
	if (!fr->rc)
		abort();
	fr->rc->fd = -1;
	rc_attach_ring(fr->rc, fr->hdr, &fr->info);
}

void fake_ring_free(struct fake_ring *fr)
{
	/* Not mapped and no socket: rcap_close() only frees the handle. */
	rcap_close(fr->rc);
	free(fr->zc);
	free(fr->hdr);
	memset(fr, 0, sizeof(*fr));
}

struct ringcap_rec *fake_ring_reserve(struct fake_ring *fr, uint32_t caplen)
{
	uint32_t size = fr->hdr->data_size;
	uint32_t len = (sizeof(struct ringcap_rec) + caplen +
			RINGCAP_REC_ALIGN - 1) & ~(RINGCAP_REC_ALIGN - 1);
	uint32_t off = fr->prod & (size - 1);
	uint32_t tail = size - off;
	uint32_t need = len <= tail ? len : tail + len;
	struct ringcap_rec *rec;
	uint64_t cons;

	/* Acquire pairs with the reader's release of consumer. */
	cons = __atomic_load_n(&fr->hdr->consumer, __ATOMIC_ACQUIRE);
	if (need > size - (fr->prod - cons))
		return NULL;
	if (len > tail) {
		/* Only rec_len and flags: a pad may be just 8 bytes. */
		rec = (struct ringcap_rec *)(fr->data + off);
		rec->rec_len = tail;
		rec->flags = RINGCAP_REC_PAD;
		fr->prod += tail;
		fr->pads++;
		off = 0;
	}
	rec = (struct ringcap_rec *)(fr->data + off);
	memset(rec, 0, sizeof(*rec));
	rec->rec_len = len;
	rec->caplen = caplen;
	rec->wire_len = caplen;
	return rec;
}

void fake_ring_commit(struct fake_ring *fr, struct ringcap_rec *rec)
{
	fr->prod += rec->rec_len;
	/* Release: the record and any pad are visible before the position. */
	__atomic_store_n(&fr->hdr->producer, fr->prod, __ATOMIC_RELEASE);
}

void fake_ring_zc(struct fake_ring *fr, uint32_t nr_bufs, uint32_t buf_size)
{
	fr->zc_size = (uint64_t)nr_bufs * buf_size;
	fr->zc = calloc(1, fr->zc_size);
	if (!fr->zc)
		abort();
	fr->hdr->zc_buf_size = buf_size;
	fr->hdr->zc_nr_bufs = nr_bufs;
	fr->hdr->zc_mmap_offset = RINGCAP_ZC_MMAP_OFFSET;
	fr->hdr->zc_mmap_size = fr->zc_size;
	rc_attach_zc(fr->rc, fr->zc, fr->zc_size);
}

int fake_ring_put_zc(struct fake_ring *fr, uint32_t zc_offset, uint32_t caplen,
		     uint32_t seq)
{
	/* No frame bytes in the ring: the record is a bare header. */
	struct ringcap_rec *rec = fake_ring_reserve(fr, 0);
	uint32_t i;

	if (!rec)
		return -1;
	rec->flags = RINGCAP_REC_ZC;
	rec->caplen = caplen;
	rec->wire_len = caplen;
	rec->zc_offset = zc_offset;
	rec->tstamp_ns = seq;
	rec->queue = seq & 1;
	if ((uint64_t)zc_offset + caplen <= fr->zc_size)
		for (i = 0; i < caplen; i++)
			fr->zc[zc_offset + i] = (uint8_t)(seq + i);
	fake_ring_commit(fr, rec);
	return 0;
}

int fake_ring_put(struct fake_ring *fr, uint32_t caplen, uint32_t seq)
{
	struct ringcap_rec *rec = fake_ring_reserve(fr, caplen);
	uint8_t *p;
	uint32_t i;

	if (!rec)
		return -1;
	rec->tstamp_ns = seq;
	rec->queue = seq & 1;
	p = (uint8_t *)(rec + 1);
	for (i = 0; i < caplen; i++)
		p[i] = (uint8_t)(seq + i);
	fake_ring_commit(fr, rec);
	return 0;
}

int fake_frame_ok(const struct ringcap_pkt *pkt, uint32_t caplen,
		  uint32_t seq)
{
	uint32_t i;

	if (pkt->rec->caplen != caplen || pkt->rec->tstamp_ns != seq ||
	    pkt->rec->queue != (seq & 1) ||
	    pkt->data != (const uint8_t *)(pkt->rec + 1))
		return 0;
	for (i = 0; i < caplen; i++)
		if (pkt->data[i] != (uint8_t)(seq + i))
			return 0;
	return 1;
}

int fake_zc_frame_ok(const struct fake_ring *fr, const struct ringcap_pkt *pkt,
		     uint32_t zc_offset, uint32_t caplen, uint32_t seq)
{
	uint32_t i;

	if (!(pkt->rec->flags & RINGCAP_REC_ZC) ||
	    pkt->rec->rec_len != sizeof(struct ringcap_rec) ||
	    pkt->rec->caplen != caplen || pkt->rec->tstamp_ns != seq ||
	    pkt->data != fr->zc + zc_offset)
		return 0;
	for (i = 0; i < caplen; i++)
		if (pkt->data[i] != (uint8_t)(seq + i))
			return 0;
	return 1;
}

void fake_tx_init(struct fake_tx *ft, uint32_t data_size, uint64_t start,
		  uint32_t frame_max, struct ringcap *rc)
{
	void *map;

	memset(ft, 0, sizeof(*ft));
	if (posix_memalign(&map, FAKE_HDR_BYTES,
			   FAKE_HDR_BYTES + data_size + FAKE_GUARD))
		abort();
	memset(map, 0, FAKE_HDR_BYTES + data_size);
	memset((uint8_t *)map + FAKE_HDR_BYTES + data_size, FAKE_GUARD_BYTE,
	       FAKE_GUARD);
	ft->hdr = map;
	ft->hdr->magic = RINGCAP_TX_MAGIC;
	ft->hdr->abi_version = RINGCAP_ABI_VERSION;
	ft->hdr->rec_hdr_len = sizeof(struct ringcap_tx_rec);
	ft->hdr->data_offset = FAKE_HDR_BYTES;
	ft->hdr->data_size = data_size;
	ft->hdr->frame_max = frame_max;
	ft->hdr->producer = start;
	ft->hdr->completion = start;
	ft->info.mmap_size = FAKE_HDR_BYTES + data_size;
	ft->info.data_offset = FAKE_HDR_BYTES;
	ft->info.data_size = data_size;
	ft->data = (uint8_t *)map + FAKE_HDR_BYTES;
	ft->done = start;
	ft->budget = -1;
	ft->dev_max = frame_max;

	if (!rc) {
		rc = calloc(1, sizeof(*rc));
		if (!rc)
			abort();
		rc->fd = -1;
		ft->own_rc = 1;
	}
	ft->rc = rc;
	rc_attach_tx(rc, ft->hdr, &ft->info, frame_max);
}

void fake_tx_free(struct fake_tx *ft)
{
	if (ft->own_rc)
		rcap_close(ft->rc);
	else
		ft->rc->tx_hdr = NULL;	/* as if never mapped */
	free(ft->hdr);
	memset(ft, 0, sizeof(*ft));
}

int fake_tx_guard_ok(const struct fake_tx *ft)
{
	const uint8_t *g = ft->data + ft->info.data_size;
	int i;

	for (i = 0; i < FAKE_GUARD; i++)
		if (g[i] != FAKE_GUARD_BYTE)
			return 0;
	return 1;
}

int fake_tx_kick(struct fake_tx *ft)
{
	uint32_t size = ft->info.data_size, off, tail;
	struct ringcap_tx_rec r;
	int took = 0, err = 0;
	uint64_t prod;

	ft->kicks++;
	ft->hdr->frame_max = ft->dev_max;
	/* Acquire pairs with the application's release of producer. */
	prod = __atomic_load_n(&ft->hdr->producer, __ATOMIC_ACQUIRE);
	if (prod % RINGCAP_REC_ALIGN || prod - ft->done > size) {
		ft->bad++;
		err = -EINVAL;
		goto out;
	}
	while (ft->done != prod) {
		off = ft->done & (size - 1);
		tail = size - off;
		/* Once, into our own copy: the application may write. */
		memset(&r, 0, sizeof(r));
		memcpy(&r, ft->data + off, tail < sizeof(r) ? tail : sizeof(r));
		if (r.rec_len < RINGCAP_REC_ALIGN ||
		    r.rec_len % RINGCAP_REC_ALIGN || r.rec_len > tail ||
		    r.rec_len > prod - ft->done ||
		    (r.flags & RINGCAP_TX_PAD ? r.rec_len != tail :
		     r.rec_len < sizeof(r) || r.len > r.rec_len - sizeof(r))) {
			ft->bad++;
			err = -EINVAL;
			break;
		}
		if (r.flags & RINGCAP_TX_PAD) {
			ft->pads++;
		} else if (r.len < 14 || r.len > ft->dev_max) {
			ft->refused++;
		} else if (ft->down) {
			ft->refused_down++;
		} else {
			if (ft->budget >= 0 && took == ft->budget) {
				ft->full++;
				break;
			}
			took++;
			ft->sent++;
			if (ft->on_frame)
				ft->on_frame(ft->arg, ft->data + off + sizeof(r),
					     r.len);
		}
		ft->done += r.rec_len;
	}
out:
	ft->hdr->sent = ft->sent;
	ft->hdr->refused = ft->refused + ft->refused_down;
	ft->hdr->full = ft->full;
	/* Release: done reading the records below it. */
	__atomic_store_n(&ft->hdr->completion, ft->done, __ATOMIC_RELEASE);
	return err;
}
