// SPDX-License-Identifier: GPL-2.0
/*
 * bench-sendmmsg: the plain-socket sender of the benchmark's tx part
 * (scripts/bench-guest.sh, set-up tx_sendmmsg; scripts/bench.sh builds it
 * into build/bench/). COUNT Ethernet/IPv4/UDP frames of SIZE bytes (no
 * FCS) out of DEV through an AF_PACKET SOCK_RAW socket, BATCH frames per
 * sendmmsg(), as fast as the kernel takes them: the socket's default send
 * buffer and the device's qdisc, as an ordinary application has them.
 * FLOWS frames are built once (flow f: 10.1.0.1+f:10000+f to
 * 10.0.0.2:5001, broadcast, as rcgen's) and sent round-robin.
 *
 *   bench-sendmmsg DEV COUNT SIZE [FLOWS [BATCH]]    (64 flows, batch 64)
 *
 * Last line: "bench-sendmmsg: sent=N seconds=S rate_pps=R retries=K":
 * seconds from the first sendmmsg() to the return of the last; retries:
 * calls that took fewer frames than offered (a full qdisc, ENOBUFS), the
 * rest offered again.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define MAX_BATCH	1024

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void put16(uint8_t *p, unsigned int v)
{
	p[0] = v >> 8;
	p[1] = v;
}

/* Flow f's frame: Ethernet, IPv4 (checksummed), UDP without checksum. */
static void build(uint8_t *f, unsigned int size, unsigned int flow)
{
	static const uint8_t eth[14] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00 };
	uint32_t src = 0x0a010001 + flow, sum = 0;
	int i;

	memset(f, 0, size);
	memcpy(f, eth, sizeof(eth));
	f[14] = 0x45;
	put16(f + 16, size - 14);
	put16(f + 20, 0x4000);
	f[22] = 64;
	f[23] = 17;
	put16(f + 26, src >> 16);
	put16(f + 28, src);
	put16(f + 30, 0x0a00);
	put16(f + 32, 0x0002);
	for (i = 14; i < 34; i += 2)
		sum += f[i] << 8 | f[i + 1];
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	put16(f + 24, ~sum & 0xffff);
	put16(f + 34, 10000 + flow);
	put16(f + 36, 5001);
	put16(f + 38, size - 34);
}

int main(int argc, char **argv)
{
	static struct mmsghdr msgs[MAX_BATCH];
	static struct iovec iov[MAX_BATCH];
	unsigned long long count, sent = 0, retries = 0;
	unsigned int size, flows = 64, batch = 64, i, want;
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	double t0, t1;
	uint8_t *frames;
	int fd, n;

	if (argc < 4 || argc > 6) {
		fprintf(stderr, "usage: bench-sendmmsg DEV COUNT SIZE [FLOWS [BATCH]]\n");
		return 2;
	}
	count = strtoull(argv[2], NULL, 0);
	size = strtoul(argv[3], NULL, 0);
	if (argc > 4)
		flows = strtoul(argv[4], NULL, 0);
	if (argc > 5)
		batch = strtoul(argv[5], NULL, 0);
	if (size < 60 || size > 1514 || !flows || flows > 50000 ||
	    !batch || batch > MAX_BATCH) {
		fprintf(stderr, "bench-sendmmsg: SIZE 60..1514, FLOWS 1..50000, BATCH 1..%d\n",
			MAX_BATCH);
		return 2;
	}
	sll.sll_ifindex = if_nametoindex(argv[1]);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "bench-sendmmsg: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	/* Protocol 0: the socket only sends, it receives nothing. */
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "bench-sendmmsg: AF_PACKET socket on %s: %s\n",
			argv[1], strerror(errno));
		return 1;
	}
	frames = malloc((size_t)flows * size);
	if (!frames)
		return 1;
	for (i = 0; i < flows; i++)
		build(frames + (size_t)i * size, size, i);
	for (i = 0; i < batch; i++) {
		iov[i].iov_len = size;
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}

	t0 = now();
	while (sent < count) {
		want = count - sent < batch ? count - sent : batch;
		for (i = 0; i < want; i++)
			iov[i].iov_base = frames + (size_t)((sent + i) % flows) * size;
		n = sendmmsg(fd, msgs, want, 0);
		if (n < 0 && errno != ENOBUFS && errno != EAGAIN && errno != EINTR) {
			fprintf(stderr, "bench-sendmmsg: sendmmsg: %s\n", strerror(errno));
			break;
		}
		if (n < (int)want) {
			retries++;
			sched_yield();
		}
		if (n > 0)
			sent += n;
	}
	t1 = now();
	printf("bench-sendmmsg: sent=%llu seconds=%.3f rate_pps=%.0f retries=%llu\n",
	       sent, t1 - t0, t1 > t0 ? sent / (t1 - t0) : 0.0, retries);
	return sent == count ? 0 : 1;
}
