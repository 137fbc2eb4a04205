// SPDX-License-Identifier: GPL-2.0
/*
 * The mapped ring: allocation and the producer side of the record protocol
 * described in uapi/linux/ringcap.h.
 *
 * The kernel only ever writes to the ring and reads one user-written word,
 * the consumer position. Its own producer position lives in kernel memory
 * (ring->prod); the copy in the shared header is a mirror for the reader,
 * so nothing user space writes can steer a kernel write out of bounds.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "ringcap.h"

#define RINGCAP_HDR_BYTES	PAGE_SIZE

struct ringcap_ring *ringcap_ring_alloc(u32 data_size, u32 snaplen)
{
	struct ringcap_ring *ring;
	struct ringcap_ring_hdr *hdr;

	BUILD_BUG_ON(sizeof(struct ringcap_ring_hdr) > RINGCAP_HDR_BYTES);
	BUILD_BUG_ON(offsetof(struct ringcap_ring_hdr, producer) != 128);
	BUILD_BUG_ON(offsetof(struct ringcap_ring_hdr, consumer) != 256);
	BUILD_BUG_ON(sizeof(struct ringcap_rec) % RINGCAP_REC_ALIGN);

	ring = kzalloc(sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return NULL;
	ring->mmap_size = RINGCAP_HDR_BYTES + data_size;
	/* Zeroed, and suitable for remap_vmalloc_range(). */
	hdr = vmalloc_user(ring->mmap_size);
	if (!hdr) {
		kfree(ring);
		return NULL;
	}
	hdr->magic = RINGCAP_MAGIC;
	hdr->abi_version = RINGCAP_ABI_VERSION;
	hdr->rec_hdr_len = sizeof(struct ringcap_rec);
	hdr->data_offset = RINGCAP_HDR_BYTES;
	hdr->data_size = data_size;
	hdr->snaplen = snaplen;
	ring->hdr = hdr;
	ring->data = (u8 *)hdr + RINGCAP_HDR_BYTES;
	ring->data_size = data_size;
	return ring;
}

void ringcap_ring_free(struct ringcap_ring *ring)
{
	if (!ring)
		return;
	vfree(ring->hdr);
	kfree(ring);
}

/*
 * A consumer position is usable only if it is record-aligned and lies
 * within one ring's length below the producer. u64 subtraction makes a
 * consumer "ahead" of the producer a huge distance, so one test covers both.
 */
bool ringcap_ring_consumer_ok(const struct ringcap_ring *ring, u64 cons)
{
	return !(cons & (RINGCAP_REC_ALIGN - 1)) &&
	       ring->prod - cons <= ring->data_size;
}

/*
 * Reserve room for a record with caplen bytes of frame. Called with the
 * socket's prod_lock held. Returns where to write the record, or NULL when
 * the ring has no room (or the consumer position is invalid, which is
 * reported through *bad_consumer and treated as full).
 */
struct ringcap_rec *ringcap_ring_reserve(struct ringcap_ring *ring, u32 caplen,
					 u32 *rec_len, bool *bad_consumer)
{
	u32 len = ALIGN(sizeof(struct ringcap_rec) + caplen, RINGCAP_REC_ALIGN);
	u32 off = ring->prod & (ring->data_size - 1);
	u32 tail = ring->data_size - off;
	u32 need = len <= tail ? len : tail + len;
	struct ringcap_rec *pad;
	u64 cons;

	/*
	 * Acquire pairs with the reader's release store of consumer: the
	 * reader's loads of the space we are about to overwrite are done.
	 */
	cons = smp_load_acquire(&ring->hdr->consumer);
	if (!ringcap_ring_consumer_ok(ring, cons)) {
		*bad_consumer = true;
		return NULL;
	}
	*bad_consumer = false;
	if (need > ring->data_size - (ring->prod - cons))
		return NULL;

	if (len > tail) {
		/* Records never wrap: pad out the end of the data area. */
		pad = (struct ringcap_rec *)(ring->data + off);
		pad->rec_len = tail;
		pad->flags = RINGCAP_REC_PAD;
		ring->prod += tail;
		off = 0;
	}
	*rec_len = len;
	return (struct ringcap_rec *)(ring->data + off);
}

/* Publish a record written after ringcap_ring_reserve(). */
void ringcap_ring_commit(struct ringcap_ring *ring, u32 rec_len)
{
	ring->prod += rec_len;
	/* Release: the record (and any pad) is visible before the position. */
	smp_store_release(&ring->hdr->producer, ring->prod);
}
