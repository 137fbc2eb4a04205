/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pcapng writer (draft-ietf-opsawg-pcapng) for captures that carry
 * their own loss: a Section Header Block, an Interface Description Block
 * per capture point with nanosecond timestamps (if_tsresol 9), Enhanced
 * Packet Blocks with the loss just before each packet (epb_dropcount),
 * direction (epb_flags) and RX queue (epb_queue), and Interface
 * Statistics Blocks with the capture's counters. Blocks go into a zsink,
 * so the file is plain, gzip or zstd as the caller chose.
 *
 * No packaged library writes these (docs/PCAPNG.md says which were
 * checked), so this is ours: the blocks, not the compression.
 */
#ifndef RINGCAP_TOOLS_PCAPNG_H
#define RINGCAP_TOOLS_PCAPNG_H

#include <stdint.h>
#include "zsink.h"

#define PCAPNG_LINKTYPE_ETHERNET	1
#define PCAPNG_NO_QUEUE			UINT32_MAX

/* epb_flags: bits 0-1 the direction. */
#define PCAPNG_FLAG_INBOUND		0x1
#define PCAPNG_FLAG_OUTBOUND		0x2

struct pcapng {
	struct zsink *out;
	uint32_t nr_ifs;
	unsigned char *buf;		/* one block being built */
	size_t buf_size;
};

/*
 * What an Interface Statistics Block says, each counter present only if
 * its bit is in @have (PCAPNG_ISB_*), as a capture may not know them all.
 */
#define PCAPNG_ISB_IFRECV	0x01
#define PCAPNG_ISB_IFDROP	0x02
#define PCAPNG_ISB_FILTERACCEPT	0x04
#define PCAPNG_ISB_OSDROP	0x08
#define PCAPNG_ISB_USRDELIV	0x10

struct pcapng_stats {
	unsigned int have;
	uint64_t start_ns, end_ns;	/* isb_starttime, isb_endtime */
	uint64_t ifrecv;		/* frames the capture point was offered */
	uint64_t ifdrop;		/* lost by the interface (the NIC) */
	uint64_t filteraccept;		/* accepted by the filter */
	uint64_t osdrop;		/* lost by the OS (the ring was full) */
	uint64_t usrdeliv;		/* delivered to this program */
};

/* The section header, naming @app (shb_userappl). 0 or -errno. */
int pcapng_start(struct pcapng *w, struct zsink *out, const char *app);
/*
 * An interface: @name (if_name), @desc (if_description, or NULL),
 * @snaplen, and the filter it captures with (if_filter as a string, or
 * NULL). Returns its id for the blocks below, or -errno.
 */
int pcapng_interface(struct pcapng *w, const char *name, const char *desc,
		     uint32_t snaplen, const char *filter);
/*
 * A packet of interface @ifid at @tstamp_ns (nanoseconds since the
 * epoch): @caplen bytes of @data of a @wire_len frame, @dropcount
 * frames lost since the previous packet (the option is written when
 * non-zero), @flags PCAPNG_FLAG_*, @queue or PCAPNG_NO_QUEUE. 0 or -errno.
 */
int pcapng_packet(struct pcapng *w, uint32_t ifid, uint64_t tstamp_ns,
		  const void *data, uint32_t caplen, uint32_t wire_len,
		  uint64_t dropcount, uint32_t flags, uint32_t queue);
/* Statistics of interface @ifid at @tstamp_ns. 0 or -errno. */
int pcapng_stats(struct pcapng *w, uint32_t ifid, uint64_t tstamp_ns,
		 const struct pcapng_stats *st);
void pcapng_free(struct pcapng *w);

#endif
