// SPDX-License-Identifier: GPL-2.0
/*
 * rc_tx: the transmit ring straight through the ABI (no libringcap), for
 * selftests/e1000e/txring.sh.
 *
 *   rc_tx refuse DEV
 *	every refusal of the transmit ring on DEV, one line each: "NAME:
 *	ok (...)" or "NAME: FAIL (...)"; exit 0 if all are ok. Sends no
 *	valid frame: whatever reaches DEV's wire meanwhile is a bug.
 *   rc_tx send DEV COUNT
 *	COUNT copies of one 60-byte test frame (EtherType 0x88b5, a
 *	sequence number at offset 22) through a ring of 64 KiB, kicked by
 *	sendto() and by poll(POLLOUT) in turn. Last line: "rc_tx: sent=
 *	refused= full= kicks= bad_producer=" from RINGCAP_TX_STATS
 *   rc_tx pollout DEV COUNT
 *	the same frames through the same ring, kicked by poll(POLLOUT)
 *	alone, blocking up to a second whenever the ring is full. Last
 *	line as for send, with "timeouts=": polls that lasted their whole
 *	second (the device's queue drained without waking the poller),
 *	longest_poll_ms= and seconds=; exit 0 if all frames were sent, the
 *	device's queue was full at least once (else nothing was shown)
 *	and no poll timed out.
 *   rc_tx mtu DEV MTU
 *	binds at DEV's MTU as it is, then sets the MTU to MTU and sends
 *	frames around the bound (MTU + 14 bytes, 4 more if tagged 0x8100),
 *	untagged, tagged 0x8100 and 0x88a8, each once through the ring and
 *	once through AF_PACKET (SOCK_RAW): the ring must refuse (refused_len)
 *	exactly where AF_PACKET says EMSGSIZE and the rule above says so.
 *	One line per frame; exit 0 if all agree.
 *   rc_tx huge DEV
 *	DEV's MTU far above RINGCAP_TX_MTU_MAX (a dummy device): through an
 *	8 MiB ring, 60 bytes, 6 MiB, 64 KiB + 14 (the bound), one byte more,
 *	64 KiB + 18 tagged, and 60 bytes again: after a few kicks every
 *	record is behind completion, 4 sent and 2 refused.
 *   rc_tx account DEV COUNT [ROOMFILE ROOM]
 *	COUNT records, of which 2 in 7 are refused (13 bytes, and frame_max
 *	+ 1), through a 64 KiB ring, kicked by sendto() until all are done;
 *	with ROOMFILE (ringcap_sim's tx_room) ROOM is written there before
 *	each kick, so that the device takes ROOM frames a kick and is then
 *	full. After every kick sent + refused must not exceed the records
 *	put. Last line: "rc_tx: put= sent= refused= full= kicks= over=
 *	worst=" (over: kicks after which the sum exceeded what was put,
 *	worst: by how much at most); exit 0 if over is 0 and, at the end,
 *	sent + refused equals put.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <linux/if_packet.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include "rc_util.h"

#define TX_SIZE		65536
#define POLL_MS		1000	/* pollout: a poll() this long was not woken */

static int failures;

#define report(name, ok, ...)	(failures += !rc_report(name, ok, __VA_ARGS__))

struct tx {
	int fd;
	struct ringcap_ring_info info;
	struct ringcap_tx_hdr *hdr;
	uint8_t *data;
	uint64_t prod;
};

/* A transmit-only socket on ifindex with a mapped ring of size bytes. */
static int tx_open_size(struct tx *t, int ifindex, uint32_t size)
{
	socklen_t len = sizeof(t->info);
	void *p;
	int err;

	memset(t, 0, sizeof(*t));
	t->fd = rc_socket();
	if (t->fd < 0)
		return t->fd;
	err = rc_setopt(t->fd, RINGCAP_TX_RING_SIZE, size);
	if (!err)
		err = rc_setopt(t->fd, RINGCAP_CAPTURE, 0);
	if (!err)
		err = rc_bind(t->fd, ifindex, RINGCAP_QUEUE_ANY);
	if (err)
		return err;
	if (getsockopt(t->fd, SOL_RINGCAP, RINGCAP_TX_INFO, &t->info, &len))
		return -errno;
	p = mmap(NULL, t->info.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 t->fd, RINGCAP_TX_MMAP_OFFSET);
	if (p == MAP_FAILED)
		return -errno;
	t->hdr = p;
	t->data = (uint8_t *)p + t->info.data_offset;
	t->prod = t->hdr->producer;
	return 0;
}

