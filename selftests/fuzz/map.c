// SPDX-License-Identifier: GPL-2.0
/*
 * rcfuzz: the mapping. mmap with right and wrong geometry, munmap whole
 * and partial, mremap, writes into every field of the shared header and
 * into the data area, reading the ring as a reader does, poll and epoll.
 *
 * Invariants (uapi/linux/ringcap.h): the producer is 8-aligned, never
 * goes back and is at most data_size ahead of a valid consumer; every
 * record below it is well formed (length, padding, caplen <= wire_len,
 * TRUNC flag, snaplen), carries the bound ifindex and queue, and test
 * frames are byte exact; poll reports only EPOLLIN/EPOLLERR, EPOLLERR
 * when the consumer is invalid or the device was deleted, never on a
 * socket that was never bound with a valid consumer, and EPOLLIN only
 * with something below the producer.
 *
 * Writes into the header or data area make later checks that depend on
 * them moot for that socket; the flags in struct fz_sock say which.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz.h"
#include "rc_frames.h"
#include "rc_util.h"

#define REC_HDR		((uint32_t)sizeof(struct ringcap_rec))

struct fz_map *fz_main_map(struct fz_sock *s)
{
	int i;

	for (i = 0; i < FZ_MAX_MAPS; i++)
		if (s->maps[i].p && s->maps[i].whole && s->maps[i].writable)
			return &s->maps[i];
	return NULL;
}

/*
 * Unmap what is left of m. Not across a hole: another mapping may have
 * been placed over it since.
 */
static void map_drop(struct fz_map *m)
{
	size_t h = m->hole ? m->hole - 1 : m->len;
	int err = 0;

	if (h && munmap(m->p, h))
		err = errno;
	if (m->hole && h + FZ_PAGE < m->len &&
	    munmap((char *)m->p + h + FZ_PAGE, m->len - h - FZ_PAGE))
		err = errno;
	FZ_EXPECT(OP_MUNMAP, err, ("munmap"), 0);
	memset(m, 0, sizeof(*m));
}

void fz_unmap_all(struct fz_worker *w, struct fz_sock *s, bool orphan)
{
	int i, j;

	for (i = 0; i < FZ_MAX_MAPS; i++) {
		if (!s->maps[i].p)
			continue;
		for (j = 0; orphan && j < FZ_MAX_ORPHANS; j++)
			if (!w->orphans[j].p)
				break;
		if (orphan && j < FZ_MAX_ORPHANS) {
			w->orphans[j] = s->maps[i];
			memset(&s->maps[i], 0, sizeof(s->maps[i]));
		} else {
			map_drop(&s->maps[i]);
		}
	}
}

/* Check the read-only part of a fresh mapping. */
static void check_desc(struct fz_sock *s, const struct ringcap_ring_hdr *h)
{
	if (s->desc_dirty || s->shared)
		return;
	fz_check(h->magic == RINGCAP_MAGIC &&
		 h->abi_version == RINGCAP_ABI_VERSION &&
		 h->rec_hdr_len == REC_HDR && h->data_offset == FZ_PAGE &&
		 h->data_size == s->info.data_size,
		 "mapped header: magic 0x%x abi %u rec_hdr_len %u data_offset %u data_size %u (RING_INFO %u)",
		 h->magic, h->abi_version, h->rec_hdr_len, h->data_offset,
		 h->data_size, s->info.data_size);
}

