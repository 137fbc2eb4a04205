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

/*
 * Ring memory is pinned for as long as the socket lives, and anyone with
 * CAP_NET_RAW in some network namespace (any user, through a user
 * namespace) can ask for it. Its pages and the ring's own structure are
 * charged to the allocating task's memory cgroup (__GFP_ACCOUNT): that is
 * the bound on what a user, a service or a container may hold, and a
 * ring past the cgroup's memory.max fails with ENOMEM instead of waking
 * the OOM killer. Each ring is bounded on its own by max_ring_mem.
 *
 * They are not charged to RLIMIT_MEMLOCK. AF_PACKET charges its rings to
 * neither the lock limit nor the cgroup, and a capture that starts there
 * must start here: four dumpcaps, which drop every capability before
 * they open the device, hold 8 MiB of ring with libpcap's default buffer,
 * and the lock limit (8 MiB by default) would refuse the fourth. The
 * lock limit bounds what a user locks of its own memory (mlock()), and
 * AF_XDP umems and io_uring buffers, which are the user's pages; a ring
 * is the kernel's, as a socket's receive queue is.
 */
/**
 * ringcap_ring_area - allocate a ring's memory
 * @data_size: bytes of its data area, a power of two
 *
 * A header page and @data_size bytes, zeroed and charged: what the receive
 * and the transmit rings are made of.
 *
 * Return: the ring, or ERR_PTR(-ENOMEM), past the memory cgroup's limit
 * among others.
 */
struct ringcap_ring *ringcap_ring_area(u32 data_size)
{
	struct ringcap_ring *ring;
	struct ringcap_ring_hdr *hdr;

	ring = kzalloc(sizeof(*ring), GFP_KERNEL_ACCOUNT);
	if (!ring)
		return ERR_PTR(-ENOMEM);
	ring->mmap_size = RINGCAP_HDR_BYTES + data_size;
	/* Past the cgroup's limit the caller gets ENOMEM, not the OOM killer. */
	hdr = __vmalloc(ring->mmap_size, GFP_KERNEL_ACCOUNT | __GFP_ZERO |
					 __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
	if (!hdr) {
		kfree(ring);
		return ERR_PTR(-ENOMEM);
	}
	ring->hdr = hdr;
	ring->data = (u8 *)hdr + RINGCAP_HDR_BYTES;
	ring->data_size = data_size;
	return ring;
}

/**
 * ringcap_ring_alloc - allocate a receive ring with its header filled in
 * @data_size: bytes of its data area, a power of two
 * @snaplen: the socket's snaplen, for the header
 *
 * Return: the ring, or an ERR_PTR as ringcap_ring_area().
 */
struct ringcap_ring *ringcap_ring_alloc(u32 data_size, u32 snaplen)
{
	struct ringcap_ring *ring;
	struct ringcap_ring_hdr *hdr;

	BUILD_BUG_ON(sizeof(struct ringcap_ring_hdr) > RINGCAP_HDR_BYTES);
	BUILD_BUG_ON(offsetof(struct ringcap_ring_hdr, producer) != 128);
	BUILD_BUG_ON(offsetof(struct ringcap_ring_hdr, consumer) != 256);
	BUILD_BUG_ON(sizeof(struct ringcap_rec) % RINGCAP_REC_ALIGN);