/* A transmit-only socket on ifindex with a mapped ring; 0 or -errno. */
static int tx_open(struct tx *t, int ifindex)
{
	return tx_open_size(t, ifindex, TX_SIZE);
}

/* Write a record as given (rec_len may lie); no room checks. */
static void tx_raw(struct tx *t, uint32_t rec_len, uint16_t flags,
		   uint32_t len, const uint8_t *frame, uint32_t frame_bytes)
{
	uint32_t off = t->prod & (t->info.data_size - 1);
	struct ringcap_tx_rec *r = (void *)(t->data + off);

	r->rec_len = rec_len;
	r->flags = flags;
	r->len = len;
	if (frame_bytes)
		memcpy(r + 1, frame, frame_bytes);
	t->prod += rec_len;
}

/* A good record for len bytes of frame; pads at the end as the ABI says. */
static int tx_put(struct tx *t, const uint8_t *frame, uint32_t len)
{
	uint32_t need = (sizeof(struct ringcap_tx_rec) + len + 7) & ~7u;
	uint32_t off = t->prod & (t->info.data_size - 1);
	uint32_t tail = t->info.data_size - off;
	uint64_t done = __atomic_load_n(&t->hdr->completion, __ATOMIC_ACQUIRE);

	if ((need > tail ? tail + need : need) > t->info.data_size - (t->prod - done))
		return -EAGAIN;
	if (need > tail)
		tx_raw(t, tail, RINGCAP_TX_PAD, 0, NULL, 0);
	tx_raw(t, need, 0, len, frame, len);
	return 0;
}

static int tx_kick(struct tx *t)
{
	__atomic_store_n(&t->hdr->producer, t->prod, __ATOMIC_RELEASE);
	return sendto(t->fd, NULL, 0, 0, NULL, 0) ? -errno : 0;
}

static void tx_close(struct tx *t)
{
	if (t->hdr)
		munmap(t->hdr, t->info.mmap_size);
	close(t->fd);
}

static int tx_stats(struct tx *t, struct ringcap_tx_stats *st)
{
	socklen_t len = sizeof(*st);

	return getsockopt(t->fd, SOL_RINGCAP, RINGCAP_TX_STATS, st, &len) ?
	       -errno : 0;
}

static void frame_build(uint8_t *f, uint32_t seq)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 0x02 };
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	uint32_t s = htonl(seq);
	unsigned int i;

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x88;
	f[13] = 0xb5;
	memcpy(f + 14, "RCAPTEST", 8);
	memcpy(f + 22, &s, 4);
	for (i = 26; i < 60; i++)
		f[i] = (uint8_t)(seq * 131 + i * 7);
}

