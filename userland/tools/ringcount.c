// SPDX-License-Identifier: GPL-2.0
/*
 * ringcount: count the frames a ringcap socket captures on DEV or DEV@QUEUE,
 * per second and in total, next to every loss counter the kernel keeps.
 *
 * The last line is a summary for scripts, one "key=value" per counter:
 *
 *   ringcount: dev=eth0 queue=all captured=1009 dropped=0 filtered=0
 *   nic_dropped=0 wakeups=17 seconds=1.23 received=1009 bytes=64576
 *   bad_consumer=0 cluster=- path=hook
 *
 * (one line), then gaps= and gap_lost=: the gap records read (the
 * socket keeps them, RINGCAP_GAPS) and the frames they say were lost;
 * then cutoff=, cutoff_bytes= and flows_evicted= of the per-flow cut-off
 * (-k; frames left out on purpose, not lost).
 * Each gap record is also printed as it comes (unless -q), at most
 * GAP_LINES a second:
 *
 *   gap: t=1.52 lost=37 ring_full=37 cluster_full=0 nic=0 cutoff=0 after=5120
 *
 * (after: the frames read before it). With -w FILE the frames go into a
 * pcapng file (capfile.h), each with the loss before it, or into a
 * classic pcap file for a name ending in .pcap.
 *
 * path is how the device fed the socket (xdp-copy, aware,
 * zerocopy with -z, hook, or hook:WHY where mode 2 fell back to the mode
 * 0 hook; see rcap_path_name()), as read at the end, or at bind if the
 * device has gone since. captured counts frames this program read;
 * received counts frames the kernel wrote into the ring, which is larger
 * only by what was still unread when the program stopped.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include "libringcap.h"
#include "capfile.h"
#include "cli.h"
#include "ticker.h"

#define PROG		"ringcount"
#define BATCH		256
#define GAP_LINES	10	/* gap records printed per second, at most */

struct opts {
	const char *spec;
	char ifname[IFNAMSIZ];
	int queue;
	unsigned long long count;	/* 0: no limit */
	double duration;		/* seconds, 0: no limit */
	uint32_t snaplen;		/* 0: the socket's default */
	uint32_t watermark;		/* 0: rcap_batch_watermark() */
	uint32_t timeout_us;		/* RINGCAP_WAKEUP_KEEP: default */
	uint32_t ring_size;		/* 0: the module's default */
	uint32_t cluster_id;		/* 0: none */
	uint32_t cluster_policy;
	int zerocopy;			/* -z: the NIC's own buffers */
	int quiet;
	const char *wfile;		/* -w: the pcapng file, or NULL */
	uint32_t cutoff;		/* -k: bytes per flow, 0: none */
	unsigned long long rotate_bytes;	/* -S: a new file per ... */
	double rotate_seconds;		/* -G */
	char path[24];			/* the path at bind */
};

struct tally {
	unsigned long long frames;
	unsigned long long bytes;	/* wire bytes */
	unsigned long long gaps;	/* gap records */
	unsigned long long gap_lost;	/* the frames they count */
	uint64_t lost_before;		/* since the last frame read */
	unsigned int gap_lines;		/* printed this second */
};

