// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The consumer side of the ring protocol (see linux/ringcap.h), waiting
 * for frames, and how many frames a wake-up should bring.
 *
 *   kernel                              reader (this file)
 *   write record(s)                     prod = load_acquire(&hdr->producer)
 *   store_release(&hdr->producer)  -->  read records in [cursor, prod)
 *                                       ...application uses the frames...
 *   cons = load_acquire(&consumer) <--  store_release(&hdr->consumer, cursor)
 *   reuse space below cons
 *
 * The acquire load of producer pairs with the kernel's release store: every
 * record below the loaded producer is fully written before we read it. The
 * release store of consumer pairs with the kernel's acquire load: all our
 * reads of the released records happen before the kernel may overwrite them.
 *
 * Zero-copy records (RINGCAP_REC_ZC) carry no frame: it stays in the NIC's
 * buffer that zc_offset names, and the same release store hands the
 * buffers of the released records back to the driver, which re-arms them
 * only then.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include "internal.h"

/*
 * The geometry comes from the kernel's answer to RINGCAP_RING_INFO, never
 * from the shared header, which any process sharing the mapping can write.
 */
void rc_attach_ring(struct ringcap *rc, struct ringcap_ring_hdr *hdr,
		    const struct ringcap_ring_info *info)
{
	rc->hdr = hdr;
	rc->map_size = info->mmap_size;
	rc->data = (uint8_t *)hdr + info->data_offset;
	rc->data_size = info->data_size;
	/* Only we write consumer, so a relaxed load sees our own value. */
	rc->cursor = __atomic_load_n(&hdr->consumer, __ATOMIC_RELAXED);
	rc->released = rc->cursor;
}

/*
 * Like the ring's geometry, the size that bounds zc_offset is what this
 * process mapped, never the header's value of the moment.
 */
void rc_attach_zc(struct ringcap *rc, const void *bufs, uint64_t size)
{
	rc->zc_bufs = bufs;
	rc->zc_size = size;
}

/* What a record says, read once: the check and the use see the same. */
struct rc_rec_fields {
	uint32_t rec_len;
	uint16_t flags;
	uint32_t caplen;
	uint32_t zc_offset;
};

/*
 * Check one record at offset off with avail bytes published after it.
 * Everything is checked before a pointer is handed out, so a corrupt ring
 * (a stray write into the shared mapping, a kernel bug) is reported and
 * never makes us read outside the data area or the buffer mapping.
 */
static int rc_check_rec(struct ringcap *rc, uint32_t off, uint64_t avail,
			const struct rc_rec_fields *f)
{
	uint32_t tail = rc->data_size - off;
	const char *what;

	if (f->rec_len < RINGCAP_REC_ALIGN || f->rec_len % RINGCAP_REC_ALIGN)
		what = "bad length";
	else if (f->rec_len > tail)
		what = "crosses the end of the data area";
	else if (f->rec_len > avail)
		what = "extends past the producer position";
	else if (f->flags & RINGCAP_REC_PAD)
		what = f->rec_len == tail ? NULL :
		       "pad record does not reach the end of the data area";
	else if (f->rec_len < sizeof(struct ringcap_rec))
		what = "shorter than a record header";
	else if (!(f->flags & RINGCAP_REC_ZC))
		what = f->caplen > f->rec_len - sizeof(struct ringcap_rec) ?
		       "caplen does not fit in the record" :
		       (f->flags & RINGCAP_REC_GAP) &&
		       f->caplen < RINGCAP_GAP_SIZE_V1 ?
		       "gap record shorter than its first size" : NULL;
	else if (!rc->zc_bufs)
		what = "zero-copy record, but no zero-copy buffers are mapped";
	else if ((uint64_t)f->zc_offset + f->caplen > rc->zc_size)
		return rc_fail(rc, EIO,
			       "corrupt ring at offset %u (position %llu): flags 0x%x zc_offset %u caplen %u: frame beyond the %llu bytes of zero-copy buffers",
			       off, (unsigned long long)rc->cursor, f->flags,
			       f->zc_offset, f->caplen,
			       (unsigned long long)rc->zc_size);
	else
		what = NULL;
	if (!what)
		return 0;
	return rc_fail(rc, EIO,
		       "corrupt ring at offset %u (position %llu): rec_len %u flags 0x%x caplen %u: %s",
		       off, (unsigned long long)rc->cursor, f->rec_len,
		       f->flags, f->caplen, what);
}

