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
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
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

/* A transmit-only socket on ifindex with a mapped ring; 0 or -errno. */
static int tx_open(struct tx *t, int ifindex)
{
	socklen_t len = sizeof(t->info);
	void *p;
	int err;

	memset(t, 0, sizeof(*t));
	t->fd = rc_socket();
	if (t->fd < 0)
		return t->fd;
	err = rc_setopt(t->fd, RINGCAP_TX_RING_SIZE, TX_SIZE);
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

/* tx_open() on DEV by name; says why not. */
static int tx_open_dev(struct tx *t, const char *dev)
{
	int ifindex = if_nametoindex(dev);
	int err = ifindex ? tx_open(t, ifindex) : -ENODEV;

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

	if (tx_open_dev(&t, dev))
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

	if (tx_open_dev(&t, dev))
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

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "refuse"))
		return refuse(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "send"))
		return send_frames(argv[2], strtoul(argv[3], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "pollout"))
		return pollout_frames(argv[2], strtoul(argv[3], NULL, 0));
	fprintf(stderr, "usage: rc_tx refuse DEV | rc_tx send DEV COUNT | rc_tx pollout DEV COUNT\n");
	return 2;
}
