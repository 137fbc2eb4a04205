// SPDX-License-Identifier: GPL-2.0
/*
 * packzip: capture packets through libpcap and compress each one with zlib,
 * the "application load" of Braun et al. (IMC 2010). The compression
 * level sets how much CPU every packet costs, so the share of packets an
 * application keeps can be measured against its per-packet work.
 *
 * It is a plain libpcap program on purpose: run as it is, it captures
 * through the stock Linux path (AF_PACKET); run under ringcap-run, the same
 * binary captures through ringcap. It never touches libringcap.
 *
 * Every packet is copied once into a buffer of our own, behind a pcap
 * record header, and that record is fed to one deflate stream with a gzip
 * wrapper. The stream is therefore a gzip-compressed pcap file: with -w it
 * is written out, without it only counted. Either way zlib does the same
 * work. The last line on stdout is a key=value summary for scripts:
 *
 *   packzip: dev=eth0 level=6 captured=1009 ps_recv=1009 ps_drop=0
 *   ps_ifdrop=0 bytes_in=88616 bytes_out=20871 ratio=0.236
 *   cpu_user_ms=12 cpu_sys_ms=4 wall_ms=1002
 *
 * (one line). With -r, "file=FILE" replaces "dev=" and the ps_* counters
 * are "-": libpcap keeps no statistics for a savefile.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <pcap/pcap.h>
#include <zlib.h>
#include "cli.h"

#define PROG		"packzip"
#define MAX_SNAPLEN	262144		/* libpcap's own ceiling */
#define TIMEOUT_MS	100		/* a quiet link's batch waits no longer */
#define OUT_SIZE	(256 * 1024)	/* compressed bytes per write() */
#define PCAP_HDR_LEN	24		/* pcap file global header */
#define PCAP_MAGIC_NS	0xa1b23c4dU
#define PCAP_MAGIC_NS_SWAPPED	0x4d3cb2a1U

enum { OPT_IMMEDIATE = 256, OPT_NANO };

struct opts {
	const char *dev;
	const char *rfile;
	const char *wfile;		/* NULL: discard the stream */
	char *filter;			/* NULL: every packet */
	int level;
	int count;			/* 0: no limit */
	double seconds;			/* 0: no limit */
	int snaplen;			/* 0: libpcap's default */
	int buffer_kib;			/* 0: libpcap's default */
	int immediate;
	int nano;
};

/* One pcap record header as it goes into the file: host byte order. */
struct rec_hdr {
	uint32_t sec;
	uint32_t frac;			/* micro- or nanoseconds */
	uint32_t caplen;
	uint32_t len;
};

struct zip {
	z_stream z;
	int fd;				/* -1: count the output only */
	unsigned char *out;		/* OUT_SIZE compressed bytes */
	unsigned char *rec;		/* one record: header + copied data */
	size_t rec_size;
	unsigned long long captured;
	unsigned long long bytes_in;
	unsigned long long bytes_out;
	int err;			/* errno of a write or zlib failure */
};

static pcap_t *volatile cap;

/*
 * Run by the handler of SIGINT, SIGTERM and the -t timer. pcap_breakloop()
 * is the one libpcap call meant for a signal handler: it sets a flag and,
 * since libpcap 1.10, wakes a sleeping poll() through an eventfd
 * (libpcap-ring does the same). cli_stop covers a signal that arrives
 * before the capture is open.
 */
