// SPDX-License-Identifier: GPL-2.0
/*
 * packzip: capture packets through libpcap and compress each one (zlib's
 * gzip by default, or zstd), the "application load" of Braun et al. (IMC
 * 2010). The compression
 * level sets how much CPU every packet costs, so the share of packets an
 * application keeps can be measured against its per-packet work.
 *
 * It is a plain libpcap program on purpose: run as it is, it captures
 * through the stock Linux path (AF_PACKET); run under ringcap-run, the same
 * binary captures through ringcap. It never touches libringcap.
 *
 * This file is the command line; packzip_cap.c the capture, its loop and
 * the summary; packzip_zip.c the stream every packet is fed to: a
 * compressed pcap (or, with --format pcapng, pcapng) file that -w writes
 * out and that is otherwise only counted. Either way the compressor does
 * the same work. The last line on stdout is a key=value summary for
 * scripts:
 *
 *   packzip: dev=eth0 level=6 captured=1009 ps_recv=1009 ps_drop=0
 *   ps_ifdrop=0 bytes_in=88616 bytes_out=20871 ratio=0.236
 *   cpu_user_ms=12 cpu_sys_ms=4 wall_ms=1002 format=pcap compress=gzip
 *
 * (one line). With -r, "file=FILE" replaces "dev=" and the ps_* counters
 * are "-": libpcap keeps no statistics for a savefile.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "packzip.h"

#define MAX_SNAPLEN	262144		/* libpcap's own ceiling */

enum { OPT_IMMEDIATE = 256, OPT_NANO, OPT_FORMAT, OPT_COMPRESS };

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " PROG " -i DEV [options] [filter expression...]\n"
		"       " PROG " -r FILE [options] [filter expression...]\n"
		"Capture packets with libpcap and compress each (gzip or zstd).\n"
		"\n"
		"  -i, --interface DEV   capture live on DEV\n"
		"  -r, --read FILE       read a pcap savefile instead ('-': stdin)\n"
		"  -z, --level LEVEL     compression level (default 6): gzip 0..9\n"
		"                        (0 = stored), zstd 1..19\n"
		"      --compress KIND   gzip (default), zstd or none\n"
		"      --format FORMAT   pcap (default) or pcapng, with the\n"
		"                        capture's counters at the end\n"
		"  -c, --count N         stop after N packets\n"
		"  -t, --time SECONDS    stop after SECONDS (may be fractional)\n"
		"  -s, --snaplen BYTES   bytes kept per packet (1..262144, -i only)\n"
		"  -B, --buffer KIB      kernel buffer size in KiB (-i only)\n"
		"      --immediate       deliver each packet at once (-i only)\n"
		"      --nano            nanosecond timestamps\n"
		"  -w, --write FILE      write the compressed file\n"
		"                        ('-': stdout, summary then on stderr)\n"
		"  -h, --help            this text\n"
		"\n"
		"Last line: " PROG ": dev= (or file=) level= captured= ps_recv=\n"
		"  ps_drop= ps_ifdrop= bytes_in= bytes_out= ratio= cpu_user_ms=\n"
		"  cpu_sys_ms= wall_ms= format= compress=\n"
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
	if (o->compress == ZSINK_GZIP && o->level > 9)
		bad_usage("-z %d: gzip levels are 0..9", o->level);
	if (o->compress == ZSINK_ZSTD && !o->level)
		bad_usage("-z 0: zstd levels are 1..19");
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
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "compress", required_argument, NULL, OPT_COMPRESS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void parse_args(int argc, char **argv, struct opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->level = 6;
	o->compress = ZSINK_GZIP;
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
			o->level = (int)cli_num(c, optarg, 0, 19, 0);
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
		case OPT_FORMAT:
			if (strcmp(optarg, "pcap") && strcmp(optarg, "pcapng"))
				bad_usage("--format: '%s': expected pcap or pcapng",
					  optarg);
			o->pcapng = !strcmp(optarg, "pcapng");
			break;
		case OPT_COMPRESS:
			if (zsink_parse_kind(optarg, &o->compress))
				bad_usage("--compress: '%s': expected gzip, zstd or none",
					  optarg);
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

int main(int argc, char **argv)
{
	struct opts o;
	struct zip zp;
	pcap_t *p;
	int status;

	parse_args(argc, argv, &o);
	/* SA_RESTART: writes go on; poll() still ends (pcap_breakloop). */
	cli_catch_stop(cap_break, 1, 1);

	p = cap_open(&o);
	zip_open(&zp, p, &o);
	status = cap_run(p, &o, &zp);

	zip_free(&zp);
	pcap_close(p);
	free(o.filter);
	return status;
}
