// SPDX-License-Identifier: GPL-2.0
/*
 * rcfuzz: the transmit ring and RINGCAP_CAPTURE, one session per call.
 *
 * A socket that captures or not, with a transmit ring of a random size (or
 * none, or a size the module must refuse), is bound to a veth pair of the
 * session's own, to lo, or in worker 0 to one of the 82574Ls (which
 * fuzz.sh's driver side takes down, unbinds and reloads meanwhile), or not
 * at all. Its transmit ring is mapped with right and wrong protections and
 * lengths; then come rounds of records at random -- frames of every length
 * around the device's frame_max, too short, pads, and now and then a
 * garbage record or producer -- each round kicked by up to four threads at
 * once (send, write, sendto of 0 bytes and poll for POLLOUT, each thread
 * on its own dup of the socket, so that the main thread may close its
 * descriptor under them) while the session takes its device down, up or
 * away. A second socket on the pair's other end, capturing or not, sees
 * what was sent.
 *
 * Checked (uapi/linux/ringcap.h, CONTRACTS.md): every kick's errno (EINVAL
 * only after garbage, ENODEV only where the device may have gone, ENOTCONN
 * unbound, ENXIO without a ring; a data send is EINVAL); the mapped
 * header's description; completion 8-aligned, never back, never past the
 * producer; TX_STATS never back, and sent + refused never more than the
 * records put; a socket with RINGCAP_CAPTURE 0 receives nothing.
 */
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include "fuzz.h"
#include "rc_util.h"

#define TX_REC		((uint32_t)sizeof(struct ringcap_tx_rec))
#define ALIGN8(x)	(((x) + 7u) & ~7u)

struct tx_sess {
	int fd;			/* the main thread's; -1 once it closed it */
	int sfd;		/* a dup kept for TX_STATS to the end */
	struct ringcap_tx_hdr *hdr;
	uint8_t *data;
	size_t map_len;
	uint32_t size;
	uint64_t prod;		/* our producer: valid unless tainted */
	uint64_t put;		/* well-formed frame records written */
	uint64_t last_comp;
	struct ringcap_tx_stats last;
	bool have_last;
	bool has_tx;		/* the socket has a transmit ring */
	bool bound;
	/* read by the kick threads while the main thread changes them */
	int tainted;		/* garbage written: kicks may be EINVAL */
	int dev_may_go;		/* the device may be gone: ENODEV */
};

struct kicker {
	struct tx_sess *t;
	int fd;
	uint64_t rng;
	int kicks;
	pthread_t th;
};

static int kick_expect(struct tx_sess *t, int err, const char *how)
{
	int set[6], n = 0;

	set[n++] = 0;
	if (__atomic_load_n(&t->tainted, __ATOMIC_ACQUIRE))
		set[n++] = EINVAL;
	if (__atomic_load_n(&t->dev_may_go, __ATOMIC_ACQUIRE))
		set[n++] = ENODEV;
	if (!t->bound)
		set[n++] = t->has_tx ? ENOTCONN : ENXIO;
	else if (!t->has_tx)
		set[n++] = ENXIO;
	set[n] = -1;
	return FZ_EXPECTF(OP_TX_KICK, err, set, "tx kick by %s (tx %d bound %d)",
			  how, t->has_tx, t->bound);
}

