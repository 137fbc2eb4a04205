/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A classic pcap file read whole into memory, for tools that send its
 * frames again (rcgen --replay). Only what can be sent as it is: little-
 * endian files with micro- or nanosecond timestamps, LINKTYPE_ETHERNET,
 * every frame captured whole. Anything else stops the tool with exit 1
 * and a message naming the file and, for a bad record, its number.
 *
 * Not named pcap_*: packzip links the same tool objects and libpcap.
 */
#ifndef RINGCAP_TOOLS_PCAPFILE_H
#define RINGCAP_TOOLS_PCAPFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define PCAPFILE_MAGIC_US	0xa1b2c3d4U	/* microsecond timestamps */
#define PCAPFILE_MAGIC_NS	0xa1b23c4dU	/* nanosecond timestamps */
#define PCAPFILE_ETHERNET	1		/* LINKTYPE_ETHERNET */

/* The file and record headers, in the writer's byte order. */
struct pcapfile_hdr {
	uint32_t magic;
	uint16_t major;
	uint16_t minor;
	int32_t thiszone;
	uint32_t sigfigs;
	uint32_t snaplen;
	uint32_t linktype;
};

struct pcapfile_rec {
	uint32_t sec;
	uint32_t frac;		/* micro- or nanoseconds, as the magic says */
	uint32_t caplen;
	uint32_t len;
};

struct pcapfile {
	uint8_t *data;			/* the whole file */
	struct iovec *frames;		/* each record's bytes, in file order */
	size_t count;
	unsigned long long bytes;	/* all frames' lengths added up */
	int nano;
};

/* The file header of a classic pcap file of Ethernet frames. */
static inline struct pcapfile_hdr pcapfile_hdr_of(int nano, uint32_t snaplen)
{
	return (struct pcapfile_hdr){
		.magic = nano ? PCAPFILE_MAGIC_NS : PCAPFILE_MAGIC_US,
		.major = 2,
		.minor = 4,
		.snaplen = snaplen,
		.linktype = PCAPFILE_ETHERNET,
	};
}

/*
 * Read @path and index its records; a frame shorter than @min or longer
 * than @max bytes is refused. Dies with exit 1 on any error.
 */
void pcapfile_load(struct pcapfile *pf, const char *path, unsigned int min,
		   unsigned int max);
void pcapfile_free(struct pcapfile *pf);

#endif