static int refuse(const char *dev)
{
	int ifindex = if_nametoindex(dev), fd, err;
	struct ringcap_ring_info info;
	struct ringcap_tx_stats st, st2;
	socklen_t len = sizeof(info);
	uint8_t big[2048] = { 0 }, f[60];
	struct tx t;
	void *p;

	if (!ifindex) {
		printf("setup: FAIL (no device %s)\n", dev);
		return 1;
	}
	fd = rc_socket();
	err = getsockopt(fd, SOL_RINGCAP, RINGCAP_TX_INFO, &info, &len) ? -errno : 0;
	report("no_ring", err == -ENXIO, "RINGCAP_TX_INFO without a ring: %s, want ENXIO",
	       strerror(-err));
	err = rc_setopt(fd, RINGCAP_TX_RING_SIZE, 5000);
	report("bad_size", err == -EINVAL, "RINGCAP_TX_RING_SIZE 5000: %s, want EINVAL",
	       strerror(-err));
	err = rc_setopt(fd, RINGCAP_TX_RING_SIZE, TX_SIZE);
	err = err ? err : (sendto(fd, NULL, 0, 0, NULL, 0) ? -errno : 0);
	report("unbound", err == -ENOTCONN, "a kick before bind: %s, want ENOTCONN",
	       strerror(-err));
	err = send(fd, "x", 1, 0) < 0 ? -errno : 0;
	report("data_send", err == -EINVAL, "send() of 1 byte: %s, want EINVAL",
	       strerror(-err));
	err = rc_setopt(fd, RINGCAP_CAPTURE, 0);
	err = err ? err : rc_bind(fd, ifindex, RINGCAP_QUEUE_ANY);
	err = err ? err : rc_setopt(fd, RINGCAP_TX_RING_SIZE, 2 * TX_SIZE);
	report("after_bind", err == -EBUSY, "RINGCAP_TX_RING_SIZE after bind: %s, want EBUSY",
	       strerror(-err));
	len = sizeof(info);
	getsockopt(fd, SOL_RINGCAP, RINGCAP_TX_INFO, &info, &len);
	p = mmap(NULL, info.mmap_size + 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 RINGCAP_TX_MMAP_OFFSET);
	report("map_size", p == MAP_FAILED && errno == EINVAL,
	       "mapping one page more than mmap_size: %s, want EINVAL",
	       p == MAP_FAILED ? strerror(errno) : "mapped");
	close(fd);

	err = tx_open(&t, ifindex);
	if (err) {
		report("open", 0, "transmit-only socket on %s: %s", dev, strerror(-err));
		return 1;
	}
	report("header", t.hdr->magic == RINGCAP_TX_MAGIC &&
	       t.hdr->abi_version == RINGCAP_ABI_VERSION &&
	       t.hdr->rec_hdr_len == sizeof(struct ringcap_tx_rec) &&
	       t.hdr->data_size == TX_SIZE && t.hdr->frame_max >= 1514,
	       "magic 0x%x abi %u rec_hdr_len %u data_size %u frame_max %u",
	       t.hdr->magic, t.hdr->abi_version, t.hdr->rec_hdr_len,
	       t.hdr->data_size, t.hdr->frame_max);

	/* Refused and skipped: the kick succeeds, nothing is sent. */
	frame_build(f, 1);
	tx_put(&t, f, 0);
	tx_put(&t, f, 13);
	tx_put(&t, big, t.hdr->frame_max + 1);
	err = tx_kick(&t);
	tx_stats(&t, &st);
	report("bad_lengths", !err && st.refused_len == 3 && st.sent == 0 &&
	       t.hdr->completion == t.prod,
	       "0, 13 and frame_max + 1 bytes: kick %s, refused_len %llu, sent %llu, completion %s",
	       strerror(-err), (unsigned long long)st.refused_len,
	       (unsigned long long)st.sent,
	       t.hdr->completion == t.prod ? "past them" : "short");

	/* Unusable producers and records: EINVAL, nothing sent. */
	__atomic_store_n(&t.hdr->producer, t.prod + 4, __ATOMIC_RELEASE);
	err = sendto(t.fd, NULL, 0, 0, NULL, 0) ? -errno : 0;
	report("producer_unaligned", err == -EINVAL, "producer not 8-aligned: %s, want EINVAL",
	       strerror(-err));
	__atomic_store_n(&t.hdr->producer, t.prod + 2 * TX_SIZE, __ATOMIC_RELEASE);
	err = sendto(t.fd, NULL, 0, 0, NULL, 0) ? -errno : 0;
	report("producer_far", err == -EINVAL,
	       "producer twice the ring ahead: %s, want EINVAL", strerror(-err));
	__atomic_store_n(&t.hdr->producer, t.prod - 8, __ATOMIC_RELEASE);
	err = sendto(t.fd, NULL, 0, 0, NULL, 0) ? -errno : 0;
	report("producer_behind", err == -EINVAL,
	       "producer behind completion: %s, want EINVAL", strerror(-err));
	{
		uint64_t at = t.prod;

		tx_raw(&t, 4096, 0, 60, f, 60);	/* says more than was written */
		t.prod = at + 64;
		err = tx_kick(&t);
		report("rec_past_producer", err == -EINVAL,
		       "a record longer than what producer covers: %s, want EINVAL",
		       strerror(-err));
		t.prod = at;
		tx_raw(&t, 64, 0, 200, f, 60);	/* len beyond rec_len */
		err = tx_kick(&t);
		report("len_past_rec", err == -EINVAL,
		       "len beyond its record: %s, want EINVAL", strerror(-err));
		t.prod = at;
		tx_raw(&t, 64, RINGCAP_TX_PAD, 0, NULL, 0);	/* pad not to the end */
		err = tx_kick(&t);
		report("short_pad", err == -EINVAL,
		       "a pad record that does not reach the end: %s, want EINVAL",
		       strerror(-err));
		t.prod = at;
		__atomic_store_n(&t.hdr->producer, at, __ATOMIC_RELEASE);
	}
	tx_stats(&t, &st2);
	report("nothing_sent", st2.sent == 0 && st2.bad_producer == 6,
	       "sent %llu, bad_producer %llu (want 0 and 6)",
	       (unsigned long long)st2.sent, (unsigned long long)st2.bad_producer);
	tx_close(&t);
	return failures ? 1 : 0;
}