static void *kick_thread(void *arg)
{
	struct kicker *k = arg;
	struct pollfd pfd;
	char byte = 0;
	int i, r, err;

	for (i = 0; i < k->kicks && !fz->stop; i++) {
		r = fz_rand(&k->rng) % 100;
		if (r < 40) {
			err = send(k->fd, NULL, 0, MSG_DONTWAIT) ? errno : 0;
			kick_expect(k->t, err, "send");
		} else if (r < 55) {
			err = write(k->fd, &byte, 0) ? errno : 0;
			kick_expect(k->t, err, "write");
		} else if (r < 70) {
			err = sendto(k->fd, NULL, 0, 0, NULL, 0) ? errno : 0;
			kick_expect(k->t, err, "sendto");
		} else if (r < 95) {
			pfd = (struct pollfd){ .fd = k->fd, .events = POLLOUT };
			err = poll(&pfd, 1, r & 1) < 0 ? errno : 0;
			FZ_EXPECT(OP_TX_KICK, err, ("poll(POLLOUT)"), 0);
			fz_check(!(pfd.revents & ~(POLLOUT | POLLWRNORM | POLLIN |
						   POLLRDNORM | POLLERR)),
				 "transmit socket: poll revents 0x%x", pfd.revents);
			if (!k->t->has_tx)
				fz_check(!(pfd.revents & POLLOUT),
					 "POLLOUT without a transmit ring");
		} else {
			/* a send with data is not how frames go out */
			err = send(k->fd, &byte, 1, MSG_DONTWAIT) < 0 ? errno : 0;
			FZ_EXPECT(OP_TX_KICK, err, ("send(1 byte)"), EINVAL);
		}
	}
	close(k->fd);
	return NULL;
}

/* An Ethernet frame of len bytes (what fits of it) at p. */
static void fill_frame(struct fz_worker *w, uint8_t *p, uint32_t len)
{
	static const uint8_t head[14] = { 0x02, 0, 0, 0, 0xfe, 0x01,
					  0x02, 0, 0, 0, 0xfe, 0x02, 0x88, 0xb5 };
	uint32_t i;

	memcpy(p, head, len < 14 ? len : 14);
	for (i = 14; i < len && i < 64; i++)
		p[i] = fz_rnd(w, 256);
}

/*
 * One round of records from our producer, within what completion has
 * given back; a garbage record or producer taints the session.
 */
static void put_records(struct fz_worker *w, struct tx_sess *t, bool last)
{
	uint32_t fmax = t->hdr->frame_max ?: 1514, off, tail, len, rec_len;
	uint64_t comp = __atomic_load_n(&t->hdr->completion, __ATOMIC_ACQUIRE);
	int n = 1 + fz_rnd(w, 48), i, r;
	struct ringcap_tx_rec rec;

	for (i = 0; i < n; i++) {
		off = t->prod & (t->size - 1);
		tail = t->size - off;
		r = fz_rnd(w, 100);
		len = r < 55 ? 60 + fz_rnd(w, 1455) :
		      r < 65 ? fmax - fz_rnd(w, 2) :
		      r < 75 ? fmax + 1 + fz_rnd(w, 100) :
		      r < 82 ? fz_rnd(w, 14) :
		      r < 88 ? fz_rnd(w, t->size / 2) : 0;
		if (len > t->size)
			len = t->size;	/* too long all the same */
		rec_len = ALIGN8(TX_REC + len);
		memset(&rec, 0, sizeof(rec));
		if (r >= 88 && last && fz_chance(w, 50)) {
			/* garbage: a length the kick must refuse (< 8, odd) */
			rec.rec_len = fz_chance(w, 50) ? fz_rnd(w, 8) :
							 (uint32_t)fz_rand(&w->rng) | 1;
			rec.len = fz_rand(&w->rng);
			rec.flags = fz_rnd(w, 4);
			if (t->prod + 8 - comp > t->size)
				break;
			memcpy(t->data + off, &rec, tail < TX_REC ? 8 : TX_REC);
			__atomic_store_n(&t->tainted, 1, __ATOMIC_RELEASE);
			t->prod += 8;
			break;
		}
		if (r >= 88)
			continue;
		if (rec_len > tail) {
			/* a pad to the end; the record goes to offset 0 */
			if (t->prod + tail - comp > t->size)
				break;
			rec.rec_len = tail;
			rec.flags = RINGCAP_TX_PAD;
			memcpy(t->data + off, &rec, tail < TX_REC ? 8 : TX_REC);
			t->prod += tail;
			off = 0;
			tail = t->size;
			if (rec_len > tail)
				break;
		}
		if (t->prod + rec_len - comp > t->size)
			break;
		rec.rec_len = rec_len;
		rec.flags = 0;		/* not the pad's */
		rec.len = len;
		memcpy(t->data + off, &rec, TX_REC);
		fill_frame(w, t->data + off + TX_REC, len);
		t->prod += rec_len;
		t->put++;
	}
	if (last && fz_chance(w, 10)) {
		/* a producer the kick must refuse: unaligned or too far */
		__atomic_store_n(&t->tainted, 1, __ATOMIC_RELEASE);
		__atomic_store_n(&t->hdr->producer,
				 fz_chance(w, 50) ? t->prod + 1 + fz_rnd(w, 7) :
						    comp + t->size + 8,
				 __ATOMIC_RELEASE);
		return;
	}
	/* Release: the records are written before the kernel may read them. */
	__atomic_store_n(&t->hdr->producer, t->prod, __ATOMIC_RELEASE);
}

