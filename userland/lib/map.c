// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Mapping the ring (and, for a zero-copy socket, the NIC's buffers) and
 * refusing one this library cannot read: a wrong magic, another ABI
 * version or a geometry that does not add up is an error with a message,
 * never records read with the wrong layout.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include "internal.h"

static int rc_abi_mismatch(struct ringcap *rc, unsigned int kernel_abi)
{
	return rc_fail(rc, EPROTO,
		       "ringcap ABI mismatch: the kernel module speaks ABI version %u, libringcap was built for ABI version %u; rebuild the program against the module's linux/ringcap.h",
		       kernel_abi, RINGCAP_ABI_VERSION);
}

/*
 * A zero-copy socket's buffer area, as the header describes it: nr_bufs
 * buffers of buf_size bytes, mapped at a page-aligned offset past the
 * ring so that the two mappings cannot overlap, and one that mmap() can
 * be given (an off_t, 32 bits where a build has no large-file support).
 * Anything else is a header this library does not understand, and
 * nothing of it is mapped.
 */
static int rc_check_zc(struct ringcap *rc, const struct ringcap_ring_hdr *hdr,
		       const struct ringcap_ring_info *info)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	if (!hdr->zc_mmap_size)
		return 0;
	if (hdr->zc_buf_size && hdr->zc_nr_bufs &&
	    (uint64_t)hdr->zc_buf_size * hdr->zc_nr_bufs == hdr->zc_mmap_size &&
	    hdr->zc_mmap_size <= SIZE_MAX &&
	    hdr->zc_mmap_size <= (uint64_t)INT64_MAX && page &&
	    !(hdr->zc_mmap_offset % page) &&
	    hdr->zc_mmap_offset >= info->mmap_size &&
	    hdr->zc_mmap_offset <= (uint64_t)INT64_MAX - hdr->zc_mmap_size &&
	    (off_t)hdr->zc_mmap_offset >= 0 &&
	    (uint64_t)(off_t)hdr->zc_mmap_offset == hdr->zc_mmap_offset)
		return 0;
	return rc_fail(rc, EPROTO,
		       "inconsistent zero-copy geometry: %u buffers of %u bytes, zc_mmap_offset %llu zc_mmap_size %llu",
		       hdr->zc_nr_bufs, hdr->zc_buf_size,
		       (unsigned long long)hdr->zc_mmap_offset,
		       (unsigned long long)hdr->zc_mmap_size);
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
	return rc_check_zc(rc, hdr, info);
}

uint32_t rc_zc_watermark(uint32_t wm, uint32_t nr_bufs)
{
	uint32_t quarter = nr_bufs / 4 ? nr_bufs / 4 : 1;

	return wm > quarter ? quarter : wm;
}

/*
 * In zero-copy mode the NIC, not the ring, runs out first: a reader
 * asleep in poll() has handed every buffer back, and the NIC can fill
 * nr_bufs of them before it must drop. A watermark above nr_bufs is
 * never reached (only the timeout would wake the reader, with the NIC
 * dropping meanwhile), and one close to it leaves no buffers for the
 * time the reader takes to wake up. So it is lowered to a quarter of
 * the buffers, as ringcap_batch_watermark() keeps three quarters of a
 * copy-mode ring free for that time. Watermarks set after
 * ringcap_map() stand as they are.
 */
static int rc_zc_wakeup(struct ringcap *rc, uint32_t nr_bufs)
{
	socklen_t len = sizeof(uint32_t);
	uint32_t wm;

	if (getsockopt(rc->fd, SOL_RINGCAP, RINGCAP_WATERMARK, &wm, &len))
		return rc_fail(rc, errno, "reading the watermark: %s",
			       strerror(errno));
	if (rc_zc_watermark(wm, nr_bufs) == wm)
		return 0;
	return ringcap_set_wakeup(rc, rc_zc_watermark(wm, nr_bufs),
				  RINGCAP_WAKEUP_KEEP);
}

int ringcap_map(struct ringcap *rc)
{
	struct ringcap_ring_info info;
	struct ringcap_ring_hdr hdr;
	void *map, *zc = NULL;
	socklen_t len;
	uint32_t abi;
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
	/*
	 * One copy of the header, checked and then used: the mapping is
	 * writable by anything that shares it, and the zero-copy geometry
	 * must be the one that was checked.
	 */
	memcpy(&hdr, map, sizeof(hdr));
	if (rc_check_hdr(rc, &hdr, &info))
		goto fail;
	if (hdr.zc_mmap_size) {
		/* Read-only: the kernel refuses PROT_WRITE (EACCES). */
		zc = mmap(NULL, hdr.zc_mmap_size, PROT_READ, MAP_SHARED,
			  rc->fd, (off_t)hdr.zc_mmap_offset);
		if (zc == MAP_FAILED) {
			zc = NULL;
			rc_fail(rc, errno,
				"mapping %llu bytes of zero-copy buffers: %s%s",
				(unsigned long long)hdr.zc_mmap_size,
				strerror(errno), errno == ENODEV ?
				" (the device or its queue went away)" : "");
			goto fail;
		}
		if (rc_zc_wakeup(rc, hdr.zc_nr_bufs))
			goto fail;
	}
	rc_attach_ring(rc, map, &info);
	if (zc)
		rc_attach_zc(rc, zc, hdr.zc_mmap_size);
	rc->mapped = 1;
	return 0;

fail:
	err = errno;
	if (zc)
		munmap(zc, hdr.zc_mmap_size);
	munmap(map, info.mmap_size);
	errno = err;
	return -1;
}

const struct ringcap_ring_hdr *ringcap_hdr(const struct ringcap *rc)
{
	return rc->hdr;
}
