// SPDX-License-Identifier: GPL-2.0
/*
 * rcgen: traffic for a QEMU guest NIC on "-netdev dgram", from the host;
 * or, inside a guest, the same traffic out of a network device through a
 * ringcap transmit ring (--tx-ring DEV).
 *
 * QEMU's dgram backend carries each Ethernet frame (no FCS) as one UDP
 * datagram: what the guest sends goes from local.port to remote.port, and
 * each datagram arriving on local.port is a frame the guest receives. So
 * "rcgen --to LPORT" sends frames into the guest and "rcgen --recv --bind
 * RPORT" counts (and with --write saves) the frames the guest sends.
 *
 * The frames are Ethernet/IPv4/UDP, one source address and port per flow
 * so that RSS over IPv4 addresses alone spreads them over the RX queues.
 * The payload starts with a magic, a global sequence number and the flow
 * id (layout in rcgen(8)) so a receiver can check order and loss. With
 * --replay FILE it sends the frames of a pcap file instead, byte for byte
 * as captured, so a test can compare what arrives with what it wrote.
 *
 * With --tx-ring DEV the same frames go out of DEV instead: copied into
 * the transmit ring of a ringcap socket that captures nothing
 * (RINGCAP_CAPTURE 0, so that it takes no frame from the stack, even on
 * an aware NIC in transparent mode 2), a kick per batch.
 *
 * The last line on stdout is a summary for scripts, one line:
 *
 *   rcgen: sent=1009 bytes=129152 seconds=0.004 rate_pps=252250 flows=64
 *   size=128 send_errors=0 [tx_refused=0 tx_full=3]
 *   rcgen: received=1009 bytes=129152 seconds=0.210
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

const char cli_prog[] = PROG;
const struct option cli_longopts[] = {
	{ "to", required_argument, NULL, OPT_TO },
	{ "bind", required_argument, NULL, OPT_BIND },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "flows", required_argument, NULL, OPT_FLOWS },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "dst-mac", required_argument, NULL, OPT_DST_MAC },
	{ "src-mac", required_argument, NULL, OPT_SRC_MAC },
	{ "dst-ip", required_argument, NULL, OPT_DST_IP },
	{ "dport", required_argument, NULL, OPT_DPORT },
	{ "recv", no_argument, NULL, OPT_RECV },
	{ "write", required_argument, NULL, OPT_WRITE },
	{ "replay", required_argument, NULL, OPT_REPLAY },
	{ "tx-ring", required_argument, NULL, OPT_TX_RING },
	{ "tx-ring-size", required_argument, NULL, OPT_TX_RING_SIZE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " PROG " --to LPORT [options]\n"
		"       " PROG " --to LPORT --replay FILE [options]\n"
		"       " PROG " --tx-ring DEV [--replay FILE] [options]\n"
		"       " PROG " --recv --bind RPORT [options]\n"
		"Send frames to, or receive them from, a QEMU NIC on\n"
		"-netdev dgram,local.port=LPORT,remote.port=RPORT; or, in a guest,\n"
		"send the same frames out of a device through a ringcap transmit ring.\n"
		"\n"
		"Sending (Ethernet/IPv4/UDP, round-robin over flows):\n"
		"  --to LPORT        the NIC's local.port: send to HOST:LPORT\n"
		"  --bind RPORT      send from HOST:RPORT (the NIC's remote.port)\n"
		"  --rate PPS        frames per second, 0 = as fast as possible (default)\n"
		"  --size BYTES      frame length without FCS, %d..%d (default %d)\n"
		"  --flows N         flows, 1..%d: flow f is 10.1.0.1+f:%d+f (default 1)\n"
		"  --dst-mac MAC     destination MAC (default ff:ff:ff:ff:ff:ff)\n"
		"  --src-mac MAC     source MAC (default 02:00:00:00:00:01)\n"
		"  --dst-ip A.B.C.D  destination address (default 10.0.0.2)\n"
		"  --dport PORT      destination UDP port (default 5001)\n"
		"Replaying, with --to, --bind, --rate as above:\n"
		"  --replay FILE     send FILE's frames instead, byte for byte, in file\n"
		"                    order (timestamps ignored). FILE: classic pcap,\n"
		"                    little-endian, Ethernet, whole frames of %d..%d bytes.\n"
		"                    --count N goes round the file (default: once).\n"
		"                    Not with --size, --flows, --dst-mac, --src-mac,\n"
		"                    --dst-ip, --dport. Summary: flows=0 size=0.\n"
		"Sending out of a device (in a guest, ringcap loaded, CAP_NET_RAW), with\n"
		"--rate, --count, --duration, --replay and the frame options as above:\n"
		"  --tx-ring DEV     send through a transmit ring on DEV (a device name,\n"
		"                    no @QUEUE), from a socket that captures nothing.\n"
		"                    Not with --to, --bind, --host.\n"
		"  --tx-ring-size BYTES\n"
		"                    ring bytes, a power of two, %u..%u,\n"
		"                    k and M suffixes (default 4M)\n"
		"Receiving:\n"
		"  --recv            count the frames the guest sends; the summary's\n"
		"                    socket_drops= is what its full socket refused\n"
		"  --bind RPORT      the NIC's remote.port (0: any free port)\n"
		"  --write FILE      also write them to FILE (pcap, Ethernet)\n"
		"Both:\n"
		"  --host A.B.C.D    IPv4 address of both ends (default 127.0.0.1)\n"
		"  --count N         stop after N frames\n"
		"  --duration SEC    stop after SEC seconds (may be fractional)\n"
		"  -q, --quiet       only the summary line\n"
		"  -h, --help        this text\n"
		"\n"
		"Last line: " PROG ": sent= bytes= seconds= rate_pps= flows= size= send_errors=\n"
		"           (--tx-ring: then tx_refused= tx_full=)\n"
		"       or: " PROG ": received= bytes= seconds=\n"
		"Stops cleanly on SIGINT/SIGTERM. Exit: 0 ok, 1 error, 2 bad usage.\n",
		FRAME_MIN, FRAME_MAX, FRAME_MIN, FLOWS_MAX, FLOW_PORT,
		REPLAY_MIN, FRAME_MAX, RINGCAP_RING_SIZE_MIN,
		RINGCAP_RING_SIZE_MAX);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Exactly "xx:xx:xx:xx:xx:xx"; stops at the first bad character. */