/* TX_STATS and the header after a round: monotonic, within bounds. */
static void check_round(struct tx_sess *t)
{
	struct ringcap_tx_stats st;
	socklen_t len = sizeof(st);
	uint64_t comp, refused;
	const uint64_t *a, *b;
	int err, i;

	err = getsockopt(t->sfd, SOL_RINGCAP, RINGCAP_TX_STATS, &st, &len) ?
	      errno : 0;
	fz_count_opt(false, RINGCAP_TX_STATS);
	if (!t->has_tx) {
		FZ_EXPECT(OP_TX, err, ("TX_STATS without a transmit ring"), ENXIO);
		return;
	}
	if (!t->bound && !t->hdr) {
		/* no ring until bind, TX_INFO or mmap made it */
		FZ_EXPECT(OP_TX, err, ("TX_STATS before bind"), 0, ENXIO);
		if (err)
			return;
	} else if (!FZ_EXPECT(OP_TX, err, ("TX_STATS"), 0) || err) {
		return;
	}
	refused = st.refused_len + st.refused_down;
	fz_check(st.sent + refused <= t->put,
		 "TX_STATS sent %llu + refused %llu (len %llu, down %llu) > %llu records put",
		 (unsigned long long)st.sent, (unsigned long long)refused,
		 (unsigned long long)st.refused_len,
		 (unsigned long long)st.refused_down,
		 (unsigned long long)t->put);
	if (t->have_last) {
		a = (const uint64_t *)&t->last;
		b = (const uint64_t *)&st;
		for (i = 0; i < 6; i++)
			fz_check(b[i] >= a[i], "TX_STATS field %d went back from %llu to %llu",
				 i, (unsigned long long)a[i],
				 (unsigned long long)b[i]);
	}
	t->last = st;
	t->have_last = true;
	if (!t->hdr)
		return;
	comp = __atomic_load_n(&t->hdr->completion, __ATOMIC_ACQUIRE);
	if (st.bad_producer && !__atomic_load_n(&t->tainted, __ATOMIC_ACQUIRE)) {
		const struct ringcap_tx_rec *r = (const void *)
			(t->data + (comp & (t->size - 1)));

		fz_check(false, "tx: %llu kicks refused with no garbage written: completion %llu producer %llu (ours %llu), size %u, frame_max %u; record there: rec_len %u flags 0x%x len %u",
			 (unsigned long long)st.bad_producer,
			 (unsigned long long)comp,
			 (unsigned long long)t->hdr->producer,
			 (unsigned long long)t->prod, t->size,
			 t->hdr->frame_max, r->rec_len, r->flags, r->len);
		__atomic_store_n(&t->tainted, 1, __ATOMIC_RELEASE);
	}
	fz_check(!(comp & 7) && comp >= t->last_comp && comp <= t->prod,
		 "tx completion %llu (was %llu), producer %llu",
		 (unsigned long long)comp, (unsigned long long)t->last_comp,
		 (unsigned long long)t->prod);
	t->last_comp = comp;
	fz_check(__atomic_load_n(&t->hdr->sent, __ATOMIC_RELAXED) <= st.sent &&
		 __atomic_load_n(&t->hdr->refused, __ATOMIC_RELAXED) <= refused,
		 "tx header sent %llu refused %llu ahead of TX_STATS %llu %llu",
		 (unsigned long long)t->hdr->sent,
		 (unsigned long long)t->hdr->refused,
		 (unsigned long long)st.sent, (unsigned long long)refused);
}