static void break_capture(void)
{
	pcap_t *p = cap;

	if (p)
		pcap_breakloop(p);
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " PROG " -i DEV [options] [filter expression...]\n"
		"       " PROG " -r FILE [options] [filter expression...]\n"
		"Capture packets with libpcap and compress each with zlib.\n"
		"\n"
		"  -i, --interface DEV   capture live on DEV\n"
		"  -r, --read FILE       read a pcap savefile instead ('-': stdin)\n"
		"  -z, --level LEVEL     zlib level 0..9 (default 6, 0 = stored)\n"
		"  -c, --count N         stop after N packets\n"
		"  -t, --time SECONDS    stop after SECONDS (may be fractional)\n"
		"  -s, --snaplen BYTES   bytes kept per packet (1..262144, -i only)\n"
		"  -B, --buffer KIB      kernel buffer size in KiB (-i only)\n"
		"      --immediate       deliver each packet at once (-i only)\n"
		"      --nano            nanosecond timestamps\n"
		"  -w, --write FILE      write a gzip-compressed pcap file\n"
		"                        ('-': stdout, summary then on stderr)\n"
		"  -h, --help            this text\n"
		"\n"
		"Last line: " PROG ": dev= (or file=) level= captured= ps_recv=\n"
		"  ps_drop= ps_ifdrop= bytes_in= bytes_out= ratio= cpu_user_ms=\n"
		"  cpu_sys_ms= wall_ms=\n"
		"Stops on -c, -t, SIGINT/SIGTERM or end of file.\n"
		"Exit: 0 ok, 1 error, 2 bad usage.\n");
}

/* The words after the options form the filter, as with tcpdump. */
static char *join_words(char **words, int n)
{
	size_t len = 0;
	char *s;
	int i;

	if (n <= 0)
		return NULL;
	for (i = 0; i < n; i++)
		len += strlen(words[i]) + 1;
	s = malloc(len);
	if (!s)
		die(1, "out of memory");
	s[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, words[i]);
	}
	return s;
}

static void check_args(const struct opts *o)
{
	if (!o->dev && !o->rfile)
		bad_usage("-i DEV or -r FILE is required");
	if (o->dev && o->rfile)
		bad_usage("-i and -r exclude each other");
	if (o->rfile && (o->snaplen || o->buffer_kib || o->immediate))
		bad_usage("-s, -B and --immediate apply to -i only");
}

const char cli_prog[] = PROG;
const struct option cli_longopts[] = {
	{ "interface", required_argument, NULL, 'i' },
	{ "read", required_argument, NULL, 'r' },
	{ "level", required_argument, NULL, 'z' },
	{ "count", required_argument, NULL, 'c' },
	{ "time", required_argument, NULL, 't' },
	{ "snaplen", required_argument, NULL, 's' },
	{ "buffer", required_argument, NULL, 'B' },
	{ "write", required_argument, NULL, 'w' },
	{ "immediate", no_argument, NULL, OPT_IMMEDIATE },
	{ "nano", no_argument, NULL, OPT_NANO },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void parse_args(int argc, char **argv, struct opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->level = 6;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:r:z:c:t:s:B:w:h", cli_longopts,
				NULL)) != -1) {
		switch (c) {
		case 'i':
			o->dev = optarg;
			break;
		case 'r':
			o->rfile = optarg;
			break;
		case 'z':
			o->level = (int)cli_num(c, optarg, 0, 9, 0);
			break;
		case 'c':
			o->count = (int)cli_num(c, optarg, 1, INT_MAX, 0);
			break;
		case 't':
			o->seconds = cli_seconds(c, optarg, 1e7);
			break;
		case 's':
			o->snaplen = (int)cli_num(c, optarg, 1, MAX_SNAPLEN, 0);
			break;
		case 'B':
			o->buffer_kib = (int)cli_num(c, optarg, 1, INT_MAX / 1024, 0);
			break;
		case 'w':
			o->wfile = optarg;
			break;
		case OPT_IMMEDIATE:
			o->immediate = 1;
			break;
		case OPT_NANO:
			o->nano = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			cli_bad_option(c, argv);
		}
	}
	check_args(o);
	o->filter = join_words(argv + optind, argc - optind);
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

/* write() all of it, through partial writes and signals; 0 or -errno. */
static int write_all(int fd, const unsigned char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= n;
	}
	return 0;
}