/* The last line of send and pollout: RINGCAP_TX_STATS, EXTRA, the error. */
static void tx_summary(struct tx *t, struct ringcap_tx_stats *st,
		       const char *extra, int err)
{
	tx_stats(t, st);
	printf("rc_tx: sent=%llu refused=%llu full=%llu kicks=%llu bad_producer=%llu%s error=%s\n",
	       (unsigned long long)st->sent,
	       (unsigned long long)(st->refused_len + st->refused_down),
	       (unsigned long long)st->full, (unsigned long long)st->kicks,
	       (unsigned long long)st->bad_producer, extra,
	       err ? strerrorname_np(-err) : "none");
}

/* tx_open_size() on DEV by name; says why not. */
static int tx_open_dev(struct tx *t, const char *dev, uint32_t size)
{
	int ifindex = if_nametoindex(dev);
	int err = ifindex ? tx_open_size(t, ifindex, size) : -ENODEV;

	if (err)
		printf("rc_tx: transmit-only socket on %s: %s\n", dev, strerror(-err));
	return err;
}

static int send_frames(const char *dev, unsigned long count)
{
	struct ringcap_tx_stats st = { 0 };
	unsigned long i = 0;
	uint8_t f[60];
	int err = 0;
	struct tx t;

	if (tx_open_dev(&t, dev, TX_SIZE))
		return 1;
	while (i < count) {
		frame_build(f, i);
		if (!tx_put(&t, f, sizeof(f))) {
			i++;
			continue;
		}
		/* Full: every other time by poll(POLLOUT), else by sendto(). */
		if (i & 1) {
			struct pollfd pfd = { .fd = t.fd, .events = POLLOUT };

			__atomic_store_n(&t.hdr->producer, t.prod, __ATOMIC_RELEASE);
			poll(&pfd, 1, 10);
		} else {
			err = tx_kick(&t);
			if (err)
				break;
		}
	}
	while (!err && __atomic_load_n(&t.hdr->completion, __ATOMIC_ACQUIRE) != t.prod) {
		err = tx_kick(&t);
		if (!err && t.hdr->completion != t.prod)
			rc_sleep_us(1000);
	}
	tx_summary(&t, &st, "", err);
	tx_close(&t);
	return !err && st.sent == count ? 0 : 1;
}