/* The limits are the kernel's, from <linux/ringcap.h>. */
static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " PROG " -i DEV[@QUEUE] [options]\n"
		"Count frames captured through ringcap, per second and in total.\n"
		"\n"
		"  -i, --interface DEV[@Q]  device, all RX queues, or only queue Q\n"
		"  -c, --count N            stop after N frames\n"
		"  -d, --duration SEC       stop after SEC seconds (may be fractional)\n"
		"  -s, --snaplen BYTES      bytes kept per frame (1..%u, at most\n"
		"                           half the ring less %zu)\n"
		"  -w, --write FILE         write the frames to a pcapng file, each\n"
		"                           with the loss before it, and the counters\n"
		"                           at the end (a FILE.pcap name: classic pcap,\n"
		"                           without them); FILE.gz or FILE.zst compress\n"
		"                           ('-': stdout, the lines then on stderr)\n"
		"  -S, --rotate-size BYTES  with -w, a new file each BYTES of capture\n"
		"                           (before compression; k/M suffix):\n"
		"                           FILE-00001.pcapng, FILE-00002.pcapng...\n"
		"  -G, --rotate-seconds SEC with -w, a new file each SEC seconds;\n"
		"                           each file ends with the counters so far\n"
		"  -W, --watermark N        wake after N frames (1..%u; 1 = immediate;\n"
		"                           default: the full frames that fill a\n"
		"                           quarter of the ring)\n"
		"  -t, --timeout US         wake US microseconds after the first frame\n"
		"                           (0..%u; 0 = only by the watermark;\n"
		"                           default 100000)\n"
		"  -r, --ring-size BYTES    ring data size, a power of two (k/M suffix)\n"
		"                           of %u..%u, at most max_ring_mem\n"
		"  -k, --cutoff BYTES       keep only the frames that start within\n"
		"                           the first BYTES of each flow and\n"
		"                           direction (1..%u, k/M suffix); count\n"
		"                           the rest (cutoff=, and in gap lines)\n"
		"  -C, --cluster ID[:POL]   share the frames with the other members of\n"
		"                           cluster ID (1..4294967295) by POL: flow\n"
		"                           (default), rr or queue; POL+span (as\n"
		"                           7:flow+span): members on other devices\n"
		"                           too, as the two ports of a tap;\n"
		"                           flow+inner: VXLAN and GRE by the flow\n"
		"                           inside\n"
		"  -z, --zero-copy          count zero-copy: take queue Q (DEV@Q\n"
		"                           required) for this socket alone and read\n"
		"                           frames in the NIC's own buffers; needs a\n"
		"                           driver that offers it (ringcap_e1000e);\n"
		"                           the watermark is then at most a quarter\n"
		"                           of the NIC's buffers\n"
		"  -q, --quiet              no per-second lines, only the summary\n"
		"  -h, --help               this text\n"
		"\n"
		"Per-second lines: t= fps= mbps= total= dropped= filtered= nic_dropped=\n"
		"Gap lines: gap: t= lost= ring_full= cluster_full= nic= cutoff= after=\n"
		"Last line: " PROG ": dev= queue= captured= dropped= filtered=\n"
		"           nic_dropped= wakeups= seconds= received= bytes= bad_consumer=\n"
		"           cluster= (ID:POLICY, or - for none) path= gaps= gap_lost=\n"
		"           cutoff= cutoff_bytes= flows_evicted=\n"
		"Stops cleanly on SIGINT/SIGTERM. Exit: 0 ok, 1 error, 2 bad usage.\n",
		RINGCAP_SNAPLEN_MAX, sizeof(struct ringcap_rec),
		RINGCAP_WATERMARK_MAX, RINGCAP_TIMEOUT_US_MAX,
		RINGCAP_RING_SIZE_MIN, RINGCAP_RING_SIZE_MAX,
		RINGCAP_FLOW_CUTOFF_MAX);
}

