// SPDX-License-Identifier: GPL-2.0
/*
 * rcgen's frames and their sending: generated or replayed, paced, into
 * QEMU's dgram socket or out of a device's ringcap transmit ring.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <linux/sock_diag.h>
#include "cli.h"
#include "libringcap.h"
#include "pcapfile.h"
#include "ticker.h"
#include "rcgen.h"

/* Sleep until CLOCK_MONOTONIC reaches @until; a signal cuts it short. */
static void sleep_until(unsigned long long until)
{
	struct timespec ts = {
		.tv_sec = until / NSEC,
		.tv_nsec = until % NSEC,
	};

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* The earlier of @until and the ticker's next line or deadline. */
static unsigned long long or_sooner(unsigned long long until,
				    const struct ticker *tk)
{
	unsigned long long wake = ticker_wake(tk);

	return wake < until ? wake : until;
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/*
 * Ones'-complement sum of big-endian 16-bit words, an odd last byte
 * padded with zero (RFC 1071). 32 bits hold the carries of any frame.
 */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

static void sockaddr_of(struct sockaddr_in *sa, struct in_addr host,
			unsigned int port)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr = host;
	sa->sin_port = htons(port);
}

unsigned int local_port(int fd)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);

	if (getsockname(fd, (struct sockaddr *)&sa, &len))
		die_errno("getsockname");
	return ntohs(sa.sin_port);
}

int open_socket(const struct opts *o)
{
	struct sockaddr_in sa;
	char host[INET_ADDRSTRLEN];
	int fd;

	inet_ntop(AF_INET, &o->host, host, sizeof(host));
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die_errno("socket");
	if (o->given & GIVEN(OPT_BIND)) {
		sockaddr_of(&sa, o->host, o->bind_port);
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
			die_errno("cannot bind %s:%u", host, o->bind_port);
	}
	if (!o->recv) {
		/*
		 * Connected, so that sendmmsg() needs no addresses and an
		 * ICMP port unreachable (QEMU not running yet) comes back
		 * as ECONNREFUSED instead of vanishing.
		 */
		sockaddr_of(&sa, o->host, o->to_port);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			die_errno("cannot connect to %s:%u", host, o->to_port);
	}
	return fd;
}

/*
 * Sending: TX_BATCH frame buffers built from one template or, replaying,
 * messages pointed at the file's frames (no copy; sendmmsg() only reads
 * them).
 */

void gen_init(struct gen *g, const struct opts *o,
		     const struct pcapfile *pf)
{
	unsigned int i, size = o->size;
	uint8_t *f;

	memset(g, 0, sizeof(*g));
	g->o = o;
	if (pf) {
		g->pf = pf;
		for (i = 0; i < TX_BATCH; i++)
			g->msgs[i].msg_hdr.msg_iovlen = 1;
		return;
	}
	g->frames = calloc(TX_BATCH, size);
	if (!g->frames)
		die_errno("out of memory");

	/* The template: every per-frame field (see gen_fill()) left zero. */
	f = g->frames;
	memcpy(f, o->dst_mac, 6);
	memcpy(f + 6, o->src_mac, 6);
	put_be16(f + 12, 0x0800);
	f[OFF_IP] = 0x45;
	put_be16(f + OFF_IP + 2, size - OFF_IP);
	put_be16(f + OFF_IP + 6, 0x4000);	/* DF: never fragmented */
	f[OFF_IP + 8] = 64;
	f[OFF_IP + 9] = IPPROTO_UDP;
	memcpy(f + OFF_IP_DST, &o->dst_ip, 4);
	put_be16(f + OFF_UDP + 2, o->dport);
	put_be16(f + OFF_UDP + 4, size - OFF_UDP);
	put_be32(f + OFF_PAYLOAD, RCGEN_MAGIC);
	for (i = OFF_FILLER; i < size; i++)
		f[i] = (uint8_t)(i - OFF_PAYLOAD);

	g->ip_sum = csum_add(0, f + OFF_IP, OFF_UDP - OFF_IP);
	g->udp_sum = csum_add(IPPROTO_UDP + size - OFF_UDP, f + OFF_IP_DST, 4);
	g->udp_sum = csum_add(g->udp_sum, f + OFF_UDP, size - OFF_UDP);

	for (i = 0; i < TX_BATCH; i++) {
		if (i)
			memcpy(g->frames + i * size, f, size);
		g->iov[i].iov_base = g->frames + i * size;
		g->iov[i].iov_len = size;
		g->msgs[i].msg_hdr.msg_iov = &g->iov[i];
		g->msgs[i].msg_hdr.msg_iovlen = 1;
	}
}

