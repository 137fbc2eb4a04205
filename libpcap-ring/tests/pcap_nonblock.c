// SPDX-License-Identifier: GPL-2.0
/*
 * pcap_nonblock: a libpcap application of the event-loop kind (as Zeek or
 * Suricata's pcap mode are), built against the system's <pcap/pcap.h>:
 * non-blocking mode, poll() on pcap_get_selectable_fd(), pcap_dispatch()
 * on readiness. It reads ringcap selftest frames (selftests/rc_frames.h:
 * ethertype 0x88b5, "RCAPTEST", big-endian seq at offset 22) until it has
 * COUNT of them, then reports
 *
 *   pcap_nonblock: frames=N dups=D missing=M outside=O wakeups=W
 *   empty_wakeups=E timeouts=T cpu_ms=C wall_ms=L required_timeout=0|1
 *
 * (one line). "ready" is printed once the handle is active, so a test can
 * start sending then. Exit 0 when seqs 0..COUNT-1 each arrived once and
 * the loop did not spin; 1 otherwise; 2 on bad usage. Spinning is judged
 * by counts, never by CPU time (which depends on the kernel and the host):
 * empty wake-ups at most 2 + wakeups / 4, and wake-ups at most one per 16
 * frames plus one per timeout period (the wake-up policy is libpcap-ring's
 * default N frames, or m = TIMEOUT_MS), plus 4. A reader woken per frame, or woken with
 * nothing to read, fails.
 *
 *   pcap_nonblock -i DEV -n COUNT [-w SECONDS] [-t TIMEOUT_MS]
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <pcap/pcap.h>

struct seen {
	unsigned int count;
	unsigned char *hits;
	unsigned long frames, dups, outside;
};

static void on_frame(u_char *user, const struct pcap_pkthdr *h,
		     const u_char *d)
{
	struct seen *s = (struct seen *)user;
	uint32_t seq;

	if (h->caplen < 26 || d[12] != 0x88 || d[13] != 0xb5 ||
	    memcmp(d + 14, "RCAPTEST", 8))
		return;
	seq = (uint32_t)d[22] << 24 | d[23] << 16 | d[24] << 8 | d[25];
	if (seq >= s->count) {
		s->outside++;
		return;
	}
	if (s->hits[seq]++)
		s->dups++;
	else
		s->frames++;
}

static long long now_ms(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	const char *dev = NULL;
	struct seen s = { 0 };
	unsigned long wakeups = 0, empty = 0, timeouts = 0, missing = 0;
	long long start, wall, cpu, deadline;
	int c, fd, ret, wait_s = 30, timeout_ms = 100, ok;
	struct pollfd pfd;
	struct rusage ru;
	unsigned int i;
	pcap_t *p;

	while ((c = getopt(argc, argv, "i:n:w:t:")) != -1) {
		switch (c) {
		case 'i':
			dev = optarg;
			break;
		case 'n':
			s.count = strtoul(optarg, NULL, 10);
			break;
		case 'w':
			wait_s = atoi(optarg);
			break;
		case 't':
			timeout_ms = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (!dev || !s.count || timeout_ms <= 0 || optind != argc)
		goto usage;
	s.hits = calloc(s.count, 1);
	if (!s.hits)
		return 1;

	p = pcap_create(dev, ebuf);
	if (!p) {
		fprintf(stderr, "pcap_nonblock: %s\n", ebuf);
		return 1;
	}
	pcap_set_snaplen(p, 2048);
	pcap_set_promisc(p, 1);
	pcap_set_timeout(p, timeout_ms);
	ret = pcap_activate(p);
	if (ret < 0) {
		fprintf(stderr, "pcap_nonblock: %s: %s\n", dev, pcap_geterr(p));
		return 1;
	}
	if (pcap_setnonblock(p, 1, ebuf) || pcap_getnonblock(p, ebuf) != 1) {
		fprintf(stderr, "pcap_nonblock: non-blocking mode: %s\n", ebuf);
		return 1;
	}
	fd = pcap_get_selectable_fd(p);
	if (fd < 0) {
		fprintf(stderr, "pcap_nonblock: no selectable fd\n");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);

	start = now_ms(CLOCK_MONOTONIC);
	deadline = start + wait_s * 1000LL;
	while (s.frames < s.count && now_ms(CLOCK_MONOTONIC) < deadline) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		ret = poll(&pfd, 1, 1000);
		if (ret < 0 && errno != EINTR) {
			perror("pcap_nonblock: poll");
			return 1;
		}
		if (ret <= 0) {
			timeouts++;
			continue;
		}
		wakeups++;
		/* Drain: non-blocking dispatch returns 0 once it is empty. */
		ret = pcap_dispatch(p, -1, on_frame, (u_char *)&s);
		if (ret < 0) {
			fprintf(stderr, "pcap_nonblock: %s\n", pcap_geterr(p));
			return 1;
		}
		if (!ret)
			empty++;
		while (ret > 0)
			ret = pcap_dispatch(p, -1, on_frame, (u_char *)&s);
	}
	wall = now_ms(CLOCK_MONOTONIC) - start;
	getrusage(RUSAGE_SELF, &ru);
	cpu = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000LL +
	      (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
	for (i = 0; i < s.count; i++)
		missing += !s.hits[i];
	printf("pcap_nonblock: frames=%lu dups=%lu missing=%lu outside=%lu wakeups=%lu empty_wakeups=%lu timeouts=%lu cpu_ms=%lld wall_ms=%lld required_timeout=%d\n",
	       s.frames, s.dups, missing, s.outside, wakeups, empty, timeouts,
	       cpu, wall, pcap_get_required_select_timeout(p) != NULL);
	ok = !missing && !s.dups && empty <= 2 + wakeups / 4 &&
	     (long long)wakeups <= s.count / 16 + wall / timeout_ms + 4;
	pcap_close(p);
	free(s.hits);
	return ok ? 0 : 1;
usage:
	fprintf(stderr,
		"usage: pcap_nonblock -i DEV -n COUNT [-w SECONDS] [-t TIMEOUT_MS]\n");
	return 2;
}