static int pollout_frames(const char *dev, unsigned long count)
{
	struct ringcap_tx_stats st = { 0 };
	int err = 0, ret;
	unsigned long i = 0, timeouts = 0;
	uint64_t waited, start, longest = 0;	/* ns */
	char extra[96];
	uint8_t f[60];
	struct tx t;

	if (tx_open_dev(&t, dev, TX_SIZE))
		return 1;
	start = rc_now_ns(CLOCK_MONOTONIC);
	for (;;) {
		struct pollfd pfd = { .fd = t.fd, .events = POLLOUT };

		frame_build(f, i);
		if (i < count && !tx_put(&t, f, sizeof(f))) {
			i++;
			continue;
		}
		if (i == count &&
		    __atomic_load_n(&t.hdr->completion, __ATOMIC_ACQUIRE) == t.prod)
			break;
		/* The ring is full, or all is written: poll() kicks. */
		__atomic_store_n(&t.hdr->producer, t.prod, __ATOMIC_RELEASE);
		waited = rc_now_ns(CLOCK_MONOTONIC);
		ret = poll(&pfd, 1, POLL_MS);
		waited = rc_now_ns(CLOCK_MONOTONIC) - waited;
		longest = waited > longest ? waited : longest;
		if (ret < 0) {
			err = -errno;
			break;
		}
		/*
		 * Ended by its timeout (give or take a tenth), not by a
		 * wake-up: poll() looks once more then, and that look kicks,
		 * so ret is no guide.
		 */
		if (waited >= POLL_MS * 900000ULL && ++timeouts > 10)
			break;
		if (i == count && ret)
			rc_sleep_us(1000);	/* room, but frames left */
	}
	snprintf(extra, sizeof(extra),
		 " timeouts=%lu longest_poll_ms=%llu seconds=%.3f", timeouts,
		 (unsigned long long)(longest / 1000000),
		 (rc_now_ns(CLOCK_MONOTONIC) - start) / 1e9);
	tx_summary(&t, &st, extra, err);
	tx_close(&t);
	return !err && st.sent == count && st.full && !timeouts ? 0 : 1;
}

/* len bytes of test frame, EtherType type (a VLAN tag's TPID, or not). */
static void frame_typed(uint8_t *f, uint32_t len, uint16_t type)
{
	uint8_t hdr[60];

	frame_build(hdr, len);
	memset(f, 0xa5, len);
	memcpy(f, hdr, len < sizeof(hdr) ? len : sizeof(hdr));
	f[12] = type >> 8;
	f[13] = type & 0xff;
	if (type == 0x8100 || type == 0x88a8) {
		f[14] = 0;		/* TCI: VLAN 5 */
		f[15] = 5;
		f[16] = 0x88;		/* then the test EtherType */
		f[17] = 0xb5;
	}
}

/*
 * One record alone through the ring: 'S' sent, 'R' refused for its
 * length, 'D' refused as down, '?' not done after a second of kicks.
 */
static char ring_one(struct tx *t, const uint8_t *f, uint32_t len)
{
	struct ringcap_tx_stats a, b;
	int i;

	tx_stats(t, &a);
	if (tx_put(t, f, len))
		return '?';
	for (i = 0; i < 1000; i++) {
		if (tx_kick(t))
			return '?';
		if (__atomic_load_n(&t->hdr->completion, __ATOMIC_ACQUIRE) == t->prod)
			break;
		rc_sleep_us(1000);
	}
	tx_stats(t, &b);
	return b.sent == a.sent + 1 ? 'S' :
	       b.refused_len == a.refused_len + 1 ? 'R' :
	       b.refused_down == a.refused_down + 1 ? 'D' : '?';
}

/* The same frame through AF_PACKET: 'S' sent, 'R' EMSGSIZE, else '?'. */
static char packet_one(int fd, int ifindex, const uint8_t *f, uint32_t len)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_ifindex = ifindex,
		.sll_protocol = htons(0x88b5),
		.sll_halen = 6,
	};

	memcpy(sll.sll_addr, f, 6);
	if (sendto(fd, f, len, 0, (struct sockaddr *)&sll, sizeof(sll)) == (ssize_t)len)
		return 'S';
	return errno == EMSGSIZE ? 'R' : '?';
}

static int set_mtu(int fd, const char *dev, int mtu)
{
	struct ifreq ifr = { .ifr_mtu = mtu };

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	return ioctl(fd, SIOCSIFMTU, &ifr) ? -errno : 0;
}