	ring = ringcap_ring_area(data_size);
	if (IS_ERR(ring))
		return ring;
	hdr = ring->hdr;
	hdr->magic = RINGCAP_MAGIC;
	hdr->abi_version = RINGCAP_ABI_VERSION;
	hdr->rec_hdr_len = sizeof(struct ringcap_rec);
	hdr->data_offset = RINGCAP_HDR_BYTES;
	hdr->data_size = data_size;
	hdr->snaplen = snaplen;
	return ring;
}

/**
 * ringcap_ring_free - free a ring of either kind
 * @ring: the ring, or NULL
 *
 * The mapping's pages stay until the last mapping of them goes.
 */
void ringcap_ring_free(struct ringcap_ring *ring)
{
	if (!ring)
		return;
	vfree(ring->hdr);
	kfree(ring);
}

/**
 * ringcap_ring_info - what RINGCAP_RING_INFO and RINGCAP_TX_INFO report
 * @ring: the ring
 * @info: filled in from kernel-held values only, since the shared header
 *	  is user-writable
 */
void ringcap_ring_info(const struct ringcap_ring *ring,
		       struct ringcap_ring_info *info)
{
	memset(info, 0, sizeof(*info));
	info->mmap_size = ring->mmap_size;
	info->data_offset = RINGCAP_HDR_BYTES;
	info->data_size = ring->data_size;
}

/**
 * ringcap_ring_mmap - map the whole ring, header first
 * @ring: the ring
 * @vma: the mapping, exactly the ring's size
 * @pgoff: the file offset, in pages, the ring is mapped at
 *
 * The pages are inserted one by one rather than with remap_vmalloc_range(),
 * which wants the area allocated by vmalloc_user(); that one cannot charge
 * a memory cgroup.
 *
 * Return: 0, -EINVAL for another offset or size, or vm_insert_page()'s
 * error.
 */
int ringcap_ring_mmap(struct ringcap_ring *ring, struct vm_area_struct *vma,
		      unsigned long pgoff)
{
	u8 *kaddr = (u8 *)ring->hdr;
	size_t off;
	int err;

	if (vma->vm_pgoff != pgoff ||
	    vma->vm_end - vma->vm_start != ring->mmap_size)
		return -EINVAL;
	/* mremap() must not grow it, nor a core dump copy it. */
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	for (off = 0; off < ring->mmap_size; off += PAGE_SIZE) {
		err = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(kaddr + off));
		if (err)
			return err;
	}
	return 0;
}

/**
 * ringcap_ring_consumer_ok - is a consumer position usable?
 * @ring: the ring
 * @cons: the position the reader wrote
 *
 * Only if it is record-aligned and lies within one ring's length below the
 * producer. u64 subtraction makes a consumer "ahead" of the producer a
 * huge distance, so one test covers both.
 *
 * Return: whether it is.
 */
bool ringcap_ring_consumer_ok(const struct ringcap_ring *ring, u64 cons)
{
	return !(cons & (RINGCAP_REC_ALIGN - 1)) &&
	       ring->prod - cons <= ring->data_size;
}

/**
 * ringcap_ring_reserve - reserve room for a record
 * @ring: the ring; its socket's prod_lock held
 * @caplen: bytes of frame the record will carry
 * @rec_len: set to the record's length, for ringcap_ring_commit()
 * @bad_consumer: set when the consumer position is invalid
 *
 * Return: where to write the record, or NULL when the ring has no room
 * or the consumer position is invalid (treated as full).
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

/**
 * ringcap_ring_commit - publish a record written after ringcap_ring_reserve()
 * @ring: the ring; its socket's prod_lock held
 * @rec_len: what ringcap_ring_reserve() said
 */
void ringcap_ring_commit(struct ringcap_ring *ring, u32 rec_len)
{
	ring->prod += rec_len;
	/* Release: the record (and any pad) is visible before the position. */
	smp_store_release(&ring->hdr->producer, ring->prod);
}

/**
 * ringcap_ring_ensure - allocate a socket's ring at its first use
 * @rs: the socket; rs->lock held
 *
 * At bind, mmap or RING_INFO, with the socket's size and snaplen.
 *
 * Return: 0 or -ENOMEM.
 */
int ringcap_ring_ensure(struct ringcap_sock *rs)
{
	struct ringcap_ring *ring;

	lockdep_assert_held(&rs->lock);
	if (rs->ring)
		return 0;
	ring = ringcap_ring_alloc(rs->ring_size, rs->snaplen);
	if (IS_ERR(ring))
		return PTR_ERR(ring);
	WRITE_ONCE(rs->ring, ring);
	return 0;
}

/**
 * ringcap_sock_ring - a socket's ring, allocated if it has none yet
 * @rs: the socket; takes rs->lock
 *
 * Return: the ring, or ERR_PTR(-ENOMEM).
 */
struct ringcap_ring *ringcap_sock_ring(struct ringcap_sock *rs)
{
	struct ringcap_ring *ring;
	int err;

	mutex_lock(&rs->lock);
	err = ringcap_ring_ensure(rs);
	ring = err ? ERR_PTR(err) : rs->ring;
	mutex_unlock(&rs->lock);
	return ring;
}