/* Map the transmit ring, now and then wrongly first. */
static void tx_map(struct fz_worker *w, struct tx_sess *t)
{
	struct ringcap_ring_info info;
	socklen_t len = sizeof(info);
	int prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED, err, r;
	size_t mlen;
	void *p;

	err = getsockopt(t->fd, SOL_RINGCAP, RINGCAP_TX_INFO, &info, &len) ?
	      errno : 0;
	fz_count_opt(false, RINGCAP_TX_INFO);
	if (!t->has_tx) {
		FZ_EXPECT(OP_TX, err, ("TX_INFO without a ring"), ENXIO);
		return;
	}
	FZ_EXPECT(OP_TX, err, ("TX_INFO"), 0, ENOMEM, ENOBUFS);
	if (err)
		return;
	fz_check(info.data_offset == FZ_PAGE && info.data_size == t->size &&
		 info.mmap_size == FZ_PAGE + (uint64_t)t->size,
		 "TX_INFO data_offset %u data_size %u mmap_size %llu, TX_RING_SIZE %u",
		 info.data_offset, info.data_size,
		 (unsigned long long)info.mmap_size, t->size);
	mlen = info.mmap_size;
	r = fz_rnd(w, 100);
	if (r < 8)
		prot = PROT_READ;
	else if (r < 14)
		mlen = (size_t[]){ mlen - FZ_PAGE, mlen + FZ_PAGE, FZ_PAGE }[fz_rnd(w, 3)];
	else if (r < 18)
		flags = MAP_PRIVATE;
	else if (r < 21)
		flags |= MAP_POPULATE;
	p = mmap(NULL, mlen, prot, flags, t->fd, RINGCAP_TX_MMAP_OFFSET);
	err = p == MAP_FAILED ? errno : 0;
	if (mlen != info.mmap_size)
		FZ_EXPECT(OP_TX_MMAP, err, ("tx mmap(len %zu)", mlen), EINVAL);
	else if (flags & MAP_PRIVATE)
		FZ_EXPECT(OP_TX_MMAP, err, ("tx mmap(MAP_PRIVATE)"), 0, EINVAL,
			  EPERM, EACCES, ENOMEM);
	else
		FZ_EXPECT(OP_TX_MMAP, err, ("tx mmap(prot %d)", prot), 0, ENOMEM);
	if (err)
		return;
	if (mlen != info.mmap_size || prot != (PROT_READ | PROT_WRITE) ||
	    (flags & MAP_PRIVATE)) {
		/* nothing to write records into: look, then go */
		munmap(p, mlen);
		return;
	}
	t->hdr = p;
	t->map_len = mlen;
	t->data = (uint8_t *)p + FZ_PAGE;
	fz_check(t->hdr->magic == RINGCAP_TX_MAGIC &&
		 t->hdr->abi_version == RINGCAP_ABI_VERSION &&
		 t->hdr->rec_hdr_len == TX_REC &&
		 t->hdr->data_offset == FZ_PAGE && t->hdr->data_size == t->size,
		 "tx header: magic 0x%x abi %u rec_hdr_len %u data_offset %u data_size %u",
		 t->hdr->magic, t->hdr->abi_version, t->hdr->rec_hdr_len,
		 t->hdr->data_offset, t->hdr->data_size);
	t->prod = t->last_comp =
		__atomic_load_n(&t->hdr->completion, __ATOMIC_ACQUIRE);
}