static void parse_mac(int opt, const char *s, uint8_t *mac)
{
	const char *p = s;
	int i, hi, lo;

	for (i = 0; i < 6; i++, p += 3) {
		hi = hexval(p[0]);
		lo = hi < 0 ? -1 : hexval(p[1]);
		if (lo < 0 || p[2] != (i < 5 ? ':' : '\0'))
			bad_usage("%s: expected a MAC address like 52:54:00:12:34:56, got '%s'",
				  cli_optname(opt), s);
		mac[i] = hi << 4 | lo;
	}
}

static void parse_ip(int opt, const char *s, struct in_addr *addr)
{
	if (inet_pton(AF_INET, s, addr) != 1)
		bad_usage("%s: expected an IPv4 address A.B.C.D, got '%s'",
			  cli_optname(opt), s);
}

/*
 * --tx-ring DEV: a device name as the kernel allows it. A queue is
 * refused rather than ignored: the kernel picks the transmit queue.
 */
static void parse_tx_dev(int opt, const char *s, struct opts *o)
{
	int queue;

	if (strchr(s, '@'))
		bad_usage("%s: expected a device name without @QUEUE (the kernel picks the transmit queue), got '%s'",
			  cli_optname(opt), s);
	if (rcap_parse_spec(s, o->tx_dev, sizeof(o->tx_dev), &queue))
		bad_usage("%s: expected a network device name, got '%s'",
			  cli_optname(opt), s);
}

