// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The producer side of the transmit ring (see linux/ringcap.h): this
 * file writes records, the kernel sends them. The receive ring's roles,
 * swapped:
 *
 *   application (this file)              kernel
 *   write record(s) at [tx_prod, ...)
 *   store_release(&hdr->producer)   -->  prod = load_acquire(&producer)
 *   sendto(fd, NULL, 0) (the kick)       send [completion, prod) in order
 *   comp = load_acquire(&completion) <-- store_release(&hdr->completion)
 *   reuse the space below comp
 *
 * The release store of producer pairs with the kernel's acquire load:
 * every record below it is fully written before the kernel reads it.
 * The acquire load of completion pairs with the kernel's release store:
 * the kernel is done reading the records below it before we overwrite
 * them.
 *
 * Writing runs ahead of producer (tx_prod) until a flush publishes it,
 * so that a batch of frames costs one kick. Room is judged against a
 * cached completion (tx_comp), read again only when the cache says the
 * ring is full: one shared cache line less per frame.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <linux/if_ether.h>
#include <sys/socket.h>
#include "internal.h"

/* rcap_tx_wait(): first and longest pause between kicks. */
#define RC_TX_WAIT_MIN_NS	20000L		/* 20 us */
#define RC_TX_WAIT_MAX_NS	1000000L	/* 1 ms */

void rc_attach_tx(struct ringcap *rc, struct ringcap_tx_hdr *hdr,
		  const struct ringcap_ring_info *info, uint32_t frame_max)
{
	rc->tx_hdr = hdr;
	rc->tx_map_size = info->mmap_size;
	rc->tx_data = (uint8_t *)hdr + info->data_offset;
	rc->tx_data_size = info->data_size;
	rc->tx_dev_max = frame_max;
	/* Only we write producer, so a relaxed load sees our own value. */
	rc->tx_prod = __atomic_load_n(&hdr->producer, __ATOMIC_RELAXED);
	rc->tx_pub = rc->tx_prod;
	rc->tx_comp = __atomic_load_n(&hdr->completion, __ATOMIC_ACQUIRE);
}

/*
 * The longest frame the ring takes now; *dev the device's part of it.
 * The kernel rewrites hdr->frame_max at each kick from the MTU it finds
 * then, and checks every record against that itself, so the shared
 * value can be followed here: a stray write can only make a put accept
 * what the kick refuses (and counts), or refuse early. One below an
 * Ethernet header is such a write: the mapped copy stands in. A record
 * must fit in the data area (it never wraps), so a small ring caps the
 * frame below what the device takes.
 */
static uint32_t rc_tx_max(const struct ringcap *rc, uint32_t *dev)
{
	uint32_t d = __atomic_load_n(&rc->tx_hdr->frame_max, __ATOMIC_RELAXED);
	uint32_t ring = rc->tx_data_size - sizeof(struct ringcap_tx_rec);

	if (d < ETH_HLEN)
		d = rc->tx_dev_max;
	*dev = d;
	return d < ring ? d : ring;
}

static int rc_tx_none(struct ringcap *rc)
{
	return rc_fail(rc, ENXIO,
		       "no transmit ring: ask for one with rcap_set_tx_ring() before bind, then rcap_map()");
}

/*
 * Read completion again. It must lie at most a ring behind what we
 * published and what we wrote, and be aligned: anything else is a stray
 * write into the mapping, and trusting it would make us overwrite
 * records the kernel has not sent (or compute room from garbage).
 */
static int rc_tx_reload(struct ringcap *rc)
{
	uint64_t comp;

	comp = __atomic_load_n(&rc->tx_hdr->completion, __ATOMIC_ACQUIRE);
	/* u64 wrap turns a completion ahead of us into a huge gap. */
	if (comp % RINGCAP_REC_ALIGN || rc->tx_pub - comp > rc->tx_data_size ||
	    rc->tx_prod - comp > rc->tx_data_size)
		return rc_fail(rc, EIO,
			       "corrupt transmit ring: completion %llu, producer %llu, write position %llu, data size %u",
			       (unsigned long long)comp,
			       (unsigned long long)rc->tx_pub,
			       (unsigned long long)rc->tx_prod,
			       rc->tx_data_size);
	rc->tx_comp = comp;
	return 0;
}

/* 0 when need bytes are free at the write position, else -1 (EAGAIN, EIO). */
static int rc_tx_room(struct ringcap *rc, uint32_t need)
{
	if (rc->tx_data_size - (rc->tx_prod - rc->tx_comp) >= need)
		return 0;
	if (rc_tx_reload(rc))
		return -1;
	if (rc->tx_data_size - (rc->tx_prod - rc->tx_comp) >= need)
		return 0;
	return rc_fail(rc, EAGAIN,
		       "the transmit ring is full: wait for the kernel to send (rcap_tx_wait()), then put the frame again");
}