/*
 * Frame number @nr: sequence number nr mod 2^32, flow nr % flows; both
 * checksums finished from the precomputed sums.
 */
static void gen_fill(struct gen *g, unsigned int slot, unsigned long long nr)
{
	uint32_t seq = (uint32_t)nr;
	uint32_t flow = nr % g->o->flows;
	uint32_t src = FLOW_SRC_IP + flow;
	uint8_t *f = g->frames + slot * g->o->size;
	uint32_t sum;
	uint16_t csum;

	put_be16(f + OFF_IP_ID, seq);
	put_be32(f + OFF_IP_SRC, src);
	put_be16(f + OFF_UDP, FLOW_PORT + flow);
	put_be32(f + OFF_SEQ, seq);
	put_be32(f + OFF_FLOW, flow);

	sum = g->ip_sum + (seq & 0xffff) + (src >> 16) + (src & 0xffff);
	put_be16(f + OFF_IP_CSUM, csum_fold(sum));

	sum = g->udp_sum + (src >> 16) + (src & 0xffff) + FLOW_PORT + flow +
	      (seq >> 16) + (seq & 0xffff) + (flow >> 16) + (flow & 0xffff);
	csum = csum_fold(sum);
	/* 0 would mean "no checksum" (RFC 768): send its other form. */
	put_be16(f + OFF_UDP_CSUM, csum ? csum : 0xffff);
}

/*
 * Frame number @nr into batch slot @slot. Replaying, it is the file's
 * frame nr mod count: --count beyond the file goes round it again, and a
 * refused frame (sent again under the same @nr) is the same frame.
 */
static void gen_next(struct gen *g, unsigned int slot, unsigned long long nr)
{
	if (g->pf)
		g->msgs[slot].msg_hdr.msg_iov =
			&g->pf->frames[nr % g->pf->count];
	else
		gen_fill(g, slot, nr);
}

/*
 * The kernel refusing one send is no reason to stop: ECONNREFUSED means
 * nothing listens on LPORT yet (QEMU not started), ENOBUFS/ENOMEM a
 * momentary shortage, EPERM a firewall. Anything else is a bug or a
 * broken socket.
 */
static int send_error_is_transient(int err)
{
	switch (err) {
	case ECONNREFUSED:
	case ENOBUFS:
	case ENOMEM:
	case EAGAIN:
	case EPERM:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case ENETDOWN:
		return 1;
	}
	return 0;
}

/*
 * One refused frame (@err 0: reason unknown). It is sent again with the
 * same sequence number, so a gap a receiver sees is a loss past rcgen.
 * The pause keeps a missing peer or a full queue from costing a core.
 */
static void send_error(const struct opts *o, struct tally *tl, int err,
		       const struct ticker *tk)
{
	if (!tl->errors++ && !o->quiet)
		fprintf(stderr, PROG ": send: %s (counted in send_errors, going on)\n",
			err ? strerror(err) : "a frame was refused");
	sleep_until(or_sooner(now_ns() + NSEC / 1000, tk));
}

/*
 * --tx-ring: a socket that only sends, with a transmit ring on the
 * device, mapped; exits with a message on failure.
 */
struct ringcap *tx_open(const struct opts *o)
{
	long page = sysconf(_SC_PAGESIZE);
	struct ringcap *rc;
	int status;

	rc = rcap_open();
	if (!rc && errno == EAFNOSUPPORT)
		die(1, "--tx-ring %s: the ringcap module is not loaded (no /sys/module/ringcap)",
		    o->tx_dev);
	if (!rc)
		die(1, "--tx-ring %s: cannot open a ringcap socket: %s%s",
		    o->tx_dev, strerror(errno),
		    errno == EPERM ? " (needs CAP_NET_RAW)" : "");
	/*
	 * Capturing nothing, the socket takes no frame from anyone: one
	 * that captured, bound to all queues of an aware NIC in mode 2,
	 * would take every frame away from the stack. Its receive ring
	 * stays empty, so it gets the smallest there is.
	 */
	if (rcap_set_capture(rc, 0) ||
	    rcap_set_ring_size(rc, page > (long)RINGCAP_RING_SIZE_MIN ?
				  (uint32_t)page : RINGCAP_RING_SIZE_MIN))
		die(1, "--tx-ring %s: %s", o->tx_dev, rcap_errmsg(rc));
	if (rcap_set_tx_ring(rc, o->tx_ring_size)) {
		/* A size the module refuses is still a bad argument. */
		status = errno == EINVAL ? EXIT_USAGE : 1;
		die(status, "--tx-ring-size %u: %s", o->tx_ring_size,
		    rcap_errmsg(rc));
	}
	if (rcap_bind(rc, o->tx_dev, -1) || rcap_map(rc))
		die(1, "--tx-ring %s: %s", o->tx_dev, rcap_errmsg(rc));
	return rc;
}

