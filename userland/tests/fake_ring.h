/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A ring in ordinary memory with a producer that follows the protocol of
 * linux/ringcap.h as the kernel does (records never wrap, a pad record
 * fills the tail, release store of producer), so the library's reader can
 * be tested on any host. The producer is written from the ABI text, not
 * from the module's code, so the two are checked against each other.
 */
#ifndef RC_FAKE_RING_H
#define RC_FAKE_RING_H

#include <stdint.h>
#include "internal.h"

struct fake_ring {
	struct ringcap_ring_hdr *hdr;
	struct ringcap_ring_info info;
	uint8_t *data;
	uint64_t prod;		/* producer's own position */
	unsigned long pads;	/* pad records written */
	struct ringcap *rc;	/* a handle reading this ring */
	uint8_t *zc;		/* fake_ring_zc()'s buffers, or NULL */
	uint64_t zc_size;
};

/*
 * data_size bytes of data (a power of two), positions starting at start
 * (8-aligned; lets tests begin near the end of the area or near 2^64).
 */
void fake_ring_init(struct fake_ring *fr, uint32_t data_size,
		    uint64_t start);
void fake_ring_free(struct fake_ring *fr);

/*
 * Reserve room for caplen bytes, as the kernel does, and return the record
 * to fill (rec_len, flags, caplen and wire_len are set), or NULL when the
 * ring is full. Publish it with fake_ring_commit().
 */
struct ringcap_rec *fake_ring_reserve(struct fake_ring *fr, uint32_t caplen);
void fake_ring_commit(struct fake_ring *fr, struct ringcap_rec *rec);

/*
 * Make the ring a zero-copy socket's: nr_bufs buffers of buf_size bytes
 * in ordinary memory, described in the header as the kernel does and
 * attached to fr->rc as rcap_map() would attach the mapped ones.
 */
void fake_ring_zc(struct fake_ring *fr, uint32_t nr_bufs, uint32_t buf_size);

/*
 * A zero-copy frame: caplen bytes, each (seq + i) & 0xff, written at
 * zc_offset in the buffers (when they fit; else only the record, for
 * tests of corrupt ones) and a record that points there. 0 or -1 if full.
 */
int fake_ring_put_zc(struct fake_ring *fr, uint32_t zc_offset, uint32_t caplen,
		     uint32_t seq);

/* A frame of caplen bytes, each byte (seq + i) & 0xff; 0 or -1 if full. */
int fake_ring_put(struct fake_ring *fr, uint32_t caplen, uint32_t seq);
/* Does a frame hold what fake_ring_put(caplen, seq) wrote? */
int fake_frame_ok(const struct ringcap_pkt *pkt, uint32_t caplen,
		  uint32_t seq);
/* The same for fake_ring_put_zc(zc_offset, caplen, seq), in place. */
int fake_zc_frame_ok(const struct fake_ring *fr, const struct ringcap_pkt *pkt,
		     uint32_t zc_offset, uint32_t caplen, uint32_t seq);

/*
 * A transmit ring in ordinary memory with a consumer that follows the
 * ABI text as the kernel does: records in [completion, producer) taken
 * in order (acquire load of producer), each checked, pads skipped,
 * frames shorter than 14 or longer than dev_max refused and counted
 * (refused), as are all while the device is down (refused_down),
 * completion stored with release semantics. The "device" takes at most
 * budget frames per kick (-1: all), as a device queue that fills. Each
 * kick first writes dev_max, the device's longest frame now, into
 * hdr->frame_max, as the kernel does from the MTU it finds.
 */
struct fake_tx {
	struct ringcap_tx_hdr *hdr;
	struct ringcap_ring_info info;
	uint8_t *data;
	uint64_t done;		/* the kernel's own completion */
	int budget;		/* frames the device takes per kick; -1: all */
	int down;		/* the device is down: frames refused */
	uint32_t dev_max;	/* longest frame the device takes now */
	unsigned long kicks, sent, pads, refused, refused_down, full, bad;
	/* Every frame sent, for the test to look at: called in order. */
	void (*on_frame)(void *arg, const uint8_t *frame, uint32_t len);
	void *arg;
	struct ringcap *rc;	/* the handle writing this ring */
	int own_rc;		/* fake_tx_init() allocated it */
};

/*
 * data_size bytes (a power of two) of transmit ring, positions starting
 * at start (8-aligned), frames of up to frame_max bytes, attached to rc
 * as rcap_map() attaches a mapped one (rc NULL: a new handle with no
 * socket). 64 guard bytes after the area catch writes past its end.
 */
void fake_tx_init(struct fake_tx *ft, uint32_t data_size, uint64_t start,
		  uint32_t frame_max, struct ringcap *rc);
/* Detach from the handle (freed if ours) and free the memory. */
void fake_tx_free(struct fake_tx *ft);
/* Are the guard bytes after the area untouched? */
int fake_tx_guard_ok(const struct fake_tx *ft);
/*
 * The kernel's side of a kick: 0, or -EINVAL for an unusable producer or
 * record (what came before it is sent), as the ABI says.
 */
int fake_tx_kick(struct fake_tx *ft);

#endif /* RC_FAKE_RING_H */