/* The device for the session: 0 = none, else its ifindex. */
static int tx_device(struct fz_worker *w, char *a, char *b, bool *nic)
{
	char name[IFNAMSIZ];
	int idx, r = fz_rnd(w, 100);

	*nic = false;
	a[0] = b[0] = '\0';
	if (r < 5)
		return 0;
	if (r < 12)
		return 1;
	if (w->init_netns && r < 45) {
		snprintf(name, sizeof(name), "rce%u", fz_rnd(w, 3));
		idx = if_nametoindex(name);
		if (idx) {
			*nic = true;
			return idx;
		}
	}
	idx = fz_session_veth(w, a, b);
	return idx > 0 ? idx : 1;
}

static int tx_socket(struct fz_worker *w, uint32_t capture)
{
	int fd = socket(fz_family, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	uint32_t rs = 4096u << fz_rnd(w, 4);

	FZ_EXPECT(OP_TX, fd < 0 ? errno : 0, ("socket"), 0, ENOMEM, ENOBUFS);
	if (fd < 0)
		return -1;
	/* small receive rings: each socket has one, used or not */
	FZ_EXPECT(OP_TX, -rc_setopt(fd, RINGCAP_RING_SIZE, rs),
		  ("RING_SIZE %u", rs), 0, EINVAL);
	fz_count_opt(true, RINGCAP_RING_SIZE);
	FZ_EXPECT(OP_TX, -rc_setopt(fd, RINGCAP_CAPTURE, capture),
		  ("CAPTURE %u before bind", capture), 0);
	fz_count_opt(true, RINGCAP_CAPTURE);
	return fd;
}

/* The pair's other end, capturing or not: what did it receive? */
static int watcher(struct fz_worker *w, const char *b, uint32_t capture)
{
	int fd, idx = if_nametoindex(b), err;

	if (!idx)
		return -1;
	fd = tx_socket(w, capture);
	if (fd < 0)
		return -1;
	err = -rc_bind(fd, idx, RINGCAP_QUEUE_ANY);
	FZ_EXPECT(OP_TX, err, ("bind the watcher"), 0, ENOMEM, ENOBUFS);
	if (err) {
		close(fd);
		return -1;
	}
	return fd;
}

static void tx_session(struct fz_worker *w)
{
	static const uint32_t sizes[] = { 4096, 8192, 65536, 262144, 1 << 20,
					  0, 0, 2048, 4097, 12288, 1u << 31 };
	uint32_t tx_size = sizes[fz_rnd(w, 11)], capture = fz_chance(w, 50);
	struct kicker k[4];
	struct tx_sess t;
	char a[IFNAMSIZ], b[IFNAMSIZ];
	int idx, err, wfd = -1, rounds, round, nk, i, set[6], n = 0;
	bool nic, gone = false;
	struct ringcap_stats wst;

	memset(&t, 0, sizeof(t));
	t.fd = tx_socket(w, capture);
	if (t.fd < 0)
		return;
	fz_count(OP_TX, 0);
	err = -rc_setopt(t.fd, RINGCAP_TX_RING_SIZE, tx_size);
	fz_count_opt(true, RINGCAP_TX_RING_SIZE);
	if (tx_size && (tx_size < RINGCAP_RING_SIZE_MIN || (tx_size & (tx_size - 1)) ||
			tx_size > RINGCAP_RING_SIZE_MAX))
		FZ_EXPECT(OP_TX, err, ("TX_RING_SIZE %u", tx_size), EINVAL);
	else
		FZ_EXPECT(OP_TX, err, ("TX_RING_SIZE %u", tx_size), 0, EINVAL);
	t.has_tx = !err && tx_size;
	t.size = t.has_tx ? tx_size : 0;
	t.sfd = dup(t.fd);

	idx = tx_device(w, a, b, &nic);
	t.dev_may_go = nic;
	if (fz_chance(w, 20))
		tx_map(w, &t);	/* before bind: the ring exists from here */
	if (idx) {
		err = -rc_bind(t.fd, idx, fz_chance(w, 90) ? RINGCAP_QUEUE_ANY : 0);
		n = 0;
		set[n++] = 0;
		set[n++] = ENOMEM;
		set[n++] = ENOBUFS;
		if (nic) {
			set[n++] = ENODEV;	/* the driver side unbound it */
			set[n++] = EBUSY;	/* queue 0 taken for zero-copy */
		}
		set[n] = -1;
		FZ_EXPECTF(OP_BIND, err, set, "bind the transmit socket to %d", idx);
		t.bound = !err;
		if (!err) {
			/* fixed from now on */
			FZ_EXPECT(OP_TX, -rc_setopt(t.fd, RINGCAP_TX_RING_SIZE, 4096),
				  ("TX_RING_SIZE after bind"), EBUSY);
			FZ_EXPECT(OP_TX, -rc_setopt(t.fd, RINGCAP_CAPTURE, !capture),
				  ("CAPTURE after bind"), EBUSY);
			fz_count_opt(true, RINGCAP_TX_RING_SIZE);
			fz_count_opt(true, RINGCAP_CAPTURE);
		}
	}
	if (!t.hdr)
		tx_map(w, &t);
	if (a[0] && t.bound)
		wfd = watcher(w, b, fz_chance(w, 50));

	rounds = t.hdr ? 1 + fz_rnd(w, 6) : 1;
	for (round = 0; round < rounds && !fz->stop; round++) {
		if (t.hdr)
			put_records(w, &t, round == rounds - 1);
		nk = 1 + fz_rnd(w, 4);
		for (i = 0; i < nk; i++) {
			k[i].t = &t;
			k[i].fd = dup(t.sfd);
			k[i].rng = fz_rand(&w->rng) | 1;
			k[i].kicks = 1 + fz_rnd(w, 40);
			if (k[i].fd < 0 ||
			    pthread_create(&k[i].th, NULL, kick_thread, &k[i])) {
				if (k[i].fd >= 0)
					close(k[i].fd);
				break;
			}
		}
		nk = i;
		/* meanwhile: the device goes down, up or away */
		if (a[0] && !gone && fz_chance(w, 30)) {
			fz_count(OP_DEV_FLAP, 0);
			if (fz_chance(w, 25)) {
				__atomic_store_n(&t.dev_may_go, 1, __ATOMIC_RELEASE);
				gone = !fz_nl_del(a);
			} else {
				fz_set_updown(w, a, false);
				rc_sleep_us(fz_rnd(w, 2000));
				fz_set_updown(w, a, true);
			}
		}
		if (t.fd >= 0 && fz_chance(w, 10)) {
			/* close under kick: the threads hold their own dups */
			close(t.fd);
			t.fd = -1;
		}
		for (i = 0; i < nk; i++)
			pthread_join(k[i].th, NULL);
		check_round(&t);
		if (__atomic_load_n(&t.tainted, __ATOMIC_ACQUIRE))
			break;
	}
	if (wfd >= 0) {
		uint32_t wcap = 1;

		err = -rc_getopt_u32(wfd, RINGCAP_CAPTURE, &wcap) ?:
		      -rc_stats(wfd, &wst);
		fz_count_opt(false, RINGCAP_CAPTURE);
		FZ_EXPECT(OP_TX, err, ("the watcher's CAPTURE and STATS"), 0);
		if (!err && !wcap)
			fz_check(!wst.received && !wst.dropped,
				 "a socket with CAPTURE 0 on %s received %llu, dropped %llu",
				 b, (unsigned long long)wst.received,
				 (unsigned long long)wst.dropped);
		close(wfd);
	}
	if (t.hdr)
		munmap(t.hdr, t.map_len);
	if (t.fd >= 0)
		close(t.fd);
	if (t.sfd >= 0)
		close(t.sfd);
	if (a[0] && !gone)
		fz_nl_del(a);
}

/*
 * Worker 0 has the 82574Ls in its initial netns (gen 0); setns and
 * unshare may have taken it elsewhere: the session goes back there.
 */
void fz_op_tx(struct fz_worker *w)
{
	int was = w->init_netns ? fz_session_netns(w, 0) : w->gen;

	tx_session(w);
	fz_session_netns(w, was);
}