const char cli_prog[] = PROG;
const struct option cli_longopts[] = {
	{ "interface", required_argument, NULL, 'i' },
	{ "count", required_argument, NULL, 'c' },
	{ "duration", required_argument, NULL, 'd' },
	{ "snaplen", required_argument, NULL, 's' },
	{ "write", required_argument, NULL, 'w' },
	{ "rotate-size", required_argument, NULL, 'S' },
	{ "rotate-seconds", required_argument, NULL, 'G' },
	{ "watermark", required_argument, NULL, 'W' },
	{ "timeout", required_argument, NULL, 't' },
	{ "ring-size", required_argument, NULL, 'r' },
	{ "cutoff", required_argument, NULL, 'k' },
	{ "cluster", required_argument, NULL, 'C' },
	{ "zero-copy", no_argument, NULL, 'z' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void parse_args(int argc, char **argv, struct opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	/*
	 * Counting wants throughput: few wake-ups (watermark 0 stands for
	 * rcap_batch_watermark() of the ring and snaplen), each frame
	 * within 100 ms.
	 */
	o->timeout_us = 100000;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:c:d:s:w:S:G:W:t:r:k:C:zqh", cli_longopts,
				NULL)) != -1) {
		switch (c) {
		case 'i':
			o->spec = optarg;
			break;
		case 'c':
			o->count = cli_num(c, optarg, 1, ~0ULL, 0);
			break;
		case 'd':
			o->duration = cli_seconds(c, optarg, 1e7);
			break;
		case 's':
			o->snaplen = cli_num(c, optarg, 1, RINGCAP_SNAPLEN_MAX, 0);
			break;
		case 'w':
			o->wfile = optarg;
			break;
		case 'S':
			o->rotate_bytes = cli_num(c, optarg, 4096, 1ULL << 50, 1);
			break;
		case 'G':
			o->rotate_seconds = cli_seconds(c, optarg, 1e7);
			break;
		case 'W':
			o->watermark = cli_num(c, optarg, 1, RINGCAP_WATERMARK_MAX,
					       0);
			break;
		case 't':
			o->timeout_us = cli_num(c, optarg, 0,
						RINGCAP_TIMEOUT_US_MAX, 0);
			break;
		case 'r':
			o->ring_size = cli_num(c, optarg, RINGCAP_RING_SIZE_MIN,
					       RINGCAP_RING_SIZE_MAX, 1);
			if (o->ring_size & (o->ring_size - 1))
				bad_usage("-r: %u is not a power of two",
					  o->ring_size);
			break;
		case 'k':
			o->cutoff = cli_num(c, optarg, 1, RINGCAP_FLOW_CUTOFF_MAX,
					    1);
			break;
		case 'C':
			if (rcap_parse_cluster(optarg, &o->cluster_id,
						  &o->cluster_policy))
				bad_usage("-C: bad cluster '%s': expected ID or ID:flow|rr|queue[+span], or ID:flow[+span]+inner, ID 1..4294967295",
					  optarg);
			break;
		case 'z':
			o->zerocopy = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			cli_bad_option(c, argv);
		}
	}
	if (optind < argc)
		bad_usage("unexpected argument '%s'", argv[optind]);
	if (!o->spec)
		bad_usage("-i DEV[@QUEUE] is required");
	if (rcap_parse_spec(o->spec, o->ifname, sizeof(o->ifname),
			       &o->queue))
		bad_usage("-i: bad device '%s': expected DEV or DEV@QUEUE",
			  o->spec);
	/* The kernel would refuse both at bind; say so before opening. */
	if (o->zerocopy && o->queue < 0)
		bad_usage("-z: zero-copy needs one RX queue: name it as %s@Q",
			  o->ifname);
	if (o->zerocopy && o->cluster_id)
		bad_usage("-z and -C do not go together: a zero-copy socket has its queue to itself");
	if ((o->rotate_bytes || o->rotate_seconds) &&
	    (!o->wfile || !strcmp(o->wfile, "-")))
		bad_usage("-S and -G rotate the files of -w FILE: name one (not '-')");
}

static const char *queue_str(const struct opts *o, char *buf, size_t len)
{
	if (o->queue < 0)
		return "all";
	snprintf(buf, len, "%d", o->queue);
	return buf;
}

/* Open, configure, bind and map; exits with a message on failure. */
static struct ringcap *setup(struct opts *o)
{
	struct ringcap_path path;
	uint32_t ring_size = 0;
	struct ringcap *rc;
	int bad_arg;

	if (access("/sys/module/ringcap", F_OK)) {
		fprintf(stderr,
			PROG ": ringcap module not loaded (no /sys/module/ringcap)\n");
		exit(1);
	}
	rc = rcap_open();
	if (!rc) {
		if (errno == EAFNOSUPPORT)
			fprintf(stderr,
				PROG ": ringcap module not loaded (no family in /sys/module/ringcap/parameters)\n");
		else
			fprintf(stderr,
				PROG ": cannot open a ringcap socket: %s%s\n",
				strerror(errno),
				errno == EPERM ? " (needs CAP_NET_RAW)" : "");
		exit(1);
	}
	if ((o->ring_size && rcap_set_ring_size(rc, o->ring_size)) ||
	    (o->snaplen && rcap_set_snaplen(rc, o->snaplen)) ||
	    (!o->watermark && rcap_get_ring_size(rc, &ring_size)) ||
	    rcap_set_wakeup(rc, o->watermark ? o->watermark :
			       rcap_batch_watermark(ring_size, o->snaplen),
			       o->timeout_us) ||
	    (o->cluster_id && rcap_set_cluster(rc, o->cluster_id,
						  o->cluster_policy)) ||
	    (o->zerocopy && rcap_set_zerocopy(rc, 1)) ||
	    (o->cutoff && rcap_set_cutoff(rc, o->cutoff)) ||
	    rcap_set_gaps(rc, 1)) {
		/* The kernel refusing a value is still a bad argument. */
		bad_arg = errno == EINVAL;
		fprintf(stderr, PROG ": %s\n", rcap_errmsg(rc));
		exit(bad_arg ? EXIT_USAGE : 1);
	}
	if (rcap_bind(rc, o->ifname, o->queue) || rcap_map(rc)) {
		fprintf(stderr, PROG ": %s\n", rcap_errmsg(rc));
		exit(1);
	}
	if (rcap_path(rc, &path))
		memset(&path, 0, sizeof(path));
	snprintf(o->path, sizeof(o->path), "%s", rcap_path_name(&path));
	return rc;
}

