/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests of the library's transmit side (test_tx_ring.c,
 * test_tx_kick.c) stand on: a transmit ring in ordinary memory (fake_tx
 * in fake_ring.c, whose consumer follows the ABI text) behind one fake
 * descriptor, FAKE_FD, whose kick (sendto), options (setsockopt,
 * getsockopt) and nanosleep() are replaced in tx_fixture.c; frames of
 * known bytes, and a check of what the fake device sent. libringcap.a is
 * linked statically, so its calls are these. No module.
 *
 * rcgen_fake (fake_tx_kernel.c) drives the same fake_tx from further up,
 * in place of the library's calls that need the kernel; here those calls
 * are the library's own and only the system calls under them are faked.
 */
#ifndef RC_TX_FIXTURE_H
#define RC_TX_FIXTURE_H

#include <stdint.h>
#include "fake_ring.h"

#define SIZE		4096
#define FRAME_MAX	1518
#define REC		sizeof(struct ringcap_tx_rec)
#define FAKE_FD		1000

/* Knobs of the fake descriptor, each read and reset by the next call. */
extern int kick_errno;		/* refuse the next kick with this */
extern int opt_errno;		/* refuse the next option with this */

/* nanosleep(): how often it was called, what each of the first asked for. */
extern unsigned long sleeps;
extern long sleep_ns[64];
/* The device takes all (budget -1) at the sleep of this number; 0: never. */
extern unsigned long drain_after;

/* What RINGCAP_TX_STATS reads, and the last value set of each option. */
extern const struct ringcap_tx_stats fake_stats;
extern uint32_t opt_set[32];

/* A frame of len bytes, byte i is (seq + i) & 0xff; reused by each call. */
const uint8_t *frame(uint32_t len, uint32_t seq);

/* What the fake device sent, checked against the frames put. */
struct seen {
	uint32_t n;		/* frames sent */
	uint32_t bad;		/* frames not as put */
	const uint32_t *lens;	/* expected lengths by seq, mod 1024 */
	uint32_t first_seq;
};

/*
 * A ring of size bytes, positions from start, whose handle kicks through
 * FAKE_FD; with seen, every frame sent is checked as frame() made it,
 * seq counting from seen->first_seq (0 unless set after this).
 */
void tx_init(struct fake_tx *ft, uint32_t size, uint64_t start,
	     uint32_t frame_max, struct seen *seen);
void tx_free(struct fake_tx *ft);

#endif /* RC_TX_FIXTURE_H */
