// SPDX-License-Identifier: GPL-2.0
/*
 * packzip's capture: live on a device or from a savefile through libpcap
 * alone (run under ringcap-run, the same calls capture through ringcap),
 * the filter, the loop that hands each packet to the stream
 * (packzip_zip.c), its stops (-c, -t, SIGINT/SIGTERM) and the summary.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/time.h>
#include "cli.h"
#include "packzip.h"

#define TIMEOUT_MS	100		/* a quiet link's batch waits no longer */
#define PCAP_MAGIC_NS	0xa1b23c4dU
#define PCAP_MAGIC_NS_SWAPPED	0x4d3cb2a1U

static pcap_t *volatile cap;

/*
 * Run by the handler of SIGINT, SIGTERM and the -t timer. pcap_breakloop()
 * is the one libpcap call meant for a signal handler: it sets a flag and,
 * since libpcap 1.10, wakes a sleeping poll() through an eventfd
 * (libpcap-ring does the same). cli_stop covers a signal that arrives
 * before the capture is open.
 */
void cap_break(void)
{
	pcap_t *p = cap;

	if (p)
		pcap_breakloop(p);
}

/*
 * Set every knob before pcap_activate(), which is where the device is
 * really opened and the settings are checked against it.
 */
static pcap_t *open_live(const struct opts *o)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	pcap_t *p;
	int err;

	p = pcap_create(o->dev, errbuf);
	if (!p)
		die(1, "%s: %s", o->dev, errbuf);
	if ((o->snaplen && pcap_set_snaplen(p, o->snaplen)) ||
	    (o->buffer_kib && pcap_set_buffer_size(p, o->buffer_kib * 1024)) ||
	    (o->immediate && pcap_set_immediate_mode(p, 1)) ||
	    pcap_set_promisc(p, 1) || pcap_set_timeout(p, TIMEOUT_MS))
		die(1, "%s: cannot configure the capture", o->dev);
	if (o->nano &&
	    pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO))
		die(1, "%s: nanosecond timestamps not supported", o->dev);

	err = pcap_activate(p);
	if (err < 0) {
		/* geterr has the detail, but is empty for some codes. */
		die(1, "%s: %s", o->dev, *pcap_geterr(p) ? pcap_geterr(p) :
		    pcap_statustostr(err));
	}
	if (err > 0)
		fprintf(stderr, PROG ": %s: warning: %s\n", o->dev,
			pcap_statustostr(err));
	return p;
}

/*
 * libpcap hands out timestamps at the precision asked for at open time,
 * not at the file's own. To copy a nanosecond file unchanged, look at its
 * magic first; pread() leaves the stream untouched and simply fails on a
 * pipe, where microseconds (or --nano) it is.
 */
static unsigned int file_precision(FILE *f, int nano)
{
	uint32_t magic;

	if (nano)
		return PCAP_TSTAMP_PRECISION_NANO;
	if (pread(fileno(f), &magic, sizeof(magic), 0) == sizeof(magic) &&
	    (magic == PCAP_MAGIC_NS || magic == PCAP_MAGIC_NS_SWAPPED))
		return PCAP_TSTAMP_PRECISION_NANO;
	return PCAP_TSTAMP_PRECISION_MICRO;
}

static pcap_t *open_file(const struct opts *o)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	FILE *f = stdin;
	pcap_t *p;

	if (strcmp(o->rfile, "-")) {
		f = fopen(o->rfile, "rb");
		if (!f)
			die(1, "%s: %s", o->rfile, strerror(errno));
	}
	/* On success the pcap_t owns f and pcap_close() closes it. */
	p = pcap_fopen_offline_with_tstamp_precision(f,
			file_precision(f, o->nano), errbuf);
	if (!p)
		die(1, "%s: %s", o->rfile, errbuf);
	return p;
}

static void set_filter(pcap_t *p, const struct opts *o)
{
	bpf_u_int32 net, mask = PCAP_NETMASK_UNKNOWN;
	struct bpf_program prog;

	if (!o->filter)
		return;
	/* The netmask only matters for "ip broadcast"; unknown is fine. */
	if (o->dev && pcap_lookupnet(o->dev, &net, &mask, NULL) < 0)
		mask = PCAP_NETMASK_UNKNOWN;
	if (pcap_compile(p, &prog, o->filter, 1, mask))
		die(EXIT_USAGE, "bad filter '%s': %s", o->filter,
		    pcap_geterr(p));
	if (pcap_setfilter(p, &prog))
		die(1, "cannot set the filter: %s", pcap_geterr(p));
	pcap_freecode(&prog);
}