/* The lines go to stdout, or to stderr when the capture file is stdout. */
static FILE *lines;

static void print_second(struct ringcap *rc, const struct tally *now,
			 const struct tally *prev, double t, double dt)
{
	struct ringcap_stats st;

	if (rcap_stats_sized(rc, &st, sizeof(st)))
		memset(&st, 0, sizeof(st));
	fprintf(lines, "t=%.2f fps=%.0f mbps=%.2f total=%llu dropped=%llu filtered=%llu nic_dropped=%llu\n",
		t, (now->frames - prev->frames) / dt,
		(now->bytes - prev->bytes) * 8 / dt / 1e6, now->frames,
		(unsigned long long)st.dropped,
		(unsigned long long)st.filtered,
		(unsigned long long)st.nic_dropped);
	fflush(lines);
}

static void print_summary(struct ringcap *rc, const struct opts *o,
			  const struct tally *tl, double seconds,
			  const struct ringcap_stats *st, unsigned int files)
{
	char qbuf[16], cbuf[24] = "-";
	struct ringcap_path path;
	const char *pname = o->path;

	if (o->cluster_id)
		snprintf(cbuf, sizeof(cbuf), "%u:%s", o->cluster_id,
			 rcap_cluster_policy_name(o->cluster_policy));
	if (!rcap_path(rc, &path) && path.path != RINGCAP_PATH_UNBOUND)
		pname = rcap_path_name(&path);
	fprintf(lines, PROG ": dev=%s queue=%s captured=%llu dropped=%llu filtered=%llu nic_dropped=%llu wakeups=%llu seconds=%.2f received=%llu bytes=%llu bad_consumer=%llu cluster=%s path=%s gaps=%llu gap_lost=%llu cutoff=%llu cutoff_bytes=%llu flows_evicted=%llu files=%u\n",
		o->ifname, queue_str(o, qbuf, sizeof(qbuf)), tl->frames,
		(unsigned long long)st->dropped,
		(unsigned long long)st->filtered,
		(unsigned long long)st->nic_dropped,
		(unsigned long long)st->wakeups, seconds,
		(unsigned long long)st->received, tl->bytes,
		(unsigned long long)st->bad_consumer, cbuf, pname,
		tl->gaps, tl->gap_lost, (unsigned long long)st->cutoff,
		(unsigned long long)st->cutoff_bytes,
		(unsigned long long)st->flows_evicted, files);
	fflush(lines);
}

/* A gap record: its loss goes with the next frame, and on a line. */
static void gap_seen(const struct opts *o, struct tally *tl,
		     const struct ringcap_gap *g, const struct ticker *tk)
{
	uint64_t lost = g->ring_full + g->cluster_full + g->nic;

	tl->gaps++;
	tl->gap_lost += lost;
	tl->lost_before += lost;
	/* A record of cut-off frames alone is no loss: the summary has them. */
	if (!lost || o->quiet || tl->gap_lines >= GAP_LINES)
		return;
	tl->gap_lines++;
	fprintf(lines, "gap: t=%.2f lost=%llu ring_full=%llu cluster_full=%llu nic=%llu cutoff=%llu after=%llu\n",
		ticker_seconds(tk), (unsigned long long)lost,
		(unsigned long long)g->ring_full,
		(unsigned long long)g->cluster_full,
		(unsigned long long)g->nic, (unsigned long long)g->cutoff,
		tl->frames);
}

/* Count (and write) what the ring holds now, up to a batch; -1 on error. */
static int take(struct ringcap *rc, const struct opts *o, struct tally *tl,
		struct capfile *cf, const struct ticker *tk)
{
	struct ringcap_pkt pkts[BATCH];
	struct ringcap_gap g;
	int i, n, want = BATCH;