/*
 * Before the first frame: every frame must be one the ring takes, or
 * rcgen would stop halfway through a file. The device's limit is its
 * MTU plus an Ethernet and a VLAN header; a small ring may set a lower one.
 */
void tx_check_lengths(struct ringcap *rc, const struct opts *o,
			     const struct pcapfile *pf)
{
	uint32_t max = rcap_tx_frame_max(rc), longest = o->size;
	size_t i;

	if (pf)
		for (i = 0, longest = 0; i < pf->count; i++)
			if (pf->frames[i].iov_len > longest)
				longest = pf->frames[i].iov_len;
	if (longest <= max)
		return;
	if (max < rcap_tx_hdr(rc)->frame_max)
		die(1, "--tx-ring %s: %s has frames of %u bytes, but a %u-byte transmit ring holds frames of at most %u: raise --tx-ring-size",
		    o->tx_dev, pf ? o->replay : "--size", longest,
		    o->tx_ring_size, max);
	die(1, "--tx-ring %s: %s has frames of %u bytes, but %s takes at most %u (its MTU plus an Ethernet and a VLAN header)",
	    o->tx_dev, pf ? o->replay : "--size", longest, o->tx_dev, max);
}

/*
 * Put frames [0, @want) of the batch into the transmit ring, then one
 * kick for all of them. Returns how many went in, or -1 after saying
 * why. When none fit, the ring is full of frames the device has not
 * taken yet: wait for it (at most until the ticker's next line or
 * deadline, so the loop still keeps time), and the same frames are put
 * again on the next round, as a refused datagram is sent again.
 */
static int tx_send(struct ringcap *rc, const struct opts *o, struct gen *g,
		   int want, const struct ticker *tk)
{
	const struct iovec *iov;
	int i;

	for (i = 0; i < want; i++) {
		iov = g->msgs[i].msg_hdr.msg_iov;
		if (rcap_tx_put(rc, iov->iov_base, iov->iov_len))
			break;
	}
	if (i < want && errno != EAGAIN)
		goto fail;
	if (rcap_tx_flush(rc) < 0)
		goto fail;
	if (!i && rcap_tx_wait(rc, ticker_wait_ms(tk, now_ns())) < 0 &&
	    errno != EINTR)
		goto fail;
	return i;
fail:
	fprintf(stderr, PROG ": --tx-ring %s: %s\n", o->tx_dev,
		rcap_errmsg(rc));
	return -1;
}

/*
 * After the last frame, or a stop: what is still in the ring when the
 * socket closes is never sent, so wait until the device has taken it
 * all, for a while. 0, or 1 after saying what was lost.
 */
static int tx_drain(struct ringcap *rc, const struct opts *o)
{
	unsigned long long deadline = now_ns() +
				      TX_DRAIN_MS * (NSEC / 1000);
	int ret;

	while ((ret = rcap_tx_flush(rc)) == 1) {
		if (now_ns() >= deadline) {
			fprintf(stderr, PROG ": --tx-ring %s: the device's queue stayed full for %d s; the frames still in the transmit ring are not sent\n",
				o->tx_dev, TX_DRAIN_MS / 1000);
			return 1;
		}
		/* A second signal does not cut this short: it is bounded. */
		if (rcap_tx_wait(rc, 100) < 0 && errno != EINTR)
			break;
	}
	if (!ret)
		return 0;
	fprintf(stderr, PROG ": --tx-ring %s: %s\n", o->tx_dev,
		rcap_errmsg(rc));
	return 1;
}

/*
 * Replaying, flows=0 size=0: neither applies to a file's frames. With a
 * transmit ring, its counters follow: frames the kernel refused (too
 * short or long for the device, or the device down) and kicks the
 * device's full queue cut short.
 */
