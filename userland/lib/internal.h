/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libringcap internals: the handle behind struct ringcap and the helpers
 * the library's files share. Not installed; the unit tests include it to
 * build a handle around a ring in ordinary memory.
 */
#ifndef LIBRINGCAP_INTERNAL_H
#define LIBRINGCAP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
/* The library defines the old names as aliases instead (RC_OLD_NAME). */
#define LIBRINGCAP_NO_OLD_NAMES
#include "libringcap.h"

#define RC_ERRMSG_LEN	256

/*
 * ringcap_NAME, the name before libringcap 1.2, as an alias of rcap_NAME:
 * written once after the file's functions, so the two stay one symbol.
 */
#define RC_OLD_NAME(n)	\
	extern __typeof__(rcap_##n) ringcap_##n __attribute__((alias("rcap_" #n)))

struct ringcap {
	int fd;
	int family;
	/*
	 * The mapping. hdr->producer is written by the kernel and
	 * hdr->consumer by us; both are accessed only with __atomic builtins.
	 */
	struct ringcap_ring_hdr *hdr;
	size_t map_size;
	int mapped;		/* hdr came from mmap(), not a test buffer */
	uint8_t *data;
	uint32_t data_size;
	/*
	 * Zero-copy sockets only: the NIC's receive buffers, mapped
	 * read-only, and the length of that mapping as the kernel gave it
	 * when the ring was mapped. Records point into them with
	 * zc_offset, checked against zc_size (never against the shared
	 * header, which the process can overwrite). NULL and 0 otherwise.
	 */
	const uint8_t *zc_bufs;
	uint64_t zc_size;
	/*
	 * Private read position: where the next rcap_recv_batch() starts.
	 * It runs ahead of hdr->consumer until rcap_release() publishes
	 * it, so frames handed out stay valid until then.
	 */
	uint64_t cursor;
	uint64_t released;		/* consumer as we last stored it */
	/* Last SO_ERROR seen, so a device that is gone keeps reporting it. */
	int sticky_err;
	/*
	 * What was asked before bind, so that a refused bind can say why
	 * in terms of it: RINGCAP_ZEROCOPY set, a cluster joined, and
	 * whether this handle is bound already (EBUSY means that then).
	 */
	int zerocopy;
	int cluster;
	int bound;
	/* rcap_set_capture(rc, 0): a transmit-only socket (no XDP). */
	int no_capture;
	int persist;		/* rcap_set_persist(): a named ring */
	/*
	 * The transmit ring, asked for with rcap_set_tx_ring() and
	 * mapped by rcap_map(). hdr->producer is ours and
	 * hdr->completion the kernel's, both accessed only with __atomic
	 * builtins. Its geometry is the checked copy taken when it was
	 * mapped, never the shared header's values of the moment, which
	 * anything sharing the mapping can write. frame_max is followed
	 * (rc_tx_max() in tx.c): the kernel checks every record itself.
	 */
	uint32_t tx_ring_size;		/* asked for; 0: no transmit ring */
	struct ringcap_tx_hdr *tx_hdr;	/* NULL until mapped */
	size_t tx_map_size;
	int tx_mapped;			/* tx_hdr came from mmap() */
	uint8_t *tx_data;
	uint32_t tx_data_size;
	uint32_t tx_dev_max;		/* the device's longest frame at map */
	/*
	 * Private write position: records below it are written, and only
	 * those below tx_pub are published (hdr->producer); flushing
	 * publishes the rest. tx_comp is completion as last read.
	 */
	uint64_t tx_prod;
	uint64_t tx_pub;
	uint64_t tx_comp;
	char errmsg[RC_ERRMSG_LEN];
};

/* Record errno and a message in rc (if any); returns -1 with errno set. */
int rc_fail(struct ringcap *rc, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Check a mapped ring header against what the kernel said about the
 * mapping and what this library was built for; 0 or -1 (EPROTO).
 */
int rc_check_hdr(struct ringcap *rc, const struct ringcap_ring_hdr *hdr,
		 const struct ringcap_ring_info *info);

/* After bind: mode 2 through XDP where the module asks for it (xdp.c). */
void rc_xdp_attach(struct ringcap *rc, unsigned int ifindex);

/* Point rc's reader at a checked mapping; the cursor starts at consumer. */
void rc_attach_ring(struct ringcap *rc, struct ringcap_ring_hdr *hdr,
		    const struct ringcap_ring_info *info);

/*
 * Zero-copy: let records with RINGCAP_REC_ZC point into size bytes of
 * buffers at bufs (a read-only mapping, or test memory).
 */
void rc_attach_zc(struct ringcap *rc, const void *bufs, uint64_t size);

/* Bytes of transmit ring a frame of len bytes takes: header, frame, padding. */
static inline uint32_t rc_tx_rec_len(uint32_t len)
{
	return (uint32_t)(sizeof(struct ringcap_tx_rec) + len +
			  RINGCAP_REC_ALIGN - 1) & ~(uint32_t)(RINGCAP_REC_ALIGN - 1);
}

/*
 * Check a mapped transmit ring header as rc_check_hdr() does the receive
 * ring's; 0 or -1 (EPROTO).
 */
int rc_check_tx_hdr(struct ringcap *rc, const struct ringcap_tx_hdr *hdr,
		    const struct ringcap_ring_info *info);

/*
 * Point rc's transmit side at a checked mapping (or test memory) whose
 * device takes frames of up to frame_max bytes, the value that was
 * checked; writing starts at producer.
 */
void rc_attach_tx(struct ringcap *rc, struct ringcap_tx_hdr *hdr,
		  const struct ringcap_ring_info *info, uint32_t frame_max);

/*
 * The watermark a zero-copy socket with nr_bufs NIC buffers should have
 * when wm is asked for: wm, or a quarter of the buffers where wm is more
 * than that (map.c says why).
 */
uint32_t rc_zc_watermark(uint32_t wm, uint32_t nr_bufs);

#endif /* LIBRINGCAP_INTERNAL_H */
