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

#define PROG		"rcgen"

#define TX_BATCH	64		/* frames per sendmmsg(), or per kick */
#define RX_BATCH	32		/* datagrams per recvmmsg() */
#define RX_SNAP		65536		/* more than any UDP/IPv4 datagram */
#define RX_RCVBUF	(32 << 20)	/* asked for; the kernel may cap it */
#define RATE_MAX	10000000ULL

#define FRAME_MIN	60		/* Ethernet minimum without FCS */
#define REPLAY_MIN	14		/* an Ethernet header, the least a frame is */
#define FRAME_MAX	1514		/* 1500-byte MTU */
#define FLOW_PORT	10000		/* source port of flow 0 */
#define FLOWS_MAX	(65536 - FLOW_PORT)
#define FLOW_SRC_IP	0x0a010001U	/* 10.1.0.1, source of flow 0 */
#define RCGEN_MAGIC	0x52434731U	/* "RCG1" */
#define TX_RING_SIZE	(4U << 20)	/* --tx-ring-size default */
#define TX_DRAIN_MS	5000		/* for the last frames to go out */

/*
 * Offsets into a frame. Every field that changes per frame is 16-bit
 * aligned, so the checksums can be updated from precomputed sums of the
 * rest instead of summing the whole frame each time.
 */
#define OFF_IP		14
#define OFF_IP_ID	(OFF_IP + 4)
#define OFF_IP_CSUM	(OFF_IP + 10)
#define OFF_IP_SRC	(OFF_IP + 12)
#define OFF_IP_DST	(OFF_IP + 16)
#define OFF_UDP		34
#define OFF_UDP_CSUM	(OFF_UDP + 6)
#define OFF_PAYLOAD	42
#define OFF_SEQ		(OFF_PAYLOAD + 4)
#define OFF_FLOW	(OFF_PAYLOAD + 8)
#define OFF_FILLER	(OFF_PAYLOAD + 12)

enum {
	OPT_TO = 256, OPT_BIND, OPT_HOST, OPT_RATE, OPT_SIZE, OPT_FLOWS,
	OPT_COUNT, OPT_DURATION, OPT_DST_MAC, OPT_SRC_MAC, OPT_DST_IP,
	OPT_DPORT, OPT_RECV, OPT_WRITE, OPT_REPLAY, OPT_TX_RING,
	OPT_TX_RING_SIZE,
};

#define GIVEN(opt)	(1U << ((opt) - OPT_TO))
#define SEND_ONLY	(GIVEN(OPT_TO) | GIVEN(OPT_RATE) | GIVEN(OPT_SIZE) | \
			 GIVEN(OPT_FLOWS) | GIVEN(OPT_DST_MAC) | \
			 GIVEN(OPT_SRC_MAC) | GIVEN(OPT_DST_IP) | \
			 GIVEN(OPT_DPORT) | GIVEN(OPT_REPLAY) | \
			 GIVEN(OPT_TX_RING) | GIVEN(OPT_TX_RING_SIZE))
/* What addresses QEMU's socket, meaningless for a device's ring. */
#define UDP_ONLY	(GIVEN(OPT_TO) | GIVEN(OPT_BIND) | GIVEN(OPT_HOST))
/* What shapes generated frames, meaningless for a replayed file. */
#define GEN_ONLY	(GIVEN(OPT_SIZE) | GIVEN(OPT_FLOWS) | \
			 GIVEN(OPT_DST_MAC) | GIVEN(OPT_SRC_MAC) | \
			 GIVEN(OPT_DST_IP) | GIVEN(OPT_DPORT))

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

struct opts {
	unsigned int given;		/* GIVEN() bits */
	int recv;
	struct in_addr host;
	unsigned int to_port;
	unsigned int bind_port;		/* with GIVEN(OPT_BIND) only */
	unsigned long long rate;	/* frames per second, 0: no limit */
	unsigned int size;
	unsigned int flows;
	unsigned long long count;	/* 0: no limit (replay: the file once) */
	double duration;		/* seconds, 0: no limit */
	uint8_t dst_mac[6];
	uint8_t src_mac[6];
	struct in_addr dst_ip;
	unsigned int dport;
	const char *write;
	const char *replay;		/* pcap file to send, or NULL */
	char tx_dev[IFNAMSIZ];		/* --tx-ring DEV, or "" */
	uint32_t tx_ring_size;
	int quiet;
};

struct tally {
	unsigned long long frames;
	unsigned long long bytes;
	unsigned long long errors;	/* send mode only */
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
	if (ringcap_parse_spec(s, o->tx_dev, sizeof(o->tx_dev), &queue))
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

static unsigned int local_port(int fd)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);

	if (getsockname(fd, (struct sockaddr *)&sa, &len))
		die_errno("getsockname");
	return ntohs(sa.sin_port);
}

static int open_socket(const struct opts *o)
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
struct gen {
	const struct opts *o;
	const struct pcapfile *pf;	/* replaying, else NULL */
	uint8_t *frames;
	struct iovec iov[TX_BATCH];
	struct mmsghdr msgs[TX_BATCH];
	/* Sums of the template, per-frame fields (zero there) left out. */
	uint32_t ip_sum;	/* IPv4 header */
	uint32_t udp_sum;	/* pseudo-header, UDP header and payload */
};