static int mtu_frames(const char *dev, int mtu)
{
	static const uint16_t types[] = { 0x88b5, 0x8100, 0x88a8 };
	static uint8_t f[9018];
	int ifindex = if_nametoindex(dev), pfd, err, d;
	uint32_t bound = mtu + 14, bind_max, lens[8];
	unsigned int i, k, nlens = 0;
	char name[48];
	struct tx t;

	if (!ifindex || tx_open_dev(&t, dev, TX_SIZE)) {
		printf("setup: FAIL (no transmit ring on %s)\n", dev);
		return 1;
	}
	bind_max = t.hdr->frame_max;
	pfd = socket(AF_PACKET, SOCK_RAW, 0);
	err = pfd < 0 ? -errno : set_mtu(pfd, dev, mtu);
	if (err) {
		printf("setup: FAIL (MTU %d on %s: %s)\n", mtu, dev, strerror(-err));
		return 1;
	}
	/* Around the bound, the bound at bind, and the 9018 of jumbo frames. */
	for (d = -1; d <= 5; d++)
		if (d != 2 && d != 3)
			lens[nlens++] = bound + d;
	if (bind_max > bound + 5 && bind_max <= sizeof(f))
		lens[nlens++] = bind_max;
	if (sizeof(f) > bound + 5 && sizeof(f) != bind_max)
		lens[nlens++] = sizeof(f);
	for (k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
		for (i = 0; i < nlens; i++) {
			uint32_t len = lens[i];
			bool want_ok = len <= bound + (types[k] == 0x8100 ? 4 : 0);
			char ring, pkt;

			frame_typed(f, len, types[k]);
			ring = ring_one(&t, f, len);
			pkt = packet_one(pfd, ifindex, f, len);
			snprintf(name, sizeof(name), "mtu%d_len%u_type%04x", mtu, len,
				 types[k]);
			report(name, ring == (want_ok ? 'S' : 'R') && pkt == ring,
			       "%u bytes, EtherType 0x%04x at MTU %d (bound at bind %u): ring %s, AF_PACKET %s, want %s",
			       len, types[k], mtu, bind_max,
			       ring == 'S' ? "sent" : ring == 'R' ? "refused" : "neither",
			       pkt == 'S' ? "sent" : pkt == 'R' ? "EMSGSIZE" : "other error",
			       want_ok ? "sent" : "refused");
		}
	}
	report("frame_max", t.hdr->frame_max == bound + 4,
	       "header's frame_max %u after the kicks, want %u (MTU %d + 18)",
	       t.hdr->frame_max, bound + 4, mtu);
	close(pfd);
	tx_close(&t);
	return failures ? 1 : 0;
}

#define HUGE_RING	(8u << 20)
#define HUGE_REC	(6u << 20)

static int huge_frames(const char *dev)
{
	const uint32_t bound = RINGCAP_TX_MTU_MAX + 14;
	static const struct { uint32_t len; uint16_t type; char want; } c[] = {
		{ 60, 0x88b5, 'S' },
		{ HUGE_REC, 0x88b5, 'R' },
		{ RINGCAP_TX_MTU_MAX + 14, 0x88b5, 'S' },
		{ RINGCAP_TX_MTU_MAX + 15, 0x88b5, 'R' },
		{ RINGCAP_TX_MTU_MAX + 18, 0x8100, 'S' },
		{ 60, 0x88b5, 'S' },
	};
	struct ringcap_tx_stats st;
	unsigned int i, kicks;
	uint8_t *f;
	struct tx t;
	int err = 0;

	f = malloc(HUGE_REC);
	if (!f || tx_open_dev(&t, dev, HUGE_RING)) {
		printf("setup: FAIL (no 8 MiB transmit ring on %s)\n", dev);
		return 1;
	}
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		frame_typed(f, c[i].len, c[i].type);
		if (tx_put(&t, f, c[i].len)) {
			printf("setup: FAIL (no room for record %u)\n", i);
			return 1;
		}
	}
	/* A device that takes nothing more would need the kicks to go on. */
	for (kicks = 1; kicks <= 10; kicks++) {
		err = tx_kick(&t);
		if (err || __atomic_load_n(&t.hdr->completion, __ATOMIC_ACQUIRE) == t.prod)
			break;
		rc_sleep_us(10000);
	}
	tx_stats(&t, &st);
	report("huge_record", !err && t.hdr->completion == t.prod &&
	       st.sent == 4 && st.refused_len == 2,
	       "60, 6 MiB, %u, %u, %u tagged, 60 bytes at DEV's MTU: %llu kicks (%s), completion %s, sent %llu, refused_len %llu, full %llu; want all done, 4 sent, 2 refused",
	       bound, bound + 1, bound + 4, (unsigned long long)st.kicks,
	       err ? strerror(-err) : "ok",
	       t.hdr->completion == t.prod ? "at producer" : "stuck short of it",
	       (unsigned long long)st.sent, (unsigned long long)st.refused_len,
	       (unsigned long long)st.full);
	report("frame_max_capped", t.hdr->frame_max == bound + 4,
	       "header's frame_max %u, want %u (RINGCAP_TX_MTU_MAX + 18)",
	       t.hdr->frame_max, bound + 4);
	tx_close(&t);
	free(f);
	return failures ? 1 : 0;
}

