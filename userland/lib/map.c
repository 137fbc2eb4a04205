// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Mapping the ring (and, for a zero-copy socket, the NIC's buffers, and
 * the transmit ring where one was asked for) and refusing one this
 * library cannot use: a wrong magic, another ABI version or a geometry
 * that does not add up is an error with a message, never records read
 * or written with the wrong layout.
 */
#include <errno.h>
#include <linux/if_ether.h>
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

/*
 * Where a ring's header puts its data area, against what getsockopt said:
 * offsets are masked with data_size - 1, so it must be 2^n, of at least
 * min bytes, after the header and inside the mapping.
 */
static int rc_check_area(struct ringcap *rc, const char *what,
			 uint32_t data_offset, uint32_t size, size_t hdr_len,
			 uint32_t min, const struct ringcap_ring_info *info)
{
	if (size >= min && !(size & (size - 1)) &&
	    data_offset >= hdr_len && !(data_offset % RINGCAP_REC_ALIGN) &&
	    data_offset == info->data_offset && size == info->data_size &&
	    (uint64_t)data_offset + size <= info->mmap_size)
		return 0;
	return rc_fail(rc, EPROTO,
		       "inconsistent %s geometry: data_offset %u data_size %u mmap_size %llu",
		       what, data_offset, size,
		       (unsigned long long)info->mmap_size);
}

int rc_check_hdr(struct ringcap *rc, const struct ringcap_ring_hdr *hdr,
		 const struct ringcap_ring_info *info)
{

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
	if (rc_check_area(rc, "ring", hdr->data_offset, hdr->data_size,
			  sizeof(*hdr), RINGCAP_REC_ALIGN, info))
		return -1;
	return rc_check_zc(rc, hdr, info);
}

int rc_check_tx_hdr(struct ringcap *rc, const struct ringcap_tx_hdr *hdr,
		    const struct ringcap_ring_info *info)
{
	uint32_t size = hdr->data_size;
	uint64_t prod = hdr->producer, comp = hdr->completion;

	if (hdr->magic != RINGCAP_TX_MAGIC)
		return rc_fail(rc, EPROTO,
			       "not a ringcap transmit ring: magic 0x%08x, expected 0x%08x",
			       hdr->magic, RINGCAP_TX_MAGIC);
	if (hdr->abi_version != RINGCAP_ABI_VERSION)
		return rc_abi_mismatch(rc, hdr->abi_version);
	if (hdr->rec_hdr_len != sizeof(struct ringcap_tx_rec))
		return rc_fail(rc, EPROTO,
			       "transmit record header is %u bytes, expected %zu",
			       hdr->rec_hdr_len, sizeof(struct ringcap_tx_rec));
	/* Room for one record of the shortest frame at least. */
	if (rc_check_area(rc, "transmit ring", hdr->data_offset, size,
			  sizeof(*hdr), rc_tx_rec_len(ETH_HLEN), info))
		return -1;
	if (hdr->frame_max < ETH_HLEN)
		return rc_fail(rc, EPROTO,
			       "the transmit ring takes frames of at most %u bytes, less than an Ethernet header",
			       hdr->frame_max);
	/* u64 wrap turns a completion ahead of producer into a huge gap. */
	if ((prod | comp) % RINGCAP_REC_ALIGN || prod - comp > size)
		return rc_fail(rc, EPROTO,
			       "inconsistent transmit ring positions: producer %llu completion %llu data_size %u",
			       (unsigned long long)prod,
			       (unsigned long long)comp, size);
	return 0;
}

/*
 * The transmit ring, mapped and checked; NULL on failure. *frame_max
 * gets the checked value: the mapping is writable, so the header is
 * read once, as in rcap_map().
 */
