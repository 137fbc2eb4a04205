/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test frames with sequence numbers, their injection into the sim device,
 * and the reading side: walking a ring (checking every record) and
 * comparing what arrived with what was sent.
 *
 * Frame layout (all test frames are Ethernet with ethertype 0x88b5, the
 * IEEE local experimental type, which the stack ignores):
 *
 *   0  dst 02:00:00:00:00:02     14 "RCAPTEST"       28 queue (u8)
 *   6  src 02:00:00:00:00:01     22 seq (be32)       29 seq % 3
 *  12  ethertype 0x88b5          26 length (be16)    30 run (u8)
 *  31  pattern byte i = (seq * 131 + i * 7 + run) & 0xff, to the end
 *
 * So a frame can be regenerated from (seq, len, queue, run) and compared
 * byte for byte.
 */
#ifndef RC_FRAMES_H
#define RC_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "rc_util.h"

#define RC_ETH_P_TEST	0x88b5
#define RC_OFF_SEQ	22
#define RC_OFF_MOD3	29
#define RC_HDR_LEN	31
#define RC_MIN_LEN	60
#define RC_MAX_LEN	1514
#define RC_REC_HDR	((uint32_t)sizeof(struct ringcap_rec))

struct rc_spec {
	uint32_t seq;
	uint16_t len;
	uint8_t queue;
	uint8_t run;
};

/* 60..1514: every length once per 1455 consecutive sequence numbers. */
static inline uint16_t rc_varied_len(uint32_t seq)
{
	return RC_MIN_LEN + (seq * 379u) % (RC_MAX_LEN - RC_MIN_LEN + 1);
}

/* A fixed mix: 4 frames in 10 on queue 1, the rest on queue 0. */
static inline uint8_t rc_mixed_queue(uint32_t seq)
{
	return (seq * 7u) % 10u < 4 ? 1 : 0;
}

static inline uint32_t rc_rec_len(uint32_t caplen)
{
	return (RC_REC_HDR + caplen + RINGCAP_REC_ALIGN - 1) &
	       ~(uint32_t)(RINGCAP_REC_ALIGN - 1);
}

#define RC_LEN_VARIED	0
#define RC_QUEUE_MIXED	(-1)

/*
 * Fill specs[0..n) with seq first..first+n-1; len RC_LEN_VARIED or a fixed
 * length; queue a number or RC_QUEUE_MIXED. Returns specs, malloc'd if NULL.
 */
struct rc_spec *rc_specs(struct rc_spec *specs, unsigned int n,
			 uint32_t first, int queue, uint8_t run, uint16_t len);

void rc_frame_build(uint8_t *buf, const struct rc_spec *s);
/* Check a captured frame; fills *s from its header. 0, or -1 with why. */
int rc_frame_check(const uint8_t *data, uint32_t caplen, uint32_t wire_len,
		   struct rc_spec *s, char *why, size_t whylen);

/* Write frames to the sim's debugfs inject file; 0 or -errno. */
int rc_sim_inject(const char *dev, const struct rc_spec *specs,
		  unsigned int n);
/*
 * Frames built by the caller, first..first+n-1, injected in as few writes
 * as fit: build(i, arg, buf, &queue) writes frame i (at most RC_MAX_LEN
 * bytes) into buf, sets the RX queue it arrives on and returns its
 * length. 0 or -errno.
 */
typedef uint16_t (*rc_build_fn)(unsigned int i, const void *arg,
				uint8_t *buf, unsigned int *queue);
int rc_sim_inject_built(const char *dev, unsigned int first, unsigned int n,
			rc_build_fn build, const void *arg);
/* One write of buf to a sim debugfs file (inject, hold, aware...). */
int rc_sim_write(const char *dev, const char *file, const void *buf,
		 size_t len);
/* One raw frame of at most 9018 bytes through "inject" or "hold". */
int rc_sim_raw(const char *dev, const char *file, unsigned int queue,
	       const void *frame, uint16_t len);

/* What a reader saw: one entry per frame record. */
struct rc_seen {
	uint32_t seq;
	uint16_t len;		/* from the frame's own header */
	uint8_t queue;		/* from the frame's own header */
	uint8_t run;
	uint16_t flags;
	uint16_t rec_queue;
	uint32_t caplen;
	uint32_t wire_len;
	int ifindex;
	uint64_t tstamp_ns;
	uint16_t vlan_tci;
	uint16_t vlan_proto;
	uint64_t gap;		/* frames lost just before it (gap records) */
};

struct rc_cap {
	struct rc_seen *v;
	unsigned int n, max;
	/* gap records (RINGCAP_GAPS): their counts added up, by reason */
	struct ringcap_gap gap_sum;
	unsigned int gaps;	/* how many records */
	uint64_t gap_next;	/* lost after the last frame seen */
	unsigned int foreign;	/* frames that are not test frames */
	unsigned int bad;	/* test frames whose bytes were wrong */
	char why[256];		/* the first problem seen */
};

void rc_cap_init(struct rc_cap *c, unsigned int max);
void rc_cap_free(struct rc_cap *c);
void rc_cap_reset(struct rc_cap *c);

/*
 * Read every record below the producer into c, checking each one (record
 * bounds, lengths, padding, frame bytes), then release them. Returns the
 * number of frame records read, or -EIO on a corrupt record (c->why).
 * Gap records count as corrupt unless r->gaps; their counts go into c,
 * each against the frame that follows it.
 */
int rc_drain(struct rc_ring *r, struct rc_cap *c);
/* Like rc_drain, but stop after max frame records (rest stays unread). */
int rc_drain_max(struct rc_ring *r, struct rc_cap *c, unsigned int max);

/*
 * Compare what was seen with the frames sent, in order: count, seq, run,
 * queue, wire length, caplen (min(len, snaplen)), TRUNC flag, ifindex
 * (if > 0), non-decreasing timestamps within [t0, t1] (if t1). 0, or -1
 * with why.
 */
int rc_cap_expect(const struct rc_cap *c, const struct rc_spec *specs,
		  unsigned int n, int ifindex, uint32_t snaplen,
		  uint64_t t0, uint64_t t1, char *why, size_t whylen);
/* rc_cap_expect's snaplen for a capture that cuts nothing (AF_PACKET's) */
#define RC_SNAP_WHOLE	UINT32_MAX

/* Keep only specs[i] for which keep(specs[i]) is true; returns new n. */
unsigned int rc_specs_filter(struct rc_spec *specs, unsigned int n,
			     bool (*keep)(const struct rc_spec *));

/*
 * The ring's rules (uapi header) for a reader that does not move: which
 * frames fit, starting from an empty ring of data_size bytes. Sets fit[i];
 * returns how many fit.
 */
unsigned int rc_ring_model(uint32_t data_size, const struct rc_spec *specs,
			   unsigned int n, uint32_t snaplen, bool *fit);

/* AF_PACKET view of the stack: a socket on ifindex that counts frames. */
int rc_packet_open(int ifindex);
/* Read whatever is queued into c (incoming test frames only). */
int rc_packet_drain(int fd, struct rc_cap *c);
/* Frames the AF_PACKET socket dropped (PACKET_STATISTICS), or -errno. */
long rc_packet_drops(int fd);
/* Send frames out of ifindex through an AF_PACKET socket; 0 or -errno. */
int rc_packet_send(int fd, int ifindex, const struct rc_spec *specs,
		   unsigned int n);

#endif /* RC_FRAMES_H */