int rcap_recv_batch(struct ringcap *rc, struct ringcap_pkt *pkts, int max)
{
	const struct ringcap_rec *rec;
	struct rc_rec_fields f;
	uint64_t prod, avail;
	uint32_t off;
	int n = 0;

	if (!rc->hdr)
		return rc_fail(rc, EINVAL, "the ring is not mapped");
	if (max < 0)
		return rc_fail(rc, EINVAL, "negative batch size %d", max);

	/* Acquire: the records below prod are complete (diagram above). */
	prod = __atomic_load_n(&rc->hdr->producer, __ATOMIC_ACQUIRE);
	avail = prod - rc->cursor;
	/* u64 wrap turns a producer behind the cursor into a huge value. */
	if (avail > rc->data_size || (prod | rc->cursor) % RINGCAP_REC_ALIGN)
		return rc_fail(rc, EIO,
			       "corrupt ring: producer %llu, read position %llu, data size %u",
			       (unsigned long long)prod,
			       (unsigned long long)rc->cursor, rc->data_size);

	while (n < max && avail) {
		off = rc->cursor & (rc->data_size - 1);
		rec = (const struct ringcap_rec *)(rc->data + off);
		/*
		 * rec_len and flags are the first 8 bytes, always inside
		 * the area since off is 8-aligned; a pad record may be
		 * just that long, so read the rest only for a frame.
		 */
		f.rec_len = rec->rec_len;
		f.flags = rec->flags;
		f.caplen = 0;
		f.zc_offset = 0;
		if (!(f.flags & RINGCAP_REC_PAD) && f.rec_len >= sizeof(*rec) &&
		    f.rec_len <= rc->data_size - off) {
			f.caplen = rec->caplen;
			f.zc_offset = rec->zc_offset;
		}
		if (rc_check_rec(rc, off, avail, &f)) {
			/* Hand out the good frames; the next call fails. */
			if (n)
				break;
			return -1;
		}
		rc->cursor += f.rec_len;
		avail -= f.rec_len;
		if (f.flags & RINGCAP_REC_PAD)
			continue;
		pkts[n].rec = rec;
		/* Zero-copy: the frame stays where the NIC wrote it. */
		pkts[n].data = f.flags & RINGCAP_REC_ZC ?
			       rc->zc_bufs + f.zc_offset :
			       (const uint8_t *)(rec + 1);
		n++;
	}
	return n;
}

int rcap_gap(const struct ringcap_pkt *pkt, struct ringcap_gap *gap)
{
	uint32_t n;

	if (!(pkt->rec->flags & RINGCAP_REC_GAP))
		return 0;
	/* rcap_recv_batch() checked caplen >= RINGCAP_GAP_SIZE_V1. */
	n = pkt->rec->caplen < sizeof(*gap) ? pkt->rec->caplen : sizeof(*gap);
	memset(gap, 0, sizeof(*gap));
	memcpy(gap, pkt->data, n);
	return 1;
}

void rcap_release(struct ringcap *rc)
{
	if (!rc->hdr)
		return;
	/* Release: our reads of the frames are done before reuse. */
	__atomic_store_n(&rc->hdr->consumer, rc->cursor, __ATOMIC_RELEASE);
	rc->released = rc->cursor;
}

void rcap_release_before(struct ringcap *rc, const struct ringcap_pkt *pkt)
{
	uint32_t mask = rc->data_size - 1, off;
	uint64_t pos;

	if (!rc->hdr)
		return;
	/*
	 * The record's position is the one in [released, cursor) at its
	 * offset: that span is at most one ring long, so there is one
	 * (a record at the released position itself gives nothing back).
	 */
	off = (uint32_t)((const uint8_t *)pkt->rec - rc->data);
	pos = rc->released + ((off - (uint32_t)rc->released) & mask);
	if (pos - rc->released > rc->cursor - rc->released)
		return;		/* not a record of this batch */
	__atomic_store_n(&rc->hdr->consumer, pos, __ATOMIC_RELEASE);
	rc->released = pos;
}

/* Why poll() said POLLERR. */
static int rc_poll_error(struct ringcap *rc)
{
	socklen_t len = sizeof(int);
	int err = 0;

	if (getsockopt(rc->fd, SOL_SOCKET, SO_ERROR, &err, &len))
		return rc_fail(rc, errno, "reading the socket error: %s",
			       strerror(errno));
	/*
	 * SO_ERROR clears the error, but a device that went away keeps the
	 * socket in error: report the same errno every time.
	 */
	if (err)
		rc->sticky_err = err;
	else
		err = rc->sticky_err;
	if (err == ENODEV)
		return rc_fail(rc, err, "the capture device went away");
	if (err)
		return rc_fail(rc, err, "socket error: %s", strerror(err));
	return rc_fail(rc, EIO,
		       "the kernel refused the ring's consumer position");
}

int rcap_poll_result(struct ringcap *rc, short revents)
{
	/*
	 * Readable wins over an error: frames captured before the device
	 * went away can still be drained; the error comes once they are.
	 */
	if (revents & POLLIN)
		return 1;
	if (revents & POLLNVAL)
		return rc_fail(rc, EBADF, "poll: the socket is not open");
	if (revents & (POLLERR | POLLHUP))
		return rc_poll_error(rc);
	return 0;
}

int rcap_wait(struct ringcap *rc, int timeout_ms)
{
	struct pollfd pfd = { .fd = rc->fd, .events = POLLIN };
	int ret;

	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0)
		return rc_fail(rc, errno, "poll: %s", strerror(errno));
	return ret ? rcap_poll_result(rc, pfd.revents) : 0;
}

uint32_t rcap_batch_watermark(uint32_t data_size, uint32_t snaplen)
{
	uint32_t len = snaplen && snaplen < 1518 ? snaplen : 1518;
	uint32_t rec = (sizeof(struct ringcap_rec) + len + RINGCAP_REC_ALIGN - 1) &
		       ~(RINGCAP_REC_ALIGN - 1);
	uint32_t n = data_size / 4 / rec;

	return n < 1 ? 1 : n > RINGCAP_WATERMARK_MAX ? RINGCAP_WATERMARK_MAX : n;
}

/* The names before libringcap 1.2 (libringcap.h). */
RC_OLD_NAME(batch_watermark);
RC_OLD_NAME(poll_result);
RC_OLD_NAME(recv_batch);
RC_OLD_NAME(release);
RC_OLD_NAME(wait);
