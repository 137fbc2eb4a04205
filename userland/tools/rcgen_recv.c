// SPDX-License-Identifier: GPL-2.0
/*
 * rcgen --recv: count, and with --write save, the frames the guest sends
 * (one datagram each on QEMU's dgram socket).
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

/* Receiving: RX_BATCH buffers, each with room for a timestamp. */

void rx_init(struct rx *r, int fd, const struct opts *o)
{
	struct pcapfile_hdr fh = pcapfile_hdr_of(0, RX_SNAP);
	int one = 1, size = RX_RCVBUF;
	int i;

	memset(r, 0, sizeof(*r));
	r->bufs = malloc((size_t)RX_BATCH * RX_SNAP);
	if (!r->bufs)
		die_errno("out of memory");
	for (i = 0; i < RX_BATCH; i++) {
		r->iov[i].iov_base = r->bufs + (size_t)i * RX_SNAP;
		r->iov[i].iov_len = RX_SNAP;
		r->msgs[i].msg_hdr.msg_iov = &r->iov[i];
		r->msgs[i].msg_hdr.msg_iovlen = 1;
	}

	/*
	 * A guest sends in bursts (a whole TX ring at once) and the default
	 * buffer holds a few hundred small datagrams: ask for more, beyond
	 * rmem_max if allowed (CAP_NET_ADMIN), else up to it. 64 MiB (the
	 * kernel doubles it) holds some 2 s of 20000 frames/s. With 16 MiB,
	 * half that, a host building a kernel beside two guests lost 2476
	 * of 100000 after the guest's NIC: socket_drops says if it is here.
	 */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));

	if (!o->write)
		return;
	/* The kernel's arrival time, not when this loop got round to it. */
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMP, &one, sizeof(one)))
		die_errno("SO_TIMESTAMP");
	r->pcap = fopen(o->write, "wb");
	if (!r->pcap)
		die_errno("cannot write %s", o->write);
	if (fwrite(&fh, sizeof(fh), 1, r->pcap) != 1)
		die_errno("cannot write %s", o->write);
}

/* Append datagram @i to the pcap file; 0 or -1 (errno set). */
static int rx_write(struct rx *r, int i)
{
	struct msghdr *mh = &r->msgs[i].msg_hdr;
	struct pcapfile_rec rh;
	struct cmsghdr *cm;
	struct timeval tv;
	struct timespec ts;
	int found = 0;

	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_TIMESTAMP) {
			memcpy(&tv, CMSG_DATA(cm), sizeof(tv));
			found = 1;
		}
	}
	if (!found) {
		clock_gettime(CLOCK_REALTIME, &ts);
		tv.tv_sec = ts.tv_sec;
		tv.tv_usec = ts.tv_nsec / 1000;
	}
	rh.sec = tv.tv_sec;
	rh.frac = tv.tv_usec;
	rh.caplen = r->msgs[i].msg_len;
	rh.len = r->msgs[i].msg_len;
	if (fwrite(&rh, sizeof(rh), 1, r->pcap) != 1 ||
	    fwrite(r->iov[i].iov_base, rh.caplen, 1, r->pcap) != 1)
		return -1;
	return 0;
}

/*
 * What this socket's receive queue refused (it was full): a loss on the
 * host, after the guest's NIC, told apart from one before it. "?" where
 * the kernel cannot say (SO_MEMINFO is 4.12's).
 */
static const char *socket_drops(int fd)
{
	static char buf[16];
	uint32_t mi[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mi);

	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mi, &len) ||
	    len <= SK_MEMINFO_DROPS * sizeof(mi[0]))
		return "?";
	snprintf(buf, sizeof(buf), "%u", mi[SK_MEMINFO_DROPS]);
	return buf;
}

/* The receive loop; returns the exit status. */
/*
 * One recvmmsg() of at most @want datagrams, without waiting, into the
 * tally (and the pcap file): how many, 0 when none is queued, or -1 on an
 * error, said on stderr.
 */
static int rx_batch(int fd, const struct opts *o, struct rx *r,
		    struct tally *tl, int want)
{
	int i, n;

	for (i = 0; i < want; i++) {
		/* The kernel shrinks these to what it filled in. */
		r->msgs[i].msg_hdr.msg_control = r->pcap ? r->ctl[i].buf : NULL;
		r->msgs[i].msg_hdr.msg_controllen =
			r->pcap ? sizeof(r->ctl[i].buf) : 0;
	}
	n = recvmmsg(fd, r->msgs, want, MSG_DONTWAIT, NULL);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return 0;
		fprintf(stderr, PROG ": receive: %s\n", strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (r->pcap && rx_write(r, i)) {
			fprintf(stderr, PROG ": cannot write %s: %s\n",
				o->write, strerror(errno));
			return -1;
		}
		tl->frames++;
		tl->bytes += r->msgs[i].msg_len;
	}
	return n;
}

/* How many more datagrams to read: a batch, or what --count leaves. */
static int rx_want(const struct opts *o, const struct tally *tl)
{
	if (o->count && o->count - tl->frames < RX_BATCH)
		return (int)(o->count - tl->frames);
	return RX_BATCH;
}

int recv_loop(int fd, const struct opts *o, struct rx *r)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct tally tl = { 0 }, prev = { 0 };
	unsigned long long now, until;
	int n, status = 0;
	struct ticker tk;
	double t, dt;

	ticker_start(&tk, o->duration);
	while (!cli_stop) {
		n = rx_batch(fd, o, r, &tl, rx_want(o, &tl));
		if (n < 0) {
			status = 1;
			break;
		}
		if (o->count && tl.frames >= o->count)
			break;

		now = now_ns();
		if (ticker_due(&tk, now, &t, &dt)) {
			if (!o->quiet) {
				printf("t=%.2f pps=%.0f total=%llu\n", t,
				       (tl.frames - prev.frames) / dt,
				       tl.frames);
				fflush(stdout);
			}
			prev = tl;
		}
		if (ticker_over(&tk, now))
			break;
		if (n)
			continue;	/* more may be queued: no sleep yet */
		/* A signal interrupts poll() (no SA_RESTART): seen above. */
		poll(&pfd, 1, ticker_wait_ms(&tk, now));
	}
	/*
	 * Stopped by a signal: what the socket holds already reached it, so
	 * it is read and counted too (for at most a second, should the
	 * sender go on), and received + socket_drops is what came.
	 */
	until = now_ns() + NSEC;
	while (cli_stop && !status && now_ns() < until &&
	       (!o->count || tl.frames < o->count)) {
		n = rx_batch(fd, o, r, &tl, rx_want(o, &tl));
		if (n < 0)
			status = 1;
		if (n <= 0)
			break;
	}
	if (r->pcap && fclose(r->pcap) && !status) {
		fprintf(stderr, PROG ": cannot write %s: %s\n", o->write,
			strerror(errno));
		status = 1;
	}
	r->pcap = NULL;
	printf(PROG ": received=%llu bytes=%llu seconds=%.3f socket_drops=%s\n",
	       tl.frames, tl.bytes, ticker_seconds(&tk), socket_drops(fd));
	fflush(stdout);
	return status;
}