int rcap_tx_put(struct ringcap *rc, const void *frame, uint32_t len)
{
	struct ringcap_tx_rec *rec;
	uint32_t rec_len, off, tail, max, dev;

	if (!rc->tx_hdr)
		return rc_tx_none(rc);
	max = rc_tx_max(rc, &dev);
	if (len < ETH_HLEN || len > max)
		return rc_fail(rc, EMSGSIZE,
			       "cannot send a frame of %u bytes: the transmit ring takes %u to %u (%s)",
			       len, ETH_HLEN, max, max < dev ?
			       "what one record of the ring holds" :
			       "the device's MTU plus an Ethernet and a VLAN header");
	rec_len = rc_tx_rec_len(len);
	off = rc->tx_prod & (rc->tx_data_size - 1);
	tail = rc->tx_data_size - off;
	if (rec_len > tail) {
		/*
		 * A record never wraps: a pad record takes the rest of the
		 * area and the frame starts at offset 0. The pad goes in
		 * as soon as it fits, even if the frame then does not: a
		 * frame longer than the space before the write position
		 * could otherwise never be put, the pad and the frame
		 * together being more than the ring even when it is empty.
		 * Once the kernel has passed the pad, the frame fits.
		 */
		if (rc_tx_room(rc, tail))
			return -1;
		rec = (struct ringcap_tx_rec *)(rc->tx_data + off);
		/* Only rec_len and flags: a pad may be just 8 bytes. */
		rec->rec_len = tail;
		rec->flags = RINGCAP_TX_PAD;
		rec->__pad = 0;
		rc->tx_prod += tail;
		off = 0;
	}
	if (rc_tx_room(rc, rec_len))
		return -1;
	rec = (struct ringcap_tx_rec *)(rc->tx_data + off);
	rec->rec_len = rec_len;
	rec->flags = 0;
	rec->__pad = 0;
	rec->len = len;
	rec->__reserved = 0;
	memcpy(rec + 1, frame, len);
	rc->tx_prod += rec_len;
	return 0;
}

/* The kernel's refusals of a kick, in terms of what to do about them. */
static int rc_tx_kick(struct ringcap *rc)
{
	const char *why;

	for (;;) {
		if (!sendto(rc->fd, NULL, 0, 0, NULL, 0))
			return 0;
		if (errno != EINTR)
			break;
	}
	switch (errno) {
	case ENODEV:
		return rc_fail(rc, ENODEV,
			       "sending: the transmit device went away");
	case ENOTCONN:
		return rc_fail(rc, ENOTCONN,
			       "sending: the socket is not bound to a device (rcap_bind() first)");
	case ENXIO:
		why = " (the socket has no transmit ring: rcap_set_tx_ring() before bind)";
		break;
	case EINVAL:
		why = " (the kernel refused the transmit ring's producer position or a record: the ring's memory was overwritten)";
		break;
	default:
		why = "";
	}
	return rc_fail(rc, errno, "sending: %s%s", strerror(errno), why);
}

int rcap_tx_flush(struct ringcap *rc)
{
	if (!rc->tx_hdr)
		return rc_tx_none(rc);
	/* Release: the records below it are written (diagram above). */
	if (rc->tx_pub != rc->tx_prod) {
		__atomic_store_n(&rc->tx_hdr->producer, rc->tx_prod,
				 __ATOMIC_RELEASE);
		rc->tx_pub = rc->tx_prod;
	}
	if (rc_tx_reload(rc))
		return -1;
	/* The kernel has everything: a kick would only cost a syscall. */
	if (rc->tx_comp == rc->tx_prod)
		return 0;
	if (rc_tx_kick(rc) || rc_tx_reload(rc))
		return -1;
	/* A kick stops short only where the device's queue is full. */
	return rc->tx_comp != rc->tx_prod;
}

static uint64_t rc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int rcap_tx_wait(struct ringcap *rc, int timeout_ms)
{
	uint64_t start, now, deadline = 0;
	long step = RC_TX_WAIT_MIN_NS;
	struct timespec ts;
	int ret;

	if (!rc->tx_hdr)
		return rc_tx_none(rc);
	if (timeout_ms > 0)
		deadline = rc_now_ns() + (uint64_t)timeout_ms * 1000000ULL;
	if (rc_tx_reload(rc))
		return -1;
	start = rc->tx_comp;
	for (;;) {
		ret = rcap_tx_flush(rc);
		if (ret <= 0)
			return ret < 0 ? -1 : 1;	/* all sent: all free */
		if (rc->tx_comp != start)
			return 1;
		if (!timeout_ms)
			return 0;
		/*
		 * The device's queue is full and nothing will tell us when
		 * it drains: look again after a pause that grows while it
		 * stays full (a fast NIC drains in microseconds, a stuck one
		 * should not cost a core).
		 */
		if (timeout_ms > 0) {
			now = rc_now_ns();
			if (now >= deadline)
				return 0;
			if (deadline - now < (uint64_t)step)
				step = (long)(deadline - now);
		}
		ts.tv_sec = 0;
		ts.tv_nsec = step;
		if (nanosleep(&ts, NULL))
			return rc_fail(rc, errno,
				       "waiting for the transmit ring: %s",
				       strerror(errno));
		step = step * 2 < RC_TX_WAIT_MAX_NS ? step * 2 :
		       RC_TX_WAIT_MAX_NS;
	}
}

uint32_t rcap_tx_frame_max(const struct ringcap *rc)
{
	uint32_t dev;

	return rc->tx_hdr ? rc_tx_max(rc, &dev) : 0;
}

const struct ringcap_tx_hdr *rcap_tx_hdr(const struct ringcap *rc)
{
	return rc->tx_hdr;
}

int rcap_tx_stats(struct ringcap *rc, struct ringcap_tx_stats *st)
{
	/* The first size, as in rcap_stats(). */
	socklen_t len = RINGCAP_TX_STATS_SIZE_V1;

	memset(st, 0, len);
	if (!getsockopt(rc->fd, SOL_RINGCAP, RINGCAP_TX_STATS, st, &len))
		return 0;
	return rc_fail(rc, errno, "reading the transmit counters: %s%s",
		       strerror(errno), errno == ENXIO ?
		       " (the socket has no transmit ring)" : "");
}

/* The names before libringcap 1.2 (libringcap.h). */
RC_OLD_NAME(tx_flush);
RC_OLD_NAME(tx_frame_max);
RC_OLD_NAME(tx_hdr);
RC_OLD_NAME(tx_put);
RC_OLD_NAME(tx_stats);
RC_OLD_NAME(tx_wait);
