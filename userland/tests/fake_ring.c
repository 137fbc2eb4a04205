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