/* The device of -i or the file of -r, filter set; any failure ends packzip. */
pcap_t *cap_open(const struct opts *o)
{
	pcap_t *p = o->dev ? open_live(o) : open_file(o);

	set_filter(p, o);
	return p;
}

/* Each packet into the stream; on a failure, note it and end the loop. */
static void on_packet(u_char *user, const struct pcap_pkthdr *h,
		      const u_char *data)
{
	struct zip *zp = (struct zip *)user;
	int err;

	if (zp->err)
		return;		/* the rest of a batch after a failure */
	err = zip_record(zp, h, data);
	if (err) {
		zp->err = -err;
		pcap_breakloop(cap);
	}
}

static void arm_timer(double seconds)
{
	struct itimerval it = { 0 };
	long long us = (long long)(seconds * 1e6);

	if (!seconds)
		return;
	if (us < 1)
		us = 1;		/* 0 would disarm the timer */
	it.it_value.tv_sec = us / 1000000;
	it.it_value.tv_usec = us % 1000000;
	setitimer(ITIMER_REAL, &it, NULL);
}

static long long ms_between(const struct timespec *a,
			    const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000LL +
	       (b->tv_nsec - a->tv_nsec) / 1000000;
}

static long long tv_ms(const struct timeval *tv)
{
	return tv->tv_sec * 1000LL + tv->tv_usec / 1000;
}

/* pcap_stats() is meaningless on a savefile: "-" rather than a fake 0. */
static void print_summary(FILE *out, pcap_t *p, const struct opts *o,
			  const struct zip *zp, long long wall_ms)
{
	char recv[24] = "-", drop[24] = "-", ifdrop[24] = "-";
	struct pcap_stat ps;
	struct rusage ru;

	if (o->dev && !pcap_stats(p, &ps)) {
		snprintf(recv, sizeof(recv), "%u", ps.ps_recv);
		snprintf(drop, sizeof(drop), "%u", ps.ps_drop);
		snprintf(ifdrop, sizeof(ifdrop), "%u", ps.ps_ifdrop);
	}
	getrusage(RUSAGE_SELF, &ru);
	fprintf(out, PROG ": %s=%s level=%d captured=%llu ps_recv=%s ps_drop=%s ps_ifdrop=%s bytes_in=%llu bytes_out=%llu ratio=%.3f cpu_user_ms=%lld cpu_sys_ms=%lld wall_ms=%lld format=%s compress=%s\n",
		o->dev ? "dev" : "file", o->dev ? o->dev : o->rfile,
		o->level, zp->captured, recv, drop, ifdrop,
		zp->out.bytes_in, zp->out.bytes_out,
		zp->out.bytes_in ?
		(double)zp->out.bytes_out / zp->out.bytes_in : 0.0,
		tv_ms(&ru.ru_utime), tv_ms(&ru.ru_stime), wall_ms,
		o->pcapng ? "pcapng" : "pcap", zsink_kind_name(o->compress));
	fflush(out);
}

/* The capture loop proper; returns its exit status. */
static int loop(pcap_t *p, const struct opts *o, struct zip *zp)
{
	int ret, status = 0;

	/* -c goes to libpcap: it alone knows where a batch may stop. */
	ret = cli_stop ? 0 : pcap_loop(p, o->count ? o->count : -1, on_packet,
				   (u_char *)zp);
	if (ret == PCAP_ERROR) {
		fprintf(stderr, PROG ": %s: %s\n", o->dev ? o->dev : o->rfile,
			pcap_geterr(p));
		status = 1;
	}
	/* After a capture error, still finish: the file stays readable. */
	if (zip_end(zp, p, o))
		status = 1;
	return status;
}

/*
 * The capture from its first packet to its summary, timed; the exit
 * status. Signals stop it from here on.
 */
int cap_run(pcap_t *p, const struct opts *o, struct zip *zp)
{
	struct timespec t0, t1;
	int status;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* Publish the handle first: a signal from now on ends the loop. */
	cap = p;
	arm_timer(o->seconds);
	status = loop(p, o, zp);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	/* With -w - the stream owns stdout: the summary goes to stderr. */
	print_summary(to_stdout(o) ? stderr : stdout, p, o, zp,
		      ms_between(&t0, &t1));
	return status;
}
