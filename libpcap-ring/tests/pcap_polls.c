// SPDX-License-Identifier: GPL-2.0
/*
 * pcap_polls: how many poll() calls a blocking libpcap read makes per
 * wake-up. Built against the system's <pcap/pcap.h> and run through
 * ringcap-run, it defines poll() itself and exports it, so the drop-in
 * libpcap's calls (the backend's and libringcap's, both inside
 * libpcap.so) land here, are counted and go on to ppoll().
 *
 * It reads ringcap selftest frames (selftests/rc_frames.h: ethertype
 * 0x88b5, "RCAPTEST") with pcap_dispatch() in blocking mode (timeout
 * 1000 ms) until it has COUNT of them, then reports
 *
 *   pcap_polls: frames=F reads=R waits=W max_polls_per_read=M
 *   one_fd_polls=S polls=P
 *
 * (one line): R reads returned frames, W of them slept in poll() first,
 * the most poll() calls one such read made, and how many poll() calls
 * had a single fd (the backend polls the ring with its breakloop
 * eventfd; a single-fd poll is a second look at the ring). "ready" is
 * printed once the handle is active. Exit 0 when COUNT frames came, at
 * least one read slept, no read polled more than once and no poll had a
 * single fd; 1 otherwise; 2 on bad usage or a pcap error.
 *
 *   pcap_polls -i DEV -n COUNT [-w SECONDS]
 */
#define _GNU_SOURCE	/* ppoll() */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pcap/pcap.h>

static unsigned long polls, one_fd_polls;

/* Exported (see the Makefile) so that libpcap.so's calls come here. */
int poll(struct pollfd *fds, nfds_t nfds, int timeout_ms)
{
	struct timespec ts = {
		.tv_sec = timeout_ms / 1000,
		.tv_nsec = timeout_ms % 1000 * 1000000L,
	};

	polls++;
	if (nfds == 1)
		one_fd_polls++;
	return ppoll(fds, nfds, timeout_ms < 0 ? NULL : &ts, NULL);
}

static void on_frame(u_char *user, const struct pcap_pkthdr *h,
		     const u_char *d)
{
	unsigned long *frames = (unsigned long *)user;

	if (h->caplen >= 22 && d[12] == 0x88 && d[13] == 0xb5 &&
	    !memcmp(d + 14, "RCAPTEST", 8))
		(*frames)++;
}

static int usage(void)
{
	fprintf(stderr, "usage: pcap_polls -i DEV -n COUNT [-w SECONDS]\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long count = 0, frames = 0, reads = 0, waits = 0, most = 0;
	unsigned long before, made;
	char ebuf[PCAP_ERRBUF_SIZE];
	const char *dev = NULL;
	time_t end, secs = 60;
	pcap_t *p;
	int opt, ret;

	while ((opt = getopt(argc, argv, "i:n:w:")) != -1) {
		if (opt == 'i')
			dev = optarg;
		else if (opt == 'n')
			count = strtoul(optarg, NULL, 10);
		else if (opt == 'w')
			secs = strtol(optarg, NULL, 10);
		else
			return usage();
	}
	if (!dev || !count)
		return usage();
	p = pcap_create(dev, ebuf);
	if (!p || pcap_set_snaplen(p, 256) || pcap_set_timeout(p, 1000) ||
	    pcap_activate(p) < 0) {
		fprintf(stderr, "pcap_polls: %s: %s\n", dev,
			p ? pcap_geterr(p) : ebuf);
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	end = time(NULL) + secs;
	while (frames < count && time(NULL) < end) {
		before = polls;
		ret = pcap_dispatch(p, -1, on_frame, (u_char *)&frames);
		if (ret < 0) {
			fprintf(stderr, "pcap_polls: %s\n", pcap_geterr(p));
			return 2;
		}
		/* A read that timed out polled once and returned 0. */
		if (!ret)
			continue;
		made = polls - before;
		reads++;
		waits += made > 0;
		if (made > most)
			most = made;
	}
	pcap_close(p);
	printf("pcap_polls: frames=%lu reads=%lu waits=%lu max_polls_per_read=%lu one_fd_polls=%lu polls=%lu\n",
	       frames, reads, waits, most, one_fd_polls, polls);
	return frames == count && waits && most <= 1 && !one_fd_polls ? 0 : 1;
}