static void print_send_summary(const struct opts *o, const struct tally *tl,
			       double seconds, struct ringcap *rc)
{
	const struct ringcap_tx_hdr *hdr;
	struct ringcap_tx_stats st;

	printf(PROG ": sent=%llu bytes=%llu seconds=%.3f rate_pps=%.0f flows=%u size=%u send_errors=%llu",
	       tl->frames, tl->bytes, seconds,
	       seconds > 0 ? tl->frames / seconds : 0.0,
	       o->replay ? 0 : o->flows, o->replay ? 0 : o->size, tl->errors);
	if (rc && rcap_tx_stats(rc, &st)) {
		/* The header's mirror of them, as of the last kick. */
		hdr = rcap_tx_hdr(rc);
		memset(&st, 0, sizeof(st));
		st.refused_len = __atomic_load_n(&hdr->refused,
						 __ATOMIC_RELAXED);
		st.full = __atomic_load_n(&hdr->full, __ATOMIC_RELAXED);
	}
	if (rc)
		printf(" tx_refused=%llu tx_full=%llu",
		       (unsigned long long)(st.refused_len + st.refused_down),
		       (unsigned long long)st.full);
	putchar('\n');
	fflush(stdout);
}

/*
 * The send loop; returns the exit status. With --rate a token bucket
 * paces it: tokens accrue at the rate on CLOCK_MONOTONIC and each frame
 * sent takes one. Between batches it sleeps until "chunk" tokens are due,
 * about a millisecond's worth but at most a batch, so low rates cost a
 * wake-up per frame rather than a spinning core, and high rates one per
 * batch. The bucket holds 10 ms of frames: a late wake-up is caught up
 * at once, a long stall (SIGSTOP) does not become a huge burst.
 *
 * With a transmit ring (@rc) a batch is put into the ring and sent with
 * one kick: a flush per batch of at most TX_BATCH frames, or per chunk
 * when the pacing waits between them.
 */
int send_loop(int fd, struct ringcap *rc, const struct opts *o,
		     struct gen *g)
{
	struct tally tl = { 0 }, prev = { 0 };
	double tokens = 1, depth = 0, chunk = 0, need, t, dt;
	int i, n, want, status = 0;
	unsigned long long now, refill;
	struct ticker tk;

	if (o->rate) {
		chunk = o->rate / 1000 ? o->rate / 1000 : 1;
		if (chunk > TX_BATCH)
			chunk = TX_BATCH;
		depth = o->rate / 100.0 > chunk ? o->rate / 100.0 : chunk;
	}
	ticker_start(&tk, o->duration);
	refill = tk.start;
	while (!cli_stop) {
		now = now_ns();
		if (ticker_due(&tk, now, &t, &dt)) {
			if (!o->quiet) {
				printf("t=%.2f pps=%.0f total=%llu send_errors=%llu\n",
				       t, (tl.frames - prev.frames) / dt,
				       tl.frames, tl.errors);
				fflush(stdout);
			}
			prev = tl;
		}
		if (ticker_over(&tk, now))
			break;

		want = TX_BATCH;
		if (o->count && o->count - tl.frames < TX_BATCH)
			want = (int)(o->count - tl.frames);
		if (o->rate) {
			tokens += (double)(now - refill) * o->rate / 1e9;
			refill = now;
			if (tokens > depth)
				tokens = depth;
			if (tokens < 1) {
				/* The last frames need not wait for a chunk. */
				need = want < chunk ? want : chunk;
				sleep_until(or_sooner(now + (unsigned long long)
						      ((need - tokens) * 1e9 /
						       o->rate) + 1, &tk));
				continue;
			}
			if (want > tokens)
				want = (int)tokens;
		}

		for (i = 0; i < want; i++)
			gen_next(g, i, tl.frames + i);
		if (rc) {
			n = tx_send(rc, o, g, want, &tk);
			if (n < 0) {
				status = 1;
				break;
			}
		} else {
			n = sendmmsg(fd, g->msgs, want, 0);
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (!send_error_is_transient(errno)) {
				fprintf(stderr, PROG ": send: %s\n",
					strerror(errno));
				status = 1;
				break;
			}
			send_error(o, &tl, errno, &tk);
			continue;
		}
		tl.frames += n;
		for (i = 0; i < n; i++)
			tl.bytes += g->msgs[i].msg_hdr.msg_iov->iov_len;
		tokens -= n;
		if (o->count && tl.frames >= o->count)
			break;
		/*
		 * sendmmsg() stops at a datagram that fails but reports the
		 * error only when it is the first of the batch (and a socket
		 * error such as ECONNREFUSED is used up by then): a short
		 * count is a refused frame too. A full transmit ring is
		 * not: tx_send() has waited for room.
		 */
		if (!rc && n < want && !cli_stop)
			send_error(o, &tl, 0, &tk);
	}
	if (rc && tx_drain(rc, o))
		status = 1;
	print_send_summary(o, &tl, ticker_seconds(&tk), rc);
	return status;
}