static void *rc_map_tx(struct ringcap *rc, struct ringcap_ring_info *info,
		       uint32_t *frame_max)
{
	const uint64_t offset = RINGCAP_TX_MMAP_OFFSET;
	struct ringcap_tx_hdr hdr;
	socklen_t len = sizeof(*info);
	void *map;

	memset(info, 0, sizeof(*info));
	if (getsockopt(rc->fd, SOL_RINGCAP, RINGCAP_TX_INFO, info, &len)) {
		rc_fail(rc, errno, "reading the transmit ring geometry: %s%s",
			strerror(errno), errno == ENOPROTOOPT ?
			" (the loaded module has no transmit ring)" : "");
		return NULL;
	}
	if (len < RINGCAP_RING_INFO_SIZE_V1 || info->mmap_size < sizeof(hdr) ||
	    info->mmap_size > SIZE_MAX) {
		rc_fail(rc, EPROTO,
			"bad transmit ring info (length %u, mmap_size %llu)",
			(unsigned int)len,
			(unsigned long long)info->mmap_size);
		return NULL;
	}
	/* A 32-bit off_t (no large-file support) cannot say 3 GiB. */
	if ((off_t)offset < 0 || (uint64_t)(off_t)offset != offset) {
		rc_fail(rc, EOVERFLOW,
			"cannot map the transmit ring at offset 0x%llx: this build has a 32-bit off_t (build with -D_FILE_OFFSET_BITS=64)",
			(unsigned long long)offset);
		return NULL;
	}
	map = mmap(NULL, info->mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   rc->fd, (off_t)offset);
	if (map == MAP_FAILED) {
		rc_fail(rc, errno, "mapping %llu bytes of transmit ring: %s",
			(unsigned long long)info->mmap_size, strerror(errno));
		return NULL;
	}
	memcpy(&hdr, map, sizeof(hdr));
	if (rc_check_tx_hdr(rc, &hdr, info)) {
		munmap(map, info->mmap_size);
		return NULL;
	}
	*frame_max = hdr.frame_max;
	return map;
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
 * the buffers, as rcap_batch_watermark() keeps three quarters of a
 * copy-mode ring free for that time. Watermarks set after
 * rcap_map() stand as they are.
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
	return rcap_set_wakeup(rc, rc_zc_watermark(wm, nr_bufs),
				  RINGCAP_WAKEUP_KEEP);
}

int rcap_map(struct ringcap *rc)
{
	struct ringcap_ring_info info, tx_info;
	void *map, *zc = NULL, *tx = NULL;
	struct ringcap_ring_hdr hdr;
	uint32_t abi, frame_max = 0;
	socklen_t len;
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
	if (len < RINGCAP_RING_INFO_SIZE_V1 ||
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
	/*
	 * A module that gives the zero-copy area in RING_INFO is believed.
	 * It gives none once the device went and the socket was unbound:
	 * the header's area then, whose mmap() says ENODEV.
	 */
	if (len >= RINGCAP_RING_INFO_SIZE_V2 && info.zc_mmap_size) {
		hdr.zc_mmap_offset = info.zc_mmap_offset;
		hdr.zc_mmap_size = info.zc_mmap_size;
		hdr.zc_buf_size = info.zc_buf_size;
		hdr.zc_nr_bufs = info.zc_nr_bufs;
	}
	if (rc_check_hdr(rc, &hdr, &info))
		goto fail;
	/* Asked for, so required: no handle that silently cannot send. */
	if (rc->tx_ring_size) {
		tx = rc_map_tx(rc, &tx_info, &frame_max);
		if (!tx)
			goto fail;
	}
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
	if (tx) {
		rc_attach_tx(rc, tx, &tx_info, frame_max);
		rc->tx_mapped = 1;
	}
	return 0;

fail:
	err = errno;
	if (tx)
		munmap(tx, tx_info.mmap_size);
	if (zc)
		munmap(zc, hdr.zc_mmap_size);
	munmap(map, info.mmap_size);
	errno = err;
	return -1;
}

const struct ringcap_ring_hdr *rcap_hdr(const struct ringcap *rc)
{
	return rc->hdr;
}

/* The names before libringcap 1.2 (libringcap.h). */
RC_OLD_NAME(hdr);
RC_OLD_NAME(map);