void fz_op_mmap(struct fz_worker *w)
{
	struct fz_sock *s = fz_pick_sock(w);
	int prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED, slot, r, err;
	struct ringcap_ring_info info;
	bool had_main;
	size_t len;
	off_t off = 0;
	void *p;

	if (!s)
		return;
	if (!s->have_info && fz_ring_info(s, &info))
		return;
	for (slot = 0; slot < FZ_MAX_MAPS && s->maps[slot].p; slot++)
		;
	if (slot == FZ_MAX_MAPS) {
		slot = fz_rnd(w, FZ_MAX_MAPS);
		map_drop(&s->maps[slot]);
	}
	had_main = fz_main_map(s);
	len = s->info.mmap_size;
	r = fz_rnd(w, 100);
	if (r < 10)
		prot = PROT_READ;
	else if (r < 22)
		len = (size_t[]){ len - FZ_PAGE, len + FZ_PAGE, FZ_PAGE,
				  len * 2, 0 }[fz_rnd(w, 5)];
	else if (r < 27)
		off = FZ_PAGE * (1 + fz_rnd(w, 3));
	else if (r < 30)
		off = fz_chance(w, 50) ? RINGCAP_ZC_MMAP_OFFSET :
					 RINGCAP_TX_MMAP_OFFSET;
	else if (r < 32)
		flags = MAP_PRIVATE;
	else if (r < 35)
		prot |= PROT_EXEC;

	p = mmap(NULL, len, prot, flags, s->fd, off);
	err = p == MAP_FAILED ? errno : 0;
	if (off == RINGCAP_ZC_MMAP_OFFSET || off == RINGCAP_TX_MMAP_OFFSET) {
		/*
		 * The other two mappings, with the receive ring's length:
		 * no zero-copy queue (ENODEV) or the wrong length (EINVAL,
		 * EACCES for PROT_WRITE); no transmit ring (ENXIO) or one
		 * that is made here (ENOMEM, ENOBUFS) and is not that long.
		 */
		if (off == RINGCAP_ZC_MMAP_OFFSET && !s->zerocopy && !s->shared)
			FZ_EXPECT(OP_MMAP, err, ("mmap(zero-copy offset, len %zu)", len),
				  ENODEV);
		else if (off == RINGCAP_ZC_MMAP_OFFSET)
			FZ_EXPECT(OP_MMAP, err, ("mmap(zero-copy offset, len %zu)", len),
				  0, ENODEV, EINVAL, EACCES);
		else if (!s->tx_size && !s->shared)
			FZ_EXPECT(OP_MMAP, err, ("mmap(transmit offset, len %zu)", len),
				  ENXIO);
		else
			FZ_EXPECT(OP_MMAP, err, ("mmap(transmit offset, len %zu)", len),
				  0, EINVAL, ENXIO, ENOMEM, ENOBUFS);
		if (!err)
			munmap(p, len);
		if (off == RINGCAP_TX_MMAP_OFFSET && s->tx_size && !s->shared &&
		    err != ENXIO && err != ENOMEM && err != ENOBUFS)
			s->tx = 2;
		return;
	}
	if (len != s->info.mmap_size || off)
		FZ_EXPECT(OP_MMAP, err, ("mmap(len %zu, offset %ld)", len, (long)off), EINVAL);
	else if (flags == MAP_PRIVATE)
		FZ_EXPECT(OP_MMAP, err, ("mmap(MAP_PRIVATE)"), 0, EINVAL, EPERM,
			  EACCES, ENOMEM);
	else if (prot & PROT_EXEC)
		FZ_EXPECT(OP_MMAP, err, ("mmap(PROT_EXEC)"), 0, EPERM, EACCES);
	else
		FZ_EXPECT(OP_MMAP, err, ("mmap(prot %d)", prot), 0, ENOMEM, ENOBUFS);
	if (err)
		return;
	s->maps[slot] = (struct fz_map){ p, len, flags == MAP_SHARED,
					 !!(prot & PROT_WRITE) };
	check_desc(s, p);
	if (!had_main && fz_main_map(s))
		s->cons = __atomic_load_n(&((struct ringcap_ring_hdr *)p)->consumer,
					  __ATOMIC_ACQUIRE);
}

static struct fz_map *pick_map(struct fz_worker *w, struct fz_sock **sp)
{
	struct fz_sock *s = fz_pick_sock(w);
	int i, j = fz_rnd(w, FZ_MAX_MAPS + FZ_MAX_ORPHANS);

	*sp = NULL;
	for (i = 0; i < FZ_MAX_MAPS + FZ_MAX_ORPHANS; i++, j++) {
		j %= FZ_MAX_MAPS + FZ_MAX_ORPHANS;
		if (j < FZ_MAX_MAPS && s && s->maps[j].p) {
			*sp = s;
			return &s->maps[j];
		}
		if (j >= FZ_MAX_MAPS && w->orphans[j - FZ_MAX_MAPS].p)
			return &w->orphans[j - FZ_MAX_MAPS];
	}
	return NULL;
}

