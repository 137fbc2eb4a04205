// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a classic pcap file for replay (pcapfile.h). The whole file is
 * read first and every record checked before anything is sent, so a bad
 * record late in the file stops the tool before its first frame rather
 * than after a partial run a test would have to tell apart from loss.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "pcapfile.h"

#define READ_CHUNK	(1 << 20)

/* The format is little-endian here whatever the host is. */
static uint32_t get_le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint16_t get_le16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

/* All of @path (a pipe too: no size known in advance); *@size its length. */
static uint8_t *read_all(const char *path, size_t *size)
{
	size_t len = 0, room = 0, n;
	uint8_t *buf = NULL, *grown;
	FILE *f;

	f = fopen(path, "rb");
	if (!f)
		die_errno("cannot read %s", path);
	do {
		if (room - len < READ_CHUNK) {
			room = room ? room * 2 : READ_CHUNK;
			grown = realloc(buf, room);
			if (!grown)
				die_errno("%s: out of memory", path);
			buf = grown;
		}
		n = fread(buf + len, 1, room - len, f);
		len += n;
	} while (n);
	if (ferror(f))
		die_errno("cannot read %s", path);
	fclose(f);
	*size = len;
	return buf;
}

/* The file header: which kind of file it is, or why it cannot be used. */
static void check_header(const char *path, const uint8_t *d, size_t size,
			 int *nano)
{
	uint32_t magic, linktype;
	uint16_t major;

	if (size < sizeof(struct pcapfile_hdr))
		die(1, "%s: not a pcap file (%zu bytes, shorter than a pcap header)",
		    path, size);
	magic = get_le32(d);
	linktype = get_le32(d + offsetof(struct pcapfile_hdr, linktype));
	major = get_le16(d + offsetof(struct pcapfile_hdr, major));

	if (magic == 0x0a0d0d0a)
		die(1, "%s: a pcapng file; only classic pcap can be replayed (editcap -F pcap converts it)",
		    path);
	if (magic == __builtin_bswap32(PCAPFILE_MAGIC_US) ||
	    magic == __builtin_bswap32(PCAPFILE_MAGIC_NS))
		die(1, "%s: a big-endian pcap file; only little-endian ones can be replayed",
		    path);
	if (magic != PCAPFILE_MAGIC_US && magic != PCAPFILE_MAGIC_NS)
		die(1, "%s: not a pcap file (magic 0x%08x)", path, magic);
	if (major != 2)
		die(1, "%s: pcap version %u, expected 2", path, major);
	/*
	 * The whole field, not its low 16 bits: the upper ones say the
	 * frames carry an FCS, which must not be sent as frame bytes.
	 */
	if (linktype != PCAPFILE_ETHERNET)
		die(1, "%s: link type %u, not Ethernet (%u): only Ethernet frames without FCS can be replayed",
		    path, linktype, PCAPFILE_ETHERNET);
	*nano = magic == PCAPFILE_MAGIC_NS;
}

void pcapfile_load(struct pcapfile *pf, const char *path, unsigned int min,
		   unsigned int max)
{
	const size_t rec = sizeof(struct pcapfile_rec);
	size_t size, off, room = 0, nr;
	uint32_t caplen, len;
	struct iovec *grown;
	uint8_t *d;

	memset(pf, 0, sizeof(*pf));
	d = read_all(path, &size);
	check_header(path, d, size, &pf->nano);

	/* Records count from 1 in messages, as tcpdump and Wireshark do. */
	for (off = sizeof(struct pcapfile_hdr); off < size; off += rec + caplen) {
		nr = pf->count + 1;
		if (size - off < rec)
			die(1, "%s: record %zu: cut short at the end of the file (%zu of %zu header bytes)",
			    path, nr, size - off, rec);
		caplen = get_le32(d + off + offsetof(struct pcapfile_rec, caplen));
		len = get_le32(d + off + offsetof(struct pcapfile_rec, len));
		if (caplen != len)
			die(1, "%s: record %zu: %u of %u bytes captured; only whole frames can be replayed",
			    path, nr, caplen, len);
		if (caplen < min)
			die(1, "%s: record %zu: %u bytes, shorter than %u",
			    path, nr, caplen, min);
		if (caplen > max)
			die(1, "%s: record %zu: %u bytes, longer than %u",
			    path, nr, caplen, max);
		if (size - off - rec < caplen)
			die(1, "%s: record %zu: cut short at the end of the file (%zu of %u frame bytes)",
			    path, nr, size - off - rec, caplen);

		if (pf->count == room) {
			room = room ? room * 2 : 1024;
			grown = reallocarray(pf->frames, room, sizeof(*grown));
			if (!grown)
				die_errno("%s: out of memory", path);
			pf->frames = grown;
		}
		pf->frames[pf->count].iov_base = d + off + rec;
		pf->frames[pf->count].iov_len = caplen;
		pf->count++;
		pf->bytes += caplen;
	}
	if (!pf->count)
		die(1, "%s: no frames in the file", path);
	pf->data = d;
}

void pcapfile_free(struct pcapfile *pf)
{
	free(pf->frames);
	free(pf->data);
	memset(pf, 0, sizeof(*pf));
}
