// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Mapping the ring and refusing one this library cannot read: a wrong
 * magic, another ABI version or a geometry that does not add up is an
 * error with a message, never records read with the wrong layout.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include "internal.h"

static int rc_abi_mismatch(struct ringcap *rc, unsigned int kernel_abi)
{
	return rc_fail(rc, EPROTO,
		       "ringcap ABI mismatch: the kernel module speaks ABI version %u, libringcap was built for ABI version %u; rebuild the program against the module's linux/ringcap.h",
		       kernel_abi, RINGCAP_ABI_VERSION);
}

int rc_check_hdr(struct ringcap *rc, const struct ringcap_ring_hdr *hdr,
		 const struct ringcap_ring_info *info)
{
	uint32_t size = hdr->data_size;

	if (hdr->magic != RINGCAP_MAGIC)
		return rc_fail(rc, EPROTO,
			       "not a ringcap ring: magic 0x%08x, expected 0x%08x",
			       hdr->magic, RINGCAP_MAGIC);
	if (hdr->abi_version != RINGCAP_ABI_VERSION)
		return rc_abi_mismatch(rc, hdr->abi_version);
	if (hdr->rec_hdr_len != sizeof(struct ringcap_rec))
		return rc_fail(rc, EPROTO,
			       "ring record header is %u bytes, expected %zu",
			       hdr->rec_hdr_len, sizeof(struct ringcap_rec));
	/* Offsets are masked with data_size - 1, so it must be 2^n. */
	if (size < RINGCAP_REC_ALIGN || (size & (size - 1)) ||
	    hdr->data_offset < sizeof(*hdr) ||
	    hdr->data_offset % RINGCAP_REC_ALIGN ||
	    hdr->data_offset != info->data_offset ||
	    size != info->data_size ||
	    (uint64_t)hdr->data_offset + size > info->mmap_size)
		return rc_fail(rc, EPROTO,
			       "inconsistent ring geometry: data_offset %u data_size %u mmap_size %llu",
			       hdr->data_offset, size,
			       (unsigned long long)info->mmap_size);
	return 0;
}

int ringcap_map(struct ringcap *rc)
{
	struct ringcap_ring_info info;
	socklen_t len;
	uint32_t abi;
	void *map;
	int err;

	if (rc->hdr)
		return 0;

	/*
	 * Ask for the ABI first: the layout of ring_info itself belongs to
	 * an ABI version, so check before trusting it.
	 */
	len = sizeof(abi);
	if (!getsockopt(rc->fd, SOL_RINGCAP, RINGCAP_ABI, &abi, &len) &&
	    len == sizeof(abi) && abi != RINGCAP_ABI_VERSION)
		return rc_abi_mismatch(rc, abi);

	len = sizeof(info);
	memset(&info, 0, sizeof(info));
	if (getsockopt(rc->fd, SOL_RINGCAP, RINGCAP_RING_INFO, &info, &len))
		return rc_fail(rc, errno, "reading the ring geometry: %s",
			       strerror(errno));
	if (len < sizeof(info) ||
	    info.mmap_size < sizeof(struct ringcap_ring_hdr) ||
	    info.mmap_size > SIZE_MAX)
		return rc_fail(rc, EPROTO,
			       "bad ring info (length %u, mmap_size %llu)",
			       (unsigned int)len,
			       (unsigned long long)info.mmap_size);

	map = mmap(NULL, info.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   rc->fd, 0);
	if (map == MAP_FAILED)
		return rc_fail(rc, errno, "mapping %llu bytes of ring: %s",
			       (unsigned long long)info.mmap_size,
			       strerror(errno));
	if (rc_check_hdr(rc, map, &info)) {
		err = errno;
		munmap(map, info.mmap_size);
		errno = err;
		return -1;
	}
	rc_attach_ring(rc, map, &info);
	rc->mapped = 1;
	return 0;
}

const struct ringcap_ring_hdr *ringcap_hdr(const struct ringcap *rc)
{
	return rc->hdr;
}