void fz_op_munmap(struct fz_worker *w)
{
	struct fz_sock *s;
	struct fz_map *m = pick_map(w, &s);
	size_t off;
	int err;

	if (!m)
		return;
	if (!m->whole || m->len < 2 * FZ_PAGE || fz_chance(w, 60)) {
		map_drop(m);
		return;
	}
	/* A hole: the header, the last page or one in between. */
	off = (size_t[]){ 0, m->len - FZ_PAGE,
			  FZ_PAGE * fz_rnd(w, m->len / FZ_PAGE) }[fz_rnd(w, 3)];
	err = munmap((char *)m->p + off, FZ_PAGE) ? errno : 0;
	FZ_EXPECT(OP_MUNMAP, err, ("munmap(one page at %zu)", off), 0);
	m->whole = false;	/* only unmapped from now on */
	m->hole = off + 1;
}

void fz_op_mremap(struct fz_worker *w)
{
	struct fz_sock *s;
	struct fz_map *m = pick_map(w, &s);
	void *p, *to;
	int err;

	if (!m || !m->whole)
		return;
	switch (fz_rnd(w, 4)) {
	case 0:		/* shrink to the header */
		p = mremap(m->p, m->len, FZ_PAGE, 0);
		err = p == MAP_FAILED ? errno : 0;
		FZ_EXPECT(OP_MREMAP, err, ("mremap(shrink)"), 0, ENOMEM);
		if (!err) {
			m->whole = false;
			m->len = FZ_PAGE;
		}
		break;
	case 1:		/* grow: the ring cannot (CONTRACTS.md) */
		p = mremap(m->p, m->len, m->len + FZ_PAGE,
			   fz_chance(w, 50) ? MREMAP_MAYMOVE : 0);
		err = p == MAP_FAILED ? errno : 0;
		FZ_EXPECT(OP_MREMAP, err, ("mremap(grow)"), EFAULT);
		if (!err) {
			m->p = p;
			m->len += FZ_PAGE;
			m->whole = false;
		}
		break;
	default:	/* move the whole ring elsewhere */
		to = mmap(NULL, m->len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
		if (to == MAP_FAILED)
			return;
		p = mremap(m->p, m->len, m->len,
			   MREMAP_MAYMOVE | MREMAP_FIXED, to);
		err = p == MAP_FAILED ? errno : 0;
		FZ_EXPECT(OP_MREMAP, err, ("mremap(move)"), 0, ENOMEM);
		if (err) {
			munmap(to, m->len);
			return;
		}
		m->p = p;
		if (s && m == fz_main_map(s))
			check_desc(s, p);
	}
}

static uint64_t garbage64(struct fz_worker *w)
{
	static const uint64_t odd[] = { 0, 1, 7, 8, 0xffffffffull,
		0x100000000ull, ~0ull, 1ull << 63, 4096, 4095 };

	return fz_chance(w, 50) ? odd[fz_rnd(w, 10)] : fz_rand(&w->rng);
}

/* Quietly: when someone wrote the producer, the kernel's next commit
 * rewrites it, which a later STATS received shows.
 */
static uint64_t stats_received(struct fz_sock *s)
{
	struct ringcap_stats st;

	return rc_stats(s->fd, &st) ? ~0ull : st.received;
}

void fz_op_hdr_write(struct fz_worker *w)
{
	struct fz_sock *s = fz_pick_sock(w);
	struct fz_map *m = s ? fz_main_map(s) : NULL;
	struct ringcap_ring_hdr *h;
	uint64_t prod, v = 0;
	struct pollfd pfd;
	int field, off;
	bool strict = false;

	if (!m)
		return;
	h = m->p;
	field = fz_rnd(w, 10);
	switch (field) {
	case 0:		/* the read-only description */
		off = fz_rnd(w, 128) & ~3;
		*(volatile uint32_t *)((char *)h + off) = fz_rand(&w->rng);
		s->desc_dirty = true;
		break;
	case 1:
		s->prod_stale_recv = stats_received(s);
		__atomic_store_n(&h->producer, garbage64(w), __ATOMIC_RELEASE);
		s->prod_stale = true;
		break;
	case 2:		/* the counter mirror */
		(&h->received)[fz_rnd(w, 4)] = garbage64(w);
		s->hdr_cnt_ok = false;
		break;
	case 3:		/* padding and the rest of the page */
		off = 168 + (fz_rnd(w, FZ_PAGE - 176) & ~7);
		if (off >= 256 && off < 264)
			off += 8;
		*(volatile uint64_t *)((char *)h + off) = fz_rand(&w->rng);
		break;
	default:	/* the consumer, the one field the kernel reads */
		prod = __atomic_load_n(&h->producer, __ATOMIC_ACQUIRE);
		switch (fz_rnd(w, 4)) {
		case 0:
			v = s->cons + 1 + fz_rnd(w, 7);	/* unaligned */
			strict = true;
			break;
		case 1:	/* more than a ring behind, forever */
			v = prod - s->info.data_size - 8;
			strict = !s->prod_stale && s->have_info;
			break;
		case 2:
			v = prod + 8 * (1 + fz_rnd(w, 1000));	/* ahead */
			break;
		default:
			v = garbage64(w);
		}
		__atomic_store_n(&h->consumer, v, __ATOMIC_RELEASE);
		s->walk_ok = false;
		s->cons_ever_bad = true;
		if (!strict || s->vandal)
			break;
		pfd = (struct pollfd){ .fd = s->fd, .events = POLLIN };
		poll(&pfd, 1, 0);
		fz_check(pfd.revents & POLLERR,
			 "poll gives 0x%x with consumer %llu (producer %llu): no POLLERR",
			 pfd.revents, (unsigned long long)v,
			 (unsigned long long)prod);
	}
	fz_count(OP_HDR_WRITE, 0);
}

void fz_op_data_write(struct fz_worker *w)
{
	struct fz_sock *s = fz_pick_sock(w);
	struct fz_map *m = s ? fz_main_map(s) : NULL;
	uint8_t *d;
	int i, n;

	if (!m)
		return;
	d = (uint8_t *)m->p + FZ_PAGE;
	n = 1 + fz_rnd(w, 64);
	for (i = 0; i < n; i++)
		d[fz_rnd(w, s->info.data_size)] = fz_rand(&w->rng);
	s->walk_ok = false;
	fz_count(OP_DATA_WRITE, 0);
}

/* Is ifindex one of the worker's sim or veth devices (byte checks)? */
static bool own_dev(struct fz_worker *w, struct fz_sock *s)
{
	return s->dev >= 0 && w->devs[s->dev].ifindex == s->ifindex;
}

/*
 * Each frame reaches each bound socket once (CONTRACTS.md), whatever
 * happens between the driver and the stack: a test frame from a sim must
 * not come twice. The frames of the worker and of the traffic process are
 * numbered apart.
 */
static void check_once(struct fz_worker *w, struct fz_sock *s,
		       const struct rc_spec *sp)
{
	int k = sp->run == w->run ? 0 : sp->run == FZ_TRAFFIC_RUN ? 1 : -1;
	uint8_t bit;

	if (k < 0 || sp->seq >= FZ_SEQ_BITS)
		return;
	if (!s->seen[k])
		s->seen[k] = calloc(FZ_SEQ_BITS / 8, 1);
	if (!s->seen[k])
		return;
	bit = 1u << (sp->seq & 7);
	fz_check(!(s->seen[k][sp->seq / 8] & bit),
		 "frame %u of run %u reached the socket on %s twice",
		 sp->seq, sp->run, w->devs[s->dev].name);
	s->seen[k][sp->seq / 8] |= bit;
}

static bool check_rec(struct fz_worker *w, struct fz_sock *s,
		      const struct ringcap_rec *rec, uint32_t off)
{
	uint32_t size = s->info.data_size;
	struct rc_spec sp;
	char why[160];

	if (!fz_check(rec->rec_len % RINGCAP_REC_ALIGN == 0 &&
		      rec->rec_len >= 8 && rec->rec_len <= size - off,
		      "record at offset %u: rec_len %u (data_size %u)", off,
		      rec->rec_len, size))
		return false;
	if (rec->flags & RINGCAP_REC_PAD)
		return fz_check(rec->rec_len == size - off,
				"pad at offset %u covers %u bytes, not to the end (%u)",
				off, rec->rec_len, size - off);
	/* A gap record: only where asked for, its counts after it. */
	if (rec->flags & RINGCAP_REC_GAP)
		return fz_check((s->gaps || s->shared) &&
				rec->flags == RINGCAP_REC_GAP &&
				rec->caplen == sizeof(struct ringcap_gap) &&
				rec->rec_len == ((REC_HDR + rec->caplen + 7) & ~7u) &&
				!rec->wire_len,
				"gap record at offset %u: rec_len %u caplen %u wire_len %u flags 0x%x (GAPS %u)",
				off, rec->rec_len, rec->caplen, rec->wire_len,
				rec->flags, s->gaps);
	/* Zero-copy: the frame is in the buffer mapping (zc.c reads it). */
	if (rec->flags & RINGCAP_REC_ZC)
		return fz_check((s->zerocopy || s->shared) &&
				rec->rec_len == REC_HDR &&
				rec->caplen <= rec->wire_len,
				"zero-copy record at offset %u: rec_len %u caplen %u wire_len %u (ZEROCOPY %u)",
				off, rec->rec_len, rec->caplen, rec->wire_len,
				s->zerocopy);
	if (!fz_check(rec->rec_len == ((REC_HDR + rec->caplen + 7) & ~7u) &&
		      rec->caplen <= rec->wire_len &&
		      rec->caplen <= s->max_snaplen &&
		      !!(rec->flags & RINGCAP_REC_TRUNC) ==
		      (rec->caplen < rec->wire_len) && !rec->zc_offset,
		      "record at offset %u: rec_len %u caplen %u wire_len %u flags 0x%x (snaplen at most %u)",
		      off, rec->rec_len, rec->caplen, rec->wire_len,
		      rec->flags, s->max_snaplen))
		return false;
	if (s->bound && !s->shared) {
		fz_check(rec->ifindex == s->ifindex,
			 "record ifindex %d, socket bound to %d",
			 rec->ifindex, s->ifindex);
		if (s->queue != RINGCAP_QUEUE_ANY)
			fz_check(rec->queue == s->queue,
				 "record of queue %u, socket bound to queue %d",
				 rec->queue, s->queue);
	}
	if (own_dev(w, s) && rec->caplen >= RC_HDR_LEN &&
	    ((const uint8_t *)(rec + 1))[12] == (RC_ETH_P_TEST >> 8) &&
	    ((const uint8_t *)(rec + 1))[13] == (RC_ETH_P_TEST & 0xff) &&
	    __atomic_add_fetch(&fz->frames_checked, 1, __ATOMIC_RELAXED))
		if (fz_check(!rc_frame_check((const uint8_t *)(rec + 1),
					     rec->caplen, rec->wire_len, &sp,
					     why, sizeof(why)),
			     "frame on %s: %s", w->devs[s->dev].name, why) &&
		    w->devs[s->dev].sim && !s->shared)
			check_once(w, s, &sp);
	return true;
}

/* After someone scribbled: take the producer as the new consumer. */
static void resync(struct fz_worker *w, struct fz_sock *s)
{
	struct fz_map *m = fz_main_map(s);
	struct ringcap_ring_hdr *h;

	if (!m || s->walk_ok || s->prod_stale || s->vandal || w->child)
		return;
	h = m->p;
	s->cons = __atomic_load_n(&h->producer, __ATOMIC_ACQUIRE) & ~7ull;
	__atomic_store_n(&h->consumer, s->cons, __ATOMIC_RELEASE);
	s->last_prod = s->cons;
	s->walk_ok = true;
}

void fz_op_read(struct fz_worker *w)
{
	struct fz_sock *s = fz_pick_sock(w);
	struct fz_map *m = s ? fz_main_map(s) : NULL;
	struct ringcap_ring_hdr *h;
	const struct ringcap_rec *rec;
	unsigned int n = 0, max;
	uint64_t prod;
	uint32_t off;

	if (!m)
		return;
	if (!s->walk_ok || s->prod_stale || s->vandal) {
		fz_sock_check_stats(w, s);
		resync(w, s);
		return;
	}
	h = m->p;
	fz_count(OP_READ, 0);
	/* Acquire pairs with the kernel's release store of producer. */
	prod = __atomic_load_n(&h->producer, __ATOMIC_ACQUIRE);
	if (!fz_check(!(prod & 7) && prod >= s->last_prod &&
		      prod - s->cons <= s->info.data_size && prod >= s->cons,
		      "producer %llu (was %llu), consumer %llu, data_size %u",
		      (unsigned long long)prod,
		      (unsigned long long)s->last_prod,
		      (unsigned long long)s->cons, s->info.data_size)) {
		s->walk_ok = false;
		return;
	}
	s->last_prod = prod;
	max = fz_chance(w, 20) ? 1 + fz_rnd(w, 8) : 1024;
	while (s->cons < prod && n++ < max) {
		off = s->cons & (s->info.data_size - 1);
		rec = (const void *)((uint8_t *)m->p + FZ_PAGE + off);
		if (!check_rec(w, s, rec, off)) {
			s->walk_ok = false;
			return;
		}
		s->cons += rec->rec_len;
		__atomic_add_fetch(&fz->records, 1, __ATOMIC_RELAXED);
	}
	/* Release: our reads are done before the kernel reuses the space. */
	__atomic_store_n(&h->consumer, s->cons, __ATOMIC_RELEASE);
	if (fz_chance(w, 30))
		fz_sock_check_stats(w, s);
}

static void check_revents(struct fz_worker *w, struct fz_sock *s, int re)
{
	struct fz_map *m = fz_main_map(s);
	uint64_t prod;

	/* POLLOUT: room in a transmit ring, which only TX_RING_SIZE makes */
	fz_check(!(re & ~(POLLIN | POLLRDNORM | POLLERR |
			  (s->tx_size || s->shared ? POLLOUT | POLLWRNORM : 0))),
		 "poll revents 0x%x (TX_RING_SIZE %u)", re, s->tx_size);
	if (!s->bound && !s->gone && !s->cons_ever_bad && !s->shared)
		fz_check(!(re & POLLERR),
			 "POLLERR on a socket never bound, consumer valid");
	if (s->must_be_gone)
		fz_check(re & POLLERR,
			 "no POLLERR after its device %s was deleted",
			 s->dev >= 0 ? w->devs[s->dev].name : "?");
	if ((re & POLLIN) && m && s->walk_ok && !s->prod_stale &&
	    !s->vandal && !(re & POLLERR)) {
		prod = __atomic_load_n(&((struct ringcap_ring_hdr *)m->p)->producer,
				       __ATOMIC_ACQUIRE);
		fz_check(prod > s->cons,
			 "POLLIN with nothing to read (producer %llu, consumer %llu)",
			 (unsigned long long)prod, (unsigned long long)s->cons);
	}
}

void fz_op_poll(struct fz_worker *w)
{
	struct pollfd pfd[3];
	struct fz_sock *s[3];
	int n = 1 + fz_rnd(w, 3), i, r, err;

	if (!w->nsocks)
		return;
	for (i = 0; i < n; i++) {
		s[i] = fz_pick_sock(w);
		if (fz_chance(w, 20))
			resync(w, s[i]);
		pfd[i] = (struct pollfd){ .fd = s[i]->fd,
			.events = POLLIN | POLLRDNORM | POLLOUT | POLLPRI };
	}
	r = poll(pfd, n, fz_chance(w, 80) ? fz_rnd(w, 3) : 20);
	err = r < 0 ? errno : 0;
	FZ_EXPECT(OP_POLL, err, ("poll"), 0);
	for (i = 0; !err && i < n; i++)
		check_revents(w, s[i], pfd[i].revents);
}

void fz_op_epoll(struct fz_worker *w)
{
	struct epoll_event ev[4];
	struct fz_sock *s = fz_pick_sock(w);
	int n, i, err;

	if (w->epfd < 0)
		w->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (w->epfd < 0 || !s)
		return;
	switch (fz_rnd(w, 4)) {
	case 0:
		ev[0] = (struct epoll_event){ .events = EPOLLIN |
			(fz_chance(w, 30) ? EPOLLET : 0), .data.fd = s->fd };
		err = epoll_ctl(w->epfd, EPOLL_CTL_ADD, s->fd, &ev[0]) ?
		      errno : 0;
		FZ_EXPECT(OP_EPOLL, err, ("epoll_ctl(ADD)"), 0, EEXIST);
		break;
	case 1:
		err = epoll_ctl(w->epfd, EPOLL_CTL_DEL, s->fd, NULL) ?
		      errno : 0;
		FZ_EXPECT(OP_EPOLL, err, ("epoll_ctl(DEL)"), 0, ENOENT);
		break;
	default:
		n = epoll_wait(w->epfd, ev, 4, fz_rnd(w, 3));
		err = n < 0 ? errno : 0;
		FZ_EXPECT(OP_EPOLL, err, ("epoll_wait"), 0);
		for (i = 0; i < n; i++)
			fz_check(!(ev[i].events & ~(EPOLLIN | EPOLLRDNORM |
						    EPOLLERR)),
				 "epoll events 0x%x", ev[i].events);
	}
}
