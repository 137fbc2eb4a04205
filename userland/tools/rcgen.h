/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rcgen's parts (rcgen.c: the command line; rcgen_send.c: the frames and
 * the sending, to QEMU's socket or out of a transmit ring; rcgen_recv.c:
 * counting and saving what the guest sends): the options they share.
 */
#ifndef RCGEN_H
#define RCGEN_H

#include <stdint.h>
#include <stdio.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "libringcap.h"
#include "pcapfile.h"
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

/* rcgen_send.c */
int open_socket(const struct opts *o);
unsigned int local_port(int fd);
struct ringcap *tx_open(const struct opts *o);
void tx_check_lengths(struct ringcap *rc, const struct opts *o,
		      const struct pcapfile *pf);
void gen_init(struct gen *g, const struct opts *o, const struct pcapfile *pf);
int send_loop(int fd, struct ringcap *rc, const struct opts *o,
	      struct gen *g);

/* rcgen_recv.c */
void rx_init(struct rx *r, int fd, const struct opts *o);
int recv_loop(int fd, const struct opts *o, struct rx *r);

#endif /* RCGEN_H */