/* Hand what deflate produced to the file (or nowhere) and reuse the room. */
static int zip_drain(struct zip *zp)
{
	size_t len = OUT_SIZE - zp->z.avail_out;
	int err;

	zp->bytes_out += len;
	if (zp->fd >= 0) {
		err = write_all(zp->fd, zp->out, len);
		if (err)
			return err;
	}
	zp->z.next_out = zp->out;
	zp->z.avail_out = OUT_SIZE;
	return 0;
}

/*
 * Z_NO_FLUSH lets deflate keep its window across packets, as an archiver
 * would: the cost per packet is then the level's, not a flush's. deflate
 * stops early only when the output room is full, so drain and go on.
 */
static int zip_feed(struct zip *zp, const void *buf, size_t len)
{
	int err;

	zp->z.next_in = (unsigned char *)buf;
	zp->z.avail_in = len;
	zp->bytes_in += len;
	while (zp->z.avail_in) {
		if (deflate(&zp->z, Z_NO_FLUSH) == Z_STREAM_ERROR)
			return -EINVAL;
		if (!zp->z.avail_out) {
			err = zip_drain(zp);
			if (err)
				return err;
		}
	}
	return 0;
}

/* The rest of the stream and the gzip trailer (CRC, length). */
static int zip_finish(struct zip *zp)
{
	int ret, err;

	do {
		ret = deflate(&zp->z, Z_FINISH);
		if (ret == Z_STREAM_ERROR)
			return -EINVAL;
		err = zip_drain(zp);
		if (err)
			return err;
	} while (ret != Z_STREAM_END);
	return 0;
}

/*
 * The file header comes from libpcap itself: pcap_dump_fopen() knows the
 * LINKTYPE_ value for the handle's DLT_ (they differ for a few) and picks
 * the micro- or nanosecond magic from the handle's precision.
 */
static int pcap_file_header(pcap_t *p, unsigned char hdr[PCAP_HDR_LEN])
{
	pcap_dumper_t *d;
	size_t len = 0;
	char *buf = NULL;
	FILE *mem;
	int ok;

	mem = open_memstream(&buf, &len);
	if (!mem)
		return -1;
	d = pcap_dump_fopen(p, mem);
	if (!d) {
		fclose(mem);
		free(buf);
		return -1;
	}
	pcap_dump_close(d);	/* closes mem: buf and len are final */
	ok = len == PCAP_HDR_LEN;
	if (ok)
		memcpy(hdr, buf, PCAP_HDR_LEN);
	free(buf);
	return ok ? 0 : -1;
}

static int to_stdout(const struct opts *o)
{
	return o->wfile && !strcmp(o->wfile, "-");
}