/* The first option of @mask given, for a message. */
static const char *first_given(const struct opts *o, unsigned int mask)
{
	unsigned int bit;

	for (bit = 0; !(o->given & mask & (1U << bit)); bit++)
		;
	return cli_optname(OPT_TO + bit);
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t src[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
	int c;

	memset(o, 0, sizeof(*o));
	o->host.s_addr = htonl(INADDR_LOOPBACK);
	o->size = FRAME_MIN;
	o->flows = 1;
	memcpy(o->dst_mac, bcast, 6);
	memcpy(o->src_mac, src, 6);
	o->dst_ip.s_addr = htonl(0x0a000002);	/* 10.0.0.2 */
	o->dport = 5001;
	o->tx_ring_size = TX_RING_SIZE;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", cli_longopts, NULL)) != -1) {
		if (c >= OPT_TO)
			o->given |= GIVEN(c);
		switch (c) {
		case OPT_TO:
			o->to_port = cli_num(c, optarg, 1, 65535, 0);
			break;
		case OPT_BIND:
			o->bind_port = cli_num(c, optarg, 0, 65535, 0);
			break;
		case OPT_HOST:
			parse_ip(c, optarg, &o->host);
			break;
		case OPT_RATE:
			o->rate = cli_num(c, optarg, 0, RATE_MAX, 0);
			break;
		case OPT_SIZE:
			o->size = cli_num(c, optarg, FRAME_MIN, FRAME_MAX, 0);
			break;
		case OPT_FLOWS:
			o->flows = cli_num(c, optarg, 1, FLOWS_MAX, 0);
			break;
		case OPT_COUNT:
			o->count = cli_num(c, optarg, 1, ~0ULL, 0);
			break;
		case OPT_DURATION:
			o->duration = cli_seconds(c, optarg, 1e7);
			break;
		case OPT_DST_MAC:
			parse_mac(c, optarg, o->dst_mac);
			break;
		case OPT_SRC_MAC:
			parse_mac(c, optarg, o->src_mac);
			/* A group bit in a source address is not a frame. */
			if (o->src_mac[0] & 1)
				bad_usage("--src-mac: %s is a multicast address",
					  optarg);
			break;
		case OPT_DST_IP:
			parse_ip(c, optarg, &o->dst_ip);
			break;
		case OPT_DPORT:
			o->dport = cli_num(c, optarg, 1, 65535, 0);
			break;
		case OPT_RECV:
			o->recv = 1;
			break;
		case OPT_WRITE:
			o->write = optarg;
			break;
		case OPT_REPLAY:
			o->replay = optarg;
			break;
		case OPT_TX_RING:
			parse_tx_dev(c, optarg, o);
			break;
		case OPT_TX_RING_SIZE:
			o->tx_ring_size = cli_num(c, optarg,
						  RINGCAP_RING_SIZE_MIN,
						  RINGCAP_RING_SIZE_MAX, 1);
			/* The kernel masks positions with size - 1. */
			if (o->tx_ring_size & (o->tx_ring_size - 1))
				bad_usage("%s: expected a power of two, got '%s'",
					  cli_optname(c), optarg);
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

	if (o->recv) {
		if (o->given & SEND_ONLY)
			bad_usage("%s is for sending, not with --recv",
				  first_given(o, SEND_ONLY));
		if (!(o->given & GIVEN(OPT_BIND)))
			bad_usage("--recv needs --bind RPORT");
	} else {
		if (o->write)
			bad_usage("--write needs --recv");
		if (o->tx_dev[0] && (o->given & UDP_ONLY))
			bad_usage("%s does not apply with --tx-ring: the frames go out of %s, not to QEMU's socket",
				  first_given(o, UDP_ONLY), o->tx_dev);
		if ((o->given & GIVEN(OPT_TX_RING_SIZE)) && !o->tx_dev[0])
			bad_usage("--tx-ring-size needs --tx-ring DEV");
		if (!o->tx_dev[0] && !(o->given & GIVEN(OPT_TO)))
			bad_usage("--to LPORT, --tx-ring DEV or --recv is required");
		/* Silently sending other frames than asked for helps nobody. */
		if (o->replay && (o->given & GEN_ONLY))
			bad_usage("%s conflicts with --replay: the frames come from the file",
				  first_given(o, GEN_ONLY));
	}
}

/* The first line on stderr: where the frames go, which, how fast. */
static void print_send_start(const struct opts *o, int fd,
			     const struct pcapfile *pf)
{
	char host[INET_ADDRSTRLEN];

	if (o->quiet)
		return;
	if (fd >= 0) {
		inet_ntop(AF_INET, &o->host, host, sizeof(host));
		fprintf(stderr, PROG ": sending to %s:%u from port %u", host,
			o->to_port, local_port(fd));
	} else {
		fprintf(stderr, PROG ": sending out of %s through a %u-byte transmit ring",
			o->tx_dev, o->tx_ring_size);
	}
	if (pf)
		fprintf(stderr, ", replay %s (%zu frames, %llu bytes) ",
			o->replay, pf->count, pf->bytes);
	else
		fprintf(stderr, ", flows=%u size=%u ", o->flows, o->size);
	if (o->rate)
		fprintf(stderr, "rate=%llu pps\n", o->rate);
	else
		fprintf(stderr, "rate=unlimited\n");
}

int main(int argc, char **argv)
{
	char host[INET_ADDRSTRLEN];
	struct ringcap *rc = NULL;
	struct pcapfile pf;
	struct opts o;
	struct gen g;
	struct rx r;
	int fd = -1, status;

	parse_args(argc, argv, &o);
	/* A bad file is reported before any socket is touched. */
	if (o.replay) {
		pcapfile_load(&pf, o.replay, REPLAY_MIN, FRAME_MAX);
		if (!o.count)
			o.count = pf.count;
	}

	/* No SA_RESTART: a signal cuts poll() and the pacing sleeps short. */
	cli_catch_stop(NULL, 0, 0);

	if (o.tx_dev[0]) {
		rc = tx_open(&o);
		tx_check_lengths(rc, &o, o.replay ? &pf : NULL);
	} else {
		fd = open_socket(&o);
	}
	inet_ntop(AF_INET, &o.host, host, sizeof(host));
	if (o.recv) {
		rx_init(&r, fd, &o);
		/* Scripts wait for this line, so it comes after bind(). */
		if (!o.quiet)
			fprintf(stderr, PROG ": receiving on %s:%u\n", host,
				local_port(fd));
		status = recv_loop(fd, &o, &r);
		free(r.bufs);
	} else {
		gen_init(&g, &o, o.replay ? &pf : NULL);
		print_send_start(&o, fd, o.replay ? &pf : NULL);
		status = send_loop(fd, rc, &o, &g);
		free(g.frames);
		if (o.replay)
			pcapfile_free(&pf);
	}
	if (rc)
		rcap_close(rc);
	else
		close(fd);
	return status;
}