static int write_room(const char *path, const char *room)
{
	FILE *fp = fopen(path, "w");
	int ok;

	if (!fp)
		return -errno;
	ok = fputs(room, fp) >= 0;
	return fclose(fp) || !ok ? -EIO : 0;
}

static int account_frames(const char *dev, unsigned long count,
			  const char *roomfile, const char *room)
{
	static uint8_t f[9018 + 18];
	struct ringcap_tx_stats st = { 0 };
	unsigned long i = 0, put = 0, over = 0, worst = 0;
	uint64_t deadline, last = 0;
	uint32_t too_long;
	char extra[160];
	int err = 0;
	struct tx t;

	if (tx_open_dev(&t, dev, TX_SIZE))
		return 1;
	too_long = t.hdr->frame_max + 1;
	if (too_long > sizeof(f)) {
		printf("rc_tx: frame_max %u too large for this test\n", t.hdr->frame_max);
		return 1;
	}
	deadline = rc_now_ns(CLOCK_MONOTONIC) + 120ULL * 1000000000ULL;
	for (;;) {
		uint64_t sum;

		/* 2 records in 7 refused, between frames the device takes. */
		for (; i < count; i++, put++) {
			uint32_t len = i % 7 == 3 ? 13 : i % 7 == 5 ? too_long : 60;

			frame_typed(f, len, 0x88b5);
			if (tx_put(&t, f, len))
				break;
		}
		if (roomfile) {
			err = write_room(roomfile, room);
			if (err) {
				printf("rc_tx: writing %s: %s\n", roomfile, strerror(-err));
				break;
			}
		}
		err = tx_kick(&t);
		if (err)
			break;
		tx_stats(&t, &st);
		sum = st.sent + st.refused_len + st.refused_down;
		if (sum > put) {
			over++;
			worst = sum - put > worst ? sum - put : worst;
		}
		if (i == count &&
		    __atomic_load_n(&t.hdr->completion, __ATOMIC_ACQUIRE) == t.prod)
			break;
		if (rc_now_ns(CLOCK_MONOTONIC) > deadline) {
			err = -ETIMEDOUT;
			break;
		}
		/* No progress: let the device drain a little. */
		if (!roomfile && t.hdr->completion == last)
			rc_sleep_us(200);
		last = t.hdr->completion;
	}
	snprintf(extra, sizeof(extra), " put=%lu over=%lu worst=%lu", put, over, worst);
	tx_summary(&t, &st, extra, err);
	tx_close(&t);
	return !err && !over &&
	       st.sent + st.refused_len + st.refused_down == put ? 0 : 1;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "refuse"))
		return refuse(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "send"))
		return send_frames(argv[2], strtoul(argv[3], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "pollout"))
		return pollout_frames(argv[2], strtoul(argv[3], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "mtu"))
		return mtu_frames(argv[2], atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "huge"))
		return huge_frames(argv[2]);
	if ((argc == 4 || argc == 6) && !strcmp(argv[1], "account"))
		return account_frames(argv[2], strtoul(argv[3], NULL, 0),
				      argc == 6 ? argv[4] : NULL,
				      argc == 6 ? argv[5] : NULL);
	fprintf(stderr, "usage: rc_tx refuse DEV | rc_tx send|pollout DEV COUNT | rc_tx mtu DEV MTU\n"
		"       rc_tx huge DEV | rc_tx account DEV COUNT [ROOMFILE ROOM]\n");
	return 2;
}