static void gen_init(struct gen *g, const struct opts *o,
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
static struct ringcap *tx_open(const struct opts *o)
{
	long page = sysconf(_SC_PAGESIZE);
	struct ringcap *rc;
	int status;

	rc = ringcap_open();
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
	if (ringcap_set_capture(rc, 0) ||
	    ringcap_set_ring_size(rc, page > (long)RINGCAP_RING_SIZE_MIN ?
				  (uint32_t)page : RINGCAP_RING_SIZE_MIN))
		die(1, "--tx-ring %s: %s", o->tx_dev, ringcap_errmsg(rc));
	if (ringcap_set_tx_ring(rc, o->tx_ring_size)) {
		/* A size the module refuses is still a bad argument. */
		status = errno == EINVAL ? EXIT_USAGE : 1;
		die(status, "--tx-ring-size %u: %s", o->tx_ring_size,
		    ringcap_errmsg(rc));
	}
	if (ringcap_bind(rc, o->tx_dev, -1) || ringcap_map(rc))
		die(1, "--tx-ring %s: %s", o->tx_dev, ringcap_errmsg(rc));
	return rc;
}

/*
 * Before the first frame: every frame must be one the ring takes, or
 * rcgen would stop halfway through a file. The device's limit is its
 * MTU plus an Ethernet and a VLAN header; a small ring may set a lower one.
 */
static void tx_check_lengths(struct ringcap *rc, const struct opts *o,
			     const struct pcapfile *pf)
{
	uint32_t max = ringcap_tx_frame_max(rc), longest = o->size;
	size_t i;

	if (pf)
		for (i = 0, longest = 0; i < pf->count; i++)
			if (pf->frames[i].iov_len > longest)
				longest = pf->frames[i].iov_len;
	if (longest <= max)
		return;
	if (max < ringcap_tx_hdr(rc)->frame_max)
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
		if (ringcap_tx_put(rc, iov->iov_base, iov->iov_len))
			break;
	}
	if (i < want && errno != EAGAIN)
		goto fail;
	if (ringcap_tx_flush(rc) < 0)
		goto fail;
	if (!i && ringcap_tx_wait(rc, ticker_wait_ms(tk, now_ns())) < 0 &&
	    errno != EINTR)
		goto fail;
	return i;
fail:
	fprintf(stderr, PROG ": --tx-ring %s: %s\n", o->tx_dev,
		ringcap_errmsg(rc));
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

	while ((ret = ringcap_tx_flush(rc)) == 1) {
		if (now_ns() >= deadline) {
			fprintf(stderr, PROG ": --tx-ring %s: the device's queue stayed full for %d s; the frames still in the transmit ring are not sent\n",
				o->tx_dev, TX_DRAIN_MS / 1000);
			return 1;
		}
		/* A second signal does not cut this short: it is bounded. */
		if (ringcap_tx_wait(rc, 100) < 0 && errno != EINTR)
			break;
	}
	if (!ret)
		return 0;
	fprintf(stderr, PROG ": --tx-ring %s: %s\n", o->tx_dev,
		ringcap_errmsg(rc));
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
	if (rc && ringcap_tx_stats(rc, &st)) {
		/* The header's mirror of them, as of the last kick. */
		hdr = ringcap_tx_hdr(rc);
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
static int send_loop(int fd, struct ringcap *rc, const struct opts *o,
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

/* Receiving: RX_BATCH buffers, each with room for a timestamp. */
struct rx {
	uint8_t *bufs;
	struct iovec iov[RX_BATCH];
	struct mmsghdr msgs[RX_BATCH];
	union {
		char buf[CMSG_SPACE(sizeof(struct timeval))];
		struct cmsghdr align;
	} ctl[RX_BATCH];
	FILE *pcap;
};

static void rx_init(struct rx *r, int fd, const struct opts *o)
{
	struct pcapfile_hdr fh = {
		.magic = PCAPFILE_MAGIC_US,
		.major = 2,
		.minor = 4,
		.snaplen = RX_SNAP,
		.linktype = PCAPFILE_ETHERNET,
	};
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
static int recv_loop(int fd, const struct opts *o, struct rx *r)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct tally tl = { 0 }, prev = { 0 };
	int i, n, want, status = 0;
	unsigned long long now;
	struct ticker tk;
	double t, dt;

	ticker_start(&tk, o->duration);
	while (!cli_stop) {
		want = RX_BATCH;
		if (o->count && o->count - tl.frames < RX_BATCH)
			want = (int)(o->count - tl.frames);
		for (i = 0; i < want; i++) {
			/* The kernel shrinks these to what it filled in. */
			r->msgs[i].msg_hdr.msg_control =
				r->pcap ? r->ctl[i].buf : NULL;
			r->msgs[i].msg_hdr.msg_controllen =
				r->pcap ? sizeof(r->ctl[i].buf) : 0;
		}
		n = recvmmsg(fd, r->msgs, want, MSG_DONTWAIT, NULL);
		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR) {
				fprintf(stderr, PROG ": receive: %s\n",
					strerror(errno));
				status = 1;
				break;
			}
			n = 0;
		}
		for (i = 0; i < n; i++) {
			if (r->pcap && rx_write(r, i)) {
				fprintf(stderr, PROG ": cannot write %s: %s\n",
					o->write, strerror(errno));
				status = 1;
				break;
			}
			tl.frames++;
			tl.bytes += r->msgs[i].msg_len;
		}
		if (status || (o->count && tl.frames >= o->count))
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
		ringcap_close(rc);
	else
		close(fd);
	return status;
}
