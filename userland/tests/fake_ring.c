// SPDX-License-Identifier: GPL-2.0
/* The in-memory ring and its producer; see fake_ring.h. */
#include <stdlib.h>
#include <string.h>
#include "fake_ring.h"

#define FAKE_HDR_BYTES	4096

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
	/* Not mapped and no socket: ringcap_close() only frees the handle. */
	ringcap_close(fr->rc);
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