/* Open the output (if any) and start the stream with the file header. */
static void zip_open(struct zip *zp, pcap_t *p, const struct opts *o)
{
	unsigned char hdr[PCAP_HDR_LEN];
	int err;

	memset(zp, 0, sizeof(*zp));
	zp->fd = -1;
	zp->rec_size = sizeof(struct rec_hdr) + pcap_snapshot(p);
	zp->out = malloc(OUT_SIZE);
	zp->rec = malloc(zp->rec_size);
	if (!zp->out || !zp->rec)
		die(1, "out of memory");
	/* windowBits 15 + 16: the gzip wrapper, so zcat reads the file. */
	if (deflateInit2(&zp->z, o->level, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		die(1, "zlib: cannot start a deflate stream");
	zp->z.next_out = zp->out;
	zp->z.avail_out = OUT_SIZE;
	if (pcap_file_header(p, hdr))
		die(1, "cannot build the pcap file header");

	if (to_stdout(o)) {
		zp->fd = STDOUT_FILENO;
	} else if (o->wfile) {
		zp->fd = open(o->wfile,
			      O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (zp->fd < 0)
			die(1, "%s: %s", o->wfile, strerror(errno));
	}
	err = zip_feed(zp, hdr, sizeof(hdr));
	if (err)
		die(1, "%s: %s", o->wfile ? o->wfile : "zlib", strerror(-err));
}

/* A record larger than the snaplen said (odd files): make room for it. */
static int zip_room(struct zip *zp, size_t need)
{
	unsigned char *rec;

	if (need <= zp->rec_size)
		return 0;
	rec = realloc(zp->rec, need);
	if (!rec)
		return -ENOMEM;
	zp->rec = rec;
	zp->rec_size = need;
	return 0;
}

/*
 * The per-packet work: one copy out of libpcap's buffer into ours, as an
 * application that keeps the data must do, then the compression. On a
 * failure, note it and end the loop; main() reports.
 */
static void on_packet(u_char *user, const struct pcap_pkthdr *h,
		      const u_char *data)
{
	struct zip *zp = (struct zip *)user;
	struct rec_hdr rh = {
		.sec = (uint32_t)h->ts.tv_sec,
		.frac = (uint32_t)h->ts.tv_usec,
		.caplen = h->caplen,
		.len = h->len,
	};
	size_t len = sizeof(rh) + h->caplen;
	int err;

	if (zp->err)
		return;		/* the rest of a batch after a failure */
	err = zip_room(zp, len);
	if (!err) {
		memcpy(zp->rec, &rh, sizeof(rh));
		memcpy(zp->rec + sizeof(rh), data, h->caplen);
		zp->captured++;
		err = zip_feed(zp, zp->rec, len);
	}
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
	fprintf(out, PROG ": %s=%s level=%d captured=%llu ps_recv=%s ps_drop=%s ps_ifdrop=%s bytes_in=%llu bytes_out=%llu ratio=%.3f cpu_user_ms=%lld cpu_sys_ms=%lld wall_ms=%lld\n",
		o->dev ? "dev" : "file", o->dev ? o->dev : o->rfile,
		o->level, zp->captured, recv, drop, ifdrop, zp->bytes_in,
		zp->bytes_out,
		zp->bytes_in ? (double)zp->bytes_out / zp->bytes_in : 0.0,
		tv_ms(&ru.ru_utime), tv_ms(&ru.ru_stime), wall_ms);
	fflush(out);
}

/* The capture loop proper; returns the exit status. */
static int run(pcap_t *p, const struct opts *o, struct zip *zp)
{
	int ret, err, status = 0;

	/* -c goes to libpcap: it alone knows where a batch may stop. */
	ret = cli_stop ? 0 : pcap_loop(p, o->count ? o->count : -1, on_packet,
				   (u_char *)zp);
	if (ret == PCAP_ERROR) {
		fprintf(stderr, PROG ": %s: %s\n", o->dev ? o->dev : o->rfile,
			pcap_geterr(p));
		status = 1;
	}
	/* After a capture error, still finish: the file stays readable. */
	err = zp->err ? -zp->err : zip_finish(zp);
	if (err) {
		fprintf(stderr, PROG ": %s: %s\n", o->wfile ? o->wfile : "zlib",
			strerror(-err));
		status = 1;
	}
	if (zp->fd >= 0 && !to_stdout(o) && close(zp->fd)) {
		fprintf(stderr, PROG ": %s: %s\n", o->wfile, strerror(errno));
		status = 1;
	}
	return status;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct opts o;
	struct zip zp;
	pcap_t *p;
	int status;

	parse_args(argc, argv, &o);
	/* SA_RESTART: writes go on; poll() still ends (pcap_breakloop). */
	cli_catch_stop(break_capture, 1, 1);

	p = o.dev ? open_live(&o) : open_file(&o);
	set_filter(p, &o);
	zip_open(&zp, p, &o);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* Publish the handle first: a signal from now on ends the loop. */
	cap = p;
	arm_timer(o.seconds);
	status = run(p, &o, &zp);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	/* With -w - the stream owns stdout: the summary goes to stderr. */
	print_summary(to_stdout(&o) ? stderr : stdout, p, &o, &zp,
		      ms_between(&t0, &t1));
	deflateEnd(&zp.z);
	pcap_close(p);
	free(zp.out);
	free(zp.rec);
	free(o.filter);
	return status;
}