	if (o->count && o->count - tl->frames < BATCH)
		want = (int)(o->count - tl->frames);
	n = rcap_recv_batch(rc, pkts, want);
	if (n < 0) {
		fprintf(stderr, PROG ": %s\n", rcap_errmsg(rc));
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (rcap_gap(&pkts[i], &g)) {
			gap_seen(o, tl, &g, tk);
			continue;
		}
		tl->frames++;
		tl->bytes += pkts[i].rec->wire_len;
		if (cf)
			capfile_frame(cf, &pkts[i], tl->lost_before);
		tl->lost_before = 0;
	}
	if (n)
		rcap_release(rc);
	if (cf && cf->err) {
		fprintf(stderr, PROG ": %s: %s\n", cf->path, strerror(-cf->err));
		return -1;
	}
	return n;
}

/* The capture loop; returns the exit status. */
static int count(struct ringcap *rc, const struct opts *o, struct capfile *cf)
{
	struct tally tl = { 0 }, prev = { 0 };
	struct ringcap_stats st;
	unsigned long long now;
	int n, status = 0;
	long left;
	struct ticker tk;
	double t, dt;

	ticker_start(&tk, o->duration);
	while (!cli_stop) {
		n = take(rc, o, &tl, cf, &tk);
		if (n < 0) {
			status = 1;
			break;
		}
		if (o->count && tl.frames >= o->count)
			break;

		now = now_ns();
		if (ticker_due(&tk, now, &t, &dt)) {
			if (!o->quiet)
				print_second(rc, &tl, &prev, t, dt);
			tl.gap_lines = 0;
			prev = tl;
		}
		if (ticker_over(&tk, now))
			break;
		if (n)
			continue;	/* more may be ready: no sleep yet */

		/*
		 * Sleep until the kernel's wake-up policy says so, but no
		 * later than the next report or the deadline. A signal
		 * interrupts poll() (no SA_RESTART) and is seen above.
		 * With -z this poll() of an empty ring is also what lets
		 * the driver fetch new frames and re-arm the buffers.
		 */
		if (rcap_wait(rc, ticker_wait_ms(&tk, now)) < 0 &&
		    errno != EINTR) {
			fprintf(stderr, PROG ": %s\n", rcap_errmsg(rc));
			status = 1;
			break;
		}
	}
	/*
	 * Stopped by a signal or the duration: frames the ring took that no
	 * wake-up has announced yet (the default watermark batches many)
	 * still count. At most what one ring holds, so that traffic that
	 * keeps coming cannot hold the stop up.
	 */
	left = rcap_hdr(rc)->data_size / sizeof(struct ringcap_rec);
	while (!status && left > 0 && (!o->count || tl.frames < o->count)) {
		n = take(rc, o, &tl, cf, &tk);
		if (n <= 0) {
			status = n < 0;
			break;
		}
		left -= n;
	}
	/* Counters survive the device going away, so this normally works. */
	if (rcap_stats_sized(rc, &st, sizeof(st)))
		memset(&st, 0, sizeof(st));
	if (cf && capfile_close(cf, &st))
		status = 1;
	print_summary(rc, o, &tl, ticker_seconds(&tk), &st, cf ? cf->files : 0);
	return status;
}

/* A full file ends with the counters as they are when it does. */
static int rotate_stats(void *arg, struct ringcap_stats *st)
{
	return rcap_stats_sized(arg, st, sizeof(*st));
}

int main(int argc, char **argv)
{
	struct capfile_rotate rot = { .stats = rotate_stats };
	struct capfile cf;
	struct ringcap *rc;
	struct opts o;
	int status;

	parse_args(argc, argv, &o);
	lines = o.wfile && !strcmp(o.wfile, "-") ? stderr : stdout;

	/* No SA_RESTART: a signal ends rcap_wait() at once. */
	cli_catch_stop(NULL, 0, 0);

	rc = setup(&o);
	rot.arg = rc;
	rot.bytes = o.rotate_bytes;
	rot.ns = (unsigned long long)(o.rotate_seconds * 1e9);
	if (o.wfile && capfile_open(&cf, o.wfile, PROG, o.ifname, o.queue,
				    rcap_hdr(rc)->snaplen,
				    rot.bytes || rot.ns ? &rot : NULL))
		return 1;
	status = count(rc, &o, o.wfile ? &cf : NULL);
	rcap_close(rc);
	return status;
}
